#![no_main]
//! SGF parser: never panics, and parse(write(parse(x))) == parse(x); the
//! fast paths (move nodes, reused parse memory, the replay of one-move
//! nodes, the replay on a board kept from other games) give what the
//! general paths give; a file read a part at a time reads as whole; the
//! rules engine and the upgrade never panic on what the parser accepts.
use gamerec::sgf::{self, ParseOptions, WriteOptions, replay};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parsed = sgf::parse(data, &ParseOptions::default());
    let coll = &parsed.collection;
    let out = sgf::write(coll, &WriteOptions::default());
    let again = sgf::parse(&out, &ParseOptions::default());
    assert!(
        again.collection == *coll,
        "round trip changed the collection"
    );
    let out2 = sgf::write(&again.collection, &WriteOptions::default());
    assert_eq!(out, out2, "writing is not idempotent");
    // The check path's lazy line index places diagnostics like `parse`.
    let mut lazy = sgf::parse_unindexed(data, &ParseOptions::default());
    assert!(lazy.collection == *coll && lazy.diagnostics == parsed.diagnostics);
    lazy.index_lines(data, &ParseOptions::default());
    for off in [0, data.len() as u64 / 2, data.len() as u64] {
        assert_eq!(lazy.lines.line_col(off), parsed.lines.line_col(off));
    }
    let general = sgf::parser::parse_general_path(data, &ParseOptions::default());
    assert_eq!(format!("{parsed:?}"), format!("{general:?}"), "fast path");
    let mut buffers = sgf::ParseBuffers::default();
    buffers.recycle(sgf::parse_unindexed(
        b"(;B[aa];W[bb](;B[cc])C[x])",
        &ParseOptions::default(),
    ));
    let reused = sgf::parse_unindexed_reusing(data, &ParseOptions::default(), &mut buffers);
    assert!(reused.collection == *coll && reused.diagnostics == parsed.diagnostics);
    // The check's kept board: left with stones, a capture and a ko by a
    // game before (and by each game of this input before the next).
    let mut kept = replay::ReplayBuffers::default();
    let before = sgf::parse(
        b"(;SZ[9];B[ba];W[ca];B[ab];W[bb];B[cb];W[ac];B[aa])",
        &ParseOptions::default(),
    );
    let _ = replay::check_game_notes_reusing(
        &before.collection,
        before.collection.roots[0],
        1,
        &mut kept,
    );
    for (i, &root) in coll.roots.iter().enumerate().take(4) {
        if coll.node_count() < 5000 {
            assert_eq!(
                replay::check_game(coll, root, i + 1),
                replay::check_game_general_path(coll, root, i + 1),
                "replay fast path"
            );
            assert_eq!(
                replay::check_game_notes_reusing(coll, root, i + 1, &mut kept),
                replay::check_game_notes(coll, root, i + 1),
                "replay on a kept board"
            );
        }
    }
    // Read a part at a time (large collections), cut after every game
    // tree: the same games, nodes and messages at the same places.
    if sgf::parts_allowed(data, &ParseOptions::default()) {
        let mut state = sgf::PartState::default();
        let mut place = sgf::PartPlace::default();
        let (mut start, mut games, mut nodes, mut diags) = (0, 0, 0, Vec::new());
        loop {
            let part = &data[start..];
            let p = sgf::parse_part(part, &ParseOptions::default(), &mut state, 0, &mut buffers);
            games += p.collection.roots.len();
            nodes += p.collection.node_count();
            for mut d in p.diagnostics.clone() {
                place.place(&mut d);
                diags.push(d);
            }
            match p.rest {
                Some(n) => {
                    assert!(n > 0, "a part of no bytes");
                    place = place.after(&part[..n]);
                    start += n;
                }
                None => break,
            }
        }
        assert_eq!((games, nodes), (coll.roots.len(), coll.node_count()), "parts");
        assert_eq!(diags, parsed.diagnostics, "parts");
    }
    let _ = sgf::json::to_json(coll);
    let (upgraded, _) = sgf::upgrade::upgrade(coll);
    let _ = sgf::write(&upgraded, &WriteOptions::default());
});
