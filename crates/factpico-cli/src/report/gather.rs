//! Reading a score file for the page in bounded memory.
//!
//! Up to `max_rows` rows ([`DEFAULT_MAX_ROWS`]) the page holds every row, as it always did.
//! Above, the file is read twice (a score file is a regular file; `report` never reads
//! standard input): the first pass aggregates **every** row (the per-system table, the
//! histograms' ranges, the columns and systems present) and picks the rows to hold; the
//! second pass bins the histograms and keeps only those rows. What the page holds is a
//! [`Selection`]:
//!
//! * the first `max_rows / 2` rows of the file;
//! * per primary column, the worst-scoring rows (lowest where higher is better, highest where
//!   lower is better; ties: the earlier row) of each system and of all rows together:
//!   `k = ⌊(max_rows / 2) / (columns × (systems + 1))⌋` each, at most [`WORST_PER_GROUP`];
//!   when that is below 1 (more systems than the budget), the worst `⌊(max_rows / 2) /
//!   columns⌋` (at most [`WORST_PER_GROUP`]) over all rows only;
//! * the first [`FAILED_ROWS`] rows that carry errors or were skipped.
//!
//! So the page holds at most `max_rows + FAILED_ROWS` rows, and memory is that many rows plus
//! a few numbers per column and system (the candidates of the worst-scoring heaps and one
//! histogram strip each), whatever the file's length.

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};
use std::path::Path;

use anyhow::{bail, Context, Result};
use factpico::Report;

use crate::output::{self, ScoreFile};
use crate::summary::Summary;

/// Rows a page holds in full by default (`factpico report --max-rows`).
pub const DEFAULT_MAX_ROWS: usize = 10_000;
/// Most worst-scoring rows held per primary column and system.
pub const WORST_PER_GROUP: usize = 100;
/// Most rows with errors or skipped held above `max_rows`.
pub const FAILED_ROWS: usize = 100;
/// Bins of each histogram.
pub const BINS: usize = 20;

/// Which rows a page holds when the file has more than `max_rows`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Rows in the file.
    pub total: usize,
    /// The `max_rows` the selection was made for.
    pub max_rows: usize,
    /// The first rows held (`max_rows / 2`).
    pub first: usize,
    /// Worst-scoring rows held per primary column and system (0 when per-system groups did
    /// not fit; see `worst_all`).
    pub worst_per_system: usize,
    /// Worst-scoring rows held per primary column over all rows.
    pub worst_all: usize,
    /// Rows with errors or skipped held (at most [`FAILED_ROWS`]).
    pub failed: usize,
}

/// One histogram strip: the bin counts of a system's (or all rows') finite values.
#[derive(Debug, Clone, Default)]
pub struct Strip {
    /// Finite values.
    pub n: usize,
    /// Their sum.
    pub sum: f64,
    /// Counts per bin.
    pub counts: [usize; BINS],
}

/// The histogram of one primary column: its range over all rows and one strip per system.
#[derive(Debug, Clone)]
pub struct Histogram {
    /// The column.
    pub column: String,
    /// Smallest and largest finite value (`lo > hi` when there is none).
    pub lo: f64,
    /// See `lo`.
    pub hi: f64,
    /// Rows without a finite value (skipped rows included).
    pub nulls: usize,
    /// Per system (`None`: rows without one), sorted.
    pub strips: BTreeMap<Option<String>, Strip>,
    /// All rows together.
    pub all: Strip,
}

impl Histogram {
    fn new(column: String, (lo, hi): (f64, f64)) -> Self {
        Self { column, lo, hi, nulls: 0, strips: BTreeMap::new(), all: Strip::default() }
    }

    /// Width of a bin (1 when the range is a single value).
    pub fn width(&self) -> f64 {
        if self.hi > self.lo {
            (self.hi - self.lo) / BINS as f64
        } else {
            1.0
        }
    }

    fn add(&mut self, r: &Report) {
        let Some(v) = r.score(&self.column).filter(|v| v.is_finite()) else {
            self.nulls += 1;
            return;
        };
        let b = if self.hi > self.lo { (((v - self.lo) / self.width()) as usize).min(BINS - 1) } else { 0 };
        let strip = match self.strips.get_mut(&r.system) {
            Some(s) => s,
            None => self.strips.entry(r.system.clone()).or_default(),
        };
        for s in [strip, &mut self.all] {
            s.counts[b] += 1;
            s.n += 1;
            s.sum += v;
        }
    }
}

