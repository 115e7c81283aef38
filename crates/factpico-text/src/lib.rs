//! Shared text layer of factpico: NLTK-identical Punkt sentence splitting with byte spans, whitespace word counts, AlignScore chunking and token-budget chunking.
