//! ROUGE-L and ROUGE-Lsum identical to Google `rouge-score` 0.1.2, with NLTK's Porter
//! stemmer (NLTK_EXTENSIONS mode).
//!
//! Reference: PyPI `rouge-score==0.1.2` (`rouge_score/rouge_scorer.py`, `tokenize.py`,
//! `tokenizers.py`, `scoring.py`; same code as `google-research/google-research`
//! `rouge/`), with `nltk.stem.porter.PorterStemmer()` (nltk 3.10.4). The algorithm is
//! described in `shared/specs/rouge_l.md`:
//!
//! * **Tokenizer**: Python `str.lower()` (Unicode; `İ` → `i̇`, KELVIN SIGN → `k`), every
//!   run of characters outside `[a-z0-9]` is a separator, tokens longer than 3 characters
//!   are stemmed when `use_stemmer` is on. Non-ASCII letters never survive
//!   (`café` → `caf`, `naïve` → `na ve`). See [`tokenize`].
//! * **ROUGE-L**: LCS of the two token sequences; precision = LCS / prediction tokens,
//!   recall = LCS / target tokens, F = 2PR / (P + R) ([`fmeasure`]).
//! * **ROUGE-Lsum**: summary-level union LCS over sentences, which are the non-empty
//!   `"\n"`-separated lines (rouge-score's default `split_summaries=False`), with
//!   rouge-score's backtracking tie rule and ROUGE-1.5.5's double-count guard.
//!   For pre-split sentences (rouge-score's `split_summaries=True`, where sentences come
//!   from `nltk.sent_tokenize`), use [`RougeL::score_sentences`] with sentences from a
//!   Punkt splitter.
//! * Every value is in `[0, 1]`; an empty token list on either side gives all zeros
//!   (never NaN).
//!
//! **Argument order is `(target, prediction)`** as in the reference: precision is
//! relative to the prediction, recall to the target. factpico scores a plain-language
//! summary against its source, so it passes **target = abstract (source)** and
//! **prediction = summary**.
//!
//! # Backend: `rougers`
//!
//! The computation is delegated to the crates.io crate [`rougers`] 0.2.1, which was
//! adopted after it matched the unmodified Python reference **exactly** (bit-identical
//! `f64`, no tolerance needed) on our whole golden set (`tests/goldens/gen_rouge.py`,
//! checked by `tests/rouge_golden.rs`): rougeL and rougeLsum, stemmer on and off, for
//! the 300 real abstract/summary pairs, the 18 fixture pairs and 435 inline pairs
//! (the spec's worked examples, hand-written Unicode/tie/double-count cases and seeded
//! random small-vocabulary multi-line pairs); the sentence-list path on all of them;
//! NLTK's stem for 10,295 self-made words and 7,527 distinct corpus tokens (plus a
//! one-off check of 59,336 generated words); and the lowercasing of every Unicode
//! code point. This crate adds the factpico API, serde types and documentation.
//!
//! # Example
//!
//! ```
//! use factpico_rouge::{RougeL, RougeOptions};
//!
//! let scorer = RougeL::new(RougeOptions::default()); // use_stemmer = true
//! let abstract_ = "Aspirin lowers the risk.\nIt causes bleeding.";
//! let summary = "It lowers the risk of bleeding.";
//! let s = scorer.score(abstract_, summary); // (target, prediction)
//! assert_eq!(s.rouge_l.precision, 4.0 / 6.0);
//! assert_eq!(s.rouge_lsum.precision, 5.0 / 6.0);
//! assert_eq!(s.rouge_lsum.recall, 5.0 / 7.0);
//! assert_eq!(s.rouge_lsum.fmeasure, 0.7692307692307692);
//! ```

use rougers::{Document, RougeScorer, RougeType, Tokenizer};
use serde::{Deserialize, Serialize};

mod variants;
pub use variants::{RougeVariants, UnknownRougeType};

/// Options of [`RougeL`], mirroring `rouge_scorer.RougeScorer(..., use_stemmer=...)`.
/// `ScorerOptions::rouge` of the `factpico` facade, flag `--rouge-stemmer` (feature `clap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct RougeOptions {
    /// ROUGE: stem tokens longer than 3 characters with NLTK's `PorterStemmer` in its default
    /// NLTK_EXTENSIONS mode (rouge-score's `use_stemmer`; not the original Porter algorithm,
    /// not Snowball). Default `true` (factpico's convention; rouge-score's own default is
    /// `false`).
    #[cfg_attr(
        feature = "clap",
        arg(id = "rouge.use_stemmer", long = "rouge-stemmer", action = clap::ArgAction::Set, default_value_t = RougeOptions::default().use_stemmer)
    )]
    pub use_stemmer: bool,
}

