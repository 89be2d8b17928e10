//! Small browser helpers: reading the query string and replacing it without a reload, and running
//! work after the browser's next paint.

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

/// Replaces the query string after the browser's next paint; of several calls before it, only the
/// last query is written. `history.replaceState` costs about 3 ms on a 4x-throttled CPU (issue
/// 13's profile), which an input should not wait for before its frame.
pub fn replace_query_after_paint(query: String) {
    thread_local! {
        static PENDING: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    }
    let first = PENDING.with(|p| p.borrow_mut().replace(query).is_none());
    if first {
        after_paint(|| {
            if let Some(q) = PENDING.with(|p| p.borrow_mut().take()) {
                replace_query(&q);
            }
        });
    }
}

/// Runs `f` after the browser's next paint: in a task queued from the next animation frame. A
/// hidden tab has no frames, so `f` then runs when the tab is shown again.
pub fn after_paint(f: impl FnOnce() + 'static) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else { return f() };
    let frame = Closure::once_into_js(move || gloo::timers::callback::Timeout::new(0, f).forget());
    let _ = window.request_animation_frame(frame.unchecked_ref());
}

/// Removes the static shell of index.html (`#shell`: the header and the advisor's frame, painted
/// before the wasm runs). Called from the app's first effect, after its first render is in the
/// document and before the browser paints again, so the app takes the shell's place in one step.
pub fn remove_shell() {
    if let Some(shell) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("shell")) {
        shell.remove();
    }
}
