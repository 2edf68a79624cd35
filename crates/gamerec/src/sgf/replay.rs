//! Playing games: to any node, and checking every move of a tree.
//!
//! Node paths name a node the way a reader would: `main line move 57`
//! (the 57th node below the root on the main line), `main line move 57,
//! variation 2` (the second child at that depth, i.e. the first alternative
//! to main line move 57), `..., variation 2, move 60` (further down that
//! variation). Move numbers are depths below the root.

use super::checks::SgfCheck;
use super::go;
use super::othello;
use super::props::Prop;
use super::rules::{Ko, Rules};
use super::tree::{Collection, Color, NONE, Node, NodeId, Point, Value};
use crate::diag::{MAX_LISTED, NotListed, Severity};

/// A position of a supported game.
#[derive(Debug, Clone)]
pub enum Position {
    /// Go (GM\[1\]).
    Go(go::Board),
    /// Othello (GM\[2\]).
    Othello(othello::Board),
}

impl Position {
    /// The stone on `p`.
    pub fn get(&self, p: Point) -> Option<Color> {
        match self {
            Position::Go(b) => b.get(p),
            Position::Othello(b) => b.get(p),
        }
    }

    /// Board columns and rows.
    pub fn size(&self) -> (u32, u32) {
        match self {
            Position::Go(b) => (b.width(), b.height()),
            Position::Othello(b) => (b.width(), b.height()),
        }
    }
}

/// The state after playing to a node.
#[derive(Debug, Clone)]
pub struct State {
    /// The board.
    pub position: Position,
    /// Who moves next (`PL`, else the opponent of the last mover).
    pub to_play: Color,
    /// Moves played on the way (B/W properties).
    pub moves: u32,
    /// The last move played, if any (`None` inside = pass).
    pub last_move: Option<(Color, Option<Point>)>,
    /// The Go rules from the root's `RU` (suicide, ko).
    pub rules: Rules,
    /// Hashes of the positions of the line so far (superko rules only):
    /// a hash set, so a long game's superko checks stay linear.
    history: std::collections::HashSet<u64, BuildZobrist>,
    /// The hashes put into `history`, in order: a walk of the tree comes
    /// back to a branch by taking out those added after it.
    added: Vec<u64>,
}

impl State {
    /// Records a position for superko; whether it was new to the line.
    fn remember(&mut self, hash: u64) -> bool {
        let new = self.history.insert(hash);
        if new {
            self.added.push(hash);
        }
        new
    }

    /// Forgets the positions recorded after the first `mark`.
    fn forget_after(&mut self, mark: usize) {
        for hash in self.added.drain(mark.min(self.added.len())..) {
            self.history.remove(&hash);
        }
    }

    /// What a walk keeps to come back to this state: the board without
    /// its chains, the counters, and where the superko record stands.
    fn keep(&self) -> Kept {
        Kept {
            position: match &self.position {
                Position::Go(b) => KeptBoard::Go(b.stones()),
                Position::Othello(b) => KeptBoard::Othello(b.clone()),
            },
            to_play: self.to_play,
            moves: self.moves,
            last_move: self.last_move,
            recorded: self.added.len(),
        }
    }

    /// Comes back to `kept`, taken on this line (the superko record holds
    /// its positions and later ones).
    fn restore(&mut self, kept: &Kept) {
        match (&mut self.position, &kept.position) {
            (Position::Go(b), KeptBoard::Go(stones)) => b.restore(stones),
            (Position::Othello(b), KeptBoard::Othello(k)) => b.clone_from(k),
            _ => debug_assert!(false, "a kept state of another game"),
        }
        self.to_play = kept.to_play;
        self.moves = kept.moves;
        self.last_move = kept.last_move;
        self.forget_after(kept.recorded);
    }
}

/// A state kept by [`check_game`]'s walk at a branch ([`State::keep`]).
#[derive(Debug, Clone)]
struct Kept {
    position: KeptBoard,
    to_play: Color,
    moves: u32,
    last_move: Option<(Color, Option<Point>)>,
    recorded: usize,
}

#[derive(Debug, Clone)]
enum KeptBoard {
    Go(go::Stones),
    Othello(othello::Board),
}

/// The hasher of [`State`]'s position set: the keys are already Zobrist
/// hashes, used as they are.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuildZobrist;

/// See [`BuildZobrist`].
#[derive(Debug, Default)]
pub struct ZobristHasher(u64);

impl std::hash::Hasher for ZobristHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl std::hash::BuildHasher for BuildZobrist {
    type Hasher = ZobristHasher;
    fn build_hasher(&self) -> ZobristHasher {
        ZobristHasher(0)
    }
}

/// A rule broken by a move or setup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// The node.
    pub node: NodeId,
    /// Its path, e.g. `game 1, main line move 57, variation 2`.
    pub path: String,
    /// Byte offset of the offending property in the input.
    pub offset: u32,
    /// What is wrong.
    pub message: String,
    /// A note (unknown rules, setup without effect), not a broken rule.
    pub warning: bool,
    /// The kind of problem.
    pub check: SgfCheck,
    /// For a [`SgfCheck::NotListed`] message, the messages it counts.
    pub not_listed: NotListed,
}

