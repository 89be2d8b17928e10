//! Arbitrary text as a link's query string, a price-override list and a stored envelope.
#![no_main]

use gpu_advisor::recommend::cost::PriceOverrides;
use gpu_advisor::state::{stored, url};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    let p = url::parse(&s);
    // What was read renders to a link that reads back the same.
    let rendered = url::render(&p.state);
    let back = url::parse(&rendered);
    assert_eq!(back.state, p.state, "round trip changed the state; rendered: {rendered:?}");
    // A link never leaves the advisor in an error state.
    if let Err(errors) = p.state.advisor.recommend_input() {
        panic!("advisor left in an error state: {errors:?}");
    }
    // Neither of these may panic; errors are fine.
    let _ = PriceOverrides::parse(&s);
    let _ = stored::decode(&s);
});
