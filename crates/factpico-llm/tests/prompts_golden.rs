//! The LLM evaluators' prompts are byte-identical to what FactPICO's own prompt code renders
//! (`tests/goldens/llm_prompts.json`, produced by `tests/goldens/gen_llm_prompts.py`, which calls
//! the reference's functions with a recording OpenAI client):
//!
//! * fixtures and adversarial strings: every message compared in full;
//! * the 300 real pairs and the Evidence Inference 2.0 spans joined to InfoLossQA on PMCID:
//!   `sha256(system ‖ 0x00 ‖ user)` compared (the shared texts are never stored).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../tests/common/mod.rs"]
mod common;

use std::collections::{BTreeMap, HashMap, HashSet};

use factpico_llm::{Element, Messages, Templates};
use serde_json::Value;
use sha2::Digest;

fn golden() -> Value {
    let p = common::workspace_root().join("tests/goldens/llm_prompts.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn element(name: &str) -> Element {
    match name {
        "population" => Element::Population,
        "interventions" => Element::Intervention,
        "comparator" => Element::Comparator,
        "outcome" => Element::Outcome,
        other => panic!("unknown element {other}"),
    }
}

/// Renders one golden case with our templates.
fn render(t: &Templates, case: &Value, abstract_: &str, summary: &str, spans: &[String], ex: &[String]) -> Messages {
    let which = &case["which"];
    match case["kind"].as_str().unwrap() {
        "full_text_pico" => t.full_text_pico(element(case["element"].as_str().unwrap()), abstract_, summary),
        "extract_pico" => t.extract_pico(if which == "abstract" { abstract_ } else { summary }),
        "pipeline_pico" => t.pipeline_pico(element(case["element"].as_str().unwrap()), &ex[0], &ex[1]),
        "extract_result" => t.extract_result(summary),
        "full_text_result" => t.full_text_result(&spans[which.as_u64().unwrap() as usize], summary),
        "pipeline_result" => t.pipeline_result(&spans[which.as_u64().unwrap() as usize], &ex[2]),
        other => panic!("unknown kind {other}"),
    }
}

/// The generator's stand-ins for stage-1 replies: the first sentence (text before the first ". ").
fn stand_ins(abstract_: &str, summary: &str) -> Vec<String> {
    let first = |t: &str| t.split(". ").next().unwrap_or("").to_owned();
    vec![format!("Population: \"{}\"", first(abstract_)), format!("Population: \"{}\"", first(summary)), format!("\"{}\"", first(summary))]
}

#[test]
fn fixture_prompts_are_byte_identical_to_the_reference() {
    let g = golden();
    let t = Templates::factpico();
    let systems = g["systems"].as_object().unwrap();
    let mut n = 0;
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for case in g["fixtures"].as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        let inp = &g["inputs"][id];
        let spans: Vec<String> = serde_json::from_value(inp["spans"].clone()).unwrap();
        let ex: Vec<String> = serde_json::from_value(inp["extracted"].clone()).unwrap();
        let m = render(t, case, inp["abstract"].as_str().unwrap(), inp["summary"].as_str().unwrap(), &spans, &ex);
        let want_system = systems[case["system_sha256"].as_str().unwrap()].as_str().unwrap();
        assert_eq!(m.system, want_system, "system prompt of {id} {}", case["kind"]);
        assert_eq!(m.user, case["user"].as_str().unwrap(), "user message of {id} {}", case["kind"]);
        n += 1;
        *kinds.entry(case["kind"].as_str().unwrap().to_owned()).or_default() += 1;
    }
    assert!(n >= 250, "only {n} fixture renderings");
    assert_eq!(kinds.len(), 6, "{kinds:?}");
    println!("llm prompts: {n} fixture renderings byte-identical to the reference's ({kinds:?})");
}

/// Evidence Inference 2.0 spans of the InfoLossQA documents, as the generator selects them.
fn ei_spans(shared: &std::path::Path, ilq: &HashSet<String>) -> HashMap<String, Vec<String>> {
    let mut rdr = csv::Reader::from_path(shared.join("data/nli-train/evidence-inference/v2_annotations.csv")).unwrap();
    let h = rdr.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (pm, vl, vr, ann) = (col("PMCID"), col("Valid Label"), col("Valid Reasoning"), col("Annotations"));
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for r in rdr.records() {
        let r = r.unwrap();
        if ilq.contains(&r[pm]) && &r[vl] == "True" && &r[vr] == "True" {
            let v = out.entry(r[pm].to_owned()).or_default();
            if !v.iter().any(|s| s == &r[ann]) {
                v.push(r[ann].to_owned());
            }
        }
    }
    out
}

#[test]
fn real_prompts_match_the_reference_by_sha256() {
    let Some(pairs) = common::real_pairs("real_prompts_match_the_reference_by_sha256") else { return };
    let Some(ei) = common::require_shared("real_prompts_match_the_reference_by_sha256", "data/nli-train/evidence-inference/v2_annotations.csv") else {
        return;
    };
    let shared = ei.ancestors().nth(4).unwrap().to_owned();
    let ilq: HashSet<String> = pairs.iter().filter_map(|p| p.id.strip_prefix("ilq:").map(str::to_owned)).collect();
    let spans = ei_spans(&shared, &ilq);
    let by_id: HashMap<&str, &common::Pair> = pairs.iter().map(|p| (p.id.as_str(), p)).collect();
    let g = golden();
    let t = Templates::factpico();
    let fields: Vec<&str> = g["real_fields"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert_eq!(fields, ["id", "kind", "element", "which", "sha256"]);
    let mut n = 0;
    let mut span_renderings = 0;
    for row in g["real"].as_array().unwrap() {
        let case: serde_json::Map<String, Value> = fields.iter().zip(row.as_array().unwrap()).map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
        let case = Value::Object(case);
        let id = case["id"].as_str().unwrap();
        let p = by_id[id];
        let sp = id.strip_prefix("ilq:").and_then(|pm| spans.get(pm)).cloned().unwrap_or_default();
        let m = render(t, &case, &p.source, &p.summary, &sp, &stand_ins(&p.source, &p.summary));
        let mut h = sha2::Sha256::new();
        h.update(m.system.as_bytes());
        h.update([0u8]);
        h.update(m.user.as_bytes());
        assert_eq!(hex::encode(h.finalize()), case["sha256"].as_str().unwrap(), "{id} {} {} {}", case["kind"], case["element"], case["which"]);
        n += 1;
        span_renderings += usize::from(case["kind"].as_str().unwrap().ends_with("_result") && case["which"].is_u64());
    }
    let docs_with_spans = spans.values().filter(|v| !v.is_empty()).count();
    assert_eq!(n, 300 * 11 + span_renderings);
    assert!(span_renderings > 0);
    println!(
        "llm prompts: {n} real renderings (300 pairs; {} EI 2.0 spans over {docs_with_spans} InfoLossQA documents) match the reference's sha256",
        span_renderings / 2
    );
}