/// The kind of a rule error from its message (messages of this file).
fn rule_check(message: &str) -> SgfCheck {
    if message.starts_with("setup point") {
        SgfCheck::OffBoard
    } else if message.contains("move value is not a point") {
        SgfCheck::MoveNotPoint
    } else {
        SgfCheck::IllegalMove
    }
}

/// Points named at most in one message of [`setup_without_effect`].
const SHOWN_POINTS: usize = 8;

/// `AB`/`AW`/`AE` points of `node` that already are as the property makes
/// them (SGFC's warning 39), in the position before the node.
fn setup_without_effect(coll: &Collection, node: NodeId, state: &State) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let n = &coll.nodes[node.0 as usize];
    if n.props_len == 1 && matches!(coll.props[n.props_start as usize].prop, Prop::B | Prop::W) {
        return out;
    }
    for p in coll.properties(node) {
        let want = match p.prop() {
            Prop::AB => Some(Color::Black),
            Prop::AW => Some(Color::White),
            Prop::AE => None,
            _ => continue,
        };
        let mut pts = Vec::new();
        for &v in p.values() {
            points(v, &mut pts);
        }
        let (w, h) = state.position.size();
        let same = pts
            .iter()
            .filter(|pt| u32::from(pt.x) < w && u32::from(pt.y) < h)
            .filter(|&&pt| {
                let now = match &state.position {
                    Position::Go(b) => b.get(pt),
                    Position::Othello(b) => b.get(pt),
                };
                now == want
            });
        // The points named, the first few of them: a compressed list
        // (`AE[aa:ZZ]`) covers thousands, and a message stays short.
        let mut named = Vec::new();
        let mut more = 0usize;
        for pt in same {
            if named.len() < SHOWN_POINTS {
                named.push(pt.to_string());
            } else {
                more += 1;
            }
        }
        if !named.is_empty() {
            let what = match want {
                Some(Color::Black) => "black",
                Some(Color::White) => "white",
                None => "empty",
            };
            let more = if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            };
            out.push((
                p.offset(),
                format!(
                    "{}[{}]{more} has no effect: already {what}",
                    p.prop().name(),
                    named.join("][")
                ),
            ));
        }
    }
    out
}

/// Whether GM is a game with rules here.
pub fn supported(gm: u32) -> bool {
    gm == 1 || gm == 2
}

/// The position before the root node's properties are applied.
pub fn initial(coll: &Collection, root: NodeId) -> Option<State> {
    initial_on(coll, root, &mut None)
}

/// [`initial`], on the Go board `spare` when it holds one (reset, not
/// allocated again).
fn initial_on(coll: &Collection, root: NodeId, spare: &mut Option<go::Board>) -> Option<State> {
    let info = coll.game_info(root);
    let position = match info.gm {
        1 => Position::Go(match spare.take() {
            Some(mut b) => {
                b.reset(info.width, info.height);
                b
            }
            None => go::Board::new(info.width, info.height),
        }),
        2 => {
            let has_setup =
                coll.get(root, Prop::AB).is_some() || coll.get(root, Prop::AW).is_some();
            if has_setup {
                Position::Othello(othello::Board::empty(info.width, info.height))
            } else {
                Position::Othello(othello::Board::standard(info.width, info.height))
            }
        }
        _ => return None,
    };
    let rules = match coll.text_of(root, Prop::RU) {
        Some(ru) if info.gm == 1 => Rules::from_ru(ru).unwrap_or_else(|(r, _)| r),
        _ => Rules::DEFAULT,
    };
    let mut position = position;
    if let Position::Go(b) = &mut position
        && rules.ko != Ko::Simple
    {
        // Superko reads the hash after every move.
        b.keep_zobrist();
    }
    Some(State {
        position,
        to_play: Color::Black,
        moves: 0,
        last_move: None,
        rules,
        history: Default::default(),
        added: Vec::new(),
    })
}

/// A Zobrist-style hash of a Go position (with the player to move for
/// situational superko): the board's own hash, kept by every move.
fn position_hash(b: &go::Board, next: Option<Color>) -> u64 {
    b.zobrist()
        ^ match next {
            Some(Color::Black) => 0x9e37_79b9_7f4a_7c15,
            Some(Color::White) => 0x6a09_e667_f3bc_c909,
            None => 0,
        }
}

/// Records the position for superko; returns whether it repeats an
/// earlier one of the line.
fn superko_repeats(state: &mut State, mover: Color) -> bool {
    let Position::Go(b) = &state.position else {
        return false;
    };
    let next = match state.rules.ko {
        Ko::Simple => return false,
        Ko::PositionalSuperko => None,
        Ko::SituationalSuperko => Some(mover.opponent()),
    };
    let h = position_hash(b, next);
    !state.remember(h)
}

/// Starts the superko history with the position after setup.
fn superko_setup(state: &mut State) {
    if state.rules.ko == Ko::Simple {
        return;
    }
    if let Position::Go(b) = &state.position {
        let next = (state.rules.ko == Ko::SituationalSuperko).then_some(state.to_play);
        let h = position_hash(b, next);
        state.remember(h);
    }
}

fn points(v: Value, out: &mut Vec<Point>) {
    match v {
        Value::Point(p) => out.push(p),
        Value::Rect(a, b) => {
            for y in a.y.min(b.y)..=a.y.max(b.y) {
                for x in a.x.min(b.x)..=a.x.max(b.x) {
                    out.push(Point::new(x, y));
                }
            }
        }
        _ => {}
    }
}

