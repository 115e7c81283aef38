//! The local model store: `$FACTPICO_HOME/models/NAME`, filled by [`ModelStore::pull`] (download
//! + conversion) or [`ModelStore::import`] (files placed by hand).
//!
//! Layout under `$FACTPICO_HOME` (see [`factpico_home`]):
//!
//! * `models/NAME/` — installed model directories (what the metric options take);
//! * `models/.NAME.lock` — held while NAME is pulled, imported or removed;
//! * `models/.NAME.tmp-PID/`, `models/.NAME.from-PID/` — a pull in progress (renamed or removed
//!   when it ends, so a failed pull leaves no half-installed model);
//! * `downloads/NAME/<org>/<repo>/<file>` — the publisher's files (hub layout), with
//!   `<file>.partial` while a download is incomplete (resumed by the next pull); removed after a
//!   successful install unless [`PullOptions::keep_downloads`].
use std::fs::File;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::catalogue::{is_safe_relative, Catalogue, Entry, Route, Source};
use crate::error::{Error, Result};
use crate::hub::{redact_url, HubClient, HubConfig, Progress};

/// The factpico cache directory: `$FACTPICO_HOME`, else `$XDG_CACHE_HOME/factpico`, else
/// `$HOME/.cache/factpico` (else `./.factpico`). The same rule as
/// `factpico_runtime::factpico_home` (repeated here so that this crate does not depend on
/// ONNX Runtime).
pub fn factpico_home() -> PathBuf {
    let var = |n: &str| std::env::var_os(n).filter(|p| !p.is_empty()).map(PathBuf::from);
    if let Some(p) = var("FACTPICO_HOME") {
        return p;
    }
    if let Some(p) = var("XDG_CACHE_HOME") {
        return p.join("factpico");
    }
    match var("HOME") {
        Some(h) => h.join(".cache").join("factpico"),
        None => PathBuf::from(".factpico"),
    }
}

/// The torch-free conversion of `rust` routes, provided by the caller (crate
/// `factpico-convert`).
pub trait Converter {
    /// Converts the publisher's files under `from` (laid out as [`Entry::place`] says) into a
    /// factpico model directory `out` (created empty by the caller).
    ///
    /// # Errors
    /// Whatever the converter reports; the pull then installs nothing.
    fn convert(&self, entry: &Entry, from: &Path, out: &Path) -> std::result::Result<(), Box<dyn std::error::Error + Send + Sync>>;
}

/// Where the Python export scripts (`python-export` routes) come from.
///
/// The wheel ships the scripts (`factpico/_export/onnx/*.py`, the repository's `onnx/` files)
/// and its extra `factpico[export]` installs their pinned stack (torch, transformers, onnx...):
/// `factpico.models.pull` and the wheel's `factpico` console script pass that folder and their
/// own Python here, so no checkout is needed.
#[derive(Debug, Clone, Default)]
pub struct ExportConfig {
    /// The Python with torch, transformers and onnx. Default: `FACTPICO_EXPORT_PYTHON`, else the
    /// checkout's `.venv-export/bin/python` when run from a source checkout.
    pub python: Option<PathBuf>,
    /// The folder that holds `onnx/`. Default: `FACTPICO_EXPORT_SCRIPTS` (the wheel's console
    /// script sets it to its `factpico/_export`), else the source checkout this crate was built
    /// from, when it is still there.
    pub scripts: Option<PathBuf>,
}

/// The command that installs the export stack.
pub const EXPORT_INSTALL_COMMAND: &str = "pip install 'factpico[export]'";

/// Options of [`ModelStore::pull`] and [`ModelStore::import`].
pub struct PullOptions<'a> {
    /// The hub (endpoint, token, offline, HF cache).
    pub hub: HubConfig,
    /// No progress bars (they are also hidden when stderr is not a terminal).
    pub quiet: bool,
    /// Also install an int8 copy as `NAME-int8` (entries with `int8: true`).
    pub int8: bool,
    /// Reinstall even when installed.
    pub force: bool,
    /// Keep `downloads/NAME` after a successful install.
    pub keep_downloads: bool,
    /// The converter of `rust` routes (default: [`crate::BuiltinConverter`], the torch-free
    /// `factpico-convert`).
    pub converter: Option<&'a dyn Converter>,
    /// The Python export of `python-export` routes.
    pub export: ExportConfig,
}

