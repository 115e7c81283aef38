//! `ModelStore::pull` against a real HTTP hub stand-in started by each test (resolve endpoint on
//! 127.0.0.1, LFS storage on 127.0.0.2; `tests/support/hub_server.rs`), with a test-only
//! catalogue whose "publisher repository" is the committed fixture `fixtures/models/alignscore-tiny`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/hub_server.rs"]
mod hub_server;

use std::path::{Path, PathBuf};

use factpico_models::{Catalogue, Converter, Entry, Error, HubConfig, ModelStore, PullOptions, Token};
use hub_server::{HubServer, COMMIT};
use sha2::{Digest, Sha256};

const REPO: &str = "factpico-test/alignscore-tiny";
const FILES: [&str; 3] = ["model.onnx", "tokenizer.json", "factpico.json"];

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/models/alignscore-tiny")
}

fn sha(b: &[u8]) -> String {
    hex::encode(Sha256::digest(b))
}

/// A test catalogue: `tiny` (route `onnx`, pins from the fixture bytes), `tiny-rust`,
/// `tiny-export` (python-export), `gated` (same files in a gated repository).
fn catalogue(pin_override: Option<&str>) -> Catalogue {
    let files: Vec<serde_json::Value> = FILES
        .iter()
        .map(|f| {
            let pin = pin_override.map_or_else(|| sha(&std::fs::read(fixture_dir().join(f)).unwrap()), str::to_owned);
            serde_json::json!({"path": f, "sha256": if *f == "model.onnx" { Some(pin) } else { None }})
        })
        .chain(std::iter::once(serde_json::json!({"path": "absent.txt", "sha256": null, "optional": true})))
        .collect();
    let entry = |name: &str, repo: &str, route: serde_json::Value| {
        serde_json::json!({
            "name": name, "metric": "alignscore", "option": "alignscore.model", "about": "test", "architecture": "tiny",
            "size": "~0 GB", "licence": "test",
            "sources": [{"kind": "hub", "repo": repo, "revision": "main", "files": files}],
            "place": ["model.onnx", "tokenizer.json", "factpico.json"],
            "route": route,
        })
    };
    let cat = serde_json::json!({"format": 1, "models": [
        entry("tiny", REPO, serde_json::json!({"kind": "onnx"})),
        entry("tiny-rust", REPO, serde_json::json!({"kind": "rust"})),
        entry("tiny-export", REPO, serde_json::json!({"kind": "python-export", "steps": [["onnx/export_hf.py", "--model", "{from}", "--out", "{out}"]]})),
        entry("gated", "factpico-test/gated-tiny", serde_json::json!({"kind": "onnx"})),
    ]});
    Catalogue::from_json(&cat.to_string(), "test").unwrap()
}

struct Setup {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    hf_cache: PathBuf,
    server: HubServer,
}

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let served = tmp.path().join("served");
    for repo in [REPO, "factpico-test/gated-tiny"] {
        std::fs::create_dir_all(served.join(repo)).unwrap();
        for f in FILES {
            std::fs::copy(fixture_dir().join(f), served.join(repo).join(f)).unwrap();
        }
    }
    let server = HubServer::start(served);
    {
        let mut b = server.behaviour.lock().unwrap();
        for repo in [REPO, "factpico-test/gated-tiny"] {
            b.lfs.insert(format!("{repo}/model.onnx"));
            b.lfs.insert(format!("{repo}/tokenizer.json"));
        }
        b.gated.insert("factpico-test/gated-tiny".into());
        b.token = "hf_TESTSECRET_4f1c9a".into();
    }
    let home = tmp.path().join("home");
    let hf_cache = tmp.path().join("hf-cache");
    Setup { _tmp: tmp, home, hf_cache, server }
}

impl Setup {
    fn hub(&self) -> HubConfig {
        HubConfig { endpoint: self.server.endpoint.clone(), token: None, offline: false, hf_cache: self.hf_cache.clone() }
    }
    fn opts(&self) -> PullOptions<'static> {
        PullOptions { hub: self.hub(), quiet: true, ..PullOptions::default() }
    }
    fn store(&self) -> ModelStore {
        ModelStore::new(&self.home, catalogue(None))
    }
}

