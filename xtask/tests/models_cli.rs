//! `cargo xtask models` as a user runs it, where the model hub does not answer: the command
//! must stop within seconds with a message saying which files to place where (no venv is
//! built, nothing is written), and `--list` must show every model with its command.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn xtask(args: &[&str], endpoint: &str, home: &PathBuf) -> (Output, Duration) {
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .env("HF_ENDPOINT", endpoint)
        .env("FACTPICO_HOME", home)
        // No export interpreter: if the command tried to build a venv, it would take minutes.
        .env_remove("FACTPICO_EXPORT_PYTHON")
        .output()
        .unwrap();
    (out, t.elapsed())
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xtask-models-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The hub accepts the TCP connection but never answers (as behind a filtering proxy): the
/// 5 s HEAD timeout applies, every source in parallel.
#[test]
fn silent_hub_gives_the_placement_message_within_seconds() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let home = scratch("silent");
    let out_dir = home.join("qa-out");
    let (out, took) = xtask(&["models", "questeval-qa", "--out", out_dir.to_str().unwrap()], &endpoint, &home);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
    for want in [
        "questeval-qa cannot be downloaded from here",
        "did not answer within 5 s",
        "DIR/config.json",
        "DIR/pytorch_model.bin|model.safetensors",
        "DIR/spiece.model",
        "/ThomasNLG/t5-qa_squad2neg-en (file spiece.model)",
        "cargo xtask models questeval-qa --from DIR --out",
        "--questeval-qa-model",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    assert!(!out_dir.exists(), "nothing may be written");
    assert!(!home.join("downloads").exists(), "nothing may be downloaded");
    drop(listener);
    std::fs::remove_dir_all(&home).unwrap();
}

/// Nothing listens at all: the message comes at once.
#[test]
fn closed_hub_port_is_reported_immediately() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let home = scratch("closed");
    let (out, took) = xtask(&["models", "alignscore-large"], &format!("http://127.0.0.1:{port}"), &home);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(err.contains("DIR/AlignScore-large.ckpt"), "{err}");
    assert!(err.contains("DIR/roberta-large/merges.txt"), "{err}");
    assert!(err.contains("cargo xtask models alignscore-large --from DIR\n"), "{err}");
    std::fs::remove_dir_all(&home).unwrap();
}

/// Google Drive models are never fetched by script: the message names the Drive file and the
/// hub part of the same model.
#[test]
fn drive_model_says_what_to_download_by_hand() {
    let home = scratch("drive");
    let (out, took) = xtask(&["models", "qafacteval-qg"], "http://127.0.0.1:9", &home);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(err.contains("Google Drive: no scripted download"), "{err}");
    assert!(err.contains("DIR/model.tar.gz"), "{err}");
    assert!(err.contains("do not unpack"), "{err}");
    assert!(err.contains("DIR/bart-large/vocab.json"), "{err}");
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn list_shows_every_metric_family_with_commands() {
    let home = scratch("list");
    let (out, _) = xtask(&["models", "--list"], "http://127.0.0.1:9", &home);
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    for name in ["alignscore-base", "alignscore-large", "dae-xsum", "questeval-qg", "questeval-qa", "questeval-bertscore",
        "qafacteval-qg", "qafacteval-qa", "qafacteval-lerc"]
    {
        assert!(s.contains(&format!("command: cargo xtask models {name} [--from DIR]")), "{name}:\n{s}");
    }
    assert!(s.contains("replica: cargo xtask replicas --only qafacteval-qg"), "{s}");
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn unknown_model_lists_the_known_ones() {
    let home = scratch("unknown");
    let (out, _) = xtask(&["models", "alignscore"], "http://127.0.0.1:9", &home);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("unknown model \"alignscore\"; known: alignscore-base, alignscore-large"), "{err}");
    std::fs::remove_dir_all(&home).unwrap();
}
