//! Downloading files over the Hugging Face hub's resolve protocol.
//!
//! The protocol, as the official client uses it (`../shared/notes/hub-protocol.md`):
//! `HEAD {endpoint}/{org}/{repo}/resolve/{revision}/{path}` answers `200` with `ETag` and
//! `X-Repo-Commit` for small (git) files, or `302` to a storage host with
//! `X-Linked-Etag: "<sha256>"`, `X-Linked-Size` and `X-Repo-Commit` for LFS files; the storage
//! URL honours `Range`. `404` + `X-Error-Code` for missing files, `401` for gated or private
//! repositories without a token.
//!
//! Why our own client rather than the `hf-hub` crate: `hf-hub` (0.4) restarts an interrupted
//! download from byte 0 (its resume is per chunk of a fresh download, not from the bytes a dead
//! process left), does not check the bytes against `X-Linked-Etag` or a pinned sha256 before
//! making them visible in its cache, and writes into the user's HF cache, which factpico only
//! reads. The protocol is four headers; `reqwest` (already in the workspace for the LLM client)
//! does the HTTP.
//!
//! Environment (read by [`HubConfig::from_env`]): `HF_ENDPOINT` (default
//! `https://huggingface.co`), `HF_TOKEN` (sent as `Authorization: Bearer`, only to the
//! endpoint's own host, never printed), `HF_HUB_OFFLINE` (`1`/`true`/`yes`/`on`: no HTTP at all,
//! files only from the HF cache), `HF_HUB_CACHE`, else `$HF_HOME/hub`, else
//! `$XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub` (read only).
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use reqwest::blocking::{Client, Response};
use reqwest::header::{HeaderMap, AUTHORIZATION, CONTENT_RANGE, LOCATION, RANGE};
use sha2::{Digest, Sha256};

use crate::catalogue::HubFile;
use crate::error::{Error, Result};

/// A hub token. Its `Debug` output is redacted; it is only ever put in an `Authorization` header.
#[derive(Clone)]
pub struct Token(String);

impl Token {
    /// Wraps a token string.
    pub fn new(s: impl Into<String>) -> Self {
        Token(s.into())
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// Where and how to reach the hub.
#[derive(Debug, Clone)]
pub struct HubConfig {
    /// Endpoint without a trailing slash (`https://huggingface.co`).
    pub endpoint: String,
    /// Token sent as `Authorization: Bearer` to the endpoint's host.
    pub token: Option<Token>,
    /// No HTTP: files come from the HF cache only.
    pub offline: bool,
    /// The user's Hugging Face hub cache (read only).
    pub hf_cache: PathBuf,
}

fn env_nonempty(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Is an environment flag set to a true value (`1`, `true`, `yes`, `on`, any case)?
pub fn env_flag(name: &str) -> bool {
    env_nonempty(name).is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
}

/// The Hugging Face hub cache: `HF_HUB_CACHE`, else `$HF_HOME/hub`, else
/// `$XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub`.
pub fn hf_cache_dir() -> PathBuf {
    if let Some(p) = env_nonempty("HF_HUB_CACHE") {
        return PathBuf::from(p);
    }
    if let Some(p) = env_nonempty("HF_HOME") {
        return PathBuf::from(p).join("hub");
    }
    if let Some(p) = env_nonempty("XDG_CACHE_HOME") {
        return PathBuf::from(p).join("huggingface").join("hub");
    }
    let home = env_nonempty("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".cache").join("huggingface").join("hub")
}

impl HubConfig {
    /// From `HF_ENDPOINT`, `HF_TOKEN`, `HF_HUB_OFFLINE` and the HF cache variables.
    pub fn from_env() -> Self {
        Self {
            endpoint: env_nonempty("HF_ENDPOINT").unwrap_or_else(|| "https://huggingface.co".into()).trim_end_matches('/').to_owned(),
            token: env_nonempty("HF_TOKEN").map(|t| Token(t.trim().to_owned())),
            offline: env_flag("HF_HUB_OFFLINE"),
            hf_cache: hf_cache_dir(),
        }
    }
}

/// `url` without user name and password (for messages).
pub fn redact_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            if !u.username().is_empty() || u.password().is_some() {
                let _ = u.set_username("");
                let _ = u.set_password(None);
            }
            u.set_query(None);
            u.to_string()
        }
        Err(_) => "<invalid URL>".into(),
    }
}

/// How files are shown while downloading.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Draw bars (on stderr, only when it is a terminal).
    pub bars: bool,
}

