//! `gamerec._gamerec`: the native part of the `gamerec` Python package.
//! Tables leave as Arrow C streams (`__arrow_c_stream__` capsules): pyarrow,
//! Polars and DuckDB import the record batches' buffers without a copy.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use gamerec::diag::{Diagnostic, Severity};
use gamerec::io::{Input, OpenError, ReadOptions, Reader, Record};
use gamerec::model::Game;
use gamerec::pgn::{WriteOptions, write_game};
use gamerec_arrow::decode::is_error;
use gamerec_arrow::values::{PlyNotes, uci, uci_mode};
use gamerec_arrow::{Batches, Options, PositionFilter, Table};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyList};

/// What to do about games that fail to read and inputs that cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Errors {
    /// Stop at the first error: the stream ends with an error.
    Raise,
    /// Read on; when the stream ends, one `GamerecWarning` says what was
    /// left out. An input that cannot be read still ends the stream.
    Warn,
    /// Read on silently; everything is in `problems()`.
    Skip,
    /// As `Warn` without the warning (the Python side says it).
    Collect,
}

impl std::str::FromStr for Errors {
    type Err = PyErr;
    fn from_str(s: &str) -> PyResult<Errors> {
        match s {
            "raise" => Ok(Errors::Raise),
            "warn" => Ok(Errors::Warn),
            "skip" => Ok(Errors::Skip),
            "collect" => Ok(Errors::Collect),
            _ => Err(PyValueError::new_err(format!(
                "errors={s:?}: expected \"raise\", \"warn\" or \"skip\""
            ))),
        }
    }
}

/// Counts of a read, as `gamerec check` counts: games read (with those
/// that failed and those a filter left out), games left out for an error,
/// rows, error and warning diagnostics, inputs not read (each also in the
/// diagnostics, as an error without a line, but not counted in `errors`).
#[derive(Debug, Clone, Default)]
struct Tally {
    games: u64,
    failed: u64,
    rows: u64,
    errors: u64,
    warnings: u64,
    inputs_not_read: u64,
    /// The first [`PROBLEMS_HELD`] diagnostics.
    diagnostics: Vec<Diagnostic>,
    /// Diagnostics past those, counted only.
    not_listed: u64,
}

/// How many diagnostics a read keeps for `problems()`: the rest are
/// counted (`Problems.not_listed`), so memory stays bounded whatever the
/// number of bad games (about 200 bytes each: some 20 MB at most).
const PROBLEMS_HELD: usize = 100_000;

impl Tally {
    fn add(&mut self, games: u64, failed: u64, rows: u64, problems: Vec<Diagnostic>) {
        self.games += games;
        self.failed += failed;
        self.rows += rows;
        for d in &problems {
            let (errors, warnings) = d.counts();
            self.errors += errors;
            self.warnings += warnings;
        }
        for d in problems {
            self.hold(d);
        }
    }

    /// Keeps `d` if fewer than [`PROBLEMS_HELD`] are kept, else counts it.
    fn hold(&mut self, d: Diagnostic) {
        if self.diagnostics.len() < PROBLEMS_HELD {
            self.diagnostics.push(d);
        } else {
            self.not_listed += 1;
        }
    }

    fn not_read(&mut self, e: &OpenError) {
        self.inputs_not_read += 1;
        self.hold(Diagnostic {
            severity: Severity::Error,
            path: Some(e.name.clone()),
            message: e.source.to_string(),
            ..Diagnostic::default()
        });
    }

    /// `(diagnostic tuples, counts)` for the Python side.
    fn to_python(&self) -> (Vec<DiagnosticTuple>, Counts) {
        let tuples = self
            .diagnostics
            .iter()
            .cloned()
            .map(diagnostic_tuple)
            .collect();
        let counts = Counts {
            games: self.games,
            failed: self.failed,
            rows: self.rows,
            errors: self.errors,
            warnings: self.warnings,
            inputs_not_read: self.inputs_not_read,
            not_listed: self.not_listed,
        };
        (tuples, counts)
    }

