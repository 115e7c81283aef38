//! Zero-shot DAE-style scoring with any NLI cross-encoder (not a reference metric; a
//! factpico design, see `docs/dae.md`).
//!
//! For each scoring unit (summary sentence, or the whole summary in single-parse mode):
//! 1. the source is cut into AlignScore-style chunks ([`factpico_text::AlignScoreChunking`],
//!    NLTK Punkt sentences, [`crate::DaeOptions::chunk_words`] words per chunk);
//! 2. the **premise** is the chunk the NLI model finds most entailing for the unit's text
//!    (P(entailment | chunk, unit)) or, with [`crate::DaeOptions::premise_ranker`], the chunk
//!    an AlignScore model ranks highest for the summary sentence overlapping the unit most
//!    (`factpico-alignscore`, `nli_sp`, same chunking); with one chunk no ranking is run;
//! 3. each kept arc becomes a **hypothesis**, a contiguous span of the summary
//!    ([`HypothesisSpan`]), and its probability is P(entailment | premise, hypothesis)
//!    (softmax over the model's labels, the `entailment` label of its manifest).
//!
//! The per-arc probabilities then go through the same aggregation (min by default).

use std::ops::Range;

use factpico_nlp::Parse;
use factpico_runtime::PairClassifier;
use factpico_text::{AlignScoreChunking, Punkt};
use serde::{Deserialize, Serialize};

use crate::select::Unit;
use crate::{DaeInput, DaeOptions, Error, Result, UnitScores};

/// How a dependency arc becomes an NLI hypothesis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HypothesisSpan {
    /// The smallest contiguous span of the summary covering head and child
    /// (e.g. `lowered blood pressure` for `dobj(lowered, pressure)`).
    MinimalSpan,
    /// The span covering the head and the child's whole subtree (basic tree), e.g.
    /// `lowered the risk of death` for `dobj(lowered, risk)`.
    ChildSubtree,
    /// The minimal span extended to the nearest verb (UPOS `VERB`/`AUX`) governing the head,
    /// so that arcs inside a noun phrase are checked in their predicate's context
    /// (`lowered LDL cholesterol` for `compound(cholesterol, LDL)`). Default: it separated
    /// faithful from direction-reversed summaries best (`tests/dae_zeroshot.rs`,
    /// `docs/dae.md`): bare noun-phrase fragments get arbitrary NLI verdicts.
    #[default]
    PredicateSpan,
}

/// Which NLI probability is the zero-shot arc probability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArcProbability {
    /// `1 - P(contradiction)`: an arc counts as supported unless the premise contradicts it.
    /// Default: short arc fragments are mostly judged *neutral* by NLI models, which makes
    /// `P(entailment)` near 0 for faithful arcs too (measured in `tests/dae_zeroshot.rs`,
    /// see `docs/dae.md`).
    #[default]
    NotContradicted,
    /// `P(entailment)` (3-way softmax).
    Entailment,
    /// `P(entailment) / (P(entailment) + P(contradiction))`, neutral mass ignored.
    EntailmentVsContradiction,
}

pub(crate) struct ZeroShot {
    clf: PairClassifier,
    output: String,
    entail: usize,
    contra: Option<usize>,
    punkt: Punkt,
    ranker: Option<factpico_alignscore::AlignScore>,
}

fn overlap(a: &Range<usize>, s: usize, e: usize) -> usize {
    a.end.min(e).saturating_sub(a.start.max(s))
}

fn softmax64(x: &[f32]) -> Vec<f64> {
    factpico_runtime::softmax(x).into_iter().map(f64::from).collect()
}

