//! `gamerec._gamerec`: the native part of the `gamerec` Python package.
//! Tables leave as Arrow C streams (`__arrow_c_stream__` capsules): pyarrow,
//! Polars and DuckDB import the record batches' buffers without a copy.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use gamerec::diag::{Diagnostic, Severity};
use gamerec::io::{Input, ReadOptions, Reader, Record};
use gamerec::model::Game;
use gamerec::pgn::{WriteOptions, write_game};
use gamerec_arrow::values::{PlyNotes, uci, uci_mode};
use gamerec_arrow::{Batches, Options, PositionFilter, Table, schema};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyList};

type Problems = Arc<Mutex<Vec<Diagnostic>>>;

/// Record batches of a [`Batches`] decode as an Arrow `RecordBatchReader`;
/// diagnostics are collected aside; an unreadable input ends the stream
/// with an error.
struct BatchReader {
    schema: SchemaRef,
    batches: Batches,
    problems: Problems,
}

impl Iterator for BatchReader {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        match self.batches.next()? {
            Ok(decoded) => {
                if let Ok(mut p) = self.problems.lock() {
                    p.extend(decoded.problems);
                }
                Some(Ok(decoded.batch))
            }
            Err(e) => Some(Err(ArrowError::IoError(e.to_string(), e.source))),
        }
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
    problems: Problems,
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

    /// Diagnostics collected so far: (path, line, column, offset, is_error, message).
    fn problems(&self) -> Vec<DiagnosticTuple> {
        let problems = self.problems.lock().map(|p| p.clone()).unwrap_or_default();
        problems.into_iter().map(diagnostic_tuple).collect()
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

/// An Arrow stream of `table` ("games" or "positions") over `paths`.
#[pyfunction]
#[pyo3(signature = (paths, table="games", threads=1, min_rating=None, time_control=None))]
fn stream(
    paths: Vec<PathBuf>,
    table: &str,
    threads: usize,
    min_rating: Option<i32>,
    time_control: Option<String>,
) -> PyResult<ArrowStream> {
    let table: Table = table.parse().map_err(PyValueError::new_err)?;
    let schema = match table {
        Table::Games => schema::games(),
        Table::Positions => schema::positions(),
    };
    let opts = Options {
        table,
        threads,
        filter: PositionFilter {
            min_rating,
            time_control,
        },
    };
    let problems = Problems::default();
    Ok(ArrowStream {
        reader: Mutex::new(Some(BatchReader {
            schema,
            batches: Batches::new(paths, opts),
            problems: problems.clone(),
        })),
        problems,
    })
}

/// Reads all of `paths` and returns their diagnostics as tuples
/// (path, line, column, offset, is_error, message); an unreadable input
/// raises `OSError`.
#[pyfunction]
#[pyo3(signature = (paths, threads=1))]
fn check(py: Python<'_>, paths: Vec<PathBuf>, threads: usize) -> PyResult<Vec<DiagnosticTuple>> {
    let opts = Options {
        table: Table::Positions,
        threads,
        filter: PositionFilter {
            min_rating: Some(i32::MAX),
            time_control: None,
        },
    };
    let result: Result<Vec<Diagnostic>, String> = py.detach(|| {
        let mut all = Vec::new();
        for item in Batches::new(paths, opts) {
            all.extend(item.map_err(|e| e.to_string())?.problems);
        }
        Ok(all)
    });
    let all = result.map_err(PyOSError::new_err)?;
    Ok(all.into_iter().map(diagnostic_tuple).collect())
}

/// Games of one file of any chess format (PGN, JSON, PGC, CBF, FBK, EPD;
/// plain or compressed), one at a time, as dicts.
#[pyclass(module = "gamerec._gamerec", unsendable)]
struct GameReader {
    reader: Reader,
}

#[pymethods]
impl GameReader {
    #[new]
    fn new(path: PathBuf) -> PyResult<GameReader> {
        let input = Input::from_arg(path.as_os_str());
        let reader = Reader::open(&input, &ReadOptions::default())
            .map_err(|e| PyOSError::new_err(e.to_string()))?;
        Ok(GameReader { reader })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        match self.reader.next() {
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
    m.add_class::<ArrowStream>()?;
    m.add_class::<GameReader>()?;
    m.add_function(wrap_pyfunction!(stream, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    Ok(())
}
