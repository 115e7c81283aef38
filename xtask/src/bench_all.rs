//! `cargo xtask bench all [--pairs N] [--only NAME[,NAME]] [--fresh] [--redo NAME] [--debug]`:
//! every benchmark section one after the other, **resumable per section**, then the
//! BENCHMARKS.md tables from the stored results.
//!
//! * Each section that finishes is stored as JSON in `target/bench-all/<section>-p<N>.json`
//!   (`$FACTPICO_BENCH_ALL_DIR` overrides the directory; `:` in a section name becomes `_`),
//!   keyed by section and pair count. The next call skips a stored section; `--redo NAME`
//!   reruns one (repeatable, comma-separated), `--fresh` reruns them all.
//! * A section whose prerequisites are missing (a reference venv, which would download several
//!   GB; a replica's disk; `../shared`) is **skipped with the reason**, stored as skipped, and
//!   tried again on the next call (a skip never counts as done). A section that fails is
//!   reported, not stored, and the run goes on with the next one; the command fails at the end.
//! * At the end the table of every stored result with this pair count is written between the
//!   markers [`BEGIN`] and [`END`] of BENCHMARKS.md (appended with its heading when the markers
//!   are absent); the text around them is left as it is.
//!
//! Per row: pairs, wall and CPU seconds of both sides, the ratio reference / factpico (CPU time
//! first: it is the figure the load of a shared machine distorts least), max |Δ| of the scores,
//! peak RSS and threads of both sides, and the 1-minute load average before → after.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::python::repo_root;

/// Start marker of the generated block in BENCHMARKS.md.
pub const BEGIN: &str = "<!-- bench-all:begin -->";
/// End marker of the generated block in BENCHMARKS.md.
pub const END: &str = "<!-- bench-all:end -->";

/// Every section, in the order `bench all` runs them (cheap ones first).
pub const SECTIONS: &[&str] = &[
    "model-free",
    "llm",
    "summac",
    "alignscore",
    "python",
    "minicheck:roberta-large",
    "minicheck:deberta-v3-large",
    "minicheck:flan-t5-large",
    "dae",
    "qa",
    "int8",
];

/// One side of a comparison (the Python reference or factpico). `None` = not measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// What ran (e.g. "rouge-score 0.1.2 + textstat 0.7.3", "factpico CLI, release").
    pub label: String,
    /// Wall-clock seconds.
    pub wall_s: Option<f64>,
    /// CPU seconds (user + system, all threads).
    pub cpu_s: Option<f64>,
    /// Peak resident set size, MB (VmHWM / ru_maxrss).
    pub peak_rss_mb: Option<f64>,
    /// Threads the side was given (intra-op threads, jobs, torch threads).
    pub threads: Option<usize>,
}

/// One row of a section: a reference (absent for factpico-only sections) against factpico.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Row label (the model or the variant).
    pub label: String,
    /// Pairs actually scored (may be fewer than asked, e.g. when the data has fewer).
    pub pairs: usize,
    /// The Python reference; `None` for factpico-only measurements.
    pub reference: Option<Side>,
    /// factpico.
    pub factpico: Side,
    /// max |Δ| between the two sides' scores.
    pub max_abs_delta: Option<f64>,
    /// Anything the row's numbers need to be read with.
    pub note: Option<String>,
}

impl Comparison {
    /// reference / factpico CPU seconds.
    pub fn cpu_ratio(&self) -> Option<f64> {
        ratio(self.reference.as_ref()?.cpu_s?, self.factpico.cpu_s?)
    }
    /// reference / factpico wall seconds.
    pub fn wall_ratio(&self) -> Option<f64> {
        ratio(self.reference.as_ref()?.wall_s?, self.factpico.wall_s?)
    }
}

fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0 && a.is_finite() && b.is_finite()).then(|| a / b)
}

/// Measured or skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Finished: skipped on the next call.
    Measured,
    /// Prerequisites missing: tried again on the next call.
    Skipped,
}

/// What one section left behind (the stored JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SectionResult {
    /// Section name (see [`SECTIONS`]).
    pub section: String,
    /// Pair count asked for (the key, with the section).
    pub pairs: usize,
    /// Measured or skipped.
    pub status: Status,
    /// Why it was skipped.
    pub reason: Option<String>,
    /// The rows.
    pub comparisons: Vec<Comparison>,
    /// 1/5/15-minute load averages before the section.
    pub load_before: Option<[f64; 3]>,
    /// 1/5/15-minute load averages after the section.
    pub load_after: Option<[f64; 3]>,
    /// Unix time the section finished.
    pub finished_unix: u64,
    /// Seconds the whole section took (builds and set-up included).
    pub section_seconds: f64,
    /// Build of the factpico side ("release" unless `--debug`, which some sections honour).
    pub build: String,
}

