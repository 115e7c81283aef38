//! `factpico score`: score a file of (abstract, summary) pairs.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use factpico::options::TextstatFamily;
use factpico::{Pair, Report, Scorer, ScorerOptions};

use crate::input::{self, DeriveId, FieldMap, Format, Record};
use crate::output::{self, AtomicJsonl};
use crate::summary::Summary;

/// What to do with a row that cannot be read or scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnError {
    /// Stop at the first bad row with an error naming it (the partial output is kept for `--resume`).
    Fail,
    /// Record the row as skipped in the output and the summary, and go on.
    Skip,
}

/// Arguments of `factpico score`.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// Input file: JSONL, JSON array, CSV or TSV (format from the extension, or --format);
    /// `-` reads standard input (needs --format).
    pub input: PathBuf,
    /// Output JSONL file (one row per input record, same order); `-` writes rows to standard
    /// output as they are scored (the summary table then goes to standard error).
    /// Default: <input stem>.scores.jsonl in the current directory.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Also write a CSV of id, system and every score column.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Also write the per-system summary table (Markdown) to this file.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// Input format (default: from the file extension).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// TSV: parse CSV-style double quotes (quoted fields may hold tabs and line breaks, `""` is
    /// a quote). Without it TSV fields are taken literally, quotes included.
    #[arg(long)]
    pub tsv_quotes: bool,
    /// Metrics to compute, comma-separated (see `factpico metrics`).
    #[arg(long, value_delimiter = ',', default_value = "rougeL,fkgl")]
    pub metrics: Vec<String>,
    /// Field holding the row id. When absent from the input, ids are derived
    /// (--id-from) or `row-<n>`.
    #[arg(long)]
    pub id_field: Option<String>,
    /// Field holding the abstract.
    #[arg(long, default_value = "source")]
    pub source_field: String,
    /// Field holding the plain-language summary.
    #[arg(long, default_value = "summary")]
    pub summary_field: String,
    /// Field holding the generating system (optional in the data).
    #[arg(long, default_value = "system")]
    pub system_field: String,
    /// Derive ids from sha256 of this field (instead of any id field of the data)
    /// (e.g. `--id-from source --id-prefix sh_ --id-hex 12` matches shaib2023's doc_id).
    #[arg(long, conflicts_with = "id_field")]
    pub id_from: Option<String>,
    /// Prefix of derived ids.
    #[arg(long, default_value = "", requires = "id_from")]
    pub id_prefix: String,
    /// Hex digits of sha256 kept in derived ids (1-64).
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u8).range(1..=64), requires = "id_from")]
    pub id_hex: u8,
    /// Porter stemming for ROUGE (rouge-score's use_stemmer).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub rouge_stemmer: bool,
    /// textstat version family for FKGL/FRE.
    #[arg(long, value_enum, default_value = "textstat073")]
    pub fk_family: FkFamily,
    /// Do not record Punkt sentence spans in the rows.
    #[arg(long)]
    pub no_sentences: bool,
    /// What to do with a bad row.
    #[arg(long, value_enum, default_value = "fail")]
    pub on_error: OnError,
    /// Continue an interrupted run from <output>.partial.
    #[arg(long)]
    pub resume: bool,
    /// Rows scored per block (memory bound; each block is scored in parallel, then written).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..))]
    pub block_size: u64,
    /// Rayon worker threads (1-1024; default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub jobs: Option<u16>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub models: ModelArgs,
}

