//! Answer selection: which spans of a text questions are generated about.
//!
//! Two selectors, interchangeable:
//!
//! * [`AnswerSelector::Spacy`] — a spaCy pipeline behind [`factpico_nlp::ArcSource`]
//!   (normally the `factpico-nlp` sidecar, `en_core_web_sm` 3.8.0). Reproduces the references:
//!   - QuestEval (`questeval_metric.py:561-580`, `utils.py:22-38`): sentences by
//!     `split_on_punct` over the spaCy tokens (a new sentence starts at the first
//!     non-punctuation token after `.`, `!` or `?`), the first `limit_sent` joined by one
//!     space (`text5`), spaCy run again on `text5`; answers = all entities, then all noun
//!     chunks, in document order, duplicates kept.
//!   - QAEval (`answer_selection.py`, strategy `np-chunks`): noun chunks of each parser
//!     sentence (`doc.sents`).
//! * [`AnswerSelector::Rules`] — a pure-Rust fallback so the metrics run without Python:
//!   Punkt sentences ([`factpico_text::Punkt`], NLTK-identical) and regular-expression
//!   candidates typical of trial reports — confidence intervals, p-values, percentages,
//!   numbers with units, other numbers, capitalised spans (acronyms, names) — in document
//!   order, non-overlapping (earlier kinds win). Not comparable with spaCy's answers.
//!
//! Every result says which selector produced it ([`AnswerProvenance`]).
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use regex::Regex;
use serde::{Deserialize, Serialize};

use factpico_nlp::{ArcSource, Doc, ParseMode};

use crate::error::Result;

/// What kind of span an answer is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "label")]
pub enum AnswerKind {
    /// spaCy named entity (QuestEval `NER`), with its label (`CARDINAL`, `ORG`, ...).
    Entity(String),
    /// spaCy noun chunk (QuestEval `NOUN`, QAEval `np-chunks`).
    NounChunk,
    /// Rules: a confidence interval (`95% CI 0.48–0.85`).
    ConfidenceInterval,
    /// Rules: a p-value (`p = 0.002`, `P<0.05`).
    PValue,
    /// Rules: a percentage (`23%`).
    Percentage,
    /// Rules: a number with a unit or counted noun (`240 adults`, `5 mg`).
    Quantity,
    /// Rules: another number.
    Number,
    /// Rules: a capitalised span (acronym or name).
    Capitalized,
    /// Supplied by the caller.
    Provided,
}

impl AnswerKind {
    /// QuestEval's answer-type name: `NER` for entities, `NOUN` for noun chunks, else the
    /// rule name.
    pub fn type_name(&self) -> &'static str {
        match self {
            AnswerKind::Entity(_) => "NER",
            AnswerKind::NounChunk => "NOUN",
            AnswerKind::ConfidenceInterval => "CI",
            AnswerKind::PValue => "PVALUE",
            AnswerKind::Percentage => "PERCENT",
            AnswerKind::Quantity => "QUANTITY",
            AnswerKind::Number => "NUMBER",
            AnswerKind::Capitalized => "CAPITALIZED",
            AnswerKind::Provided => "PROVIDED",
        }
    }
}

/// One answer candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerCandidate {
    /// The answer string given to question generation (exactly the reference's string,
    /// e.g. spaCy's `ent.text` of the re-parsed `text5`).
    pub text: String,
    /// Byte span of the answer in the original text (`None` when it straddles a boundary
    /// that does not exist in the original, e.g. the space QuestEval inserts between
    /// sentences).
    pub span: Option<Range<usize>>,
    /// Byte span of the sentence holding the answer, in the original text.
    pub sentence: Range<usize>,
    /// Kind of span.
    pub kind: AnswerKind,
}

/// Which selector produced a set of answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "selector")]
pub enum AnswerProvenance {
    /// spaCy through an [`ArcSource`] (its name, e.g. `spacy`).
    Spacy {
        /// The source's name.
        source: String,
    },
    /// The pure-Rust rules over Punkt sentences.
    Rules,
    /// Answers supplied by the caller.
    Provided,
}

/// The answers of one text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answers {
    /// Candidates in the order questions are generated.
    pub candidates: Vec<AnswerCandidate>,
    /// Sentence spans used (QuestEval: the first `limit_sent` sentences).
    pub sentences: Vec<Range<usize>>,
    /// Which selector ran.
    pub provenance: AnswerProvenance,
}

