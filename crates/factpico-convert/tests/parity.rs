//! The Rust-built graphs against the torch exports of the same checkpoints
//! (`fixtures/checkpoints/*/export`, written by `onnx/export_alignscore.py` /
//! `onnx/export_minicheck.py` from `onnx/convert_fixtures.py`), both run through ONNX Runtime
//! (`factpico_runtime::PairClassifier`) on `fixtures/pairs.jsonl` + `fixtures/edge_cases.jsonl`:
//! max |Δ| ≤ 1e-5 on every output; identical token ids; manifests with the same fields.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};

use factpico_convert::{convert_alignscore, convert_roberta_sequence_classification, ConvertOptions};
use factpico_runtime::{ModelDir, PairClassifier, SessionOptions};

const TOL: f64 = 1e-5;

fn ckpts() -> PathBuf {
    common::workspace_root().join("fixtures/checkpoints")
}

/// Every fixture text: (source, summary) of pairs.jsonl and edge_cases.jsonl.
fn texts() -> Vec<(String, String)> {
    let mut out = common::fixture_texts();
    let edge = std::fs::read_to_string(common::workspace_root().join("fixtures/edge_cases.jsonl")).unwrap();
    for line in edge.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
        out.push((s("source"), s("summary")));
    }
    assert!(out.len() >= 12, "fixture texts: {}", out.len());
    out
}

/// Runs both model directories on the fixture pairs; returns max |Δ| per output and the
/// spread (max - min) of the first output's first column of the reference.
fn compare(ours: &Path, torch: &Path, outputs: &[&str]) -> (Vec<f64>, f64) {
    let opts = SessionOptions::default();
    let a = PairClassifier::load(ours, &opts).unwrap();
    let b = PairClassifier::load(torch, &opts).unwrap();
    let texts = texts();
    let pairs: Vec<(&str, &str)> = texts.iter().map(|(s, h)| (s.as_str(), h.as_str())).collect();
    let ea = a.encode_pairs(&pairs).unwrap();
    let eb = b.encode_pairs(&pairs).unwrap();
    for (x, y) in ea.iter().zip(&eb) {
        assert_eq!(x.input_ids, y.input_ids, "token ids differ");
    }
    let ra = a.run(&ea, 4).unwrap();
    let rb = b.run(&eb, 4).unwrap();
    let mut diffs = vec![0f64; outputs.len()];
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (x, y) in ra.iter().zip(&rb) {
        for (k, name) in outputs.iter().enumerate() {
            let (u, v) = (x.get(name).unwrap(), y.get(name).unwrap());
            assert_eq!(u.len(), v.len(), "{name}");
            for (p, q) in u.iter().zip(v) {
                assert!(p.is_finite(), "{name}: {p}");
                diffs[k] = diffs[k].max(f64::from((p - q).abs()));
            }
        }
        let r0 = f64::from(y.get(outputs[0]).unwrap()[0]);
        lo = lo.min(r0);
        hi = hi.max(r0);
    }
    (diffs, hi - lo)
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("factpico.json")).unwrap()).unwrap()
}

/// Same fields and values as the torch export's manifest, except provenance.
fn assert_manifest_like(ours: &Path, torch: &Path, ckpt: &Path) {
    let (mut a, mut b) = (manifest(ours), manifest(torch));
    assert_eq!(a["exporter"]["name"], "factpico-convert");
    assert_eq!(a["source"]["sha256"].as_str().unwrap(), factpico_convert::file_sha256(ckpt).unwrap());
    let ka: Vec<&String> = a.as_object().unwrap().keys().collect();
    let kb: Vec<&String> = b.as_object().unwrap().keys().collect();
    assert_eq!(ka, kb, "manifest fields");
    for m in [&mut a, &mut b] {
        m.as_object_mut().unwrap().remove("exporter");
        m.as_object_mut().unwrap().remove("source");
    }
    assert_eq!(a, b);
}

#[test]
fn alignscore_lightning_ckpt_matches_torch_export() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("alignscore");
    let dir = ckpts().join("alignscore-tiny");
    let ckpt = dir.join("AlignScore-tiny.ckpt");
    let r = convert_alignscore(&ckpt, &dir.join("roberta-tiny"), &out, &ConvertOptions::default()).unwrap();
    // all 16 weights per layer + embeddings (5) + pooler (2) + 3 heads (6)
    assert_eq!(r.weights, 5 + 16 * 2 + 2 + 6);
    assert!(r.ignored_keys.iter().all(|k| k.starts_with("mlm_head.")), "{:?}", r.ignored_keys);
    assert!(!r.ignored_keys.is_empty(), "the mlm head is in the checkpoint and must be skipped");
    let (d, spread) = compare(&out, &dir.join("export"), &["tri_logits", "bin_logits", "reg"]);
    assert!(d.iter().all(|x| *x <= TOL), "max |Δ| per output {d:?}");
    assert!(spread > 0.5, "reference outputs do not vary ({spread}): the comparison would be weak");
    assert_manifest_like(&out, &dir.join("export"), &ckpt);
    // weights are external data, and the model hash covers them
    assert!(out.join("model.onnx.data").metadata().unwrap().len() > 4 * 100_000);
    let md = ModelDir::open(&out).unwrap();
    assert_ne!(md.model_sha256().unwrap(), factpico_runtime::file_sha256(&out.join("model.onnx")).unwrap());
}

