//! Opening inputs: the one place that turns a path into bytes to decode.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Opens `path` (`-` is standard input) and undoes gzip, bzip2 or zstd
/// compression, recognised by its magic bytes.
pub fn open(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    let raw: Box<dyn Read + Send> = if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path)?)
    };
    let mut buffered = BufReader::with_capacity(1 << 16, raw);
    let head = buffered.fill_buf()?;
    Ok(if head.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::MultiGzDecoder::new(buffered))
    } else if head.starts_with(b"BZh") {
        Box::new(bzip2::read::MultiBzDecoder::new(buffered))
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Box::new(zstd::stream::read::Decoder::with_buffer(buffered)?)
    } else {
        Box::new(buffered)
    })
}
