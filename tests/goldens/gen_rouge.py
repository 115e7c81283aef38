"""Golden values for `crates/factpico-rouge` from the unmodified Python reference.

Reference: PyPI ``rouge-score==0.1.2`` (Google) with ``nltk`` (its ``PorterStemmer``
in the default NLTK_EXTENSIONS mode). Run in a throw-away venv outside the repo::

    python3 -m venv "$ROUGE_VENV"
    "$ROUGE_VENV"/bin/pip install rouge-score==0.1.2 nltk
    "$ROUGE_VENV"/bin/python tests/goldens/gen_rouge.py

Writes (numbers, ids and self-written text only; never text of ``../shared``):

* ``rouge_pairs.json``   -- rougeL / rougeLsum P, R, F (``repr`` floats) with
  ``use_stemmer`` True and False for
  - ``real``: the 300 pairs of ``corpus.pairs()`` (ids only),
  - ``real_sentences``: the same pairs scored as rougeLsum on caller-provided
    sentence lists (``split_summaries=True`` with the sentence splitter replaced by
    ``text.split(". ")``, i.e. the reference code path for pre-split sentences),
  - ``fixtures``: ``corpus.fixture_pairs()`` (ids only; texts are in ``fixtures/``),
  - ``inline``: the spec's worked examples, hand-written tricky pairs and seeded
    random small-vocabulary pairs (texts stored: they are ours).
  Target = source (abstract), prediction = summary, as factpico uses them.
* ``rouge_stemmer.json`` -- NLTK ``PorterStemmer().stem`` on
  - ``words``: a self-made word list (hand-written English/medical bases x suffixes,
    the NLTK irregular forms, seeded pseudo-words), plain ``token -> stem``;
  - ``corpus``: every distinct token (len > 3) of the unstemmed tokenisation of the
    real corpus as ``sha256(token)[:16] -> sha256(stem)[:16]`` (no corpus words stored).
* ``rouge_unicode.json`` -- every non-ASCII code point whose Python ``str.lower()``
  contains an ASCII letter or digit, with that lowercase string.
"""
import hashlib
import importlib.metadata as md
import json
import random
import re
import sys
import tempfile
from pathlib import Path

import nltk
from nltk.stem import porter
from rouge_score import rouge_scorer, tokenize

import corpus

OUT = Path(__file__).resolve().parent


def versions():
    return {
        "rouge-score": md.version("rouge-score"),
        "nltk": md.version("nltk"),
        "numpy": md.version("numpy"),
        "python": sys.version.split()[0],
    }


SCORERS = {
    "stem": rouge_scorer.RougeScorer(["rougeL", "rougeLsum"], use_stemmer=True),
    "nostem": rouge_scorer.RougeScorer(["rougeL", "rougeLsum"], use_stemmer=False),
}
# `split_summaries=True` runs the reference's sentence path with `nltk.sent_tokenize`;
# we substitute a deterministic splitter so that the Rust side can reproduce the
# sentence lists exactly (the Punkt model is not available offline).
SENT_SCORERS = {
    "stem": rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True, split_summaries=True),
    "nostem": rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=False, split_summaries=True),
}
SENTENCE_SEPARATOR = ". "


def triple(s):
    return [float(s.precision), float(s.recall), float(s.fmeasure)]


def score_both(target, prediction):
    out = {}
    for key, sc in SCORERS.items():
        r = sc.score(target, prediction)
        out[key] = {"rougeL": triple(r["rougeL"]), "rougeLsum": triple(r["rougeLsum"])}
    return out


def score_sentences(target, prediction):
    orig = nltk.sent_tokenize
    rouge_scorer.nltk.sent_tokenize = lambda text: text.split(SENTENCE_SEPARATOR)
    try:
        return {k: triple(sc.score(target, prediction)["rougeLsum"]) for k, sc in SENT_SCORERS.items()}
    finally:
        rouge_scorer.nltk.sent_tokenize = orig


