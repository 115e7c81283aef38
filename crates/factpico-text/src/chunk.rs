//! Premise chunking: AlignScore's sentences-per-chunk rule, MiniCheck-style
//! greedy packing of sentences under a token budget and FactCG's variant of it.

use std::num::NonZeroUsize;
use std::ops::Range;

use crate::span::Span;
use crate::splitter::SentenceSplitter;
use crate::{python, word_count};
use crate::Error;

/// A premise chunk: consecutive sentences of a context joined into one string.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Chunk {
    /// The chunk text that is fed to the model (see each chunker for the join rule).
    pub text: String,
    /// Indices of the chunk's sentences in the splitter's sentence list.
    pub sentences: Range<usize>,
    /// Byte spans of those sentences in the original context (one per index of
    /// `sentences`).
    pub spans: Vec<Span>,
}

/// Options of AlignScore's chunking of the premise (`nli_sp` mode).
///
/// Reference: `yuh-zha/AlignScore` @ a0936d5, `src/alignscore/inference.py:61-71`
/// (`inference_per_example`, `chunks`):
///
/// ```text
/// sents = sent_tokenize(context) or [""]
/// n_chunks = len(context.strip().split()) // words_per_chunk + 1
/// k = max(len(sents) // n_chunks, 1)
/// chunks = [" ".join(sents[i:i + k]) for i in range(0, len(sents), k)]
/// ```
///
/// The word count is of *whitespace words* (Python `str.split`), not model
/// tokens, and the boundary is a *sentence count*: the number of chunks can
/// exceed `n_chunks` (7 sentences, `n_chunks = 2` → chunks of 3, 3, 1
/// sentences) and a chunk can exceed the model's input length (AlignScore then
/// truncates it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AlignScoreChunking {
    /// Whitespace words per intended chunk (AlignScore: 350).
    pub words_per_chunk: NonZeroUsize,
}

impl Default for AlignScoreChunking {
    fn default() -> Self {
        Self { words_per_chunk: NonZeroUsize::MIN.saturating_add(349) }
    }
}

impl AlignScoreChunking {
    /// Options with a custom chunk size in whitespace words.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] when `words_per_chunk` is 0 (AlignScore's
    /// `n_words // 0` would divide by zero).
    pub fn new(words_per_chunk: usize) -> Result<Self, Error> {
        NonZeroUsize::new(words_per_chunk)
            .map(|words_per_chunk| Self { words_per_chunk })
            .ok_or(Error::InvalidOption { name: "words_per_chunk", reason: "must be at least 1" })
    }

