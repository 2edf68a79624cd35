//! The filter language: criteria on tags, result, positions, material and
//! endings, combined with `and`, `or`, `not` and parentheses.
//!
//! An atom is `NAME OP VALUE`. `NAME` is a tag name (case-sensitive), or one
//! of the pseudo-names `player` (White or Black), `elo` (WhiteElo or
//! BlackElo), `result` (the Result tag when it holds a result, else the
//! termination marker),
//! `fen`, `pattern`, `subfen`, `material`, `material-any`, `ended`. `OP`:
//!
//! | op | meaning |
//! |---|---|
//! | `=` `!=` (`<>`) | equal / not equal (an ECO value `A00-B99` is a range) |
//! | `^=` | starts with (pgn-extract's default tag match) |
//! | `*=` | contains |
//! | `~` `!~` | matches / does not match a regular expression |
//! | `<` `<=` `>` `>=` | numbers compare as numbers, dates (`Date`, `*Date`) by the query's precision (`1962`, `1962.05`), rounds (`3.1`) part by part, other text as text |
//!
//! A `VALUE` with spaces or parentheses is written in double quotes (`\"`
//! and `\\` escape). Games whose tag is missing never match a criterion on
//! it (except `!=` and `!~`, which then hold).

use std::cell::OnceCell;

use gamerec::model::{Game, GameResult};
use regex::Regex;
use shakmaty::{Chess, Position};

use crate::ending::{Ending, ending};
use crate::material::MaterialSpec;
use crate::pattern::Pattern;
use crate::position::{key, mainline, parse_query_fen, same_position};

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `^=`
    Prefix,
    /// `*=`
    Contains,
    /// `~`
    Regex,
    /// `!~`
    NotRegex,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

const OPS: [(&str, Op); 12] = [
    (">=", Op::Ge),
    ("<=", Op::Le),
    ("!=", Op::Ne),
    ("<>", Op::Ne),
    ("^=", Op::Prefix),
    ("*=", Op::Contains),
    ("!~", Op::NotRegex),
    ("==", Op::Eq),
    ("=", Op::Eq),
    ("<", Op::Lt),
    (">", Op::Gt),
    ("~", Op::Regex),
];

/// Which tag(s) a criterion reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TagRef {
    /// One tag by name.
    Tag(String),
    /// White or Black.
    Player,
    /// WhiteElo or BlackElo.
    Elo,
}

/// One criterion.
#[derive(Debug, Clone)]
pub enum Atom {
    /// A tag criterion.
    Tag {
        /// The tag(s).
        tag: TagRef,
        /// The operator.
        op: Op,
        /// The value as written.
        value: String,
        /// The compiled expression of `~` / `!~`.
        regex: Option<Regex>,
    },
    /// An ECO range (inclusive, compared on the prefixes' lengths).
    EcoRange(String, String),
    /// The game's result ([`game_result`]) is (`=`) or is not (`!=`) this one.
    Result(GameResult, bool),
    /// The main line reaches this position.
    Fen(Box<Chess>),
    /// Some main-line position matches this pattern.
    Pattern(Box<Pattern>),
    /// Some main-line position has this material.
    Material(Box<MaterialSpec>),
    /// The game ended this way.
    Ended(Ending),
}

/// A filter expression.
#[derive(Debug, Clone)]
pub enum Expr {
    /// Every game.
    True,
    /// One criterion.
    Atom(Atom),
    /// Negation.
    Not(Box<Expr>),
    /// All of these.
    And(Vec<Expr>),
    /// Any of these.
    Or(Vec<Expr>),
}

/// A game being tested: the main line is replayed once, on first need.
pub struct Subject<'a> {
    /// The game.
    pub game: &'a Game,
    positions: OnceCell<Vec<Chess>>,
    variant_boards: OnceCell<Option<Vec<shakmaty::Board>>>,
}

