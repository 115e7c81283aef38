"""Test harness for factpico's LLM client: a REAL llama.cpp server (PyPI ``xllamacpp``) behind a
small fault-injecting proxy.

    python llm_harness.py [--model PATH.gguf] [--parallel N] [--ctx N]
    python llm_harness.py backend --model PATH.gguf [--parallel N]   # the server alone: prints {"url"}
    python llm_harness.py tiny OUT.gguf [--minicheck]                # only write the tiny GGUF
    python llm_harness.py --minicheck                                # the MiniCheck variant (below)

Without ``--model`` it writes a tiny random-weight llama-architecture GGUF (PyPI ``gguf``;
2 layers, width 64, a 259-token byte-level GPT-2-style vocabulary and a plain-text chat
template: SentencePiece vocabularies and special-token templates break llama.cpp's grammar
set-up) into a temporary directory.

Processes: this one runs the proxy and reads commands; the llama.cpp server runs in a child
process (``llm_harness.py backend``) so that it can really be killed and restarted.

Protocol: the first stdout line is JSON ``{"proxy": URL, "backend": URL, "model": PATH}``; then
each stdin line is a JSON command answered by one stdout JSON line:

* ``{"cmd": "faults", "faults": [...], "delay": s}`` -- queue of per-chat-request faults,
  consumed in order: ``{"status": 429, "retry_after": "1"}`` / ``{"status": 500}`` (answered
  by the proxy, not forwarded), ``{"content": "text"}`` (forwarded; the real reply's content
  replaced), ``{"strip_logprobs": true}`` (forwarded; the reply's ``logprobs`` removed), ``{"delay": s}`` (forwarded after s seconds), ``{"status": 401, "echo_auth": true}``
  (an OpenAI-style 401 quoting the Authorization header). ``delay`` (optional): every later
  chat request waits that long before being forwarded.
* ``{"cmd": "model_faults", "faults": [{"status": 503, "message": "Loading model"}, ...]}`` --
  queue of answers the proxy gives, in order, to the next model-list requests (``GET
  .../models``) instead of forwarding them, as llama.cpp answers while it loads the model.
* ``{"cmd": "kill_after", "n": N}``: after N more answered chat requests, SIGKILL the server
  and stop listening on the proxy port (clients then get "connection refused").
* ``{"cmd": "kill"}`` / ``{"cmd": "restart"}``: now; restart starts a new server on the same
  model (or, with ``"tiny_seed": n``, on a new random GGUF file with seed n) and listens again
  on the same proxy port.
* ``{"cmd": "state"}``: counters ``chat`` (chat requests received), ``forwarded``,
  ``answered`` (200 replies passed on), ``models`` (model-list requests), ``other``,
  ``times`` (arrival times of chat requests, s), ``auth`` (Authorization headers seen),
  ``bodies`` (the last 50 chat request bodies), ``replies`` (the last 50 chat replies with
  status 200, as sent on to the client); with ``"exchanges": true`` also ``exchanges``: the
  last 500 answered chat requests as ``{"body", "reply"}`` (the reply as passed on).
* ``{"cmd": "faults", ..., "strip_logprobs": true}``: from now on, remove ``logprobs`` from
  every forwarded reply (a server that does not support them); a per-request fault
  ``{"strip_logprobs": true}`` does it for one request.

EOF on stdin stops everything.
"""
import argparse
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request


# ------------------------------------------------------------------ tiny model
# Whole-word answer tokens of the ``--minicheck`` variant, with the logit each gets after the
# chat template's closing newline: Bespoke-MiniCheck's rule counts "Yes", "yes", "YES" (not
# " Yes"), so the top-5 alternatives mix counted and uncounted texts.
MINICHECK_TOKENS = {"Yes": 4.0, "No": 3.8, "\u0120Yes": 3.5, "yes": 3.0, "YES": 2.0}
# Rating digits in the same variant, below the answer tokens (MiniCheck's top 5 unchanged):
# a rating-only reply's first token then has the digits among its top-10 alternatives, so the
# probability-weighted rating is computed from a real spread (llm_variants.rs).
DIGIT_LOGITS = {"1": 1.9, "2": 1.6, "3": 1.4, "4": 1.7, "5": 1.0}