/// A transformer encoder's shape, for the FLOP profiles of the ratios under 3x (fp32, forward
/// only): what each side's time is measured against. One core's fp32 GEMM rate on this machine
/// is what `onnx/bf16_check.py` measures (BENCHMARKS.md, bf16).
#[derive(Debug, Clone, Copy)]
pub struct EncoderShape {
    /// Layers.
    pub layers: f64,
    /// Hidden size.
    pub d: f64,
    /// Feed-forward weight matrices per layer (2; 3 for T5's gated GELU).
    pub ffn_matrices: f64,
    /// Feed-forward width.
    pub d_ff: f64,
}

impl EncoderShape {
    /// Linear-layer FLOPs per token, `2 L (4 d² + k d d_ff)` (Q, K, V, O and the feed-forward).
    pub fn per_token(&self) -> f64 {
        2.0 * self.layers * (4.0 * self.d * self.d + self.ffn_matrices * self.d * self.d_ff)
    }
    /// Attention FLOPs (QKᵀ and AV) per token per token of sequence length: a sequence of
    /// length l costs `per_len_sq() * l²`, `4 L d l²`.
    pub fn per_len_sq(&self) -> f64 {
        4.0 * self.layers * self.d
    }
}

/// The load averages now.
pub fn load_avg() -> Option<[f64; 3]> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = s.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// Where the results live.
#[derive(Debug, Clone)]
pub struct Store {
    /// The directory.
    pub dir: PathBuf,
}

impl Store {
    /// `$FACTPICO_BENCH_ALL_DIR`, else `<target>/bench-all`.
    pub fn default_dir() -> PathBuf {
        if let Some(d) = std::env::var_os("FACTPICO_BENCH_ALL_DIR") {
            return PathBuf::from(d);
        }
        let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo_root().join("target"), PathBuf::from);
        target.join("bench-all")
    }

    /// The file of (section, pairs).
    pub fn path(&self, section: &str, pairs: usize) -> PathBuf {
        self.dir.join(format!("{}-p{pairs}.json", section.replace([':', '/'], "_")))
    }

    /// The stored result, if any (an unreadable file counts as none, with a warning).
    pub fn load(&self, section: &str, pairs: usize) -> Option<SectionResult> {
        let p = self.path(section, pairs);
        let text = std::fs::read_to_string(&p).ok()?;
        match serde_json::from_str(&text) {
            Ok(r) => Some(r),
            Err(e) => {
                eprintln!("xtask: ignoring unreadable {}: {e}", p.display());
                None
            }
        }
    }

    /// Stores a result (written to a temporary file, then renamed: never half a file).
    ///
    /// # Errors
    /// I/O.
    pub fn save(&self, r: &SectionResult) -> Result<()> {
        std::fs::create_dir_all(&self.dir).with_context(|| format!("creating {}", self.dir.display()))?;
        let p = self.path(&r.section, r.pairs);
        let tmp = p.with_extension("json.partial");
        std::fs::write(&tmp, serde_json::to_string_pretty(r)?)?;
        std::fs::rename(&tmp, &p).with_context(|| format!("writing {}", p.display()))
    }

    /// Every stored result for `pairs`, in [`SECTIONS`] order (unknown sections last, by name).
    pub fn all(&self, pairs: usize) -> Vec<SectionResult> {
        let mut out: Vec<SectionResult> = SECTIONS.iter().filter_map(|s| self.load(s, pairs)).collect();
        let mut extra: BTreeMap<String, SectionResult> = BTreeMap::new();
        if let Ok(rd) = std::fs::read_dir(&self.dir) {
            for e in rd.flatten() {
                let Ok(text) = std::fs::read_to_string(e.path()) else { continue };
                if let Ok(r) = serde_json::from_str::<SectionResult>(&text) {
                    if r.pairs == pairs && !SECTIONS.contains(&r.section.as_str()) {
                        extra.insert(r.section.clone(), r);
                    }
                }
            }
        }
        out.extend(extra.into_values());
        out
    }
}

/// What one call does.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Pairs per section.
    pub pairs: usize,
    /// Sections to consider (empty: all of [`SECTIONS`]).
    pub only: Vec<String>,
    /// Rerun every section.
    pub fresh: bool,
    /// Rerun these sections.
    pub redo: Vec<String>,
    /// Build the factpico side in the dev profile where a section supports it.
    pub debug: bool,
}

/// Outcome of running one section's body.
#[derive(Debug)]
pub enum Outcome {
    /// The rows.
    Measured(Vec<Comparison>),
    /// Not run: the reason.
    Skipped(String),
}

