//! `cargo xtask models`: one command per published model the metrics use.
//!
//! Every model is one entry of the library's catalogue (`crates/factpico-models/catalogue.json`,
//! [`factpico_models::Catalogue::builtin`]; xtask has no list of its own): where its files come
//! from ([`Source`]), which files `--from DIR` needs ([`Entry::place`]) and the export steps of
//! its `python-export` route (`onnx/*.py`, run in the export venv of
//! [`crate::python::export_python`]).
//!
//! * `cargo xtask models --list` — every model with its source, licence and command.
//! * `cargo xtask models NAME` — where every source answers (hub or direct URL, checked with a
//!   5 s timeout), the same pull as `factpico models pull NAME` ([`ModelStore::pull`]: resumable,
//!   verified download into `$FACTPICO_HOME/downloads/NAME`) with the export venv's Python, into
//!   `$FACTPICO_HOME/models/NAME`. Where a source does not answer, or is by hand (Google Drive:
//!   no scripted download), it stops within seconds and says which file goes where, then the
//!   `--from` command to run.
//! * `cargo xtask models NAME --from DIR [--out OUT]` — the same export, offline, from files
//!   placed by hand.
//!
//! The output directory is written atomically (export into a sibling `.NAME.partial-PID`,
//! then renamed). Adding a model is one entry in the catalogue plus, for exported ones, its row
//! in `onnx/README.md` (checked by a test).
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use factpico_models::{Catalogue, Entry, ExportConfig, ModelStore, PullOptions, Route, Source};

use crate::python::{export_python, run_script};

/// The catalogue entry type, under xtask's old name.
pub type ModelEntry = Entry;

/// The library's built-in catalogue (parsed once).
pub fn catalogue() -> &'static Catalogue {
    static CAT: OnceLock<Catalogue> = OnceLock::new();
    CAT.get_or_init(|| match Catalogue::builtin() {
        Ok(c) => c,
        // The embedded file is checked by factpico-models' own tests; a broken one is a bug.
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2)
        }
    })
}

/// Every catalogue model.
pub fn models() -> &'static [Entry] {
    &catalogue().models
}

/// The export steps of a `python-export` entry (empty for other routes).
pub fn steps(m: &Entry) -> &[Vec<String>] {
    match &m.route {
        Route::PythonExport { steps } => steps,
        _ => &[],
    }
}

/// The entry called `name`.
///
/// # Errors
/// Unknown name (the message lists the known ones).
pub fn entry(name: &str) -> Result<&'static ModelEntry> {
    catalogue().entry(name).map_err(|e| anyhow::anyhow!("{e} (cargo xtask models --list)"))
}

/// `cargo xtask models --list`.
pub fn list() -> String {
    let mut s = String::new();
    for m in models() {
        s.push_str(&format!(
            "{}
  metric:  {} ({})
  model:   {}
  licence: {}
  route:   {}
",
            m.name,
            m.metric,
            m.option,
            m.about,
            m.licence,
            m.route.kind()
        ));
        for src in m.describe_sources("https://huggingface.co") {
            s.push_str(&format!("  source:  {src}\n"));
        }
        if let Some(r) = &m.refused {
            s.push_str(&format!("  refused: {r}\n\n"));
            continue;
        }
        s.push_str(&format!(
            "  command: cargo xtask models {} [--from DIR] [--out DIR]{}\n",
            m.name,
            if m.int8 { " [--int8]" } else { "" }
        ));
        if let Some(r) = &m.replica {
            s.push_str(&format!("  replica: cargo xtask replicas --only {r}\n"));
        }
        s.push('\n');
    }
    s
}

/// The hub endpoint (`$HF_ENDPOINT`, as `huggingface_hub` reads it; default huggingface.co).
pub fn hub_endpoint() -> String {
    std::env::var("HF_ENDPOINT").unwrap_or_else(|_| "https://huggingface.co".into()).trim_end_matches('/').to_owned()
}

