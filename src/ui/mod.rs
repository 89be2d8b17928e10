//! The Yew user interface: the only layer that touches the browser. Components live one per file
//! in [`components`]; [`app`] holds the root, its reducer and the URL/storage effects.

pub mod app;
pub mod components;
pub mod dom;
pub mod lang;
pub mod panic;

/// Installs the panic panel and mounts the app on `<body>`.
pub fn start() {
    panic::install();
    yew::Renderer::<app::App>::new().render();
}
