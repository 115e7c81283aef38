#!/usr/bin/env python3
"""Cross-check factpico's DAE input encoding against the REAL reference code.

Runs the unmodified `train_utils.py` of tagoyal/factuality-datasets (DAE-2021) from a
checkout OUTSIDE this repository and compares what its own `get_single_features` ->
`get_relevant_deps_and_context` -> `convert_examples_to_features` produce with the goldens
of `tests/goldens/gen_dae.py` (which `tests/dae_golden.rs` shows equal to the Rust encoder
`factpico_dae::encode::encode` and arc selection `factpico_dae::select::units`):

* arcs: the reference's ignore-list filter and 20-arc cap (its `dep_idx0..19` slots) against
  the golden arcs;
* input ids (full list for the fixtures, sha256 otherwise), attention-mask length (number of
  ones; the padded length is 512 on both sides), child/head positions, number of arcs;
* truncation: the reference does not return its `extra_len`; it is recovered as
  (length without truncation, from the reference run with `max_seq_length` = 1<<14) minus
  (length with 512), and compared with the golden `truncated`.

The reference is fed through a stand-in for its CoreNLP client (`nlp.annotate`) that returns
CoreNLP-server-shaped JSON built from our parses: for the summary one sentence with `tokens`
(`word`, `pos`) and `enhancedDependencies` (`dep`, `governor`, `governorGloss`, `dependent`,
`dependentGloss`, 1-based, ROOT = 0, roots first, then factpico's arc order); for the
article `tokens` (`word`). Inputs (words, arcs, article words) are rebuilt with the
generator's own functions (imported from gen_dae.py):

* `dae_fixtures.json`: the hand-written CoreNLP-style CoNLL-U fixtures; ALL enhanced arcs
  (ignored relations and roots included) go to the reference, which filters them itself;
  tiny-model vocabulary (`fixtures/models/dae-tiny/checkpoint`, `from_pretrained` as
  `evaluate_generated_outputs.py` does);
* `dae_real.json` (tiny vocabulary) and `dae_encoding.json` (full BERT-uncased vocabulary,
  written next to a `tokenizer_config.json` with `do_lower_case: true`): real InfoLossQA
  summaries parsed by the spaCy sidecar; the arcs after factpico's spaCy label mapping, all
  of them (uncapped), go to the reference, which caps them at 20.

Documented divergences (counted, not failures): an arc touching a word without wordpieces
(reference: `KeyError` in `index_map[...]`; factpico skips the arc; the unit is then
re-run on the reference with the skipped arcs removed and compared); a summary so long that
truncation would cut the article's `[CLS]` (reference: silently produces an input without
`[CLS]`, longer than 512 and/or with shifted positions; factpico: `summary_too_long`); a unit
with no kept arcs (reference: drops the example; factpico: documented null).

Nothing of the reference is copied here; it is imported from the path given.

Run (reference pins transformers 2.11.0; it imports unmodified there):
  git -C <mirror>/tagoyal+factuality-datasets/repo archive 80e1902 | tar -x -C /tmp/fd
  FACTPICO_SIDECAR_PYTHON=<spaCy venv>/bin/python <venv with torch, transformers 2.11.0 or
      4.x, pycorenlp 0.3.0>/bin/python tests/goldens/crosscheck_dae_reference.py /tmp/fd
  (or FACTPICO_DAE_REFERENCE=/tmp/fd). Exit status 1 on any unexpected mismatch.
"""
import argparse
import hashlib
import importlib
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "goldens"))
import gen_dae as gen  # noqa: E402
import corpus  # noqa: E402

UNCAPPED = 1 << 30
NO_TRUNC = 1 << 14
SHIMS = []


def import_reference(ref_dir):
    """Imports the reference's train_utils.py unmodified; returns (module, shims applied)."""
    sys.path.insert(0, str(ref_dir))
    try:
        return importlib.import_module("train_utils")
    except ModuleNotFoundError as e:
        if e.name != "transformers.modeling_electra":
            raise
    # transformers >= 3 moved the module; alias the same classes (no stub code)
    import transformers.models.electra.modeling_electra as me
    sys.modules["transformers.modeling_electra"] = me
    SHIMS.append("sys.modules['transformers.modeling_electra'] = transformers.models.electra.modeling_electra "
                 "(module moved in transformers >= 3; only ElectraPreTrainedModel/ElectraModel are imported "
                 "from it, and only by the model classes, not by the encoding)")
    return importlib.import_module("train_utils")


