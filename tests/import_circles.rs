//! No import circle between the library's files: when a file uses another (a `use` or a path in
//! its code: `crate::model::media::OffloadMode`, `super::job::LlmJob`), that file never uses the
//! first back, directly or through others. The test reads every `.rs` file under `src/` (the
//! binaries aside), resolves each `crate::`, `super::` and `self::` path to the file of the longest
//! module it names, and fails with the first circle it finds. Test modules inside a file
//! (`#[cfg(test)]` and after) are left out: they belong to the file they test.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`["model", "llm", "job"]`) → file (relative to `src/`), for every library file.
fn modules(src: &Path) -> BTreeMap<Vec<String>, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("dir entry").path();
            let rel = path.strip_prefix(src).expect("under src").to_string_lossy().replace('\\', "/");
            if path.is_dir() {
                if rel != "bin" {
                    stack.push(path);
                }
                continue;
            }
            let Some(stem) = rel.strip_suffix(".rs") else { continue };
            if stem == "main" {
                continue;
            }
            let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
            if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
                parts.pop();
            }
            out.insert(parts, rel);
        }
    }
    out
}

/// The file's code without comments and without its test module.
fn code_of(text: &str) -> String {
    let body = text.split("#[cfg(test)]").next().unwrap_or(text);
    body.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// Every path that starts with `crate`, `super` or `self`, as segments, with `use` groups
/// (`use crate::model::{a, b::C}`) expanded.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts_ident = i == 0 || !chars.get(i - 1).is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == ':');
        let rest: String = chars.get(i..(i + 7).min(chars.len())).map(|s| s.iter().collect()).unwrap_or_default();
        if starts_ident && (rest.starts_with("crate::") || rest.starts_with("super::") || rest.starts_with("self::")) {
            let (found, next) = read_path(&chars, i, Vec::new());
            out.extend(found);
            i = next.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// Reads the path starting at `i` after `prefix`; returns the paths and where it stopped.
fn read_path(chars: &[char], mut i: usize, prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let mut segs = prefix;
    loop {
        let start = i;
        while chars.get(i).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
            i += 1;
        }
        if i > start {
            segs.push(chars[start..i].iter().collect());
        }
        if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
            i += 2;
            if chars.get(i) == Some(&'{') {
                return read_group(chars, i + 1, segs);
            }
            continue;
        }
        return (vec![segs], i);
    }
}

/// Reads a `{a, b::c, d::{e, f}}` group after `prefix`, from just past its `{`.
fn read_group(chars: &[char], mut i: usize, prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let mut out = Vec::new();
    loop {
        while chars.get(i).is_some_and(|c| c.is_whitespace() || *c == ',') {
            i += 1;
        }
        match chars.get(i) {
            None => return (out, i),
            Some('}') => return (out, i + 1),
            Some(c) if c.is_alphanumeric() || *c == '_' => {
                let (found, next) = read_path(chars, i, prefix.clone());
                out.extend(found);
                i = next;
                // Skip `as name` and anything else up to the next item.
                while chars.get(i).is_some_and(|c| *c != ',' && *c != '}') {
                    i += 1;
                }
            }
            Some(_) => i += 1,
        }
    }
}

/// The file a path names: the longest module prefix that is a file, after `super`/`self`.
fn resolve(path: &[String], here: &[String], mods: &BTreeMap<Vec<String>, String>) -> Option<String> {
    let mut base: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("self" | "super") => here.to_vec(),
        _ => return None,
    };
    let mut rest = &path[1..];
    if path.first().is_some_and(|p| p == "super") {
        base.pop();
    }
    while rest.first().is_some_and(|p| p == "super") {
        base.pop();
        rest = &rest[1..];
    }
    let mut best = mods.get(&base).cloned();
    for seg in rest {
        base.push(seg.clone());
        match mods.get(&base) {
            Some(f) => best = Some(f.clone()),
            None => break,
        }
    }
    best
}

/// File → the files it uses.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mods = modules(&src);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (here, file) in &mods {
        let text = std::fs::read_to_string(src.join(file)).expect("read source");
        let used: BTreeSet<String> =
            paths(&code_of(&text)).iter().filter_map(|p| resolve(p, here, &mods)).filter(|f| f != file).collect();
        g.insert(file.clone(), used);
    }
    g
}

/// The first circle in `g`, as the files around it.
fn first_circle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search; a node on the current stack reached again closes a circle.
    fn visit(n: &str, g: &BTreeMap<String, BTreeSet<String>>, stack: &mut Vec<String>, done: &mut BTreeSet<String>) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|s| s == n) {
            let mut circle = stack[at..].to_vec();
            circle.push(n.to_string());
            return Some(circle);
        }
        if done.contains(n) {
            return None;
        }
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, g, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    g.keys().find_map(|n| visit(n, g, &mut Vec::new(), &mut done))
}

#[test]
fn no_file_uses_a_file_that_uses_it_back() {
    let g = graph();
    assert!(g.len() > 50, "the walk found only {} files", g.len());
    if let Some(circle) = first_circle(&g) {
        panic!("import circle: {}", circle.join(" → "));
    }
}

#[test]
fn the_reader_sees_uses_groups_and_parents() {
    // A hand-made tree: a → b through a group, b → c through `super`, c → a in a code path.
    let mods: BTreeMap<Vec<String>, String> = [
        (vec![], "lib.rs"),
        (vec!["m".to_string()], "m/mod.rs"),
        (vec!["m".to_string(), "a".to_string()], "m/a.rs"),
        (vec!["m".to_string(), "b".to_string()], "m/b.rs"),
        (vec!["c".to_string()], "c.rs"),
    ]
    .into_iter()
    .map(|(k, v)| (k, v.to_string()))
    .collect();
    let here_a = vec!["m".to_string(), "a".to_string()];
    let found: Vec<Option<String>> =
        paths("use crate::m::{b::Thing, a as x};").iter().map(|p| resolve(p, &here_a, &mods)).collect();
    assert_eq!(found, vec![Some("m/b.rs".to_string()), Some("m/a.rs".to_string())]);
    let here_b = vec!["m".to_string(), "b".to_string()];
    let up: Vec<Option<String>> = paths("let x = super::super::c::f();").iter().map(|p| resolve(p, &here_b, &mods)).collect();
    assert_eq!(up, vec![Some("c.rs".to_string())]);
    let parent: Vec<Option<String>> = paths("use super::Item;").iter().map(|p| resolve(p, &here_b, &mods)).collect();
    assert_eq!(parent, vec![Some("m/mod.rs".to_string())]);
    // And a circle in a graph is found: a → b → c → a.
    let g: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), BTreeSet::from([v.to_string()])))
        .collect();
    assert_eq!(first_circle(&g), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
}
