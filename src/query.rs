//! Query strings (`model=llama-3.1-8b&users=4`) to key → value pairs and back, with a codec the
//! web app can replace.
//!
//! Natively (the CLI, the tests) the codec is serde_urlencoded's. The browser already has one,
//! `URLSearchParams`, with the same `application/x-www-form-urlencoded` rules (space as `+`,
//! every byte but `*-._` and ASCII letters and digits percent-encoded; WHATWG URL standard,
//! "application/x-www-form-urlencoded"): `ui::browser_query` installs it through [`install`], so
//! the app links neither serde_urlencoded nor its percent-encoding tables. A wasm build without
//! an installed codec reads no pairs and writes an empty query.

use std::sync::OnceLock;

/// Query text (without the `?`) to its pairs, in order; `None` when it cannot be read.
pub type Decoder = fn(&str) -> Option<Vec<(String, String)>>;
/// Pairs to query text (without the `?`).
pub type Encoder = fn(&[(&str, &str)]) -> String;

static CODEC: OnceLock<(Decoder, Encoder)> = OnceLock::new();

/// Makes `decode` and `encode` the process-wide codec (the first call wins).
pub fn install(decode: Decoder, encode: Encoder) {
    let _ = CODEC.set((decode, encode));
}

/// The pairs of `query` (a leading `?` is not part of it), with the installed codec or the
/// built-in one.
pub fn decode(query: &str) -> Option<Vec<(String, String)>> {
    match CODEC.get() {
        Some((d, _)) => d(query),
        None => builtin_decode(query),
    }
}

/// `pairs` as query text, with the installed codec or the built-in one.
pub fn encode(pairs: &[(&str, &str)]) -> String {
    match CODEC.get() {
        Some((_, e)) => e(pairs),
        None => builtin_encode(pairs),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn builtin_decode(query: &str) -> Option<Vec<(String, String)>> {
    serde_urlencoded::from_str(query).ok()
}

#[cfg(not(target_arch = "wasm32"))]
fn builtin_encode(pairs: &[(&str, &str)]) -> String {
    serde_urlencoded::to_string(pairs).unwrap_or_default()
}

#[cfg(target_arch = "wasm32")]
fn builtin_decode(_query: &str) -> Option<Vec<(String, String)>> {
    None
}

#[cfg(target_arch = "wasm32")]
fn builtin_encode(_pairs: &[(&str, &str)]) -> String {
    String::new()
}

#[cfg(test)]
mod tests {
    /// The form-urlencoded rules by hand: `+` and `%20` are spaces, `%C3%A9` is "é", `*-._` stay
    /// as they are, and the rest is percent-encoded in UTF-8.
    #[test]
    fn reads_and_writes_form_urlencoding() {
        let pairs = super::decode("a=one+two&b=%C3%A9%20x&c=").expect("pairs");
        assert_eq!(pairs, vec![("a".into(), "one two".into()), ("b".into(), "é x".into()), ("c".into(), String::new())]);
        assert_eq!(super::encode(&[("k", "a b*-._/é")]), "k=a+b*-._%2F%C3%A9");
    }
}
