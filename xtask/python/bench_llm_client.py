"""The reference side of `cargo xtask bench llm`: the official `openai` Python client
(AsyncOpenAI + asyncio, a semaphore bounding the requests in flight) sending the same request
bodies as factpico's client (`crates/factpico-llm/examples/bench_client.rs run`) to the same
local server. Prints one JSON line with the same fields.

    python bench_llm_client.py BASE_URL BODIES.json CONCURRENCY
"""
import asyncio
import json
import resource
import statistics
import sys
import time

import openai

STANDARD = {"model", "messages", "temperature", "top_p", "seed", "max_tokens", "stop", "response_format"}


async def main():
    base, path, c = sys.argv[1], sys.argv[2], int(sys.argv[3])
    bodies = json.load(open(path, encoding="utf-8"))
    client = openai.AsyncOpenAI(base_url=base, api_key="none", max_retries=0, timeout=300)
    sem = asyncio.Semaphore(c)

    async def one(body):
        std = {k: v for k, v in body.items() if k in STANDARD}
        extra = {k: v for k, v in body.items() if k not in STANDARD}
        async with sem:
            t = time.perf_counter()
            try:
                r = await client.chat.completions.create(**std, extra_body=extra or None)
            except Exception:
                return None
            ms = (time.perf_counter() - t) * 1000
        timings = (r.model_extra or {}).get("timings") or {}
        server = timings.get("prompt_ms", 0) + timings.get("predicted_ms", 0) if timings else None
        return ms, server

    t0, c0 = time.perf_counter(), time.process_time()
    results = await asyncio.gather(*(one(b) for b in bodies))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    ok = [r for r in results if r]
    lat = [r[0] for r in ok]
    srv = [r[1] for r in ok if r[1] is not None]
    ovh = [r[0] - r[1] for r in ok if r[1] is not None]
    med = lambda v: statistics.median(v) if v else None
    print(json.dumps({"client": f"openai {openai.__version__} (asyncio)", "n": len(bodies), "concurrency": c,
                      "wall_s": wall, "req_per_s": len(bodies) / wall, "latency_ms_median": med(lat),
                      "server_ms_median": med(srv), "overhead_ms_median": med(ovh),
                      "failed": len(results) - len(ok), "cpu_s": cpu,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
    await client.close()


asyncio.run(main())
