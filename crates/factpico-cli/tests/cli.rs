//! End-to-end tests of the `factpico` binary: the main job on the bundled
//! fixtures, every input format, every bad-input case, atomic output, resume
//! after a kill, id derivation, and `factpico diff`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::io::Write;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

mod support;
use support::{big_input, bin, fixtures, rows, run, stderr, write, GOOD};

/// Rows without provenance (identical across formats) for comparisons.
fn scores_of(path: &Path) -> Vec<(Value, Value, Value)> {
    rows(path).into_iter().map(|r| (r["id"].clone(), r["scores"].clone(), r["nulls"].clone())).collect()
}

#[test]
fn main_job_on_bundled_fixtures() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("new-dir/out.jsonl");
    let csv = dir.path().join("other-dir/out.csv");
    let input = fixtures().join("pairs.jsonl");
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--csv", csv.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = String::from_utf8(o.stdout.clone()).unwrap();
    assert!(table.contains("| faithful | 6 |"), "{table}");
    assert!(table.contains("| unfaithful | 6 |"), "{table}");
    assert!(table.contains("| (all) | 12 |"), "{table}");
    let rs = rows(&out);
    assert_eq!(rs.len(), 12);
    // Output schema 3: the provenance once, beside the rows; compact rows (issue 20's target:
    // at most 400 bytes a row for the default metrics on the fixtures; 2,222 in schema 2).
    let prov = support::provenance(&out);
    assert_eq!(prov["schema_version"], factpico::SCHEMA_VERSION);
    assert!(prov["engine"].as_str().unwrap().starts_with("factpico "));
    assert_eq!(prov["input"]["format"], "jsonl");
    let bytes = std::fs::metadata(&out).unwrap().len();
    eprintln!("fixture rows: {bytes} bytes, {} bytes a row", bytes / 12);
    assert!(bytes / 12 <= 400, "{bytes} bytes for 12 rows");
    for (i, r) in rs.iter().enumerate() {
        assert_eq!(r["row"], i as u64 + 1);
        assert_eq!(r["id"], format!("fx{:02}", i + 1));
        let rl = r["scores"]["rougeL"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&rl));
        let d = r["scores"]["delta_fkgl"].as_f64().unwrap();
        let (s, a) = (r["scores"]["fkgl_summary"].as_f64().unwrap(), r["scores"]["fkgl_source"].as_f64().unwrap());
        assert_eq!(d, s - a, "ΔFK must be summary − abstract");
        assert!(r.get("sentences").is_none(), "sentence spans are opt-in: {r}");
    }
    // --sentences records them (and is part of the options, so of the provenance).
    let with = dir.path().join("with-sentences.jsonl");
    let o = run(&["score", input.to_str().unwrap(), "-o", with.to_str().unwrap(), "--sentences", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for r in rows(&with) {
        assert!(!r["sentences"]["summary"].as_array().unwrap().is_empty(), "{r}");
    }
    assert_eq!(support::provenance(&with)["options"]["sentence_spans"], true);
    // Faithful summaries overlap more with their abstract than the unfaithful ones on average.
    let mean = |sys: &str| {
        let v: Vec<f64> = rs.iter().filter(|r| r["system"] == sys).map(|r| r["scores"]["rougeL"].as_f64().unwrap()).collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!(mean("faithful") > mean("unfaithful"));
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv_text.lines().count(), 13);
    assert!(csv_text.starts_with("row,id,system,skipped,rougeL,"));
    assert!(!dir.path().join("new-dir/out.jsonl.partial").exists());
}

#[test]
fn all_formats_give_identical_scores() {
    let dir = tempfile::tempdir().unwrap();
    let src: Vec<Value> = std::fs::read_to_string(fixtures().join("pairs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let json = write(dir.path(), "in.json", serde_json::to_string_pretty(&src).unwrap().as_bytes());
    for (name, delim) in [("in.csv", b','), ("in.tsv", b'\t')] {
        let mut w = csv::WriterBuilder::new().delimiter(delim).from_path(dir.path().join(name)).unwrap();
        w.write_record(["id", "system", "source", "summary"]).unwrap();
        for r in &src {
            w.write_record(["id", "system", "source", "summary"].map(|k| r[k].as_str().unwrap())).unwrap();
        }
        w.flush().unwrap();
    }
    let base = dir.path().join("base.jsonl");
    let o = run(&["score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-o", base.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The csv crate writes TSV with CSV-style quoting (multi-line texts are quoted), as pandas
    // does: such files are read with --tsv-quotes (plain TSV keeps quotes literally).
    for input in [json, dir.path().join("in.csv"), dir.path().join("in.tsv")] {
        let out = dir.path().join(format!("{}.out.jsonl", input.file_name().unwrap().to_str().unwrap()));
        let mut args = vec!["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"];
        if input.extension().is_some_and(|e| e == "tsv") {
            args.push("--tsv-quotes");
        }
        let o = run(&args);
        assert!(o.status.success(), "{}: {}", input.display(), stderr(&o));
        assert_eq!(scores_of(&out), scores_of(&base), "{}", input.display());
    }
}

/// Runs the scorer on `input` with `--on-error fail` and `skip`; returns (fail output, skip rows).
fn fail_and_skip(dir: &Path, input: &Path, extra: &[&str]) -> (Output, Vec<Value>) {
    let out = dir.join("o.jsonl");
    let _ = std::fs::remove_file(&out);
    let mut args = vec!["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"];
    args.extend_from_slice(extra);
    let fail = run(&args);
    assert!(!out.exists(), "a failed run must not leave a complete-looking output");
    let mut skip_args = args.clone();
    skip_args.extend_from_slice(&["--on-error", "skip"]);
    let skip = run(&skip_args);
    assert!(skip.status.success(), "{}", stderr(&skip));
    (fail, rows(&out))
}

#[test]
fn rows_before_an_unreadable_row_are_kept_and_resumable() {
    let dir = tempfile::tempdir().unwrap();
    let good2 = GOOD.replace("\"a\"", "\"b\"");
    let input = write(dir.path(), "in.jsonl", format!("{GOOD}\n{good2}\n{{\"id\": \"c\", \"source\": \n").as_bytes());
    let out = dir.path().join("o.jsonl");
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("the 2 rows before it are kept in"), "{}", stderr(&o));
    let partial = dir.path().join("o.jsonl.partial");
    assert_eq!(rows(&partial).len(), 2, "both good rows of the block were scored and kept");
    // Fixed input: --resume scores only the rest.
    let fixed = GOOD.replace("\"a\"", "\"c\"");
    std::fs::write(&input, format!("{GOOD}\n{good2}\n{fixed}\n")).unwrap();
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("resuming: 2 rows"), "{}", stderr(&o));
    assert_eq!(rows(&out).iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect::<Vec<_>>(), ["a", "b", "c"]);
    // A bad first row: nothing scored, and the message says so.
    let input = write(dir.path(), "bad.jsonl", b"{\"id\": \n");
    let o = run(&["score", input.to_str().unwrap(), "-o", dir.path().join("b.jsonl").to_str().unwrap(), "-q"]);
    assert!(stderr(&o).contains("no row was scored before it"), "{}", stderr(&o));
}

#[test]
fn model_flags_of_unselected_metrics_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "in.jsonl", format!("{GOOD}\n").as_bytes());
    let out = dir.path().join("o.jsonl");
    let o = run(&[
        "score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--metrics", "rougeL",
        "--lerc-model", "/nonexistent", "--alignscore-words-per-chunk", "100",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("warning: --lerc-model is ignored: it is used by --metrics qafacteval (selected: rougeL)"), "{e}");
    assert!(e.contains("warning: --alignscore-words-per-chunk is ignored"), "{e}");
    assert!(!e.contains("--extractive-qa-model"), "{e}");
}

#[test]
fn malformed_json_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "in.jsonl", format!("{GOOD}\n{{\"id\": \"b\", \"source\": \n{GOOD}\n").as_bytes());
    let (fail, rows) = fail_and_skip(dir.path(), &input, &[]);
    assert_eq!(fail.status.code(), Some(2));
    assert!(stderr(&fail).contains("line 2: malformed JSON"), "{}", stderr(&fail));
    assert!(dir.path().join("o.jsonl.partial").exists() || rows.len() == 3);
    assert_eq!(rows.len(), 3);
    assert!(rows[1]["skipped"].as_str().unwrap().contains("line 2: malformed JSON"));
    assert!(rows[0]["scores"]["rougeL"].is_number() && rows[2]["scores"]["rougeL"].is_number());
}