/// What happened to each section in a call (for the summary and the tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Done {
    /// Already stored: not rerun.
    Stored,
    /// Run now and stored.
    Measured,
    /// Skipped now (reason).
    Skipped(String),
    /// Failed now (error).
    Failed(String),
}

fn split_names(v: &[String]) -> Vec<String> {
    v.iter().flat_map(|s| s.split(',')).map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

/// The sections a call considers, checked against [`SECTIONS`].
///
/// # Errors
/// An unknown name in `--only` or `--redo`.
pub fn selected(opts: &Options) -> Result<Vec<String>> {
    let only = split_names(&opts.only);
    for n in only.iter().chain(&split_names(&opts.redo)) {
        if !SECTIONS.contains(&n.as_str()) {
            bail!("unknown section {n:?} (known: {})", SECTIONS.join(", "));
        }
    }
    Ok(if only.is_empty() { SECTIONS.iter().map(|s| (*s).to_owned()).collect() } else { only })
}

/// Runs the selected sections through `body`, skipping stored ones, storing each as it ends.
///
/// # Errors
/// Unknown section names, or a result that cannot be stored.
pub fn run_sections(
    opts: &Options,
    store: &Store,
    mut body: impl FnMut(&str, usize) -> Result<Outcome>,
) -> Result<Vec<(String, Done)>> {
    let redo = split_names(&opts.redo);
    let mut report = Vec::new();
    for section in selected(opts)? {
        let rerun = opts.fresh || redo.contains(&section);
        if !rerun {
            if let Some(r) = store.load(&section, opts.pairs) {
                if r.status == Status::Measured {
                    eprintln!("xtask: bench all: {section} (pairs {}) already stored, skipped (--redo {section} reruns it)", opts.pairs);
                    report.push((section, Done::Stored));
                    continue;
                }
            }
        }
        eprintln!("xtask: bench all: {section} (pairs {})", opts.pairs);
        let load_before = load_avg();
        let t = std::time::Instant::now();
        let outcome = body(&section, opts.pairs);
        let finished_unix = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let mk = |status, reason, comparisons| SectionResult {
            section: section.clone(),
            pairs: opts.pairs,
            status,
            reason,
            comparisons,
            load_before,
            load_after: load_avg(),
            finished_unix,
            section_seconds: t.elapsed().as_secs_f64(),
            build: if opts.debug { "debug".into() } else { "release".into() },
        };
        let done = match outcome {
            Ok(Outcome::Measured(c)) => {
                store.save(&mk(Status::Measured, None, c))?;
                Done::Measured
            }
            Ok(Outcome::Skipped(why)) => {
                eprintln!("xtask: bench all: SKIP {section}: {why}");
                store.save(&mk(Status::Skipped, Some(why.clone()), Vec::new()))?;
                Done::Skipped(why)
            }
            Err(e) => {
                eprintln!("xtask: bench all: {section} FAILED: {e:#}");
                Done::Failed(format!("{e:#}"))
            }
        };
        report.push((section, done));
    }
    Ok(report)
}

fn num(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.digits$}"),
        _ => "–".into(),
    }
}

fn sci(v: Option<f64>) -> String {
    match v {
        Some(0.0) => "0".into(),
        Some(x) if x.is_finite() => format!("{x:.1e}"),
        _ => "–".into(),
    }
}

fn both(r: Option<&Side>, f: &Side, g: impl Fn(&Side) -> String) -> String {
    format!("{} / {}", r.map_or_else(|| "–".into(), &g), g(f))
}

fn load3(l: Option<[f64; 3]>) -> String {
    l.map_or_else(|| "?".into(), |[a, b, c]| format!("{a:.2} {b:.2} {c:.2}"))
}

fn utc(unix: u64) -> String {
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm), no chrono dependency.
    let days = (unix / 86_400) as i64;
    let secs = unix % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02} UTC", secs / 3600, secs % 3600 / 60)
}

