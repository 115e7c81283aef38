//! Input files that are almost right (issue 23, item 15): a `;`-separated CSV, a JSON array
//! or a pretty-printed document named `.jsonl`, one object named `.json`, JSON lines with CR
//! line ends, a byte-order mark inside the file, a lone surrogate escape or a cut-off last
//! record, and a record giving a field twice. Each is named for what it is, with the line and
//! what to do; none yields garbage rows.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::path::Path;
use std::process::Output;

use support::{run, s, stderr, write, GOOD};

/// `GOOD` with id `id`.
fn good(id: &str) -> String {
    GOOD.replace(r#""id":"a""#, &format!(r#""id":"{id}""#))
}

fn score(input: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["score", s(input), "-o", s(out), "-q"];
    args.extend_from_slice(extra);
    run(&args)
}

fn assert_refused(o: &Output, want: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    assert!(stderr(o).contains(want), "wanted {want:?} in:\n{}", stderr(o));
}

/// The skipped messages of an output's rows (`None` for a scored row).
fn skipped(out: &Path) -> Vec<Option<String>> {
    support::rows(out).iter().map(|r| r["skipped"].as_str().map(str::to_owned)).collect()
}

#[test]
fn semicolon_csv_is_named_and_read_with_delimiter_by_score_report_and_resume() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = "id;source;summary\na;\"Aspirin reduced pain; 40 adults took it.\";Aspirin helped.\nb;Ibuprofen lowered fever in children.;It helped fever.\n";
    let input = write(d, "semi.csv", text.as_bytes());
    let out = d.join("o.jsonl");
    // Without --delimiter: the header is one column, and the message says what to pass.
    let o = score(&input, &out, &[]);
    assert_refused(
        &o,
        "source field `source` is not in the header; the header has one column `id;source;summary`: is the file separated by `;`? use --delimiter ';'",
    );
    assert!(!out.exists());
    // A header whose names hold `;` among other columns gets the hint too; a TSV is told to read as CSV.
    let mixed = write(d, "mixed.csv", b"id,source;summary\na,x;y\n");
    assert_refused(
        &score(&mixed, &out, &[]),
        "source field `source` is not in the header; columns are: id, source;summary (a column name holds `;`: if the file is separated by `;`, use --delimiter ';')",
    );
    let tsv = write(d, "semi.tsv", text.as_bytes());
    assert_refused(&score(&tsv, &out, &[]), "is the file separated by `;`? use --format csv --delimiter ';'");
    // Bad values and other formats are refused.
    assert_refused(&score(&input, &out, &["--delimiter", ";;"]), "expected one ASCII character");
    assert_refused(&score(&input, &out, &["--delimiter", "\""]), "cannot separate fields");
    let jsonl = write(d, "in.jsonl", format!("{GOOD}\n").as_bytes());
    assert_refused(&score(&jsonl, &out, &["--delimiter", ";"]), "--delimiter applies to CSV input, but");
    assert!(!out.exists());

    // With it: read, the quoted `;` kept in its field, and recorded in the provenance.
    let o = score(&input, &out, &["--delimiter", ";"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = support::rows(&out);
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[0]["id"].as_str(), rows[1]["id"].as_str()), (Some("a"), Some("b")));
    let want = factpico::input_sha256("Aspirin reduced pain; 40 adults took it.", "Aspirin helped.", &factpico::Extras::new());
    assert_eq!(rows[0]["input_sha256"], want.as_str());
    let prov = support::provenance(&out);
    assert_eq!(prov["input"]["delimiter"], ";");
    // report re-reads the input with the recorded delimiter.
    let page = d.join("page.html");
    let o = run(&["report", s(&out), "--input", s(&input), "-o", s(&page)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&page).unwrap().contains("Aspirin reduced pain; 40 adults took it."));

    // A run without --delimiter records none (its provenance is as before), and `,` is the default.
    let comma = write(d, "comma.csv", b"id,source,summary\na,Aspirin reduced pain.,Aspirin helped.\n");
    let out2 = d.join("c.jsonl");
    let o = score(&comma, &out2, &["--delimiter", ","]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let input_prov = &support::provenance(&out2)["input"];
    assert!(input_prov.get("delimiter").is_none(), "{input_prov}");

    // --resume continues a `;` run with the same delimiter.
    let broken = write(d, "r.csv", b"id;source;summary\na;Aspirin reduced pain.;Aspirin helped.\nb;only two\nc;Ibuprofen lowered fever.;It helped.\n");
    let out3 = d.join("r.jsonl");
    let o = score(&broken, &out3, &["--delimiter", ";"]);
    assert_refused(&o, "record 2 (line 3): found 2 fields, but the header has 3");
    write(d, "r.csv", b"id;source;summary\na;Aspirin reduced pain.;Aspirin helped.\nb;Aspirin reduced fever.;It helped.\nc;Ibuprofen lowered fever.;It helped.\n");
    let o = score(&broken, &out3, &["--delimiter", ";", "--resume"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(support::rows(&out3).len(), 3);
}

#[test]
fn json_array_or_pretty_document_named_jsonl_is_refused_before_scoring() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pretty_array = "[\n  {\n    \"id\": \"a\",\n    \"source\": \"s s\",\n    \"summary\": \"t\"\n  },\n  {\n    \"id\": \"b\",\n    \"source\": \"s\",\n    \"summary\": \"t\"\n  }\n]\n";
    let one_line_array = format!("[{GOOD}, {}]\n", good("b"));
    let array_msg = "line 1: this looks like a JSON array, not JSON Lines (one object per line): name it .json or use --format json";
    let pretty_object = "\n{\n  \"id\": \"a\",\n  \"source\": \"s s\",\n  \"summary\": \"t\"\n}\n";
    let object_msg = "line 2: this looks like a pretty-printed JSON document, not JSON Lines (one object per line)";
    for (name, text, want) in [
        ("arr.jsonl", pretty_array, array_msg),
        ("one_line.jsonl", one_line_array.as_str(), array_msg),
        ("pretty.jsonl", pretty_object, object_msg),
    ] {
        let input = write(d, name, text.as_bytes());
        for on_error in ["fail", "skip"] {
            let out = d.join("o.jsonl");
            let o = score(&input, &out, &["--on-error", on_error]);
            assert_refused(&o, want);
            assert!(!out.exists() && !d.join("o.jsonl.partial").exists(), "{name} {on_error}: no rows are written");
        }
    }
    // The same array named .json is read.
    let input = write(d, "arr.json", pretty_array.as_bytes());
    let o = score(&input, &d.join("ok.jsonl"), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(support::rows(&d.join("ok.jsonl")).len(), 2);
}

#[test]
fn one_object_named_json_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("o.jsonl");
    let input = write(d, "one.json", format!("{GOOD}\n").as_bytes());
    for on_error in ["fail", "skip"] {
        assert_refused(
            &score(&input, &out, &["--on-error", on_error]),
            "a .json input is an array of objects; this file holds one object (use .jsonl for one object per line",
        );
        assert!(!out.exists() && !d.join("o.jsonl.partial").exists());
    }
    let input = write(d, "lines.json", format!("{GOOD}\n{}\n", good("b")).as_bytes());
    assert_refused(
        &score(&input, &out, &[]),
        "a .json input is an array of objects; this file holds an object followed by more text (objects one after another, one per line, are JSON lines: name it .jsonl or use --format jsonl)",
    );
    // Other top-level values keep serde_json's message.
    let input = write(d, "str.json", b"\"text\"\n");
    assert_refused(&score(&input, &out, &[]), "array element 1: malformed JSON: invalid type: string \"text\", expected a JSON array of objects");
}

#[test]
fn jsonl_errors_name_the_line_and_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("o.jsonl");

    // CR-only line ends: the whole file is one line; refused whatever --on-error says.
    let input = write(d, "cr.jsonl", format!("{GOOD}\r{}\r", good("b")).as_bytes());
    for on_error in ["fail", "skip"] {
        assert_refused(&score(&input, &out, &["--on-error", on_error]), "line 1: the file uses CR line ends (\\r without \\n)");
        assert!(!out.exists());
    }
    // CRLF is fine.
    let input = write(d, "crlf.jsonl", format!("{GOOD}\r\n{}\r\n", good("b")).as_bytes());
    assert_eq!(score(&input, &out, &[]).status.code(), Some(0));
    std::fs::remove_file(&out).unwrap();

    // A byte-order mark at the start of the file is dropped; at the start of a later line it is named.
    let text = format!("\u{feff}{GOOD}\n\u{feff}{}\n{}\n", good("b"), good("c"));
    let input = write(d, "bom.jsonl", text.as_bytes());
    assert_refused(&score(&input, &out, &[]), "error: line 2 starts with a byte-order mark (U+FEFF)");
    let o = score(&input, &out, &["--on-error", "skip"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let sk = skipped(&out);
    assert!(sk[0].is_none() && sk[2].is_none(), "{sk:?}");
    assert!(sk[1].as_deref().unwrap().starts_with("line 2 starts with a byte-order mark (U+FEFF)"), "{sk:?}");

    // A lone surrogate escape (leading, or trailing) is named with its line; a pair is read.
    let text = format!(
        "{GOOD}\n{{\"id\":\"b\",\"source\":\"x \\ud800 y\",\"summary\":\"t\"}}\n{{\"id\":\"c\",\"source\":\"x \\udc00\",\"summary\":\"t\"}}\n{{\"id\":\"d\",\"source\":\"x \\ud83d\\ude00 \\\\ud800\",\"summary\":\"t\"}}\n"
    );
    let input = write(d, "sur.jsonl", text.as_bytes());
    assert_refused(&score(&input, &out, &[]), "error: line 2: an unpaired UTF-16 surrogate \\ud800 in a string (column 23)");
    let o = score(&input, &out, &["--on-error", "skip"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let sk = skipped(&out);
    assert!(sk[2].as_deref().unwrap().starts_with("line 3: an unpaired UTF-16 surrogate \\udc00 in a string"), "{sk:?}");
    assert!(sk[0].is_none() && sk[3].is_none(), "{sk:?}");

    // A file cut inside its last record.
    let text = format!("{GOOD}\n\n{}\n{{\"id\":\"c\",\"source\":\"x y\",\"summ", good("b"));
    let input = write(d, "cut.jsonl", text.as_bytes());
    let o = score(&input, &out, &[]);
    assert_refused(&o, "error: line 4: the record is incomplete (the file ends inside it)");
    assert!(!stderr(&o).contains("at line"), "{}", stderr(&o));
    // A record broken over two lines: the position is within line 2, never serde_json's `line 2`.
    let text = format!("{GOOD}\n{{\"id\":\"b\",\"source\":\"x\ny\",\"summary\":\"t\"}}\n{{\"id\":\"c\",\"source\":\n{}\n", good("d"));
    let input = write(d, "broken.jsonl", text.as_bytes());
    let o = score(&input, &out, &["--on-error", "skip"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let sk = skipped(&out);
    assert_eq!(
        sk[1].as_deref(),
        Some("line 2: malformed JSON: control character (\\u0000-\\u001F) found while parsing a string at the end of the line (a JSON lines record is one line: a line break inside a text is written \\n)")
    );
    assert!(sk[2].as_deref().unwrap().starts_with("line 3: malformed JSON: expected value at column 1"), "{sk:?}");
    assert!(sk[3].as_deref().unwrap().starts_with("line 4: malformed JSON: the line ends before the record does (EOF while parsing a value)"), "{sk:?}");
    assert!(sk.iter().flatten().all(|m| !m.contains("at line")), "{sk:?}");
}

#[test]
fn a_used_field_given_twice_is_a_row_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("o.jsonl");
    let text = format!(
        "{GOOD}\n{{\"id\":\"b\",\"source\":\"s s\",\"summary\":\"t\",\"summary\":\"u\"}}\n{{\"id\":\"c\",\"source\":\"s\",\"summary\":\"t\",\"note\":1,\"note\":2}}\n{{\"id\":\"d\",\"id\":\"e\",\"source\":\"s\",\"summary\":\"t\"}}\n"
    );
    let input = write(d, "dup.jsonl", text.as_bytes());
    assert_refused(&score(&input, &out, &[]), "error: line 2: field `summary` appears twice in the record");
    let o = score(&input, &out, &["--on-error", "skip"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = support::rows(&out);
    assert!(rows[1]["skipped"].as_str().unwrap().starts_with("line 2: field `summary` appears twice in the record"));
    assert_eq!(rows[1]["id"], "b");
    // A field no metric reads may repeat.
    assert!(rows[2]["skipped"].is_null() && rows[2]["scores"]["rougeL"].is_number(), "{}", rows[2]);
    // A repeated id: no id is guessed for the row.
    assert!(rows[3]["skipped"].as_str().unwrap().starts_with("line 4: field `id` appears twice in the record"));
    assert!(rows[3]["id"].is_null());
    // The same in a JSON array; the elements after it are read.
    let text = format!("[{GOOD},\n{{\"id\":\"b\",\"source\":\"s\",\"source\":\"s\",\"summary\":\"t\"}},\n{}]\n", good("c"));
    let input = write(d, "dup.json", text.as_bytes());
    assert_refused(&score(&input, &out, &[]), "error: array element 2: field `source` appears twice in the record");
    let o = score(&input, &out, &["--on-error", "skip"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let sk = skipped(&out);
    assert!(sk[0].is_none() && sk[2].is_none() && sk[1].is_some(), "{sk:?}");
}
