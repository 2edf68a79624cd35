//! The event log: every record sent and received, with UTC timestamps.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::wire::Record;

/// A shared, line-oriented log. Cloning shares the file.
#[derive(Debug, Clone, Default)]
pub struct EventLog {
    sink: Option<Arc<Mutex<BufWriter<File>>>>,
    echo: bool,
    failed: Arc<std::sync::atomic::AtomicBool>,
}

impl EventLog {
    /// A log that discards everything.
    pub fn disabled() -> EventLog {
        EventLog::default()
    }

    /// A log appending to `path`; with `echo`, lines also go to stderr.
    pub fn open(path: &Path, echo: bool) -> std::io::Result<EventLog> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(EventLog {
            sink: Some(Arc::new(Mutex::new(BufWriter::new(file)))),
            echo,
            failed: Arc::default(),
        })
    }

    fn line(&self, text: &str) {
        let line = format!(
            "{} {}\n",
            utc_timestamp(SystemTime::now()),
            escape_controls(text)
        );
        if self.echo {
            gamerec::say_text!("{line}");
        }
        if let Some(sink) = &self.sink
            && let Ok(mut w) = sink.lock()
        {
            // A log that cannot be written (a full disk) must not stop the
            // event; the failure is counted and told once on stderr.
            if w.write_all(line.as_bytes())
                .and_then(|()| w.flush())
                .is_err()
                && !self.failed.swap(true, std::sync::atomic::Ordering::Relaxed)
            {
                gamerec::say!("argus: the log cannot be written; lines are lost");
            }
        }
    }

    /// Whether a write to the log has failed.
    pub fn has_failed(&self) -> bool {
        self.failed.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A record sent to `client`.
    pub fn sent(&self, client: &str, record: &Record) {
        self.line(&format!("-> {client}: {record}"));
    }

    /// A line received from `client`.
    pub fn received(&self, client: &str, line: &str) {
        self.line(&format!("<- {client}: {line}"));
    }

    /// A note from the referee.
    pub fn note(&self, text: &str) {
        self.line(&format!("** {text}"));
    }
}

/// `text` with control characters (ESC, BEL, CR, LF, ...) escaped as
/// `\xNN` / `\u{NN}`, so a client's bytes cannot drive the terminal or
/// forge log lines.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_ascii_control() {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else if c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for `t`.
pub fn utc_timestamp(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (y, m, day) = civil_from_days((secs / 86_400) as i64);
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        secs / 3600 % 24,
        secs / 60 % 60,
        secs % 60,
        d.subsec_millis()
    )
}

/// Today's date in PGN form `YYYY.MM.DD` (UTC).
pub fn pgn_date_today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_controls("plain"), "plain");
        assert_eq!(
            escape_controls("a\x1b[2Jb\x07c\rd\u{85}"),
            "a\\x1b[2Jb\\x07c\\x0dd\\u{85}"
        );
    }

    #[test]
    fn timestamps() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_709_251_199_250);
        assert_eq!(utc_timestamp(t), "2024-02-29T23:59:59.250Z");
    }
}
