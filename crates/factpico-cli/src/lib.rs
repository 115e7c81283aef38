//! The library part of the `factpico` command-line tool: its input readers, so that
//! they can be fuzzed (`cargo xtask fuzz`) and tested directly. The binary (`src/main.rs`)
//! is the command-line tool itself.

pub mod input;
pub mod fuzzing;
