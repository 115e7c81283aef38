//! A real HTTP/1.1 Hugging Face hub stand-in for tests, on loopback addresses only.
//!
//! * The resolve endpoint (127.0.0.1:PORT) answers `HEAD|GET /{org}/{repo}/resolve/{rev}/{path}`
//!   as the hub does (`../shared/notes/hub-protocol.md`): small files `200` with `ETag` and
//!   `X-Repo-Commit`; LFS files `302` to the storage server with `X-Linked-Etag` (sha256),
//!   `X-Linked-Size`, `X-Repo-Commit`; missing files `404` + `X-Error-Code: EntryNotFound`;
//!   gated repositories `401` without `Authorization: Bearer <token>`.
//! * The storage server (127.0.0.2:PORT2) serves `/lfs/{org}/{repo}/{path}` with `Range:
//!   bytes=N-` support, and can cut a transfer after N bytes or corrupt the bytes it serves.
//! * Files come from `DIR/{org}/{repo}/{path}`. Every request is logged (server, method, path,
//!   headers).
//!
//! Written on `std::net` rather than hyper so that a test controls exactly where a transfer
//! breaks off (a half-written body, then a closed socket) and sees every header sent.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};

/// The commit every resolve answer names.
pub const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// One logged request.
#[derive(Debug, Clone)]
pub struct Logged {
    /// `hub` or `storage`.
    pub server: &'static str,
    pub method: String,
    pub path: String,
    /// Header names lowercased.
    pub headers: BTreeMap<String, String>,
}

/// What the servers do; changed by tests between pulls.
#[derive(Debug, Default)]
pub struct Behaviour {
    /// Repository paths (`org/repo/file`) served as LFS (302 to storage).
    pub lfs: HashSet<String>,
    /// `org/repo` that need the token.
    pub gated: HashSet<String>,
    pub token: String,
    /// Storage: cut the next transfer after this many body bytes (then cleared).
    pub cut_after: Option<u64>,
    /// Storage: flip the first byte of every body it serves.
    pub corrupt: bool,
    /// Storage: sleep before answering.
    pub delay: Duration,
}

pub struct HubServer {
    pub dir: PathBuf,
    pub endpoint: String,
    pub storage: String,
    pub behaviour: Arc<Mutex<Behaviour>>,
    pub log: Arc<Mutex<Vec<Logged>>>,
}

fn sha256(b: &[u8]) -> String {
    hex::encode(Sha256::digest(b))
}

struct Req {
    method: String,
    path: String,
    headers: BTreeMap<String, String>,
}