impl std::fmt::Debug for PullOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PullOptions")
            .field("hub", &self.hub)
            .field("quiet", &self.quiet)
            .field("int8", &self.int8)
            .field("force", &self.force)
            .field("keep_downloads", &self.keep_downloads)
            .field("converter", &self.converter.is_some())
            .field("export", &self.export)
            .finish()
    }
}

impl Default for PullOptions<'_> {
    fn default() -> Self {
        Self {
            hub: HubConfig::from_env(),
            quiet: false,
            int8: false,
            force: false,
            keep_downloads: false,
            converter: None,
            export: ExportConfig::default(),
        }
    }
}

/// The installed models under `$FACTPICO_HOME/models` and the catalogue that names them.
#[derive(Debug, Clone)]
pub struct ModelStore {
    home: PathBuf,
    catalogue: Catalogue,
}

/// Removes a path when dropped (a pull's scratch folders).
struct Cleanup(Vec<PathBuf>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for p in &self.0 {
            if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()) {
                let _ = std::fs::remove_dir_all(p);
            }
        }
    }
}

/// What [`ModelStore::pull_report`] did.
#[derive(Debug, Clone)]
pub struct Pulled {
    /// The installed directory.
    pub path: PathBuf,
    /// It was installed already (nothing downloaded).
    pub already: bool,
    /// `(org/repo/file or archive URL, sha256)` of every publisher file used, for pinning.
    pub files: Vec<(String, String)>,
}

/// A held `models/.NAME.lock`.
#[derive(Debug)]
pub struct StoreLock {
    _file: File,
}

fn create_dir(p: &Path) -> Result<()> {
    std::fs::create_dir_all(p).map_err(|e| Error::io("create", p, e))
}

/// Hard-links `src` to `dst` (same filesystem), else copies it.
fn link_or_copy(src: &Path, dst: &Path) -> Result<()> {
    if let Some(parent) = dst.parent() {
        create_dir(parent)?;
    }
    if std::fs::hard_link(src, dst).is_ok() {
        return Ok(());
    }
    std::fs::copy(src, dst).map(|_| ()).map_err(|e| Error::io(format!("copy {} to", src.display()), dst, e))
}

/// Copies the regular files and folders of `src` into `dst`; refuses symbolic links.
fn copy_tree(src: &Path, dst: &Path) -> Result<()> {
    create_dir(dst)?;
    for e in std::fs::read_dir(src).map_err(|e| Error::io("read", src, e))? {
        let e = e.map_err(|e| Error::io("read", src, e))?;
        let p = e.path();
        let t = e.file_type().map_err(|er| Error::io("inspect", &p, er))?;
        let to = dst.join(e.file_name());
        if t.is_symlink() {
            return Err(Error::UnsafePath { path: p, reason: "is a symbolic link; import copies regular files only".into() });
        } else if t.is_dir() {
            copy_tree(&p, &to)?;
        } else {
            std::fs::copy(&p, &to).map_err(|er| Error::io(format!("copy {} to", p.display()), &to, er))?;
        }
    }
    Ok(())
}

/// Bytes of the regular files under `p`.
pub fn disk_size(p: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(p) else { return 0 };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => disk_size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// The source checkout this crate was built from, if it is still there.
fn checkout_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?.parent()?.to_path_buf();
    root.join("onnx").join("export_hf.py").is_file().then_some(root)
}

fn substitute(arg: &str, from: &Path, out: &Path, work: &Path) -> String {
    arg.replace("{from}", &from.display().to_string())
        .replace("{out}", &out.display().to_string())
        .replace("{work}", &work.display().to_string())
}