class FakeCoreNLP:
    """Stands in for pycorenlp.StanfordCoreNLP: returns server-shaped JSON for one unit."""

    def __init__(self, article_words, words, arcs):
        """arcs: [(head word index or None for ROOT, child word index, relation)]."""
        self.article = " ".join(article_words)
        self.article_words = list(article_words)
        self.summary = " ".join(words)
        deps = []
        for h, c, r in sorted(arcs, key=lambda a: a[0] is not None):  # roots first, as CoreNLP
            deps.append({"dep": r, "governor": 0 if h is None else h + 1,
                         "governorGloss": "ROOT" if h is None else words[h],
                         "dependent": c + 1, "dependentGloss": words[c]})
        self.parse = {"sentences": [{"index": 0, "tokens": [{"index": i + 1, "word": w, "pos": "X"}
                                                            for i, w in enumerate(words)],
                                     "enhancedDependencies": deps}]}

    def annotate(self, text, properties):
        if properties.get("annotators") == "tokenize":
            assert text == self.article, "article text"
            return {"tokens": [{"word": w} for w in self.article_words]}
        assert properties.get("annotators") == "tokenize,ssplit,pos,depparse", properties
        assert properties.get("ssplit.isOneSentence") is True and text == self.summary
        return self.parse


class Args:
    def __init__(self, n):
        self.max_seq_length = n


def run_reference(tu, tok, article_words, words, arcs, max_len):
    nlp = FakeCoreNLP(article_words, words, arcs)
    _, _, deps = tu.get_relevant_deps_and_context(nlp.summary, nlp)
    sel = [(d["head_idx"] - 1, d["child_idx"] - 1, d["dep"]) for d in deps][:20]
    try:
        ds = tu.get_single_features(nlp.summary, nlp.article, tok, nlp, Args(max_len))
    except KeyError as e:
        return {"selected": sel, "key_error": int(e.args[0])}
    t = ds.tensors
    if t[0].shape[0] == 0:
        return {"selected": sel, "dropped": True}
    n_att = int(t[1][0].sum())
    n = int(t[6][0])
    return {"selected": sel, "input_ids": t[0][0][:n_att].tolist(), "padded_len": int(t[0].shape[1]),
            "att_len": n_att, "att_prefix_ok": t[1][0][:n_att].tolist() == [1] * n_att,
            "child": t[2][0][:n].tolist(), "head": t[3][0][:n].tolist(), "n": n}


def sha(ids):
    return hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()


class Tally:
    def __init__(self, name):
        self.name = name
        self.units = self.arcs = self.truncated = self.key_error = self.too_long = self.dropped = 0
        self.full_ids = 0
        self.mismatches = []

    def report(self):
        return {"golden": self.name, "units_compared": self.units, "arcs_compared": self.arcs,
                "units_truncated": self.truncated, "full_id_lists": self.full_ids,
                "divergence_key_error": self.key_error, "divergence_summary_too_long": self.too_long,
                "no_kept_arcs_dropped_by_reference": self.dropped, "mismatches": self.mismatches}


