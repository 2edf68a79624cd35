//! The PGN import-format reader: a zero-copy tokenizer and game parser over
//! a byte slice ([`SliceReader`]), driving a [`Visitor`].
//!
//! Every token of the standard's section 7 is recognised. Import freedom:
//! any whitespace (tabs, CR, LF, CRLF, VT, FF), several tag pairs on one line
//! or one pair over several lines, move numbers optional and with any number
//! of periods (`12...`), a BOM between games, `%` escape lines in column 1,
//! games without tags or without moves, a missing or mismatched termination
//! marker (warnings). Nothing recurses: variations are counted, not nested
//! calls, so 100,000 `(` cost a counter, not a stack.
//!
//! Errors fail the current game: the reader records one error, keeps
//! tokenizing the rest of the game silently (so comments and strings still
//! delimit correctly), and the next call starts at the next game.

use std::ops::ControlFlow;

use memchr::{memchr, memchr2};

use super::visitor::{Flow, GameEnd, GameStart, Problem, RawValue, Skip, Stop, Visitor};
use crate::diag::{Code, Severity};
use crate::model::GameResult;

const WS: u8 = 1;
const MOVE: u8 = 2;
const DIGIT: u8 = 4;
const NAME: u8 = 8;
/// Bytes that end the plain run of a tag value: `"`, backslash, line ends.
const VALUE_STOP: u8 = 16;

/// Byte classes: whitespace, move-token bytes, digits, tag-name bytes.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let mut c = 0;
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
            c |= WS;
        }
        if b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'_' | b'+' | b'#' | b'=' | b':' | b'-' | b'!' | b'?' | b'/' | b'@' | b'~'
            )
            || b >= 0x80
        {
            c |= MOVE;
        }
        if b.is_ascii_digit() {
            c |= DIGIT;
        }
        if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'#' | b'=' | b':' | b'-') {
            c |= NAME;
        }
        if matches!(b, b'"' | b'\\' | b'\n' | b'\r') {
            c |= VALUE_STOP;
        }
        t[i] = c;
        i += 1;
    }
    t
};

#[inline(always)]
fn is(b: u8, class: u8) -> bool {
    CLASS[b as usize] & class != 0
}

/// The end of the run of `class` bytes of `data` that starts at `at`. The
/// scan keeps its index in a register (a loop on `self.pos` stores it at
/// every byte) and looks at eight bytes per bounds check: the tests of a
/// fixed-size block unroll to a load, a table test and a branch a byte.
#[inline(always)]
fn run_end(data: &[u8], at: usize, class: u8) -> usize {
    scan(data, at, |b| CLASS[b as usize] & class == 0)
}

/// The end of the whitespace run of `data` that starts at `at`, as
/// [`run_end`]: the run between two tokens is mostly one byte (a space or a
/// line end), so the first two bytes are tested alone, without the block
/// scan's set-up.
#[inline(always)]
fn ws_end(data: &[u8], at: usize) -> usize {
    match data.get(at) {
        Some(&b) if is(b, WS) => {}
        _ => return at,
    }
    match data.get(at + 1) {
        Some(&b) if is(b, WS) => run_end(data, at + 2, WS),
        _ => at + 1,
    }
}

/// The first byte of `class` in `data` from `at` (or the end of `data`).
#[inline(always)]
fn find_class(data: &[u8], at: usize, class: u8) -> usize {
    scan(data, at, |b| CLASS[b as usize] & class != 0)
}

/// The first position from `at` whose byte satisfies `stop` (or the end of
/// `data`), eight bytes per step while eight remain.
#[inline(always)]
fn scan(data: &[u8], mut at: usize, stop: impl Fn(u8) -> bool) -> usize {
    while let Some(block) = data.get(at..at.wrapping_add(8)) {
        let &[b0, b1, b2, b3, b4, b5, b6, b7] = block else {
            break;
        };
        // Written out: the compiler keeps an iterator over a block a loop.
        if stop(b0) {
            return at;
        }
        if stop(b1) {
            return at + 1;
        }
        if stop(b2) {
            return at + 2;
        }
        if stop(b3) {
            return at + 3;
        }
        if stop(b4) {
            return at + 4;
        }
        if stop(b5) {
            return at + 5;
        }
        if stop(b6) {
            return at + 6;
        }
        if stop(b7) {
            return at + 7;
        }
        at += 8;
    }
    while let Some(&b) = data.get(at) {
        if stop(b) {
            break;
        }
        at += 1;
    }
    at
}

/// Finds the `}` that ends a brace comment, and the end of a tag value's
/// plain run: with AVX-512 or AVX2 where the processor has them
/// ([`simd_brace`]), elsewhere by `memchr` and the byte scan.
#[derive(Clone, Copy)]
struct BraceFinder {
    #[cfg(target_arch = "x86_64")]
    simd: Simd,
}

#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, PartialEq, Eq)]
enum Simd {
    None,
    Avx2,
    Avx512,
}

