//! `tokenizer.json` of a RoBERTa checkpoint assembled from the hub's `vocab.json` +
//! `merges.txt` with the `tokenizers` crate, as `RobertaTokenizerFast` builds it: byte-level
//! BPE (no prefix space, offsets trimmed), the special tokens `<s> <pad> </s> <unk>` and
//! `<mask>` (left-stripping), the post-processor `<s> A </s></s> B </s>`, a byte-level decoder,
//! no padding or truncation.
use std::path::Path;

use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::processors::roberta::RobertaProcessing;
use tokenizers::{AddedToken, Tokenizer};

use crate::error::{Error, Result};

/// RoBERTa's special tokens, in id order of the published vocabularies.
pub const SPECIAL_TOKENS: [&str; 5] = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"];

/// Builds the tokenizer from `dir/vocab.json` and `dir/merges.txt`.
///
/// # Errors
/// [`Error::Tokenizer`] when a file is missing or malformed, or a special token is not in the
/// vocabulary.
pub fn roberta_tokenizer(dir: &Path) -> Result<Tokenizer> {
    let terr = |reason: String| Error::Tokenizer { dir: dir.to_path_buf(), reason };
    let vocab = dir.join("vocab.json");
    let merges = dir.join("merges.txt");
    for f in [&vocab, &merges] {
        if !f.is_file() {
            return Err(terr(format!("{} is missing", f.display())));
        }
    }
    let (Some(v), Some(m)) = (vocab.to_str(), merges.to_str()) else {
        return Err(terr("the path is not valid UTF-8".into()));
    };
    let bpe = BPE::from_file(v, m).build().map_err(|e| terr(format!("vocab.json / merges.txt: {e}")))?;
    let mut tok = Tokenizer::new(bpe);
    tok.with_pre_tokenizer(Some(ByteLevel::new(false, true, true)));
    tok.with_decoder(Some(ByteLevelDecoder::new(true, true, true)));
    let mut ids = Vec::new();
    for t in SPECIAL_TOKENS {
        match tok.token_to_id(t) {
            Some(id) => ids.push(id),
            None => return Err(terr(format!("special token {t} is not in vocab.json"))),
        }
    }
    tok.with_post_processor(Some(
        RobertaProcessing::new(("</s>".into(), ids[2]), ("<s>".into(), ids[0])).trim_offsets(true).add_prefix_space(false),
    ));
    let specials: Vec<AddedToken> = SPECIAL_TOKENS
        .iter()
        .map(|t| {
            let a = AddedToken::from(*t, true);
            if *t == "<mask>" {
                a.lstrip(true).normalized(false)
            } else {
                a.normalized(true)
            }
        })
        .collect();
    tok.add_special_tokens(specials).map_err(|e| terr(format!("adding the special tokens: {e}")))?;
    tok.with_padding(None);
    tok.with_truncation(None).map_err(|e| terr(format!("disabling truncation: {e}")))?;
    Ok(tok)
}