impl Default for RougeOptions {
    fn default() -> Self {
        Self { use_stemmer: true }
    }
}

/// Precision, recall and F-measure of one ROUGE variant, each in `[0, 1]`
/// (rouge-score's `scoring.Score`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Score {
    /// Matched tokens / prediction (summary) tokens.
    pub precision: f64,
    /// Matched tokens / target (abstract) tokens.
    pub recall: f64,
    /// Harmonic mean `2PR / (P + R)`, `0.0` when `P + R == 0` ([`fmeasure`]).
    pub fmeasure: f64,
}

impl Score {
    /// All zeros: what rouge-score returns when either side has no tokens.
    pub const ZERO: Score = Score {
        precision: 0.0,
        recall: 0.0,
        fmeasure: 0.0,
    };
}

impl From<rougers::Score> for Score {
    fn from(s: rougers::Score) -> Self {
        Self {
            precision: s.precision,
            recall: s.recall,
            fmeasure: s.fmeasure,
        }
    }
}

/// The two LCS-based scores of one (target, prediction) pair.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct RougeLScores {
    /// `rougeL`: LCS over the whole texts (newlines are ordinary separators).
    pub rouge_l: Score,
    /// `rougeLsum`: summary-level union LCS over sentences.
    pub rouge_lsum: Score,
}

/// Default bound of [`RougeL::score_bounded`]: the largest ROUGE-Lsum LCS table, in cells,
/// that factpico allocates for one (target sentence, prediction sentence) pair:
/// 25,000,000 cells, 100 MB (the `rougers` table stores one `u32` per cell, and rouge-score's
/// backtracking tie rule needs the whole table). Sentences of 5,000 × 5,000 tokens fit;
/// real abstracts and summaries are two to four orders of magnitude below it. Measured peak
/// RSS of one single-line pair of N + N words, unbounded (`/usr/bin/time -v cargo run
/// --release -p factpico-rouge --example lsum_memory -- N`, 2-core machine under load):
/// N = 2,000: 18 MB (0.07 s); 5,000: 100 MB (0.55 s); 10,000: 393 MB (2.3 s); 20,000:
/// 1.57 GB (9.4 s); 30,000: 3.52 GB (21 s) — 4 bytes per cell, and quadratic time too.
/// With the bound, 170,000 + 170,000 words (which aborted the process on a failed 115 GB
/// allocation) peak at 44 MB (ROUGE-L only, 6 s). With one row per rayon thread in flight,
/// the bound caps ROUGE-Lsum's table at 100 MB per thread.
pub const LSUM_MAX_CELLS: u64 = 25_000_000;

/// Why [`RougeL::score_bounded`] did not compute ROUGE-Lsum: its LCS table would exceed the
/// bound. Display: a reason for a documented null.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LsumTooLarge {
    /// Tokens of the longest target (abstract) sentence.
    pub target_tokens: usize,
    /// Tokens of the longest prediction (summary) sentence.
    pub prediction_tokens: usize,
    /// Cells of the largest table, `(target_tokens + 1) × (prediction_tokens + 1)`.
    pub cells: u64,
    /// The bound it exceeds.
    pub max_cells: u64,
}

impl std::fmt::Display for LsumTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ROUGE-Lsum not computed: its LCS table for the longest sentences ({} × {} tokens) would have {} cells, \
             above the limit of {} cells ({} MB); split the texts into lines (\\n) to score it",
            self.target_tokens,
            self.prediction_tokens,
            self.cells,
            self.max_cells,
            self.max_cells * 4 / 1_000_000
        )
    }
}

/// [`RougeL::score_bounded`]'s result: ROUGE-L always, ROUGE-Lsum when its table fits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundedScores {
    /// `rougeL`, as [`RougeLScores::rouge_l`] (linear memory, always computed).
    pub rouge_l: Score,
    /// `rougeLsum`, or why it was not computed.
    pub rouge_lsum: Result<Score, LsumTooLarge>,
}

/// One text tokenized for scoring: its tokens (for ROUGE-L) and its sentences' tokens
/// (for ROUGE-Lsum). Build it with [`RougeL::tokenize_text`] or
/// [`RougeL::tokenize_sentences`] to reuse one side (e.g. an abstract scored against
/// several summaries) with [`RougeL::score_tokenized`].
///
/// It records the tokens, not the options: score it only with a [`RougeL`] built with the
/// same [`RougeOptions`] (the tokens would otherwise be stemmed differently).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TokenizedText {
    doc: Document,
}

