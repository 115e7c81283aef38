//! The metric units through the binary: `--device`, per-row side inputs
//! (`--input-field`), the warning about flags of unselected metrics for any unit flag,
//! `--explain` rendered by the units, and `factpico metrics`' unit table.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    static SCRATCH: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let cwd = SCRATCH.get_or_init(|| tempfile::tempdir().unwrap());
    let mut c = Command::new(env!("CARGO_BIN_EXE_factpico"));
    c.current_dir(cwd.path());
    c
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn pairs() -> String {
    fixtures().join("pairs.jsonl").to_str().unwrap().to_owned()
}

#[test]
fn device_values_are_checked() {
    let o = run(&["score", &pairs(), "-q", "-o", "-", "--device", "tpu"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("expected cpu, cuda or cuda:N"), "{}", stderr(&o));
    // Model-free metrics ignore the device.
    let o = run(&["score", &pairs(), "-q", "-o", "-", "--device", "cuda:1", "--metrics", "rougeL"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// `--device cuda` reaches the runtime's CUDA execution provider; with the CPU-only ONNX
/// Runtime library of `factpico setup ort` (no GPU here) it is a setup error before any row,
/// saying what to install.
#[cfg(feature = "alignscore")]
#[test]
fn device_cuda_without_a_cuda_onnx_runtime_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.jsonl");
    let model = fixtures().join("models/alignscore-tiny");
    let o = run(&[
        "score",
        &pairs(),
        "-q",
        "-o",
        out.to_str().unwrap(),
        "--metrics",
        "alignscore",
        "--alignscore-model",
        model.to_str().unwrap(),
        "--device",
        "cuda",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("could not initialise metric `alignscore`")
            && e.contains("the CUDA execution provider cannot be used"),
        "{e}"
    );
    if cfg!(feature = "cuda") {
        assert!(e.contains("onnxruntime-gpu") && e.contains("ORT_DYLIB_PATH") && e.contains("--device cpu"), "{e}");
    } else {
        assert!(e.contains("cargo feature `cuda`"), "{e}");
    }
    assert!(!out.exists() && !dir.path().join("o.jsonl.partial").exists(), "nothing written before the error");
    eprintln!("--device cuda: {}", e.trim());
}

#[test]
fn input_fields_must_name_an_input_a_selected_metric_reads() {
    let o = run(&["score", &pairs(), "-q", "-o", "-", "--input-field", "evidence=spans"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no selected metric reads a per-row input `evidence` (selected metrics read: none)"),
        "{}",
        stderr(&o)
    );
    let o = run(&["score", &pairs(), "-q", "-o", "-", "--input-field", "evidence"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("expected NAME=FIELD"), "{}", stderr(&o));
}

#[test]
fn any_unit_flag_of_an_unselected_metric_is_reported() {
    let o = run(&["score", &pairs(), "-o", "-", "--metrics", "fkgl", "--rouge-stemmer", "false", "--answers", "rules"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("warning: --rouge-stemmer is ignored: it is used by --metrics rougeL (selected: fkgl)"), "{e}");
    assert!(
        e.contains(
            "warning: --answers is ignored: it is used by --metrics questeval or qafacteval or cloze (selected: fkgl)"
        ),
        "{e}"
    );
    // An alias selects its metric: no warning.
    let o = run(&["score", &pairs(), "-o", "-", "--metrics", "rouge-l", "--rouge-stemmer", "false"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("is ignored"), "{}", stderr(&o));
}

#[test]
fn metrics_lists_units_aliases_and_inputs() {
    let o = run(&["metrics"]);
    assert!(o.status.success());
    let t = String::from_utf8(o.stdout).unwrap();
    assert!(t.contains("| unit (options key) | metrics | aliases | per-row inputs | in this build |"), "{t}");
    assert!(t.contains("| qa | questeval, qafacteval, cloze | – | – |"), "{t}");
    assert!(t.contains("rouge-l → rougeL"), "{t}");
    assert!(t.contains("| readability | fkgl, fre | flesch_kincaid → fkgl, fk → fkgl | – | yes |"), "{t}");
}

/// `--explain` for AlignScore: one line per summary sentence with its score and the abstract
/// chunk that supports it best, quoted from the texts.
#[cfg(feature = "alignscore")]
#[test]
fn explain_shows_alignscore_sentence_support() {
    let model = fixtures().join("models/alignscore-tiny");
    let o = run(&[
        "score",
        &pairs(),
        "-q",
        "-o",
        "-",
        "--metrics",
        "alignscore",
        "--explain",
        "--alignscore-model",
        model.to_str().unwrap(),
        "--alignscore-words-per-chunk",
        "20",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("-- alignscore: alignscore="), "{e}");
    assert!(e.contains("nli_sp: summary sentences, max over"), "{e}");
    let support = e.lines().filter(|l| l.contains("| best evidence: \"")).count();
    assert!(support >= 12, "one supported-by line per summary sentence: {support}\n{e}");
}