impl<'a> Subject<'a> {
    /// A subject for `game`.
    pub fn new(game: &'a Game) -> Subject<'a> {
        Subject {
            game,
            positions: OnceCell::new(),
            variant_boards: OnceCell::new(),
        }
    }

    /// The main-line positions, start first.
    pub fn positions(&self) -> &[Chess] {
        self.positions.get_or_init(|| mainline(self.game))
    }

    /// The main-line boards of a lichess variant game (by its rules),
    /// `None` for a standard game: patterns and material match them; FEN
    /// and ending criteria, which are standard chess, never match a
    /// variant game.
    pub fn variant_boards(&self) -> Option<&[shakmaty::Board]> {
        self.variant_boards
            .get_or_init(|| crate::position::variant_boards(self.game))
            .as_deref()
    }
}

impl Expr {
    /// Parses an expression (`--where`).
    pub fn parse(text: &str) -> Result<Expr, String> {
        let tokens = tokenize(text)?;
        let mut p = Parser {
            tokens,
            at: 0,
            depth: 0,
        };
        let e = p.or()?;
        if p.at < p.tokens.len() {
            return Err(format!(
                "unexpected {:?} in {:?}",
                p.tokens[p.at].text(),
                crate::position::short(text)
            ));
        }
        Ok(e)
    }

    /// All of `exprs` (`True` when empty).
    pub fn all(mut exprs: Vec<Expr>) -> Expr {
        match exprs.len() {
            0 => Expr::True,
            1 => exprs.pop().unwrap_or(Expr::True),
            _ => Expr::And(exprs),
        }
    }

    /// Whether the game matches.
    pub fn matches(&self, s: &Subject<'_>) -> bool {
        match self {
            Expr::True => true,
            Expr::Atom(a) => a.matches(s),
            Expr::Not(e) => !e.matches(s),
            Expr::And(es) => es.iter().all(|e| e.matches(s)),
            Expr::Or(es) => es.iter().any(|e| e.matches(s)),
        }
    }

    /// Shorthand: whether `game` matches.
    pub fn matches_game(&self, game: &Game) -> bool {
        self.matches(&Subject::new(game))
    }
}

impl Atom {
    /// Parses one atom `NAME OP VALUE` (`--tag`).
    pub fn parse(text: &str) -> Result<Atom, String> {
        let t = text.trim();
        let name_end = t
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(t.len());
        let (name, rest) = t.split_at(name_end);
        if name.is_empty() {
            return Err(format!(
                "criterion {t:?}: expected NAME OP VALUE, as WhiteElo>=2500"
            ));
        }
        let rest = rest.trim_start();
        let (op, value) = OPS
            .iter()
            .find(|(s, _)| rest.starts_with(s))
            .map(|&(s, op)| (op, rest[s.len()..].trim()))
            .ok_or_else(|| {
                format!(
                    "criterion {t:?}: expected an operator (= != ^= *= ~ !~ < <= > >=) after {name}"
                )
            })?;
        let value = unquote(value);
        Atom::new(name, op, &value)
    }

    /// Builds an atom from its parts.
    pub fn new(name: &str, op: Op, value: &str) -> Result<Atom, String> {
        let bad_op = |what: &str| format!("{name}: only {what} apply");
        let eq_ne = |op: Op| match op {
            Op::Eq => Ok(true),
            Op::Ne => Ok(false),
            _ => Err(bad_op("= and !=")),
        };
        let positive = |atom: Atom, op: Op| -> Result<Atom, String> {
            // Position atoms take `=`; `!=` is written with not.
            match op {
                Op::Eq => Ok(atom),
                _ => Err(bad_op("= (use not for the opposite)")),
            }
        };
        match name {
            "fen" => positive(Atom::Fen(Box::new(parse_query_fen(value)?)), op),
            "pattern" => positive(Atom::Pattern(Box::new(Pattern::parse(value)?)), op),
            "subfen" => positive(Atom::Pattern(Box::new(Pattern::parse_sub_fen(value)?)), op),
            "material" => positive(
                Atom::Material(Box::new(MaterialSpec::parse(value, false)?)),
                op,
            ),
            "material-any" => positive(
                Atom::Material(Box::new(MaterialSpec::parse(value, true)?)),
                op,
            ),
            "ended" => positive(Atom::Ended(Ending::parse(value)?), op),
            "result" => {
                let v = if value == "1/2" { "1/2-1/2" } else { value };
                let r = v
                    .parse::<GameResult>()
                    .map_err(|_| format!("result {value:?}: expected 1-0, 0-1, 1/2-1/2 or *"))?;
                Ok(Atom::Result(r, eq_ne(op)?))
            }
            "ECO" | "eco" if op == Op::Eq && value.contains('-') => {
                let (lo, hi) = value.split_once('-').unwrap_or((value, value));
                let (lo, hi) = (
                    lo.trim().to_ascii_uppercase(),
                    hi.trim().to_ascii_uppercase(),
                );
                if lo.is_empty() || hi.is_empty() {
                    return Err(format!("ECO range {value:?}: expected FROM-TO, as A00-A99"));
                }
                Ok(Atom::EcoRange(lo, hi))
            }
            _ => {
                let tag = match name {
                    "player" | "Player" => TagRef::Player,
                    "elo" | "Elo" => TagRef::Elo,
                    "eco" => TagRef::Tag("ECO".into()),
                    _ => TagRef::Tag(name.to_string()),
                };
                if matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge) && value.is_empty() {
                    return Err(format!("{name}: a comparison needs a value"));
                }
                let regex = match op {
                    Op::Regex | Op::NotRegex => Some(
                        Regex::new(value)
                            .map_err(|e| format!("{name}: bad regular expression: {e}"))?,
                    ),
                    _ => None,
                };
                Ok(Atom::Tag {
                    tag,
                    op,
                    value: value.to_string(),
                    regex,
                })
            }
        }
    }

