//! Issue 18 item 2: every reader, writer and conversion works in time
//! linear in its input, game length and variation depth included.
//!
//! Work is counted, not timed: the steps of the move tree's walks
//! (`gamerec::work`: paths to the root, pre-order and main-line walks) plus
//! what this test binary's allocator sees on the thread (each allocation,
//! and the bytes of each new one; a buffer growing in place counts one step,
//! so the rounding of its capacity to a power of two does not blur the
//! measure). Each step doubles the input (25k, 50k, 100k plies; 3,125 to
//! 100k nesting levels) and asserts the work at most doubles plus a
//! constant. A walk or a copy per element (a path per node, a whole-tree
//! copy per move) makes it grow four-fold: `epd::convert` built the path to
//! the root for each variation node, and searched the main line for each
//! node. FBK (read, write, check) and JSON reading were added later.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use gamerec::chessbase::{check_fbk, read_cbf, read_fbk, write_cbf, write_fbk};
use gamerec::epd::convert::{GameToEpd, game_to_records};
use gamerec::io::{Format, ReadOptions, Reader};
use gamerec::model::{Game, MoveTree, NodeId, Ply, PlyMove};
use gamerec::pgc::{read_pgc, write_pgc};
use gamerec::pgn::writer::export_string;
use gamerec::pgn::{WriteOptions, read_games, write_game_json};
use gamerec::san::write_san;
use gamerec::sgf;
use gamerec_testkit::finishes;
use shakmaty::{Chess, Position, Square};

struct Counting;

thread_local! {
    static WORK: Cell<u64> = const { Cell::new(0) };
}

/// Work charged per allocation on top of its bytes.
const PER_ALLOCATION: u64 = 64;

