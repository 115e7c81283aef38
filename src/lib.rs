//! `factpico-suite`: the workspace root package. It exists so that the
//! top-level `tests/` (cross-crate end-to-end tests and the real-data golden
//! tests over `../shared`) and `examples/` are compiled and run by
//! `cargo test --workspace`. It has no API of its own; embed the
//! [`factpico`](https://docs.rs/factpico) facade crate instead.
