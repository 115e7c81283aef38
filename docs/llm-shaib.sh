#!/usr/bin/env bash
# Issue 24 item 8: FactPICO's LLM evaluators with a real 1.5B model (Qwen2.5-Coder-1.5B-Instruct
# Q4_K_M, assembled by docs/llm-qwen.py) on all 100 Shaib et al. 2023 plain summaries, P, I, O.
# Hours on 2 cores: run it in the background; every command reads and fills the request cache,
# so a restart continues where the cache stands (finished variants cost no request).
#
#   python3 docs/llm-data.py ../shared/data .factpico/llm 100      # the input (not committed)
#   python docs/llm-serve.py $(python docs/llm-qwen.py) --port 18090 --parallel 2 --threads 2
#   FACTPICO=target/release/factpico bash docs/llm-shaib.sh [VARIANT ...]
#
# Variants (all --llm-logprobs, so each gives the sampled and the probability-weighted rating):
#   ro   rating-only prompts (texts first, one generated token)
#   pub  the published prompts, JSON schema, rating before a 120-character rationale
#   rf   the published prompts, JSON schema, rationale first (--llm-rationale-first)
#   s5   rating-only, 5 samples at temperature 0.7 (seeds 0-4), first 30 summaries
#   mc   Bespoke-MiniCheck's protocol with the same model (metric llm_minicheck)
#   models, models30   context: ROUGE-L and AlignScore-style (MiniLM NLI, ../shared/models) on
#        the same rows (no server needed)
#   pub30, rf30, mc30, ro30   the same on the first 30 summaries (the s5 subset), for when the
#        full 100 do not fit in the time at hand (each about a third of the full variant's time)
# Outputs: .factpico/llm/shaib100.<variant>.jsonl (+ .provenance.json), timings appended to
# .factpico/llm/shaib100.times.tsv (variant, seconds, exit status, load average at the end).
set -u
FACTPICO=${FACTPICO:-target/release/factpico}
D=${D:-.factpico/llm}
URL=${URL:-http://127.0.0.1:18090/v1}
CACHE=${CACHE:-$D/shaib-cache.sqlite}
IN=$D/shaib_plain_100.jsonl
server=(--llm-base-url "$URL" --llm-model qwen2.5-coder-1.5b-instruct --llm-concurrency 2 --llm-cache "$CACHE"
        --llm-timeout 1800 --llm-stop-after-failures 20 --explain -q)
common=(--metrics llm --llm-elements population,intervention,outcome --llm-logprobs "${server[@]}")
run() {
  local v=$1; shift
  local t0=$SECONDS
  "$FACTPICO" score "$@" "${common[@]}" -o "$D/shaib100.$v.jsonl" 2>>"$D/shaib100.$v.log"
  local rc=$?
  printf '%s\t%s\t%s\t%s\n' "$v" $((SECONDS - t0)) "$rc" "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$D/shaib100.times.tsv"
}
run_models() {
  local v=$1 t0=$SECONDS
  "$FACTPICO" score "$2" --metrics rougeL,alignscore --alignscore-model ../shared/models/minilm-nli --max-length 256 \
    --no-sentences -q -o "$D/shaib100.$v.jsonl" 2>>"$D/shaib100.$v.log"
  printf '%s\t%s\t%s\t%s\n' "$v" $((SECONDS - t0)) "$?" "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$D/shaib100.times.tsv"
}
sub30() { head -30 "$IN" > "$D/shaib_plain_30.jsonl"; echo "$D/shaib_plain_30.jsonl"; }
[ $# -gt 0 ] || set -- ro s5 mc rf pub
for v in "$@"; do
  case $v in
    ro)  run ro "$IN" --llm-prompt rating-only ;;
    pub) run pub "$IN" --llm-rationale-max-chars 120 ;;
    rf)  run rf "$IN" --llm-rationale-max-chars 120 --llm-rationale-first ;;
    models)   run_models models "$IN" ;;
    models30) run_models models30 "$(sub30)" ;;
    ro30)  run ro30 "$(sub30)" --llm-prompt rating-only ;;
    pub30) run pub30 "$(sub30)" --llm-rationale-max-chars 120 ;;
    rf30)  run rf30 "$(sub30)" --llm-rationale-max-chars 120 --llm-rationale-first ;;
    mc30)  (common=(--metrics llm_minicheck "${server[@]}"); run mc30 "$(sub30)") ;;
    s5)  sub30 >/dev/null
         run s5 "$D/shaib_plain_30.jsonl" --llm-prompt rating-only --llm-samples 5 --llm-temperature 0.7 ;;
    mc)  (common=(--metrics llm_minicheck "${server[@]}"); run mc "$IN") ;;
    *)   echo "unknown variant $v" >&2; exit 2 ;;
  esac
done
