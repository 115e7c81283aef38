//! The end-of-run per-system summary table (mean and sd of each primary
//! column), like FactPICO's Table 3 columns ΔFK and Rg-L.

use std::collections::BTreeMap;

use factpico::Report;

/// Running mean/variance (Welford) of the finite values; every other cell of a scored row
/// (absent, null, non-finite) is a null, counted as the scored rows less `n`.
#[derive(Debug, Clone, Copy, Default)]
struct Acc {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Acc {
    fn push(&mut self, v: Option<f64>) {
        if let Some(x) = v.filter(|x| x.is_finite()) {
            self.n += 1;
            let d = x - self.mean;
            self.mean += d / self.n as f64;
            self.m2 += d * (x - self.mean);
        }
    }

    /// Sample standard deviation (n − 1); `None` for n < 2.
    fn sd(&self) -> Option<f64> {
        (self.n >= 2).then(|| (self.m2 / (self.n - 1) as f64).sqrt())
    }
}

#[derive(Debug, Default)]
struct SystemAcc {
    rows: u64,
    skipped: u64,
    failed: u64,
    cols: BTreeMap<String, Acc>,
}

/// A system's name as the table (and the report's histograms) show it: as given, except that
/// a name written in parentheses is shown in double quotes (`"(all)"`), so that no system can
/// pass for the synthetic `(no system)` and `(all)` lines.
pub fn shown_system(name: &str) -> String {
    if name.starts_with('(') && name.ends_with(')') {
        format!("\"{name}\"")
    } else {
        name.to_owned()
    }
}

/// Accumulates reports into the per-system summary.
#[derive(Debug)]
pub struct Summary {
    columns: Vec<String>,
    /// Accumulate every score column of the rows, not only `columns` (the table still shows
    /// `columns`, which can be chosen after the rows were added: [`Summary::set_columns`]).
    every_column: bool,
    systems: BTreeMap<Key, SystemAcc>,
}

/// A line of the table: a system (`None`: rows without one), then `(all)`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    System(Option<String>),
    All,
}

impl Summary {
    /// A summary over `columns` (in display order).
    pub fn new(columns: Vec<String>) -> Self {
        Self { columns, every_column: false, systems: BTreeMap::new() }
    }

    /// A summary that accumulates every score column of the rows it is given (memory: one
    /// accumulator per system and column), for a caller that learns which columns to show only
    /// after reading the rows ([`Summary::set_columns`]). Shows no column until then.
    pub fn of_every_column() -> Self {
        Self { columns: Vec::new(), every_column: true, systems: BTreeMap::new() }
    }

    /// The columns the table shows, in display order.
    pub fn set_columns(&mut self, columns: Vec<String>) {
        self.columns = columns;
    }

    /// Adds one row (to its system, or to `(no system)`, and to `(all)`).
    pub fn add(&mut self, r: &Report) {
        for k in [Key::System(r.system.clone()), Key::All] {
            let acc = self.systems.entry(k).or_default();
            acc.rows += 1;
            if r.skipped.is_some() {
                acc.skipped += 1;
                continue;
            }
            if !r.errors.is_empty() {
                acc.failed += 1;
            }
            if self.every_column {
                for (c, v) in &r.scores {
                    match acc.cols.get_mut(c) {
                        Some(a) => a.push(*v),
                        None => acc.cols.entry(c.clone()).or_default().push(*v),
                    }
                }
            } else {
                for c in &self.columns {
                    acc.cols.entry(c.clone()).or_default().push(r.score(c));
                }
            }
        }
    }

    /// Rows seen (all systems).
    pub fn rows(&self) -> u64 {
        self.systems.get(&Key::All).map_or(0, |a| a.rows)
    }

    /// Skipped rows seen (all systems).
    pub fn skipped(&self) -> u64 {
        self.systems.get(&Key::All).map_or(0, |a| a.skipped)
    }

    /// The table as cells: the header, then one row per system (sorted by name), `(no system)`
    /// for rows without one, then `(all)`. Cells are `mean ± sd` over the non-null values
    /// (sample sd, n − 1; `mean` alone for one value, `–` for none); "null values" counts null
    /// cells over the shown columns. System names are as given (not escaped), except that a
    /// name in parentheses is quoted ([`shown_system`]).
    pub fn table(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let mut header = vec!["system".to_owned(), "rows".to_owned()];
        header.extend(self.columns.iter().map(|c| format!("{c} (mean ± sd)")));
        header.extend(["null values", "skipped rows", "failed rows"].map(str::to_owned));
        // Systems sort first, then rows without a system, then (all).
        let mut keys: Vec<&Key> = self.systems.keys().filter(|k| matches!(k, Key::System(Some(_)))).collect();
        keys.extend(self.systems.keys().filter(|k| !matches!(k, Key::System(Some(_)))));
        let mut rows = Vec::with_capacity(keys.len());
        for key in keys {
            let acc = &self.systems[key];
            let shown = match key {
                Key::System(Some(name)) => shown_system(name),
                Key::System(None) => "(no system)".to_owned(),
                Key::All => "(all)".to_owned(),
            };
            let mut row = vec![shown, acc.rows.to_string()];
            let mut nulls = 0;
            for c in &self.columns {
                let a = acc.cols.get(c).copied().unwrap_or_default();
                nulls += acc.rows - acc.skipped - a.n;
                row.push(match (a.n, a.sd()) {
                    (0, _) => "–".to_owned(),
                    (_, Some(sd)) => format!("{:.4} ± {:.4}", a.mean, sd),
                    (_, None) => format!("{:.4}", a.mean),
                });
            }
            row.extend([nulls.to_string(), acc.skipped.to_string(), acc.failed.to_string()]);
            rows.push(row);
        }
        (header, rows)
    }

    /// Renders [`Summary::table`] as GitHub Markdown (`|` and newlines in system names escaped).
    pub fn to_markdown(&self) -> String {
        let (header, rows) = self.table();
        let mut s = format!("| {} |\n|---|---:|", header.join(" | "));
        for _ in 2..header.len() {
            s.push_str("---:|");
        }
        s.push('\n');
        for row in rows {
            let shown = row[0].replace('|', "\\|").replace(['\n', '\r'], " ");
            s.push_str(&format!("| {shown} | {} |\n", row[1..].join(" | ")));
        }
        s
    }
}