# --------------------------------------------------------------------------- inline pairs
SPEC_EXAMPLES = [
    ("spec_ex1", "The quick brown fox jumps over the lazy dog.", "The quick brown dog jumps on the log."),
    ("spec_ex2",
     "Patients who received the drug had fewer strokes; risks were reduced by 30%.",
     "Patients receiving the drugs had fewer strokes, and risk was reduced 30 percent."),
    ("spec_ex3",
     "The trial enrolled 120 adults.\nMost had mild asthma.\nThe inhaler improved symptoms.",
     "Most adults had mild asthma.\nThe trial enrolled 120 of them.\nSymptoms improved with the inhaler."),
    ("spec_ex4", "Aspirin lowers the risk.\nIt causes bleeding.", "It lowers the risk of bleeding."),
    ("spec_cat", "the cat sat", "the cat sat on the mat"),
]

# Hand-written tricky pairs (ours).
TRICKY = [
    ("empty_both", "", ""),
    ("empty_target", "", "Something was said."),
    ("empty_prediction", "Something was said.", ""),
    ("ws_only", " \t\n ", "\n\n"),
    ("punct_only_lines", "...\n?!\n--", "The drug worked.\n!!!"),
    ("newline_only_target", "\n\n\n", "a b c"),
    ("tie_swap", "a b", "b a"),
    ("tie_swap_lines", "a b\nb a", "b a\na b"),
    ("tie_union_choice", "a b a b\nc", "b a\na b\nb c a"),
    ("double_count_guard", "the the the\nthe", "the\nthe the the the the"),
    ("repeat_tokens", "x x x x y y y", "y x y x y x"),
    ("crlf", "Line one here.\r\nLine two here.\r\n", "Line two here.\r\nLine one here."),
    ("leading_trailing_newlines", "\nalpha beta\ngamma\n", "gamma\n\nalpha beta\n"),
    ("tabs_and_nbsp", "alpha\tbeta\u00a0gamma\u2009delta", "alpha beta gamma delta"),
    ("turkish_dotted_i", "\u0130stanbul \u0130I\u0130", "i stanbul i i i"),
    ("kelvin_sign", "5 \u212a heat at 300\u212a", "5 k heat at 300k"),
    ("final_sigma", "\u03a3\u0391\u03a3 \u039f\u0394\u039f\u03a3 sigma", "sigma \u03c3\u03b1\u03c2"),
    ("german_sharp_s", "STRASSE Stra\u00dfe strasse", "strasse stra ssee"),
    ("ligatures_fullwidth", "\ufb01ne \uff11\uff12\uff13 x\u00b2 caf\u00e9 na\u00efve", "ne caf na ve x 123"),
    ("combining_marks", "cafe\u0301 re\u0301sume\u0301 nai\u0308ve", "cafe re sume nai ve"),
    ("contractions_abbrev", "Don't stop. U.S. COVID-19 e.g. i.e.", "don t stop u s covid 19 e g i e"),
    ("digits_and_stems", "1990s 2000s 30mg 5mg/kg 12.5% 0.05", "1990 2000 30mg 5mg kg 12 5 0 05"),
    ("y_runs", "yyyy yyyyy sayyyy toyyyy syzygy", "yyyy yyyyy sayyy toy syzygi"),
    ("irregular_forms", "skies dying lying tying news innings outings cannings howe proceed exceed succeed",
     "sky die lie tie new inning outing canning how proce exce succe"),
    ("short_tokens", "the cat sat on a mat is it ok", "thi cat sat on mat"),
    ("stemmer_rules", "relational conditional valenci hesitanci digitizer conformabli radicalli differentli "
     "vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness "
     "callousness formaliti sensitiviti sensibiliti", "relate condition valence hesitance digitize "
     "conformable radical different vile analogous vietnamize predicate operate feudal decisive hopeful"),
    ("stemmer_rules_2", "triplicate formative formalize electriciti electrical hopeful goodness revival "
     "allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment "
     "dependent adoption homologou communism activate angulariti homologous effective bowdlerize",
     "probate rate cease controll roll generously fairly this thus herring"),
    ("long_single_line", " ".join(["word%d" % (i % 17) for i in range(400)]),
     " ".join(["word%d" % ((i * 7) % 17) for i in range(250)])),
    ("many_short_lines", "\n".join("a b c d e"[i % 9:] for i in range(60)),
     "\n".join("e d c b a"[i % 9:] for i in range(45))),
    ("medical_sentences",
     "Randomised controlled trials showed reductions in mortality.\nHospitalisations decreased.",
     "The trial showed mortality was reduced.\nFewer people were hospitalised."),
]