#[test]
fn missing_field_and_wrong_type() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "in.jsonl",
        format!("{GOOD}\n{{\"id\":\"b\",\"source\":\"x y z\"}}\n{{\"id\":\"c\",\"source\":\"x y\",\"summary\":42}}\n").as_bytes(),
    );
    let (fail, rows) = fail_and_skip(dir.path(), &input, &[]);
    let e = stderr(&fail);
    assert!(e.contains("line 2: missing field `summary` (fields present: id, source)"), "{e}");
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[1]["id"], "b");
    assert!(rows[1]["skipped"].as_str().unwrap().contains("missing field `summary`"));
    assert!(rows[2]["skipped"].as_str().unwrap().contains("field `summary` must be a string, got number"));
    // The summary table counts the skipped rows.
}

#[test]
fn invalid_utf8_jsonl_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = format!("{GOOD}\n").into_bytes();
    bytes.extend_from_slice(b"{\"id\":\"b\",\"source\":\"ok\",\"summary\":\"caf\xe9\"}\n");
    let input = write(dir.path(), "in.jsonl", &bytes);
    let (fail, rows) = fail_and_skip(dir.path(), &input, &[]);
    assert!(stderr(&fail).contains("line 2: invalid UTF-8"), "{}", stderr(&fail));
    assert!(rows[1]["skipped"].as_str().unwrap().contains("invalid UTF-8"));

    let mut csv = b"id,source,summary\na,Aspirin reduced pain.,Aspirin helped.\n".to_vec();
    csv.extend_from_slice(b"b,Aspirin reduced pain.,caf\xe9 helped\n");
    let input = write(dir.path(), "in.csv", &csv);
    let (fail, rows) = fail_and_skip(dir.path(), &input, &[]);
    let e = stderr(&fail);
    assert!(e.contains("record 2") && e.contains("field `summary` is not valid UTF-8"), "{e}");
    assert_eq!(rows[1]["id"], "b");
    assert!(rows[1]["skipped"].is_string());
}

#[test]
fn empty_csv_is_a_clear_error_and_a_header_only_csv_zero_rows() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.csv", b"");
    let out = dir.path().join("o.jsonl");
    let o = run(&["score", empty.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("the input is empty"), "{}", stderr(&o));
    assert!(!out.exists(), "no output for an input that cannot be read");
    let header = write(dir.path(), "header.csv", b"id,source,summary\n");
    let o = run(&["score", header.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("no records"), "{}", stderr(&o));
    assert_eq!(rows(&out).len(), 0);
}

#[test]
fn empty_whitespace_and_punctuation_texts_are_documented_nulls() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.jsonl");
    let input = fixtures().join("edge_cases.jsonl");
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rs = rows(&out);
    let by_id = |id: &str| rs.iter().find(|r| r["id"] == id).unwrap().clone();
    for (id, reason) in [
        ("edge_empty_summary", "empty summary"),
        ("edge_ws_summary", "empty summary"),
        ("edge_punct_only", "summary has no words"),
    ] {
        let r = by_id(id);
        for col in ["rougeL", "delta_fkgl", "fkgl_summary"] {
            assert!(r["scores"][col].is_null(), "{id} {col}");
            assert_eq!(r["nulls"][col], reason, "{id} {col}");
        }
        assert!(r["warnings"][0]["message"].as_str().unwrap().contains(reason));
    }
    let r = by_id("edge_one_word");
    assert_eq!(r["scores"]["rougeL"], 1.0);
    // An empty source is a documented null too.
    let input = write(dir.path(), "e.jsonl", br#"{"id":"x","source":"  ","summary":"Aspirin helped."}"#);
    let out2 = dir.path().join("e.out.jsonl");
    let o = run(&["score", input.to_str().unwrap(), "-o", out2.to_str().unwrap(), "-q"]);
    // Its only row: no metric has a value, so the run says so (exit 3), rows written.
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("metric rougeL produced no value in any of the 1 rows"), "{}", stderr(&o));
    assert_eq!(rows(&out2)[0]["nulls"]["rougeL"], "empty source");
}

#[test]
fn one_megabyte_summary_is_scored() {
    let dir = tempfile::tempdir().unwrap();
    let sentence = "Patients who took the new drug had fewer asthma attacks than those on placebo. ";
    let mut summary = String::new();
    let mut lines = 0;
    while summary.len() < 1_000_000 {
        summary.push_str(sentence);
        lines += 1;
        if lines % 20 == 0 {
            summary.push('\n');
        }
    }
    let row = serde_json::json!({"id": "big", "source": "The new drug reduced asthma attacks versus placebo in 120 patients.", "summary": summary});
    let input = write(dir.path(), "big.jsonl", format!("{row}\n").as_bytes());
    let out = dir.path().join("o.jsonl");
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = &rows(&out)[0];
    let recall = r["scores"]["rougeL_recall"].as_f64().unwrap();
    assert!(recall > 0.5, "recall {recall}");
    assert!(r["scores"]["fkgl_summary"].is_number());
}

