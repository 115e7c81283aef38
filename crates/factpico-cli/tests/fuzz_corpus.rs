//! Replays the committed fuzz corpus through the fuzz harnesses (`factpico_cli::fuzzing`):
//! the seeds (`fuzz/seeds/<target>/`) and every crash reproducer found by `cargo xtask fuzz`
//! (`fuzz/regressions/<target>/`). Runs in CI; the fuzzing itself does not.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::Path;

use factpico_cli::fuzzing;
use factpico_cli::input::Format;

fn replay(target: &str, harness: impl Fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut n = 0;
    for kind in ["seeds", "regressions"] {
        let Ok(rd) = std::fs::read_dir(root.join(kind).join(target)) else { continue };
        let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            let data = std::fs::read(&p).unwrap();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| harness(&data)));
            assert!(r.is_ok(), "{target}: {} breaks an invariant of the reader", p.display());
            n += 1;
        }
    }
    n
}

#[test]
fn fuzz_seeds_and_reproducers_replay_cleanly() {
    let mut counts = Vec::new();
    for (t, f) in [("jsonl", Format::Jsonl), ("json_array", Format::Json), ("csv", Format::Csv), ("tsv", Format::Tsv)] {
        counts.push((t, replay(t, |d| fuzzing::read_input(f, d))));
    }
    counts.push(("conllu", replay("conllu", fuzzing::read_conllu)));
    counts.push(("json_arcs", replay("json_arcs", fuzzing::read_json_arcs)));
    eprintln!("fuzz corpus replayed: {counts:?}");
    assert!(counts.iter().all(|(_, n)| *n >= 2), "every target has seeds: {counts:?}");
}
