//! Joining a scores table and a ratings table on their ids.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::slim::{Cell, SlimTable, Wanted};
use crate::table::Table;

/// How to join.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JoinOptions {
    /// Id column of the scores file (default `id`; factpico score rows: `id`).
    pub scores_id: String,
    /// Id column of the ratings file (default `id`; shaib2023's derived file: `doc_id`).
    pub ratings_id: String,
    /// System column. `None`: use a column named `system` where one exists,
    /// silently; `Some(name)`: that column must exist on at least one side.
    /// When it exists on both sides the join key is `(id, system)`, so each
    /// file may hold several systems' outputs for one id.
    pub system_col: Option<String>,
    /// Proceed (reporting the counts) when some ids occur on one side only.
    pub allow_missing: bool,
}

impl Default for JoinOptions {
    fn default() -> Self {
        JoinOptions { scores_id: "id".into(), ratings_id: "id".into(), system_col: None, allow_missing: false }
    }
}

/// Maximum number of example ids shown per side in join reports and errors.
pub const MAX_EXAMPLES: usize = 5;

/// Ids present on one side only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unjoined {
    /// The scores file.
    pub scores_path: PathBuf,
    /// The ratings file.
    pub ratings_path: PathBuf,
    /// Rows in the scores file.
    pub scores_rows: usize,
    /// Rows in the ratings file.
    pub ratings_rows: usize,
    /// Scores rows whose key has no ratings row.
    pub scores_only: usize,
    /// Ratings rows whose key has no scores row.
    pub ratings_only: usize,
    /// Up to [`MAX_EXAMPLES`] such keys of the scores file, sorted.
    pub scores_examples: Vec<String>,
    /// Up to [`MAX_EXAMPLES`] such keys of the ratings file, sorted.
    pub ratings_examples: Vec<String>,
}

impl std::fmt::Display for Unjoined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ids do not join: ")?;
        let mut parts = Vec::new();
        if self.scores_only > 0 {
            parts.push(format!(
                "{} of {} rows of {} have no match in {} (e.g. {})",
                self.scores_only,
                self.scores_rows,
                self.scores_path.display(),
                self.ratings_path.display(),
                self.scores_examples.join(", ")
            ));
        }
        if self.ratings_only > 0 {
            parts.push(format!(
                "{} of {} rows of {} have no match in {} (e.g. {})",
                self.ratings_only,
                self.ratings_rows,
                self.ratings_path.display(),
                self.scores_path.display(),
                self.ratings_examples.join(", ")
            ));
        }
        write!(f, "{}; set `allow_missing` to evaluate the joined rows only", parts.join("; "))
    }
}

/// Missing values of one column among the joined rows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ColumnMissing {
    /// Rows whose value is missing.
    pub n_missing: usize,
    /// Reason → count (factpico `nulls` reasons, `row skipped: …`,
    /// `column absent from row`, `missing value`).
    pub reasons: BTreeMap<String, usize>,
}

/// What the join did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct JoinReport {
    /// Data rows of the scores file (rows without an id excluded).
    pub scores_rows: usize,
    /// Data rows of the ratings file.
    pub ratings_rows: usize,
    /// factpico rows dropped for having no id (unreadable input).
    pub scores_dropped: usize,
    /// factpico rows marked `skipped` (kept, with missing scores).
    pub scores_skipped: usize,
    /// Rows present on both sides (the evaluated rows).
    pub joined: usize,
    /// Scores rows without a ratings row (only with `allow_missing`).
    pub scores_only: usize,
    /// Ratings rows without a scores row (only with `allow_missing`).
    pub ratings_only: usize,
    /// Examples of scores-only keys.
    pub scores_only_examples: Vec<String>,
    /// Examples of ratings-only keys.
    pub ratings_only_examples: Vec<String>,
    /// Where the systems came from (`None`: no system column).
    pub system_column: Option<String>,
    /// Whether the join key includes the system.
    pub key_includes_system: bool,
    /// Column → its missing values among the joined rows.
    pub missing: BTreeMap<String, ColumnMissing>,
}