/// Byte span of the hypothesis of arc (head, child) in the parse's text.
pub fn hypothesis_span(parse: &Parse, unit_tokens: Range<usize>, head: usize, child: usize, how: HypothesisSpan) -> Range<usize> {
    let (mut lo, mut hi) = (head.min(child), head.max(child));
    if how == HypothesisSpan::PredicateSpan {
        let mut cur = Some(head);
        let mut steps = 0;
        while let Some(c) = cur.filter(|c| unit_tokens.contains(c)) {
            let pos = parse.tokens[c].pos.as_str();
            if pos == "VERB" || pos == "AUX" {
                lo = lo.min(c);
                hi = hi.max(c);
                break;
            }
            cur = parse.tokens[c].head;
            steps += 1;
            if steps > parse.tokens.len() {
                break;
            }
        }
    }
    if how == HypothesisSpan::ChildSubtree {
        for t in unit_tokens {
            // is `t` a descendant of `child` in the basic tree?
            let mut cur = Some(t);
            let mut steps = 0;
            while let Some(c) = cur {
                if c == child {
                    lo = lo.min(t);
                    hi = hi.max(t);
                    break;
                }
                cur = parse.tokens.get(c).and_then(|x| x.head);
                steps += 1;
                if steps > parse.tokens.len() {
                    break; // cycle guard for malformed input
                }
            }
        }
    }
    parse.tokens[lo].span.start..parse.tokens[hi].span.end
}

impl ZeroShot {
    pub(crate) fn load(dir: &std::path::Path, opts: &DaeOptions) -> Result<Self> {
        let clf = PairClassifier::load(dir, &opts.session)?;
        let output = clf
            .output_names()
            .first()
            .cloned()
            .ok_or_else(|| Error::InvalidOption(format!("{}: the NLI graph has no output", dir.display())))?;
        let entail = clf.manifest().label_index(&output, "entailment").ok_or_else(|| {
            Error::InvalidOption(format!(
                "{}: output {output:?} has no `entailment` label in its manifest; a zero-shot DAE model must be an NLI cross-encoder",
                dir.display()
            ))
        })?;
        let contra = clf.manifest().label_index(&output, "contradiction");
        if contra.is_none() && opts.arc_probability != ArcProbability::Entailment {
            return Err(Error::InvalidOption(format!(
                "{}: output {output:?} has no `contradiction` label; use ArcProbability::Entailment",
                dir.display()
            )));
        }
        let ranker = match &opts.premise_ranker {
            Some(d) => Some(factpico_alignscore::AlignScore::try_new(
                d,
                factpico_alignscore::AlignScoreOptions {
                    words_per_chunk: opts.chunk_words,
                    session: opts.session.clone(),
                    ..factpico_alignscore::AlignScoreOptions::default()
                },
            )?),
            None => None,
        };
        Ok(Self { clf, output, entail, contra, punkt: Punkt::english(), ranker })
    }

    /// `(arc probability under `how`, NLI argmax is entailment)` per pair.
    fn arc_probs(&self, pairs: &[(&str, &str)], batch: usize, how: ArcProbability) -> Result<Vec<(f64, bool)>> {
        let raw = self.nli(pairs, batch)?;
        Ok(raw
            .into_iter()
            .map(|p| {
                let e = p.get(self.entail).copied().unwrap_or(0.0);
                let c = self.contra.and_then(|i| p.get(i).copied()).unwrap_or(0.0);
                let arg = p.iter().enumerate().fold(0, |b, (i, v)| if *v > p[b] { i } else { b });
                let v = match how {
                    ArcProbability::Entailment => e,
                    ArcProbability::NotContradicted => 1.0 - c,
                    ArcProbability::EntailmentVsContradiction => {
                        if e + c > 0.0 {
                            e / (e + c)
                        } else {
                            0.5
                        }
                    }
                };
                (v, arg == self.entail)
            })
            .collect())
    }

    fn nli(&self, pairs: &[(&str, &str)], batch: usize) -> Result<Vec<Vec<f64>>> {
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let out = self.clf.classify(pairs, batch)?;
        out.iter()
            .map(|(o, _)| {
                let row = o.get(&self.output).ok_or_else(|| Error::InvalidOption("NLI output missing".into()))?;
                Ok(softmax64(row))
            })
            .collect()
    }

    fn entail_probs(&self, pairs: &[(&str, &str)], batch: usize) -> Result<Vec<(f64, bool)>> {
        self.arc_probs(pairs, batch, ArcProbability::Entailment)
    }