impl Progress {
    fn bar(&self, len: Option<u64>, at: u64, label: &str) -> ProgressBar {
        if !self.bars {
            return ProgressBar::hidden();
        }
        let pb = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("{msg} {bar:30} {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        pb.set_style(style);
        pb.set_message(label.to_owned());
        pb.set_position(at);
        pb
    }
}

/// What a resolved hub file is.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// `X-Repo-Commit`.
    pub commit: String,
    /// LFS file: sha256 from `X-Linked-Etag`, size from `X-Linked-Size`, storage URL.
    pub lfs: Option<(String, Option<u64>, String)>,
    /// `ETag` (git blob id) of a small file.
    pub etag: Option<String>,
}

/// A blocking hub client (`reqwest::blocking`: create and use it outside an async runtime,
/// e.g. not from a tokio task; wrap a call in `spawn_blocking` there).
#[derive(Debug, Clone)]
pub struct HubClient {
    config: HubConfig,
    http: Client,
    progress: Progress,
}

fn header(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name).and_then(|v| v.to_str().ok()).map(|s| s.trim().to_owned())
}

fn strip_etag(s: &str) -> String {
    s.trim().trim_start_matches("W/").trim_matches('"').to_owned()
}

/// sha256 of a file, lowercase hex.
///
/// # Errors
/// [`Error::Io`].
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut f = File::open(path).map_err(|e| Error::io("read", path, e))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(|e| Error::io("read", path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex::encode(h.finalize()))
}

/// Refuses a symbolic link or a non-file at `path` (factpico only writes its own files).
fn check_plain_or_absent(path: &Path) -> Result<bool> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            Err(Error::UnsafePath { path: path.to_owned(), reason: "is a symbolic link; factpico never writes through one (remove it)".into() })
        }
        Ok(m) if !m.is_file() => Err(Error::UnsafePath { path: path.to_owned(), reason: "exists and is not a regular file (remove it)".into() }),
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io("inspect", path, e)),
    }
}

/// `<path>.partial`.
pub fn partial_of(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

fn tag_of(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".partial.etag");
    PathBuf::from(s)
}