/// Applies one node (setup, then move) to `state`; rule errors go to `errors`.
pub fn apply_node(
    coll: &Collection,
    node: NodeId,
    state: &mut State,
    errors: &mut Vec<(u32, String)>,
) {
    // Fast path: a node holding one move and nothing else (almost every
    // node of a game record).
    let n = &coll.nodes[node.0 as usize];
    if n.props_len == 1 {
        let p = &coll.props[n.props_start as usize];
        let color = match p.prop {
            Prop::B => Some(Color::Black),
            Prop::W => Some(Color::White),
            _ => None,
        };
        if let Some(color) = color
            && p.values_len >= 1
        {
            let value = coll.values[p.values_start as usize];
            play_move(state, color, value, p.offset, false, errors);
            return;
        }
    }
    let mut changes: Vec<(Point, Option<Color>)> = Vec::new();
    let mut mv: Option<(Color, Value, u32)> = None;
    let mut forced = false;
    let mut setup_offset = 0;
    for p in coll.properties(node) {
        let set = match p.prop() {
            Prop::AB => Some(Some(Color::Black)),
            Prop::AW => Some(Some(Color::White)),
            Prop::AE => Some(None),
            Prop::B => {
                mv.get_or_insert((Color::Black, p.value(), p.offset()));
                None
            }
            Prop::W => {
                mv.get_or_insert((Color::White, p.value(), p.offset()));
                None
            }
            Prop::KO => {
                forced = true;
                None
            }
            Prop::PL => {
                if let Value::Color(c) = p.value() {
                    state.to_play = c;
                }
                None
            }
            _ => None,
        };
        if let Some(c) = set {
            setup_offset = p.offset();
            let mut pts = Vec::new();
            for &v in p.values() {
                points(v, &mut pts);
            }
            changes.extend(pts.into_iter().map(|pt| (pt, c)));
        }
    }
    if !changes.is_empty() {
        match &mut state.position {
            Position::Go(b) => {
                if let Err(p) = b.setup(&changes) {
                    errors.push((
                        setup_offset,
                        format!(
                            "setup point {p} is off the {}x{} board",
                            b.width(),
                            b.height()
                        ),
                    ));
                }
            }
            Position::Othello(b) => {
                for &(p, c) in &changes {
                    if !b.set(p, c) {
                        errors.push((setup_offset, format!("setup point {p} is off the board")));
                    }
                }
            }
        }
        superko_setup(state);
    }
    if let Some((color, value, offset)) = mv {
        play_move(state, color, value, offset, forced, errors);
    }
}

/// Fast path of [`apply_node`] for the commonest node: one Go move and
/// nothing else (the same effect, rule errors included). Returns false,
/// having changed nothing, for any other node.
#[inline(always)]
fn quick_go_move(
    coll: &Collection,
    n: &Node,
    state: &mut State,
    errors: &mut Vec<(u32, String)>,
) -> bool {
    let Some((color, point)) = lone_move(coll, n) else {
        return false;
    };
    let Position::Go(b) = &mut state.position else {
        return false;
    };
    let illegal = b.play(color, Some(point)).illegal;
    if (illegal.is_some() || state.rules.ko != Ko::Simple)
        && let Some(why) = go_verdict(state, color, Some(point), illegal)
    {
        errors.push((
            coll.props[n.props_start as usize].offset,
            format!("illegal move {}[{point}]: {why}", color.letter()),
        ));
    }
    state.moves += 1;
    state.to_play = color.opponent();
    state.last_move = Some((color, Some(point)));
    true
}

/// The move of the only child of node `at` when that child is a node of
/// one move (`B` or `W` with a point) and nothing else: the child, the
/// colour and the point (in one word).
#[inline(always)]
fn next_move(coll: &Collection, at: u32) -> Option<(u32, Color, Point)> {
    let first = coll.nodes[at as usize].first_child;
    if first == NONE {
        return None;
    }
    let n = &coll.nodes[first as usize];
    if n.next_sibling != NONE {
        return None;
    }
    let (color, point) = lone_move(coll, n)?;
    Some((first, color, point))
}

/// The move of node `n` when it is one move (`B` or `W` with a point) and
/// nothing else.
#[inline(always)]
fn lone_move(coll: &Collection, n: &Node) -> Option<(Color, Point)> {
    if n.props_len != 1 {
        return None;
    }
    let p = &coll.props[n.props_start as usize];
    let color = match p.prop {
        Prop::B => Color::Black,
        Prop::W => Color::White,
        _ => return None,
    };
    if p.values_len == 0 {
        return None;
    }
    let Value::Point(point) = coll.values[p.values_start as usize] else {
        return None;
    };
    Some((color, point))
}