    pub(crate) fn score(
        &self,
        items: &[DaeInput<'_>],
        parses: &[Option<&Parse>],
        units: &[Vec<Unit>],
        opts: &DaeOptions,
    ) -> Result<Vec<Vec<UnitScores>>> {
        let chunking = AlignScoreChunking::new(opts.chunk_words).map_err(|e| Error::InvalidOption(e.to_string()))?;
        let mut out: Vec<Vec<UnitScores>> = units.iter().map(|u| vec![UnitScores::default(); u.len()]).collect();
        // phase 1: premise per unit
        let mut chunks_of: Vec<Vec<String>> = vec![Vec::new(); items.len()];
        let mut rank_pairs: Vec<(usize, usize, usize)> = Vec::new(); // (item, unit, chunk)
        let mut best_ranked: Vec<(usize, usize, usize)> = Vec::new(); // (item, unit, chunk) from AlignScore
        for (i, us) in units.iter().enumerate() {
            if us.iter().all(|u| u.arcs.is_empty()) {
                continue;
            }
            chunks_of[i] = chunking.chunks(&self.punkt, items[i].source).into_iter().map(|c| c.text).collect();
            if chunks_of[i].len() > 1 && self.ranker.is_some() {
                if let Some(r) = &self.ranker {
                    let a = r.score(items[i].source, items[i].summary)?;
                    for (k, u) in us.iter().enumerate() {
                        let best = a
                            .sentences
                            .iter()
                            .max_by_key(|s| overlap(&u.span, s.span.start, s.span.end))
                            .map_or(0, |s| s.best_chunk);
                        best_ranked.push((i, k, best.min(chunks_of[i].len() - 1)));
                    }
                }
            } else if chunks_of[i].len() > 1 {
                for (k, u) in us.iter().enumerate() {
                    if !u.arcs.is_empty() {
                        rank_pairs.extend((0..chunks_of[i].len()).map(|c| (i, k, c)));
                    }
                }
            }
        }
        let texts: Vec<(&str, &str)> = rank_pairs
            .iter()
            .map(|&(i, k, c)| (chunks_of[i][c].as_str(), items[i].summary.get(units[i][k].span.clone()).unwrap_or("")))
            .collect();
        let probs = self.entail_probs(&texts, opts.batch_size)?;
        let mut best: Vec<Vec<(usize, f64)>> = units.iter().map(|u| vec![(0, f64::NEG_INFINITY); u.len()]).collect();
        for (&(i, k, c), (p, _)) in rank_pairs.iter().zip(probs) {
            if p > best[i][k].1 {
                best[i][k] = (c, p);
            }
        }
        for (i, k, c) in best_ranked {
            best[i][k] = (c, 1.0);
        }
        // phase 2: arcs
        let mut arc_pairs: Vec<(usize, usize, usize, String)> = Vec::new(); // (item, unit, arc, hypothesis)
        for (i, us) in units.iter().enumerate() {
            let Some(p) = parses[i] else { continue };
            for (k, u) in us.iter().enumerate() {
                let toks = u.word_token.first().copied().unwrap_or(0)..u.word_token.last().map_or(0, |t| t + 1);
                for (a, arc) in u.arcs.iter().enumerate() {
                    let sp = hypothesis_span(p, toks.clone(), arc.head, arc.child, opts.hypothesis);
                    let hyp = items[i].summary.get(sp).unwrap_or("").to_owned();
                    arc_pairs.push((i, k, a, hyp));
                }
            }
        }
        let texts: Vec<(&str, &str)> = arc_pairs
            .iter()
            .map(|(i, k, _, h)| (chunks_of[*i].get(best[*i][*k].0).map_or("", String::as_str), h.as_str()))
            .collect();
        let probs = self.arc_probs(&texts, opts.batch_size, opts.arc_probability)?;
        for ((i, k, a, h), (p, e)) in arc_pairs.into_iter().zip(probs) {
            out[i][k].arcs.push((a, p, e, Some(h)));
        }
        Ok(out)
    }
}