impl JoinReport {
    /// The warning for rows that did not join (possible only with `allow_missing`), if any.
    pub fn missing_warning(&self) -> Option<String> {
        (self.scores_only + self.ratings_only > 0).then(|| {
            format!(
                "{} scores rows and {} ratings rows did not join (`allow_missing`); {} rows evaluated",
                self.scores_only, self.ratings_only, self.joined
            )
        })
    }
}

/// The joined data: one entry per (id[, system]) row present on both sides,
/// sorted by id then system. Missing values are NaN (the statistics crate
/// excludes them pairwise and counts them).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Joined {
    /// Row ids.
    pub ids: Vec<String>,
    /// Row systems, when a system column is in use.
    pub systems: Option<Vec<String>>,
    /// Metric column → values (as read; no direction applied).
    pub metrics: BTreeMap<String, Vec<f64>>,
    /// Human aspect column → values.
    pub aspects: BTreeMap<String, Vec<f64>>,
    /// Counts and examples.
    pub report: JoinReport,
}

type Key<'a> = (&'a str, Option<&'a str>);

fn key_text(k: &Key<'_>) -> String {
    match &k.1 {
        Some(s) => format!("{} @ {s}", k.0),
        None => k.0.to_owned(),
    }
}

/// Keys of a table, checking for empty ids/systems and duplicates: per row its key and its
/// system, and the key → row index.
#[allow(clippy::type_complexity)]
fn keys<'a>(
    t: &'a SlimTable,
    id_col: &str,
    sys_col: Option<&str>,
    sys_in_key: bool,
) -> Result<(Vec<(Key<'a>, Option<&'a str>)>, HashMap<Key<'a>, usize>)> {
    t.require_column(id_col)?;
    let mut seen: HashMap<Key<'a>, usize> = HashMap::with_capacity(t.len());
    let mut out = Vec::with_capacity(t.len());
    for i in 0..t.len() {
        let Some(id) = t.ids[i].as_deref() else {
            return Err(Error::MissingId { side: t.side, path: t.path.clone(), row: t.rows[i].0, column: id_col.to_owned() });
        };
        let system = match sys_col {
            Some(c) => match t.system(i) {
                Some(s) => Some(s),
                None => {
                    return Err(Error::MissingSystem {
                        side: t.side,
                        path: t.path.clone(),
                        row: t.rows[i].0,
                        column: c.to_owned(),
                    })
                }
            },
            None => None,
        };
        let key: Key<'a> = (id, if sys_in_key { system } else { None });
        if let Some(&first) = seen.get(&key) {
            let hint = if sys_in_key {
                String::new()
            } else if sys_col.is_some() {
                " (the system column exists in one file only, so it is not part of the join key)".into()
            } else {
                " (if an id has several systems' outputs, name the system column with `system_col`)".into()
            };
            return Err(Error::DuplicateId {
                side: t.side,
                path: t.path.clone(),
                key: key_text(&key),
                first_row: t.rows[first].0,
                row: t.rows[i].0,
                place: t.place(first, i),
                hint,
            });
        }
        seen.insert(key, i);
        out.push((key, system));
    }
    Ok((out, seen))
}