impl BraceFinder {
    fn new() -> BraceFinder {
        BraceFinder {
            #[cfg(target_arch = "x86_64")]
            simd: if std::arch::is_x86_feature_detected!("avx512bw") {
                Simd::Avx512
            } else if std::arch::is_x86_feature_detected!("avx2") {
                Simd::Avx2
            } else {
                Simd::None
            },
        }
    }

    /// The offset of the first `}` in `haystack`.
    #[inline(always)]
    fn find(&self, haystack: &[u8]) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        match self.simd {
            // SAFETY: the processor has AVX-512BW (detected in `new`).
            Simd::Avx512 => return unsafe { simd_brace::find_avx512(haystack) },
            // SAFETY: the processor has AVX2 (detected in `new`).
            Simd::Avx2 => return unsafe { simd_brace::find_avx2(haystack) },
            Simd::None => {}
        }
        memchr(b'}', haystack)
    }

    /// The first byte of a tag value's plain run to stop at (`"`, `\`,
    /// LF, CR) from `at`, or the end of `data`: where the processor has
    /// AVX2, the first 64 bytes (tag values are mostly shorter) in one
    /// step, the stop located by its bit, not by a branch a byte.
    #[inline(always)]
    fn value_stop(&self, data: &[u8], at: usize) -> usize {
        #[cfg(target_arch = "x86_64")]
        if let Some(block) = data.get(at..at.wrapping_add(64))
            && self.simd != Simd::None
        {
            let block: &[u8; 64] = block.try_into().expect("64 bytes");
            let stops = match self.simd {
                // SAFETY: the processor has AVX-512BW (detected in `new`).
                Simd::Avx512 => unsafe { simd_brace::value_stops_avx512(block) },
                // SAFETY: the processor has AVX2 (detected in `new`).
                _ => unsafe { simd_brace::value_stops_avx2(block) },
            };
            if stops != 0 {
                return at + stops.trailing_zeros() as usize;
            }
            return find_class(data, at + 64, VALUE_STOP);
        }
        find_class(data, at, VALUE_STOP)
    }
}

/// The `}` search, shaped for engine comments (TCEC: 60 to 400 bytes,
/// most of them 130 to 320, after nearly every move). memchr's searcher
/// leaves its loop of 128 bytes and then picks the vector that matched by
/// branches that depend on where the `}` is: two mispredicted branches a
/// comment, the hottest instructions of its profile. Here the first 64
/// bytes are tested alone (short comments: lichess clocks, `{ book }`),
/// then the rest of a window at once (to 384 bytes with AVX-512, to 256
/// with AVX2, where each block costs twice the instructions), the first
/// match located by selects: one branch whose outcome is the same for
/// most comments of a file. Beyond the window, 64 bytes a step;
/// haystacks shorter than the window (the end of the input) go to
/// `memchr`.
#[cfg(target_arch = "x86_64")]
mod simd_brace {
    use std::arch::x86_64::{
        __m256i, __m512i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8, _mm512_cmpeq_epi8_mask, _mm512_loadu_si512,
        _mm512_set1_epi8,
    };

    /// The 64 bytes of `hay` at `at` (`at + 64` is at most its length).
    #[inline(always)]
    fn block(hay: &[u8], at: usize) -> &[u8; 64] {
        hay[at..at + 64].try_into().expect("64 bytes")
    }

