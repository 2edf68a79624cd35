//! The CBI index (1993 text, section 1): big-endian longwords.
//!
//! Longword 0 holds the number of games + 1; longword `j` (1-based) holds the
//! offset of game `j` plus `j + 1`; the last longword is the first free
//! position of the CBF file, coded the same way.

/// A decoded index.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Index {
    /// Offset of each game in the CBF file.
    pub offsets: Vec<u32>,
    /// The first free position in the CBF file.
    pub free: u32,
}

/// Why an index could not be read in full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexError {
    /// Byte offset in the CBI file.
    pub offset: u64,
    /// What is wrong.
    pub message: String,
}

fn longword(data: &[u8], i: usize) -> Option<u32> {
    let b = data.get(i * 4..i * 4 + 4)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Reads an index. A short or inconsistent index gives the offsets that
/// could be read and an error.
pub fn read_index(data: &[u8]) -> (Index, Option<IndexError>) {
    let mut index = Index::default();
    let Some(first) = longword(data, 0) else {
        return (
            index,
            Some(IndexError {
                offset: 0,
                message: "index shorter than its 4-byte game count".into(),
            }),
        );
    };
    if first == 0 {
        return (
            index,
            Some(IndexError {
                offset: 0,
                message: "game count + 1 is 0, expected at least 1".into(),
            }),
        );
    }
    let games = (first - 1) as usize;
    // Bound the allocation by what the file can hold.
    let available = (data.len() / 4).saturating_sub(1);
    index.offsets.reserve(games.min(available));
    let mut error = None;
    for j in 1..=games + 1 {
        let Some(value) = longword(data, j) else {
            error = Some(IndexError {
                offset: (j * 4) as u64,
                message: format!(
                    "index ends after {} of {} offsets (expected {} bytes)",
                    j - 1,
                    games + 1,
                    (games + 2) * 4
                ),
            });
            break;
        };
        let Some(offset) = value.checked_sub(j as u32 + 1) else {
            error = Some(IndexError {
                offset: (j * 4) as u64,
                message: format!("offset entry {value} is smaller than {}", j + 1),
            });
            break;
        };
        if j == games + 1 {
            index.free = offset;
        } else {
            index.offsets.push(offset);
        }
    }
    if error.is_none() && data.len() > (games + 2) * 4 {
        error = Some(IndexError {
            offset: ((games + 2) * 4) as u64,
            message: format!(
                "{} bytes after the last index entry",
                data.len() - (games + 2) * 4
            ),
        });
    }
    (index, error)
}

/// Writes an index for games at `offsets` with first free position `free`.
pub fn write_index(offsets: &[u32], free: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((offsets.len() + 2) * 4);
    out.extend_from_slice(&(offsets.len() as u32 + 1).to_be_bytes());
    for (i, &o) in offsets.iter().chain(std::iter::once(&free)).enumerate() {
        out.extend_from_slice(&o.wrapping_add(i as u32 + 2).to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text's example: 3 games of 48, 39 and 35 bytes.
    const SPEC_INDEX: [u8; 20] = [
        0, 0, 0, 4, // 3 games
        0, 0, 0, 2, // at offset 2 - 2 = 0
        0, 0, 0, 51, // at offset 51 - 3 = 48
        0, 0, 0, 91, // at offset 91 - 4 = 87
        0, 0, 0, 127, // first free 127 - 5 = 122
    ];

    #[test]
    fn spec_example_reads() {
        let (index, err) = read_index(&SPEC_INDEX);
        assert_eq!(err, None);
        assert_eq!(index.offsets, vec![0, 48, 87]);
        assert_eq!(index.free, 122);
    }

    #[test]
    fn spec_example_writes() {
        assert_eq!(write_index(&[0, 48, 87], 122), SPEC_INDEX.to_vec());
    }

    #[test]
    fn huge_count_in_a_short_file_is_an_error_not_an_allocation() {
        let (index, err) = read_index(&[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 2]);
        assert_eq!(index.offsets, vec![0]);
        assert!(err.expect("error").message.contains("index ends"));
    }

    #[test]
    fn bad_entries_are_errors() {
        assert!(read_index(&[0, 0]).1.is_some());
        assert!(read_index(&[0, 0, 0, 0]).1.is_some());
        assert!(
            read_index(&[0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 9])
                .1
                .is_some()
        );
        let (index, err) = read_index(&[0, 0, 0, 1, 0, 0, 0, 2]);
        assert_eq!((index.offsets.len(), index.free, err), (0, 0, None));
    }
}
