#!/usr/bin/env bash
# Issue 24 item 9: which llama.cpp server settings make temperature-0 replies reproducible
# without factpico's cache. For each setting, the same 60 requests (the first 20 Shaib 2023
# plain summaries x P, I, O; published prompts, json-schema, 120-character rationale, 96 tokens) are sent
# twice with --llm-no-cache, and the two runs' raw replies compared request by request.
#
#   python3 docs/llm-data.py ../shared/data .factpico/llm 100
#   bash docs/llm-repro.sh MODEL.gguf [ROWS=20]
# Prints one line per setting: identical replies / requests, and the seconds per run.
set -u
MODEL=$1; ROWS=${2:-20}
D=${D:-.factpico/llm/repro}; mkdir -p "$D"
PY=${PY:-$HOME/.cache/factpico/llm-venv/bin/python}
FACTPICO=${FACTPICO:-target/debug/factpico}
head -"$ROWS" .factpico/llm/shaib_plain_100.jsonl > "$D/in.jsonl"
port=18097
for setting in "2 on" "1 on" "1 off" "2 off"; do
  set -- $setting; slots=$1; pc=$2
  extra=(); [ "$pc" = off ] && extra=(--no-prompt-cache)
  "$PY" docs/llm-serve.py "$MODEL" --port $port --parallel "$slots" --threads 2 "${extra[@]}" > "$D/server.log" 2>&1 &
  srv=$!
  until grep -q listening "$D/server.log"; do sleep 1; done
  for run in a b; do
    t0=$SECONDS
    "$FACTPICO" score "$D/in.jsonl" --metrics llm --llm-base-url http://127.0.0.1:$port/v1 --llm-model m \
      --llm-elements population,intervention,outcome --llm-concurrency "$slots" --llm-rationale-max-chars 120 \
      --llm-max-tokens 96 --llm-no-cache --explain -q -o "$D/$slots-$pc-$run.jsonl" 2>/dev/null
    echo "$((SECONDS - t0))" > "$D/$slots-$pc-$run.secs"
  done
  kill $srv; wait $srv 2>/dev/null
  python3 - "$D/$slots-$pc-a.jsonl" "$D/$slots-$pc-b.jsonl" "$slots slot(s), prompt cache $pc" "$(cat $D/$slots-$pc-a.secs) s, $(cat $D/$slots-$pc-b.secs) s" <<'PY'
import json, sys
a, b, label, secs = sys.argv[1:]
def replies(p):
    out = {}
    for line in open(p):
        r = json.loads(line)
        for el, d in r["details"]["llm"]["elements"].items():
            out[(r["id"], el)] = d.get("reply")
    return out
ra, rb = replies(a), replies(b)
same = sum(ra[k] == rb.get(k) for k in ra)
print(f"| {label} | {same} / {len(ra)} | {secs} |")
PY
done
