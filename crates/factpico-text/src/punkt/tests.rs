//! Unit tests of the Punkt port. Every expected value was produced by NLTK
//! 3.10.4 (`PunktLanguageVars().word_tokenize`, `PunktToken(t).type`,
//! `sent_tokenize` / `span_tokenize` with the English `punkt_tab` model).
#![allow(clippy::unwrap_used)]

use super::*;

fn sents(text: &str) -> Vec<&str> {
    Punkt::english().tokenize(text)
}

fn spans(text: &str) -> Vec<(usize, usize)> {
    Punkt::english().span_tokenize(text).iter().map(|s| (s.start, s.end)).collect()
}

fn words(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    word_tokenize(line, &mut out);
    out
}

#[test]
fn word_tokenizer_matches_nltk() {
    assert_eq!(words("Hello, world."), ["Hello", ",", "world."]);
    assert_eq!(words("a.b.c. Next"), ["a.b.c.", "Next"]);
    assert_eq!(words("x--y ... z . . . w"), ["x", "--", "y", "...", "z", ". . .", "w"]);
    assert_eq!(words("(p < 0.05)."), ["(", "p", "<", "0.05", ")", "."]);
    assert_eq!(words("1,000 vs. 2,5,"), ["1,000", "vs.", "2,5", ","]);
    assert_eq!(words("\"Quoted.\" 'x'"), ["\"", "Quoted.", "\"", "'x", "'"]);
    assert_eq!(words("end.. more"), ["end", "..", "more"]);
    assert_eq!(words(". . . .x"), [". . . .", "x"]);
    assert_eq!(words("word. . ."), ["word", ". . ."]);
    assert_eq!(words("a,b, c,"), ["a,b", ",", "c", ","]);
    assert_eq!(words("?!abc"), ["?", "!abc"]);
    assert_eq!(words("#tag @me &x"), ["#", "tag", "@", "me", "&", "x"]);
    assert_eq!(words("it\u{2019}s \u{201c}q.\u{201d}"), ["it", "\u{2019}s", "\u{201c}q.", "\u{201d}"]);
    assert!(words("").is_empty());
    assert!(words(" \t ").is_empty());
}

#[test]
fn token_types_match_nltk() {
    for (tok, ty) in [
        ("12.", "##number##"),
        ("-3.5", "##number##"),
        (".5", "##number##"),
        (",5", "##number##"),
        ("1,000.00", "##number##"),
        ("5-6", "##number##"),
        ("\u{661}\u{662}", "##number##"), // Arabic-Indic digits are `\d`
        ("--5", "--5"),
        ("-", "-"),
        ("5a", "5a"),
        ("Dr.", "dr."),
    ] {
        assert_eq!(Tok::new(tok).ty, ty, "{tok:?}");
    }
    assert!(is_initial("J.") && is_initial("_.") && is_initial("\u{e9}."));
    assert!(!is_initial("5.") && !is_initial("JR.") && !is_initial("J"));
    assert!(is_ellipsis("..") && is_ellipsis("....") && !is_ellipsis(".") && !is_ellipsis(". ."));
}

#[test]
fn hand_worked_sentences_match_nltk() {
    assert_eq!(
        sents("Dr. Smith treated 12 pts. (p < 0.05). They improved."),
        ["Dr. Smith treated 12 pts.", "(p < 0.05).", "They improved."]
    );
    assert_eq!(sents("The U.S. trial ended. It was stopped early."), ["The U.S. trial ended.", "It was stopped early."]);
    // `e.g` is not an English Punkt abbreviation.
    assert_eq!(sents("We used e.g. aspirin. It worked."), ["We used e.g.", "aspirin.", "It worked."]);
    assert_eq!(sents("He said \"stop.\" Then he left."), ["He said \"stop.\"", "Then he left."]);
    assert_eq!(sents("(Sent1.) Sent2."), ["(Sent1.)", "Sent2."]);
    assert_eq!(sents("Very bad acting!!! I promise."), ["Very bad acting!!!", "I promise."]);
    assert_eq!(sents("J. R. R. Tolkien wrote it."), ["J. R. R. Tolkien wrote it."]);
    assert_eq!(sents("It cost 5.5 million. Then more."), ["It cost 5.5 million.", "Then more."]);
    assert_eq!(sents("x. Y.\nz"), ["x. Y.\nz"]);
    assert_eq!(sents("A b. C d.\n\nE f."), ["A b.", "C d.\n\nE f."]);
    assert_eq!(sents("Wait... what? Nobody knows... Really!"), ["Wait... what?", "Nobody knows... Really!"]);
    assert_eq!(sents("  Leading space. Next."), ["  Leading space.", "Next."]);
    assert_eq!(sents("Ends here.   "), ["Ends here."]);
}