/// [`quick_go_move`] on `node`, then on its only child, and so on down
/// the line while each node is such a move (under simple ko, until a rule
/// is broken): `node` becomes the last node played, `depth` grows by the
/// nodes gone down. Returns false, having
/// changed nothing, when `node` itself is not such a node.
#[inline(always)]
fn quick_go_run(
    coll: &Collection,
    node: &mut NodeId,
    state: &mut State,
    errors: &mut Vec<(u32, String)>,
    depth: &mut u32,
) -> bool {
    if !quick_go_move(coll, &coll.nodes[node.0 as usize], state, errors) {
        return false;
    }
    let State {
        position: Position::Go(b),
        moves,
        to_play,
        last_move,
        rules,
        ..
    } = state
    else {
        return true;
    };
    if rules.ko != Ko::Simple {
        // Superko: `go_verdict` records every position.
        return true;
    }
    if !errors.is_empty() {
        return true;
    }
    // The walk's node, the count and the last move are kept in locals and
    // stored once at the end (not after every move). Each move is read
    // from the tree before the board plays the one before it (reading
    // changes nothing): those loads then come first in program order, so
    // a mispredicted branch of the board does not throw them away to be
    // done again after it.
    let mut at = node.0;
    let mut played = 0;
    let mut last = None;
    let mut next = next_move(coll, at);
    while let Some((id, color, point)) = next {
        at = id;
        played += 1;
        last = Some((color, point));
        next = next_move(coll, id);
        // `go_verdict` under simple ko: the board's verdict. A broken rule
        // ends the run (its error is reported at this node).
        if let Some(why) = board_verdict(b.play(color, Some(point)).illegal, rules) {
            let n = &coll.nodes[id as usize];
            errors.push((
                coll.props[n.props_start as usize].offset,
                format!("illegal move {}[{point}]: {why}", color.letter()),
            ));
            break;
        }
    }
    if let Some((color, point)) = last {
        *node = NodeId(at);
        *depth += played;
        *moves += played;
        *to_play = color.opponent();
        *last_move = Some((color, Some(point)));
    }
    true
}

/// The board's verdict `illegal` on a Go move under `rules`: a suicide is
/// legal where the rules allow it.
#[inline(always)]
fn board_verdict(illegal: Option<go::Illegal>, rules: &Rules) -> Option<go::Illegal> {
    illegal.filter(|&why| !(why == go::Illegal::Suicide && rules.suicide))
}

/// The rule a Go move just played broke under the game's rules, if any:
/// the board's verdict `illegal` (suicide allowed by some rules), then
/// superko (the position is recorded for it).
fn go_verdict(
    state: &mut State,
    color: Color,
    point: Option<Point>,
    illegal: Option<go::Illegal>,
) -> Option<String> {
    let mut why = board_verdict(illegal, &state.rules).map(|w| w.to_string());
    if point.is_some() && superko_repeats(state, color) && why.is_none() {
        why = Some(format!(
            "it repeats an earlier position ({} superko under {} rules)",
            if state.rules.ko == Ko::PositionalSuperko {
                "positional"
            } else {
                "situational"
            },
            state.rules
        ));
    }
    why
}

/// Plays move `value` of `color` (the property at `offset`); `forced` (`KO`)
/// silences rule errors.
fn play_move(
    state: &mut State,
    color: Color,
    value: Value,
    offset: u32,
    forced: bool,
    errors: &mut Vec<(u32, String)>,
) {
    let point = match value {
        Value::Point(p) => Some(p),
        Value::Pass | Value::None => None,
        _ => {
            errors.push((
                offset,
                format!("{} move value is not a point", color.letter()),
            ));
            return;
        }
    };
    let name = |p: Option<Point>| p.map_or_else(|| "pass".to_string(), |p| p.to_string());
    match &mut state.position {
        Position::Go(b) => {
            let illegal = b.play(color, point).illegal;
            if let Some(why) = go_verdict(state, color, point, illegal)
                && !forced
            {
                errors.push((
                    offset,
                    format!("illegal move {}[{}]: {why}", color.letter(), name(point)),
                ));
            }
        }
        Position::Othello(b) => {
            if let Err(why) = b.play(color, point)
                && !forced
            {
                errors.push((
                    offset,
                    format!("illegal move {}[{}]: {why}", color.letter(), name(point)),
                ));
            }
        }
    }
    state.moves += 1;
    state.to_play = color.opponent();
    state.last_move = Some((color, point));
}

/// Plays from the root to `node` (root, then each node on the path).
pub fn play_to(coll: &Collection, node: NodeId) -> Option<(State, Vec<(u32, String)>)> {
    let root = coll.root_of(node);
    let mut state = initial(coll, root)?;
    let mut path = vec![node];
    let mut n = node;
    while let Some(p) = coll.parent(n) {
        path.push(p);
        n = p;
    }
    let mut errors = Vec::new();
    superko_setup(&mut state);
    for &id in path.iter().rev() {
        apply_node(coll, id, &mut state, &mut errors);
    }
    Some((state, errors))
}

/// Checks every move and setup of the game under `root` (all variations).
pub fn check_game(coll: &Collection, root: NodeId, game_number: usize) -> Vec<RuleError> {
    check_game_with(coll, root, game_number, true, false, &mut None)
}

/// [`check_game`] plus SGFC's notes on the replay (warnings): setup that
/// changes nothing (`AB` on a black stone, `AE` on an empty point).
pub fn check_game_notes(coll: &Collection, root: NodeId, game_number: usize) -> Vec<RuleError> {
    check_game_with(coll, root, game_number, true, true, &mut None)
}

