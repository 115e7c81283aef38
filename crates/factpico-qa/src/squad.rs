//! SQuAD answer normalisation, exact match and token F1.
//!
//! Both references use the same normalisation — QuestEval's `calculate_f1_squad`
//! (`questeval/utils.py:123-162`) and transformers' `squad_metrics.compute_f1/compute_exact`
//! (used by QAEval/QAFactEval): lower-case → delete ASCII `string.punctuation` →
//! `\b(a|an|the)\b` → space → collapse whitespace; tokens = whitespace split; if either
//! side has no tokens, F1 = EM = (both have none).

/// ASCII punctuation (`string.punctuation`).
const PUNCT: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/// SQuAD `normalize_answer`.
///
/// Python's `str.lower()` and `re`'s Unicode `\b` are reproduced for the articles; `split()`
/// uses Python's whitespace set.
pub fn normalize_answer(s: &str) -> String {
    let lower = s.to_lowercase();
    let no_punct: String = lower.chars().filter(|c| !PUNCT.contains(*c)).collect();
    let no_art = remove_articles(&no_punct);
    factpico_text::words(&no_art).collect::<Vec<_>>().join(" ")
}

fn is_word_char(c: char) -> bool {
    // Python 3 `re` (str patterns): \w = alphanumeric (str.isalnum) or underscore.
    c.is_alphanumeric() || c == '_'
}

fn remove_articles(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let mut matched = 0;
        for art in ["the", "an", "a"] {
            let n = art.chars().count();
            if i + n <= chars.len() && chars[i..i + n].iter().copied().eq(art.chars()) {
                let before_ok = i == 0 || !is_word_char(chars[i - 1]);
                let after_ok = i + n == chars.len() || !is_word_char(chars[i + n]);
                if before_ok && after_ok {
                    matched = n;
                    break;
                }
            }
        }
        if matched > 0 {
            out.push(' ');
            i += matched;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

fn tokens(s: &str) -> Vec<String> {
    if s.is_empty() {
        return Vec::new();
    }
    normalize_answer(s).split(' ').filter(|t| !t.is_empty()).map(str::to_owned).collect()
}

/// SQuAD exact match: `1.0` when the normalised strings are equal, else `0.0`.
pub fn exact_match(gold: &str, pred: &str) -> f64 {
    if normalize_answer(gold) == normalize_answer(pred) {
        1.0
    } else {
        0.0
    }
}

/// SQuAD token F1 in `[0, 1]` (bag-of-tokens overlap). Symmetric in its arguments.
pub fn token_f1(gold: &str, pred: &str) -> f64 {
    let g = tokens(gold);
    let p = tokens(pred);
    if g.is_empty() || p.is_empty() {
        return if g == p { 1.0 } else { 0.0 };
    }
    let mut counts: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    for t in &g {
        *counts.entry(t.as_str()).or_default() += 1;
    }
    let mut same = 0i64;
    for t in &p {
        if let Some(c) = counts.get_mut(t.as_str()) {
            if *c > 0 {
                *c -= 1;
                same += 1;
            }
        }
    }
    if same == 0 {
        return 0.0;
    }
    let precision = same as f64 / p.len() as f64;
    let recall = same as f64 / g.len() as f64;
    2.0 * precision * recall / (precision + recall)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked() {
        assert_eq!(normalize_answer("The  Cat, sat!"), "cat sat");
        assert_eq!(normalize_answer("theatre a-b"), "theatre ab");
        // "the cat sat" vs "a cat": tokens [cat, sat] vs [cat] → P 1, R .5 → F1 2/3.
        assert!((token_f1("the cat sat", "a cat") - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(token_f1("", ""), 1.0);
        assert_eq!(token_f1("the", ""), 1.0); // both normalise to no tokens
        assert_eq!(token_f1("x", ""), 0.0);
        assert_eq!(exact_match("The Drug.", "drug"), 1.0);
        assert_eq!(token_f1("a b", "c d"), 0.0);
    }
}
