"""FactPICO's LLM-evaluation prompts, rendered by the reference's own code.

Reference: GitHub ``lilywchen/FactPICO`` (MIT, (c) 2024 Lily Chen), commit
``2e16993a000aedb15cb348b7bcd61070d26bab14``, ``code/llm_evaluations/``:
``llm_gen.py`` (per-element P/I/C/O over the full texts), ``result_gen.py`` (evidence
inference over the full summary), ``pico_extract.py`` and ``res_extract.py`` (the two-stage
extract-then-rate pipeline).

The reference scripts cannot run as they are: each reads ``pd.read_csv("")`` and builds API
clients at import time, and ``llm_gen.py`` calls an undefined ``process_gen`` (only in its
Together-API path, which is not used here). This harness imports them unmodified with stub
modules for ``openai`` (a *recording* client), ``together``, ``dotenv``, ``pandas`` (an empty
data frame, so the module-level loops do nothing), ``tqdm`` and ``time.sleep``, then calls
their own functions (``pico_gen_gpt``, ``result_gen_gpt``, ``pico_extract``, ``res_extract``,
``res_gen_gpt``) and records the chat messages each one sends. Nothing needs installing: run
it with any Python >= 3.8::

    git clone https://github.com/lilywchen/FactPICO /tmp/FactPICO   # or any snapshot of it
    git -C /tmp/FactPICO checkout 2e16993a000aedb15cb348b7bcd61070d26bab14
    python3 tests/goldens/gen_llm_prompts.py --reference /tmp/FactPICO

Writes:

* ``crates/factpico-llm/templates/factpico.json`` -- the prompt templates as data: the
  reference's module-level prompt strings verbatim, and the user-message layouts recovered by
  calling each function once with sentinel values (``user``: literal parts and ``{"slot": ..}``);
  with the source commit, file sha256s and the licence notice.
* ``tests/goldens/llm_prompts.json`` -- the recorded renderings:
  - ``fixtures``: every prompt kind for ``fixtures/pairs.jsonl`` and ``edge_cases.jsonl``
    (with the ``evidence`` spans of ``pairs.jsonl``) and hand-written adversarial strings
    (placeholders, braces, backslashes, Unicode): messages stored in full (our own texts);
  - ``inputs``: each fixture case's abstract, summary, spans and stand-in extractions;
  - ``systems``: each distinct system prompt once, keyed by its sha256 (cases refer to it);
  - ``real``: the 300 real pairs of ``corpus.pairs()`` and the Evidence Inference 2.0 spans of
    the 21 InfoLossQA documents that join on PMCID: ids and
    ``sha256(system + "\\x00" + user)`` only (rows ``[id, kind, element, which, sha256]``) --
    no text of ``../shared``.
"""
import argparse
import csv
import hashlib
import importlib.util
import json
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402

COMMIT = "2e16993a000aedb15cb348b7bcd61070d26bab14"
FILES = ["llm_gen.py", "result_gen.py", "pico_extract.py", "res_extract.py"]
ELEMENTS = ["population", "interventions", "comparator", "outcome"]

# ---------------------------------------------------------------- stubs
RECORDED = []
CANNED_REPLY = "Rating: 1\nRationale: (recording client)"


class _Message:
    def __init__(self, content):
        self.content = content


class _Choice:
    def __init__(self, content):
        self.message = _Message(content)


class _Response:
    def __init__(self, content):
        self.choices = [_Choice(content)]


class _Completions:
    def create(self, **kwargs):
        RECORDED.append(kwargs)
        return _Response(CANNED_REPLY)


class _Chat:
    def __init__(self):
        self.completions = _Completions()


class RecordingOpenAI:
    def __init__(self, *args, **kwargs):
        self.chat = _Chat()


class FakeFrame:
    """The empty data frame every reference script reads from ``pd.read_csv("")``."""

    def __init__(self, *args, **kwargs):
        self.columns = []
        self.shape = (0, 0)

    def __setitem__(self, key, value):
        self.columns.append(key)

    def iterrows(self):
        return iter(())

    def to_csv(self, *args, **kwargs):
        pass