impl ModelStore {
    /// A store under `home` (its `models/` and `downloads/`) naming models from `catalogue`.
    pub fn new(home: impl Into<PathBuf>, catalogue: Catalogue) -> Self {
        Self { home: home.into(), catalogue }
    }

    /// The store under [`factpico_home`] with the built-in catalogue.
    ///
    /// # Errors
    /// [`Error::Catalogue`] (the built-in catalogue is invalid; guarded by a test).
    pub fn from_env() -> Result<Self> {
        Ok(Self::new(factpico_home(), Catalogue::builtin()?))
    }

    /// The catalogue.
    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    /// `<home>/models`.
    pub fn models_dir(&self) -> PathBuf {
        self.home.join("models")
    }

    /// `<home>/downloads/NAME`.
    pub fn downloads_dir(&self, name: &str) -> PathBuf {
        self.home.join("downloads").join(name)
    }

    /// Where `name` is (or would be) installed: `<home>/models/NAME`.
    ///
    /// # Errors
    /// [`Error::UnknownModel`].
    pub fn path(&self, name: &str) -> Result<PathBuf> {
        let e = self.catalogue.entry(name)?;
        Ok(self.models_dir().join(&e.name))
    }

    /// Is `name` installed (its directory exists)?
    ///
    /// # Errors
    /// [`Error::UnknownModel`].
    pub fn installed(&self, name: &str) -> Result<bool> {
        Ok(self.path(name)?.is_dir())
    }