fn charge(bytes: usize) {
    let _ = WORK.try_with(|w| w.set(w.get() + bytes as u64 + PER_ALLOCATION));
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counter only adds to a thread-local integer, which does not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        charge(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        charge(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        charge(0);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The work `f` does on this thread.
fn work<T>(f: impl FnOnce() -> T) -> u64 {
    let total = || WORK.with(Cell::get) + gamerec::work::steps();
    let before = total();
    let out = f();
    let after = total();
    drop(out);
    after - before
}

/// Fixed cost any run may have on top of its proportional work.
const CONSTANT: u64 = 1 << 16;

/// Runs `run` on `make(n)` for each size and checks that from one size to
/// the next the work grows at most in proportion (with 1/16 slack) plus
/// [`CONSTANT`].
fn assert_linear<I>(what: &str, sizes: &[usize], make: impl Fn(usize) -> I, run: impl Fn(&I)) {
    let mut last: Option<(usize, u64)> = None;
    let mut seen = Vec::new();
    for &n in sizes {
        let input = make(n);
        let w = work(|| run(&input));
        seen.push((n, w));
        if let Some((m, prev)) = last {
            let allowed = (prev as f64 * n as f64 / m as f64 * 1.0625) as u64 + CONSTANT;
            assert!(
                w <= allowed,
                "{what}: work {seen:?} is not linear ({w} > {allowed} at {n})"
            );
        }
        last = Some((n, w));
    }
}

const PLIES: &[usize] = &[25_000, 50_000, 100_000];
const NESTING: &[usize] = &[3_125, 6_250, 12_500, 25_000, 50_000, 100_000];

fn ply(pos: &Chess, from: Square, to: Square) -> Ply {
    let mv = pos
        .legal_moves()
        .into_iter()
        .find(|m| m.from() == Some(from) && m.to() == to)
        .expect("a knight move");
    let san = write_san(pos, PlyMove::Move(mv));
    Ply {
        mv: PlyMove::Move(mv),
        san,
        written: None,
    }
}

/// The knights' shuffle Nf3 Nf6 Ng1 Ng8, legal forever.
const SHUFFLE: [(Square, Square); 4] = [
    (Square::G1, Square::F3),
    (Square::G8, Square::F6),
    (Square::F3, Square::G1),
    (Square::F6, Square::G8),
];
/// Another move in the same positions (the queen's knights).
const OTHER: [(Square, Square); 4] = [
    (Square::B1, Square::C3),
    (Square::B8, Square::C6),
    (Square::B1, Square::A3),
    (Square::B8, Square::A6),
];

fn tagged(tree: MoveTree) -> Game {
    let mut game = Game::new();
    for (name, value) in gamerec::pgn::writer::SEVEN_TAG_ROSTER {
        game.tags.push(name, value);
    }
    game.tree = tree;
    game
}

/// A game of `n` main-line plies.
fn long_game(n: usize) -> Game {
    let mut tree = MoveTree::new();
    let mut pos = Chess::default();
    let mut cur = NodeId::ROOT;
    for i in 0..n {
        let (from, to) = SHUFFLE[i % 4];
        let p = ply(&pos, from, to);
        pos.play_unchecked(match p.mv {
            PlyMove::Move(m) => m,
            PlyMove::Null => unreachable!(),
        });
        cur = tree.add_child(cur, p);
    }
    tagged(tree)
}

/// A game whose variations nest `n` deep: each ply has a one-move main line
/// and a variation that holds everything after it.
fn deep_game(n: usize) -> Game {
    let mut tree = MoveTree::new();
    let mut pos = Chess::default();
    let mut cur = NodeId::ROOT;
    for i in 0..n {
        let (from, to) = OTHER[i % 4];
        tree.add_child(cur, ply(&pos, from, to));
        let (from, to) = SHUFFLE[i % 4];
        let p = ply(&pos, from, to);
        if let PlyMove::Move(m) = p.mv {
            pos.play_unchecked(m);
        }
        cur = tree.add_child(cur, p);
    }
    tagged(tree)
}

fn pgn(game: &Game) -> String {
    export_string(game, &WriteOptions::default())
}

#[test]
fn pgn_reading_is_linear() {
    let text = |g: Game| pgn(&g);
    assert_linear(
        "PGN read, plies",
        PLIES,
        |n| text(long_game(n)),
        |t| {
            assert_eq!(read_games(t.as_bytes()).0.len(), 1);
        },
    );
    assert_linear(
        "PGN read, nesting",
        NESTING,
        |n| text(deep_game(n)),
        |t| {
            assert_eq!(read_games(t.as_bytes()).0.len(), 1);
        },
    );
}

#[test]
fn pgn_and_json_writing_are_linear() {
    for (what, sizes, make) in [
        ("plies", PLIES, long_game as fn(usize) -> Game),
        ("nesting", NESTING, deep_game),
    ] {
        assert_linear(&format!("PGN write, {what}"), sizes, make, |g| {
            pgn(g);
        });
        assert_linear(&format!("JSON write, {what}"), sizes, make, |g| {
            let mut out = String::new();
            write_game_json(g, &gamerec::pgn::json::no_commands, &mut out);
        });
    }
}

#[test]
fn epd_conversion_is_linear() {
    let opts = GameToEpd {
        variations: true,
        tags_as_ptp: false,
    };
    for (what, sizes, make) in [
        ("plies", PLIES, long_game as fn(usize) -> Game),
        ("nesting", NESTING, deep_game),
    ] {
        assert_linear(&format!("EPD convert, {what}"), sizes, make, |g| {
            game_to_records(g, &opts);
        });
    }
}

#[test]
fn pgc_reading_and_writing_are_linear() {
    for (what, sizes, make) in [
        ("plies", PLIES, long_game as fn(usize) -> Game),
        ("nesting", NESTING, deep_game),
    ] {
        assert_linear(&format!("PGC write, {what}"), sizes, make, |g| {
            write_pgc(std::slice::from_ref(g));
        });
        let bytes = |n| write_pgc(&[make(n)]).0;
        assert_linear(&format!("PGC read, {what}"), sizes, bytes, |b| {
            assert_eq!(read_pgc(b).games.len(), 1);
        });
    }
}

/// A CBF game holds at most 65,535 bytes of moves: the largest doublings
/// that fit.
const CBF_PLIES: &[usize] = &[12_500, 25_000, 50_000];
const CBF_NESTING: &[usize] = &[1_600, 3_200, 6_400, 12_800];

#[test]
fn cbf_reading_and_writing_are_linear() {
    for (what, sizes, make) in [
        ("plies", CBF_PLIES, long_game as fn(usize) -> Game),
        ("nesting", CBF_NESTING, deep_game),
    ] {
        assert_linear(&format!("CBF write, {what}"), sizes, make, |g| {
            write_cbf(std::slice::from_ref(g));
        });
        let files = |n| write_cbf(&[make(n)]);
        assert_linear(&format!("CBF read, {what}"), sizes, files, |f| {
            assert_eq!(read_cbf(&f.cbi, &f.cbf).games.len(), 1);
        });
    }
}

fn sgf_long(n: usize) -> String {
    let mut s = String::from("(;GM[1]FF[4]SZ[19]");
    for i in 0..n {
        let c = if i % 2 == 0 { 'B' } else { 'W' };
        let x = (b'a' + (i % 19) as u8) as char;
        let y = (b'a' + (i / 19 % 19) as u8) as char;
        s.push_str(&format!(";{c}[{x}{y}]"));
    }
    s.push(')');
    s
}

fn sgf_deep(n: usize) -> String {
    let mut s = String::from("(;GM[1]FF[4]SZ[19]");
    for i in 0..n {
        let c = if i % 2 == 0 { 'B' } else { 'W' };
        s.push_str(&format!("(;{c}[aa])(;{c}[bb]"));
    }
    s.push_str(&")".repeat(n + 1));
    s
}

#[test]
fn sgf_parsing_and_writing_are_linear() {
    let opts = sgf::ParseOptions::default();
    for (what, sizes, make) in [
        ("nodes", PLIES, sgf_long as fn(usize) -> String),
        ("nesting", NESTING, sgf_deep),
    ] {
        assert_linear(&format!("SGF parse, {what}"), sizes, make, |t| {
            let p = sgf::parse(t.as_bytes(), &opts);
            assert_eq!(p.collection.roots.len(), 1);
        });
        let parsed = |n: usize| sgf::parse(make(n).as_bytes(), &opts).collection;
        assert_linear(&format!("SGF write, {what}"), sizes, parsed, |c| {
            sgf::write_to_string(c, &sgf::WriteOptions::default());
        });
    }
}

#[test]
fn fbk_reading_and_writing_are_linear() {
    for (what, sizes, make) in [
        ("plies", PLIES, long_game as fn(usize) -> Game),
        ("nesting", NESTING, deep_game),
    ] {
        assert_linear(&format!("FBK write, {what}"), sizes, make, |g| {
            write_fbk(std::slice::from_ref(g));
        });
        let bytes = |n| write_fbk(&[make(n)]).0;
        assert_linear(&format!("FBK read, {what}"), sizes, bytes, |b| {
            assert_eq!(read_fbk(b).games.len(), 1);
        });
        assert_linear(&format!("FBK check, {what}"), sizes, bytes, |b| {
            assert!(check_fbk(b).moves > 0);
        });
    }
}

#[test]
fn json_reading_is_linear() {
    let opts = ReadOptions {
        format: Some(Format::Json),
        ..ReadOptions::default()
    };
    for (what, sizes, make) in [
        ("plies", PLIES, long_game as fn(usize) -> Game),
        ("nesting", NESTING, deep_game),
    ] {
        let line = |n| {
            let mut out = String::new();
            write_game_json(&make(n), &gamerec::pgn::json::no_commands, &mut out);
            out
        };
        assert_linear(&format!("JSON read, {what}"), sizes, line, |t| {
            let mut reader = Reader::from_bytes("t.json", t.as_bytes(), &opts);
            // Each line is read (a game, or an error if nesting is too deep).
            let items = reader.by_ref().count();
            let problems = reader.take_diagnostics().len();
            assert_eq!(items + problems, 1, "{what}");
            assert!(what == "nesting" || items == 1, "a long game reads back");
        });
    }
}

fn sgf_siblings(n: usize) -> String {
    let mut s = String::from("(;GM[1]FF[4]SZ[19]");
    for i in 0..n {
        let x = (b'a' + (i % 19) as u8) as char;
        s.push_str(&format!("(;B[{x}a];W[aa])"));
    }
    s.push(')');
    s
}

/// Checking the rules of every line: a rule broken at every node of a long
/// line or of deeply nested variations (each error names its node's path),
/// variations branching at every move under superko (the walk comes back to
/// each branch with the line's record of positions), and many variations
/// of one node. A path walked to the root for each error, or a state
/// copied for each variation with its record, made these quadratic.
#[test]
fn sgf_checking_is_linear() {
    let opts = sgf::ParseOptions::default();
    let superko = |n: usize| sgf_deep(n).replacen("SZ[19]", "SZ[19]RU[Chinese]", 1);
    for (what, sizes, make) in [
        ("a long line", PLIES, sgf_long as fn(usize) -> String),
        ("nesting", NESTING, sgf_deep),
        ("nesting under superko", NESTING, superko),
        ("variations of one node", PLIES, sgf_siblings),
    ] {
        let parsed = |n: usize| sgf::parse(make(n).as_bytes(), &opts).collection;
        assert_linear(&format!("SGF check, {what}"), sizes, parsed, |c| {
            let errors = sgf::replay::check_game_notes(c, c.roots[0], 1);
            std::hint::black_box(errors);
        });
    }
}

/// Duplicates were found by comparing each tag, opcode or `ptp` tag with
/// every one before it: `check --strict` of a game of 100,000 tags took
/// 11.7 s, and an EPD line of 700,000 opcodes did not end in minutes.
#[test]
fn many_tags_and_opcodes_are_checked_in_linear_time() {
    const N: usize = 300_000;
    finishes("check_tags", 60, || {
        let mut tags = gamerec::model::Tags::new();
        for i in 0..N {
            tags.push(format!("T{i}"), "x");
            tags.push("WhiteElo", "2500");
        }
        let warnings = gamerec::pgn::tags::check_tags(&tags);
        // Seven Tag Roster missing, one duplicate name.
        assert_eq!(
            warnings.len(),
            8,
            "{:?}",
            &warnings[..warnings.len().min(9)]
        );
    });
    // EPD opcodes and `ptp` tags: the reader's own unit tests (a line of
    // this many is past `MAX_RECORD_TOKENS`, refused before it is read).
    finishes("EPD conversion's ptp", 60, || {
        let mut game = long_game(2);
        for i in 0..N {
            game.tags.push(format!("T{i}"), "x");
        }
        let out = game_to_records(
            &game,
            &GameToEpd {
                tags_as_ptp: true,
                ..GameToEpd::default()
            },
        );
        assert!(out.warnings.is_empty(), "{:?}", &out.warnings[..1]);
    });
}

/// Opcodes written without `;` (`bm e4 acd 1 acs 2 acd 1 …`, `dm dm dm
/// …`): each opcode among another's operands starts an operation. Splitting
/// the rest off again at each one copied it and kept each copy's room:
/// 25,000 of them took 69 s and 23 GB, 20,000 `dm` 5.1 s and 7.8 GB.
#[test]
fn missing_semicolons_are_split_in_linear_work() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    assert_linear(
        "EPD operations without `;`",
        &[1_000, 2_000, 4_000],
        |n| format!("{start} bm e4{};", " acd 1 acs 2".repeat(n)),
        |line| {
            let (_, diags) = gamerec::epd::read_line(line, 1);
            // The duplicates are errors; the splits, warnings.
            let (errors, warnings) = diags.iter().fold((0, 0), |(e, w), d| {
                let (de, dw) = d.counts();
                (e + de, w + dw)
            });
            assert!(errors > 0 && warnings > 0);
        },
    );
    assert_linear(
        "EPD opcodes without `;`",
        &[1_000, 2_000, 4_000],
        |n| format!("{start}{};", " dm".repeat(n)),
        |line| {
            let (record, diags) = gamerec::epd::read_line(line, 1);
            assert!(record.is_none() && !diags.is_empty());
        },
    );
    let (record, diags) = gamerec::epd::read_line(&format!("{start} bm e4 dm 26;"), 1);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(diags[0].message.contains("missing `;` before opcode `dm`"));
    let record = record.expect("read");
    assert_eq!(record.ops.len(), 2);
}

/// Each `+` written apart from its move was removed from the middle of the
/// operands, moving all those after it: `bm e4 + + …` of 80,000 took 1.6 s.
#[test]
fn epd_move_suffixes_are_glued_in_linear_time() {
    const N: usize = 1_000_000;
    finishes("EPD suffixes", 20, || {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let line = format!("{start} bm e4{};", " +".repeat(N));
        let (_, diags) = gamerec::epd::read_line(&line, 1);
        assert!(!diags.is_empty());
    });
}

/// Unknown properties were checked for duplicates against every one before
/// them in the node: a node of 80,000 took 5.8 s.
#[test]
fn sgf_unknown_properties_are_checked_in_linear_time() {
    const N: usize = 400_000;
    finishes("SGF unknown properties", 20, || {
        // XA twice, then distinct names of capital letters: XB, XC, …, XAA, …
        let mut text = String::from("(;FF[4]GM[1]SZ[19];XA[]");
        for i in 0..N {
            let mut name = String::from("X");
            let mut k = i + 1;
            while k > 0 {
                k -= 1;
                name.push(char::from(b'A' + (k % 26) as u8));
                k /= 26;
            }
            text.push_str(&name);
            text.push_str("[]");
        }
        text.push(')');
        let parsed = sgf::parse(text.as_bytes(), &sgf::ParseOptions::default());
        // The duplicate, counted among the messages not listed.
        assert!(
            parsed
                .diagnostics
                .iter()
                .any(|d| d.message.contains("and 1 more error and")),
            "{:?}",
            parsed.diagnostics.last()
        );
    });
}

/// The characters Latin-1 cannot hold were listed by comparing each with
/// every one found before: a comment of 80,000 distinct ones took 0.6 s to
/// export.
#[test]
fn unrepresentable_characters_are_listed_in_linear_time() {
    finishes("Latin-1 unrepresentable characters", 10, || {
        let text: String = (0x100..0x110000).filter_map(char::from_u32).collect();
        let found = gamerec::pgn::text::Encoding::Latin1.unrepresentable(&text);
        assert_eq!(found.len(), text.chars().count());
    });
}
