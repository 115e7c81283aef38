//! Keeps a run's outputs off the files and directories it reads, and off each other.

use std::path::{Component, Path, PathBuf};

use crate::{Error, Result};

/// Files a registered directory protects individually (hard links to them elsewhere are
/// caught too); deeper or further files are protected by the "inside the directory" rule.
const MAX_FILES_PER_DIR: usize = 10_000;
const MAX_DEPTH: usize = 4;

#[derive(Debug, Clone)]
struct Entry {
    label: String,
    path: PathBuf,
    canonical: PathBuf,
    id: Option<(u64, u64)>,
    is_dir: bool,
}

/// The paths a run reads and writes; refuses an output that would overwrite any of them.
///
/// Register every input first ([`PathGuard::input`]: the data file, side inputs such as
/// pre-parsed arcs, model directories), then check each output ([`PathGuard::output`]),
/// which also registers it so that two outputs of one run cannot collide. An output is
/// refused when it
///
/// * is an existing directory, or an existing non-regular file (device, FIFO, socket);
/// * is the same file as a registered path through any spelling: `..`, `./`, symlinked
///   directories or a symlink (compared after resolving), or a hard link (same device and
///   inode);
/// * lies inside a registered directory (a model directory);
/// * is refused by [`crate::check_output_path`] (a symbolic link, `/dev/stdout`, `/proc/self/fd/N`).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let input = dir.path().join("in.jsonl");
/// std::fs::write(&input, "{}\n")?;
/// let mut guard = factpico_io::PathGuard::new();
/// guard.input("the input", &input);
/// assert!(guard.output("-o", &dir.path().join("./in.jsonl")).is_err());
/// assert!(guard.output("-o", &dir.path().join("out.jsonl")).is_ok());
/// assert!(guard.output("--csv", &dir.path().join("out.jsonl")).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct PathGuard {
    entries: Vec<Entry>,
}

#[cfg(unix)]
fn file_id(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// The absolute, resolved form of `p`: fully resolved when it exists, else its nearest
/// existing ancestor resolved and the rest appended (lexically, `..` applied).
pub(crate) fn resolve(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    let abs = if p.is_absolute() {
        p.to_owned()
    } else {
        std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.to_owned())
    };
    let mut rest = Vec::new();
    let mut cur = abs.as_path();
    loop {
        if let Ok(c) = std::fs::canonicalize(cur) {
            let mut out = c;
            for part in rest.iter().rev() {
                match part {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::CurDir => {}
                    other => out.push(other.as_os_str()),
                }
            }
            return out;
        }
        match (cur.parent(), cur.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                cur = parent;
            }
            _ => return abs,
        }
    }
}

impl PathGuard {
    /// An empty guard.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a file or directory the run reads (`label` names it in messages, e.g.
    /// `the input`, `--arcs`, `the --dae-model directory`). A directory protects every path
    /// inside it. Paths that do not exist are ignored (nothing to overwrite).
    pub fn input(&mut self, label: impl Into<String>, path: &Path) -> &mut Self {
        let Ok(meta) = std::fs::metadata(path) else { return self };
        let label = label.into();
        let canonical = resolve(path);
        self.entries.push(Entry {
            label: label.clone(),
            path: path.to_owned(),
            canonical: canonical.clone(),
            id: file_id(&meta),
            is_dir: meta.is_dir(),
        });
        if meta.is_dir() {
            // Hard links to the directory's files from elsewhere are the same files.
            let mut stack = vec![(canonical, 0usize)];
            let mut n = 0;
            while let Some((dir, depth)) = stack.pop() {
                let Ok(rd) = std::fs::read_dir(&dir) else { continue };
                for e in rd.flatten() {
                    let Ok(m) = e.metadata() else { continue };
                    if m.is_dir() && depth + 1 < MAX_DEPTH {
                        stack.push((e.path(), depth + 1));
                    } else if m.is_file() && n < MAX_FILES_PER_DIR {
                        n += 1;
                        self.entries.push(Entry {
                            label: label.clone(),
                            path: e.path(),
                            canonical: e.path(),
                            id: file_id(&m),
                            is_dir: false,
                        });
                    }
                }
            }
        }
        self
    }

    /// Checks that the run may write `path` (see the type's docs) and registers it as an
    /// output named `label` (e.g. `-o`, `--csv`).
    ///
    /// # Errors
    /// [`Error::Refused`] saying what the path would overwrite.
    pub fn output(&mut self, label: impl Into<String>, path: &Path) -> Result<()> {
        let label = label.into();
        crate::check_output_path(path).map_err(|e| labelled(&label, e))?;
        self.register_output(label, path)
    }

