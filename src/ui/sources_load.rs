//! Loads the cards' source links (`sources.bin`, same origin, cached by the service worker) when a
//! detail panel first needs them, as [`crate::ui::i18n_load`] does for the Chinese and Russian
//! table: the first load never downloads them. The one-file download carries them inline, base64
//! in a `<script type="application/octet-stream" id="gpu-advisor-sources">` block.

use crate::ui::i18n_load::bytes;

/// The table's file name beside `index.html`.
pub const FILE: &str = "sources.bin";

/// The id of the inline block in the one-file download.
pub const INLINE_ID: &str = "gpu-advisor-sources";

/// Installs the links if they are not yet; true when they can be shown.
pub async fn load() -> bool {
    crate::catalog::sources::installed() || bytes(FILE, INLINE_ID).await.is_some_and(|b| crate::catalog::sources::install(&b))
}
