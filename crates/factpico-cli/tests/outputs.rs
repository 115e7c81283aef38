//! Regression tests of issue 23's output defects found by a hostile re-check (items 1 and
//! 16): `-` is standard output for every file factpico writes (`--provenance -`, `report -o
//! -`); the LLM request cache is guarded like every output; temporary files of killed runs are
//! cleaned by the next run; no progress bar is glued into rows on a terminal.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::path::{Path, PathBuf};

use support::{big_input, bin, fixtures, rows, s, stderr};

/// The names in `dir` (sorted).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// A process id that is no longer running (a child that exited and was reaped).
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// `--provenance -` wrote a file named `-`; it now writes the provenance JSON to standard
/// output (once, the table then on standard error), and is refused with another `-` output
/// or with `--resume`.
#[test]
fn provenance_dash_is_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = fixtures().join("pairs.jsonl");
    let out = d.join("o.jsonl");
    let o = bin().current_dir(d).args(["score", s(&input), "-o", s(&out), "--provenance", "-"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!d.join("-").exists(), "--provenance - wrote a file named -: {:?}", names(d));
    let prov: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)));
    assert!(prov.is_object(), "{prov}");
    let run = factpico::provenance_hash(&prov);
    let written = rows(&out);
    assert!(!written.is_empty());
    assert!(written.iter().all(|r| r["run"] == run.as_str()), "the rows reference the provenance printed");
    assert!(!d.join("o.jsonl.provenance.json").exists(), "the provenance went to standard output only");
    assert!(stderr(&o).contains("| system | rows |"), "the table goes to standard error: {}", stderr(&o));

    // Two outputs on standard output, or a resume without a provenance file: refused.
    let o = bin().current_dir(d).args(["score", s(&input), "-o", "-", "--provenance", "-", "-q"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("only one of -o, --csv, --summary and --provenance can be `-`"), "{}", stderr(&o));
    assert!(o.stdout.is_empty() && !d.join("-").exists());
    let o = bin().current_dir(d).args(["score", s(&input), "-o", s(&out), "--csv", "-", "--provenance", "-", "-q"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = bin().current_dir(d).args(["score", s(&input), "-o", s(&out), "--provenance", "-", "--resume", "-q"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--resume needs the interrupted run's provenance file"), "{}", stderr(&o));
    assert!(!d.join("-").exists());
}

/// `factpico report -o -` wrote a file named `-`; it now writes the page to standard output.
#[test]
fn report_dash_is_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = fixtures().join("pairs.jsonl");
    let out = d.join("o.jsonl");
    let o = bin().current_dir(d).args(["score", s(&input), "-o", s(&out), "-q"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = bin().current_dir(d).args(["report", s(&out), "--input", s(&input), "-o", "-"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!d.join("-").exists(), "report -o - wrote a file named -: {:?}", names(d));
    let html = String::from_utf8(o.stdout.clone()).unwrap();
    assert!(html.trim_start().to_ascii_lowercase().starts_with("<!doctype html"), "{}", &html[..html.len().min(200)]);
    assert!(html.trim_end().ends_with("</html>"));
    assert!(stderr(&o).contains("wrote the page to standard output"), "{}", stderr(&o));
    // The same page as a file.
    let page = d.join("r.html");
    let o = bin().current_dir(d).args(["report", s(&out), "--input", s(&input), "-o", s(&page), "-q"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&page).unwrap(), html);
}

/// `--llm-cache` naming one of the run's outputs was not refused (the output's rename then
/// replaced the cache database, its `-wal` / `-shm` files left beside it); a cache path that
/// is a symbolic link, or a dangling one (whose target SQLite created), was followed. The
/// cache now goes through the outputs' guard, with its companions; links are refused.
#[cfg(feature = "llm")]
#[test]
fn the_llm_cache_is_guarded_like_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = fixtures().join("pairs.jsonl");
    let out = d.join("o.jsonl");
    let score = |extra: &[&str]| {
        let mut args = vec!["score", s(&input), "-o", s(&out), "--metrics", "rougeL,llm", "--llm-base-url", "http://127.0.0.1:9/v1", "--llm-model", "m", "-q"];
        args.extend_from_slice(extra);
        bin().current_dir(d).env("FACTPICO_HOME", d.join("home")).args(&args).output().unwrap()
    };
    let refused = |o: &std::process::Output, what: &str| {
        assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
        assert!(stderr(o).contains(what), "wanted {what:?}: {}", stderr(o));
        assert!(!out.exists() && !d.join("o.jsonl.partial").exists(), "nothing written");
    };
    let cache = |name: &str| d.join(name);
    let csv = d.join("o.csv");
    let table = d.join("t.md");
    // The cache is each output of the run, or the -o file is the cache's journal.
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--llm-cache".into(), s(&out).into()], "-o would overwrite the LLM request cache (--llm-cache)"),
        (vec!["--llm-cache".into(), format!("{}.partial", s(&out))], "the partial file of -o would overwrite the LLM request cache"),
        (vec!["--llm-cache".into(), format!("{}.provenance.json", s(&out))], "the provenance file (--provenance) would overwrite the LLM request cache"),
        (vec!["--llm-cache".into(), s(&csv).into(), "--csv".into(), s(&csv).into()], "--csv would overwrite the LLM request cache"),
        (vec!["--llm-cache".into(), s(&table).into(), "--summary".into(), s(&table).into()], "--summary would overwrite the LLM request cache"),
        (vec!["--llm-cache".into(), s(&cache("p.json")).into(), "--provenance".into(), s(&cache("p.json")).into()], "would overwrite the LLM request cache"),
        (vec!["--llm-cache".into(), s(&input).into()], "the LLM request cache (--llm-cache) would overwrite the input"),
    ];
    for (extra, what) in &cases {
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        refused(&score(&extra), what);
    }
    // -o onto the cache's -wal file.
    let db = cache("c.sqlite");
    let o = bin()
        .current_dir(d)
        .env("FACTPICO_HOME", d.join("home"))
        .args(["score", s(&input), "-o", &format!("{}-wal", s(&db)), "--metrics", "llm", "--llm-cache", s(&db), "-q"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("would overwrite the LLM request cache"), "{}", stderr(&o));
    // An existing cache file is never touched by a refused run.
    std::fs::write(&db, "keep").unwrap();
    refused(&score(&["--llm-cache", s(&db), "--csv", s(&db)]), "--csv would overwrite the LLM request cache");
    assert_eq!(std::fs::read(&db).unwrap(), b"keep");
    // A link at the cache path, dangling or not: refused, its target never created.
    let link = cache("link.sqlite");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    refused(&score(&["--llm-cache", s(&link)]), "is a symbolic link");
    let dangling = cache("dangling.sqlite");
    std::os::unix::fs::symlink(d.join("created.sqlite"), &dangling).unwrap();
    refused(&score(&["--llm-cache", s(&dangling)]), "give the path it points to");
    assert!(!d.join("created.sqlite").exists(), "the dangling link's target was created");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    // The default cache is checked too (a link there is refused).
    std::fs::create_dir_all(d.join("home")).unwrap();
    std::os::unix::fs::symlink(d.join("elsewhere.sqlite"), d.join("home/llm-cache.sqlite")).unwrap();
    refused(&score(&[]), "llm-cache.sqlite: the LLM request cache (--llm-cache): is a symbolic link");
    // Without a cache, or without an LLM metric, nothing is a cache: the run goes on to its
    // metrics (here, the LLM server that is not there).
    let o = score(&["--llm-cache", s(&out), "--llm-no-cache"]);
    assert!(!stderr(&o).contains("LLM request cache"), "{}", stderr(&o));
    let o = bin().current_dir(d).args(["score", s(&input), "-o", s(&out), "--llm-cache", s(&out), "-q"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "--llm-cache of an unselected metric is ignored: {}", stderr(&o));
}

/// Temporary files of a killed run (`.o.csv.RANDOM.tmp.csv`) were never cleaned up. They are
/// now named with the writer's pid, and the next writer of the same target removes those whose
/// process is gone, never one of a live process nor any other name.
#[cfg(target_os = "linux")]
#[test]
fn temporary_files_of_dead_runs_are_removed_and_live_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = big_input(d, 20);
    let (out, csv, table) = (d.join("o.jsonl"), d.join("o.csv"), d.join("t.md"));
    let (dead, me) = (dead_pid(), std::process::id());
    let stale = [
        format!(".o.csv.{dead}.aE5iqI.tmp.csv"),
        format!(".t.md.{dead}.Zz09aB.tmp.md"),
        format!(".o.jsonl.partial.{dead}.q1W2e3.tmp.partial"),
        format!(".o.jsonl.provenance.json.{dead}.r4T5y6.tmp.json"),
    ];
    let kept = [
        format!(".o.csv.{me}.bF6jrJ.tmp.csv"),    // a live process (this test)
        ".o.csv.1.cG7ksK.tmp.csv".to_owned(),     // pid 1 is alive
        ".o.csv.aE5iqI.tmp.csv".to_owned(),       // an older name: its owner is unknown
        format!(".x.csv.{dead}.aE5iqI.tmp.csv"),  // another target's
        format!(".o.csv.{dead}.aE5iqI.tmp.csv~"), // not the exact pattern
        format!("o.csv.{dead}.aE5iqI.tmp.csv"),
    ];
    for n in stale.iter().chain(&kept) {
        std::fs::write(d.join(n), "x").unwrap();
    }
    let o = bin()
        .current_dir(d)
        .args(["score", s(&input), "-o", s(&out), "--csv", s(&csv), "--summary", s(&table), "-q"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for n in &stale {
        assert!(!d.join(n).exists(), "{n} (a dead run's) is still there: {:?}", names(d));
    }
    for n in &kept {
        assert!(d.join(n).exists(), "{n} was removed");
    }
    assert_eq!(rows(&out).len(), 20);

    // A real kill -9 while the CSV's temporary file is open: the rerun removes it.
    let input = big_input(d, 20_000);
    let mut child = bin()
        .current_dir(d)
        .args(["score", s(&input), "-o", s(&out), "--csv", s(&csv), "-q", "--block-size", "16"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let own = |n: &str| n.starts_with(&format!(".o.csv.{pid}.")) && n.ends_with(".tmp.csv");
    let t0 = std::time::Instant::now();
    while !names(d).iter().any(|n| own(n)) {
        assert!(t0.elapsed().as_secs() < 60, "the run's temporary CSV never appeared: {:?}", names(d));
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let left: Vec<String> = names(d).into_iter().filter(|n| own(n)).collect();
    assert_eq!(left.len(), 1, "the killed run left its temporary CSV: {:?}", names(d));
    let small = big_input(d, 20);
    let o = bin().current_dir(d).args(["score", s(&small), "-o", s(&out), "--csv", s(&csv), "-q"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!d.join(&left[0]).exists(), "{} is still there after the rerun", left[0]);
    assert!(d.join(&kept[0]).exists());
}

/// A legal 250-byte output name still works with the pid in its temporary name, and a stale
/// temporary file of such a name (shortened with a hash) is found and removed.
#[cfg(target_os = "linux")]
#[test]
fn long_names_still_fit_with_the_pid_in_the_temporary_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = big_input(d, 3);
    let long = |ext: &str| d.join(format!("{}.{ext}", "n".repeat(249 - ext.len())));
    let (lo, lc) = (long("jsonl"), long("csv"));
    let o = bin().current_dir(d).args(["score", s(&input), "-o", s(&lo), "--csv", s(&lc), "-q"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(rows(&lo).len(), 3);
    // Reproduce the shortened temporary name of the CSV with a dead pid: same prefix and suffix
    // as a live writer's (whose file this run's own temporary name would be).
    let before = names(d);
    let mut child = bin()
        .current_dir(d)
        .args(["score", s(&big_input(d, 20_000)), "-o", s(&d.join("x.jsonl")), "--csv", s(&lc), "-q", "--block-size", "16"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = std::time::Instant::now();
    let temp: PathBuf = loop {
        if let Some(n) = names(d).into_iter().find(|n| !before.contains(n) && n.contains(&format!(".{pid}.")) && n.ends_with(".tmp.csv")) {
            break d.join(n);
        }
        assert!(t0.elapsed().as_secs() < 60, "no temporary CSV: {:?}", names(d));
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(temp.file_name().unwrap().len() <= 255);
    let o = bin().current_dir(d).args(["score", s(&input), "-o", s(&lo), "--csv", s(&lc), "-q"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!temp.exists(), "{} is still there", temp.display());
}

/// With rows on standard output and standard output a terminal, the progress bar (standard
/// error, the same terminal) was glued into the rows. Run under `script` (a pseudo-terminal):
/// the bar is drawn when the rows go to a file, never when they go to the terminal.
#[test]
fn no_progress_bar_is_glued_into_rows_on_a_terminal() {
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` (util-linux) is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = big_input(d, 3000);
    let exe = env!("CARGO_BIN_EXE_factpico");
    let typescript = |cmd: &str, name: &str| -> String {
        let ts = d.join(name);
        let o = std::process::Command::new("script")
            .current_dir(d)
            .args(["-qec", &format!("{exe} score {} {cmd} --block-size 16", s(&input)), s(&ts)])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8_lossy(&std::fs::read(&ts).unwrap()).into_owned()
    };
    // The harness sees the bar where it belongs (rows to a file).
    let to_file = typescript(&format!("-o {}", s(&d.join("o.jsonl"))), "file.txt");
    assert!(to_file.contains("/3000 rows"), "no progress bar with rows to a file: {to_file}");
    for (cmd, name) in [("-o -", "rows.txt"), (&format!("-o {} --csv -", s(&d.join("p.jsonl"))) as &str, "csv.txt")] {
        let t = typescript(cmd, name);
        assert!(!t.contains("/3000 rows"), "{cmd}: a progress bar on the terminal of the rows");
        // Every row is a whole line of its own.
        let lines: Vec<&str> = t.lines().map(|l| l.trim_end_matches('\r')).collect();
        if cmd == "-o -" {
            let rows: Vec<&&str> = lines.iter().filter(|l| l.contains("\"id\":\"r")).collect();
            assert_eq!(rows.len(), 3000, "{cmd}");
            for l in rows {
                let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{cmd}: {e}: {l}"));
                assert!(v["id"].as_str().is_some_and(|id| id.starts_with('r')), "{l}");
            }
        } else {
            let is_row = |l: &str| {
                let mut cells = l.split(',');
                let (n, id) = (cells.next().unwrap_or(""), cells.next().unwrap_or(""));
                n.parse::<u64>().is_ok() && id.strip_prefix('r').is_some_and(|i| i.parse::<u64>().is_ok())
            };
            assert_eq!(lines.iter().filter(|l| is_row(l)).count(), 3000, "{cmd}");
            assert!(!lines.iter().any(|l| !is_row(l) && l.contains(",r") && !l.starts_with("row,id")), "{cmd}: a row glued to something");
        }
    }
}
