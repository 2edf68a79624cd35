//! Go with engines: `gamerec match` for Go engines (GTP or built-in) and
//! `gamerec sgf analyze`. Both are taken before the main command line is
//! parsed ([`dispatch`]): a match whose engines are `gtp:CMD`, `random` or
//! `weak` (or that has `--game go`, or resumes a Go match directory), and
//! `sgf analyze`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use clap::Parser;
use gamerec::sgf::{self, Collection, Color, NodeId, Prop, Value};
use gamerec_engine::gtp::{GoEngineSpec, GoGameSetup, GoMove};
use gamerec_referee::go_match::{self, GoMatchConfig, GoOpenings, GoTimeControl};
use gamerec_referee::match_runner::{MatchEngine, Tournament};
use gamerec_referee::stats::{EloModel, Sprt};

/// `gamerec match` for Go.
#[derive(Parser, Debug)]
#[command(
    name = "gamerec match",
    about = "Play Go engines against each other (GTP engines, or the built-in random/weak players)",
    after_help = "Examples:\n  \
    gamerec match 'gtp:gnugo --mode gtp --level 1' weak --games 4 --size 9 --tc 60 --dir run1\n  \
    gamerec match gtp:gnugo 'gtp:gnugo --mode gtp|level 0' --tc 30+5x3 --komi 6.5 --rules Japanese\n  \
    gamerec match --game go --resume run1\n\n\
    Time controls: MAIN (sudden death), MAIN+BYOxPERIODS (Japanese byo-yomi), MAIN+BYO/STONES\n\
    (Canadian), in seconds. Games go to --out (default stdout) as SGF with BL/WL clocks; the match\n\
    directory holds match.json, games/game-NNNN.sgf, games.sgf and report.json. Exit status: 0\n\
    match complete (or SPRT decided), 1 stopped early, 2 error."
)]
pub struct GoMatchArgs {
    /// Engines: gtp:CMD[|GTP command...], random[:SEED], weak[:SEED] (two or more).
    #[arg(value_name = "ENGINE", num_args = 0..)]
    engines: Vec<String>,
    /// `go` (implied by Go engines).
    #[arg(long, default_value = "go")]
    game: String,
    /// Player names, comma-separated, in engine order (default: from the specs).
    #[arg(long, value_delimiter = ',')]
    names: Vec<String>,
    /// Games per pairing; pairs of games share an opening with colours reversed.
    #[arg(long, default_value_t = 2)]
    games: u32,
    /// Board size.
    #[arg(long, default_value_t = 19)]
    size: u32,
    /// Komi.
    #[arg(long, default_value_t = 7.5, allow_negative_numbers = true)]
    komi: f64,
    /// Rules (RU): Japanese and Korean count territory, the others area.
    #[arg(long, default_value = "Chinese")]
    rules: String,
    /// Handicap stones on the standard points (White moves first).
    #[arg(long, default_value_t = 0)]
    handicap: u32,
    /// Time control: MAIN, MAIN+BYOxPERIODS or MAIN+BYO/STONES (seconds).
    #[arg(long, default_value = "60")]
    tc: String,
    /// Milliseconds a clock may run past zero before the flag falls.
    #[arg(long, value_name = "MS", default_value_t = 200)]
    margin: u64,
    /// Openings: an SGF file; each game's setup and main-line moves.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Moves of each opening to play (default all).
    #[arg(long)]
    openings_plies: Option<u32>,
    /// Take the openings in a random order (fixed by --seed).
    #[arg(long)]
    openings_random: bool,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Pairings for more than two engines: round-robin or gauntlet.
    #[arg(long, default_value = "round-robin")]
    tournament: String,
    /// SPRT of ELO0 against ELO1 with error rates ALPHA and BETA (two engines).
    #[arg(long, num_args = 4, value_names = ["ELO0", "ELO1", "ALPHA", "BETA"], allow_negative_numbers = true)]
    sprt: Vec<f64>,
    /// Elo model of the SPRT: logistic or normalized.
    #[arg(long, default_value = "normalized")]
    sprt_model: String,
    /// Seed of the opening order and the built-in players.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Score a game as it stands after this many moves (default 3 x size x size).
    #[arg(long, default_value_t = 0)]
    max_moves: u32,
    /// Match directory (default: a new temporary directory).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Resume the match in DIR (its match.json); other options are ignored.
    #[arg(long, value_name = "DIR", conflicts_with = "dir")]
    resume: Option<PathBuf>,
    /// The SGF EV property.
    #[arg(long, default_value = "gamerec match")]
    event: String,
    /// Write the SGF games here instead of stdout.
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Do not print the live line after each game.
    #[arg(short, long)]
    quiet: bool,
}