/// What the page is made of.
pub struct Gathered {
    /// The rows the page holds, in file order.
    pub reports: Vec<Report>,
    /// Rows in the file.
    pub total: usize,
    /// `None` when the page holds every row.
    pub selection: Option<Selection>,
    /// The provenance and any note about it.
    pub file: ScoreFile,
    /// The per-system table over every row (its columns: `primary`).
    pub summary: Summary,
    /// Score columns present in any row.
    pub present: BTreeSet<String>,
    /// The primary columns (the table's and the histograms').
    pub primary: Vec<String>,
    /// One histogram per primary column, over every row.
    pub histograms: Vec<Histogram>,
    /// The systems of every row (`None`: rows without one), sorted.
    pub systems: BTreeSet<Option<String>>,
    /// Rows that repeat an (id, system) seen before (all counted in the overview), and the
    /// first such id.
    pub duplicates: (usize, Option<String>),
}

/// Candidate worst rows of one (column, system) group: a max-heap of (badness, row), so the
/// least bad is dropped first; ties keep the earlier row.
type Worst = BinaryHeap<(Badness, usize)>;

/// A score ordered so that larger is worse.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Badness(f64);
impl Eq for Badness {}
impl PartialOrd for Badness {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Badness {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The first pass's running state.
#[derive(Default)]
struct FirstPass {
    total: usize,
    ranges: HashMap<String, (f64, f64)>,
    /// Column name → index in `worst`.
    column_ids: HashMap<String, usize>,
    /// System → index (0: all rows, then 1.. per system).
    system_ids: HashMap<Option<String>, usize>,
    /// Per column, per system index: the candidates.
    worst: Vec<Vec<Worst>>,
    failed: Vec<usize>,
    /// The first row's `run` (the hash of its run's provenance), and where it was.
    run: Option<(String, usize)>,
    /// 64-bit hashes of the (id, system) keys seen: 8 bytes a row.
    keys: std::collections::HashSet<u64>,
    /// Rows whose (id, system) was seen before, and the first such id.
    duplicates: (usize, Option<String>),
}

impl FirstPass {
    /// Refuses a row of another run than the first row's (score files concatenated).
    fn check_run(&mut self, k: usize, r: &Report, path: &Path) -> Result<()> {
        let Some(run) = &r.run else { return Ok(()) };
        match &self.run {
            None => self.run = Some((run.clone(), k)),
            Some((first, at)) if first != run => bail!(
                "{}: row {} is from run {run} but row {} is from run {first}: the rows of several `factpico score` runs (concatenated files?); report each run's file on its own (or compare them with `factpico diff`)",
                path.display(),
                k + 1,
                at + 1
            ),
            Some(_) => {}
        }
        Ok(())
    }

    /// Counts rows that repeat an (id, system) key (by a 64-bit hash of the key).
    fn see_key(&mut self, r: &Report) {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (r.id.as_deref(), r.system.as_deref()).hash(&mut h);
        if !self.keys.insert(h.finish()) {
            self.duplicates.0 += 1;
            if self.duplicates.1.is_none() {
                self.duplicates.1 = Some(r.id.clone().unwrap_or_default());
            }
        }
    }

    fn see(&mut self, k: usize, r: &Report) {
        if (!r.errors.is_empty() || r.skipped.is_some()) && self.failed.len() < FAILED_ROWS {
            self.failed.push(k);
        }
        let n_systems = self.system_ids.len();
        let sys = match self.system_ids.get(&r.system) {
            Some(&i) => i,
            None => *self.system_ids.entry(r.system.clone()).or_insert(n_systems + 1),
        };
        for (col, v) in &r.scores {
            let Some(v) = v.filter(|v| v.is_finite()) else { continue };
            match self.ranges.get_mut(col) {
                Some((lo, hi)) => {
                    *lo = lo.min(v);
                    *hi = hi.max(v);
                }
                None => {
                    self.ranges.insert(col.clone(), (v, v));
                }
            }
            let c = match self.column_ids.get(col) {
                Some(&c) => c,
                None => {
                    self.column_ids.insert(col.clone(), self.worst.len());
                    self.worst.push(Vec::new());
                    self.worst.len() - 1
                }
            };
            let badness = Badness(if higher_is_better(col) { -v } else { v });
            let groups = &mut self.worst[c];
            if groups.len() <= sys {
                groups.resize_with(sys + 1, BinaryHeap::new);
            }
            for g in [0, sys] {
                let heap = &mut groups[g];
                heap.push((badness, k));
                if heap.len() > WORST_PER_GROUP {
                    heap.pop();
                }
            }
        }
    }

