//! A port of NLTK's Punkt sentence tokenizer (`nltk/tokenize/punkt.py`,
//! `PunktSentenceTokenizer.span_tokenize` with `realign_boundaries=True`),
//! loaded with NLTK's English `punkt_tab` parameters.
//!
//! Reference: NLTK 3.10.4 (`PunktTokenizer("english")`, i.e. what
//! `nltk.sent_tokenize(text)` uses). The port reproduces, step by step:
//!
//! 1. candidate boundaries: every `.`, `?` or `!` followed by a "non-word"
//!    character or by whitespace and a token (`period_context_re`);
//! 2. the decision context of each candidate: the preceding word (found by the
//!    last *ASCII* whitespace, `string.whitespace`, with NLTK's index-0 quirk),
//!    the mark and what follows; overlapping candidates are dropped
//!    (`_match_potential_end_contexts`);
//! 3. the decision: the context is word-tokenized with Punkt's word regex
//!    (per line, blank lines skipped), annotated by the first pass (sentence
//!    ends, ellipses, abbreviations incl. the last `-`-separated part) and the
//!    second pass (collocations, orthographic heuristic, frequent sentence
//!    starters, initials and `##number##`), and is a break when a
//!    sentence-breaking token is followed by another token
//!    (`text_contains_sentbreak`);
//! 4. slicing (`_slices_from_text`, the last sentence ends at `text.rstrip()`)
//!    and moving closing quotes/brackets back onto the previous sentence
//!    (`_realign_boundaries`).
//!
//! **NLTK versions.** The reference is NLTK 3.10.4. On the 600 real corpus
//! texts NLTK 3.9.1 gives identical spans; it differs on two hand-written
//! strings only: in 3.9.1 curly quotes and guillemets (`‘’“”«»`) are not
//! closing punctuation (no candidate boundary at `.”` followed by a space, no
//! realignment), and the patterns run on `re`, whose `\s` also matches the
//! information separators U+001C..U+001F. NLTK < 3.8.2 loaded the same
//! parameters from a pickle.
//!
//! All patterns are hand-written scanners equivalent to NLTK's regular
//! expressions (linear time, no backtracking). Character classes follow the
//! engines NLTK uses, all from [`crate::python`]: its patterns run on the
//! third-party `regex` module (`\s` = Unicode `White_Space`, `\d`,
//! `[^\W\d]`), `str.strip`/`rstrip` use Python's `isspace`, and
//! `str.isupper`/`islower` follow Python's Unicode database.

mod params;

use std::borrow::Cow;

use crate::span::Span;
use crate::splitter::SentenceSplitter;
use crate::python;
use params::{Params, ORTHO_BEG_LC, ORTHO_LC, ORTHO_MID_UC, ORTHO_UC};

/// NLTK's Punkt sentence tokenizer with the English `punkt_tab` parameters.
///
/// `Punkt::english()` is cheap (the parameters are parsed once per process and
/// shared); the value is `Copy`, `Send` and `Sync`.
///
/// Output equals `nltk.sent_tokenize(text)` (NLTK 3.10.4, English): each
/// sentence is `&text[span.range()]`; spans are non-empty, increasing and
/// non-overlapping; whitespace between sentences and at the end of the text
/// belongs to no span (as in NLTK, whitespace at the very start of the text
/// stays in the first sentence); a text that is empty or whitespace-only has
/// no sentence. Runs in time linear in the text length.
///
/// ```
/// use factpico_text::Punkt;
/// let text = "Dr. Smith treated 12 pts. (p < 0.05). They improved.";
/// assert_eq!(
///     Punkt::english().tokenize(text),
///     ["Dr. Smith treated 12 pts.", "(p < 0.05).", "They improved."]
/// );
/// ```
#[derive(Clone, Copy)]
pub struct Punkt {
    params: &'static Params,
}

impl std::fmt::Debug for Punkt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Punkt").field("language", &"english").finish()
    }
}

impl Default for Punkt {
    fn default() -> Self {
        Self::english()
    }
}

impl Punkt {
    /// The English model (NLTK `punkt_tab/english`), embedded in the binary.
    pub fn english() -> Self {
        Self { params: Params::english() }
    }