#[test]
fn unknown_metric_and_unknown_field() {
    let o = run(&["score", fixtures().join("pairs.jsonl").to_str().unwrap(), "--metrics", "rougeL,bleurt", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("unknown metric `bleurt`") && e.contains("available metrics: rougeL, fkgl"), "{e}");

    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "in.csv", b"id,abstract,plain\na,Aspirin reduced pain.,Aspirin helped.\n");
    let o = run(&["score", input.to_str().unwrap(), "-q"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(e.contains("source field `source` is not in the header; columns are: id, abstract, plain"), "{e}");
    let o = run(&["score", input.to_str().unwrap(), "--source-field", "abstract", "--summary-field", "plain", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));

    // JSONL: an explicitly named id field that is missing names the field.
    let input = write(dir.path(), "in.jsonl", format!("{GOOD}\n").as_bytes());
    let o = run(&["score", input.to_str().unwrap(), "--id-field", "doc_id", "-q"]);
    assert!(stderr(&o).contains("missing field `doc_id`"), "{}", stderr(&o));
}

#[test]
fn derived_ids_match_sha256_prefix() {
    use sha2::Digest;
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "in.jsonl",
        br#"{"source":"Aspirin reduced pain in 40 adults.","summary":"Aspirin helped."}
{"source":"Metformin lowered HbA1c.","summary":"Metformin lowered blood sugar."}
"#,
    );
    let out = dir.path().join("o.jsonl");
    let o = run(&[
        "score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--id-from", "source", "--id-prefix", "sh_", "--id-hex", "12",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rs = rows(&out);
    for (r, src) in rs.iter().zip(["Aspirin reduced pain in 40 adults.", "Metformin lowered HbA1c."]) {
        let hex = hex::encode(sha2::Sha256::digest(src.as_bytes()));
        assert_eq!(r["id"], format!("sh_{}", &hex[..12]));
    }
    // Without an id field and without derivation: row-<n>.
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success());
    assert_eq!(rows(&out)[1]["id"], "row-2");
}

#[test]
fn killed_then_resumed_run_equals_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = big_input(dir.path(), 6000);
    let full = dir.path().join("full.jsonl");
    let o = run(&["score", input.to_str().unwrap(), "-o", full.to_str().unwrap(), "-q", "--block-size", "16"]);
    assert!(o.status.success(), "{}", stderr(&o));

    let out = dir.path().join("killed.jsonl");
    let partial = dir.path().join("killed.jsonl.partial");
    let mut child = bin()
        .args(["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--block-size", "16", "--jobs", "1"])
        .spawn()
        .unwrap();
    // Wait until some blocks are on disk, then kill -9.
    let start = std::time::Instant::now();
    loop {
        let n = std::fs::read(&partial).map(|b| b.iter().filter(|&&c| c == b'\n').count()).unwrap_or(0);
        if n >= 40 {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "the run finished before it could be killed; enlarge the input");
        assert!(start.elapsed().as_secs() < 120, "no progress");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!out.exists(), "an interrupted run must not leave the final file");
    assert!(partial.exists());
    // The provenance file was written (whole) before the first row.
    let prov_file = dir.path().join("killed.jsonl.provenance.json");
    let prov_killed = std::fs::read(&prov_file).unwrap();
    let written = std::fs::read(&partial).unwrap().iter().filter(|&&c| c == b'\n').count();
    assert!(written < 6000, "killed after {written} rows");

    // Simulate a row cut mid-write, too.
    let mut f = std::fs::OpenOptions::new().append(true).open(&partial).unwrap();
    f.write_all(b"{\"row\":99999,\"id\":\"trunc").unwrap();
    drop(f);

    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--block-size", "16", "--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!partial.exists());
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&full).unwrap(), "resumed output differs from uninterrupted output");
    // Its provenance file: left as the interrupted run wrote it, byte-identical to the
    // uninterrupted run's, and every row references it.
    assert_eq!(std::fs::read(&prov_file).unwrap(), prov_killed);
    assert_eq!(prov_killed, std::fs::read(dir.path().join("full.jsonl.provenance.json")).unwrap());
    support::provenance(&out);
    // A partial file whose provenance file is gone cannot be continued; one whose rows
    // reference another run neither.
    std::fs::write(&partial, std::fs::read_to_string(&out).unwrap().lines().take(5).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    std::fs::remove_file(&out).unwrap();
    std::fs::remove_file(&prov_file).unwrap();
    let resume = ["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--block-size", "16", "--resume"];
    let o = run(&resume);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("provenance file") && stderr(&o).contains("is missing"), "{}", stderr(&o));
    let mut other: Value = serde_json::from_slice(&prov_killed).unwrap();
    other["engine"] = "factpico 0.0.1".into();
    std::fs::write(&prov_file, other.to_string()).unwrap();
    let o = run(&resume);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("belong to different runs"), "{}", stderr(&o));
}

#[test]
fn resume_refuses_other_options_and_complete_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = big_input(dir.path(), 30);
    let out = dir.path().join("o.jsonl");
    let partial = dir.path().join("o.jsonl.partial");
    assert!(run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]).status.success());
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--resume"]);
    assert!(stderr(&o).contains("already complete"), "{}", stderr(&o));
    // Make it a partial written with stemming on, then resume with stemming off.
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::write(&partial, text.lines().take(10).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    std::fs::remove_file(&out).unwrap();
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--resume", "--rouge-stemmer", "false"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("different options"), "{}", stderr(&o));
}