    /// The warning said at the end of a read in `errors="warn"` mode, if
    /// anything was left out.
    fn warning(&self) -> Option<String> {
        if self.errors == 0 && self.inputs_not_read == 0 {
            return None;
        }
        let first = self
            .diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error)
            .map(|d| format!("; first: {d}"))
            .unwrap_or_default();
        Some(format!(
            "{} of {} games left out, {} error(s){}{} (errors=\"skip\" silences this; \
             problems() lists them)",
            self.failed,
            self.games,
            self.errors,
            match self.inputs_not_read {
                0 => String::new(),
                n => format!(", {n} input(s) not read"),
            },
            first
        ))
    }
}

#[derive(IntoPyObject)]
struct Counts {
    games: u64,
    failed: u64,
    rows: u64,
    errors: u64,
    warnings: u64,
    inputs_not_read: u64,
    not_listed: u64,
}

type Shared = Arc<Mutex<Tally>>;

fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, Tally> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

pyo3::create_exception!(
    gamerec,
    GamerecWarning,
    pyo3::exceptions::PyUserWarning,
    "Games left out or inputs not read (errors=\"warn\")."
);
pyo3::create_exception!(
    gamerec,
    ReadError,
    PyValueError,
    "A game failed to read, or an input could not be read (errors=\"raise\")."
);

/// Says `message` as a `GamerecWarning`; an error if warnings are errors.
fn warn(message: &str) -> PyResult<()> {
    Python::attach(|py| {
        let message = std::ffi::CString::new(message.replace('\0', "\\0"))
            .unwrap_or_else(|_| c"gamerec: games left out".to_owned());
        PyErr::warn(py, &py.get_type::<GamerecWarning>(), &message, 1)
    })
}

/// Record batches of a [`Batches`] decode as an Arrow `RecordBatchReader`;
/// diagnostics and counts are collected aside. How errors end the stream
/// is [`Errors`].
struct BatchReader {
    schema: SchemaRef,
    batches: Batches,
    shared: Shared,
    errors: Errors,
    done: bool,
}

impl Iterator for BatchReader {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self.batches.next() {
                None => {
                    self.done = true;
                    let warning = lock(&self.shared).warning();
                    if self.errors == Errors::Warn
                        && let Some(message) = warning
                        && let Err(e) = warn(&format!("gamerec: {message}"))
                    {
                        return Some(Err(ArrowError::ExternalError(Box::new(e))));
                    }
                }
                Some(Ok(decoded)) => {
                    let first_error = decoded.problems.iter().find(|d| is_error(d)).cloned();
                    lock(&self.shared).add(
                        decoded.games,
                        decoded.failed,
                        decoded.batch.num_rows() as u64,
                        decoded.problems,
                    );
                    if self.errors == Errors::Raise
                        && let Some(d) = first_error
                    {
                        self.done = true;
                        return Some(Err(ArrowError::InvalidArgumentError(format!(
                            "{d} (errors=\"raise\")"
                        ))));
                    }
                    return Some(Ok(decoded.batch));
                }
                Some(Err(e)) => {
                    lock(&self.shared).not_read(&e);
                    if self.errors != Errors::Skip {
                        self.done = true;
                        return Some(Err(ArrowError::IoError(e.to_string(), e.source)));
                    }
                }
            }
        }
        None
    }
}

impl RecordBatchReader for BatchReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// A one-shot Arrow C stream of a table over game files.
#[pyclass(module = "gamerec._gamerec")]
struct ArrowStream {
    reader: Mutex<Option<BatchReader>>,
    shared: Shared,
}

