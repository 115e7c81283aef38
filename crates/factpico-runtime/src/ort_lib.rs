//! Locating, installing and initialising the ONNX Runtime shared library.
//!
//! factpico loads ONNX Runtime dynamically (`ort`'s `load-dynamic` feature), so the library is
//! found at run time, in this order:
//!
//! 1. `ORT_DYLIB_PATH` (a file path), if set and non-empty;
//! 2. `$FACTPICO_HOME/ort/libonnxruntime.so.*` (the newest version present), where
//!    [`factpico_home`] is `$FACTPICO_HOME`, else `$XDG_CACHE_HOME/factpico`, else
//!    `~/.cache/factpico`.
//!
//! [`setup_ort`] fills `$FACTPICO_HOME/ort/` from the PyPI wheel `onnxruntime==1.32.0`
//! (`factpico setup ort`, `cargo xtask ort`). Every path is checked by us (exists, is a shared
//! object, version >= 1.31 when the file name carries one) *before* `ort::init_from`, so a
//! missing or wrong library is an immediate [`Error`], never a hang or a panic.
//!
//! The ONNX Runtime environment can be created only once per process (an `ort` restriction);
//! it lives in a process-wide `static` and the first successfully loaded library wins.
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use crate::error::{Error, Result};

/// The ONNX Runtime version [`setup_ort`] installs (the PyPI `onnxruntime` wheel version).
pub const ORT_VERSION: &str = "1.32.0";
/// Oldest ONNX Runtime minor version (1.x) that the `ort` crate build accepts (`api-31`).
pub const MIN_ORT_MINOR: u32 = 31;

/// The factpico cache directory: `$FACTPICO_HOME`, else `$XDG_CACHE_HOME/factpico`, else
/// `$HOME/.cache/factpico` (else `./.factpico` when no home is known). Holds `ort/` (the ONNX
/// Runtime library) and `models/` (exported model directories).
pub fn factpico_home() -> PathBuf {
    if let Some(p) = std::env::var_os("FACTPICO_HOME").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_CACHE_HOME").filter(|p| !p.is_empty()) {
        return PathBuf::from(p).join("factpico");
    }
    match std::env::var_os("HOME").filter(|p| !p.is_empty()) {
        Some(h) => PathBuf::from(h).join(".cache").join("factpico"),
        None => PathBuf::from(".factpico"),
    }
}

/// `<factpico_home>/models`: where `cargo xtask models ...` puts exported model directories.
pub fn default_models_dir() -> PathBuf {
    factpico_home().join("models")
}

/// Parses the `1.N.M` version from a library file name such as `libonnxruntime.so.1.32.0`
/// or `libonnxruntime.1.32.0.dylib`. Returns `(major, minor)`.
fn version_from_name(path: &Path) -> Option<(u32, u32)> {
    let name = path.file_name()?.to_str()?;
    let rest = name.strip_prefix("libonnxruntime")?;
    let digits: Vec<u32> = rest
        .split('.')
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()))
        .filter_map(|s| s.parse().ok())
        .collect();
    match digits.as_slice() {
        [major, minor, ..] => Some((*major, *minor)),
        _ => None,
    }
}

/// Checks that `path` plausibly is a usable ONNX Runtime library, without loading it:
/// it exists, is a regular file, starts with a shared-object magic number (ELF on Linux,
/// Mach-O on macOS, `MZ` on Windows) and, when the file name carries a version, that version
/// is `1.31` or newer.
///
/// # Errors
/// [`Error::OrtLibrary`] naming the path and the reason.
pub fn check_ort_library(path: &Path) -> Result<()> {
    let bad = |reason: String| Error::OrtLibrary { path: path.to_path_buf(), reason };
    let meta = std::fs::metadata(path).map_err(|e| bad(format!("cannot access it ({e})")))?;
    if !meta.is_file() {
        return Err(bad("it is not a regular file".into()));
    }
    let mut magic = [0u8; 4];
    let mut f = std::fs::File::open(path).map_err(|e| bad(format!("cannot open it ({e})")))?;
    f.read_exact(&mut magic)
        .map_err(|_| bad("it is too short to be a shared library".into()))?;
    let is_shared_object = if cfg!(target_os = "macos") {
        matches!(magic, [0xcf, 0xfa, 0xed, 0xfe] | [0xca, 0xfe, 0xba, 0xbe])
    } else if cfg!(windows) {
        magic[..2] == *b"MZ"
    } else {
        magic == *b"\x7fELF"
    };
    if !is_shared_object {
        return Err(bad("it is not a shared library (wrong magic number)".into()));
    }
    if magic == *b"\x7fELF" {
        if let Some(need) = elf64_min_size(&mut f) {
            if meta.len() < need {
                return Err(bad(format!(
                    "it is truncated ({} bytes, its ELF headers need at least {need}); reinstall it (`factpico setup ort`)",
                    meta.len()
                )));
            }
        }
    }
    if let Some((major, minor)) = version_from_name(path) {
        if major != 1 || minor < MIN_ORT_MINOR {
            return Err(bad(format!(
                "its version {major}.{minor} is too old (factpico needs 1.{MIN_ORT_MINOR} or newer)"
            )));
        }
    }
    Ok(())
}

