//! FactPICO's prompt templates (a data file) and their exact rendering.
//!
//! The templates are `templates/factpico.json`, written by `tests/goldens/gen_llm_prompts.py`
//! from the reference's own module-level strings (GitHub `lilywchen/FactPICO`, commit
//! [`REFERENCE_COMMIT`], `code/llm_evaluations/`, MIT licence — see `THIRD_PARTY.md`). The
//! rendering reproduces the reference code's substitutions, quirks included:
//!
//! * P/I/C/O prompts (`llm_gen.py: pico_gen_gpt`, `pico_extract.py: pico_gen_gpt`): every
//!   `<PICOElem>` becomes the reference's element key (`population`, `interventions`,
//!   `comparator`, `outcome`), except that for `interventions` each `<PICOElem> is` first becomes
//!   `interventions are`; then every `<PICOInfo>` becomes the element's definition.
//! * User messages are the reference's `str.format` layouts (for example
//!   `"Abstract:\n{}\n\nSummary:\n{}\n"`), filled in one pass: text that itself contains `{}`,
//!   `<PICOElem>` or braces is inserted verbatim.
//!
//! `tests/llm_prompts_golden.rs` proves byte-identity with the reference's renderings for the
//! fixtures (in full) and for 300 real pairs plus Evidence Inference 2.0 spans (sha256).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use sha2::Digest;

/// The template data file, compiled in.
pub const TEMPLATES_JSON: &str = include_str!("../templates/factpico.json");

/// Commit of `lilywchen/FactPICO` the templates were taken from.
pub const REFERENCE_COMMIT: &str = "2e16993a000aedb15cb348b7bcd61070d26bab14";

/// A PICO element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Element {
    /// P: the trial's subjects.
    Population,
    /// I: the treatments considered.
    Intervention,
    /// C: the alternative treatment the intervention is compared with.
    Comparator,
    /// O: the outcome measures.
    Outcome,
}

impl Element {
    /// P, I, C, O in the paper's order.
    pub const ALL: [Self; 4] = [Self::Population, Self::Intervention, Self::Comparator, Self::Outcome];

    /// Our name (column suffix): `population`, `intervention`, `comparator`, `outcome`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Population => "population",
            Self::Intervention => "intervention",
            Self::Comparator => "comparator",
            Self::Outcome => "outcome",
        }
    }

    /// The reference's key (`info_label`), which is also the word substituted into the prompt:
    /// note `interventions` (plural).
    pub fn reference_key(self) -> &'static str {
        match self {
            Self::Intervention => "interventions",
            other => other.name(),
        }
    }
}

/// One chat request's messages: a system prompt and a user message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Messages {
    /// The system message.
    pub system: String,
    /// The user message.
    pub user: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Part {
    Text(String),
    Slot { slot: String },
}