impl HubClient {
    /// A client for `config`.
    ///
    /// # Errors
    /// [`Error::Http`] when the TLS backend cannot be set up.
    pub fn new(config: HubConfig, progress: Progress) -> Result<Self> {
        let http = Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(30))
            // Blocking reqwest applies this to each read: a stalled transfer fails, a long one does not.
            .timeout(Duration::from_secs(120))
            .user_agent(concat!("factpico/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::Http { what: "client setup".into(), url: String::new(), kept: String::new(), source: e.without_url() })?;
        Ok(Self { config, http, progress })
    }

    /// The configuration.
    pub fn config(&self) -> &HubConfig {
        &self.config
    }

    fn resolve_url(&self, repo: &str, revision: &str, file: &str) -> String {
        format!("{}/{repo}/resolve/{revision}/{file}", self.config.endpoint)
    }

    fn same_host(&self, url: &str) -> bool {
        match (reqwest::Url::parse(url), reqwest::Url::parse(&self.config.endpoint)) {
            (Ok(a), Ok(b)) => a.scheme() == b.scheme() && a.host_str() == b.host_str() && a.port_or_known_default() == b.port_or_known_default(),
            _ => false,
        }
    }

    fn authed(&self, req: reqwest::blocking::RequestBuilder, url: &str) -> reqwest::blocking::RequestBuilder {
        match &self.config.token {
            Some(t) if self.same_host(url) => req.header(AUTHORIZATION, format!("Bearer {}", t.0)),
            _ => req,
        }
    }

    fn http_err(what: &str, url: &str, kept: String, e: reqwest::Error) -> Error {
        Error::Http { what: what.to_owned(), url: redact_url(url), kept, source: e.without_url() }
    }

    /// `HEAD` of one file: `Ok(None)` when it is absent (`404`) and `optional`.
    ///
    /// # Errors
    /// [`Error::Unauthorized`], [`Error::NotFound`], [`Error::NotAHub`], [`Error::Status`], [`Error::Http`].
    pub fn resolve(&self, repo: &str, revision: &str, file: &str, optional: bool) -> Result<Option<Resolved>> {
        let mut url = self.resolve_url(repo, revision, file);
        for _ in 0..5 {
            let resp = self.authed(self.http.head(&url), &url).send().map_err(|e| Self::http_err(&format!("{repo}/{file}"), &url, String::new(), e))?;
            let st = resp.status().as_u16();
            let h = resp.headers();
            match st {
                200 => {
                    let commit = header(h, "x-repo-commit").ok_or_else(|| Error::NotAHub { url: redact_url(&url), reason: "no X-Repo-Commit header".into() })?;
                    return Ok(Some(Resolved { commit, lfs: None, etag: header(h, "etag").map(|e| strip_etag(&e)) }));
                }
                301 | 302 | 303 | 307 | 308 => {
                    let loc = header(h, LOCATION.as_str()).ok_or_else(|| Error::NotAHub { url: redact_url(&url), reason: format!("HTTP {st} without Location") })?;
                    let target = reqwest::Url::parse(&url).and_then(|u| u.join(&loc)).map_err(|_| Error::NotAHub { url: redact_url(&url), reason: "invalid Location".into() })?.to_string();
                    match header(h, "x-linked-etag") {
                        Some(etag) => {
                            let commit = header(h, "x-repo-commit").ok_or_else(|| Error::NotAHub { url: redact_url(&url), reason: "no X-Repo-Commit header".into() })?;
                            let sha = strip_etag(&etag).to_ascii_lowercase();
                            if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
                                return Err(Error::NotAHub { url: redact_url(&url), reason: "X-Linked-Etag is not a sha256".into() });
                            }
                            let size = header(h, "x-linked-size").and_then(|s| s.parse().ok());
                            return Ok(Some(Resolved { commit, lfs: Some((sha, size, target)), etag: None }));
                        }
                        // A renamed repository: resolve again at the new place.
                        None => url = target,
                    }
                }
                401 | 403 => {
                    let hint = if self.config.token.is_some() {
                        "A token was sent (HF_TOKEN): check that it has access and that the model's terms were accepted on its page.".to_owned()
                    } else {
                        "Set HF_TOKEN to a token with access (after accepting the model's terms on its page).".to_owned()
                    };
                    return Err(Error::Unauthorized { repo: repo.to_owned(), status: st, hint });
                }
                404 => {
                    let code = header(h, "x-error-code").unwrap_or_default();
                    if optional && code == "EntryNotFound" {
                        return Ok(None);
                    }
                    return Err(Error::NotFound { repo: repo.to_owned(), file: file.to_owned(), revision: revision.to_owned(), code });
                }
                _ => return Err(Error::Status { url: redact_url(&url), status: st, reason: "unexpected answer to the resolve request".into() }),
            }
        }
        Err(Error::NotAHub { url: redact_url(&url), reason: "too many redirects".into() })
    }

    /// The file in the user's HF cache for `repo` at `commit` (or the revision's ref when
    /// `commit` is `None`), if present.
    pub fn cached(&self, repo: &str, revision: &str, commit: Option<&str>, file: &str) -> Option<PathBuf> {
        let base = self.config.hf_cache.join(format!("models--{}", repo.replace('/', "--")));
        let commit = match commit {
            Some(c) => c.to_owned(),
            None if revision.len() == 40 && revision.bytes().all(|b| b.is_ascii_hexdigit()) => revision.to_owned(),
            None => std::fs::read_to_string(base.join("refs").join(revision)).ok()?.trim().to_owned(),
        };
        if commit.is_empty() || commit.contains('/') || commit.contains("..") {
            return None;
        }
        let p = base.join("snapshots").join(commit).join(file);
        p.is_file().then_some(p)
    }