#[test]
fn diff_detects_drift_with_tolerances() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.jsonl");
    assert!(run(&["score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-o", old.to_str().unwrap(), "-q"]).status.success());
    let o = run(&["diff", old.to_str().unwrap(), old.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let mut rs = rows(&old);
    let v = rs[3]["scores"]["rougeL"].as_f64().unwrap();
    rs[3]["scores"]["rougeL"] = serde_json::json!(v + 1e-6);
    rs[5]["scores"]["delta_fkgl"] = Value::Null;
    let new = dir.path().join("new.jsonl");
    std::fs::write(&new, rs.iter().map(|r| format!("{r}\n")).collect::<String>()).unwrap();
    let o = run(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let table = String::from_utf8(o.stdout.clone()).unwrap();
    assert!(table.contains("| fx04 [unfaithful] | rougeL |"), "{table}");
    assert!(table.contains("| fx06 [unfaithful] | delta_fkgl |") && table.contains("null vs value"), "{table}");
    assert!(stderr(&o).contains("2 drifted"), "{}", stderr(&o));
    // A loose enough tolerance on rougeL leaves only the null drift.
    let o = run(&["diff", old.to_str().unwrap(), new.to_str().unwrap(), "--tol", "rougeL=1e-5"]);
    assert!(stderr(&o).contains("1 drifted"), "{}", stderr(&o));
    let o = run(&["diff", old.to_str().unwrap(), new.to_str().unwrap(), "--tol", "rougeL=1e-5", "--columns", "rougeL"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Naming a column that exists in neither file is an error, not a pass.
    for args in [vec!["--columns", "nosuch"], vec!["--tol", "nosuch=1"], vec!["--default-tol", "NaN"]] {
        let mut a = vec!["diff", old.to_str().unwrap(), old.to_str().unwrap()];
        a.extend(args.iter().copied());
        let o = run(&a);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    // Several systems per id compare row by row on (id, system).
    let mut multi = rows(&old);
    for (i, r) in multi.iter_mut().enumerate() {
        r["id"] = Value::String(format!("doc{}", i / 2));
    }
    let multi_path = dir.path().join("multi.jsonl");
    std::fs::write(&multi_path, multi.iter().map(|r| format!("{r}\n")).collect::<String>()).unwrap();
    let o = run(&["diff", multi_path.to_str().unwrap(), multi_path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn metrics_lists_registry_with_directions() {
    let o = run(&["metrics"]);
    assert!(o.status.success());
    let t = String::from_utf8(o.stdout).unwrap();
    assert!(t.contains("| fkgl | delta_fkgl | [-inf, +inf] | lower |"), "{t}");
    assert!(t.contains("| rougeL | rougeL | [0, 1] | higher |"), "{t}");
    assert!(t.contains("alignscore (feature `alignscore`)"), "{t}");
    // each unit row names each per-row input once, even when several of its metrics read it
    // (the LLM unit's `llm` and `llm_pipeline` both read `evidence`)
    for line in t.lines().filter(|l| l.contains("`evidence`")) {
        assert_eq!(line.matches("`evidence`").count(), 1, "{line}");
    }
}

/// `--metrics alignscore` through the CLI with the tiny random fixture model gives the
/// reference's own scores (goldens of the unmodified AlignScore package, |Δ| ≤ 1e-4),
/// per-sentence details, and the model's sha256 in the provenance.
#[cfg(feature = "alignscore")]
#[test]
fn alignscore_through_the_cli_matches_reference_goldens() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let golden: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/goldens/alignscore_tiny.json")).unwrap()).unwrap();
    let own = golden["calls"].as_array().unwrap().iter().find(|c| c["name"] == "own").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let model = root.join("fixtures/models/alignscore-tiny");
    let mut compared = 0;
    for mode in ["nli_sp", "reg_sp", "nli"] {
        let out = dir.path().join(format!("{mode}.jsonl"));
        let o = run(&[
            "score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-o", out.to_str().unwrap(), "-q",
            "--metrics", "alignscore", "--alignscore-model", model.to_str().unwrap(), "--alignscore-mode", mode,
            "--batch-size", "5", "--sentences",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let prov = support::provenance(&out);
        for r in rows(&out) {
            let want = own["rows"].as_array().unwrap().iter().find(|g| g["id"] == r["id"]).unwrap()[mode].as_f64().unwrap();
            let got = r["scores"]["alignscore"].as_f64().unwrap();
            assert!((got - want).abs() <= 1e-4, "{mode} {}: {got} vs reference {want}", r["id"]);
            assert_eq!(prov["metrics"]["alignscore"]["model_sha256"], golden["onnx_sha256"]);
            if mode == "nli_sp" {
                let n = r["details"]["alignscore"]["sentences"].as_array().unwrap().len();
                assert_eq!(n, r["sentences"]["summary"].as_array().unwrap().len(), "one score per summary sentence");
            }
            compared += 1;
        }
    }
    eprintln!("alignscore via CLI: {compared} scores within 1e-4 of the reference");
    // --resume refuses rows written with another model (same directory, other sha256): the
    // provenance file of the interrupted run records it.
    let full = std::fs::read_to_string(dir.path().join("nli_sp.jsonl")).unwrap();
    let real = support::provenance(&dir.path().join("nli_sp.jsonl"));
    let mut other = real.clone();
    other["metrics"]["alignscore"]["model_sha256"] = "0".repeat(64).into();
    let mut first: Value = serde_json::from_str(full.lines().next().unwrap()).unwrap();
    first["run"] = factpico::provenance_hash(&other).into();
    let resumed = dir.path().join("resumed.jsonl");
    std::fs::write(dir.path().join("resumed.jsonl.partial"), format!("{first}\n")).unwrap();
    std::fs::write(dir.path().join("resumed.jsonl.provenance.json"), other.to_string()).unwrap();
    let pairs = fixtures().join("pairs.jsonl");
    let resume_args = [
        "score", pairs.to_str().unwrap(), "-o", resumed.to_str().unwrap(), "-q", "--resume",
        "--metrics", "alignscore", "--alignscore-model", model.to_str().unwrap(), "--alignscore-mode", "nli_sp",
        "--batch-size", "5", "--sentences",
    ];
    let o = run(&resume_args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("metrics.alignscore.model_sha256"), "{}", stderr(&o));
    // The same row with its real provenance resumes.
    let first = full.lines().next().unwrap();
    std::fs::write(dir.path().join("resumed.jsonl.partial"), format!("{first}\n")).unwrap();
    std::fs::write(dir.path().join("resumed.jsonl.provenance.json"), real.to_string()).unwrap();
    let o = run(&resume_args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&resumed).len(), full.lines().count());
    // --alignscore-words-per-chunk: more, smaller chunks, recorded in the provenance.
    let out = dir.path().join("wpc.jsonl");
    let o = run(&[
        "score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-o", out.to_str().unwrap(), "-q",
        "--metrics", "alignscore", "--alignscore-model", model.to_str().unwrap(), "--alignscore-words-per-chunk", "20",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(support::provenance(&out)["metrics"]["alignscore"]["words_per_chunk"], 20);
    for r in rows(&out) {
        let chunks = r["details"]["alignscore"]["chunks"].as_array().unwrap().len();
        assert!(chunks >= 2, "{}: {chunks} chunk(s) of a 54+ word source at 20 words per chunk", r["id"]);
        let got = r["scores"]["alignscore"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&got));
    }
    let o = run(&[
        "score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-q", "--metrics", "alignscore",
        "--alignscore-model", model.to_str().unwrap(), "--alignscore-words-per-chunk", "0",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A missing model directory is a clear error naming the flag.
    let o = run(&["score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-q", "--metrics", "alignscore", "--alignscore-model", "/nonexistent/model"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("does not exist (option --alignscore-model)"), "{}", stderr(&o));
}

/// `--metrics dae` through the CLI with the tiny ELECTRA fixture and hand-written CoNLL-U
/// arcs (`--arcs`, looked up by row id): per-arc probabilities and the min equal the
/// spec-following Python reference (`tests/goldens/dae_fixtures.json`, |Δ| ≤ 1e-4), in both
/// multi-sentence modes; a summary without kept arcs is a documented null.
#[cfg(feature = "dae")]
#[test]
fn dae_through_the_cli_with_conllu_arcs_matches_goldens() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let golden: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/goldens/dae_fixtures.json")).unwrap()).unwrap();
    let sources: std::collections::HashMap<String, String> = std::fs::read_to_string(fixtures().join("pairs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["id"].as_str().unwrap().to_owned(), v["source"].as_str().unwrap().to_owned())
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for (mode, flag) in [("reference", "single-parse"), ("per_sentence", "per-sentence")] {
        let rows_g: Vec<&Value> = golden["rows"].as_array().unwrap().iter().filter(|r| r["mode"] == mode).collect();
        let mut input = String::new();
        for r in &rows_g {
            let src = vec![sources[r["source_pair"].as_str().unwrap()].clone(); r["source_repeat"].as_u64().unwrap() as usize].join(" ");
            input.push_str(&serde_json::json!({"id": r["id"], "source": src, "summary": r["summary"]}).to_string());
            input.push('\n');
        }
        // One more row whose summary has no kept arc under any parse: a documented null.
        input.push_str(&serde_json::json!({"id": "one_word", "source": "The drug worked.", "summary": "Drugs."}).to_string());
        input.push('\n');
        let conllu = std::fs::read_to_string(root.join("tests/goldens/dae_fixtures.conllu")).unwrap()
            + "# newdoc id = one_word\n# sent_id = one_word-1\n1\tdrugs\tdrug\tNOUN\tNNS\t_\t0\troot\t0:root\tSpaceAfter=No\n2\t.\t.\tPUNCT\t.\t_\t1\tpunct\t1:punct\t_\n\n";
        let arcs = write(dir.path(), "arcs.conllu", conllu.as_bytes());
        let inp = write(dir.path(), "in.jsonl", input.as_bytes());
        let out = dir.path().join(format!("{mode}.jsonl"));
        let model = root.join("fixtures/models/dae-tiny");
        let o = run(&[
            "score", inp.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--metrics", "dae",
            "--dae-model", model.to_str().unwrap(), "--arcs", arcs.to_str().unwrap(), "--dae-multi-sentence", flag,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let rs = rows(&out);
        for (r, g) in rs.iter().zip(&rows_g) {
            assert_eq!(r["id"], g["id"]);
            let want: Vec<f64> = g["units"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|u| u["probs"].as_array().unwrap().iter().map(|p| p.as_f64().unwrap()))
                .collect();
            let got: Vec<f64> =
                r["details"]["dae"]["arcs"].as_array().unwrap().iter().map(|a| a["probability"].as_f64().unwrap()).collect();
            assert_eq!(got.len(), want.len(), "{mode} {}: arcs", r["id"]);
            for (a, b) in got.iter().zip(&want) {
                assert!((a - b).abs() <= 1e-4, "{mode} {}: {a} vs {b}", r["id"]);
            }
            let min = want.iter().copied().fold(f64::INFINITY, f64::min);
            assert!((r["scores"]["dae"].as_f64().unwrap() - min).abs() <= 1e-4);
            compared += got.len();
        }
        let last = rs.last().unwrap();
        assert_eq!(last["id"], "one_word");
        assert!(last["scores"]["dae"].is_null());
        assert_eq!(last["nulls"]["dae"], "no_kept_arcs");
        // --explain with -o -: stdout stays pure JSONL (the detail goes to stderr).
        let o = run(&[
            "score", inp.to_str().unwrap(), "-o", "-", "-q", "--metrics", "dae", "--explain",
            "--dae-model", model.to_str().unwrap(), "--arcs", arcs.to_str().unwrap(), "--dae-multi-sentence", flag,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert_eq!(stdout.lines().count(), rs.len());
        for l in stdout.lines() {
            serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("not a JSON row ({e}): {l}"));
        }
        assert!(stderr(&o).contains("arcs; lowest first"), "{}", stderr(&o));
    }
    eprintln!("dae via CLI: {compared} arc probabilities within 1e-4 of the reference");
    // Model flags are validated with clear messages.
    let o = run(&["score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-q", "--metrics", "dae"]);
    assert!(stderr(&o).contains("a model: --dae-model (") && stderr(&o).contains(" or --dae-nli-model ("), "{}", stderr(&o));
    let o = run(&["score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-q", "--metrics", "dae", "--dae-model", "x", "--parser", "conllu"]);
    assert_eq!(o.status.code(), Some(2));
    // A sidecar that cannot start is a setup error before any row, even with --on-error skip.
    let model = root.join("fixtures/models/dae-tiny");
    let o = bin()
        .args(["score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-q", "--metrics", "rougeL,dae", "--on-error", "skip"])
        .args(["--dae-model", model.to_str().unwrap(), "-o", dir.path().join("never.jsonl").to_str().unwrap()])
        .env("FACTPICO_SIDECAR_PYTHON", "/nonexistent/python")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("sidecar"), "{}", stderr(&o));
    assert!(!dir.path().join("never.jsonl").exists() && !dir.path().join("never.jsonl.partial").exists());
}

/// The QA metrics through the CLI with the tiny random fixture models: QuestEval (T5 QG + QA),
/// QAFactEval-style (BART QG + extractive QA) and cloze, rule-based answer selection (no
/// Python), per-question detail in the rows and on `--explain`, provenance naming the
/// selector and the graphs' sha256.
#[cfg(feature = "qa")]
#[test]
fn qa_metrics_through_the_cli_with_fixture_models() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let m = root.join("fixtures/models");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("qa.jsonl");
    let o = run(&[
        "score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-o", out.to_str().unwrap(), "-q",
        "--metrics", "questeval,qafacteval,cloze", "--answers", "rules", "--explain",
        "--questeval-qg-model", m.join("t5-tiny-qg").to_str().unwrap(),
        "--questeval-qa-model", m.join("t5-tiny-qa").to_str().unwrap(),
        "--qafacteval-qg-model", m.join("bart-tiny").to_str().unwrap(),
        "--extractive-qa-model", m.join("qa-tiny").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let explain = String::from_utf8_lossy(&o.stdout);
    assert!(explain.contains("== row 1 id fx01 (faithful)") && explain.contains("] Q: "), "{explain}");
    let rs = rows(&out);
    assert_eq!(rs.len(), 12);
    let mut questions = 0;
    let prov = support::provenance(&out);
    for r in &rs {
        for col in ["questeval_f1", "questeval_f1_precision", "questeval_f1_recall", "qafacteval_f1", "qafacteval_em", "cloze_f1"] {
            let v = r["scores"][col].as_f64().unwrap_or_else(|| panic!("{} {col}: {}", r["id"], r["scores"]));
            assert!((0.0..=1.0).contains(&v), "{} {col} = {v}", r["id"]);
        }
        let q = &r["details"]["questeval"]["questions"];
        questions += q.as_array().unwrap().len();
        // Every question names the answer span it came from, in the text of its direction.
        for rec in q.as_array().unwrap() {
            let span = &rec["answer_span"];
            assert!(span.is_null() || (span["start"].as_u64().unwrap() < span["end"].as_u64().unwrap()), "{span}");
        }
        let p = &prov["metrics"]["questeval"];
        assert_eq!(p["answers"], "rules");
        assert_eq!(p["qg_model_sha256"].as_object().unwrap().len(), 3, "encoder + 2 decoder graphs hashed");
    }
    assert!(questions > 0);
    eprintln!("qa via CLI: 12 rows, {questions} QuestEval questions");
    // Without --bertscore-model / --lerc-model their columns are documented nulls, whose
    // reasons (written into the file, beside the provenance) name the options by their paths.
    for r in &rs {
        for col in ["questeval", "questeval_precision", "questeval_recall", "qafacteval_lerc", "qafacteval_lerc_norm"] {
            assert!(r["scores"][col].is_null(), "{} {col}: {}", r["id"], r["scores"]);
            let why = r["nulls"][col].as_str().unwrap_or_else(|| panic!("{} {col}: no null reason: {r}", r["id"]));
            assert!(why.contains("`qa.bertscore_model`") || why.contains("`qa.lerc_model`"), "{why}");
        }
    }
    // Missing models are named with their flags.
    let o = run(&["score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-q", "--metrics", "questeval", "--answers", "rules"]);
    assert!(stderr(&o).contains("--questeval-qg-model DIR"), "{}", stderr(&o));
    let o = run(&[
        "score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-q", "--metrics", "questeval", "--answers", "rules",
        "--questeval-qg-model", m.join("t5-tiny-qg").to_str().unwrap(),
        "--questeval-qa-model", m.join("t5-tiny-qa").to_str().unwrap(),
        "--bertscore-model", dir.path().join("nope").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--bertscore-model"), "{}", stderr(&o));
    qa_optional_components_through_the_cli(&m, &rs);
}

/// `--bertscore-model` adds QuestEval's third component (`questeval*` columns) and
/// `--lerc-model` QAFactEval's LERC-QuIP (`qafacteval_lerc`, `qafacteval_lerc_norm`); the other
/// columns do not change.
#[cfg(feature = "qa")]
fn qa_optional_components_through_the_cli(m: &Path, plain: &[serde_json::Value]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("qa.jsonl");
    let o = run(&[
        "score", fixtures().join("pairs.jsonl").to_str().unwrap(), "-o", out.to_str().unwrap(), "-q",
        "--metrics", "questeval,qafacteval", "--answers", "rules",
        "--questeval-qg-model", m.join("t5-tiny-qg").to_str().unwrap(),
        "--questeval-qa-model", m.join("t5-tiny-qa").to_str().unwrap(),
        "--bertscore-model", m.join("bertscore-tiny").to_str().unwrap(),
        "--qafacteval-qg-model", m.join("bart-tiny").to_str().unwrap(),
        "--extractive-qa-model", m.join("qa-tiny").to_str().unwrap(),
        "--lerc-model", m.join("lerc-tiny").to_str().unwrap(),
        "--explain", "--summary", dir.path().join("table.md").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let explain = String::from_utf8_lossy(&o.stdout);
    assert!(explain.contains(" | BERTScore "), "--explain shows each question's BERTScore:\n{explain}");
    let table = std::fs::read_to_string(dir.path().join("table.md")).unwrap();
    assert!(table.contains("| questeval (mean ± sd) | questeval_f1 (mean ± sd) |"), "per-system table:\n{table}");
    let rs = rows(&out);
    assert_eq!(rs.len(), plain.len());
    let mut lerc_questions = 0;
    for (r, p) in rs.iter().zip(plain) {
        let v = |c: &str| r["scores"][c].as_f64().unwrap_or_else(|| panic!("{} {c}: {}", r["id"], r["scores"]));
        for col in ["questeval", "questeval_precision", "questeval_recall", "qafacteval_lerc_norm"] {
            assert!((0.0..=1.0).contains(&v(col)), "{} {col} = {}", r["id"], v(col));
        }
        assert!(r["nulls"].get("questeval").is_none() && r["nulls"].get("qafacteval_lerc").is_none());
        let norm = v("qafacteval_lerc").clamp(0.0, 5.0) / 5.0;
        assert!((v("qafacteval_lerc_norm") - norm).abs() < 1e-12);
        // The answerability + F1 columns are those of the run without BERTScore.
        for col in ["questeval_f1", "questeval_f1_precision", "questeval_f1_recall", "qafacteval_f1", "qafacteval_em"] {
            let want = p["scores"][col].as_f64().unwrap();
            assert!((v(col) - want).abs() < 1e-9, "{} {col}: {} vs {want}", r["id"], v(col));
        }
        // questeval = mean of its directions; each question carries its BERTScore.
        assert!((v("questeval") - (v("questeval_precision") + v("questeval_recall")) / 2.0).abs() < 1e-12);
        for q in r["details"]["questeval"]["questions"].as_array().unwrap() {
            assert!(q["bertscore"].is_f64(), "{q}");
        }
        for q in r["details"]["qafacteval"]["questions"].as_array().unwrap() {
            lerc_questions += usize::from(q["lerc_quip"].is_f64());
        }
        // The random fixtures keep few or no questions: then LERC-QuIP is 0, as the reference
        // (the aggregation over kept questions is checked in tests/qa_optional.rs).
        if r["details"]["qafacteval"]["kept"] == 0 {
            assert_eq!(v("qafacteval_lerc"), 0.0);
        }
        let p = &support::provenance(&out)["metrics"];
        assert!(p["questeval"]["bertscore"]["model_sha256"].is_object(), "{p}");
        assert!(p["qafacteval"]["lerc"]["model_sha256"].is_object(), "{p}");
    }
    eprintln!("qa optional via CLI: {} rows, {lerc_questions} LERC-QuIP questions", rs.len());
}

#[test]
fn resume_refuses_a_different_input_or_field_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let input = big_input(dir.path(), 40);
    let out = dir.path().join("o.jsonl");
    let partial = dir.path().join("o.jsonl.partial");
    assert!(run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]).status.success());
    let first10: String = std::fs::read_to_string(&out).unwrap().lines().take(10).map(|l| format!("{l}\n")).collect();
    std::fs::remove_file(&out).unwrap();
    // Same ids, reversed order.
    let lines: Vec<String> = std::fs::read_to_string(&input).unwrap().lines().rev().map(str::to_owned).collect();
    let rev = write(dir.path(), "rev.jsonl", (lines.join("\n") + "\n").as_bytes());
    std::fs::write(&partial, &first10).unwrap();
    let o = run(&["score", rev.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--resume"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not the row already written"), "{}", stderr(&o));
    // Same file, source and summary swapped: ids match, texts do not.
    std::fs::write(&partial, &first10).unwrap();
    let o = run(&[
        "score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--resume", "--source-field", "summary", "--summary-field", "source",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("field mapping"), "{}", stderr(&o));
    // The right input resumes.
    std::fs::write(&partial, &first10).unwrap();
    assert!(run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--resume"]).status.success());
}

#[test]
fn output_paths_never_clobber_inputs_directories_or_special_files() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "in.jsonl", format!("{GOOD}\n").as_bytes());
    let before = std::fs::read(&input).unwrap();
    let o_path = dir.path().join("o.jsonl");
    let (i, o) = (input.to_str().unwrap(), o_path.to_str().unwrap());
    for (args, want) in [
        (vec!["score", i, "-o", i, "-q"], "would overwrite the input"),
        (vec!["score", i, "-o", o, "--csv", i, "-q"], "--csv"),
        (vec!["score", i, "-o", o, "--csv", o, "-q"], "would overwrite -o"),
        (vec!["score", i, "-o", o, "--summary", o, "-q"], "would overwrite -o"),
        (vec!["score", i, "-o", dir.path().to_str().unwrap(), "-q"], "is a directory"),
        (vec!["score", i, "-o", "/dev/null", "-q"], "not a regular file"),
        (vec!["score", i, "--csv", "/dev/null", "-q"], "not a regular file"),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(want), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(std::fs::read(&input).unwrap(), before, "the input is untouched");
    assert!(!o_path.exists());
}

#[test]
fn stdin_stdout_bom_nan_ids_and_jobs() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    // Standard input to standard output.
    let mut child = bin()
        .args(["score", "-", "--format", "jsonl", "-o", "-", "-q"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(format!("{GOOD}\n{GOOD}\n").as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<Value> = String::from_utf8(o.stdout.clone()).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0]["scores"]["rougeL"].is_number());
    assert!(stderr(&o).contains("| (all) | 2 |"), "table on stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("1 rows repeat an id"), "{}", stderr(&o));

    // A UTF-8 byte-order mark is ignored (JSONL and JSON array).
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice(format!("{GOOD}\n").as_bytes());
    let input = write(dir.path(), "bom.jsonl", &bom);
    let out = dir.path().join("bom.out.jsonl");
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice(format!("[{GOOD}]").as_bytes());
    let input = write(dir.path(), "bom.json", &bom);
    assert!(run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]).status.success());

    // NaN in a line: the message says why.
    let input = write(dir.path(), "nan.jsonl", br#"{"id":"a","source":"x y","summary":"x","score":NaN}"#);
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    assert!(stderr(&o).contains("NaN and Infinity are not valid JSON"), "{}", stderr(&o));

    // Float ids are refused (they would lose precision); integer ids are kept exactly.
    let input = write(
        dir.path(),
        "ids.jsonl",
        br#"{"id":12345678901234567890,"source":"Aspirin helped.","summary":"Aspirin helped."}
{"id":1.5,"source":"Aspirin helped.","summary":"Aspirin helped."}
"#,
    );
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--on-error", "skip"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rs = rows(&out);
    assert_eq!(rs[0]["id"], "12345678901234567890");
    assert!(rs[1]["skipped"].as_str().unwrap().contains("must be a string or an integer"));

    // --jobs 0 is refused by the argument parser.
    let o = run(&["score", input.to_str().unwrap(), "--jobs", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--jobs"), "{}", stderr(&o));
}

/// A model option takes a catalogue name as well as a directory: with no value the metric's
/// default catalogue model installed under `$FACTPICO_HOME/models/NAME` is used, a bare name
/// resolves to an installed model, an existing directory of the same spelling wins, and a
/// model that is not installed fails before any row with the `factpico models pull` command.
#[cfg(feature = "alignscore")]
#[test]
fn model_options_take_catalogue_names_and_missing_models_name_the_pull_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fixture = root.join("fixtures/models/alignscore-tiny");
    let home = tempfile::tempdir().unwrap();
    // The ONNX Runtime library stays where this machine has it (only models/ is new).
    support::link_ort_into(home.path());
    let work = tempfile::tempdir().unwrap();
    let input = fixtures().join("pairs.jsonl");
    let score = |extra: &[&str], out: &str| {
        let mut c = bin();
        c.current_dir(work.path()).env("FACTPICO_HOME", home.path());
        c.args(["score", input.to_str().unwrap(), "-q", "--metrics", "alignscore", "-o", out]).args(extra);
        c.output().unwrap()
    };
    // Nothing installed: the default model is named with its pull command; nothing is written.
    let o = score(&[], "none.jsonl");
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("default model `alignscore-base` is not installed") && e.contains("factpico models pull alignscore-base"), "{e}");
    assert!(!work.path().join("none.jsonl").exists());
    let o = score(&["--alignscore-model", "alignscore-large"], "none.jsonl");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("factpico models pull alignscore-large"), "{}", stderr(&o));

    // Installed under the catalogue name: the default, the bare name and the directory agree.
    let installed = home.path().join("models/alignscore-base");
    std::fs::create_dir_all(&installed).unwrap();
    for f in std::fs::read_dir(&fixture).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, installed.join(f.file_name().unwrap())).unwrap();
    }
    let by_dir = work.path().join("dir.jsonl");
    let o = score(&["--alignscore-model", fixture.to_str().unwrap()], by_dir.to_str().unwrap());
    assert!(o.status.success(), "{}", stderr(&o));
    let want: Vec<Value> = rows(&by_dir).iter().map(|r| r["scores"].clone()).collect();
    for (extra, out) in [(&[][..], "default.jsonl"), (&["--alignscore-model", "alignscore-base"][..], "name.jsonl")] {
        let o = score(extra, out);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        let got: Vec<Value> = rows(&work.path().join(out)).iter().map(|r| r["scores"].clone()).collect();
        assert_eq!(got, want, "{extra:?}");
    }
    // A directory named like a catalogue entry in the working directory wins over the cache.
    std::fs::create_dir(work.path().join("alignscore-base")).unwrap();
    let o = score(&["--alignscore-model", "alignscore-base"], "local.jsonl");
    assert!(!o.status.success(), "the empty local directory was not the one loaded");
    assert!(stderr(&o).contains("alignscore-base"), "{}", stderr(&o));
}

/// Issue 20 item 4: `-o OUT.parquet` writes the rows as a Parquet table (the Python
/// package's Arrow layout, the provenance in its metadata); `diff`, `report` and `meta-eval`
/// read it; `--resume` is refused with the reason; an unknown extension is refused instead of
/// getting JSON lines under its name; `-o -` writes the provenance only with --provenance.
#[test]
fn parquet_output_is_read_by_diff_report_and_meta_eval() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = fixtures().join("pairs.jsonl");
    let (jsonl, parquet) = (d.join("x.jsonl"), d.join("x.parquet"));
    for out in [&jsonl, &parquet] {
        let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--on-error", "skip"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(&std::fs::read(&parquet).unwrap()[..4], b"PAR1");
    assert!(!d.join("x.parquet.provenance.json").exists(), "a Parquet file keeps its provenance in its metadata");
    // Every score equal: diff with no tolerance finds no drift.
    let o = run(&["diff", jsonl.to_str().unwrap(), parquet.to_str().unwrap(), "--default-tol", "0"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    // The report reads it, with its provenance (the engine) and the recorded input mapping.
    let html = d.join("x.html");
    let o = run(&["report", parquet.to_str().unwrap(), "--input", input.to_str().unwrap(), "-o", html.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    let prov = support::provenance(&jsonl);
    assert!(page.contains(prov["engine"].as_str().unwrap()));
    // meta-eval joins it with ratings as it joins the JSONL.
    let ratings = d.join("ratings.csv");
    let mut csv = String::from("id,human\n");
    for (i, r) in rows(&jsonl).iter().enumerate() {
        csv.push_str(&format!("{},{}\n", r["id"].as_str().unwrap(), (i * 7 % 5) as f64 / 2.0));
    }
    std::fs::write(&ratings, csv).unwrap();
    let meta = |scores: &Path| {
        let o = run(&["meta-eval", "--scores", scores.to_str().unwrap(), "--ratings", ratings.to_str().unwrap(), "--aspects", "human", "--metrics", "rougeL,delta_fkgl"]);
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8(o.stdout).unwrap().replace(scores.to_str().unwrap(), "SCORES")
    };
    let (from_jsonl, from_parquet) = (meta(&jsonl), meta(&parquet));
    assert_eq!(from_jsonl.replace("x.jsonl", "x"), from_parquet.replace("x.parquet", "x"));
    // --resume: refused with the reason.
    let o = run(&["score", input.to_str().unwrap(), "-o", parquet.to_str().unwrap(), "-q", "--resume"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("a Parquet file is written whole"), "{}", stderr(&o));
    // An unknown extension: refused, nothing written.
    let other = d.join("x.json");
    let o = run(&["score", input.to_str().unwrap(), "-o", other.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("the extension `.json`") && stderr(&o).contains(".parquet"), "{}", stderr(&o));
    assert!(!other.exists());
    // -o -: rows on standard output; the provenance only where --provenance says.
    let prov_file = d.join("stdout.provenance.json");
    let o = run(&["score", input.to_str().unwrap(), "-o", "-", "-q", "--provenance", prov_file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout_rows: Vec<Value> = String::from_utf8(o.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(stdout_rows.len(), 12);
    let p: Value = serde_json::from_str(&std::fs::read_to_string(&prov_file).unwrap()).unwrap();
    assert_eq!(p, prov);
    assert!(stdout_rows.iter().all(|r| r["run"] == factpico::provenance_hash(&p).as_str()));
    assert_eq!(stdout_rows, rows(&jsonl));
}

/// Issue 23, class 2: `--resume` of a finished output whose rows carry metric failures
/// (`errors`) scores exactly those rows again and copies every other line byte for byte; the
/// result is the uninterrupted run's file. A finished output of another input is refused.
#[test]
fn resume_of_a_finished_output_retries_exactly_the_failed_rows() {
    let dir = tempfile::tempdir().unwrap();
    let input = big_input(dir.path(), 30);
    let out = dir.path().join("o.jsonl");
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let clean = std::fs::read_to_string(&out).unwrap();
    // Rows 3 and 17 carry a failure (as a transient failure under --on-error skip leaves
    // them: null value, error recorded); row 5's other lines are edited in a way a re-score
    // would undo, so that copying (not re-scoring) the rows without failures is visible.
    let mut lines: Vec<String> = clean.lines().map(str::to_owned).collect();
    for i in [2, 16] {
        let mut v: serde_json::Value = serde_json::from_str(&lines[i]).unwrap();
        v["scores"]["rougeL"] = serde_json::Value::Null;
        v["errors"] = serde_json::json!([{"metric": "rougeL", "message": "metric `rougeL` failed: transient"}]);
        lines[i] = serde_json::to_string(&v).unwrap();
    }
    let mut v: serde_json::Value = serde_json::from_str(&lines[4]).unwrap();
    v["scores"]["fkgl"] = serde_json::json!(99.5);
    lines[4] = serde_json::to_string(&v).unwrap();
    let failed: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&out, &failed).unwrap();
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 of its 30 rows carry failures"), "{}", stderr(&o));
    let after = std::fs::read_to_string(&out).unwrap();
    for (i, (a, c)) in after.lines().zip(clean.lines()).enumerate() {
        match i {
            4 => assert_eq!(a, lines[4], "a row without failures is copied as written"),
            _ => assert_eq!(a, c, "row {}: the re-scored rows equal the uninterrupted run's", i + 1),
        }
    }
    assert_eq!(after.lines().count(), 30);
    assert!(!dir.path().join("o.jsonl.partial").exists());
    // Now complete: a second --resume has nothing to do.
    let o = run(&["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--resume"]);
    assert!(!o.status.success() && stderr(&o).contains("already complete and none of its 30 rows carries a failure"), "{}", stderr(&o));
    // Against a shorter or another input, the finished output is refused and left alone.
    std::fs::write(&out, &failed).unwrap();
    std::fs::create_dir(dir.path().join("short")).unwrap();
    let short = big_input(&dir.path().join("short"), 20);
    let o = run(&["score", short.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("the output has more rows than the input"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), failed, "a refused retry leaves the output as it was");
    let other = write(dir.path(), "other.jsonl", GOOD.as_bytes());
    let o = run(&["score", other.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--resume: input row 1 (id a) is not the row already written as row 1 (id r0)"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), failed);
    assert!(!dir.path().join("o.jsonl.partial").exists(), "a refused retry leaves no partial file");
}