    /// Where the embedded parameters come from (package, version, file
    /// sha256, licence), as recorded in the data file's header.
    pub fn provenance() -> &'static str {
        params::ENGLISH_TSV
            .lines()
            .find_map(|l| l.strip_prefix("%% source: "))
            .unwrap_or("unknown")
    }

    /// Sentence spans (byte offsets into `text`), as NLTK's
    /// `span_tokenize(text)` with `realign_boundaries=True`, converted from
    /// character to byte offsets.
    pub fn span_tokenize(&self, text: &str) -> Vec<Span> {
        let slices = self.slices_from_text(text);
        realign_boundaries(text, &slices)
    }

    /// The sentences, as NLTK's `tokenize(text)` / `sent_tokenize(text)`.
    pub fn tokenize<'a>(&self, text: &'a str) -> Vec<&'a str> {
        self.span_tokenize(text)
            .into_iter()
            .map(|s| s.get(text).unwrap_or_default())
            .collect()
    }

    /// `_slices_from_text`: raw slices `(start, end)` in bytes, before
    /// realignment. The last one may be empty or even have `start > end`
    /// (Python slices then select nothing).
    fn slices_from_text(&self, text: &str) -> Vec<(usize, usize)> {
        let mut slices = Vec::new();
        let mut last_break = 0;
        for (cand, ctx_start) in potential_end_contexts(text) {
            let context = &text[ctx_start..cand.after_end];
            if self.text_contains_sentbreak(context) {
                slices.push((last_break, cand.end));
                last_break = cand.next_tok_start.unwrap_or(cand.end);
            }
        }
        slices.push((last_break, python::rstrip(text).len()));
        slices
    }

    /// `text_contains_sentbreak`: true when, after both annotation passes, some
    /// token other than the last is a sentence break.
    fn text_contains_sentbreak(&self, context: &str) -> bool {
        let mut toks: Vec<Tok<'_>> = Vec::new();
        let mut words = Vec::new();
        for line in context.split('\n') {
            if line.chars().all(python::is_space) {
                continue;
            }
            words.clear();
            word_tokenize(line, &mut words);
            toks.extend(words.iter().map(|w| Tok::new(w)));
        }
        for t in toks.iter_mut() {
            self.first_pass(t);
        }
        let n = toks.len();
        for i in 0..n.saturating_sub(1) {
            let (head, tail) = toks.split_at_mut(i + 1);
            let (t1, t2) = (&mut head[i], &tail[0]);
            self.second_pass(t1, t2);
            if t1.sentbreak {
                return true;
            }
        }
        false
    }

    /// `_first_pass_annotation`.
    fn first_pass(&self, t: &mut Tok<'_>) {
        let tok = t.tok;
        if matches!(tok, "." | "?" | "!") {
            t.sentbreak = true;
        } else if is_ellipsis(tok) {
            t.ellipsis = true;
        } else if t.period_final && !tok.ends_with("..") {
            let base = tok[..tok.len() - 1].to_lowercase();
            let last_part = base.rsplit('-').next().unwrap_or("");
            if self.params.abbrev_types.contains(base.as_str())
                || self.params.abbrev_types.contains(last_part)
            {
                t.abbr = true;
            } else {
                t.sentbreak = true;
            }
        }
    }

    /// `_second_pass_annotation` of `t1` given the next token `t2` (which has
    /// only its first-pass annotation at this point, as in NLTK).
    fn second_pass(&self, t1: &mut Tok<'_>, t2: &Tok<'_>) {
        if !t1.period_final {
            return;
        }
        let typ = type_no_period(&t1.ty);
        let next_typ = t2.type_no_sentperiod();
        let is_initial = is_initial(t1.tok);

        // [4.1.2] collocation heuristic.
        if self.params.is_collocation(typ, next_typ) {
            t1.sentbreak = false;
            t1.abbr = true;
            return;
        }
        // [4.2] abbreviation or ellipsis followed by a sentence starter.
        if (t1.abbr || t1.ellipsis) && !is_initial {
            if self.ortho_heuristic(t2) == Ortho::Starter {
                t1.sentbreak = true;
                return;
            }
            if t2.first_upper() && self.params.sent_starters.contains(next_typ) {
                t1.sentbreak = true;
                return;
            }
        }
        // [4.3] initials and ordinals.
        if is_initial || typ == "##number##" {
            let h = self.ortho_heuristic(t2);
            if h == Ortho::NotStarter {
                t1.sentbreak = false;
                t1.abbr = true;
                return;
            }
            if h == Ortho::Unknown
                && is_initial
                && t2.first_upper()
                && self.params.ortho(next_typ) & ORTHO_LC == 0
            {
                t1.sentbreak = false;
                t1.abbr = true;
            }
        }
    }

    /// `_ortho_heuristic`: is `t` the first token of a sentence?
    fn ortho_heuristic(&self, t: &Tok<'_>) -> Ortho {
        if matches!(t.tok, ";" | ":" | "," | "." | "!" | "?") {
            return Ortho::NotStarter;
        }
        let ctx = self.params.ortho(t.type_no_sentperiod());
        if t.first_upper() && ctx & ORTHO_LC != 0 && ctx & ORTHO_MID_UC == 0 {
            return Ortho::Starter;
        }
        if t.first_lower() && (ctx & ORTHO_UC != 0 || ctx & ORTHO_BEG_LC == 0) {
            return Ortho::NotStarter;
        }
        Ortho::Unknown
    }
}

