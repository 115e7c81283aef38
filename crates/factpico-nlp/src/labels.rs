//! Which dependency arcs DAE scores: the reference ignore list mapped onto each parser's
//! label set.
//!
//! Reference: `tagoyal/factuality-datasets` `train_utils.py:45` ignores an arc iff its
//! relation string is **exactly** one of `punct, ROOT, root, det, case, aux, auxpass, dep,
//! cop, mark` (CoreNLP 3.9.1 enhanced UD v1; suffixed relations such as `nmod:in` are kept).
//!
//! # The label table (the one place this mapping is defined; mirrored in `docs/dae.md`)
//!
//! | reference (UD v1, CoreNLP 3.9.1) | [`LabelScheme::Ud`] (CoNLL-U, JSON arcs) | [`LabelScheme::Spacy`] (spaCy `en_core_web_sm`, ClearNLP labels) | reasoning |
//! |---|---|---|---|
//! | `punct` ignored | `punct` ignored | `punct` ignored | same relation |
//! | `ROOT`/`root` ignored | `ROOT`, `root` ignored (and any arc from the artificial root) | `ROOT` ignored | same relation |
//! | `det` ignored | `det` ignored (`det:predet` kept, as in the reference) | `det` ignored; `predet` kept | ClearNLP `predet` = UD `det:predet` |
//! | `case` ignored | `case` ignored | `case` (possessive `'s`) ignored; **`prep`/`agent`/`dative` arcs whose child is an adposition are ignored** and, when the adposition has a `pobj`/`pcomp` child, the two arcs `H -prep-> P -pobj-> O` are **collapsed** into one kept arc `H -prep:p-> O` | ClearNLP attaches the preposition as head of its object; UD makes the object the dependent of `H` (`nmod:p`) with `case(O, P)`. The collapsed arc is exactly the enhanced-UD `nmod:p` arc the reference keeps, and the `prep` arc plays the role of the ignored `case` |
//! | `aux`, `auxpass` ignored | `aux`, `auxpass` ignored; UD v2 `aux:pass` ignored too | `aux`, `auxpass` ignored | same relations (`aux:pass` is v2's name for `auxpass`; CoreNLP 3.9.1 never emits it, so UD v1 input is unaffected) |
//! | `dep` ignored | `dep` ignored | `dep` ignored; `meta` ignored | ClearNLP `meta` is an unclassified modifier, like `dep` |
//! | `cop` ignored | `cop` ignored | — (no `cop`: the copula heads `attr`/`acomp`; those arcs are **kept** because they carry the subject–predicate link that UD keeps as `nsubj(pred, subj)`) | ClearNLP is copula-headed |
//! | `mark` ignored | `mark` ignored | `mark` ignored (infinitival `to` is `aux` there, ignored too) | same relation |
//! | everything else kept | kept, string-exact (`nmod:in`, `conj:and`, `nsubj:xsubj`...) | kept (`nsubj`, `dobj`, `amod`, `compound`, `neg`, `prt`, `poss`, `nummod`, `attr`, `acomp`, ...) | |
//!
//! Arc order: the reference scores the first 20 kept arcs in CoreNLP's JSON order (by
//! dependent index, then governor index). [`dae_arcs`] keeps that order for every scheme;
//! collapsed spaCy arcs sit at their object's position.

use serde::{Deserialize, Serialize};

use crate::Parse;

/// The reference ignore list (`train_utils.py:45`), compared by exact string equality.
pub const REFERENCE_IGNORED: [&str; 10] =
    ["punct", "ROOT", "root", "det", "case", "aux", "auxpass", "dep", "cop", "mark"];

/// Relations ignored for the spaCy / ClearNLP scheme (besides the collapsed `prep` arcs).
pub const SPACY_IGNORED: [&str; 9] = ["punct", "ROOT", "det", "case", "aux", "auxpass", "dep", "mark", "meta"];

/// Label set of a [`Parse`]'s relations; selects the ignore mapping (see module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelScheme {
    /// Universal Dependencies (v1 as CoreNLP 3.9.1 writes it; v2 accepted). Exact match
    /// with the reference list, plus v2 `aux:pass`.
    #[default]
    Ud,
    /// spaCy English pipelines (ClearNLP-style labels: `prep`, `pobj`, `dobj`, `ROOT`...).
    Spacy,
}

impl std::str::FromStr for LabelScheme {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "ud" | "ud1" | "ud2" | "corenlp" | "stanza" => Ok(Self::Ud),
            "spacy" | "clearnlp" => Ok(Self::Spacy),
            other => Err(format!("unknown label scheme {other:?} (expected `ud` or `spacy`)")),
        }
    }
}

/// An arc DAE scores (token indices into [`Parse::tokens`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoredArc {
    /// Governor token index.
    pub head: usize,
    /// Dependent token index.
    pub child: usize,
    /// Relation (mapped for collapsed spaCy arcs, e.g. `prep:in`; otherwise as parsed).
    pub relation: String,
}

/// Whether the reference ignores `relation` under `scheme` (exact string match; the spaCy
/// `prep`-collapsing rule needs the tree and lives in [`dae_arcs`]).
pub fn is_ignored(scheme: LabelScheme, relation: &str) -> bool {
    match scheme {
        LabelScheme::Ud => REFERENCE_IGNORED.contains(&relation) || relation == "aux:pass",
        LabelScheme::Spacy => SPACY_IGNORED.contains(&relation),
    }
}

