//! Reruns the model-free commands of `docs/meta-eval.md` on `../shared` and
//! checks that the regenerated tables equal the committed ones, text for text.
//!
//! * `factpico score …` lines are reproduced with the library (`factpico::Scorer`
//!   with the command's options; unknown options fail the test, so the doc
//!   and this test cannot drift apart silently).
//! * `python3 docs/meta-eval-infolossqa.py DATA OUT` is reproduced in Rust.
//! * `factpico meta-eval …` lines are parsed by the command's own argument
//!   parser (`factpico_cli::MetaEvalArgs`) and executed; the Markdown
//!   must equal the doc's `<!-- output: NAME -->` … `<!-- /output -->` block,
//!   NAME being the command's `--name`.
//! * Every `](img/…)` plot link of the doc resolves to a non-trivial PNG / SVG.
//!
//! Paths: `../shared` → the shared data root, `.factpico/meta-eval` and
//! `docs/img` → a temporary directory. With `FACTPICO_UPDATE_DOCS=1` the
//! output blocks of the doc (and the plots in `docs/img`) are rewritten instead.
//!
//! Model-based commands (AlignScore, DAE) live in ```sh models fences: they need
//! ONNX Runtime, model directories and the spaCy sidecar, and take minutes, so by
//! default they are only *checked* (score options against the list below,
//! meta-eval arguments by the real parser, every output block has its command),
//! not rerun, and their output blocks are left as they are. With
//! `FACTPICO_DOCS_MODEL_SCORES=DIR` (the directory where the documented model
//! `factpico score` commands wrote their `-o` files, i.e. `.factpico/meta-eval`
//! after running them) those files, once checked to be what the commands write
//! (ids, row count, metric and model options in the provenance), stand in for
//! the score commands and the model-based meta-eval commands are rerun and
//! compared (or rewritten) too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use factpico::{Scorer, ScorerOptions};
use factpico_cli::MetaEvalArgs;

const DOC: &str = "docs/meta-eval.md";

/// A documented command, continuation lines joined.
struct Command {
    text: String,
    /// From a ```sh models fence (needs ONNX models; not rerun by default).
    model: bool,
}

/// The commands of the ```sh and ```sh models blocks, continuation lines joined,
/// comments dropped.
fn commands(doc: &str) -> Vec<Command> {
    let mut out = Vec::new();
    let mut fence: Option<bool> = None;
    let mut cur = String::new();
    for line in doc.lines() {
        let t = line.trim();
        let Some(model) = fence else {
            fence = match t {
                "```sh" => Some(false),
                "```sh models" => Some(true),
                _ => None,
            };
            continue;
        };
        if t == "```" {
            fence = None;
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
                out.push(Command { text: std::mem::take(&mut cur), model });
            }
        }
    }
    out
}

/// Options of the documented model-based `factpico score` commands beyond those
/// [`score`] reproduces (each takes a value), with the JSON pointer under which the
/// score file's `provenance.options` records it (the unit's options section).
const MODEL_SCORE_OPTIONS: &[(&str, &str)] = &[
    ("--alignscore-model", "/alignscore/model"),
    ("--max-length", "/alignscore/max_length"),
    ("--dae-nli-model", "/dae/nli_model"),
];

/// The options of a documented `factpico score INPUT [options]` (`args[0]` is the input),
/// values as written: the options every score command may use, and the model flags of
/// `model_options` under their provenance key. Any other option panics (`what` names the
/// command kind), so the doc cannot use an option this test does not reproduce.
fn score_options<'a>(
    args: &'a [String],
    model_options: &[(&str, &'static str)],
    what: &str,
) -> (BTreeMap<&'a str, String>, BTreeMap<&'static str, String>) {
    let mut opt: BTreeMap<&str, String> = BTreeMap::new();
    let mut models: BTreeMap<&str, String> = BTreeMap::new();
    let mut i = 1;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "--no-sentences" | "--sentences" | "-q" => {
                opt.insert(a, String::new());
                i += 1;
            }
            "--source-field" | "--summary-field" | "--id-from" | "--id-prefix" | "--id-hex" | "--id-field"
            | "--metrics" | "-o" => {
                opt.insert(a, args[i + 1].clone());
                i += 2;
            }
            o => {
                let Some((_, key)) = model_options.iter().find(|(f, _)| *f == o) else {
                    panic!("{DOC}: {what} option {o} is not reproduced by this test; extend it")
                };
                models.insert(key, args[i + 1].clone());
                i += 2;
            }
        }
    }
    (opt, models)
}