    /// Whether the game satisfies the criterion.
    pub fn matches(&self, s: &Subject<'_>) -> bool {
        let game = s.game;
        match self {
            Atom::Tag {
                tag,
                op,
                value,
                regex,
            } => {
                let test = |name: &str| -> Option<bool> {
                    let v = game.tags.get(name)?;
                    Some(compare(name, v, *op, value, regex.as_ref()))
                };
                let results: Vec<Option<bool>> = match tag {
                    TagRef::Tag(n) => vec![test(n)],
                    TagRef::Player => vec![test("White"), test("Black")],
                    TagRef::Elo => vec![test("WhiteElo"), test("BlackElo")],
                };
                let negative = matches!(op, Op::Ne | Op::NotRegex);
                if negative {
                    // Neither player/side has the value.
                    results.iter().all(|r| r.unwrap_or(true))
                } else {
                    results.iter().any(|r| r.unwrap_or(false))
                }
            }
            Atom::EcoRange(lo, hi) => game
                .tags
                .get("ECO")
                .is_some_and(|eco| in_eco_range(eco, lo, hi)),
            Atom::Result(r, eq) => (game_result(game) == *r) == *eq,
            Atom::Fen(q) => {
                let k = key(q);
                s.positions()
                    .iter()
                    .any(|p| key(p) == k && same_position(p, q))
            }
            Atom::Pattern(p) => match s.variant_boards() {
                Some(boards) => boards.iter().any(|b| p.matches(b)),
                None => s.positions().iter().any(|pos| p.matches(pos.board())),
            },
            Atom::Material(m) => match s.variant_boards() {
                Some(boards) => boards.iter().any(|b| m.matches(b)),
                None => s.positions().iter().any(|pos| m.matches(pos.board())),
            },
            Atom::Ended(e) => ending(s.positions()) == Some(*e),
        }
    }
}

/// The result a criterion sees: the Result tag when it holds a known
/// result, else the termination marker, else unknown (`*`).
pub fn game_result(game: &Game) -> GameResult {
    game.tags
        .get("Result")
        .and_then(|r| r.trim().parse::<GameResult>().ok())
        .filter(|r| *r != GameResult::Unknown)
        .or(game.result)
        .unwrap_or(GameResult::Unknown)
}

/// Whether `eco` lies in `lo..=hi`, each bound compared on its own length
/// (`A-B` takes all of A and B; `B20-B29` ten codes).
pub fn in_eco_range(eco: &str, lo: &str, hi: &str) -> bool {
    let eco = eco.trim().to_ascii_uppercase();
    // Bytes, not characters: a non-ASCII value compares without a panic.
    let cut = |n: usize| &eco.as_bytes()[..eco.len().min(n)];
    cut(lo.len()) >= lo.as_bytes() && cut(hi.len()) <= hi.as_bytes()
}

fn compare(name: &str, actual: &str, op: Op, value: &str, regex: Option<&Regex>) -> bool {
    match op {
        Op::Eq => actual == value,
        Op::Ne => actual != value,
        Op::Prefix => actual.starts_with(value),
        Op::Contains => actual.contains(value),
        Op::Regex => regex.is_some_and(|r| r.is_match(actual)),
        Op::NotRegex => regex.is_some_and(|r| !r.is_match(actual)),
        Op::Lt | Op::Le | Op::Gt | Op::Ge => {
            let Some(ord) = order(name, actual, value) else {
                return false;
            };
            match op {
                Op::Lt => ord.is_lt(),
                Op::Le => ord.is_le(),
                Op::Gt => ord.is_gt(),
                _ => ord.is_ge(),
            }
        }
    }
}