#[test]
fn spans_are_byte_offsets() {
    // "“" and "”" are 3 bytes, "é" and "β" 2 bytes.
    let text = "The café \u{201c}closed.\u{201d} Then \u{3b2} rose.";
    assert_eq!(spans(text), [(0, 23), (24, 37)]);
    assert_eq!(sents(text), ["The café \u{201c}closed.\u{201d}", "Then \u{3b2} rose."]);
    let text = "We randomised 40 adults.  Pain fell (p < 0.05).\n\nNo harms occurred.";
    assert_eq!(spans(text), [(0, 24), (26, 47), (49, 67)]);
}

#[test]
fn degenerate_inputs() {
    assert!(sents("").is_empty());
    assert!(sents("   \n\t  \n").is_empty());
    assert!(sents("\u{1c}\u{1f}").is_empty(), "Python whitespace only");
    assert_eq!(sents("Word"), ["Word"]);
    assert_eq!(sents("No final punctuation here"), ["No final punctuation here"]);
    assert_eq!(sents("?"), ["?"]);
    // A break before a token that Python's rstrip removes: the last slice is
    // empty (start > end in NLTK) and dropped.
    assert_eq!(spans("a. \u{1c}"), [(0, 2)]);
}

#[test]
fn repeated_patterns_match_nltk() {
    assert_eq!(spans(&"!".repeat(6)), [(0, 1), (1, 5), (5, 6)]);
    assert_eq!(spans(&". ".repeat(4)), [(0, 1), (2, 3), (4, 5), (6, 7)]);
    assert_eq!(spans(&"-".repeat(6)), [(0, 6)]);
    assert_eq!(spans(&"a.".repeat(5)), [(0, 10)]);
    assert_eq!(spans(&"x. ".repeat(4)), [(0, 11)]);
    assert_eq!(spans("......... Next."), [(0, 15)]);
    assert_eq!(spans("\u{2019}\u{2019}\u{2019}. . "), [(0, 10), (11, 12)]);
}

/// About 1 MB of text in several shapes: the splitter is linear and must
/// neither blow up nor change its answers at scale. The small versions of the
/// same shapes are checked against NLTK above / below.
#[test]
fn one_megabyte_inputs_scale_linearly() {
    const MB: usize = 1 << 20;
    let unit = "Patients (n = 12) received 5 mg vs. placebo. Pain fell (p < 0.05).\n";
    // NLTK on `unit * 3`: [(0, 44), (45, 66), (67, 111), (112, 133), (134, 178), (179, 200)].
    assert_eq!(spans(&unit.repeat(3)), [(0, 44), (45, 66), (67, 111), (112, 133), (134, 178), (179, 200)]);
    let reps = MB / unit.len() + 1;
    let text = unit.repeat(reps);
    let got = spans(&text);
    assert_eq!(got.len(), 2 * reps);
    for (i, pair) in got.chunks(2).enumerate() {
        let base = i * unit.len();
        assert_eq!(pair, [(base, base + 44), (base + 45, base + 66)]);
    }

    // Pathological shapes: one long "word", long punctuation runs.
    let n = MB;
    assert_eq!(spans(&"a".repeat(n)), [(0, n)]);
    assert_eq!(spans(&"-".repeat(n)), [(0, n)]);
    assert_eq!(spans(&"!".repeat(n)), [(0, 1), (1, n - 1), (n - 1, n)]);
    assert_eq!(spans(&"a.".repeat(n / 2)), [(0, n)]);
    let dots = ". ".repeat(n / 2);
    assert_eq!(spans(&dots).len(), n / 2);
    let one_line = "word ".repeat(n / 5);
    assert_eq!(spans(&one_line), [(0, one_line.len() - 1)]);
}
