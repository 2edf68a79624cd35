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
        })
    }

    fn line(&self, text: &str) {
        let line = format!("{} {text}\n", utc_timestamp(SystemTime::now()));
        if self.echo {
            eprint!("{line}");
        }
        if let Some(sink) = &self.sink
            && let Ok(mut w) = sink.lock()
        {
            let _ = w.write_all(line.as_bytes());
            let _ = w.flush();
        }
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
    fn timestamps() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_709_251_199_250);
        assert_eq!(utc_timestamp(t), "2024-02-29T23:59:59.250Z");
    }
}