fn assert_installed_identical(dir: &Path) {
    for f in FILES {
        assert_eq!(std::fs::read(dir.join(f)).unwrap(), std::fs::read(fixture_dir().join(f)).unwrap(), "{f} differs");
    }
    assert!(!dir.join("absent.txt").exists());
}

/// No `.NAME.tmp-*` / `.from-*` / `.work-*` folders left in `models/`.
fn assert_no_scratch(home: &Path) {
    let Ok(rd) = std::fs::read_dir(home.join("models")) else { return };
    for e in rd.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        assert!(!n.starts_with('.') || n.ends_with(".lock"), "scratch left: {n}");
    }
}

#[test]
fn pull_installs_the_publishers_files_byte_identical() {
    let s = setup();
    let store = s.store();
    assert!(!store.installed("tiny").unwrap());
    // A pull killed earlier left its scratch folder: removed under the lock.
    std::fs::create_dir_all(s.home.join("models/.tiny.tmp-999999/half")).unwrap();
    let path = store.pull("tiny", &s.opts()).unwrap();
    assert_eq!(path, s.home.join("models/tiny"));
    assert!(store.installed("tiny").unwrap());
    assert_installed_identical(&path);
    assert_no_scratch(&s.home);
    assert!(!s.home.join("downloads/tiny").exists(), "downloads are removed after the install");
    // LFS files came from the storage host after the 302; the optional file's 404 was skipped.
    let storage: Vec<String> = s.server.requests("storage").iter().map(|r| r.path.clone()).collect();
    assert_eq!(storage.len(), 2, "{storage:?}");
    assert!(storage.contains(&format!("/lfs/{REPO}/model.onnx")), "{storage:?}");
    let hub = s.server.requests("hub");
    assert!(hub.iter().any(|r| r.method == "HEAD" && r.path == format!("/{REPO}/resolve/main/absent.txt")));
    assert!(hub.iter().all(|r| !r.headers.contains_key("authorization")), "no token configured, none sent");
    // A second pull finds it installed and makes no request.
    s.server.clear_log();
    assert_eq!(store.pull("tiny", &s.opts()).unwrap(), path);
    assert!(s.server.requests("hub").is_empty() && s.server.requests("storage").is_empty());
}

#[test]
fn an_interrupted_download_resumes_from_the_byte_reached() {
    let s = setup();
    let store = s.store();
    let model = std::fs::read(fixture_dir().join("model.onnx")).unwrap();
    let half = model.len() as u64 / 2;
    s.server.behaviour.lock().unwrap().cut_after = Some(half);
    let err = store.pull("tiny", &s.opts()).unwrap_err();
    assert!(matches!(err, Error::Interrupted { kept, .. } if kept == half), "{err:?}");
    assert!(err.to_string().contains("run the pull again to resume"), "{err}");
    assert!(!store.installed("tiny").unwrap(), "nothing installed after a failed pull");
    assert_no_scratch(&s.home);
    let partial = s.home.join(format!("downloads/tiny/{REPO}/model.onnx.partial"));
    assert_eq!(std::fs::read(&partial).unwrap(), &model[..half as usize], "the bytes received are kept");

    s.server.clear_log();
    let path = store.pull("tiny", &s.opts()).unwrap();
    let ranges: Vec<Option<String>> = s
        .server
        .requests("storage")
        .iter()
        .filter(|r| r.path.ends_with("/model.onnx"))
        .map(|r| r.headers.get("range").cloned())
        .collect();
    assert_eq!(ranges, vec![Some(format!("bytes={half}-"))]);
    assert_eq!(sha(&std::fs::read(path.join("model.onnx")).unwrap()), sha(&model));
    assert_installed_identical(&path);
}

