//! Number formatting for the UI: thousands separators and fixed decimals, locale-aware.

pub use crate::i18n::number_with;

/// English formatting: `1,234.5`.
pub fn number(v: f64, decimals: usize) -> String {
    number_with(v, decimals, ",", ".")
}

/// An optional value, or an em dash.
pub fn opt_number(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "—".to_string(), |v| number(v, decimals))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(number(1234567.891, 2), "1,234,567.89");
        assert_eq!(number(999.0, 0), "999");
        assert_eq!(number(-1000.0, 0), "-1,000");
        assert_eq!(number(f64::NAN, 1), "—");
        assert_eq!(number_with(12345.6, 1, "\u{a0}", ","), "12\u{a0}345,6");
    }
}