def random_pairs(n=400, seed=20240601):
    rng = random.Random(seed)
    vocab = ["a", "b", "c", "the", "cat", "cats", "runs", "running", "ran", "studies", "studied",
             "study", "Patients", "patient", "reduced", "reduces", "Risk", "risks", "dying", "news"]
    seps = [" ", " ", " ", " ", ", ", ". ", "\n", "\n", " - ", "\n\n", "; ", "! "]

    def text():
        k = rng.randint(0, 28)
        parts = []
        for _ in range(k):
            parts.append(rng.choice(vocab[: rng.randint(3, len(vocab))]))
            parts.append(rng.choice(seps))
        if rng.random() < 0.1:
            parts.insert(0, "\n")
        return "".join(parts)

    return [("rand_%03d" % i, text(), text()) for i in range(n)]


# --------------------------------------------------------------------------- stemmer words
BASES = """
accept access accord account achieve acquire act action active adapt add address adjust admit
adopt advance advise affect age agree aim alarm alert allow alter analyse analyze anger announce
answer appear apply appoint approach approve argue arrange arrive ask assess assign assist assume
attach attack attempt attend attract avoid bake balance base bear beat become begin believe belong
bend benefit bind bleed block blood blow boil bone book bore borrow bother bounce break breathe
bring build burn call calm care carry catch cause cease change charge chase check cheer choose
claim clean clear close collect combine comfort command commit compare compete complain complete
concern conclude condition conduct confirm confuse connect consider consist contain continue
control convert cook cope correct cost count cover crash create cross cry cure cut damage dance
deal decide declare decline decrease define delay deliver demand deny depend describe design
desire destroy detect determine develop diagnose die differ direct discover discuss divide dose
doubt drain draw dream dress drink drive drop dry earn ease eat educate effect elect embrace
emerge employ enable encourage end endure enjoy ensure enter equal escape establish estimate
evaluate examine exceed excite exclude excuse exist expand expect experience explain explore
express extend fail fall favour fear feed feel fight fill find finish fit fix float flow fly fold
follow force forget form found free freeze frighten fund gain gather generate give glow govern
grade grant grow guarantee guard guess handle hang happen harm hate heal hear heat help hide hire
hold hope hurt identify ignore illustrate imagine impact imply improve include increase indicate
infect inform injure insist install intend interest interpret introduce invest invite involve
join judge jump justify keep kick kill knock know label lack last laugh launch lay lead learn
leave lend let lie lift like limit link list listen live load locate look lose love lower
maintain manage mark marry match matter measure meet mention mind miss mix monitor move need
note notice obtain occur offer open operate order organise organize own paint pass pay perform
permit persuade pick place plan play point possess post pour practise praise prefer prepare
present preserve press prevent print proceed produce progress promise promote propose protect
prove provide publish pull push qualify question raise reach react read realise realize receive
recognise recognize recommend record recover reduce refer reflect refuse regard relate relax
release rely remain remember remind remove rent repair repeat replace reply report represent
request require rescue resist resolve respond rest restore result retain retire return reveal
review ride ring rise risk roll rule run rush satisfy save say score search see seek seem select
sell send sense separate serve settle shake shape share shift shine shock shoot show shut sign
sing sink sit sleep slide slip smell smile solve sort sound speak spend split spread stand stare
start state stay steal step stick stop store strike study submit succeed suffer suggest suit
supply support suppose survive suspect swim switch take talk taste teach tend test thank think
throw tie tolerate touch train transfer travel treat trust try turn understand unite urge use
value vary view visit wait wake walk want warn wash watch wear win wish wonder work worry write
abdomen absorb abscess acid acute adrenal allergy anaemia anemia anaesthesia analgesia aneurysm
angina antibody antigen anxiety aorta apnoea appendix arrhythmia artery arthritis asthma atrophy
autism bacteria biopsy bladder blind bowel brain bronchus calcium cancer capsule carcinoma cardiac
cartilage cataract cell chemotherapy cholesterol chronic clinic clot cognition colon coma
congestion contract cortex cough cyst deficiency dementia dental depression dermis diabetes
dialysis diarrhoea diet digest disability disease disorder dizzy dosage dysfunction eczema embolism
embryo emphysema endoscopy enzyme epidemic epilepsy fatigue fever fibrosis fracture gastric gene
genetic gland glucose haemorrhage heart hepatitis hernia hormone hospital hypertension immune
immunity incision infarction infection inflame inflammation influenza inhale inhaler injection
insulin intestine ischaemia kidney lesion leukaemia ligament liver lung lymph malignancy medicine
membrane metabolism microbe migraine mortality muscle nausea necrosis nerve neuron nurse obesity
oedema oncology operation organ osteoporosis outcome oxygen palliative pancreas paralysis pathogen
pathology patient pelvis pharmacy placebo plasma pneumonia polyp pregnancy prescribe prognosis
prostate protein psychiatry pulmonary pulse radiology randomise randomize rash rehabilitate renal
respiratory retina saline sclerosis sedation seizure sepsis serum spine spleen stenosis steroid
stroke surgeon surgery symptom syndrome therapy thyroid tissue toxin trauma tremor trial tumour
tumor ulcer urine vaccine vein ventricle virus vitamin wound
""".split()

