//! The texts of a report, re-read from the scored input.
//!
//! Each score row names its input record (`row`, 1-based), its `id` and `input_sha256` (first
//! 16 hex digits of sha256(source ‖ 0x00 ‖ summary), with the row's per-row side inputs
//! hashed after them when it has any: [`input::input_sha256`]). The input is read again with
//! the same field options and every scored row is checked against its record: a different id
//! or hash refuses the report, so the page never shows a text that was not the one scored.
//! Skipped rows (unreadable input) have no texts.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{bail, Result};
use factpico::Report;

use crate::input::{self, input_sha256, DeriveId, ExtraField, FieldMap, Format, InputArgs};

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
const HINT: &str = "pass the input file that was scored, with the same --format/--tsv-quotes/--delimiter/--id-field/--source-field/--summary-field/--id-from/--input-field options as `factpico score`";

/// The input options of a score file when its provenance records them (`provenance.input`,
/// output schema 2 and later: `{"format": "jsonl|json|csv|tsv", "fields": {"id", "source",
/// "summary", "system", <side input name>: <field>...}, "derive_id": {"field", "prefix",
/// "hex_len"} | null, "tsv_quotes": bool, "delimiter": ";"}`, the delimiter only when not `,`);
/// `None` for older files or without provenance.
pub fn recorded_mapping(provenance: Option<&factpico::Provenance>) -> Option<(Format, FieldMap)> {
    let input = provenance?.input.as_ref()?;
    let format = match input.format.as_str() {
        "jsonl" => Format::Jsonl,
        "json" => Format::Json,
        "csv" => Format::Csv,
        "tsv" => Format::Tsv,
        _ => return None,
    };
    let name = |k: &str, default: &str| input.fields.get(k).cloned().flatten().unwrap_or_else(|| default.to_owned());
    let derive_id = input.derive_id.as_ref().map(|d| DeriveId {
        field: d.field.clone(),
        prefix: d.prefix.clone(),
        hex_len: usize::try_from(d.hex_len).unwrap_or(usize::MAX),
    });
    // `delimiter` (CSV) is recorded only when not `,`; files written before it have none.
    let delimiter = match &input.delimiter {
        None => None,
        Some(d) => Some(input::parse_delimiter(d).ok()?),
    };
    // Every other entry of `fields` maps a per-row side input to its field. Nothing is read
    // as explicit: a field the recorded mapping names by default may be absent from the input
    // (score then derived the id / read no side input), and the id and hash checks catch any
    // record read differently.
    let extras = input
        .fields
        .iter()
        .filter(|(k, _)| !["id", "source", "summary", "system"].contains(&k.as_str()))
        .filter_map(|(k, v)| Some(ExtraField { name: k.clone(), field: v.clone()?, explicit: false }))
        .collect();
    Some((
        format,
        FieldMap {
            id: name("id", "id"),
            id_explicit: false,
            source: name("source", "source"),
            summary: name("summary", "summary"),
            system: name("system", "system"),
            derive_id,
            tsv_quotes: input.tsv_quotes,
            delimiter,
            extras,
        },
    ))
}

/// The per-row side inputs the metrics of the score file read (each metric's registry
/// `inputs`; the metrics are the keys of `provenance.metrics`), read from the fields
/// `--input-field NAME=FIELD` names, else from the field called NAME — as `factpico score`
/// reads them.
///
/// # Errors
/// An `--input-field` whose name none of those metrics reads.
fn side_inputs(args: &InputArgs, provenance: Option<&factpico::Provenance>) -> Result<Vec<ExtraField>> {
    let ran: std::collections::BTreeSet<&str> = provenance.into_iter().flat_map(factpico::Provenance::metric_names).collect();
    let mut names: Vec<&str> = Vec::new();
    for info in factpico::registry().into_iter().filter(|i| ran.contains(i.name)) {
        for input in info.inputs {
            if !names.contains(&input.name) {
                names.push(input.name);
            }
        }
    }
    args.extra_fields(&names, ("none of the metrics of the score file reads", "they read"))
}

/// The input options to re-read `path` with: those given on the command line when any is
/// (not the defaults), else those the score file records, else the defaults. The second
/// value says where they came from (for the user).
///
/// # Errors
/// The format cannot be told; an `--input-field` no metric of the file reads.
pub fn mapping(path: &Path, args: &InputArgs, provenance: Option<&factpico::Provenance>) -> Result<((Format, FieldMap), &'static str)> {
    let given = args.format.is_some()
        || args.tsv_quotes
        || args.delimiter.is_some()
        || args.id_field.is_some()
        || args.id_from.is_some()
        || args.source_field != "source"
        || args.summary_field != "summary"
        || args.system_field != "system"
        || !args.input_fields.is_empty()
        || args.evidence_field.is_some();
    if !given {
        if let Some(m) = recorded_mapping(provenance) {
            return Ok((m, "the field options recorded in the score file"));
        }
    }
    Ok(((args.format_of(path)?, args.field_map(side_inputs(args, provenance)?)), "the given field options"))
}