const PREP_LIKE: [&str; 3] = ["prep", "agent", "dative"];

fn is_adposition(parse: &Parse, i: usize) -> bool {
    parse.tokens.get(i).is_some_and(|t| t.pos == "ADP" || t.tag == "IN" || t.tag == "TO" || t.tag == "RP")
}

/// The arcs DAE scores, in reference order, **before** the 20-arc cap: every arc of
/// [`Parse::dependency_arcs`] whose relation is not ignored under [`Parse::scheme`] (module
/// table), with spaCy preposition arcs collapsed. Arcs from the artificial root are dropped.
pub fn dae_arcs(parse: &Parse) -> Vec<ScoredArc> {
    match parse.scheme {
        LabelScheme::Ud => parse
            .dependency_arcs()
            .into_iter()
            .filter_map(|a| {
                let head = a.head?;
                (!is_ignored(LabelScheme::Ud, &a.relation)).then_some(ScoredArc {
                    head,
                    child: a.child,
                    relation: a.relation,
                })
            })
            .collect(),
        LabelScheme::Spacy => spacy_arcs(parse),
    }
}

fn spacy_arcs(parse: &Parse) -> Vec<ScoredArc> {
    let toks = &parse.tokens;
    let mut out = Vec::new();
    for a in parse.dependency_arcs() {
        let Some(head) = a.head else { continue };
        if head == a.child || is_ignored(LabelScheme::Spacy, &a.relation) {
            continue;
        }
        let rel = a.relation.as_str();
        if PREP_LIKE.contains(&rel) && is_adposition(parse, a.child) {
            // plays the role of UD `case`; its object gets the collapsed arc below
            continue;
        }
        if (rel == "pobj" || rel == "pcomp") && head < toks.len() {
            let p = &toks[head];
            if PREP_LIKE.contains(&p.dep.as_str()) && is_adposition(parse, head) {
                if let Some(g) = p.head.filter(|g| *g != head) {
                    out.push(ScoredArc {
                        head: g,
                        child: a.child,
                        relation: format!("{}:{}", p.dep, p.text.to_lowercase()),
                    });
                    continue;
                }
            }
        }
        out.push(ScoredArc { head, child: a.child, relation: a.relation });
    }
    out.sort_by_key(|a| (a.child, a.head));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Sentence, Token};

    fn tok(text: &str, tag: &str, pos: &str, head: Option<usize>, dep: &str) -> Token {
        Token {
            text: text.into(),
            span: 0..0,
            space_after: true,
            pos: pos.into(),
            tag: tag.into(),
            lemma: String::new(),
            head,
            dep: dep.into(),
            sentence: 0,
        }
    }

    #[test]
    fn ud_is_exact_string_match() {
        for r in REFERENCE_IGNORED {
            assert!(is_ignored(LabelScheme::Ud, r), "{r}");
        }
        for r in ["nmod:in", "det:predet", "Punct", "conj:and", "nsubj:xsubj", "compound", "neg"] {
            assert!(!is_ignored(LabelScheme::Ud, r), "{r}");
        }
        assert!(is_ignored(LabelScheme::Ud, "aux:pass"));
        assert!(!is_ignored(LabelScheme::Spacy, "root"), "spaCy writes ROOT");
        assert!(is_ignored(LabelScheme::Spacy, "meta"));
        assert!(!is_ignored(LabelScheme::Spacy, "prep"), "prep is handled structurally");
    }

    /// "The drug lowered pressure in adults ." (spaCy-style tree)
    fn spacy_parse() -> Parse {
        let tokens = vec![
            tok("The", "DT", "DET", Some(1), "det"),
            tok("drug", "NN", "NOUN", Some(2), "nsubj"),
            tok("lowered", "VBD", "VERB", None, "ROOT"),
            tok("pressure", "NN", "NOUN", Some(2), "dobj"),
            tok("in", "IN", "ADP", Some(2), "prep"),
            tok("adults", "NNS", "NOUN", Some(4), "pobj"),
            tok(".", ".", "PUNCT", Some(2), "punct"),
        ];
        Parse {
            sentences: vec![Sentence { tokens: 0..tokens.len(), span: 0..0 }],
            tokens,
            enhanced: None,
            entities: vec![],
            noun_chunks: vec![],
            scheme: LabelScheme::Spacy,
        }
    }

    #[test]
    fn spacy_prep_is_collapsed_like_enhanced_ud() {
        let arcs = dae_arcs(&spacy_parse());
        let got: Vec<(usize, usize, &str)> = arcs.iter().map(|a| (a.head, a.child, a.relation.as_str())).collect();
        assert_eq!(got, [(2, 1, "nsubj"), (2, 3, "dobj"), (2, 5, "prep:in")]);
    }

    #[test]
    fn ud_parse_uses_exact_list() {
        let mut p = spacy_parse();
        p.scheme = LabelScheme::Ud;
        p.tokens[4].dep = "case".into();
        p.tokens[4].head = Some(5);
        p.tokens[5].dep = "nmod:in".into();
        p.tokens[5].head = Some(2);
        p.tokens[2].dep = "root".into();
        let got: Vec<(usize, usize)> = dae_arcs(&p).iter().map(|a| (a.head, a.child)).collect();
        assert_eq!(got, [(2, 1), (2, 3), (2, 5)]);
    }
}
