//! Reading JSON text into a `serde_json::Value`, with a reader the web app can replace.
//!
//! Natively (the CLI, the tests) the reader is serde_json's. Its parser, with the float
//! formatting its error messages pull in, is about 16 KB of brotli in the app, and
//! the browser already has one: `ui::start` installs `JSON.parse` through [`install`]. A wasm
//! build without an installed reader refuses all JSON rather than linking serde_json's.
//! The values are the same serde_json types either way, so every consumer (`config.json`
//! parsing, the stored settings) is one code path.

use serde_json::Value;
use std::sync::OnceLock;

/// Where a text stops being JSON: 1-based line and column of the first bad character, when the
/// reader knows it, and whether the text simply ended too early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Syntax {
    /// The text ended inside a value.
    pub eof: bool,
    /// 1-based (line, column), when known.
    pub at: Option<(usize, usize)>,
}

/// A JSON reader: text to value, or where it stops being JSON.
pub type Reader = fn(&str) -> Result<Value, Syntax>;

static READER: OnceLock<Reader> = OnceLock::new();

/// Makes `reader` the process-wide JSON reader (the first call wins).
pub fn install(reader: Reader) {
    let _ = READER.set(reader);
}

/// Reads `text` with the installed reader, or with the built-in one.
pub fn read(text: &str) -> Result<Value, Syntax> {
    match READER.get() {
        Some(reader) => reader(text),
        None => builtin(text),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn builtin(text: &str) -> Result<Value, Syntax> {
    serde_json::from_str(text).map_err(|e| Syntax { eof: e.is_eof(), at: Some((e.line(), e.column())) })
}

#[cfg(target_arch = "wasm32")]
fn builtin(_text: &str) -> Result<Value, Syntax> {
    Err(Syntax { eof: false, at: None })
}

/// 1-based (line, column) of the `index`-th character of `text` (columns count characters).
pub fn line_column(text: &str, index: usize) -> (usize, usize) {
    let mut line = 1;
    let mut column = 1;
    for c in text.chars().take(index) {
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    (line, column)
}

/// `s` as a JSON string literal (quotes, backslashes and control characters escaped).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                out.push_str("\\u00");
                out.push(char::from_digit(u32::from(c) >> 4, 16).unwrap_or('0'));
                out.push(char::from_digit(u32::from(c) & 15, 16).unwrap_or('0'));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_reader_says_where_the_text_stops_being_json() {
        assert_eq!(read("{\"a\": [1, 2]}").ok().and_then(|v| v["a"][1].as_u64()), Some(2));
        // Line 2, column 8: the first character after `"b": 1` that is neither ',' nor '}'.
        assert_eq!(read("{\"a\": 1,\n  \"b\": 1 x}"), Err(Syntax { eof: false, at: Some((2, 10)) }));
        assert!(read("{\"a\": ").err().is_some_and(|e| e.eof));
    }

    #[test]
    fn positions_count_lines_and_characters() {
        // "ab\ncд|e": index 5 is 'e' (a, b, newline, c, д): line 2, column 3.
        assert_eq!(line_column("ab\ncдe", 5), (2, 3));
        assert_eq!(line_column("x", 0), (1, 1));
    }

    #[test]
    fn quoted_strings_read_back_as_themselves() {
        for s in ["plain", "a \"quoted\" \\ path", "tab\tnew\nline\u{1}", "中文"] {
            assert_eq!(serde_json::from_str::<String>(&quote(s)).ok().as_deref(), Some(s));
        }
    }
}