    /// Splits `context` with `splitter` (AlignScore: [`Punkt`](crate::Punkt))
    /// and groups its sentences into chunks joined with exactly one ASCII space.
    ///
    /// Always returns at least one chunk. When the splitter finds no sentence
    /// (empty or whitespace-only context), AlignScore uses the single sentence
    /// `""`: the result is then one chunk with empty text, `sentences == 0..1`
    /// and the empty span `0..0`.
    pub fn chunks<S: SentenceSplitter + ?Sized>(&self, splitter: &S, context: &str) -> Vec<Chunk> {
        let mut spans = splitter.split(context);
        if spans.is_empty() {
            spans.push(Span::new(0, 0));
        }
        let n_chunks = word_count(context) / self.words_per_chunk.get() + 1;
        let per_chunk = (spans.len() / n_chunks).max(1);
        spans
            .chunks(per_chunk)
            .enumerate()
            .map(|(i, group)| {
                let first = i * per_chunk;
                let text = group
                    .iter()
                    .map(|s| s.get(context).unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join(" ");
                Chunk { text, sentences: first..first + group.len(), spans: group.to_vec() }
            })
            .collect()
    }
}

/// Counts the tokens of a piece of text for [`TokenBudgetChunking`].
///
/// Implemented here by [`WhitespaceWordCounter`] and by any
/// `Fn(&str) -> usize`; a Hugging Face tokenizer can be plugged in by the
/// runtime crate. MiniCheck's RoBERTa/DeBERTa counter is
/// `len(tokenizer(text, add_special_tokens=False, max_length=L, truncation=True).input_ids)`,
/// i.e. the count saturates at the model length `L`.
pub trait TokenCounter {
    /// Number of tokens of `text`.
    fn count_tokens(&self, text: &str) -> usize;
}

impl<F: Fn(&str) -> usize> TokenCounter for F {
    fn count_tokens(&self, text: &str) -> usize {
        self(text)
    }
}

/// Counts Python whitespace words, `len(text.split())` (MiniCheck's Flan-T5
/// chunker).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WhitespaceWordCounter;

impl TokenCounter for WhitespaceWordCounter {
    fn count_tokens(&self, text: &str) -> usize {
        word_count(text)
    }
}

/// Options of MiniCheck-style greedy sentence packing under a token budget.
///
/// Reference: `Liyan06/MiniCheck`, `minicheck/inference.py`
/// (`sent_tokenize_with_newlines`, `Inferencer.inference_per_example.chunks`):
///
/// 1. Items: with `split_newlines`, the document is cut at every `\n` into
///    blocks, each block is split into sentences, and a `"\n"` marker item is
///    put between consecutive blocks; otherwise the items are the sentences
///    of the whole document.
/// 2. Greedy packing: an item is appended to the current chunk while the sum
///    of the items' token counts (each counted on its own, the marker as
///    `"\n"`) stays `<= max_tokens`; an item that would overflow starts a new
///    chunk.
/// 3. Chunk text: items joined with `" "`, then `" \n "` replaced by `"\n"`,
///    then Python `strip()`; chunks whose text is empty are dropped.
///
/// **Over-long sentences**: a single sentence whose count exceeds
/// `max_tokens` is never cut — it becomes a chunk of its own (the model later
/// truncates it). Since counts are summed per item, the tokenized chunk can
/// also differ slightly from the budget (joins may merge or add tokens).
/// An empty or whitespace-only document yields no chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TokenBudgetChunking {
    /// Largest summed token count of a chunk (MiniCheck: 400 tokens for
    /// RoBERTa/DeBERTa, 500 words for Flan-T5). 0 puts every sentence in its
    /// own chunk.
    pub max_tokens: usize,
    /// Split at newlines first and keep them as `\n` in chunk texts (MiniCheck's
    /// `sent_tokenize_with_newlines`).
    pub split_newlines: bool,
}

impl Default for TokenBudgetChunking {
    fn default() -> Self {
        Self { max_tokens: 400, split_newlines: true }
    }
}

#[derive(Clone, Copy)]
enum Item {
    /// Index into the sentence list.
    Sentence(usize),
    Newline,
}

impl TokenBudgetChunking {
    /// Packs the sentences of `document` into chunks (see the type docs).
    ///
    /// `Chunk::sentences` indexes the document's sentences in order (the
    /// newline markers are not counted as sentences).
    pub fn chunks<S, C>(&self, splitter: &S, counter: &C, document: &str) -> Vec<Chunk>
    where
        S: SentenceSplitter + ?Sized,
        C: TokenCounter + ?Sized,
    {
        let mut spans: Vec<Span> = Vec::new();
        let mut items: Vec<Item> = Vec::new();
        if self.split_newlines {
            let mut offset = 0;
            for block in document.split('\n') {
                for s in splitter.split(block) {
                    items.push(Item::Sentence(spans.len()));
                    spans.push(Span::new(s.start + offset, s.end + offset));
                }
                items.push(Item::Newline);
                offset += block.len() + 1;
            }
            items.pop();
        } else {
            spans = splitter.split(document);
            items = (0..spans.len()).map(Item::Sentence).collect();
        }

        let item_text = |it: &Item| match it {
            Item::Sentence(i) => spans[*i].get(document).unwrap_or_default(),
            Item::Newline => "\n",
        };
        let newline_tokens = counter.count_tokens("\n");
        let mut out = Vec::new();
        let mut current: Vec<Item> = Vec::new();
        let mut count = 0usize;
        let mut emit = |current: &[Item]| {
            let joined = current.iter().map(item_text).collect::<Vec<_>>().join(" ");
            let text = python::strip(&joined.replace(" \n ", "\n")).to_owned();
            let idx: Vec<usize> = current
                .iter()
                .filter_map(|it| match it {
                    Item::Sentence(i) => Some(*i),
                    Item::Newline => None,
                })
                .collect();
            if let (false, Some(&first), Some(&last)) = (text.is_empty(), idx.first(), idx.last()) {
                out.push(Chunk { text, sentences: first..last + 1, spans: spans[first..=last].to_vec() });
            }
        };
        for it in &items {
            let n = match it {
                Item::Sentence(_) => counter.count_tokens(item_text(it)),
                Item::Newline => newline_tokens,
            };
            if count + n > self.max_tokens {
                emit(&current);
                current.clear();
                current.push(*it);
                count = n;
            } else {
                current.push(*it);
                count += n;
            }
        }
        emit(&current);
        out
    }
}