    /// The `}` bytes of the 64 bytes of `hay` at `at`, as bits (AVX2).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn mask_avx2(hay: &[u8], at: usize) -> u64 {
        let p = block(hay, at).as_ptr().cast::<__m256i>();
        // SAFETY: both 32-byte loads are inside the block (unaligned loads).
        let (a, b) = unsafe { (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))) };
        let brace = _mm256_set1_epi8(b'}' as i8);
        let low = _mm256_movemask_epi8(_mm256_cmpeq_epi8(a, brace)) as u32;
        let high = _mm256_movemask_epi8(_mm256_cmpeq_epi8(b, brace)) as u32;
        u64::from(low) | (u64::from(high) << 32)
    }

    /// The `}` bytes of the 64 bytes of `hay` at `at`, as bits (AVX-512).
    #[inline]
    #[target_feature(enable = "avx512bw")]
    fn mask_avx512(hay: &[u8], at: usize) -> u64 {
        let p = block(hay, at).as_ptr().cast::<__m512i>();
        // SAFETY: the 64-byte load is the block (an unaligned load).
        let v = unsafe { _mm512_loadu_si512(p) };
        _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'}' as i8))
    }

    /// The first set bit of the masks of the window's blocks after the
    /// first (not all zero), as an offset from the second block: selects,
    /// no branches.
    #[inline(always)]
    fn first_of<const N: usize>(m: [u64; N]) -> usize {
        let mut at = 64 * N;
        for i in (0..N).rev() {
            let t = m[i].trailing_zeros() as usize + 64 * i;
            at = if m[i] != 0 { t } else { at };
        }
        at
    }

    /// The search, over `$mask`'s 64-byte blocks: the first block, then
    /// the rest of the window (`$offsets`, each 64 bytes on) at once, then
    /// 64 bytes a step.
    macro_rules! find_with {
        ($hay:ident, $mask:ident, [$($offset:literal),+]) => {{
            let hay = $hay;
            let window = 64 + [$($offset),+].len() * 64;
            if hay.len() < window {
                return memchr::memchr(b'}', hay);
            }
            let m0 = $mask(hay, 0);
            if m0 != 0 {
                return Some(m0.trailing_zeros() as usize);
            }
            let m = [$($mask(hay, $offset)),+];
            if m.iter().fold(0, |any, &m| any | m) != 0 {
                return Some(64 + first_of(m));
            }
            let mut at = window;
            while at + 64 <= hay.len() {
                let m = $mask(hay, at);
                if m != 0 {
                    return Some(at + m.trailing_zeros() as usize);
                }
                at += 64;
            }
            memchr::memchr(b'}', &hay[at..]).map(|i| at + i)
        }};
    }

    /// The tag-value stops (`"`, `\`, LF, CR) among 32 bytes, as bits.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn value_stops32(v: __m256i) -> u32 {
        let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let escape = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        let lf = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\n' as i8));
        let cr = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\r' as i8));
        let any = _mm256_or_si256(_mm256_or_si256(quote, escape), _mm256_or_si256(lf, cr));
        _mm256_movemask_epi8(any) as u32
    }

    /// The tag-value stops (`"`, `\`, LF, CR) of `block`, as bits (AVX2).
    #[target_feature(enable = "avx2")]
    pub(super) fn value_stops_avx2(block: &[u8; 64]) -> u64 {
        let p = block.as_ptr().cast::<__m256i>();
        // SAFETY: both 32-byte loads are inside the block (unaligned loads).
        let (a, b) = unsafe { (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))) };
        u64::from(value_stops32(a)) | (u64::from(value_stops32(b)) << 32)
    }

    /// The tag-value stops (`"`, `\`, LF, CR) of `block`, as bits
    /// (AVX-512).
    #[target_feature(enable = "avx512bw")]
    pub(super) fn value_stops_avx512(block: &[u8; 64]) -> u64 {
        // SAFETY: the 64-byte load is the block (an unaligned load).
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) };
        _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8))
            | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8))
            | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\n' as i8))
            | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\r' as i8))
    }

    /// The offset of the first `}` in `hay` (AVX2).
    #[target_feature(enable = "avx2")]
    pub(super) fn find_avx2(hay: &[u8]) -> Option<usize> {
        find_with!(hay, mask_avx2, [64, 128, 192])
    }

    /// The offset of the first `}` in `hay` (AVX-512BW).
    #[target_feature(enable = "avx512bw")]
    pub(super) fn find_avx512(hay: &[u8]) -> Option<usize> {
        find_with!(hay, mask_avx512, [64, 128, 192, 256, 320])
    }
}

/// Per-game parsing state.
struct GameState {
    /// Tokens are still lexed but no longer delivered.
    skipping: bool,
    failed: bool,
    /// Open variations.
    depth: u32,
    /// Depth at which a skipped variation started (0 when none).
    skip_from: u32,
    /// Whether the current line has a move (a variation or NAG may follow).
    line_has_move: bool,
    saved_has_move: Vec<bool>,
    result: Option<GameResult>,
    result_tag: Option<Option<GameResult>>,
    moves_seen: bool,
    tags_seen: bool,
}

/// Reads games from a byte slice without copying: tags, moves and comments
/// reach the visitor as slices of the input.
///
/// ```
/// use gamerec::pgn::{SliceReader, SkipAll};
/// let mut reader = SliceReader::new(b"[Event \"a\"]\n1. e4 e5 1-0\n\n1. d4 *\n");
/// let mut games = 0;
/// while reader.read_game(&mut SkipAll).is_some() {
///     games += 1;
/// }
/// assert_eq!(games, 2);
/// ```
pub struct SliceReader<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    games: u64,
    problems: Vec<Problem>,
    truncated: bool,
    /// The input goes on with a game start (a line-start `[`) right after
    /// `data` (see [`SliceReader::followed_by_game`]).
    followed_by_game: bool,
    last_start: usize,
    brace: BraceFinder,
}

