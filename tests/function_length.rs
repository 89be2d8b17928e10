//! No function in `src/` is over 80 lines, from its `fn` line to its closing brace: a longer one
//! is two functions. Braces inside strings, character literals and `//` comments do not count.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

/// The longest a function may be, in lines.
const MAX_LINES: usize = 80;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `line`'s code: strings and character literals emptied, the `//` comment cut.
fn code(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_string => {
                chars.next();
            }
            '"' => in_string = !in_string,
            '/' if !in_string && chars.peek() == Some(&'/') => break,
            // A character literal such as '{' (a lifetime such as 'a has no closing quote here).
            '\'' if !in_string => {
                let rest: String = chars.clone().take(3).collect();
                if rest.starts_with('\\') {
                    let skip = rest.find('\'').map_or(0, |i| i + 1).max(3);
                    for _ in 0..skip.min(rest.len()) {
                        chars.next();
                    }
                } else if rest.chars().nth(1) == Some('\'') {
                    chars.next();
                    chars.next();
                }
            }
            _ if in_string => {}
            _ => out.push(c),
        }
    }
    out
}

/// Whether `line` starts a function: `fn name`, after any of `pub`, `pub(crate)`, `const`, `async`.
fn starts_fn(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    for prefix in ["pub(crate) ", "pub(super) ", "pub ", "const ", "async ", "unsafe "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let name = rest.strip_prefix("fn ")?;
    Some(name.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or(name))
}

/// The functions of `text` over [`MAX_LINES`], as `(name, first line, lines)`.
fn long_functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<String> = text.lines().map(code).collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = starts_fn(line) else { continue };
        let (mut depth, mut opened) = (0i32, false);
        for (j, l) in lines.iter().enumerate().skip(i) {
            for c in l.chars() {
                match c {
                    '{' => (depth, opened) = (depth + 1, true),
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if !opened && l.trim_end().ends_with(';') {
                break;
            }
            if opened && depth <= 0 {
                let n = j - i + 1;
                if n > MAX_LINES {
                    out.push((name.to_string(), i + 1, n));
                }
                break;
            }
        }
    }
    out
}

#[test]
fn no_function_is_over_80_lines() {
    let mut files = Vec::new();
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    let mut long = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read source");
        for (name, line, n) in long_functions(&text) {
            long.push(format!("{}:{line} {name}: {n} lines", f.display()));
        }
    }
    assert!(long.is_empty(), "functions over {MAX_LINES} lines:\n{}", long.join("\n"));
}

#[test]
fn the_counter_sees_braces_in_code_only() {
    // 81 lines: the fn line, 79 body lines and the closing brace; the braces in the string, the
    // character literal and the comment do not close it early.
    let body: String = (0..79).map(|i| if i == 0 { "    let s = \"}\"; let c = '}'; // }\n".to_string() } else { "    x();\n".to_string() }).collect();
    let text = format!("pub fn long() {{\n{body}}}\n\nfn short() {{}}\n");
    assert_eq!(long_functions(&text), vec![("long".to_string(), 1, 81)]);
    // At 80 lines it passes.
    let body: String = (0..78).map(|_| "    x();\n").collect();
    assert!(long_functions(&format!("fn ok() {{\n{body}}}\n")).is_empty());
}