/// What [`check_game_notes_reusing`] keeps from game to game: the last Go
/// board (reset for the next game instead of allocated and filled anew).
#[derive(Debug, Default)]
pub struct ReplayBuffers {
    board: Option<go::Board>,
}

/// [`check_game_notes`] on the board kept in `buffers` (the same result).
pub fn check_game_notes_reusing(
    coll: &Collection,
    root: NodeId,
    game_number: usize,
    buffers: &mut ReplayBuffers,
) -> Vec<RuleError> {
    check_game_with(coll, root, game_number, true, true, &mut buffers.board)
}

/// [`check_game`] without its fast path for move nodes: for tests comparing
/// the two.
#[doc(hidden)]
pub fn check_game_general_path(
    coll: &Collection,
    root: NodeId,
    game_number: usize,
) -> Vec<RuleError> {
    check_game_with(coll, root, game_number, false, false, &mut None)
}

/// [`check_game`], with or without the fast path for move nodes (off only
/// in tests comparing the two), on the Go board `spare` if it holds one;
/// a Go game leaves its board there.
fn check_game_with(
    coll: &Collection,
    root: NodeId,
    game_number: usize,
    quick: bool,
    notes: bool,
    spare: &mut Option<go::Board>,
) -> Vec<RuleError> {
    let mut out = Vec::new();
    let Some(mut state) = initial_on(coll, root, spare) else {
        return out;
    };
    if let Some(ru) = coll.get(root, Prop::RU)
        && coll.game_info(root).gm == 1
        && let Some(text) = coll.text_of(root, Prop::RU)
        && let Err((_, note)) = Rules::from_ru(text)
    {
        out.push(RuleError {
            node: root,
            path: node_path(coll, root, game_number),
            offset: ru.offset(),
            message: note,
            warning: true,
            check: SgfCheck::Rules,
            not_listed: NotListed::default(),
        });
    }
    // The result's note goes here, once the walk has found the main line's
    // last node (the first leaf: first children are visited first).
    let result_note_at = out.len();
    let mut main_end = None;
    if state.rules.ko != Ko::Simple {
        // Room for every position of the main line at once, not grown by
        // rehashing as the line is played (a variation's copy keeps it).
        let main_line = coll.main_line_nodes(root).count();
        state.history.reserve(main_line);
        state.added.reserve(main_line);
    }
    superko_setup(&mut state);
    // The walk goes to first children first; at a node of more children
    // the others wait on `branches`. A branch keeps its state ([`Kept`]: the
    // board without its chains) only when the nearest state kept above it
    // is [`KEEP_EVERY`] or more nodes up; coming back to a branch without
    // one plays again the nodes from that state down to it. Memory stays a
    // fraction of the tree's, and time linear, however the tree branches
    // (a state per alternative made a file of 200,000 one-move variations
    // take a gigabyte, and the superko record copied at every branch of a
    // deep tree made it quadratic).
    let start = state.keep();
    let mut branches: Vec<Branch> = Vec::new();
    let mut errors = Vec::new();
    let mut replayed = Vec::new();
    let mut again: Vec<NodeId> = Vec::new();
    let mut paths = NodePaths::default();
    // Messages past [`MAX_LISTED`]: counted, with where the first was.
    let mut not_listed = NotListed::default();
    let mut first_not_listed = None;
    let mut node = root;
    let mut depth = 0u32;
    loop {
        if !(quick && quick_go_run(coll, &mut node, &mut state, &mut errors, &mut depth)) {
            if notes {
                for (offset, message) in setup_without_effect(coll, node, &state) {
                    if out.len() >= MAX_LISTED {
                        not_listed.count(Severity::Warning);
                        first_not_listed.get_or_insert((node, offset));
                        continue;
                    }
                    out.push(RuleError {
                        node,
                        path: paths.path(coll, node, game_number),
                        offset,
                        message,
                        warning: true,
                        check: SgfCheck::SetupNoEffect,
                        not_listed: NotListed::default(),
                    });
                }
            }
            apply_node(coll, node, &mut state, &mut errors);
        }
        if !errors.is_empty() {
            for (offset, message) in errors.drain(..) {
                if out.len() >= MAX_LISTED {
                    not_listed.count(Severity::Error);
                    first_not_listed.get_or_insert((node, offset));
                    continue;
                }
                out.push(RuleError {
                    node,
                    path: paths.path(coll, node, game_number),
                    offset,
                    check: rule_check(&message),
                    message,
                    warning: false,
                    not_listed: NotListed::default(),
                });
            }
        }
        let n = &coll.nodes[node.0 as usize];
        if n.first_child != NONE {
            let first = n.first_child;
            let second = coll.nodes[first as usize].next_sibling;
            if second != NONE {
                let base = branches.last().and_then(|b| {
                    if b.kept.is_some() {
                        Some(branches.len() - 1)
                    } else {
                        b.base
                    }
                });
                // Nodes to play again from the nearest kept state (the
                // start is before the root, at depth -1).
                let distance = match base {
                    Some(i) => depth - branches[i].depth,
                    None => depth + 1,
                };
                let keep = distance >= KEEP_EVERY;
                branches.push(Branch {
                    node,
                    depth,
                    next: second,
                    kept: keep.then(|| state.keep()),
                    base: if keep { None } else { base },
                });
            }
            node = NodeId(first);
            depth += 1;
        } else {
            main_end.get_or_insert(node);
            let Some(top) = branches.last_mut() else {
                break;
            };
            let child = top.next;
            top.next = coll.nodes[child as usize].next_sibling;
            let (at, at_depth) = (top.node, top.depth);
            let i = branches.len() - 1;
            if let Some(kept) = &branches[i].kept {
                state.restore(kept);
            } else {
                // Back to the kept state above, then down to the branch.
                let from = match branches[i].base {
                    Some(j) => {
                        state.restore(branches[j].kept.as_ref().expect("a kept base"));
                        Some(branches[j].node)
                    }
                    None => {
                        state.restore(&start);
                        None
                    }
                };
                again.clear();
                let mut up = Some(at);
                while let Some(n) = up
                    && Some(n) != from
                {
                    again.push(n);
                    up = coll.parent(n);
                }
                crate::work::count(again.len() as u64);
                for &n in again.iter().rev() {
                    apply_node(coll, n, &mut state, &mut replayed);
                }
                replayed.clear();
            }
            if branches[i].next == NONE {
                branches.pop();
            }
            node = NodeId(child);
            depth = at_depth + 1;
        }
    }
    if let Some((node, offset)) = first_not_listed {
        out.push(RuleError {
            node,
            path: paths.path(coll, node, game_number),
            offset,
            message: not_listed.message("the rule check", "game"),
            warning: not_listed.errors == 0,
            check: SgfCheck::NotListed,
            not_listed,
        });
    }
    if notes
        && let Some(last) = main_end
        && let Some(e) = result_vs_score(coll, root, last, game_number)
    {
        out.insert(result_note_at, e);
    }
    if let Position::Go(b) = state.position {
        *spare = Some(b);
    }
    out
}

