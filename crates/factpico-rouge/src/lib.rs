//! ROUGE-L and ROUGE-Lsum identical to Google rouge-score 0.1.2, with NLTK's Porter stemmer (NLTK_EXTENSIONS mode).