#[test]
fn corrupted_bytes_are_refused_and_nothing_is_installed() {
    let s = setup();
    let store = s.store();
    s.server.behaviour.lock().unwrap().corrupt = true;
    let err = store.pull("tiny", &s.opts()).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Checksum { .. }), "{err:?}");
    assert!(msg.contains("X-Linked-Etag") && msg.contains("nothing was installed"), "{msg}");
    assert!(!s.home.join("models/tiny").exists());
    assert!(!s.home.join(format!("downloads/tiny/{REPO}/model.onnx")).exists(), "bad bytes are discarded");
    assert!(!s.home.join(format!("downloads/tiny/{REPO}/model.onnx.partial")).exists());
    assert_no_scratch(&s.home);

    // The hub is consistent but the catalogue pin disagrees: refused too.
    s.server.behaviour.lock().unwrap().corrupt = false;
    let pinned = ModelStore::new(&s.home, catalogue(Some(&"0".repeat(64))));
    let msg = pinned.pull("tiny", &s.opts()).unwrap_err().to_string();
    assert!(msg.contains("the catalogue pins 0000"), "{msg}");
    assert!(!s.home.join("models/tiny").exists());
}

/// The huggingface_hub cache layout: blobs/<sha>, snapshots/<commit>/<file> -> blob, refs/main.
fn fill_hf_cache(cache: &Path, repo: &str) {
    let base = cache.join(format!("models--{}", repo.replace('/', "--")));
    std::fs::create_dir_all(base.join("blobs")).unwrap();
    std::fs::create_dir_all(base.join("refs")).unwrap();
    std::fs::create_dir_all(base.join("snapshots").join(COMMIT)).unwrap();
    std::fs::write(base.join("refs/main"), COMMIT).unwrap();
    for f in FILES {
        let bytes = std::fs::read(fixture_dir().join(f)).unwrap();
        let blob = base.join("blobs").join(sha(&bytes));
        std::fs::write(&blob, &bytes).unwrap();
        std::os::unix::fs::symlink(format!("../../blobs/{}", sha(&bytes)), base.join("snapshots").join(COMMIT).join(f)).unwrap();
    }
}

#[test]
fn offline_uses_only_the_hf_cache_and_makes_no_request() {
    let s = setup();
    let store = s.store();
    let mut opts = s.opts();
    opts.hub.offline = true;
    let err = store.pull("tiny", &opts).unwrap_err();
    assert!(matches!(err, Error::Offline { .. }), "{err:?}");
    assert!(err.to_string().contains("HF_HUB_OFFLINE"), "{err}");
    assert!(!store.installed("tiny").unwrap());

    fill_hf_cache(&s.hf_cache, REPO);
    let path = store.pull("tiny", &opts).unwrap();
    assert_installed_identical(&path);
    assert!(s.server.log.lock().unwrap().is_empty(), "offline: zero HTTP requests");
}

#[test]
fn online_files_in_the_hf_cache_are_not_downloaded_again() {
    let s = setup();
    fill_hf_cache(&s.hf_cache, REPO);
    let path = s.store().pull("tiny", &s.opts()).unwrap();
    assert_installed_identical(&path);
    assert!(s.server.requests("storage").is_empty(), "{:?}", s.server.requests("storage"));
    assert!(s.server.requests("hub").iter().all(|r| r.method == "HEAD"), "only resolve HEADs");
}

#[test]
fn concurrent_pulls_leave_one_intact_model() {
    let s = setup();
    s.server.behaviour.lock().unwrap().delay = std::time::Duration::from_millis(300);
    let results: Vec<_> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..2).map(|_| sc.spawn(|| s.store().pull("tiny", &s.opts()))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in &results {
        assert_eq!(r.as_ref().unwrap(), &s.home.join("models/tiny"));
    }
    assert_installed_identical(&s.home.join("models/tiny"));
    let onnx_gets = s.server.requests("storage").iter().filter(|r| r.path.ends_with("/model.onnx")).count();
    assert_eq!(onnx_gets, 1, "the second pull waited and found it installed");
    assert_no_scratch(&s.home);
}

