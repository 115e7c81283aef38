//! `cargo xtask replicas`: random-weight replicas of every published checkpoint's file format,
//! exported with the user-facing command and checked against the reference's own loader.
//!
//! Per family (one [`Family`] of [`FAMILIES`]):
//! 1. `onnx/replicas/<script> build --out FROM` in the venv of the library that wrote the real
//!    files (Lightning 1.9 for AlignScore, transformers 2.11 for DAE, AllenNLP 1.1 /
//!    transformers 3.0.2 for QAFactEval, transformers 4.46 for the hub models): the files
//!    under `FROM/<model>/` have the real container, key names and tokenizer files;
//! 2. `cargo xtask models <model> --from FROM/<model> --out OUT/<model>` (this binary, the
//!    same command a user runs on the real files);
//! 3. `onnx/replicas/<script> reference --from FROM --out reference.json` in the reference's
//!    own stack: the reference's loading code reads the replica and computes its outputs;
//! 4. factpico (the metric crates, in this process) computes the same outputs from `OUT` and
//!    they are compared.
//!
//! Needs the venvs of [`crate::python`] (PyTorch; created on first use) and the reference
//! repositories named by `$FACTPICO_DAE_REFERENCE`, `$FACTPICO_DAE2020_REFERENCE` and
//! `$QAFACTEVAL_REPO` (work trees or git directories). Not part of `cargo xtask test`; the
//! torch-free parts (model list, missing-hub message, `--from` checks) are.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value;

use crate::python::{repo_root, run_script, Venv, DAE, QAEVAL, REFERENCE};

/// One replica family.
pub struct Family {
    /// `--only` name.
    pub name: &'static str,
    /// `onnx/replicas/<script>`.
    pub script: &'static str,
    /// `--part` argument of the script (several families share one script).
    pub part: Option<&'static str>,
    /// Venv whose libraries write the replica (the publisher's stack).
    pub builder: &'static Venv,
    /// Venv running the reference's loader.
    pub reference: &'static Venv,
    /// The [`crate::models`] entries exported (`FROM/<entry>` -> `OUT/<entry>`).
    pub models: &'static [&'static str],
    /// Compares factpico on the exported directories with `reference.json`; returns report lines.
    pub check: fn(&Ctx, &Value) -> Result<Vec<String>>,
}

/// Paths of one family's run.
pub struct Ctx {
    /// `FROM`: the replica files as a user would place them.
    pub from: PathBuf,
    /// `OUT`: exported model directories.
    pub out: PathBuf,
}

impl Ctx {
    fn model(&self, entry: &str) -> PathBuf {
        self.out.join(entry)
    }
}

/// Every family.
pub static FAMILIES: &[Family] = &[
    Family {
        name: "alignscore",
        script: "alignscore_replica.py",
        part: None,
        builder: &REFERENCE,
        reference: &REFERENCE,
        models: &["alignscore-base", "alignscore-large"],
        check: checks::alignscore,
    },
    Family { name: "dae", script: "dae_replica.py", part: None, builder: &DAE, reference: &DAE, models: &["dae-xsum"], check: checks::dae },
    Family {
        name: "questeval",
        script: "questeval_replica.py",
        part: None,
        builder: &REFERENCE,
        reference: &REFERENCE,
        models: &["questeval-qg", "questeval-qa"],
        check: checks::questeval,
    },
    Family {
        name: "bertscore",
        script: "bertscore_replica.py",
        part: None,
        builder: &REFERENCE,
        reference: &REFERENCE,
        models: &["questeval-bertscore"],
        check: checks::bertscore,
    },
    Family {
        name: "qafacteval-qg",
        script: "qafacteval_replica.py",
        part: Some("qg"),
        builder: &QAEVAL,
        reference: &QAEVAL,
        models: &["qafacteval-qg"],
        check: checks::qafacteval_qg,
    },
    Family {
        name: "qafacteval-qa",
        script: "qafacteval_replica.py",
        part: Some("qa"),
        builder: &QAEVAL,
        reference: &QAEVAL,
        models: &["qafacteval-qa"],
        check: checks::qafacteval_qa,
    },
    Family {
        name: "lerc",
        script: "qafacteval_replica.py",
        part: Some("lerc"),
        builder: &QAEVAL,
        reference: &QAEVAL,
        models: &["qafacteval-lerc"],
        check: checks::lerc,
    },
];

fn script_args<'a>(f: &'a Family, cmd: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![cmd];
    if let Some(p) = f.part {
        v.extend(["--part", p]);
    }
    v.extend(rest);
    v
}

