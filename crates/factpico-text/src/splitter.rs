//! Composable sentence splitters and their serialisable configuration.

use crate::span::Span;
use crate::Punkt;

/// Splits a text into sentences, returned as byte [`Span`]s into that text.
///
/// Contract for implementations: spans are non-overlapping, in increasing
/// order, lie on character boundaries of `text`, and (for the splitters of
/// this crate) are non-empty.
pub trait SentenceSplitter: Send + Sync {
    /// The sentence spans of `text`.
    fn split(&self, text: &str) -> Vec<Span>;

    /// The sentences of `text` as sub-slices (the text of [`split`](Self::split)).
    fn sentences<'a>(&self, text: &'a str) -> Vec<&'a str> {
        self.split(text)
            .into_iter()
            .filter_map(|s| s.get(text))
            .collect()
    }
}

impl<S: SentenceSplitter + ?Sized> SentenceSplitter for &S {
    fn split(&self, text: &str) -> Vec<Span> {
        (**self).split(text)
    }
}

impl<S: SentenceSplitter + ?Sized> SentenceSplitter for Box<S> {
    fn split(&self, text: &str) -> Vec<Span> {
        (**self).split(text)
    }
}

impl<S: SentenceSplitter + ?Sized> SentenceSplitter for std::sync::Arc<S> {
    fn split(&self, text: &str) -> Vec<Span> {
        (**self).split(text)
    }
}

/// rouge-score's sentence rule for `rougeLsum`: `text.split("\n")`, dropping
/// empty strings (`rouge_scorer.py`, `split_summaries=False`).
///
/// Each non-empty line is one sentence, kept verbatim (no stripping: a line of
/// spaces is a sentence); `\r` stays part of its line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NewlineSplitter;

impl SentenceSplitter for NewlineSplitter {
    fn split(&self, text: &str) -> Vec<Span> {
        let mut out = Vec::new();
        let mut start = 0;
        for line in text.split('\n') {
            if !line.is_empty() {
                out.push(Span::new(start, start + line.len()));
            }
            start += line.len() + 1;
        }
        out
    }
}

/// Which sentence splitter to use, as written in configuration files
/// (`"punkt"`, `"newline"`).
///
/// More splitters (e.g. spaCy sentences from a sidecar) are provided by other
/// crates; this enum names the ones this crate can build.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SplitterConfig {
    /// NLTK Punkt, English `punkt_tab` parameters ([`Punkt::english`]):
    /// `nltk.sent_tokenize`, used by AlignScore, SummaC and MiniCheck.
    #[default]
    Punkt,
    /// One sentence per non-empty line ([`NewlineSplitter`]): rouge-score's `rougeLsum` rule.
    Newline,
}

impl SplitterConfig {
    /// Builds the configured splitter.
    pub fn build(&self) -> Box<dyn SentenceSplitter> {
        match self {
            SplitterConfig::Punkt => Box::new(Punkt::english()),
            SplitterConfig::Newline => Box::new(NewlineSplitter),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newline_splitter_follows_python_split_dropping_empty() {
        // Python: [x for x in "a b\n\n  \nc\r\n".split("\n") if x] == ["a b", "  ", "c\r"]
        let text = "a b\n\n  \nc\r\n";
        assert_eq!(NewlineSplitter.sentences(text), ["a b", "  ", "c\r"]);
        assert_eq!(NewlineSplitter.split(text), [Span::new(0, 3), Span::new(5, 7), Span::new(8, 10)]);
        assert!(NewlineSplitter.split("").is_empty());
        assert!(NewlineSplitter.split("\n\n").is_empty());
        assert_eq!(NewlineSplitter.sentences("β one"), ["β one"]);
    }

    #[test]
    fn config_round_trips_and_builds() {
        assert_eq!(serde_json::to_string(&SplitterConfig::Punkt).ok().as_deref(), Some("\"punkt\""));
        let c: SplitterConfig = serde_json::from_str("\"newline\"").unwrap_or_default();
        assert_eq!(c, SplitterConfig::Newline);
        assert!(serde_json::from_str::<SplitterConfig>("\"spacy\"").is_err());
        assert_eq!(c.build().sentences("x. Y.\nz"), ["x. Y.", "z"]);
        assert_eq!(SplitterConfig::default().build().sentences("It works. Yes."), ["It works.", "Yes."]);
    }

    #[test]
    fn splitters_are_object_safe_and_shareable() {
        let boxed: Vec<Box<dyn SentenceSplitter>> = vec![Box::new(Punkt::english()), Box::new(NewlineSplitter)];
        let arc = std::sync::Arc::new(Punkt::english());
        let by_ref = &arc;
        assert_eq!(by_ref.split("A. B"), boxed[0].split("A. B"));
    }
}
