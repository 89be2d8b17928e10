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

/// Removes the static shell of index.html (`#shell`: the header and the advisor's frame, painted
/// before the wasm runs). Called from the app's first effect, after its first render is in the
/// document and before the browser paints again, so the app takes the shell's place in one step.
pub fn remove_shell() {
    if let Some(shell) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("shell")) {
        shell.remove();
    }
}
