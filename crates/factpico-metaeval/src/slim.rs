//! A table reduced to what a join needs: per row its number, place, id and system keys, the
//! numbers of the requested columns (or why each is missing) and the skip reason. A few
//! dozen bytes a row, so that `factpico meta-eval` of a million-row score file stays in
//! bounded memory (issue 23, class 11); [`crate::Table`] keeps every cell.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::{Result, Side};
use crate::table::{key_value, numeric_value, Format, Row, Table};

/// One requested numeric cell.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell {
    /// A finite number.
    Num(f64),
    /// Missing: the row's documented null reason of this column (index into
    /// [`SlimTable::texts`]), and whether the row has no such cell at all.
    Missing { reason: Option<u32>, absent: bool },
    /// Not a number: the cell's text (the error is raised only if the row joins).
    Bad(Box<str>),
}

/// The columns a join reads.
#[derive(Debug, Clone)]
pub(crate) struct Wanted<'a> {
    /// Id column.
    pub id: &'a str,
    /// System column (explicit, or `system`).
    pub system: &'a str,
    /// Numeric columns (metrics or aspects).
    pub numeric: &'a [String],
}

/// A table reduced to the wanted columns.
#[derive(Debug, Clone)]
pub(crate) struct SlimTable {
    pub path: PathBuf,
    pub side: Side,
    pub factpico: bool,
    /// Every column name seen, in first-seen order (for messages).
    pub columns: Vec<String>,
    pub elements: bool,
    pub dropped: Vec<(usize, String)>,
    /// The wanted numeric columns, in order (indices of `cells`).
    pub numeric: Vec<String>,
    /// Per row: its number and place (line or element).
    pub rows: Vec<(usize, usize)>,
    /// Per row: the id key.
    pub ids: Vec<Option<Box<str>>>,
    /// Per row: the system key (index into `texts`).
    pub systems: Vec<Option<u32>>,
    /// Per row: why `factpico score` skipped it (index into `texts`).
    pub skipped: Vec<Option<u32>>,
    /// Per wanted column, per row.
    pub cells: Vec<Vec<Cell>>,
    /// Interned systems and reasons.
    pub texts: Vec<String>,
    interned: HashMap<String, u32>,
    id_col: String,
    system_col: String,
}

impl SlimTable {
    fn new(wanted: &Wanted<'_>) -> SlimTable {
        SlimTable {
            path: PathBuf::new(),
            side: Side::Scores,
            factpico: false,
            columns: Vec::new(),
            elements: false,
            dropped: Vec::new(),
            numeric: wanted.numeric.to_vec(),
            rows: Vec::new(),
            ids: Vec::new(),
            systems: Vec::new(),
            skipped: Vec::new(),
            cells: vec![Vec::new(); wanted.numeric.len()],
            texts: Vec::new(),
            interned: HashMap::new(),
            id_col: wanted.id.to_owned(),
            system_col: wanted.system.to_owned(),
        }
    }

    /// Reads `path` row by row ([`Table::stream`]), keeping only the wanted columns.
    ///
    /// # Errors
    /// As [`Table::load`].
    pub fn load(path: &Path, side: Side, format: Option<Format>, wanted: &Wanted<'_>) -> Result<SlimTable> {
        let mut s = SlimTable::new(wanted);
        let t = Table::stream(path, side, format, &mut |r| {
            s.push(&r);
            Ok(())
        })?;
        s.header(t);
        Ok(s)
    }

    /// The wanted columns of a table already in memory.
    pub fn from_table(t: &Table, wanted: &Wanted<'_>) -> SlimTable {
        let mut s = SlimTable::new(wanted);
        for r in &t.rows {
            s.push(r);
        }
        s.path.clone_from(&t.path);
        s.side = t.side;
        s.factpico = t.factpico;
        s.columns.clone_from(&t.columns);
        s.elements = t.elements;
        s.dropped.clone_from(&t.dropped);
        s
    }

