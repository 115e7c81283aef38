//! What an output path may be: never a symbolic link (it would be replaced by the rename),
//! never a file descriptor (`/dev/stdout`, `/proc/self/fd/1`: use `-o -`); and names that fit
//! the file system's limit (`NAME_MAX`, 255 bytes) for the temporary and partial files.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::{Error, Result};

/// The longest file name (bytes) common file systems accept (`NAME_MAX` of Linux, macOS and
/// Windows' NTFS in UTF-16 units).
pub(crate) const NAME_MAX: usize = 255;

/// Symbolic links followed at most when checking where an output path leads.
const MAX_HOPS: usize = 40;

/// Whether `p` names a standard stream or a file descriptor: `/dev/stdin`, `/dev/stdout`,
/// `/dev/stderr`, `/dev/fd/N`, `/dev/fd`, and any `/proc` path through an `fd` directory
/// (`/proc/PID/fd/N`, `/proc/self/fd/N`; lexically, after removing `.` components).
fn is_descriptor_path(p: &Path) -> bool {
    let parts: Vec<&std::ffi::OsStr> = p
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s),
            _ => None,
        })
        .collect();
    if !p.is_absolute() {
        return false;
    }
    let at = |i: usize| parts.get(i).and_then(|s| s.to_str());
    match (at(0), at(1), at(2)) {
        (Some("dev"), Some("stdin" | "stdout" | "stderr" | "fd"), _) => true,
        // /proc/PID/fd/N, /proc/self/fd/N, /proc/PID/task/TID/fd/N, ...
        (Some("proc"), _, _) => parts.iter().skip(1).any(|c| c.to_str().is_some_and(|c| c == "fd" || c == "fdinfo")),
        _ => false,
    }
}

/// `p` with its parent directory resolved (`/dev/fd/1` → `/proc/PID/fd/1`); `p` itself when
/// the parent cannot be resolved.
fn with_resolved_parent(p: &Path) -> PathBuf {
    match (p.parent(), p.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
            std::fs::canonicalize(parent).map(|d| d.join(name)).unwrap_or_else(|_| p.to_owned())
        }
        _ => p.to_owned(),
    }
}

fn descriptor_refusal(path: &Path, via: &Path) -> Error {
    let how = if via == path { String::new() } else { format!(" (it leads to {})", via.display()) };
    Error::refused(
        path,
        format!(
            "names a standard stream or file descriptor{how}, not a file: factpico writes its files by renaming \
             a temporary file (or as a database), which would replace or corrupt that name; give a file path, or \
             use `-o -` for standard output"
        ),
    )
}

