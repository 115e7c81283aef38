//! The raw-byte rules of the CSV / TSV readers (`factpico score`'s input and `factpico
//! meta-eval`'s scores and ratings files), so that both read delimited files the same way:
//!
//! * line numbers: `\n`, `\r\n` and a lone `\r` each end a line ([`LineCounter`]);
//! * quoting (CSV, and TSV read CSV-style): RFC 4180 — a quoted field ends with a quote
//!   followed by a delimiter or a line end, a quote inside it is doubled. A quote that is
//!   never closed ([`QuoteProblem::Unclosed`]) would swallow the rest of the file; text after
//!   a closing quote ([`QuoteProblem::StrayText`]) means lines were merged. Both are errors
//!   naming the lines ([`QuoteProblem::describe`]), never silently read;
//! * TSV without quoting: fields are literal, quotes included (IANA
//!   text/tab-separated-values has no quoting);
//! * a header name used twice is refused ([`duplicate_column`]): readers do not guess which
//!   column is meant.

/// Line numbers of a byte stream: `\n`, `\r\n` and a lone `\r` each end a line (as the
/// csv crate splits records). The csv crate's own line count lags by one after a `\r\n`
/// (it counts the `\n` when the next record starts), so record lines are counted here.
#[derive(Debug, Clone, Copy)]
pub struct LineCounter {
    /// 1-based line of the next byte.
    line: u64,
    prev_cr: bool,
}

impl Default for LineCounter {
    fn default() -> Self {
        Self::new()
    }
}

impl LineCounter {
    /// A counter at line 1.
    pub fn new() -> Self {
        Self { line: 1, prev_cr: false }
    }

    /// The 1-based line of the next byte.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// Counts one byte.
    pub fn push(&mut self, b: u8) {
        if b == b'\r' || (b == b'\n' && !self.prev_cr) {
            self.line += 1;
        }
        self.prev_cr = b == b'\r';
    }
}

/// What is wrong with the quoting of one record's raw bytes (RFC 4180: a quoted field ends
/// with a quote followed by a delimiter or a line end; a quote inside it is doubled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteProblem {
    /// A quoted field that is never closed: it runs to the end of the input.
    Unclosed {
        /// The line of the opening quote.
        open: u64,
        /// The last line of the input.
        last: u64,
    },
    /// Text follows the quote that closes a quoted field (`"a"b`): usually a stray opening
    /// quote that was closed by an unrelated quote later, merging lines into one record.
    StrayText {
        /// The line of the opening quote.
        open: u64,
        /// The line of the closing quote.
        close: u64,
    },
}

/// Scans the raw bytes of one record: returns its first and last line (leading blank lines
/// skipped) and any quoting problem (only looked for when `quoting`). `lines` is the counter at the first byte; it is advanced past `raw`.
pub fn scan_record(raw: &[u8], delimiter: u8, quoting: bool, lines: &mut LineCounter) -> (u64, u64, Option<QuoteProblem>) {
    #[derive(Clone, Copy, PartialEq)]
    enum St {
        Start,
        Unquoted,
        Quoted,
        QuoteSeen,
        Done,
    }
    let mut st = St::Start;
    let mut first = None;
    let mut last = lines.line;
    let (mut open, mut close) = (0, 0);
    let mut problem = None;
    for &b in raw {
        let term = b == b'\n' || b == b'\r';
        if !term && first.is_none() {
            first = Some(lines.line);
        }
        if !term && st != St::Done {
            last = lines.line;
        }
        st = match st {
            St::Done => St::Done,
            _ if first.is_none() => St::Start, // blank lines before the record
            St::Start if quoting && b == b'"' => {
                open = lines.line;
                St::Quoted
            }
            St::Start | St::Unquoted if b == delimiter => St::Start,
            St::Start | St::Unquoted | St::QuoteSeen if term => St::Done,
            St::Start | St::Unquoted => St::Unquoted,
            St::Quoted if b == b'"' => {
                close = lines.line;
                St::QuoteSeen
            }
            St::Quoted => {
                if term {
                    last = lines.line;
                }
                St::Quoted
            }
            St::QuoteSeen if b == b'"' => St::Quoted,
            St::QuoteSeen if b == delimiter => St::Start,
            St::QuoteSeen => {
                problem.get_or_insert(QuoteProblem::StrayText { open, close });
                St::Unquoted
            }
        };
        lines.push(b);
    }
    if st == St::Quoted {
        problem = Some(QuoteProblem::Unclosed { open, last });
    }
    let first = first.unwrap_or(lines.line);
    (first, last.max(first), problem)
}

/// `line N` or `lines N-M`.
pub fn lines_text(first: u64, last: u64) -> String {
    if first == last {
        format!("line {first}")
    } else {
        format!("lines {first}-{last}")
    }
}


impl QuoteProblem {
    /// Whether the rest of the input cannot be read after it (an unclosed quote runs to the
    /// end of the file).
    pub fn is_fatal(&self) -> bool {
        matches!(self, Self::Unclosed { .. })
    }

    /// The error message for record `record` spanning `at` ([`lines_text`]); `hint` is
    /// appended to the advice for an unclosed quote (e.g. how to read a TSV's quotes
    /// literally), empty for none.
    pub fn describe(&self, record: u64, at: &str, hint: &str) -> String {
        match *self {
            Self::Unclosed { open, last } => format!(
                "record {record} (line {open}): a quoted field opened on line {open} is never closed, so the rest of \
                 the file ({}) would be read as one field; close the quote (a quote inside a quoted field is \
                 written twice: \"\"){hint}",
                lines_text(open, last),
            ),
            Self::StrayText { open, close } => format!(
                "record {record} ({at}): the quoted field opened on line {open} is closed on line {close} by a quote \
                 followed by more text, so {at} were read as one record; a quote inside a field must be \
                 doubled (\"\") and only a whole field can be quoted"
            ),
        }
    }
}

/// The message refusing a header name that appears more than once (`columns`: 1-based).
pub fn duplicate_column(name: &str, columns: &[usize]) -> String {
    format!(
        "column `{name}` appears more than once in the header (columns {}); rename or drop the others \
         (factpico does not guess which one is meant: Python's csv.DictReader would take the last, pandas would rename them)",
        columns.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_lines_and_quote_problems() {
        let mut l = LineCounter::new();
        let (first, last, p) = scan_record(b"\r\na,\"b\r\nc\",d\r\n", b',', true, &mut l);
        assert_eq!((first, last, p), (2, 3, None));
        assert_eq!(l.line(), 4);
        let mut l = LineCounter::new();
        let (_, _, p) = scan_record(b"a,\"b\nc", b',', true, &mut l);
        assert_eq!(p, Some(QuoteProblem::Unclosed { open: 1, last: 2 }));
        assert!(p.is_some_and(|p| p.is_fatal()));
        let mut l = LineCounter::new();
        let (_, _, p) = scan_record(b"\"a\"b,c\n", b',', true, &mut l);
        assert_eq!(p, Some(QuoteProblem::StrayText { open: 1, close: 1 }));
        let mut l = LineCounter::new();
        let (_, _, p) = scan_record(b"\"a\tb\n", b'\t', false, &mut l);
        assert_eq!(p, None, "no quoting: quotes are literal");
    }
}
