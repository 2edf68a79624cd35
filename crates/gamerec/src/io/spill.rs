//! Games in the PGN standard's collation order ([`crate::pgn::collate`]) in
//! bounded memory: [`GameSorter`] holds games as exported text up to a
//! budget of bytes, then sorts them and writes them to a temporary file (a
//! run); at the end the runs are merged, at most [`FAN_IN`] at a time, so a
//! file of any size sorts in the budget plus a buffer per run. The order is
//! that of [`crate::pgn::collate::sort_games`], stable: runs hold games in
//! input order and ties go to the earlier run.
//!
//! Games may be put in groups ([`CollatedGame::in_group`]): groups come
//! out one after another, in the byte order of their names, each in
//! collation order (`split --by-date` groups by archive file).
//!
//! Runs are created exclusively in the directory given (`.gamerec-sort-PID-N.tmp`)
//! and removed when merged, when the sorter is dropped, or on an error.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use crate::model::{Game, Tags};
use crate::pgn::WriteOptions;
use crate::pgn::collate::compare_games;
use crate::pgn::tags::SEVEN_TAG_ROSTER;
use crate::pgn::writer::{export_result, export_string};

/// The most runs merged at once (each holds an open file and its buffer).
pub const FAN_IN: usize = 64;

/// Bytes of bookkeeping counted per game held, beside its text and tags.
const PER_GAME: usize = 160;

/// One game as `sort` writes it: its export-format text, with the roster
/// values collation reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollatedGame {
    /// The Seven Tag Roster values (Result as export writes it when
    /// missing).
    pub roster: Tags,
    /// The game in PGN export format.
    pub text: String,
    movetext_start: usize,
    /// The group the game is sorted in (empty: the one group).
    group: String,
}

impl CollatedGame {
    /// `game` exported, with its roster.
    pub fn new(game: &Game) -> CollatedGame {
        let mut text = export_string(game, &WriteOptions::default());
        // The text is held until written: not the room it grew into.
        text.shrink_to_fit();
        let mut roster = Tags::new();
        for name in SEVEN_TAG_ROSTER {
            match game.tags.get(name) {
                Some(value) => roster.push(name, value),
                None if name == "Result" => roster.push(name, export_result(game).as_str()),
                None => {}
            }
        }
        let movetext_start = text.find("\n\n").map_or(0, |i| i + 2);
        CollatedGame {
            roster,
            text,
            movetext_start,
            group: String::new(),
        }
    }

    /// The game in the group `group`: games sort by group first (the byte
    /// order of the names), then in collation order.
    pub fn in_group(mut self, group: impl Into<String>) -> CollatedGame {
        self.group = group.into();
        self
    }

    /// The game's group (empty unless given with [`CollatedGame::in_group`]).
    pub fn group(&self) -> &str {
        &self.group
    }

    /// The exported movetext (the last collation key).
    pub fn movetext(&self) -> &str {
        self.text.get(self.movetext_start..).unwrap_or("")
    }

    /// Collation order (all eight keys), after the group.
    pub fn collate(&self, other: &CollatedGame) -> Ordering {
        self.group.cmp(&other.group).then_with(|| {
            compare_games(
                &self.roster,
                self.movetext(),
                &other.roster,
                other.movetext(),
            )
        })
    }

    /// The bytes this game counts against a sorter's budget.
    fn cost(&self) -> usize {
        let tags: usize = self
            .roster
            .iter()
            .map(|t| t.name.len() + t.value.len() + 48)
            .sum();
        self.text.capacity() + self.group.capacity() + tags + PER_GAME
    }

    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let tags: Vec<_> = self.roster.iter().collect();
        out.write_all(&[tags.len() as u8])?;
        for t in tags {
            write_bytes(out, t.name.as_bytes())?;
            write_bytes(out, t.value.as_bytes())?;
        }
        out.write_all(&(self.movetext_start as u64).to_le_bytes())?;
        write_bytes(out, self.group.as_bytes())?;
        write_bytes(out, self.text.as_bytes())
    }

    /// The next game of a run; `None` at its end.
    fn read_from(input: &mut impl Read) -> io::Result<Option<CollatedGame>> {
        let mut count = [0u8; 1];
        if input.read(&mut count)? == 0 {
            return Ok(None);
        }
        let mut roster = Tags::new();
        for _ in 0..count[0] {
            let name = read_string(input)?;
            let value = read_string(input)?;
            roster.push(name, value);
        }
        let mut start = [0u8; 8];
        input.read_exact(&mut start)?;
        let group = read_string(input)?;
        let text = read_string(input)?;
        Ok(Some(CollatedGame {
            roster,
            movetext_start: u64::from_le_bytes(start) as usize,
            text,
            group,
        }))
    }
}

