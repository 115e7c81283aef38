"""Runs an OpenAI Batch API input file against an OpenAI-compatible server, as `vllm run-batch`
does: each line's `body` is POSTed to SERVER + the line's `url`, one request at a time, in file
order; each answer is written as one output line

    {"id": "batch_req_N", "custom_id": ..., "response": {"status_code": S, "request_id": "req_N",
     "body": <the server's JSON answer>}, "error": null}

(a transport failure: `"response": null, "error": {"code": "transport_error", "message": ...}`).

    python batch_runner.py SERVER_ROOT INPUT.jsonl OUTPUT.jsonl

SERVER_ROOT is the server without `/v1` (the lines' `url` is `/v1/chat/completions`). Standard
library only. Used by crates/factpico-cli/tests/llm_batch.rs.
"""
import json
import sys
import urllib.error
import urllib.request


def main():
    root, inp, out = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
    lines = []
    with open(inp, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            req = json.loads(line)
            data = json.dumps(req["body"]).encode()
            http = urllib.request.Request(root + req["url"], data=data, method=req.get("method", "POST"),
                                          headers={"Content-Type": "application/json"})
            result = {"id": f"batch_req_{n}", "custom_id": req["custom_id"], "response": None, "error": None}
            try:
                with urllib.request.urlopen(http, timeout=600) as r:
                    result["response"] = {"status_code": r.status, "request_id": f"req_{n}", "body": json.loads(r.read())}
            except urllib.error.HTTPError as e:
                raw = e.read()
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"error": {"message": raw.decode("utf-8", "replace")}}
                result["response"] = {"status_code": e.code, "request_id": f"req_{n}", "body": body}
            except OSError as e:
                result["error"] = {"code": "transport_error", "message": str(e)}
            lines.append(json.dumps(result))
    with open(out, "w", encoding="utf-8") as f:
        f.write("".join(l + "\n" for l in lines))


if __name__ == "__main__":
    main()
