#![no_main]
//! The referee's record parser (`gamerec_referee::wire::read_record`), fed
//! each line of the input as the connection hands it over: never panics;
//! an accepted record writes back to a line the parser reads to the same
//! record; an illegal move names a token of its line; messages stay small
//! whatever the line holds.
use gamerec_referee::wire::{MAX_RECORD_LEN, WireError, read_record, refcom, refreq};
use libfuzzer_sys::fuzz_target;

#[path = "common/mod.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    for raw in data.split(|&b| b == b'\n') {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let Ok(line) = std::str::from_utf8(raw) else {
            continue;
        };
        match read_record(line) {
            Ok(record) => {
                assert!(line.len() <= MAX_RECORD_LEN);
                let _ = (refcom(&record), refreq(&record), record.op("tcsi"));
                let written = record.to_string();
                let back = read_record(&written)
                    .unwrap_or_else(|e| panic!("written record unreadable: {e}\n{written}"));
                assert_eq!(back, record, "{written}");
            }
            Err(WireError::IllegalMove { mv, message }) => {
                assert!(line.contains(mv.as_str()), "{mv} not in {line}");
                common::check_message("record", &message);
            }
            Err(WireError::Malformed(message)) => {
                common::check_message("record", &message);
            }
        }
    }
});
