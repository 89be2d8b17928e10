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
