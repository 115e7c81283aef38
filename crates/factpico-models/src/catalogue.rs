//! The model catalogue: one JSON file (`crates/factpico-models/catalogue.json`, embedded in
//! the library) with one [`Entry`] per published model a metric can use.
use std::collections::HashSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The built-in catalogue text (`catalogue.json` of this crate).
pub const BUILTIN_JSON: &str = include_str!("../catalogue.json");

/// A set of model entries.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    /// Format version (1).
    pub format: u32,
    /// What the file is (free text).
    #[serde(default)]
    pub about: String,
    /// The entries, names unique.
    pub models: Vec<Entry>,
}

/// One published model and how factpico installs it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Name used on the command line and as the installed folder (`$FACTPICO_HOME/models/NAME`).
    pub name: String,
    /// The metric(s) it serves.
    pub metric: String,
    /// The metric option (and its command-line flag) that takes the installed directory.
    pub option: String,
    /// What the model is and who published it.
    pub about: String,
    /// Architecture and parameter count.
    pub architecture: String,
    /// Approximate size of the publisher's weights (text, e.g. `~1.4 GB`).
    pub size: String,
    /// Licence as stated by the publisher (or that none is stated / not recorded).
    pub licence: String,
    /// Where the publisher's files come from.
    pub sources: Vec<Source>,
    /// Files the conversion needs, relative to the source directory (`a|b` = either).
    #[serde(default)]
    pub place: Vec<String>,
    /// How the publisher's files become a factpico model directory.
    pub route: Route,
    /// Why factpico refuses this model (`route` is then `refused`).
    #[serde(default)]
    pub refused: Option<String>,
    /// An int8 copy can be made (`onnx/quantize.py`; `python-export` single-graph models).
    #[serde(default)]
    pub int8: bool,
    /// The family of `cargo xtask replicas` whose random replica covers this file format.
    #[serde(default)]
    pub replica: Option<String>,
}

/// One place the publisher's files come from.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Source {
    /// Files of a Hugging Face hub model repository.
    Hub {
        /// `org/repo`.
        repo: String,
        /// Branch, tag or 40-hex commit.
        revision: String,
        /// Folder of the source directory the files go into (`""` = the directory itself).
        #[serde(default)]
        into: String,
        /// The files.
        files: Vec<HubFile>,
    },
    /// A `.tar.gz` archive at a direct https URL whose top folder `root` is unpacked into `into`.
    Archive {
        /// The URL.
        url: String,
        /// Top folder in the archive.
        root: String,
        /// Folder of the source directory (`""` = the directory itself).
        #[serde(default)]
        into: String,
        /// Pinned sha256 of the archive (`null`: not pinned yet).
        sha256: Option<String>,
    },
    /// A file a person downloads (e.g. Google Drive): factpico never fetches it.
    ByHand {
        /// Where it is.
        url: String,
        /// What to do with it.
        how: String,
    },
    /// A Python package installed with pip (not kept in the model store).
    Pip {
        /// The requirement (`name==version`).
        requirement: String,
        /// What it is installed with.
        #[serde(default)]
        with: String,
    },
}

/// One file of a hub repository.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HubFile {
    /// Path in the repository.
    pub path: String,
    /// Pinned sha256 (lowercase hex) of the file; `null` = not pinned yet: the hub's
    /// `X-Linked-Etag` (LFS files) is still checked.
    pub sha256: Option<String>,
    /// Skipped when the repository lacks it (`404 EntryNotFound`).
    #[serde(default)]
    pub optional: bool,
}

/// How the publisher's files become an installed model directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Route {
    /// The files are already a factpico model directory (ONNX + tokenizer): installed as-is.
    Onnx,
    /// The torch-free converter (crate `factpico-convert`), given by the caller as a
    /// [`crate::Converter`].
    Rust,
    /// The `onnx/*.py` export scripts, run with `FACTPICO_EXPORT_PYTHON`. Each step is a
    /// script path (relative to the scripts' root) then its arguments, where `{from}` (the
    /// source directory), `{out}` (the output directory) and `{work}` (a scratch folder) are
    /// substituted.
    PythonExport {
        /// The steps, run in order.
        steps: Vec<Vec<String>>,
    },
    /// A pip package (see [`Source::Pip`]): not installed by factpico.
    Pip,
    /// Not supported (see [`Entry::refused`]).
    Refused,
}