/// How `actual` compares with `query`; `None` when it cannot be compared
/// (an unknown date part, a non-number against a number).
fn order(name: &str, actual: &str, query: &str) -> Option<std::cmp::Ordering> {
    let actual = actual.trim();
    if name.ends_with("Date") {
        let q: Vec<u32> = query
            .split(['.', '-', '/'])
            .map(|p| p.parse().ok())
            .collect::<Option<_>>()?;
        let a: Vec<u32> = actual
            .split('.')
            .take(q.len())
            .map(|p| p.parse().ok())
            .collect::<Option<_>>()?;
        return (a.len() == q.len()).then(|| a.cmp(&q));
    }
    if name == "Round" {
        let parts =
            |t: &str| -> Option<Vec<u64>> { t.split('.').map(|p| p.parse().ok()).collect() };
        return Some(parts(actual)?.cmp(&parts(query)?));
    }
    match query.parse::<i64>() {
        Ok(q) => Some(actual.parse::<i64>().ok()?.cmp(&q)),
        Err(_) => Some(actual.cmp(query)),
    }
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        let mut out = String::new();
        let mut chars = v[1..v.len() - 1].chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else {
                out.push(c);
            }
        }
        out
    } else {
        v.to_string()
    }
}

#[derive(Debug, Clone)]
enum Token {
    Open,
    Close,
    And,
    Or,
    Not,
    Atom(String),
}

