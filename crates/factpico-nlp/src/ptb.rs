//! PTB-style token normalisation approximating Stanford CoreNLP 3.9.1's `PTBTokenizer`
//! (default `ptb3Escaping`), for tokens that did not come from CoreNLP.
//!
//! DAE's model was trained on `lower(ptb_tokenize(text))` (factuality-datasets README,
//! "EDIT"; spec §1): brackets are escaped (`(` → `-LRB-`), double quotes become
//! ``` `` ``` / `''`, single quotes `` ` `` / `'`, dashes `--`, the ellipsis `...`, and
//! contractions are split (`don't` → `do n't`). ELECTRA's uncased WordPiece re-splits all
//! other punctuation, so for the *article* only these escapes and contraction splits change
//! the model input; the approximation here reproduces them.
//!
//! What is approximate (documented in `docs/dae.md`): CoreNLP keeps hyphenated words and
//! some abbreviations together and normalises fractions (`½` → `1\/2`); none of that
//! changes WordPiece output except for fractions, which are left as they are.

/// PTB escape of one token's text. `opening` says whether a double/single quote in this
/// token opens a quotation (CoreNLP decides from context; see [`escape_tokens`]).
///
/// Whole-token rules: `"` → ``` `` ```/`''`, `'` → `` ` ``/`'` (only when the token is the
/// quote alone). Character rules anywhere in the token: `(`→`-LRB-`, `)`→`-RRB-`,
/// `[`→`-LSB-`, `]`→`-RSB-`, `{`→`-LCB-`, `}`→`-RCB-`, `“`→``` `` ```, `”`/`„`→`''`,
/// `‘`→`` ` ``, `’`→`'`, `–`/`—`→`--`, `…`→`...`.
pub fn escape_token(token: &str, opening: bool) -> String {
    match token {
        "\"" => return if opening { "``".into() } else { "''".into() },
        "'" => return if opening { "`".into() } else { "'".into() },
        _ => {}
    }
    let mut out = String::with_capacity(token.len() + 4);
    for c in token.chars() {
        match c {
            '(' => out.push_str("-LRB-"),
            ')' => out.push_str("-RRB-"),
            '[' => out.push_str("-LSB-"),
            ']' => out.push_str("-RSB-"),
            '{' => out.push_str("-LCB-"),
            '}' => out.push_str("-RCB-"),
            '“' => out.push_str("``"),
            '”' | '„' => out.push_str("''"),
            '‘' => out.push('`'),
            '’' => out.push('\''),
            '–' | '—' => out.push_str("--"),
            '…' => out.push_str("..."),
            '"' => out.push_str(if opening && out.is_empty() { "``" } else { "''" }),
            c => out.push(c),
        }
    }
    out
}

/// Escapes the tokens of `text` given their byte spans, deciding quote direction from
/// context: a quote opens when it starts the text or follows whitespace or an opening
/// bracket/quote. Spans must lie on char boundaries of `text` (out-of-range spans are
/// treated as closing quotes).
pub fn escape_tokens(text: &str, spans: &[std::ops::Range<usize>]) -> Vec<String> {
    spans
        .iter()
        .map(|sp| {
            let tok = text.get(sp.clone()).unwrap_or("");
            let prev = text.get(..sp.start).and_then(|s| s.chars().next_back());
            let opening = match prev {
                None => true,
                Some(c) => c.is_whitespace() || "([{“‘\"'`".contains(c),
            };
            escape_token(tok, opening)
        })
        .collect()
}

const CONTRACTIONS: [&str; 7] = ["n't", "'s", "'re", "'ve", "'ll", "'d", "'m"];