/// The generated Markdown (without the markers) for the stored results of one pair count.
///
/// `carried`: rows (whole Markdown table lines) of the previous block, by section, for the
/// same pair count ([`carried_rows`]). They are kept for each section that has no measured
/// result in the store, so that a store lost with `target/` (a fresh clone, a wiped build
/// directory) never drops figures already measured: their "measured" column still dates them.
pub fn render(results: &[SectionResult], pairs: usize, carried: &BTreeMap<String, Vec<String>>) -> String {
    let mut s = format!(
        "Generated by `cargo xtask bench all --pairs {pairs}` from its stored results (`target/bench-all/`; the rows of a section with \
         none stored there are carried over from the previous block, dated by their \"measured\" column); do not edit between the markers. Ratio = reference / factpico (> 1: factpico is faster); CPU time \
         (user + system, all threads) is the primary figure, wall time is distorted by the load of the shared \
         2-core machine (the load averages before → after are given per section). Sides: reference / factpico.\n\n\
         | section | row | pairs | wall s | CPU s | ratio CPU | ratio wall | max abs Δ | peak RSS MB | threads | load avg before → after | measured | build |\n\
         |---|---|---:|---|---|---:|---:|---:|---|---|---|---|---|\n"
    );
    let mut skipped = Vec::new();
    let mut names: Vec<&str> = SECTIONS.to_vec();
    for r in results {
        if !names.contains(&r.section.as_str()) {
            names.push(&r.section);
        }
    }
    for name in names {
        let r = results.iter().find(|r| r.section == name);
        let measured = r.filter(|r| r.status == Status::Measured);
        if let Some(r) = r.filter(|r| r.status == Status::Skipped) {
            skipped.push(format!("* `{}`: {}", r.section, r.reason.as_deref().unwrap_or("no reason given")));
        }
        let Some(r) = measured else {
            for line in carried.get(name).into_iter().flatten() {
                s.push_str(line);
                s.push('\n');
            }
            continue;
        };
        for c in &r.comparisons {
            let rf = c.reference.as_ref();
            let f = &c.factpico;
            s.push_str(&format!(
                "| {} | {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} → {} | {} | {} |\n",
                r.section,
                c.label,
                c.note.as_ref().map_or_else(String::new, |n| format!(" ({n})")),
                c.pairs,
                both(rf, f, |x| num(x.wall_s, 2)),
                both(rf, f, |x| num(x.cpu_s, 2)),
                c.cpu_ratio().map_or_else(|| "–".into(), |x| format!("**{x:.2}x**")),
                c.wall_ratio().map_or_else(|| "–".into(), |x| format!("{x:.2}x")),
                sci(c.max_abs_delta),
                both(rf, f, |x| num(x.peak_rss_mb, 0)),
                both(rf, f, |x| x.threads.map_or_else(|| "–".into(), |t| t.to_string())),
                load3(r.load_before),
                load3(r.load_after),
                utc(r.finished_unix),
                r.build,
            ));
        }
    }
    if !skipped.is_empty() {
        s.push_str("\nSkipped on the last call (prerequisites missing; tried again on the next call):\n\n");
        s.push_str(&skipped.join("\n"));
        s.push('\n');
    }
    s
}

/// The table rows of the generated block in `md`, by section (the first cell), when that
/// block was generated for `pairs` (its first line names `--pairs N`); empty otherwise.
pub fn carried_rows(md: &str, pairs: usize) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (Some(b), Some(e)) = (md.find(BEGIN), md.find(END)) else { return out };
    if b > e {
        return out;
    }
    let block = &md[b + BEGIN.len()..e];
    if !block.contains(&format!("`cargo xtask bench all --pairs {pairs}`")) {
        return out;
    }
    for line in block.lines().filter(|l| l.starts_with("| ")) {
        let section = line[2..].split(" | ").next().unwrap_or("").trim();
        if section.is_empty() || section == "section" {
            continue;
        }
        out.entry(section.to_owned()).or_default().push(line.to_owned());
    }
    out
}

/// `md` with the block between [`BEGIN`] and [`END`] replaced by `block` (a heading and the
/// markers are appended when the markers are absent).
///
/// # Errors
/// Only one of the markers, or the end before the start.
pub fn splice(md: &str, block: &str) -> Result<String> {
    let inner = format!("{BEGIN}\n{}\n{END}", block.trim_end());
    match (md.find(BEGIN), md.find(END)) {
        (Some(b), Some(e)) if b < e => Ok(format!("{}{inner}{}", &md[..b], &md[e + END.len()..])),
        (None, None) => {
            let sep = if md.ends_with("\n\n") { "" } else if md.ends_with('\n') { "\n" } else { "\n\n" };
            Ok(format!("{md}{sep}## `cargo xtask bench all`: every comparison, one command\n\n{inner}\n"))
        }
        _ => bail!("BENCHMARKS.md has a broken {BEGIN} / {END} pair: fix it by hand"),
    }
}

/// Writes the block of the stored results for `pairs` into `md_path`.
///
/// # Errors
/// I/O, broken markers.
pub fn write_tables(store: &Store, pairs: usize, md_path: &Path) -> Result<()> {
    let md = std::fs::read_to_string(md_path).with_context(|| format!("reading {}", md_path.display()))?;
    let out = splice(&md, &render(&store.all(pairs), pairs, &carried_rows(&md, pairs)))?;
    std::fs::write(md_path, out).with_context(|| format!("writing {}", md_path.display()))
}