fn write_bytes(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    out.write_all(&(bytes.len() as u64).to_le_bytes())?;
    out.write_all(bytes)
}

fn read_string(input: &mut impl Read) -> io::Result<String> {
    let mut len = [0u8; 8];
    input.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    let mut bytes = Vec::new();
    // A damaged run states any length: read what is there, no more.
    input.take(len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "a temporary sort file ends early",
        ));
    }
    String::from_utf8(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "a temporary sort file is damaged",
        )
    })
}

/// A temporary file of sorted games, removed when dropped.
#[derive(Debug)]
struct Run {
    path: PathBuf,
}

impl Drop for Run {
    fn drop(&mut self) {
        // Nothing to report to: the file may already be gone.
        std::fs::remove_file(&self.path).ok();
    }
}

/// `e` with the run's file named.
fn at(run: &Run, e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!("temporary sort file {}: {e}", run.path.display()),
    )
}

/// A new empty run file in `dir`.
fn new_run(dir: &Path) -> io::Result<(Run, BufWriter<File>)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    loop {
        let n = NEXT.fetch_add(1, AtomicOrdering::Relaxed);
        let path = dir.join(format!(".gamerec-sort-{}-{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((Run { path }, BufWriter::with_capacity(1 << 16, file))),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("temporary sort file in {}: {e}", dir.display()),
                ));
            }
        }
    }
}

/// Finishes writing a run: the last flush's error is returned.
fn close_run(out: BufWriter<File>) -> io::Result<()> {
    out.into_inner().map_err(|e| e.into_error())?;
    Ok(())
}

/// Sorts games into collation order in a bounded amount of memory (see the
/// module documentation).
#[derive(Debug)]
pub struct GameSorter {
    dir: PathBuf,
    budget: usize,
    held: Vec<CollatedGame>,
    held_bytes: usize,
    runs: Vec<Run>,
}

impl GameSorter {
    /// A sorter holding about `budget` bytes of games before it writes a run
    /// to `dir`.
    pub fn new(dir: impl Into<PathBuf>, budget: usize) -> GameSorter {
        GameSorter {
            dir: dir.into(),
            budget: budget.max(1),
            held: Vec::new(),
            held_bytes: 0,
            runs: Vec::new(),
        }
    }

    /// Adds a game; writes a run when the games held pass the budget.
    pub fn push(&mut self, game: CollatedGame) -> io::Result<()> {
        self.held_bytes += game.cost();
        self.held.push(game);
        if self.held_bytes > self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// How many runs have been written so far.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Sorts the games held and writes them as a run.
    fn spill(&mut self) -> io::Result<()> {
        let mut held = std::mem::take(&mut self.held);
        self.held_bytes = 0;
        held.sort_by(CollatedGame::collate);
        let (run, mut out) = new_run(&self.dir)?;
        held.iter()
            .try_for_each(|g| g.write_to(&mut out))
            .and_then(|()| close_run(out))
            .map_err(|e| at(&run, e))?;
        self.runs.push(run);
        Ok(())
    }

    /// Hands every game to `each` in collation order.
    pub fn finish(
        mut self,
        mut each: impl FnMut(&CollatedGame) -> io::Result<()>,
    ) -> io::Result<()> {
        if self.runs.is_empty() {
            self.held.sort_by(CollatedGame::collate);
            return self.held.iter().try_for_each(each);
        }
        if !self.held.is_empty() {
            self.spill()?;
        }
        let mut runs = std::mem::take(&mut self.runs);
        // Merge runs into fewer until one pass can take them all; the
        // merged runs keep their order, so ties still go to the earlier.
        while runs.len() > FAN_IN {
            let mut merged = Vec::with_capacity(runs.len().div_ceil(FAN_IN));
            let mut rest = runs.into_iter();
            loop {
                let group: Vec<Run> = rest.by_ref().take(FAN_IN).collect();
                if group.is_empty() {
                    break;
                }
                let (run, mut out) = new_run(&self.dir)?;
                merge(&group, |g| g.write_to(&mut out).map_err(|e| at(&run, e)))?;
                close_run(out).map_err(|e| at(&run, e))?;
                drop(group);
                merged.push(run);
            }
            runs = merged;
        }
        merge(&runs, &mut each)
    }
}

/// The next game of one run, ordered for a max-heap so that the least game
/// (and of equals, the earliest run's) comes out first.
struct Head {
    game: CollatedGame,
    run: usize,
}

impl PartialEq for Head {
    fn eq(&self, other: &Head) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Head) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Head) -> Ordering {
        other
            .game
            .collate(&self.game)
            .then_with(|| other.run.cmp(&self.run))
    }
}

