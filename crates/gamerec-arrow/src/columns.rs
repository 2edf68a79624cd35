//! Growable column buffers for the per-ply values of a batch. Unlike Arrow's
//! builders they can be cut back to an earlier length, so a game that turns
//! out to fail after some of its plies were stored leaves nothing behind,
//! and they turn into arrays without copying.

use std::sync::Arc;

use arrow_array::types::ArrowPrimitiveType;
use arrow_array::{ArrayRef, ListArray, PrimitiveArray, StringArray};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::Field;

/// UTF-8 values: their bytes end to end and where each ends.
#[derive(Debug)]
pub(crate) struct Strings {
    /// The bytes of all values; the value being written is at the end.
    pub(crate) bytes: Vec<u8>,
    offsets: Vec<i32>,
}

impl Default for Strings {
    fn default() -> Strings {
        Strings {
            bytes: Vec::new(),
            offsets: vec![0],
        }
    }
}

impl Strings {
    /// Values stored.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Makes room for `values` more values of `bytes` bytes in all.
    pub(crate) fn reserve(&mut self, values: usize, bytes: usize) {
        self.offsets.reserve(values);
        self.bytes.reserve(bytes);
    }

    /// Where the value being written starts in [`Strings::bytes`].
    pub(crate) fn value_start(&self) -> usize {
        self.offsets.last().map_or(0, |&o| o as usize)
    }

    /// Ends the value written into [`Strings::bytes`] since the last one.
    pub(crate) fn end_value(&mut self) {
        self.offsets.push(offset(self.bytes.len()));
    }

    /// Stores one value.
    pub(crate) fn push(&mut self, value: &[u8]) {
        self.bytes.extend_from_slice(value);
        self.end_value();
    }

    /// Keeps the first `len` values (and drops any value being written).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.offsets.truncate(len + 1);
        self.bytes.truncate(self.value_start());
    }

    /// The values as an array (checked to be UTF-8).
    pub(crate) fn finish(self) -> StringArray {
        StringArray::try_new(
            OffsetBuffer::new(ScalarBuffer::from(self.offsets)),
            self.bytes.into(),
            None,
        )
        .expect("values are written from UTF-8 text")
    }
}

impl Strings {
    /// The values as an array, not checked again: for columns whose bytes
    /// are ASCII by construction (FEN and UCI letters and digits, written
    /// here from the board and the move, never copied from the input).
    pub(crate) fn finish_ascii(self) -> StringArray {
        debug_assert!(self.bytes.is_ascii(), "ASCII by construction");
        // SAFETY: ASCII is UTF-8, and the offsets are increasing and end at
        // the bytes' length (`end_value` pushes each value's end; `truncate`
        // cuts both together).
        unsafe { self.finish_unchecked(None) }
    }

    /// The values as an array with `nulls`, nothing checked.
    ///
    /// # Safety
    ///
    /// The bytes are UTF-8, every offset is at a character boundary, and
    /// `nulls` (if any) has one bit per value.
    unsafe fn finish_unchecked(self, nulls: Option<NullBuffer>) -> StringArray {
        // SAFETY: the offsets are increasing from 0 and end at the bytes'
        // length (see `end_value`, `truncate` and `OptionalStrings::push_n`);
        // the rest is the caller's.
        unsafe {
            StringArray::new_unchecked(
                OffsetBuffer::new_unchecked(ScalarBuffer::from(self.offsets)),
                self.bytes.into(),
                nulls,
            )
        }
    }
}

/// Nullable UTF-8 values.
#[derive(Debug, Default)]
pub(crate) struct OptionalStrings {
    values: Strings,
    valid: Validity,
}