// ---------------------------------------------------------------------------------------------
// The real sections.

/// `$FACTPICO_SHARED`, else `<repo>/../shared`: where the benchmarks read the real data and models.
pub(crate) fn shared_root() -> PathBuf {
    std::env::var_os("FACTPICO_SHARED").map_or_else(|| repo_root().join("../shared"), PathBuf::from)
}

/// An existing interpreter of `venv` (its env variable or `<repo>/.venv-NAME`), never created
/// here: the reference venvs download several GB of PyTorch.
fn existing_venv(venv: &crate::python::Venv, make: &str) -> std::result::Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(venv.env) {
        let p = PathBuf::from(p);
        return if p.exists() { Ok(p) } else { Err(format!("{}={} does not exist", venv.env, p.display())) };
    }
    let py = venv.dir().join("bin/python");
    if py.exists() {
        Ok(py)
    } else {
        Err(format!(
            "no {} venv ({}): set {} or create {} (`{make}`; downloads several GB, so `bench all` does not)",
            venv.name,
            venv.purpose,
            venv.env,
            venv.dir().display()
        ))
    }
}

fn env_python(var: &str, how: &str) -> std::result::Result<PathBuf, String> {
    match std::env::var_os(var).map(PathBuf::from) {
        Some(p) if p.exists() => Ok(p),
        Some(p) => Err(format!("{var}={} does not exist", p.display())),
        None => Err(format!("{var} is not set ({how})")),
    }
}

/// Missing prerequisites of a section, as the reason to skip it; `None` when it can run.
fn missing(section: &str) -> Option<String> {
    let shared = shared_root();
    let docs = shared.join("data/infolossqa/processed/documents.json");
    if !docs.is_file() {
        return Some(format!("{} not found: every section reads the real pairs of ../shared (set FACTPICO_SHARED)", docs.display()));
    }
    let check = match section {
        "model-free" => Ok(()),
        "alignscore" | "qa" | "int8" => existing_venv(&crate::python::REFERENCE, "cargo xtask venv reference").map(|_| ()),
        "python" => existing_venv(&crate::python::REFERENCE, "cargo xtask venv reference")
            .map(|_| ())
            .map_err(|e| format!("{e} (the AlignScore row of the Python package's comparison needs it)")),
        "summac" => env_python("FACTPICO_SUMMAC_PYTHON", "the SummaC reference venv: docs/summac.md").map(|_| ()),
        "llm" => {
            let venv = std::env::var_os(crate::llm::PYTHON_ENV)
                .map_or_else(|| factpico_runtime::factpico_home().join("llm-venv/bin/python"), PathBuf::from);
            if venv.exists() {
                Ok(())
            } else {
                Err(format!("no LLM venv at {} (`cargo xtask llm-venv`)", venv.display()))
            }
        }
        "dae" => {
            let built = crate::python::work_dir("bench").join("dae-base/model.onnx").is_file();
            let graph = if built {
                Ok(())
            } else {
                existing_venv(&crate::python::EXPORT, "cargo xtask venv export")
                    .map(|_| ())
                    .map_err(|e| format!("the DAE base graph is not built yet and {e}"))
            };
            graph
                .and_then(|()| existing_venv(&crate::python::REFERENCE, "cargo xtask venv reference").map(|_| ()))
                .and_then(|()| existing_venv(&crate::python::DAE, "cargo xtask venv dae").map(|_| ()))
                .and_then(|()| {
                    std::env::var_os("FACTPICO_DAE_REFERENCE").map(|_| ()).ok_or_else(|| {
                        "FACTPICO_DAE_REFERENCE is not set (a checkout or git directory of tagoyal/factuality-datasets, \
                         whose unmodified train_utils.py the reference side runs)"
                            .to_owned()
                    })
                })
        }
        s if s.starts_with("minicheck:") => {
            let v = &s["minicheck:".len()..];
            env_python("FACTPICO_MINICHECK_PYTHON", "the MiniCheck reference venv: onnx/README.md, 'MiniCheck'")
                .and_then(|_| crate::minicheck::disk_check(v))
        }
        _ => Ok(()),
    };
    check.err()
}

