//! DAE-2021 model input encoding: `convert_examples_to_features`
//! (`tagoyal/factuality-datasets` `train_utils.py:255-350`, spec §2), reproduced exactly.
//!
//! ```text
//! tokens_a = [CLS] + pieces(w) for w in ' '.join(article_words).split(' ')
//! tokens_b = [SEP] + pieces(w) for w in ' '.join(summary_words).split(' ') + [SEP]
//! index_map[k] = position of the LAST piece of summary word k (words with no piece: absent)
//! if len(a) + len(b) > 512: extra = len(a) + len(b) - 512 + 2   (the reference's "+ 2" quirk:
//!     the real length after truncation is 510); cut `extra` pieces from the END of tokens_a;
//!     shift index_map by -extra
//! child_pos/head_pos = index_map[child_idx]/index_map[head_idx]
//! ```
//! No `token_type_ids` (all zero). Padding is left to the runner (results do not depend on it).
//!
//! When `extra == len(tokens_a)` (the summary takes exactly `max_length - 2` pieces with its
//! two `[SEP]`), the reference cuts the whole article **including `[CLS]`** and still gives a
//! well-formed input (`[SEP] summary [SEP]`, positions correct); so does [`encode`].
//!
//! Deviations, where the reference crashes or silently breaks: an arc touching a word with no
//! wordpiece (reference: `KeyError`) is reported in [`Features::skipped_arcs`] and not scored;
//! a summary longer than that (`extra > len(tokens_a)`; reference: `tokens_a` emptied but
//! positions shifted by `extra`, i.e. pointing `extra - len(tokens_a)` pieces too early or
//! negative, and over `max_length` pieces ELECTRA fails) is [`Error::SummaryTooLong`](crate::Error::SummaryTooLong).
//! Both were confirmed by running the reference's own `convert_examples_to_features`
//! (`tests/goldens/crosscheck_dae_reference.py`).

use serde::{Deserialize, Serialize};

use crate::Error;

/// Word → WordPiece ids, as `ElectraTokenizer.tokenize(word)` then `convert_tokens_to_ids`
/// (uncased BERT WordPiece: lower-case, strip accents, split punctuation, `[UNK]` for words
/// over 100 chars). Implemented by the runtime's tokenizer wrapper; tests may mock it.
pub trait WordPieces {
    /// Piece ids of one word (no special tokens). May be empty (e.g. a lone soft hyphen).
    ///
    /// # Errors
    /// Tokenizer failures, as a message.
    fn word_pieces(&self, word: &str) -> Result<Vec<u32>, String>;
    /// Id of `[CLS]`.
    fn cls_id(&self) -> u32;
    /// Id of `[SEP]`.
    fn sep_id(&self) -> u32;
}

/// An arc by word index (0-based, into the summary word list given to [`encode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordArc {
    /// Governor word index.
    pub head: usize,
    /// Dependent word index.
    pub child: usize,
}

/// Encoded model input of one (article, summary) example.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Features {
    /// `[CLS] article [SEP] summary [SEP]` piece ids (≤ `max_length - 2` when truncated,
    /// unpadded). Starts with `[SEP]` (no `[CLS]`) in the reference's boundary case where the
    /// summary takes exactly `max_length - 2` pieces.
    pub input_ids: Vec<u32>,
    /// Sequence position of each scored arc's child (last piece of the child word).
    pub child_pos: Vec<usize>,
    /// Sequence position of each scored arc's head.
    pub head_pos: Vec<usize>,
    /// For each scored arc, its index in the `arcs` given to [`encode`].
    pub arc_index: Vec<usize>,
    /// Indices (into `arcs`) of arcs not scored because head or child has no wordpiece.
    pub skipped_arcs: Vec<usize>,
    /// Article pieces removed by truncation (the reference's `extra`; 0 if none).
    pub truncated: usize,
}

