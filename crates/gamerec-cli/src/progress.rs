//! A progress bar on stderr, shown only when stderr is a terminal.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{ProgressBar, ProgressStyle};

/// Progress over input bytes; silent unless stderr is a terminal.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// Raw input bytes read so far (feed it to [`crate::input::Input::open`]).
    pub read_bytes: Arc<AtomicU64>,
}

impl Progress {
    /// A bar over `total` bytes (unknown: a spinner).
    pub fn new(total: Option<u64>) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = match total {
                Some(t) => ProgressBar::new(t),
                None => ProgressBar::new_spinner(),
            };
            if let Ok(style) = ProgressStyle::with_template(
                "{bar:40} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} {msg}",
            ) {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            read_bytes: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Refreshes the bar; `games` so far shown as its message.
    pub fn update(&self, games: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(self.read_bytes.load(Ordering::Relaxed));
            bar.set_message(format!("{games} games"));
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