impl SentenceSplitter for Punkt {
    fn split(&self, text: &str) -> Vec<Span> {
        self.span_tokenize(text)
    }
}

/// Result of the orthographic heuristic (NLTK returns `True`, `False` or `"unknown"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ortho {
    Starter,
    NotStarter,
    Unknown,
}

/// NLTK's `PunktToken` with the annotations the tokenizer uses.
#[derive(Debug)]
struct Tok<'a> {
    tok: &'a str,
    /// `tok.lower()`, or `##number##` for numeric tokens.
    ty: Cow<'a, str>,
    period_final: bool,
    sentbreak: bool,
    abbr: bool,
    ellipsis: bool,
}

impl<'a> Tok<'a> {
    fn new(tok: &'a str) -> Self {
        // Lower-casing cannot create or remove digits, `-`, `.` or `,`, so the
        // numeric test may run on the token itself.
        let ty = if is_numeric(tok) {
            Cow::Borrowed("##number##")
        } else if tok.bytes().any(|b| !b.is_ascii() || b.is_ascii_uppercase()) {
            Cow::Owned(tok.to_lowercase())
        } else {
            Cow::Borrowed(tok)
        };
        Tok {
            tok,
            ty,
            period_final: tok.ends_with('.'),
            sentbreak: false,
            abbr: false,
            ellipsis: false,
        }
    }

    fn type_no_sentperiod(&self) -> &str {
        if self.sentbreak {
            type_no_period(&self.ty)
        } else {
            &self.ty
        }
    }

    fn first_upper(&self) -> bool {
        self.tok.chars().next().is_some_and(python::is_upper)
    }

    fn first_lower(&self) -> bool {
        self.tok.chars().next().is_some_and(python::is_lower)
    }
}

/// `type_no_period`: the type without its final period (if it has more than one character).
fn type_no_period(ty: &str) -> &str {
    if ty.len() > 1 && ty.ends_with('.') {
        &ty[..ty.len() - 1]
    } else {
        ty
    }
}

/// `_RE_NUMERIC = ^-?[\.,]?\d[\d,\.-]*\.?$` (the optional final period is
/// already covered by the class).
fn is_numeric(s: &str) -> bool {
    let mut rest = s.strip_prefix('-').unwrap_or(s);
    if let Some(r) = rest.strip_prefix(['.', ',']) {
        rest = r;
    }
    let mut chars = rest.chars();
    chars.next().is_some_and(python::is_regex_digit)
        && chars.all(|c| matches!(c, ',' | '.' | '-') || python::is_regex_digit(c))
}

/// `_RE_ELLIPSIS = \.\.+$` (anchored at the start by `match`).
fn is_ellipsis(tok: &str) -> bool {
    tok.len() >= 2 && tok.bytes().all(|b| b == b'.')
}

/// `_RE_INITIAL = [^\W\d]\.$`: one word character (not a digit) and a period.
fn is_initial(tok: &str) -> bool {
    let mut cs = tok.chars();
    matches!((cs.next(), cs.next(), cs.next()), (Some(c), Some('.'), None) if python::is_regex_word_not_digit(c))
}

// ---------------------------------------------------------------------------
// Character classes
// ---------------------------------------------------------------------------

/// `_re_non_word_chars`: characters that cannot appear within words
/// (`)";}]*:@'({[`, the curly quotes, guillemets, `?` and `!`).
fn is_non_word(c: char) -> bool {
    matches!(
        c,
        ')' | '"'
            | ';'
            | '}'
            | ']'
            | '*'
            | ':'
            | '@'
            | '\''
            | '('
            | '{'
            | '['
            | '\u{2018}'
            | '\u{2019}'
            | '\u{201c}'
            | '\u{201d}'
            | '\u{ab}'
            | '\u{bb}'
            | '?'
            | '!'
    )
}

