#![no_main]
//! EPD reader: never panics; every diagnostic points into its line; every
//! record read writes back to a line that reads to the same record, and
//! normalisation is idempotent. Read as a stream (`read_lines_from`, through
//! a small buffer), UTF-8 text gives the lines of the text read whole.
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
    // The stream decodes each line by itself: the same as the whole text
    // when that is UTF-8 with no byte-order mark past its start.
    let bom = '\u{feff}';
    if let Ok(whole) = std::str::from_utf8(data)
        && !whole.strip_prefix(bom).unwrap_or(whole).contains(bom)
    {
        let input = std::io::BufReader::with_capacity(5, data);
        let streamed: Vec<_> = epd::reader::read_lines_from(input)
            .map(|l| l.expect("bytes in memory read"))
            .map(|l| (l.number, l.text, l.record, l.diagnostics))
            .collect();
        let read: Vec<_> = epd::read_lines(&text)
            .map(|l| (l.number, l.text.to_string(), l.record, l.diagnostics))
            .collect();
        assert_eq!(streamed, read);
    }
});
