//! "How this was computed" for one option: the formulas with their values and the engine's
//! assumptions. The body is only built when opened, which keeps re-ranking cheap.

use crate::i18n::t;
use crate::recommend::Explain;
use crate::ui::lang::use_lang;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ExplainDetailsProps {
    pub explain: Rc<Vec<Explain>>,
    pub assumptions: Rc<Vec<String>>,
}

/// A disclosure that renders its content on first open.
#[function_component(ExplainDetails)]
pub fn explain_details(props: &ExplainDetailsProps) -> Html {
    let lang = use_lang();
    let open = use_state(|| false);
    let ontoggle = {
        let open = open.clone();
        Callback::from(move |e: Event| open.set(e.target_unchecked_into::<web_sys::HtmlDetailsElement>().open()))
    };
    html! {
        <details class="recommend-list__explain" {ontoggle}>
            <summary>{ t(lang, "How this was computed") }</summary>
            if *open {
                <dl class="recommend-list__formulas">
                    { for props.explain.iter().map(|x| html! { <><dt>{ x.label }</dt><dd><code>{ &x.formula }</code></dd></> }) }
                </dl>
                <ul class="recommend-list__assumptions">
                    { for props.assumptions.iter().map(|a| html! { <li>{ a }</li> }) }
                </ul>
            }
        </details>
    }
}
