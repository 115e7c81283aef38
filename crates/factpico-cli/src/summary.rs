//! The end-of-run per-system summary table (mean and sd of each primary
//! column), like FactPICO's Table 3 columns ΔFK and Rg-L.

use std::collections::BTreeMap;

use factpico::Report;

/// Running mean/variance (Welford) with a null count.
#[derive(Debug, Clone, Copy, Default)]
struct Acc {
    n: u64,
    mean: f64,
    m2: f64,
    nulls: u64,
}

impl Acc {
    fn push(&mut self, v: Option<f64>) {
        match v {
            Some(x) if x.is_finite() => {
                self.n += 1;
                let d = x - self.mean;
                self.mean += d / self.n as f64;
                self.m2 += d * (x - self.mean);
            }
            _ => self.nulls += 1,
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

/// Accumulates reports into the per-system summary.
#[derive(Debug)]
pub struct Summary {
    columns: Vec<String>,
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
        Self { columns, systems: BTreeMap::new() }
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
            for c in &self.columns {
                acc.cols.entry(c.clone()).or_default().push(r.score(c));
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

    /// Renders the table as GitHub Markdown. Cells are `mean ± sd` over the non-null values
    /// (sample sd, n − 1); "null values" counts null cells over the shown columns. Lines:
    /// each system (sorted), `(no system)` for rows without one, then `(all)`. `|` in
    /// system names is escaped.
    pub fn to_markdown(&self) -> String {
        let mut s = String::from("| system | rows |");
        for c in &self.columns {
            s.push_str(&format!(" {c} (mean ± sd) |"));
        }
        s.push_str(" null values | skipped rows | failed rows |\n|---|---:|");
        for _ in &self.columns {
            s.push_str("---:|");
        }
        s.push_str("---:|---:|---:|\n");
        // Systems sort first, then rows without a system, then (all).
        let mut keys: Vec<&Key> = self.systems.keys().filter(|k| matches!(k, Key::System(Some(_)))).collect();
        keys.extend(self.systems.keys().filter(|k| !matches!(k, Key::System(Some(_)))));
        for key in keys {
            let acc = &self.systems[key];
            let shown = match key {
                Key::System(Some(name)) => name.replace('|', "\\|").replace(['\n', '\r'], " "),
                Key::System(None) => "(no system)".to_owned(),
                Key::All => "(all)".to_owned(),
            };
            s.push_str(&format!("| {shown} | {} |", acc.rows));
            let mut nulls = 0;
            for c in &self.columns {
                let a = acc.cols.get(c).copied().unwrap_or_default();
                nulls += a.nulls;
                let cell = match (a.n, a.sd()) {
                    (0, _) => "–".to_owned(),
                    (_, Some(sd)) => format!("{:.4} ± {:.4}", a.mean, sd),
                    (_, None) => format!("{:.4}", a.mean),
                };
                s.push_str(&format!(" {cell} |"));
            }
            s.push_str(&format!(" {nulls} | {} | {} |\n", acc.skipped, acc.failed));
        }
        s
    }
}
