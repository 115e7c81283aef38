//! Workspace-level guards of the layout and the documentation:
//!
//! * the workspace table of `docs/development.md` lists every crate under `crates/` exactly
//!   once, with the pipeline stage the crate declares in its `Cargo.toml`
//!   (`[package.metadata.factpico] stage`), in pipeline order: text → pairs → model →
//!   aggregate → report;
//! * `README.md` is an entry page: at most [`README_MAX_LINES`] lines, the two commands (the
//!   test command being the one `.ci/run` runs), links that resolve;
//! * the metrics tables of `README.md` and `docs/metrics.md` name every metric of the registry
//!   (`factpico metrics`) and nothing else;
//! * `docs/README.md` links every Markdown file under `docs/`, and every such file states the
//!   workspace version it describes (`Describes factpico X.Y.Z.` near its top);
//! * no tracked file names a machine-specific path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::collections::BTreeMap;

/// The document holding the workspace table.
const WORKSPACE_DOC: &str = "docs/development.md";

const STAGES: [&str; 5] = ["text", "pairs", "model", "aggregate", "report"];

/// `stage = "..."` of the `[package.metadata.factpico]` table of a manifest.
fn declared_stage(manifest: &str) -> Option<String> {
    let mut in_table = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_table = t == "[package.metadata.factpico]";
            continue;
        }
        if in_table {
            if let Some(v) = t.strip_prefix("stage").map(str::trim).and_then(|r| r.strip_prefix('=')) {
                return Some(v.trim().trim_matches('"').to_owned());
            }
        }
    }
    None
}

#[test]
fn workspace_table_lists_every_crate_in_pipeline_order() {
    let root = common::workspace_root();
    let mut crates: BTreeMap<String, String> = BTreeMap::new();
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else { continue };
        let path = format!("crates/{}", dir.file_name().unwrap().to_string_lossy());
        let stage = declared_stage(&manifest).unwrap_or_else(|| {
            panic!("{path}/Cargo.toml declares no [package.metadata.factpico] stage (one of {STAGES:?})")
        });
        assert!(STAGES.contains(&stage.as_str()), "{path}: unknown stage {stage:?} (one of {STAGES:?})");
        crates.insert(path, stage);
    }
    let doc = std::fs::read_to_string(root.join(WORKSPACE_DOC)).unwrap();
    let section = doc.split("\n## Workspace\n").nth(1).expect("docs/development.md has a `## Workspace` section");
    let section = section.split("\n## ").next().unwrap();
    let mut listed: Vec<(String, String)> = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (stage, path) = (cells[1], cells[2].trim_matches('`'));
        if path.starts_with("crates/") {
            listed.push((path.trim_end_matches('/').to_owned(), stage.to_owned()));
        }
    }
    for (path, stage) in &crates {
        let rows: Vec<&(String, String)> = listed.iter().filter(|(p, _)| p == path).collect();
        assert_eq!(rows.len(), 1, "docs/development.md workspace table: `{path}` listed {} times", rows.len());
        assert_eq!(
            &rows[0].1, stage,
            "docs/development.md workspace table: `{path}` is in stage {} there, {stage} in its Cargo.toml",
            rows[0].1
        );
    }
    for (path, _) in &listed {
        assert!(crates.contains_key(path), "docs/development.md workspace table lists `{path}`, which is not a crate");
    }
    let order: Vec<usize> = listed.iter().map(|(_, s)| STAGES.iter().position(|x| x == s).unwrap()).collect();
    assert!(
        order.windows(2).all(|w| w[0] <= w[1]),
        "docs/development.md workspace table is not in pipeline order {STAGES:?}: {listed:?}"
    );
    eprintln!("workspace guard: {} crates listed in pipeline order", crates.len());
}

