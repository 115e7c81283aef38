//! Batch files: the requests a run still needs, written as an OpenAI Batch API input file (the
//! file `vllm run-batch` reads too), and the provider's output file read back into the
//! request cache.
//!
//! * **Export** ([`Evaluator::batch_export`]): the requests a run over the rows would send now
//!   — those whose answer is not in the cache — one JSON line each,
//!   `{"custom_id": KEY, "method": "POST", "url": "/v1/chat/completions", "body": BODY}`, where
//!   `KEY` is the request's cache key ([`crate::cache::request_key`]) and `BODY` the exact chat
//!   request a run would send (no API key: it is never part of a body). Every exported request
//!   is recorded in the cache's `batch_pending` table ([`Evaluator::record_exported`]) with its
//!   canonical body.
//! * **Import** ([`import`]): each line of the provider's output file,
//!   `{"id", "custom_id", "response": {"status_code", "request_id", "body": CHAT_COMPLETION},
//!   "error"}`, is matched on `custom_id` to a request exported from the same cache. A line whose
//!   `custom_id` was never exported from it, or (when the request file that was run is given)
//!   whose request is not the body exported under that id, refuses the whole import with an
//!   error naming the line: nothing is imported. Lines with an `error`, a status other than 200
//!   or a body that is not a chat completion are reported and skipped (a later export writes
//!   their requests again).
//!
//! The PICO-R pipeline (`llm_pipeline`) needs two rounds: its rating requests (stage 2) quote
//! the extraction answers (stage 1), so an export writes stage 1; after the import, a second
//! export writes stage 2.

use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::path::Path;

use serde_json::Value;

use crate::cache::Cache;
use crate::error::{Error, Result};
use crate::requests::{canonical_json, RowInput};
use crate::Evaluator;

/// The `url` of every exported request.
pub const CHAT_COMPLETIONS_URL: &str = "/v1/chat/completions";

/// One request of a batch file.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRequest {
    /// The request's cache key.
    pub custom_id: String,
    /// The chat-completions request body.
    pub body: Value,
}

impl BatchRequest {
    /// The batch-file line (without its newline): `custom_id`, `method`, `url`, `body`, in
    /// that order; the body exactly as the client would send it ([`crate::requests::wire_json`]:
    /// a rationale-first schema keeps its field order).
    pub fn line(&self) -> String {
        format!(
            r#"{{"custom_id":{},"method":"POST","url":{},"body":{}}}"#,
            Value::String(self.custom_id.clone()),
            Value::String(CHAT_COMPLETIONS_URL.into()),
            crate::requests::wire_json(&self.body)
        )
    }
}

/// What an export found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Export {
    /// The requests whose answers are missing, distinct, in run order.
    pub requests: Vec<BatchRequest>,
    /// Requests of the run already answered in the cache.
    pub cached: u64,
    /// Pipeline rows whose rating requests (stage 2) cannot be written yet: some of their
    /// extraction answers (stage 1) are missing.
    pub rows_waiting: u64,
}