/// Re-reads `path` as `format` with `fields` and checks it against the score rows.
///
/// # Errors
/// The input cannot be opened; a scored row has no record, a record that cannot be read now,
/// another id, or texts whose hash differs from the row's `input_sha256`; a scored row has no
/// `row` number or no `input_sha256`.
pub fn read(path: &Path, format: Format, fields: &FieldMap, reports: &[Report]) -> Result<Texts> {
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
    for rec in input::open(path, format, fields)? {
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
        let got = input_sha256(&rec.source, &rec.summary, &rec.extras);
        if got != hash {
            bail!(
                "input row {n} (id {scored_id}): its texts hash to input_sha256 {got}, but {hash} was scored: the input changed since it was scored, or other --source-field/--summary-field/--input-field options were used; {HINT}. The report never shows a text that was not the one scored"
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A provenance of the given JSON (engine and schema version filled in when absent).
    fn prov(mut v: serde_json::Value) -> factpico::Provenance {
        let o = v.as_object_mut().unwrap();
        o.entry("engine").or_insert_with(|| "factpico 0.1.0".into());
        o.entry("schema_version").or_insert_with(|| 2.into());
        factpico::Provenance::from_value(v).unwrap()
    }

    #[test]
    fn a_recorded_field_mapping_is_read_back() {
        let r = Some(prov(serde_json::json!({"input": {
            "format": "csv", "fields": {"id": null, "source": "abstract", "summary": "plain", "system": "model", "evidence": "spans"},
            "derive_id": {"field": "abstract", "prefix": "sh_", "hex_len": 12}
        }})));
        let (format, f) = recorded_mapping(r.as_ref()).unwrap();
        assert_eq!(format, Format::Csv);
        assert_eq!((f.source.as_str(), f.summary.as_str(), f.system.as_str()), ("abstract", "plain", "model"));
        let d = f.derive_id.unwrap();
        assert_eq!((d.field.as_str(), d.prefix.as_str(), d.hex_len), ("abstract", "sh_", 12));
        assert_eq!(f.extras, vec![ExtraField { name: "evidence".into(), field: "spans".into(), explicit: false }]);
        // Schema 1 rows record nothing.
        assert!(recorded_mapping(Some(&prov(serde_json::json!({"engine": "factpico 0.1.0"})))).is_none());
        assert!(recorded_mapping(None).is_none());
    }

    /// A recorded `delimiter` is read back; a mapping without one (files written before
    /// `--delimiter`) reads CSV with `,`.
    #[test]
    fn the_recorded_delimiter_is_read_back() {
        let input = |extra: serde_json::Value| {
            let mut i = serde_json::json!({"format": "csv", "tsv_quotes": false, "fields": {"id": "id", "source": "source", "summary": "summary", "system": "system"}, "derive_id": null, "side_inputs": {}});
            if let (Some(o), Some(e)) = (i.as_object_mut(), extra.as_object()) {
                o.extend(e.clone());
            }
            prov(serde_json::json!({ "input": i }))
        };
        assert_eq!(recorded_mapping(Some(&input(serde_json::json!({"delimiter": ";"})))).unwrap().1.delimiter, Some(b';'));
        assert_eq!(recorded_mapping(Some(&input(serde_json::json!({})))).unwrap().1.delimiter, None);
    }

    /// Rows scored with a per-row side input: the recorded mapping reads it again and the
    /// hash covers it, so a changed side input refuses the report like a changed text; an id
    /// field the mapping names but the input lacks (ids `row-<n>` when scored) is no error.
    #[test]
    fn side_inputs_are_read_back_and_hashed() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.jsonl");
        let rows = [("Adults took the drug.", "Adults took it.", serde_json::json!(["240 adults"])), ("A.", "B.", serde_json::json!("x"))];
        let write = |rows: &[(&str, &str, serde_json::Value)]| {
            let text: String = rows.iter().map(|(s, m, e)| serde_json::json!({"source": s, "summary": m, "spans": e}).to_string() + "\n").collect();
            std::fs::write(&input, text).unwrap();
        };
        write(&rows);
        let provenance = prov(serde_json::json!({"input": {
            "format": "jsonl", "fields": {"id": "id", "source": "source", "summary": "summary", "system": "system", "evidence": "spans"},
            "derive_id": null, "side_inputs": {}
        }}));
        let reports: Vec<Report> = rows
            .iter()
            .enumerate()
            .map(|(k, (s, m, e))| {
                let extras: factpico::Extras = [("evidence".to_owned(), e.clone())].into_iter().collect();
                Report {
                    row: Some(k as u64 + 1),
                    id: Some(format!("row-{}", k + 1)),
                    input_sha256: Some(input_sha256(s, m, &extras)),
                    ..Report::default()
                }
            })
            .collect();
        let (format, fields) = recorded_mapping(Some(&provenance)).unwrap();
        let t = read(&input, format, &fields, &reports).unwrap();
        assert_eq!(t.rows[1], Some((1, "B.".to_owned())));
        // The same texts with another side input: refused.
        write(&[rows[0].clone(), ("A.", "B.", serde_json::json!("y"))]);
        let e = read(&input, format, &fields, &reports).unwrap_err().to_string();
        assert!(e.contains("input row 2 (id row-2): its texts hash to input_sha256"), "{e}");
        // Read without the side input (another mapping): refused too.
        let (_, mut plain) = recorded_mapping(Some(&provenance)).unwrap();
        plain.extras.clear();
        write(&rows);
        assert!(read(&input, format, &plain, &reports).is_err());
    }
}
