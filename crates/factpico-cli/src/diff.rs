//! `factpico diff OLD NEW`: compare two score files row by row, for metric
//! regression gates in CI.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Result};
use factpico::Report;
use crate::term::escape_controls;

use crate::output;

/// Arguments of `factpico diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The reference score file (JSONL written by `factpico score`).
    pub old: PathBuf,
    /// The new score file.
    pub new: PathBuf,
    /// Absolute tolerance per column, `COLUMN=TOL` (repeatable), e.g. `--tol alignscore=1e-4`.
    #[arg(long = "tol", value_parser = parse_tol)]
    pub tols: Vec<(String, f64)>,
    /// Absolute tolerance of columns without their own --tol.
    #[arg(long, default_value = "1e-9", value_parser = parse_nonneg)]
    pub default_tol: f64,
    /// Compare only these columns (comma-separated; default: every column in either file).
    #[arg(long, value_delimiter = ',')]
    pub columns: Vec<String>,
    /// Print at most this many drifted values.
    #[arg(long, default_value_t = 50)]
    pub max_print: usize,
}

fn parse_nonneg(s: &str) -> Result<f64, String> {
    let t: f64 = s.parse().map_err(|e| format!("`{s}` is not a number: {e}"))?;
    if t.is_nan() || t < 0.0 {
        return Err(format!("tolerance must be a number >= 0, got {s}"));
    }
    Ok(t)
}

fn parse_tol(s: &str) -> Result<(String, f64), String> {
    let (c, t) = s.split_once('=').ok_or_else(|| format!("expected COLUMN=TOL, got `{s}`"))?;
    let t: f64 = t.parse().map_err(|e| format!("tolerance `{t}` of `{c}` is not a number: {e}"))?;
    if t.is_nan() || t < 0.0 {
        return Err(format!("tolerance of `{c}` must be >= 0"));
    }
    Ok((c.to_owned(), t))
}

/// One drifted value.
#[derive(Debug, Clone, PartialEq)]
pub struct Drift {
    /// Row (id and system, as [`show`] writes it).
    pub id: String,
    /// Column.
    pub column: String,
    /// Value in OLD (`None` = null or absent).
    pub old: Option<f64>,
    /// Value in NEW.
    pub new: Option<f64>,
}

/// A row's join key: (id, system). Rows are joined on the pair, so files with several systems
/// per id (FactPICO's 3 summaries per abstract) compare row by row, and id `x [s]` without a
/// system is a different row from id `x` of system `s`. A row without an id (an unreadable
/// record) is `row-<n>`.
type Key = (String, Option<String>);

fn key(r: &Report) -> Key {
    let id = r.id.clone().unwrap_or_else(|| format!("row-{}", r.row.unwrap_or(0)));
    (id, r.system.clone())
}

/// How a key is shown: `id [system]`, or `id` for a row without a system (escaped for the
/// terminal by the caller).
fn show(k: &Key) -> String {
    match &k.1 {
        Some(s) => format!("{} [{s}]", k.0),
        None => k.0.clone(),
    }
}

/// Column names, interned across both files (a row keeps indices, not names).
#[derive(Default)]
struct Columns {
    names: Vec<String>,
    index: std::collections::HashMap<String, u32>,
}

impl Columns {
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), i);
        i
    }
}

/// What `diff` keeps of a row: its values by column index, sorted by name. Details, null
/// reasons, warnings and texts are dropped as each row is read, so memory grows with rows ×
/// columns only (about 100 bytes a row with the default metrics).
type Values = Box<[(u32, Option<f64>)]>;

fn value(v: &Values, c: u32) -> Option<f64> {
    v.iter().find(|(i, _)| *i == c).and_then(|(_, x)| *x)
}

fn load(path: &std::path::Path, columns: &mut Columns) -> Result<BTreeMap<Key, Values>> {
    let mut m = BTreeMap::new();
    let mut dup = None;
    output::for_each_report(path, |r| {
        let k = key(&r);
        let v: Values = r.scores.iter().map(|(c, x)| (columns.intern(c), *x)).collect();
        if m.insert(k.clone(), v).is_some() && dup.is_none() {
            dup = Some(k);
        }
        Ok(())
    })?;
    if let Some(k) = dup {
        bail!("{}: (id, system) `{}` occurs more than once; rows must be unique to compare files", path.display(), show(&k));
    }
    if m.is_empty() {
        bail!("{} has no rows; give a file written by `factpico score`", path.display());
    }
    Ok(m)
}

