//! Helpers shared by the end-to-end tests of the LLM metrics (`tests/llm*.rs`), which also
//! include the real-server harness of `crates/factpico-llm/tests/support` as `support`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The binary, run in `dir` (a test's own scratch directory).
pub fn bin(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_factpico"));
    c.current_dir(dir);
    c
}

/// The repository's `fixtures/` directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// `(stdout, stderr)` of a finished run, lossily decoded.
pub fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// The rows of a JSONL file, as written.
pub fn rows(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The rows of a score file, each joined with the run's provenance (output schema 3 writes it
/// once, beside the rows, as `OUT.provenance.json`) under `provenance`, after checking that
/// every row references it (`run`).
pub fn rows_with_provenance(out: &Path) -> Vec<Value> {
    let p = format!("{}.provenance.json", out.display());
    let prov: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    let mut rows = rows(out);
    for r in &mut rows {
        assert_eq!(r["run"], factpico::provenance_hash(&prov).as_str(), "{r}");
        r["provenance"] = prov.clone();
    }
    rows
}

/// The first number after `after` in `s` (digits and one decimal point).
pub fn number_after(s: &str, after: &str) -> f64 {
    let i = s.find(after).unwrap_or_else(|| panic!("{after:?} not in {s}")) + after.len();
    let n: String = s[i..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    n.parse().unwrap_or_else(|_| panic!("no number after {after:?} in {s}"))
}

/// The run report of `metric` in a `--summary` table: `(what, value)` pairs.
pub fn report(summary: &str, metric: &str) -> BTreeMap<String, String> {
    let head = format!("**{metric}** — ");
    let line = summary.lines().find(|l| l.starts_with(&head)).unwrap_or_else(|| panic!("no report of {metric} in {summary}"));
    line[head.len()..]
        .split("; ")
        .filter_map(|kv| kv.split_once(": "))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// `(prompt, completion)` of a report value `P prompt + C completion`.
pub fn tokens(v: &str) -> (u64, u64) {
    let (p, c) = v.split_once(" prompt + ").unwrap_or_else(|| panic!("{v}"));
    (p.parse().unwrap(), c.trim_end_matches(" completion").parse().unwrap())
}