    /// Takes `models/.NAME.lock`, waiting for another process that holds it.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn lock(&self, name: &str) -> Result<StoreLock> {
        self.lock_noting(name, false)
    }

    fn lock_noting(&self, name: &str, say: bool) -> Result<StoreLock> {
        let dir = self.models_dir();
        create_dir(&dir)?;
        let p = dir.join(format!(".{name}.lock"));
        let f = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&p).map_err(|e| Error::io("open", &p, e))?;
        match f.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                log::warn!("{name}: another factpico process is installing or removing it; waiting");
                if say {
                    eprintln!("{name}: another factpico process is installing or removing it; waiting for it");
                }
                f.lock().map_err(|e| Error::io("lock", &p, e))?;
            }
            Err(std::fs::TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => {}
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io("lock", &p, e)),
        }
        Ok(StoreLock { _file: f })
    }

    /// Removes the scratch folders of `name`'s earlier pulls that died (`.NAME.tmp-PID`,
    /// `.NAME.from-PID`, `.NAME.work-PID`, `.NAME-int8.tmp-PID`); call with the lock held.
    fn remove_stale_scratch(&self, name: &str) {
        let Ok(rd) = std::fs::read_dir(self.models_dir()) else { return };
        let prefixes = [format!(".{name}.tmp-"), format!(".{name}.from-"), format!(".{name}.work-"), format!(".{name}-int8.tmp-")];
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if prefixes.iter().any(|p| n.starts_with(p.as_str())) && e.file_type().is_ok_and(|t| t.is_dir()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }

    /// Removes the installed `name` (and `NAME-int8`); `Ok(false)` when it was not installed.
    ///
    /// # Errors
    /// [`Error::UnknownModel`], [`Error::Io`].
    pub fn rm(&self, name: &str) -> Result<bool> {
        let path = self.path(name)?;
        let _lock = self.lock(name)?;
        let mut removed = false;
        for p in [path.clone(), self.models_dir().join(format!("{name}-int8"))] {
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.file_type().is_symlink() => {
                    std::fs::remove_file(&p).map_err(|e| Error::io("remove", &p, e))?;
                    removed = true;
                }
                Ok(_) => {
                    std::fs::remove_dir_all(&p).map_err(|e| Error::io("remove", &p, e))?;
                    removed = true;
                }
                Err(_) => {}
            }
        }
        Ok(removed)
    }

    /// The model directory for a metric option value: an existing directory wins; else an
    /// installed catalogue name; else an error that gives `factpico models pull NAME`.
    ///
    /// # Errors
    /// [`Error::NotInstalled`] (a catalogue name not installed), [`Error::NotAModel`].
    pub fn resolve(&self, value: &str) -> Result<PathBuf> {
        let p = Path::new(value);
        if p.is_dir() {
            return Ok(p.to_path_buf());
        }
        match self.catalogue.entry(value) {
            Ok(e) => {
                let path = self.models_dir().join(&e.name);
                if path.is_dir() {
                    Ok(path)
                } else {
                    Err(Error::NotInstalled { name: e.name.clone(), path })
                }
            }
            Err(_) => Err(Error::NotAModel { value: value.to_owned() }),
        }
    }

    fn check_installable(&self, e: &Entry, int8: bool) -> Result<()> {
        match &e.route {
            Route::Refused => {
                return Err(Error::Refused { name: e.name.clone(), reason: e.refused.clone().unwrap_or_default() });
            }
            Route::Pip => {
                let reqs: Vec<String> = e
                    .sources
                    .iter()
                    .filter_map(|s| match s {
                        Source::Pip { requirement, with } => Some(format!("{requirement} {with}").trim().to_owned()),
                        _ => None,
                    })
                    .collect();
                return Err(Error::ByHand {
                    name: e.name.clone(),
                    how: format!(
                        "  it is a Python package, installed into the sidecar's Python: pip install {}\n  (from a checkout: cargo xtask sidecar)",
                        reqs.join(" ")
                    ),
                });
            }
            _ => {}
        }
        if int8 && !e.int8 {
            return Err(Error::Unsupported { name: e.name.clone(), reason: "no int8 copy for this model (int8: false in the catalogue)".into() });
        }
        Ok(())
    }

    fn by_hand_message(&self, e: &Entry, endpoint: &str) -> String {
        let mut s = String::from("  Place these files in a directory DIR (on a machine with access, then copy them over):\n");
        for p in &e.place {
            s.push_str(&format!("    DIR/{p}\n"));
        }
        s.push_str("  from:\n");
        for l in e.describe_sources(endpoint) {
            s.push_str(&format!("    {l}\n"));
        }
        s.push_str(&format!("  then run: factpico models import {} DIR", e.name));
        s
    }

    /// Downloads `name`'s files and installs the converted model into `models/NAME`
    /// (atomically: converted into `models/.NAME.tmp-PID`, then renamed). Returns the path.
    ///
    /// Already installed (and not [`PullOptions::force`]): returns at once. Two concurrent pulls
    /// of one name: the second waits for the first's lock, then sees it installed.
    ///
    /// # Errors
    /// [`Error::UnknownModel`], [`Error::Refused`], [`Error::ByHand`] (by-hand or pip sources),
    /// [`Error::Unsupported`] (`int8`), the download errors of [`HubClient::fetch`] (nothing is
    /// installed; partial downloads are kept for the next pull), the conversion errors.
    pub fn pull(&self, name: &str, opts: &PullOptions<'_>) -> Result<PathBuf> {
        self.pull_report(name, opts).map(|p| p.path)
    }

    /// [`ModelStore::pull`], also saying what was done and each file's sha256.
    ///
    /// # Errors
    /// As [`ModelStore::pull`].
    pub fn pull_report(&self, name: &str, opts: &PullOptions<'_>) -> Result<Pulled> {
        let e = self.catalogue.entry(name)?.clone();
        self.check_installable(&e, opts.int8)?;
        if e.sources.iter().any(|s| matches!(s, Source::ByHand { .. })) {
            return Err(Error::ByHand { name: e.name.clone(), how: self.by_hand_message(&e, &opts.hub.endpoint) });
        }
        if matches!(e.route, Route::PythonExport { .. }) {
            // Before any download: a pull that cannot convert fetches nothing (gigabytes for the
            // large checkpoints) and says what to install.
            export_stack(&e.name, &opts.export)?;
        }
        let dest = self.models_dir().join(&e.name);
        let _lock = self.lock_noting(&e.name, !opts.quiet)?;
        self.remove_stale_scratch(&e.name);
        if dest.is_dir() && !opts.force && (!opts.int8 || self.int8_dir(&e.name).is_dir()) {
            return Ok(Pulled { path: dest, already: true, files: Vec::new() });
        }
        let mut used = Vec::new();
        let progress = Progress { bars: !opts.quiet && std::io::stderr().is_terminal() };
        let client = HubClient::new(opts.hub.clone(), progress)?;
        let downloads = self.downloads_dir(&e.name);
        let pid = std::process::id();
        let from = self.models_dir().join(format!(".{}.from-{pid}", e.name));
        let _cleanup = Cleanup(vec![from.clone()]);
        if from.exists() {
            std::fs::remove_dir_all(&from).map_err(|er| Error::io("remove", &from, er))?;
        }
        create_dir(&from)?;
        for s in &e.sources {
            match s {
                Source::Hub { repo, revision, into, files } => {
                    for f in files {
                        let got = downloads.join(repo).join(&f.path);
                        let Some(sha) = client.fetch(repo, revision, f, &got)? else {
                            log::info!("{repo}/{}: not in the repository (optional), skipped", f.path);
                            continue;
                        };
                        log::info!("{repo}/{}: sha256 {sha}", f.path);
                        used.push((format!("{repo}/{}", f.path), sha));
                        link_or_copy(&got, &from.join(into).join(&f.path))?;
                    }
                }
                Source::Archive { url, root, into, sha256 } => {
                    if opts.hub.offline {
                        return Err(Error::Offline { repo: redact_url(url), file: root.clone(), cache: downloads.clone() });
                    }
                    let file = url.rsplit('/').next().filter(|n| is_safe_relative(n)).unwrap_or("archive.tar.gz");
                    let got = downloads.join("archives").join(file);
                    create_dir(&downloads.join("archives"))?;
                    let done = got.is_file() && sha256.as_deref().is_none_or(|p| crate::hub::sha256_file(&got).is_ok_and(|s| s == p));
                    if !done {
                        client.download(url, &got, file, None, sha256.as_deref().unwrap_or(url))?;
                    }
                    let sha = crate::hub::verify(&got, file, None, sha256.as_deref())?;
                    log::info!("{}: sha256 {sha}", redact_url(url));
                    used.push((redact_url(url), sha));
                    unpack_tar_gz(&got, root, &from.join(into))?;
                }
                Source::ByHand { .. } | Source::Pip { .. } => {}
            }
        }
        let path = self.install_from(&e, &from, opts)?;
        Ok(Pulled { path, already: false, files: used })
    }

    /// Installs `name` from files placed by hand in `dir` (laid out as [`Entry::place`]
    /// says), with the entry's conversion route; `dir` is not modified.
    ///
    /// # Errors
    /// [`Error::MissingFiles`] (before any conversion), the route's errors, [`Error::Io`].
    pub fn import(&self, name: &str, dir: &Path, opts: &PullOptions<'_>) -> Result<PathBuf> {
        let e = self.catalogue.entry(name)?.clone();
        self.check_installable(&e, opts.int8)?;
        let missing = e.missing_files(dir);
        if !missing.is_empty() {
            return Err(Error::MissingFiles { name: e.name.clone(), dir: dir.to_owned(), missing: missing.join(", ") });
        }
        let _lock = self.lock(&e.name)?;
        self.remove_stale_scratch(&e.name);
        self.install_from(&e, dir, opts)
    }

    fn int8_dir(&self, name: &str) -> PathBuf {
        self.models_dir().join(format!("{name}-int8"))
    }

    /// Converts `from` into `models/.NAME.tmp-PID` and renames it to `models/NAME`.
    fn install_from(&self, e: &Entry, from: &Path, opts: &PullOptions<'_>) -> Result<PathBuf> {
        let missing = e.missing_files(from);
        if !missing.is_empty() {
            return Err(Error::MissingFiles { name: e.name.clone(), dir: from.to_owned(), missing: missing.join(", ") });
        }
        let pid = std::process::id();
        let models = self.models_dir();
        let tmp = models.join(format!(".{}.tmp-{pid}", e.name));
        let work = models.join(format!(".{}.work-{pid}", e.name));
        let tmp8 = models.join(format!(".{}-int8.tmp-{pid}", e.name));
        let _cleanup = Cleanup(vec![tmp.clone(), work.clone(), tmp8.clone()]);
        for d in [&tmp, &work, &tmp8] {
            if d.exists() {
                std::fs::remove_dir_all(d).map_err(|er| Error::io("remove", d, er))?;
            }
        }
        match &e.route {
            Route::Onnx => copy_tree(from, &tmp)?,
            Route::Rust => {
                let conv = opts.converter.unwrap_or(&crate::BuiltinConverter);
                create_dir(&tmp)?;
                conv.convert(e, from, &tmp).map_err(|source| Error::Convert { name: e.name.clone(), source })?;
            }
            Route::PythonExport { steps } => {
                let (python, root) = export_stack(&e.name, &opts.export)?;
                create_dir(&work)?;
                for step in steps {
                    let Some((script, args)) = step.split_first() else { continue };
                    let args: Vec<String> = args.iter().map(|a| substitute(a, from, &tmp, &work)).collect();
                    run_step(&e.name, &python, &root, script, &args)?;
                }
                if opts.int8 {
                    let args = vec!["--model-dir".to_owned(), tmp.display().to_string(), "--out".to_owned(), tmp8.display().to_string()];
                    run_step(&e.name, &python, &root, "onnx/quantize.py", &args)?;
                }
            }
            Route::Pip | Route::Refused => self.check_installable(e, false)?,
        }
        if !tmp.is_dir() {
            return Err(Error::Unsupported { name: e.name.clone(), reason: "the conversion wrote no model directory".into() });
        }
        let dest = models.join(&e.name);
        replace_dir(&tmp, &dest)?;
        if tmp8.is_dir() {
            replace_dir(&tmp8, &self.int8_dir(&e.name))?;
        }
        if !opts.keep_downloads {
            let d = self.downloads_dir(&e.name);
            if d.is_dir() && !from.starts_with(&d) {
                let _ = std::fs::remove_dir_all(&d);
            }
        }
        Ok(dest)
    }
}

