//! Starts `llm_harness.py` (a real llama.cpp server from PyPI `xllamacpp`, behind a
//! fault-injecting proxy) and talks to it over its stdin/stdout.
//!
//! The interpreter: `$FACTPICO_LLM_PYTHON` (set by `cargo xtask test`, which creates the venv
//! `$FACTPICO_HOME/llm-venv` with `xllamacpp` and `gguf`), else that venv if it exists. Without
//! one the tests print a visible SKIP line — and fail under `FACTPICO_REQUIRE_SHARED=1` or
//! `FACTPICO_REQUIRE_LLM=1` (CI).
#![allow(dead_code, missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

use serde_json::{json, Value};

/// Path of the harness script.
pub fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap()
        .join("crates/factpico-llm/tests/support/llm_harness.py")
}

fn factpico_home() -> PathBuf {
    if let Some(p) = std::env::var_os("FACTPICO_HOME").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_CACHE_HOME").filter(|p| !p.is_empty()) {
        return PathBuf::from(p).join("factpico");
    }
    PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache").join("factpico")
}

/// The Python with `xllamacpp` and `gguf`, or `None` after printing SKIP (panics when required).
pub fn python(test: &str) -> Option<PathBuf> {
    let p = std::env::var_os("FACTPICO_LLM_PYTHON")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| Some(factpico_home().join("llm-venv/bin/python")).filter(|p| p.exists()));
    let required = ["FACTPICO_REQUIRE_SHARED", "FACTPICO_REQUIRE_LLM"].iter().any(|v| std::env::var(v).is_ok_and(|v| v == "1"));
    match p {
        Some(p) => Some(p),
        None if required => panic!("{test}: no Python with xllamacpp + gguf (run `cargo xtask llm-venv` or set FACTPICO_LLM_PYTHON)"),
        None => {
            eprintln!("SKIP {test}: no Python with xllamacpp + gguf (run `cargo xtask llm-venv`, or set FACTPICO_LLM_PYTHON)");
            None
        }
    }
}

/// A running harness: a llama.cpp server and the proxy in front of it.
pub struct Harness {
    child: Child,
    stdin: Mutex<ChildStdin>,
    stdout: Mutex<BufReader<ChildStdout>>,
    /// The proxy's base URL (ending in `/v1`): what factpico is pointed at.
    pub url: String,
    /// The server's own URL (no `/v1`).
    pub backend: String,
    /// The GGUF file served.
    pub model: String,
}

impl Harness {
    /// Starts the harness with the tiny random GGUF (`None` when skipped).
    pub fn start(test: &str) -> Option<Self> {
        Self::start_with(test, &[])
    }

    /// Starts the harness with extra arguments (`--model PATH`, `--parallel N`).
    pub fn start_with(test: &str, args: &[&str]) -> Option<Self> {
        let py = python(test)?;
        let mut child = Command::new(py)
            .arg(script())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start llm_harness.py");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("harness start-up line {line:?}: {e}"));
        Some(Self {
            url: v["proxy"].as_str().unwrap().to_owned(),
            backend: v["backend"].as_str().unwrap().to_owned(),
            model: v["model"].as_str().unwrap().to_owned(),
            child,
            stdin: Mutex::new(stdin),
            stdout: Mutex::new(stdout),
        })
    }

    /// Sends a command, returns its answer.
    pub fn cmd(&self, c: Value) -> Value {
        let mut i = self.stdin.lock().unwrap();
        writeln!(i, "{c}").unwrap();
        i.flush().unwrap();
        let mut line = String::new();
        self.stdout.lock().unwrap().read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert!(v.get("error").is_none(), "harness: {v}");
        v
    }

    /// Queues per-request faults (and an optional delay for every later request).
    pub fn faults(&self, faults: Value) {
        self.cmd(json!({"cmd": "faults", "faults": faults}));
    }

    /// Delays every later chat request by `s` seconds.
    pub fn delay(&self, s: f64) {
        self.cmd(json!({"cmd": "faults", "faults": [], "delay": s}));
    }

    /// Counters, arrival times, Authorization headers, recent bodies.
    pub fn state(&self) -> Value {
        self.cmd(json!({"cmd": "state"}))
    }

    /// Chat requests received by the proxy so far.
    pub fn chat_requests(&self) -> u64 {
        self.state()["counters"]["chat"].as_u64().unwrap()
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