SUFFIXES = ["", "s", "es", "ed", "ing", "ly", "er", "ers", "est", "ness", "ful", "fully", "fulness",
            "ation", "ations", "ational", "ization", "izer", "ize", "ise", "ism", "ist", "ity",
            "ability", "ibility", "able", "ible", "ably", "ive", "iveness", "ively", "ous", "ously",
            "ousness", "ment", "ement", "ent", "ence", "ance", "ency", "ancy", "al", "ally", "alli",
            "ic", "ical", "ically", "icate", "ative", "alize", "iciti", "ologi", "ology", "ological",
            "bli", "entli", "eli", "ator", "alism", "aliti", "iviti", "biliti", "ied", "ies", "y",
            "ll", "e", "eed", "at", "bl", "iz", "ion", "ou", "iti", "ate", "ant", "fulli", "logi"]

IRREGULAR = ["sky", "skies", "dying", "lying", "tying", "news", "innings", "inning", "outings",
             "outing", "cannings", "canning", "howe", "proceed", "exceed", "succeed", "generously",
             "fairly", "this", "thus", "herring", "ones", "dies", "died", "spied", "flies", "ties",
             "lies", "pies", "enjoy", "happy", "spy", "fly", "try", "toy", "syzygy", "feed", "agreed",
             "bled", "sing", "hopping", "tanned", "falling", "hissing", "fizzed", "failing", "filing",
             "geology", "theology", "archaeology", "philology", "gallery", "ally", "rally", "really",
             "a", "an", "is", "as", "us", "ss", "ies", "eed", "yy", "ay", "oy", "ed", "ing", "ly"]


def pseudo_words(n=2500, seed=7):
    rng = random.Random(seed)
    letters = "aeiouyy" + "bcdfghjklmnprstvwxz" + "aeiouy" + "lstrn"
    enders = SUFFIXES + ["yy", "yyy", "eye", "ayed", "oying", "uyed", "lli", "sses", "ss", "ies"]
    out = set()
    while len(out) < n:
        k = rng.randint(1, 9)
        w = "".join(rng.choice(letters) for _ in range(k))
        if rng.random() < 0.7:
            w += rng.choice(enders)
        if rng.random() < 0.05:
            w += str(rng.randint(0, 999))
        if len(w) > 3:
            out.add(w)
    return sorted(out)


