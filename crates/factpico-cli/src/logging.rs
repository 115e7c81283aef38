//! The program's one logging backend: every `log` record of factpico's libraries (the LLM
//! client's retries and fallbacks, the spaCy sidecar's restarts, ONNX Runtime's own lines under
//! the target `ort`) goes to standard error, escaped ([`crate::term::escape_controls`])
//! and with the credentials of any URL redacted ([`crate::term::redact_url_credentials`]).
//!
//! Levels: warnings and errors by default; `-q` shows errors only; `-v` adds factpico's debug
//! lines, `-vv` every library's debug lines, `-vvv` trace. Without `-q`/`-v`, `RUST_LOG`
//! (env_logger syntax, e.g. `RUST_LOG=debug` or `RUST_LOG=factpico_llm=debug`) replaces the
//! default. The level word is coloured only on a terminal and without `NO_COLOR`.

use std::io::{IsTerminal, Write};

use crate::term::{escape_controls, redact_url_credentials};

/// Whether standard error gets colour: a terminal, and `NO_COLOR` unset or empty
/// (<https://no-color.org>).
fn colour() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Installs the logger (once, at start-up). `quiet`: the subcommand's `-q`; `verbose`: the
/// number of `-v`.
pub fn init(quiet: bool, verbose: u8) {
    let mut b = env_logger::Builder::new();
    b.filter_level(log::LevelFilter::Warn);
    if quiet {
        b.filter_level(log::LevelFilter::Error);
    } else if verbose > 0 {
        match verbose {
            1 => b.filter_module("factpico", log::LevelFilter::Debug),
            2 => b.filter_level(log::LevelFilter::Debug),
            _ => b.filter_level(log::LevelFilter::Trace),
        };
    } else if let Ok(spec) = std::env::var("RUST_LOG") {
        b.parse_filters(&spec);
    }
    let colour = colour();
    b.write_style(env_logger::WriteStyle::Never);
    b.target(env_logger::Target::Stderr);
    b.format(move |buf, record| {
        let (word, code) = match record.level() {
            log::Level::Error => ("error", "31"),
            log::Level::Warn => ("warning", "33"),
            log::Level::Info => ("info", "32"),
            log::Level::Debug => ("debug", "36"),
            log::Level::Trace => ("trace", "35"),
        };
        let word = if colour { format!("\u{1b}[{code}m{word}\u{1b}[0m") } else { word.to_owned() };
        let message = record.args().to_string();
        let message = crate::flags::for_cli(&message);
        let message = redact_url_credentials(&message);
        let message = escape_controls(&message);
        if record.level() <= log::Level::Warn {
            writeln!(buf, "{word}: {message}")
        } else {
            writeln!(buf, "{word}: [{}] {message}", record.target())
        }
    });
    // A second initialisation (never in the binary) is not an error worth reporting.
    let _ = b.try_init();
}