def check_unit(tu, tok, tally, ctx, article_words, words, all_arcs, word_arcs20, g):
    """all_arcs: what the reference gets; word_arcs20: factpico's first-20 kept arcs
    (head, child, relation) in unit word indices; g: the golden unit."""
    ref = run_reference(tu, tok, article_words, words, all_arcs, 512)
    miss = lambda what, want, got: tally.mismatches.append({"unit": ctx, "what": what, "factpico": want,
                                                            "reference": got})
    if ref["selected"] != word_arcs20:
        miss("arcs", word_arcs20, ref["selected"])
    if "error" in g:
        # factpico: summary_too_long; record what the reference silently does instead
        # the reference empties tokens_a and shifts positions by extra_len > len(tokens_a): its
        # input is then len(tokens_b) > 510 long, positions point extra_len - len(tokens_a) pieces
        # too early (negative ones wrap around), and over 512 ELECTRA fails. Expected only then.
        r = ref
        ok = "input_ids" in r and r["att_len"] > 510 and r["input_ids"][:1] != [tok.convert_tokens_to_ids("[CLS]")]
        tally.too_long += ok
        tally.mismatches.append({"unit": ctx, "expected": ok,
                                 "what": "expected divergence: summary_too_long" if ok else
                                 "factpico summary_too_long, reference input well-formed",
                                 "reference": {k: r.get(k) for k in ("att_len", "padded_len", "key_error", "dropped")}})
        return
    if not g["arcs"]:
        if ref.get("dropped"):
            tally.dropped += 1
        else:
            miss("no kept arcs: reference did not drop the example", "null", ref)
        return
    if g["skipped"]:
        if "key_error" not in ref:
            miss("skipped arcs: reference did not raise KeyError", g["skipped"], ref)
            return
        tally.key_error += 1
        # the reference on the arcs factpico scores: first-20 kept minus the skipped ones
        keep = [a for i, a in enumerate(word_arcs20) if i not in set(g["skipped"])]
        ref = run_reference(tu, tok, article_words, words, keep, 512)
    elif "key_error" in ref:
        miss("reference KeyError", [], ref["key_error"])
        return
    untrunc = run_reference(tu, tok, article_words, words, all_arcs if not g["skipped"] else keep, NO_TRUNC)
    tally.units += 1
    tally.arcs += ref["n"]
    if ref["padded_len"] != 512 or not ref["att_prefix_ok"]:
        miss("padding / attention mask", 512, [ref["padded_len"], ref["att_prefix_ok"]])
    if ref["att_len"] != g["input_len"]:
        miss("attention length", g["input_len"], ref["att_len"])
    if "input_ids" in g:
        tally.full_ids += 1
        if ref["input_ids"] != g["input_ids"]:
            miss("input ids", g["input_ids"], ref["input_ids"])
    if sha(ref["input_ids"]) != g["input_ids_sha256"]:
        miss("input ids sha256", g["input_ids_sha256"], sha(ref["input_ids"]))
    extra = untrunc["att_len"] - ref["att_len"]
    if untrunc["att_len"] >= NO_TRUNC - 2:
        miss("untruncated run was truncated", None, untrunc["att_len"])
    tally.truncated += extra > 0
    if extra != g["truncated"]:
        miss("truncation", g["truncated"], extra)
    if ref["child"] != g["child_pos"] or ref["head"] != g["head_pos"]:
        miss("child/head positions", [g["child_pos"], g["head_pos"]], [ref["child"], ref["head"]])