/// No tracked text file names a path of the machine it was written on (a developer's venvs,
/// mirrors, scratch folders or home directory): commands in docs and defaults in scripts take
/// an environment variable or an argument instead.
#[test]
fn tracked_files_name_no_machine_specific_paths() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("git").arg("-C").arg(root).args(["ls-files", "-z"]).output().expect("git ls-files");
    assert!(out.status.success(), "git ls-files failed: {}", String::from_utf8_lossy(&out.stderr));
    // Built with concat! so that this file does not match itself.
    let roots = [concat!("/", "work/"), concat!("/", "root/")];
    let mut offenders = Vec::new();
    let mut checked = 0usize;
    for path in out.stdout.split(|b| *b == 0).filter(|p| !p.is_empty()) {
        let path = String::from_utf8_lossy(path).into_owned();
        let Ok(text) = std::fs::read_to_string(root.join(&path)) else { continue }; // binary or absent
        checked += 1;
        for (n, line) in text.lines().enumerate() {
            for r in roots {
                // An absolute path starts the token: at the line start or after a space, quote,
                // backtick, bracket, '=' or ':' (so "det/root/punct" is not one).
                let hit = line.match_indices(r).any(|(i, _)| {
                    i == 0 || matches!(line.as_bytes()[i - 1], b' ' | b'"' | b'\'' | b'`' | b'(' | b'[' | b'=' | b':' | b'\t')
                });
                if hit {
                    offenders.push(format!("{path}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    eprintln!("machine-specific paths: {checked} tracked text files checked, {} hits", offenders.len());
    assert!(checked > 100, "only {checked} tracked text files read");
    assert!(offenders.is_empty(), "tracked files name machine-specific paths:\n{}", offenders.join("\n"));
}

/// The most lines `README.md` may have: it is the entry page, the rest lives under `docs/`.
const README_MAX_LINES: usize = 150;

/// The lines of a Markdown text outside fenced code blocks.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// The lines of a Markdown text inside ```sh fences (any info string starting with `sh`).
fn sh_lines(text: &str) -> Vec<&str> {
    let mut fenced: Option<bool> = None;
    let mut out = Vec::new();
    for l in text.lines() {
        let t = l.trim();
        if let Some(info) = t.strip_prefix("```") {
            fenced = match fenced {
                Some(_) => None,
                None => Some(info.starts_with("sh")),
            };
            continue;
        }
        if fenced == Some(true) {
            out.push(t);
        }
    }
    out
}

/// GitHub's anchor of a heading: lower case, spaces to `-`, punctuation other than `-` and
/// `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_lowercase().next().unwrap_or(c)),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings.
fn anchors(text: &str) -> Vec<String> {
    prose_lines(text)
        .into_iter()
        .filter(|l| l.starts_with('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect()
}

/// The relative link targets (`[text](target)`, images too) of a Markdown file's prose.
fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(text) {
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            let target = &after[..end];
            if !target.contains("://") && !target.starts_with("mailto:") && !target.is_empty() {
                out.push(target.to_owned());
            }
            rest = &after[end..];
        }
    }
    out
}

/// Checks that every relative link of `file` (relative to the workspace root) names an
/// existing file and, with `#anchor`, one of its headings; returns the resolved targets.
fn check_links(root: &std::path::Path, file: &str) -> Vec<std::path::PathBuf> {
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let dir = path.parent().unwrap();
    let mut resolved = Vec::new();
    for link in relative_links(&text) {
        let (target, frag) = match link.split_once('#') {
            Some((t, f)) => (t, Some(f)),
            None => (link.as_str(), None),
        };
        let target_path = if target.is_empty() { path.clone() } else { dir.join(target) };
        assert!(target_path.exists(), "{file}: link `{link}` names {}, which does not exist", target_path.display());
        if let Some(frag) = frag {
            let target_text = std::fs::read_to_string(&target_path).unwrap();
            let found = anchors(&target_text);
            assert!(found.iter().any(|a| a == frag), "{file}: link `{link}`: no heading with anchor `{frag}` there ({found:?})");
        }
        resolved.push(target_path.canonicalize().unwrap());
    }
    resolved
}

#[test]
fn readme_is_an_entry_page_with_the_two_commands() {
    let root = common::workspace_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let n = readme.lines().count();
    assert!(n <= README_MAX_LINES, "README.md has {n} lines, more than {README_MAX_LINES}: move details into docs/");
    let sh = sh_lines(&readme);
    // The main job on the bundled example.
    assert!(
        sh.iter().any(|l| l.starts_with("cargo run --release -p factpico-cli -- score fixtures/pairs.jsonl")),
        "README.md does not show `factpico score` on fixtures/pairs.jsonl in a ```sh block"
    );
    // The test command: the very command CI's last stage runs.
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    let ci_runs: Vec<&str> = ci.lines().map(str::trim).filter(|l| !l.starts_with('#')).collect();
    assert!(ci_runs.contains(&"cargo xtask test"), ".ci/run no longer runs `cargo xtask test`");
    assert!(sh.contains(&"cargo xtask test"), "README.md has no ```sh line that is exactly `cargo xtask test` (what .ci/run runs)");
    let links = check_links(&root, "README.md");
    let index = root.join("docs/README.md").canonicalize().unwrap();
    assert!(links.contains(&index), "README.md does not link docs/README.md (the docs index)");
    eprintln!("README.md: {n} lines, {} links resolved", links.len());
}

/// The metric names (backticked) in the first column of the first table after `heading`.
fn metrics_table(doc: &str, heading: &str, file: &str) -> std::collections::BTreeSet<String> {
    let section = doc.split(heading).nth(1).unwrap_or_else(|| panic!("{file} has no `{}` section", heading.trim()));
    let mut names = std::collections::BTreeSet::new();
    let mut rows = 0;
    for line in section.lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|')).skip(2) {
        rows += 1;
        let first = line.split('|').nth(1).unwrap();
        let ticks: Vec<&str> = first.split('`').collect();
        assert!(ticks.len() >= 3, "{file}: metrics table row without a backticked metric name: {line}");
        for name in ticks.iter().skip(1).step_by(2) {
            assert!(names.insert((*name).to_owned()), "{file}: metric `{name}` listed twice");
        }
    }
    assert!(rows > 0, "{file}: no metrics table after `{}`", heading.trim());
    names
}

#[test]
fn metrics_tables_list_every_registered_metric() {
    let root = common::workspace_root();
    let registry: std::collections::BTreeSet<String> = factpico::registry().iter().map(|m| m.name.to_owned()).collect();
    assert!(registry.len() >= 13, "registry has only {} metrics", registry.len());
    for (file, heading) in [("README.md", "\n## Metrics\n"), ("docs/metrics.md", "\n## The metrics\n")] {
        let doc = std::fs::read_to_string(root.join(file)).unwrap();
        let listed = metrics_table(&doc, heading, file);
        let missing: Vec<&String> = registry.difference(&listed).collect();
        let unknown: Vec<&String> = listed.difference(&registry).collect();
        assert!(missing.is_empty(), "{file}: the metrics table lacks {missing:?} (factpico metrics lists them)");
        assert!(unknown.is_empty(), "{file}: the metrics table names {unknown:?}, which are not metrics");
    }
    eprintln!("metrics tables: {} metrics in README.md and docs/metrics.md", registry.len());
}

/// Every `*.md` file under `dir`, recursively.
fn markdown_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            markdown_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "md") {
            out.push(p);
        }
    }
}

#[test]
fn docs_index_links_every_doc() {
    let root = common::workspace_root();
    let mut docs = Vec::new();
    markdown_files(&root.join("docs"), &mut docs);
    let index = root.join("docs/README.md").canonicalize().unwrap();
    let linked = check_links(&root, "docs/README.md");
    let mut unlisted = Vec::new();
    for d in &docs {
        let d = d.canonicalize().unwrap();
        if d != index && !linked.contains(&d) {
            unlisted.push(d.strip_prefix(root.canonicalize().unwrap()).unwrap().display().to_string());
        }
    }
    assert!(unlisted.is_empty(), "docs/README.md (the docs index) does not link {unlisted:?}: add one line each");
    // Every doc's own links resolve too.
    for d in &docs {
        let rel = d.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        check_links(&root, &rel);
    }
    assert!(docs.len() >= 10, "only {} Markdown files under docs/", docs.len());
    eprintln!("docs index: {} Markdown files under docs/, all linked, all links resolve", docs.len());
}

/// `[workspace.package] version` of the root `Cargo.toml`.
fn workspace_version(root: &std::path::Path) -> String {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut in_table = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_table = t == "[workspace.package]";
            continue;
        }
        if in_table {
            if let Some(v) = t.strip_prefix("version").map(str::trim).and_then(|r| r.strip_prefix('=')) {
                return v.trim().trim_matches('"').to_owned();
            }
        }
    }
    panic!("Cargo.toml has no [workspace.package] version");
}

#[test]
fn docs_state_the_workspace_version() {
    let root = common::workspace_root();
    let version = workspace_version(&root);
    assert_eq!(version, env!("CARGO_PKG_VERSION"), "factpico-suite does not inherit the workspace version");
    let line = format!("Describes factpico {version}.");
    let mut docs = Vec::new();
    markdown_files(&root.join("docs"), &mut docs);
    let mut wrong = Vec::new();
    for d in &docs {
        let text = std::fs::read_to_string(d).unwrap();
        if !text.lines().take(5).any(|l| l.trim() == line) {
            let stated: Vec<&str> = text.lines().filter(|l| l.trim().starts_with("Describes factpico")).collect();
            wrong.push(format!("{} (states {stated:?})", d.strip_prefix(&root).unwrap().display()));
        }
    }
    assert!(wrong.is_empty(), "these docs do not state `{line}` in their first 5 lines: {wrong:?}");
    eprintln!("docs version: {} Markdown files under docs/ state factpico {version}", docs.len());
}
