#![no_main]
// Placeholder: the owning issue replaces this with a property-asserting target.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = data;
});