/// For a little-endian ELF64 file (cursor just after the 4-byte magic): the smallest file
/// size its program- and section-header tables imply. Loading a truncated library can
/// crash the process with SIGBUS, so it is refused before `dlopen`.
fn elf64_min_size(f: &mut std::fs::File) -> Option<u64> {
    let mut h = [0u8; 60];
    f.read_exact(&mut h).ok()?; // bytes 4..64 of the ELF header
    let (class, data) = (h[0], h[1]);
    if class != 2 || data != 1 {
        return None;
    }
    let u64_at = |o: usize| u64::from_le_bytes(h[o - 4..o + 4].try_into().unwrap_or([0; 8]));
    let u16_at = |o: usize| u64::from(u16::from_le_bytes([h[o - 4], h[o - 3]]));
    let ph_end = u64_at(0x20) + u16_at(0x36) * u16_at(0x38);
    let sh_end = u64_at(0x28) + u16_at(0x3A) * u16_at(0x3C);
    Some(ph_end.max(sh_end))
}

/// The newest `libonnxruntime.so.1.*` (or `.dylib`/`.dll`) directly inside `dir`, if any.
fn newest_in(dir: &Path) -> Option<PathBuf> {
    let rd = std::fs::read_dir(dir).ok()?;
    let mut best: Option<((u32, u32), PathBuf)> = None;
    for entry in rd.flatten() {
        let p = entry.path();
        let Some(name) = p.file_name().and_then(|n| n.to_str()) else { continue };
        let is_lib = name.starts_with("libonnxruntime.so")
            || (name.starts_with("libonnxruntime") && name.ends_with(".dylib"))
            || name == "onnxruntime.dll";
        if !is_lib || name.contains("providers") {
            continue;
        }
        let v = version_from_name(&p).unwrap_or((0, 0));
        if best.as_ref().is_none_or(|(bv, _)| v > *bv) {
            best = Some((v, p));
        }
    }
    best.map(|(_, p)| p)
}

/// Finds the ONNX Runtime library: `ORT_DYLIB_PATH` if set (then it must be valid: no
/// silent fallback), else the newest library in `<home>/ort/`.
///
/// # Errors
/// [`Error::OrtLibrary`] when `ORT_DYLIB_PATH` points at an unusable file,
/// [`Error::OrtNotFound`] when nothing is found.
pub fn find_ort_library(home: &Path) -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("ORT_DYLIB_PATH").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        check_ort_library(&p)?;
        return Ok(p);
    }
    let dir = home.join("ort");
    match newest_in(&dir) {
        Some(p) => {
            check_ort_library(&p)?;
            Ok(p)
        }
        None => Err(Error::OrtNotFound {
            searched: format!("ORT_DYLIB_PATH (unset), {}", dir.display()),
        }),
    }
}