    /// The file positions (0-based, ascending) the page holds, and the selection's sizes.
    fn select(&self, primary: &[String], max_rows: usize) -> (Vec<usize>, Selection) {
        let first = max_rows / 2;
        let budget = max_rows - first;
        let cols = primary.iter().filter(|c| self.column_ids.contains_key(c.as_str())).count().max(1);
        let per_system = budget / (cols * (self.system_ids.len() + 1));
        let (worst_per_system, worst_all) = if per_system >= 1 {
            (per_system.min(WORST_PER_GROUP), per_system.min(WORST_PER_GROUP))
        } else {
            (0, (budget / cols).clamp(1, WORST_PER_GROUP))
        };
        let mut keep: BTreeSet<usize> = (0..first.min(self.total)).collect();
        for col in primary {
            let Some(&c) = self.column_ids.get(col) else { continue };
            for (g, heap) in self.worst[c].iter().enumerate() {
                let k = if g == 0 { worst_all } else { worst_per_system };
                let mut v: Vec<(Badness, usize)> = heap.iter().copied().collect();
                v.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                keep.extend(v.into_iter().take(k).map(|(_, i)| i));
            }
        }
        keep.extend(self.failed.iter().copied());
        let selection = Selection { total: self.total, max_rows, first, worst_per_system, worst_all, failed: self.failed.len() };
        (keep.into_iter().collect(), selection)
    }
}

/// Whether higher values of `column` are better (registry direction; unknown columns: yes).
fn higher_is_better(column: &str) -> bool {
    factpico::registry()
        .into_iter()
        .flat_map(|m| m.columns)
        .find(|c| c.name == column)
        .is_none_or(|c| c.direction == factpico::Direction::HigherIsBetter)
}

/// The file's identity, to refuse a file that changed between the two passes.
fn stamp(path: &Path) -> Option<(u64, Option<std::time::SystemTime>)> {
    std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().ok()))
}