impl Token {
    fn text(&self) -> String {
        match self {
            Token::Open => "(".into(),
            Token::Close => ")".into(),
            Token::And => "and".into(),
            Token::Or => "or".into(),
            Token::Not => "not".into(),
            Token::Atom(a) => a.clone(),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'(' {
            out.push(Token::Open);
            i += 1;
        } else if c == b')' {
            out.push(Token::Close);
            i += 1;
        } else if text[i..].starts_with("&&") {
            out.push(Token::And);
            i += 2;
        } else if text[i..].starts_with("||") {
            out.push(Token::Or);
            i += 2;
        } else if c == b'!' && !text[i..].starts_with("!=") && !text[i..].starts_with("!~") {
            out.push(Token::Not);
            i += 1;
        } else {
            // A word: a keyword, or an atom NAME OP VALUE (VALUE may be quoted).
            let start = i;
            while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'(' | b')' | b'"')
            {
                i += 1;
            }
            let word = &text[start..i];
            match word {
                "and" | "AND" => {
                    out.push(Token::And);
                    continue;
                }
                "or" | "OR" => {
                    out.push(Token::Or);
                    continue;
                }
                "not" | "NOT" => {
                    out.push(Token::Not);
                    continue;
                }
                _ => {}
            }
            // The operator may stand apart: `WhiteElo >= 2500`.
            let mut atom = word.to_string();
            let has_op = |a: &str| OPS.iter().any(|(s, _)| a.contains(s));
            let mut j = i;
            let skip_ws = |mut j: usize| {
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                j
            };
            if !has_op(&atom) {
                j = skip_ws(j);
                let op_start = j;
                while j < b.len() && matches!(b[j], b'=' | b'!' | b'<' | b'>' | b'^' | b'*' | b'~')
                {
                    j += 1;
                }
                if j == op_start {
                    return Err(format!("{word:?}: expected NAME OP VALUE"));
                }
                atom.push_str(&text[op_start..j]);
                i = j;
            }
            let ends_with_op = OPS.iter().any(|(s, _)| atom.ends_with(s));
            if ends_with_op {
                i = skip_ws(i);
                if i < b.len() && b[i] == b'"' {
                    let q = i;
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    if i >= b.len() {
                        return Err(format!(
                            "unclosed quote in {:?}",
                            crate::position::short(&text[start..])
                        ));
                    }
                    i += 1;
                    atom.push_str(&text[q..i]);
                } else {
                    let v = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'(' | b')')
                    {
                        i += 1;
                    }
                    atom.push_str(&text[v..i]);
                }
            } else if i < b.len() && b[i] == b'"' {
                return Err(format!("{word:?}: a quoted value must follow the operator"));
            }
            out.push(Token::Atom(atom));
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut parts = vec![self.and()?];
        while matches!(self.peek(), Some(Token::Or)) {
            self.at += 1;
            parts.push(self.and()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Expr::Or(parts)
        })
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut parts = vec![self.unary()?];
        loop {
            match self.peek() {
                Some(Token::And) => {
                    self.at += 1;
                    parts.push(self.unary()?);
                }
                // Juxtaposition means and.
                Some(Token::Atom(_) | Token::Not | Token::Open) => parts.push(self.unary()?),
                _ => break,
            }
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Expr::And(parts)
        })
    }

    fn unary(&mut self) -> Result<Expr, String> {
        // A hostile `not not not ...` or `((((...` must not overflow the stack.
        if self.depth > 100 {
            return Err("expression nested too deeply".into());
        }
        self.depth += 1;
        let e = self.unary_inner();
        self.depth -= 1;
        e
    }

    fn unary_inner(&mut self) -> Result<Expr, String> {
        match self.tokens.get(self.at).cloned() {
            Some(Token::Not) => {
                self.at += 1;
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            Some(Token::Open) => {
                self.at += 1;
                let e = self.or()?;
                match self.peek() {
                    Some(Token::Close) => {
                        self.at += 1;
                        Ok(e)
                    }
                    _ => Err("missing )".into()),
                }
            }
            Some(Token::Atom(a)) => {
                self.at += 1;
                Ok(Expr::Atom(Atom::parse(&a)?))
            }
            Some(t) => Err(format!("unexpected {:?}", t.text())),
            None => Err("expression ends too soon".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(pgn: &str) -> Game {
        let (mut games, problems) = gamerec::pgn::read_games(pgn.as_bytes());
        assert!(
            problems
                .iter()
                .all(|p| p.severity != gamerec::diag::Severity::Error),
            "{problems:?}"
        );
        games.remove(0)
    }

    const G: &str = "[Event \"T\"]\n[Date \"1962.05.??\"]\n[Round \"3.2\"]\n[White \"Tal, Mikhail\"]\n[Black \"Fischer, Robert J.\"]\n[WhiteElo \"2600\"]\n[BlackElo \"2650\"]\n[ECO \"B20\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";

    fn yes(expr: &str) -> bool {
        Expr::parse(expr).unwrap().matches_game(&game(G))
    }

    #[test]
    fn tags_and_relations() {
        assert!(yes("White=\"Tal, Mikhail\""));
        assert!(yes("player^=Fischer and not player^=Karpov"));
        assert!(yes("Elo>=2650") && !yes("Elo>2650") && yes("WhiteElo<2650"));
        assert!(
            yes("Date<1963")
                && yes("Date>=1962.05")
                && !yes("Date=1962.05.01")
                && !yes("Date>1962.05.01")
        );
        assert!(yes("Round>3.1") && yes("Round<3.10"));
        assert!(yes("ECO=A00-B99") && yes("eco=B20-B29") && !yes("ECO=C00-E99") && yes("ECO>=B"));
        assert!(yes("Black~\"^Fischer, R\"") && yes("Event!~x") && yes("White*=Mikh"));
        assert!(yes("Missing!=x") && !yes("Missing=x"));
        assert!(!in_eco_range("Ä0", "A00", "A99") && in_eco_range("a05", "A00", "A09"));
    }

    #[test]
    fn result_positions_and_logic() {
        // The Result tag wins over the termination marker.
        assert!(yes("result=1-0") && yes("result!=0-1"));
        assert!(yes("ended=mate") && !yes("ended=stalemate"));
        assert!(yes(
            "fen=\"rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq e6 0 2\""
        ));
        assert!(!yes(
            "fen=\"rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 2\""
        ));
        assert!(yes("pattern=*/*/*/*/??????P?/*/*/*") && yes("subfen=8/8/8/8/7q/8/8/8"));
        assert!(yes("material=KQR2B2N2P8vKQR2B2N2P8"));
        assert!(yes("(Elo>3000 or ECO=B20) and !(result=0-1)"));
        assert!(yes("WhiteElo >= 2600 && BlackElo > 2600 || Event=x"));
        assert!(!yes("not (WhiteElo >= 2600)"));
    }

    #[test]
    fn errors_are_reported() {
        for bad in [
            "",
            "(Elo>1",
            "Elo",
            "Elo>",
            "Elo>=\"\"",
            "fen=nonsense",
            "result=2-0",
            "x~\"(\"",
            "a=1 )",
            "ended=bored",
            "pattern!=8/8",
        ] {
            assert!(Expr::parse(bad).is_err(), "{bad}: {:?}", Expr::parse(bad));
        }
        let deep = "not ".repeat(20_000) + "Elo>1";
        assert!(Expr::parse(&deep).is_err());
    }
}