/// `cargo xtask models NAME --from DIR --out OUT` with this very binary; `Err(stderr)` on failure.
fn user_export(entry: &str, from: &Path, out: &Path) -> std::result::Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let o = Command::new(exe)
        .args(["models", entry, "--from"])
        .arg(from)
        .arg("--out")
        .arg(out)
        .output()
        .map_err(|e| e.to_string())?;
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    if o.status.success() {
        Ok(text)
    } else {
        Err(text)
    }
}

fn run_family(f: &Family, work: &Path, reuse: bool) -> Result<Vec<String>> {
    let dir = work.join(f.name);
    let ctx = Ctx { from: dir.join("from"), out: dir.join("out") };
    std::fs::create_dir_all(&dir)?;
    let script = format!("onnx/replicas/{}", f.script);
    let t = Instant::now();
    let from = ctx.from.display().to_string();
    let built = ctx.from.join(".replica-built");
    let mut lines = Vec::new();
    if reuse && built.exists() {
        lines.push(format!("reused the replica in {from}"));
    } else {
        run_script(&f.builder.python()?, &script, &script_args(f, "build", &["--out", &from]))
            .with_context(|| format!("{}: building the replica", f.name))?;
        std::fs::write(&built, "")?;
        lines.push(format!("built with the {} venv in {:.0} s", f.builder.name, t.elapsed().as_secs_f64()));
    }
    for entry in f.models {
        if reuse && ctx.model(entry).join("factpico.json").exists() {
            lines.push(format!("reused the export {}", ctx.model(entry).display()));
            continue;
        }
        let t = Instant::now();
        let log = user_export(entry, &ctx.from.join(entry), &ctx.model(entry))
            .map_err(|e| anyhow::anyhow!("{}: `cargo xtask models {entry} --from ...` failed:\n{e}", f.name))?;
        let echo: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("max |torch") || l.contains("unanswerable id") || l.contains("checkpoint read via") || l.starts_with("wrote"))
            .collect();
        lines.push(format!(
            "cargo xtask models {entry} --from {}: ok in {:.0} s{}",
            ctx.from.join(entry).display(),
            t.elapsed().as_secs_f64(),
            if echo.is_empty() { String::new() } else { format!(" ({})", echo.join("; ")) }
        ));
    }
    if f.name == "dae" {
        lines.push(checks::dae_2020_refused(&ctx)?);
    }
    let refjson = dir.join("reference.json");
    let t = Instant::now();
    if reuse && refjson.exists() {
        lines.push(format!("reused {}", refjson.display()));
    } else {
        let _ = std::fs::remove_file(&refjson);
        run_script(&f.reference.python()?, &script, &script_args(f, "reference", &["--from", &from, "--out", &refjson.display().to_string()]))
            .with_context(|| format!("{}: running the reference", f.name))?;
        lines.push(format!("reference ran in the {} venv in {:.0} s", f.reference.name, t.elapsed().as_secs_f64()));
    }
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(&refjson)?)?;
    lines.push(format!("reference: {}; {}", reference["reference"].as_str().unwrap_or("?"), reference["versions"]));
    lines.extend((f.check)(&ctx, &reference)?);
    Ok(lines)
}

/// `cargo xtask replicas [--only NAME]... [--work DIR] [--reuse]` (`--reuse`: keep a built
/// replica, an export and a reference run found in the work directory; for iterating).
///
/// # Errors
/// Unknown family names; any family whose export or comparison failed (after running all).
pub fn run_all(only: &[String], work: Option<PathBuf>, reuse: bool) -> Result<()> {
    for o in only {
        ensure!(
            FAMILIES.iter().any(|f| f.name == o),
            "unknown replica {o:?} (known: {})",
            FAMILIES.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
        );
    }
    let work = work.unwrap_or_else(|| crate::python::work_dir("replicas"));
    std::fs::create_dir_all(&work)?;
    let work = std::fs::canonicalize(&work)?;
    if let Some(lib) = crate::ort::prepare_for_tests()? {
        factpico_runtime::init_ort_from(&lib).map_err(|e| anyhow::anyhow!("{e}"))?;
    } else {
        bail!("ONNX Runtime is needed (cargo xtask ort)");
    }
    let mut report = String::new();
    let mut failed = Vec::new();
    for f in FAMILIES.iter().filter(|f| only.is_empty() || only.iter().any(|o| o == f.name)) {
        eprintln!("=== replica {}", f.name);
        let t = Instant::now();
        let res = run_family(f, &work, reuse);
        let (status, lines) = match res {
            Ok(lines) => ("PASS", lines),
            Err(e) => {
                failed.push(f.name);
                ("FAIL", vec![format!("{e:#}")])
            }
        };
        let block = format!(
            "## {} — {status} ({:.0} s)\n{}\n\n",
            f.name,
            t.elapsed().as_secs_f64(),
            lines.iter().map(|l| format!("- {l}")).collect::<Vec<_>>().join("\n")
        );
        eprint!("{block}");
        report.push_str(&block);
    }
    let path = work.join("report.md");
    std::fs::write(&path, &report)?;
    println!("{report}replicas: report in {}", path.display());
    if !failed.is_empty() {
        bail!("replicas failed: {}", failed.join(", "));
    }
    Ok(())
}