/// Moves `tmp` to `dest`, replacing an existing `dest` only once `tmp` is complete.
fn replace_dir(tmp: &Path, dest: &Path) -> Result<()> {
    let rename = |a: &Path, b: &Path| std::fs::rename(a, b).map_err(|e| Error::io(format!("rename {} to", a.display()), b, e));
    match std::fs::symlink_metadata(dest) {
        Ok(_) => {
            let old = dest.with_file_name(format!(
                ".{}.old-{}",
                dest.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                std::process::id()
            ));
            rename(dest, &old)?;
            rename(tmp, dest)?;
            let _ = if old.is_dir() && !std::fs::symlink_metadata(&old).is_ok_and(|m| m.file_type().is_symlink()) {
                std::fs::remove_dir_all(&old)
            } else {
                std::fs::remove_file(&old)
            };
            Ok(())
        }
        Err(_) => rename(tmp, dest),
    }
}

/// The export Python and the scripts' root, checked (torch, transformers and onnx import).
fn export_stack(name: &str, cfg: &ExportConfig) -> Result<(PathBuf, PathBuf)> {
    let unavailable = |reason: String| Error::ExportUnavailable { name: name.to_owned(), reason, command: EXPORT_INSTALL_COMMAND.to_owned() };
    let python = cfg
        .python
        .clone()
        .or_else(|| std::env::var_os("FACTPICO_EXPORT_PYTHON").filter(|p| !p.is_empty()).map(PathBuf::from))
        .or_else(|| checkout_root().map(|r| r.join(".venv-export").join("bin").join("python")).filter(|p| p.exists()))
        .ok_or_else(|| unavailable("no export Python (FACTPICO_EXPORT_PYTHON is not set and no factpico wheel is in use)".into()))?;
    let ok = Command::new(&python)
        .args(["-c", "import torch, transformers, onnx"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return Err(unavailable(format!(
            "{} cannot import torch, transformers and onnx (FACTPICO_EXPORT_PYTHON selects another Python)",
            python.display()
        )));
    }
    let root = cfg
        .scripts
        .clone()
        .or_else(|| std::env::var_os("FACTPICO_EXPORT_SCRIPTS").filter(|p| !p.is_empty()).map(PathBuf::from))
        .or_else(|| wheel_scripts(&python))
        .or_else(checkout_root)
        .ok_or_else(|| unavailable("the export scripts (onnx/) were not found; set FACTPICO_EXPORT_SCRIPTS to the folder that holds onnx/".into()))?;
    if !root.join("onnx").join("common.py").is_file() {
        return Err(unavailable(format!("{} holds no onnx/common.py (FACTPICO_EXPORT_SCRIPTS: the folder that holds onnx/)", root.display())));
    }
    Ok((python, root))
}

/// The `factpico/_export` folder of the factpico wheel installed in `python` (with the
/// `[export]` extra, the usual case for a `cargo install`ed CLI given `FACTPICO_EXPORT_PYTHON`).
fn wheel_scripts(python: &Path) -> Option<PathBuf> {
    let out = Command::new(python)
        .args(["-c", "import os, factpico; print(os.path.join(os.path.dirname(factpico.__file__), '_export'))"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let dir = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    dir.join("onnx").join("common.py").is_file().then_some(dir)
}

fn run_step(name: &str, python: &Path, root: &Path, script: &str, args: &[String]) -> Result<()> {
    let status = Command::new(python)
        .arg(root.join(script))
        .args(args)
        .current_dir(root)
        .status()
        .map_err(|e| Error::io("run", python, e))?;
    if !status.success() {
        return Err(Error::ExportFailed { name: name.to_owned(), step: script.to_owned(), status: status.to_string() });
    }
    Ok(())
}

/// Unpacks the entries under `root/` of a `.tar.gz` into `dest` (regular files and folders
/// only; paths that would leave `dest` are refused).
fn unpack_tar_gz(archive: &Path, root: &str, dest: &Path) -> Result<()> {
    let f = File::open(archive).map_err(|e| Error::io("read", archive, e))?;
    let mut ar = tar::Archive::new(flate2::read::GzDecoder::new(f));
    let bad = |reason: String| Error::UnsafePath { path: archive.to_owned(), reason };
    create_dir(dest)?;
    let mut n = 0;
    for ent in ar.entries().map_err(|e| Error::io("read", archive, e))? {
        let mut ent = ent.map_err(|e| Error::io("read", archive, e))?;
        let path = ent.path().map_err(|e| Error::io("read", archive, e))?.to_string_lossy().into_owned();
        let path = path.trim_start_matches("./").trim_end_matches('/').to_owned();
        let Some(rel) = path.strip_prefix(&format!("{root}/")) else { continue };
        if !is_safe_relative(rel) {
            return Err(bad(format!("archive entry {path:?} leaves its folder")));
        }
        let kind = ent.header().entry_type();
        let out = dest.join(rel);
        if kind.is_dir() {
            create_dir(&out)?;
        } else if kind.is_file() {
            if let Some(p) = out.parent() {
                create_dir(p)?;
            }
            ent.unpack(&out).map_err(|e| Error::io("unpack into", &out, e))?;
            n += 1;
        } else {
            return Err(bad(format!("archive entry {path:?} is not a regular file or folder")));
        }
    }
    if n == 0 {
        return Err(bad(format!("no files under {root}/")));
    }
    Ok(())
}

/// The model directory for a metric option value (or a default catalogue name), with the
/// store under [`factpico_home`] and the built-in catalogue: see [`ModelStore::resolve`].
///
/// # Errors
/// [`Error::NotInstalled`] (its message gives `factpico models pull NAME`), [`Error::NotAModel`],
/// [`Error::Catalogue`].
pub fn resolve_model(value: &str) -> Result<PathBuf> {
    ModelStore::from_env()?.resolve(value)
}