/// A model-based `factpico score INPUT [options]`. Without `model_scores` only
/// its options are checked. With it, `<model_scores>/<basename of -o>` stands in
/// for the command's output after checking that it is what the command writes:
/// one row per input record in order, each with the id the command derives, the
/// command's metric columns, and provenance options (metrics, sentence spans,
/// model directories, max length) equal to the command's. The file is then
/// copied to the mapped `-o` path. Returns the rows read.
fn model_score(args: &[String], p: &Paths, model_scores: Option<&Path>) -> usize {
    let (opt, models) = score_options(args, MODEL_SCORE_OPTIONS, "model-based `factpico score`");
    let out = opt.get("-o").expect("-o is required in the doc's score commands").clone();
    let metrics: Vec<String> =
        opt.get("--metrics").map_or("rougeL,fkgl", String::as_str).split(',').map(str::to_owned).collect();
    let Some(dir) = model_scores else { return 0 };
    let from = dir.join(Path::new(&out).file_name().unwrap());
    let text = std::fs::read_to_string(&from)
        .unwrap_or_else(|e| panic!("FACTPICO_DOCS_MODEL_SCORES: cannot read {}: {e}", from.display()));
    let input = PathBuf::from(p.map(&args[0]));
    let want_ids = row_ids(&records(&input), &opt);
    let rows: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let f = from.display();
    let mut sidecar: Option<serde_json::Value> = None;
    let read_sidecar = |p: &Path| -> serde_json::Value {
        let s = format!("{}.provenance.json", p.display());
        serde_json::from_str(&std::fs::read_to_string(&s).unwrap_or_else(|e| panic!("{s}: {e}"))).unwrap()
    };
    assert_eq!(rows.len(), want_ids.len(), "{f}: rows vs records of {}", input.display());
    for (n, (row, id)) in rows.iter().zip(&want_ids).enumerate() {
        assert_eq!(row["id"].as_str(), Some(id.as_str()), "{f}: row {} id", n + 1);
        let scores = row["scores"].as_object().unwrap_or_else(|| panic!("{f}: row {} has no scores", n + 1));
        for m in metrics.iter().filter(|m| ["alignscore", "dae"].contains(&m.as_str())) {
            assert!(scores.contains_key(m.as_str()), "{f}: row {} has no `{m}` column", n + 1);
        }
        // Rows of output schema 1-2 carry their provenance; schema 3 writes it beside them.
        let (o, spans) = if row["provenance"].is_object() {
            (&row["provenance"]["options"], !opt.contains_key("--no-sentences"))
        } else {
            (&sidecar.get_or_insert_with(|| read_sidecar(&from))["options"], opt.contains_key("--sentences"))
        };
        let got: Vec<&str> = o["metrics"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(got, metrics, "{f}: row {} was scored with other metrics", n + 1);
        assert_eq!(o["sentence_spans"].as_bool(), Some(spans), "{f}: sentence spans");
        for (_, key) in MODEL_SCORE_OPTIONS {
            let got = o.pointer(key).unwrap_or(&serde_json::Value::Null);
            let got = got.as_str().map_or_else(|| got.to_string(), str::to_owned);
            let want = models.get(key).map_or("null", String::as_str);
            assert_eq!(got, want, "{f}: row {} was scored with {key} = {got}, the doc says {want}", n + 1);
        }
    }
    let to = PathBuf::from(p.map(&out));
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::write(&to, text).unwrap();
    rows.len()
}

/// The ids `factpico score` gives the records: `--id-field`, else `--id-prefix` +
/// the first `--id-hex` hex digits of sha256(`--id-from` field), else `row-N`.
fn row_ids(recs: &[BTreeMap<String, String>], opt: &BTreeMap<&str, String>) -> Vec<String> {
    let hex_len: usize = opt.get("--id-hex").map_or("12", String::as_str).parse().unwrap();
    let prefix = opt.get("--id-prefix").map_or("", String::as_str);
    recs.iter()
        .enumerate()
        .map(|(n, r)| match (opt.get("--id-field"), opt.get("--id-from")) {
            (Some(f), _) => r[f].clone(),
            (None, Some(f)) => format!("{prefix}{}", &sha256_hex(&r[f])[..hex_len]),
            (None, None) => format!("row-{}", n + 1),
        })
        .collect()
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
    let (opt, _) = score_options(args, &[], "`factpico score`");
    let get = |k: &str, d: &str| opt.get(k).cloned().unwrap_or_else(|| d.to_owned());
    let metrics: Vec<String> = get("--metrics", "rougeL,fkgl").split(',').map(str::to_owned).collect();
    let scorer = Scorer::try_new(ScorerOptions {
        metrics,
        // Off by default since output schema 3 (`--no-sentences` is the default spelled out).
        sentence_spans: opt.contains_key("--sentences"),
        ..ScorerOptions::default()
    })
    .unwrap();
    let (src, summ) = (get("--source-field", "source"), get("--summary-field", "summary"));
    let mut out = String::new();
    let recs = records(&input);
    for (n, (r, id)) in recs.iter().zip(row_ids(&recs, &opt)).enumerate() {
        let mut rep = scorer.score(&r[&src], &r[&summ]);
        rep.id = Some(id);
        rep.row = Some(n as u64 + 1);
        out.push_str(&serde_json::to_string(&rep).unwrap());
        out.push('\n');
    }
    let o = PathBuf::from(p.map(opt.get("-o").expect("-o is required in the doc's score commands")));
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

/// Every `](img/…)` link of the doc (relative to `docs_dir`) names a plot file
/// of more than 1000 bytes; a PNG must start with the PNG signature and an SVG
/// with an `<svg` element. Returns the links checked.
fn check_image_links(doc: &str, docs_dir: &Path) -> usize {
    let mut n = 0;
    for (i, _) in doc.match_indices("](img/") {
        let rel = &doc[i + 2..];
        let rel = &rel[..rel.find(')').expect("unterminated link")];
        let path = docs_dir.join(rel);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{DOC} links {rel}: {e}"));
        assert!(bytes.len() > 1000, "{DOC} links {rel}: only {} bytes", bytes.len());
        match path.extension().and_then(|e| e.to_str()) {
            Some("png") => assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{rel} is not a PNG"),
            Some("svg") => assert!(String::from_utf8_lossy(&bytes).contains("<svg"), "{rel} is not an SVG"),
            other => panic!("{DOC} links {rel}: unexpected plot format {other:?}"),
        }
        n += 1;
    }
    n
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
    let n_model_free = cmds.iter().filter(|c| !c.model).count();
    assert!(n_model_free >= 6, "expected the documented model-free commands in {DOC}, found {n_model_free}");
    let model_scores = std::env::var_os("FACTPICO_DOCS_MODEL_SCORES").map(|d| root.join(d));
    let (mut n_rows, mut n_tables, mut n_plots) = (0usize, 0usize, 0usize);
    let (mut n_model_rows, mut n_model_tables, mut n_model_checked) = (0usize, 0usize, 0usize);
    let mut seen = Vec::new();
    for Command { text: cmd, model } in &cmds {
        let words: Vec<String> = cmd.split_whitespace().map(str::to_owned).collect();
        match (*model, words.iter().map(String::as_str).collect::<Vec<_>>().as_slice()) {
            (_, ["mkdir", "-p", dir]) => std::fs::create_dir_all(paths.map(dir)).unwrap(),
            (false, ["factpico", "score", ..]) => n_rows += score(&words[2..], &paths),
            (true, ["factpico", "score", ..]) => {
                n_model_rows += model_score(&words[2..], &paths, model_scores.as_deref());
            }
            (false, ["python3", "docs/meta-eval-infolossqa.py", data, out]) => {
                n_rows += infolossqa_omissions(Path::new(&paths.map(data)), Path::new(&paths.map(out)));
            }
            (_, ["factpico", "meta-eval", ..]) => {
                let args: Vec<String> = words[2..].iter().map(|a| paths.map(a)).collect();
                let a = MetaEvalArgs::try_parse_args(&args).unwrap_or_else(|e| panic!("{cmd}: {e}"));
                seen.push(a.name.clone());
                let want = expected.get(&a.name).unwrap_or_else(|| panic!("{DOC} has no `<!-- output: {} -->` block", a.name));
                if *model && model_scores.is_none() {
                    // Parsed (above) and its block exists; rerun only with FACTPICO_DOCS_MODEL_SCORES.
                    n_model_checked += 1;
                    continue;
                }
                let out = a.execute().unwrap_or_else(|e| panic!("{cmd}: {e}"));
                for p in out.written.iter().filter(|p| p.extension().is_some_and(|e| e == "png" || e == "svg")) {
                    assert!(std::fs::metadata(p).unwrap().len() > 1000, "{} is too small", p.display());
                    n_plots += 1;
                }
                if update {
                    doc = replace_block(&doc, &a.name, &out.markdown);
                } else if *want != out.markdown {
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
                n_tables += 1;
                if *model {
                    n_model_tables += 1;
                }
            }
            _ => panic!("{DOC}: command not reproduced by this test: {cmd}"),
        }
    }
    let unused: Vec<&String> = expected.keys().filter(|k| !seen.contains(k)).collect();
    assert!(unused.is_empty(), "output blocks without a command: {unused:?}");
    let n_links = check_image_links(&doc, &root.join("docs"));
    if update {
        std::fs::write(&doc_path, doc).unwrap();
        eprintln!("metaeval_docs: rewrote {n_tables} output blocks of {DOC} and {n_plots} plots");
    } else {
        eprintln!(
            "metaeval_docs: compared {n_tables} regenerated reports ({n_rows} input rows scored/derived, {n_model_rows} model-scored rows read, {n_plots} plots drawn) with {DOC}; {n_links} plot links resolve"
        );
    }
    if n_model_checked > 0 {
        eprintln!(
            "metaeval_docs: {n_model_checked} model-based reports parsed but not rerun (they need ONNX models; \
             set FACTPICO_DOCS_MODEL_SCORES=.factpico/meta-eval after running the documented model `factpico score` commands)"
        );
    } else if n_model_tables > 0 {
        eprintln!("metaeval_docs: {n_model_tables} of those are model-based reports, from the score files in FACTPICO_DOCS_MODEL_SCORES");
    }
}