/// Options of the model-based metrics.
#[derive(Debug, clap::Args)]
pub struct ModelArgs {
    /// AlignScore (or NLI) model directory.
    #[arg(long)]
    pub alignscore_model: Option<PathBuf>,
    /// AlignScore mode: nli_sp (default), bin_sp, reg_sp, nli, bin, reg.
    #[arg(long)]
    pub alignscore_mode: Option<String>,
    /// DAE: an exported DAE-2021 ELECTRA arc model directory (onnx/export_dae.py).
    #[arg(long)]
    pub dae_model: Option<PathBuf>,
    /// DAE: an NLI cross-encoder directory for the zero-shot DAE-style variant.
    #[arg(long)]
    pub dae_nli_model: Option<PathBuf>,
    /// DAE: pre-parsed dependency arcs keyed by row id (.conllu CoNLL-U, or .jsonl JSON arcs / CoreNLP JSON).
    #[arg(long)]
    pub arcs: Option<PathBuf>,
    /// DAE: arc source: spacy (sidecar; default without --arcs), conllu or json (from --arcs).
    #[arg(long)]
    pub parser: Option<String>,
    /// DAE: per-sentence (default: all sentences, ≤20 arcs each) or single-parse (reference: one parse, first 20 arcs).
    #[arg(long)]
    pub dae_multi_sentence: Option<String>,
    /// QuestEval: T5 question-generation model directory.
    #[arg(long)]
    pub questeval_qg_model: Option<PathBuf>,
    /// QuestEval: T5 QA model directory (with an "unanswerable" token).
    #[arg(long)]
    pub questeval_qa_model: Option<PathBuf>,
    /// QuestEval: BERTScore token-embedding model directory (onnx/export_embedding.py; reference:
    /// bert-base-multilingual-cased, layer 9). Adds the `questeval*` columns (all three
    /// components, as published); without it they are null and only `questeval_f1*` are computed.
    #[arg(long)]
    pub bertscore_model: Option<PathBuf>,
    /// QAFactEval: BART question-generation model directory.
    #[arg(long)]
    pub qafacteval_qg_model: Option<PathBuf>,
    /// QAFactEval: LERC-QuIP regressor directory (onnx/export_hf.py on quip-512-mocha). Adds
    /// `qafacteval_lerc` (raw, about 0-5) and `qafacteval_lerc_norm` ([0, 1]); null without it.
    #[arg(long)]
    pub lerc_model: Option<PathBuf>,
    /// QAFactEval and cloze: extractive QA model directory.
    #[arg(long)]
    pub extractive_qa_model: Option<PathBuf>,
    /// QA metrics: answer selection: auto (spaCy sidecar when installed, else rules), spacy, rules.
    #[arg(long)]
    pub answers: Option<String>,
    /// Print each row's per-question (QA metrics) and per-arc (DAE) detail to standard output
    /// (to standard error with `-o -`, where standard output carries the rows).
    #[arg(long)]
    pub explain: bool,
    /// AlignScore: whitespace words per context chunk (default 350, the reference's). Lower it
    /// for shorter models (e.g. the shared 256-token MiniLM NLI asset); truncated chunks are
    /// counted in the row's warnings.
    #[arg(long)]
    pub alignscore_words_per_chunk: Option<usize>,
    /// AlignScore / NLI models: maximum pair length in tokens (default: the model manifest's,
    /// 512 for AlignScore; pass 256 for the shared MiniLM NLI asset, which was trained at 256
    /// although its config allows 512).
    #[arg(long)]
    pub max_length: Option<usize>,
    /// Pairs per ONNX batch.
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// ONNX Runtime intra-op threads.
    #[arg(long)]
    pub threads: Option<usize>,
}

/// textstat version family (see factpico-readability).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FkFamily {
    /// textstat 0.7.3: pyphen syllables, legacy rounding (FactPICO-era default).
    Textstat073,
    /// textstat 0.7.8: CMUdict first pronunciation, pyphen fallback, no rounding.
    Textstat078,
}

