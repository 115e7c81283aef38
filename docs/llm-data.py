#!/usr/bin/env python3
"""Inputs for the LLM evaluators' real-data runs of docs/llm.md (stdlib only). Writes, under
OUT_DIR (git-ignored `.factpico/llm` in the docs; nothing from ../shared enters the repo):

* ``shaib_plain_<N>.jsonl``: the first N rows (file order; with OFFSET > 0, rows OFFSET ..
  OFFSET+N-1 into ``shaib_plain_<OFFSET>-<OFFSET+N>.jsonl``) of Shaib et al. 2023's
  ``single_doc_annotations_1.csv`` as ``{"id", "source", "summary"}`` with
  ``id = "sh_" + first 12 hex of sha256(abstract)`` (the ``doc_id`` of
  ``derived_human_avg_plain.csv``), ``source`` = ``abstract``, ``summary`` = ``plain_summary``.
* ``infolossqa_ei.jsonl``: the InfoLossQA release documents (``documents.json``, 104) that
  join Evidence Inference 2.0 (``v2_annotations.csv``) on PMCID, as
  ``{"id": "ilq:<PMCID>", "source": abstract, "summary": simplification, "evidence": [...]}``;
  ``evidence`` = the annotators' evidence spans with Valid Label and Valid Reasoning, distinct,
  in file order, at most K per document (the spans quote the full article, not necessarily
  the abstract).

Usage:
  python3 docs/llm-data.py ../shared/data .factpico/llm [N=40] [K=2] [OFFSET=0]
"""
import csv
import hashlib
import json
import os
import sys


def main() -> None:
    data, out = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    k = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    offset = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    if n < 0 or k < 0 or offset < 0:
        sys.exit("N, K and OFFSET must be >= 0")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(data, "shaib2023/single-doc-annotations/single_doc_annotations_1.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))[offset:offset + n]
    name = f"shaib_plain_{n}.jsonl" if offset == 0 else f"shaib_plain_{offset}-{offset + n}.jsonl"
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        for r in rows:
            key = hashlib.sha256(r["abstract"].encode("utf-8")).hexdigest()[:12]
            f.write(json.dumps({"id": f"sh_{key}", "source": r["abstract"], "summary": r["plain_summary"]}, ensure_ascii=False) + "\n")
    with open(os.path.join(data, "infolossqa/documents.json"), encoding="utf-8") as f:
        docs = json.load(f)
    ids = {str(d["PMCID"]) for d in docs}
    spans = {}
    with open(os.path.join(data, "nli-train/evidence-inference/v2_annotations.csv"), newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["PMCID"] in ids and r["Valid Label"] == "True" and r["Valid Reasoning"] == "True":
                lst = spans.setdefault(r["PMCID"], [])
                if r["Annotations"] not in lst:
                    lst.append(r["Annotations"])
    joined = 0
    with open(os.path.join(out, "infolossqa_ei.jsonl"), "w", encoding="utf-8") as f:
        for d in docs:
            ev = spans.get(str(d["PMCID"]), [])[:k]
            if ev:
                joined += 1
                f.write(json.dumps({"id": f"ilq:{d['PMCID']}", "source": d["abstract"], "summary": d["simplification"],
                                    "evidence": ev}, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} Shaib rows and {joined} InfoLossQA documents with evidence spans to {out}")


if __name__ == "__main__":
    main()
