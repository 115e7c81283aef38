//! A real headless Chromium driven through WebDriver (Debian's `chromium` and
//! `chromium-driver`), for the `factpico report` tests and the report benchmark.
//!
//! `chromedriver` is started on a free loopback port with a fresh profile directory; Chromium
//! runs with the flags this sandbox needs (`--no-sandbox` as root, no background networking).
//! The browser log (console errors, CSP violations, script errors) is read through
//! chromedriver's log endpoint.
#![allow(dead_code, missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::wd::{Capabilities, WebDriverCompatibleCommand};
use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};

/// Where the browser and its driver are (`FACTPICO_CHROMIUM` / `FACTPICO_CHROMEDRIVER`, else
/// Debian's paths, else `PATH`).
pub fn find() -> Option<(PathBuf, PathBuf)> {
    let pick = |env: &str, names: &[&str]| -> Option<PathBuf> {
        if let Some(p) = std::env::var_os(env) {
            return Some(PathBuf::from(p)).filter(|p| p.is_file());
        }
        for n in names {
            let p = Path::new("/usr/bin").join(n);
            if p.is_file() {
                return Some(p);
            }
            if let Some(path) = std::env::var_os("PATH") {
                for dir in std::env::split_paths(&path) {
                    let p = dir.join(n);
                    if p.is_file() {
                        return Some(p);
                    }
                }
            }
        }
        None
    };
    Some((pick("FACTPICO_CHROMIUM", &["chromium", "chromium-browser"])?, pick("FACTPICO_CHROMEDRIVER", &["chromedriver"])?))
}

/// True when `FACTPICO_REQUIRE_BROWSER=1` (set by `.ci/run`): a missing browser fails.
pub fn required() -> bool {
    std::env::var("FACTPICO_REQUIRE_BROWSER").is_ok_and(|v| v == "1")
}

/// The browser, or `None` after a visible SKIP line (a panic under FACTPICO_REQUIRE_BROWSER=1).
pub fn require(test: &str) -> Option<(PathBuf, PathBuf)> {
    let found = find();
    if found.is_none() {
        if required() {
            panic!("{test}: chromium / chromedriver not found and FACTPICO_REQUIRE_BROWSER=1 (apt-get install chromium chromium-driver, or `cargo xtask browser`)");
        }
        eprintln!("SKIP {test}: chromium and chromedriver not found (apt-get install chromium chromium-driver, or `cargo xtask browser`)");
    }
    found
}

/// A running chromedriver with one browser session.
pub struct Browser {
    pub client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// chromedriver's `POST /session/{id}/se/log` (the browser log since the last call).
#[derive(Debug)]
struct GetLog;

impl WebDriverCompatibleCommand for GetLog {
    fn endpoint(&self, base_url: &url::Url, session_id: Option<&str>) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!("session/{}/se/log", session_id.unwrap_or_default()))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(json!({ "type": "browser" }).to_string()))
    }
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session (window `width` × `height`).
    pub async fn start(chromium: &Path, chromedriver: &Path, width: u32, height: u32) -> Browser {
        let port = free_port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromedriver.display()));
        let profile = tempfile::tempdir().unwrap();
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen on port {port} within 30 s");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut caps = Capabilities::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": chromium,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1",
                    format!("--window-size={width},{height}"),
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            }),
        );
        caps.insert("goog:loggingPrefs".into(), json!({ "browser": "ALL" }));
        let mut builder = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
        let client = match builder.capabilities(caps).connect(&url).await {
            Ok(c) => c,
            Err(e) => panic!("cannot start a Chromium session through {}: {e}", chromedriver.display()),
        };
        Browser { client, driver, _profile: profile }
    }

    /// Opens a local file and waits until the report's script has run (`body[data-ready]`)
    /// and the whole file is loaded.
    pub async fn open(&self, file: &Path) {
        let url = format!("file://{}", file.canonicalize().unwrap().display());
        self.client.goto(&url).await.unwrap();
        self.wait_for(
            "return document.readyState === 'complete' && document.body && document.body.dataset.ready === '1'",
            Duration::from_secs(300),
        )
        .await;
    }

    /// Runs `script` (a function body; `arguments[i]` are `args`) and returns its value.
    pub async fn js(&self, script: &str, args: Vec<Value>) -> Value {
        match self.client.execute(script, args).await {
            Ok(v) => v,
            Err(e) => panic!("script failed: {e}\n{script}"),
        }
    }

    /// Polls `script` until it returns `true`.
    pub async fn wait_for(&self, script: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        loop {
            if self.js(script, vec![]).await == Value::Bool(true) {
                return;
            }
            assert!(Instant::now() < deadline, "timed out waiting for: {script}");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Presses and releases one key (a character or a `fantoccini::key::Key`).
    pub async fn key(&self, key: impl Into<char>) {
        use fantoccini::actions::{InputSource, KeyAction, KeyActions};
        let k = key.into();
        let seq = KeyActions::new("keyboard".into()).then(KeyAction::Down { value: k }).then(KeyAction::Up { value: k });
        self.client.perform_actions(seq).await.unwrap();
        self.client.release_actions().await.unwrap();
    }

    /// The browser log entries since the last call: `(level, message)`.
    pub async fn log(&self) -> Vec<(String, String)> {
        let v = self.client.issue_cmd(GetLog).await.unwrap_or_else(|e| panic!("cannot read the browser log: {e}"));
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|e| (e["level"].as_str().unwrap_or("").to_owned(), e["message"].as_str().unwrap_or("").to_owned()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A PNG screenshot of the viewport.
    pub async fn screenshot(&self) -> Vec<u8> {
        self.client.screenshot().await.unwrap()
    }

    /// Ends the session and the driver.
    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
