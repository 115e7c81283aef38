//! `factpico llm batch export | import`: the LLM metrics' missing requests as an OpenAI Batch
//! API input file (the file `vllm run-batch` reads), and the provider's output file read back
//! into the request cache, after which `factpico score` with the same options completes from
//! the cache (docs/llm.md, "Batch API and vLLM run-batch").

use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::input;

/// `factpico llm …`
#[derive(Debug, clap::Args)]
pub struct LlmArgs {
    #[command(subcommand)]
    cmd: LlmCmd,
}

impl LlmArgs {
    /// Whether `-q` was given.
    pub fn quiet(&self) -> bool {
        match &self.cmd {
            LlmCmd::Batch { what: BatchCmd::Export(a) } => a.quiet,
            LlmCmd::Batch { what: BatchCmd::Import(a) } => a.quiet,
        }
    }
}

#[derive(Debug, clap::Subcommand)]
enum LlmCmd {
    /// Batch files (OpenAI Batch API, `vllm run-batch`): export the requests missing from the
    /// cache, import the answers.
    Batch {
        #[command(subcommand)]
        what: BatchCmd,
    },
}

// Parsed once per process: the variants' size difference does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, clap::Subcommand)]
enum BatchCmd {
    /// Write the requests a `factpico score` run with the same options would send (those not
    /// answered in the request cache) as a Batch API input file: one JSON line per request,
    /// `{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}`.
    Export(ExportArgs),
    /// Read a Batch API output file into the request cache (answers matched to the exported
    /// requests by `custom_id`).
    Import(ImportArgs),
}

/// Arguments of `factpico llm batch export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// Input file, as for `factpico score` (JSONL, JSON array, CSV or TSV).
    pub input: PathBuf,
    /// The batch file to write (JSON lines; written atomically).
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub fields: input::InputArgs,
    /// LLM metrics whose requests to export: llm, llm_pipeline (comma-separated).
    #[arg(long, value_delimiter = ',', required = true)]
    pub metrics: Vec<String>,
    /// No progress lines.
    #[arg(short, long)]
    pub quiet: bool,
    /// The metric units' options, as for `factpico score` (the --llm-… flags).
    #[command(flatten)]
    pub options: factpico::ScorerOptions,
}

/// Arguments of `factpico llm batch import`.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The provider's batch output file (JSON lines `{"id", "custom_id", "response":
    /// {"status_code", "request_id", "body"}, "error"}`).
    pub results: PathBuf,
    /// The batch input file that was run (the export's -o): each answer is then checked to be
    /// the answer of the very request exported under its custom_id.
    #[arg(long, value_name = "FILE")]
    pub requests: Option<PathBuf>,
    /// The request cache the export used (default $FACTPICO_HOME/llm-cache.sqlite).
    #[arg(long)]
    pub llm_cache: Option<PathBuf>,
    /// No summary lines (failures are still printed).
    #[arg(short, long)]
    pub quiet: bool,
}

/// Runs `factpico llm …`; returns the exit status.
///
/// # Errors
/// Bad arguments, unreadable input, a server or cache error, a refused import.
pub fn run(args: &LlmArgs) -> Result<i32> {
    match &args.cmd {
        LlmCmd::Batch { what: BatchCmd::Export(a) } => imp::export(a),
        LlmCmd::Batch { what: BatchCmd::Import(a) } => imp::import(a),
    }
}

#[cfg(not(feature = "llm"))]
mod imp {
    use super::{bail, ExportArgs, ImportArgs, Result};

    pub(super) fn export(_: &ExportArgs) -> Result<i32> {
        bail!("this factpico was built without the LLM evaluators (cargo feature `llm`)")
    }

    pub(super) fn import(_: &ImportArgs) -> Result<i32> {
        bail!("this factpico was built without the LLM evaluators (cargo feature `llm`)")
    }
}

#[cfg(feature = "llm")]
mod imp {
    use std::collections::HashSet;
    use std::io::Write as _;

