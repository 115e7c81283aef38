//! Shared text layer of factpico: NLTK-identical Punkt sentence splitting
//! with byte spans, Python-compatible whitespace word counts, AlignScore's
//! premise chunking and token-budget (MiniCheck-style) chunking.
//!
//! Every metric of the workspace splits and counts text through this crate,
//! so that sentence boundaries, chunk windows and word counts match the Python
//! references:
//!
//! * [`Punkt`] reproduces `nltk.sent_tokenize(text)` (NLTK 3.10.4, English
//!   `punkt_tab` parameters embedded in the binary) and returns byte
//!   [`Span`]s into the original text. Checked against NLTK on the 600 real
//!   abstracts/summaries, the fixtures, 80 hand-written edge cases and 2,000
//!   seeded random strings (`tests/punkt_golden.rs`): identical spans.
//! * [`SentenceSplitter`] is the composable interface (implemented by
//!   [`Punkt`] and rouge-score's [`NewlineSplitter`]); [`SplitterConfig`] names
//!   one in configuration files.
//! * [`words`] / [`word_count`] follow Python's `str.split()` whitespace set.
//! * [`AlignScoreChunking`] and [`TokenBudgetChunking`] build premise
//!   [`Chunk`]s from sentences; the latter is generic over a [`TokenCounter`].
//!
//! ```
//! use factpico_text::{AlignScoreChunking, Punkt, SentenceSplitter, word_count};
//!
//! let abstract_ = "Patients (n = 120) received 5 mg vs. placebo. Pain fell by 2.1 points (95% CI 1.2 to 3.0; p < 0.05).\n\nNo serious harms occurred.";
//! let punkt = Punkt::english();
//! assert_eq!(punkt.sentences(abstract_), [
//!     "Patients (n = 120) received 5 mg vs. placebo.",
//!     "Pain fell by 2.1 points (95% CI 1.2 to 3.0; p < 0.05).",
//!     "No serious harms occurred.",
//! ]);
//! let spans = punkt.split(abstract_);
//! assert_eq!((spans[2].start, spans[2].end), (102, 128)); // byte offsets
//! assert_eq!(&abstract_[spans[2].range()], "No serious harms occurred.");
//! assert_eq!(word_count(abstract_), 26); // Python: len(text.split())
//!
//! // AlignScore: 26 words // 350 + 1 = 1 intended chunk -> all 3 sentences, joined by one space.
//! let chunks = AlignScoreChunking::default().chunks(&punkt, abstract_);
//! assert_eq!(chunks.len(), 1);
//! assert_eq!(chunks[0].sentences, 0..3);
//! assert!(chunks[0].text.ends_with("p < 0.05). No serious harms occurred."));
//! ```

mod chunk;
mod error;
mod punkt;
mod span;
mod splitter;
mod words;

pub use chunk::{AlignScoreChunking, Chunk, TokenBudgetChunking, TokenCounter, WhitespaceWordCounter};
pub use error::Error;
pub use punkt::Punkt;
pub use span::Span;
pub use splitter::{NewlineSplitter, SentenceSplitter, SplitterConfig};
pub use words::{is_python_whitespace, python_rstrip, python_strip, word_count, words};

/// `nltk.sent_tokenize(text)` (English): the sentences of `text` as sub-slices.
///
/// Shorthand for `Punkt::english().tokenize(text)`.
pub fn sent_tokenize(text: &str) -> Vec<&str> {
    Punkt::english().tokenize(text)
}