#[test]
fn hostile_ckpt_converts_identically_and_never_runs_its_calls() {
    let marker = Path::new("/tmp/factpico-convert-fixture-pwned");
    let _ = std::fs::remove_file(marker);
    let tmp = tempfile::tempdir().unwrap();
    let dir = ckpts().join("alignscore-tiny");
    let clean = tmp.path().join("clean");
    let hostile = tmp.path().join("hostile");
    convert_alignscore(&dir.join("AlignScore-tiny.ckpt"), &dir.join("roberta-tiny"), &clean, &ConvertOptions::default())
        .unwrap();
    let r = convert_alignscore(
        &dir.join("AlignScore-tiny-hostile.ckpt"),
        &dir.join("roberta-tiny"),
        &hostile,
        &ConvertOptions::default(),
    )
    .unwrap();
    assert!(!marker.exists(), "a pickled call was executed");
    for g in ["posix.system", "__builtin__.eval", "pytorch_lightning.utilities.parsing.AttributeDict"] {
        assert!(r.ignored_globals.iter().any(|x| x == g), "{g} not reported: {:?}", r.ignored_globals);
    }
    for f in ["model.onnx", "model.onnx.data", "tokenizer.json"] {
        assert_eq!(std::fs::read(clean.join(f)).unwrap(), std::fs::read(hostile.join(f)).unwrap(), "{f}");
    }
}

#[test]
fn minicheck_safetensors_and_bin_match_torch_export() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = ckpts().join("minicheck-roberta-tiny");
    let mut data = Vec::new();
    for (name, weights) in [("st", "model.safetensors"), ("bin", "pytorch_model.bin")] {
        let out = tmp.path().join(name);
        let r = convert_roberta_sequence_classification(&dir, Some(&dir.join(weights)), &out, &ConvertOptions::default())
            .unwrap();
        assert_eq!(r.weights, 5 + 16 * 2 + 4);
        let (d, spread) = compare(&out, &dir.join("export"), &["logits"]);
        assert!(d[0] <= TOL, "{weights}: max |Δ| {d:?}");
        assert!(spread > 0.5, "reference logits do not vary ({spread})");
        assert_manifest_like(&out, &dir.join("export"), &dir.join(weights));
        data.push(std::fs::read(out.join("model.onnx.data")).unwrap());
    }
    assert_eq!(data[0], data[1], "safetensors and pytorch_model.bin give different weights");
    // default weights file: model.safetensors
    let r = convert_roberta_sequence_classification(&dir, None, &tmp.path().join("default"), &ConvertOptions::default())
        .unwrap();
    assert_eq!(r.format, factpico_convert::Format::Safetensors);
}

#[test]
fn tokenizer_matches_torch_export_on_all_fixture_texts() {
    for (src, export) in [("alignscore-tiny/roberta-tiny", "alignscore-tiny/export"), ("minicheck-roberta-tiny", "minicheck-roberta-tiny/export")] {
        let ours = factpico_convert::tokenizer::roberta_tokenizer(&ckpts().join(src)).unwrap();
        let theirs = tokenizers::Tokenizer::from_file(ckpts().join(export).join("tokenizer.json")).unwrap();
        let mut n = 0;
        for (s, h) in texts() {
            for add in [true, false] {
                for t in [&s, &h] {
                    let a = ours.encode(t.as_str(), add).unwrap();
                    let b = theirs.encode(t.as_str(), add).unwrap();
                    assert_eq!(a.get_ids(), b.get_ids(), "{t:?}");
                    assert_eq!(a.get_offsets(), b.get_offsets(), "{t:?}");
                }
                let a = ours.encode((s.as_str(), h.as_str()), add).unwrap();
                let b = theirs.encode((s.as_str(), h.as_str()), add).unwrap();
                assert_eq!(a.get_ids(), b.get_ids());
                n += 1;
            }
            let special = "<s>a<mask> b</s><pad>";
            assert_eq!(ours.encode(special, true).unwrap().get_ids(), theirs.encode(special, true).unwrap().get_ids());
        }
        assert!(n > 20);
    }
}

#[test]
fn output_directory_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = ckpts().join("minicheck-roberta-tiny");
    let out = tmp.path().join("m");
    let opts = ConvertOptions::default();
    convert_roberta_sequence_classification(&dir, None, &out, &opts).unwrap();
    // non-empty: refused unless overwrite
    let e = convert_roberta_sequence_classification(&dir, None, &out, &opts).unwrap_err();
    assert!(e.to_string().contains("not empty"), "{e}");
    let over = ConvertOptions { overwrite: true, ..ConvertOptions::default() };
    convert_roberta_sequence_classification(&dir, None, &out, &over).unwrap();
    // a symlink as output: refused, target untouched
    #[cfg(unix)]
    {
        let target = tmp.path().join("target");
        std::fs::create_dir(&target).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = convert_roberta_sequence_classification(&dir, None, &link, &over).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0);
    }
    // a failed conversion leaves nothing behind
    let bad = tmp.path().join("bad");
    let e = convert_alignscore(&dir.join("model.safetensors"), &dir, &bad, &opts).unwrap_err();
    assert!(e.to_string().contains("missing weight"), "{e}");
    assert!(!bad.exists());
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".factpico-convert-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
