//! Tokenisation of the reference's single `chunk + separator + claim` sequence with a
//! caller-chosen maximum length, over the model directory's `tokenizer.json` (the one
//! [`factpico_runtime::sequence::SequenceClassifier::tokenizer`] loaded): Hugging Face
//! `tokenizer(text, max_length=N, truncation=True)` with a fast tokenizer.

pub(crate) use factpico_runtime::sequence::special_tokens;
use factpico_runtime::sequence::EncodedSequence;
use tokenizers::utils::truncation::TruncationDirection;
use tokenizers::Tokenizer;

use crate::{Error, Result};

fn tok(context: &'static str) -> impl FnOnce(tokenizers::Error) -> Error {
    move |source| Error::Tokenizer { context, source }
}

/// Number of tokens of `text` without special tokens and without truncation: Hugging Face
/// `len(tokenizer(text, add_special_tokens=False)["input_ids"])` (special-token strings inside
/// the text, e.g. a literal `</s>`, count as one token each).
///
/// # Errors
/// [`Error::Tokenizer`].
pub(crate) fn count_tokens(tokenizer: &Tokenizer, text: &str) -> Result<usize> {
    Ok(tokenizer.encode(text, false).map_err(tok("counting tokens"))?.get_ids().len())
}

/// `text` with special tokens, cut from the right to `max_length` tokens (special tokens
/// included): the post-processor adds the special tokens after the text is cut, so a text
/// that already ends in an end-of-sequence token still gets one appended. `max_length` must
/// exceed [`special_tokens`] (checked by [`crate::MiniCheck::try_new`]).
///
/// # Errors
/// [`Error::Tokenizer`].
pub(crate) fn encode(tokenizer: &Tokenizer, text: &str, max_length: usize) -> Result<EncodedSequence> {
    let room = max_length.saturating_sub(special_tokens(tokenizer)).max(1);
    let mut enc = tokenizer.encode(text, false).map_err(tok("encoding a chunk and claim"))?;
    let truncated = enc.get_ids().len().saturating_sub(room);
    if truncated > 0 {
        enc.truncate(room, 0, TruncationDirection::Right);
    }
    let enc = tokenizer.post_process(enc, None, true).map_err(tok("adding special tokens"))?;
    Ok(EncodedSequence { ids: enc.get_ids().to_vec(), truncated })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::path::PathBuf;

    use super::*;

    /// The committed RoBERTa-shaped fixture's tokenizer (byte-level BPE, `<s> … </s>`).
    fn roberta() -> Tokenizer {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/models/minicheck-roberta-large-tiny/tokenizer.json");
        Tokenizer::from_file(p).unwrap()
    }

    const TEXT: &str = "Adults with asthma used the inhaler twice a day for 12 weeks, and attacks fell by a third.";

    #[test]
    fn counts_tokens_without_special_tokens_or_truncation() {
        let t = roberta();
        assert_eq!(special_tokens(&t), 2);
        let n = count_tokens(&t, TEXT).unwrap();
        let enc = encode(&t, TEXT, 512).unwrap();
        assert_eq!(enc.ids.len(), n + 2);
        assert_eq!(enc.truncated, 0);
        assert_eq!(count_tokens(&t, "").unwrap(), 0);
        // A literal special-token string is one token; a long text is not cut.
        assert_eq!(count_tokens(&t, &format!("{TEXT}</s>{TEXT}")).unwrap(), 2 * n + 1);
        let long = TEXT.repeat(40);
        let n_long = count_tokens(&t, &long).unwrap();
        assert!(n_long > 512, "{n_long}");
        assert_eq!(encode(&t, &long, 512).unwrap().truncated, n_long - 510);
    }

    #[test]
    fn encodes_to_a_shorter_max_length_from_the_end() {
        let t = roberta();
        let text = format!("{TEXT}</s>The claim.");
        let full = encode(&t, &text, 512).unwrap();
        let n = full.ids.len();
        let eos = full.ids[n - 1];
        let cut = encode(&t, &text, 10).unwrap();
        assert_eq!(cut.ids.len(), 10);
        assert_eq!(cut.truncated, n - 10);
        // <s> + the first 8 text tokens + </s>: the end of the text is what goes, and the
        // end-of-sequence token is appended after the cut.
        assert_eq!(cut.ids[..9], full.ids[..9]);
        assert_eq!(cut.ids[9], eos);
        // The separator inside the text is the special token, not its characters.
        let sep_at = full.ids[1..n - 1].iter().position(|&i| i == eos).unwrap();
        assert_eq!(count_tokens(&t, TEXT).unwrap(), sep_at);
    }
}