#[derive(Debug, Clone, Deserialize)]
struct Prompt {
    system: String,
    user: Vec<Part>,
    #[serde(default)]
    element_info: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
struct File {
    source: String,
    commit: String,
    prompts: BTreeMap<String, Prompt>,
}

/// The six prompts of FactPICO's LLM evaluations.
#[derive(Debug, Clone)]
pub struct Templates {
    source: String,
    commit: String,
    version: String,
    full_text_pico: Prompt,
    full_text_result: Prompt,
    extract_pico: Prompt,
    pipeline_pico: Prompt,
    extract_result: Prompt,
    pipeline_result: Prompt,
}

impl Templates {
    /// Parses a template file (the layout of `templates/factpico.json`).
    ///
    /// # Errors
    /// A message naming what is missing or malformed.
    pub fn parse(json: &str) -> Result<Self, String> {
        let mut f: File = serde_json::from_str(json).map_err(|e| format!("template file: {e}"))?;
        let mut take = |name: &str, slots: &[&str], info: bool| -> Result<Prompt, String> {
            let p = f.prompts.remove(name).ok_or_else(|| format!("template file: no prompt {name:?}"))?;
            for part in &p.user {
                if let Part::Slot { slot } = part {
                    if !slots.contains(&slot.as_str()) {
                        return Err(format!("template file: prompt {name:?} has an unknown slot {slot:?}"));
                    }
                }
            }
            if info {
                for e in Element::ALL {
                    if !p.element_info.contains_key(e.reference_key()) {
                        return Err(format!("template file: prompt {name:?} has no definition of {:?}", e.reference_key()));
                    }
                }
            }
            Ok(p)
        };
        let full_text_pico = take("full_text_pico", &["abstract", "summary"], true)?;
        let full_text_result = take("full_text_result", &["span", "summary"], false)?;
        let extract_pico = take("extract_pico", &["text"], false)?;
        let pipeline_pico = take("pipeline_pico", &["abstract_pico", "summary_pico"], true)?;
        let extract_result = take("extract_result", &["text"], false)?;
        let pipeline_result = take("pipeline_result", &["span", "summary_results"], false)?;
        let digest = hex::encode(sha2::Sha256::digest(json.as_bytes()));
        let version = format!("factpico@{}+{}", &f.commit[..f.commit.len().min(12)], &digest[..12]);
        Ok(Self {
            source: f.source,
            commit: f.commit,
            version,
            full_text_pico,
            full_text_result,
            extract_pico,
            pipeline_pico,
            extract_result,
            pipeline_result,
        })
    }

    /// The compiled-in FactPICO templates (parsed once).
    pub fn factpico() -> &'static Self {
        static T: OnceLock<Templates> = OnceLock::new();
        // The file is compiled in and checked by this crate's tests (`templates_parse`), so a
        // failure here is a build defect, not an input error.
        #[allow(clippy::expect_used)]
        T.get_or_init(|| Self::parse(TEMPLATES_JSON).expect("compiled-in templates/factpico.json is valid"))
    }

    /// Template version: `factpico@<12 hex of the commit>+<12 hex of sha256(template file)>`;
    /// enters the cache key and the provenance.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Source repository and commit of the templates.
    pub fn source(&self) -> (&str, &str) {
        (&self.source, &self.commit)
    }

    /// Full text, one PICO element (`llm_gen.py: pico_gen_gpt`): rating 1–5 of how the summary
    /// describes `element` of the abstract.
    pub fn full_text_pico(&self, element: Element, abstract_: &str, summary: &str) -> Messages {
        Messages {
            system: pico_system(&self.full_text_pico, element),
            user: fill(&self.full_text_pico.user, &[("abstract", abstract_), ("summary", summary)]),
        }
    }

    /// Full text, evidence inference (`result_gen.py: result_gen_gpt`): rating 1–4 of how the
    /// summary conveys the result `span`.
    pub fn full_text_result(&self, span: &str, summary: &str) -> Messages {
        Messages {
            system: self.full_text_result.system.clone(),
            user: fill(&self.full_text_result.user, &[("span", span), ("summary", summary)]),
        }
    }

    /// Pipeline stage 1 (`pico_extract.py: pico_extract`): quote the PICO elements of `text`
    /// (the abstract or the summary).
    pub fn extract_pico(&self, text: &str) -> Messages {
        Messages { system: self.extract_pico.system.clone(), user: fill(&self.extract_pico.user, &[("text", text)]) }
    }

    /// Pipeline stage 2 (`pico_extract.py: pico_gen_gpt`): rating 1–5 of `element` over the
    /// two extractions.
    pub fn pipeline_pico(&self, element: Element, abstract_pico: &str, summary_pico: &str) -> Messages {
        Messages {
            system: pico_system(&self.pipeline_pico, element),
            user: fill(&self.pipeline_pico.user, &[("abstract_pico", abstract_pico), ("summary_pico", summary_pico)]),
        }
    }