/// Merges `runs` (each in collation order), handing each game to `each`.
fn merge(runs: &[Run], mut each: impl FnMut(&CollatedGame) -> io::Result<()>) -> io::Result<()> {
    let mut inputs = Vec::with_capacity(runs.len());
    for run in runs {
        let file = File::open(&run.path).map_err(|e| at(run, e))?;
        inputs.push(BufReader::with_capacity(1 << 16, file));
    }
    let mut heap = BinaryHeap::with_capacity(runs.len());
    for (i, input) in inputs.iter_mut().enumerate() {
        if let Some(game) = CollatedGame::read_from(input).map_err(|e| at(&runs[i], e))? {
            heap.push(Head { game, run: i });
        }
    }
    while let Some(Head { game, run }) = heap.pop() {
        each(&game)?;
        let next = CollatedGame::read_from(&mut inputs[run]).map_err(|e| at(&runs[run], e))?;
        if let Some(game) = next {
            heap.push(Head { game, run });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::read_games;

    fn games(n: usize) -> Vec<CollatedGame> {
        // Few distinct keys, so that many games tie and stability shows.
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!(
                "[Event \"E{}\"]\n[Site \"S\"]\n[Date \"20{:02}.??.??\"]\n[Round \"{}\"]\n\
                 [White \"W\"]\n[Black \"B\"]\n[Result \"*\"]\n[Id \"{i}\"]\n\n{} *\n\n",
                i % 3,
                i * 7 % 5,
                i * 11 % 4,
                ["e4", "d4", "e4 e5"][i % 3],
            ));
        }
        let (read, errors) = read_games(text.as_bytes());
        assert!(errors.is_empty(), "{errors:?}");
        read.iter().map(CollatedGame::new).collect()
    }

    fn sorted(budget: usize, games: &[CollatedGame], dir: &Path) -> (Vec<CollatedGame>, usize) {
        let mut sorter = GameSorter::new(dir, budget);
        for g in games {
            sorter.push(g.clone()).unwrap();
        }
        let runs = sorter.runs();
        let mut out = Vec::new();
        sorter
            .finish(|g| {
                out.push(g.clone());
                Ok(())
            })
            .unwrap();
        (out, runs)
    }

    /// Any budget gives the order of a stable sort in memory (ties in input
    /// order: the `Id` tags), through one merge or several, and leaves no
    /// file behind.
    #[test]
    fn runs_merge_into_the_stable_order_and_are_removed() {
        let dir = gamerec_testkit::temp_dir("spill");
        let input = games(700);
        let mut expected = input.clone();
        crate::pgn::collate::sort_games(&mut expected, |g| (&g.roster, g.movetext()));
        for budget in [usize::MAX, 50_000, 2_000, 1] {
            let (out, runs) = sorted(budget, &input, &dir);
            assert_eq!(out, expected, "budget {budget}");
            assert_eq!(
                runs > 0,
                budget < usize::MAX,
                "budget {budget}: {runs} runs"
            );
            if budget == 1 {
                // One run per game: more than FAN_IN, so merged in passes.
                assert!(runs > FAN_IN, "{runs}");
            }
            assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        }
    }

    /// Grouped games come out group by group (in the byte order of the
    /// names), each group in the stable collation order, whatever the
    /// budget.
    #[test]
    fn groups_come_out_one_after_another_each_in_order() {
        let dir = gamerec_testkit::temp_dir("spill-groups");
        let input: Vec<CollatedGame> = games(500)
            .into_iter()
            .enumerate()
            .map(|(i, g)| g.in_group(["b", "a", "c/d", "c"][i * 13 % 4]))
            .collect();
        let mut expected: Vec<CollatedGame> = Vec::new();
        for group in ["a", "b", "c", "c/d"] {
            let mut members: Vec<CollatedGame> = input
                .iter()
                .filter(|g| g.group() == group)
                .cloned()
                .collect();
            crate::pgn::collate::sort_games(&mut members, |g| (&g.roster, g.movetext()));
            expected.extend(members);
        }
        for budget in [usize::MAX, 20_000, 1] {
            let (out, _) = sorted(budget, &input, &dir);
            assert_eq!(out, expected, "budget {budget}");
        }
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    }

    /// A run that cannot be written fails the sort with the directory
    /// named; a dropped sorter removes its runs.
    #[test]
    fn failures_are_reported_and_runs_removed() {
        let dir = gamerec_testkit::temp_dir("spill-fail");
        let missing = dir.join("missing");
        let mut sorter = GameSorter::new(&missing, 1);
        let err = sorter.push(games(1).remove(0)).unwrap_err();
        assert!(err.to_string().contains("missing"), "{err}");
        let mut sorter = GameSorter::new(&dir, 1);
        for g in games(5) {
            sorter.push(g).unwrap();
        }
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 5);
        drop(sorter);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    }
}