impl ScoreArgs {
    fn scorer_options(&self) -> ScorerOptions {
        let mut o = ScorerOptions { metrics: self.metrics.clone(), ..ScorerOptions::default() };
        o.rouge.use_stemmer = self.rouge_stemmer;
        o.readability.family = match self.fk_family {
            FkFamily::Textstat073 => TextstatFamily::Textstat073,
            FkFamily::Textstat078 => TextstatFamily::Textstat078Cmudict,
        };
        o.sentence_spans = !self.no_sentences;
        o.models.alignscore_model = self.models.alignscore_model.clone();
        o.models.alignscore_mode = self.models.alignscore_mode.clone();
        o.models.dae_model = self.models.dae_model.clone();
        o.models.dae_nli_model = self.models.dae_nli_model.clone();
        o.models.dae_arcs = self.models.arcs.clone();
        o.models.dae_parser = self.models.parser.clone();
        o.models.dae_multi_sentence = self.models.dae_multi_sentence.clone();
        o.models.questeval_qg_model = self.models.questeval_qg_model.clone();
        o.models.questeval_qa_model = self.models.questeval_qa_model.clone();
        o.models.bertscore_model = self.models.bertscore_model.clone();
        o.models.qafacteval_qg_model = self.models.qafacteval_qg_model.clone();
        o.models.lerc_model = self.models.lerc_model.clone();
        o.models.extractive_qa_model = self.models.extractive_qa_model.clone();
        o.models.qa_answers = self.models.answers.clone();
        o.models.max_length = self.models.max_length;
        o.models.alignscore_words_per_chunk = self.models.alignscore_words_per_chunk;
        o.models.batch_size = self.models.batch_size;
        o.models.threads = self.models.threads;
        o
    }

    fn fields(&self) -> FieldMap {
        FieldMap {
            id: self.id_field.clone().unwrap_or_else(|| "id".into()),
            id_explicit: self.id_field.is_some(),
            source: self.source_field.clone(),
            summary: self.summary_field.clone(),
            system: self.system_field.clone(),
            derive_id: self.id_from.as_ref().map(|f| DeriveId {
                field: f.clone(),
                prefix: self.id_prefix.clone(),
                hex_len: usize::from(self.id_hex),
            }),
            tsv_quotes: self.tsv_quotes,
        }
    }
}

/// Default output: `<input stem>.scores.jsonl` in the current directory (never beside the
/// input, which may be read-only or shared data).
fn default_output(input: &Path) -> PathBuf {
    let stem = match input.file_stem() {
        Some(s) if input != Path::new("-") => s.to_string_lossy().into_owned(),
        _ => "stdin".into(),
    };
    PathBuf::from(format!("{stem}.scores.jsonl"))
}

fn skipped_row(e: &input::RowError, provenance: &serde_json::Value) -> Report {
    Report {
        row: Some(e.row),
        id: e.id.clone(),
        skipped: Some(e.message.clone()),
        provenance: provenance.clone(),
        ..Report::default()
    }
}

/// First 16 hex digits of sha256(source ‖ 0x00 ‖ summary).
fn input_sha256(source: &str, summary: &str) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(source.as_bytes());
    h.update([0u8]);
    h.update(summary.as_bytes());
    hex::encode(&h.finalize()[..8])
}

