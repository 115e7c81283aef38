//! The `factpico` command-line tool.
fn main() {}
