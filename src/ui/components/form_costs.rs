//! The advisor form's costs section (a disclosure): what "best" means, the currency, usage and
//! horizon, the API price to break even against (LLM serving), what is bought, energy, the card
//! and cloud prices, the exchange rate and the user's own prices.

use crate::i18n::t;
use crate::state::advisor::Field;
use crate::ui::form_section::{options, SectionProps};
use crate::ui::lang::use_lang;
use yew::prelude::*;

/// The fields the section holds (its summary lists those that differ from their default).
pub const FIELDS: [Field; 13] = [Field::Objective, Field::Currency, Field::HoursPerDay, Field::Months, Field::ApiPrice, Field::Host, Field::KwhPrice, Field::Utilisation, Field::Pue, Field::PriceBasis, Field::RentBasis, Field::Rate, Field::Prices];

/// The section's fields, shown while its disclosure is open.
#[function_component(FormCosts)]
pub fn form_costs(props: &SectionProps) -> Html {
    let lang = use_lang();
    html! {
        <>
            { props.select(lang, Field::Objective, t(lang, "Rank by"), t(lang, "What “best” means."),
                options(&[("cheapest", t(lang, "Cheapest that fits")), ("fastest", t(lang, "Fastest within budget")), ("value", t(lang, "Throughput per dollar")), ("cost-per-token", t(lang, "Lowest $ per million tokens")), ("time-to-train", t(lang, "Shortest time to train"))])) }
            { props.select(lang, Field::Currency, t(lang, "Currency"), t(lang, "Converted at an editable rate."),
                options(&[("auto", t(lang, "By language")), ("usd", "USD $"), ("cny", "CNY ¥"), ("rub", "RUB ₽"), ("eur", "EUR €")])) }
            { props.text(lang, Field::HoursPerDay, t(lang, "Usage (hours/day)"), t(lang, "For energy and rental cost."), "decimal") }
            { props.text(lang, Field::Months, t(lang, "Months"), t(lang, "Horizon of the total cost."), "numeric") }
            if props.applies.serving {
                { props.text(lang, Field::ApiPrice, t(lang, "API price per million tokens"), t(lang, "Compare with an API: at what monthly volume self-hosting breaks even; empty = off."), "decimal") }
            }
            { props.select(lang, Field::Host, t(lang, "What you buy"), t(lang, "Buying: the cards for a PC or server you have, or a complete machine with an estimated host added. Macs, Strix Halo and DGX Spark are whole machines either way."),
                options(&[("none", t(lang, "Cards only")), ("include", t(lang, "Complete machine"))])) }
            { props.text(lang, Field::KwhPrice, t(lang, "Electricity ($/kWh)"), t(lang, "Energy price."), "decimal") }
            { props.text(lang, Field::Utilisation, t(lang, "Utilisation %"), t(lang, "Average share of board power while running."), "decimal") }
            { props.text(lang, Field::Pue, t(lang, "PUE"), t(lang, "Cooling overhead; empty = 1.0 at a desk, 1.3 for servers."), "decimal") }
            { props.select(lang, Field::PriceBasis, t(lang, "Card price"), t(lang, "Street price where known, else launch price."),
                options(&[("street", t(lang, "Street")), ("launch", t(lang, "Launch (MSRP)"))])) }
            { props.text(lang, Field::RentBasis, t(lang, "Cloud price"), t(lang, "cheapest, median, or a provider name (e.g. lambda)."), "text") }
            { props.text(lang, Field::Rate, t(lang, "Exchange rate per USD"), t(lang, "Empty = the bundled rate."), "decimal") }
            { props.text(lang, Field::Prices, t(lang, "Your prices"), t(lang, "Vendor overrides, e.g. rtx-4090:buy=1800;hour=0.5"), "text") }
        </>
    }
}