/// Options of FactCG's premise chunking (`Inferencer.chunking_src`).
///
/// Reference: `derenlei/FactCG` @ 49748b9, `factcg/inference.py`
/// (`chunking_src(src, max_chunk_size=550)`):
///
/// ```text
/// chunks, chunk_size, chunk = [], 0, ""
/// for s in sent_tokenize(src):
///     n = len(word_tokenize(s))
///     if chunk_size + n <= max_chunk_size:
///         chunk = "\n".join([chunk, s]).strip("\n"); chunk_size += n
///     else:
///         chunks.append(chunk.strip("\n")); chunk, chunk_size = s, n
/// if chunk_size > 0:
///     chunks.append(chunk.replace(" \n ", "\n").strip("\n").strip())
/// ```
///
/// Sentences are joined with `"\n"` and counted with NLTK `word_tokenize`
/// ([`WordTokenizeCounter`](crate::WordTokenizeCounter), which runs Punkt
/// again on each sentence, as the reference does). Quirks reproduced:
///
/// * a sentence longer than `max_tokens` becomes a chunk of its own (never cut);
/// * if the **first** sentence is already over the limit, an empty chunk `""`
///   (`sentences == 0..0`, no spans) is emitted before it;
/// * only the last chunk gets `replace(" \n ", "\n")` and Python `strip()`;
///   earlier chunks only lose outer newlines;
/// * the last chunk is dropped when its token count is 0 (a text whose
///   sentences have no tokens, e.g. only U+001C, has no chunk at all, and the
///   reference then fails on it); an empty or whitespace-only text has no chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FactcgChunking {
    /// Largest summed token count of a chunk (FactCG: 550 `word_tokenize` tokens).
    pub max_tokens: usize,
}

impl Default for FactcgChunking {
    fn default() -> Self {
        Self { max_tokens: 550 }
    }
}