/// Reads `path` for a page: every row when the file has at most `max_rows`, else a
/// [`Selection`] (two passes). `primary` picks the primary columns from the provenance and
/// the columns present.
///
/// # Errors
/// The file cannot be read or holds something other than score rows ([`output::for_each_report`]);
/// it has no rows; it changed between the two passes.
pub fn gather(
    path: &Path,
    max_rows: usize,
    primary: impl FnOnce(&BTreeSet<String>, Option<&factpico::Provenance>) -> Vec<String>,
) -> Result<Gathered> {
    let before = stamp(path);
    let mut pass = FirstPass::default();
    let mut summary = Summary::of_every_column();
    let mut present = BTreeSet::new();
    let mut held: Vec<Report> = Vec::new();
    let file = output::for_each_report(path, |r| {
        pass.check_run(pass.total, &r, path)?;
        pass.see_key(&r);
        summary.add(&r);
        for c in r.scores.keys() {
            if !present.contains(c) {
                present.insert(c.clone());
            }
        }
        pass.see(pass.total, &r);
        pass.total += 1;
        if pass.total <= max_rows {
            held.push(r);
        } else if !held.is_empty() {
            held = Vec::new();
        }
        Ok(())
    })?;
    if pass.total == 0 {
        bail!("{} has no rows", path.display());
    }
    let primary = primary(&present, file.provenance.as_ref());
    summary.set_columns(primary.clone());
    let mut histograms: Vec<Histogram> = primary
        .iter()
        .map(|c| Histogram::new(c.clone(), pass.ranges.get(c).copied().unwrap_or((f64::INFINITY, f64::NEG_INFINITY))))
        .collect();
    let selection = if pass.total <= max_rows {
        for r in &held {
            histograms.iter_mut().for_each(|h| h.add(r));
        }
        None
    } else {
        let (keep, selection) = pass.select(&primary, max_rows);
        let mut next = keep.iter().copied().peekable();
        let mut k = 0usize;
        output::for_each_report(path, |r| {
            histograms.iter_mut().for_each(|h| h.add(&r));
            if next.peek() == Some(&k) {
                next.next();
                held.push(r);
            }
            k += 1;
            Ok(())
        })
        .with_context(|| format!("{} (second pass)", path.display()))?;
        if k != pass.total || stamp(path) != before {
            bail!("{} changed while it was read (two passes: {} rows, then {k}); run the report again once it is complete", path.display(), pass.total);
        }
        Some(selection)
    };
    let systems: BTreeSet<Option<String>> = std::mem::take(&mut pass.system_ids).into_keys().collect();
    let duplicates = std::mem::take(&mut pass.duplicates);
    Ok(Gathered { reports: held, total: pass.total, selection, file, summary, present, primary, histograms, systems, duplicates })
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;

    fn report(k: usize, system: Option<&str>, rouge: Option<f64>) -> Report {
        let mut r = Report { id: Some(format!("r{k}")), system: system.map(str::to_owned), ..Report::default() };
        r.scores.insert("rougeL".into(), rouge);
        r
    }

    /// The worst rows of each system and of all rows; ties keep the earlier row; the first
    /// rows; rows with errors.
    #[test]
    fn selection_holds_first_worst_and_failed_rows() {
        let mut pass = FirstPass::default();
        let rows: Vec<Report> = (0..40)
            .map(|k| {
                let sys = if k % 2 == 0 { "a" } else { "b" };
                // Row 30 and 32 tie for the lowest of system a; row 31 is the lowest of b.
                let v = match k {
                    30 | 32 => 0.01,
                    31 => 0.02,
                    _ => 0.5 + k as f64 / 100.0,
                };
                let mut r = report(k, Some(sys), Some(v));
                if k == 37 {
                    r.errors.push(factpico::Warning { metric: "rougeL".into(), message: "boom".into() });
                }
                r
            })
            .collect();
        for (k, r) in rows.iter().enumerate() {
            pass.see(k, r);
            pass.total += 1;
        }
        // max_rows 6: first 3; budget 3 over 1 column × (2 systems + all) = 1 each.
        let (keep, sel) = pass.select(&["rougeL".into()], 6);
        assert_eq!(sel, Selection { total: 40, max_rows: 6, first: 3, worst_per_system: 1, worst_all: 1, failed: 1 });
        assert_eq!(keep, vec![0, 1, 2, 30, 31, 37]);
        // max_rows 4: first 2; budget 2 < 3 groups: only the worst over all rows (2).
        let (keep, sel) = pass.select(&["rougeL".into()], 4);
        assert_eq!((sel.worst_per_system, sel.worst_all), (0, 2));
        assert_eq!(keep, vec![0, 1, 30, 32, 37]);
    }

    /// Lower-is-better columns keep their highest values.
    #[test]
    fn worst_follows_the_column_direction() {
        assert!(higher_is_better("rougeL"));
        assert!(higher_is_better("not_a_registry_column"));
        let lower = factpico::registry().into_iter().flat_map(|m| m.columns).find(|c| c.direction != factpico::Direction::HigherIsBetter);
        let lower = lower.expect("the registry has a lower-is-better column (readability)");
        assert!(!higher_is_better(lower.name));
        let mut pass = FirstPass::default();
        for k in 0..10 {
            let mut r = Report::default();
            r.scores.insert(lower.name.to_owned(), Some(k as f64));
            pass.see(k, &r);
            pass.total += 1;
        }
        // max_rows 8: the first 4; budget 4 over 1 column × (1 system + all) → the 2 highest
        // of each group (the same two rows).
        let (keep, _) = pass.select(&[lower.name.to_owned()], 8);
        assert_eq!(keep, vec![0, 1, 2, 3, 8, 9], "{}: the first 4 and the 2 highest", lower.name);
    }
}
