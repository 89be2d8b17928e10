//! Decimal text for numbers, without the standard library's float formatting.
//!
//! `format!("{:.1}", x)` pulls core's exact and shortest float-to-decimal algorithms (Grisu and
//! Dragon, about 16 KB of wasm, 5 KB brotli) into the app. Every number the app shows has a known
//! number of decimals, so scaling to an integer and printing the integer is enough: [`fixed`]
//! rounds half to even on the scaled value (the same result as `{:.N}` except where the scaled
//! product itself lands on a tie that the exact binary value does not), [`sci`] replaces
//! `{:.Ne}` and [`plain`] replaces `{}`. The CLI may keep `format!`; the app's code uses these.

/// Decimals beyond which numbers are printed as with nine.
const MAX_DECIMALS: usize = 9;

/// `v` with exactly `decimals` decimals (at most nine), like `format!("{v:.decimals$}")`.
/// Non-finite values print as `NaN`, `inf` and `-inf`.
pub fn fixed(v: f64, decimals: usize) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let d = decimals.min(MAX_DECIMALS);
    let scale = 10_u64.pow(d as u32);
    let a = v.abs();
    let scaled = a * scale as f64;
    let mut out = String::with_capacity(24);
    if scaled < 9.0e15 {
        // Exact integers: round the whole scaled value, half to even, and print its digits
        // straight into `out` (this runs for every figure of every note: no temporary strings).
        let r = scaled.round_ties_even() as u64;
        if v < 0.0 && r > 0 {
            out.push('-');
        }
        push_digits(&mut out, r / scale, 1);
        if d > 0 {
            out.push('.');
            push_digits(&mut out, r % scale, d);
        }
        return out;
    }
    let int = a.trunc();
    let frac = ((a - int) * scale as f64).round() as u64;
    let (int_digits, frac) = if frac >= scale { (integer_digits(int + 1.0), frac - scale) } else { (integer_digits(int), frac) };
    if v < 0.0 {
        out.push('-');
    }
    out.push_str(&int_digits);
    if d > 0 {
        out.push('.');
        push_digits(&mut out, frac, d);
    }
    out
}

/// Appends the decimal digits of `n` to `out`, left-padded with zeros to at least `width`.
fn push_digits(out: &mut String, mut n: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let start = i.min(buf.len().saturating_sub(width));
    out.extend(buf[start..].iter().map(|&b| char::from(b)));
}