    /// Pipeline stage 1 for R (`res_extract.py: res_extract`): quote the result spans of the summary.
    pub fn extract_result(&self, summary: &str) -> Messages {
        Messages { system: self.extract_result.system.clone(), user: fill(&self.extract_result.user, &[("text", summary)]) }
    }

    /// Pipeline stage 2 for R (`res_extract.py: res_gen_gpt`): rating 1–4 of the gold `span`
    /// against the result spans extracted from the summary.
    pub fn pipeline_result(&self, span: &str, summary_results: &str) -> Messages {
        Messages {
            system: self.pipeline_result.system.clone(),
            user: fill(&self.pipeline_result.user, &[("span", span), ("summary_results", summary_results)]),
        }
    }
}

/// The published prompts' closing instruction, replaced in the rating-only variant.
pub const PUBLISHED_CLOSING: &str = "Please provide only the rating and the rationale for the rating. Provide the rating after stating \"Rating:\".";

/// The rating-only variant's closing instruction.
pub const RATING_ONLY_CLOSING: &str = "Answer with the rating's digit only.";

/// The rating-only variant's system message (the same for every request, so that a server's
/// prompt cache can reuse it with the texts that follow).
pub const RATING_ONLY_SYSTEM: &str =
    "You are given texts about a randomized controlled trial, then instructions to rate a summary. Answer with the rating's digit only.";

/// The rating-only variant ([`crate::options::PromptVariant::RatingOnly`]) of published rating
/// messages: a constant system message; the user message is `shared` (the texts, in the order
/// that lets a prompt cache reuse them) followed by the published system prompt with its
/// closing instruction replaced by [`RATING_ONLY_CLOSING`].
fn rating_only(published_system: &str, shared: String) -> Messages {
    let instructions = published_system.trim().replace(PUBLISHED_CLOSING, RATING_ONLY_CLOSING);
    Messages { system: RATING_ONLY_SYSTEM.to_owned(), user: format!("{shared}\n{instructions}\n") }
}

impl Templates {
    /// [`Templates::full_text_pico`] in the rating-only variant: abstract and summary first.
    pub fn full_text_pico_rating_only(&self, element: Element, abstract_: &str, summary: &str) -> Messages {
        let shared = fill(&self.full_text_pico.user, &[("abstract", abstract_), ("summary", summary)]);
        rating_only(&pico_system(&self.full_text_pico, element), shared)
    }

    /// [`Templates::full_text_result`] in the rating-only variant: the summary first, then the span.
    pub fn full_text_result_rating_only(&self, span: &str, summary: &str) -> Messages {
        rating_only(&self.full_text_result.system, format!("Summary:\n{summary}\n\nResult Inference Span:\n{span}\n"))
    }

    /// [`Templates::pipeline_pico`] in the rating-only variant: the two extractions first.
    pub fn pipeline_pico_rating_only(&self, element: Element, abstract_pico: &str, summary_pico: &str) -> Messages {
        let shared = fill(&self.pipeline_pico.user, &[("abstract_pico", abstract_pico), ("summary_pico", summary_pico)]);
        rating_only(&pico_system(&self.pipeline_pico, element), shared)
    }

    /// [`Templates::pipeline_result`] in the rating-only variant.
    pub fn pipeline_result_rating_only(&self, span: &str, summary_results: &str) -> Messages {
        let shared = fill(&self.pipeline_result.user, &[("span", span), ("summary_results", summary_results)]);
        rating_only(&self.pipeline_result.system, shared)
    }
}

/// The reference's system-prompt substitution for one element.
fn pico_system(p: &Prompt, element: Element) -> String {
    let key = element.reference_key();
    let s = if element == Element::Intervention {
        p.system.replace("<PICOElem> is", "interventions are").replace("<PICOElem>", key)
    } else {
        p.system.replace("<PICOElem>", key)
    };
    let info = p.element_info.get(key).map_or("", String::as_str);
    s.replace("<PICOInfo>", info)
}

