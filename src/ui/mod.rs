//! The Yew user interface: the only layer that touches the browser. Components live one per file
//! in [`components`]; [`app`] holds the root, its reducer and the URL/storage effects.

pub mod app;
pub mod components;
pub mod dom;
pub mod embed;
pub mod lang;
pub mod panic;

/// Installs the panic panel and mounts the app on `<body>`.
pub fn start() {
    panic::install();
    embed::apply_accent_from_url();
    embed::register_service_worker();
    if embed::is_embed() {
        embed::start_height_reporter();
    }
    yew::Renderer::<app::App>::new().render();
}
