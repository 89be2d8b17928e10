//! Browser helpers for reaching people where they are: embed mode (`?embed=1`, an accent colour
//! from the URL, the page height reported to the parent page), the offline service worker, and the
//! name of the one-file download. The parsing is pure and tested natively; the rest only touches
//! the DOM. docs/EMBED.md documents the parent side of the embed.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The message type the height reporter posts to the parent page.
pub const HEIGHT_MESSAGE_TYPE: &str = "gpu-advisor:height";

/// Whether a query string (with or without its `?`) asks for embed mode: `embed=1` or `embed=true`.
pub fn embed_requested(query: &str) -> bool {
    query_pairs(query).iter().any(|(k, v)| k == "embed" && (v == "1" || v == "true"))
}

/// The accent colour a query string asks for (`accent=1f6feb`, `accent=%231f6feb` or the short
/// `accent=f60`) as a CSS colour `#rrggbb`; see [`hex_colour`].
pub fn accent_requested(query: &str) -> Option<String> {
    let (_, value) = query_pairs(query).into_iter().rev().find(|(k, _)| k == "accent")?;
    hex_colour(&value)
}

/// `1f6feb`, `#1F6FEB` or `f60` as the CSS colour `#rrggbb`. Anything but 3 or 6 hex digits
/// (with or without `#`) gives `None`, so raw input never reaches CSS.
pub fn hex_colour(value: &str) -> Option<String> {
    let hex = value.trim().trim_start_matches('#');
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let hex = hex.to_ascii_lowercase();
    match hex.len() {
        6 => Some(format!("#{hex}")),
        3 => Some(hex.chars().fold(String::from("#"), |mut s, c| {
            s.push(c);
            s.push(c);
            s
        })),
        _ => None,
    }
}

/// The text colour that reads best on `accent` (`#rrggbb`): black or white, whichever has the
/// higher contrast ratio (WCAG 2.1, "relative luminance" and "contrast ratio" definitions).
pub fn contrast_text_for(accent: &str) -> &'static str {
    let channel = |i: usize| {
        let c = accent.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or(0);
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            crate::fmath::pow((c + 0.055) / 1.055, 2.4)
        }
    };
    let luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
    // contrast with white: 1.05 / (L + 0.05); with black: (L + 0.05) / 0.05
    if 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 {
        "#ffffff"
    } else {
        "#000000"
    }
}

fn query_pairs(query: &str) -> Vec<(String, String)> {
    crate::query::decode(query.trim_start_matches('?')).unwrap_or_default()
}

fn query() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// Whether the page was opened with `?embed=1` (compact layout, no site chrome).
pub fn is_embed() -> bool {
    embed_requested(&query())
}

/// The validated accent colour of the URL (`?accent=1f6feb`), as `#rrggbb`.
pub fn accent_from_url() -> Option<String> {
    accent_requested(&query())
}

/// Applies the URL's accent colour, if any; see [`apply_accent`].
pub fn apply_accent_from_url() {
    if let Some(accent) = accent_from_url() {
        apply_accent(&accent);
    }
}

/// Sets `--accent` (and a readable `--accent-contrast`) on `<html>` to `colour`, given as 3 or 6
/// hex digits with or without `#` (validated again here; anything else is ignored). It goes
/// through CSSOM (`style.setProperty`), which the page's `style-src 'self'` allows, unlike a
/// `style` attribute.
pub fn apply_accent(colour: &str) {
    let Some(accent) = hex_colour(colour) else { return };
    let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return;
    };
    let style = root.style();
    let _ = style.set_property("--accent", &accent);
    let _ = style.set_property("--accent-contrast", contrast_text_for(&accent));
}

