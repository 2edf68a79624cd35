//! The EPD analysis verbs (EPD spec section 7): pfga (general analysis),
//! pfms (mate search) and pfts (target search), over any [`Engine`],
//! with several positions in parallel and output in input order.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gamerec::diag::Severity;
use gamerec::epd::{self, EpdRecord, Opcode, Operation};
use gamerec::model::PlyMove;
use shakmaty::{Chess, Move, Position};

use crate::mate::{MateOutcome, MateSolver};
use crate::types::{EngineError, Info, Limits, Score};
use crate::{Engine, EngineSpec};

/// Which verb to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// pfga (7.2): adds `pv`, `ce`, `pm`, `sm`, `acn`, `acs` (and `acd`, `acms`).
    Analyze,
    /// pfms (7.3): records without `dm` or with `dm` > `moves` get `dm` and
    /// `pm` when a forced mate of at most `moves` is found.
    Mate {
        /// Fullmove mate length.
        moves: u32,
    },
    /// pfts (7.5): adds `pm`, `pv`, `ce`, `acn`, `acs` and `solved 1|0`
    /// against `bm`/`am`, with `sltm` (ms when the final answer was first seen).
    Solve,
}

/// One input line and what became of it.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The output line (the input copied unchanged when it could not be used).
    pub line: String,
    /// An error about this record (bad EPD, engine failure), if any.
    pub error: Option<String>,
    /// For [`Verb::Solve`]: whether the record was solved.
    pub solved: Option<bool>,
}

/// Runs `verb` on one record with `engine`.
pub fn process_record(engine: &mut dyn Engine, verb: Verb, limits: &Limits, line: &str) -> Outcome {
    let fail = |error: String| Outcome {
        line: line.to_string(),
        error: Some(error),
        solved: None,
    };
    let (record, diagnostics) = epd::read_line(line, 1);
    let mut rec = match record {
        Some(r) => r,
        None => {
            let message = diagnostics
                .iter()
                .find(|d| d.severity == Severity::Error)
                .map_or_else(
                    || "expected an EPD record".to_string(),
                    |d| format!("column {}: {}", d.location.column, d.message),
                );
            return fail(message);
        }
    };
    let pos = rec.chess().clone();
    let result = match verb {
        Verb::Analyze => analyze(engine, limits, &pos, &mut rec, None).map(|_| None),
        Verb::Solve => solve(engine, limits, &pos, &mut rec).map(Some),
        Verb::Mate { moves } => mate(engine, limits, &pos, &mut rec, moves).map(|_| None),
    };
    match result {
        Ok(solved) => Outcome {
            line: rec.to_string(),
            error: None,
            solved,
        },
        Err(e) => fail(e),
    }
}

/// The answer set for `pfts`: `bm` moves (if any) minus `am` moves.
/// (The reader has already checked that every operand is a legal move.)
fn targets(rec: &EpdRecord) -> (Vec<Move>, Vec<Move>) {
    let legal = |opcode: &str| -> Vec<Move> {
        rec.moves(opcode)
            .into_iter()
            .filter_map(|m| match m {
                PlyMove::Move(m) => Some(m),
                PlyMove::Null => None,
            })
            .collect()
    };
    (legal("bm"), legal("am"))
}

/// A `pm`/`sm` operation holding `m`.
fn single_move(opcode: Opcode, pos: &Chess, m: Move) -> Operation {
    Operation::moves(opcode, pos, &[PlyMove::Move(m)])
}

/// A `pv` operation holding `line` played from `pos`.
fn variation(pos: &Chess, line: &[Move]) -> Operation {
    let plies: Vec<PlyMove> = line.iter().copied().map(PlyMove::Move).collect();
    Operation::sequence(Opcode::Pv, pos, &plies)
}

/// Saturating conversion for counters written as EPD integers.
fn int(value: impl TryInto<i64>) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

fn is_solution(m: Move, bm: &[Move], am: &[Move]) -> bool {
    (bm.is_empty() || bm.contains(&m)) && !am.contains(&m)
}

/// Writes pfga results; `track` sees each info (for solution timing).
fn analyze(
    engine: &mut dyn Engine,
    limits: &Limits,
    pos: &Chess,
    rec: &mut EpdRecord,
    mut track: Option<&mut dyn FnMut(&Info)>,
) -> Result<Option<Move>, String> {
    if pos.legal_moves().is_empty() {
        rec.set(Operation::flag(Opcode::Pv));
        rec.set(Operation::integer(
            Opcode::Ce,
            if pos.is_check() { -32767 } else { 0 },
        ));
        return Ok(None);
    }
    engine.set_position(pos, &[]).map_err(|e| e.to_string())?;
    let r = engine
        .go(limits, &mut |i| {
            if let Some(t) = track.as_deref_mut() {
                t(i)
            }
        })
        .map_err(|e| e.to_string())?;
    let best = r
        .best_move
        .ok_or_else(|| "engine returned no move".to_string())?;
    let mut pv = r.info.pv.clone();
    if pv.first() != Some(&best) {
        pv = vec![best];
    }
    rec.set(variation(pos, &pv));
    if let Some(score) = r.info.score {
        rec.set(Operation::integer(Opcode::Ce, i64::from(score.to_ce())));
    }
    rec.set(single_move(Opcode::Pm, pos, best));
    rec.set(single_move(Opcode::Sm, pos, best));
    let elapsed = r.info.time.unwrap_or(r.elapsed).max(r.elapsed);
    rec.set(Operation::integer(
        Opcode::Acn,
        int(r.info.nodes.unwrap_or(0)),
    ));
    rec.set(Operation::integer(Opcode::Acs, int(elapsed.as_secs())));
    rec.set(Operation::integer("acms", int(elapsed.as_millis())));
    if let Some(d) = r.info.depth {
        rec.set(Operation::integer("acd", i64::from(d)));
    }
    Ok(Some(best))
}