    /// Checks that the run may open `path` as a database it updates in place (the LLM request
    /// cache, SQLite in WAL mode) and registers the database and its `-wal` and `-shm`
    /// companions as outputs named `label`, so that no output of the run (checked after it)
    /// can replace them. Refused, as [`PathGuard::output`] refuses: a directory or special
    /// file, the same file as a registered path, a path inside a registered directory; and by
    /// [`crate::check_database_path`]: a standard stream or file descriptor, or a symbolic
    /// link (dangling or not) at the database or a companion.
    ///
    /// # Errors
    /// [`Error::Refused`] saying why.
    pub fn database(&mut self, label: impl Into<String>, path: &Path) -> Result<()> {
        let label = label.into();
        crate::check_database_path(path).map_err(|e| labelled(&label, e))?;
        for p in crate::target::database_files(path) {
            self.register_output(label.clone(), &p)?;
        }
        Ok(())
    }

    fn register_output(&mut self, label: String, path: &Path) -> Result<()> {
        let meta = std::fs::metadata(path).ok();
        if let Some(m) = &meta {
            if m.is_dir() {
                return Err(Error::refused(path, format!("{label}: is a directory; give a file path")));
            }
            if !m.is_file() {
                return Err(Error::refused(
                    path,
                    format!(
                        "{label}: exists and is not a regular file (outputs are written to a temporary file and renamed; use `-o -` for standard output)"
                    ),
                ));
            }
        }
        let canonical = resolve(path);
        let id = meta.as_ref().and_then(file_id);
        for e in &self.entries {
            let same = e.canonical == canonical || (id.is_some() && e.id == id);
            if same {
                return Err(Error::refused(path, format!("{label} would overwrite {} ({})", e.label, e.path.display())));
            }
            if e.is_dir && canonical.starts_with(&e.canonical) {
                return Err(Error::refused(
                    path,
                    format!("{label} would write inside {} ({}); write outputs elsewhere", e.label, e.path.display()),
                ));
            }
        }
        self.entries.push(Entry { label, path: path.to_owned(), canonical, id, is_dir: false });
        Ok(())
    }
}

/// A refusal of the path given as `label` names the label (`-o: is a symbolic link`).
fn labelled(label: &str, e: Error) -> Error {
    match e {
        Error::Refused { path, reason } => Error::Refused { path, reason: format!("{label}: {reason}") },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn same_file_through_any_path_or_link_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let input = d.join("in.jsonl");
        std::fs::write(&input, "x").unwrap();
        std::fs::create_dir(d.join("model")).unwrap();
        std::fs::write(d.join("model/model.onnx"), "m").unwrap();
        std::fs::hard_link(d.join("model/model.onnx"), d.join("hard.onnx")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&input, d.join("sym.jsonl")).unwrap();
        let mut g = PathGuard::new();
        g.input("the input", &input).input("the --dae-model directory", &d.join("model"));
        for bad in ["in.jsonl", "./in.jsonl", "model/../in.jsonl", "hard.onnx", "model/model.onnx", "model/new.jsonl", "model"] {
            let e = g.clone().output("-o", &d.join(bad)).unwrap_err();
            assert!(e.to_string().contains("would") || e.to_string().contains("directory"), "{bad}: {e}");
        }
        #[cfg(unix)]
        assert!(g.clone().output("-o", &d.join("sym.jsonl")).is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("elsewhere"), d.join("dangling.jsonl")).unwrap();
            let e = g.clone().output("-o", &d.join("dangling.jsonl")).unwrap_err();
            assert!(e.to_string().contains("-o: ") && e.to_string().contains("symbolic link"), "{e}");
        }
        g.output("-o", &d.join("new/dir/o.jsonl")).unwrap();
        let e = g.output("--csv", &d.join("new/dir/../dir/o.jsonl")).unwrap_err();
        assert!(e.to_string().contains("--csv would overwrite -o"), "{e}");
    }

    #[test]
    fn a_database_and_its_journal_files_are_outputs_of_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let input = d.join("in.jsonl");
        std::fs::write(&input, "x").unwrap();
        let mut g = PathGuard::new();
        g.input("the input", &input);
        let e = g.clone().database("--llm-cache", &input).unwrap_err();
        assert!(e.to_string().contains("--llm-cache would overwrite the input"), "{e}");
        g.database("the LLM request cache (--llm-cache)", &d.join("c.sqlite")).unwrap();
        for bad in ["c.sqlite", "c.sqlite-wal", "c.sqlite-shm", "./c.sqlite"] {
            let e = g.clone().output("-o", &d.join(bad)).unwrap_err();
            assert!(e.to_string().contains("-o would overwrite the LLM request cache (--llm-cache)"), "{bad}: {e}");
        }
        g.output("-o", &d.join("o.jsonl")).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("nowhere"), d.join("l.sqlite")).unwrap();
            let e = PathGuard::new().database("--llm-cache", &d.join("l.sqlite")).unwrap_err();
            assert!(e.to_string().contains("--llm-cache: is a symbolic link"), "{e}");
            assert!(!d.join("nowhere").exists());
        }
        std::fs::create_dir(d.join("adir")).unwrap();
        assert!(PathGuard::new().database("--llm-cache", &d.join("adir")).unwrap_err().to_string().contains("is a directory"));
    }
}