/// Runs one real section.
fn real_section(section: &str, pairs: usize, debug: bool) -> Result<Outcome> {
    if let Some(why) = missing(section) {
        return Ok(Outcome::Skipped(why));
    }
    let rows = match section {
        // All 300 real pairs whatever `--pairs` says: a pair costs microseconds, so a handful
        // would time the CLI's start-up, not the metrics.
        "model-free" => crate::bench_model_free::measure(5, None, debug)?,
        "alignscore" => crate::bench::measure(pairs)?,
        "summac" => crate::summac::measure(pairs)?,
        "python" => crate::pytest::measure(pairs.min(300))?,
        "llm" => crate::bench_llm::measure(pairs, debug)?,
        "dae" => crate::bench_dae::measure(pairs)?,
        "qa" => vec![crate::bench_qa::measure(pairs)?],
        "int8" => crate::bench_int8::measure(pairs)?,
        s if s.starts_with("minicheck:") => crate::minicheck::measure(s, pairs)?,
        other => bail!("no runner for section {other}"),
    };
    Ok(Outcome::Measured(rows))
}

/// `cargo xtask bench all`.
///
/// # Errors
/// Unknown names; a section that failed (after every other one ran and the tables were written).
pub fn run(opts: &Options) -> Result<()> {
    let store = Store { dir: Store::default_dir() };
    let t = std::time::Instant::now();
    let report = run_sections(opts, &store, |s, n| real_section(s, n, opts.debug))?;
    let md = repo_root().join("BENCHMARKS.md");
    write_tables(&store, opts.pairs, &md)?;
    eprintln!("\nxtask: bench all (pairs {}) in {:.0} s; results in {}:", opts.pairs, t.elapsed().as_secs_f64(), store.dir.display());
    let mut failed = 0;
    for (s, d) in &report {
        let what = match d {
            Done::Stored => "stored earlier (not rerun)".to_owned(),
            Done::Measured => "measured".to_owned(),
            Done::Skipped(w) => format!("skipped: {w}"),
            Done::Failed(e) => {
                failed += 1;
                format!("FAILED: {e}")
            }
        };
        eprintln!("  {s}: {what}");
    }
    eprintln!("xtask: tables written to {} (between {BEGIN} and {END})", md.display());
    if failed > 0 {
        bail!("{failed} section(s) failed; rerun `cargo xtask bench all` to retry them (finished ones are kept)");
    }
    Ok(())
}

