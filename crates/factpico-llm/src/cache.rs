//! The persistent request cache: every answered request → its reply, in SQLite (bundled;
//! WAL journal), keyed by [`request_key`].
//!
//! * Every reply is committed as soon as it arrives, so an interrupted run keeps every answer.
//! * Several processes may share one file: SQLite's locking serialises the writers (WAL mode,
//!   60 s busy timeout); a key written twice keeps the first reply (`INSERT OR IGNORE`).
//! * Only successful replies are stored (whatever their content: an unparseable reply is an
//!   answer too); failed requests are not, so a re-run asks exactly those again.
//! * A file that is not a SQLite database, fails SQLite's `quick_check`, or is another
//!   program's database is reported as [`Error::CacheCorrupt`] with what to do.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};
use sha2::Digest;

use crate::client::Reply;
use crate::error::{Error, Result};

/// Version of the key derivation and table layout (bumped when either changes).
pub const CACHE_FORMAT: u32 = 1;

pub use crate::requests::canonical_json;

/// The cache key of a request: hex sha256 of the canonical JSON of
/// `{"format", "base_url", "served_model", "template_version", "request"}` — the normalised
/// base URL, the served model's identity as the server reports it (llama.cpp ignores the
/// request's `model` field, so two GGUF files behind one URL differ here), the template
/// version and the whole request body (model name, messages, sampling parameters, max tokens,
/// structured-output constraint).
pub fn request_key(base_url: &str, served_model: &serde_json::Value, template_version: &str, request: &serde_json::Value) -> String {
    let v = serde_json::json!({
        "format": CACHE_FORMAT,
        "base_url": base_url,
        "served_model": served_model,
        "template_version": template_version,
        "request": request,
    });
    hex::encode(sha2::Sha256::digest(canonical_json(&v).as_bytes()))
}

/// The request cache (one SQLite file).
#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    conn: Mutex<Connection>,
}

fn corrupt(path: &Path, e: rusqlite::Error) -> Error {
    Error::CacheCorrupt { path: path.to_owned(), reason: e.to_string(), source: Some(e) }
}

fn is_corruption(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}