/// Runs `factpico score`. Returns the process exit code.
///
/// # Errors
/// Bad arguments, unreadable input, a bad row with `--on-error fail`, I/O failure.
pub fn run(args: &ScoreArgs) -> Result<i32> {
    if let Some(j) = args.jobs {
        rayon::ThreadPoolBuilder::new().num_threads(usize::from(j)).build_global().ok();
    }
    let format = match args.format.or_else(|| Format::from_path(&args.input)) {
        Some(f) => f,
        None => bail!(
            "cannot tell the format of {} from its extension; pass --format jsonl|json|csv|tsv",
            args.input.display()
        ),
    };
    let to_stdout = args.output.as_deref() == Some(Path::new("-"));
    let out_path = (!to_stdout).then(|| args.output.clone().unwrap_or_else(|| default_output(&args.input)));
    // Everything the run reads is protected from its outputs: the input, and every file or
    // directory the options name (model directories, --arcs, ...).
    let options = args.scorer_options();
    let named = output::paths_in_options(&serde_json::to_value(&options)?);
    let mut inputs = vec![("the input".to_owned(), args.input.clone())];
    for (key, path) in &named {
        inputs.push((format!("an input of the run (option {key})"), path.clone()));
    }
    output::check_paths(
        &inputs,
        &[("-o", out_path.as_deref()), ("--csv", args.csv.as_deref()), ("--summary", args.summary.as_deref())],
    )?;
    if to_stdout && args.resume {
        bail!("--resume needs an output file (-o FILE), not standard output");
    }
    if !args.quiet {
        for w in unused_model_flags(args) {
            eprintln!("warning: {w}");
        }
    }
    let scorer = Scorer::try_new(options)?;
    let fields = args.fields();
    // Output schema 2: every row records how the input was read (provenance.input).
    let input_provenance = input::input_provenance(format, &fields, &named)?;
    let mut provenance = scorer.provenance().clone();
    if let Some(p) = provenance.as_object_mut() {
        p.insert("input".into(), input_provenance.clone());
    }
    // What a resumed run must share with the rows already written: the options, per metric
    // its settings and model hashes (a model re-exported in place is a different model), and
    // the input mapping and side-input contents.
    let fingerprint = output::resume_fingerprint(&provenance);
    let mut records = input::open(&args.input, format, &fields)?;

    let mut summary = Summary::new(primary_columns(&scorer, &args.models));
    let mut csv = match &args.csv {
        Some(p) => Some(output::CsvOut::new(p, scorer.columns())?),
        None => None,
    };
    let mut ids = std::collections::HashSet::new();
    let mut duplicate_ids: (u64, Option<String>) = (0, None);
    let mut count = |r: &Report, csv: &mut Option<output::CsvOut>, summary: &mut Summary| -> Result<()> {
        if let Some(id) = &r.id {
            if !ids.insert(id.clone()) {
                duplicate_ids.0 += 1;
                duplicate_ids.1.get_or_insert_with(|| id.clone());
            }
        }
        summary.add(r);
        if let Some(c) = csv.as_mut() {
            c.write(r)?;
        }
        Ok(())
    };

    let (mut writer, skip) = match (&out_path, args.resume) {
        (Some(out), true) => {
            // Every row already written must be the scoring of the same input record.
            let mut done: Vec<(Option<String>, Option<String>, Option<String>)> = Vec::new();
            let (w, r) = AtomicJsonl::resume(out, &fingerprint, |rep| {
                done.push((rep.id.clone(), rep.input_sha256.clone(), rep.system.clone()));
                count(rep, &mut csv, &mut summary)
            })?;
            for (i, (id, hash, system)) in done.iter().enumerate() {
                let n = i + 1;
                match records.next() {
                    None => bail!("--resume: the partial output has more rows ({}) than the input; wrong input file?", done.len()),
                    Some(Ok(rec)) => {
                        if id.as_deref() != Some(rec.id.as_str()) || hash.as_deref() != Some(input_sha256(&rec.source, &rec.summary).as_str()) {
                            bail!(
                                "--resume: input row {n} (id {}) is not the row already written as row {n} (id {}): a different input file, row order or field mapping; rerun without --resume",
                                rec.id,
                                id.as_deref().unwrap_or("none")
                            );
                        }
                        if hash.is_some() && rec.system != *system {
                            let show = |s: &Option<String>| s.as_deref().map_or_else(|| "none".to_owned(), |s| format!("`{s}`"));
                            bail!(
                                "--resume: input row {n} (id {}) has system {} but was written with system {}: the system values or --system-field changed; rerun without --resume",
                                rec.id,
                                show(&rec.system),
                                show(system)
                            );
                        }
                    }
                    Some(Err(e)) => {
                        if hash.is_some() {
                            bail!("--resume: input row {n} cannot be read now ({}) but was scored before; wrong input file?", e.message);
                        }
                    }
                }
            }
            if !args.quiet {
                eprintln!(
                    "resuming: {} rows already in {} ({} bytes of an incomplete row dropped)",
                    r.rows_done,
                    output::partial_path(out).display(),
                    r.dropped_bytes
                );
            }
            (w, r.rows_done)
        }
        (Some(out), false) => {
            let (w, replaced) = AtomicJsonl::create(out)?;
            if let (Some(bytes), false) = (replaced, args.quiet) {
                eprintln!(
                    "warning: replaced the partial output of an interrupted run ({bytes} bytes in {}); --resume continues such a run instead",
                    output::partial_path(out).display()
                );
            }
            (w, 0)
        }
        (None, _) => (AtomicJsonl::stdout(), 0),
    };

    let total = match format {
        Format::Jsonl if std::fs::metadata(&args.input).is_ok_and(|m| m.is_file()) => input::count_jsonl_records(&args.input),
        _ => None,
    };
    let progress = progress_bar(total, args.quiet);
    progress.set_position(skip);

    let block = usize::try_from(args.block_size).unwrap_or(256);
    let keep_note = |rows: u64| match &out_path {
        Some(_) if rows == 0 => "; no row was scored before it".to_owned(),
        Some(out) => {
            format!("; the {rows} rows before it are kept in {} (fix the input, then use --resume)", output::partial_path(out).display())
        }
        None => String::new(),
    };
    let mut first_skipped: Option<String> = None;
    loop {
        let mut recs: Vec<Record> = records.by_ref().take(block).collect();
        if recs.is_empty() {
            break;
        }
        // --on-error fail: the rows before the first unreadable one are still scored and kept.
        // An error after which the rest of the input cannot be read stops the run whatever
        // --on-error says: a run that could not read all its input must not look complete.
        let mut unreadable = None;
        let stops = |r: &Record| r.as_ref().err().is_some_and(|e| e.fatal || args.on_error == OnError::Fail);
        if let Some(i) = recs.iter().position(stops) {
            unreadable = recs.split_off(i).into_iter().next().and_then(Result::err);
        }
        let pairs: Vec<Pair<'_>> = recs
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .map(|r| Pair { id: &r.id, source: &r.source, summary: &r.summary })
            .collect();
        let mut scored = scorer.score_pairs(&pairs).into_iter();
        for rec in &recs {
            let report = match rec {
                Ok(row) => {
                    let mut rep = scored.next().unwrap_or_default();
                    rep.row = Some(row.row);
                    rep.id = Some(row.id.clone());
                    rep.system = row.system.clone();
                    rep.input_sha256 = Some(input_sha256(&row.source, &row.summary));
                    if let Some(p) = rep.provenance.as_object_mut() {
                        p.insert("input".into(), input_provenance.clone());
                    }
                    if args.on_error == OnError::Fail {
                        if let Some(err) = rep.errors.first() {
                            writer.write(&rep)?;
                            writer.flush()?;
                            progress.abandon();
                            bail!("row {} (id {}): {}: {}{}", row.row, row.id, err.metric, err.message, keep_note(summary.rows()));
                        }
                    }
                    rep
                }
                Err(e) => {
                    first_skipped.get_or_insert_with(|| e.message.clone());
                    skipped_row(e, &provenance)
                }
            };
            if args.models.explain {
                progress.suspend(|| explain(&report, to_stdout));
            }
            writer.write(&report)?;
            count(&report, &mut csv, &mut summary)?;
        }
        writer.flush()?;
        progress.inc(recs.len() as u64);
        if let Some(e) = unreadable {
            progress.abandon();
            let advice = if e.fatal { "Fix the input" } else { "Fix the input or pass --on-error skip" };
            bail!("{} (row {}). {advice}{}", e.message, e.row, keep_note(summary.rows()));
        }
    }
    progress.finish_and_clear();
    let out = writer.finish()?;
    if let Some(c) = csv {
        c.finish()?;
    }
    let table = summary.to_markdown();
    if let Some(p) = &args.summary {
        output::write_atomic(p, table.as_bytes())?;
    }
    if !args.quiet {
        let (rows, skipped) = (summary.rows(), summary.skipped());
        match &out {
            Some(out) => eprintln!("wrote {rows} rows ({skipped} skipped) to {}", out.display()),
            None => eprintln!("wrote {rows} rows ({skipped} skipped) to standard output"),
        }
        if rows == 0 {
            eprintln!("warning: the input had no records");
        }
    }
    if summary.skipped() > 0 {
        // Visible even with -q: rows of the input are missing from the scores.
        eprintln!(
            "warning: {} input records could not be read and were skipped (recorded as skipped rows){}",
            summary.skipped(),
            first_skipped.map(|m| format!("; first: {m}")).unwrap_or_default()
        );
    }
    if duplicate_ids.0 > 0 {
        eprintln!(
            "warning: {} rows repeat an id seen before (first: {}); ids should be unique to join with ratings or diff",
            duplicate_ids.0,
            duplicate_ids.1.unwrap_or_default()
        );
    }
    if to_stdout {
        eprintln!("{table}");
    } else {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{table}")
            .and_then(|()| stdout.flush())
            .context("cannot write the per-system table to standard output (the rows were written)")?;
    }
    Ok(0)
}

