//! Score direction of each metric column: is a higher value a better summary?
//!
//! The meta-evaluation negates lower-is-better columns before computing any
//! statistic, so that a positive correlation (and a pairwise accuracy above
//! the tie baseline) always means that the metric agrees with the experts.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Whether a higher value of a metric column means a better summary: the registry's type.
pub use factpico::Direction;

/// Where a column's direction came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DirectionSource {
    /// Given by the user ([`EvalOptions::directions`](crate::EvalOptions::directions), e.g. from `col=lower`).
    Override,
    /// From the factpico metric registry (`factpico::column_info`).
    Registry,
    /// Unknown column, no override: assumed higher-is-better (reported).
    Assumed,
}

/// A metric column's resolved direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricDirection {
    /// The column.
    pub metric: String,
    /// Its direction.
    pub direction: Direction,
    /// Where the direction came from.
    pub source: DirectionSource,
}

/// Parses direction specs `col=lower` / `col=higher` (also `low`, `high`, `lower-is-better`,
/// `higher-is-better`, `-`, `+`) into [`EvalOptions::directions`](crate::EvalOptions::directions).
///
/// # Errors
/// [`Error::InvalidOption`] for a spec without `=`, an empty column or an
/// unknown direction word, or the same column given twice.
pub fn parse_overrides<S: AsRef<str>>(specs: &[S]) -> Result<BTreeMap<String, Direction>> {
    let mut out = BTreeMap::new();
    for spec in specs {
        let spec = spec.as_ref();
        let bad = |message: String| Error::InvalidOption { option: "directions", message };
        let (col, dir) = spec
            .split_once('=')
            .ok_or_else(|| bad(format!("`{spec}`: expected COLUMN=lower or COLUMN=higher")))?;
        let col = col.trim();
        if col.is_empty() {
            return Err(bad(format!("`{spec}`: empty column name")));
        }
        let d = match dir.trim().to_ascii_lowercase().as_str() {
            "lower" | "low" | "lower-is-better" | "-" => Direction::LowerIsBetter,
            "higher" | "high" | "higher-is-better" | "+" => Direction::HigherIsBetter,
            other => return Err(bad(format!("`{spec}`: unknown direction `{other}` (use lower or higher)"))),
        };
        if out.insert(col.to_owned(), d).is_some() {
            return Err(bad(format!("column `{col}` given twice")));
        }
    }
    Ok(out)
}

/// The direction the factpico metric registry gives a column, if it knows it.
pub fn registry_direction(column: &str) -> Option<Direction> {
    factpico::column_info(column).map(|(_, c)| c.direction)
}

/// Resolves a column's direction: override, else registry, else assumed
/// higher-is-better.
pub fn resolve(column: &str, overrides: &BTreeMap<String, Direction>) -> MetricDirection {
    let (direction, source) = match (overrides.get(column), registry_direction(column)) {
        (Some(&d), _) => (d, DirectionSource::Override),
        (None, Some(d)) => (d, DirectionSource::Registry),
        (None, None) => (Direction::HigherIsBetter, DirectionSource::Assumed),
    };
    MetricDirection { metric: column.to_owned(), direction, source }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn overrides_parse_and_win_over_registry() {
        let o = parse_overrides(&["delta_fkgl=higher", "mine = lower"]).unwrap();
        assert_eq!(o["mine"], Direction::LowerIsBetter);
        let d = resolve("delta_fkgl", &o);
        assert_eq!((d.direction, d.source), (Direction::HigherIsBetter, DirectionSource::Override));
        let d = resolve("delta_fkgl", &BTreeMap::new());
        assert_eq!((d.direction, d.source), (Direction::LowerIsBetter, DirectionSource::Registry));
        let d = resolve("rougeL", &BTreeMap::new());
        assert_eq!((d.direction, d.source), (Direction::HigherIsBetter, DirectionSource::Registry));
        let d = resolve("my_metric", &BTreeMap::new());
        assert_eq!((d.direction, d.source), (Direction::HigherIsBetter, DirectionSource::Assumed));
        assert_eq!(Direction::LowerIsBetter.sign(), -1.0);
    }

    #[test]
    fn bad_specs_are_errors() {
        for bad in ["nodir", "=lower", "a=sideways"] {
            assert!(parse_overrides(&[bad]).is_err(), "{bad}");
        }
        assert!(parse_overrides(&["a=lower", "a=higher"]).unwrap_err().to_string().contains("given twice"));
    }
}
