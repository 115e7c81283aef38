//! Guards of the metric units (issue 11):
//!
//! * every built-in metric, built with its unit's fixture options
//!   (`fixtures/units/<key>.json`, the fixture models in `fixtures/models`), writes exactly
//!   its registry columns — no more, no fewer — on every row of `fixtures/pairs.jsonl` and
//!   `fixtures/edge_cases.jsonl`, with a reason for every null;
//! * every unit has a fixture file and is compiled into this test build (the `onnx`
//!   umbrella feature covers every model-based unit);
//! * every alias resolves to its metric, and every unit's explanation renders its
//!   metrics' details from the JSON alone.
//!
//! Units that need the spaCy sidecar (`"needs": ["sidecar"]`) print SKIP without it,
//! except under `FACTPICO_REQUIRE_SHARED=1` (CI), where they fail. Units that need an LLM
//! server (`"needs": ["llm-server"]`) get a real llama.cpp server with a tiny random GGUF
//! (`crates/factpico-llm/tests/support`), with the same SKIP rule.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;
#[path = "../crates/factpico-llm/tests/support/mod.rs"]
mod llm_support;

use std::collections::BTreeSet;
use std::path::PathBuf;

use factpico::{metric_info, registry, Pair, Scorer, ScorerOptions};

fn root() -> PathBuf {
    common::workspace_root()
}

fn rows(file: &str) -> Vec<(String, String, String)> {
    std::fs::read_to_string(root().join("fixtures").join(file))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| v[k].as_str().unwrap().to_owned();
            (s("id"), s("source"), s("summary"))
        })
        .collect()
}

fn sidecar_available() -> bool {
    std::env::var_os(factpico_nlp::sidecar::PYTHON_ENV).is_some()
        || factpico_nlp::sidecar::default_venv_python().is_some_and(|p| p.exists())
}

/// The unit's fixture: `ScorerOptions` with its section and runtime options set, and its needs.
fn fixture(key: &str) -> (ScorerOptions, Vec<String>) {
    let path = root().join("fixtures/units").join(format!("{key}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("unit `{key}` has no fixture file {} ({e}): add one (docs/adding-a-metric.md)", path.display())
    });
    let f: serde_json::Value = serde_json::from_str(&text).unwrap();
    // Model paths are relative to the workspace root.
    fn absolutise(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::String(s) if s.starts_with("fixtures/") => *s = root().join(&*s).display().to_string(),
            serde_json::Value::Object(o) => o.values_mut().for_each(absolutise),
            serde_json::Value::Array(a) => a.iter_mut().for_each(absolutise),
            _ => {}
        }
    }
    let mut section = f["options"].clone();
    absolutise(&mut section);
    let mut o = serde_json::to_value(ScorerOptions::default()).unwrap();
    o[key] = section;
    if let Some(rt) = f.get("runtime") {
        o["runtime"] = rt.clone();
    }
    let options: ScorerOptions =
        serde_json::from_value(o).unwrap_or_else(|e| panic!("{}: not valid `{key}` options: {e}", path.display()));
    let needs = f
        .get("needs")
        .and_then(|n| n.as_array())
        .map_or_else(Vec::new, |a| a.iter().map(|x| x.as_str().unwrap().to_owned()).collect());
    (options, needs)
}

