//! The `alignscore` options as a user sets them: `ScorerOptions::alignscore` (JSON / Python
//! `alignscore={...}`), the `--alignscore-*` flags (feature `clap`) and the provenance's
//! `options.alignscore`. Always compiled (no ONNX Runtime): one definition per option.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Evaluation mode (`evaluation_mode` of the reference, `inference.py:83-88, 133-142`).
/// Serialised (and given to `--alignscore-mode`) as the reference's names: `nli_sp`,
/// `bin_sp`, `reg_sp`, `nli`, `bin`, `reg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Chunks × claim sentences, 3-way head, P(aligned) = softmax(tri)\[0\] (the paper's
    /// AlignScore; default).
    #[default]
    #[cfg_attr(feature = "clap", value(name = "nli_sp"))]
    NliSp,
    /// Chunks × claim sentences, binary head, softmax(bin)\[1\].
    #[cfg_attr(feature = "clap", value(name = "bin_sp"))]
    BinSp,
    /// Chunks × claim sentences, regression head, raw value (not bounded to \[0, 1\]).
    #[cfg_attr(feature = "clap", value(name = "reg_sp"))]
    RegSp,
    /// One (context, claim) pair, 3-way head index 0.
    Nli,
    /// One (context, claim) pair, binary head index 1.
    Bin,
    /// One (context, claim) pair, regression head (unbounded).
    Reg,
}

impl Mode {
    /// All modes, in the reference's naming order.
    pub const ALL: [Mode; 6] = [Mode::NliSp, Mode::BinSp, Mode::RegSp, Mode::Nli, Mode::Bin, Mode::Reg];

    /// The reference's name (`nli_sp`, ...; also the serialised name).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::NliSp => "nli_sp",
            Mode::BinSp => "bin_sp",
            Mode::RegSp => "reg_sp",
            Mode::Nli => "nli",
            Mode::Bin => "bin",
            Mode::Reg => "reg",
        }
    }

    /// True for the split (`*_sp`) modes.
    pub fn is_split(self) -> bool {
        matches!(self, Mode::NliSp | Mode::BinSp | Mode::RegSp)
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Options of AlignScore (`ScorerOptions::alignscore`; flags `--alignscore-*` and
/// `--max-length`). `Default` = the reference's settings with the default model directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct AlignScoreConfig {
    /// AlignScore (or NLI) model directory; unset = `$FACTPICO_HOME/models/alignscore-base`.
    ///
    /// An AlignScore export (`onnx/export_alignscore.py`) or any NLI cross-encoder (the
    /// `nli` / `nli_sp` modes).
    #[cfg_attr(feature = "clap", arg(id = "alignscore.model", long = "alignscore-model"))]
    pub model: Option<PathBuf>,
    /// AlignScore mode: nli_sp (default), bin_sp, reg_sp, nli, bin, reg.
    #[cfg_attr(feature = "clap", arg(id = "alignscore.mode", long = "alignscore-mode", value_enum, default_value_t = AlignScoreConfig::default().mode))]
    pub mode: Mode,
    /// AlignScore: whitespace words per context chunk (default 350, the reference's).
    ///
    /// Lower it for models shorter than 512 tokens (e.g. the shared 256-token MiniLM NLI
    /// asset), so that fewer chunks are truncated (counted in the row's warnings).
    #[cfg_attr(feature = "clap", arg(id = "alignscore.words_per_chunk", long = "alignscore-words-per-chunk", default_value_t = AlignScoreConfig::default().words_per_chunk))]
    pub words_per_chunk: usize,
    /// AlignScore / NLI models: maximum pair length in tokens; unset = the model manifest's.
    ///
    /// 512 for AlignScore; pass 256 for the shared MiniLM NLI asset, which was trained at
    /// 256 although its config allows 512.
    #[cfg_attr(feature = "clap", arg(id = "alignscore.max_length", long = "max-length"))]
    pub max_length: Option<usize>,
}

impl Default for AlignScoreConfig {
    fn default() -> Self {
        Self { model: None, mode: Mode::NliSp, words_per_chunk: 350, max_length: None }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// JSON names of every option value (the provenance's and `fixtures/units/*.json`'s),
    /// the defaults, and unknown fields refused.
    #[test]
    fn json_names_and_defaults() {
        let names: Vec<String> = Mode::ALL.iter().map(|m| serde_json::to_value(m).unwrap().as_str().unwrap().to_owned()).collect();
        assert_eq!(names, ["nli_sp", "bin_sp", "reg_sp", "nli", "bin", "reg"]);
        for m in Mode::ALL {
            assert_eq!(serde_json::to_value(m).unwrap(), serde_json::json!(m.as_str()));
            assert_eq!(m.to_string(), m.as_str());
        }
        assert_eq!(Mode::default(), Mode::NliSp);
        assert!(Mode::RegSp.is_split() && !Mode::Reg.is_split());
        assert_eq!(
            serde_json::to_value(AlignScoreConfig::default()).unwrap(),
            serde_json::json!({"model": null, "mode": "nli_sp", "words_per_chunk": 350, "max_length": null})
        );
        let o: AlignScoreConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(o, AlignScoreConfig::default());
        let o: AlignScoreConfig = serde_json::from_str(r#"{"mode": "bin_sp", "max_length": 256}"#).unwrap();
        assert_eq!((o.mode, o.max_length, o.words_per_chunk), (Mode::BinSp, Some(256), 350));
        assert!(serde_json::from_str::<AlignScoreConfig>(r#"{"words": 3}"#).unwrap_err().to_string().contains("words"));
        assert!(serde_json::from_str::<AlignScoreConfig>(r#"{"mode": "nli-sp"}"#).is_err());
    }
}
