//! Regression tests of issue 10 (robustness): no input, output path, concurrent run or
//! oversized text may destroy data, lose rows silently or abort a run. One test (or more)
//! per defect, named `dNN_...` after the defect's number in the issue.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::path::Path;

use support::{big_input, bin, rows, run, s, stderr, write, GOOD};

fn is_symlink(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

/// Defect 1: an existing `OUT.partial` (or `CSV.partial`) that is a symlink or a hard link to
/// another file was opened and truncated in place, wiping that file. Whatever is there, the
/// file it points to must stay byte-identical, and the final output must be a regular file.
#[test]
fn d01_links_at_the_partial_path_are_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = write(d, "in.jsonl", format!("{GOOD}\n").as_bytes());
    let victim = write(d, "victim.txt", b"precious data\n");
    let before_in = std::fs::read(&input).unwrap();
    let cases: [(&str, &Path, bool); 4] =
        [("sym-in", &input, true), ("sym-victim", &victim, true), ("hard-in", &input, false), ("hard-victim", &victim, false)];
    for (name, target, symbolic) in cases {
        let out = d.join(format!("{name}.jsonl"));
        let partial = d.join(format!("{name}.jsonl.partial"));
        if symbolic {
            std::os::unix::fs::symlink(target, &partial).unwrap();
        } else {
            std::fs::hard_link(target, &partial).unwrap();
        }
        let o = run(&["score", s(&input), "-o", s(&out), "-q"]);
        assert_eq!(std::fs::read(&input).unwrap(), before_in, "{name}: the input was written through {}", partial.display());
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious data\n", "{name}: a linked file was overwritten");
        assert!(!is_symlink(&out), "{name}: the output became the link");
        if o.status.success() {
            assert_eq!(rows(&out).len(), 1, "{name}");
        } else {
            assert!(stderr(&o).contains(partial.file_name().unwrap().to_str().unwrap()), "{name}: {}", stderr(&o));
        }
        // --resume must not write through it either.
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(&partial);
        if symbolic {
            std::os::unix::fs::symlink(target, &partial).unwrap();
        } else {
            std::fs::hard_link(target, &partial).unwrap();
        }
        let o = run(&["score", s(&input), "-o", s(&out), "-q", "--resume"]);
        assert_eq!(o.status.code(), Some(2), "{name}: --resume onto a link must be refused");
        assert_eq!(std::fs::read(&input).unwrap(), before_in, "{name}: --resume wrote through the link");
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious data\n", "{name}: --resume wrote through the link");
        let _ = std::fs::remove_file(&partial);
    }
    // The same through --csv X / X.partial.
    let csv = d.join("x.csv");
    std::os::unix::fs::symlink(&victim, d.join("x.csv.partial")).unwrap();
    let o = run(&["score", s(&input), "-o", s(&d.join("c.jsonl")), "--csv", s(&csv), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious data\n", "--csv wrote through x.csv.partial");
    assert!(!is_symlink(&csv) && std::fs::read_to_string(&csv).unwrap().starts_with("row,id"));
}

/// Defect 2: two runs with the same `-o` corrupted each other and both reported success.
/// While one run writes an output, a second run onto the same output is refused; the first
/// completes with exactly the rows an undisturbed run writes.
#[test]
fn d02_a_second_run_onto_a_live_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = big_input(dir.path(), 4000);
    let reference = dir.path().join("ref.jsonl");
    let o = run(&["score", s(&input), "-o", s(&reference), "-q", "--block-size", "16"]);
    assert!(o.status.success(), "{}", stderr(&o));

    let out = dir.path().join("o.jsonl");
    let partial = dir.path().join("o.jsonl.partial");
    let args = ["score", s(&input), "-o", s(&out), "-q", "--block-size", "16", "--jobs", "1"];
    let mut first = bin().args(args).spawn().unwrap();
    let start = std::time::Instant::now();
    while !std::fs::read(&partial).is_ok_and(|b| b.contains(&b'\n')) {
        assert!(first.try_wait().unwrap().is_none(), "the first run finished before the second started; enlarge the input");
        assert!(start.elapsed().as_secs() < 120, "no progress");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    // The first run has written one block of 4000 rows: it is alive for seconds more.
    let still_running = first.try_wait().unwrap().is_none();
    let second = run(&args);
    let first_status = first.wait().unwrap();
    assert!(first_status.success());
    if still_running {
        assert_eq!(second.status.code(), Some(2), "a second run onto a live output must be refused: {}", stderr(&second));
        assert!(stderr(&second).contains("another factpico run"), "{}", stderr(&second));
    }
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&reference).unwrap(), "the output differs from an undisturbed run");
    // --resume onto a live output is refused the same way.
    let mut first = bin().args(args).spawn().unwrap();
    while !std::fs::read(&partial).is_ok_and(|b| b.contains(&b'\n')) {
        assert!(first.try_wait().unwrap().is_none(), "the first run finished too early");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let mut resume_args = args.to_vec();
    resume_args.push("--resume");
    let still_running = first.try_wait().unwrap().is_none();
    let second = run(&resume_args);
    assert!(first.wait().unwrap().success());
    if still_running {
        assert_eq!(second.status.code(), Some(2), "--resume onto a live output must be refused: {}", stderr(&second));
    }
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&reference).unwrap(), "the output differs from an undisturbed run");
}

/// `sha256(source ‖ 0x00 ‖ summary)`, first 16 hex digits: the row's `input_sha256`.
fn text_hash(source: &str, summary: &str) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(source.as_bytes());
    h.update([0u8]);
    h.update(summary.as_bytes());
    hex::encode(&h.finalize()[..8])
}