/// How answers are selected.
#[derive(Clone, Default)]
pub enum AnswerSelector {
    /// spaCy entities / noun chunks through an annotation source (the sidecar).
    Spacy(Arc<dyn ArcSource>),
    /// Pure-Rust rules (no Python needed).
    #[default]
    Rules,
}

impl std::fmt::Debug for AnswerSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnswerSelector::Spacy(s) => write!(f, "Spacy({})", s.name()),
            AnswerSelector::Rules => write!(f, "Rules"),
        }
    }
}

/// spaCy's lexical `is_punct`: every character is Unicode punctuation (category P*).
fn is_punct(text: &str) -> bool {
    use unicode_categories::UnicodeCategories;
    !text.is_empty() && text.chars().all(|c| c.is_punctuation())
}

/// Maps byte offsets of a joined string (`text5`) back to the original text.
struct Joined {
    text: String,
    /// (start in joined, start in original, length) per sentence.
    segments: Vec<(usize, usize, usize)>,
}

impl Joined {
    fn new(original: &str, sentences: &[Range<usize>]) -> Self {
        let mut text = String::new();
        let mut segments = Vec::new();
        for (i, s) in sentences.iter().enumerate() {
            if i > 0 {
                text.push(' ');
            }
            segments.push((text.len(), s.start, s.end - s.start));
            text.push_str(&original[s.clone()]);
        }
        Joined { text, segments }
    }

    fn segment_of(&self, pos: usize, is_end: bool) -> Option<usize> {
        self.segments.iter().position(|&(j, _, len)| if is_end { pos > j && pos <= j + len } else { pos >= j && pos < j + len })
    }

    /// Original byte span of a joined span, when both ends fall in the same sentence.
    fn to_original(&self, r: &Range<usize>) -> Option<(Range<usize>, usize)> {
        let a = self.segment_of(r.start, false)?;
        let b = self.segment_of(r.end, true)?;
        if a != b {
            return None;
        }
        let (j, o, _) = self.segments[a];
        Some((o + r.start - j..o + r.end - j, a))
    }
}

/// QuestEval's `split_on_punct` over spaCy tokens: sentence byte spans (span text of
/// `doc[start:tok.i]`, i.e. from the first token's start to the last token's end).
fn split_on_punct(tokens: &[factpico_nlp::Token]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut seen_period = false;
    for (i, t) in tokens.iter().enumerate() {
        if seen_period && !is_punct(&t.text) {
            if i > start {
                out.push(tokens[start].span.start..tokens[i - 1].span.end);
            }
            start = i;
            seen_period = false;
        } else if matches!(t.text.as_str(), "." | "!" | "?") {
            seen_period = true;
        }
    }
    if start < tokens.len() {
        out.push(tokens[start].span.start..tokens[tokens.len() - 1].span.end);
    }
    out
}

impl AnswerSelector {
    /// QuestEval answer selection for each text (`NER` then `NOUN` with spaCy).
    ///
    /// # Errors
    /// [`crate::Error::Nlp`] when the spaCy source fails.
    pub fn questeval(&self, texts: &[&str], limit_sent: usize) -> Result<Vec<Answers>> {
        match self {
            AnswerSelector::Spacy(src) => {
                let docs: Vec<Doc<'_>> = texts.iter().map(|t| Doc { id: "", text: t }).collect();
                let parses = src.parse(&docs, ParseMode::Full)?;
                let mut joined = Vec::with_capacity(texts.len());
                for (t, p) in texts.iter().zip(&parses) {
                    let mut sents = split_on_punct(&p.tokens);
                    sents.truncate(limit_sent);
                    joined.push((Joined::new(t, &sents), sents));
                }
                let docs5: Vec<Doc<'_>> = joined.iter().map(|(j, _)| Doc { id: "", text: &j.text }).collect();
                let parses5 = src.parse(&docs5, ParseMode::Full)?;
                let mut out = Vec::with_capacity(texts.len());
                for ((j, sents), p5) in joined.iter().zip(&parses5) {
                    let mut candidates = Vec::new();
                    let mentions = p5
                        .entities
                        .iter()
                        .map(|m| (m, AnswerKind::Entity(m.label.clone())))
                        .chain(p5.noun_chunks.iter().map(|m| (m, AnswerKind::NounChunk)));
                    for (m, kind) in mentions {
                        let mapped = j.to_original(&m.span);
                        let sentence = match &mapped {
                            Some((_, s)) => sents[*s].clone(),
                            None => j.segment_of(m.span.start, false).map_or(0..0, |s| sents[s].clone()),
                        };
                        candidates.push(AnswerCandidate {
                            text: j.text[m.span.clone()].to_owned(),
                            span: mapped.map(|(r, _)| r),
                            sentence,
                            kind,
                        });
                    }
                    out.push(Answers {
                        candidates,
                        sentences: sents.clone(),
                        provenance: AnswerProvenance::Spacy { source: src.name().to_owned() },
                    });
                }
                Ok(out)
            }
            AnswerSelector::Rules => Ok(texts.iter().map(|t| rule_answers(t, Some(limit_sent))).collect()),
        }
    }

