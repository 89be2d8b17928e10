//! Money as text: an amount in the display currency ([`CostSettings::currency`] at its rate), in
//! English or the reader's number format, and the currency a reader of each language is shown by
//! default. The cost model ([`crate::recommend::cost`]) computes every figure in USD; this is
//! where one is written out.

use crate::i18n::{num, Lang};
use crate::recommend::cost::{CostSettings, Currency};

/// The currency a reader of `lang` is shown by default: yuan in Chinese, roubles in Russian (the
/// seed articles quote ¥ and ₽), dollars otherwise.
pub fn currency_for_lang(lang: Lang) -> Currency {
    match lang {
        Lang::Zh => Currency::Cny,
        Lang::Ru => Currency::Rub,
        Lang::En => Currency::Usd,
    }
}

/// Amounts of a [`CostSettings`] as text, in its display currency at its rate.
pub trait Money {
    /// `usd` in the display currency, rounded for reading: `$21,000`, `¥150,780`, `€0.60`,
    /// `1,648,500 ₽`. Amounts under 100 keep two decimals.
    fn money(&self, usd: f64) -> String;

    /// [`Money::money`] in `lang`'s number format.
    fn money_in(&self, lang: Lang, usd: f64) -> String;
}

impl Money for CostSettings {
    fn money(&self, usd: f64) -> String {
        format_money(usd * self.rate(), self.currency)
    }

    fn money_in(&self, lang: Lang, usd: f64) -> String {
        format_money_in(usd * self.rate(), self.currency, lang)
    }
}

/// Formats an amount already in `currency`, with thousands separators (English format).
pub fn format_money(amount: f64, currency: Currency) -> String {
    format_money_in(amount, currency, Lang::En)
}

/// Formats an amount already in `currency` in `lang`'s number format: `$17,400` in English and
/// Chinese, `$17 400` and `$14,04` in Russian, where the comma is the decimal mark.
pub fn format_money_in(amount: f64, currency: Currency, lang: Lang) -> String {
    if !amount.is_finite() {
        return "—".into();
    }
    let decimals = if amount.abs() < 100.0 { 2 } else { 0 };
    let digits = num(lang, amount, decimals);
    match currency {
        Currency::Rub => format!("{digits} ₽"),
        c => {
            if let Some(d) = digits.strip_prefix('-') {
                format!("-{}{d}", c.symbol())
            } else {
                format!("{}{digits}", c.symbol())
            }
        }
    }
}