/// Prints a row's per-question (QA metrics) and per-arc (DAE) detail to stdout, or to stderr
/// when stdout carries the rows (`-o -`).
fn explain(r: &Report, to_stderr: bool) {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "== row {} id {}{}",
        r.row.unwrap_or(0),
        r.id.as_deref().unwrap_or("?"),
        r.system.as_deref().map(|x| format!(" ({x})")).unwrap_or_default()
    );
    if let Some(reason) = &r.skipped {
        let _ = writeln!(s, "   skipped: {reason}");
    }
    let num = |v: &serde_json::Value| v.as_f64().map_or_else(|| "–".to_owned(), |x| format!("{x:.3}"));
    for (metric, d) in &r.details {
        if let Some(qs) = d.get("questions").and_then(|q| q.as_array()) {
            let score = r.scores.iter().filter(|(k, _)| k.starts_with(metric.as_str())).map(|(k, v)| {
                format!("{k}={}", v.map_or_else(|| "null".to_owned(), |x| format!("{x:.4}")))
            });
            let _ = writeln!(s, "-- {metric}: {} ({} questions)", score.collect::<Vec<_>>().join(" "), qs.len());
            for q in qs {
                let filtered = if q.get("consistent") == Some(&serde_json::Value::Bool(false)) { " [filtered]" } else { "" };
                // The optional components, when their models ran.
                let mut extra = String::new();
                if let Some(b) = q.get("bertscore").filter(|v| !v.is_null()) {
                    extra.push_str(&format!(" | BERTScore {}", num(b)));
                }
                if let Some(l) = q.get("lerc_quip").filter(|v| !v.is_null()) {
                    extra.push_str(&format!(" | LERC-QuIP {}", num(l)));
                }
                let _ = writeln!(
                    s,
                    "   [{}] Q: {} | answer: {} | other side: {} | answerability {} | F1 {}{extra}{filtered}",
                    q["direction"].as_str().unwrap_or("?"),
                    q["question"].as_str().unwrap_or(""),
                    q["answer"].as_str().unwrap_or(""),
                    q["predicted"].as_str().unwrap_or(""),
                    num(&q["answerability"]),
                    num(&q["f1"]),
                );
            }
        }
        if let Some(arcs) = d.get("arcs").and_then(|a| a.as_array()) {
            let _ = writeln!(s, "-- {metric}: dae={} ({} arcs; lowest first)", num(&d["min"]), arcs.len());
            let mut sorted: Vec<&serde_json::Value> = arcs.iter().collect();
            sorted.sort_by(|a, b| {
                a["probability"].as_f64().unwrap_or(0.0).total_cmp(&b["probability"].as_f64().unwrap_or(0.0))
            });
            for a in sorted {
                let _ = writeln!(
                    s,
                    "   {}({}, {}) P(entailed) {}",
                    a["relation"].as_str().unwrap_or("?"),
                    a["head"].as_str().unwrap_or(""),
                    a["child"].as_str().unwrap_or(""),
                    num(&a["probability"])
                );
            }
        }
    }
    for (col, reason) in &r.nulls {
        let _ = writeln!(s, "   {col}: null ({reason})");
    }
    if to_stderr {
        eprint!("{s}");
    } else {
        print!("{s}");
    }
}