    use anyhow::Context as _;
    use factpico::units::llm::factpico_llm::{self as fl, batch, Evaluator, Protocol};
    use factpico::units::llm::{LLM, LLM_MINICHECK, LLM_PIPELINE};
    use factpico::Pair;

    use super::{bail, input, ExportArgs, ImportArgs, Result};
    use crate::term::path as shown;

    fn scorer_options(a: &ExportArgs) -> factpico::ScorerOptions {
        factpico::ScorerOptions { metrics: a.metrics.clone(), ..a.options.clone() }
    }

    /// A library error as the command line shows it (fields named by their flags).
    fn cli_err(e: impl std::fmt::Display) -> anyhow::Error {
        anyhow::anyhow!("{}", crate::flags::for_cli(&e.to_string()))
    }

    pub(super) fn export(a: &ExportArgs) -> Result<i32> {
        a.fields.check()?;
        let format = a.fields.format_of(&a.input)?;
        let options = scorer_options(a);
        let mut infos: Vec<&'static factpico::MetricInfo> = Vec::new();
        for name in &options.metrics {
            let info = factpico::metric_info(name).with_context(|| format!("unknown metric {name:?} (llm batch export: llm, llm_pipeline)"))?;
            if info.name == LLM_MINICHECK.name {
                bail!("--metrics llm_minicheck: `factpico llm batch export` writes the requests of llm and llm_pipeline only; llm_minicheck asks the server to count tokens (`/tokenize`) to chunk long documents, so run it online (`factpico score --metrics llm_minicheck`)");
            }
            if info.name != LLM.name && info.name != LLM_PIPELINE.name {
                bail!("--metrics {name}: not an LLM metric; `factpico llm batch export` writes the requests of llm and llm_pipeline only");
            }
            if !infos.iter().any(|i| i.name == info.name) {
                infos.push(info);
            }
        }
        if crate::output::is_stdout(&a.output) {
            bail!("-o -: the batch file must be a file (it is the file to upload or to give `vllm run-batch -i`)");
        }
        let Some(cache) = options.llm.runtime.cache_file() else {
            bail!("--llm-no-cache: a batch export needs the request cache (the answers are imported into it)");
        };
        let mut guard = factpico_io::PathGuard::new();
        if a.input != std::path::Path::new("-") {
            guard.input("the input", &a.input);
        }
        guard.database("the LLM request cache (--llm-cache)", &cache)?;
        guard.output("-o", &a.output)?;

        let mut inputs: Vec<&'static factpico::RowInput> = Vec::new();
        for i in infos.iter().flat_map(|m| m.inputs) {
            if !inputs.iter().any(|o| o.name == i.name) {
                inputs.push(i);
            }
        }
        let fields = a.fields.field_map(crate::score::extra_fields(&a.fields, &inputs)?);
        let (mut rows, mut unreadable) = (Vec::new(), Vec::new());
        for r in input::open(&a.input, format, &fields)? {
            match r {
                Ok(r) => rows.push(r),
                Err(e) if e.fatal => bail!("{} (row {}). Fix the input", e.message, e.row),
                Err(e) => unreadable.push(e),
            }
        }
        if let Some(e) = unreadable.first() {
            eprintln!(
                "warning: {} input records could not be read and are not exported (first: row {}: {})",
                unreadable.len(),
                e.row,
                crate::term::escape_inline(&e.message)
            );
        }
        let sep = options.llm.evidence_separator.clone().unwrap_or_else(|| fl::DEFAULT_EVIDENCE_SEPARATOR.to_owned());
        let pairs: Vec<Pair<'_>> = rows.iter().map(|r| Pair::new(&r.id, &r.source, &r.summary).with_extras(&r.extras)).collect();
        let spans: Vec<Option<Vec<String>>> = pairs
            .iter()
            .map(|p| match p.extra("evidence").map(|v| fl::evidence_spans(v, &sep)) {
                Some(Ok(s)) => s,
                Some(Err(e)) => {
                    eprintln!("warning: row {}: evidence field ignored: {}", crate::term::escape_inline(p.id), crate::term::escape_inline(&e));
                    None
                }
                None => None,
            })
            .collect();
        let llm_rows: Vec<fl::RowInput<'_>> =
            pairs.iter().zip(&spans).map(|(p, s)| fl::RowInput { source: p.source, summary: p.summary, evidence: s.as_deref() }).collect();

        let mut seen: HashSet<String> = HashSet::new();
        let mut lines = String::new();
        let mut exports: Vec<(Evaluator, Vec<batch::BatchRequest>)> = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        for info in &infos {
            let protocol = if info.name == LLM_PIPELINE.name { Protocol::Pipeline } else { Protocol::FullText };
            let ev = Evaluator::try_new(protocol, &options.llm).map_err(|e| cli_err(format!("{}: {e}", info.name)))?;
            let x = ev.batch_export(&llm_rows).map_err(cli_err)?;
            let mine: Vec<batch::BatchRequest> = x.requests.into_iter().filter(|r| seen.insert(r.custom_id.clone())).collect();
            for r in &mine {
                lines.push_str(&r.line());
                lines.push('\n');
            }
            notes.push(format!("{}: {} requests to send ({} answered in the cache)", info.name, mine.len(), x.cached));
            if x.rows_waiting > 0 {
                notes.push(format!(
                    "{}: the rating requests (stage 2) of {} rows quote their extraction answers (stage 1), which are not in the cache yet: import this file's results, then run this export again to write them",
                    info.name, x.rows_waiting
                ));
            }
            exports.push((ev, mine));
        }
        let total = seen.len();
        let mut f = factpico_io::AtomicFile::create(&a.output)?;
        f.write_all(lines.as_bytes())?;
        f.commit()?;
        // Recorded once the file is in place: the import accepts only what was exported.
        for (ev, reqs) in &exports {
            ev.record_exported(reqs).map_err(cli_err)?;
        }
        if !a.quiet {
            for n in &notes {
                eprintln!("{n}");
            }
            if total == 0 {
                eprintln!(
                    "wrote 0 requests to {}: every request of the run is answered in the cache; `factpico score` with the same options completes from it",
                    shown(&a.output)
                );
            } else {
                eprintln!(
                    "wrote {total} requests to {}; run them (`vllm run-batch -i FILE -o RESULTS --model M`, or OpenAI's Batch API), then `factpico llm batch import RESULTS --requests FILE --llm-cache {}`",
                    shown(&a.output),
                    shown(&cache)
                );
            }
        }
        Ok(0)
    }