def word_list(full=False):
    """Irregular forms + (base x suffix) + pseudo-words + our own inline/fixture tokens.

    The committed golden keeps 10 seeded suffixes per base (every suffix is used many
    times) to keep the file small; ``full=True`` (``--full-words``, not committed) uses
    every base x suffix combination for a one-off larger check.
    """
    rng = random.Random(11)
    words = set(IRREGULAR)
    for b in BASES:
        for s in (SUFFIXES if full else rng.sample(SUFFIXES, 10)):
            words.add(b + s)
    words.update(pseudo_words())
    # tokens of our own inline texts and fixtures
    for _, t, p in TRICKY + SPEC_EXAMPLES + list(corpus.fixture_pairs()):
        words.update(tokenize.tokenize(t, None))
        words.update(tokenize.tokenize(p, None))
    return sorted(words)


def h16(s):
    return hashlib.sha256(s.encode("utf-8")).hexdigest()[:16]


def main():
    meta = versions()
    real = list(corpus.pairs())
    assert len(real) == 300, len(real)
    if "--full-words" not in sys.argv:
        write_pairs(meta, real)
    write_stemmer_and_unicode(meta, real)


def write_pairs(meta, real):
    pairs_doc = {
        "reference": meta,
        "note": "target = source (abstract), prediction = summary; [precision, recall, fmeasure]",
        "sentence_separator": SENTENCE_SEPARATOR,
        "real": [{"id": pid, **score_both(src, summ)} for pid, src, summ in real],
        "real_sentences": [{"id": pid, **score_sentences(src, summ)} for pid, src, summ in real],
        "fixtures": [{"id": pid, **score_both(src, summ)} for pid, src, summ in corpus.fixture_pairs()],
        "inline": [{"id": i, "target": t, "prediction": p, **score_both(t, p),
                    "sentences": score_sentences(t, p)}
                   for i, t, p in SPEC_EXAMPLES + TRICKY + random_pairs()],
    }
    (OUT / "rouge_pairs.json").write_text(json.dumps(pairs_doc, indent=1, ensure_ascii=True) + "\n")
    print(f"pairs: {len(pairs_doc['real'])} real, {len(pairs_doc['fixtures'])} fixtures, "
          f"{len(pairs_doc['inline'])} inline")


def write_stemmer_and_unicode(meta, real):
    stemmer = porter.PorterStemmer()
    assert stemmer.mode == porter.PorterStemmer.NLTK_EXTENSIONS
    full = "--full-words" in sys.argv
    words = word_list(full)
    corpus_tokens = set()
    for _, src, summ in real:
        for t in tokenize.tokenize(src, None) + tokenize.tokenize(summ, None):
            if len(t) > 3:
                corpus_tokens.add(t)
    stem_doc = {
        "reference": meta,
        "note": "nltk PorterStemmer() default mode NLTK_EXTENSIONS; corpus: sha256(token)[:16] -> sha256(stem)[:16]",
        "words": {w: stemmer.stem(w) for w in words},
        "corpus": dict(sorted((h16(t), h16(stemmer.stem(t))) for t in corpus_tokens)),
    }
    if full:
        # one-off, uncommitted check file
        dest = Path(tempfile.gettempdir()) / "rouge_stemmer_full.json"
        dest.write_text(json.dumps(stem_doc["words"]) + "\n")
        print(f"full word list: {len(words)} words -> {dest} (not committed)")
        return
    (OUT / "rouge_stemmer.json").write_text(json.dumps(stem_doc, indent=0, ensure_ascii=True) + "\n")

    uni = []
    for c in range(0x80, 0x110000):
        if 0xD800 <= c < 0xE000:
            continue
        low = chr(c).lower()
        if re.search("[a-z0-9]", low):
            uni.append({"code_point": c, "lower": low})
    uni_doc = {"reference": meta, "note": "non-ASCII code points whose str.lower() contains [a-z0-9]",
               "code_points": uni}
    (OUT / "rouge_unicode.json").write_text(json.dumps(uni_doc, indent=1, ensure_ascii=True) + "\n")
    print(f"stemmer: {len(words)} words, {len(corpus_tokens)} corpus tokens; "
          f"unicode: {len(uni)} code points; {meta}")


if __name__ == "__main__":
    main()
