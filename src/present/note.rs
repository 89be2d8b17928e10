//! An engine note ([`Note`]) in the interface language: its template looked up in the translation
//! table and filled with its values, a nested note translated in turn. English is the note's own
//! text ([`Note::text`]), which the engine writes without the table.

use crate::i18n::{tf, Lang};
use crate::model::{Arg, Note};

/// A note written in an interface language.
pub trait InLang {
    /// The note in `lang`.
    fn in_lang(&self, lang: Lang) -> String;
}

impl InLang for Note {
    fn in_lang(&self, lang: Lang) -> String {
        if lang == Lang::En {
            return self.text().to_string();
        }
        let nested: Vec<String> = self
            .args()
            .iter()
            .filter_map(|(_, v)| match v {
                Arg::Note(n) => Some(n.in_lang(lang)),
                Arg::Text(_) => None,
            })
            .collect();
        let mut nested = nested.iter();
        let pairs: Vec<(&str, &str)> = self
            .args()
            .iter()
            .map(|(k, v)| match v {
                Arg::Text(t) => (*k, t.as_str()),
                Arg::Note(_) => (*k, nested.next().map_or("", String::as_str)),
            })
            .collect();
        tf(lang, self.template(), &pairs)
    }
}