/// One URL per downloadable source, to check that it answers (`None` for by-hand and pip sources).
fn probe_url(src: &Source, endpoint: &str) -> Option<String> {
    match src {
        Source::Hub { repo, revision, files, .. } => Some(format!("{endpoint}/{repo}/resolve/{revision}/{}", files.first()?.path)),
        Source::Archive { url, .. } => Some(url.clone()),
        Source::ByHand { .. } | Source::Pip { .. } => None,
    }
}

/// Does `url` answer an HTTP HEAD request within `timeout`? `Err(reason)` when not. Run with
/// the system Python's `urllib` (`$FACTPICO_PYTHON`, default `python3`, as `factpico setup
/// ort` does), so no export venv is built only to find that the network is closed.
pub fn check_url(url: &str, timeout: Duration) -> std::result::Result<(), String> {
    let code = "import sys, urllib.request\n\
                try:\n    urllib.request.urlopen(urllib.request.Request(sys.argv[1], method='HEAD'), timeout=float(sys.argv[2]))\n\
                except Exception as e:\n    print(f'{type(e).__name__}: {e}'); sys.exit(1)";
    let python = std::env::var("FACTPICO_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(&python)
        .args(["-c", code, url, &timeout.as_secs_f64().to_string()])
        .output()
        .map_err(|e| format!("cannot run {python} to check the URL: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let reason = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        Err(if reason.is_empty() { String::from_utf8_lossy(&out.stderr).trim().to_owned() } else { reason })
    }
}

/// Checks every downloadable source of `m` in parallel; returns one line per source that
/// cannot be fetched by script (by hand, or no answer within `timeout`).
pub fn unreachable_sources(m: &ModelEntry, endpoint: &str, timeout: Duration) -> Vec<String> {
    let handles: Vec<_> = m
        .sources
        .iter()
        .map(|src| {
            let url = probe_url(src, endpoint);
            std::thread::spawn(move || match url {
                None => Some("Google Drive: no scripted download".to_owned()),
                Some(u) => check_url(&u, timeout).err().map(|e| format!("{u} did not answer within {} s ({e})", timeout.as_secs())),
            })
        })
        .collect();
    handles.into_iter().filter_map(|h| h.join().unwrap_or_else(|_| Some("check failed".into()))).collect()
}

/// Where each required file comes from, one line per [`Entry::place`] path.
fn origin_of(m: &ModelEntry, path: &str, endpoint: &str) -> String {
    let first = path.split('|').next().unwrap_or(path);
    for src in &m.sources {
        match src {
            Source::Hub { repo, into, .. } => {
                let rel = if into.is_empty() { Some(first) } else { first.strip_prefix(&format!("{into}/")) };
                if let Some(f) = rel.filter(|f| !f.contains('/')) {
                    let f = if path.contains('|') { path.split('|').map(|a| a.rsplit('/').next().unwrap_or(a)).collect::<Vec<_>>().join(" or ") } else { f.to_owned() };
                    return format!("{endpoint}/{repo} (file {f})");
                }
            }
            Source::Archive { url, root, .. } => return format!("{url} (folder {root}/ of the archive)"),
            Source::ByHand { url, how } => {
                if m.sources.len() == 1 || first == "model.tar.gz" {
                    return format!("{url}; {how}");
                }
            }
            Source::Pip { .. } => {}
        }
    }
    "see onnx/README.md".into()
}

/// The message printed where the files cannot be downloaded here.
pub fn missing_message(m: &ModelEntry, reasons: &[String], out: &Path, endpoint: &str) -> String {
    let mut s = format!("models: {} cannot be downloaded from here:\n", m.name);
    for r in reasons {
        s.push_str(&format!("  - {r}\n"));
    }
    s.push_str("Place these files by hand in a directory DIR (on a machine with access, then copy them over):\n");
    let w = m.place.iter().map(|p| p.len()).max().unwrap_or(0);
    for p in &m.place {
        s.push_str(&format!("  DIR/{p:w$}  from {}\n", origin_of(m, p, endpoint)));
    }
    s.push_str(&format!(
        "then run the same export offline:\n  cargo xtask models {} --from DIR{}\n  (or, with an installed factpico: factpico models import {} DIR)\nIt writes {} (for factpico score {}).",
        m.name,
        if out == factpico_runtime::default_models_dir().join(&m.name) { String::new() } else { format!(" --out {}", out.display()) },
        m.name,
        out.display(),
        m.option.split_once('(').map_or("", |(_, f)| f.split(')').next().unwrap_or("")),
    ));
    s
}

/// Paths of [`Entry::place`] missing under `dir`.
pub fn missing_files(m: &ModelEntry, dir: &Path) -> Vec<String> {
    m.missing_files(dir)
}

/// `cargo xtask models NAME [--from DIR] [--out DIR] [--int8]`.
///
/// # Errors
/// Unknown model, a model that is not exported by onnx/ scripts (refused, pip, rust routes),
/// unreachable sources (the message says which files to place where), missing files under
/// `--from`, `--int8` for a model without it, failing downloads or export steps.
pub fn get(name: &str, from: Option<PathBuf>, out: Option<PathBuf>, int8: bool) -> Result<()> {
    let m = entry(name)?;
    if let Some(r) = &m.refused {
        bail!("{name} is not supported: {r}");
    }
    if !matches!(m.route, Route::PythonExport { .. } | Route::Rust) {
        bail!("{name} has route {}, not an onnx/ export; use `factpico models pull {name}`", m.route.kind());
    }
    if int8 && !m.int8 {
        bail!("--int8 is not supported for {name} (only for single-graph models: {})", int8_names());
    }
    let default_out = factpico_runtime::default_models_dir().join(name);
    let out = out.unwrap_or_else(|| default_out.clone());
    match from {
        // Torch-free (factpico-convert): the library's import, no export venv.
        Some(dir) if matches!(m.route, Route::Rust) => {
            let store = ModelStore::new(factpico_runtime::factpico_home(), catalogue().clone());
            let installed = store.import(name, &dir, &PullOptions { int8, force: true, ..PullOptions::default() })?;
            if out != installed {
                replace_dir(&installed, &out)?;
            }
        }
        Some(dir) => export_from(m, &dir, &out, int8)?,
        None => {
            let endpoint = hub_endpoint();
            let reasons = unreachable_sources(m, &endpoint, Duration::from_secs(5));
            if !reasons.is_empty() {
                bail!("{}", missing_message(m, &reasons, &out, &endpoint));
            }
            // The library's pull: resumable, verified download, then the same export steps.
            let store = ModelStore::new(factpico_runtime::factpico_home(), catalogue().clone());
            let opts = PullOptions {
                int8,
                force: true,
                // rust routes convert without Python: no export venv is built for them
                export: match m.route {
                    Route::Rust => ExportConfig::default(),
                    _ => ExportConfig { python: Some(export_python()?), scripts: Some(crate::python::repo_root()) },
                },
                ..PullOptions::default()
            };
            let installed = store.pull(name, &opts)?;
            if out != installed {
                replace_dir(&installed, &out)?;
            }
        }
    }
    eprintln!("models: {name} ready in {} (factpico score {})", out.display(), m.option);
    Ok(())
}

fn int8_names() -> String {
    models().iter().filter(|m| m.int8).map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ")
}

fn substitute(arg: &str, from: &Path, out: &Path, work: &Path) -> String {
    arg.replace("{from}", &from.display().to_string())
        .replace("{out}", &out.display().to_string())
        .replace("{work}", &work.display().to_string())
}

/// Runs the export steps of `m` on the files under `from`, writing `out` atomically.
///
/// # Errors
/// Missing files under `from` (checked before any Python runs), failing steps.
pub fn export_from(m: &ModelEntry, from: &Path, out: &Path, int8: bool) -> Result<()> {
    let missing = missing_files(m, from);
    if !missing.is_empty() {
        let mut msg = format!("models: {} --from {}: missing ", m.name, from.display());
        msg.push_str(&missing.join(", "));
        msg.push_str("\nExpected layout:\n");
        let endpoint = hub_endpoint();
        for p in &m.place {
            msg.push_str(&format!("  DIR/{p}  from {}\n", origin_of(m, p, &endpoint)));
        }
        bail!("{}", msg.trim_end());
    }
    let from = std::fs::canonicalize(from).with_context(|| format!("{}", from.display()))?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
    let leaf = out.file_name().map_or_else(|| m.name.clone(), |n| n.to_string_lossy().into_owned());
    let partial = parent.join(format!(".{leaf}.partial-{}", std::process::id()));
    let work = parent.join(format!(".{leaf}.work-{}", std::process::id()));
    for d in [&partial, &work] {
        if d.exists() {
            std::fs::remove_dir_all(d)?;
        }
    }
    std::fs::create_dir_all(&work)?;
    let py = export_python()?;
    let result = (|| -> Result<()> {
        for step in steps(m) {
            let Some((script, args)) = step.split_first() else { continue };
            let args: Vec<String> = args.iter().map(|a| substitute(a, &from, &partial, &work)).collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            run_script(&py, script, &args)?;
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&work);
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&partial);
        return Err(e.context(format!("exporting {} from {}", m.name, from.display())));
    }
    replace_dir(&partial, out)?;
    if int8 {
        let q = PathBuf::from(format!("{}-int8", out.display()));
        run_script(&py, "onnx/quantize.py", &["--model-dir", &out.display().to_string(), "--out", &q.display().to_string()])?;
    }
    Ok(())
}

/// Moves `partial` to `out`, replacing an existing `out` only once `partial` is complete.
fn replace_dir(partial: &Path, out: &Path) -> Result<()> {
    if out.exists() {
        let old = out.with_file_name(format!(
            ".{}.old-{}",
            out.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            std::process::id()
        ));
        std::fs::rename(out, &old).with_context(|| format!("moving the old {} aside", out.display()))?;
        std::fs::rename(partial, out).with_context(|| format!("renaming {} to {}", partial.display(), out.display()))?;
        std::fs::remove_dir_all(&old)?;
    } else {
        std::fs::rename(partial, out).with_context(|| format!("renaming {} to {}", partial.display(), out.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use std::collections::HashSet;
    use std::net::TcpListener;
    use std::time::Instant;

    use super::*;
    use crate::python::repo_root;

    #[test]
    fn entries_are_consistent() {
        let mut names = HashSet::new();
        let root = repo_root();
        for m in models() {
            assert!(names.insert(m.name.as_str()), "duplicate {}", m.name);
            assert!(!m.sources.is_empty(), "{}", m.name);
            if !matches!(m.route, Route::PythonExport { .. }) {
                continue;
            }
            assert!(!m.place.is_empty() && !steps(m).is_empty(), "{}", m.name);
            for step in steps(m) {
                assert!(root.join(&step[0]).is_file(), "{}: {} does not exist", m.name, step[0]);
                // Every {from}/X argument names a placed file or folder.
                for a in &step[1..] {
                    if let Some(rel) = a.strip_prefix("{from}/") {
                        assert!(
                            m.place.iter().any(|p| p.split('|').any(|alt| alt == rel || alt.starts_with(&format!("{rel}/")))),
                            "{}: {a} is not in place",
                            m.name
                        );
                    }
                }
            }
            let endpoint = "https://huggingface.co";
            for p in &m.place {
                assert_ne!(origin_of(m, p, endpoint), "see onnx/README.md", "{}: no source for {p}", m.name);
            }
        }
    }

    /// Every model's file format is exported and checked by its replica (`cargo xtask
    /// replicas` runs `cargo xtask models NAME --from` on each entry a family lists).
    #[test]
    fn every_model_is_exported_by_its_replica() {
        for m in models() {
            // SummaC and MiniCheck exports are checked by their own fixtures (`cargo xtask
            // fixtures summac|minicheck`), not by a replica family.
            let Some(replica) = &m.replica else { continue };
            let f = crate::replicas::FAMILIES.iter().find(|f| f.name == replica);
            let f = f.unwrap_or_else(|| panic!("{}: replica {:?} is not a family of cargo xtask replicas", m.name, m.replica));
            assert!(f.models.contains(&m.name.as_str()), "{}: replica {} does not export it (exports {:?})", m.name, f.name, f.models);
        }
        for f in crate::replicas::FAMILIES {
            for name in f.models {
                assert!(models().iter().any(|m| m.name == *name && m.replica.as_deref() == Some(f.name)), "replica {} exports {name}, whose entry names another replica", f.name);
            }
        }
    }

    #[test]
    fn onnx_readme_covers_every_model() {
        let readme = std::fs::read_to_string(repo_root().join("onnx/README.md")).unwrap();
        for m in models() {
            let Some(replica) = &m.replica else { continue };
            assert!(readme.contains(&format!("`{}`", m.name)), "onnx/README.md does not list {}", m.name);
            assert!(
                readme.contains(&format!("cargo xtask replicas --only {replica}")),
                "onnx/README.md does not give the replica command of {}",
                m.name
            );
        }
    }

    #[test]
    fn list_names_every_model_with_its_command() {
        let l = list();
        for m in models() {
            if m.refused.is_some() {
                assert!(l.contains(&format!("  refused: {}", m.refused.as_deref().unwrap_or_default())), "{}", m.name);
                continue;
            }
            assert!(l.contains(&format!("cargo xtask models {} [--from DIR]", m.name)), "{}", m.name);
        }
    }

    /// A port that accepts TCP connections (the kernel's backlog) but never answers: the HEAD
    /// check must give up after its timeout, like behind a firewall that drops packets.
    #[test]
    fn silent_hub_is_reported_within_the_timeout() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let m = entry("alignscore-base").unwrap();
        let t = Instant::now();
        let reasons = unreachable_sources(m, &endpoint, Duration::from_secs(2));
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert!(secs < 8.0, "took {secs:.1} s");
        assert!(reasons[0].contains("timed out"), "{reasons:?}");
        drop(listener);
    }

    #[test]
    fn missing_files_message_names_every_file_and_the_from_command() {
        let m = entry("qafacteval-qg").unwrap();
        let out = PathBuf::from("/tmp/some/where/qafacteval-qg");
        let msg = missing_message(m, &["Google Drive: no scripted download".into()], &out, "https://huggingface.co");
        for p in &m.place {
            assert!(msg.contains(&format!("DIR/{p}")), "{msg}");
        }
        assert!(msg.contains("https://drive.google.com/uc?id=1vVhRgLtsQDAOmxYhY5PMPnxxHUyCOdQU"), "{msg}");
        assert!(msg.contains("https://huggingface.co/facebook/bart-large (file vocab.json)"), "{msg}");
        assert!(msg.contains("cargo xtask models qafacteval-qg --from DIR --out /tmp/some/where/qafacteval-qg"), "{msg}");
        assert!(msg.contains("--qafacteval-qg-model"), "{msg}");
    }

    #[test]
    fn from_dir_with_missing_files_fails_before_any_python_runs() {
        let dir = std::env::temp_dir().join(format!("xtask-models-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("roberta-base")).unwrap();
        std::fs::write(dir.join("roberta-base/config.json"), "{}").unwrap();
        let m = entry("alignscore-base").unwrap();
        let err = export_from(m, &dir, &dir.join("out"), false).unwrap_err().to_string();
        assert!(err.contains("missing AlignScore-base.ckpt, roberta-base/vocab.json, roberta-base/merges.txt"), "{err}");
        assert!(!dir.join("out").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
