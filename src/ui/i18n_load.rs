//! Loads the Chinese and Russian interface table (`i18n.bin`, same origin, cached by the service
//! worker) when the app first needs it: English readers never download it. The one-file download
//! carries it inline, base64 in a `<script type="application/octet-stream" id="gpu-advisor-i18n">`
//! block (file:// allows no fetch).

use wasm_bindgen::JsCast;

/// The table's file name beside `index.html`.
pub const FILE: &str = "i18n.bin";

/// The id of the inline block in the one-file download.
pub const INLINE_ID: &str = "gpu-advisor-i18n";

/// Installs the table if it is not yet; true when Chinese and Russian can be shown.
pub async fn load() -> bool {
    crate::i18n::installed() || bytes(FILE, INLINE_ID).await.is_some_and(|b| crate::i18n::install(&b))
}

/// The bytes of a file loaded after start-up (this table, the source links, the accuracy page):
/// the one-file download's inline block with id `inline_id` if the page has it, else `file`
/// fetched from beside the page. One future for all of them: the app's wasm carries its code once.
pub(crate) async fn bytes(file: &str, inline_id: &str) -> Option<Vec<u8>> {
    match inline(inline_id) {
        Some(bytes) => Some(bytes),
        None => fetch(file).await,
    }
}

/// The bytes of the inline base64 block with this id (the one-file download's), if the page has it.
pub(crate) fn inline(id: &str) -> Option<Vec<u8>> {
    let window = web_sys::window()?;
    let text = window.document()?.get_element_by_id(id)?.text_content()?;
    let binary = window.atob(text.trim()).ok()?;
    // atob gives one char per byte.
    Some(binary.chars().map(|c| c as u32 as u8).collect())
}

/// The bytes of `url` (relative to the page), or None on any failure.
pub(crate) async fn fetch(url: &str) -> Option<Vec<u8>> {
    let window = web_sys::window()?;
    let response: web_sys::Response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(url)).await.ok()?.dyn_into().ok()?;
    if !response.ok() {
        return None;
    }
    let buffer = wasm_bindgen_futures::JsFuture::from(response.array_buffer().ok()?).await.ok()?;
    Some(js_sys::Uint8Array::new(&buffer).to_vec())
}