/// Model flags given for metrics that are not selected: they do nothing (but are recorded in
/// the provenance, so a `--resume` must repeat them), which is usually a forgotten `--metrics`.
fn unused_model_flags(args: &ScoreArgs) -> Vec<String> {
    let m = &args.models;
    let selected = |name: &str| args.metrics.iter().any(|x| x.trim() == name);
    let flags: [(&str, bool, &[&str]); 14] = [
        ("--alignscore-model", m.alignscore_model.is_some(), &["alignscore"]),
        ("--alignscore-mode", m.alignscore_mode.is_some(), &["alignscore"]),
        ("--alignscore-words-per-chunk", m.alignscore_words_per_chunk.is_some(), &["alignscore"]),
        ("--dae-model", m.dae_model.is_some(), &["dae"]),
        ("--dae-nli-model", m.dae_nli_model.is_some(), &["dae"]),
        ("--arcs", m.arcs.is_some(), &["dae"]),
        ("--parser", m.parser.is_some(), &["dae"]),
        ("--dae-multi-sentence", m.dae_multi_sentence.is_some(), &["dae"]),
        ("--questeval-qg-model", m.questeval_qg_model.is_some(), &["questeval"]),
        ("--questeval-qa-model", m.questeval_qa_model.is_some(), &["questeval"]),
        ("--bertscore-model", m.bertscore_model.is_some(), &["questeval"]),
        ("--qafacteval-qg-model", m.qafacteval_qg_model.is_some(), &["qafacteval"]),
        ("--lerc-model", m.lerc_model.is_some(), &["qafacteval"]),
        ("--extractive-qa-model", m.extractive_qa_model.is_some(), &["qafacteval", "cloze"]),
    ];
    flags
        .iter()
        .filter(|(_, given, used_by)| *given && !used_by.iter().any(|u| selected(u)))
        .map(|(flag, _, used_by)| {
            format!("{flag} is ignored: it is used by --metrics {} (selected: {})", used_by.join(" or "), args.metrics.join(","))
        })
        .collect()
}

/// The per-system table's columns: each metric's primary column, plus QuestEval's published
/// composition (`questeval`) next to `questeval_f1` when a BERTScore model makes it non-null.
fn primary_columns(scorer: &Scorer, models: &ModelArgs) -> Vec<String> {
    let mut cols = Vec::new();
    for c in scorer.metrics().flat_map(|m| m.info().columns.iter().filter(|c| c.primary)) {
        if c.name == "questeval_f1" && models.bertscore_model.is_some() {
            cols.push("questeval".to_owned());
        }
        cols.push(c.name.to_owned());
    }
    cols
}

fn progress_bar(total: Option<u64>, quiet: bool) -> indicatif::ProgressBar {
    if quiet {
        return indicatif::ProgressBar::hidden();
    }
    let pb = match total {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    pb.set_draw_target(indicatif::ProgressDrawTarget::stderr_with_hz(4));
    let style = match total {
        Some(_) => "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} rows ({per_sec}, eta {eta})",
        None => "{spinner} [{elapsed_precise}] {pos} rows ({per_sec})",
    };
    if let Ok(s) = indicatif::ProgressStyle::with_template(style) {
        pb.set_style(s);
    }
    pb
}