fn all_bytes_under(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if e.file_type().unwrap().is_dir() {
            all_bytes_under(&p, out);
        } else if e.file_type().unwrap().is_file() {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
}

#[test]
fn a_gated_repository_needs_the_token_which_never_leaks() {
    let s = setup();
    let store = s.store();
    let err = store.pull("gated", &s.opts()).unwrap_err();
    assert!(matches!(err, Error::Unauthorized { status: 401, .. }), "{err:?}");
    assert!(err.to_string().contains("HF_TOKEN"), "{err}");
    assert!(!store.installed("gated").unwrap());

    let secret = "hf_TESTSECRET_4f1c9a";
    let mut opts = s.opts();
    opts.hub.token = Some(Token::new(secret));
    // A wrong token: refused, and the message does not carry the token.
    let mut wrong = s.opts();
    wrong.hub.token = Some(Token::new("hf_WRONG_77"));
    let err = store.pull("gated", &wrong).unwrap_err();
    assert!(!format!("{err} {err:?} {wrong:?}").contains("hf_WRONG_77"));

    let path = store.pull("gated", &opts).unwrap();
    assert_installed_identical(&path);
    let hub = s.server.requests("hub");
    assert!(hub.iter().any(|r| r.headers.get("authorization") == Some(&format!("Bearer {secret}"))));
    assert!(s.server.requests("storage").iter().all(|r| !r.headers.contains_key("authorization")), "the token stays with the hub host");
    assert!(!format!("{opts:?}").contains(secret));
    let mut files = Vec::new();
    all_bytes_under(&s.home, &mut files);
    assert!(!files.is_empty());
    for (p, b) in files {
        assert!(!String::from_utf8_lossy(&b).contains(secret), "token in {}", p.display());
    }
}

#[test]
fn a_missing_required_file_is_not_found() {
    let s = setup();
    std::fs::remove_file(s.server.dir.join(REPO).join("factpico.json")).unwrap();
    let err = s.store().pull("tiny", &s.opts()).unwrap_err();
    assert!(matches!(&err, Error::NotFound { code, file, .. } if code == "EntryNotFound" && file == "factpico.json"), "{err:?}");
    assert!(!s.home.join("models/tiny").exists());
    assert_no_scratch(&s.home);
}

struct CopyConverter;

impl Converter for CopyConverter {
    fn convert(&self, entry: &Entry, from: &Path, out: &Path) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        assert_eq!(entry.name, "tiny-rust");
        for f in FILES {
            std::fs::copy(from.join(f), out.join(f))?;
        }
        std::fs::write(out.join("converted-by"), b"test converter")?;
        Ok(())
    }
}

struct FailingConverter;

impl Converter for FailingConverter {
    fn convert(&self, _: &Entry, _: &Path, out: &Path) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        std::fs::write(out.join("half-written"), b"x")?;
        Err("weights of an unknown shape".into())
    }
}

#[test]
fn rust_routes_call_the_callers_converter_and_failures_install_nothing() {
    let s = setup();
    let store = s.store();
    // no converter given: the built-in (torch-free) one, which converts AlignScore checkpoints
    // (a .ckpt) and MiniCheck-RoBERTa ones, refuses these files and installs nothing
    let err = store.pull("tiny-rust", &s.opts()).unwrap_err();
    assert!(matches!(err, Error::Convert { .. }), "{err:?}");
    let cause = std::error::Error::source(&err).map(ToString::to_string).unwrap_or_default();
    assert!(cause.starts_with("tiny-rust: "), "{err:?}");
    assert!(!store.installed("tiny-rust").unwrap());
    let failing = FailingConverter;
    let opts = PullOptions { converter: Some(&failing), ..s.opts() };
    let err = store.pull("tiny-rust", &opts).unwrap_err();
    assert!(matches!(err, Error::Convert { .. }), "{err:?}");
    assert!(!store.installed("tiny-rust").unwrap());
    assert_no_scratch(&s.home);
    let conv = CopyConverter;
    let opts = PullOptions { converter: Some(&conv), ..s.opts() };
    let path = store.pull("tiny-rust", &opts).unwrap();
    assert_installed_identical(&path);
    assert_eq!(std::fs::read(path.join("converted-by")).unwrap(), b"test converter");
}

