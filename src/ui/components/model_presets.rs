//! The advisor's list of model presets (a `<datalist>` for the model field's search). It has no
//! props, so a keystroke elsewhere in the form does not rebuild its hundred-odd options.

use crate::catalog;
use crate::i18n::t;
use crate::ui::lang::use_lang;
use yew::prelude::*;

/// The datalist `model-presets`.
#[function_component(ModelPresets)]
pub fn model_presets() -> Html {
    let lang = use_lang();
    html! {
        <datalist id="model-presets">
            <option value="custom">{ t(lang, "Custom: parameter count or config.json") }</option>
            { for catalog::catalog().llms.iter().map(|m| html! { <option value={m.id.clone()}>{ format!("{} · {}B", m.name, crate::decimal::fixed(m.params_total_b, 1)) }</option> }) }
            { for catalog::catalog().diffusion.iter().map(|m| html! { <option value={m.id.clone()}>{ format!("{} · {}", m.name, if m.video.is_some() { "video" } else { "image" }) }</option> }) }
            { for catalog::catalog().classic.iter().map(|m| html! { <option value={m.id.clone()}>{ format!("{} · {}", m.name, m.task) }</option> }) }
        </datalist>
    }
}