def write_tiny_gguf(out, seed=0, minicheck=False):
    """The tiny GGUF. ``minicheck``: a variant (only for the MiniCheck test; the default file is
    unchanged) whose vocabulary also has the whole-word tokens of ``MINICHECK_TOKENS``, and whose
    newline embedding is large and answer-token output rows point along it, so that after the
    template's final newline those tokens hold the top-5 with probabilities that vary a little
    with the prompt."""
    import numpy as np
    import gguf

    rng = np.random.default_rng(seed)
    n_embd, n_ff, n_layer, n_head, ctx = 64, 128, 2, 4, 4096

    def bytes_to_unicode():  # GPT-2's byte -> printable character table
        bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
        cs, n = bs[:], 0
        for b in range(256):
            if b not in bs:
                bs.append(b)
                cs.append(256 + n)
                n += 1
        return {b: chr(c) for b, c in zip(bs, cs)}

    table = bytes_to_unicode()
    tokens = [table[b] for b in range(256)] + ["\u0120t", "\u0120a"]
    tokens += list(MINICHECK_TOKENS) if minicheck else []
    tokens += ["<|endoftext|>"]
    types = [gguf.TokenType.NORMAL] * (len(tokens) - 1) + [gguf.TokenType.CONTROL]
    w = gguf.GGUFWriter(out, "llama")
    w.add_name("factpico-tiny-random-llama")
    w.add_context_length(ctx)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_vocab_size(len(tokens))
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt-2")
    w.add_token_merges(["\u0120 t", "\u0120 a"])
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_bos_token_id(len(tokens) - 1)
    w.add_eos_token_id(len(tokens) - 1)
    w.add_add_bos_token(False)
    w.add_add_eos_token(False)
    w.add_chat_template("{% for m in messages %}### {{ m['role'] }}:\n{{ m['content'] }}\n{% endfor %}"
                        "{% if add_generation_prompt %}### assistant:\n{% endif %}")
    f = lambda *shape: (rng.standard_normal(shape) * 0.02).astype(np.float32)
    ones = lambda n: np.ones(n, dtype=np.float32)
    embd, output = f(len(tokens), n_embd), f(len(tokens), n_embd)
    if minicheck:
        nl = 10  # the byte token of "\n": the prompt's last token
        direction = embd[nl] / np.linalg.norm(embd[nl])
        embd[nl] = direction * 0.4
        for t, logit in list(MINICHECK_TOKENS.items()) + list(DIGIT_LOGITS.items()):
            # RMSNorm makes the last hidden state ~ sqrt(n_embd) * direction
            output[tokens.index(t)] = direction * (logit / np.sqrt(n_embd))
    w.add_tensor("token_embd.weight", embd)
    w.add_tensor("output_norm.weight", ones(n_embd))
    w.add_tensor("output.weight", output)
    for i in range(n_layer):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", ones(n_embd))
        for n in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(p + n + ".weight", f(n_embd, n_embd))
        w.add_tensor(p + "ffn_norm.weight", ones(n_embd))
        w.add_tensor(p + "ffn_gate.weight", f(n_ff, n_embd))
        w.add_tensor(p + "ffn_up.weight", f(n_ff, n_embd))
        w.add_tensor(p + "ffn_down.weight", f(n_embd, n_ff))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


# ------------------------------------------------------------------ backend (child process)
def backend(args):
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = args.model
    p.n_ctx = args.ctx
    p.n_parallel = args.parallel
    p.cpuparams.n_threads = args.threads
    p.cpuparams_batch.n_threads = args.threads
    p.port = 0
    srv = xlc.Server(p)
    addr = srv.listening_address
    print(json.dumps({"url": addr if addr.startswith("http") else "http://" + addr}), flush=True)
    sys.stdin.read()  # until the parent closes our stdin (or kills us)