impl FactcgChunking {
    /// Packs the sentences of `src` (split by `splitter`, FactCG: English
    /// [`Punkt`](crate::Punkt)) into chunks, counting tokens with `counter`
    /// (FactCG: [`WordTokenizeCounter`](crate::WordTokenizeCounter)).
    pub fn chunks<S, C>(&self, splitter: &S, counter: &C, src: &str) -> Vec<Chunk>
    where
        S: SentenceSplitter + ?Sized,
        C: TokenCounter + ?Sized,
    {
        let spans = splitter.split(src);
        let mut out = Vec::new();
        let mut text = String::new();
        let mut size = 0usize;
        let mut first = 0usize;
        for (k, span) in spans.iter().enumerate() {
            let s = span.get(src).unwrap_or_default();
            let n = counter.count_tokens(s);
            if size + n <= self.max_tokens {
                text = format!("{text}\n{s}").trim_matches('\n').to_owned();
                size += n;
            } else {
                out.push(Chunk {
                    text: text.trim_matches('\n').to_owned(),
                    sentences: first..k,
                    spans: spans[first..k].to_vec(),
                });
                text = s.to_owned();
                size = n;
                first = k;
            }
        }
        if size > 0 {
            let last = python::strip(text.replace(" \n ", "\n").trim_matches('\n')).to_owned();
            out.push(Chunk { text: last, sentences: first..spans.len(), spans: spans[first..].to_vec() });
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::{NewlineSplitter, Punkt};

    fn ranges(chunks: &[Chunk]) -> Vec<Range<usize>> {
        chunks.iter().map(|c| c.sentences.clone()).collect()
    }

    #[test]
    fn alignscore_default_is_350_and_zero_is_rejected() {
        assert_eq!(AlignScoreChunking::default().words_per_chunk.get(), 350);
        assert!(matches!(AlignScoreChunking::new(0), Err(Error::InvalidOption { .. })));
        assert_eq!(AlignScoreChunking::new(7).map(|o| o.words_per_chunk.get()), Ok(7));
    }

    #[test]
    fn alignscore_seven_sentences_two_intended_chunks_gives_three() {
        // 7 one-line sentences of 2 words = 14 words; size 10 -> n_chunks = 2,
        // k = 7 // 2 = 3 -> chunks of 3, 3, 1 sentences.
        let ctx = "s0 x\ns1 x\ns2 x\ns3 x\ns4 x\ns5 x\ns6 x";
        let opts = AlignScoreChunking::new(10).unwrap();
        let chunks = opts.chunks(&NewlineSplitter, ctx);
        assert_eq!(ranges(&chunks), [0..3, 3..6, 6..7]);
        assert_eq!(chunks[0].text, "s0 x s1 x s2 x");
        assert_eq!(chunks[2].text, "s6 x");
        assert_eq!(chunks[1].spans[0].get(ctx), Some("s3 x"));
    }

    #[test]
    fn alignscore_short_context_is_one_chunk_joined_by_one_space() {
        let ctx = "We randomised 40 adults.  Pain fell (p < 0.05).\n\nNo harms occurred.";
        let chunks = AlignScoreChunking::default().chunks(&Punkt::english(), ctx);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].text, "We randomised 40 adults. Pain fell (p < 0.05). No harms occurred.");
        assert_eq!(chunks[0].sentences, 0..3);
    }

    #[test]
    fn alignscore_empty_context_is_one_empty_chunk() {
        for ctx in ["", "  \n\t"] {
            let chunks = AlignScoreChunking::default().chunks(&Punkt::english(), ctx);
            assert_eq!(chunks, [Chunk { text: String::new(), sentences: 0..1, spans: vec![Span::new(0, 0)] }]);
        }
    }

    #[test]
    fn alignscore_more_chunks_than_sentences_means_one_sentence_each() {
        // 3 sentences, 9 words, size 2 -> n_chunks = 5 -> k = max(0, 1) = 1.
        let ctx = "One two three. Four five six. Seven eight nine.";
        let opts = AlignScoreChunking::new(2).unwrap();
        assert_eq!(ranges(&opts.chunks(&Punkt::english(), ctx)), [0..1, 1..2, 2..3]);
    }

    // Expected values below were computed with the Python reference code
    // (MiniCheck's chunker over NLTK sentences, tests/goldens/gen_punkt.py).
    const FOUR: &str = "Pain fell. Mood rose a lot. Sleep was better for most of the group. Done.";

    #[test]
    fn budget_packs_greedily_and_keeps_overlong_sentences_whole() {
        // words per sentence: 2, 4, 8, 1; budget 6.
        let opts = TokenBudgetChunking { max_tokens: 6, split_newlines: false };
        let chunks = opts.chunks(&Punkt::english(), &WhitespaceWordCounter, FOUR);
        assert_eq!(ranges(&chunks), [0..2, 2..3, 3..4]);
        assert_eq!(chunks[0].text, "Pain fell. Mood rose a lot.");
        assert_eq!(chunks[1].text, "Sleep was better for most of the group.");
    }

    #[test]
    fn budget_first_sentence_over_budget_yields_no_empty_chunk() {
        let opts = TokenBudgetChunking { max_tokens: 1, split_newlines: false };
        let chunks = opts.chunks(&Punkt::english(), &WhitespaceWordCounter, FOUR);
        assert_eq!(ranges(&chunks), [0..1, 1..2, 2..3, 3..4]);
        assert_eq!(chunks[3].text, "Done.");
    }

