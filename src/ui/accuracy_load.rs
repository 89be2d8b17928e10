//! Loads the accuracy page (`accuracy.bin`, same origin, cached by the service worker) when it
//! opens, as [`crate::ui::sources_load`] does for the cards' source links: the advisor's first
//! load never downloads it. The file holds the page's tables rendered at build time in English,
//! Chinese and Russian (`gpu-advisor accuracy-pack`, see
//! [`accuracy_view::packed`](crate::ui::components::accuracy_view)), packed as the i18n table is
//! (one entry: English, Chinese, Russian), so the app unpacks it with code it already has. The
//! one-file download carries it inline, base64 in a
//! `<script type="application/octet-stream" id="gpu-advisor-accuracy">` block.

use crate::i18n::{Entry, Lang};
use crate::ui::i18n_load::bytes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// The file's name beside `index.html`.
pub const FILE: &str = "accuracy.bin";

/// The id of the inline block in the one-file download.
pub const INLINE_ID: &str = "gpu-advisor-accuracy";

static PAGE: OnceLock<Vec<Entry>> = OnceLock::new();

/// Set when the last attempt found no file, or bytes that are not one.
static FAILED: AtomicBool = AtomicBool::new(false);

/// True when the last [`load`] failed (the page then says so).
pub fn failed() -> bool {
    FAILED.load(Ordering::Relaxed)
}

/// The page's tables in `lang`, once loaded.
pub fn page(lang: Lang) -> Option<&'static str> {
    let (en, zh, ru) = PAGE.get()?.first()?;
    Some(match lang {
        Lang::En => en,
        Lang::Zh => zh,
        Lang::Ru => ru,
    })
}

/// Installs the page if it is not yet; true when it can be shown, false when the file is missing
/// or is not one.
pub async fn load() -> bool {
    let ok = PAGE.get().is_some() || bytes(FILE, INLINE_ID).await.is_some_and(|b| crate::packed::install(&PAGE, &b));
    FAILED.store(!ok, Ordering::Relaxed);
    ok
}
