//! `pow`, `cbrt` and `log10` of f64: the standard library's natively (the CLI and the tests); in
//! the browser the JavaScript engine's `Math`, which the page has anyway, so the wasm carries no
//! copy of libm's (pow, cbrt with its fused multiply-add, log10: 4.9 KB before compression). Both
//! are IEEE 754 doubles; they may differ in the last bit, far below any figure shown.

/// `a` to the power `b`.
#[cfg(not(target_arch = "wasm32"))]
pub fn pow(a: f64, b: f64) -> f64 {
    a.powf(b)
}

/// `a` to the power `b`.
#[cfg(target_arch = "wasm32")]
pub fn pow(a: f64, b: f64) -> f64 {
    js_sys::Math::pow(a, b)
}

/// The cube root of `a`.
#[cfg(not(target_arch = "wasm32"))]
pub fn cbrt(a: f64) -> f64 {
    a.cbrt()
}

/// The cube root of `a`.
#[cfg(target_arch = "wasm32")]
pub fn cbrt(a: f64) -> f64 {
    js_sys::Math::cbrt(a)
}

/// The base-10 logarithm of `a`.
#[cfg(not(target_arch = "wasm32"))]
pub fn log10(a: f64) -> f64 {
    a.log10()
}

/// The base-10 logarithm of `a`.
#[cfg(target_arch = "wasm32")]
pub fn log10(a: f64) -> f64 {
    js_sys::Math::log10(a)
}

/// A decimal number as Rust's `str::parse::<f64>` reads it (digits, one point, an exponent, a
/// sign; `inf`, `infinity` and `nan` in any case); `None` otherwise.
#[cfg(not(target_arch = "wasm32"))]
pub fn parse_f64(s: &str) -> Option<f64> {
    s.parse().ok()
}

/// A decimal number as Rust's `str::parse::<f64>` reads it, read by the browser (unary `+`, as `Number`)
/// (the standard library's parser brings 10 KB of power-of-five tables): the same characters
/// are accepted (no spaces, hex or separators, which `Number` would take), and `Number`'s reading
/// of them is the correctly rounded double, as Rust's.
#[cfg(target_arch = "wasm32")]
pub fn parse_f64(s: &str) -> Option<f64> {
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let special = match body.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    };
    if let Some(v) = special {
        return Some(if negative { -v } else { v });
    }
    let plain = !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    let v = if plain { wasm_bindgen::JsValue::from_str(s).unchecked_into_f64() } else { f64::NAN };
    (!v.is_nan()).then_some(v)
}
