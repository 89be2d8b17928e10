//! The last inputs kept in the browser's localStorage, versioned. The stored form is the URL
//! query (already a tested round trip) inside a small JSON envelope with a version number; an
//! envelope from another version, or anything unreadable, is dropped with a note — never a crash.

use super::url;
use crate::i18n::{t, tf, Lang};

/// The localStorage key.
pub const KEY: &str = "gpu-advisor/state";
/// The current version of the stored form.
pub const VERSION: u32 = 1;
/// Longest stored text accepted (characters); anything longer is dropped.
pub const MAX_CHARS: usize = 64 * 1024;

/// The text to store for `state`.
pub fn encode(state: &super::AppState) -> String {
    format!("{{\"v\":{VERSION},\"q\":{}}}", crate::json::quote(&url::render(state)))
}

/// Reads stored text: the state it holds (with any notes from reading its query), or a note
/// saying why it was dropped. Notes are in English.
pub fn decode(text: &str) -> Result<url::Parsed, String> {
    decode_in(text, Lang::En)
}

/// [`decode`] with its notes in `lang` (the stored state's own language wins for its notes).
pub fn decode_in(text: &str, lang: Lang) -> Result<url::Parsed, String> {
    if text.chars().count() > MAX_CHARS {
        return Err(t(lang, "Saved settings were too large and were reset.").into());
    }
    let envelope = crate::json::read(text).ok();
    let field = |key: &str| envelope.as_ref().and_then(|e| e.get(key));
    match (field("v").and_then(serde_json::Value::as_u64), field("q").and_then(serde_json::Value::as_str)) {
        (Some(v), Some(q)) if v == u64::from(VERSION) => Ok(url::parse_in(q, lang)),
        (Some(v), Some(_)) => Err(tf(lang, "Saved settings from an older version (v{version}) were reset.", &[("version", &v.to_string())])),
        _ => Err(t(lang, "Saved settings could not be read and were reset.").into()),
    }
}