/// Defect 3: a CSV quote that is never closed swallowed the rest of the file (exit 0 under
/// `--on-error fail`); a stray quote mid-file merged records silently.
#[test]
fn d03_csv_unterminated_or_stray_quotes_are_reported_not_swallowed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Never closed: the rest of the file would become one summary.
    let input = write(d, "open.csv", b"id,source,summary\n1,\"It worked,x\n2,foo bar,baz\n3,qux quux,corge\n");
    let out = d.join("open.jsonl");
    for mode in ["fail", "skip"] {
        let o = run(&["score", s(&input), "-o", s(&out), "-q", "--on-error", mode]);
        assert_eq!(o.status.code(), Some(2), "{mode}: a quote that swallows the rest of the file must fail the run: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("line 2") && e.contains("quote") && e.contains("never closed"), "{mode}: {e}");
        assert!(!out.exists(), "{mode}: the output must not look complete");
    }
    // Closed later by a quote that starts another field: lines 2-4 would merge into one record.
    let input = write(d, "stray.csv", b"id,source,summary\n1,\"It worked,x\n2,foo bar,baz\n3,\"qux\",quux\n4,Aspirin reduced pain.,Aspirin helped.\n");
    let out = d.join("stray.jsonl");
    let o = run(&["score", s(&input), "-o", s(&out), "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("lines 2-4"), "{}", stderr(&o));
    let o = run(&["score", s(&input), "-o", s(&out), "--on-error", "skip"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rs = rows(&out);
    assert!(rs[0]["skipped"].as_str().unwrap().contains("lines 2-4"), "{}", rs[0]);
    assert_eq!(rs.last().unwrap()["id"], "4");
    assert!(stderr(&o).contains("skipped"), "the loss is visible on stderr: {}", stderr(&o));
}

/// Defect 4: TSV was parsed with CSV quoting: quotes vanished from texts and a quote spanning
/// lines merged rows. TSV keeps quotes literally unless `--tsv-quotes` asks for CSV quoting.
#[test]
fn d04_tsv_keeps_quotes_literally() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = write(
        d,
        "in.tsv",
        b"id\tsource\tsummary\n1\t\"It worked\" he said.\tIt worked.\n2\t\"An open quote\tand more\n3\tAspirin reduced pain.\tAspirin helped.\n",
    );
    let out = d.join("o.jsonl");
    let o = run(&["score", s(&input), "-o", s(&out), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rs = rows(&out);
    assert_eq!(rs.len(), 3, "one row per line");
    assert_eq!(rs[0]["input_sha256"], text_hash("\"It worked\" he said.", "It worked."));
    assert_eq!(rs[1]["input_sha256"], text_hash("\"An open quote", "and more"));
    assert_eq!(rs[2]["id"], "3");
    // Opt-in CSV-style quoting for TSV files written that way.
    let quoted = write(d, "q.tsv", b"id\tsource\tsummary\n1\t\"Two\nlines\"\t\"said \"\"hi\"\"\"\n");
    let o = run(&["score", s(&quoted), "-o", s(&out), "-q", "--tsv-quotes"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&out)[0]["input_sha256"], text_hash("Two\nlines", "said \"hi\""));
}

/// Defect 5: a malformed JSON-array element with `--on-error skip` dropped the rest of the
/// file, exited 0 and renamed the output as complete.
#[test]
fn d05_json_array_syntax_error_never_looks_complete() {
    let dir = tempfile::tempdir().unwrap();
    let good_b = GOOD.replace("\"a\"", "\"b\"");
    let good_c = GOOD.replace("\"a\"", "\"c\"");
    let input = write(dir.path(), "in.json", format!("[{GOOD},\n{{\"id\": \"x\", \"source\": }},\n{good_b},\n{good_c}]").as_bytes());
    let out = dir.path().join("o.jsonl");
    let o = run(&["score", s(&input), "-o", s(&out), "-q", "--on-error", "skip"]);
    assert_ne!(o.status.code(), Some(0), "rows after the syntax error are lost: the run must not succeed");
    assert!(!out.exists(), "the output must not be renamed as complete");
    let e = stderr(&o);
    assert!(e.contains("element 2") && e.contains("cannot be read"), "{e}");
    assert!(e.contains("1 rows before it are kept"), "{e}");
}

/// Defect 12: duplicate header names were not flagged (the first column won; Python's
/// `DictReader` takes the last).
#[test]
fn d12_duplicate_header_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("dup.csv", "id,source,summary,summary\n1,Aspirin reduced pain.,Aspirin helped.,Other.\n"),
        ("dup.tsv", "id\tsource\tsummary\tsource\n1\tAspirin reduced pain.\tAspirin helped.\tOther.\n"),
        ("dupid.csv", "id,source,summary,id\n1,Aspirin reduced pain.,Aspirin helped.,2\n"),
    ] {
        let input = write(dir.path(), name, text.as_bytes());
        let out = dir.path().join("o.jsonl");
        let o = run(&["score", s(&input), "-o", s(&out), "-q"]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains("more than once"), "{name}: {}", stderr(&o));
        assert!(!out.exists());
    }
}

/// Defect 13: CSV with CRLF line endings reported error line numbers one too low.
#[test]
fn d13_crlf_csv_errors_name_the_right_line() {
    let dir = tempfile::tempdir().unwrap();
    for (name, eol) in [("crlf.csv", "\r\n"), ("lf.csv", "\n"), ("cr.csv", "\r")] {
        let mut bytes = format!("id,source,summary{eol}a,Aspirin reduced pain.,Aspirin helped.{eol}").into_bytes();
        bytes.extend_from_slice(b"b,Aspirin reduced pain.,caf\xe9 helped");
        bytes.extend_from_slice(eol.as_bytes());
        bytes.extend_from_slice(format!("c,Aspirin reduced pain.,Aspirin helped.{eol}d,x{eol}").as_bytes());
        let input = write(dir.path(), name, &bytes);
        let out = dir.path().join("o.jsonl");
        let o = run(&["score", s(&input), "-o", s(&out), "-q"]);
        assert!(stderr(&o).contains("(line 3)"), "{name}: {}", stderr(&o));
        let o = run(&["score", s(&input), "-o", s(&out), "-q", "--on-error", "skip"]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let rs = rows(&out);
        assert!(rs[1]["skipped"].as_str().unwrap().contains("(line 3)"), "{name}: {}", rs[1]);
        assert!(rs[3]["skipped"].as_str().unwrap().contains("(line 5)"), "{name}: {}", rs[3]);
    }
}

/// Defect 6: `-o` could overwrite inputs other than the data file: `--arcs p.conllu -o
/// p.conllu`, or `-o MODEL/model.onnx` with that model. Every path the run reads is protected.
#[test]
fn d06_outputs_never_overwrite_side_inputs_or_model_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = write(d, "in.jsonl", format!("{GOOD}\n").as_bytes());
    let arcs = write(d, "p.conllu", b"# newdoc id = a\n1\tAspirin\t_\t_\t_\t_\t0\troot\t_\t_\n\n");
    let arcs_before = std::fs::read(&arcs).unwrap();
    std::fs::hard_link(&arcs, d.join("hard.conllu")).unwrap();
    std::fs::create_dir(d.join("model")).unwrap();
    let model_file = write(&d.join("model"), "model.onnx", b"not really a model");
    for (extra, out, what) in [
        (vec!["--metrics", "rougeL", "--arcs", s(&arcs)], arcs.clone(), "p.conllu"),
        (vec!["--metrics", "rougeL", "--arcs", s(&arcs)], d.join("hard.conllu"), "p.conllu"),
        (vec!["--metrics", "dae", "--arcs", s(&arcs), "--parser", "conllu"], d.join("./model/../p.conllu"), "p.conllu"),
        (vec!["--metrics", "rougeL", "--alignscore-model", s(&d.join("model"))], model_file.clone(), "model"),
        (vec!["--metrics", "alignscore", "--alignscore-model", s(&d.join("model"))], d.join("model/new.jsonl"), "model"),
    ] {
        for flag in ["-o", "--csv", "--summary"] {
            let mut args = vec!["score", s(&input), "-q"];
            let default_out = d.join("o.jsonl");
            if flag != "-o" {
                args.extend_from_slice(&["-o", s(&default_out)]);
            }
            args.extend_from_slice(&[flag, s(&out)]);
            args.extend_from_slice(&extra);
            let o = run(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            let e = stderr(&o);
            assert!(e.contains("would") && e.contains(what), "{args:?}: {e}");
            assert_eq!(std::fs::read(&arcs).unwrap(), arcs_before, "{args:?}: the arcs file was overwritten");
            assert_eq!(std::fs::read(&model_file).unwrap(), b"not really a model", "{args:?}: the model was overwritten");
        }
    }
}

/// The first `n` lines of a finished output, written back as the partial file of an
/// interrupted run (and the finished output removed).
fn make_partial(out: &Path, n: usize) {
    let text: String = std::fs::read_to_string(out).unwrap().lines().take(n).map(|l| format!("{l}\n")).collect();
    std::fs::write(factpico_io::partial_path(out), text).unwrap();
    std::fs::remove_file(out).unwrap();
}

/// Defect 9: `--resume` ignored the system field (a changed `--system-field` or changed
/// system values were mixed into one output) and the contents of the `--arcs` file
/// (provenance recorded its path only). Schema version 2 records what determines the output:
/// `provenance.input` (format, field mapping, id derivation, side inputs with sha256).
#[test]
fn d09_resume_compares_the_system_field_and_side_input_contents() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lines: Vec<String> = (0..6)
        .map(|i| format!(r#"{{"id":"r{i}","source":"Aspirin reduced pain in {i} adults.","summary":"Aspirin helped.","system":"A","model":"B"}}"#))
        .collect();
    let input = write(d, "in.jsonl", (lines.join("\n") + "\n").as_bytes());
    let arcs = write(d, "p.conllu", b"# newdoc id = r0\n1\tAspirin\t_\t_\t_\t_\t0\troot\t_\t_\n\n");
    let out = d.join("o.jsonl");
    let base = ["score", s(&input), "-o", s(&out), "-q", "--metrics", "rougeL", "--arcs", s(&arcs)];
    let o = run(&base);
    assert!(o.status.success(), "{}", stderr(&o));
    // Schema 2: what determines the output is recorded (once, beside the rows, in schema 3).
    let prov = &support::provenance(&out);
    assert_eq!(prov["schema_version"], 3);
    assert_eq!(prov["input"]["format"], "jsonl");
    assert_eq!(prov["input"]["fields"]["system"], "system");
    assert_eq!(prov["input"]["fields"]["source"], "source");
    assert!(prov["input"]["derive_id"].is_null());
    let side = &prov["input"]["side_inputs"];
    let (name, arcs_entry) = side.as_object().unwrap().iter().next().expect("--arcs is a side input");
    assert!(name.contains("arcs"), "{name}");
    use sha2::Digest;
    assert_eq!(arcs_entry["sha256"], hex::encode(sha2::Sha256::digest(std::fs::read(&arcs).unwrap())));

    // A changed --system-field is refused.
    make_partial(&out, 3);
    let mut args = base.to_vec();
    args.extend_from_slice(&["--resume", "--system-field", "model"]);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("system"), "{}", stderr(&o));
    // Changed system values (same ids and texts) are refused.
    std::fs::write(&input, lines.iter().map(|l| l.replace(r#""system":"A""#, r#""system":"C""#) + "\n").collect::<String>()).unwrap();
    let mut args = base.to_vec();
    args.push("--resume");
    let o = run(&args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("system"), "{}", stderr(&o));
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    // An edited --arcs file (same path) is refused.
    std::fs::write(&arcs, b"# newdoc id = r0\n1\tAspirin\t_\t_\t_\t_\t0\tdep\t_\t_\n\n").unwrap();
    let o = run(&args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("sha256"), "{}", stderr(&o));
}

/// The partial file of a version-1 or version-2 run (rows carrying their provenance) cannot
/// be continued by a version-3 factpico: `--resume` names both schema versions; `diff` and
/// `report` still read such files.
#[test]
fn v3_resume_refuses_schema_1_and_2_rows_diff_and_report_read_them() {
    let dir = tempfile::tempdir().unwrap();
    let input = big_input(dir.path(), 10);
    let out = dir.path().join("o.jsonl");
    let o = run(&["score", s(&input), "-o", s(&out), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let prov = support::provenance(&out);
    let new_rows = std::fs::read_to_string(&out).unwrap();
    for version in [1, 2] {
        // What schema `version` wrote: each row with the provenance, no `run`.
        let old: String = rows(&out)
            .into_iter()
            .map(|mut r| {
                r.as_object_mut().unwrap().remove("run");
                r["provenance"] = prov.clone();
                r["provenance"]["schema_version"] = version.into();
                if version == 1 {
                    r["provenance"].as_object_mut().unwrap().remove("input");
                }
                format!("{r}\n")
            })
            .collect();
        let old_file = write(dir.path(), &format!("v{version}.jsonl"), old.as_bytes());
        // diff compares it with the schema-3 file: same scores.
        let o = run(&["diff", s(&old_file), s(&out)]);
        assert_eq!(o.status.code(), Some(0), "v{version}: {}", stderr(&o));
        let html = dir.path().join(format!("v{version}.html"));
        let o = run(&["report", s(&old_file), "--input", s(&input), "-o", s(&html), "-q"]);
        assert!(o.status.success(), "v{version}: {}", stderr(&o));
        assert!(std::fs::read_to_string(&html).unwrap().contains(prov["engine"].as_str().unwrap()));
        // --resume refuses it, naming both versions.
        std::fs::write(factpico_io::partial_path(&out), old.lines().take(4).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        std::fs::remove_file(&out).unwrap();
        let o = run(&["score", s(&input), "-o", s(&out), "-q", "--resume"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(&format!("schema version {version}")) && e.contains("writes version 3"), "{e}");
        std::fs::remove_file(factpico_io::partial_path(&out)).unwrap();
        std::fs::write(&out, &new_rows).unwrap();
    }
}

/// Scores and ratings for meta-eval tests: 6 systems' rows with two aspects named `a/b` and
/// `a_b` (which used to map to one plot file name).
fn meta_eval_files(d: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut scores = String::new();
    let mut ratings = String::from("id,system,a/b,a_b\n");
    for i in 0..12 {
        let sys = format!("s{}", i % 4);
        let id = format!("d{}", i / 4);
        scores.push_str(&format!("{{\"id\":\"{id}\",\"system\":\"{sys}\",\"scores\":{{\"rougeL\":{}}}}}\n", (i * 7 % 11) as f64 / 11.0));
        ratings.push_str(&format!("{id},{sys},{},{}\n", 1 + i % 4, 1 + (i * 3) % 4));
    }
    (write(d, "scores.jsonl", scores.as_bytes()), write(d, "ratings.csv", ratings.as_bytes()))
}

/// Defect 11: meta-eval plot names collided (`a/b` and `a_b` both became `scatter_a_b.*`; the
/// second silently overwrote the first).
#[test]
fn d11_meta_eval_plot_names_never_collide() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, ratings) = meta_eval_files(dir.path());
    let plots = dir.path().join("plots");
    let o = run(&[
        "meta-eval", "--scores", s(&scores), "--ratings", s(&ratings), "--aspects", "a/b,a_b", "--metrics", "rougeL",
        "--plots", s(&plots), "--plot-format", "svg", "--level", "instance",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut names: Vec<String> =
        std::fs::read_dir(&plots).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names.len(), 4, "two aspects, scatter + distribution each: {names:?}");
    let err = stderr(&o);
    let wrote: Vec<&str> = err.lines().filter(|l| l.starts_with("wrote ")).collect();
    let unique: std::collections::BTreeSet<&&str> = wrote.iter().collect();
    assert_eq!(unique.len(), wrote.len(), "a file was written twice: {wrote:?}");
}

/// Defect 14a: meta-eval called a duplicate "rows 1 and 1" (the JSON `row` field); it names
/// the file lines.
#[test]
fn d14_meta_eval_duplicate_names_file_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, ratings) = meta_eval_files(dir.path());
    // Two score files concatenated: the second's rows restart at row 1.
    let text = std::fs::read_to_string(&scores).unwrap();
    let first = text.lines().next().unwrap().replace('{', r#"{"row":1,"#);
    let doubled = format!("{first}\n{}{first}\n", text.lines().skip(1).map(|l| format!("{l}\n")).collect::<String>());
    std::fs::write(&scores, doubled).unwrap();
    let o = run(&["meta-eval", "--scores", s(&scores), "--ratings", s(&ratings), "--aspects", "a_b", "--metrics", "rougeL"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("lines 1 and 13"), "{}", stderr(&o));
}

/// Runs `factpico` with standard output going to `/dev/full`.
fn run_to_full_stdout(args: &[&str]) -> std::process::Output {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    bin().args(args).stdout(full).output().unwrap()
}

/// Defect 14b/c: a full disk gave a bare "No space left on device" without the file; a failed
/// standard output after "wrote 12 rows" did not say that standard output failed.
#[test]
fn d14_write_failures_name_the_file_or_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = big_input(dir.path(), 300);
    let out = dir.path().join("o.jsonl");
    // The per-system table goes to standard output after the rows were written.
    let o = run_to_full_stdout(&["score", s(&input), "-o", s(&out), "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("standard output"), "{}", stderr(&o));
    // Rows to standard output.
    let o = run_to_full_stdout(&["score", s(&input), "-o", "-", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("standard output"), "{}", stderr(&o));
    // A file that cannot grow (RLIMIT_FSIZE, SIGXFSZ ignored: writes fail with EFBIG, as on a
    // full disk): the error names the file; --resume then completes the run.
    let out = dir.path().join("f.jsonl");
    let o = std::process::Command::new("sh")
        .args(["-c", "trap '' XFSZ; ulimit -f 100; exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_factpico"))
        .args(["score", s(&input), "-o", s(&out), "-q", "--block-size", "8"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("f.jsonl.partial"), "the error names the file: {}", stderr(&o));
    let o = run(&["score", s(&input), "-o", s(&out), "-q", "--resume", "--block-size", "8"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&out).len(), 300);
}

/// Defect 15: rows without a system were missing from the per-system table (they counted in
/// "(all)" only); they get their own line.
#[test]
fn d15_rows_without_a_system_have_their_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let with = GOOD.replace(r#""id":"a""#, r#""id":"b","system":"gpt""#);
    let input = write(dir.path(), "in.jsonl", format!("{GOOD}\n{with}\n{GOOD}\n").as_bytes());
    let out = dir.path().join("o.jsonl");
    let table = dir.path().join("t.md");
    let o = run(&["score", s(&input), "-o", s(&out), "-q", "--summary", s(&table)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = std::fs::read_to_string(&table).unwrap();
    assert!(t.contains("| gpt | 1 |"), "{t}");
    assert!(t.contains("| (no system) | 2 |"), "{t}");
    assert!(t.contains("| (all) | 3 |"), "{t}");
}

/// Defect 7: ROUGE-Lsum's LCS table grows with the product of the two sentence lengths; a
/// 170k + 170k-word pair aborted the process (a failed 115 GB allocation) and the block's other
/// rows were lost. Above a stated size the Lsum columns are a documented null; ROUGE-L (linear
/// memory) is still computed; the other rows are scored.
#[test]
fn d07_oversized_rouge_lsum_pair_is_a_documented_null() {
    let dir = tempfile::tempdir().unwrap();
    let vocab: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
    let long = |seed: usize| (0..170_000).map(|i| vocab[(i * 7 + seed) % vocab.len()].as_str()).collect::<Vec<_>>().join(" ");
    let big = serde_json::json!({"id": "big", "source": long(0), "summary": long(3)});
    let b = GOOD.replace("\"a\"", "\"b\"");
    let input = write(dir.path(), "in.jsonl", format!("{GOOD}\n{big}\n{b}\n").as_bytes());
    let out = dir.path().join("o.jsonl");
    let o = run(&["score", s(&input), "-o", s(&out), "-q", "--metrics", "rougeL"]);
    assert!(o.status.success(), "the run must complete: {:?} {}", o.status, stderr(&o));
    let rs = rows(&out);
    assert_eq!(rs.len(), 3);
    assert!(rs[0]["scores"]["rougeLsum"].is_number() && rs[2]["scores"]["rougeLsum"].is_number());
    let big = &rs[1];
    assert!(big["scores"]["rougeL"].is_number(), "ROUGE-L is linear in memory: {}", big["scores"]);
    for col in ["rougeLsum", "rougeLsum_precision", "rougeLsum_recall"] {
        assert!(big["scores"][col].is_null(), "{col}: {}", big["scores"]);
        let why = big["nulls"][col].as_str().unwrap();
        assert!(why.contains("cells"), "{col}: {why}");
    }
}

/// Defect 10: identical non-Latin texts scored `rougeL` 0.0 without a warning (rouge-score's
/// tokenizer drops everything outside [a-z0-9]). The reference value is kept; a warning says
/// that most characters were dropped.
#[test]
fn d10_rouge_warns_when_most_characters_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let ja = serde_json::json!({"id": "ja", "source": "患者は毎日薬を服用した。痛みが減った。", "summary": "患者は毎日薬を服用した。痛みが減った。"});
    let el = serde_json::json!({"id": "el", "source": "Οι ασθενείς έλαβαν ασπιρίνη 40 mg.", "summary": "Οι ασθενείς έλαβαν ασπιρίνη."});
    let input = write(dir.path(), "in.jsonl", format!("{ja}\n{el}\n{GOOD}\n").as_bytes());
    let out = dir.path().join("o.jsonl");
    let o = run(&["score", s(&input), "-o", s(&out), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rs = rows(&out);
    let rouge_warnings = |r: &serde_json::Value| -> Vec<String> {
        r["warnings"].as_array().map_or(Vec::new(), |w| {
            w.iter().filter(|x| x["metric"] == "rougeL").map(|x| x["message"].as_str().unwrap().to_owned()).collect()
        })
    };
    assert_eq!(rs[0]["scores"]["rougeL"], 0.0, "the reference value is kept");
    for r in &rs[..2] {
        let w = rouge_warnings(r);
        assert!(w.iter().any(|m| m.contains("dropped")), "{}: {w:?}", r["id"]);
    }
    assert!(rouge_warnings(&rs[2]).is_empty(), "English text: no warning");
}

/// Defect 16: a column that depends on one text was nulled when the other text was empty.
/// `fkgl_summary` / `fre_summary` are defined when the abstract is empty (and the source-side
/// columns when the summary is empty); only columns that need both texts are documented nulls.
#[test]
fn d16_single_text_columns_survive_an_empty_other_text() {
    let dir = tempfile::tempdir().unwrap();
    let src = "Aspirin reduced pain in 40 adults with arthritis over twelve weeks.";
    let sum = "Aspirin helped adults with pain.";
    let rows_in = [
        serde_json::json!({"id": "full", "source": src, "summary": sum}),
        serde_json::json!({"id": "no_src", "source": " ", "summary": sum}),
        serde_json::json!({"id": "no_sum", "source": src, "summary": ""}),
        serde_json::json!({"id": "punct_sum", "source": src, "summary": "?!"}),
        serde_json::json!({"id": "none", "source": "", "summary": ""}),
    ];
    let text: String = rows_in.iter().map(|r| format!("{r}\n")).collect();
    let input = write(dir.path(), "in.jsonl", text.as_bytes());
    let out = dir.path().join("o.jsonl");
    let o = run(&["score", s(&input), "-o", s(&out), "-q", "--metrics", "rougeL,fkgl,fre"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rs = rows(&out);
    let (full, no_src, no_sum, punct, none) = (&rs[0], &rs[1], &rs[2], &rs[3], &rs[4]);
    for col in ["fkgl_summary", "fre_summary"] {
        assert_eq!(no_src["scores"][col], full["scores"][col], "no_src {col}: {}", no_src["scores"]);
    }
    for col in ["fkgl_source", "fre_source"] {
        assert_eq!(no_sum["scores"][col], full["scores"][col], "no_sum {col}");
        assert_eq!(punct["scores"][col], full["scores"][col], "punct {col}");
    }
    for (r, side, reason) in [(no_src, "source", "empty source"), (no_sum, "summary", "empty summary"), (punct, "summary", "summary has no words")] {
        for col in ["rougeL", "rougeLsum", "delta_fkgl", "delta_fre", &format!("fkgl_{side}"), &format!("fre_{side}")] {
            assert!(r["scores"][col].is_null(), "{} {col}", r["id"]);
            assert_eq!(r["nulls"][col], reason, "{} {col}", r["id"]);
        }
    }
    assert!(none["scores"].as_object().unwrap().values().all(serde_json::Value::is_null));
}

/// A standard output whose reader is already gone (as after `| head -1`): every write to it
/// fails with a broken pipe.
fn closed_stdout() -> std::process::Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer.into()
}

/// `--explain` printed with `print!`, which panics when standard output is closed
/// (`factpico score in.jsonl -o out.jsonl --explain | head -1`). The explanations stop, the
/// scoring goes on and the output is complete; no panic.
#[test]
fn explain_on_a_closed_stdout_stops_explaining_and_finishes_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = big_input(dir.path(), 20);
    let out = dir.path().join("o.jsonl");
    let o = bin()
        .args(["score", s(&input), "-o", s(&out), "-q", "--explain"])
        .stdout(closed_stdout())
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert!(o.status.success(), "{err}");
    assert_eq!(rows(&out).len(), 20);
    assert!(err.contains("standard output was closed"), "the user is told: {err}");
    // The per-system table, meant for standard output, is not lost: it goes to standard error.
    assert!(err.contains("| system | rows |") && err.contains("(all)"), "{err}");
}

/// The listing commands on a closed standard output end quietly (as `ls | head` does), and
/// `diff` keeps its drift exit code; none panics.
#[test]
fn listings_on_a_closed_stdout_do_not_panic() {
    let o = bin().args(["metrics"]).stdout(closed_stdout()).output().unwrap();
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    assert!(o.status.success(), "{}", stderr(&o));

    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.jsonl", br#"{"id":"x","scores":{"rougeL":0.5},"provenance":{"schema_version":2}}
"#);
    let b = write(dir.path(), "b.jsonl", br#"{"id":"x","scores":{"rougeL":0.7},"provenance":{"schema_version":2}}
"#);
    let o = bin().args(["diff", s(&a), s(&b)]).stdout(closed_stdout()).output().unwrap();
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    assert_eq!(o.status.code(), Some(1), "drift is still reported by the exit code: {}", stderr(&o));
}

/// Defect 8, the option it asked for: the spaCy sidecar's start-up timeout (120 s by default)
/// is a user setting, `--sidecar-startup-timeout SECS` or `FACTPICO_SIDECAR_STARTUP_TIMEOUT`,
/// so that a sidecar that never becomes ready fails the run in seconds, saying how long it
/// waited; a value that is not a positive number of seconds is refused.
#[cfg(feature = "dae")]
#[test]
fn d08_sidecar_startup_timeout_is_a_user_option() {
    use std::os::unix::fs::PermissionsExt;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("python");
    std::fs::write(&fake, "#!/bin/sh\nexec sleep 300\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let model = support::fixtures().join("models/dae-tiny");
    let input = support::fixtures().join("pairs.jsonl");
    let out = dir.path().join("o.jsonl");
    let base = ["score", s(&input), "-q", "--metrics", "dae", "--dae-model", s(&model), "-o", s(&out)];
    for (how, flag, env) in [("flag", Some("1.5"), None), ("environment", None, Some("1.5"))] {
        let mut cmd = bin();
        cmd.args(base).env("FACTPICO_SIDECAR_PYTHON", &fake).env_remove("FACTPICO_SIDECAR_STARTUP_TIMEOUT");
        if let Some(v) = flag {
            cmd.args(["--sidecar-startup-timeout", v]);
        }
        if let Some(v) = env {
            cmd.env("FACTPICO_SIDECAR_STARTUP_TIMEOUT", v);
        }
        let mut child = cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).spawn().unwrap();
        let t = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if t.elapsed() > Duration::from_secs(90) {
                child.kill().unwrap();
                panic!("{how}: the run still waits for the sidecar after 90 s: the timeout was not applied");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{how}: {err}");
        assert!(err.contains("start-up timeout 1.5 s"), "{how}: the error gives the timeout and the time waited: {err}");
    }
    for bad in ["0", "-3", "soon", "NaN"] {
        let o = bin().args(base).arg(format!("--sidecar-startup-timeout={bad}")).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains("positive number of seconds"), "{bad}: {}", stderr(&o));
    }
}

// ---------------------------------------------------------------------------------------------
// Issue 23 (robustness, second pass). One test per class, named `i23_NN_...`.

/// A minimal factpico score row (output schema 2) for `diff` / `report`.
fn score_row(id: &str, system: Option<&str>, rouge: Option<f64>) -> String {
    let mut v = serde_json::json!({"id": id, "scores": {"rougeL": rouge}, "provenance": {"schema_version": 2}});
    if let Some(sys) = system {
        v["system"] = serde_json::Value::String(sys.to_owned());
    }
    v.to_string()
}

/// Class 1: an output whose last component is a symlink was replaced by the rename of the
/// temporary file (the link vanished); `-o /proc/self/fd/1` (what `/dev/stdout` resolves to)
/// was taken for a regular file. A link is refused and survives unchanged; a path naming a
/// file descriptor is refused with "use `-o -`". (The real `/dev/stdout` is never used: the
/// checks run on `/proc/self/fd/N` and `/dev/fd/N`, where nothing can be created.)
#[test]
fn i23_01_symlinked_and_descriptor_outputs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = write(d, "in.jsonl", format!("{GOOD}\n").as_bytes());
    let other = d.join("other.jsonl");
    let scores = d.join("scores.jsonl");
    let o = run(&["score", s(&input), "-o", s(&scores), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for (flag, name) in [("-o", "link.jsonl"), ("--csv", "link.csv"), ("--summary", "link.md")] {
        let target = write(d, &format!("target-of-{name}"), b"keep\n");
        let link = d.join(name);
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let mut args = vec!["score", s(&input), "-q"];
        if flag != "-o" {
            args.extend(["-o", s(&other)]);
        }
        args.extend([flag, s(&link)]);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{flag} onto a symlink must be refused: {}", stderr(&o));
        assert!(stderr(&o).contains("symbolic link"), "{flag}: {}", stderr(&o));
        assert!(is_symlink(&link), "{flag}: the link was replaced");
        assert_eq!(std::fs::read_link(&link).unwrap(), target, "{flag}: the link changed");
        assert_eq!(std::fs::read(&target).unwrap(), b"keep\n", "{flag}: the link's target was written");
    }
    // The report's output too.
    let target = write(d, "target.html", b"keep\n");
    std::os::unix::fs::symlink(&target, d.join("link.html")).unwrap();
    let o = run(&["report", s(&scores), "-o", s(&d.join("link.html")), "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(is_symlink(&d.join("link.html")) && std::fs::read(&target).unwrap() == b"keep\n");

    // Paths that are, or lead to, a file descriptor: refused with "use `-o -`".
    let fd_link = d.join("fd.jsonl");
    std::os::unix::fs::symlink("/proc/self/fd/1", &fd_link).unwrap();
    let cases: [(&str, &str); 5] = [
        ("-o", "/proc/self/fd/1"),
        ("-o", "/dev/fd/1"),
        ("--csv", "/proc/self/fd/1"),
        ("--summary", "/dev/fd/2"),
        ("-o", s(&fd_link)),
    ];
    for (flag, path) in cases {
        let redirected = d.join("redirected.txt");
        let file = std::fs::File::create(&redirected).unwrap();
        let mut args = vec!["score", s(&input), "-q"];
        if flag != "-o" {
            args.extend(["-o", s(&other)]);
        }
        args.extend([flag, path]);
        let o = bin().args(&args).stdout(file).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{flag} {path}: {}", stderr(&o));
        assert!(stderr(&o).contains("use `-o -`"), "{flag} {path}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
    assert!(is_symlink(&fd_link), "the link to a descriptor was replaced");
}

/// Class 2: `--csv -` and `--summary -` wrote a file named `-`; a legal 250-byte output name
/// failed (its temporary / partial name exceeded NAME_MAX); a `--summary` failure after the
/// rows were committed did not say that the rows are complete.
#[test]
fn i23_02_dash_is_standard_output_long_names_and_late_failures() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = big_input(d, 5);
    let out = d.join("o.jsonl");
    let o = bin().current_dir(d).args(["score", s(&input), "-o", s(&out), "-q", "--csv", "-"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!d.join("-").exists(), "--csv - wrote a file named -");
    let csv_text = String::from_utf8(o.stdout.clone()).unwrap();
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().take(4).map(str::to_owned).collect();
    assert_eq!(header, ["row", "id", "system", "skipped"]);
    assert_eq!(reader.records().count(), 5, "standard output holds the CSV only: {csv_text}");
    assert!(stderr(&o).contains("| system | rows |"), "the table goes to standard error: {}", stderr(&o));

    let o = bin().current_dir(d).args(["score", s(&input), "-o", s(&out), "-q", "--summary", "-"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!d.join("-").exists(), "--summary - wrote a file named -");
    let table = String::from_utf8(o.stdout.clone()).unwrap();
    assert_eq!(table.matches("| system | rows |").count(), 1, "{table}");

    let o = bin().current_dir(d).args(["score", s(&input), "-o", "-", "--csv", "-", "-q"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "two outputs on standard output: {}", stderr(&o));

    // Legal 250-byte names (NAME_MAX is 255 bytes).
    let long = |ext: &str| d.join(format!("{}.{ext}", "n".repeat(249 - ext.len())));
    let (lo, lc, ls) = (long("jsonl"), long("csv"), long("md"));
    assert_eq!(lo.file_name().unwrap().len(), 250);
    let o = run(&["score", s(&input), "-o", s(&lo), "--csv", s(&lc), "--summary", s(&ls), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&lo).len(), 5);
    // Its provenance file's name is shortened as the partial file's is.
    let prov = factpico_io::sibling_path(&lo, ".provenance.json");
    assert!(prov.exists() && prov.file_name().unwrap().len() <= 255, "{}", prov.display());
    assert!(std::fs::read_to_string(&lc).unwrap().starts_with("row,id"));
    assert!(std::fs::read_to_string(&ls).unwrap().contains("(all)"));
    // ... and an interrupted run on such a name resumes.
    make_partial(&lo, 2);
    let o = run(&["score", s(&input), "-o", s(&lo), "-q", "--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&lo).len(), 5);

    // --summary fails at the end (nothing can be created in /proc, even by root): the rows are
    // complete and say so.
    let out2 = d.join("o2.jsonl");
    let o = run(&["score", s(&input), "-o", s(&out2), "-q", "--summary", "/proc/factpico-i23-table.md"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("rows are complete"), "{}", stderr(&o));
    assert_eq!(rows(&out2).len(), 5);
}

/// Class 3: under `--on-error skip`, a run where a requested metric produced no value at all
/// (every record skipped, every value null) exited 0. It warns (even under `-q`) and exits 3;
/// the output is still written.
#[test]
fn i23_03_a_metric_without_any_value_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bad = write(d, "bad.jsonl", b"{\"id\":\"a\",\"source\":\"x\"}\n{\"id\":\"b\",\"source\":\"y\"}\n");
    let out = d.join("o.jsonl");
    let o = run(&["score", s(&bad), "-o", s(&out), "-q", "--on-error", "skip"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("no value") && stderr(&o).contains("rougeL"), "{}", stderr(&o));
    assert_eq!(rows(&out).len(), 2, "the output is still committed");
    // Every value null (empty summaries: documented nulls).
    let empty = write(d, "empty.jsonl", b"{\"id\":\"a\",\"source\":\"Aspirin helped.\",\"summary\":\"\"}\n");
    let o = run(&["score", s(&empty), "-o", s(&out), "-q", "--on-error", "skip", "--metrics", "rougeL"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("rougeL"), "{}", stderr(&o));
    // A run where every metric has values is unaffected.
    let good = big_input(d, 3);
    let o = run(&["score", s(&good), "-o", s(&out), "-q", "--on-error", "skip"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("no value"), "{}", stderr(&o));
}

/// Class 4: `diff` and `report` took any JSON object for a score row (an input file diffed
/// against itself passed, two empty files passed); `diff` keyed rows by the string
/// `"{id} [{system}]"`, so id `x [s]` without a system and id `x` of system `s` collided.
#[test]
fn i23_04_diff_and_report_require_score_rows() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = write(d, "in.jsonl", format!("{GOOD}\n").as_bytes());
    let o = run(&["diff", s(&input), s(&input)]);
    assert_eq!(o.status.code(), Some(2), "an input file is not a score file: {}", stderr(&o));
    assert!(stderr(&o).contains("not a factpico score row"), "{}", stderr(&o));
    let o = run(&["report", s(&input), "-o", s(&d.join("r.html")), "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a factpico score row"), "{}", stderr(&o));
    let empty = write(d, "empty.jsonl", b"");
    let o = run(&["diff", s(&empty), s(&empty)]);
    assert_eq!(o.status.code(), Some(2), "two empty files compare nothing: {}", stderr(&o));
    // Rows that share no value (skipped rows only): nothing compared is a failure.
    let skipped = write(d, "skipped.jsonl", br#"{"id":"a","skipped":"bad record","provenance":{"schema_version":2}}
"#);
    let o = run(&["diff", s(&skipped), s(&skipped)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no values"), "{}", stderr(&o));
    // (id, system) is a pair, not a string.
    let a = write(d, "a.jsonl", format!("{}\n", score_row("x [s]", None, Some(0.5))).as_bytes());
    let b = write(d, "b.jsonl", format!("{}\n", score_row("x", Some("s"), Some(0.5))).as_bytes());
    let o = run(&["diff", s(&a), s(&b)]);
    assert!(!o.status.success(), "different rows must not be joined: {}", stderr(&o));
    assert!(stderr(&o).contains("1 rows only in OLD, 1 only in NEW"), "{}", stderr(&o));
    let both = write(d, "both.jsonl", format!("{}\n{}\n", score_row("x [s]", None, Some(0.5)), score_row("x", Some("s"), Some(0.7))).as_bytes());
    let o = run(&["diff", s(&both), s(&both)]);
    assert_eq!(o.status.code(), Some(0), "distinct rows are not duplicates: {}", stderr(&o));
}

/// Bytes a terminal would act on: C0 controls other than newline and tab, DEL, and C1
/// controls (UTF-8 `C2 80`..`C2 9F`).
fn terminal_controls(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    text.chars()
        .filter(|&c| c.is_control() && c != '\n' && c != '\t')
        .map(|c| format!("{:?}", c))
        .collect()
}

/// Class 5: ids, systems and summaries reached the terminal raw: `--explain`, the summary
/// table, warnings and `diff`'s table printed ESC / BEL / CSI sequences (a summary could set
/// the window title, clear the screen or forge hyperlinks). They are escaped there; the
/// output files keep the data unchanged.
#[test]
fn i23_05_untrusted_text_never_reaches_the_terminal_raw() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let id = "e\u{1b}]0;title\u{7}";
    let system = "s\u{1b}[2J";
    let summary = "Aspirin \u{1b}]8;;http://evil.example/\u{1b}\\helped\u{1b}]8;;\u{1b}\\ adults \u{9b}31m with pain.";
    let row = serde_json::json!({"id": id, "system": system, "source": "Aspirin reduced pain in 40 adults.", "summary": summary});
    // The same id twice: the duplicate-id warning prints it.
    let input = write(d, "in.jsonl", format!("{row}\n{row}\n").as_bytes());
    let out = d.join("o.jsonl");
    let o = run(&["score", s(&input), "-o", s(&out), "--explain"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(terminal_controls(&o.stdout), Vec::<String>::new(), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(terminal_controls(&o.stderr), Vec::<String>::new(), "{}", stderr(&o));
    let shown = String::from_utf8_lossy(&o.stdout);
    assert!(shown.contains("\\u{1b}[2J"), "the system is shown escaped: {shown}");
    assert!(stderr(&o).contains("\\u{1b}]0;title\\u{7}"), "the warning shows the id escaped: {}", stderr(&o));
    let r = rows(&out);
    assert_eq!(r[0]["id"], id, "the output keeps the data");
    assert_eq!(r[0]["system"], system);
    // `-o -`: explanations and the table on standard error.
    let o = run(&["score", s(&input), "-o", "-", "--explain", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(terminal_controls(&o.stderr), Vec::<String>::new(), "{}", stderr(&o));
    // diff's table and messages.
    let a = write(d, "a.jsonl", format!("{}\n", score_row(id, Some(system), Some(0.5))).as_bytes());
    let b = write(d, "b.jsonl", format!("{}\n", score_row(id, Some(system), Some(0.7))).as_bytes());
    let c = write(d, "c.jsonl", format!("{}\n", score_row("other\u{9b}1m", None, Some(0.7))).as_bytes());
    for (x, y) in [(&a, &b), (&a, &c)] {
        let o = run(&["diff", s(x), s(y)]);
        assert!(!o.status.success(), "{}", stderr(&o));
        assert_eq!(terminal_controls(&o.stdout), Vec::<String>::new(), "{}", String::from_utf8_lossy(&o.stdout));
        assert_eq!(terminal_controls(&o.stderr), Vec::<String>::new(), "{}", stderr(&o));
    }
    // An error naming a row: a bad record with --on-error fail.
    let bad = serde_json::json!({"id": id, "source": "x", "summary": 5});
    let input = write(d, "bad.jsonl", format!("{bad}\n").as_bytes());
    let o = run(&["score", s(&input), "-o", s(&d.join("b.jsonl")), "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(terminal_controls(&o.stderr), Vec::<String>::new(), "{}", stderr(&o));
}

/// A real HTTP server on 127.0.0.1 that answers every request with 404 (no model list, no
/// chat endpoint): the LLM client logs a warning about it.
fn http_404_server() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 65536];
            let mut got = Vec::new();
            // Read the head and the body (Content-Length) before answering.
            while let Ok(n) = stream.read(&mut buf) {
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
                if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
                    let len = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap_or(0)))
                        .unwrap_or(0);
                    if got.len() >= end + 4 + len {
                        break;
                    }
                }
            }
            let body = r#"{"error":{"message":"not here"}}"#;
            let _ = write!(
                stream,
                "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

/// Class 6: library warnings (`log::warn!`: the LLM client's notes, retries and fallbacks)
/// were dropped: no logger was installed. They reach standard error by default, not under
/// `-q`; `-v` / `RUST_LOG=debug` show debug lines; no colour codes off a terminal or with
/// `NO_COLOR`.
#[test]
fn i23_06_library_warnings_reach_standard_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = write(d, "in.jsonl", format!("{GOOD}\n").as_bytes());
    let url = http_404_server();
    let cache = d.join("cache.sqlite");
    let base = |extra: &[&str]| {
        let mut c = bin();
        c.env_remove("RUST_LOG").env_remove("NO_COLOR");
        c.args(["score", s(&input), "-o", s(&d.join("o.jsonl")), "--metrics", "llm", "--llm-base-url", &url, "--llm-model", "m"])
            .args(["--llm-cache", s(&cache), "--llm-retries", "0"])
            .args(extra);
        c
    };
    let note = "has no model list";
    let o = base(&[]).output().unwrap();
    assert!(stderr(&o).contains(note), "the library warning is shown: {}", stderr(&o));
    assert!(!stderr(&o).contains("debug"), "no debug lines by default: {}", stderr(&o));
    assert!(!o.stderr.contains(&0x1b), "no colour off a terminal: {}", stderr(&o));
    let o = base(&["-q"]).output().unwrap();
    assert!(!stderr(&o).contains(note), "-q silences warnings: {}", stderr(&o));
    let o = base(&["-v"]).output().unwrap();
    assert!(stderr(&o).contains(note) && stderr(&o).lines().any(|l| l.starts_with("debug")), "-v: {}", stderr(&o));
    let o = base(&[]).env("RUST_LOG", "debug").output().unwrap();
    assert!(stderr(&o).lines().any(|l| l.starts_with("debug")), "RUST_LOG=debug: {}", stderr(&o));
    let o = base(&["-vv"]).env("NO_COLOR", "1").output().unwrap();
    assert!(stderr(&o).contains(note) && !o.stderr.contains(&0x1b), "NO_COLOR: {}", stderr(&o));
}

/// Class 7: input mistakes that were read as something else. `--source-field summary
/// --summary-field summary` scored each summary against itself; a gzip file or a UTF-16 file
/// gave "malformed JSON" / "invalid UTF-8" instead of naming the problem; a JSON
/// `"system": ""` made a system named "" while an empty CSV cell means no system.
#[test]
fn i23_07_input_mistakes_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = write(d, "in.jsonl", format!("{GOOD}\n").as_bytes());
    let out = d.join("o.jsonl");
    let o = run(&["score", s(&input), "-o", s(&out), "-q", "--source-field", "summary", "--summary-field", "summary"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("same field"), "{}", stderr(&o));
    assert!(!out.exists());
    // gzip (by content, whatever the name says; and by extension).
    let gz = [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x4b, 0x04, 0x00];
    for name in ["in.jsonl", "in.csv", "in.jsonl.gz"] {
        let p = write(d, name, &gz);
        let mut args = vec!["score", s(&p), "-o", s(&out), "-q"];
        if name.ends_with(".gz") {
            args.extend(["--format", "jsonl"]);
        }
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains("compressed"), "{name}: {}", stderr(&o));
    }
    let o = run(&["score", s(&d.join("in.jsonl.gz")), "-o", s(&out), "-q"]);
    assert!(stderr(&o).contains("compressed"), "by extension: {}", stderr(&o));
    // UTF-16, with and without a byte-order mark, as a file and on standard input.
    let utf16 = |bom: bool| -> Vec<u8> {
        let mut b = if bom { vec![0xff, 0xfe] } else { Vec::new() };
        b.extend(GOOD.encode_utf16().flat_map(u16::to_le_bytes));
        b
    };
    for bom in [true, false] {
        let p = write(d, "u16.jsonl", &utf16(bom));
        let o = run(&["score", s(&p), "-o", s(&out), "-q", "--on-error", "skip"]);
        assert_eq!(o.status.code(), Some(2), "bom {bom}: {}", stderr(&o));
        assert!(stderr(&o).contains("UTF-16"), "bom {bom}: {}", stderr(&o));
    }
    let mut child = bin()
        .args(["score", "-", "--format", "jsonl", "-o", s(&out), "-q"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(&utf16(true));
    }
    let o = child.wait_with_output().unwrap();
    assert!(stderr(&o).contains("UTF-16"), "standard input: {}", stderr(&o));
    // A directory.
    std::fs::create_dir(d.join("adir")).unwrap();
    let o = run(&["score", s(&d.join("adir")), "--format", "jsonl", "-o", s(&out), "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is a directory"), "{}", stderr(&o));
    // "system": "" is no system, as an empty CSV cell.
    let with_empty = GOOD.replace(r#""id":"a""#, r#""id":"a","system":"""#);
    let p = write(d, "sys.jsonl", format!("{with_empty}\n").as_bytes());
    let o = run(&["score", s(&p), "-o", s(&out), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(rows(&out)[0].get("system").is_none(), "{:?}", rows(&out)[0]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("| (no system) | 1 |"), "{}", String::from_utf8_lossy(&o.stdout));
}

/// Class 6, ONNX Runtime: its own log lines printed by itself ignored `-q` and the escaping.
/// They go through the logger (target `ort`): none by default, all with `RUST_LOG=ort=trace`,
/// none under `-q` whatever `RUST_LOG` says; the scores are the same bytes either way.
#[test]
fn i23_08_onnx_runtime_lines_go_through_the_logger() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let model = support::fixtures().join("models/summac-albert-tiny");
    let input = support::fixtures().join("pairs.jsonl");
    let score = |name: &str, extra: &[&str], rust_log: Option<&str>| {
        let out = d.join(name);
        let mut c = bin();
        c.env_remove("RUST_LOG").env_remove("ORT_LOG");
        if let Some(l) = rust_log {
            c.env("RUST_LOG", l);
        }
        let o = c
            .args(["score", s(&input), "-o", s(&out), "--metrics", "summac_zs", "--summac-model", s(&model)])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        (std::fs::read_to_string(&out).unwrap(), stderr(&o))
    };
    let ort_lines = |e: &str| e.lines().filter(|l| l.contains("[ort] ONNX Runtime [")).count();
    let (plain, e) = score("a.jsonl", &[], None);
    assert_eq!(ort_lines(&e), 0, "{e}");
    let (traced, e) = score("b.jsonl", &[], Some("ort=trace"));
    assert!(ort_lines(&e) > 0, "ONNX Runtime's lines reach the logger: {e}");
    assert!(!e.contains('\u{1b}'), "{e}");
    let (quiet, e) = score("c.jsonl", &["-q"], Some("ort=trace"));
    assert_eq!(ort_lines(&e), 0, "-q: {e}");
    let strip = |t: &str| t.lines().map(|l| {
        let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
        v["provenance"] = serde_json::Value::Null;
        v.to_string()
    }).collect::<Vec<_>>();
    assert_eq!(strip(&plain), strip(&traced), "logging changes no score");
    assert_eq!(strip(&plain), strip(&quiet));
}

/// Class 5, meta-eval: column names come from the files and reached the terminal raw in the
/// Markdown report; they are escaped there.
#[test]
fn i23_09_meta_eval_escapes_column_names_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (scores, _) = meta_eval_files(d);
    let aspect = "bad\u{1b}]0;title\u{7}";
    let mut ratings = format!("id,system,{aspect}\n");
    for i in 0..12 {
        ratings.push_str(&format!("d{},s{},{}\n", i / 4, i % 4, 1 + i % 4));
    }
    let ratings = write(d, "r.csv", ratings.as_bytes());
    let o = run(&["meta-eval", "--scores", s(&scores), "--ratings", s(&ratings), "--aspects", aspect, "--metrics", "rougeL", "--level", "instance"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(terminal_controls(&o.stdout), Vec::<String>::new(), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(String::from_utf8_lossy(&o.stdout).contains("bad\\u{1b}]0;title\\u{7}"), "{}", String::from_utf8_lossy(&o.stdout));
}

/// Issue 23, class 6: a valid record with a field nested 200 (or 50,000) levels deep that no
/// metric reads was rejected (serde_json's recursion limit), and inside a JSON array it made
/// the rest of the file unreadable even under `--on-error skip`. Unused fields are now
/// skipped at any depth; a used field nested more than 100 levels is that row's error only.
#[test]
fn i23_10_deeply_nested_fields() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nest = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let deep_unused = format!(r#"{{"id":"deep","source":"Aspirin reduced pain in 40 adults.","summary":"Aspirin helped.","meta":{}}}"#, nest(200));
    let very_deep = format!(r#"{{"id":"very","source":"Aspirin reduced pain in 40 adults.","summary":"Aspirin helped.","meta":{}}}"#, nest(50_000));
    let deep_used = format!(r#"{{"id":"bad","source":{},"summary":"Aspirin helped."}}"#, nest(200));
    let good_b = GOOD.replace("\"a\"", "\"b\"");
    let out = d.join("o.jsonl");
    for (name, text) in [
        ("in.jsonl", format!("{GOOD}\n{deep_unused}\n{very_deep}\n{deep_used}\n{good_b}\n")),
        ("in.json", format!("[{GOOD},\n{deep_unused},\n{very_deep},\n{deep_used},\n{good_b}]")),
    ] {
        let input = write(d, name, text.as_bytes());
        let o = run(&["score", s(&input), "-o", s(&out), "-q", "--on-error", "skip", "--metrics", "rougeL"]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let rs = rows(&out);
        let ids: Vec<&str> = rs.iter().map(|r| r["id"].as_str().unwrap_or("-")).collect();
        assert_eq!(ids, ["a", "deep", "very", "bad", "b"], "{name}: every row is read, the rest of the file too");
        assert!(rs[1]["scores"]["rougeL"].is_number() && rs[2]["scores"]["rougeL"].is_number(), "{name}");
        let skipped = rs[3]["skipped"].as_str().unwrap();
        assert!(skipped.contains("field `source` is nested more than 100 levels deep"), "{name}: {skipped}");
        // Under the default --on-error fail the deep used field stops the run, naming it.
        let o = run(&["score", s(&input), "-o", s(&out), "-q", "--metrics", "rougeL"]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        assert!(stderr(&o).contains("field `source` is nested more than 100 levels deep"), "{name}: {}", stderr(&o));
    }
}

/// Class 3 under the default `--on-error fail`: a requested metric whose every value is a
/// documented null (summaries without words) fails the run too (exit 3, warning under -q),
/// the rows still written.
#[test]
fn i23_11_a_metric_without_any_value_fails_the_run_under_fail_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = write(
        d,
        "nw.jsonl",
        b"{\"id\":\"a\",\"source\":\"Aspirin reduced pain in 40 adults.\",\"summary\":\"...\"}\n{\"id\":\"b\",\"source\":\"Aspirin reduced pain.\",\"summary\":\"!!\"}\n",
    );
    let out = d.join("o.jsonl");
    let o = run(&["score", s(&input), "-o", s(&out), "-q", "--metrics", "rougeL,fkgl"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("warning: metric rougeL produced no value in any of the 2 rows"), "{err}");
    // fkgl has values (the abstracts' grade): not named.
    assert!(!err.contains("metric fkgl produced no value"), "{err}");
    assert_eq!(rows(&out).len(), 2, "the rows are written");
}

/// Class 7: a system named like the table's synthetic lines is shown quoted, in the table,
/// the --summary file and the report's histograms.
#[test]
fn i23_12_systems_named_like_the_synthetic_lines_are_told_apart() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut text = String::new();
    for (k, sys) in ["(all)", "(no system)", "plain"].iter().enumerate() {
        text.push_str(&serde_json::json!({"id": format!("r{k}"), "system": sys, "source": "Aspirin reduced pain in 40 adults.", "summary": "Aspirin helped adults."}).to_string());
        text.push('\n');
    }
    text.push_str("{\"id\":\"r3\",\"source\":\"Aspirin reduced pain.\",\"summary\":\"Aspirin helped.\"}\n");
    let input = write(d, "in.jsonl", text.as_bytes());
    let out = d.join("o.jsonl");
    let md = d.join("t.md");
    let o = run(&["score", s(&input), "-o", s(&out), "-q", "--summary", s(&md)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = String::from_utf8_lossy(&o.stdout).into_owned();
    let first_cells: Vec<String> = table.lines().skip(2).filter(|l| !l.is_empty()).map(|l| l.split(" | ").next().unwrap().trim_start_matches("| ").to_owned()).collect();
    assert_eq!(first_cells, ["\"(all)\"", "\"(no system)\"", "plain", "(no system)", "(all)"], "{table}");
    assert_eq!(std::fs::read_to_string(&md).unwrap().trim_end(), table.trim_end(), "--summary file");
    let html = d.join("r.html");
    let o = run(&["report", s(&out), "-o", s(&html), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("&quot;(all)&quot; · n = 1") || page.contains("\"(all)\" · n = 1"), "histogram strip of the system named (all)");
    assert!(page.contains(">(all) · n = 4"), "the synthetic all-rows strip");
}

/// Class 13: file names are data too: the paths factpico prints (wrote …, resuming …, the
/// dry run) have their control characters escaped.
#[test]
fn i23_13_paths_are_escaped_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let name = "ev\u{1b}]0;pwned\u{7}name\u{1b}[2J";
    let input = write(d, &format!("{name}.jsonl"), format!("{GOOD}\n").as_bytes());
    let out = d.join(format!("{name}.out.jsonl"));
    let o = run(&["score", s(&input), "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("wrote 1 rows (0 skipped) to "), "{err}");
    let o2 = run(&["score", s(&input), "--dry-run"]);
    let html = d.join(format!("{name}.html"));
    let o3 = run(&["report", s(&out), "-o", s(&html)]);
    assert!(o3.status.success(), "{}", stderr(&o3));
    for (what, text) in [("score", err), ("dry run", String::from_utf8_lossy(&o2.stdout).into_owned() + &stderr(&o2)), ("report", stderr(&o3))] {
        assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "{what}: raw control characters in {text:?}");
        assert!(text.contains("ev\\u{1b}]0;pwned\\u{7}name"), "{what}: {text:?}");
    }
}

/// `report` of concatenated score files: rows of two runs are refused; rows repeating an
/// (id, system) are counted with a warning (a single run's input may repeat ids).
#[test]
fn i23_14_report_refuses_mixed_runs_and_warns_on_repeated_keys() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = support::fixtures().join("pairs.jsonl");
    let a = d.join("a.jsonl");
    let b = d.join("b.jsonl");
    for (out, metrics) in [(&a, "rougeL,fkgl"), (&b, "rougeL")] {
        let o = run(&["score", s(&input), "-o", s(out), "-q", "--metrics", metrics]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let text_a = std::fs::read_to_string(&a).unwrap();
    let mixed = write(d, "mixed.jsonl", format!("{text_a}{}", std::fs::read_to_string(&b).unwrap()).as_bytes());
    let o = run(&["report", s(&mixed), "-o", s(&d.join("m.html"))]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("row 13 is from run") && stderr(&o).contains("several `factpico score` runs"), "{}", stderr(&o));
    let twice = write(d, "twice.jsonl", format!("{text_a}{text_a}").as_bytes());
    std::fs::copy(format!("{}.provenance.json", a.display()), format!("{}.provenance.json", twice.display())).unwrap();
    let o = run(&["report", s(&twice), "-o", s(&d.join("t.html")), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: 12 rows repeat an (id, system) seen before (first: fx01)"), "{}", stderr(&o));
}

/// Class 13: an id cannot forge a line of factpico's own (a newline in an id repeated twice
/// stays inside the one warning line).
#[test]
fn i23_15_an_id_cannot_start_a_line_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let row = serde_json::json!({"id": "x\nerror: fake\tline", "source": "Aspirin reduced pain in 40 adults.", "summary": "Aspirin helped."}).to_string();
    let input = write(d, "in.jsonl", format!("{row}\n{row}\n").as_bytes());
    let o = run(&["score", s(&input), "-o", s(&d.join("o.jsonl")), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("warning: 1 rows repeat an id seen before (first: x\\nerror: fake\\tline)"), "{err}");
    assert!(!err.lines().any(|l| l.starts_with("error: fake")), "{err}");
}
