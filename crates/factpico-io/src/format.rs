//! The one table-file format of factpico: what `factpico score` reads (`--format`), what
//! `factpico meta-eval` reads (`--scores-format`, `--ratings-format`) and what the score
//! files' provenance records.

use std::path::Path;

/// A table file format (serde: `jsonl`, `json`, `csv`, `tsv`, `tsv_quoted`; the flags spell
/// the last one `tsv-quoted`, `tsv_quoted` accepted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// One JSON object per line (`.jsonl`, `.ndjson`; factpico score output, or flat objects).
    Jsonl,
    /// One JSON array of objects (`.json`).
    Json,
    /// Comma-separated values with a header row (`.csv`; RFC 4180 quoting, fields may hold
    /// newlines).
    Csv,
    /// Tab-separated values with a header row (`.tsv`, `.tab`); fields are taken literally,
    /// quotes included.
    Tsv,
    /// Tab-separated values with CSV-style quoting (quoted cells may hold tabs and line
    /// breaks, `""` is a quote), as pandas' `to_csv(sep="\t")` writes them. Never inferred
    /// from the extension.
    #[cfg_attr(feature = "clap", value(alias = "tsv_quoted"))]
    TsvQuoted,
}

impl Format {
    /// The format implied by a file extension (case-insensitive): `.jsonl` / `.ndjson`,
    /// `.json`, `.csv`, `.tsv` / `.tab`; `None` for anything else.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "jsonl" | "ndjson" => Format::Jsonl,
            "json" => Format::Json,
            "csv" => Format::Csv,
            "tsv" | "tab" => Format::Tsv,
            _ => return None,
        })
    }

    /// The serde name (`jsonl`, `json`, `csv`, `tsv`, `tsv_quoted`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Tsv => "tsv",
            Format::TsvQuoted => "tsv_quoted",
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_extensions_and_serde_agree() {
        for f in [Format::Jsonl, Format::Json, Format::Csv, Format::Tsv, Format::TsvQuoted] {
            assert_eq!(serde_json::to_value(f).unwrap(), f.name());
        }
        assert_eq!(Format::from_path(Path::new("a.NDJSON")), Some(Format::Jsonl));
        assert_eq!(Format::from_path(Path::new("a.tab")), Some(Format::Tsv));
        assert_eq!(Format::from_path(Path::new("a.txt")), None);
        assert_eq!(Format::from_path(Path::new("a")), None);
    }
}