#[pymethods]
impl ArrowStream {
    /// The Arrow PyCapsule stream protocol: hands the stream over once.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = self
            .reader
            .lock()
            .ok()
            .and_then(|mut r| r.take())
            .ok_or_else(|| PyValueError::new_err("the stream was already consumed"))?;
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The table's Arrow schema, as a stream of no batches.
    fn schema_stream<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = self
            .reader
            .lock()
            .ok()
            .and_then(|r| r.as_ref().map(|r| r.schema.clone()))
            .ok_or_else(|| PyValueError::new_err("the stream was already consumed"))?;
        let empty = arrow_array::RecordBatchIterator::new(std::iter::empty(), schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(empty));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// Diagnostics collected so far, as tuples (path, line, column,
    /// offset, is_error, message), and the counts.
    fn problems(&self) -> (Vec<DiagnosticTuple>, Counts) {
        lock(&self.shared).to_python()
    }
}

type DiagnosticTuple = (String, u64, u64, u64, bool, String);

fn diagnostic_tuple(d: Diagnostic) -> DiagnosticTuple {
    (
        d.path.unwrap_or_default(),
        d.location.line,
        d.location.column,
        d.offset.unwrap_or(0),
        d.severity == Severity::Error,
        d.message,
    )
}

/// Decode options; a filter option the table cannot apply is refused.
fn options(
    table: &str,
    threads: usize,
    min_rating: Option<i32>,
    time_control: Option<String>,
) -> PyResult<Options> {
    let table: Table = table.parse().map_err(PyValueError::new_err)?;
    if let Some(tc) = &time_control
        && !gamerec_arrow::values::is_time_control_filter(tc)
    {
        return Err(PyValueError::new_err(format!(
            "time_control={tc:?}: expected a TimeControl value such as \"300+3\" or a speed \
             class (ultrabullet, bullet, blitz, rapid, classical)"
        )));
    }
    Ok(Options {
        table,
        threads: threads.max(1),
        filter: PositionFilter {
            min_rating,
            time_control,
        },
        names: Vec::new(),
        ..Options::default()
    })
}

/// An Arrow stream of `table` ("games" or "positions") over `paths`.
#[pyfunction]
#[pyo3(signature = (paths, table="games", threads=1, min_rating=None, time_control=None, errors="warn", names=Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn stream(
    paths: Vec<PathBuf>,
    table: &str,
    threads: usize,
    min_rating: Option<i32>,
    time_control: Option<String>,
    errors: &str,
    names: Vec<String>,
) -> PyResult<ArrowStream> {
    let errors: Errors = errors.parse()?;
    let mut opts = options(table, threads, min_rating, time_control)?;
    opts.names = names;
    // Chess or Go tables, by the inputs (SGF: Go).
    let schema = gamerec_arrow::go::table_schema(&paths, opts.table)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let shared = Shared::default();
    Ok(ArrowStream {
        reader: Mutex::new(Some(BatchReader {
            schema,
            batches: Batches::new(paths, opts),
            shared: shared.clone(),
            errors,
            done: false,
        })),
        shared,
    })
}

/// Reads all of `paths` as `gamerec check` does and returns the
/// diagnostics as tuples (path, line, column, offset, is_error, message)
/// with the counts; an input that cannot be read is one error diagnostic.
#[pyfunction]
#[pyo3(signature = (paths, threads=1, names=Vec::new()))]
fn check(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    threads: usize,
    names: Vec<String>,
) -> (Vec<DiagnosticTuple>, Counts) {
    let opts = Options {
        table: Table::Positions,
        threads: threads.max(1),
        filter: PositionFilter {
            min_rating: Some(i32::MAX),
            time_control: None,
        },
        names,
        ..Options::default()
    };
    let tally = py.detach(|| {
        let mut tally = Tally::default();
        for item in Batches::new(paths, opts) {
            match item {
                Ok(d) => tally.add(d.games, d.failed, 0, d.problems),
                Err(e) => tally.not_read(&e),
            }
        }
        tally
    });
    tally.to_python()
}