/// The count of the main line's last node when it marks territory
/// (`TB`/`TW`), under the root's rules (`RU`) and komi (`KM`, else 0);
/// `None` for other games.
pub fn final_score(coll: &Collection, root: NodeId) -> Option<super::score::Score> {
    let mut last = root;
    while let Some(c) = coll.first_child(last) {
        last = c;
    }
    score_at(coll, root, last)
}

/// [`final_score`] with the main line's last node `last` known.
fn score_at(coll: &Collection, root: NodeId, last: NodeId) -> Option<super::score::Score> {
    if coll.game_info(root).gm != 1 {
        return None;
    }
    let marks = |prop: Prop| -> Vec<Point> {
        let mut pts = Vec::new();
        if let Some(p) = coll.get(last, prop) {
            for &v in p.values() {
                points(v, &mut pts);
            }
        }
        pts
    };
    let (tb, tw) = (marks(Prop::TB), marks(Prop::TW));
    if tb.is_empty() && tw.is_empty() {
        return None;
    }
    let (state, _) = play_to(coll, last)?;
    let Position::Go(board) = &state.position else {
        return None;
    };
    let komi = match coll.get(root, Prop::KM).map(|p| p.value()) {
        Some(Value::Real(k)) => k,
        Some(Value::Number(k)) => k as f64,
        _ => 0.0,
    };
    Some(super::score::score_with_marks(
        board,
        &tb,
        &tw,
        state.rules.scoring,
        komi,
    ))
}

/// A warning when the root's `RE` (points, a draw, or a bare winner)
/// disagrees with [`final_score`] (`last`: the main line's last node).
fn result_vs_score(
    coll: &Collection,
    root: NodeId,
    last: NodeId,
    game_number: usize,
) -> Option<RuleError> {
    use super::score::Outcome;
    let re = coll.get(root, Prop::RE)?;
    let outcome = Outcome::parse(coll.text_of(root, Prop::RE)?)?;
    let score = score_at(coll, root, last)?;
    let agrees = match outcome {
        Outcome::Points(c, m) => {
            score.winner() == Some(c) && (score.margin().abs() - m).abs() < 1e-9
        }
        Outcome::Draw => score.winner().is_none(),
        Outcome::Won(c) => score.winner() == Some(c),
        _ => return None,
    };
    (!agrees).then(|| RuleError {
        node: root,
        path: node_path(coll, root, game_number),
        offset: re.offset(),
        message: format!("RE[{outcome}] but the final TB/TW marks count {score}"),
        warning: true,
        check: SgfCheck::ResultVsScore,
        not_listed: NotListed::default(),
    })
}

/// At most this many nodes are played again to come back to a branch of
/// [`check_game`]'s walk (see there).
const KEEP_EVERY: u32 = 16;

/// A node of [`check_game`]'s walk with children still to visit.
#[derive(Debug)]
struct Branch {
    node: NodeId,
    depth: u32,
    /// The next child to visit.
    next: u32,
    /// The state after the node, when kept.
    kept: Option<Kept>,
    /// Else the branch below on the stack whose state is kept (none: the
    /// walk's start).
    base: Option<usize>,
}

/// The readable path of a node: `game 1, main line move 57, variation 2`.
///
/// For the paths of many nodes of one tree keep a [`NodePaths`]: it works
/// out each node's place once.
pub fn node_path(coll: &Collection, node: NodeId, game_number: usize) -> String {
    NodePaths::default().path(coll, node, game_number)
}

