#![no_main]
//! EPD reader: never panics; every diagnostic points into its line; every
//! record read writes back to a line that reads to the same record, and
//! normalisation is idempotent.
use gamerec::epd::{self, EpdRecord, normalized_line};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = epd::decode(data);
    for line in epd::read_lines(&text) {
        for d in &line.diagnostics {
            assert_eq!(d.location.line, line.number);
            assert!(d.location.column >= 1);
            assert!(d.location.column as usize <= line.text.len() + 1);
        }
        if let Some(record) = line.record {
            let written = record.to_string();
            let back: EpdRecord = written
                .parse()
                .unwrap_or_else(|e| panic!("written record unreadable: {e}\n{written}"));
            assert_eq!(back, record, "{written}");
            let once = normalized_line(&record);
            let again: EpdRecord = once.parse().expect("normalized line reads");
            assert_eq!(normalized_line(&again), once);
        }
    }
});