#[test]
fn python_export_without_torch_names_the_install_command_before_downloading() {
    let s = setup();
    let store = s.store();
    let mut opts = s.opts();
    opts.export.python = Some(PathBuf::from("/nonexistent/python3"));
    let err = store.pull("tiny-export", &opts).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::ExportUnavailable { .. }), "{err:?}");
    assert!(msg.contains("pip install 'factpico[export]'") && msg.contains("FACTPICO_EXPORT_PYTHON"), "{msg}");
    assert!(!store.installed("tiny-export").unwrap());
    assert_no_scratch(&s.home);
    // Checked before any download: a pull that cannot convert fetches nothing.
    assert!(s.server.log.lock().unwrap().is_empty(), "no request before the export stack is there");
    assert!(!s.home.join("downloads/tiny-export").exists());
}

#[test]
fn import_rm_and_resolve() {
    let s = setup();
    let store = s.store();
    let empty = tempfile::tempdir().unwrap();
    let err = store.import("tiny", empty.path(), &s.opts()).unwrap_err();
    assert!(err.to_string().contains("lacks model.onnx, tokenizer.json, factpico.json"), "{err}");

    let err = store.resolve("tiny").unwrap_err().to_string();
    assert!(err.contains("factpico models pull tiny"), "{err}");
    let err = store.resolve("no-such-model-or-dir").unwrap_err();
    assert!(matches!(err, Error::NotAModel { .. }), "{err:?}");
    // An existing directory wins over everything.
    assert_eq!(store.resolve(fixture_dir().to_str().unwrap()).unwrap(), fixture_dir());

    let path = store.import("tiny", &fixture_dir(), &s.opts()).unwrap();
    assert_installed_identical(&path);
    assert_eq!(store.resolve("tiny").unwrap(), path);
    assert!(fixture_dir().join("model.onnx").is_file(), "the import source is untouched");
    assert!(s.server.log.lock().unwrap().is_empty(), "import makes no request");

    assert!(store.rm("tiny").unwrap());
    assert!(!path.exists());
    assert!(!store.rm("tiny").unwrap());
    assert!(matches!(store.rm("nope"), Err(Error::UnknownModel { .. })));
}

