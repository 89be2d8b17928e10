//! What the two log-scale SVG charts (throughput against cost, the serving frontier) share:
//! the decade ticks of an axis.

/// The powers of ten inside `lo..=hi` (log10 values); the two ends when the range holds none, so
/// an axis is never unlabelled.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let v: Vec<f64> = (lo.floor() as i32..=hi.ceil() as i32).map(|e| 10f64.powi(e)).filter(|v| crate::fmath::log10(*v) >= lo && crate::fmath::log10(*v) <= hi).collect();
    if v.is_empty() {
        vec![crate::fmath::pow(10.0, lo + 0.05), crate::fmath::pow(10.0, hi - 0.05)]
    } else {
        v
    }
}