impl Evaluator {
    /// The requests a run over `rows` would send now (see [`Export`]); nothing is sent and
    /// nothing is recorded.
    ///
    /// # Errors
    /// [`Error::Options`] without a cache (`llm.runtime.no_cache`): the answers would have
    /// nowhere to go.
    pub fn batch_export(&self, rows: &[RowInput<'_>]) -> Result<Export> {
        if self.cache().is_none() {
            return Err(Error::Options(
                "a batch export needs the request cache (its answers are imported into it): drop `llm.runtime.no_cache`".into(),
            ));
        }
        let before = self.stats().cached;
        let (missing, results) = self.missing(rows);
        let cached = self.stats().cached - before;
        let rows_waiting = results
            .iter()
            .filter(|r| {
                r.detail
                    .get("extraction")
                    .and_then(Value::as_object)
                    .is_some_and(|x| x.values().any(|e| e.get("error").is_some()))
            })
            .count() as u64;
        Ok(Export {
            requests: missing.into_iter().map(|(custom_id, body)| BatchRequest { custom_id, body }).collect(),
            cached,
            rows_waiting,
        })
    }

    /// Records `requests` as exported in the cache (table `batch_pending`), so that
    /// [`import`] accepts their answers.
    ///
    /// # Errors
    /// [`Error::Options`] without a cache; [`Error::CacheCorrupt`] / [`Error::Cache`].
    pub fn record_exported(&self, requests: &[BatchRequest]) -> Result<()> {
        let cache = self.cache().ok_or_else(|| Error::Options("a batch export needs the request cache".into()))?;
        for r in requests {
            cache.put_pending(&r.custom_id, self.key_base(), &self.served_model().id, &r.body)?;
        }
        Ok(())
    }
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportReport {
    /// Result lines read (blank lines not counted).
    pub lines: u64,
    /// Answers stored in the cache.
    pub imported: u64,
    /// Lines whose request was already answered in the cache (an earlier import), or a
    /// repeated `custom_id`.
    pub already: u64,
    /// Lines skipped: an `error`, a status other than 200, a body that is not a chat
    /// completion (`line N (custom_id …): why`).
    pub failed: Vec<String>,
}

fn batch_err(file: &Path, line: u64, what: impl std::fmt::Display) -> Error {
    Error::Batch(format!("{} line {line}: {what}", file.display()))
}

/// Reads `path` line by line: (1-based line number, parsed JSON object) for each non-blank line.
fn json_lines(path: &Path, mut each: impl FnMut(u64, Value) -> Result<()>) -> Result<()> {
    let f = std::fs::File::open(path).map_err(|e| Error::Batch(format!("cannot read {}: {e}", path.display())))?;
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let n = i as u64 + 1;
        let line = line.map_err(|e| batch_err(path, n, format!("cannot read ({e})")))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line).map_err(|e| batch_err(path, n, format!("not a JSON line ({e})")))?;
        if !v.is_object() {
            return Err(batch_err(path, n, "not a JSON object"));
        }
        each(n, v)?;
    }
    Ok(())
}

/// The top-level fields in which two request bodies (canonical JSON) differ.
fn differing_fields(a: &str, b: &str) -> String {
    let (Ok(Value::Object(a)), Ok(Value::Object(b))) = (serde_json::from_str::<Value>(a), serde_json::from_str::<Value>(b)) else {
        return "the body".into();
    };
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let diff: Vec<&str> = keys.into_iter().filter(|k| a.get(*k) != b.get(*k)).map(String::as_str).collect();
    if diff.is_empty() {
        "the body".into()
    } else {
        format!("`{}`", diff.join("`, `"))
    }
}