    pub(super) fn import(a: &ImportArgs) -> Result<i32> {
        let cache_path = a.llm_cache.clone().unwrap_or_else(fl::default_cache_path);
        let mut guard = factpico_io::PathGuard::new();
        guard.input("the results file", &a.results);
        if let Some(r) = &a.requests {
            guard.input("the request file (--requests)", r);
        }
        guard.database("the LLM request cache (--llm-cache)", &cache_path)?;
        if !cache_path.exists() {
            bail!(
                "the request cache {} does not exist: import into the cache the export used (--llm-cache)",
                shown(&cache_path)
            );
        }
        let cache = fl::cache::Cache::open(&cache_path).map_err(cli_err)?;
        let r = batch::import(&cache, &a.results, a.requests.as_deref()).map_err(cli_err)?;
        for f in r.failed.iter().take(20) {
            eprintln!("warning: skipped {}", crate::term::escape_inline(f));
        }
        if r.failed.len() > 20 {
            eprintln!("warning: … and {} more lines skipped", r.failed.len() - 20);
        }
        let pending = cache.pending_len().map_err(cli_err)?;
        if !a.quiet || r.imported + r.already == 0 {
            eprintln!(
                "imported {} answers into {} ({} already there, {} lines skipped, of {} lines); {pending} exported requests still wait for an answer{}",
                r.imported,
                shown(&cache_path),
                r.already,
                r.failed.len(),
                r.lines,
                if r.failed.is_empty() { String::new() } else { " (export again to write the skipped ones)".to_owned() }
            );
        }
        if r.imported + r.already == 0 {
            eprintln!("error: nothing was imported");
            return Ok(3);
        }
        Ok(0)
    }
}