impl Route {
    /// The catalogue's name of the route (`onnx`, `rust`, `python-export`, `pip`, `refused`).
    pub fn kind(&self) -> &'static str {
        match self {
            Route::Onnx => "onnx",
            Route::Rust => "rust",
            Route::PythonExport { .. } => "python-export",
            Route::Pip => "pip",
            Route::Refused => "refused",
        }
    }
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A relative path that stays inside its folder: no `..`, no root, no empty or `.` component.
pub(crate) fn is_safe_relative(p: &str) -> bool {
    !p.is_empty() && !p.starts_with('/') && !p.contains('\\') && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
}

impl Catalogue {
    /// The catalogue embedded in the library (`catalogue.json`).
    ///
    /// # Errors
    /// [`Error::Catalogue`] if the embedded file is invalid (a test guards against it).
    pub fn builtin() -> Result<Self> {
        Self::from_json(BUILTIN_JSON, "built-in")
    }

    /// Parses and checks a catalogue (`origin` names it in errors).
    ///
    /// Checks: JSON shape (unknown fields refused), unique names that are safe folder names,
    /// sha256 pins of 64 lowercase hex digits, repository paths and `into` folders that stay
    /// inside their directory, `org/repo` names, a `refused` reason exactly for `refused` routes.
    ///
    /// # Errors
    /// [`Error::Catalogue`] naming the entry and field.
    pub fn from_json(text: &str, origin: &str) -> Result<Self> {
        let bad = |reason: String| Error::Catalogue { origin: origin.to_owned(), reason };
        let cat: Catalogue = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if cat.format != 1 {
            return Err(bad(format!("format {} is not supported (1 is)", cat.format)));
        }
        let mut names = HashSet::new();
        for e in &cat.models {
            let n = &e.name;
            if !names.insert(n.as_str()) {
                return Err(bad(format!("duplicate name {n:?}")));
            }
            if n.is_empty() || n.starts_with('.') || !n.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)) {
                return Err(bad(format!("name {n:?} is not a plain folder name (ASCII letters, digits, - _ .)")));
            }
            if (e.route == Route::Refused) != e.refused.is_some() {
                return Err(bad(format!("{n}: field refused must be given exactly when route is refused")));
            }
            for p in &e.place {
                if !p.split('|').all(is_safe_relative) {
                    return Err(bad(format!("{n}: place {p:?} leaves its directory")));
                }
            }
            for s in &e.sources {
                match s {
                    Source::Hub { repo, revision, into, files } => {
                        let parts: Vec<&str> = repo.split('/').collect();
                        if parts.len() != 2 || !parts.iter().all(|p| is_safe_relative(p)) {
                            return Err(bad(format!("{n}: repo {repo:?} is not org/name")));
                        }
                        if revision.is_empty() || revision.contains("..") {
                            return Err(bad(format!("{n}: revision {revision:?} is not valid")));
                        }
                        if !into.is_empty() && !is_safe_relative(into) {
                            return Err(bad(format!("{n}: into {into:?} leaves its directory")));
                        }
                        if files.is_empty() {
                            return Err(bad(format!("{n}: hub source {repo} lists no files")));
                        }
                        for f in files {
                            if !is_safe_relative(&f.path) {
                                return Err(bad(format!("{n}: file {:?} of {repo} leaves its directory", f.path)));
                            }
                            if let Some(h) = &f.sha256 {
                                if !is_hex64(h) {
                                    return Err(bad(format!("{n}: sha256 of {repo}/{} is not 64 lowercase hex digits", f.path)));
                                }
                            }
                        }
                    }
                    Source::Archive { url, root, into, sha256 } => {
                        if !url.starts_with("https://") && !url.starts_with("http://") {
                            return Err(bad(format!("{n}: archive url {url:?} is not http(s)")));
                        }
                        if !is_safe_relative(root) || (!into.is_empty() && !is_safe_relative(into)) {
                            return Err(bad(format!("{n}: archive root/into leaves its directory")));
                        }
                        if sha256.as_deref().is_some_and(|h| !is_hex64(h)) {
                            return Err(bad(format!("{n}: archive sha256 is not 64 lowercase hex digits")));
                        }
                    }
                    Source::ByHand { .. } | Source::Pip { .. } => {}
                }
            }
        }
        Ok(cat)
    }

    /// Reads a catalogue file (same format as the built-in one).
    ///
    /// # Errors
    /// [`Error::Io`], [`Error::Catalogue`].
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
        Self::from_json(&text, &path.display().to_string())
    }

    /// The entry called `name`.
    ///
    /// # Errors
    /// [`Error::UnknownModel`] listing the known names.
    pub fn entry(&self, name: &str) -> Result<&Entry> {
        self.models.iter().find(|m| m.name == name).ok_or_else(|| Error::UnknownModel {
            name: name.to_owned(),
            known: self.models.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", "),
        })
    }
}

