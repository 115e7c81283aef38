//! The README's workspace table lists every crate under `crates/` exactly once, with the
//! pipeline stage the crate declares in its `Cargo.toml` (`[package.metadata.factpico]
//! stage`), in pipeline order: text → pairs → model → aggregate → report.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::collections::BTreeMap;

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
fn readme_workspace_table_lists_every_crate_in_pipeline_order() {
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
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme.split("\n## Workspace\n").nth(1).expect("README has a `## Workspace` section");
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
        assert_eq!(rows.len(), 1, "README workspace table: `{path}` listed {} times", rows.len());
        assert_eq!(
            &rows[0].1, stage,
            "README workspace table: `{path}` is in stage {} there, {stage} in its Cargo.toml",
            rows[0].1
        );
    }
    for (path, _) in &listed {
        assert!(crates.contains_key(path), "README workspace table lists `{path}`, which is not a crate");
    }
    let order: Vec<usize> = listed.iter().map(|(_, s)| STAGES.iter().position(|x| x == s).unwrap()).collect();
    assert!(
        order.windows(2).all(|w| w[0] <= w[1]),
        "README workspace table is not in pipeline order {STAGES:?}: {listed:?}"
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