/// Checks that `path` may be replaced by an output of factpico (every writer calls it before
/// creating anything and again just before its rename):
///
/// * a path that is, or leads through symbolic links to, a standard stream or file descriptor
///   (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/*/fd/N`) is refused with "use `-o -`";
/// * a path whose last component is a symbolic link is refused: the rename would replace the
///   link itself, which the user did not mean (write to the file it points to, or remove it).
///
/// A missing path, or a regular file, passes. Directories and special files are refused by
/// [`crate::PathGuard`] and by the writers' exclusive creation.
///
/// # Errors
/// [`Error::Refused`] saying why; [`Error::Io`] when the path cannot be inspected.
pub fn check_output_path(path: &Path) -> Result<()> {
    check_not_descriptor(path)?;
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            let to = std::fs::read_link(path).map(|t| format!(" (to {})", t.display())).unwrap_or_default();
            Err(Error::refused(
                path,
                format!(
                    "is a symbolic link{to}; factpico never replaces a link with its output (it writes a temporary \
                     file and renames it over the name): write to the file it points to, or remove the link"
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// The first half of [`check_output_path`], for files updated in place rather than replaced
/// (the LLM request cache, a SQLite database): refuses a path that is, or leads through
/// symbolic links to, a standard stream or file descriptor (`/dev/stdout`, `/dev/stderr`,
/// `/dev/fd/N`, `/proc/*/fd/N`).
///
/// # Errors
/// [`Error::Refused`] naming the descriptor; [`Error::Io`] when the path cannot be inspected.
pub fn check_not_descriptor(path: &Path) -> Result<()> {
    // Lexically, and with the parent resolved (`/dev/fd` is a link to `/proc/self/fd`).
    for p in [path.to_owned(), with_resolved_parent(path)] {
        if is_descriptor_path(&p) {
            return Err(descriptor_refusal(path, &p));
        }
    }
    // Every hop of a chain of links.
    let mut cur = path.to_owned();
    for hop in 0..MAX_HOPS {
        let meta = match std::fs::symlink_metadata(&cur) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
            // A link further down the chain that cannot be inspected: the last check decides.
            Err(_) if hop > 0 => break,
            Err(e) => return Err(Error::io("cannot inspect", path, e)),
        };
        if !meta.file_type().is_symlink() {
            break;
        }
        let Ok(to) = std::fs::read_link(&cur) else { break };
        let next = match cur.parent() {
            Some(dir) if to.is_relative() => dir.join(&to),
            _ => to,
        };
        for p in [next.clone(), with_resolved_parent(&next)] {
            if is_descriptor_path(&p) {
                return Err(descriptor_refusal(path, &p));
            }
        }
        cur = next;
    }
    Ok(())
}

/// `name` cut to at most `max` bytes at a character boundary.
fn cut(name: &str, max: usize) -> &str {
    if name.len() <= max {
        return name;
    }
    let mut end = max;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

/// A short stand-in for a long file name: its first bytes, `~`, and the first 16 hex digits of
/// the sha256 of the whole name (stable across runs and versions, so `--resume` finds it).
/// `raw` is the name's bytes as the platform stores them (hashed, so that names that differ
/// only in bytes that are not UTF-8 stay distinct); `name` its readable form.
pub(crate) fn shortened(name: &str, raw: &[u8], keep: usize) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(raw);
    format!("{}~{}", cut(name, keep), hex::encode(&digest[..8]))
}

/// The `<out>.partial` path of an output path. When `<name>.partial` would exceed 255 bytes
/// (`NAME_MAX`), the name is shortened: `<first 200 bytes of the name>~<16 hex digits of its
/// sha256>.partial`, in the same directory.
pub fn partial_path(out: &Path) -> PathBuf {
    sibling_path(out, ".partial")
}

/// `out` with `suffix` appended to its file name (`o.jsonl` → `o.jsonl.provenance.json`),
/// shortened as [`partial_path`] shortens (a stable hash of the full name) when the name
/// would exceed `NAME_MAX`. `suffix` is short (at most 40 bytes).
pub fn sibling_path(out: &Path, suffix: &str) -> PathBuf {
    let raw = out.file_name().map(|n| n.as_encoded_bytes()).unwrap_or_default();
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if raw.len() + suffix.len() <= NAME_MAX {
        let mut s: OsString = out.as_os_str().to_owned();
        s.push(suffix);
        return PathBuf::from(s);
    }
    out.with_file_name(format!("{}{suffix}", shortened(&name, raw, 200)))
}

/// Room kept in a temporary name for the writer's process id and its dot (`u32`: 10 digits).
pub(crate) const PID_ROOM: usize = 11;

/// The prefix and suffix of a temporary file beside a file named `name` with extension `ext`:
/// `.<name>.` and `.tmp.<ext>`, shortened so that the whole name (with the writer's process id
/// and its dot, [`PID_ROOM`], and tempfile's 6 random characters) stays within `NAME_MAX`.
/// The temporary file is `<prefix><pid>.<6 random>.<suffix>` ([`crate::AtomicFile`]).
pub(crate) fn temp_affixes(name: &str, ext: Option<&str>) -> (String, String) {
    let suffix = match ext {
        Some(e) if e.len() <= 32 => format!(".tmp.{e}"),
        _ => ".tmp".to_owned(),
    };
    let room = NAME_MAX - 2 - PID_ROOM - 6 - suffix.len();
    let name = if name.len() <= room { name.to_owned() } else { shortened(name, name.as_bytes(), room.saturating_sub(17).min(150)) };
    (format!(".{name}."), suffix)
}

/// The process id in the name of a temporary file of the target whose temporary names are
/// `prefix`/`suffix` ([`temp_affixes`]): `Some(pid)` exactly when `name` is
/// `<prefix><pid>.<6 ASCII letters or digits><suffix>` (a pid without leading zeros).
pub(crate) fn temp_owner(name: &str, prefix: &str, suffix: &str) -> Option<u32> {
    let mid = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
    let (pid, random) = mid.split_once('.')?;
    let digits = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()) && !pid.starts_with('0');
    if !digits || random.len() != 6 || !random.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    pid.parse().ok()
}

/// `path` with `suffix` appended to its last component, unshortened (SQLite's `-wal` and
/// `-shm` companions of a database).
pub(crate) fn companion(path: &Path, suffix: &str) -> PathBuf {
    let mut s: OsString = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// The files of a SQLite database at `path`: the database and its `-wal` and `-shm`
/// companions (WAL journal mode).
pub fn database_files(path: &Path) -> [PathBuf; 3] {
    [path.to_owned(), companion(path, "-wal"), companion(path, "-shm")]
}

/// Checks that `path` may be opened as a database that factpico updates in place (the LLM
/// request cache, SQLite in WAL mode): [`check_not_descriptor`], and neither the path nor its
/// `-wal` / `-shm` companions ([`database_files`]) is a symbolic link (dangling or not).
/// Through a link SQLite would create the target of a dangling one, or keep its journal
/// beside the link rather than beside the database; the rule of every factpico output
/// ([`check_output_path`]: a last component that is a link is refused, never followed) holds
/// here too.
///
/// # Errors
/// [`Error::Refused`] saying why; [`Error::Io`] when the path cannot be inspected.
pub fn check_database_path(path: &Path) -> Result<()> {
    check_not_descriptor(path)?;
    for p in database_files(path) {
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
            let to = std::fs::read_link(&p).map(|t| format!(" (to {})", t.display())).unwrap_or_default();
            return Err(Error::refused(
                &p,
                format!(
                    "is a symbolic link{to}; factpico opens a database only at its real path, never through a link \
                     (SQLite would create the target of a dangling link, and keep its -wal and -shm files beside the link): \
                     give the path it points to, or remove the link"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn descriptor_paths_are_recognised() {
        for p in ["/dev/stdout", "/dev/stderr", "/dev/fd/1", "/proc/self/fd/1", "/proc/123/fd/4", "/./dev/stdout"] {
            assert!(is_descriptor_path(Path::new(p)), "{p}");
        }
        for p in ["/dev/null", "dev/stdout", "/tmp/fd/1", "/procs/self/fd/1", "/home/proc/self/fd/1"] {
            assert!(!is_descriptor_path(Path::new(p)), "{p}");
        }
        let e = check_output_path(Path::new("/proc/self/fd/1")).unwrap_err();
        assert!(e.to_string().contains("use `-o -`"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn links_are_refused_and_files_pass() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.jsonl");
        std::fs::write(&file, "x").unwrap();
        check_output_path(&file).unwrap();
        check_output_path(&dir.path().join("new.jsonl")).unwrap();
        let link = dir.path().join("l.jsonl");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(check_output_path(&link).unwrap_err().to_string().contains("symbolic link"));
        let dangling = dir.path().join("d.jsonl");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert!(check_output_path(&dangling).is_err());
        let to_fd = dir.path().join("fd.jsonl");
        std::os::unix::fs::symlink("/dev/stdout", &to_fd).unwrap();
        assert!(check_output_path(&to_fd).unwrap_err().to_string().contains("use `-o -`"));
    }

    #[test]
    fn long_names_fit_name_max() {
        let name = "n".repeat(250);
        let p = partial_path(&Path::new("/d").join(&name));
        let stem = p.file_name().unwrap().to_str().unwrap();
        assert!(stem.len() <= NAME_MAX && stem.ends_with(".partial"), "{stem}");
        assert_eq!(p, partial_path(&Path::new("/d").join(&name)), "stable");
        assert_ne!(p, partial_path(&Path::new("/d").join("n".repeat(251))), "distinct names stay distinct");
        assert_eq!(partial_path(Path::new("a/o.jsonl")), Path::new("a/o.jsonl.partial"));
        let (pre, suf) = temp_affixes(&format!("{}.csv", "é".repeat(124)), Some("csv"));
        assert!(pre.len() + PID_ROOM + 6 + suf.len() <= NAME_MAX, "{pre} {suf}");
        assert_eq!(temp_affixes("o.md", Some("md")), (".o.md.".to_owned(), ".tmp.md".to_owned()));
    }

    #[test]
    fn temp_owners_are_read_from_the_exact_pattern_only() {
        let (pre, suf) = temp_affixes("o.csv", Some("csv"));
        assert_eq!(temp_owner(".o.csv.4242.aE5iqI.tmp.csv", &pre, &suf), Some(4242));
        for other in [
            ".o.csv.aE5iqI.tmp.csv",        // an older temporary name: no owner to ask
            ".o.csv.4242.aE5iq.tmp.csv",    // 5 random characters
            ".o.csv.4242.aE5iqI.tmp.csv.x", // another suffix
            ".o.csv.04242.aE5iqI.tmp.csv",  // leading zero
            ".o.csv.42x.aE5iqI.tmp.csv",
            ".o.csv.4242.aE5-qI.tmp.csv",
            ".o.csv.1.4242.aE5iqI.tmp.csv", // an extra component
            "o.csv",
            ".o.csv.99999999999.aE5iqI.tmp.csv", // not a u32
        ] {
            assert_eq!(temp_owner(other, &pre, &suf), None, "{other}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn database_links_are_refused_and_files_pass() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("c.sqlite");
        check_database_path(&db).unwrap();
        std::fs::write(&db, "x").unwrap();
        check_database_path(&db).unwrap();
        let link = dir.path().join("l.sqlite");
        std::os::unix::fs::symlink(&db, &link).unwrap();
        let e = check_database_path(&link).unwrap_err().to_string();
        assert!(e.contains("symbolic link") && e.contains("give the path it points to"), "{e}");
        let dangling = dir.path().join("d.sqlite");
        std::os::unix::fs::symlink(dir.path().join("nowhere.sqlite"), &dangling).unwrap();
        assert!(check_database_path(&dangling).is_err());
        assert!(!dir.path().join("nowhere.sqlite").exists());
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), dir.path().join("c.sqlite-wal")).unwrap();
        assert!(check_database_path(&db).unwrap_err().to_string().contains("c.sqlite-wal"));
        assert!(check_database_path(Path::new("/dev/stdout")).unwrap_err().to_string().contains("use `-o -`"));
    }
}