impl TokenizedText {
    /// All tokens in text order (the concatenation of [`Self::sentences`]).
    pub fn tokens(&self) -> &[String] {
        &self.doc.tokens
    }

    /// The tokens of each sentence, in order; sentences may have no tokens
    /// (e.g. a line of punctuation).
    pub fn sentences(&self) -> &[Vec<String>] {
        &self.doc.sentences
    }
}

/// ROUGE-L / ROUGE-Lsum scorer, equivalent to
/// `rouge_scorer.RougeScorer(["rougeL", "rougeLsum"], use_stemmer=...)` of rouge-score
/// 0.1.2. Cheap to clone, `Send + Sync`; scoring takes `&self` and is deterministic.
#[derive(Debug, Clone)]
pub struct RougeL {
    options: RougeOptions,
    scorer: RougeScorer,
    /// rougeL alone (for pairs whose rougeLsum table is too large).
    scorer_l: RougeScorer,
    tokenizer: Tokenizer,
}

impl RougeL {
    /// Builds a scorer with the given options.
    pub fn new(options: RougeOptions) -> Self {
        let tokenizer = Tokenizer::new(options.use_stemmer);
        let build = |types: Vec<RougeType>| match RougeScorer::with_tokenizer(types, tokenizer) {
            Ok(scorer) => scorer,
            // `with_tokenizer` only rejects n-gram sizes outside 1..=9; L and LSum are always valid.
            Err(e) => unreachable!("rougers rejected rougeL/rougeLsum: {e}"),
        };
        Self {
            options,
            scorer: build(vec![RougeType::L, RougeType::LSum]),
            scorer_l: build(vec![RougeType::L]),
            tokenizer,
        }
    }

    /// The options this scorer was built with.
    pub fn options(&self) -> RougeOptions {
        self.options
    }

    /// `rougeL` and `rougeLsum` of `prediction` against `target`, as rouge-score's
    /// `scorer.score(target, prediction)`. ROUGE-Lsum sentences are the non-empty
    /// `"\n"`-separated lines. In factpico, `target` is the abstract and `prediction`
    /// the summary. Each text is tokenized once for both variants.
    pub fn score(&self, target: &str, prediction: &str) -> RougeLScores {
        collect(self.scorer.score(target, prediction))
    }

    /// `rougeL` and `rougeLsum` from caller-provided sentence lists, as rouge-score with
    /// `split_summaries=True` when the lists are what `nltk.sent_tokenize` returns (e.g.
    /// a Punkt splitter's output). Empty strings are dropped, as rouge-score does; a
    /// sentence containing `"\n"` stays one sentence.
    ///
    /// `rouge_l` is computed on the concatenated sentence tokens, which equals
    /// [`Self::score`]'s `rouge_l` on the original texts whenever the sentences were split
    /// at separators (whitespace or punctuation), as Punkt does.
    pub fn score_sentences<T: AsRef<str>, P: AsRef<str>>(
        &self,
        target_sentences: &[T],
        prediction_sentences: &[P],
    ) -> RougeLScores {
        self.score_tokenized(
            &self.tokenize_sentences(target_sentences),
            &self.tokenize_sentences(prediction_sentences),
        )
    }

    /// As [`Self::score`], but ROUGE-Lsum is computed only when its largest LCS table (one
    /// per target sentence × prediction sentence, `(a + 1) × (b + 1)` cells of 4 bytes) has
    /// at most `max_cells` cells ([`LSUM_MAX_CELLS`] is factpico's bound): its memory grows
    /// with the product of the sentence lengths, and an oversized pair would abort the
    /// process on a failed allocation. ROUGE-L is always computed (linear memory).
    /// Values are those of [`Self::score`] whenever ROUGE-Lsum is computed.
    pub fn score_bounded(&self, target: &str, prediction: &str, max_cells: u64) -> BoundedScores {
        let (t, p) = (self.tokenize_text(target), self.tokenize_text(prediction));
        let longest = |x: &TokenizedText| x.sentences().iter().map(Vec::len).max().unwrap_or(0);
        let (a, b) = (longest(&t), longest(&p));
        let cells = (a as u64 + 1).saturating_mul(b as u64 + 1);
        if cells <= max_cells {
            let s = self.score_tokenized(&t, &p);
            return BoundedScores { rouge_l: s.rouge_l, rouge_lsum: Ok(s.rouge_lsum) };
        }
        let s = collect(self.scorer_l.score_documents(&t.doc, &p.doc));
        BoundedScores {
            rouge_l: s.rouge_l,
            rouge_lsum: Err(LsumTooLarge { target_tokens: a, prediction_tokens: b, cells, max_cells }),
        }
    }