/// Complement of `_re_word_start`: characters that cannot start a word token.
fn cannot_start_word(c: char) -> bool {
    matches!(
        c,
        '(' | '"' | '`' | '{' | '[' | ':' | ';' | '&' | '#' | '*' | '@' | ')' | '}' | ']' | '-' | ','
    )
}

/// `re_boundary_realignment`'s closing-punctuation class.
fn is_closing(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | ')' | ']' | '}' | '\u{2018}' | '\u{2019}' | '\u{201c}' | '\u{201d}' | '\u{ab}' | '\u{bb}'
    )
}

// ---------------------------------------------------------------------------
// Word tokenizer (`PunktLanguageVars.word_tokenize`)
// ---------------------------------------------------------------------------

/// Length in chars of `_re_multi_char_punct = (?:\-{2,}|\.{2,}|(?:\.\s){2,}\.)`
/// matched at `i`, if it matches.
fn multi_char_len(cs: &[char], i: usize) -> Option<usize> {
    let at = |k: usize| cs.get(k).copied();
    match (at(i), at(i + 1)) {
        (Some('-'), Some('-')) => Some(cs[i..].iter().take_while(|&&c| c == '-').count()),
        (Some('.'), Some('.')) => Some(cs[i..].iter().take_while(|&&c| c == '.').count()),
        (Some('.'), _) => {
            // Greedy `(?:\.\s){k}` then `\.`, backtracking k down to 2.
            let mut k = 0;
            while at(i + 2 * k) == Some('.') && at(i + 2 * k + 1).is_some_and(python::is_regex_space) {
                k += 1;
            }
            if k >= 2 && at(i + 2 * k) == Some('.') {
                Some(2 * k + 1)
            } else if k >= 3 {
                Some(2 * k - 1)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether `_re_multi_char_punct` matches at `i` (as a lookahead).
fn multi_char_at(cs: &[char], i: usize) -> bool {
    let at = |k: usize| cs.get(k).copied();
    match (at(i), at(i + 1)) {
        (Some('-'), Some('-')) | (Some('.'), Some('.')) => true,
        (Some('.'), Some(s)) if python::is_regex_space(s) => {
            at(i + 2) == Some('.') && at(i + 3).is_some_and(python::is_regex_space) && at(i + 4) == Some('.')
        }
        _ => false,
    }
}

/// The lookahead ending a word token at `j`:
/// `\s | $ | NonWord | MultiChar | ,(?=$|\s|NonWord|MultiChar)`.
fn word_ends_at(cs: &[char], j: usize) -> bool {
    let Some(&c) = cs.get(j) else { return true };
    if python::is_regex_space(c) || is_non_word(c) || multi_char_at(cs, j) {
        return true;
    }
    c == ',' && cs.get(j + 1).is_none_or(|&d| python::is_regex_space(d) || is_non_word(d) || multi_char_at(cs, j + 1))
}

/// `word_tokenize(line)`: `findall` of Punkt's word regex over one line (no `\n`):
///
/// ```text
/// ( MultiChar | (?=WordStart)\S+?(?=<word end>) | \S )
/// ```
fn word_tokenize<'a>(line: &'a str, out: &mut Vec<&'a str>) {
    let (offsets, cs): (Vec<usize>, Vec<char>) = line.char_indices().unzip();
    let n = cs.len();
    let byte = |i: usize| offsets.get(i).copied().unwrap_or(line.len());
    let mut i = 0;
    while i < n {
        let c = cs[i];
        let end = if let Some(len) = multi_char_len(&cs, i) {
            i + len
        } else if python::is_regex_space(c) {
            i += 1;
            continue;
        } else if !cannot_start_word(c) {
            let mut j = i + 1;
            while !word_ends_at(&cs, j) {
                j += 1;
            }
            j
        } else {
            i + 1
        };
        out.push(&line[byte(i)..byte(end)]);
        i = end;
    }
}

// ---------------------------------------------------------------------------
// Candidate boundaries and their contexts
// ---------------------------------------------------------------------------

/// One match of `period_context_re`:
/// `[.?!](?=(?P<after_tok>NonWord|\s+(?P<next_tok>\S+)))`.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    /// Byte offset of the `.`, `?` or `!`.
    start: usize,
    /// `start + 1`.
    end: usize,
    /// End of `after_tok` (bytes).
    after_end: usize,
    /// Start of `next_tok`, when the mark is followed by whitespace.
    next_tok_start: Option<usize>,
}

/// `period_context_re().finditer(text)`.
fn candidates(text: &str) -> impl Iterator<Item = Candidate> + '_ {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().filter_map(move |(p, &b)| {
        if !matches!(b, b'.' | b'?' | b'!') {
            return None;
        }
        let rest = &text[p + 1..];
        let c = rest.chars().next()?;
        if is_non_word(c) {
            return Some(Candidate { start: p, end: p + 1, after_end: p + 1 + c.len_utf8(), next_tok_start: None });
        }
        if !python::is_regex_space(c) {
            return None;
        }
        let ws: usize = rest.chars().take_while(|&c| python::is_regex_space(c)).map(char::len_utf8).sum();
        let q = p + 1 + ws;
        let tok: usize = text[q..].chars().take_while(|&c| !python::is_regex_space(c)).map(char::len_utf8).sum();
        (tok > 0).then_some(Candidate { start: p, end: p + 1, after_end: q + tok, next_tok_start: Some(q) })
    })
}

