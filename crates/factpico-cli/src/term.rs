//! What factpico prints on a terminal (standard output and standard error): untrusted text
//! (ids, systems, summaries, server messages) is escaped so that it cannot drive the
//! terminal (set its title, clear the screen, forge hyperlinks, hide text).

use std::borrow::Cow;

/// Whether `c` is a character a terminal acts on: C0 controls except newline and tab, DEL,
/// C1 controls (U+0080–U+009F, e.g. U+009B, the one-character CSI), and the Unicode
/// bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder what
/// is shown.
pub fn is_terminal_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every terminal control ([`is_terminal_control`]) written as Rust's escape
/// `\u{1b}` (so ESC `]0;title` BEL prints as `\u{1b}]0;title\u{7}`); newlines and tabs are
/// kept. Borrowed when there is nothing to escape. Used for everything factpico prints that
/// may carry data: `--explain`, the per-system table, warnings, errors, `diff`'s table and
/// log lines.
///
/// ```
/// use factpico_cli::term::escape_controls;
/// assert_eq!(escape_controls("a\u{1b}[2Jb\n"), "a\\u{1b}[2Jb\n");
/// assert_eq!(escape_controls("x\u{9b}31m"), "x\\u{9b}31m");
/// assert!(matches!(escape_controls("plain"), std::borrow::Cow::Borrowed(_)));
/// ```
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_terminal_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_terminal_control(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` for a place inside one line of a message (an id in a warning): as
/// [`escape_controls`], and newlines, carriage returns and tabs escaped too (`\n`, `\r`,
/// `\t`), so that data cannot start a line of its own that passes for factpico's
/// (`error: ...`).
///
/// ```
/// use factpico_cli::term::escape_inline;
/// assert_eq!(escape_inline("id\nerror: fake\u{1b}[2J"), "id\\nerror: fake\\u{1b}[2J");
/// ```
pub fn escape_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in escape_controls(text).chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// A path as factpico prints it: [`Path::display`](std::path::Path::display) with C0/C1 control
/// characters escaped as [`escape_controls`] does (a file name may carry escape sequences).
pub fn path(p: &std::path::Path) -> String {
    escape_inline(&p.display().to_string())
}

/// `text` with the credentials of every URL in it (`scheme://user:password@host`) replaced by
/// `[redacted]` (`scheme://[redacted]@host`). The logger applies it to every log line, so that
/// a library that logs a URL (an HTTP client's connection lines at `-vv`) never prints a
/// password. Borrowed when there is nothing to redact.
///
/// ```
/// use factpico_cli::term::redact_url_credentials;
/// assert_eq!(redact_url_credentials("GET https://me:s3cret@api.example/v1"), "GET https://[redacted]@api.example/v1");
/// assert_eq!(redact_url_credentials("mail a@b.c"), "mail a@b.c");
/// ```
pub fn redact_url_credentials(text: &str) -> Cow<'_, str> {
    if !text.contains("://") || !text.contains('@') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        // The authority ends at the first `/`, `?`, `#` or whitespace.
        let end = tail.find(|c: char| c == '/' || c == '?' || c == '#' || c.is_whitespace()).unwrap_or(tail.len());
        match tail[..end].rfind('@') {
            Some(at) => {
                out.push_str("[redacted]");
                out.push_str(&tail[at..end]);
            }
            None => out.push_str(&tail[..end]),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_c0_c1_del_and_bidi_keeps_text() {
        let s = "id\u{1b}]0;title\u{7} \u{1b}]8;;http://x\u{1b}\\l\u{1b}]8;;\u{1b}\\ \u{9b}1m \u{7f} \r \u{202e}é\n\tok";
        let e = escape_controls(s);
        assert_eq!(
            e,
            "id\\u{1b}]0;title\\u{7} \\u{1b}]8;;http://x\\u{1b}\\l\\u{1b}]8;;\\u{1b}\\ \\u{9b}1m \\u{7f} \\u{d} \\u{202e}é\n\tok"
        );
        assert!(!e.chars().any(is_terminal_control));
        assert_eq!(escape_controls("ΔFK ± sd – ok"), "ΔFK ± sd – ok");
    }

    #[test]
    fn url_credentials_are_redacted_everywhere() {
        assert_eq!(
            redact_url_credentials("a http://u:p@h:8080/x?q=1 and ftp://tok@h2 then https://h3/p@q"),
            "a http://[redacted]@h:8080/x?q=1 and ftp://[redacted]@h2 then https://h3/p@q"
        );
        assert_eq!(redact_url_credentials("no url here @ all"), "no url here @ all");
    }
}
