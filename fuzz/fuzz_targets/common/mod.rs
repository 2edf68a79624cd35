//! What several fuzz targets share.

use gamerec::shakmaty::uci::UciMove;
use gamerec::shakmaty::{Chess, Position};

/// The positions after each line of UCI moves from the start (fixed,
/// legal lines of a target).
#[allow(dead_code)]
pub fn play_lines(lines: &[&str]) -> Vec<Chess> {
    lines
        .iter()
        .map(|line| {
            let mut pos = Chess::default();
            for m in line.split_whitespace() {
                let mv = m
                    .parse::<UciMove>()
                    .expect("fixed move")
                    .to_move(&pos)
                    .expect("legal fixed move");
                pos.play_unchecked(mv);
            }
            pos
        })
        .collect()
}

/// Replaces libfuzzer-sys's panic hook, once per process, so that panics
/// inside the crates whose paths contain one of `caught` (turned into
/// errors by gamerec's `catch_unwind`) reach that guard; any other panic,
/// on any thread, still aborts and is reported as a crash.
#[allow(dead_code)]
pub fn abort_on_panics_outside(caught: &'static [&'static str]) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(move |info| {
            let at = info.location().map(ToString::to_string).unwrap_or_default();
            eprintln!("panic at {at}: {info}");
            if !caught.iter().any(|c| at.contains(c)) {
                std::process::abort();
            }
        }));
    });
}

/// Longest message a reader may give, whatever its input.
#[allow(dead_code)]
pub const MAX_MESSAGE: usize = 1024;

/// Asserts a reader's message `message` (for `what`) is shorter than
/// [`MAX_MESSAGE`].
#[allow(dead_code)]
pub fn check_message(what: &str, message: &str) {
    assert!(
        message.len() < MAX_MESSAGE,
        "{what}: {} bytes: {}",
        message.len(),
        gamerec::excerpt::excerpt(message)
    );
}
