"""The real-data corpus every golden generator and golden test uses.

Reads ``../shared`` (never copied into the repo) and yields the same items, in
the same order, as ``tests/common/mod.rs``:

* InfoLossQA: ``processed/documents.json`` (200 RCT abstracts with GPT-4
  simplifications; the 104 documents of ``documents.json`` are a subset with
  identical text, checked here). Ids ``ilq:<PMCID>``.
* Shaib et al. 2023: ``single-doc-annotations/single_doc_annotations_1.csv``
  (100 abstracts with GPT-3 plain summaries; the three annotator files hold the
  same texts). Ids ``sh_<first 12 hex of sha256(abstract)>`` exactly as
  ``derived_human_avg_plain.csv`` keys them.

Golden files store ids, offsets and numbers only, never text.
"""
import csv
import hashlib
import json
import os
from pathlib import Path


def shared_root() -> Path:
    env = os.environ.get("FACTPICO_SHARED")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / ".." / "shared"


def pairs():
    """Yield (pair_id, source, summary) for all 300 real (abstract, summary) pairs."""
    root = shared_root() / "data"
    docs = json.loads((root / "infolossqa" / "processed" / "documents.json").read_text("utf-8"))
    release = json.loads((root / "infolossqa" / "documents.json").read_text("utf-8"))
    by_id = {d["PMCID"]: d for d in docs}
    for d in release:
        p = by_id[d["PMCID"]]
        assert p["abstract"] == d["abstract"] and p["simplification"] == d["simplification"]
    for d in docs:
        yield f"ilq:{d['PMCID']}", d["abstract"], d["simplification"]
    with open(root / "shaib2023" / "single-doc-annotations" / "single_doc_annotations_1.csv",
              newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            key = hashlib.sha256(r["abstract"].encode("utf-8")).hexdigest()
            yield f"sh_{key[:12]}", r["abstract"], r["plain_summary"]


def texts():
    """Yield (text_id, text) for every abstract and summary: ``<pair_id>:source`` / ``:summary``."""
    for pid, src, summ in pairs():
        yield f"{pid}:source", src
        yield f"{pid}:summary", summ


def fixture_pairs():
    """Yield (pair_id, source, summary) for the self-written fixtures (always available)."""
    fx = Path(__file__).resolve().parents[2] / "fixtures"
    for name in ("pairs.jsonl", "edge_cases.jsonl"):
        with open(fx / name, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                yield r["id"], r["source"], r["summary"]


def fixture_texts():
    """Yield (text_id, text) for every fixture source and summary."""
    for pid, src, summ in fixture_pairs():
        yield f"{pid}:source", src
        yield f"{pid}:summary", summ


if __name__ == "__main__":
    ps = list(pairs())
    print(len(ps), "pairs,", 2 * len(ps), "texts")