/// Joins `scores` and `ratings` on their id columns (and systems, see
/// [`JoinOptions::system_col`]), extracting the numeric `metrics` columns
/// of the scores file and the `aspects` columns of the ratings file.
///
/// # Errors
/// [`Error::MissingColumn`] for an absent id/metric/aspect/system column,
/// [`Error::MissingId`] / [`Error::MissingSystem`] for an empty key cell,
/// [`Error::DuplicateId`], [`Error::NotNumeric`], [`Error::Unjoined`] when
/// ids occur on one side only and `allow_missing` is off (counts per side,
/// up to 5 examples each), [`Error::NothingJoined`] when no id joins,
/// [`Error::InvalidOption`] for empty column lists.
pub fn join(
    scores: &Table,
    ratings: &Table,
    metrics: &[String],
    aspects: &[String],
    opts: &JoinOptions,
) -> Result<Joined> {
    let sys_name = system_name(opts);
    let s = SlimTable::from_table(scores, &Wanted { id: &opts.scores_id, system: &sys_name, numeric: metrics });
    let r = SlimTable::from_table(ratings, &Wanted { id: &opts.ratings_id, system: &sys_name, numeric: aspects });
    join_slim(&s, &r, metrics, aspects, opts)
}

/// The system column a join looks for: `system_col`, else `system`.
pub(crate) fn system_name(opts: &JoinOptions) -> String {
    opts.system_col.clone().unwrap_or_else(|| "system".into())
}

