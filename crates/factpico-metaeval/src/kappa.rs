//! Inter-annotator agreement: Randolph's free-marginal κ (FactPICO Table 1)
//! over an items × annotators file.
//!
//! Two layouts of the ratings file are accepted:
//! * **wide**: one column per annotator ([`KappaLayout::Annotators`]); the
//!   cells of a row are that item's labels, giving one κ over the columns;
//! * **packed**: each named column holds all of an item's labels joined by a
//!   separator ([`KappaLayout::Packed`], e.g. shaib2023's
//!   `population_ratings` = `4|3|4`), giving one κ per column.
//!
//! Labels are compared as trimmed strings; empty cells and `NA`, `N/A`,
//! `NaN`, `null`, `None` are missing ratings (items with fewer than two
//! ratings are excluded and counted by `factpico-stats`).

use std::fmt::Write as _;

use factpico_stats::{randolph_kappa, RandolphKappa};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::render::f3;
use crate::table::Table;

/// How the annotators' labels are laid out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KappaLayout {
    /// One column per annotator; one κ over them all.
    Annotators {
        /// The annotator columns (at least 2).
        columns: Vec<String>,
    },
    /// Each column packs an item's labels with `separator`; one κ per column.
    Packed {
        /// The packed columns.
        columns: Vec<String>,
        /// The separator (e.g. `|`).
        separator: char,
    },
}

/// One κ result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KappaRow {
    /// What was rated: the packed column, or the annotator columns joined by `,`.
    pub name: String,
    /// The statistic.
    pub kappa: RandolphKappa,
}

const MISSING: &[&str] = &["", "na", "n/a", "nan", "null", "none"];

fn label(s: &str) -> Option<String> {
    let t = s.trim();
    (!MISSING.iter().any(|m| t.eq_ignore_ascii_case(m))).then(|| t.to_owned())
}

fn cell_text(row: &crate::table::Row, col: &str) -> String {
    match row.cells.get(col) {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Randolph's κ_free with `n_categories` categories over the ratings of
/// `table` laid out as `layout`.
///
/// # Errors
/// [`Error::MissingColumn`]; [`Error::InvalidOption`] for fewer than 2
/// annotator columns or no packed column; [`Error::Stats`] for
/// `n_categories < 2` or more distinct labels than categories.
pub fn kappa(table: &Table, layout: &KappaLayout, n_categories: usize) -> Result<Vec<KappaRow>> {
    match layout {
        KappaLayout::Annotators { columns } => {
            if columns.len() < 2 {
                return Err(Error::InvalidOption {
                    option: "KappaLayout::Annotators",
                    message: "need at least 2 annotator columns".into(),
                });
            }
            for c in columns {
                table.require_column(c)?;
            }
            let items: Vec<Vec<Option<String>>> = table
                .rows
                .iter()
                .map(|r| columns.iter().map(|c| label(&cell_text(r, c))).collect())
                .collect();
            Ok(vec![KappaRow { name: columns.join(","), kappa: randolph_kappa(&items, n_categories)? }])
        }
        KappaLayout::Packed { columns, separator } => {
            if columns.is_empty() {
                return Err(Error::InvalidOption { option: "KappaLayout::Packed", message: "no column given".into() });
            }
            let mut out = Vec::new();
            for c in columns {
                table.require_column(c)?;
                let items: Vec<Vec<Option<String>>> = table
                    .rows
                    .iter()
                    .map(|r| {
                        let text = cell_text(r, c);
                        if text.trim().is_empty() {
                            Vec::new()
                        } else {
                            text.split(*separator).map(label).collect()
                        }
                    })
                    .collect();
                out.push(KappaRow { name: c.clone(), kappa: randolph_kappa(&items, n_categories)? });
            }
            Ok(out)
        }
    }
}

/// Loads `path` and computes [`kappa`]; returns the rows and their
/// Markdown table (captioned with the file name).
///
/// # Errors
/// As [`Table::load`] and [`kappa`].
pub fn run_kappa(
    path: &std::path::Path,
    format: Option<crate::table::Format>,
    layout: &KappaLayout,
    n_categories: usize,
) -> Result<(Vec<KappaRow>, String)> {
    let table = Table::load(path, crate::error::Side::Ratings, format)?;
    let rows = kappa(&table, layout, n_categories)?;
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let md = kappa_markdown(&rows, &name);
    Ok((rows, md))
}

/// A Markdown table of κ results with its caption.
pub fn kappa_markdown(rows: &[KappaRow], source: &str) -> String {
    let mut s = String::new();
    let k = rows.first().map_or(0, |r| r.kappa.n_categories);
    let _ = writeln!(
        s,
        "Randolph's free-marginal multirater κ over `{source}` with k = {k} categories: κ = (P_o − 1/k) / (1 − 1/k), \
         P_o = mean proportion of agreeing annotator pairs per item. Items with fewer than two ratings are excluded.\n"
    );
    s.push_str("| ratings | items | excl. | ratings used | P_o | κ_free |\n|---|---:|---:|---:|---:|---:|\n");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            r.name,
            r.kappa.n_items,
            r.kappa.n_items_excluded,
            r.kappa.n_ratings,
            f3(r.kappa.observed_agreement),
            f3(r.kappa.kappa)
        );
    }
    for r in rows {
        if let Some(why) = r.kappa.null_reason {
            let _ = writeln!(s, "\n* `{}`: κ is null: {why}.", r.name);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use std::path::Path;

    use super::*;
    use crate::error::Side;
    use crate::table::Format;

    #[test]
    fn wide_and_packed_layouts_agree() {
        // item 1: all agree (P=1); item 2: 4,4,3 → 2 of 6 ordered pairs agree (1/3);
        // item 3: one rating only → excluded. P_o = 2/3, k = 4: κ = (2/3 − 1/4)/(3/4) = 5/9.
        let wide = Table::parse("id,a,b,c\n1,4,4,4\n2,4,4,3\n3,4,NA,\n", Path::new("w.csv"), Side::Ratings, Format::Csv)
            .unwrap();
        let cols = vec!["a".to_owned(), "b".into(), "c".into()];
        let r = kappa(&wide, &KappaLayout::Annotators { columns: cols }, 4).unwrap();
        assert!((r[0].kappa.kappa.unwrap() - 5.0 / 9.0).abs() < 1e-12);
        assert_eq!((r[0].kappa.n_items, r[0].kappa.n_items_excluded), (2, 1));
        let packed = Table::parse("id,p\n1,4|4|4\n2,4|4|3\n3,4|NA\n", Path::new("p.csv"), Side::Ratings, Format::Csv)
            .unwrap();
        let r2 = kappa(&packed, &KappaLayout::Packed { columns: vec!["p".into()], separator: '|' }, 4).unwrap();
        assert_eq!(r2[0].kappa.kappa, r[0].kappa.kappa);
        let md = kappa_markdown(&r2, "p.csv");
        assert!(md.contains("| p | 2 | 1 | 6 | 0.667 | 0.556 |"), "{md}");
        assert!(kappa(&packed, &KappaLayout::Packed { columns: vec!["p".into()], separator: '|' }, 1).is_err());
    }
}
