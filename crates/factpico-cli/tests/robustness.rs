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
