//! Inputs the `sgf_parser` fuzz target found, kept as regression tests:
//! parse, write and parse again gives the same collection.

use gamerec::sgf::{self, ParseOptions, WriteOptions};

fn round_trips(data: &[u8]) {
    let parsed = sgf::parse(data, &ParseOptions::default());
    let out = sgf::write(&parsed.collection, &WriteOptions::default());
    let again = sgf::parse(&out, &ParseOptions::default());
    assert!(
        again.collection == parsed.collection,
        "round trip changed the collection\nfirst:  {:?}\nwritten: {:?}\nsecond: {:?}",
        parsed.collection,
        String::from_utf8_lossy(&out),
        again.collection
    );
    let out2 = sgf::write(&again.collection, &WriteOptions::default());
    assert_eq!(out, out2, "writing is not idempotent");
}

#[test]
fn charset_property_among_binary_bytes_round_trips() {
    round_trips(include_bytes!(
        "data/fuzz/sgf_parser-round-trip-e8f4da57.sgf"
    ));
}