    #[test]
    fn budget_newline_blocks_follow_minicheck_join_and_strip() {
        // items ["Pain fell.", "Mood rose.", "\n", "\n", "Sleep improved."] joined with " ",
        // then replace(" \n ", "\n") (non-overlapping, left to right) and strip.
        let doc = "Pain fell. Mood rose.\n\nSleep improved.";
        let opts = TokenBudgetChunking { max_tokens: 100, split_newlines: true };
        let chunks = opts.chunks(&Punkt::english(), &WhitespaceWordCounter, doc);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].text, "Pain fell. Mood rose.\n\n Sleep improved.");
        assert_eq!(chunks[0].sentences, 0..3);
        assert_eq!(chunks[0].spans[2].get(doc), Some("Sleep improved."));
    }

    #[test]
    fn budget_counts_newline_markers_with_the_counter() {
        // A counter that charges 1 for "\n" (like RoBERTa's "Ċ"), 2 per sentence.
        let counter = |t: &str| if t == "\n" { 1 } else { 2 };
        let doc = "Pain fell.\nMood rose.\nSleep improved.";
        let opts = TokenBudgetChunking { max_tokens: 5, split_newlines: true };
        let chunks = opts.chunks(&Punkt::english(), &counter, doc);
        // items P(2) \n(1) M(2) | \n(1) S(2) -> "Pain fell.\nMood rose." and "\n Sleep improved." -> strip
        assert_eq!(
            chunks.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(),
            ["Pain fell.\nMood rose.", "Sleep improved."]
        );
        assert_eq!(ranges(&chunks), [0..2, 2..3]);
    }

    #[test]
    fn budget_empty_document_has_no_chunk() {
        let opts = TokenBudgetChunking::default();
        for doc in ["", "\n\n", "   "] {
            assert!(opts.chunks(&Punkt::english(), &WhitespaceWordCounter, doc).is_empty(), "{doc:?}");
        }
    }

    // Expected values: FactCG's `chunking_src` run in the reference venv
    // (tests/goldens/gen_factcg_chunks.py prints them for these strings).
    #[test]
    fn factcg_overlong_first_sentence_gives_an_empty_first_chunk() {
        let opts = FactcgChunking { max_tokens: 3 };
        let chunks = opts.chunks(&Punkt::english(), &crate::WordTokenizeCounter, FOUR);
        // tokens per sentence: 3, 5, 9, 2
        assert_eq!(
            chunks.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(),
            ["Pain fell.", "Mood rose a lot.", "Sleep was better for most of the group.", "Done."]
        );
        let opts = FactcgChunking { max_tokens: 2 };
        let chunks = opts.chunks(&Punkt::english(), &crate::WordTokenizeCounter, FOUR);
        assert_eq!(chunks[0].text, "");
        assert_eq!(chunks[0].sentences, 0..0);
        assert_eq!(ranges(&chunks), [0..0, 0..1, 1..2, 2..3, 3..4]);
    }

    #[test]
    fn factcg_joins_with_newlines_and_packs_greedily() {
        let opts = FactcgChunking { max_tokens: 9 };
        let chunks = opts.chunks(&Punkt::english(), &crate::WordTokenizeCounter, FOUR);
        assert_eq!(
            chunks.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(),
            ["Pain fell.\nMood rose a lot.", "Sleep was better for most of the group.", "Done."]
        );
        assert_eq!(ranges(&chunks), [0..2, 2..3, 3..4]);
        let one = FactcgChunking::default().chunks(&Punkt::english(), &crate::WordTokenizeCounter, FOUR);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].text.matches('\n').count(), 3);
    }

    #[test]
    fn factcg_empty_and_tokenless_texts_have_no_chunk() {
        for doc in ["", "  \n ", "\u{1c}"] {
            let chunks = FactcgChunking::default().chunks(&Punkt::english(), &crate::WordTokenizeCounter, doc);
            assert!(chunks.is_empty(), "{doc:?}");
        }
    }
}
