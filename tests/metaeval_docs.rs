//! Reruns the model-free commands of `docs/meta-eval.md` on `../shared` and
//! checks that the regenerated tables equal the committed ones, text for text.
//!
//! * `factpico score …` lines are reproduced with the library (`factpico::Scorer`
//!   with the command's options; unknown options fail the test, so the doc
//!   and this test cannot drift apart silently).
//! * `python3 docs/meta-eval-infolossqa.py DATA OUT` is reproduced in Rust.
//! * `factpico meta-eval …` lines are parsed by the command's own argument
//!   parser (`factpico_metaeval::cli::MetaEvalArgs`) and executed; the Markdown
//!   must equal the doc's `<!-- output: NAME -->` … `<!-- /output -->` block,
//!   NAME being the command's `--name`.
//!
//! Paths: `../shared` → the shared data root, `.factpico/meta-eval` and
//! `docs/img` → a temporary directory. With `FACTPICO_UPDATE_DOCS=1` the
//! output blocks of the doc (and the plots in `docs/img`) are rewritten instead.
//! Only ```sh blocks are run; ```text blocks (model-based commands) are not.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use factpico::{Scorer, ScorerOptions};
use factpico_metaeval::cli::MetaEvalArgs;

const DOC: &str = "docs/meta-eval.md";