# ------------------------------------------------------------------ proxy
class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.faults = []
        self.model_faults = []
        self.delay = 0.0
        self.kill_after = None
        self.counters = {"chat": 0, "forwarded": 0, "answered": 0, "models": 0, "other": 0}
        self.times = []
        self.auth = []
        self.bodies = []
        self.replies = []
        self.strip_logprobs = False
        self.exchanges = []
        self.t0 = time.time()


class Harness:
    def __init__(self, args):
        self.args = args
        self.state = State()
        self.child = None
        self.backend_url = None
        self.server = None
        self.port = 0
        self.start_backend()
        self.listen()

    def start_backend(self):
        cmd = [sys.executable, os.path.abspath(__file__), "backend", "--model", self.args.model,
               "--parallel", str(self.args.parallel), "--ctx", str(self.args.ctx), "--threads", str(self.args.threads)]
        self.child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL if not self.args.verbose else None, text=True)
        line = self.child.stdout.readline()
        if not line:
            raise SystemExit("the llama.cpp server did not start")
        self.backend_url = json.loads(line)["url"]

    def kill_backend(self):
        if self.child and self.child.poll() is None:
            self.child.send_signal(signal.SIGKILL)
            self.child.wait()
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def listen(self):
        harness = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def reply(self, status, body, headers=()):
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def forward(self, method, body=None):
                req = urllib.request.Request(harness.backend_url + self.path, data=body, method=method,
                                             headers={"Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(req, timeout=600) as r:
                        return r.status, r.read()
                except urllib.error.HTTPError as e:
                    return e.code, e.read()
                except OSError as e:
                    return 502, json.dumps({"error": {"code": 502, "message": f"proxy: upstream: {e}"}}).encode()

            def dead(self):
                # After a kill, connections kept alive from before are closed without an answer,
                # as the killed server's own would be.
                if harness.server is None:
                    self.close_connection = True
                    return True
                return False

            def do_GET(self):
                if self.dead():
                    return
                st = harness.state
                with st.lock:
                    models = self.path.endswith("/models")
                    st.counters["models" if models else "other"] += 1
                    st.auth.append(self.headers.get("Authorization"))
                    fault = st.model_faults.pop(0) if models and st.model_faults else None
                if fault is not None:
                    status = fault["status"]
                    return self.reply(status, {"error": {"code": status, "message": fault.get("message", f"injected HTTP {status}"),
                                                         "type": "unavailable_error"}})
                status, data = self.forward("GET")
                self.reply(status, data)

            def do_POST(self):
                if self.dead():
                    return
                st = harness.state
                body = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
                if not self.path.endswith("/chat/completions"):
                    with st.lock:
                        st.counters["other"] += 1
                    status, data = self.forward("POST", body)
                    return self.reply(status, data)
                with st.lock:
                    st.counters["chat"] += 1
                    st.times.append(round(time.time() - st.t0, 3))
                    st.auth.append(self.headers.get("Authorization"))
                    try:
                        st.bodies.append(json.loads(body))
                    except ValueError:
                        st.bodies.append(None)
                    st.bodies = st.bodies[-50:]
                    fault = st.faults.pop(0) if st.faults else {}
                    delay = fault.get("delay", st.delay)
                if "status" in fault:
                    status = fault["status"]
                    msg = f"injected HTTP {status}"
                    if fault.get("echo_auth"):
                        msg = f"Incorrect API key provided: {self.headers.get('Authorization', '')}"
                    headers = [("Retry-After", str(fault["retry_after"]))] if "retry_after" in fault else []
                    return self.reply(status, {"error": {"code": status, "message": msg, "type": "injected"}}, headers)
                if delay:
                    time.sleep(delay)
                with st.lock:
                    st.counters["forwarded"] += 1
                status, data = self.forward("POST", body)
                if status == 200 and "content" in fault:
                    v = json.loads(data)
                    v["choices"][0]["message"]["content"] = fault["content"]
                    data = json.dumps(v).encode()
                if status == 200 and (st.strip_logprobs or fault.get("strip_logprobs")):
                    v = json.loads(data)
                    for ch in v.get("choices", []):
                        ch.pop("logprobs", None)
                    data = json.dumps(v).encode()
                if status == 200:
                    with st.lock:
                        try:
                            st.replies.append(json.loads(data))
                        except ValueError:
                            st.replies.append(None)
                        st.replies = st.replies[-50:]
                kill = False
                with st.lock:
                    if status == 200:
                        st.counters["answered"] += 1
                        try:
                            st.exchanges.append({"body": json.loads(body), "reply": json.loads(data)})
                        except ValueError:
                            pass
                        st.exchanges = st.exchanges[-500:]
                        if st.kill_after is not None:
                            st.kill_after -= 1
                            kill = st.kill_after <= 0
                            if kill:
                                st.kill_after = None
                self.reply(status, data)
                if kill:
                    threading.Thread(target=harness.kill_backend, daemon=True).start()

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.server = Server(("127.0.0.1", self.port), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def command(self, c):
        st = self.state
        cmd = c.get("cmd")
        if cmd == "faults":
            with st.lock:
                st.faults = list(c.get("faults", []))
                if "delay" in c:
                    st.delay = float(c["delay"])
                if "strip_logprobs" in c:
                    st.strip_logprobs = bool(c["strip_logprobs"])
            return {"ok": True}
        if cmd == "model_faults":
            with st.lock:
                st.model_faults = list(c.get("faults", []))
            return {"ok": True}
        if cmd == "kill_after":
            with st.lock:
                st.kill_after = int(c["n"])
            return {"ok": True}
        if cmd == "kill":
            self.kill_backend()
            return {"ok": True}
        if cmd == "restart":
            self.kill_backend()
            if "tiny_seed" in c:  # another random GGUF (same shape, other weights, other file)
                self.args.model = os.path.join(os.path.dirname(self.args.model), f"tiny-seed-{int(c['tiny_seed'])}.gguf")
                write_tiny_gguf(self.args.model, int(c["tiny_seed"]))
            self.start_backend()
            for _ in range(50):
                try:
                    self.listen()
                    break
                except OSError:
                    time.sleep(0.1)
            return {"ok": True, "backend": self.backend_url}
        if cmd == "state":
            with st.lock:
                out = {"counters": dict(st.counters), "times": list(st.times), "auth": list(st.auth),
                       "bodies": list(st.bodies), "replies": list(st.replies)}
                if c.get("exchanges"):
                    out["exchanges"] = list(st.exchanges)
                return out
        return {"error": f"unknown command {cmd!r}"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("role", nargs="?", default="proxy", choices=["proxy", "backend", "tiny"])
    ap.add_argument("out", nargs="?", help="tiny: the GGUF file to write")
    ap.add_argument("--model")
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--ctx", type=int, default=4096 * 2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--minicheck", action="store_true", help="the tiny GGUF's MiniCheck variant (Yes/No tokens)")
    args = ap.parse_args()
    if args.role == "backend":
        return backend(args)
    if args.role == "tiny":
        return write_tiny_gguf(args.out, minicheck=args.minicheck)
    tmp = None
    if not args.model:
        tmp = tempfile.TemporaryDirectory(prefix="factpico-llm-harness-")
        args.model = os.path.join(tmp.name, "tiny-random-llama.gguf")
        write_tiny_gguf(args.model, minicheck=args.minicheck)
    h = Harness(args)
    print(json.dumps({"proxy": f"http://127.0.0.1:{h.port}/v1", "backend": h.backend_url, "model": args.model}), flush=True)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            out = h.command(json.loads(line))
        except Exception as e:  # report, keep serving
            out = {"error": repr(e)}
        print(json.dumps(out), flush=True)
    h.kill_backend()
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