    /// Puts `repo/file` at `dest` (verified), from the HF cache, an earlier complete download
    /// at `dest`, or the hub (resuming `dest.partial`). Returns the file's sha256, or `None`
    /// when an optional file is absent.
    ///
    /// Checks: LFS files against `X-Linked-Etag` (sha256) and `X-Linked-Size`; every file
    /// against `file.sha256` when pinned. A mismatch deletes the bad bytes and fails.
    ///
    /// # Errors
    /// As [`HubClient::resolve`]; [`Error::Offline`], [`Error::Checksum`], [`Error::Io`],
    /// [`Error::Http`] / [`Error::Interrupted`] (the partial file is kept for the next attempt).
    pub fn fetch(&self, repo: &str, revision: &str, file: &HubFile, dest: &Path) -> Result<Option<String>> {
        let what = format!("{repo}/{}", file.path);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        }
        let pin = file.sha256.as_deref();
        if self.config.offline {
            let Some(src) = self.cached(repo, revision, None, &file.path) else {
                if file.optional {
                    return Ok(None);
                }
                return Err(Error::Offline { repo: repo.to_owned(), file: file.path.clone(), cache: self.config.hf_cache.clone() });
            };
            return self.install_copy(&src, dest, &what, None, pin).map(Some);
        }
        let Some(res) = self.resolve(repo, revision, &file.path, file.optional)? else {
            return Ok(None);
        };
        let expect = res.lfs.as_ref().map(|(sha, _, _)| sha.as_str());
        // The user's HF cache, then an earlier complete download.
        if let Some(src) = self.cached(repo, revision, Some(&res.commit), &file.path) {
            match self.install_copy(&src, dest, &what, expect, pin) {
                Ok(sha) => {
                    log::info!("{what}: from the Hugging Face cache {}", src.display());
                    return Ok(Some(sha));
                }
                Err(e) => log::warn!("{what}: the copy in the Hugging Face cache is not usable ({e}); downloading"),
            }
        }
        if check_plain_or_absent(dest)? {
            let sha = sha256_file(dest)?;
            if expect.is_some_and(|x| x == sha) && pin.is_none_or(|p| p == sha) {
                return Ok(Some(sha));
            }
            std::fs::remove_file(dest).map_err(|e| Error::io("remove", dest, e))?;
        }
        match &res.lfs {
            Some((sha, size, storage)) => self.download(storage, dest, &what, *size, sha)?,
            None => {
                let url = self.resolve_url(repo, revision, &file.path);
                self.download(&url, dest, &what, None, res.etag.as_deref().unwrap_or(&res.commit))?;
            }
        }
        verify(dest, &what, expect, pin).map(Some)
    }

    /// Copies a cached file to `dest` (through `dest.partial`) and verifies it.
    fn install_copy(&self, src: &Path, dest: &Path, what: &str, expect: Option<&str>, pin: Option<&str>) -> Result<String> {
        let sha = sha256_file(src)?;
        if let Some(x) = expect.filter(|x| *x != sha) {
            return Err(Error::Checksum { what: what.to_owned(), reason: format!("cached copy {} has sha256 {sha}, the hub says {x}", src.display()) });
        }
        if let Some(p) = pin.filter(|p| *p != sha) {
            return Err(Error::Checksum { what: what.to_owned(), reason: format!("sha256 {sha} is not the catalogue's pin {p} (copy {})", src.display()) });
        }
        let part = partial_of(dest);
        check_plain_or_absent(&part)?;
        check_plain_or_absent(dest)?;
        std::fs::copy(src, &part).map_err(|e| Error::io(format!("copy {} to", src.display()), &part, e))?;
        std::fs::rename(&part, dest).map_err(|e| Error::io(format!("rename {} to", part.display()), dest, e))?;
        Ok(sha)
    }

    /// Downloads `url` to `dest`, resuming `dest.partial` when it belongs to the same `tag`
    /// (the file's sha256 or etag). The bytes are not verified here.
    ///
    /// # Errors
    /// [`Error::Http`], [`Error::Interrupted`], [`Error::Status`], [`Error::Io`], [`Error::UnsafePath`].
    pub fn download(&self, url: &str, dest: &Path, what: &str, size: Option<u64>, tag: &str) -> Result<()> {
        let part = partial_of(dest);
        let tagf = tag_of(dest);
        check_plain_or_absent(&tagf)?;
        let mut have = if check_plain_or_absent(&part)? {
            let same = std::fs::read_to_string(&tagf).is_ok_and(|t| t.trim() == tag);
            if same {
                std::fs::metadata(&part).map_err(|e| Error::io("inspect", &part, e))?.len()
            } else {
                std::fs::remove_file(&part).map_err(|e| Error::io("remove", &part, e))?;
                0
            }
        } else {
            0
        };
        std::fs::write(&tagf, tag).map_err(|e| Error::io("write", &tagf, e))?;
        if size.is_some_and(|s| have > s) {
            std::fs::remove_file(&part).map_err(|e| Error::io("remove", &part, e))?;
            have = 0;
        }
        if size.is_none_or(|s| have < s) || have == 0 {
            let mut req = self.authed(self.http.get(url), url);
            if have > 0 {
                req = req.header(RANGE, format!("bytes={have}-"));
            }
            let resp = req.send().map_err(|e| Self::http_err(what, url, String::new(), e))?;
            let st = resp.status().as_u16();
            let append = match st {
                206 => {
                    let start = header(resp.headers(), CONTENT_RANGE.as_str())
                        .and_then(|r| r.strip_prefix("bytes ").and_then(|r| r.split('-').next()).and_then(|s| s.parse::<u64>().ok()));
                    start == Some(have)
                }
                200 => false,
                416 if have > 0 => {
                    // Range beyond the end: the partial file is already complete.
                    return finish(&part, &tagf, dest);
                }
                401 | 403 => return Err(Error::Unauthorized { repo: what.to_owned(), status: st, hint: "the storage host refused the download".into() }),
                _ => return Err(Error::Status { url: redact_url(url), status: st, reason: "unexpected answer to the download".into() }),
            };
            if !append {
                have = 0;
            }
            let total = size.or_else(|| resp.content_length().map(|l| l + have));
            self.write_body(resp, &part, have, total, what, url)?;
        }
        finish(&part, &tagf, dest)
    }

    fn write_body(&self, mut resp: Response, part: &Path, start: u64, total: Option<u64>, what: &str, url: &str) -> Result<()> {
        let mut f = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(start == 0)
            .append(start > 0)
            .open(part)
            .map_err(|e| Error::io("open", part, e))?;
        let pb = self.progress.bar(total, start, what);
        let mut at = start;
        let mut buf = vec![0u8; 1 << 16];
        let res = loop {
            match resp.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    if let Err(e) = f.write_all(&buf[..n]) {
                        break Err(Error::io("write", part, e));
                    }
                    at += n as u64;
                    pb.set_position(at);
                }
                Err(e) => break Err(Error::Interrupted { what: what.to_owned(), url: redact_url(url), kept: at, source: e }),
            }
        };
        pb.finish_and_clear();
        f.sync_all().map_err(|e| Error::io("sync", part, e))?;
        res?;
        if let Some(t) = total.filter(|t| *t != at) {
            return Err(Error::Interrupted {
                what: what.to_owned(),
                url: redact_url(url),
                kept: at,
                source: std::io::Error::new(std::io::ErrorKind::UnexpectedEof, format!("the transfer ended at byte {at} of {t}")),
            });
        }
        Ok(())
    }
}

