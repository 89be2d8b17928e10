//! A panic hook that replaces a dead page with a visible error panel (and a reload link), so a
//! bug never leaves the user looking at a blank or frozen page.

use wasm_bindgen::JsCast;

/// Installs the hook. Safe to call more than once.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("gpu-advisor crashed: {message}").into());
        show_panel(&message);
    }));
}

fn show_panel(message: &str) -> Option<()> {
    let document = web_sys::window()?.document()?;
    let panel = document.create_element("div").ok()?;
    panel.set_class_name("panic-panel");
    panel.set_attribute("role", "alert").ok()?;
    let title = document.create_element("h2").ok()?;
    title.set_text_content(Some("Something went wrong"));
    let body = document.create_element("p").ok()?;
    body.set_text_content(Some("gpu-advisor hit an internal error. Reloading the page usually helps; the link below keeps your settings."));
    let detail = document.create_element("pre").ok()?;
    detail.set_class_name("panic-panel__detail");
    detail.set_text_content(Some(message));
    let reload = document.create_element("a").ok()?;
    reload.set_class_name("panic-panel__reload");
    reload.set_attribute("href", &web_sys::window()?.location().href().ok()?).ok()?;
    reload.set_text_content(Some("Reload"));
    for child in [&title, &body, &detail, &reload] {
        panel.append_child(child).ok()?;
    }
    let body_el: web_sys::HtmlElement = document.body()?.dyn_into().ok()?;
    body_el.prepend_with_node_1(&panel).ok()?;
    Some(())
}