    fn header(&mut self, t: Table) {
        self.path = t.path;
        self.side = t.side;
        self.factpico = t.factpico;
        self.columns = t.columns;
        self.elements = t.elements;
        self.dropped = t.dropped;
    }

    fn intern(&mut self, text: &str) -> u32 {
        if let Some(&i) = self.interned.get(text) {
            return i;
        }
        let i = u32::try_from(self.texts.len()).unwrap_or(u32::MAX);
        self.texts.push(text.to_owned());
        self.interned.insert(text.to_owned(), i);
        i
    }

    fn push(&mut self, r: &Row) {
        self.rows.push((r.row, r.line));
        self.ids.push(key_value(r.cells.get(&self.id_col)).map(String::into_boxed_str));
        let system = key_value(r.cells.get(&self.system_col)).map(|s| self.intern(&s));
        self.systems.push(system);
        let skipped = r.skipped.as_deref().map(|s| self.intern(s));
        self.skipped.push(skipped);
        for k in 0..self.numeric.len() {
            let col = &self.numeric[k];
            let cell = r.cells.get(col);
            let c = match numeric_value(cell) {
                Ok(Some(v)) => Cell::Num(v),
                Ok(None) => {
                    let why = r.nulls.get(col).cloned();
                    Cell::Missing { reason: why.map(|w| self.intern(&w)), absent: cell.is_none() }
                }
                Err(raw) => Cell::Bad(raw.chars().take(40).collect::<String>().into_boxed_str()),
            };
            self.cells[k].push(c);
        }
    }

    /// Data rows kept.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// [`crate::Error::MissingColumn`] unless the column occurs in the file (see
    /// [`Table::require_column`]).
    pub fn require_column(&self, col: &str) -> Result<()> {
        if self.has_column(col) {
            return Ok(());
        }
        Err(crate::Error::MissingColumn {
            side: self.side,
            path: self.path.clone(),
            column: col.to_owned(),
            available: self.columns.join(", "),
        })
    }

    /// True when the column occurs in the file.
    pub fn has_column(&self, col: &str) -> bool {
        self.columns.iter().any(|c| c == col)
    }

    /// True when some row has a non-empty system key (see [`Table::has_values`]).
    pub fn has_system_values(&self) -> bool {
        self.has_column(&self.system_col) && self.systems.iter().any(Option::is_some)
    }

    /// The system key of row `i`.
    pub fn system(&self, i: usize) -> Option<&str> {
        self.systems[i].map(|k| self.texts[k as usize].as_str())
    }

    /// The places of rows `a` and `b` for messages (see [`Table::place`]).
    pub fn place(&self, a: usize, b: usize) -> String {
        let unit = if self.elements { "elements" } else { "lines" };
        format!("{unit} {} and {}", self.rows[a].1, self.rows[b].1)
    }

    /// Why the wanted column `k` of row `i` is missing (see [`crate::join::ColumnMissing`]).
    pub fn reason(&self, k: usize, i: usize) -> String {
        if let Cell::Missing { reason: Some(why), .. } = &self.cells[k][i] {
            return self.texts[*why as usize].clone();
        }
        if let Some(why) = self.skipped[i] {
            return format!("row skipped: {}", self.texts[why as usize]);
        }
        if matches!(self.cells[k][i], Cell::Missing { absent: true, .. }) {
            return "column absent from row".into();
        }
        if self.factpico {
            "null".into()
        } else {
            "missing value".into()
        }
    }

    /// The [`crate::Error::NotNumeric`] of a `Bad` cell.
    pub fn not_numeric(&self, k: usize, i: usize, raw: &str) -> crate::Error {
        crate::Error::NotNumeric {
            side: self.side,
            path: self.path.clone(),
            row: self.rows[i].0,
            column: self.numeric[k].clone(),
            value: raw.to_owned(),
        }
    }
}