fn solve(
    engine: &mut dyn Engine,
    limits: &Limits,
    pos: &Chess,
    rec: &mut EpdRecord,
) -> Result<bool, String> {
    let (bm, am) = targets(rec);
    if bm.is_empty() && am.is_empty() {
        return Err("no bm or am to solve against".into());
    }
    let mut since: Option<Duration> = None;
    let mut last_time = Duration::ZERO;
    let mut track = |i: &Info| {
        let t = i.time.unwrap_or(last_time);
        last_time = t;
        match i.pv.first() {
            Some(&m) if i.multipv.unwrap_or(1) == 1 && is_solution(m, &bm, &am) => {
                since.get_or_insert(t);
            }
            Some(_) if i.multipv.unwrap_or(1) == 1 => since = None,
            _ => {}
        }
    };
    let best = analyze(engine, limits, pos, rec, Some(&mut track))?;
    rec.remove("sm");
    let solved = best.is_some_and(|m| is_solution(m, &bm, &am));
    rec.set(Operation::integer("solved", i64::from(solved)));
    if solved {
        let ms = since.map_or_else(|| rec.integer("acms").unwrap_or(0), |d| int(d.as_millis()));
        rec.set(Operation::integer("sltm", ms));
    } else {
        rec.remove("sltm");
    }
    Ok(solved)
}

fn mate(
    engine: &mut dyn Engine,
    limits: &Limits,
    pos: &Chess,
    rec: &mut EpdRecord,
    moves: u32,
) -> Result<(), String> {
    if rec.integer("dm").is_some_and(|d| d <= i64::from(moves)) {
        return Ok(()); // solved by an earlier pass
    }
    let started = std::time::Instant::now();
    let found: Option<(u32, Vec<Move>, u64)> = if engine.name().starts_with("gamerec builtin") {
        let stop = engine.stop_handle();
        let mut solver = MateSolver::new(stop.flag().clone());
        solver.node_limit = limits.nodes;
        solver.deadline = limits.movetime.map(|t| started + t);
        match solver.solve(pos, moves) {
            MateOutcome::Mate { moves, pv } => Some((moves, pv, solver.nodes)),
            _ => None,
        }
    } else {
        engine.set_position(pos, &[]).map_err(|e| e.to_string())?;
        let l = Limits {
            mate: Some(moves),
            ..limits.clone()
        };
        let r = engine.go(&l, &mut |_| {}).map_err(|e| e.to_string())?;
        match (r.info.score, r.best_move) {
            (Some(Score::Mate(n)), Some(best)) if n > 0 && n as u32 <= moves => {
                let pv = if r.info.pv.first() == Some(&best) {
                    r.info.pv.clone()
                } else {
                    vec![best]
                };
                Some((n as u32, pv, r.info.nodes.unwrap_or(0)))
            }
            _ => None,
        }
    };
    if let Some((n, pv, nodes)) = found {
        rec.set(Operation::integer(Opcode::Dm, i64::from(n)));
        if let Some(&first) = pv.first() {
            rec.set(single_move(Opcode::Pm, pos, first));
        }
        rec.set(variation(pos, &pv));
        rec.set(Operation::integer(Opcode::Acn, int(nodes)));
        rec.set(Operation::integer(
            Opcode::Acs,
            int(started.elapsed().as_secs()),
        ));
    }
    Ok(())
}

/// Progress of a run, for progress bars.
#[derive(Debug, Clone, Copy, Default)]
pub struct Progress {
    /// Records finished.
    pub done: usize,
    /// Records to process.
    pub total: usize,
    /// Solved so far (solve only).
    pub solved: usize,
}

/// What to run: engine, its options, verb, limits, parallelism.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The engine to start (once per job).
    pub engine: EngineSpec,
    /// Options set on each engine after it starts.
    pub options: Vec<(String, String)>,
    /// The verb.
    pub verb: Verb,
    /// Search limits per position.
    pub limits: Limits,
    /// Positions searched in parallel.
    pub jobs: usize,
}

