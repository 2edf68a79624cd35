//! Serial mode (EPD 3.2's null-modem variant): a client over a pair of
//! pipes or a serial/pty device instead of TCP.
//!
//! A pair is written `IN:OUT` (read records from IN, write to OUT) or a
//! single `PATH` used both ways (a tty device). Opening a FIFO waits until
//! the other side opens it too.

use tokio::fs::OpenOptions;
use tokio::io::{AsyncRead, AsyncWrite};

/// Splits `IN:OUT` (or `PATH`) into the two paths.
pub fn split_pair(pair: &str) -> (&str, &str) {
    pair.split_once(':').unwrap_or((pair, pair))
}

/// Opens the two ends as one byte stream (records are read from the first).
pub async fn open(
    pair: &str,
) -> std::io::Result<impl AsyncRead + AsyncWrite + Send + Unpin + 'static> {
    let (input, output) = split_pair(pair);
    let mut read = OpenOptions::new();
    read.read(true);
    let mut write = OpenOptions::new();
    write.write(true);
    let (reader, writer) = tokio::try_join!(read.open(input), write.open(output))?;
    Ok(tokio::io::join(reader, writer))
}
