//! `factpico report` without a browser: the texts are the scored texts (or the report is
//! refused), outputs never overwrite inputs, skipped rows, field options, size growth.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

/// The run's provenance written beside a score file (`OUT.provenance.json`, output schema 3).
fn provenance_of(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(format!("{}.provenance.json", out.display())).unwrap()).unwrap()
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn run(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_factpico")).args(args).current_dir(cwd).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Scores `input` model-free; returns the score file.
fn score(dir: &Path, input: &Path, extra: &[&str]) -> PathBuf {
    let out = dir.join("scores.jsonl");
    let mut args = vec!["score", s(input), "-o", s(&out), "-q"];
    args.extend_from_slice(extra);
    let o = run(&args, dir);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

/// The JSON data blocks of a page: (id, value).
fn blocks(html: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for part in html.split("<script type=\"application/json\" id=\"").skip(1) {
        let (id, rest) = part.split_once("\">").unwrap();
        let (json, _) = rest.split_once("</script>").unwrap();
        out.push((id.to_owned(), serde_json::from_str(json).unwrap()));
    }
    out
}

#[test]
fn report_refuses_texts_that_were_not_scored() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures().join("pairs.jsonl");
    let scores = score(dir.path(), &input, &[]);
    let lines: Vec<String> = std::fs::read_to_string(&input).unwrap().lines().map(str::to_owned).collect();
    let html = dir.path().join("r.html");
    let variant = |name: &str, f: &dyn Fn(&mut Vec<Value>)| -> PathBuf {
        let mut rows: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        f(&mut rows);
        let p = dir.path().join(name);
        std::fs::write(&p, rows.iter().map(|r| r.to_string() + "\n").collect::<String>()).unwrap();
        p
    };
    let cases: Vec<(PathBuf, Vec<&str>, &str)> = vec![
        // One character of one summary changed since scoring.
        (variant("edited.jsonl", &|r| r[2]["summary"] = json!(r[2]["summary"].as_str().unwrap().replace('.', "!"))), vec![], "input row 3 (id fx03): its texts hash to input_sha256"),
        // Another id at the same row.
        (variant("ids.jsonl", &|r| r[4]["id"] = json!("other")), vec![], "input row 5 has id `other` but the score file has id `fx05`"),
        // Rows in another order.
        (variant("order.jsonl", &|r| r.swap(0, 1)), vec![], "input row 1 has id `fx02`"),
        // Fewer records than scored rows.
        (variant("short.jsonl", &|r| r.truncate(7)), vec![], "has only 7 of the 12 scored rows"),
        // The right file read with other field options: the abstract as the summary.
        (input.clone(), vec!["--summary-field", "source"], "its texts hash to input_sha256"),
    ];
    for (inp, extra, want) in cases {
        let mut args = vec!["report", s(&scores), "--input", s(&inp), "-o", s(&html)];
        args.extend_from_slice(&extra);
        let o = run(&args, dir.path());
        assert_eq!(o.status.code(), Some(2), "{}: {}", inp.display(), stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(want), "{}: {e}", inp.display());
        assert!(e.contains("pass the input file that was scored"), "{e}");
        assert!(!html.exists(), "no page is written when the texts do not match");
    }
    // The scored input passes, and every text in the page is the scored one.
    let o = run(&["report", s(&scores), "--input", s(&input), "-o", s(&html), "-q"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    let b = blocks(&page);
    let sources: Vec<&Value> = b.iter().filter(|(id, _)| id.starts_with("fp-s-")).map(|(_, v)| v).collect();
    assert_eq!(sources.len(), 6, "6 abstracts, each shared by two summaries, stored once");
    let want: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    for (i, w) in want.iter().enumerate() {
        let row = &b.iter().find(|(id, _)| *id == format!("fp-r-{i}")).unwrap().1;
        assert_eq!(row["sum"], w["summary"], "row {i}");
        assert_eq!(*sources[row["src"].as_u64().unwrap() as usize], w["source"], "row {i}");
    }
}

#[test]
fn report_without_input_has_scores_but_no_texts() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures().join("pairs.jsonl");
    let scores = score(dir.path(), &input, &[]);
    let o = run(&["report", s(&scores)], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("no --input"), "{}", stderr(&o));
    // Default output name beside the working directory.
    let page = std::fs::read_to_string(dir.path().join("scores.report.html")).unwrap();
    let b = blocks(&page);
    assert!(b.iter().all(|(id, _)| !id.starts_with("fp-s-")));
    assert!(b.iter().filter(|(id, _)| id.starts_with("fp-r-")).all(|(_, v)| v["sum"].is_null()));
    assert!(!page.contains("Researchers studied 240 adults"), "no summary text without --input");
    let index = &b.iter().find(|(id, _)| id == "fp-index").unwrap().1;
    assert_eq!(index["rows"].as_array().unwrap().len(), 12);
}

#[test]
fn report_never_overwrites_its_inputs_and_needs_aspects_with_ratings() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures().join("pairs.jsonl");
    let scores = score(dir.path(), &input, &[]);
    let before = std::fs::read(&scores).unwrap();
    let o = run(&["report", s(&scores), "-o", s(&scores)], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("would overwrite the score file"), "{}", stderr(&o));
    let o = run(&["report", s(&scores), "-o", s(dir.path())], dir.path());
    assert!(stderr(&o).contains("is a directory"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&scores).unwrap(), before);
    let ratings = fixtures().join("pairs.ratings.csv");
    let o = run(&["report", s(&scores), "--ratings", s(&ratings)], dir.path());
    assert!(stderr(&o).contains("--ratings needs --aspects"), "{}", stderr(&o));
    // Ratings whose ids do not join are the meta-evaluation's clear error.
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "id,avg\nzz1,1\nzz2,2\nzz3,3\n").unwrap();
    let o = run(&["report", s(&scores), "--ratings", s(&bad), "--aspects", "avg"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("meta-evaluation (--ratings)"), "{}", stderr(&o));
}

#[test]
fn skipped_rows_are_listed_without_texts_and_csv_field_options_are_honoured() {
    let dir = tempfile::tempdir().unwrap();
    // A CSV with other field names and one unreadable record (invalid UTF-8 in the summary).
    let mut csv = b"doc,abstract,plain,model\nd1,The drug lowered blood pressure.,Blood pressure went down.,gpt\n".to_vec();
    csv.extend_from_slice(b"d2,The drug worked.,bad \xff byte,gpt\nd3,Aspirin reduced pain.,Pain <b>fell</b>.,llama\n");
    let input = dir.path().join("in.csv");
    std::fs::write(&input, &csv).unwrap();
    let fields = ["--id-field", "doc", "--source-field", "abstract", "--summary-field", "plain", "--system-field", "model"];
    let mut extra = fields.to_vec();
    extra.extend_from_slice(&["--on-error", "skip"]);
    let scores = score(dir.path(), &input, &extra);
    let html = dir.path().join("r.html");
    // The score file records how the input was read (provenance.input, output schema 2; in
    // the provenance file beside the rows since schema 3): without field options the report
    // re-reads it the same way.
    let prov = provenance_of(&scores);
    assert_eq!(prov["input"]["fields"]["summary"], "plain", "{prov}");
    let o = run(&["report", s(&scores), "--input", s(&input), "-o", s(&html), "-q"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let from_record = std::fs::read_to_string(&html).unwrap();
    // Options given replace the recorded ones: the default field names do not read this CSV,
    // and swapped fields read texts that hash differently: both refused.
    let o = run(&["report", s(&scores), "--input", s(&input), "-o", s(&html), "--format", "csv"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("source field `source` is not in the header"), "{}", stderr(&o));
    let mut swapped: Vec<&str> = vec!["report", s(&scores), "--input", s(&input), "-o", s(&html)];
    swapped.extend_from_slice(&["--id-field", "doc", "--source-field", "plain", "--summary-field", "abstract", "--system-field", "model"]);
    let o = run(&swapped, dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("input_sha256"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&html).unwrap(), from_record, "a refused report leaves the page as it was");
    // The options given to score read it as the record does: the same page.
    let mut args = vec!["report", s(&scores), "--input", s(&input), "-o", s(&html), "-q"];
    args.extend_from_slice(&fields);
    let o = run(&args, dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&html).unwrap(), from_record);
    let b = blocks(&std::fs::read_to_string(&html).unwrap());
    let row = |i: usize| b.iter().find(|(id, _)| *id == format!("fp-r-{i}")).unwrap().1.clone();
    assert_eq!(row(0)["sum"], "Blood pressure went down.");
    assert!(row(1)["skipped"].as_str().unwrap().contains("not valid UTF-8"), "{}", row(1));
    assert!(row(1)["sum"].is_null());
    assert_eq!(row(2)["sum"], "Pain <b>fell</b>.");
    let index = &b.iter().find(|(id, _)| id == "fp-index").unwrap().1;
    assert_eq!(index["systems"], json!(["gpt", "llama"]));
    assert_eq!(index["rows"][1][4], json!(true), "skipped flag");
}

#[test]
fn page_size_grows_linearly_with_rows() {
    let dir = tempfile::tempdir().unwrap();
    let pairs: Vec<Value> =
        std::fs::read_to_string(fixtures().join("pairs.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut sizes = Vec::new();
    for n in [120usize, 240, 480] {
        let sub = dir.path().join(n.to_string());
        std::fs::create_dir_all(&sub).unwrap();
        // Distinct abstracts, so that no sharing hides growth.
        let text: String = (0..n)
            .map(|k| {
                let p = &pairs[k % pairs.len()];
                json!({"id": format!("r{k}"), "system": p["system"], "source": format!("{} ({k})", p["source"].as_str().unwrap()), "summary": p["summary"]}).to_string() + "\n"
            })
            .collect();
        let input = sub.join("in.jsonl");
        std::fs::write(&input, text).unwrap();
        let scores = score(&sub, &input, &[]);
        let html = sub.join("r.html");
        let o = run(&["report", s(&scores), "--input", s(&input), "-o", s(&html), "-q"], &sub);
        assert!(o.status.success(), "{}", stderr(&o));
        sizes.push(std::fs::metadata(&html).unwrap().len() as f64);
    }
    // Per-row growth is constant: doubling the rows adds the same bytes per row each time.
    let per_row_a = (sizes[1] - sizes[0]) / 120.0;
    let per_row_b = (sizes[2] - sizes[1]) / 240.0;
    eprintln!("page sizes {sizes:?}: {per_row_a:.0} and {per_row_b:.0} bytes per added row");
    assert!((per_row_a / per_row_b - 1.0).abs() < 0.05, "{per_row_a} vs {per_row_b}");
}

/// The overview's per-system table is the one `factpico score` printed, also where a metric
/// chooses its table columns at run time (QuestEval's composite `questeval` joins
/// `questeval_f1` only with a BERTScore model): the columns come from the rows' provenance
/// (`summary_columns`).
#[cfg(feature = "onnx")]
#[test]
fn per_system_table_has_the_columns_score_printed() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures().join("pairs.jsonl");
    let m = |name: &str| fixtures().join("models").join(name).display().to_string();
    let out = dir.path().join("scores.jsonl");
    let args = [
        "score", s(&input), "-o", s(&out), "-q", "--metrics", "rougeL,questeval",
        "--questeval-qg-model", &m("t5-tiny-qg"), "--questeval-qa-model", &m("t5-tiny-qa"),
        "--bertscore-model", &m("bertscore-tiny"), "--answers", "rules",
    ];
    let o = run(&args, dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let printed: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .next()
        .unwrap()
        .trim_matches('|')
        .split(" | ")
        .map(|c| c.trim().to_owned())
        .collect();
    assert_eq!(printed[2..5], ["rougeL (mean ± sd)", "questeval (mean ± sd)", "questeval_f1 (mean ± sd)"], "{printed:?}");
    assert_eq!(provenance_of(&out)["summary_columns"], json!(["rougeL", "questeval", "questeval_f1"]));
    let html = dir.path().join("r.html");
    let o = run(&["report", s(&out), "-o", s(&html), "-q"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    let table = page.split("id=\"fp-summary-table\"").nth(1).unwrap().split("</thead>").next().unwrap();
    let header: Vec<&str> = table.split("<th>").skip(1).map(|c| c.split("</th>").next().unwrap()).collect();
    assert_eq!(header, printed, "the page's per-system table header");
}

/// Above `--max-rows` the overview still counts every row (two streaming passes) while the
/// list holds the documented selection: the first max/2 rows, the worst-scoring rows of each
/// primary column per system and over all rows (ties: the earlier row), the rows with errors
/// or skipped; at or below it, every row (issue 23, class 11).
#[test]
fn above_max_rows_the_page_holds_a_documented_selection_and_counts_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let pairs: Vec<Value> =
        std::fs::read_to_string(fixtures().join("pairs.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let n = 60usize;
    let mut text = Vec::new();
    for k in 0..n - 1 {
        let p = &pairs[k % pairs.len()];
        // Distinct summaries, so that scores differ from row to row.
        let summary = format!("{} Row {k} adds {} words.", p["summary"].as_str().unwrap(), "more ".repeat(k % 7));
        text.extend_from_slice((json!({"id": format!("r{k}"), "system": p["system"], "source": p["source"], "summary": summary}).to_string() + "\n").as_bytes());
    }
    // The last record is unreadable (invalid UTF-8): skipped, so held as a failed row.
    text.extend_from_slice(b"{\"id\": \"bad\", \"system\": \"faithful\", \"source\": \"x\", \"summary\": \"\xff\"}\n");
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, &text).unwrap();
    let scores = score(dir.path(), &input, &["--on-error", "skip"]);
    let rows: Vec<Value> = std::fs::read_to_string(&scores).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), n);

    // The expected selection, computed here from the rows: max_rows 20 → first 10; budget 10
    // over 2 primary columns × (2 systems + all) → 1 worst row per group.
    let mut expected: std::collections::BTreeSet<usize> = (0..10).collect();
    for (col, higher_is_better) in [("rougeL", true), ("delta_fkgl", false)] {
        for system in [None, Some("faithful"), Some("unfaithful")] {
            let worst = rows
                .iter()
                .enumerate()
                .filter(|(_, r)| system.is_none_or(|s| r["system"] == s))
                .filter_map(|(k, r)| r["scores"][col].as_f64().map(|v| (if higher_is_better { -v } else { v }, k)))
                .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
                .unwrap();
            expected.insert(worst.1);
        }
    }
    expected.insert(n - 1);
    let expected_ids: Vec<String> = expected.iter().map(|&k| rows[k]["id"].as_str().unwrap_or("").to_owned()).collect();

    let html = dir.path().join("r.html");
    let o = run(&["report", s(&scores), "--input", s(&input), "-o", s(&html), "--max-rows", "20"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("60 rows; the list holds {} of them", expected.len())), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    let b = blocks(&page);
    let index = &b.iter().find(|(id, _)| id == "fp-index").unwrap().1;
    let held: Vec<String> = index["rows"].as_array().unwrap().iter().map(|r| r[1].as_str().unwrap().to_owned()).collect();
    assert_eq!(held, expected_ids, "held rows");
    // Every held row is openable, with its scored text.
    for (i, &k) in expected.iter().enumerate() {
        let row = &b.iter().find(|(id, _)| *id == format!("fp-r-{i}")).unwrap().1;
        if k < n - 1 {
            let want: Value = serde_json::from_slice(text.split(|&c| c == b'\n').nth(k).unwrap()).unwrap();
            assert_eq!(row["sum"], want["summary"], "row {k}");
        } else {
            assert!(row["skipped"].is_string(), "{row}");
        }
    }
    assert!(page.contains("This file has 60 rows, more than --max-rows 20."), "the page says what it holds");
    // The overview counts every row: the (all) line of the table and the histogram strips.
    let table = page.split("id=\"fp-summary-table\"").nth(1).unwrap().split("</table>").next().unwrap();
    assert!(table.contains("<td>(all)</td><td class=\"fp-num\">60</td>"), "{table}");
    assert!(page.contains("(all) · n = 59"), "histogram over every scored row");

    // The default (10,000) holds every row, and the page says nothing about a selection.
    let o = run(&["report", s(&scores), "--input", s(&input), "-o", s(&html), "-q"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    let index = &blocks(&page).into_iter().find(|(id, _)| id == "fp-index").unwrap().1;
    assert_eq!(index["rows"].as_array().unwrap().len(), n);
    assert!(!page.contains("fp-selection"));
    let o = run(&["report", s(&scores), "-o", s(&html), "--max-rows", "1"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
