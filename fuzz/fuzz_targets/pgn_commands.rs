#![no_main]
//! Embedded commands in comment text: never panic; parse, write, parse again
//! gives the same commands; typed commands written canonically read back
//! equal; stripping keeps no command the text did not build anew.
use gamerec::pgn::commands::{KnownCommand, commands, parse_commands, strip_commands};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = parse_commands(text);
    let written: String = parsed.iter().map(ToString::to_string).collect();
    assert_eq!(parse_commands(&written), parsed, "{written:?}");
    for c in commands(text) {
        assert!(text[c.span.clone()].starts_with("[%") && text[c.span.clone()].ends_with(']'));
        if let Some(Ok(typed)) = KnownCommand::from_ref(&c) {
            let again = KnownCommand::from_command(&typed.to_command());
            assert_eq!(again, Some(Ok(typed)));
        }
    }
    let stripped = strip_commands(text);
    if parsed.is_empty() {
        assert_eq!(stripped, text);
    }
    assert!(stripped.len() <= text.len() + parsed.len());
});
