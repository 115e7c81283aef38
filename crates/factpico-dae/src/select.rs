//! From a summary [`Parse`] to DAE scoring units: the summary words the model sees and the
//! arcs it scores.
//!
//! * Words: CoNLL-U / JSON-arcs (UD) tokens are taken as given (CoreNLP forms are already
//!   PTB-normalised) and lower-cased; spaCy tokens are PTB-escaped
//!   ([`factpico_nlp::ptb::escape_tokens`]: `(` → `-LRB-`, `"` → ``` `` ```/`''`, ...) and
//!   lower-cased — the documented approximation of `lower(ptb_tokenize(text))`.
//!   Whitespace-only tokens (spaCy `SPACE`) are not words.
//! * Arcs: [`factpico_nlp::labels::dae_arcs`] (reference ignore list mapped per scheme, reference
//!   order), arcs touching a whitespace token dropped, then the **first `max_arcs`** (20).
//! * [`MultiSentence::SingleParse`]: one unit over the whole summary (the reference:
//!   `isOneSentence`, first 20 arcs). [`MultiSentence::PerSentence`]: one unit per sentence,
//!   each with its own first 20 arcs.

use std::ops::Range;

use factpico_nlp::labels::dae_arcs;
use factpico_nlp::ptb::escape_tokens;
use factpico_nlp::{LabelScheme, Parse, ScoredArc};

use crate::encode::WordArc;

pub use crate::config::MultiSentence;

/// One scoring unit: a run of summary tokens (the whole summary or one sentence).
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    /// Sentence index in the parse (`None` for a whole-summary unit).
    pub sentence: Option<usize>,
    /// Byte span of the unit in the summary.
    pub span: Range<usize>,
    /// Model words (PTB form, lower-cased).
    pub words: Vec<String>,
    /// For each word, its token index in the parse.
    pub word_token: Vec<usize>,
    /// Scored arcs (token indices into the parse), at most `max_arcs`.
    pub arcs: Vec<ScoredArc>,
    /// The same arcs by word index (into `words`).
    pub word_arcs: Vec<WordArc>,
    /// Kept arcs before the cap.
    pub n_kept: usize,
}

/// Model words of every token of `parse` (see module docs); `summary` is the text the
/// parse annotates (needed for spaCy quote direction).
pub fn token_words(parse: &Parse, summary: &str) -> Vec<String> {
    match parse.scheme {
        LabelScheme::Ud => parse.tokens.iter().map(|t| t.text.to_lowercase()).collect(),
        LabelScheme::Spacy => {
            let spans: Vec<Range<usize>> = parse.tokens.iter().map(|t| t.span.clone()).collect();
            escape_tokens(summary, &spans).into_iter().map(|w| w.to_lowercase()).collect()
        }
    }
}

fn make_unit(
    parse: &Parse,
    words_all: &[String],
    tokens: Range<usize>,
    arcs: Vec<ScoredArc>,
    sentence: Option<usize>,
    max_arcs: usize,
) -> Unit {
    let mut word_of = vec![None; parse.tokens.len()];
    let mut words = Vec::new();
    let mut word_token = Vec::new();
    for t in tokens.clone() {
        if !words_all[t].trim().is_empty() {
            word_of[t] = Some(words.len());
            words.push(words_all[t].clone());
            word_token.push(t);
        }
    }
    let arcs: Vec<ScoredArc> = arcs
        .into_iter()
        .filter(|a| word_of.get(a.head).copied().flatten().is_some() && word_of.get(a.child).copied().flatten().is_some())
        .collect();
    let n_kept = arcs.len();
    let arcs: Vec<ScoredArc> = arcs.into_iter().take(max_arcs).collect();
    let word_arcs = arcs
        .iter()
        .filter_map(|a| Some(WordArc { head: word_of[a.head]?, child: word_of[a.child]? }))
        .collect();
    let span = match (tokens.clone().next(), tokens.clone().last()) {
        (Some(a), Some(b)) => parse.tokens[a].span.start..parse.tokens[b].span.end,
        _ => 0..0,
    };
    Unit { sentence, span, words, word_token, arcs, word_arcs, n_kept }
}

/// Scoring units of a summary parse (module docs). `max_arcs` is 20 in the reference.
pub fn units(parse: &Parse, summary: &str, mode: MultiSentence, max_arcs: usize) -> Vec<Unit> {
    let words = token_words(parse, summary);
    match mode {
        MultiSentence::SingleParse => {
            vec![make_unit(parse, &words, 0..parse.tokens.len(), dae_arcs(parse), None, max_arcs)]
        }
        MultiSentence::PerSentence => parse
            .sentences
            .iter()
            .enumerate()
            .filter_map(|(si, s)| {
                let sub = parse.sentence_parse(si)?;
                let off = s.tokens.start;
                let arcs = dae_arcs(&sub)
                    .into_iter()
                    .map(|a| ScoredArc { head: a.head + off, child: a.child + off, relation: a.relation })
                    .collect();
                Some(make_unit(parse, &words, s.tokens.clone(), arcs, Some(si), max_arcs))
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use factpico_nlp::conllu::ConlluSource;

    fn parse(n_words: usize) -> (Parse, String) {
        // a chain: w1 <- w2 <- ... each arc "amod" (kept), plus a final punct
        let mut s = String::from("# newdoc id = d\n");
        let mut text = String::new();
        for i in 1..=n_words {
            let head = if i == n_words { 0 } else { i + 1 };
            let rel = if i == n_words { "root" } else { "amod" };
            s.push_str(&format!("{i}\tw{i}\tw\tX\tX\t_\t{head}\t{rel}\t_\t_\n"));
            text.push_str(&format!("W{i} "));
        }
        let src = ConlluSource::from_str(&s).unwrap();
        (src.parse_doc("d", &text).unwrap(), text)
    }

    #[test]
    fn twenty_arc_cap_keeps_the_first_arcs_in_order() {
        let (p, text) = parse(30);
        let u = units(&p, &text, MultiSentence::SingleParse, 20);
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].n_kept, 29);
        assert_eq!(u[0].arcs.len(), 20);
        assert_eq!(u[0].arcs[0].child, 0);
        assert_eq!(u[0].arcs[19].child, 19);
        assert_eq!(u[0].words[0], "w1");
        assert_eq!(u[0].word_arcs[3], WordArc { head: 4, child: 3 });
        let u = units(&p, &text, MultiSentence::SingleParse, 5);
        assert_eq!(u[0].arcs.len(), 5);
    }

    #[test]
    fn empty_parse_gives_an_empty_unit() {
        let p = Parse {
            tokens: vec![],
            sentences: vec![],
            enhanced: None,
            entities: vec![],
            noun_chunks: vec![],
            scheme: LabelScheme::Spacy,
        };
        let u = units(&p, "", MultiSentence::SingleParse, 20);
        assert!(u[0].arcs.is_empty() && u[0].words.is_empty());
        assert!(units(&p, "", MultiSentence::PerSentence, 20).is_empty());
    }
}
