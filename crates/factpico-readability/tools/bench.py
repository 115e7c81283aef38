"""Times textstat's FKGL + FRE on the 600 corpus texts (the Python side of the benchmark).

    $TEXTSTAT073/bin/python crates/factpico-readability/tools/bench.py --dump /tmp/readability_texts.json
    $TEXTSTAT078/bin/python crates/factpico-readability/tools/bench.py

``--dump PATH`` also writes the texts as a JSON array for ``examples/readability_bench.rs``
(outside the repository: the corpus text must not be committed). textstat memoises results
with ``lru_cache(maxsize=128)``; every pass here uses 600 distinct texts, so the caches never
hit across passes.
"""
import json
import statistics
import sys
import time
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "goldens"))
import corpus  # noqa: E402
import textstat  # noqa: E402


def main():
    texts = [t for _, t in corpus.texts()]
    if "--dump" in sys.argv:
        out = sys.argv[sys.argv.index("--dump") + 1]
        Path(out).write_text(json.dumps(texts, ensure_ascii=False), "utf-8")
    t0 = time.perf_counter()
    textstat.flesch_kincaid_grade("Warm up the dictionaries.")
    load = time.perf_counter() - t0
    passes, cpu = [], []
    for _ in range(5):
        t, c = time.perf_counter(), time.thread_time()
        for text in texts:
            textstat.flesch_kincaid_grade(text)
            textstat.flesch_reading_ease(text)
        passes.append(time.perf_counter() - t)
        cpu.append(time.thread_time() - c)
    print(f"textstat {metadata.version('textstat')}: {len(texts)} texts; first call {load * 1e3:.1f} ms; "
          f"one pass (FKGL + FRE): wall best {min(passes) * 1e3:.1f} ms, median {statistics.median(passes) * 1e3:.1f} ms; "
          f"CPU median {statistics.median(cpu) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
