//! Interface languages: English, 简体中文 and Русский.
//!
//! English text is the key: components write `t(lang, "Compare cards")`. The Chinese and Russian
//! texts live in `data/i18n.toml`, compiled into the binary by `build.rs`, which fails the build
//! when an entry lacks a language or its `{placeholders}` differ. `tests/i18n.rs` scans every
//! `t(…)`/`tf(…)` call in `src/ui` and every label in `state::fields` and proves each has an
//! entry, so no key can be missing in any language. Product names are never translated.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use crate::template::fill;
#[cfg(not(target_arch = "wasm32"))]
use std::sync::LazyLock;

/// An interface language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    #[default]
    En,
    Zh,
    Ru,
}

impl Lang {
    /// Every language, in menu order.
    pub const ALL: [Lang; 3] = [Lang::En, Lang::Zh, Lang::Ru];

    /// The code used in the URL (`?lang=zh`).
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
            Lang::Ru => "ru",
        }
    }

    /// The language's own name, for the switcher.
    pub fn native_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Zh => "简体中文",
            Lang::Ru => "Русский",
        }
    }

    /// Parses a code or a browser language tag (`zh-CN`, `ru-RU`, `en-US`).
    pub fn parse(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next().unwrap_or("").to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            "ru" => Some(Lang::Ru),
            _ => None,
        }
    }

    /// Thousands separator and decimal mark.
    pub fn number_marks(self) -> (&'static str, &'static str) {
        match self {
            Lang::En | Lang::Zh => (",", "."),
            Lang::Ru => ("\u{a0}", ","),
        }
    }
}

/// One translated entry: (English, Chinese, Russian).
pub type Entry = (String, String, String);

/// The packed table (postcard, sorted by English text; build.rs writes it). Native builds (the
/// CLI and the tests) carry it; the web app loads it as the file `i18n.bin` when it first needs
/// Chinese or Russian, so English readers never download it (see `ui::i18n_load`).
#[cfg(not(target_arch = "wasm32"))]
static PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/i18n.bin"));

#[cfg(not(target_arch = "wasm32"))]
static TABLE: LazyLock<Vec<Entry>> = LazyLock::new(|| postcard::from_bytes(PACKED).unwrap_or_default());

#[cfg(target_arch = "wasm32")]
static TABLE: std::sync::OnceLock<Vec<Entry>> = std::sync::OnceLock::new();

/// The packed table, as the web app's `i18n.bin` holds it (native builds only).
#[cfg(not(target_arch = "wasm32"))]
pub fn packed() -> &'static [u8] {
    PACKED
}

/// Every entry of the table (empty in the web app until [`install`]).
pub fn table() -> &'static [Entry] {
    #[cfg(not(target_arch = "wasm32"))]
    {
        &TABLE
    }
    #[cfg(target_arch = "wasm32")]
    {
        TABLE.get().map_or(&[], Vec::as_slice)
    }
}

/// Installs a packed table (the web app's `i18n.bin`); false when the bytes are not one. Native
/// builds carry theirs and ignore the call.
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

/// True when Chinese and Russian can be shown.
pub fn installed() -> bool {
    !table().is_empty()
}

/// `en` in `lang`. English, and any text without an entry, come back unchanged.
pub fn t(lang: Lang, en: &'static str) -> &'static str {
    if lang == Lang::En {
        return en;
    }
    let table = table();
    match table.binary_search_by(|(k, _, _)| k.as_str().cmp(en)) {
        Ok(i) => match (lang, table.get(i)) {
            (Lang::Zh, Some((_, zh, _))) => zh.as_str(),
            (Lang::Ru, Some((_, _, ru))) => ru.as_str(),
            _ => en,
        },
        Err(_) => en,
    }
}

/// The plural form of a count `n` in `lang`, as an index into the one / few / other forms (CLDR
/// plural rules, unicode.org "Language Plural Rules"): English "one" for 1 and "other" else;
/// Russian "one" for 1, 21, 31… (not 11), "few" for 2–4, 22–24… (not 12–14), "many/other" else;
/// Chinese has no plural ("other").
pub fn plural_form(lang: Lang, n: u64) -> usize {
    match lang {
        Lang::En if n == 1 => 0,
        Lang::Ru if n % 10 == 1 && n % 100 != 11 => 0,
        Lang::Ru if (2..=4).contains(&(n % 10)) && !(12..=14).contains(&(n % 100)) => 1,
        _ => 2,
    }
}

/// `n` with its noun in `lang`: `forms` are the English keys of the one, few and other forms,
/// each with `{n}` (English never takes the few form: its key only has to be distinct).
pub fn count_of(lang: Lang, n: u64, forms: [&'static str; 3]) -> String {
    let form = forms.get(plural_form(lang, n)).copied().unwrap_or(forms[2]);
    tf(lang, form, &[("n", &n.to_string())])
}

/// A number of users in `lang` ("1 user", "4 users"; Russian "1 пользователь", "3 пользователя",
/// "5 пользователей").
pub fn users(lang: Lang, n: u64) -> String {
    count_of(lang, n, ["{n} user", "{n} users (few)", "{n} users"])
}

/// `en` in `lang` with `{name}` placeholders filled from `args` ([`fill`]).
pub fn tf(lang: Lang, en: &'static str, args: &[(&str, &str)]) -> String {
    fill(t(lang, en), args)
}

/// A number in `lang`'s format.
pub fn num(lang: Lang, v: f64, decimals: usize) -> String {
    let (sep, dec) = lang.number_marks();
    number_with(v, decimals, sep, dec)
}

/// Formats `v` with `decimals` decimals and `sep` as the thousands separator, and `dec` as the
/// decimal mark. Non-finite values show as an em dash.
pub fn number_with(v: f64, decimals: usize, sep: &str, dec: &str) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    let s = crate::decimal::fixed(v.abs(), decimals);
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i.to_string(), Some(f.to_string())),
        None => (s.clone(), None),
    };
    let digits: Vec<char> = int.chars().collect();
    let mut grouped = String::new();
    for (i, c) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push_str(sep);
        }
        grouped.push(*c);
    }
    let sign = if v < 0.0 && s.chars().any(|c| c != '0' && c != '.') { "-" } else { "" };
    match frac {
        Some(f) => format!("{sign}{grouped}{dec}{f}"),
        None => format!("{sign}{grouped}"),
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    /// Moved from the former `state::format` (its only user was this module).
    #[test]
    fn groups_thousands() {
        assert_eq!(num(Lang::En, 1234567.891, 2), "1,234,567.89");
        assert_eq!(num(Lang::En, 999.0, 0), "999");
        assert_eq!(num(Lang::En, -1000.0, 0), "-1,000");
        assert_eq!(num(Lang::En, f64::NAN, 1), "—");
        assert_eq!(number_with(12345.6, 1, "\u{a0}", ","), "12\u{a0}345,6");
    }
}