/// The replica family that writes `entry`'s file formats (the catalogue's `replica`).
///
/// # Errors
/// The entry has no replica (the message lists the entries that have one).
pub fn family_of(entry: &factpico_models::Entry) -> Result<&'static Family> {
    let with: Vec<&str> = crate::models::models().iter().filter(|m| m.replica.is_some()).map(|m| m.name.as_str()).collect();
    let Some(name) = &entry.replica else {
        bail!("{} has no replica builder (onnx/replicas/); entries with one: {}", entry.name, with.join(", "));
    };
    FAMILIES.iter().find(|f| f.name == name).with_context(|| format!("{}: replica family {name:?} is not one of cargo xtask replicas'", entry.name))
}

/// Where each replica file of `entry` goes: `(file the builder wrote under from, path under
/// DIR)`. Hub sources: `<org>/<repo>/<file>` (the publisher's names; an optional file the
/// builder did not write is left out, as the hub would answer 404); the placed files that no
/// hub repository serves (archives, Google Drive downloads): `by-hand/<NAME>/<path>`, ready for
/// `factpico models import NAME DIR/by-hand/NAME`.
///
/// # Errors
/// A required file the builder did not write.
pub fn hub_layout(entry: &factpico_models::Entry, from: &Path) -> Result<Vec<(PathBuf, PathBuf)>> {
    use factpico_models::Source;
    let mut out = Vec::new();
    let mut served = Vec::new();
    for s in &entry.sources {
        let Source::Hub { repo, into, files, .. } = s else { continue };
        for f in files {
            let rel = if into.is_empty() { f.path.clone() } else { format!("{into}/{}", f.path) };
            let src = from.join(&rel);
            if src.is_file() {
                out.push((src, Path::new(repo).join(&f.path)));
                served.push(rel);
            } else if !f.optional {
                bail!("{}: the replica has no {rel} (hub file {repo}/{}) under {}", entry.name, f.path, from.display());
            }
        }
    }
    let by_hand = Path::new("by-hand").join(&entry.name);
    for p in &entry.place {
        let alts: Vec<&str> = p.split('|').collect();
        if alts.iter().any(|a| served.iter().any(|s| s == a || s.starts_with(&format!("{a}/")))) {
            continue;
        }
        let alt = alts.iter().find(|a| from.join(a).exists()).with_context(|| format!("{}: the replica has no {p} under {}", entry.name, from.display()))?;
        let mut files = Vec::new();
        files_under(&from.join(alt), &mut files)?;
        for f in files {
            let rel = f.strip_prefix(from).context("inside the replica")?.to_path_buf();
            out.push((f, by_hand.join(rel)));
        }
    }
    Ok(out)
}

