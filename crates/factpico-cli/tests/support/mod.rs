//! Helpers shared by the end-to-end test files of the `factpico` binary.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The binary, run in a scratch directory: runs without `-o` write their default output
/// (`<stem>.scores.jsonl` in the current directory) there, never into the source tree.
pub fn bin() -> Command {
    static SCRATCH: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let cwd = SCRATCH.get_or_init(|| tempfile::tempdir().unwrap());
    let mut c = Command::new(env!("CARGO_BIN_EXE_factpico"));
    c.current_dir(cwd.path());
    c
}

/// The repository's `fixtures/` directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Runs the binary to completion.
pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// Standard error of a finished run.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The rows of a JSONL file.
pub fn rows(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The run's provenance written once beside a JSONL output (`OUT.provenance.json`, output
/// schema 3), after checking that every row of `out` references it (`run`).
pub fn provenance(out: &Path) -> Value {
    let p = PathBuf::from(format!("{}.provenance.json", out.display()));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let v: Value = serde_json::from_str(&text).unwrap();
    let run = factpico::provenance_hash(&v);
    for r in rows(out) {
        assert_eq!(r["run"], run.as_str(), "row {} references run {} but {} is run {run}", r["id"], r["run"], p.display());
        assert!(r.get("provenance").is_none(), "schema-3 rows carry no provenance: {r}");
    }
    v
}

/// The rows of a schema-3 JSONL output, each joined with the run's provenance (written once
/// beside the rows as `OUT.provenance.json`) under `provenance`, after [`provenance`]'s checks.
pub fn rows_with_provenance(out: &Path) -> Vec<Value> {
    let prov = provenance(out);
    let mut rows = rows(out);
    for r in &mut rows {
        r["provenance"] = prov.clone();
    }
    rows
}

/// Writes `bytes` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A readable JSONL row (id `a`).
pub const GOOD: &str = r#"{"id":"a","source":"Aspirin reduced pain in 40 adults.","summary":"Aspirin helped adults with pain."}"#;

/// `n` rows cycling through the bundled fixture pairs, ids `r0`.. (`dir/big.jsonl`).
pub fn big_input(dir: &Path, n: usize) -> PathBuf {
    use std::io::Write;
    let src: Vec<String> =
        std::fs::read_to_string(fixtures().join("pairs.jsonl")).unwrap().lines().map(str::to_owned).collect();
    let mut f = std::io::BufWriter::new(std::fs::File::create(dir.join("big.jsonl")).unwrap());
    for i in 0..n {
        let mut v: Value = serde_json::from_str(&src[i % src.len()]).unwrap();
        v["id"] = Value::String(format!("r{i}"));
        writeln!(f, "{v}").unwrap();
    }
    f.flush().unwrap();
    dir.join("big.jsonl")
}

/// `path` as a `&str`.
pub fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Links `home/ort` to this machine's ONNX Runtime library folder (`$FACTPICO_HOME/ort`, else
/// `$XDG_CACHE_HOME/factpico/ort`, else `~/.cache/factpico/ort`), so that a test with a fresh
/// `FACTPICO_HOME` (an empty model store) still scores.
pub fn link_ort_into(home: &Path) {
    let real_home = std::env::var_os("FACTPICO_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(|| {
        std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"))
            .join("factpico")
    });
    std::fs::create_dir_all(home).unwrap();
    std::os::unix::fs::symlink(real_home.join("ort"), home.join("ort")).unwrap();
}