/// When the page runs in an iframe, posts `{type: "gpu-advisor:height", height}` (CSS pixels,
/// rounded up) to the parent now and whenever the document's height changes, so that the parent
/// can size the iframe to fit. The target origin is `"*"`: the height is not secret, and the
/// parent checks the sender's origin (docs/EMBED.md). Does nothing outside an iframe, or when
/// already started.
pub fn start_height_reporter() {
    thread_local!(static STARTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    if STARTED.with(|s| s.replace(true)) {
        return;
    }
    let Some(window) = web_sys::window() else { return };
    let Ok(Some(parent)) = window.parent() else { return };
    if JsValue::from(&parent) == JsValue::from(&window) {
        return;
    }
    let Some(root) = window.document().and_then(|d| d.document_element()) else { return };
    let measured = root.clone();
    let mut last_height = -1.0_f64;
    let mut report = move || {
        let height = measured.get_bounding_client_rect().height().ceil();
        if height == last_height {
            return;
        }
        last_height = height;
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &HEIGHT_MESSAGE_TYPE.into());
        let _ = js_sys::Reflect::set(&message, &"height".into(), &height.into());
        let _ = parent.post_message(&message, "*");
    };
    report();
    let callback = Closure::<dyn FnMut()>::new(report);
    if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
        observer.observe(&root);
    }
    // The observer lives as long as the page.
    callback.forget();
}

/// Registers the offline service worker (`./sw.js`, relative so that sub-paths work). Skipped
/// from `file://`, in the one-file download, and where the browser has no service workers
/// (insecure origins); a failed registration is a console warning, never an error.
pub fn register_service_worker() {
    let Some(window) = web_sys::window() else { return };
    if window.location().protocol().map_or(true, |p| p == "file:") {
        return;
    }
    let single_file = window
        .document()
        .and_then(|d| d.query_selector("meta[name='gpu-advisor:single-file']").ok().flatten())
        .is_some();
    let navigator = window.navigator();
    if single_file || !js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false) {
        return;
    }
    let warn = Closure::<dyn FnMut(JsValue)>::new(|e: JsValue| {
        web_sys::console::warn_2(&"gpu-advisor: no offline support, the service worker did not register:".into(), &e);
    });
    let _ = navigator.service_worker().register("./sw.js").catch(&warn);
    warn.forget();
}

/// Where the one-file download of the app lives, relative to the app (`make dist` copies
/// dist-single/gpu-advisor.html there). Use it with `<a download>`.
pub fn single_file_href() -> &'static str {
    "gpu-advisor.html"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embed_flag() {
        assert!(embed_requested("?embed=1"));
        assert!(embed_requested("view=compare&embed=true"));
        assert!(!embed_requested("?embed=0"));
        assert!(!embed_requested("?embedded=1"));
        assert!(!embed_requested(""));
    }

    #[test]
    fn accent_only_takes_hex_colours() {
        assert_eq!(accent_requested("?accent=1F6FEB").as_deref(), Some("#1f6feb"));
        assert_eq!(accent_requested("?accent=%231f6feb").as_deref(), Some("#1f6feb"));
        assert_eq!(accent_requested("?accent=f60").as_deref(), Some("#ff6600"));
        for bad in ["red", "1f6feb;}body{display:none", "12345", "1f6febff", "", "%3Cscript%3E", "ｆｆｆ"] {
            assert_eq!(accent_requested(&format!("?accent={bad}")), None, "{bad}");
        }
        assert_eq!(accent_requested("?embed=1"), None);
        assert_eq!(hex_colour("1F6FEB").as_deref(), Some("#1f6feb"));
        assert_eq!(hex_colour("#abc").as_deref(), Some("#aabbcc"));
        assert_eq!(hex_colour("#"), None);
    }

    #[test]
    fn contrast_text_is_readable() {
        // GitHub blue #1f6feb: luminance 0.177, 4.6:1 with white against 4.5:1 with black.
        assert_eq!(contrast_text_for("#1f6feb"), "#ffffff");
        assert_eq!(contrast_text_for("#ffcc00"), "#000000");
        assert_eq!(contrast_text_for("#000000"), "#ffffff");
        assert_eq!(contrast_text_for("#ffffff"), "#000000");
    }
}