/// A tmpfs mounted for a test; unmounted (lazily if busy) when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts a tmpfs of `size` (e.g. `512k`) at `dir`; `None` (with a visible `SKIP:` line)
    /// when this process may not mount (not root, no tmpfs, a container without the capability).
    fn mount(dir: &Path, size: &str) -> Option<Self> {
        std::fs::create_dir_all(dir).unwrap();
        let out = std::process::Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(dir).output();
        match out {
            Ok(o) if o.status.success() => Some(Tmpfs(dir.to_owned())),
            Ok(o) => {
                eprintln!("SKIP: cannot mount a tmpfs at {} ({}): the disk-full test needs root", dir.display(), String::from_utf8_lossy(&o.stderr).trim());
                None
            }
            Err(e) => {
                eprintln!("SKIP: cannot run mount ({e}): the disk-full test needs root and mount(8)");
                None
            }
        }
    }

    fn resize(&self, size: &str) {
        let o = std::process::Command::new("mount").args(["-o", &format!("remount,size={size}")]).arg(&self.0).output().unwrap();
        assert!(o.status.success(), "remount: {}", String::from_utf8_lossy(&o.stderr));
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let ok = std::process::Command::new("umount").arg(&self.0).status().is_ok_and(|s| s.success());
        if !ok {
            let _ = std::process::Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
}

/// The store on a disk smaller than the model (a 512 KiB tmpfs; model.onnx is ~705 KiB): a clean
/// error naming the full filesystem, nothing installed, the bytes written kept; after the disk
/// grows (remount at 8 MiB) the next pull resumes from them (the `Range` asked is the partial's
/// length) and installs the publisher's bytes.
///
/// Skipped with a visible `SKIP:` line where this process cannot mount (not root); not made a
/// failure under `FACTPICO_REQUIRE_SHARED=1`, which is about the shared data, not privileges.
#[test]
fn a_full_disk_fails_cleanly_and_the_next_pull_resumes() {
    let s = setup();
    let mnt = s.home.parent().unwrap().join("small-disk");
    let Some(disk) = Tmpfs::mount(&mnt, "512k") else { return };
    let store = ModelStore::new(&mnt, catalogue(None));
    let err = store.pull("tiny", &s.opts()).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(&err, Error::DiskFull { mount, .. } if mount == &mnt), "{err:?}");
    assert!(msg.contains(&format!("the filesystem mounted at {} is full", mnt.display())), "{msg}");
    assert!(msg.contains("Nothing was installed") && msg.contains("run the pull again to resume"), "{msg}");
    assert!(!store.installed("tiny").unwrap());
    assert_no_scratch(&mnt);
    let partial = mnt.join(format!("downloads/tiny/{REPO}/model.onnx.partial"));
    let kept = std::fs::metadata(&partial).unwrap().len();
    let model = std::fs::read(fixture_dir().join("model.onnx")).unwrap();
    assert!(kept > 0 && kept < model.len() as u64, "{kept} bytes kept");
    assert_eq!(std::fs::read(&partial).unwrap(), &model[..kept as usize], "the bytes kept are the publisher's");

    disk.resize("8m");
    s.server.clear_log();
    let path = store.pull("tiny", &s.opts()).unwrap();
    let ranges: Vec<Option<String>> =
        s.server.requests("storage").iter().filter(|r| r.path.ends_with("/model.onnx")).map(|r| r.headers.get("range").cloned()).collect();
    assert_eq!(ranges, vec![Some(format!("bytes={kept}-"))], "resumed from the byte the full disk stopped at");
    assert_installed_identical(&path);
    assert_no_scratch(&mnt);
    drop(store);
    drop(disk);
}

/// A `cargo install`ed CLI given only `FACTPICO_EXPORT_PYTHON`: the scripts are that Python's
/// installed `factpico/_export` (the wheel's), not a checkout. The "Python" here is a shell
/// stand-in that answers the torch check, reports its wheel's folder, and runs the export step by
/// copying the files (and logging which script it was given).
#[test]
fn python_export_runs_the_scripts_of_the_export_pythons_wheel() {
    if std::env::var_os("FACTPICO_EXPORT_SCRIPTS").is_some_and(|v| !v.is_empty()) {
        eprintln!("SKIP: FACTPICO_EXPORT_SCRIPTS is set in this environment; the test needs it unset");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let s = setup();
    let dir = s.home.parent().unwrap().join("fake-python");
    let wheel = dir.join("site/factpico/_export");
    std::fs::create_dir_all(wheel.join("onnx")).unwrap();
    for f in ["common.py", "export_hf.py"] {
        std::fs::write(wheel.join("onnx").join(f), "").unwrap();
    }
    let py = dir.join("python3");
    let script = format!(
        "#!/bin/sh\ncase \"$2\" in\n  *'import torch'*) exit 0 ;;\n  *'factpico.__file__'*) echo '{}'; exit 0 ;;\nesac\n\
         echo \"$1\" >> '{}'\nmkdir -p \"$5\" && cp \"$3\"/* \"$5\"/\n",
        wheel.display(),
        dir.join("ran.log").display()
    );
    std::fs::write(&py, script).unwrap();
    std::fs::set_permissions(&py, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut opts = s.opts();
    opts.export.python = Some(py);
    let path = s.store().pull("tiny-export", &opts).unwrap();
    assert_installed_identical(&path);
    let ran = std::fs::read_to_string(dir.join("ran.log")).unwrap();
    assert_eq!(ran.trim(), wheel.join("onnx/export_hf.py").display().to_string(), "the wheel's script ran");
    assert_no_scratch(&s.home);
}
