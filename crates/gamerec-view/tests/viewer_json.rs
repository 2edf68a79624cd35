//! The viewer's data on real files: valid JSON, one entry per node, each
//! board the replayed position; damaged input draws without panicking.

use gamerec::model::NodeId;
use gamerec::sgf::replay::play_to;
use gamerec::sgf::{ParseOptions, Point, parse};
use gamerec_view::diagram::{DiagramOptions, sgf_svg};
use gamerec_view::viewer::{chess_game_json, json_string, sgf_games_json};

fn board_string(coll: &gamerec::sgf::Collection, node: gamerec::sgf::NodeId) -> String {
    let (state, _) = play_to(coll, node).unwrap();
    let (w, h) = state.position.size();
    let mut s = String::new();
    for y in 0..h {
        for x in 0..w {
            s.push(match state.position.get(Point::new(x as u8, y as u8)) {
                Some(gamerec::sgf::Color::Black) => 'B',
                Some(gamerec::sgf::Color::White) => 'W',
                None => '.',
            });
        }
    }
    s
}

#[test]
fn sgf_corpus_games_become_viewer_data() {
    let files = gamerec_testkit::files_with_extension(&gamerec_testkit::corpus("sgf"), "sgf");
    assert!(files.len() > 10);
    let mut games = 0;
    for file in files.iter().step_by((files.len() / 80).max(1)) {
        let coll = parse(&std::fs::read(file).unwrap(), &ParseOptions::default()).collection;
        let (json, skipped) = sgf_games_json(&coll);
        let drawable: Vec<_> = coll
            .roots
            .iter()
            .copied()
            .filter(|&r| gamerec::sgf::replay::supported(coll.game_info(r).gm))
            .collect();
        assert_eq!(json.len() + skipped, coll.roots.len());
        for (text, &root) in json.iter().zip(&drawable) {
            let v: serde_json::Value = serde_json::from_str(text).unwrap_or_else(|e| {
                panic!("{}: {e}", file.display());
            });
            let nodes = v["nodes"].as_array().unwrap();
            assert_eq!(
                nodes.len(),
                coll.preorder(root).count(),
                "{}",
                file.display()
            );
            // Pre-order: the main line is 0, k[0], k[0]...; its boards are
            // the replayed positions.
            let line = coll.main_line(root);
            let mut i = 0usize;
            for (depth, &id) in line.iter().enumerate() {
                assert_eq!(
                    nodes[i]["b"],
                    board_string(&coll, id),
                    "{} move {depth}",
                    file.display()
                );
                match nodes[i]["k"].get(0) {
                    Some(k) => i = k.as_u64().unwrap() as usize,
                    None => assert_eq!(depth + 1, line.len()),
                }
            }
            // Parents and children agree.
            for (j, n) in nodes.iter().enumerate() {
                for k in n["k"].as_array().unwrap() {
                    assert_eq!(nodes[k.as_u64().unwrap() as usize]["p"], j);
                }
            }
            games += 1;
        }
    }
    assert!(games > 20, "{games}");
}

#[test]
fn pgn_corpus_games_become_viewer_data() {
    let path = gamerec_testkit::corpus("pgn/lichess_db_1000k.pgn");
    let data = std::fs::read(&path).unwrap();
    // The first few hundred games.
    let cut = data.len().min(400_000);
    let (games, _) = gamerec::pgn::read_games(&data[..cut]);
    assert!(games.len() > 100);
    for game in &games {
        let v: serde_json::Value = serde_json::from_str(&chess_game_json(game)).unwrap();
        let nodes = v["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), game.tree.len());
        if let Some(last) = game.tree.mainline().last() {
            let pos = game.position_at(last);
            use shakmaty::Position;
            assert_eq!(nodes[last.0 as usize]["b"], pos.board().to_string());
        }
        assert_eq!(nodes[0]["b"], {
            use shakmaty::Position;
            game.position_at(NodeId::ROOT).board().to_string()
        });
    }
}

/// Every prefix-truncated copy of a file with variations and marks still
/// draws every node (and builds viewer data) without panicking.
#[test]
fn damaged_sgf_draws_without_panic() {
    let files = gamerec_testkit::files_with_extension(&gamerec_testkit::corpus("sgf"), "sgf");
    let file = files
        .iter()
        .find(|f| {
            let t = std::fs::read(f).unwrap();
            t.windows(3).any(|w| w == b"LB[") && t.len() > 2000
        })
        .expect("a corpus file with labels");
    let data = std::fs::read(file).unwrap();
    for cut in (0..data.len()).step_by((data.len() / 40).max(1)) {
        let coll = parse(&data[..cut], &ParseOptions::default()).collection;
        let _ = sgf_games_json(&coll);
        for &root in &coll.roots {
            for id in coll.preorder(root).take(300) {
                let opts = DiagramOptions {
                    move_numbers: Some(1..=500),
                    ..DiagramOptions::default()
                };
                let _ = sgf_svg(&coll, id, &opts);
            }
        }
    }
}

#[test]
fn json_strings_cannot_close_the_script() {
    let s = json_string("</script><!-- \"quote\" \\ \u{2028} \u{1}");
    assert!(!s.contains('<') && !s.contains('>'));
    let back: String = serde_json::from_str(&s).unwrap();
    assert_eq!(back, "</script><!-- \"quote\" \\ \u{2028} \u{1}");
}

/// Titles name the players, else the opening, else the event.
#[test]
fn game_titles() {
    let pgn = "[White \"A\"]\n[Black \"?\"]\n\n1. e4 *\n\n\
               [White \"?\"]\n[Black \"?\"]\n[ECO \"B20\"]\n[Opening \"Sicilian\"]\n\n1. e4 c5 *\n\n\
               [Event \"Club\"]\n\n1. d4 *\n";
    let (games, _) = gamerec::pgn::read_games(pgn.as_bytes());
    let titles: Vec<String> = games
        .iter()
        .map(|g| {
            let v: serde_json::Value = serde_json::from_str(&chess_game_json(g)).unwrap();
            v["title"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(titles, ["A – ?", "B20 Sicilian", "Club"]);
}