/// Installs ONNX Runtime [`ORT_VERSION`] into `<home>/ort/` and returns the library path.
///
/// If a valid library is already there, returns it without touching the network. Otherwise
/// runs `python3 -m pip download --no-deps --only-binary=:all: onnxruntime==1.32.0` into a
/// temporary directory (the interpreter can be overridden with `FACTPICO_PYTHON`), and unpacks
/// `onnxruntime/capi/libonnxruntime.so.*` (plus `libonnxruntime_providers_shared.so`) from the
/// wheel with the `zip` crate. Needs Python with pip and access to PyPI; no venv is created.
///
/// # Errors
/// [`Error::OrtSetup`] when pip fails or the wheel lacks the library.
pub fn setup_ort(home: &Path) -> Result<PathBuf> {
    let dir = home.join("ort");
    if let Some(p) = newest_in(&dir) {
        if check_ort_library(&p).is_ok() {
            return Ok(p);
        }
    }
    let fail = |reason: String| Error::OrtSetup { dir: dir.clone(), reason };
    std::fs::create_dir_all(&dir).map_err(|e| fail(format!("cannot create it: {e}")))?;
    let tmp = tempfile::Builder::new()
        .prefix("ort-wheel-")
        .tempdir_in(&dir)
        .map_err(|e| fail(format!("cannot create a temporary directory: {e}")))?;
    let python = std::env::var("FACTPICO_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(&python)
        .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check"])
        .args(["--timeout", "30", "--retries", "1", "-q", "-d"])
        .arg(tmp.path())
        .arg(format!("onnxruntime=={ORT_VERSION}"))
        .output()
        .map_err(|e| fail(format!("cannot run `{python} -m pip` ({e}); install Python 3 with pip, or set ORT_DYLIB_PATH")))?;
    if !out.status.success() {
        return Err(fail(format!(
            "`{python} -m pip download onnxruntime=={ORT_VERSION}` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let wheel = std::fs::read_dir(tmp.path())
        .map_err(|e| fail(e.to_string()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| fail("pip reported success but left no .whl file".into()))?;
    let lib = unpack_ort_wheel(&wheel, &dir).map_err(fail)?;
    check_ort_library(&lib)?;
    Ok(lib)
}

/// Extracts the ONNX Runtime shared libraries from an `onnxruntime` wheel into `dir`.
/// Returns the path of the main library.
fn unpack_ort_wheel(wheel: &Path, dir: &Path) -> std::result::Result<PathBuf, String> {
    let f = std::fs::File::open(wheel).map_err(|e| format!("cannot open {}: {e}", wheel.display()))?;
    let mut zip = zip::ZipArchive::new(f).map_err(|e| format!("{} is not a wheel: {e}", wheel.display()))?;
    let mut main_lib = None;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| e.to_string())?;
        let name = entry.name().to_owned();
        let Some(base) = name.strip_prefix("onnxruntime/capi/") else { continue };
        let wanted = base.starts_with("libonnxruntime.so.")
            || base == "libonnxruntime_providers_shared.so"
            || (base.starts_with("libonnxruntime") && base.ends_with(".dylib"))
            || base == "onnxruntime.dll";
        if !wanted || base.contains('/') {
            continue;
        }
        let target = dir.join(base);
        let part = dir.join(format!("{base}.part"));
        let mut out = std::fs::File::create(&part).map_err(|e| format!("cannot write {}: {e}", part.display()))?;
        std::io::copy(&mut entry, &mut out).map_err(|e| format!("cannot unpack {name}: {e}"))?;
        drop(out);
        std::fs::rename(&part, &target).map_err(|e| format!("cannot move {}: {e}", part.display()))?;
        if !base.contains("providers") {
            main_lib = Some(target);
        }
    }
    main_lib.ok_or_else(|| format!("{} has no onnxruntime/capi/libonnxruntime.* entry", wheel.display()))
}

/// Information about the loaded ONNX Runtime library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrtInfo {
    /// The library file that was loaded.
    pub path: PathBuf,
}

struct Loaded {
    env: ort::environment::Environment,
    info: OrtInfo,
}

static ORT: Mutex<Option<Loaded>> = Mutex::new(None);

fn lock_ort() -> std::sync::MutexGuard<'static, Option<Loaded>> {
    ORT.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Loads ONNX Runtime from an explicit library file and creates the process-wide environment.
///
/// If an environment already exists (from an earlier call), `path` is still validated and the
/// already-loaded library keeps being used (ONNX Runtime cannot be loaded twice per process).
///
/// # Errors
/// [`Error::OrtLibrary`] for a missing/wrong/too-old file, [`Error::Ort`] when ONNX Runtime
/// refuses to initialise.
pub fn init_ort_from(path: &Path) -> Result<OrtInfo> {
    check_ort_library(path)?;
    let mut guard = lock_ort();
    if let Some(l) = guard.as_ref() {
        if l.info.path != path {
            log::warn!(
                "ONNX Runtime already loaded from {}; ignoring {}",
                l.info.path.display(),
                path.display()
            );
        }
        return Ok(l.info.clone());
    }
    let builder = ort::init_from(path).map_err(|e| Error::OrtLibrary {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let env = builder
        .with_name("factpico")
        .with_telemetry(false)
        .with_logger(std::sync::Arc::new(ort_log))
        .build()
        .map_err(|e| Error::ort("creating the ONNX Runtime environment", e))?;
    // ONNX Runtime formats only the lines the logger can show (the builder's custom logger
    // starts at its verbose level): its threshold follows the `log` level set at this point.
    env.set_log_level(ort_threshold(log::max_level()));
    let info = OrtInfo { path: path.to_path_buf() };
    *guard = Some(Loaded { env, info: info.clone() });
    Ok(info)
}

/// ONNX Runtime's own log lines, routed into the `log` facade under the target `ort` (instead
/// of ONNX Runtime printing them to standard error itself), so that the program's logger
/// decides (`factpico`: `-q`, `-v`, `RUST_LOG`, escaping). ONNX Runtime's levels map to
/// `log`'s one step down, so that by default only its errors show, as before it was routed
/// (its warnings are mostly notes on graph optimisation): verbose → trace, info → debug,
/// warning → info, error and fatal → error (`RUST_LOG=ort=info` shows its warnings).
fn ort_log(level: ort::logging::LogLevel, category: &str, _id: &str, location: &str, message: &str) {
    use ort::logging::LogLevel;
    let level = match level {
        LogLevel::Verbose => log::Level::Trace,
        LogLevel::Info => log::Level::Debug,
        LogLevel::Warning => log::Level::Info,
        LogLevel::Error | LogLevel::Fatal => log::Level::Error,
    };
    if log::log_enabled!(target: "ort", level) {
        log::log!(target: "ort", level, "ONNX Runtime [{category}] {message} ({location})");
    }
}

/// The ONNX Runtime level to produce lines from, for a `log` maximum level ([`ort_log`]'s
/// mapping inverted; never above errors).
fn ort_threshold(max: log::LevelFilter) -> ort::logging::LogLevel {
    use ort::logging::LogLevel;
    match max {
        log::LevelFilter::Trace => LogLevel::Verbose,
        log::LevelFilter::Debug => LogLevel::Info,
        log::LevelFilter::Info => LogLevel::Warning,
        log::LevelFilter::Warn | log::LevelFilter::Error | log::LevelFilter::Off => LogLevel::Error,
    }
}

/// Loads ONNX Runtime from the default places (see the module docs) unless already loaded.
///
/// # Errors
/// As [`find_ort_library`] and [`init_ort_from`].
pub fn init_ort() -> Result<OrtInfo> {
    if let Some(l) = lock_ort().as_ref() {
        return Ok(l.info.clone());
    }
    let path = find_ort_library(&factpico_home())?;
    init_ort_from(&path)
}

/// The process-wide environment, initialising it with [`init_ort`] if needed.
pub(crate) fn environment() -> Result<ort::environment::Environment> {
    init_ort()?;
    lock_ort()
        .as_ref()
        .map(|l| l.env.clone())
        .ok_or_else(|| Error::ort("ONNX Runtime environment", "not initialised"))
}

/// The loaded library, if ONNX Runtime has been initialised in this process.
pub fn loaded_ort() -> Option<OrtInfo> {
    lock_ort().as_ref().map(|l| l.info.clone())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn version_parsing() {
        assert_eq!(version_from_name(Path::new("/x/libonnxruntime.so.1.32.0")), Some((1, 32)));
        assert_eq!(version_from_name(Path::new("libonnxruntime.1.30.1.dylib")), Some((1, 30)));
        assert_eq!(version_from_name(Path::new("libonnxruntime.so")), None);
    }

    #[test]
    fn rejects_missing_and_non_library_files() {
        let d = tempfile::tempdir().unwrap();
        let missing = d.path().join("libonnxruntime.so.1.32.0");
        assert!(matches!(check_ort_library(&missing), Err(Error::OrtLibrary { .. })));
        std::fs::write(&missing, b"not a library").unwrap();
        let e = check_ort_library(&missing).unwrap_err().to_string();
        assert!(e.contains("not a shared library"), "{e}");
        let old = d.path().join("libonnxruntime.so.1.30.0");
        std::fs::write(&old, b"\x7fELF rest").unwrap();
        let e = check_ort_library(&old).unwrap_err().to_string();
        assert!(e.contains("too old"), "{e}");
    }

    #[test]
    fn newest_library_is_picked() {
        let d = tempfile::tempdir().unwrap();
        for v in ["1.31.1", "1.32.0"] {
            std::fs::write(d.path().join(format!("libonnxruntime.so.{v}")), b"\x7fELF").unwrap();
        }
        std::fs::write(d.path().join("libonnxruntime_providers_shared.so"), b"\x7fELF").unwrap();
        let p = newest_in(d.path()).unwrap();
        assert!(p.ends_with("libonnxruntime.so.1.32.0"));
    }

    #[test]
    fn truncated_elf_is_refused_before_loading() {
        // The running test binary is a complete ELF64 file; a prefix of it is not.
        let exe = std::fs::read("/proc/self/exe").unwrap();
        let d = tempfile::tempdir().unwrap();
        let whole = d.path().join("libonnxruntime.so.1.32.0");
        std::fs::write(&whole, &exe).unwrap();
        assert!(check_ort_library(&whole).is_ok());
        let cut = d.path().join("cut").join("libonnxruntime.so.1.32.0");
        std::fs::create_dir_all(cut.parent().unwrap()).unwrap();
        std::fs::write(&cut, &exe[..exe.len() / 2]).unwrap();
        let err = check_ort_library(&cut).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
    }
}
