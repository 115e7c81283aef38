//! Scores a JSONL file of `{"id", "source", "summary", "evidence"?}` rows with one FactPICO LLM
//! evaluator through the library (no CLI), writing `{"id", "scores", "nulls", "details"}` rows
//! as blocks finish, and the run's request totals to stderr. Requests go through the same
//! cache as `factpico score`, so the same options there later re-use every answer.
//!
//! ```sh
//! cargo run -p factpico-llm --example score_jsonl -- IN.jsonl OUT.jsonl \
//!   --base-url http://127.0.0.1:8080/v1 --model smollm2 --protocol full-text \
//!   [--structured json-schema|grammar|off] [--max-tokens N] [--extract-max-tokens N] \
//!   [--rationale-max-chars N] [--elements population,evidence] [--concurrency N] \
//!   [--cache PATH] [--timeout S] [--block N]
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, Write};

use factpico_llm::{Evaluator, LlmOptions, Protocol, RowInput, StructuredOutput, Target};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    env_logger_lite();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (input, output) = (args.first().ok_or("usage: IN.jsonl OUT.jsonl [options]")?, args.get(1).ok_or("no OUT.jsonl")?);
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let mut o = LlmOptions { base_url: flag("--base-url"), model: flag("--model"), ..LlmOptions::default() };
    if let Some(s) = flag("--structured") {
        o.structured_output = s.parse::<StructuredOutput>()?;
    }
    o.max_tokens = flag("--max-tokens").map(|v| v.parse()).transpose()?;
    o.extract_max_tokens = flag("--extract-max-tokens").map(|v| v.parse()).transpose()?;
    o.rationale_max_chars = flag("--rationale-max-chars").map(|v| v.parse()).transpose()?;
    if let Some(e) = flag("--elements") {
        o.elements = e.split(',').map(str::parse::<Target>).collect::<Result<_, _>>()?;
    }
    if let Some(c) = flag("--concurrency") {
        o.runtime.client.concurrency = c.parse()?;
    }
    o.runtime.cache = flag("--cache").map(Into::into);
    if let Some(t) = flag("--timeout") {
        o.runtime.client.timeout_s = t.parse()?;
    }
    let protocol = match flag("--protocol").as_deref() {
        Some("pipeline") => Protocol::Pipeline,
        _ => Protocol::FullText,
    };
    let block: usize = flag("--block").map(|v| v.parse()).transpose()?.unwrap_or(8);

    let rows: Vec<serde_json::Value> = std::io::BufReader::new(std::fs::File::open(input)?)
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    let ev = Evaluator::try_new(protocol, &o)?;
    eprintln!("{} rows; served model {}; structured output {:?}", rows.len(), ev.served_model().id, ev.structured_output());
    let mut out = std::io::BufWriter::new(std::fs::File::create(output)?);
    let t0 = std::time::Instant::now();
    for (bi, chunk) in rows.chunks(block).enumerate() {
        let spans: Vec<Option<Vec<String>>> = chunk
            .iter()
            .map(|r| r.get("evidence").and_then(|e| e.as_array()).map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect()))
            .collect();
        let inputs: Vec<RowInput<'_>> = chunk
            .iter()
            .zip(&spans)
            .map(|(r, s)| RowInput { source: r["source"].as_str().unwrap(), summary: r["summary"].as_str().unwrap(), evidence: s.as_deref() })
            .collect();
        for (r, res) in chunk.iter().zip(ev.evaluate(&inputs)) {
            let row = serde_json::json!({
                "id": r["id"], "scores": res.scores, "nulls": res.nulls,
                "details": { protocol.name(): res.detail }, "failed_requests": res.failed_requests,
            });
            writeln!(out, "{row}")?;
        }
        out.flush()?;
        let s = ev.stats();
        eprintln!(
            "block {}: {} rows in {:.0} s; requests {} (cached {}, answered {}, failed {}), tokens {}+{}",
            bi + 1,
            ((bi + 1) * block).min(rows.len()),
            t0.elapsed().as_secs_f64(),
            s.requests,
            s.cached,
            s.answered,
            s.failed,
            s.prompt_tokens,
            s.completion_tokens
        );
    }
    let s = ev.stats();
    eprintln!("done: {}", serde_json::to_string(&s)?);
    Ok(())
}

/// Prints `log` warnings to stderr (the library logs retries and fallbacks).
fn env_logger_lite() {
    struct L;
    impl log::Log for L {
        fn enabled(&self, m: &log::Metadata<'_>) -> bool {
            m.level() <= log::Level::Warn
        }
        fn log(&self, r: &log::Record<'_>) {
            if self.enabled(r.metadata()) {
                eprintln!("{}: {}", r.level(), r.args());
            }
        }
        fn flush(&self) {}
    }
    static LOGGER: L = L;
    let _ = log::set_logger(&LOGGER).map(|()| log::set_max_level(log::LevelFilter::Warn));
}