/// Imports a provider's batch output file (`results`) into `cache`; see the module
/// documentation. `requests`: the batch input file that was run, to check that each answer
/// is the answer of the request exported under its `custom_id` (without it, only the
/// `custom_id` is matched).
///
/// # Errors
/// [`Error::Batch`] naming the file and line: a line that is not a JSON object or has no
/// `custom_id`, a `custom_id` not exported from this cache, a request that is not the one
/// exported under its id; nothing is imported then. [`Error::CacheCorrupt`] / [`Error::Cache`].
pub fn import(cache: &Cache, results: &Path, requests: Option<&Path>) -> Result<ImportReport> {
    // The request file that was run: custom_id -> (line, canonical body).
    let mut ran: HashMap<String, (u64, String)> = HashMap::new();
    if let Some(req) = requests {
        json_lines(req, |n, v| {
            let id = v.get("custom_id").and_then(Value::as_str).ok_or_else(|| batch_err(req, n, "no string `custom_id`"))?;
            let body = v.get("body").filter(|b| b.is_object()).ok_or_else(|| batch_err(req, n, "no object `body`"))?;
            if ran.insert(id.to_owned(), (n, canonical_json(body))).is_some() {
                return Err(batch_err(req, n, format!("custom_id {id} repeats an earlier line")));
            }
            Ok(())
        })?;
    }
    let mut report = ImportReport::default();
    let mut accepted: Vec<(String, crate::client::Reply)> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    json_lines(results, |n, v| {
        report.lines += 1;
        let id = v.get("custom_id").and_then(Value::as_str).ok_or_else(|| batch_err(results, n, "no string `custom_id`"))?;
        let exported = match cache.answered_request(id)? {
            Some(r) => Some((r, true)),
            None => cache.pending_request(id)?.map(|r| (r, false)),
        };
        let Some((exported, answered)) = exported else {
            return Err(batch_err(
                results,
                n,
                format!(
                    "custom_id {id} was not exported from the cache {} (`factpico llm batch export` records what it exports: import into the cache the export used, `llm.runtime.cache`)",
                    cache.path().display()
                ),
            ));
        };
        if let Some(req) = requests {
            let Some((m, body)) = ran.get(id) else {
                return Err(batch_err(results, n, format!("custom_id {id} is not in the request file {}", req.display())));
            };
            if *body != exported {
                return Err(batch_err(
                    results,
                    n,
                    format!(
                        "the request run under custom_id {id} ({} line {m}) is not the request exported under that id: {} differ (an edited request file, or one from another export?)",
                        req.display(),
                        differing_fields(body, &exported)
                    ),
                ));
            }
        }
        if answered || !seen.insert(id.to_owned()) {
            report.already += 1;
            return Ok(());
        }
        let fail = |why: String| format!("line {n} (custom_id {id}): {why}");
        if let Some(e) = v.get("error").filter(|e| !e.is_null()) {
            let msg = e.get("message").and_then(Value::as_str).map_or_else(|| e.to_string(), str::to_owned);
            report.failed.push(fail(format!("error: {}", crate::client::redact(&msg, None))));
            seen.remove(id);
            return Ok(());
        }
        let status = v.pointer("/response/status_code").and_then(Value::as_u64);
        let body = v.pointer("/response/body").cloned().unwrap_or(Value::Null);
        if status != Some(200) {
            let shown = status.map_or_else(|| "no response status".to_owned(), |s| format!("HTTP {s}"));
            let msg = body.pointer("/error/message").and_then(Value::as_str).map_or_else(|| body.to_string(), str::to_owned);
            report.failed.push(fail(format!("{shown}: {}", crate::client::redact(&msg, None))));
            seen.remove(id);
            return Ok(());
        }
        let content_given = body.pointer("/choices/0/message/content").is_some_and(serde_json::Value::is_string);
        match crate::client::parse_completion(&body.to_string()) {
            // a null or missing content (a refusal, a filtered answer) is not an answer to keep:
            // cached, it would be a null no re-run repairs; the next export writes it again
            Ok(_) if !content_given => {
                report.failed.push(fail("the completion has no message content (a refusal or a filtered answer)".into()));
                seen.remove(id);
            }
            Ok(reply) => accepted.push((id.to_owned(), reply)),
            Err(why) => {
                report.failed.push(fail(format!("the body is not a chat completion: {}", crate::client::redact(&why, None))));
                seen.remove(id);
            }
        }
        Ok(())
    })?;
    for (id, reply) in &accepted {
        if cache.import(id, reply)? {
            report.imported += 1;
        } else {
            report.already += 1;
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::{LlmOptions, LlmRuntime, Protocol};

    fn options(dir: &Path, base_url: Option<&str>) -> LlmOptions {
        LlmOptions {
            base_url: base_url.map(str::to_owned),
            model: Some("m".into()),
            served_model: Some("declared-m".into()),
            runtime: LlmRuntime { cache: Some(dir.join("cache.sqlite")), ..LlmRuntime::default() },
            ..LlmOptions::default()
        }
    }

    fn completion(content: &str) -> Value {
        serde_json::json!({"choices": [{"message": {"content": content}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 5, "completion_tokens": 2}})
    }

    /// A declared served model needs no server; its keys do not depend on the base URL.
    #[test]
    fn declared_export_is_offline_and_keyed_without_the_url() {
        let d = tempfile::tempdir().unwrap();
        let spans = vec!["fewer exacerbations".to_owned()];
        let rows = [RowInput { source: "An abstract.", summary: "A summary.", evidence: Some(&spans) }];
        let offline = Evaluator::try_new(Protocol::FullText, &options(d.path(), None)).unwrap();
        // nothing listens on port 9: a declared model is never asked for
        let with_url = Evaluator::try_new(Protocol::FullText, &options(d.path(), Some("http://127.0.0.1:9/v1"))).unwrap();
        let a = offline.batch_export(&rows).unwrap();
        let b = with_url.batch_export(&rows).unwrap();
        assert_eq!(a.requests.len(), 5, "4 elements + 1 span");
        assert_eq!(a, b);
        assert_eq!(offline.provenance()["base_url"], Value::Null);
        assert_eq!(offline.provenance()["served_model"], serde_json::json!({"id": "declared-m", "declared": true}));
        let line: Value = serde_json::from_str(&a.requests[0].line()).unwrap();
        assert_eq!(line["url"], "/v1/chat/completions");
        assert_eq!(line["custom_id"], a.requests[0].custom_id.as_str());
        // Scored with no URL and nothing cached: failures naming the missing base URL, nothing sent.
        let r = offline.evaluate(&rows);
        assert!(r[0].nulls["llm_population"].contains("no `llm.base_url`"), "{:?}", r[0].nulls);

        // Recorded, answered, imported: the next export finds nothing missing.
        offline.record_exported(&a.requests).unwrap();
        let results = d.path().join("results.jsonl");
        let mut text = String::new();
        for (i, r) in a.requests.iter().enumerate() {
            let v = if i == 0 {
                serde_json::json!({"id": "x", "custom_id": r.custom_id, "response": {"status_code": 500, "body": {"error": {"message": "boom"}}}, "error": null})
            } else {
                serde_json::json!({"id": "x", "custom_id": r.custom_id, "response": {"status_code": 200, "request_id": "q", "body": completion("Rating: 1\nRationale: ok")}, "error": null})
            };
            text.push_str(&format!("{v}\n"));
        }
        std::fs::write(&results, text).unwrap();
        let cache = Cache::open(&d.path().join("cache.sqlite")).unwrap();
        let rep = import(&cache, &results, None).unwrap();
        assert_eq!((rep.lines, rep.imported, rep.already, rep.failed.len()), (5, 4, 0, 1));
        assert!(rep.failed[0].starts_with("line 1 (custom_id") && rep.failed[0].contains("HTTP 500: boom"), "{:?}", rep.failed);
        assert_eq!(cache.pending_len().unwrap(), 1);
        let again = offline.batch_export(&rows).unwrap();
        assert_eq!(again.requests.len(), 1);
        assert_eq!(again.requests[0], a.requests[0]);
        assert_eq!(again.cached, 4);
        let rep = import(&cache, &results, None).unwrap();
        assert_eq!((rep.imported, rep.already), (0, 4));
    }

    #[test]
    fn refusals_name_the_line_and_import_nothing() {
        let d = tempfile::tempdir().unwrap();
        let cache = Cache::open(&d.path().join("c.sqlite")).unwrap();
        let body = serde_json::json!({"model": "m", "messages": []});
        cache.put_pending("k1", "", "m", &body).unwrap();
        let ok = serde_json::json!({"custom_id": "k1", "response": {"status_code": 200, "body": completion("x")}, "error": null});
        let write = |name: &str, lines: &[Value]| {
            let p = d.path().join(name);
            std::fs::write(&p, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
            p
        };
        let foreign = write("r1.jsonl", &[ok.clone(), serde_json::json!({"custom_id": "k9", "response": {"status_code": 200, "body": completion("y")}})]);
        let e = import(&cache, &foreign, None).unwrap_err().to_string();
        assert!(e.contains("r1.jsonl line 2: custom_id k9 was not exported"), "{e}");
        assert_eq!(cache.pending_len().unwrap(), 1, "nothing imported");
        let req = write("req.jsonl", &[serde_json::json!({"custom_id": "k1", "method": "POST", "url": CHAT_COMPLETIONS_URL, "body": {"model": "m", "messages": [], "seed": 3}})]);
        let one = write("r2.jsonl", &[ok]);
        let e = import(&cache, &one, Some(&req)).unwrap_err().to_string();
        assert!(e.contains("r2.jsonl line 1") && e.contains("`seed` differ"), "{e}");
        let e = import(&cache, &write("r3.jsonl", &[serde_json::json!({"id": 1})]), None).unwrap_err().to_string();
        assert!(e.contains("r3.jsonl line 1: no string `custom_id`"), "{e}");
        assert_eq!(cache.pending_len().unwrap(), 1);
    }
}
