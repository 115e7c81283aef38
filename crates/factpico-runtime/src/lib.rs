//! The only factpico crate that talks to ONNX Runtime (ort) and tokenizers: library discovery, model directories, sessions, pair batching, seq2seq generation.