/// Runs `cmd` under `/usr/bin/time` and returns its output with (wall s, CPU s, peak RSS MB) of
/// the process (and the children it waited for).
///
/// # Errors
/// The command cannot start or fails.
pub fn timed(cmd: &mut std::process::Command) -> Result<(std::process::Output, f64, f64, f64)> {
    let tmp = tempfile::NamedTempFile::new()?;
    let mut wrapped = std::process::Command::new("/usr/bin/time");
    wrapped.arg("-o").arg(tmp.path()).args(["-f", "%e %U %S %M"]).arg(cmd.get_program()).args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => wrapped.env(k, v),
            None => wrapped.env_remove(k),
        };
    }
    if let Some(d) = cmd.get_current_dir() {
        wrapped.current_dir(d);
    }
    let out = wrapped.output().with_context(|| format!("running {cmd:?} under /usr/bin/time"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed with {}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    }
    let text = std::fs::read_to_string(tmp.path())?;
    let last = text.lines().last().unwrap_or_default();
    let f: Vec<f64> = last.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    if f.len() != 4 {
        bail!("unexpected /usr/bin/time output {text:?}");
    }
    Ok((out, f[0], f[1] + f[2], f[3] / 1024.0))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn cmp(label: &str, r: Option<(f64, f64)>, f: (f64, f64)) -> Comparison {
        Comparison {
            label: label.into(),
            pairs: 2,
            reference: r.map(|(w, c)| Side { label: "ref".into(), wall_s: Some(w), cpu_s: Some(c), peak_rss_mb: Some(100.0), threads: Some(2) }),
            factpico: Side { label: "fp".into(), wall_s: Some(f.0), cpu_s: Some(f.1), peak_rss_mb: Some(50.0), threads: Some(2) },
            max_abs_delta: Some(1.5e-7),
            note: None,
        }
    }

    fn opts(only: &[&str]) -> Options {
        Options { pairs: 2, only: only.iter().map(|s| (*s).to_owned()).collect(), ..Options::default() }
    }

    #[test]
    fn finished_sections_are_stored_and_skipped_on_the_next_call() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store { dir: dir.path().to_owned() };
        let mut calls = Vec::new();
        let o = opts(&["model-free", "summac,llm"]);
        let body = |calls: &mut Vec<String>, s: &str| -> Result<Outcome> {
            calls.push(s.to_owned());
            match s {
                "model-free" => Ok(Outcome::Measured(vec![cmp("rouge", Some((8.0, 6.0)), (0.2, 0.1))])),
                "summac" => Ok(Outcome::Skipped("no venv".into())),
                _ => bail!("boom"),
            }
        };
        let r = run_sections(&o, &store, |s, _| body(&mut calls, s)).unwrap();
        assert_eq!(calls, ["model-free", "summac", "llm"]);
        assert_eq!(r[0].1, Done::Measured);
        assert_eq!(r[1].1, Done::Skipped("no venv".into()));
        assert!(matches!(r[2].1, Done::Failed(_)));
        assert!(store.path("model-free", 2).is_file());
        assert!(store.path("summac", 2).is_file(), "a skip is stored (for the table) ...");
        assert!(!store.path("llm", 2).exists(), "a failure is not stored");
        // second call: the measured section is not rerun; the skipped and failed ones are
        calls.clear();
        let r = run_sections(&o, &store, |s, _| body(&mut calls, s)).unwrap();
        assert_eq!(calls, ["summac", "llm"], "... but does not count as done");
        assert_eq!(r[0].1, Done::Stored);
        // another pair count is another key
        calls.clear();
        run_sections(&Options { pairs: 3, ..o.clone() }, &store, |s, _| body(&mut calls, s)).unwrap();
        assert_eq!(calls, ["model-free", "summac", "llm"]);
        // --redo reruns one stored section, --fresh all of them
        calls.clear();
        run_sections(&Options { redo: vec!["model-free".into()], ..o.clone() }, &store, |s, _| body(&mut calls, s)).unwrap();
        assert_eq!(calls, ["model-free", "summac", "llm"]);
        calls.clear();
        run_sections(&Options { fresh: true, only: vec!["model-free".into()], ..o.clone() }, &store, |s, _| body(&mut calls, s))
            .unwrap();
        assert_eq!(calls, ["model-free"]);
        // the stored result round-trips
        let back = store.load("model-free", 2).unwrap();
        assert_eq!(back.status, Status::Measured);
        assert_eq!(back.comparisons, vec![cmp("rouge", Some((8.0, 6.0)), (0.2, 0.1))]);
        assert!(back.load_before.is_some() && back.load_after.is_some());
    }

    #[test]
    fn unknown_sections_are_refused_and_minicheck_names_are_file_safe() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store { dir: dir.path().to_owned() };
        assert!(run_sections(&opts(&["nope"]), &store, |_, _| Ok(Outcome::Skipped(String::new()))).is_err());
        assert!(run_sections(&Options { redo: vec!["nope".into()], ..opts(&[]) }, &store, |_, _| Ok(Outcome::Skipped(String::new()))).is_err());
        assert_eq!(store.path("minicheck:roberta-large", 5).file_name().unwrap(), "minicheck_roberta-large-p5.json");
        assert_eq!(selected(&opts(&[])).unwrap().len(), SECTIONS.len());
    }

    fn result(section: &str, status: Status, comparisons: Vec<Comparison>) -> SectionResult {
        SectionResult {
            section: section.into(),
            pairs: 2,
            status,
            reason: (status == Status::Skipped).then(|| "no venv".into()),
            comparisons,
            load_before: Some([4.88, 4.62, 3.9]),
            load_after: Some([5.0, 4.7, 4.0]),
            finished_unix: 1_764_819_000,
            section_seconds: 12.0,
            build: "release".into(),
        }
    }

    #[test]
    fn the_table_has_both_sides_ratios_and_skips() {
        let rs = vec![
            result("model-free", Status::Measured, vec![cmp("ROUGE-L + FKGL", Some((8.8, 5.86)), (0.145, 0.091))]),
            result("dae", Status::Measured, vec![cmp("per sentence", None, (207.4, 400.0))]),
            result("summac", Status::Skipped, Vec::new()),
        ];
        let t = render(&rs, 2, &BTreeMap::new());
        let row = t.lines().find(|l| l.starts_with("| model-free")).unwrap();
        assert_eq!(
            row,
            "| model-free | ROUGE-L + FKGL | 2 | 8.80 / 0.14 | 5.86 / 0.09 | **64.40x** | 60.69x | 1.5e-7 | 100 / 50 | 2 / 2 | \
             4.88 4.62 3.90 → 5.00 4.70 4.00 | 2025-12-04 03:30 UTC | release |"
        );
        let dae = t.lines().find(|l| l.starts_with("| dae")).unwrap();
        assert!(dae.contains("| – / 207.40 | – / 400.00 | – | – |"), "{dae}");
        assert!(t.contains("* `summac`: no venv"));
        assert!(!t.lines().any(|l| l.starts_with("| summac")));
    }

    #[test]
    fn encoder_flops_follow_the_counting_rule() {
        // RoBERTa-base: 2 * 12 * (4 * 768^2 + 2 * 768 * 3072) and 4 * 12 * 768.
        let base = EncoderShape { layers: 12.0, d: 768.0, ffn_matrices: 2.0, d_ff: 3072.0 };
        assert_eq!(base.per_token(), 169_869_312.0);
        assert_eq!(base.per_len_sq(), 36_864.0);
        // T5-large's gated feed-forward: three matrices of 2816.
        let t5 = EncoderShape { layers: 24.0, d: 1024.0, ffn_matrices: 3.0, d_ff: 2816.0 };
        assert_eq!(t5.per_token(), 616_562_688.0);
    }

    #[test]
    fn splice_replaces_only_the_block() {
        let md = format!("# B\n\nhand text\n\n{BEGIN}\nold table\n{END}\n\nmore hand text\n");
        let out = splice(&md, "new table\n").unwrap();
        assert_eq!(out, format!("# B\n\nhand text\n\n{BEGIN}\nnew table\n{END}\n\nmore hand text\n"));
        // idempotent
        assert_eq!(splice(&out, "new table").unwrap(), out);
        // no markers: appended under a heading
        let out = splice("# B\n\ntext\n", "t").unwrap();
        assert!(out.starts_with("# B\n\ntext\n\n## `cargo xtask bench all`"), "{out}");
        assert!(out.ends_with(&format!("{BEGIN}\nt\n{END}\n")));
        // broken markers are refused
        assert!(splice(&format!("x {END} y {BEGIN}"), "t").is_err());
        assert!(splice(&format!("x {BEGIN} y"), "t").is_err());
    }

    #[test]
    fn write_tables_reads_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store { dir: dir.path().join("s") };
        store.save(&result("model-free", Status::Measured, vec![cmp("x", Some((2.0, 1.0)), (1.0, 0.5))])).unwrap();
        store.save(&SectionResult { pairs: 9, ..result("summac", Status::Measured, vec![cmp("other pairs", None, (1.0, 1.0))]) }).unwrap();
        let md = dir.path().join("B.md");
        std::fs::write(&md, format!("intro\n\n{BEGIN}\n{END}\noutro\n")).unwrap();
        write_tables(&store, 2, &md).unwrap();
        let text = std::fs::read_to_string(&md).unwrap();
        assert!(text.starts_with("intro\n\n<!-- bench-all:begin -->\nGenerated by"));
        assert!(text.ends_with(&format!("{END}\noutro\n")));
        assert!(text.contains("| model-free | x | 2 |"));
        assert!(!text.contains("other pairs"), "only the asked pair count");
    }

    #[test]
    fn rows_without_a_stored_result_are_carried_over() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store { dir: dir.path().join("s") };
        let md = dir.path().join("B.md");
        std::fs::write(&md, format!("intro\n\n{BEGIN}\n{END}\n")).unwrap();
        // First call: model-free and summac measured.
        store.save(&result("model-free", Status::Measured, vec![cmp("old mf", Some((2.0, 1.0)), (1.0, 0.5))])).unwrap();
        store.save(&result("summac", Status::Measured, vec![cmp("sc row", Some((4.0, 1.0)), (4.0, 1.0))])).unwrap();
        write_tables(&store, 2, &md).unwrap();
        // The store is lost (a fresh clone); a second call measures only qa and re-measures model-free.
        std::fs::remove_dir_all(&store.dir).unwrap();
        store.save(&result("model-free", Status::Measured, vec![cmp("new mf", Some((2.0, 1.0)), (1.0, 0.5))])).unwrap();
        store.save(&result("qa", Status::Measured, vec![cmp("qa row", Some((3.0, 1.0)), (3.0, 1.0))])).unwrap();
        store.save(&result("dae", Status::Skipped, vec![])).unwrap();
        write_tables(&store, 2, &md).unwrap();
        let text = std::fs::read_to_string(&md).unwrap();
        assert!(text.contains("| model-free | new mf |") && !text.contains("old mf"), "a stored section replaces its old rows");
        assert!(text.contains("| summac | sc row | 2 |"), "a section with nothing stored keeps its rows: {text}");
        let (sc, qa) = (text.find("| summac |").unwrap(), text.find("| qa |").unwrap());
        assert!(sc < qa, "carried rows keep the SECTIONS order");
        assert!(text.contains("* `dae`:"));
        // Idempotent, and another pair count carries nothing over.
        let again = { write_tables(&store, 2, &md).unwrap(); std::fs::read_to_string(&md).unwrap() };
        assert_eq!(again, text);
        assert!(carried_rows(&text, 3).is_empty());
        assert_eq!(carried_rows(&text, 2)["summac"].len(), 1);
        assert!(!carried_rows(&text, 2).contains_key("section"), "the header row is not a section");
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(1_764_819_000), "2025-12-04 03:30 UTC");
    }
}