impl Entry {
    /// Paths of [`Entry::place`] missing under `dir` (an `a|b` path is present when either is).
    pub fn missing_files(&self, dir: &Path) -> Vec<String> {
        self.place.iter().filter(|p| !p.split('|').any(|alt| dir.join(alt).exists())).cloned().collect()
    }

    /// One line per source: where its files come from.
    pub fn describe_sources(&self, endpoint: &str) -> Vec<String> {
        self.sources
            .iter()
            .map(|s| match s {
                Source::Hub { repo, revision, into, files } => {
                    let names: Vec<String> =
                        files.iter().map(|f| if f.optional { format!("{} (if present)", f.path) } else { f.path.clone() }).collect();
                    let dest = if into.is_empty() { String::new() } else { format!(" -> {into}/") };
                    format!("hub {endpoint}/{repo} @ {revision}: {}{dest}", names.join(", "))
                }
                Source::Archive { url, root, into, .. } => {
                    format!("{url} (folder {root}/ -> {})", if into.is_empty() { "DIR" } else { into.as_str() })
                }
                Source::ByHand { url, how } => format!("by hand: {url}; {how}"),
                Source::Pip { requirement, with } => {
                    format!("pip: {requirement}{}", if with.is_empty() { String::new() } else { format!(" (with {with})") })
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn builtin_parses_and_has_every_named_model() {
        let c = Catalogue::builtin().unwrap();
        for n in [
            "alignscore-base", "alignscore-large", "summac-vitc", "minicheck-roberta-large", "minicheck-deberta-v3-large",
            "minicheck-flan-t5-large", "questeval-qg", "questeval-qa", "questeval-bertscore", "qafacteval-qg",
            "qafacteval-qa", "qafacteval-lerc", "dae-xsum", "spacy-en-core-web-sm", "factcg-deberta-v3-large",
            "hhem-2.1-open",
        ] {
            c.entry(n).unwrap();
        }
        let e = c.entry("dae-2020").unwrap();
        assert_eq!(e.route, Route::Refused);
        assert!(e.refused.as_deref().unwrap().contains("DAE-2021"));
        let hhem = c.entry("hhem-2.1-open").unwrap();
        assert!(matches!(&hhem.sources[1], Source::Hub { repo, .. } if repo == "google/flan-t5-base"));
        assert!(matches!(&c.entry("factcg-deberta-v3-large").unwrap().sources[0], Source::Hub { repo, .. } if repo == "yaxili96/FactCG-DeBERTa-v3-Large"));
    }

    /// The wheel ships exactly the scripts the catalogue's `python-export` routes run (and
    /// `onnx/quantize.py` for `--int8`), with the sibling modules they import or run, as links to
    /// the repository's `onnx/` files (defined once; maturin writes their contents into the
    /// wheel): `crates/factpico-python/python/factpico/_export/onnx/`.
    #[test]
    fn the_wheel_ships_every_export_script_the_catalogue_runs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let shipped_dir = root.join("crates/factpico-python/python/factpico/_export/onnx");
        let mut want: std::collections::BTreeSet<String> = ["quantize.py".to_owned()].into();
        for e in &Catalogue::builtin().unwrap().models {
            if let Route::PythonExport { steps } = &e.route {
                for step in steps {
                    want.insert(step[0].strip_prefix("onnx/").unwrap().to_owned());
                }
            }
        }
        // sibling modules: `import common`, `from common import x`, `HERE / "export_hf.py"`
        let mut todo: Vec<String> = want.iter().cloned().collect();
        while let Some(f) = todo.pop() {
            let text = std::fs::read_to_string(root.join("onnx").join(&f)).unwrap();
            for line in text.lines() {
                let t = line.trim_start();
                let module = t
                    .strip_prefix("import ")
                    .or_else(|| t.strip_prefix("from "))
                    .and_then(|r| r.split([' ', ',', '.']).next())
                    .map(|m| format!("{m}.py"));
                let run = t.split("HERE / \"").nth(1).and_then(|r| r.split('"').next()).map(str::to_owned);
                for m in module.into_iter().chain(run) {
                    if root.join("onnx").join(&m).is_file() && want.insert(m.clone()) {
                        todo.push(m);
                    }
                }
            }
        }
        let shipped: std::collections::BTreeSet<String> =
            std::fs::read_dir(&shipped_dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(shipped, want, "links under {}", shipped_dir.display());
        for f in &shipped {
            let link = shipped_dir.join(f);
            assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "{f}: a link, not a copy");
            assert_eq!(std::fs::canonicalize(&link).unwrap(), std::fs::canonicalize(root.join("onnx").join(f)).unwrap(), "{f}");
        }
    }

    #[test]
    fn unknown_name_lists_known_ones() {
        let e = Catalogue::builtin().unwrap().entry("alignscore-xl").unwrap_err().to_string();
        assert!(e.contains("alignscore-base") && e.contains("\"alignscore-xl\""), "{e}");
    }

    #[test]
    fn invalid_catalogues_are_refused_with_the_field() {
        let ok = Catalogue::builtin().unwrap();
        let mut dup = ok.clone();
        dup.models.push(ok.models[0].clone());
        let e = Catalogue::from_json(&serde_json::to_string(&dup).unwrap(), "t").unwrap_err().to_string();
        assert!(e.contains("duplicate name \"alignscore-base\""), "{e}");

        let mut esc = ok.clone();
        if let Source::Hub { files, .. } = &mut esc.models[0].sources[0] {
            files[0].path = "../../etc/passwd".into();
        }
        let e = Catalogue::from_json(&serde_json::to_string(&esc).unwrap(), "t").unwrap_err().to_string();
        assert!(e.contains("leaves its directory"), "{e}");

        let mut pin = ok.clone();
        if let Source::Hub { files, .. } = &mut pin.models[0].sources[0] {
            files[0].sha256 = Some("ABC".into());
        }
        let e = Catalogue::from_json(&serde_json::to_string(&pin).unwrap(), "t").unwrap_err().to_string();
        assert!(e.contains("not 64 lowercase hex"), "{e}");

        let mut name = ok;
        name.models[0].name = "../x".into();
        let e = Catalogue::from_json(&serde_json::to_string(&name).unwrap(), "t").unwrap_err().to_string();
        assert!(e.contains("not a plain folder name"), "{e}");

        let e = Catalogue::from_json(r#"{"format":1,"models":[],"extra":1}"#, "t").unwrap_err().to_string();
        assert!(e.contains("unknown field"), "{e}");
    }
}
