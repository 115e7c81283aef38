//! The texts of a report, re-read from the scored input.
//!
//! Each score row names its input record (`row`, 1-based), its `id` and `input_sha256` (first
//! 16 hex digits of sha256(source ‖ 0x00 ‖ summary)). The input is read again with the same
//! field options and every scored row is checked against its record: a different id or hash
//! refuses the report, so the page never shows a text that was not the one scored. Skipped
//! rows (unreadable input) have no texts.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{bail, Result};
use factpico::Report;

use crate::input::{self, input_sha256, InputArgs};

/// The verified texts of the scored rows: abstracts are stored once (several summaries of one
/// abstract share it).
#[derive(Debug, Default)]
pub struct Texts {
    /// Distinct abstracts, in order of first use.
    pub sources: Vec<String>,
    /// Per score row (same order as the rows): (index into `sources`, summary), or `None` for
    /// a skipped row.
    pub rows: Vec<Option<(usize, String)>>,
}

/// What to pass when the rows and the input disagree.
const HINT: &str = "pass the input file that was scored, with the same --format/--id-field/--source-field/--summary-field/--id-from options as `factpico score`";

/// Re-reads `input` with `fields` and checks it against the score rows.
///
/// # Errors
/// The input cannot be opened; a scored row has no record, a record that cannot be read now,
/// another id, or texts whose hash differs from the row's `input_sha256`; a scored row has no
/// `row` number or no `input_sha256`.
pub fn read(path: &Path, fields: &InputArgs, reports: &[Report]) -> Result<Texts> {
    let format = fields.format_of(path)?;
    // Score row number -> position in `reports`.
    let mut wanted: HashMap<u64, usize> = HashMap::with_capacity(reports.len());
    for (k, r) in reports.iter().enumerate() {
        let Some(n) = r.row else {
            bail!("score row {} (id {}) has no `row` number, so its input record cannot be found", k + 1, r.id.as_deref().unwrap_or("none"));
        };
        if wanted.insert(n, k).is_some() {
            bail!("the score file has input row {n} twice; it is not the output of one `factpico score` run");
        }
    }
    let max_row = wanted.keys().copied().max().unwrap_or(0);
    let mut texts = Texts { sources: Vec::new(), rows: vec![None; reports.len()] };
    let mut source_index: HashMap<String, usize> = HashMap::new();
    let mut found = 0usize;
    for rec in input::open(path, format, &fields.field_map())? {
        let n = match &rec {
            Ok(r) => r.row,
            Err(e) => e.row,
        };
        let Some(&k) = wanted.get(&n) else {
            if n > max_row {
                break;
            }
            continue;
        };
        found += 1;
        let r = &reports[k];
        let scored_id = r.id.as_deref().unwrap_or("none");
        if r.skipped.is_some() {
            continue; // unreadable when scored: no texts, nothing to check
        }
        let Some(hash) = r.input_sha256.as_deref() else {
            bail!("score row {n} (id {scored_id}) has no input_sha256: its texts cannot be verified (was it written by an older factpico?)");
        };
        let rec = match rec {
            Ok(rec) => rec,
            Err(e) => bail!("input row {n} cannot be read ({}) but was scored as id {scored_id}; {HINT}", e.message),
        };
        if rec.id != scored_id {
            bail!("input row {n} has id `{}` but the score file has id `{scored_id}` there: a different input file, row order or id options; {HINT}", rec.id);
        }
        let got = input_sha256(&rec.source, &rec.summary);
        if got != hash {
            bail!(
                "input row {n} (id {scored_id}): its texts hash to input_sha256 {got}, but {hash} was scored: the input changed since it was scored, or other --source-field/--summary-field options were used; {HINT}. The report never shows a text that was not the one scored"
            );
        }
        let s = match source_index.get(&rec.source) {
            Some(&s) => s,
            None => {
                let s = texts.sources.len();
                source_index.insert(rec.source.clone(), s);
                texts.sources.push(rec.source);
                s
            }
        };
        texts.rows[k] = Some((s, rec.summary));
    }
    if found < reports.len() {
        let missing = reports.iter().filter_map(|r| r.row).filter(|n| *n > 0).max().unwrap_or(0);
        bail!(
            "{} has only {found} of the {} scored rows (the score file goes up to input row {missing}); {HINT}",
            path.display(),
            reports.len()
        );
    }
    Ok(texts)
}