/// Runs `factpico diff`; returns the exit code (0 = no drift, 1 = drift or rows in one file
/// only).
///
/// # Errors
/// Unreadable files, lines that are not score rows, empty files, duplicate (id, system)
/// pairs, a column named that is in neither file, or no value compared at all (a gate that
/// compares nothing must not pass).
pub fn run(args: &DiffArgs) -> Result<i32> {
    let mut columns = Columns::default();
    let old = load(&args.old, &mut columns)?;
    let new = load(&args.new, &mut columns)?;
    let tols: BTreeMap<&str, f64> = args.tols.iter().map(|(c, t)| (c.as_str(), *t)).collect();
    // Every column named on the command line must exist in one of the files: a gate that
    // compares nothing must not pass.
    let present: std::collections::BTreeSet<&str> = columns.names.iter().map(String::as_str).collect();
    for c in args.columns.iter().map(String::as_str).chain(tols.keys().copied()) {
        if !present.contains(c) {
            bail!(
                "column `{c}` is in neither file; columns are: {}",
                present.iter().copied().collect::<Vec<_>>().join(", ")
            );
        }
    }
    let requested: Option<Vec<u32>> =
        (!args.columns.is_empty()).then(|| args.columns.iter().filter_map(|c| columns.index.get(c).copied()).collect());
    let tol_of: Vec<f64> = columns.names.iter().map(|c| tols.get(c.as_str()).copied().unwrap_or(args.default_tol)).collect();
    let (mut only_old, mut only_new) = (Vec::new(), 0usize);
    let mut first_only_new: Vec<&Key> = Vec::new();
    for k in new.keys().filter(|k| !old.contains_key(*k)) {
        only_new += 1;
        if first_only_new.len() < 5 {
            first_only_new.push(k);
        }
    }
    // Only the drifts printed are kept; the others are counted per column.
    let mut drifts = Vec::new();
    let mut drifted = 0usize;
    let mut by_col: BTreeMap<&str, usize> = BTreeMap::new();
    let mut compared = 0u64;
    let mut common = 0usize;
    for (id, o) in &old {
        let Some(n) = new.get(id) else {
            if only_old.len() < 5 {
                only_old.push(id);
            }
            continue;
        };
        common += 1;
        let cols: Vec<u32> = match &requested {
            Some(r) => r.clone(),
            None => {
                // Sorted by name, as before: the table's order.
                let mut c: Vec<u32> = o.iter().chain(n.iter()).map(|(i, _)| *i).collect();
                c.sort_by(|a, b| columns.names[*a as usize].cmp(&columns.names[*b as usize]));
                c.dedup();
                c
            }
        };
        for c in cols {
            compared += 1;
            let (a, b) = (value(o, c), value(n, c));
            let tol = tol_of[c as usize];
            let same = match (a, b) {
                (Some(x), Some(y)) => (x - y).abs() <= tol,
                (None, None) => true,
                _ => false,
            };
            if !same {
                let column = columns.names[c as usize].as_str();
                drifted += 1;
                *by_col.entry(column).or_default() += 1;
                if drifts.len() < args.max_print {
                    drifts.push(Drift { id: show(id), column: column.to_owned(), old: a, new: b });
                }
            }
        }
    }
    let only_old_count = old.len() - common;
    let fmt = |v: Option<f64>| v.map_or_else(|| "null".to_owned(), |x| format!("{x}"));
    if drifted > 0 {
        use std::fmt::Write as _;
        let mut table = String::from("| row | column | old | new | abs. diff |\n|---|---|---:|---:|---:|\n");
        for d in &drifts {
            let delta = match (d.old, d.new) {
                (Some(x), Some(y)) => format!("{:.3e}", (x - y).abs()),
                _ => "null vs value".into(),
            };
            let _ = writeln!(table, "| {} | {} | {} | {} | {} |", d.id, d.column, fmt(d.old), fmt(d.new), delta);
        }
        if drifted > args.max_print {
            let _ = writeln!(table, "… and {} more", drifted - args.max_print);
        }
        // A closed standard output (`| head`) stops the table; the exit code still says drift.
        // Ids and systems are data: escaped for the terminal.
        output::print_stdout(&escape_controls(&table))?;
    }
    eprintln!(
        "compared {compared} values over {common} common rows: {drifted} drifted{}; {only_old_count} rows only in OLD, {only_new} only in NEW",
        if by_col.is_empty() {
            String::new()
        } else {
            format!(" ({})", by_col.iter().map(|(c, n)| format!("{c}: {n}")).collect::<Vec<_>>().join(", "))
        },
    );
    for (what, ids, n) in [("only in OLD", &only_old, only_old_count), ("only in NEW", &first_only_new, only_new)] {
        if n > 0 {
            let ex: Vec<String> = ids.iter().map(|k| show(k)).collect();
            eprintln!("rows {what}: {}{}", escape_controls(&ex.join(", ")), if n > 5 { ", …" } else { "" });
        }
    }
    if compared == 0 {
        bail!(
            "compared no values: the files share no row with a score column{}; a gate that compares nothing does not pass",
            if args.columns.is_empty() { String::new() } else { " among --columns".to_owned() }
        );
    }
    Ok(i32::from(drifted > 0 || only_old_count > 0 || only_new > 0))
}