def probes(tu, tok):
    """Synthetic edge cases of the encoding: summary lengths around the truncation boundary
    (len(tokens_b) = 2 + summary pieces from 506 to 514), an exact fit, an empty article, a
    summary word containing a space (' '.join(words).split(' ') indexing), a word without
    wordpieces in the article. Compared with gen_dae.convert_example (the Python port the
    Rust encoder is tied to by tests/dae_golden.rs; the same cases are unit tests in
    crates/factpico-dae/src/encode.rs)."""
    tally = Tally("synthetic probes")
    w = next(x for x in ("the", "drug", "risk") if tok.tokenize(x) == [x])
    cases = []
    for lb in range(506, 515):
        s = lb - 2
        cases.append((f"len(tokens_b)={lb}", [w] * 50, [w] * s, [(1, 0, "amod"), (s - 2, s - 1, "dobj")]))
    cases.append(("exact fit 512", [w] * 500, [w] * 10, [(1, 0, "amod"), (8, 9, "dobj")]))
    cases.append(("fit 513 -> truncated", [w] * 501, [w] * 10, [(1, 0, "amod"), (8, 9, "dobj")]))
    cases.append(("empty article", [], [w] * 4, [(1, 0, "amod"), (1, 3, "dobj")]))
    cases.append(("summary word with a space", [w] * 5, [w + " " + w, w, w], [(1, 0, "amod"), (0, 2, "dobj")]))
    cases.append(("article word without pieces", [w, "\u00ad", w], [w] * 3, [(1, 0, "amod"), (1, 2, "dobj")]))
    for name, aw, words, arcs in cases:
        ours = gen.convert_example(tok, " ".join(aw), " ".join(words), [(h, c) for h, c, _ in arcs])
        ref = run_reference(tu, tok, aw, words, arcs, 512)
        untrunc = run_reference(tu, tok, aw, words, arcs, NO_TRUNC)
        if "error" in ours:
            # what the reference does instead; positions it should have used: last piece of each word
            # in its own output sequence (every probe word is one piece; [SEP] opens the summary)
            seq = ref["input_ids"]
            first_sep = seq.index(tok.convert_tokens_to_ids("[SEP]"))
            want = [first_sep + 1 + c for _, c, _ in arcs]
            # expected only where the reference's own output is broken (positions shifted past
            # the cut, or longer than 512); an aligned reference input is a real mismatch
            ok = ref["att_len"] > 510 and ref["child"] != want
            tally.too_long += ok
            tally.mismatches.append({"unit": name, "what": "expected divergence: summary_too_long" if ok else
                                     "factpico summary_too_long, reference input well-formed", "expected": ok,
                                     "reference": {"input_len": ref["att_len"], "padded_len": ref["padded_len"],
                                                   "starts_with_cls": seq[:1] == [tok.convert_tokens_to_ids("[CLS]")],
                                                   "child_pos": ref["child"], "child_pos_if_aligned": want}})
            continue
        g = {"arcs": arcs, "skipped": ours["skipped"], "input_len": len(ours["input_ids"]),
             "input_ids": ours["input_ids"], "input_ids_sha256": sha(ours["input_ids"]),
             "truncated": ours["truncated"], "child_pos": ours["child_pos"], "head_pos": ours["head_pos"]}
        check_unit(tu, tok, tally, name, aw, words, arcs, [(h, c, r) for h, c, r in arcs], g)
    return tally


def fixtures(tu, tok):
    tally = Tally("dae_fixtures.json")
    gold = json.loads((ROOT / "tests" / "goldens" / "dae_fixtures.json").read_text())
    fx = {pid: src for pid, src, _ in corpus.fixture_pairs()}
    docs = gen.read_conllu(ROOT / "tests" / "goldens" / "dae_fixtures.conllu")
    for row in gold["rows"]:
        toks, arcs, ranges = gen.conllu_parse(docs[row["id"]])
        aw = gen.ptb_words(" ".join([fx[row["source_pair"]]] * row["source_repeat"]))
        spans = [range(len(toks))] if row["mode"] == "reference" else ranges
        assert len(spans) == len(row["units"])
        for k, (r, g) in enumerate(zip(spans, row["units"])):
            words = [t.lower() for t in toks[r.start:r.stop]]
            # every enhanced arc of the unit (ignored relations and roots too), unit word indices
            ua = [(None if h is None else h - r.start, c - r.start, rel) for (h, c, rel) in arcs
                  if c in r and (h is None or h in r)]
            ours = [(h - r.start, c - r.start, rel) for h, c, rel in (tuple(a) for a in g["arcs"])]
            check_unit(tu, tok, tally, f"{row['id']} {row['mode']} unit {k}", aw, words, ua, ours, g)
    return tally