impl OptionalStrings {
    /// Stores `n` copies of one value or `n` nulls.
    pub(crate) fn push_n(&mut self, value: Option<&str>, n: usize) {
        let bytes = value.unwrap_or_default().as_bytes();
        let values = &mut self.values;
        let (start, len) = (values.bytes.len(), bytes.len());
        // The last end checked once; the ends before it are smaller.
        offset(start + len * n);
        values
            .offsets
            .extend((1..=n).map(|i| (start + len * i) as i32));
        // The value once, then what is written so far copied after itself.
        values.bytes.reserve(len * n);
        if n > 0 {
            values.bytes.extend_from_slice(bytes);
            let (mut written, total) = (len, len * n);
            while written < total {
                let chunk = written.min(total - written);
                values.bytes.extend_from_within(start..start + chunk);
                written += chunk;
            }
        }
        self.valid.push_n(value.is_some(), n);
    }

    /// Makes room for `values` more values of `bytes` bytes in all.
    pub(crate) fn reserve(&mut self, values: usize, bytes: usize) {
        self.values.reserve(values, bytes);
    }

    /// The values as an array, not checked again: every value was a `str`.
    pub(crate) fn finish(self) -> StringArray {
        debug_assert!(std::str::from_utf8(&self.values.bytes).is_ok());
        // SAFETY: the bytes are whole `str`s end to end (`push_n` is the
        // only writer), so they are UTF-8 and each offset, at the end of
        // one, is a character boundary; the validity has a bit per value.
        unsafe { self.values.finish_unchecked(self.valid.finish()) }
    }
}

/// An offset of an Arrow array with 32-bit offsets.
pub(crate) fn offset(n: usize) -> i32 {
    i32::try_from(n).expect("a record batch holds less than 2 GiB of one column")
}

/// Nullable primitive values.
#[derive(Debug)]
pub(crate) struct Optionals<T: ArrowPrimitiveType> {
    values: Vec<T::Native>,
    valid: Validity,
}

impl<T: ArrowPrimitiveType> Default for Optionals<T> {
    fn default() -> Self {
        Optionals {
            values: Vec::new(),
            valid: Validity::default(),
        }
    }
}

impl<T: ArrowPrimitiveType> Optionals<T> {
    /// Stores one value.
    pub(crate) fn push(&mut self, value: Option<T::Native>) {
        self.valid.push(value.is_some());
        self.values.push(value.unwrap_or_default());
    }

    /// Stores `n` copies of one value.
    pub(crate) fn push_n(&mut self, value: Option<T::Native>, n: usize) {
        self.values
            .extend(std::iter::repeat_n(value.unwrap_or_default(), n));
        self.valid.push_n(value.is_some(), n);
    }

    /// Keeps the first `len` values.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.values.truncate(len);
        self.valid.truncate(len);
    }

    /// Makes room for `n` more values.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.values.reserve(n);
        self.valid.words.reserve(n.div_ceil(64));
    }

    /// The values as an array.
    pub(crate) fn finish(self) -> PrimitiveArray<T> {
        PrimitiveArray::new(ScalarBuffer::from(self.values), self.valid.finish())
    }
}

/// A validity bitmap of the nullable columns, built a bit or a run at a
/// time: one bit set or not and a word started every 64, where Arrow's
/// builder checks and grows its buffer on every bit.
#[derive(Debug, Default)]
struct Validity {
    /// Bit `i % 64` of word `i / 64`: value `i` is present.
    words: Vec<u64>,
    len: usize,
}

impl Validity {
    fn push(&mut self, valid: bool) {
        let bit = self.len % 64;
        if bit == 0 {
            self.words.push(0);
        }
        if let Some(word) = self.words.last_mut() {
            *word |= u64::from(valid) << bit;
        }
        self.len += 1;
    }

    fn push_n(&mut self, valid: bool, n: usize) {
        let end = self.len + n;
        self.words.resize(end.div_ceil(64), 0);
        if valid {
            let mut at = self.len;
            while at < end {
                let (word, bit) = (at / 64, at % 64);
                let count = (64 - bit).min(end - at);
                self.words[word] |= (u64::MAX >> (64 - count)) << bit;
                at += count;
            }
        }
        self.len = end;
    }

    fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        self.len = len;
        self.words.truncate(len.div_ceil(64));
        if let Some(word) = self.words.last_mut()
            && !len.is_multiple_of(64)
        {
            *word &= (1u64 << (len % 64)) - 1;
        }
    }

    /// The bitmap, or none when every value is present.
    fn finish(self) -> Option<NullBuffer> {
        let words: Vec<u64> = self.words.into_iter().map(u64::to_le).collect();
        let nulls = NullBuffer::new(BooleanBuffer::new(Buffer::from_vec(words), 0, self.len));
        (nulls.null_count() > 0).then_some(nulls)
    }
}

/// Lists of `u8` (the NAGs of one ply).
#[derive(Debug)]
pub(crate) struct ByteLists {
    values: Vec<u8>,
    offsets: Vec<i32>,
}

impl Default for ByteLists {
    fn default() -> ByteLists {
        ByteLists {
            values: Vec::new(),
            offsets: vec![0],
        }
    }
}

impl ByteLists {
    /// Stores one list.
    pub(crate) fn push(&mut self, list: &[u8]) {
        self.values.extend_from_slice(list);
        self.offsets.push(offset(self.values.len()));
    }

    /// Makes room for `n` more lists.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.offsets.reserve(n);
    }

    /// Keeps the first `len` lists.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.offsets.truncate(len + 1);
        self.values
            .truncate(self.offsets.last().map_or(0, |&o| o as usize));
    }

    /// The lists as an array of `list<uint8>`.
    pub(crate) fn finish(self) -> ListArray {
        let values = PrimitiveArray::<arrow_array::types::UInt8Type>::new(
            ScalarBuffer::from(self.values),
            None,
        );
        list(self.offsets, Arc::new(values))
    }
}

/// A list array (items nullable, as Arrow's `ListBuilder` makes them) over
/// `values`, cut by `offsets`.
pub(crate) fn list(offsets: Vec<i32>, values: ArrayRef) -> ListArray {
    let field = Arc::new(Field::new("item", values.data_type().clone(), true));
    ListArray::new(
        field,
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        values,
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_array::types::Int32Type;

    /// Runs of one string (empty, short, long, not ASCII; none to many)
    /// hold it on every row, after whatever came before.
    #[test]
    fn optional_strings_push_n_repeats_the_value() {
        let mut ours = OptionalStrings::default();
        let mut expected: Vec<Option<String>> = Vec::new();
        for (value, n) in [
            (Some("1-0"), 7),
            (None, 3),
            (Some(""), 4),
            (Some("180+2"), 0),
            (Some("a longer value, repeated"), 65),
            (Some("x"), 1),
            (Some("½-½, Ärger"), 5),
        ] {
            ours.push_n(value, n);
            expected.extend(std::iter::repeat_n(value.map(String::from), n));
        }
        let array = ours.finish();
        array.to_data().validate_full().unwrap();
        let got: Vec<Option<String>> = array.iter().map(|v| v.map(String::from)).collect();
        assert_eq!(got, expected);
    }

    /// Pushes, runs and cuts give the values and nulls Arrow's builder
    /// gives for the same calls, across word boundaries.
    #[test]
    fn optionals_match_arrows_builder() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..200 {
            let mut ours = Optionals::<Int32Type>::default();
            let mut expected: Vec<Option<i32>> = Vec::new();
            for _ in 0..next(40) {
                let value = (round % 3 != 0 || next(2) == 0).then(|| next(1000) as i32);
                match next(3) {
                    0 => {
                        let n = next(150) as usize;
                        ours.push_n(value, n);
                        expected.extend(std::iter::repeat_n(value, n));
                    }
                    1 => {
                        let len = next(expected.len() as u64 + 1) as usize;
                        ours.truncate(len);
                        expected.truncate(len);
                    }
                    _ => {
                        ours.push(value);
                        expected.push(value);
                    }
                }
            }
            let array = ours.finish();
            let reference = PrimitiveArray::<Int32Type>::from(expected.clone());
            assert_eq!(array.len(), reference.len());
            assert_eq!(array.null_count(), reference.null_count());
            assert_eq!(array.nulls().is_some(), reference.null_count() > 0);
            let values: Vec<Option<i32>> = array.iter().collect();
            assert_eq!(values, expected);
        }
    }
}