/// The digits of a non-negative whole number held in an `f64` (exact below 2^53; above, the
/// digits of the nearest double). Past u64, the double's mantissa is doubled as often as its
/// exponent says in base-10⁹ limbs (integer arithmetic only: no f64 remainder, whose libm code
/// and 128-bit division the web app would carry for this alone).
fn integer_digits(int: f64) -> String {
    if int < 1.8e19 {
        return (int as u64).to_string();
    }
    let bits = int.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1075;
    let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
    // Little-endian limbs of 10^9.
    let mut limbs = vec![mantissa % 1_000_000_000, mantissa / 1_000_000_000];
    for _ in 0..exponent.clamp(0, 1100) {
        let mut carry = 0;
        for l in &mut limbs {
            let v = *l * 2 + carry;
            *l = v % 1_000_000_000;
            carry = v / 1_000_000_000;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut out = limbs.last().map_or_else(String::new, u64::to_string);
    for l in limbs.iter().rev().skip(1) {
        out.push_str(&format!("{l:09}"));
    }
    out
}

/// `v` in scientific notation with `decimals` decimals in the mantissa, like
/// `format!("{v:.decimals$e}")`: `1.000e9`, `-2.50e-3`.
pub fn sci(v: f64, decimals: usize) -> String {
    if !v.is_finite() || v == 0.0 {
        return if v == 0.0 { format!("{}e0", fixed(0.0, decimals)) } else { fixed(v, decimals) };
    }
    let a = v.abs();
    let mut exp = crate::fmath::log10(a).floor() as i32;
    let mut mantissa = a / 10_f64.powi(exp);
    if mantissa < 1.0 {
        exp -= 1;
        mantissa *= 10.0;
    }
    // Rounding can carry the mantissa to 10.
    let d = decimals.min(MAX_DECIMALS);
    let scale = 10_f64.powi(d as i32);
    if (mantissa * scale).round_ties_even() >= 10.0 * scale {
        exp += 1;
        mantissa /= 10.0;
    }
    let sign = if v < 0.0 { "-" } else { "" };
    format!("{sign}{}e{exp}", fixed(mantissa, d))
}

/// `v` as short as it reads back exactly (up to nine decimals), like `format!("{v}")` for the
/// values the app shows: `24`, `0.5`, `1.25`.
pub fn plain(v: f64) -> String {
    if !v.is_finite() {
        return fixed(v, 0);
    }
    for d in 0..MAX_DECIMALS {
        let s = fixed(v, d);
        if crate::fmath::parse_f64(&s).is_some_and(|back| back == v) {
            return s;
        }
    }
    let s = fixed(v, MAX_DECIMALS);
    let trimmed = s.trim_end_matches('0').trim_end_matches('.');
    trimmed.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected strings are what `format!` prints for the same values (the standard library's
    /// correctly rounded decimal), written out by hand.
    #[test]
    fn fixed_matches_format() {
        assert_eq!(fixed(0.0, 1), "0.0");
        assert_eq!(fixed(1.25, 1), "1.2"); // a tie: half to even, as `{:.1}` gives
        assert_eq!(fixed(1.35, 1), "1.4"); // 1.3500000000000000888…
        assert_eq!(fixed(2.5, 0), "2");
        assert_eq!(fixed(3.5, 0), "4");
        assert_eq!(fixed(-0.04, 1), "0.0"); // rounds to zero: no "-0.0" (`{:.1}` prints "-0.0")
        assert_eq!(fixed(-1.26, 1), "-1.3");
        assert_eq!(fixed(9.999, 2), "10.00");
        assert_eq!(fixed(123456.789, 0), "123457");
        assert_eq!(fixed(0.000123, 5), "0.00012");
        assert_eq!(fixed(1e20, 0), "100000000000000000000");
        assert_eq!(fixed(f64::NAN, 2), "NaN");
        assert_eq!(fixed(f64::INFINITY, 2), "inf");
    }

    /// Against the standard library's correctly rounded `{:.N}` on 20,000 pseudo-random values:
    /// equal, except a negative value that rounds to zero (no "-0") and a scaled product that
    /// lands within 1e-6 of a tie the exact binary value does not reach.
    #[test]
    fn fixed_agrees_with_std_away_from_ties() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for i in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mag = 10_f64.powi((x % 13) as i32 - 4);
            let v = ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.3) * mag;
            let d = i % 5;
            let ours = fixed(v, d);
            let std = format!("{v:.d$}");
            let scaled = (v.abs() * 10_f64.powi(d as i32)).fract();
            let near_tie = (scaled - 0.5).abs() < 1e-6;
            let neg_zero = std.starts_with('-') && std.trim_start_matches('-').chars().all(|c| c == '0' || c == '.');
            assert!(ours == std || near_tie || (neg_zero && ours == std[1..]), "{v} at {d}: {ours} vs {std}");
        }
    }

    #[test]
    fn sci_matches_format() {
        assert_eq!(sci(1e9, 3), "1.000e9");
        assert_eq!(sci(2.5e-3, 2), "2.50e-3");
        assert_eq!(sci(9.9996e5, 3), "1.000e6");
        assert_eq!(sci(-3.0e12, 1), "-3.0e12");
        assert_eq!(sci(0.0, 1), "0.0e0");
    }

    /// Whole numbers past u64 print every digit of the double, as the standard library's
    /// formatter does (an independent implementation: Grisu/Dragon4 in `core::fmt`).
    #[test]
    fn whole_numbers_past_u64_match_format() {
        for v in [1.8e19, 1e20, 2f64.powi(70), 12_345_678_901_234_567_890_123.0, 9.007e30, 1e100, f64::MAX] {
            assert_eq!(fixed(v, 0), format!("{v:.0}"), "{v:e}");
            assert_eq!(fixed(v, 2), format!("{v:.2}"), "{v:e}");
        }
    }

    #[test]
    fn plain_reads_back() {
        assert_eq!(plain(24.0), "24");
        assert_eq!(plain(0.5), "0.5");
        assert_eq!(plain(1.25), "1.25");
        assert_eq!(plain(-7.0), "-7");
        for v in [0.1, 0.3, 123.456, 1e-4, 4096.0] {
            assert_eq!(plain(v).parse::<f64>().ok(), Some(v), "{v}");
        }
    }
}
