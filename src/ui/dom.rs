//! Small browser helpers: reading the query string and replacing it without a reload.

/// The current `location.search` (with the leading `?`), or empty.
pub fn query_string() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// Replaces the URL's query string without adding a history entry.
pub fn replace_query(query: &str) {
    let Some(window) = web_sys::window() else { return };
    let path = window.location().pathname().unwrap_or_default();
    let url = if query.is_empty() { path } else { format!("{path}?{query}") };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}