/// The paths of the nodes of a collection ([`node_path`]), each in
/// constant time after the first: each node's depth, child number and the
/// branch points above it are worked out once and kept (for the nodes whose
/// paths are asked for and those above them only).
#[derive(Debug, Default)]
pub struct NodePaths {
    known: std::collections::HashMap<u32, Above>,
    /// By node: its number among its parent's children (all of them
    /// numbered at once).
    child: std::collections::HashMap<u32, u32>,
    up: Vec<u32>,
    turns: Vec<(u32, u32)>,
}

/// What [`NodePaths`] keeps of a node.
#[derive(Debug, Clone, Copy)]
struct Above {
    depth: u32,
    /// The nearest node at or above it that is not a first child ([`NONE`]:
    /// none, it is on the main line).
    turn: u32,
    /// How many such nodes there are at or above it.
    turns: u32,
    /// The [`SHOWN_TURNS`]th of them from the root ([`NONE`] if fewer).
    shown: u32,
}

impl NodePaths {
    /// The path of `node` ([`node_path`]'s text).
    pub fn path(&mut self, coll: &Collection, node: NodeId, game_number: usize) -> String {
        // Up to the first node worked out (or the root), then down again.
        self.up.clear();
        let mut n = node.0;
        while !self.known.contains_key(&n) {
            self.up.push(n);
            let p = coll.nodes[n as usize].parent;
            if p == NONE {
                break;
            }
            n = p;
        }
        crate::work::count(self.up.len() as u64);
        for &n in self.up.iter().rev() {
            let p = coll.nodes[n as usize].parent;
            if p == NONE {
                let root = Above {
                    depth: 0,
                    turn: NONE,
                    turns: 0,
                    shown: NONE,
                };
                self.known.insert(n, root);
                continue;
            }
            if !self.child.contains_key(&n) {
                let mut k = 0;
                let mut c = coll.nodes[p as usize].first_child;
                while c != NONE {
                    self.child.insert(c, k);
                    k += 1;
                    c = coll.nodes[c as usize].next_sibling;
                }
                crate::work::count(u64::from(k));
            }
            let mut above = self.known[&p];
            above.depth += 1;
            if self.child[&n] != 0 {
                above.turn = n;
                above.turns += 1;
                if above.turns == SHOWN_TURNS as u32 {
                    above.shown = n;
                }
            }
            self.known.insert(n, above);
        }
        // The branch points from the node up: all of them, or the first
        // and the last SHOWN_TURNS.
        let above = self.known[&node.0];
        let elided = above.turns as usize > 2 * SHOWN_TURNS;
        let mut turns = std::mem::take(&mut self.turns);
        turns.clear();
        if elided {
            self.climb(coll, above.shown, SHOWN_TURNS, &mut turns);
            turns.reverse();
            let from = turns.len();
            self.climb(coll, above.turn, SHOWN_TURNS, &mut turns);
            turns[from..].reverse();
        } else {
            self.climb(coll, above.turn, usize::MAX, &mut turns);
            turns.reverse();
        }
        crate::work::count(turns.len() as u64);
        let path = format_path(game_number, above.depth, &turns, elided);
        self.turns = turns;
        path
    }

    /// Appends up to `n` branch points from `turn` up (depth, child number).
    fn climb(&self, coll: &Collection, mut turn: u32, n: usize, out: &mut Vec<(u32, u32)>) {
        let mut taken = 0;
        while turn != NONE && taken < n {
            out.push((self.known[&turn].depth, self.child[&turn]));
            taken += 1;
            turn = self.known[&coll.nodes[turn as usize].parent].turn;
        }
    }
}

/// Branch points shown at each end of a longer path (the others elided as
/// `...`, so a message stays short however deep the tree).
const SHOWN_TURNS: usize = 8;

/// `game 1, main line move 5, variation 2, move 9`: the game, each branch
/// point (the depth of the node that is not a first child, and its
/// 1-based child number) from the root down, and the node's depth. With
/// `elided`, `turns` holds the first and the last [`SHOWN_TURNS`] of them.
fn format_path(game_number: usize, depth: u32, turns: &[(u32, u32)], elided: bool) -> String {
    let mut s = format!("game {game_number}");
    if depth == 0 {
        s.push_str(", root node");
        return s;
    }
    for (k, &(d, i)) in turns.iter().enumerate() {
        if elided && k == SHOWN_TURNS {
            s.push_str(", ...");
        }
        let lead = if k == 0 {
            ", main line move "
        } else {
            ", move "
        };
        s.push_str(&format!("{lead}{d}, variation {}", i + 1));
    }
    if turns.last().map_or(0, |t| t.0) != depth {
        let lead = if turns.is_empty() {
            ", main line move "
        } else {
            ", move "
        };
        s.push_str(&format!("{lead}{depth}"));
    }
    s
}