def install_stubs():
    openai = types.ModuleType("openai")
    openai.OpenAI = RecordingOpenAI
    together = types.ModuleType("together")
    together.api_key = None
    together.Complete = None
    dotenv = types.ModuleType("dotenv")
    dotenv.load_dotenv = lambda *a, **k: True
    pandas = types.ModuleType("pandas")
    pandas.read_csv = lambda *a, **k: FakeFrame()
    pandas.isna = lambda v: v is None
    pandas.DataFrame = types.SimpleNamespace(from_dict=lambda *a, **k: FakeFrame())
    tqdm = types.ModuleType("tqdm")
    tqdm.tqdm = lambda it=None, *a, **k: it
    for name, mod in [("openai", openai), ("together", together), ("dotenv", dotenv),
                      ("pandas", pandas), ("tqdm", tqdm)]:
        sys.modules[name] = mod
    time.sleep = lambda s: None  # pico_extract.py / llm_gen.py sleep between calls


def load(reference: Path, name: str):
    path = reference / "code" / "llm_evaluations" / name
    spec = importlib.util.spec_from_file_location(name[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def record(call):
    """Runs ``call()`` and returns the one request it sent: (system, user)."""
    before = len(RECORDED)
    call()
    assert len(RECORDED) == before + 1, "expected exactly one request"
    msgs = RECORDED[-1]["messages"]
    assert [m["role"] for m in msgs] == ["system", "user"], msgs
    return msgs[0]["content"], msgs[1]["content"]


# ---------------------------------------------------------------- the reference's functions
class Reference:
    def __init__(self, reference: Path):
        self.llm_gen = load(reference, "llm_gen.py")
        self.result_gen = load(reference, "result_gen.py")
        self.pico_extract = load(reference, "pico_extract.py")
        self.res_extract = load(reference, "res_extract.py")
        self.client = RecordingOpenAI()

    def full_text_pico(self, element, abstract, summary):
        row = {"Abstract": abstract, "generation": summary}
        return record(lambda: self.llm_gen.pico_gen_gpt(row, element, self.client))

    def full_text_result(self, span, summary):
        row = {"results_span": span, "generation": summary}
        return record(lambda: self.result_gen.result_gen_gpt(row, self.client))

    def extract_pico(self, text):
        return record(lambda: self.pico_extract.pico_extract(text))

    def pipeline_pico(self, element, abstract_pico, summary_pico):
        return record(lambda: self.pico_extract.pico_gen_gpt(abstract_pico, summary_pico, element))

    def extract_result(self, text):
        return record(lambda: self.res_extract.res_extract(text))

    def pipeline_result(self, span, summary_results):
        return record(lambda: self.res_extract.res_gen_gpt(span, summary_results))


def layout(rendered: str, sentinels: dict):
    """Splits a rendering made with sentinel values into literal parts and slots."""
    parts = []
    rest = rendered
    while rest:
        hits = [(rest.find(s), s) for s in sentinels if s in rest]
        if not hits:
            parts.append(rest)
            break
        pos, s = min(hits)
        if pos:
            parts.append(rest[:pos])
        parts.append({"slot": sentinels[s]})
        rest = rest[pos + len(s):]
    return parts


def templates(ref: Reference, reference: Path):
    s = {"\x00A\x00": "abstract", "\x00S\x00": "summary", "\x00T\x00": "text",
         "\x00R\x00": "span", "\x00X\x00": "summary_results",
         "\x00PA\x00": "abstract_pico", "\x00PS\x00": "summary_pico"}
    inv = {v: k for k, v in s.items()}
    lg, rg, pe, re_ = ref.llm_gen, ref.result_gen, ref.pico_extract, ref.res_extract
    assert list(lg.info_label) == ELEMENTS and list(pe.info_label) == ELEMENTS
    out = {
        "description": "FactPICO's LLM-evaluation prompt templates, taken verbatim from the reference "
                       "(module-level strings; user-message layouts recovered by calling each function "
                       "with sentinel values). Written by tests/goldens/gen_llm_prompts.py; do not edit.",
        "source": "https://github.com/lilywchen/FactPICO",
        "commit": COMMIT,
        "license": "MIT License, Copyright (c) 2024 Lily Chen (see THIRD_PARTY.md)",
        "files": {f"code/llm_evaluations/{f}": hashlib.sha256(
            (reference / "code" / "llm_evaluations" / f).read_bytes()).hexdigest() for f in FILES},
        "elements": ELEMENTS,
        "prompts": {
            "full_text_pico": {
                "from": "code/llm_evaluations/llm_gen.py: system_prompt1, info_label, pico_gen_gpt",
                "system": lg.system_prompt1,
                "element_info": dict(lg.info_label),
                "user": layout(ref.full_text_pico("population", inv["abstract"], inv["summary"])[1], s),
            },
            "full_text_result": {
                "from": "code/llm_evaluations/result_gen.py: result_prompt, result_gen_gpt",
                "system": rg.result_prompt,
                "user": layout(ref.full_text_result(inv["span"], inv["summary"])[1], s),
            },
            "extract_pico": {
                "from": "code/llm_evaluations/pico_extract.py: gpt_pico_extract_prompt, pico_extract",
                "system": pe.gpt_pico_extract_prompt,
                "user": layout(ref.extract_pico(inv["text"])[1], s),
            },
            "pipeline_pico": {
                "from": "code/llm_evaluations/pico_extract.py: gpt_system_prompt, info_label, pico_gen_gpt",
                "system": pe.gpt_system_prompt,
                "element_info": dict(pe.info_label),
                "user": layout(ref.pipeline_pico("population", inv["abstract_pico"], inv["summary_pico"])[1], s),
            },
            "extract_result": {
                "from": "code/llm_evaluations/res_extract.py: extract_res_prompt, res_extract",
                "system": re_.extract_res_prompt,
                "user": layout(ref.extract_result(inv["text"])[1], s),
            },
            "pipeline_result": {
                "from": "code/llm_evaluations/res_extract.py: result_ex_prompt, res_gen_gpt",
                "system": re_.result_ex_prompt,
                "user": layout(ref.pipeline_result(inv["span"], inv["summary_results"])[1], s),
            },
        },
    }
    return out


# ---------------------------------------------------------------- cases
def renderings(ref: Reference, case_id: str, abstract: str, summary: str, spans, extracted):
    """Every prompt kind for one (abstract, summary, spans) case. ``extracted``: stand-ins for the
    stage-1 replies of the pipeline (the rating prompts take any text)."""
    out = []
    for el in ELEMENTS:
        out.append(("full_text_pico", el, None, ref.full_text_pico(el, abstract, summary)))
    out.append(("extract_pico", None, "abstract", ref.extract_pico(abstract)))
    out.append(("extract_pico", None, "summary", ref.extract_pico(summary)))
    for el in ELEMENTS:
        out.append(("pipeline_pico", el, None, ref.pipeline_pico(el, extracted[0], extracted[1])))
    out.append(("extract_result", None, "summary", ref.extract_result(summary)))
    for i, span in enumerate(spans):
        out.append(("full_text_result", None, i, ref.full_text_result(span, summary)))
        out.append(("pipeline_result", None, i, ref.pipeline_result(span, extracted[2])))
    return [{"id": case_id, "kind": k, "element": el, "which": w, "system": sy, "user": us}
            for k, el, w, (sy, us) in out]


def stand_in_extractions(abstract, summary):
    """Deterministic stand-ins for the pipeline's stage-1 replies (first sentence of each text)."""
    first = lambda t: t.split(". ")[0]
    return (f"Population: \"{first(abstract)}\"", f"Population: \"{first(summary)}\"",
            f"\"{first(summary)}\"")


ADVERSARIAL = [
    ("adv-placeholders", "Trial of <PICOElem> and <PICOInfo> in {} {0} {abstract} %s adults.",
     "The <PICOElem> is {summary}; <PICOElem> is fine.", ["<PICOElem> is {} reduced"]),
    ("adv-escapes", "Back\\slash \\n and tab\there; quotes \"double\" 'single'.\r\nCRLF line.",
     "Trailing spaces   \n\n", ["span with \u2264 0.05 and \u00b5g, \u03b2-blocker \u2013 \U0001f600"]),
    ("adv-empty-spans", "Short abstract.", "Short summary.", ["", "   "]),
]


def ei_spans():
    """Evidence Inference 2.0 spans of the InfoLossQA documents that join on PMCID: valid label
    and reasoning, de-duplicated, in file order. ``{pmcid: [span, ...]}``."""
    root = corpus.shared_root() / "data"
    ilq = {str(d["PMCID"]) for d in json.loads(
        (root / "infolossqa" / "processed" / "documents.json").read_text("utf-8"))}
    spans = {}
    with open(root / "nli-train" / "evidence-inference" / "v2_annotations.csv", newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            pm = r["PMCID"]
            if pm in ilq and r["Valid Label"] == "True" and r["Valid Reasoning"] == "True":
                lst = spans.setdefault(pm, [])
                if r["Annotations"] not in lst:
                    lst.append(r["Annotations"])
    return spans


def sha(system, user):
    return hashlib.sha256((system + "\x00" + user).encode("utf-8")).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", required=True, type=Path, help="checkout of lilywchen/FactPICO")
    ap.add_argument("--no-real", action="store_true", help="skip ../shared (real pairs)")
    args = ap.parse_args()
    install_stubs()
    ref = Reference(args.reference)

    tpl = templates(ref, args.reference)
    tpl_path = REPO / "crates" / "factpico-llm" / "templates" / "factpico.json"
    tpl_path.parent.mkdir(parents=True, exist_ok=True)
    tpl_path.write_text(json.dumps(tpl, indent=1, ensure_ascii=False) + "\n", "utf-8")

    fixtures = []
    inputs = {}
    cases = []
    for name in ("pairs.jsonl", "edge_cases.jsonl"):
        with open(REPO / "fixtures" / name, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                cases.append((r["id"], r["source"], r["summary"], r.get("evidence") or [],
                              stand_in_extractions(r["source"], r["summary"])))
    cases += [(cid, a, s, spans, (a, s, s)) for cid, a, s, spans in ADVERSARIAL]
    for cid, a, s, spans, ex in cases:
        inputs[cid] = {"abstract": a, "summary": s, "spans": spans, "extracted": list(ex)}
        fixtures += renderings(ref, cid, a, s, spans, ex)

    real = []
    if not args.no_real:
        ei = ei_spans()
        for pid, a, s in corpus.pairs():
            spans = ei.get(pid[4:], []) if pid.startswith("ilq:") else []
            for c in renderings(ref, pid, a, s, spans, stand_in_extractions(a, s)):
                real.append([c["id"], c["kind"], c["element"], c["which"], sha(c["system"], c["user"])])

    # System prompts repeat across cases: stored once each, in full, keyed by their sha256.
    systems = {}
    for c in fixtures:
        key = hashlib.sha256(c["system"].encode("utf-8")).hexdigest()
        systems[key] = c.pop("system")
        c["system_sha256"] = key
    golden = {
        "reference": f"https://github.com/lilywchen/FactPICO @ {COMMIT}",
        "generator": "tests/goldens/gen_llm_prompts.py",
        "note": "Rendered by the reference's own functions with a recording OpenAI client. "
                "'which': extraction input (abstract/summary) or evidence span index. Pipeline "
                "rating prompts take stand-in extractions: for fixtures and real pairs "
                "'Population: \"<first sentence of abstract>\"', the same of the summary, and "
                "'\"<first sentence of summary>\"' for results (first sentence = text before the "
                "first '. '); adversarial cases use (abstract, summary, summary).",
        "inputs": inputs,
        "systems": systems,
        "fixtures": fixtures,
        "real_fields": ["id", "kind", "element", "which", "sha256"],
        "real": real,
        "real_spans_per_document": {k: len(v) for k, v in sorted(ei_spans().items())} if not args.no_real else {},
    }
    out = HERE / "llm_prompts.json"
    text = json.dumps({k: v for k, v in golden.items() if k != "real"}, indent=1, ensure_ascii=False)
    rows = ",\n".join(json.dumps(r, ensure_ascii=False) for r in real)
    text = text[:-2] + ',\n "real": [\n' + rows + "\n]\n}\n"
    json.loads(text)
    out.write_text(text, "utf-8")
    print(f"wrote {tpl_path.relative_to(REPO)} and {out.relative_to(REPO)}: "
          f"{len(fixtures)} fixture renderings, {len(real)} real renderings (sha256)")


if __name__ == "__main__":
    main()