/// `gamerec sgf analyze`.
#[derive(Parser, Debug)]
#[command(
    name = "gamerec sgf analyze",
    about = "Annotate every main-line move of Go games with a GTP engine's evaluation",
    after_help = "Examples:\n  \
    gamerec sgf analyze game.sgf --engine 'gtp:gnugo --mode gtp' -o annotated.sgf\n\n\
    After each move the engine evaluates the position: lz-analyze or kata-analyze (winrate, score\n\
    lead, best move) when it has them, else estimate_score (GNU Go), else final_score. The node\n\
    gets V[Black's lead] and a comment naming the command. Variations are kept, not analysed."
)]
pub struct AnalyzeArgs {
    /// The SGF file.
    input: PathBuf,
    /// The engine: gtp:CMD[|GTP command...].
    #[arg(short, long)]
    engine: String,
    /// Seconds of analysis per position (lz-analyze/kata-analyze).
    #[arg(long, default_value_t = 1.0)]
    time: f64,
    /// Output file (default: stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Runs a Go match or `sgf analyze` when the command line asks for one.
pub fn dispatch(args: &[std::ffi::OsString]) -> Option<ExitCode> {
    // Only `match` and `sgf` can be ours: other verbs' arguments (a bulk
    // `check` may have thousands) are not copied.
    if !args
        .get(1)
        .is_some_and(|verb| verb == "match" || verb == "sgf")
    {
        return None;
    }
    let words: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match words.get(1).map(String::as_str) {
        Some("match") => {
            let rest = &words[2..];
            let resumes_go = rest
                .iter()
                .position(|w| w == "--resume")
                .and_then(|i| rest.get(i + 1))
                .is_some_and(|d| go_match::is_go_match_dir(std::path::Path::new(d)));
            // An engine is a positional word: not the value of an option
            // (`--openings-order random` names no engine).
            const FLAGS: [&str; 4] = [
                "--quiet",
                "--pgn-engine-data",
                "--ponder",
                "--openings-random",
            ];
            let positional = |i: usize| {
                i == 0 || !rest[i - 1].starts_with('-') || FLAGS.contains(&rest[i - 1].as_str())
            };
            let go = resumes_go
                || rest.iter().enumerate().any(|(i, w)| {
                    (positional(i) && GoEngineSpec::looks_like(w)) || w == "--game=go"
                })
                || rest.windows(2).any(|w| w[0] == "--game" && w[1] == "go");
            if !go || rest.first().is_some_and(|w| w == "report") {
                return None;
            }
            let parsed = GoMatchArgs::parse_from(
                std::iter::once("gamerec match".to_owned()).chain(rest.iter().cloned()),
            );
            Some(run_match(&parsed))
        }
        Some("sgf") if words.get(2).is_some_and(|w| w == "analyze") => {
            let parsed = AnalyzeArgs::parse_from(
                std::iter::once("gamerec sgf analyze".to_owned()).chain(words[3..].iter().cloned()),
            );
            Some(match analyze(&parsed) {
                Ok(code) => code,
                Err(e) => fail(e),
            })
        }
        _ => None,
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    gamerec::say!("gamerec: error: {message}");
    ExitCode::from(2)
}

fn match_config(a: &GoMatchArgs) -> Result<GoMatchConfig, String> {
    if a.game != "go" {
        return Err(format!("--game {}: only go is played here", a.game));
    }
    if !a.names.is_empty() && a.names.len() != a.engines.len() {
        return Err("--names must name every engine".into());
    }
    let mut engines = Vec::new();
    for (i, spec) in a.engines.iter().enumerate() {
        spec.parse::<GoEngineSpec>().map_err(|e| e.to_string())?;
        let mut name = a
            .names
            .get(i)
            .cloned()
            .unwrap_or_else(|| GoEngineSpec::default_name(spec));
        if a.names.is_empty()
            && a.engines
                .iter()
                .filter(|s| GoEngineSpec::default_name(s) == name)
                .count()
                > 1
        {
            name = format!("{name}-{}", i + 1);
        }
        engines.push(MatchEngine {
            name,
            spec: spec.clone(),
        });
    }
    let tournament = match a.tournament.as_str() {
        "round-robin" => Tournament::RoundRobin,
        "gauntlet" => Tournament::Gauntlet,
        t => return Err(format!("--tournament {t}: round-robin or gauntlet")),
    };
    let sprt = match a.sprt.as_slice() {
        [] => None,
        [e0, e1, al, be] => {
            let model = match a.sprt_model.as_str() {
                "logistic" => EloModel::Logistic,
                "normalized" => EloModel::Normalized,
                m => return Err(format!("--sprt-model {m}: logistic or normalized")),
            };
            Some(Sprt::new(*e0, *e1, *al, *be, model)?)
        }
        _ => return Err("--sprt takes ELO0 ELO1 ALPHA BETA".into()),
    };
    let openings = match &a.openings {
        Some(f) => Some(GoOpenings {
            file: std::path::absolute(f).map_err(|e| format!("{}: {e}", f.display()))?,
            plies: a.openings_plies,
            random: a.openings_random,
        }),
        None => None,
    };
    let config = GoMatchConfig {
        game: "go".into(),
        engines,
        tournament,
        games: a.games,
        size: a.size,
        komi: a.komi,
        rules: a.rules.clone(),
        handicap: a.handicap,
        time: GoTimeControl::parse(&a.tc)?,
        margin_ms: a.margin,
        openings,
        concurrency: a.concurrency.max(1),
        sprt,
        event: a.event.clone(),
        seed: a.seed,
        max_moves: a.max_moves,
    };
    config.validate().map_err(|e| e.to_string())?;
    Ok(config)
}

fn run_match(a: &GoMatchArgs) -> ExitCode {
    let (config, dir) = match &a.resume {
        Some(dir) => match go_match::load_config(dir) {
            Ok(c) => (c, dir.clone()),
            Err(e) => return fail(e),
        },
        None => match match_config(a) {
            Ok(c) => {
                let dir = a.dir.clone().unwrap_or_else(|| {
                    std::env::temp_dir().join(format!(
                        "gamerec-go-match-{}-{}",
                        std::process::id(),
                        std::time::SystemTime::now()
                            .duration_since(std::time::UNIX_EPOCH)
                            .map_or(0, |d| d.as_millis())
                    ))
                });
                (c, dir)
            }
            Err(e) => return fail(e),
        },
    };
    gamerec::say!("match: directory {}", dir.display());
    let outcome = match go_match::run(&config, &dir, !a.quiet, Arc::new(AtomicBool::new(false))) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let games = match std::fs::read(outcome.dir.join("games.sgf")) {
        Ok(g) => g,
        Err(e) => return fail(format!("{}: {e}", outcome.dir.display())),
    };
    let written = gamerec::io::Output::open(a.out.as_deref()).and_then(|mut o| {
        use std::io::Write;
        o.write_all(&games)?;
        o.finish()
    });
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return fail(e),
        Ok(()) => {}
    }
    gamerec::say_text!("{}", outcome.report);
    if outcome.complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Copies `v` (from `from`) into `to`'s string arena.
fn copy_value(from: &Collection, to: &mut Collection, v: Value) -> Value {
    match v {
        Value::Text(s) => Value::Text(to.intern(from.str(s))),
        Value::Label(p, s) => Value::Label(p, to.intern(from.str(s))),
        Value::Figure(n, s) => Value::Figure(n, to.intern(from.str(s))),
        Value::Application(a, b) => {
            Value::Application(to.intern(from.str(a)), to.intern(from.str(b)))
        }
        Value::Raw(s) => Value::Raw(to.intern(from.str(s))),
        other => other,
    }
}

fn analyze(a: &AnalyzeArgs) -> anyhow::Result<ExitCode> {
    use anyhow::Context;
    let spec: GoEngineSpec = a.engine.parse()?;
    if !matches!(spec, GoEngineSpec::Gtp(..)) {
        anyhow::bail!("--engine must be a GTP engine (gtp:COMMAND)");
    }
    if !(a.time.is_finite() && a.time > 0.0 && a.time <= 3600.0) {
        anyhow::bail!("--time must be from 0 to 3600 seconds");
    }
    let budget = Duration::from_secs_f64(a.time);
    let bytes = std::fs::read(&a.input).with_context(|| a.input.display().to_string())?;
    let parsed = sgf::parse(&bytes, &sgf::ParseOptions::default());
    let mut code = 0u8;
    for d in &parsed.diagnostics {
        gamerec::say!("{}", d.to_diagnostic(Some(&a.input.to_string_lossy())));
    }
    if parsed.error_count() > 0 {
        code = 1;
    }
    let from = &parsed.collection;
    let mut out = Collection::new();
    let mut engine = spec.start(0)?;
    let mut used = std::collections::BTreeSet::new();
    for (g, &root) in from.roots.iter().enumerate() {
        let info = from.game_info(root);
        // Evaluations of the main line, by node.
        let mut notes: std::collections::HashMap<NodeId, (String, Option<f64>)> =
            std::collections::HashMap::new();
        if info.gm == 1 && info.width == info.height && info.width <= 25 {
            let komi = from
                .get(root, Prop::KM)
                .and_then(|p| match p.value() {
                    Value::Real(r) => Some(r),
                    Value::Number(n) => Some(n as f64),
                    _ => None,
                })
                .unwrap_or(0.0);
            let mut setup = GoGameSetup {
                size: info.width,
                komi,
                black_stones: vec![],
                white_stones: vec![],
                rules: from.text_of(root, Prop::RU).map(str::to_owned),
            };
            let points = |node: NodeId, prop: Prop, out: &mut Vec<sgf::Point>| {
                if let Some(p) = from.get(node, prop) {
                    for &v in p.values() {
                        match v {
                            Value::Point(p) => out.push(p),
                            Value::Rect(a, b) => {
                                for y in a.y.min(b.y)..=a.y.max(b.y) {
                                    for x in a.x.min(b.x)..=a.x.max(b.x) {
                                        out.push(sgf::Point::new(x, y));
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
            };
            points(root, Prop::AB, &mut setup.black_stones);
            points(root, Prop::AW, &mut setup.white_stones);
            engine.new_game(&setup)?;
            for node in from.main_line(root) {
                let mv = [(Prop::B, Color::Black), (Prop::W, Color::White)]
                    .into_iter()
                    .find_map(|(p, c)| from.get(node, p).map(|v| (c, v.value())));
                let Some((color, value)) = mv else { continue };
                let point = match value {
                    Value::Point(p) => Some(p),
                    _ => None,
                };
                if let Err(e) = engine.play(color, point) {
                    gamerec::say!(
                        "{}: game {}: {e}; the rest of the game is not analysed",
                        a.input.display(),
                        g + 1
                    );
                    code = 1;
                    break;
                }
                match engine.evaluate(color.opponent(), budget)? {
                    Some(ev) => {
                        used.insert(ev.source);
                        let mut text = format!("{}:", ev.source);
                        if let Some(l) = ev.black_lead {
                            text.push_str(&format!(
                                " {}",
                                if l >= 0.0 {
                                    format!("B+{l:.1}")
                                } else {
                                    format!("W+{:.1}", -l)
                                }
                            ));
                        }
                        if let Some(w) = ev.black_winrate {
                            text.push_str(&format!(" Black wins {:.1} %", 100.0 * w));
                        }
                        if let Some(GoMove::Play(p)) = ev.best
                            && let Some(v) = gamerec_engine::gtp::vertex(p, info.width)
                        {
                            text.push_str(&format!(", best {v}"));
                        }
                        notes.insert(node, (text, ev.black_lead));
                    }
                    None => {
                        anyhow::bail!(
                            "{}: the engine gives no evaluation (no lz-analyze, kata-analyze, estimate_score or final_score)",
                            engine.name()
                        );
                    }
                }
            }
        }
        // Copy the game tree, adding the notes.
        let mut stack = vec![(root, None::<NodeId>)];
        while let Some((node, parent)) = stack.pop() {
            let mut props: Vec<(Prop, String, Vec<Value>)> = Vec::new();
            let note = notes.get(&node);
            let mut commented = false;
            for p in from.properties(node) {
                if note.is_some() && p.prop() == Prop::V {
                    continue;
                }
                let mut values: Vec<Value> = p
                    .values()
                    .iter()
                    .map(|&v| copy_value(from, &mut out, v))
                    .collect();
                if p.prop() == Prop::C
                    && let Some((text, _)) = note
                {
                    let old = from.text_of(node, Prop::C).unwrap_or_default();
                    values = vec![Value::Text(out.intern(&format!("{old}\n\n{text}")))];
                    commented = true;
                }
                props.push((p.prop(), p.name().to_owned(), values));
            }
            if let Some((text, lead)) = note {
                if !commented {
                    props.push((Prop::C, String::new(), vec![Value::Text(out.intern(text))]));
                }
                if let Some(l) = lead {
                    props.push((Prop::V, String::new(), vec![Value::Real(*l)]));
                }
            }
            let refs: Vec<(Prop, &str, Vec<Value>)> = props
                .iter()
                .map(|(p, n, v)| (*p, n.as_str(), v.clone()))
                .collect();
            let id = out.add_node(parent, &refs);
            let children: Vec<NodeId> = from.children(node).collect();
            for c in children.into_iter().rev() {
                stack.push((c, Some(id)));
            }
        }
    }
    let _closing = engine.quit();
    let text = sgf::write(&out, &sgf::WriteOptions::default());
    let mut o = gamerec::io::Output::open(a.output.as_deref())?;
    use std::io::Write;
    o.write_all(&text)?;
    o.finish()?;
    gamerec::say!(
        "analyze: evaluations from {}",
        used.into_iter().collect::<Vec<_>>().join(", ")
    );
    Ok(ExitCode::from(code))
}