    /// QAEval `np-chunks` answer selection (noun chunks per parser sentence) for each text.
    ///
    /// # Errors
    /// [`crate::Error::Nlp`] when the spaCy source fails.
    pub fn qaeval(&self, texts: &[&str]) -> Result<Vec<Answers>> {
        match self {
            AnswerSelector::Spacy(src) => {
                let docs: Vec<Doc<'_>> = texts.iter().map(|t| Doc { id: "", text: t }).collect();
                let parses = src.parse(&docs, ParseMode::Full)?;
                Ok(texts
                    .iter()
                    .zip(&parses)
                    .map(|(t, p)| {
                        let sentences: Vec<Range<usize>> = p.sentences.iter().map(|s| s.span.clone()).collect();
                        let mut candidates = Vec::new();
                        for s in &sentences {
                            for c in p.noun_chunks.iter().filter(|c| c.span.start >= s.start && c.span.end <= s.end) {
                                candidates.push(AnswerCandidate {
                                    text: t[c.span.clone()].to_owned(),
                                    span: Some(c.span.clone()),
                                    sentence: s.clone(),
                                    kind: AnswerKind::NounChunk,
                                });
                            }
                        }
                        Answers { candidates, sentences, provenance: AnswerProvenance::Spacy { source: src.name().to_owned() } }
                    })
                    .collect())
            }
            AnswerSelector::Rules => Ok(texts.iter().map(|t| rule_answers(t, None)).collect()),
        }
    }
}

fn rule_patterns() -> Vec<(AnswerKind, String)> {
    let num = r"[-−–]?\d+(?:[.,·]\d+)?";
    vec![
        (
            AnswerKind::ConfidenceInterval,
            format!(
                r"(?i)\b\d{{2}}\s?%\s?(?:CI|confidence interval)\b[\s,:=]*\[?\(?{num}\s?%?\s*(?:to|–|—|-|,|;)\s*{num}\s?%?\)?\]?"
            ),
        ),
        (AnswerKind::PValue, r"(?i)\bp\s?(?:=|<|>|≤|≥|<=|>=)\s?0?[.·]\d+(?:\s?[x×]\s?10[-−]?\d+)?".to_owned()),
        (AnswerKind::Percentage, format!(r"{num}\s?%")),
        (
            AnswerKind::Quantity,
            format!(
                r"(?i)\b{num}\s?(?:mg/kg|mg/dl|mmol/l|nmol/l|µg/kg|mg|µg|mcg|ng|kg|g|ml|l|mmhg|iu|units?|years?|months?|weeks?|days?|hours?|minutes?|y|mo|wk|h|min|patients|participants|adults|children|women|men|people|subjects|infants|persons|cases|deaths|events)\b"
            ),
        ),
        (AnswerKind::Number, r"\b\d+(?:[.,·]\d+)*\b".to_owned()),
        (
            AnswerKind::Capitalized,
            r"\b(?:[A-Z][A-Za-z0-9’'\-]*[A-Z0-9][A-Za-z0-9\-]*|[A-Z][a-z]+(?:\s+[A-Z][A-Za-z]+)+)\b".to_owned(),
        ),
    ]
}

/// The compiled rules, in priority order (a unit test checks that all compile).
fn rules() -> &'static [(AnswerKind, Regex)] {
    static R: OnceLock<Vec<(AnswerKind, Regex)>> = OnceLock::new();
    R.get_or_init(|| rule_patterns().into_iter().filter_map(|(k, p)| Regex::new(&p).ok().map(|r| (k, r))).collect())
}