def real(tu, toks, limit):
    gold = {name: json.loads((ROOT / "tests" / "goldens" / name).read_text())
            for name in ("dae_encoding.json", "dae_real.json")}
    ids = {r["id"] for g in gold.values() for r in g["rows"]}
    ilq = [(pid, src, summ) for pid, src, summ in corpus.pairs() if pid in ids]
    if limit:
        ilq = ilq[:limit]
    sc = gen.Sidecar()
    one = sc.parse([s for _, _, s in ilq], "one_sentence")
    full = sc.parse([s for _, _, s in ilq], "full")
    gen.MAX_ARCS = UNCAPPED  # gen_dae.unit() reads it at call time: hand the reference all kept arcs
    by = {name: {(r["id"], r["mode"]): r for r in g["rows"]} for name, g in gold.items()}
    tallies = {name: Tally(name) for name in gold}
    for k, (pid, src, summ) in enumerate(ilq):
        aw = gen.ptb_words(src)
        for mode, doc in (("reference", one[k]), ("per_sentence", full[k])):
            units = gen.spacy_units(summ, json.loads(json.dumps(doc)), mode)
            for name, tok in toks.items():
                row = by[name].get((pid, mode))
                if row is None:
                    continue
                assert len(units) == len(row["units"]), (pid, mode)
                for j, ((si, words, warcs, arcs, n_total), g) in enumerate(zip(units, row["units"])):
                    assert [list(a) for a in arcs[:20]] == g["arcs"] and n_total == g["n_kept_arcs"], (pid, mode, j)
                    ua = [(h, c, rel) for (h, c), (_, _, rel) in zip(warcs, arcs)]
                    check_unit(tu, tok, tallies[name], f"{pid} {mode} unit {j}", aw, words, ua, ua[:20], g)
    return list(tallies.values()), sc.hello


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("reference", nargs="?", default=os.environ.get("FACTPICO_DAE_REFERENCE"),
                    help="checkout of tagoyal/factuality-datasets (outside this repo)")
    ap.add_argument("--out", help="write the JSON report here")
    ap.add_argument("--limit", type=int, default=0, help="only the first N real pairs (0 = all)")
    ap.add_argument("--no-real", action="store_true", help="fixtures only (no ../shared, no sidecar)")
    a = ap.parse_args()
    if not a.reference:
        ap.error("give the reference checkout (argument or FACTPICO_DAE_REFERENCE)")
    ref_dir = Path(a.reference).resolve()
    if ROOT in ref_dir.parents or ref_dir == ROOT:
        ap.error("the reference checkout must live outside the repository")
    tu = import_reference(ref_dir)
    import transformers
    import torch
    ElectraTokenizer = transformers.ElectraTokenizer
    tiny = ElectraTokenizer.from_pretrained(str(gen.TINY / "checkpoint"))
    tallies = [probes(tu, tiny), fixtures(tu, tiny)]
    hello = None
    if not a.no_real:
        vocab = json.loads((corpus.shared_root() / "models" / "minilm-nli" / "tokenizer.json").read_text())
        d = Path(tempfile.mkdtemp(prefix="dae_bert_vocab_"))
        (d / "vocab.txt").write_text("".join(t + "\n" for t, _ in sorted(vocab["model"]["vocab"].items(),
                                                                           key=lambda kv: kv[1])))
        (d / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, "tokenizer_class": "ElectraTokenizer"}))
        full = ElectraTokenizer.from_pretrained(str(d))
        t, hello = real(tu, {"dae_encoding.json": full, "dae_real.json": tiny}, a.limit)
        tallies += t
    unexpected = [m for t in tallies for m in t.mismatches if not m.get("expected")]
    rep = {"reference": str(ref_dir), "reference_file": str(Path(tu.__file__).resolve()),
           "reference_sha256": hashlib.sha256(Path(tu.__file__).read_bytes()).hexdigest(),
           "versions": {"python": sys.version.split()[0], "transformers": transformers.__version__,
                        "torch": torch.__version__, **({"spacy": hello["spacy"]} if hello else {})},
           "shims": SHIMS, "results": [t.report() for t in tallies], "unexpected_mismatches": len(unexpected)}
    text = json.dumps(rep, indent=1)
    if a.out:
        Path(a.out).write_text(text + "\n")
    for t in tallies:
        r = t.report()
        print(f"{r['golden']}: {r['units_compared']} units, {r['arcs_compared']} arcs, "
              f"{r['units_truncated']} truncated, {r['full_id_lists']} full id lists; divergences: "
              f"KeyError {r['divergence_key_error']}, summary_too_long {r['divergence_summary_too_long']}; "
              f"no-arc units dropped {r['no_kept_arcs_dropped_by_reference']}; "
              f"mismatches {sum(not m.get('expected') for m in r['mismatches'])}")
    for m in unexpected[:20]:
        print("MISMATCH", json.dumps(m)[:600])
    print(f"transformers {transformers.__version__}; shims: {SHIMS or 'none'}")
    sys.exit(1 if unexpected else 0)


if __name__ == "__main__":
    main()
