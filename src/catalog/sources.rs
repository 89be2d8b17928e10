//! The source links of every card (its datasheets, its price source, each cloud price's page)
//! and its notes. Only a card's detail panel shows them, so the web app's catalog goes without them (build.rs
//! strips them for wasm32) and the app loads this table, `sources.bin`, when a panel first opens
//! (`ui::sources_load`). The native build writes the file (`gpu-advisor sources-pack`, run by
//! Trunk's post_build hook) from its full catalog, and answers lookups from that catalog directly.

use serde::{Deserialize, Serialize};

/// One card's links.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuSources {
    pub id: String,
    pub sources: Vec<String>,
    pub price_source: Option<String>,
    /// One per cloud price, in the card's order.
    pub cloud: Vec<String>,
    /// The card's notes (what a figure means, where sources disagree).
    pub notes: Vec<String>,
}

#[cfg(not(target_arch = "wasm32"))]
fn of(g: &super::Gpu) -> GpuSources {
    GpuSources {
        id: g.id.clone(),
        sources: g.sources.clone(),
        price_source: g.price_source.clone(),
        cloud: g.cloud.iter().map(|c| c.source.clone()).collect(),
        notes: g.notes.clone(),
    }
}

/// The table as `sources.bin` holds it: every card's links, packed with postcard (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn packed() -> Vec<u8> {
    let all: Vec<GpuSources> = super::gpus().iter().map(of).collect();
    postcard::to_allocvec(&all).unwrap_or_default()
}

#[cfg(target_arch = "wasm32")]
static TABLE: std::sync::OnceLock<Vec<GpuSources>> = std::sync::OnceLock::new();

/// Whether the links can be shown: always natively; in the web app once [`install`]ed.
pub fn installed() -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        TABLE.get().is_some()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        true
    }
}

/// Installs a packed table (the web app's `sources.bin`); false when the bytes are not one.
/// Native builds carry the links in their catalog and ignore the call.
pub fn install(bytes: &[u8]) -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        crate::packed::install(&TABLE, bytes)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        !bytes.is_empty()
    }
}

/// The links of the card with this id (None in the web app until the table is installed).
pub fn gpu(id: &str) -> Option<GpuSources> {
    #[cfg(target_arch = "wasm32")]
    {
        TABLE.get()?.iter().find(|s| s.id == id).cloned()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        super::gpu(id).map(of)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    #[test]
    fn the_packed_table_holds_every_card_with_its_links() {
        let all: Vec<super::GpuSources> = postcard::from_bytes(&super::packed()).unwrap_or_default();
        assert_eq!(all.len(), crate::catalog::gpus().len());
        assert!(all.iter().all(|s| !s.sources.is_empty()));
        assert!(super::install(&super::packed()));
        assert_eq!(super::gpu("h100-sxm").map(|s| s.id), Some("h100-sxm".to_string()));
    }
}