/// The rule-based fallback on Punkt sentences (`limit`: first `n` sentences only).
pub fn rule_answers(text: &str, limit: Option<usize>) -> Answers {
    let punkt = factpico_text::Punkt::english();
    let mut sentences: Vec<Range<usize>> = punkt.span_tokenize(text).iter().map(|s| s.start..s.end).collect();
    if let Some(n) = limit {
        sentences.truncate(n);
    }
    let mut candidates = Vec::new();
    for s in &sentences {
        let sent = &text[s.clone()];
        let mut taken: Vec<(Range<usize>, AnswerKind)> = Vec::new();
        for (kind, re) in rules() {
            for m in re.find_iter(sent) {
                let r = m.start()..m.end();
                if r.is_empty() || taken.iter().any(|(t, _)| t.start < r.end && r.start < t.end) {
                    continue;
                }
                // A capitalised single word at the sentence start is not a name.
                if *kind == AnswerKind::Capitalized && r.start == 0 && !m.as_str().contains(char::is_whitespace)
                    && m.as_str().chars().skip(1).all(|c| c.is_lowercase())
                {
                    continue;
                }
                taken.push((r, kind.clone()));
            }
        }
        taken.sort_by_key(|(r, _)| r.start);
        for (r, kind) in taken {
            candidates.push(AnswerCandidate {
                text: sent[r.clone()].to_owned(),
                span: Some(s.start + r.start..s.start + r.end),
                sentence: s.clone(),
                kind,
            });
        }
    }
    Answers { candidates, sentences, provenance: AnswerProvenance::Rules }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn rules_compile() {
        assert_eq!(rules().len(), rule_patterns().len());
    }

    #[test]
    fn rules_find_trial_facts() {
        let t = "We randomly assigned 240 adults to budesonide (n=121) or placebo. Exacerbations fell (rate ratio 0.64; 95% CI 0.48–0.85; p=0.002). Adverse events: 23% vs. 25% in the FDA trial.";
        let a = rule_answers(t, None);
        let kinds: Vec<(&str, &AnswerKind)> = a.candidates.iter().map(|c| (c.text.as_str(), &c.kind)).collect();
        assert!(kinds.contains(&("240 adults", &AnswerKind::Quantity)), "{kinds:?}");
        assert!(kinds.contains(&("95% CI 0.48–0.85", &AnswerKind::ConfidenceInterval)), "{kinds:?}");
        assert!(kinds.contains(&("p=0.002", &AnswerKind::PValue)), "{kinds:?}");
        assert!(kinds.contains(&("23%", &AnswerKind::Percentage)), "{kinds:?}");
        assert!(kinds.contains(&("FDA", &AnswerKind::Capitalized)), "{kinds:?}");
        assert!(kinds.contains(&("121", &AnswerKind::Number)), "{kinds:?}");
        for c in &a.candidates {
            assert_eq!(&t[c.span.clone().unwrap()], c.text);
            assert!(c.sentence.start <= c.span.as_ref().unwrap().start);
        }
        // Sentence-initial "We"/"Exacerbations" are not names.
        assert!(!kinds.iter().any(|(t, _)| *t == "We" || *t == "Exacerbations"));
        assert!(rule_answers("", None).candidates.is_empty());
        assert!(rule_answers("no candidates here at all.", None).candidates.is_empty());
        assert_eq!(rule_answers(t, Some(1)).sentences.len(), 1);
    }

    #[test]
    fn split_on_punct_follows_questeval() {
        let tok = |text: &str, s: usize| factpico_nlp::Token {
            text: text.into(),
            span: s..s + text.len(),
            space_after: true,
            pos: String::new(),
            tag: String::new(),
            lemma: String::new(),
            head: None,
            dep: String::new(),
            sentence: 0,
        };
        // "It works . ) Then no" → a new sentence starts at "Then" (")" is punctuation).
        let toks = vec![tok("It", 0), tok("works", 3), tok(".", 9), tok(")", 11), tok("Then", 13), tok("no", 18)];
        assert_eq!(split_on_punct(&toks), vec![0..12, 13..20]);
        let j = Joined::new("It works. ) Then no", &[0..9, 12..19]);
        assert_eq!(j.text, "It works. Then no");
        assert_eq!(j.to_original(&(10..14)), Some((12..16, 1)));
        assert_eq!(j.to_original(&(3..14)), None);
    }
}