/// Concatenates literal parts and slot values (slot names validated by [`Templates::parse`]).
fn fill(parts: &[Part], values: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for p in parts {
        match p {
            Part::Text(t) => out.push_str(t),
            Part::Slot { slot } => {
                if let Some((_, v)) = values.iter().find(|(k, _)| k == slot) {
                    out.push_str(v);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn templates_parse() {
        let t = Templates::parse(TEMPLATES_JSON).unwrap();
        assert_eq!(t.source().1, REFERENCE_COMMIT);
        assert!(t.version().starts_with("factpico@2e16993a000a+"));
    }

    #[test]
    fn rating_only_variant_replaces_only_the_closing_instruction() {
        let t = Templates::factpico();
        for e in Element::ALL {
            let pubd = t.full_text_pico(e, "ABSTRACT TEXT", "SUMMARY TEXT");
            let m = t.full_text_pico_rating_only(e, "ABSTRACT TEXT", "SUMMARY TEXT");
            assert!(pubd.system.contains(PUBLISHED_CLOSING));
            assert!(m.user.starts_with("Abstract:\nABSTRACT TEXT\n\nSummary:\nSUMMARY TEXT\n"), "{}", m.user);
            assert!(m.user.contains(&pubd.system.trim().replace(PUBLISHED_CLOSING, RATING_ONLY_CLOSING)));
            assert!(!m.user.contains(PUBLISHED_CLOSING) && !m.system.contains(PUBLISHED_CLOSING));
            assert_eq!(m.system, RATING_ONLY_SYSTEM);
            let p = t.pipeline_pico_rating_only(e, "A-PICO", "S-PICO");
            assert!(p.user.starts_with("Abstract:\nA-PICO\n\nSummary:\nS-PICO\n") && p.user.ends_with(&format!("{RATING_ONLY_CLOSING}\n")));
        }
        // the elements of one summary share everything before the instructions
        let a = t.full_text_pico_rating_only(Element::Population, "A", "S");
        let b = t.full_text_pico_rating_only(Element::Outcome, "A", "S");
        assert_eq!(a.system, b.system);
        assert!(a.user.starts_with("Abstract:\nA\n\nSummary:\nS\n\n") && b.user.starts_with("Abstract:\nA\n\nSummary:\nS\n\n"));
        let r = t.full_text_result_rating_only("SPAN", "SUM");
        assert!(r.user.starts_with("Summary:\nSUM\n\nResult Inference Span:\nSPAN\n") && r.user.contains(RATING_ONLY_CLOSING));
        assert!(t.pipeline_result_rating_only("SPAN", "RES").user.contains(RATING_ONLY_CLOSING));
    }

    #[test]
    fn intervention_quirk_and_info() {
        let t = Templates::factpico();
        let m = t.full_text_pico(Element::Intervention, "A", "S");
        assert!(m.system.contains("The interventions are mentioned in the model summary"));
        assert!(m.system.contains("Find the interventions in accordance with PICO"));
        assert!(m.system.contains("Intervention in PICO describes the treatments"));
        assert!(!m.system.contains("<PICO"));
        let p = t.full_text_pico(Element::Population, "A", "S");
        assert!(p.system.contains("The population is mentioned"));
        assert_eq!(p.user, "Abstract:\nA\n\nSummary:\nS\n");
    }

    #[test]
    fn slots_are_filled_in_one_pass() {
        let t = Templates::factpico();
        let m = t.full_text_pico(Element::Outcome, "{summary} <PICOElem>", "{abstract}");
        assert_eq!(m.user, "Abstract:\n{summary} <PICOElem>\n\nSummary:\n{abstract}\n");
    }

    #[test]
    fn parse_rejects_unknown_slots() {
        let bad = TEMPLATES_JSON.replacen("\"slot\": \"text\"", "\"slot\": \"nope\"", 1);
        assert!(Templates::parse(&bad).unwrap_err().contains("unknown slot"));
    }
}