/// Games of one file of any chess format (PGN, JSON, PGC, CBF, FBK, EPD;
/// plain or compressed), one at a time, as dicts; the diagnostics and
/// counts so far from `problems()`.
#[pyclass(module = "gamerec._gamerec", unsendable)]
struct GameReader {
    reader: Reader,
    tally: Tally,
}

#[pymethods]
impl GameReader {
    #[new]
    fn new(path: PathBuf) -> PyResult<GameReader> {
        let input = Input::from_arg(path.as_os_str());
        let reader = Reader::open(&input, &ReadOptions::default())
            .map_err(|e| PyOSError::new_err(e.to_string()))?;
        Ok(GameReader {
            reader,
            tally: Tally::default(),
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let next = self.reader.next();
        let problems = self.reader.take_diagnostics();
        let failed = problems.iter().filter(|d| is_error(d)).count() as u64;
        let read = u64::from(matches!(next, Some(Ok(_))));
        self.tally.add(read + failed, failed, read, problems);
        match next {
            None => Ok(None),
            Some(Err(e)) => Err(PyOSError::new_err(e.to_string())),
            Some(Ok(item)) => {
                let game = match item.record {
                    Record::Game(g) => g,
                    other @ Record::Position(_) => other.to_game().value,
                };
                game_dict(py, game).map(Some)
            }
        }
    }

    /// Diagnostics so far, as tuples, and the counts.
    fn problems(&self) -> (Vec<DiagnosticTuple>, Counts) {
        self.tally.to_python()
    }
}

fn game_dict(py: Python<'_>, game: Game) -> PyResult<Bound<'_, PyDict>> {
    let dict = PyDict::new(py);
    let tags = PyList::empty(py);
    for tag in game.tags.iter() {
        tags.append((tag.name.as_str(), tag.value.as_str()))?;
    }
    dict.set_item("tags", tags)?;
    dict.set_item("result", game.result.map(|r| r.as_str()))?;
    let mut uci_moves = Vec::new();
    let mut san = Vec::new();
    let mut comments = Vec::new();
    let mut clk = Vec::new();
    let mut emt = Vec::new();
    let mut cp = Vec::new();
    let mut mate = Vec::new();
    let mut nags = Vec::new();
    let mode = uci_mode(&game);
    for id in game.tree.mainline() {
        let node = game.tree.node(id);
        let Some(ply) = &node.ply else { continue };
        let mut text = String::new();
        uci(ply.mv, mode, &mut text);
        uci_moves.push(text);
        san.push(ply.san.clone());
        let after: Vec<&str> = node
            .comments_after
            .iter()
            .map(|c| c.text.as_str())
            .collect();
        comments.push((!after.is_empty()).then(|| after.join(" ")));
        let notes = PlyNotes::of(node);
        clk.push(notes.clk_ms);
        emt.push(notes.emt_ms);
        cp.push(notes.eval_cp);
        mate.push(notes.eval_mate);
        nags.push(node.nags.clone());
    }
    dict.set_item("uci", uci_moves)?;
    dict.set_item("san", san)?;
    dict.set_item("comments", comments)?;
    dict.set_item("clk_ms", clk)?;
    dict.set_item("emt_ms", emt)?;
    dict.set_item("eval_cp", cp)?;
    dict.set_item("eval_mate", mate)?;
    dict.set_item("nags", nags)?;
    let mut pgn = Vec::new();
    write_game(&game, &WriteOptions::default(), &mut pgn);
    dict.set_item("pgn", String::from_utf8_lossy(&pgn))?;
    Ok(dict)
}

/// The native module.
#[pymodule]
fn _gamerec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A damaged table is a Python exception, not a panic printed too.
    gamerec::caught::quiet_caught_panics();
    m.add_class::<ArrowStream>()?;
    m.add_class::<GameReader>()?;
    m.add_function(wrap_pyfunction!(stream, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add("GamerecWarning", m.py().get_type::<GamerecWarning>())?;
    m.add("ReadError", m.py().get_type::<ReadError>())?;
    Ok(())
}