fn finish(part: &Path, tagf: &Path, dest: &Path) -> Result<()> {
    std::fs::rename(part, dest).map_err(|e| Error::io(format!("rename {} to", part.display()), dest, e))?;
    let _ = std::fs::remove_file(tagf);
    Ok(())
}

/// Checks `path` against the hub's sha256 and the catalogue pin; deletes it on a mismatch.
///
/// # Errors
/// [`Error::Checksum`], [`Error::Io`].
pub fn verify(path: &Path, what: &str, expect: Option<&str>, pin: Option<&str>) -> Result<String> {
    let sha = sha256_file(path)?;
    let reason = if let Some(x) = expect.filter(|x| *x != sha) {
        Some(format!("downloaded bytes have sha256 {sha}, the hub's X-Linked-Etag says {x}"))
    } else {
        pin.filter(|p| *p != sha).map(|p| format!("downloaded bytes have sha256 {sha}, the catalogue pins {p}"))
    };
    if let Some(reason) = reason {
        let _ = std::fs::remove_file(path);
        return Err(Error::Checksum { what: what.to_owned(), reason });
    }
    Ok(sha)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_their_credentials_and_tokens_their_debug() {
        assert_eq!(redact_url("https://user:secret@hub.example/x?token=abc"), "https://hub.example/x");
        assert_eq!(format!("{:?}", Token::new("hf_secret")), "Token(<redacted>)");
    }

    #[test]
    fn etags_are_unquoted() {
        assert_eq!(strip_etag("W/\"abc\""), "abc");
        assert_eq!(strip_etag("\"abc\""), "abc");
    }
}
