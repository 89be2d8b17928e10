//! The last inputs kept in the browser's localStorage, versioned. The stored form is the URL
//! query (already a tested round trip) inside a small JSON envelope with a version number; an
//! envelope from another version, or anything unreadable, is dropped with a note — never a crash.

use super::url;
use crate::i18n::{t, tf, Lang};
use serde::{Deserialize, Serialize};

/// The localStorage key.
pub const KEY: &str = "gpu-advisor/state";
/// The current version of the stored form.
pub const VERSION: u32 = 1;
/// Longest stored text accepted (characters); anything longer is dropped.
pub const MAX_CHARS: usize = 64 * 1024;

#[derive(Serialize, Deserialize)]
struct Envelope {
    v: u32,
    q: String,
}

/// The text to store for `state`.
pub fn encode(state: &super::AppState) -> String {
    serde_json::to_string(&Envelope { v: VERSION, q: url::render(state) }).unwrap_or_default()
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
    match serde_json::from_str::<Envelope>(text) {
        Ok(e) if e.v == VERSION => Ok(url::parse_in(&e.q, lang)),
        Ok(e) => Err(tf(lang, "Saved settings from an older version (v{version}) were reset.", &[("version", &e.v.to_string())])),
        Err(_) => Err(t(lang, "Saved settings could not be read and were reset.").into()),
    }
}