    /// Tokenizes one text, with its non-empty `"\n"`-separated lines as sentences.
    pub fn tokenize_text(&self, text: &str) -> TokenizedText {
        TokenizedText {
            doc: self.scorer.document(text),
        }
    }

    /// Tokenizes pre-split sentences (empty strings dropped, as rouge-score does).
    pub fn tokenize_sentences<S: AsRef<str>>(&self, sentences: &[S]) -> TokenizedText {
        let sentences: Vec<Vec<String>> = sentences
            .iter()
            .map(AsRef::as_ref)
            .filter(|s| !s.is_empty())
            .map(|s| self.tokenizer.tokenize(s))
            .collect();
        TokenizedText {
            doc: Document {
                tokens: sentences.concat(),
                sentences,
            },
        }
    }

    /// Scores two texts tokenized by this scorer (see [`TokenizedText`]).
    pub fn score_tokenized(
        &self,
        target: &TokenizedText,
        prediction: &TokenizedText,
    ) -> RougeLScores {
        collect(self.scorer.score_documents(&target.doc, &prediction.doc))
    }
}

fn collect(scores: rougers::Scores) -> RougeLScores {
    let mut out = RougeLScores::default();
    for (rouge_type, score) in scores {
        match rouge_type {
            RougeType::L => out.rouge_l = score.into(),
            RougeType::LSum => out.rouge_lsum = score.into(),
            RougeType::N(_) => {}
        }
    }
    out
}

/// rouge-score's tokenizer (`tokenize.tokenize(text, stemmer)`): Python `str.lower()`,
/// runs of characters outside `[a-z0-9]` become separators, tokens longer than 3
/// characters are stemmed with NLTK's Porter stemmer (NLTK_EXTENSIONS) when `stem` is
/// true. Returns ASCII `[a-z0-9]+` tokens in text order; `[]` for empty input.
///
/// ```
/// assert_eq!(factpico_rouge::tokenize("COVID-19 İstanbul café", false), ["covid", "19", "i", "stanbul", "caf"]);
/// assert_eq!(factpico_rouge::tokenize("Patients dying", true), ["patient", "die"]);
/// ```
pub fn tokenize(text: &str, stem: bool) -> Vec<String> {
    Tokenizer::new(stem).tokenize(text)
}

/// The fraction of `text`'s letters and digits (Unicode `char::is_alphanumeric`) that
/// rouge-score's tokenizer drops because they are not ASCII `[a-z0-9]` after lowercasing
/// (non-Latin scripts, accented letters): `0.0` for plain English, `1.0` for Japanese or
/// Greek; `0.0` for a text without letters or digits. Above one half, ROUGE compares
/// little of the text (identical Japanese texts score 0.0, as in the reference).
///
/// ```
/// assert_eq!(factpico_rouge::dropped_fraction("Aspirin helped 40 adults."), 0.0);
/// assert_eq!(factpico_rouge::dropped_fraction("患者は薬を服用した。"), 1.0);
/// ```
pub fn dropped_fraction(text: &str) -> f64 {
    let alnum = text.chars().filter(|c| c.is_alphanumeric()).count();
    if alnum == 0 {
        return 0.0;
    }
    let kept: usize = tokenize(text, false).iter().map(String::len).sum();
    alnum.saturating_sub(kept) as f64 / alnum as f64
}