impl Cache {
    /// Opens (creating when absent, with its parent directories) the cache at `path`.
    ///
    /// # Errors
    /// [`Error::CacheCorrupt`] for a damaged or foreign file; [`Error::Cache`] for other
    /// failures (permissions, a directory in the way, a lock held past the busy timeout, a
    /// path that is a standard stream or file descriptor such as `/dev/stdout`, a path whose
    /// last component, or whose `-wal` / `-shm` file, is a symbolic link).
    pub fn open(path: &Path) -> Result<Self> {
        // Never a database on a standard stream or file descriptor, nor through a symbolic
        // link (dangling or not) at the database or its -wal / -shm files: factpico-io's rule.
        factpico_io::check_database_path(path).map_err(|e| Error::Cache {
            path: path.to_owned(),
            what: e.to_string(),
            source: rusqlite::Error::InvalidPath(path.to_owned()),
        })?;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| Error::Cache {
                path: path.to_owned(),
                what: format!("cannot create its directory: {e}"),
                source: rusqlite::Error::InvalidPath(parent.to_owned()),
            })?;
        }
        let other = |what: &str, e: rusqlite::Error| {
            if is_corruption(&e) {
                corrupt(path, e)
            } else {
                Error::Cache { path: path.to_owned(), what: what.to_owned(), source: e }
            }
        };
        let conn = Connection::open(path).map_err(|e| other("cannot open", e))?;
        conn.busy_timeout(std::time::Duration::from_secs(60)).map_err(|e| other("cannot configure", e))?;
        // Integrity first: a file of garbage fails here with "file is not a database".
        let check: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0)).map_err(|e| other("cannot check", e))?;
        if check != "ok" {
            return Err(Error::CacheCorrupt { path: path.to_owned(), reason: format!("SQLite quick_check: {check}"), source: None });
        }
        // Switching a fresh file to WAL takes an exclusive lock, and SQLite returns SQLITE_BUSY
        // at once (without the busy handler) when another connection opens the same new file
        // at that moment: retry until the same 60 s deadline instead of failing the run.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            match conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0)) {
                Ok(_) => break,
                Err(rusqlite::Error::SqliteFailure(f, _))
                    if f.code == rusqlite::ErrorCode::DatabaseBusy && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => return Err(other("cannot switch to WAL", e)),
            }
        }
        conn.execute_batch(
            "PRAGMA synchronous=NORMAL;
             CREATE TABLE IF NOT EXISTS factpico_llm_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             INSERT OR IGNORE INTO factpico_llm_meta (key, value) VALUES ('format', '1');
             CREATE TABLE IF NOT EXISTS replies (
                 key TEXT PRIMARY KEY,
                 base_url TEXT NOT NULL,
                 served_model TEXT NOT NULL,
                 request TEXT NOT NULL,
                 reply TEXT NOT NULL,
                 created_unix INTEGER NOT NULL
             );
             CREATE TABLE IF NOT EXISTS probes (key TEXT PRIMARY KEY, verdict TEXT NOT NULL, created_unix INTEGER NOT NULL);
             CREATE TABLE IF NOT EXISTS batch_pending (
                 key TEXT PRIMARY KEY,
                 base_url TEXT NOT NULL,
                 served_model TEXT NOT NULL,
                 request TEXT NOT NULL,
                 exported_unix INTEGER NOT NULL
             );",
        )
        .map_err(|e| other("cannot create its tables", e))?;
        let format: String = conn
            .query_row("SELECT value FROM factpico_llm_meta WHERE key = 'format'", [], |r| r.get(0))
            .map_err(|e| other("cannot read its format", e))?;
        if format != CACHE_FORMAT.to_string() {
            return Err(Error::CacheCorrupt {
                path: path.to_owned(),
                reason: format!("cache format {format}, this factpico writes format {CACHE_FORMAT}"),
                source: None,
            });
        }
        Ok(Self { path: path.to_owned(), conn: Mutex::new(conn) })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn with<T>(&self, what: &str, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T> {
        let conn = self.conn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&conn).map_err(|e| {
            if is_corruption(&e) {
                corrupt(&self.path, e)
            } else {
                Error::Cache { path: self.path.clone(), what: what.to_owned(), source: e }
            }
        })
    }

    /// The stored reply of `key`, if any. A stored reply that no longer deserialises counts as absent.
    ///
    /// # Errors
    /// [`Error::CacheCorrupt`] / [`Error::Cache`].
    pub fn get(&self, key: &str) -> Result<Option<Reply>> {
        let text: Option<String> = self.with("cannot read", |c| {
            c.query_row("SELECT reply FROM replies WHERE key = ?1", params![key], |r| r.get(0)).optional()
        })?;
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    }

    /// Stores `reply` under `key` (committed at once; an existing entry is kept).
    ///
    /// # Errors
    /// [`Error::CacheCorrupt`] / [`Error::Cache`].
    pub fn put(&self, key: &str, base_url: &str, served_model: &str, request: &serde_json::Value, reply: &Reply) -> Result<()> {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let reply = serde_json::to_string(reply).unwrap_or_default();
        self.with("cannot write", |c| {
            c.execute(
                "INSERT OR IGNORE INTO replies (key, base_url, served_model, request, reply, created_unix) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![key, base_url, served_model, canonical_json(request), reply, i64::try_from(now).unwrap_or(0)],
            )
        })?;
        Ok(())
    }

    /// Records a request written to a batch file (`factpico llm batch export`), so that its
    /// answer can be imported later ([`Cache::import`]); a request exported again is replaced.
    ///
    /// # Errors
    /// [`Error::CacheCorrupt`] / [`Error::Cache`].
    pub fn put_pending(&self, key: &str, base_url: &str, served_model: &str, request: &serde_json::Value) -> Result<()> {
        let now = i64::try_from(unix_now()).unwrap_or(0);
        self.with("cannot write", |c| {
            c.execute(
                "INSERT OR REPLACE INTO batch_pending (key, base_url, served_model, request, exported_unix) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![key, base_url, served_model, canonical_json(request), now],
            )
        })?;
        Ok(())
    }

    /// The canonical JSON of the request exported under `key` and not answered yet.
    ///
    /// # Errors
    /// [`Error::CacheCorrupt`] / [`Error::Cache`].
    pub fn pending_request(&self, key: &str) -> Result<Option<String>> {
        self.with("cannot read", |c| {
            c.query_row("SELECT request FROM batch_pending WHERE key = ?1", params![key], |r| r.get(0)).optional()
        })
    }

    /// The canonical JSON of the request answered under `key`, if any.
    ///
    /// # Errors
    /// [`Error::CacheCorrupt`] / [`Error::Cache`].
    pub fn answered_request(&self, key: &str) -> Result<Option<String>> {
        self.with("cannot read", |c| c.query_row("SELECT request FROM replies WHERE key = ?1", params![key], |r| r.get(0)).optional())
    }

    /// Number of requests exported and not answered yet.
    ///
    /// # Errors
    /// [`Error::CacheCorrupt`] / [`Error::Cache`].
    pub fn pending_len(&self) -> Result<u64> {
        self.with("cannot count", |c| c.query_row("SELECT count(*) FROM batch_pending", [], |r| r.get::<_, i64>(0)))
            .map(|n| u64::try_from(n).unwrap_or(0))
    }

    /// Stores the answer of an exported request (`key` must be pending) and removes it from
    /// the pending ones, in one transaction. `Ok(false)` when `key` is not pending.
    ///
    /// # Errors
    /// [`Error::CacheCorrupt`] / [`Error::Cache`].
    pub fn import(&self, key: &str, reply: &Reply) -> Result<bool> {
        let now = i64::try_from(unix_now()).unwrap_or(0);
        let reply = serde_json::to_string(reply).unwrap_or_default();
        self.with("cannot write", |c| {
            let tx = c.unchecked_transaction()?;
            let n = tx.execute(
                "INSERT OR IGNORE INTO replies (key, base_url, served_model, request, reply, created_unix)
                 SELECT key, base_url, served_model, request, ?2, ?3 FROM batch_pending WHERE key = ?1",
                params![key, reply, now],
            )?;
            tx.execute("DELETE FROM batch_pending WHERE key = ?1", params![key])?;
            tx.commit()?;
            Ok(n > 0)
        })
    }

    /// The stored verdict of a structured-output probe: `Some("")` when the server accepted the
    /// constraint, `Some(reason)` when it refused it.
    ///
    /// # Errors
    /// [`Error::CacheCorrupt`] / [`Error::Cache`].
    pub fn get_probe(&self, key: &str) -> Result<Option<String>> {
        self.with("cannot read", |c| {
            c.query_row("SELECT verdict FROM probes WHERE key = ?1", params![key], |r| r.get(0)).optional()
        })
    }

    /// Stores a probe verdict (see [`Cache::get_probe`]).
    ///
    /// # Errors
    /// [`Error::CacheCorrupt`] / [`Error::Cache`].
    pub fn put_probe(&self, key: &str, verdict: &str) -> Result<()> {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        self.with("cannot write", |c| {
            c.execute(
                "INSERT OR IGNORE INTO probes (key, verdict, created_unix) VALUES (?1, ?2, ?3)",
                params![key, verdict, i64::try_from(now).unwrap_or(0)],
            )
        })?;
        Ok(())
    }

    /// Number of stored replies.
    ///
    /// # Errors
    /// [`Error::CacheCorrupt`] / [`Error::Cache`].
    pub fn len(&self) -> Result<u64> {
        self.with("cannot count", |c| c.query_row("SELECT count(*) FROM replies", [], |r| r.get::<_, i64>(0)))
            .map(|n| u64::try_from(n).unwrap_or(0))
    }

    /// Whether the cache holds no reply.
    ///
    /// # Errors
    /// [`Error::CacheCorrupt`] / [`Error::Cache`].
    pub fn is_empty(&self) -> Result<bool> {
        self.len().map(|n| n == 0)
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::client::Usage;

    fn reply(s: &str) -> Reply {
        Reply { content: s.into(), finish_reason: Some("stop".into()), usage: Usage { prompt_tokens: 3, completion_tokens: 2 }, model: None, server_ms: None, system_fingerprint: None, logprobs: None }
    }

    #[test]
    fn many_connections_opening_one_new_file_at_once_all_succeed() {
        // The race of two runs starting on one fresh cache (CI saw "cannot switch to WAL:
        // database is locked"): 8 openers released together on a new file, 20 times.
        for round in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("c.sqlite");
            let barrier = std::sync::Barrier::new(8);
            std::thread::scope(|s| {
                let hs: Vec<_> = (0..8)
                    .map(|_| {
                        s.spawn(|| {
                            barrier.wait();
                            Cache::open(&path).map(|_| ())
                        })
                    })
                    .collect();
                for h in hs {
                    let opened = h.join().unwrap();
                    assert!(opened.is_ok(), "round {round}: {:?}", opened.err().map(|e| e.to_string()));
                }
            });
        }
    }

    #[test]
    fn canonical_and_keys() {
        let a = serde_json::json!({"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": "é"}});
        assert_eq!(canonical_json(&a), r#"{"a":{"x":"é","y":[1,{"c":3,"d":2}]},"b":1}"#);
        let req = serde_json::json!({"model": "m", "messages": []});
        let k1 = request_key("http://h/v1", &serde_json::json!({"id": "a.gguf"}), "t1", &req);
        assert_ne!(k1, request_key("http://h/v1", &serde_json::json!({"id": "b.gguf"}), "t1", &req));
        assert_ne!(k1, request_key("http://h2/v1", &serde_json::json!({"id": "a.gguf"}), "t1", &req));
        assert_ne!(k1, request_key("http://h/v1", &serde_json::json!({"id": "a.gguf"}), "t2", &req));
        assert_eq!(k1.len(), 64);
    }

    #[test]
    fn round_trip_and_first_write_wins() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sub/cache.sqlite");
        let c = Cache::open(&p).unwrap();
        assert!(c.get("k").unwrap().is_none());
        c.put("k", "u", "m", &serde_json::json!({}), &reply("one")).unwrap();
        c.put("k", "u", "m", &serde_json::json!({}), &reply("two")).unwrap();
        assert_eq!(c.get("k").unwrap().unwrap().content, "one");
        drop(c);
        // a second handle (another run) sees it
        let c2 = Cache::open(&p).unwrap();
        assert_eq!(c2.len().unwrap(), 1);
    }

    /// Issue 23: a cache path that is a standard stream or file descriptor (`/dev/stdout`,
    /// `/proc/self/fd/N`, or a link to one) is refused with that name, never opened as a
    /// database.
    /// Issue 23: a cache path whose last component is a symbolic link (dangling or not), or
    /// whose `-wal` / `-shm` file is one, is refused: a dangling link's target is never
    /// created, a link is never written through.
    #[cfg(unix)]
    #[test]
    fn a_link_is_not_a_cache() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.sqlite");
        Cache::open(&real).unwrap();
        let link = d.path().join("link.sqlite");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let dangling = d.path().join("dangling.sqlite");
        std::os::unix::fs::symlink(d.path().join("created.sqlite"), &dangling).unwrap();
        for p in [&link, &dangling] {
            let e = Cache::open(p).unwrap_err().to_string();
            assert!(e.contains("symbolic link") && e.contains("give the path it points to"), "{}: {e}", p.display());
        }
        assert!(!d.path().join("created.sqlite").exists());
        std::os::unix::fs::symlink(d.path().join("x"), d.path().join("w.sqlite-wal")).unwrap();
        assert!(Cache::open(&d.path().join("w.sqlite")).unwrap_err().to_string().contains("w.sqlite-wal"));
    }

    #[cfg(unix)]
    #[test]
    fn a_descriptor_is_not_a_cache() {
        let d = tempfile::tempdir().unwrap();
        let link = d.path().join("cache.sqlite");
        std::os::unix::fs::symlink("/proc/self/fd/2", &link).unwrap();
        for p in [Path::new("/proc/self/fd/2"), Path::new("/dev/fd/2"), link.as_path()] {
            let e = Cache::open(p).unwrap_err();
            assert!(e.to_string().contains("file descriptor"), "{}: {e}", p.display());
        }
    }

    #[test]
    fn garbage_is_reported_as_corrupt() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("cache.sqlite");
        std::fs::write(&p, vec![0x5au8; 8192]).unwrap();
        let e = Cache::open(&p).unwrap_err();
        assert!(matches!(e, Error::CacheCorrupt { .. }), "{e}");
        assert!(e.to_string().contains("Move it away or delete it"), "{e}");
    }

    #[test]
    fn foreign_database_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("other.sqlite");
        let c = Connection::open(&p).unwrap();
        c.execute_batch("CREATE TABLE factpico_llm_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO factpico_llm_meta VALUES ('format', '99');").unwrap();
        drop(c);
        let e = Cache::open(&p).unwrap_err();
        assert!(e.to_string().contains("cache format 99"), "{e}");
    }
}