#[test]
fn every_builtin_metric_writes_exactly_its_registry_columns_on_the_fixtures() {
    let pairs: Vec<(String, String, String)> =
        rows("pairs.jsonl").into_iter().chain(rows("edge_cases.jsonl")).collect();
    let mut checked = 0;
    let mut metrics_checked = Vec::new();
    let mut skipped = 0;
    let scratch = tempfile::tempdir().unwrap();
    for unit in factpico::units::units() {
        assert!(
            unit.compiled_in,
            "unit `{}` is not compiled into this test build: add its feature to `onnx` in crates/factpico/Cargo.toml",
            unit.key
        );
        let (mut options, needs) = fixture(unit.key);
        if needs.iter().any(|n| n == "sidecar") && !sidecar_available() {
            if common::shared_required() {
                panic!("unit `{}` needs the spaCy sidecar and FACTPICO_REQUIRE_SHARED=1", unit.key);
            }
            eprintln!("SKIP unit `{}`: no spaCy sidecar (cargo xtask sidecar)", unit.key);
            skipped += unit.metrics.len();
            continue;
        }
        // A real server for the LLM unit (dropped, i.e. stopped, after the unit).
        let _server = if needs.iter().any(|n| n == "llm-server") {
            let Some(h) = llm_support::Harness::start(&format!("units guard `{}`", unit.key)) else {
                skipped += unit.metrics.len();
                continue;
            };
            options.llm.base_url = Some(h.url.clone());
            options.llm.runtime.cache = Some(scratch.path().join("llm-cache.sqlite"));
            Some(h)
        } else {
            None
        };
        for info in unit.metrics {
            options.metrics = vec![info.name.to_owned()];
            let scorer = Scorer::try_new(options.clone())
                .unwrap_or_else(|e| panic!("{}: {}", info.name, factpico::error_chain(&e)));
            let want: BTreeSet<&str> = info.columns.iter().map(|c| c.name).collect();
            assert_eq!(scorer.columns().into_iter().collect::<BTreeSet<_>>(), want);
            let batch: Vec<Pair<'_>> = pairs.iter().map(|(id, s, m)| Pair::new(id, s, m)).collect();
            for (r, (id, _, _)) in scorer.score_pairs(&batch).iter().zip(&pairs) {
                let got: BTreeSet<&str> = r.scores.keys().map(String::as_str).collect();
                assert_eq!(got, want, "{} row {id}: columns written vs registry columns", info.name);
                assert!(r.errors.is_empty(), "{} row {id}: {:?}", info.name, r.errors);
                for (c, v) in &r.scores {
                    if v.is_none() {
                        assert!(r.nulls.contains_key(c), "{} row {id}: null {c} without a reason", info.name);
                    } else {
                        let col = info.columns.iter().find(|x| x.name == c).unwrap();
                        let x = v.unwrap();
                        assert!(x.is_finite(), "{} row {id}: {c} = {x}", info.name);
                        assert!(
                            col.min.is_none_or(|m| x >= m - 1e-9) && col.max.is_none_or(|m| x <= m + 1e-9),
                            "{} row {id}: {c} = {x} outside its registry range",
                            info.name
                        );
                    }
                }
                // The unit renders whatever detail it wrote, from the JSON alone.
                if let Some(d) = r.details.get(info.name) {
                    let blocks = factpico::explain_metric(info.name, d);
                    assert!(!blocks.is_empty(), "{} row {id}: no explanation of its detail", info.name);
                    let round: serde_json::Value = serde_json::to_value(&blocks).unwrap();
                    assert_eq!(serde_json::from_value::<Vec<factpico::ExplainBlock>>(round).unwrap(), blocks);
                }
                checked += 1;
            }
            metrics_checked.push(info.name);
        }
    }
    eprintln!(
        "units guard: {checked} rows checked over {} metrics ({})",
        metrics_checked.len(),
        metrics_checked.join(", ")
    );
    let all: Vec<&str> = registry().iter().map(|m| m.name).collect();
    assert_eq!(metrics_checked.len() + skipped, all.len(), "checked {metrics_checked:?}, skipped {skipped}, registry {all:?}");
}

#[test]
fn every_alias_resolves_to_its_metric() {
    let mut n = 0;
    for m in registry() {
        assert!(std::ptr::eq(metric_info(m.name).unwrap(), m), "{}", m.name);
        for a in m.aliases {
            let got = metric_info(a).unwrap_or_else(|| panic!("alias {a} of {} does not resolve", m.name));
            assert!(std::ptr::eq(got, m), "alias {a} resolves to {}, not {}", got.name, m.name);
            n += 1;
        }
    }
    assert!(metric_info("no-such-metric").is_none());
    eprintln!("units guard: {n} aliases resolve");
}