/// `_match_potential_end_contexts`: the candidates whose preceding word does
/// not overlap the previous candidate's, each with the byte offset where its
/// decision context starts (the context is `text[ctx_start..cand.after_end]`).
fn potential_end_contexts(text: &str) -> Vec<(Candidate, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    // `previous_slice` = (start, stop) of the previous candidate's word.
    let mut prev_slice = (0usize, 0usize);
    let mut prev: Option<Candidate> = None;
    for cand in candidates(text) {
        let before = &bytes[prev_slice.1..cand.start];
        // `_get_last_whitespace_index`: last `string.whitespace` char, 0 if none;
        // NLTK's `if index:` also treats a hit at index 0 as "none".
        let last_ws = before.iter().rposition(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c));
        let word_start = match last_ws {
            Some(i) if i > 0 => prev_slice.1 + i + 1,
            _ => prev_slice.0,
        };
        if let Some(p) = prev {
            if prev_slice.1 <= word_start {
                out.push((p, prev_slice.0));
            }
        }
        prev = Some(cand);
        prev_slice = (word_start, cand.start);
    }
    if let Some(p) = prev {
        out.push((p, prev_slice.0));
    }
    out
}

/// `_realign_boundaries`: moves closing quotes/brackets that follow a break
/// (`re_boundary_realignment`) onto the sentence before it, and drops empty
/// slices.
fn realign_boundaries(text: &str, slices: &[(usize, usize)]) -> Vec<Span> {
    let mut out = Vec::with_capacity(slices.len());
    let mut realign = 0;
    for (i, &(start, stop)) in slices.iter().enumerate() {
        let s1 = (start + realign, stop);
        let Some(&s2) = slices.get(i + 1) else {
            if s1.0 < s1.1 {
                out.push(Span::new(s1.0, s1.1));
            }
            continue;
        };
        if let Some((kept, consumed)) = realignment_match(text, s2) {
            out.push(Span::new(s1.0, s2.0 + kept));
            realign = consumed;
        } else {
            realign = 0;
            if s1.0 < s1.1 {
                out.push(Span::new(s1.0, s1.1));
            }
        }
    }
    out
}

/// `re_boundary_realignment.match(text[s2])` with
/// `["')\]}‘’“”«»]+?(?:\s+|(?=--)|$)` (MULTILINE). Returns the byte length of
/// the closing characters (= `len(m.group(0).rstrip())`) and `m.end()`.
fn realignment_match(text: &str, s2: (usize, usize)) -> Option<(usize, usize)> {
    if s2.0 >= s2.1 {
        return None;
    }
    let seg = &text[s2.0..s2.1];
    for (off, c) in seg.char_indices() {
        if !is_closing(c) {
            return None;
        }
        let k = off + c.len_utf8();
        let rest = &seg[k..];
        let ws: usize = rest.chars().take_while(|&c| python::is_regex_space(c)).map(char::len_utf8).sum();
        if ws > 0 {
            return Some((k, k + ws));
        }
        if rest.is_empty() || rest.starts_with("--") {
            return Some((k, k));
        }
    }
    None
}

#[cfg(test)]
mod tests;