/// Finds a node from a path: the integers in `path` alternate move depth and
/// variation number (`57`, `57,2`, `57,2,60`, or the text `node_path`
/// prints, with an optional leading `game N`). Returns (game index, node).
pub fn find_node(coll: &Collection, path: &str) -> Option<(usize, NodeId)> {
    let mut text = path.trim();
    let mut game = 0usize;
    if let Some(rest) = text.strip_prefix("game") {
        let rest = rest.trim_start();
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        game = rest[..end].parse::<usize>().ok()?.checked_sub(1)?;
        text = &rest[end..];
    }
    let nums: Vec<usize> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect::<Option<_>>()?;
    let root = *coll.roots.get(game)?;
    let mut node = root;
    let mut depth = 0usize;
    let mut k = 0;
    while k < nums.len() {
        let target = nums[k];
        if target < depth {
            return None;
        }
        let var = nums.get(k + 1).copied();
        // Walk the current line down to the parent of `target`, then choose
        // the variation (or the first child).
        while depth + 1 < target {
            node = coll.first_child(node)?;
            depth += 1;
        }
        if target == depth {
            if var.is_some() {
                return None;
            }
            break;
        }
        let choice = var.unwrap_or(1).checked_sub(1)?;
        node = coll.children(node).nth(choice)?;
        depth += 1;
        k += 2;
    }
    Some((game, node))
}

#[cfg(test)]
mod tests {
    //! The fast path of [`check_game`] against [`apply_node`] alone.
    use super::*;
    use crate::sgf::{ParseOptions, parse};

    /// Compares the two paths, the fast one on the board the last call
    /// left in `spare`; returns the number of rule errors.
    fn assert_same(src: &[u8], what: &str, spare: &mut Option<go::Board>) -> usize {
        let parsed = parse(src, &ParseOptions::default());
        let c = &parsed.collection;
        let mut errors = 0;
        for (g, &root) in c.roots.iter().enumerate() {
            let fast = check_game_with(c, root, g + 1, true, true, spare);
            let general = check_game_with(c, root, g + 1, false, true, &mut None);
            assert_eq!(fast, general, "{what}");
            errors += fast.len();
        }
        errors
    }

    #[test]
    fn the_result_is_compared_with_the_main_lines_last_node_only() {
        let game = |lines: &str| {
            format!(
                "(;FF[4]GM[1]SZ[5]KM[0.5]RU[Chinese]RE[B+3]\
                 AB[ba][bb][bc][bd][be]AW[da][db][dc][dd][de];B[]{lines})"
            )
        };
        let marks = "TB[aa][ab][ac][ad][ae]TW[ea][eb][ec][ed][ee]";
        let notes = |src: &str| {
            let parsed = parse(src.as_bytes(), &ParseOptions::default());
            let c = &parsed.collection;
            let notes = check_game_notes(c, c.roots[0], 1);
            // The walk's main line end is the one `final_score` finds.
            let score = final_score(c, c.roots[0]).map(|s| s.margin());
            let kinds: Vec<SgfCheck> = notes.iter().map(|e| e.check).collect();
            (kinds, score)
        };
        // Marks at the end of the main line: W+0.5 against RE[B+3].
        let (kinds, score) = notes(&game(&format!("(;W[];{marks})(;W[aa])")));
        assert_eq!(score, Some(-0.5));
        assert!(kinds.contains(&SgfCheck::ResultVsScore), "{kinds:?}");
        // The same marks in a variation only: nothing to compare.
        let (kinds, score) = notes(&game(&format!("(;W[aa])(;W[];{marks})")));
        assert_eq!(score, None);
        assert!(!kinds.contains(&SgfCheck::ResultVsScore), "{kinds:?}");
    }

    #[test]
    fn fast_path_replay_equals_general_path_on_the_corpus() {
        let (mut files, mut errors, mut spare) = (0, 0, None);
        for p in gamerec_testkit::files_with_extension(&gamerec_testkit::corpus("sgf"), "sgf") {
            errors += assert_same(
                &std::fs::read(&p).unwrap(),
                &p.to_string_lossy(),
                &mut spare,
            );
            files += 1;
        }
        assert!(files > 4600, "{files}");
        assert!(errors > 0);
    }

    #[test]
    fn fast_path_replay_equals_general_path_on_random_games() {
        // Random moves on small boards: captures, suicides, ko, occupied
        // and off-board points, passes, setup and variations.
        let mut seed = 3u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let (mut errors, mut spare) = (0, None);
        for game in 0..400 {
            let size = 2 + next(8);
            let mut src = format!("(;GM[1]SZ[{size}]");
            let mut open = 0;
            for _ in 0..next(300) {
                let letter = |k: u64| (b'a' + k as u8) as char;
                let (x, y) = (letter(next(size + 1)), letter(next(size + 1)));
                match next(30) {
                    0 => src.push_str(&format!(";AB[{x}{y}]")),
                    1 => src.push_str(&format!(";AE[{x}{y}]W[{y}{x}]")),
                    2 => src.push_str(";B[]"),
                    3 => src.push_str(&format!(";KO[]B[{x}{y}]")),
                    4 => {
                        src.push('(');
                        open += 1;
                    }
                    5 if open > 0 => {
                        src.push_str(&format!(";W[{x}{y}])"));
                        open -= 1;
                    }
                    k => src.push_str(&format!(";{}[{x}{y}]", if k % 2 == 0 { 'B' } else { 'W' })),
                }
            }
            src.push_str(";B[aa]");
            src.push_str(&")".repeat(open + 1));
            errors += assert_same(src.as_bytes(), &format!("game {game}: {src}"), &mut spare);
        }
        assert!(errors > 10_000, "{errors}");
    }
}
