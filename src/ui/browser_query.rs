//! The browser's `URLSearchParams` as the app's query codec (`crate::query`): the same pairs
//! without serde_urlencoded in the wasm.

use wasm_bindgen::JsCast;
use web_sys::UrlSearchParams;

/// Installs the browser's codec as the app's (idempotent: the first install wins).
pub fn install() {
    crate::query::install(decode, encode);
}

fn decode(query: &str) -> Option<Vec<(String, String)>> {
    let params = UrlSearchParams::new_with_str(query).ok()?;
    let mut out = Vec::new();
    for entry in js_sys::try_iter(&params).ok()?? {
        let pair: js_sys::Array = entry.ok()?.dyn_into().ok()?;
        out.push((pair.get(0).as_string()?, pair.get(1).as_string()?));
    }
    Some(out)
}

fn encode(pairs: &[(&str, &str)]) -> String {
    let Ok(params) = UrlSearchParams::new() else { return String::new() };
    for (k, v) in pairs {
        params.append(k, v);
    }
    params.to_string().into()
}