/// Runs the configured verb over `lines` with `jobs` engines in parallel.
/// `emit` gets each outcome in input order (index, outcome); `progress`
/// after each. Blank and `#` comment lines are passed through.
pub fn run(
    config: &RunConfig,
    lines: Vec<String>,
    mut emit: impl FnMut(usize, Outcome),
    mut progress: impl FnMut(Progress),
) -> Result<(), EngineError> {
    let RunConfig {
        engine: spec,
        options,
        verb,
        limits,
        jobs,
    } = config;
    let (verb, jobs) = (*verb, *jobs);
    let total = lines.len();
    let queue = Arc::new(Mutex::new(lines.into_iter().enumerate()));
    let (tx, rx) = mpsc::channel::<(usize, Outcome)>();
    let jobs = jobs.clamp(1, 64).min(total.max(1));
    // Start engines up front so a bad command fails before any work.
    let mut engines = Vec::with_capacity(jobs);
    for _ in 0..jobs {
        let mut e = spec.start()?;
        for (k, v) in options.iter() {
            e.set_option(k, v)?;
        }
        engines.push(e);
    }
    let mut pending = BTreeMap::new();
    let mut next = 0;
    let mut p = Progress {
        total,
        ..Progress::default()
    };
    std::thread::scope(|s| {
        for mut engine in engines {
            let queue = queue.clone();
            let tx = tx.clone();
            let limits = limits.clone();
            let spec = spec.clone();
            s.spawn(move || {
                loop {
                    let item = queue.lock().ok().and_then(|mut q| q.next());
                    let Some((i, line)) = item else { break };
                    let t = line.trim();
                    let out = if t.is_empty() || t.starts_with('#') {
                        Outcome {
                            line,
                            error: None,
                            solved: None,
                        }
                    } else {
                        let _ = engine.new_game();
                        let out = process_record(engine.as_mut(), verb, &limits, &line);
                        // A dead engine is replaced for the next record.
                        if out
                            .error
                            .as_deref()
                            .is_some_and(|e| e.contains("died") || e.contains("timed out"))
                            && let Ok(fresh) = spec.start()
                        {
                            engine = fresh;
                        }
                        out
                    };
                    if tx.send((i, out)).is_err() {
                        break;
                    }
                }
                let _ = engine.quit();
            });
        }
        drop(tx);
        for (i, out) in rx {
            pending.insert(i, out);
            while let Some(out) = pending.remove(&next) {
                p.done += 1;
                if out.solved == Some(true) {
                    p.solved += 1;
                }
                emit(next, out);
                progress(p);
                next += 1;
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::BuiltinEngine;

    const WAC_001: &str = r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001"; zzfoo 1 "a;b" bar;"#;

    #[test]
    fn solve_keeps_unknown_opcodes_and_writes_canonical_epd() {
        let mut engine = BuiltinEngine::with_hash(1);
        let line = r#"6k1/5ppp/8/8/8/8/8/R5K1  w - - bm Ra8; id "m1"; zzfoo 1 "a;b" bar"#;
        let out = process_record(&mut engine, Verb::Solve, &Limits::depth(3), line);
        assert_eq!(out.error, None);
        assert_eq!(out.solved, Some(true));
        let prefix = r#"6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id "m1"; zzfoo 1 "a;b" bar; pv Ra8#; ce 32766; pm Ra8#; acn "#;
        assert!(out.line.starts_with(prefix), "{}", out.line);
        let rec: EpdRecord = out.line.parse().unwrap();
        assert!(!rec.has("sm"));
        for opcode in ["acs", "acms", "acd", "sltm"] {
            assert!(rec.has(opcode), "{opcode} missing in {}", out.line);
        }
        let solved = rec.op("solved").map(|op| op.to_string());
        assert_eq!(solved.as_deref(), Some("solved 1;"));
        assert_eq!(out.line, rec.to_string(), "the output reads back unchanged");
    }

    #[test]
    fn unreadable_records_are_errors_and_pass_through() {
        let mut engine = BuiltinEngine::with_hash(1);
        for line in [
            "8/8 w",
            "8/8/8/8/8/8/8/8 w - - bm Qg6;",
            WAC_001.replace("Qg6", "Qxh7").as_str(),
        ] {
            let out = process_record(&mut engine, Verb::Analyze, &Limits::depth(2), line);
            assert!(out.error.is_some(), "{line}");
            assert_eq!(out.line, line);
        }
    }

    #[test]
    fn mate_skips_records_solved_by_an_earlier_pass() {
        let mut engine = BuiltinEngine::with_hash(1);
        let done = format!("{WAC_001} dm 2;");
        let out = process_record(
            &mut engine,
            Verb::Mate { moves: 2 },
            &Limits::default(),
            &done,
        );
        assert_eq!(out.line, done);
        let out = process_record(
            &mut engine,
            Verb::Mate { moves: 2 },
            &Limits::default(),
            WAC_001,
        );
        assert!(out.line.contains("; dm 2; pm Qg6; pv Qg6 "), "{}", out.line);
    }
}
