//! Placeholder filling: `{name}` in a text replaced by its value. Pure string work with no tables,
//! at the bottom of the crate, so the engine ([`crate::model`]) can write a note's English text and
//! the interface languages ([`crate::i18n`]) can fill their translations the same way.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

/// `template` with each `{name}` replaced by its value in `args`, in one pass (a value is never
/// searched for placeholders); an unknown `{name}` stays as written.
pub fn fill(template: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + args.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let (before, from_brace) = rest.split_at(open);
        out.push_str(before);
        let value = from_brace
            .find('}')
            .and_then(|close| from_brace.get(1..close).map(|name| (name, close)))
            .and_then(|(name, close)| args.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v, close)));
        match value {
            Some((v, close)) => {
                out.push_str(v);
                rest = from_brace.get(close + 1..).unwrap_or("");
            }
            None => {
                out.push('{');
                rest = from_brace.get(1..).unwrap_or("");
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::fill;

    #[test]
    fn fill_replaces_each_placeholder_once() {
        assert_eq!(fill("{a} and {b}", &[("a", "1"), ("b", "2")]), "1 and 2");
        // A value is not searched again: "{b}" inside a's value stays literal.
        assert_eq!(fill("{a} {b}", &[("a", "{b}"), ("b", "x")]), "{b} x");
        // The same placeholder twice, an unknown one, and a lone brace.
        assert_eq!(fill("{n}×{n} {zz} {", &[("n", "8")]), "8×8 {zz} {");
        assert_eq!(fill("", &[]), "");
    }
}