/// Approximate CoreNLP 3.9.1 `tokenize` words of a text (not lower-cased), as used for the
/// DAE **article** side (`get_tokenized_text`, `train_utils.py:64-71`): whitespace split,
/// leading/trailing brackets and quotes split off, English contractions split
/// (`don't` → `do n't`, `cannot` → `can not`, `’` treated as `'`), then [`escape_token`].
pub fn ptb_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for chunk in text.split_whitespace() {
        let chars: Vec<char> = chunk.chars().collect();
        let (mut lo, mut hi) = (0usize, chars.len());
        let mut pre = Vec::new();
        while lo < hi && "([{\"'`“‘".contains(chars[lo]) {
            pre.push(chars[lo]);
            lo += 1;
        }
        let mut post = Vec::new();
        while hi > lo && ")]}\"'”’.,;:!?".contains(chars[hi - 1]) {
            // keep an abbreviation-final period attached ("vs.", "e.g.") — WordPiece splits it anyway
            post.push(chars[hi - 1]);
            hi -= 1;
        }
        post.reverse();
        for c in &pre {
            out.push(escape_token(&c.to_string(), true));
        }
        let core: String = chars[lo..hi].iter().map(|c| if *c == '’' { '\'' } else { *c }).collect();
        if !core.is_empty() {
            let lower = core.to_lowercase();
            if lower == "cannot" {
                out.push(core[..3].to_string());
                out.push(core[3..].to_string());
            } else if let Some(suf) = CONTRACTIONS.iter().find(|s| lower.ends_with(*s) && lower.len() > s.len()) {
                let cut = core.len() - suf.len();
                if core.is_char_boundary(cut) {
                    out.push(escape_token(&core[..cut], false));
                    out.push(core[cut..].to_string());
                } else {
                    out.push(escape_token(&core, false));
                }
            } else {
                out.push(escape_token(&core, false));
            }
        }
        for c in post {
            out.push(escape_token(&c.to_string(), false));
        }
    }
    out
}

/// Candidate surface strings a PTB-normalised token may stand for in the original text
/// (used to align CoreNLP/CoNLL-U tokens back to the text). Always includes `form` itself.
pub fn unescape_candidates(form: &str) -> Vec<String> {
    let mut c = vec![form.to_owned()];
    let lower = form.to_lowercase();
    let extra: &[&str] = match lower.as_str() {
        "-lrb-" => &["("],
        "-rrb-" => &[")"],
        "-lsb-" => &["["],
        "-rsb-" => &["]"],
        "-lcb-" => &["{"],
        "-rcb-" => &["}"],
        "``" => &["\"", "“", "„", "''"],
        "''" => &["\"", "”", "``"],
        "`" => &["'", "‘"],
        "'" => &["’", "`"],
        "--" => &["–", "—", "-", "―"],
        "..." => &["…", ". . ."],
        _ => &[],
    };
    c.extend(extra.iter().map(|s| (*s).to_owned()));
    if form.contains("\\/") || form.contains("\\*") {
        c.push(form.replace("\\/", "/").replace("\\*", "*"));
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_brackets_quotes_dashes() {
        assert_eq!(escape_token("(", true), "-LRB-");
        assert_eq!(escape_token(")", false), "-RRB-");
        assert_eq!(escape_token("\"", true), "``");
        assert_eq!(escape_token("\"", false), "''");
        assert_eq!(escape_token("“", false), "``");
        assert_eq!(escape_token("–", false), "--");
        assert_eq!(escape_token("…", false), "...");
        assert_eq!(escape_token("drug", false), "drug");
    }

    #[test]
    fn quote_direction_from_context() {
        let t = "He said \"yes\" (twice).";
        let spans = vec![0..2, 3..7, 8..9, 9..12, 12..13, 14..15, 15..20, 20..21, 21..22];
        assert_eq!(
            escape_tokens(t, &spans),
            ["He", "said", "``", "yes", "''", "-LRB-", "twice", "-RRB-", "."]
        );
    }

    #[test]
    fn article_words() {
        assert_eq!(
            ptb_words("Patients (n=121) didn't improve; \"fewer\" attacks–really cannot."),
            ["Patients", "-LRB-", "n=121", "-RRB-", "did", "n't", "improve", ";", "``", "fewer", "''", "attacks--really", "can", "not", "."]
        );
        assert_eq!(ptb_words("It’s fine"), ["It", "'s", "fine"]);
        assert!(ptb_words("   ").is_empty());
    }

    #[test]
    fn candidates() {
        assert!(unescape_candidates("-LRB-").contains(&"(".to_owned()));
        assert!(unescape_candidates("-lrb-").contains(&"(".to_owned()));
        assert!(unescape_candidates("1\\/2").contains(&"1/2".to_owned()));
    }
}