/// rouge-score's `scoring.fmeasure`: `2 * p * r / (p + r)` if `p + r > 0`, else `0.0`
/// (same operation order, so bit-identical).
pub fn fmeasure(precision: f64, recall: f64) -> f64 {
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn triple(s: Score) -> [f64; 3] {
        [s.precision, s.recall, s.fmeasure]
    }

    fn both(stem: bool, t: &str, p: &str) -> RougeLScores {
        RougeL::new(RougeOptions { use_stemmer: stem }).score(t, p)
    }

    // Expected values: rouge-score 0.1.2 outputs quoted in shared/specs/rouge_l.md §5 or
    // printed by the Python reference (nltk 3.10.4), never our own output.
    #[test]
    fn spec_example_1_and_2() {
        for stem in [true, false] {
            let s = both(
                stem,
                "The quick brown fox jumps over the lazy dog.",
                "The quick brown dog jumps on the log.",
            );
            let want = [0.625, 0.5555555555555556, 0.5882352941176471];
            assert_eq!(triple(s.rouge_l), want);
            assert_eq!(triple(s.rouge_lsum), want);
        }
        let t = "Patients who received the drug had fewer strokes; risks were reduced by 30%.";
        let p = "Patients receiving the drugs had fewer strokes, and risk was reduced 30 percent.";
        assert_eq!(triple(both(false, t, p).rouge_l), [0.5384615384615384; 3]);
        assert_eq!(triple(both(true, t, p).rouge_lsum), [0.7692307692307693; 3]);
    }

    #[test]
    fn spec_example_3_multiline() {
        let t =
            "The trial enrolled 120 adults.\nMost had mild asthma.\nThe inhaler improved symptoms.";
        let p = "Most adults had mild asthma.\nThe trial enrolled 120 of them.\nSymptoms improved with the inhaler.";
        for stem in [true, false] {
            let s = both(stem, t, p);
            assert_eq!(
                triple(s.rouge_l),
                [0.375, 0.46153846153846156, 0.41379310344827586]
            );
            assert_eq!(
                triple(s.rouge_lsum),
                [0.6875, 0.8461538461538461, 0.7586206896551724]
            );
        }
    }

    #[test]
    fn spec_example_4_union_lcs() {
        let s = both(
            true,
            "Aspirin lowers the risk.\nIt causes bleeding.",
            "It lowers the risk of bleeding.",
        );
        assert_eq!(
            triple(s.rouge_lsum),
            [0.8333333333333334, 0.7142857142857143, 0.7692307692307692]
        );
        assert_eq!(
            triple(s.rouge_l),
            [0.6666666666666666, 0.5714285714285714, 0.6153846153846153]
        );
        let c = both(true, "the cat sat", "the cat sat on the mat");
        assert_eq!(triple(c.rouge_l), [0.5, 1.0, 0.6666666666666666]);
    }

    #[test]
    fn backtracking_tie_keeps_earlier_target_token() {
        // lcs_ind(['a','b'], ['b','a']) == [0]; with a second prediction line "b" the
        // union is {a, b} (2 hits). Taking "b" on the tie would give 1 hit.
        let s = both(false, "a b", "b a\nb");
        assert_eq!(triple(s.rouge_lsum), [0.6666666666666666, 1.0, 0.8]);
        let s = both(false, "x y z", "z y x\nx");
        assert_eq!(
            triple(s.rouge_lsum),
            [0.25, 0.3333333333333333, 0.28571428571428575]
        );
    }

    #[test]
    fn double_count_guard() {
        let s = both(false, "the the\nthe", "the the the the\nthe");
        assert_eq!(triple(s.rouge_lsum), [0.6, 1.0, 0.7499999999999999]);
    }

    #[test]
    fn empty_and_tokenless_inputs_are_zero() {
        for stem in [true, false] {
            for (t, p) in [
                ("", ""),
                ("", "a b"),
                ("a b", ""),
                ("   ", "a"),
                ("a", "... ?! —"),
                ("\n\n", "\n"),
            ] {
                let s = both(stem, t, p);
                assert_eq!(s.rouge_l, Score::ZERO, "{t:?} {p:?}");
                assert_eq!(s.rouge_lsum, Score::ZERO, "{t:?} {p:?}");
                assert!(!s.rouge_l.fmeasure.is_nan());
            }
        }
        let s = both(false, "a\n\n", "\n\na\n");
        assert_eq!(triple(s.rouge_lsum), [1.0; 3]);
    }

    #[test]
    fn unicode_lowercasing_like_python() {
        assert_eq!(tokenize("İstanbul", false), ["i", "stanbul"]);
        assert_eq!(tokenize("Kelvin \u{212a}", false), ["kelvin", "k"]);
        assert_eq!(tokenize("café naïve", false), ["caf", "na", "ve"]);
        assert_eq!(tokenize("１２３ x²", false), ["x"]);
        assert_eq!(
            tokenize("don't U.S. COVID-19", false),
            ["don", "t", "u", "s", "covid", "19"]
        );
        assert!(tokenize("ΣΑΣ", true).is_empty());
        assert_eq!(tokenize("STRASSE Straße", false), ["strasse", "stra", "e"]);
        assert_eq!(tokenize("STRASSE Straße", true), ["strass", "stra", "e"]);
        assert_eq!(tokenize("\u{fb01}ne", false), ["ne"]);
    }

    #[test]
    fn nltk_extension_stems_and_length_rule() {
        let cases = [
            ("dying", "die"),
            ("skies", "sky"),
            ("news", "news"),
            ("ones", "one"),
            ("proceed", "proceed"),
            ("generously", "gener"),
            ("fairly", "fairli"),
            ("this", "thi"),
            ("thus", "thu"),
            ("herring", "her"),
            ("lying", "lie"),
            ("tying", "tie"),
            ("innings", "inning"),
            ("outings", "outing"),
            ("cannings", "canning"),
            ("howe", "howe"),
            ("exceed", "exceed"),
            ("succeed", "succeed"),
            ("dies", "die"),
            ("spied", "spi"),
            ("flies", "fli"),
            ("happy", "happi"),
            ("enjoy", "enjoy"),
            ("geology", "geolog"),
            ("relational", "relat"),
        ];
        for (w, want) in cases {
            assert_eq!(tokenize(w, true), [want], "{w}");
            assert_eq!(tokenize(w, false), [w], "{w}");
        }
        // tokens of <= 3 characters are never stemmed
        assert_eq!(tokenize("was ran its", true), ["was", "ran", "its"]);
    }

    #[test]
    fn sentence_lists_and_tokenized_reuse() {
        let scorer = RougeL::new(RougeOptions::default());
        let t = "Aspirin lowers the risk.\nIt causes bleeding.";
        let p = "It lowers the risk of bleeding.";
        let direct = scorer.score(t, p);
        let via_lists = scorer.score_sentences(
            &["Aspirin lowers the risk.", "", "It causes bleeding."],
            &[p],
        );
        assert_eq!(direct, via_lists);
        let target = scorer.tokenize_text(t);
        assert_eq!(
            target.tokens(),
            ["aspirin", "lower", "the", "risk", "it", "caus", "bleed"]
        );
        assert_eq!(target.sentences().len(), 2);
        assert_eq!(
            scorer.score_tokenized(&target, &scorer.tokenize_text(p)),
            direct
        );
        // a sentence containing "\n" stays one sentence: Lsum then equals L here
        let one = scorer.score_sentences(&[t], &[p]);
        assert_eq!(one.rouge_lsum, direct.rouge_l);
    }

    #[test]
    fn argument_order_is_target_then_prediction() {
        let s = both(false, "the cat sat on the mat", "the cat sat");
        assert_eq!(triple(s.rouge_l), [1.0, 0.5, 0.6666666666666666]);
    }

    #[test]
    fn options_default_and_serde() {
        assert!(RougeOptions::default().use_stemmer);
        let o: RougeOptions = serde_json::from_str("{}").unwrap();
        assert_eq!(o, RougeOptions::default());
        let s = both(false, "a b", "a");
        let v = serde_json::to_value(s).unwrap();
        assert_eq!(v["rouge_l"]["precision"], 1.0);
        assert_eq!(v["rouge_lsum"]["recall"], 0.5);
        let back: RougeLScores = serde_json::from_value(v).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn bounded_scores_equal_unbounded_below_the_bound_and_skip_lsum_above() {
        let scorer = RougeL::new(RougeOptions::default());
        let t = "The trial enrolled 120 adults.\nMost had mild asthma.\nThe inhaler improved symptoms.";
        let p = "Most adults had mild asthma.\nThe trial enrolled 120 of them.";
        let full = scorer.score(t, p);
        let b = scorer.score_bounded(t, p, LSUM_MAX_CELLS);
        assert_eq!((b.rouge_l, b.rouge_lsum), (full.rouge_l, Ok(full.rouge_lsum)));
        // Longest sentences: 5 and 6 tokens -> 6 x 7 = 42 cells.
        assert!(scorer.score_bounded(t, p, 42).rouge_lsum.is_ok());
        let e = scorer.score_bounded(t, p, 41).rouge_lsum.unwrap_err();
        assert_eq!((e.target_tokens, e.prediction_tokens, e.cells), (5, 6, 42));
        assert!(e.to_string().contains("42 cells"), "{e}");
        assert_eq!(scorer.score_bounded(t, p, 41).rouge_l, full.rouge_l);
    }

    #[test]
    fn fmeasure_matches_reference_formula() {
        assert_eq!(fmeasure(0.0, 0.0), 0.0);
        assert_eq!(fmeasure(0.25, 1.0 / 3.0), 0.28571428571428575);
        assert_eq!(fmeasure(0.6, 1.0), 0.7499999999999999);
    }
}
