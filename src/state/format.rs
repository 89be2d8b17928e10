//! Number formatting for the UI: thousands separators and fixed decimals, locale-aware.

/// Formats `v` with `decimals` decimals and `sep` as the thousands separator, and `dec` as the
/// decimal mark. Non-finite values show as an em dash.
pub fn number_with(v: f64, decimals: usize, sep: &str, dec: &str) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    let s = format!("{:.*}", decimals, v.abs());
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