fn files_under(p: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if p.is_file() {
        out.push(p.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(p).with_context(|| p.display().to_string())?.flatten().map(|e| e.path()).collect();
    entries.sort();
    for e in entries {
        files_under(&e, out)?;
    }
    Ok(())
}

/// `cargo xtask replica NAME --out DIR --tiny`: builds the random-weight replica of catalogue
/// entry NAME with its family's builder (`onnx/replicas/<script> build`, in the venv of the
/// library that writes the real files, as `cargo xtask replicas`), then copies every file the
/// entry pulls into DIR in the hub layout ([`hub_layout`]), so that `hub_server DIR` (example
/// of factpico-models) serves it to `factpico models pull NAME`. The builders write tiny
/// dimensions (a few MB); `--tiny` says so and is required.
///
/// # Errors
/// No replica for NAME, `--tiny` missing, the builder failing, a file it did not write.
pub fn replica(name: &str, out: &Path, tiny: bool, work: Option<PathBuf>) -> Result<()> {
    let entry = crate::models::entry(name)?;
    let family = family_of(entry)?;
    ensure!(
        tiny,
        "the replica builders (onnx/replicas/) write tiny dimensions only (a few MB, the publisher's formats and names); \
         full-size random replicas are not built: pass --tiny"
    );
    let work = work.unwrap_or_else(|| crate::python::work_dir("replica").join(family.name));
    std::fs::create_dir_all(&work)?;
    let work = std::fs::canonicalize(&work)?;
    let script = format!("onnx/replicas/{}", family.script);
    let t = Instant::now();
    run_script(&family.builder.python()?, &script, &script_args(family, "build", &["--out", &work.display().to_string()]))
        .with_context(|| format!("{}: building the {} replica", name, family.name))?;
    eprintln!("xtask: built the {} replica with the {} venv in {:.0} s", family.name, family.builder.name, t.elapsed().as_secs_f64());
    let plan = hub_layout(entry, &work.join(&entry.name))?;
    for (src, rel) in &plan {
        let dest = out.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::copy(src, &dest).with_context(|| format!("copying {} to {}", src.display(), dest.display()))?;
        println!("{}  {} bytes", dest.display(), std::fs::metadata(&dest)?.len());
    }
    println!(
        "replica of {name} in {} ({} files). Serve it: cargo run -p factpico-models --example hub_server -- {}; then \
         HF_ENDPOINT=<the printed URL> factpico models pull {name}",
        out.display(),
        plan.len(),
        out.display()
    );
    Ok(())
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect()).unwrap_or_default()
}

/// Max |a - b| and the number compared; fails beyond `tol`.
fn compare(what: &str, pairs: impl IntoIterator<Item = (f64, f64)>, tol: f64) -> Result<String> {
    let (mut n, mut worst) = (0usize, 0.0f64);
    for (a, b) in pairs {
        let d = (a - b).abs();
        ensure!(d <= tol && d.is_finite(), "{what}: factpico {a} vs reference {b} (|Δ| = {d:.3e} > {tol:e})");
        worst = worst.max(d);
        n += 1;
    }
    ensure!(n > 0, "{what}: nothing compared");
    Ok(format!("{what}: {n} values, max |Δ| = {worst:.2e} (tolerance {tol:e})"))
}

fn manifest(dir: &Path) -> Result<Value> {
    Ok(serde_json::from_str(&std::fs::read_to_string(dir.join("factpico.json")).with_context(|| dir.display().to_string())?)?)
}

mod checks {
    use super::*;
    use factpico_alignscore::{AlignScore, AlignScoreOptions, Mode};
    use factpico_qa::{AnswerCandidate, AnswerKind, AnswerProvenance, Answers, BertScorer, LercQuip, QaFactEval, QaFactEvalOptions, QuestEval, QuestEvalOptions};
    use factpico_runtime::dae::{ArcBatchItem, DaeArcModel};
    use factpico_runtime::extractive_qa::ExtractiveQaModel;
    use factpico_runtime::seq2seq::Seq2SeqModel;
    use factpico_runtime::SessionOptions;

    fn session() -> SessionOptions {
        SessionOptions::default().intra_threads(2)
    }

    /// Both published sizes: `variants.base` / `variants.large` of the reference JSON, each
    /// checked against its own export (`alignscore-base`, `alignscore-large`).
    pub fn alignscore(ctx: &Ctx, r: &Value) -> Result<Vec<String>> {
        let pairs: Vec<(String, String)> = r["pairs"]
            .as_array()
            .context("pairs")?
            .iter()
            .map(|p| (p["source"].as_str().unwrap_or_default().to_owned(), p["summary"].as_str().unwrap_or_default().to_owned()))
            .collect();
        let inputs: Vec<(&str, &str)> = pairs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let mut lines = Vec::new();
        for size in ["base", "large"] {
            let v = &r["variants"][size];
            ensure!(v.is_object(), "the reference JSON has no variants.{size}");
            lines.extend(alignscore_one(&ctx.model(&format!("alignscore-{size}")), size, v, &inputs)?);
        }
        Ok(lines)
    }

    fn alignscore_one(dir: &Path, size: &str, r: &Value, inputs: &[(&str, &str)]) -> Result<Vec<String>> {
        let ck = &r["checkpoint"];
        ensure!(ck["default_equals_lightning"] == true, "{size}: onnx/common.py's default loading differs from Lightning's: {ck}");
        ensure!(ck["lenient_equals_lightning"] == true, "{size}: the lenient unpickler differs from Lightning's loading: {ck}");
        let m = manifest(dir)?;
        ensure!(m["source"]["sha256"] == ck["sha256"], "{size}: manifest sha256 {} is not the checkpoint's {}", m["source"]["sha256"], ck["sha256"]);
        let mut lines = vec![format!(
            "{size}: checkpoint written by Lightning {} (top-level keys {}; hyper_parameters {}); onnx/common.py reads it via `{}` \
             (torch weights_only: {}); default path and lenient unpickler both equal Lightning's own torch.load ({} tensors)",
            ck["lightning_version"],
            strs(&ck["keys"]).join(", "),
            ck["hyper_parameters"],
            ck["default_load_path"].as_str().unwrap_or("?"),
            ck["weights_only_error"].as_str().map_or_else(|| "loads".to_owned(), |e| format!("refused: {e}")),
            ck["tensors"]
        )];
        let scorer = AlignScore::try_new(dir, AlignScoreOptions { mode: Mode::NliSp, batch_size: 16, threads: 2, ..AlignScoreOptions::default() })?;
        let all = scorer.score_batch_modes(inputs, &Mode::ALL)?;
        let mut total = Vec::new();
        let mut nulls = 0;
        for (mode, out) in Mode::ALL.into_iter().zip(all) {
            let want = r["scores"][mode.as_str()].as_array().with_context(|| format!("{size}: scores.{mode}"))?;
            ensure!(want.len() == out.len(), "{size} {mode}: {} reference scores for {} pairs", want.len(), out.len());
            for (k, (w, o)) in want.iter().zip(&out).enumerate() {
                match (num(w), o.score) {
                    (None, None) => nulls += 1,
                    (Some(a), Some(b)) => total.push((b, a)),
                    (a, b) => bail!("{size} {mode} pair {k}: reference {a:?}, factpico {b:?}"),
                }
            }
        }
        lines.push(compare(&format!("AlignScore-{size}, {} pairs x 6 modes ({nulls} null on both sides)", inputs.len()), total, 1e-4)?);
        Ok(lines)
    }

    pub fn dae_2020_refused(ctx: &Ctx) -> Result<String> {
        let from = ctx.from.join("dae-2020");
        match user_export("dae-xsum", &from, &ctx.out.join("dae-2020")) {
            Ok(_) => bail!("the DAE-2020 replica was exported; it must be refused"),
            Err(msg) => {
                let line = msg.lines().find(|l| l.contains("DAE-2020")).unwrap_or_default().trim().to_owned();
                ensure!(
                    line.contains("ElectraDAEModel") && line.contains("Supported: ElectraDependencyModel"),
                    "the refusal does not name the classes:\n{msg}"
                );
                ensure!(!ctx.out.join("dae-2020").exists(), "a refused export left an output directory");
                Ok(format!("DAE-2020 replica (ElectraDAEModel) refused: {line}"))
            }
        }
    }

    pub fn dae(ctx: &Ctx, r: &Value) -> Result<Vec<String>> {
        let model = DaeArcModel::load(ctx.model("dae-xsum"), &session())?;
        let mut bad = Vec::new();
        let words = r["words"].as_array().context("words")?;
        for w in words {
            let word = w[0].as_str().unwrap_or_default();
            let want: Vec<u32> = w[1].as_array().context("ids")?.iter().filter_map(|x| x.as_u64().map(|v| v as u32)).collect();
            let got = model.tokenizer().word_pieces(word)?;
            if got != want {
                bad.push(format!("{word:?}: factpico {got:?}, reference {want:?}"));
            }
        }
        ensure!(bad.is_empty(), "word pieces differ for {} of {} words: {}", bad.len(), words.len(), bad[..bad.len().min(5)].join("; "));
        let items = r["items"].as_array().context("items")?;
        let owned: Vec<(Vec<u32>, Vec<usize>, Vec<usize>)> = items
            .iter()
            .map(|i| {
                let v = |k: &str| -> Vec<u64> { i[k].as_array().map(|a| a.iter().filter_map(Value::as_u64).collect()).unwrap_or_default() };
                (v("input_ids").into_iter().map(|x| x as u32).collect(), v("child").into_iter().map(|x| x as usize).collect(), v("head").into_iter().map(|x| x as usize).collect())
            })
            .collect();
        let batch: Vec<ArcBatchItem<'_>> = owned.iter().map(|(i, c, h)| ArcBatchItem { input_ids: i, child_pos: c, head_pos: h }).collect();
        let got = model.run(&batch)?;
        let mut vals = Vec::new();
        for (item, g) in items.iter().zip(&got) {
            for (arc, logits) in item["logits"].as_array().context("logits")?.iter().zip(g) {
                for c in 0..2 {
                    vals.push((f64::from(logits[c]), num(&arc[c]).context("logit")?));
                }
            }
        }
        Ok(vec![
            format!("word pieces: {} words of the fixture texts identical to transformers 2.11's ElectraTokenizer of the checkpoint", words.len()),
            compare(&format!("arc logits of {} inputs (reference forward padded to 512, factpico unpadded)", items.len()), vals, 1e-4)?,
        ])
    }

    fn answers(text: &str, a: &Value) -> Result<Answers> {
        let sentences = a["sentences"]
            .as_array()
            .context("sentences")?
            .iter()
            .map(|s| Ok(s[0].as_u64().context("start")? as usize..s[1].as_u64().context("end")? as usize))
            .collect::<Result<Vec<_>>>()?;
        for s in &sentences {
            ensure!(text.get(s.clone()).is_some(), "sentence {s:?} is not a byte range of the text");
        }
        let mut candidates = Vec::new();
        for (key, kind) in [("ner", AnswerKind::Entity(String::new())), ("noun", AnswerKind::NounChunk)] {
            for t in strs(&a[key]) {
                candidates.push(AnswerCandidate { text: t, span: None, sentence: 0..0, kind: kind.clone() });
            }
        }
        Ok(Answers { candidates, sentences, provenance: AnswerProvenance::Provided })
    }

    pub fn questeval(ctx: &Ctx, r: &Value) -> Result<Vec<String>> {
        let qa_manifest = manifest(&ctx.model("questeval-qa"))?;
        let s = &qa_manifest["seq2seq"];
        ensure!(s["unanswerable_token_id"] == 73, "QA manifest unanswerable id {}", s["unanswerable_token_id"]);
        let u = &s["unanswerable_check"];
        ensure!(
            u["starts_unanswerable"] == true && u["unanswerable_pieces"].as_array().is_some_and(|p| p.len() > 1),
            "the replica's 'unanswerable' must be several pieces starting with 73: {u}"
        );
        let qg_manifest = manifest(&ctx.model("questeval-qg"))?;
        ensure!(qg_manifest["seq2seq"]["qg_prefix"] == "sv1", "QG prefix {}", qg_manifest["seq2seq"]["qg_prefix"]);
        let pairs = r["pairs"].as_array().context("pairs")?;
        let texts: Vec<(String, String)> =
            pairs.iter().map(|p| (p["source"].as_str().unwrap_or_default().to_owned(), p["summary"].as_str().unwrap_or_default().to_owned())).collect();
        let ans = pairs
            .iter()
            .zip(&texts)
            .map(|(p, (s, m))| Ok((answers(s, &p["source_answers"])?, answers(m, &p["summary_answers"])?)))
            .collect::<Result<Vec<_>>>()?;
        let mut o = QuestEvalOptions::new(ctx.model("questeval-qg"), ctx.model("questeval-qa"));
        o.session = session();
        let qe = QuestEval::try_new(o)?;
        let items: Vec<(&str, &str, &Answers, &Answers)> = texts.iter().zip(&ans).map(|((s, m), (a, b))| (s.as_str(), m.as_str(), a, b)).collect();
        let out = qe.score_batch_with_answers(&items)?;
        let questions: usize = out.iter().map(|x| x.precision.questions + x.recall.questions).sum();
        let vals = out.iter().zip(pairs).map(|(x, p)| Ok((x.score, num(&p["score"]).context("score")?))).collect::<Result<Vec<_>>>()?;
        Ok(vec![
            format!("QA export: unanswerable id 73 = {} ('unanswerable' = {}); QG prefix sv1", u["piece"], u["unanswerable_pieces"]),
            compare(&format!("QuestEval (answerability + F1) of {} pairs, {questions} questions, reference answers replayed", pairs.len()), vals, 1e-4)?,
        ])
    }

    pub fn bertscore(ctx: &Ctx, r: &Value) -> Result<Vec<String>> {
        let scorer = BertScorer::load(ctx.model("questeval-bertscore"), &session())?;
        let pairs = r["pairs"].as_array().context("pairs")?;
        let owned: Vec<(String, String)> =
            pairs.iter().map(|p| (p["candidate"].as_str().unwrap_or_default().to_owned(), p["reference"].as_str().unwrap_or_default().to_owned())).collect();
        let refs: Vec<(&str, &str)> = owned.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let got = scorer.score(&refs)?;
        let mut vals = Vec::new();
        for (g, p) in got.iter().zip(pairs) {
            vals.push((g.precision, num(&p["p"]).context("p")?));
            vals.push((g.recall, num(&p["r"]).context("r")?));
            vals.push((g.f1, num(&p["f"]).context("f")?));
        }
        let layer = manifest(&ctx.model("questeval-bertscore"))?["embedding"]["layer"].clone();
        ensure!(layer == 9, "exported layer {layer}");
        Ok(vec![compare(&format!("BERTScore P/R/F of {} pairs (layer 9 of 12)", pairs.len()), vals, 1e-5)?])
    }

    pub fn qafacteval_qg(ctx: &Ctx, r: &Value) -> Result<Vec<String>> {
        let dir = ctx.model("qafacteval-qg");
        let seq = Seq2SeqModel::load(&dir, &session())?;
        let qa_dir = repo_root().join("fixtures/models/qa-tiny");
        let mut o = QaFactEvalOptions::new(&dir, &qa_dir);
        o.session = session();
        let qg = QaFactEval::try_new(o)?;
        let inputs = r["inputs"].as_array().context("inputs")?;
        let mut marked = Vec::new();
        let mut tok_bad = Vec::new();
        for i in inputs {
            let text = i["text"].as_str().unwrap_or_default();
            let (s, e) = (i["start_byte"].as_u64().context("start")? as usize, i["end_byte"].as_u64().context("end")? as usize);
            let m = factpico_qa::qafacteval::mark_answer(text, s, e);
            ensure!(m == i["marked"].as_str().unwrap_or_default(), "marked input differs: {m:?} vs {}", i["marked"]);
            let ids = seq.encode(&m)?.ids;
            let want: Vec<u32> = i["source_ids"].as_array().context("ids")?.iter().filter_map(|x| x.as_u64().map(|v| v as u32)).collect();
            if ids != want {
                tok_bad.push(format!("{m:?}: factpico {ids:?} vs reference {want:?}"));
            }
            marked.push(m);
        }
        ensure!(tok_bad.is_empty(), "QG source ids differ for {} of {}: {}", tok_bad.len(), inputs.len(), tok_bad[..tok_bad.len().min(3)].join("\n"));
        let questions = qg.generate_questions(&marked)?;
        let same = |key: &str| -> Result<(usize, Vec<String>)> {
            let want = strs(&r[key]);
            ensure!(want.len() == questions.len(), "{key}: {} reference questions for {} inputs", want.len(), questions.len());
            let diffs: Vec<String> =
                questions.iter().zip(&want).filter(|(a, b)| a != b).map(|(a, b)| format!("factpico {a:?} / reference {b:?}")).collect();
            Ok((want.len() - diffs.len(), diffs))
        };
        let (n_std, d_std) = same("questions_standard_positions")?;
        let (n_ref, d_ref) = same("questions")?;
        ensure!(d_std.is_empty(), "questions differ from the reference with standard decoder positions: {}", d_std[..d_std.len().min(3)].join("; "));
        Ok(vec![
            format!(
                "source token ids of {} marked inputs identical to QAEval's own dataset reader (AllenNLP 1.1.0 \
                 PretrainedTransformerTokenizer, transformers 3.0.2 slow BartTokenizer with <m>/</m> added)",
                inputs.len()
            ),
            format!(
                "questions (AllenNLP beam 4, 100 steps) identical to the reference run through Predictor.from_path(model.tar.gz) with \
                 standard decoder positions: {n_std}/{}",
                inputs.len()
            ),
            format!(
                "identical to the unmodified reference (transformers 3.0.2 cached BART: step k >= 1 at position k+1): {n_ref}/{}{}",
                inputs.len(),
                d_ref.first().map_or_else(String::new, |d| format!(" (first difference: {d})"))
            ),
        ])
    }

    pub fn qafacteval_qa(ctx: &Ctx, r: &Value) -> Result<Vec<String>> {
        let model = ExtractiveQaModel::load(ctx.model("qafacteval-qa"), &session())?;
        let rows = r["rows"].as_array().context("rows")?;
        let owned: Vec<(String, String)> =
            rows.iter().map(|x| (x["question"].as_str().unwrap_or_default().to_owned(), x["context"].as_str().unwrap_or_default().to_owned())).collect();
        let pairs: Vec<(&str, &str)> = owned.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let got = model.answer(&pairs, 8)?;
        let mut vals = Vec::new();
        let mut answered = 0;
        for (g, x) in got.iter().zip(rows) {
            ensure!(g.text == x["prediction"].as_str().unwrap_or_default(), "answer {:?} vs reference {}", g.text, x["prediction"]);
            vals.push((g.probability, num(&x["probability"]).context("p")?));
            vals.push((g.null_probability, num(&x["null_probability"]).context("null")?));
            answered += usize::from(g.is_answered());
        }
        Ok(vec![
            format!("answer texts of {} (question, context) pairs identical to qaeval 0.1.0 QuestionAnsweringModel.answer_all ({answered} answered)", rows.len()),
            compare("answer / null probabilities", vals, 1e-4)?,
        ])
    }

    pub fn lerc(ctx: &Ctx, r: &Value) -> Result<Vec<String>> {
        let model = LercQuip::load(ctx.model("qafacteval-lerc"), &session())?;
        let rows = r["rows"].as_array().context("rows")?;
        let inputs: Vec<String> = rows
            .iter()
            .map(|x| {
                let s = |k: &str| x[k].as_str().unwrap_or_default().to_owned();
                factpico_qa::lerc_quip_input(&s("question"), &s("answer"), &s("prediction"), &s("context"))
            })
            .collect();
        let got = model.score(&inputs, 8)?;
        let vals = got.iter().zip(rows).map(|(g, x)| Ok((*g, num(&x["lerc_quip"]).context("score")?))).collect::<Result<Vec<_>>>()?;
        Ok(vec![compare(&format!("LERC-QuIP of {} answered questions (lerc_quip.py LERCQuipScorer under transformers 3.0.2)", rows.len()), vals, 1e-4)?])
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, p.display().to_string()).unwrap();
    }

    #[test]
    fn names_map_to_their_family_and_unknown_ones_are_refused() {
        for (name, family) in [("alignscore-base", "alignscore"), ("alignscore-large", "alignscore"), ("dae-xsum", "dae"), ("qafacteval-lerc", "lerc")] {
            assert_eq!(family_of(crate::models::entry(name).unwrap()).unwrap().name, family);
        }
        let err = family_of(crate::models::entry("summac-vitc").unwrap()).err().unwrap().to_string();
        assert!(err.contains("summac-vitc has no replica builder") && err.contains("alignscore-base"), "{err}");
        assert!(crate::models::entry("no-such-model").is_err());
        let out = tempfile::tempdir().unwrap();
        let err = replica("alignscore-base", out.path(), false, None).unwrap_err().to_string();
        assert!(err.contains("pass --tiny"), "{err}");
        assert!(std::fs::read_dir(out.path()).unwrap().next().is_none(), "nothing written");
    }

    /// AlignScore-base: the checkpoint goes to `yzha/AlignScore/`, the backbone's files to
    /// `FacebookAI/roberta-base/` under the publisher's names; optional files the builder did
    /// not write are left out; a missing required one is an error.
    #[test]
    fn alignscore_files_take_the_hub_layout() {
        let from = tempfile::tempdir().unwrap();
        let f = from.path();
        for p in ["AlignScore-base.ckpt", "roberta-base/config.json", "roberta-base/vocab.json", "roberta-base/merges.txt", "roberta-base/tokenizer.json"] {
            touch(&f.join(p));
        }
        let e = crate::models::entry("alignscore-base").unwrap();
        let got: Vec<(PathBuf, PathBuf)> = hub_layout(e, f).unwrap();
        let dests: Vec<String> = got.iter().map(|(_, d)| d.display().to_string()).collect();
        assert_eq!(
            dests,
            [
                "yzha/AlignScore/AlignScore-base.ckpt",
                "FacebookAI/roberta-base/config.json",
                "FacebookAI/roberta-base/vocab.json",
                "FacebookAI/roberta-base/merges.txt",
                "FacebookAI/roberta-base/tokenizer.json",
            ]
        );
        assert_eq!(got[1].0, f.join("roberta-base/config.json"));
        std::fs::remove_file(f.join("roberta-base/merges.txt")).unwrap();
        let err = hub_layout(e, f).unwrap_err().to_string();
        assert!(err.contains("no roberta-base/merges.txt (hub file FacebookAI/roberta-base/merges.txt)"), "{err}");
    }

    /// QAFactEval-QG: the archive from Google Drive has no hub repository (`by-hand/NAME/`),
    /// BART's files do (`facebook/bart-large/`).
    #[test]
    fn files_no_hub_serves_go_by_hand() {
        let e = crate::models::entry("qafacteval-qg").unwrap();
        let from = tempfile::tempdir().unwrap();
        let f = from.path();
        for p in &e.place {
            touch(&f.join(p.split('|').next().unwrap()));
        }
        let got = hub_layout(e, f).unwrap();
        let dests: Vec<String> = got.iter().map(|(_, d)| d.display().to_string()).collect();
        assert!(dests.contains(&"by-hand/qafacteval-qg/model.tar.gz".to_owned()), "{dests:?}");
        assert!(dests.iter().any(|d| d.starts_with("facebook/bart-large/")), "{dests:?}");
        assert!(dests.iter().all(|d| d.starts_with("by-hand/qafacteval-qg/") || d.starts_with("facebook/bart-large/")), "{dests:?}");
    }
}