/// Encodes one example exactly as the reference (module docs). `arcs` index
/// `summary_words`; the caller applies the 20-arc cap (it is part of arc selection).
/// `max_length` is 512 in the reference.
///
/// # Errors
/// [`Error::SummaryTooLong`], [`Error::ArcOutOfRange`], [`Error::Tokenizer`].
pub fn encode<T: WordPieces + ?Sized>(
    tok: &T,
    article_words: &[String],
    summary_words: &[String],
    arcs: &[WordArc],
    max_length: usize,
) -> Result<Features, Error> {
    let pieces = |w: &str| tok.word_pieces(w).map_err(Error::Tokenizer);
    let mut tokens_a: Vec<u32> = vec![tok.cls_id()];
    let article = article_words.join(" ");
    if !article_words.is_empty() {
        for w in article.split(' ') {
            tokens_a.extend(pieces(w)?);
        }
    }
    let summary = summary_words.join(" ");
    let mut idx = tokens_a.len() + 1;
    let mut tokens_b: Vec<u32> = vec![tok.sep_id()];
    let split: Vec<&str> = if summary_words.is_empty() { Vec::new() } else { summary.split(' ').collect() };
    let mut index_map: Vec<Option<usize>> = vec![None; split.len()];
    for (k, w) in split.iter().enumerate() {
        let p = pieces(w)?;
        if !p.is_empty() {
            idx += p.len();
            tokens_b.extend(p);
            index_map[k] = Some(idx - 1);
        }
    }
    tokens_b.push(tok.sep_id());
    let mut truncated = 0;
    if tokens_a.len() + tokens_b.len() > max_length {
        let extra = tokens_a.len() + tokens_b.len() - max_length + 2;
        if extra > tokens_a.len() {
            return Err(Error::SummaryTooLong { summary_pieces: tokens_b.len(), max_length });
        }
        tokens_a.truncate(tokens_a.len() - extra);
        for v in index_map.iter_mut().flatten() {
            *v -= extra;
        }
        truncated = extra;
    }
    let mut f = Features {
        input_ids: tokens_a,
        child_pos: Vec::new(),
        head_pos: Vec::new(),
        arc_index: Vec::new(),
        skipped_arcs: Vec::new(),
        truncated,
    };
    f.input_ids.extend(tokens_b);
    let n = summary_words.len();
    for (i, a) in arcs.iter().enumerate() {
        for w in [a.head, a.child] {
            if w >= n {
                return Err(Error::ArcOutOfRange { index: i, word: w, n_words: n });
            }
        }
        // the reference looks up index_map by the CoreNLP token index
        match (index_map.get(a.child).copied().flatten(), index_map.get(a.head).copied().flatten()) {
            (Some(c), Some(h)) => {
                f.child_pos.push(c);
                f.head_pos.push(h);
                f.arc_index.push(i);
            }
            _ => f.skipped_arcs.push(i),
        }
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Mock WordPiece: a word gives one piece per 3 chars (ids from a running counter based on
    /// length), except "" and "~" which give none.
    struct Mock;
    impl WordPieces for Mock {
        fn word_pieces(&self, w: &str) -> Result<Vec<u32>, String> {
            if w.is_empty() || w == "~" {
                return Ok(vec![]);
            }
            let n = w.len().div_ceil(3);
            Ok((0..n).map(|i| 1000 + w.len() as u32 * 10 + i as u32).collect())
        }
        fn cls_id(&self) -> u32 {
            101
        }
        fn sep_id(&self) -> u32 {
            102
        }
    }

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn positions_are_last_pieces_and_no_piece_words_are_skipped() {
        let a = words("ab abcdef");
        let s = words("xyzuvw ~ q");
        let arcs = [WordArc { head: 0, child: 2 }, WordArc { head: 0, child: 1 }];
        let f = encode(&Mock, &a, &s, &arcs, 512).unwrap();
        // [CLS] ab(1) abcdef(2) [SEP] xyzuvw(2) q(1) [SEP]
        assert_eq!(f.input_ids.len(), 1 + 3 + 1 + 3 + 1);
        // positions: 0 [CLS], 1 ab, 2-3 abcdef, 4 [SEP], 5-6 xyzuvw, 7 q, 8 [SEP]
        assert_eq!(f.child_pos, [7]);
        assert_eq!(f.head_pos, [6]);
        assert_eq!(f.arc_index, [0]);
        assert_eq!(f.skipped_arcs, [1]);
        assert_eq!(f.truncated, 0);
    }

    #[test]
    fn truncation_cuts_article_end_with_plus_two_quirk() {
        let a: Vec<String> = (0..600).map(|_| "abc".to_owned()).collect(); // 600 pieces
        let s = words("abcdef abc");
        let arcs = [WordArc { head: 0, child: 1 }];
        let f = encode(&Mock, &a, &s, &arcs, 512).unwrap();
        // tokens_a = 601, tokens_b = 1 + 2 + 1 + 1 = 5 → extra = 601 + 5 - 512 + 2 = 96
        assert_eq!(f.truncated, 96);
        assert_eq!(f.input_ids.len(), 510);
        assert_eq!(f.input_ids[505], 102, "[SEP] after the cut article");
        assert_eq!(f.head_pos, [507]);
        assert_eq!(f.child_pos, [508]);
        assert_eq!(*f.input_ids.last().unwrap(), 102);
    }

    #[test]
    fn exact_fit_is_not_truncated() {
        let a: Vec<String> = (0..508).map(|_| "abc".to_owned()).collect();
        let s = words("abc");
        let f = encode(&Mock, &a, &s, &[], 512).unwrap();
        assert_eq!((f.input_ids.len(), f.truncated), (512, 0));
        let a: Vec<String> = (0..509).map(|_| "abc".to_owned()).collect();
        let f = encode(&Mock, &a, &s, &[], 512).unwrap();
        assert_eq!((f.input_ids.len(), f.truncated), (510, 3));
    }

    #[test]
    fn words_with_spaces_shift_the_map_like_the_reference() {
        // ' '.join(words).split(' ') — a word containing a space becomes two positions
        let s = vec!["ab cd".to_owned(), "efg".to_owned()];
        let arcs = [WordArc { head: 1, child: 0 }];
        let f = encode(&Mock, &[], &s, &arcs, 512).unwrap();
        // [CLS] [SEP] ab cd efg [SEP]; word index 1 → split position 1 = "cd" (pos 3)
        assert_eq!(f.head_pos, [3]);
        assert_eq!(f.child_pos, [2]);
    }

    #[test]
    fn summary_of_exactly_max_minus_two_pieces_drops_cls_like_the_reference() {
        // tokens_a = [CLS] a b c (4), tokens_b = [SEP] + 508 + [SEP] = 510
        // → extra = 4 + 510 - 512 + 2 = 4 = len(tokens_a)
        let s: Vec<String> = (0..508).map(|_| "abc".to_owned()).collect();
        let arcs = [WordArc { head: 1, child: 0 }, WordArc { head: 506, child: 507 }];
        let f = encode(&Mock, &words("a b c"), &s, &arcs, 512).unwrap();
        assert_eq!((f.input_ids.len(), f.truncated), (510, 4));
        assert_eq!((f.input_ids[0], f.input_ids[509]), (102, 102), "[SEP] summary [SEP], no [CLS]");
        assert_eq!(f.child_pos, [1, 508]);
        assert_eq!(f.head_pos, [2, 507]);
        // one piece more: the reference's positions would point one piece too early
        let s: Vec<String> = (0..509).map(|_| "abc".to_owned()).collect();
        let e = encode(&Mock, &words("a b c"), &s, &[], 512).unwrap_err();
        assert!(matches!(e, Error::SummaryTooLong { summary_pieces: 511, max_length: 512 }), "{e}");
    }

    #[test]
    fn too_long_summary_and_bad_arcs_are_errors() {
        let s: Vec<String> = (0..600).map(|_| "abc".to_owned()).collect();
        assert!(matches!(encode(&Mock, &words("a"), &s, &[], 512), Err(Error::SummaryTooLong { .. })));
        let e = encode(&Mock, &[], &words("a b"), &[WordArc { head: 5, child: 0 }], 512).unwrap_err();
        assert!(matches!(e, Error::ArcOutOfRange { word: 5, .. }));
    }
}