/// [`join()`] of tables reduced to the columns it reads ([`SlimTable`], whose numeric
/// columns must be `metrics` and `aspects`).
pub(crate) fn join_slim(
    scores: &SlimTable,
    ratings: &SlimTable,
    metrics: &[String],
    aspects: &[String],
    opts: &JoinOptions,
) -> Result<Joined> {
    if metrics.is_empty() {
        return Err(Error::InvalidOption { option: "metrics", message: "no metric column given".into() });
    }
    if aspects.is_empty() {
        return Err(Error::InvalidOption { option: "aspects", message: "no human aspect column given".into() });
    }
    for m in metrics {
        scores.require_column(m)?;
    }
    for a in aspects {
        ratings.require_column(a)?;
    }
    let sys_name = system_name(opts);
    // Without an explicit `system_col`, a `system` column that is empty everywhere (as in
    // `factpico score --csv` output of data without systems) means "no systems".
    let present = |t: &SlimTable| if opts.system_col.is_some() { t.has_column(&sys_name) } else { t.has_system_values() };
    let (in_s, in_r) = (present(scores), present(ratings));
    if opts.system_col.is_some() && !in_s && !in_r {
        ratings.require_column(&sys_name)?;
    }
    let sys_in_key = in_s && in_r;
    let (s_keys, s_index) = keys(scores, &opts.scores_id, in_s.then_some(sys_name.as_str()), sys_in_key)?;
    let (r_keys, r_index) = keys(ratings, &opts.ratings_id, in_r.then_some(sys_name.as_str()), sys_in_key)?;

    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut scores_only: Vec<String> = Vec::new();
    for (i, (k, _)) in s_keys.iter().enumerate() {
        match r_index.get(k) {
            Some(&j) => pairs.push((i, j)),
            None => scores_only.push(key_text(k)),
        }
    }
    let mut ratings_only: Vec<String> =
        r_keys.iter().filter(|(k, _)| !s_index.contains_key(k)).map(|(k, _)| key_text(k)).collect();
    drop((s_index, r_index));
    scores_only.sort();
    ratings_only.sort();
    let examples = |v: &[String]| v.iter().take(MAX_EXAMPLES).cloned().collect::<Vec<_>>();
    if pairs.is_empty() {
        let ex = |v: &[(Key<'_>, Option<&str>)]| v.iter().take(3).map(|(k, _)| key_text(k)).collect::<Vec<_>>().join(", ");
        return Err(Error::NothingJoined {
            scores: scores.path.clone(),
            ratings: ratings.path.clone(),
            scores_examples: ex(&s_keys),
            ratings_examples: ex(&r_keys),
        });
    }
    if (!scores_only.is_empty() || !ratings_only.is_empty()) && !opts.allow_missing {
        return Err(Error::Unjoined(Box::new(Unjoined {
            scores_path: scores.path.clone(),
            ratings_path: ratings.path.clone(),
            scores_rows: s_keys.len(),
            ratings_rows: r_keys.len(),
            scores_only: scores_only.len(),
            ratings_only: ratings_only.len(),
            scores_examples: examples(&scores_only),
            ratings_examples: examples(&ratings_only),
        })));
    }
    pairs.sort_by(|a, b| s_keys[a.0].0.cmp(&s_keys[b.0].0));

    let mut report = JoinReport {
        scores_rows: s_keys.len(),
        ratings_rows: r_keys.len(),
        scores_dropped: scores.dropped.len(),
        scores_skipped: scores.skipped.iter().filter(|r| r.is_some()).count(),
        joined: pairs.len(),
        scores_only: scores_only.len(),
        ratings_only: ratings_only.len(),
        scores_only_examples: examples(&scores_only),
        ratings_only_examples: examples(&ratings_only),
        system_column: (in_s || in_r).then(|| sys_name.clone()),
        key_includes_system: sys_in_key,
        missing: BTreeMap::new(),
    };
    drop((scores_only, ratings_only));
    let ids = pairs.iter().map(|&(i, _)| s_keys[i].0 .0.to_owned()).collect();
    let systems = (in_s || in_r).then(|| {
        pairs
            .iter()
            .map(|&(i, j)| r_keys[j].1.or(s_keys[i].1).unwrap_or_default().to_owned())
            .collect()
    });
    let mut column = |t: &SlimTable, k: usize, pick: &dyn Fn(&(usize, usize)) -> usize| -> Result<Vec<f64>> {
        let mut miss = ColumnMissing::default();
        let mut v = Vec::with_capacity(pairs.len());
        for p in &pairs {
            let i = pick(p);
            match &t.cells[k][i] {
                Cell::Num(x) => v.push(*x),
                Cell::Bad(raw) => return Err(t.not_numeric(k, i, raw)),
                Cell::Missing { .. } => {
                    v.push(f64::NAN);
                    miss.n_missing += 1;
                    *miss.reasons.entry(t.reason(k, i)).or_default() += 1;
                }
            }
        }
        report.missing.insert(t.numeric[k].clone(), miss);
        Ok(v)
    };
    let mut metric_values = BTreeMap::new();
    for (k, m) in metrics.iter().enumerate() {
        metric_values.insert(m.clone(), column(scores, k, &|p| p.0)?);
    }
    let mut aspect_values = BTreeMap::new();
    for (k, a) in aspects.iter().enumerate() {
        aspect_values.insert(a.clone(), column(ratings, k, &|p| p.1)?);
    }
    Ok(Joined { ids, systems, metrics: metric_values, aspects: aspect_values, report })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use std::path::Path;

    use super::*;
    use crate::error::Side;
    use crate::table::Format;

    fn t(text: &str, side: Side) -> Table {
        let name = if side == Side::Scores { "s.csv" } else { "r.csv" };
        Table::parse(text, Path::new(name), side, Format::Csv).unwrap()
    }
    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| (*x).to_owned()).collect()
    }

    #[test]
    fn joins_sorted_with_nan_for_missing() {
        let s = t("id,m\nb,2\na,1\nc,NA\n", Side::Scores);
        let r = t("doc,h\nc,3\na,4\nb,\n", Side::Ratings);
        let opts = JoinOptions { ratings_id: "doc".into(), ..JoinOptions::default() };
        let j = join(&s, &r, &v(&["m"]), &v(&["h"]), &opts).unwrap();
        assert_eq!(j.ids, v(&["a", "b", "c"]));
        assert_eq!(j.metrics["m"][..2], [1.0, 2.0]);
        assert!(j.metrics["m"][2].is_nan());
        assert!(j.aspects["h"][1].is_nan());
        assert_eq!(j.report.missing["m"].n_missing, 1);
        assert_eq!(j.report.missing["h"].reasons["missing value"], 1);
        assert_eq!(j.systems, None);
    }

    #[test]
    fn unjoined_ids_are_counted_per_side_with_examples() {
        let s = t("id,m\na,1\nb,2\nx1,3\nx2,4\nx3,5\nx4,6\nx5,7\nx6,8\n", Side::Scores);
        let r = t("id,h\na,1\nb,2\nq,3\n", Side::Ratings);
        let e = join(&s, &r, &v(&["m"]), &v(&["h"]), &JoinOptions::default()).unwrap_err();
        let Error::Unjoined(u) = &e else { panic!("{e}") };
        assert_eq!((u.scores_only, u.ratings_only), (6, 1));
        assert_eq!(u.scores_examples, v(&["x1", "x2", "x3", "x4", "x5"]));
        let msg = e.to_string();
        assert!(msg.contains("6 of 8 rows of s.csv have no match in r.csv (e.g. x1, x2, x3, x4, x5)"), "{msg}");
        assert!(msg.contains("1 of 3 rows of r.csv have no match in s.csv (e.g. q)"), "{msg}");
        let opts = JoinOptions { allow_missing: true, ..JoinOptions::default() };
        let j = join(&s, &r, &v(&["m"]), &v(&["h"]), &opts).unwrap();
        assert_eq!((j.report.joined, j.report.scores_only, j.report.ratings_only), (2, 6, 1));
    }

    #[test]
    fn duplicates_missing_columns_and_nothing_joined() {
        let s = t("id,m\na,1\na,2\n", Side::Scores);
        let r = t("id,h\na,1\n", Side::Ratings);
        let e = join(&s, &r, &v(&["m"]), &v(&["h"]), &JoinOptions::default()).unwrap_err();
        assert!(matches!(&e, Error::DuplicateId { first_row: 1, row: 2, .. }), "{e}");
        assert!(e.to_string().contains("`system_col`"), "{e}");
        let s = t("id,m\na,1\n", Side::Scores);
        let e = join(&s, &r, &v(&["zz"]), &v(&["h"]), &JoinOptions::default()).unwrap_err();
        assert!(e.to_string().contains("has no column `zz` (available: id, m)"), "{e}");
        let r2 = t("id,h\nb,1\n", Side::Ratings);
        assert!(matches!(join(&s, &r2, &v(&["m"]), &v(&["h"]), &JoinOptions::default()), Err(Error::NothingJoined { .. })));
        let r3 = t("id,h\n,1\n", Side::Ratings);
        assert!(matches!(join(&s, &r3, &v(&["m"]), &v(&["h"]), &JoinOptions::default()), Err(Error::MissingId { row: 1, .. })));
    }

    #[test]
    fn systems_enter_the_key_when_both_sides_have_them() {
        let s = t("id,system,m\na,S1,1\na,S2,2\nb,S1,3\nb,S2,4\n", Side::Scores);
        let r = t("id,system,h\nb,S2,4\na,S1,1\na,S2,2\nb,S1,3\n", Side::Ratings);
        let j = join(&s, &r, &v(&["m"]), &v(&["h"]), &JoinOptions::default()).unwrap();
        assert!(j.report.key_includes_system);
        assert_eq!(j.systems, Some(v(&["S1", "S2", "S1", "S2"])));
        assert_eq!(j.metrics["m"], j.aspects["h"]);
        // system on the ratings side only: key = id, system taken from ratings
        let s = t("id,m\na,1\nb,2\n", Side::Scores);
        let r = t("id,sys,h\na,X,1\nb,Y,2\n", Side::Ratings);
        let opts = JoinOptions { system_col: Some("sys".into()), ..JoinOptions::default() };
        let j = join(&s, &r, &v(&["m"]), &v(&["h"]), &opts).unwrap();
        assert!(!j.report.key_includes_system);
        assert_eq!(j.systems, Some(v(&["X", "Y"])));
        let opts = JoinOptions { system_col: Some("nope".into()), ..JoinOptions::default() };
        assert!(matches!(join(&s, &r, &v(&["m"]), &v(&["h"]), &opts), Err(Error::MissingColumn { .. })));
    }
}
