#!/usr/bin/env python3
"""Per-document expert omission counts of InfoLossQA, as a ratings file for
`factpico meta-eval` (stdlib only; numbers only, no text is written).

InfoLossQA (Trienes et al., ACL 2024) records expert-written questions about
information that a GPT-4 plain-language simplification lost: category
`omission` (deleted content) or `concept` (oversimplified content). For each
of the 104 documents this writes one CSV row:

  PMCID                   document id (= `id` of `factpico score --id-field PMCID`)
  n_annotators            distinct annotators with at least one question on it
  n_omission, n_concept   number of such questions, all annotators together
  omission_per_annotator  n_omission / n_annotators (empty when no annotator)
  concept_per_annotator   n_concept / n_annotators
  abstract_words          whitespace-separated words of the abstract (a length baseline)

Usage:
  python3 docs/meta-eval-infolossqa.py ../shared/data/infolossqa .factpico/meta-eval/infolossqa_omissions.csv

tests/metaeval_docs.rs computes the same file in Rust and reruns the
meta-eval command of docs/meta-eval.md on it.
"""
import csv
import json
import os
import sys


def main() -> None:
    data, out = sys.argv[1], sys.argv[2]
    docs = json.load(open(os.path.join(data, "documents.json"), encoding="utf-8"))
    questions = json.load(open(os.path.join(data, "questions.json"), encoding="utf-8"))
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["PMCID", "n_annotators", "n_omission", "n_concept", "omission_per_annotator",
                    "concept_per_annotator", "abstract_words"])
        for d in docs:
            qs = [q for q in questions if q["PMCID"] == d["PMCID"]]
            n_ann = len({q["annotator"] for q in qs})
            n_om = sum(q["category"] == "omission" for q in qs)
            n_co = sum(q["category"] == "concept" for q in qs)
            per = (lambda n: repr(n / n_ann)) if n_ann else (lambda n: "")
            w.writerow([d["PMCID"], n_ann, n_om, n_co, per(n_om), per(n_co), len(d["abstract"].split())])
    print(f"{len(docs)} documents, {len(questions)} questions -> {out}")


if __name__ == "__main__":
    main()
