//! Shared helpers for the workspace-level tests: locating `../shared`, the
//! skip-or-fail rule, and the real-data corpus (identical to
//! `tests/goldens/corpus.py`, which the golden generators use).
#![allow(dead_code, missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

/// Workspace root (the directory holding `Cargo.lock`), found from the
/// including package's manifest directory (this module is also included by
/// crate-level tests via `#[path]`).
pub fn workspace_root() -> PathBuf {
    let start = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    start
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .map(Path::to_path_buf)
        .unwrap_or(start)
}

/// `$FACTPICO_SHARED`, else `<workspace>/../shared`, if it exists.
pub fn shared_root() -> Option<PathBuf> {
    let p = match std::env::var_os("FACTPICO_SHARED") {
        Some(p) => PathBuf::from(p),
        None => workspace_root().join("..").join("shared"),
    };
    p.is_dir().then_some(p)
}

/// True when `FACTPICO_REQUIRE_SHARED=1` (set by `.ci/run`): absence of shared data fails.
pub fn shared_required() -> bool {
    std::env::var("FACTPICO_REQUIRE_SHARED").is_ok_and(|v| v == "1")
}

/// Returns `<shared>/<rel>` when present. When absent: panics under
/// `FACTPICO_REQUIRE_SHARED=1`, else prints a visible SKIP line and returns `None`.
pub fn require_shared(test: &str, rel: &str) -> Option<PathBuf> {
    let found = shared_root().map(|r| r.join(rel)).filter(|p| p.exists());
    if found.is_none() {
        if shared_required() {
            panic!("{test}: ../shared/{rel} is missing and FACTPICO_REQUIRE_SHARED=1");
        }
        eprintln!("SKIP {test}: ../shared/{rel} not found (set FACTPICO_SHARED or check out shared/ beside the repo)");
    }
    found
}

/// One real (abstract, plain-language summary) pair.
#[derive(Debug, Clone)]
pub struct Pair {
    /// `ilq:<PMCID>` or `sh_<12 hex of sha256(abstract)>`.
    pub id: String,
    pub source: String,
    pub summary: String,
}

fn sha256_hex(s: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(s.as_bytes()))
}

/// All 300 real pairs (200 InfoLossQA, 100 Shaib 2023), in the order of `corpus.py`.
/// `None` (after the SKIP message) when `../shared` is absent.
pub fn real_pairs(test: &str) -> Option<Vec<Pair>> {
    let ilq = require_shared(test, "data/infolossqa/processed/documents.json")?;
    let sh = require_shared(test, "data/shaib2023/single-doc-annotations/single_doc_annotations_1.csv")?;
    let docs: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&ilq).unwrap()).unwrap();
    let mut out = Vec::with_capacity(300);
    for d in &docs {
        out.push(Pair {
            id: format!("ilq:{}", d["PMCID"]),
            source: d["abstract"].as_str().unwrap().to_owned(),
            summary: d["simplification"].as_str().unwrap().to_owned(),
        });
    }
    let mut rdr = csv::Reader::from_path(&sh).unwrap();
    let headers = rdr.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (a, s) = (col("abstract"), col("plain_summary"));
    for rec in rdr.records() {
        let rec = rec.unwrap();
        let abs = rec.get(a).unwrap().to_owned();
        out.push(Pair {
            id: format!("sh_{}", &sha256_hex(&abs)[..12]),
            source: abs,
            summary: rec.get(s).unwrap().to_owned(),
        });
    }
    Some(out)
}

/// Every abstract and summary as `(text_id, text)`, ids `<pair_id>:source|summary`.
pub fn real_texts(test: &str) -> Option<Vec<(String, String)>> {
    let pairs = real_pairs(test)?;
    let mut out = Vec::with_capacity(pairs.len() * 2);
    for p in pairs {
        out.push((format!("{}:source", p.id), p.source));
        out.push((format!("{}:summary", p.id), p.summary));
    }
    Some(out)
}

/// Reads a committed golden JSON file under `tests/goldens/`.
pub fn golden(name: &str) -> serde_json::Value {
    let p: &Path = &workspace_root().join("tests").join("goldens").join(name);
    let text = std::fs::read_to_string(p)
        .unwrap_or_else(|e| panic!("golden file {} unreadable: {e}", p.display()));
    serde_json::from_str(&text).unwrap()
}

/// The self-written fixture pairs (`fixtures/pairs.jsonl` then `fixtures/edge_cases.jsonl`),
/// in the order of `corpus.py::fixture_pairs`. Always available.
pub fn fixture_pairs() -> Vec<Pair> {
    let mut out = Vec::new();
    for name in ["pairs.jsonl", "edge_cases.jsonl"] {
        let text = std::fs::read_to_string(workspace_root().join("fixtures").join(name)).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            out.push(Pair {
                id: v["id"].as_str().unwrap().to_owned(),
                source: v["source"].as_str().unwrap().to_owned(),
                summary: v["summary"].as_str().unwrap().to_owned(),
            });
        }
    }
    out
}

/// Every fixture source and summary as `(text_id, text)`.
pub fn fixture_texts() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in fixture_pairs() {
        out.push((format!("{}:source", p.id), p.source));
        out.push((format!("{}:summary", p.id), p.summary));
    }
    out
}