/// The commands of the ```sh blocks, continuation lines joined, comments dropped.
fn commands(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut cur = String::new();
    for line in doc.lines() {
        let t = line.trim();
        if !in_sh {
            in_sh = t == "```sh";
            continue;
        }
        if t == "```" {
            in_sh = false;
            continue;
        }
        if t.starts_with('#') || t.is_empty() {
            continue;
        }
        match t.strip_suffix('\\') {
            Some(head) => {
                cur.push_str(head);
                cur.push(' ');
            }
            None => {
                cur.push_str(t);
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    out
}

/// `NAME → block text` of every `<!-- output: NAME -->` block.
fn blocks(doc: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = doc;
    while let Some(i) = rest.find("<!-- output: ") {
        let after = &rest[i + "<!-- output: ".len()..];
        let name_end = after.find(" -->\n").expect("unterminated output marker");
        let name = after[..name_end].to_owned();
        let body = &after[name_end + " -->\n".len()..];
        let end = body.find("<!-- /output -->").expect("missing <!-- /output -->");
        out.insert(name, body[..end].to_owned());
        rest = &body[end..];
    }
    out
}

fn replace_block(doc: &str, name: &str, text: &str) -> String {
    let open = format!("<!-- output: {name} -->\n");
    let i = doc.find(&open).unwrap_or_else(|| panic!("no output block `{name}` in {DOC}")) + open.len();
    let j = i + doc[i..].find("<!-- /output -->").unwrap();
    format!("{}{}{}", &doc[..i], text, &doc[j..])
}

struct Paths {
    shared: PathBuf,
    work: PathBuf,
    img: PathBuf,
}

impl Paths {
    fn map(&self, arg: &str) -> String {
        let mut a = arg.to_owned();
        for (from, to) in
            [("../shared", &self.shared), (".factpico/meta-eval", &self.work), ("docs/img", &self.img)]
        {
            if a == from || a.starts_with(&format!("{from}/")) {
                a = format!("{}{}", to.display(), &a[from.len()..]);
            }
        }
        a
    }
}

fn sha256_hex(s: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(s.as_bytes()))
}

/// Records of a CSV or JSON-array file as field → string.
fn records(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => {
            let mut rdr = csv::Reader::from_reader(text.as_bytes());
            let h = rdr.headers().unwrap().clone();
            rdr.records()
                .map(|r| h.iter().zip(r.unwrap().iter()).map(|(k, v)| (k.to_owned(), v.to_owned())).collect())
                .collect()
        }
        Some("json") => {
            let v: Vec<serde_json::Map<String, serde_json::Value>> = serde_json::from_str(&text).unwrap();
            v.into_iter()
                .map(|o| {
                    o.into_iter()
                        .map(|(k, v)| (k, v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
                        .collect()
                })
                .collect()
        }
        other => panic!("unsupported score input {other:?}"),
    }
}

/// `factpico score INPUT [options]`, reproduced with the library.
fn score(args: &[String], p: &Paths) -> usize {
    let input = PathBuf::from(p.map(&args[0]));
    let mut opt: BTreeMap<&str, String> = BTreeMap::new();
    let mut i = 1;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "--no-sentences" | "-q" => {
                opt.insert(a, String::new());
                i += 1;
            }
            "--source-field" | "--summary-field" | "--id-from" | "--id-prefix" | "--id-hex" | "--id-field"
            | "--metrics" | "-o" => {
                opt.insert(a, p.map(&args[i + 1]));
                i += 2;
            }
            other => panic!("{DOC}: `factpico score` option {other} is not reproduced by this test; extend it"),
        }
    }
    let get = |k: &str, d: &str| opt.get(k).cloned().unwrap_or_else(|| d.to_owned());
    let metrics: Vec<String> = get("--metrics", "rougeL,fkgl").split(',').map(str::to_owned).collect();
    let scorer = Scorer::try_new(ScorerOptions {
        metrics,
        sentence_spans: !opt.contains_key("--no-sentences"),
        ..ScorerOptions::default()
    })
    .unwrap();
    let (src, summ) = (get("--source-field", "source"), get("--summary-field", "summary"));
    let hex_len: usize = get("--id-hex", "12").parse().unwrap();
    let mut out = String::new();
    let recs = records(&input);
    for (n, r) in recs.iter().enumerate() {
        let id = match (opt.get("--id-field"), opt.get("--id-from")) {
            (Some(f), _) => r[f].clone(),
            (None, Some(f)) => format!("{}{}", get("--id-prefix", ""), &sha256_hex(&r[f])[..hex_len]),
            (None, None) => format!("row-{}", n + 1),
        };
        let mut rep = scorer.score(&r[&src], &r[&summ]);
        rep.id = Some(id);
        rep.row = Some(n as u64 + 1);
        out.push_str(&serde_json::to_string(&rep).unwrap());
        out.push('\n');
    }
    let o = PathBuf::from(opt.get("-o").expect("-o is required in the doc's score commands"));
    std::fs::create_dir_all(o.parent().unwrap()).unwrap();
    std::fs::write(&o, out).unwrap();
    recs.len()
}

/// `python3 docs/meta-eval-infolossqa.py DATA OUT`, in Rust.
fn infolossqa_omissions(data: &Path, out: &Path) -> usize {
    let read = |f: &str| -> Vec<serde_json::Value> {
        serde_json::from_str(&std::fs::read_to_string(data.join(f)).unwrap()).unwrap()
    };
    let (docs, questions) = (read("documents.json"), read("questions.json"));
    let mut csv = String::from(
        "PMCID,n_annotators,n_omission,n_concept,omission_per_annotator,concept_per_annotator,abstract_words\n",
    );
    for d in &docs {
        let qs: Vec<&serde_json::Value> = questions.iter().filter(|q| q["PMCID"] == d["PMCID"]).collect();
        let n_ann = qs.iter().map(|q| q["annotator"].as_str().unwrap()).collect::<std::collections::HashSet<_>>().len();
        let count = |c: &str| qs.iter().filter(|q| q["category"] == c).count();
        let (om, co) = (count("omission"), count("concept"));
        let per = |n: usize| if n_ann == 0 { String::new() } else { format!("{:?}", n as f64 / n_ann as f64) };
        let words = d["abstract"].as_str().unwrap().split_whitespace().count();
        csv.push_str(&format!("{},{n_ann},{om},{co},{},{},{words}\n", d["PMCID"], per(om), per(co)));
    }
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(out, csv).unwrap();
    docs.len()
}

#[test]
fn docs_meta_eval_tables_are_reproduced() {
    for rel in [
        "data/shaib2023/derived_human_avg_plain.csv",
        "data/shaib2023/single-doc-annotations/single_doc_annotations_1.csv",
        "data/infolossqa/questions.json",
        "data/infolossqa/documents.json",
    ] {
        if common::require_shared("metaeval_docs", rel).is_none() {
            return;
        }
    }
    let shared = common::shared_root().unwrap();
    let root = common::workspace_root();
    let doc_path = root.join(DOC);
    let mut doc = std::fs::read_to_string(&doc_path).unwrap();
    let update = std::env::var("FACTPICO_UPDATE_DOCS").is_ok_and(|v| v == "1");
    let tmp = tempfile::tempdir().unwrap();
    let paths = Paths {
        shared,
        work: tmp.path().join("work"),
        img: if update { root.join("docs/img") } else { tmp.path().join("img") },
    };
    let expected = blocks(&doc);
    let cmds = commands(&doc);
    assert!(cmds.len() >= 6, "expected the documented commands in {DOC}, found {cmds:?}");
    let (mut n_rows, mut n_tables, mut n_plots) = (0usize, 0usize, 0usize);
    let mut seen = Vec::new();
    for cmd in &cmds {
        let words: Vec<String> = cmd.split_whitespace().map(str::to_owned).collect();
        match words.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            ["mkdir", "-p", dir] => std::fs::create_dir_all(paths.map(dir)).unwrap(),
            ["factpico", "score", ..] => n_rows += score(&words[2..], &paths),
            ["python3", "docs/meta-eval-infolossqa.py", data, out] => {
                n_rows += infolossqa_omissions(Path::new(&paths.map(data)), Path::new(&paths.map(out)));
            }
            ["factpico", "meta-eval", ..] => {
                let args: Vec<String> = words[2..].iter().map(|a| paths.map(a)).collect();
                let a = MetaEvalArgs::try_parse_args(&args).unwrap_or_else(|e| panic!("{cmd}: {e}"));
                let out = a.execute().unwrap_or_else(|e| panic!("{cmd}: {e}"));
                for p in out.written.iter().filter(|p| p.extension().is_some_and(|e| e == "png" || e == "svg")) {
                    assert!(std::fs::metadata(p).unwrap().len() > 1000, "{} is too small", p.display());
                    n_plots += 1;
                }
                if update {
                    doc = replace_block(&doc, &a.name, &out.markdown);
                } else {
                    let want = expected.get(&a.name).unwrap_or_else(|| panic!("{DOC} has no `<!-- output: {} -->` block", a.name));
                    if *want != out.markdown {
                        let diff: Vec<String> = want
                            .lines()
                            .zip(out.markdown.lines())
                            .filter(|(w, g)| w != g)
                            .take(5)
                            .map(|(w, g)| format!("  doc: {w}\n  now: {g}"))
                            .collect();
                        panic!(
                            "{DOC}, output `{}` differs from a rerun of `{cmd}` (rerun with FACTPICO_UPDATE_DOCS=1 after checking why):\n{}",
                            a.name,
                            diff.join("\n")
                        );
                    }
                }
                n_tables += 1;
                seen.push(a.name.clone());
            }
            _ => panic!("{DOC}: command not reproduced by this test: {cmd}"),
        }
    }
    let unused: Vec<&String> = expected.keys().filter(|k| !seen.contains(k)).collect();
    assert!(unused.is_empty(), "output blocks without a command: {unused:?}");
    if update {
        std::fs::write(&doc_path, doc).unwrap();
        eprintln!("metaeval_docs: rewrote {n_tables} output blocks of {DOC} and {n_plots} plots");
    } else {
        eprintln!(
            "metaeval_docs: compared {n_tables} regenerated reports ({n_rows} input rows scored/derived, {n_plots} plots drawn) with {DOC}"
        );
    }
}