impl<'a> SliceReader<'a> {
    /// A reader over `data` (offsets in diagnostics count from its start).
    pub fn new(data: &'a [u8]) -> SliceReader<'a> {
        SliceReader::with_offset(data, 0)
    }

    /// A reader over `data`, which starts at byte `base` of a larger input.
    pub fn with_offset(data: &'a [u8], base: u64) -> SliceReader<'a> {
        SliceReader {
            data,
            pos: 0,
            base,
            games: 0,
            problems: Vec::new(),
            truncated: false,
            followed_by_game: false,
            last_start: 0,
            brace: BraceFinder::new(),
        }
    }

    /// Resumes reading `data` at byte `pos`, `games` games already read.
    pub fn resume(data: &'a [u8], base: u64, pos: usize, games: u64) -> SliceReader<'a> {
        SliceReader {
            pos: pos.min(data.len()),
            games,
            ..SliceReader::with_offset(data, base)
        }
    }

    /// Says that the input goes on right after `data` with a game start (a
    /// line-start `[`: a chunk cut before one, [`Chunk::followed_by_game`]).
    /// Movetext that runs to the end of `data` outside any variation then
    /// ends its game there, as that `[` ends it in the whole input (a game
    /// without a termination marker), instead of being
    /// [`truncated`](SliceReader::truncated).
    ///
    /// [`Chunk::followed_by_game`]: super::stream::Chunk::followed_by_game
    pub fn followed_by_game(mut self, yes: bool) -> SliceReader<'a> {
        self.followed_by_game = yes;
        self
    }

    /// The problems of the game read last.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Byte offset (in the input) of the first token of the game read last.
    pub fn game_offset(&self) -> u64 {
        self.base + self.last_start as u64
    }

    /// Games started so far.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Whether the input ended inside the last game: inside a token, tag
    /// pair or variation, or before its termination marker (so more input
    /// might have continued it).
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    fn problem(&mut self, severity: Severity, at: usize, message: impl Into<String>) {
        let code = match severity {
            Severity::Error => Code::Syntax,
            Severity::Warning => Code::Other,
        };
        self.problem_with(severity, code, at, message);
    }

    fn problem_with(
        &mut self,
        severity: Severity,
        code: Code,
        at: usize,
        message: impl Into<String>,
    ) {
        self.problems.push(Problem {
            severity,
            offset: self.base + at as u64,
            message: message.into(),
            code,
        });
    }

    fn fail(&mut self, st: &mut GameState, at: usize, message: impl Into<String>) {
        self.fail_with(st, at, Code::Syntax, message);
    }

    fn fail_with(&mut self, st: &mut GameState, at: usize, code: Code, message: impl Into<String>) {
        if !st.failed {
            self.problem_with(Severity::Error, code, at, message);
        }
        st.failed = true;
        st.skipping = true;
    }

    /// Acts on a visitor's answer: nothing on the hot path (go on), the
    /// rest out of line.
    #[inline(always)]
    fn on_flow(&mut self, st: &mut GameState, at: usize, flow: Flow) {
        if let ControlFlow::Break(stop) = flow {
            self.on_stop(st, at, stop);
        }
    }

    #[cold]
    #[inline(never)]
    fn on_stop(&mut self, st: &mut GameState, at: usize, stop: Stop) {
        match stop {
            Stop::SkipGame => st.skipping = true,
            Stop::Error(msg) => self.fail_with(st, at, Code::Other, msg),
            Stop::Invalid(code, msg) => self.fail_with(st, at, code, msg),
        }
    }

    fn at_line_start(&self, at: usize) -> bool {
        at == 0 || matches!(self.data[at - 1], b'\n' | b'\r')
    }

    /// Skips whitespace, `%` escape lines and (between games) BOMs.
    #[inline(always)]
    fn skip_ws(&mut self) {
        let data = self.data;
        loop {
            self.pos = ws_end(data, self.pos);
            match data.get(self.pos) {
                Some(b'%') if self.at_line_start(self.pos) => self.skip_line(),
                Some(0xef) if data[self.pos..].starts_with(b"\xef\xbb\xbf") => self.pos += 3,
                _ => return,
            }
        }
    }

    fn skip_line(&mut self) {
        self.pos = match memchr2(b'\n', b'\r', &self.data[self.pos..]) {
            Some(i) => self.pos + i,
            None => self.data.len(),
        };
    }

    /// Reads the next game into `visitor`; `None` at the end of the input.
    pub fn read_game<V: Visitor>(&mut self, visitor: &mut V) -> Option<V::Output> {
        self.problems.clear();
        self.truncated = false;
        self.skip_ws();
        if self.pos >= self.data.len() {
            return None;
        }
        let start = self.pos;
        self.last_start = start;
        let index = self.games;
        self.games += 1;
        let mut st = GameState {
            skipping: false,
            failed: false,
            depth: 0,
            skip_from: 0,
            line_has_move: false,
            saved_has_move: Vec::new(),
            result: None,
            result_tag: None,
            moves_seen: false,
            tags_seen: false,
        };
        let flow = visitor.begin_game(GameStart {
            index,
            offset: self.base + start as u64,
        });
        self.on_flow(&mut st, start, flow);
        let wants_comments = visitor.wants_comments();

        self.tag_section(visitor, &mut st, wants_comments);
        if !st.skipping {
            let flow = visitor.begin_movetext();
            self.on_flow(&mut st, self.pos, flow);
        }
        self.movetext(visitor, &mut st, wants_comments);

        if !st.failed {
            if st.result.is_none() {
                self.problem(
                    Severity::Warning,
                    self.pos,
                    "game ends without a termination marker (1-0, 0-1, 1/2-1/2 or *)",
                );
            } else if let (Some(Some(tag)), Some(marker)) = (st.result_tag, st.result)
                && tag != marker
            {
                self.problem(
                    Severity::Warning,
                    self.pos,
                    format!("termination marker {marker} does not match the Result tag {tag}"),
                );
            }
        }
        let problems = std::mem::take(&mut self.problems);
        let out = visitor.end_game(GameEnd {
            index,
            offset: self.base + start as u64,
            result: st.result,
            failed: st.failed,
            problems: &problems,
        });
        self.problems = problems;
        Some(out)
    }

    fn tag_section<V: Visitor>(&mut self, v: &mut V, st: &mut GameState, wants_comments: bool) {
        loop {
            self.skip_ws();
            match self.data.get(self.pos) {
                Some(b'[') => self.tag_pair(v, st),
                Some(b'{' | b';') => self.comment(v, st, wants_comments),
                _ => return,
            }
        }
    }

    fn tag_pair<V: Visitor>(&mut self, v: &mut V, st: &mut GameState) {
        let data = self.data;
        let open = self.pos;
        st.tags_seen = true;
        self.pos += 1;
        // `[Name "value"]`, the form of nearly every tag pair: here and
        // below, where the next byte is the one expected (a name byte, the
        // quote after one space, `]`), `skip_ws` would stop at once (none
        // is whitespace, `%` or a BOM's first byte), so it is not called.
        if !data.get(self.pos).is_some_and(|&b| is(b, NAME)) {
            self.skip_ws();
        }
        let name_start = self.pos;
        self.pos = run_end(data, self.pos, NAME);
        let name = &data[name_start..self.pos];
        if name.is_empty() {
            let at = self.pos;
            return self.bad_tag(st, at, "expected a tag name after [");
        }
        if let Some(&b) = data.get(self.pos)
            && !is(b, WS)
            && b != b'"'
        {
            let at = self.pos;
            let message = format!("unexpected {} in a tag name", show_byte(b));
            return self.bad_tag(st, at, &message);
        }
        if data.get(self.pos..self.pos.wrapping_add(2)) == Some(b" \"".as_slice()) {
            self.pos += 1;
        } else {
            self.skip_ws();
        }
        if data.get(self.pos) != Some(&b'"') {
            let at = self.pos;
            return self.bad_tag(st, at, "expected a quoted tag value");
        }
        self.pos += 1;
        let value_start = self.pos;
        loop {
            self.pos = self.brace.value_stop(data, self.pos);
            match data.get(self.pos) {
                Some(b'"') => break,
                Some(b'\\') => self.pos += 2,
                Some(b'\n' | b'\r') | None => {
                    let at = self.pos;
                    if at >= data.len() {
                        self.truncated = true;
                    }
                    self.pos = at.min(data.len());
                    return self.bad_tag(
                        st,
                        at,
                        "unterminated tag value: expected \" before the line end",
                    );
                }
                Some(_) => self.pos += 1,
            }
        }
        let mut value = &data[value_start..self.pos.min(data.len())];
        self.pos += 1;
        if data.get(self.pos) != Some(&b']') {
            self.skip_ws();
        }
        if data.get(self.pos) != Some(&b']') {
            // Lenient: an unescaped quote inside the value, `[White ""X""]`.
            let line_end =
                memchr2(b'\n', b'\r', &data[value_start..]).map_or(data.len(), |i| value_start + i);
            let line = &data[value_start..line_end];
            if let Some(q) = memchr::memmem::rfind(line, b"\"]") {
                value = &line[..q];
                self.pos = value_start + q + 2;
                self.problem(
                    Severity::Warning,
                    value_start,
                    "unescaped \" inside a tag value (read up to the last \"])",
                );
                return self.deliver_tag(v, st, open, name, value);
            }
            let at = self.pos;
            if at >= data.len() {
                self.truncated = true;
            }
            return self.bad_tag(st, at, "expected ] after the tag value");
        }
        self.pos += 1;
        self.deliver_tag(v, st, open, name, value);
    }

    fn deliver_tag<V: Visitor>(
        &mut self,
        v: &mut V,
        st: &mut GameState,
        open: usize,
        name: &[u8],
        value: &[u8],
    ) {
        if name == b"Result" {
            st.result_tag = Some(parse_result(value));
        }
        if !st.skipping {
            let flow = v.tag(name, RawValue(value));
            self.on_flow(st, open, flow);
        }
    }

    /// Fails the game at a malformed tag pair and skips the rest of the
    /// pair, so the tag section goes on: a bad byte in a tag line is an
    /// error inside its game, never the start of another one. The pair
    /// ends at the first `]` outside quotes on its line; with none, at the
    /// line end if a quoted value is still ahead (`[Bl\0ack "B"`), else
    /// tokenizing resumes at the error (`[Event "x" 1. e4 *`: the movetext
    /// and its marker follow on the same line).
    fn bad_tag(&mut self, st: &mut GameState, at: usize, message: &str) {
        self.fail(st, at, message);
        let data = self.data;
        let rest = &data[at.min(data.len())..];
        let line_end = memchr2(b'\n', b'\r', rest);
        let line = &rest[..line_end.unwrap_or(rest.len())];
        let mut quoted = false;
        let mut i = 0;
        while i < line.len() {
            match line[i] {
                b'\\' if quoted => i += 1,
                b'"' => quoted = !quoted,
                b']' if !quoted => {
                    self.pos = at + i + 1;
                    return;
                }
                _ => {}
            }
            i += 1;
        }
        if line_end.is_none() {
            // The line runs past the data: where the failed game goes on
            // (after a `]` or a quote still to come) depends on the input
            // after it, as for a cut token. The game takes the rest of the
            // data and is cut off there, so a chunk ending here is joined
            // to the next before anything after it is read.
            self.pos = data.len();
            self.truncated = true;
            return;
        }
        if memchr(b'"', line).is_some() {
            self.pos = at + line.len();
        }
    }

    fn comment<V: Visitor>(&mut self, v: &mut V, st: &mut GameState, wants_comments: bool) {
        let data = self.data;
        let at = self.pos;
        let text = if data[at] == b'{' {
            match self.brace.find(&data[at + 1..]) {
                Some(i) => {
                    self.pos = at + 2 + i;
                    &data[at + 1..at + 1 + i]
                }
                None => {
                    self.pos = data.len();
                    self.truncated = true;
                    self.fail(st, at, "unterminated comment: expected }");
                    return;
                }
            }
        } else {
            let end = match memchr2(b'\n', b'\r', &data[at + 1..]) {
                Some(i) => at + 1 + i,
                None => data.len(),
            };
            self.pos = end;
            &data[at + 1..end]
        };
        if wants_comments && !st.skipping {
            let flow = v.comment(text);
            self.on_flow(st, at, flow);
        }
    }

    fn movetext<V: Visitor>(&mut self, v: &mut V, st: &mut GameState, wants_comments: bool) {
        let data = self.data;
        // The position is kept in a local (stored to `self.pos` only around
        // calls that read it and on return): no memory round trip per token.
        let mut pos = self.pos;
        // Where the movetext's first token is (the end of the data if it
        // has none: then the tag section may still go on).
        let first = ws_end(data, pos);
        loop {
            let at = ws_end(data, pos);
            let Some(&b) = data.get(at) else {
                // No termination marker: more input might continue the game,
                // unless the next game starts right after, which ends it as
                // a `[` does: movetext begun, outside variations, and the
                // game not failed (a failed game's end depends on where it
                // failed; a skipped one is read as any other).
                self.pos = at;
                if self.followed_by_game && st.depth == 0 && first < at && !st.failed {
                    return;
                }
                self.truncated = true;
                if st.depth > 0 {
                    self.fail(st, at, "unterminated variation: expected )");
                }
                return;
            };
            if is(b, MOVE) && !is(b, DIGIT) {
                // An en-passant mark written as its own word after the
                // capture (`exd6 e.p.`): not a move, skipped.
                if (b | 0x20) == b'e'
                    && matches!(data.get(at + 1), Some(b'.' | b'p' | b'P'))
                    && st.moves_seen
                    && let Some(word_end) = en_passant_mark_end(data, at)
                {
                    pos = word_end;
                    continue;
                }
                // A move: letters, `-` (null move), non-ASCII (figurines).
                let end = run_end(data, at + 1, MOVE);
                pos = end;
                st.moves_seen = true;
                st.line_has_move = true;
                if !st.skipping {
                    let flow = v.san(&data[at..end], self.base + at as u64);
                    self.on_flow(st, at, flow);
                }
                // A comment right after the move (` {`: nearly every move
                // of engine games) that nobody reads: skipped to its `}`
                // here, not by a turn of the loop for the space and another
                // for the `{` (an unterminated one is left to that path).
                if !wants_comments
                    && data.get(end..end + 2) == Some(b" {".as_slice())
                    && let Some(i) = self.brace.find(&data[end + 2..])
                {
                    pos = end + 3 + i;
                }
                continue;
            }
            match b {
                // A brace comment nobody reads (`check`; engine games have
                // one after nearly every move): skipped here, to its `}`.
                b'{' if !wants_comments || st.skipping => {
                    match self.brace.find(&data[at + 1..]) {
                        Some(i) => pos = at + 2 + i,
                        None => {
                            // Unterminated: `comment` fails the game.
                            self.pos = at;
                            self.comment(v, st, wants_comments);
                            pos = self.pos;
                        }
                    }
                }
                b'{' | b';' => {
                    self.pos = at;
                    self.comment(v, st, wants_comments);
                    pos = self.pos;
                }
                b'0'..=b'9' => {
                    let mut end = run_end(data, at + 1, DIGIT);
                    // A move number (digits alone, not UCI's null move
                    // `0000`), and the periods after it, in one step: at
                    // once when a period follows (`.` is no move byte),
                    // the form of nearly every move number.
                    if data.get(end) == Some(&b'.') {
                        end += 1;
                        end += data[end..].iter().take_while(|&&c| c == b'.').count();
                        pos = end;
                        continue;
                    }
                    if data.get(end).is_none_or(|&c| !is(c, MOVE))
                        && (&data[at..end] != b"0000" || data.get(end) == Some(&b'.'))
                    {
                        end += data[end..].iter().take_while(|&&c| c == b'.').count();
                        pos = end;
                        continue;
                    }
                    end = run_end(data, end, MOVE);
                    let token = &data[at..end];
                    pos = end;
                    if let Some(result) = parse_result(token) {
                        if st.depth > 0 && !st.failed {
                            self.fail(st, at, "termination marker inside a variation: expected )");
                            continue;
                        }
                        st.result = Some(result);
                        self.pos = pos;
                        return;
                    }
                    // `0000` not followed by a period: UCI's null move.
                    let uci_null = token == b"0000" && data.get(end) != Some(&b'.');
                    if token.iter().all(u8::is_ascii_digit) && !uci_null {
                        continue; // move number
                    }
                    // Castling with zeros and the like: a move.
                    st.moves_seen = true;
                    st.line_has_move = true;
                    if !st.skipping {
                        let flow = v.san(token, self.base + at as u64);
                        self.on_flow(st, at, flow);
                    }
                }
                b'.' => pos = at + 1,
                b'*' => {
                    pos = at + 1;
                    if st.depth > 0 && !st.failed {
                        self.fail(st, at, "termination marker inside a variation: expected )");
                        continue;
                    }
                    st.result = Some(GameResult::Unknown);
                    self.pos = pos;
                    return;
                }
                b'$' => {
                    let end = run_end(data, at + 1, DIGIT);
                    pos = end;
                    let digits = &data[at + 1..end];
                    let nag = (!digits.is_empty() && digits.len() <= 3)
                        .then(|| {
                            digits
                                .iter()
                                .fold(0u32, |n, d| n * 10 + u32::from(d - b'0'))
                        })
                        .and_then(|n| u8::try_from(n).ok());
                    match nag {
                        None => self.fail(st, at, "bad NAG: expected $ and a number 0 to 255"),
                        Some(_) if !st.line_has_move && !st.skipping => {
                            self.fail(st, at, "NAG before any move")
                        }
                        Some(n) => {
                            if !st.skipping {
                                let flow = v.nag(n);
                                self.on_flow(st, at, flow);
                            }
                        }
                    }
                }
                b'(' => {
                    pos = at + 1;
                    if !st.line_has_move && !st.skipping {
                        self.fail(st, at, "variation before any move: ( must follow a move");
                    }
                    st.depth += 1;
                    st.saved_has_move.push(st.line_has_move);
                    st.line_has_move = false;
                    if !st.skipping {
                        match v.begin_variation() {
                            ControlFlow::Continue(Skip(true)) => {
                                st.skipping = true;
                                st.skip_from = st.depth;
                            }
                            ControlFlow::Continue(Skip(false)) => {}
                            ControlFlow::Break(stop) => {
                                self.on_flow(st, at, ControlFlow::Break(stop))
                            }
                        }
                    }
                }
                b')' => {
                    pos = at + 1;
                    if st.depth == 0 {
                        self.fail(st, at, "unmatched ): no variation is open");
                        continue;
                    }
                    st.line_has_move = st.saved_has_move.pop().unwrap_or(true);
                    if st.skip_from == st.depth {
                        st.skip_from = 0;
                        if !st.failed {
                            st.skipping = false;
                        }
                    }
                    st.depth -= 1;
                    if !st.skipping {
                        let flow = v.end_variation();
                        self.on_flow(st, at, flow);
                    }
                }
                b'[' => {
                    // The next game begins: this one had no termination marker.
                    if st.depth > 0 {
                        self.fail(
                            st,
                            at,
                            "unterminated variation: expected ) before the next game",
                        );
                    }
                    self.pos = at;
                    return;
                }
                b'%' if self.at_line_start(at) => {
                    self.pos = at;
                    self.skip_line();
                    pos = self.pos;
                }
                _ => {
                    pos = at + 1;
                    if !st.skipping {
                        let what = match b {
                            b'<' | b'>' => "reserved token",
                            _ => "unexpected character",
                        };
                        self.fail(
                            st,
                            at,
                            format!(
                                "{what} {}: expected a move, move number, comment, NAG, variation or termination marker",
                                show_byte(b)
                            ),
                        );
                    }
                }
            }
        }
    }
}

fn show_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

/// Parses a termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`).
pub fn parse_result(token: &[u8]) -> Option<GameResult> {
    match token {
        b"1-0" => Some(GameResult::WhiteWins),
        b"0-1" => Some(GameResult::BlackWins),
        b"1/2-1/2" => Some(GameResult::Draw),
        b"*" => Some(GameResult::Unknown),
        _ => None,
    }
}

/// The end of an en-passant mark written as its own word at `at` (`e.p.`
/// after `exd6 `), if the word there is one.
#[cold]
#[inline(never)]
fn en_passant_mark_end(data: &[u8], at: usize) -> Option<usize> {
    let word_end = data[at..]
        .iter()
        .position(|&c| is(c, WS) || matches!(c, b'(' | b')' | b'{' | b';'))
        .map_or(data.len(), |n| at + n);
    crate::san::is_en_passant_mark(&data[at..word_end]).then_some(word_end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The brace finder (each of AVX-512, AVX2 and memchr the processor
    /// has) finds the first `}` that `memchr` finds: haystacks of every
    /// length up to past the finder's window (256 bytes with AVX2, 384
    /// with AVX-512) and its 64-byte steps, the brace at every
    /// place (every block of the window, the steps, the tail) or absent,
    /// other bytes (`{`, `]`, high bytes) around it, and at several start
    /// offsets in a larger buffer (unaligned starts).
    #[test]
    fn brace_finder_agrees_with_memchr() {
        #[cfg(target_arch = "x86_64")]
        for simd in [Simd::None, Simd::Avx2, Simd::Avx512] {
            let present = match simd {
                Simd::None => true,
                Simd::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
                Simd::Avx512 => std::arch::is_x86_feature_detected!("avx512bw"),
            };
            if present {
                brace_finder_agrees_with_memchr_in(BraceFinder { simd });
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        brace_finder_agrees_with_memchr_in(BraceFinder::new());
    }

    fn brace_finder_agrees_with_memchr_in(finder: BraceFinder) {
        let mut buf = vec![b'x'; 1000];
        for (i, b) in buf.iter_mut().enumerate() {
            *b = [b'a', b'{', b']', 0x80, b' ', 0xfd][i % 6];
        }
        let mut checked = 0;
        for start in [0, 1, 7, 31, 32, 33, 63] {
            for len in 0..900 {
                let hay = &mut buf[start..start + len];
                assert_eq!(finder.find(hay), memchr(b'}', hay));
                for at in (0..len).step_by(5).chain(len.checked_sub(1)) {
                    let hay = &mut buf[start..start + len];
                    let old = hay[at];
                    hay[at] = b'}';
                    assert_eq!(
                        finder.find(hay),
                        Some(at),
                        "start {start} len {len} at {at}"
                    );
                    // A second brace later changes nothing.
                    let later = (at + 1 + len / 3).min(len - 1);
                    let old_later = hay[later];
                    hay[later] = b'}';
                    assert_eq!(finder.find(hay), Some(at), "{start} {len} {at} {later}");
                    hay[later] = old_later;
                    assert_eq!(memchr(b'}', hay), Some(at));
                    hay[at] = old;
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    /// The tag-value stop (AVX-512, AVX2 where the processor has them, and
    /// the byte scan) is the first `"`, `\`, LF or CR from every start,
    /// over random bytes weighted towards tag text, the stop at every place
    /// of the 64-byte block, past it, or absent.
    #[test]
    fn value_stop_agrees_with_the_byte_scan() {
        #[cfg(target_arch = "x86_64")]
        let finders: Vec<BraceFinder> = [
            (Simd::None, true),
            (Simd::Avx2, std::arch::is_x86_feature_detected!("avx2")),
            (
                Simd::Avx512,
                std::arch::is_x86_feature_detected!("avx512bw"),
            ),
        ]
        .into_iter()
        .filter(|&(_, present)| present)
        .map(|(simd, _)| BraceFinder { simd })
        .collect();
        #[cfg(not(target_arch = "x86_64"))]
        let finders = vec![BraceFinder::new()];
        let alphabet = b"abcXYZ 0123.-:/\t\xc3\xa9";
        let stops = b"\"\\\n\r";
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut checked = 0;
        for _ in 0..600 {
            let len = (next() % 200) as usize;
            let one_in = if next().is_multiple_of(3) { 150 } else { 12 };
            let data: Vec<u8> = (0..len)
                .map(|_| match next() % one_in {
                    0 => stops[(next() % 4) as usize],
                    1 => (next() % 256) as u8,
                    _ => alphabet[(next() % alphabet.len() as u64) as usize],
                })
                .collect();
            for at in 0..=len + 1 {
                let naive = (at.min(len)..len)
                    .find(|&i| stops.contains(&data[i]))
                    .unwrap_or(len.max(at));
                for finder in &finders {
                    assert_eq!(finder.value_stop(&data, at), naive, "{data:?} {at}");
                }
                checked += 1;
            }
        }
        assert!(checked > 30_000, "{checked}");
    }

    /// A xorshift generator of test data from `state` (not zero).
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// The eight-byte block scan finds what a byte-by-byte loop finds, for
    /// every class, from every start, over random bytes weighted towards
    /// PGN text (runs of every length up to past a block, at every end).
    #[test]
    fn block_scan_agrees_with_a_byte_loop() {
        let alphabet = b" \t\r\n.0123456789abcdefghNBRQKOx+#=-!?{}()[]$*\"\\;%\x00\x80\xff";
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let classes = [WS, MOVE, DIGIT, NAME, VALUE_STOP, MOVE | DIGIT];
        let mut checked = 0;
        for _ in 0..2000 {
            let len = (next() % 40) as usize;
            let data: Vec<u8> = (0..len)
                .map(|_| match next() % 4 {
                    0 => (next() % 256) as u8,
                    _ => alphabet[(next() % alphabet.len() as u64) as usize],
                })
                .collect();
            for &class in &classes {
                for at in 0..=len + 1 {
                    let naive_run = (at.min(len)..len)
                        .find(|&i| CLASS[data[i] as usize] & class == 0)
                        .unwrap_or(len.max(at));
                    let naive_find = (at.min(len)..len)
                        .find(|&i| CLASS[data[i] as usize] & class != 0)
                        .unwrap_or(len.max(at));
                    assert_eq!(
                        run_end(&data, at, class),
                        naive_run,
                        "{data:?} {at} {class}"
                    );
                    assert_eq!(
                        find_class(&data, at, class),
                        naive_find,
                        "{data:?} {at} {class}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000);
    }
}
