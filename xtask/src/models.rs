//! `cargo xtask models`: one command per published model the metrics use.
//!
//! Every model is one [`ModelEntry`] of [`MODELS`]: where its files come from
//! ([`Source`]), which files `--from DIR` needs ([`ModelEntry::place`]) and the export steps
//! (`onnx/*.py`, run in the export venv of [`crate::python::export_python`]).
//!
//! * `cargo xtask models --list` — every model with its source, licence and command.
//! * `cargo xtask models NAME` — where every source answers (hub or direct URL, checked with a
//!   5 s timeout), downloads the files into `$FACTPICO_HOME/downloads/NAME`, laid out exactly
//!   as `--from` expects, and runs the same export into `$FACTPICO_HOME/models/NAME`. Where a
//!   source does not answer, or is on Google Drive (no scripted download), it stops within
//!   seconds and says which file goes where, then the `--from` command to run.
//! * `cargo xtask models NAME --from DIR` — the same export, offline, from files placed by hand.
//!
//! The output directory is written atomically (export into a sibling `.NAME.partial-PID`,
//! then renamed). Adding a model (SummaC, MiniCheck, ...) is one entry in [`MODELS`] plus
//! its row in `onnx/README.md` (checked by a test).
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::python::{export_python, run_script};

/// Where one part of a model comes from.
#[derive(Debug)]
pub enum Source {
    /// Files of a Hugging Face hub repository (revision `main`), downloaded into `into`
    /// (a folder relative to the `--from` directory; `""` = the directory itself). Files
    /// that the repository lacks are skipped (e.g. `tokenizer.json` of older repositories);
    /// [`ModelEntry::place`] says which ones are required.
    Hub { repo: &'static str, files: &'static [&'static str], into: &'static str },
    /// A direct https download of a `.tar.gz` archive whose top folder `root` is unpacked into
    /// `into`.
    Archive { url: &'static str, root: &'static str, into: &'static str },
    /// A Google Drive file: never downloaded by script (Drive needs a browser-style
    /// confirmation for large files); `how` says what to do with it.
    Drive { url: &'static str, how: &'static str },
}

/// One published model and how factpico exports it.
#[derive(Debug)]
pub struct ModelEntry {
    /// Name used on the command line and as the output folder (`$FACTPICO_HOME/models/NAME`).
    pub name: &'static str,
    /// The factpico metric and the `factpico score` flag that takes the exported directory.
    pub metric: &'static str,
    /// What the model is and who published it.
    pub about: &'static str,
    /// Licence as stated by the publisher (or that none is stated).
    pub licence: &'static str,
    /// Where the files come from.
    pub sources: &'static [Source],
    /// Files the `--from` directory must hold (relative paths; `a|b` = either).
    pub place: &'static [&'static str],
    /// Export steps: `onnx/` script + arguments; `{from}`, `{out}` and `{work}` (a scratch
    /// folder, removed afterwards) are substituted.
    pub steps: &'static [&'static [&'static str]],
    /// `--int8` supported (`onnx/quantize.py` of the single-graph output).
    pub int8: bool,
    /// The replica of `cargo xtask replicas` that covers this file format.
    pub replica: &'static str,
}

const ROBERTA_FILES: &[&str] = &["config.json", "vocab.json", "merges.txt", "tokenizer.json", "tokenizer_config.json"];
const T5_FILES: &[&str] =
    &["config.json", "pytorch_model.bin", "spiece.model", "special_tokens_map.json", "tokenizer_config.json"];

/// Every model the metrics use. SummaC / MiniCheck models are added here by their own issue.
pub static MODELS: &[ModelEntry] = &[
    ModelEntry {
        name: "alignscore-base",
        metric: "alignscore (--alignscore-model)",
        about: "AlignScore-base (Zha et al. 2023): RoBERTa-base Lightning checkpoint of BERTAlignModel",
        licence: "code MIT (yuh-zha/AlignScore LICENSE), no separate licence stated for the checkpoints; roberta-base: see its hub model card",
        sources: &[
            Source::Hub { repo: "yzha/AlignScore", files: &["AlignScore-base.ckpt"], into: "" },
            Source::Hub { repo: "FacebookAI/roberta-base", files: ROBERTA_FILES, into: "roberta-base" },
        ],
        place: &["AlignScore-base.ckpt", "roberta-base/config.json", "roberta-base/vocab.json", "roberta-base/merges.txt"],
        steps: &[&[
            "onnx/export_alignscore.py", "--ckpt", "{from}/AlignScore-base.ckpt", "--backbone", "{from}/roberta-base",
            "--out", "{out}", "--checkpoint-name", "https://huggingface.co/yzha/AlignScore/resolve/main/AlignScore-base.ckpt",
        ]],
        int8: true,
        replica: "alignscore",
    },
    ModelEntry {
        name: "alignscore-large",
        metric: "alignscore (--alignscore-model)",
        about: "AlignScore-large (Zha et al. 2023): RoBERTa-large Lightning checkpoint of BERTAlignModel",
        licence: "code MIT (yuh-zha/AlignScore LICENSE), no separate licence stated for the checkpoints; roberta-large: see its hub model card",
        sources: &[
            Source::Hub { repo: "yzha/AlignScore", files: &["AlignScore-large.ckpt"], into: "" },
            Source::Hub { repo: "FacebookAI/roberta-large", files: ROBERTA_FILES, into: "roberta-large" },
        ],
        place: &["AlignScore-large.ckpt", "roberta-large/config.json", "roberta-large/vocab.json", "roberta-large/merges.txt"],
        steps: &[&[
            "onnx/export_alignscore.py", "--ckpt", "{from}/AlignScore-large.ckpt", "--backbone", "{from}/roberta-large",
            "--out", "{out}", "--checkpoint-name", "https://huggingface.co/yzha/AlignScore/resolve/main/AlignScore-large.ckpt",
        ]],
        int8: true,
        replica: "alignscore",
    },
    ModelEntry {
        name: "dae-xsum",
        metric: "dae (--dae-model)",
        about: "DAE-2021 (Goyal & Durrett 2021) DAE_xsum_human_best_ckpt: ElectraDependencyModel, transformers 2.11 save_pretrained",
        licence: "none stated (tagoyal/factuality-datasets has no licence file: ask the authors before redistributing)",
        sources: &[Source::Drive {
            url: "https://drive.google.com/drive/folders/1kcRCU-UlIqwDIGsaRQlRsCcHY4Mc-m3L \
                  (factuality_models_datasets/factuality_models/DAE_xsum_human_best_ckpt.zip)",
            how: "unzip it; DIR is the folder that holds config.json",
        }],
        place: &["config.json", "pytorch_model.bin|model.safetensors", "vocab.txt"],
        steps: &[&["onnx/export_dae.py", "export", "{from}", "{out}"]],
        int8: false,
        replica: "dae",
    },
    ModelEntry {
        name: "questeval-qg",
        metric: "questeval (--questeval-qg-model)",
        about: "QuestEval question generator ThomasNLG/t5-qg_squad1-en (T5-base, prefix sv1)",
        licence: "QuestEval code MIT (LICENSE.txt); the ThomasNLG model: see its hub model card",
        sources: &[Source::Hub { repo: "ThomasNLG/t5-qg_squad1-en", files: T5_FILES, into: "" }],
        place: &["config.json", "pytorch_model.bin|model.safetensors", "spiece.model"],
        steps: &[&["onnx/export_seq2seq.py", "{from}", "{out}", "--role", "qg", "--qg-prefix", "sv1",
            "--checkpoint-name", "ThomasNLG/t5-qg_squad1-en"]],
        int8: false,
        replica: "questeval",
    },
    ModelEntry {
        name: "questeval-qa",
        metric: "questeval (--questeval-qa-model)",
        about: "QuestEval question answerer ThomasNLG/t5-qa_squad2neg-en (T5-base; answerability = 1 - P(token 73))",
        licence: "QuestEval code MIT (LICENSE.txt); the ThomasNLG model: see its hub model card",
        sources: &[Source::Hub { repo: "ThomasNLG/t5-qa_squad2neg-en", files: T5_FILES, into: "" }],
        place: &["config.json", "pytorch_model.bin|model.safetensors", "spiece.model"],
        steps: &[&["onnx/export_seq2seq.py", "{from}", "{out}", "--role", "qa", "--unanswerable-id", "73",
            "--checkpoint-name", "ThomasNLG/t5-qa_squad2neg-en"]],
        int8: false,
        replica: "questeval",
    },
    ModelEntry {
        name: "questeval-bertscore",
        metric: "questeval (--bertscore-model)",
        about: "BERTScore model of QuestEval: bert-base-multilingual-cased, layer 9 (bert_score 0.3.9 model2layers)",
        licence: "Apache-2.0 (google-research/bert; see the hub model card)",
        sources: &[Source::Hub {
            repo: "google-bert/bert-base-multilingual-cased",
            files: &["config.json", "vocab.txt", "tokenizer_config.json", "tokenizer.json", "model.safetensors"],
            into: "",
        }],
        place: &["config.json", "vocab.txt", "pytorch_model.bin|model.safetensors"],
        steps: &[&["onnx/export_embedding.py", "{from}", "{out}", "--layer", "9",
            "--checkpoint-name", "bert-base-multilingual-cased"]],
        int8: false,
        replica: "bertscore",
    },
    ModelEntry {
        name: "qafacteval-qg",
        metric: "qafacteval (--qafacteval-qg-model)",
        about: "QAFactEval / QAEval question generator: AllenNLP 1.1 archive of BART-large with <m> </m> (download_models.sh)",
        licence: "QAFactEval BSD-3-Clause (LICENSE.txt), qaeval Apache-2.0 (LICENSE); facebook/bart-large: see its hub model card",
        sources: &[
            Source::Drive {
                url: "https://drive.google.com/uc?id=1vVhRgLtsQDAOmxYhY5PMPnxxHUyCOdQU",
                how: "save it as DIR/model.tar.gz (do not unpack; it is models/generation/model.tar.gz of download_models.sh)",
            },
            Source::Hub { repo: "facebook/bart-large", files: &["config.json", "vocab.json", "merges.txt"], into: "bart-large" },
        ],
        place: &["model.tar.gz", "bart-large/config.json", "bart-large/vocab.json", "bart-large/merges.txt"],
        steps: &[
            &["onnx/convert_qaeval_qg.py", "--archive", "{from}/model.tar.gz", "--bart", "{from}/bart-large", "--out", "{work}/hf"],
            &["onnx/export_seq2seq.py", "{work}/hf", "{out}", "--role", "qg",
                "--checkpoint-name", "QAFactEval models/generation/model.tar.gz"],
        ],
        int8: false,
        replica: "qafacteval-qg",
    },
    ModelEntry {
        name: "qafacteval-qa",
        metric: "qafacteval (--extractive-qa-model)",
        about: "QAFactEval / QAEval answering model: ELECTRA-large SQuAD 2.0 span model, transformers 3.0.2 save_pretrained",
        licence: "QAFactEval BSD-3-Clause (LICENSE.txt), qaeval Apache-2.0 (LICENSE)",
        sources: &[Source::Drive {
            url: "https://drive.google.com/uc?id=1q2Z3FPP9AYNz0RJKHMlaweNhmLQoyPA8",
            how: "unzip model.zip into DIR (it is models/answering of download_models.sh)",
        }],
        place: &["config.json", "pytorch_model.bin|model.safetensors", "vocab.txt"],
        steps: &[&["onnx/export_qa.py", "{from}", "{out}", "--checkpoint-name", "QAFactEval models/answering"]],
        int8: false,
        replica: "qafacteval-qa",
    },
    ModelEntry {
        name: "qafacteval-lerc",
        metric: "qafacteval (--lerc-model)",
        about: "QAFactEval LERC-QuIP regressor quip-512-mocha (RoBERTa-large, 1 output)",
        licence: "QAFactEval BSD-3-Clause (LICENSE.txt; no separate licence stated for the weights)",
        sources: &[Source::Archive {
            url: "https://storage.googleapis.com/sfr-qafacteval-research/quip-512-mocha.tar.gz",
            root: "quip-512-mocha",
            into: "",
        }],
        place: &["config.json", "pytorch_model.bin|model.safetensors", "vocab.json", "merges.txt"],
        steps: &[&["onnx/export_hf.py", "--model", "{from}", "--out", "{out}", "--lerc"]],
        int8: false,
        replica: "lerc",
    },
];

/// The entry called `name`.
///
/// # Errors
/// Unknown name (the message lists the known ones).
pub fn entry(name: &str) -> Result<&'static ModelEntry> {
    MODELS.iter().find(|m| m.name == name).ok_or_else(|| {
        let known: Vec<&str> = MODELS.iter().map(|m| m.name).collect();
        anyhow::anyhow!("unknown model {name:?}; known: {} (cargo xtask models --list)", known.join(", "))
    })
}

/// `cargo xtask models --list`.
pub fn list() -> String {
    let mut s = String::new();
    for m in MODELS {
        s.push_str(&format!("{}\n  metric:  {}\n  model:   {}\n  licence: {}\n", m.name, m.metric, m.about, m.licence));
        for src in m.sources {
            s.push_str(&format!("  source:  {}\n", describe(src)));
        }
        s.push_str(&format!(
            "  command: cargo xtask models {} [--from DIR] [--out DIR]{}\n  replica: cargo xtask replicas --only {}\n\n",
            m.name,
            if m.int8 { " [--int8]" } else { "" },
            m.replica
        ));
    }
    s
}

fn describe(src: &Source) -> String {
    match src {
        Source::Hub { repo, files, into } => {
            format!("hub {repo}: {}{}", files.join(", "), if into.is_empty() { String::new() } else { format!(" -> {into}/") })
        }
        Source::Archive { url, root, into } => format!("{url} (folder {root}/ -> {})", if into.is_empty() { "DIR" } else { into }),
        Source::Drive { url, how } => format!("Google Drive {url}; {how}"),
    }
}

/// The hub endpoint (`$HF_ENDPOINT`, as `huggingface_hub` reads it; default huggingface.co).
pub fn hub_endpoint() -> String {
    std::env::var("HF_ENDPOINT").unwrap_or_else(|_| "https://huggingface.co".into()).trim_end_matches('/').to_owned()
}

/// One URL per downloadable source, to check that it answers (`None` for Drive sources).
fn probe_url(src: &Source, endpoint: &str) -> Option<String> {
    match src {
        Source::Hub { repo, files, .. } => Some(format!("{endpoint}/{repo}/resolve/main/{}", files[0])),
        Source::Archive { url, .. } => Some((*url).to_owned()),
        Source::Drive { .. } => None,
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
/// cannot be fetched by script (Drive, or no answer within `timeout`).
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

/// Where each required file comes from, one line per [`ModelEntry::place`] path.
fn origin_of(m: &ModelEntry, path: &str, endpoint: &str) -> String {
    let first = path.split('|').next().unwrap_or(path);
    for src in m.sources {
        match src {
            Source::Hub { repo, into, .. } => {
                let rel = if into.is_empty() { Some(first) } else { first.strip_prefix(&format!("{into}/")) };
                if let Some(f) = rel.filter(|f| !f.contains('/')) {
                    let f = if path.contains('|') { path.split('|').map(|a| a.rsplit('/').next().unwrap_or(a)).collect::<Vec<_>>().join(" or ") } else { f.to_owned() };
                    return format!("{endpoint}/{repo} (file {f})");
                }
            }
            Source::Archive { url, root, .. } => return format!("{url} (folder {root}/ of the archive)"),
            Source::Drive { url, how } => {
                if m.sources.len() == 1 || first == "model.tar.gz" {
                    return format!("{url}; {how}");
                }
            }
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
    for p in m.place {
        s.push_str(&format!("  DIR/{p:w$}  from {}\n", origin_of(m, p, endpoint)));
    }
    s.push_str(&format!(
        "then run the same export offline:\n  cargo xtask models {} --from DIR{}\nIt writes {} (for factpico score {}).",
        m.name,
        if out == factpico_runtime::default_models_dir().join(m.name) { String::new() } else { format!(" --out {}", out.display()) },
        out.display(),
        m.metric.split_once('(').map_or("", |(_, f)| f.trim_end_matches(')')),
    ));
    s
}

/// Paths of [`ModelEntry::place`] missing under `dir`.
pub fn missing_files(m: &ModelEntry, dir: &Path) -> Vec<&'static str> {
    m.place.iter().copied().filter(|p| !p.split('|').any(|alt| dir.join(alt).exists())).collect()
}

/// `cargo xtask models NAME [--from DIR] [--out DIR] [--int8]`.
///
/// # Errors
/// Unknown model, unreachable sources (the message says which files to place where),
/// missing files under `--from`, `--int8` for a model without it, failing export steps.
pub fn get(name: &str, from: Option<PathBuf>, out: Option<PathBuf>, int8: bool) -> Result<()> {
    let m = entry(name)?;
    if int8 && !m.int8 {
        bail!("--int8 is not supported for {name} (only for single-graph models: {})", int8_names());
    }
    let out = out.unwrap_or_else(|| factpico_runtime::default_models_dir().join(name));
    let from = match from {
        Some(dir) => dir,
        None => {
            let endpoint = hub_endpoint();
            let reasons = unreachable_sources(m, &endpoint, Duration::from_secs(5));
            if !reasons.is_empty() {
                bail!("{}", missing_message(m, &reasons, &out, &endpoint));
            }
            let staging = factpico_runtime::factpico_home().join("downloads").join(name);
            download(m, &staging)?;
            staging
        }
    };
    export_from(m, &from, &out, int8)?;
    eprintln!("models: {name} ready in {} (factpico score {})", out.display(), m.metric);
    Ok(())
}

fn int8_names() -> String {
    MODELS.iter().filter(|m| m.int8).map(|m| m.name).collect::<Vec<_>>().join(", ")
}

/// Downloads every source of `m` into `staging` (laid out like `--from DIR`).
fn download(m: &ModelEntry, staging: &Path) -> Result<()> {
    let py = export_python()?;
    std::fs::create_dir_all(staging)?;
    let st = staging.display().to_string();
    for src in m.sources {
        match src {
            Source::Hub { repo, files, into } => {
                let dest = staging.join(into).display().to_string();
                let mut args = vec!["hub", repo, "--dest", &dest, "--files"];
                args.extend(files.iter().copied());
                run_script(&py, "onnx/fetch.py", &args)?;
            }
            Source::Archive { url, root, into } => {
                let dest = staging.join(into).display().to_string();
                run_script(&py, "onnx/fetch.py", &["archive", url, "--root", root, "--dest", &dest])?;
            }
            Source::Drive { .. } => bail!("{}: Google Drive sources are placed by hand (--from DIR)", m.name),
        }
    }
    let missing = missing_files(m, staging);
    if !missing.is_empty() {
        bail!("{}: downloaded into {st}, but {} are missing", m.name, missing.join(", "));
    }
    Ok(())
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
        for p in m.place {
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
    let leaf = out.file_name().map_or_else(|| m.name.to_owned(), |n| n.to_string_lossy().into_owned());
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
        for step in m.steps {
            let args: Vec<String> = step[1..].iter().map(|a| substitute(a, &from, &partial, &work)).collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            run_script(&py, step[0], &args)?;
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
        for m in MODELS {
            assert!(names.insert(m.name), "duplicate {}", m.name);
            assert!(!m.place.is_empty() && !m.steps.is_empty() && !m.sources.is_empty(), "{}", m.name);
            for step in m.steps {
                assert!(root.join(step[0]).is_file(), "{}: {} does not exist", m.name, step[0]);
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
            for p in m.place {
                assert_ne!(origin_of(m, p, endpoint), "see onnx/README.md", "{}: no source for {p}", m.name);
            }
        }
    }

    /// Every model's file format is exported and checked by its replica (`cargo xtask
    /// replicas` runs `cargo xtask models NAME --from` on each entry a family lists).
    #[test]
    fn every_model_is_exported_by_its_replica() {
        for m in MODELS {
            let f = crate::replicas::FAMILIES.iter().find(|f| f.name == m.replica);
            let f = f.unwrap_or_else(|| panic!("{}: replica {:?} is not a family of cargo xtask replicas", m.name, m.replica));
            assert!(f.models.contains(&m.name), "{}: replica {} does not export it (exports {:?})", m.name, f.name, f.models);
        }
        for f in crate::replicas::FAMILIES {
            for name in f.models {
                assert!(MODELS.iter().any(|m| m.name == *name && m.replica == f.name), "replica {} exports {name}, whose entry names another replica", f.name);
            }
        }
    }

    #[test]
    fn onnx_readme_covers_every_model() {
        let readme = std::fs::read_to_string(repo_root().join("onnx/README.md")).unwrap();
        for m in MODELS {
            assert!(readme.contains(&format!("`{}`", m.name)), "onnx/README.md does not list {}", m.name);
            assert!(
                readme.contains(&format!("cargo xtask replicas --only {}", m.replica)),
                "onnx/README.md does not give the replica command of {}",
                m.name
            );
        }
    }

    #[test]
    fn list_names_every_model_with_its_command() {
        let l = list();
        for m in MODELS {
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
        for p in m.place {
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