fn read_req(s: &mut TcpStream) -> Option<Req> {
    let mut r = BufReader::new(s.try_clone().ok()?);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = BTreeMap::new();
    loop {
        let mut l = String::new();
        r.read_line(&mut l).ok()?;
        let l = l.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    Some(Req { method, path, headers })
}

fn respond(s: &mut TcpStream, status: &str, headers: &[(String, String)], body: &[u8], head: bool) {
    let mut out = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let _ = s.write_all(out.as_bytes());
    if !head {
        let _ = s.write_all(body);
    }
    let _ = s.flush();
}

impl HubServer {
    /// Starts both servers serving files from `dir`.
    pub fn start(dir: PathBuf) -> Self {
        let hub = TcpListener::bind("127.0.0.1:0").unwrap();
        let storage = TcpListener::bind("127.0.0.2:0").unwrap();
        let (ha, sa): (SocketAddr, SocketAddr) = (hub.local_addr().unwrap(), storage.local_addr().unwrap());
        let server = HubServer {
            dir,
            endpoint: format!("http://{ha}"),
            storage: format!("http://{sa}"),
            behaviour: Arc::new(Mutex::new(Behaviour::default())),
            log: Arc::new(Mutex::new(Vec::new())),
        };
        for (listener, which) in [(hub, "hub"), (storage, "storage")] {
            let (dir, beh, log, storage_url) =
                (server.dir.clone(), server.behaviour.clone(), server.log.clone(), server.storage.clone());
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    let Ok(mut s) = conn else { continue };
                    let (dir, beh, log, storage_url) = (dir.clone(), beh.clone(), log.clone(), storage_url.clone());
                    std::thread::spawn(move || {
                        let Some(req) = read_req(&mut s) else { return };
                        log.lock().unwrap().push(Logged {
                            server: which,
                            method: req.method.clone(),
                            path: req.path.clone(),
                            headers: req.headers.clone(),
                        });
                        if which == "hub" {
                            Self::hub(&mut s, &req, &dir, &beh, &storage_url);
                        } else {
                            Self::storage(&mut s, &req, &dir, &beh);
                        }
                    });
                }
            });
        }
        server
    }

    fn hub(s: &mut TcpStream, req: &Req, dir: &std::path::Path, beh: &Mutex<Behaviour>, storage: &str) {
        let head = req.method == "HEAD";
        let parts: Vec<&str> = req.path.trim_start_matches('/').splitn(5, '/').collect();
        if parts.len() != 5 || parts[2] != "resolve" {
            return respond(s, "404 Not Found", &[("X-Error-Code".into(), "RepoNotFound".into())], b"", head);
        }
        let (repo, file) = (format!("{}/{}", parts[0], parts[1]), parts[4].to_owned());
        let b = beh.lock().unwrap();
        if b.gated.contains(&repo) && req.headers.get("authorization") != Some(&format!("Bearer {}", b.token)) {
            return respond(s, "401 Unauthorized", &[("X-Error-Code".into(), "GatedRepo".into())], b"", head);
        }
        let path = dir.join(&repo).join(&file);
        let Ok(bytes) = std::fs::read(&path) else {
            return respond(
                s,
                "404 Not Found",
                &[("X-Error-Code".into(), "EntryNotFound".into()), ("X-Repo-Commit".into(), COMMIT.into())],
                b"",
                head,
            );
        };
        if b.lfs.contains(&format!("{repo}/{file}")) {
            let h = vec![
                ("Location".into(), format!("{storage}/lfs/{repo}/{file}")),
                ("X-Linked-Etag".into(), format!("\"{}\"", sha256(&bytes))),
                ("X-Linked-Size".into(), bytes.len().to_string()),
                ("X-Repo-Commit".into(), COMMIT.into()),
                ("Content-Length".into(), "0".into()),
            ];
            return respond(s, "302 Found", &h, b"", head);
        }
        let h = vec![
            ("ETag".into(), format!("\"git-{}\"", &sha256(&bytes)[..40])),
            ("X-Repo-Commit".into(), COMMIT.into()),
            ("Content-Length".into(), bytes.len().to_string()),
        ];
        respond(s, "200 OK", &h, &bytes, head);
    }

    fn storage(s: &mut TcpStream, req: &Req, dir: &std::path::Path, beh: &Mutex<Behaviour>) {
        let (delay, corrupt, cut) = {
            let mut b = beh.lock().unwrap();
            (b.delay, b.corrupt, b.cut_after.take())
        };
        std::thread::sleep(delay);
        let Some(rel) = req.path.strip_prefix("/lfs/") else {
            return respond(s, "404 Not Found", &[], b"", false);
        };
        let Ok(mut bytes) = std::fs::read(dir.join(rel)) else {
            return respond(s, "404 Not Found", &[], b"", false);
        };
        if corrupt && !bytes.is_empty() {
            bytes[0] ^= 0xff;
        }
        let total = bytes.len() as u64;
        let start = req
            .headers
            .get("range")
            .and_then(|r| r.strip_prefix("bytes="))
            .and_then(|r| r.strip_suffix('-'))
            .and_then(|n| n.parse::<u64>().ok());
        let (status, body, mut h) = match start {
            Some(n) if n >= total => return respond(s, "416 Range Not Satisfiable", &[("Content-Range".into(), format!("bytes */{total}"))], b"", false),
            Some(n) => (
                "206 Partial Content",
                &bytes[n as usize..],
                vec![("Content-Range".to_owned(), format!("bytes {n}-{}/{total}", total - 1))],
            ),
            None => ("200 OK", &bytes[..], vec![]),
        };
        h.push(("Content-Length".into(), body.len().to_string()));
        h.push(("Accept-Ranges".into(), "bytes".into()));
        match cut {
            Some(n) if (n as usize) < body.len() => {
                let mut out = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
                for (k, v) in &h {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str("\r\n");
                let _ = s.write_all(out.as_bytes());
                let _ = s.write_all(&body[..n as usize]);
                let _ = s.flush();
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
            _ => respond(s, status, &h, body, false),
        }
        // Drain anything left so the client sees a clean close.
        let _ = s.set_read_timeout(Some(Duration::from_millis(10)));
        let _ = s.read(&mut [0u8; 16]);
    }

    /// Requests logged so far by `server` (`hub` / `storage`).
    pub fn requests(&self, server: &str) -> Vec<Logged> {
        self.log.lock().unwrap().iter().filter(|l| l.server == server).cloned().collect()
    }

    pub fn clear_log(&self) {
        self.log.lock().unwrap().clear();
    }
}
