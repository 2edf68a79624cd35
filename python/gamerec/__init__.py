"""Chess game records as data.

``gamerec`` reads PGN files (plain, ``.gz``, ``.bz2`` or ``.zst``) with the
gamerec Rust library and hands them to Python as Arrow tables, without
copying through Python objects:

>>> import gamerec
>>> games = gamerec.to_arrow("games.pgn.zst")                       # doctest: +SKIP
>>> plies = gamerec.to_arrow("games.pgn.zst", table="positions", threads=2)  # doctest: +SKIP

The table columns are documented in the project README ("Games as data").
"""

from __future__ import annotations

import os
import tempfile
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, List, Optional, Sequence, Tuple, Union

from . import _gamerec

if TYPE_CHECKING:  # pragma: no cover
    import chess.pgn
    import pyarrow

__all__ = [
    "ArrowStream",
    "Diagnostic",
    "Game",
    "GamerecWarning",
    "Problems",
    "ReadError",
    "arrow_stream",
    "check",
    "problems",
    "read_games",
    "to_arrow",
]

PathLike = Union[str, "os.PathLike[str]"]


def _suffix(name: str) -> str:
    """``.pgn.zst`` of ``s3://b/lichess_2024-01.pgn.zst``: what tells the format."""
    base = name.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0]
    _, dot, rest = base.partition(".")
    return "." + rest if dot and rest else ".pgn"


def _copy(source, directory: str, index: int, suffix: str) -> str:
    """Copies a binary or text file object to a file of ``directory``, in
    1 MiB pieces (bounded memory)."""
    local = os.path.join(directory, f"input-{index}{suffix}")
    with open(local, "wb") as out:
        while True:
            piece = source.read(1 << 20)
            if not piece:
                break
            out.write(piece.encode("utf-8") if isinstance(piece, str) else piece)
    return local


def _inputs(path) -> Tuple[List[str], List[str], object]:
    """Local paths, names ("" for a local path) and the temporary directory
    holding the copies of URLs (fsspec: ``s3://``, ``gs://``, ``hdfs://``,
    ``https://``, ``memory://``, …) and file objects."""
    if isinstance(path, (str, os.PathLike)) or hasattr(path, "read"):
        items = [path]
    else:
        items = list(path)
    paths: List[str] = []
    names: List[str] = []
    holder = None
    for item in items:
        if hasattr(item, "read"):
            name = getattr(item, "name", None)
            name = name if isinstance(name, str) else "<file object>"
            if holder is None:
                holder = tempfile.TemporaryDirectory(prefix="gamerec-")
            paths.append(_copy(item, holder.name, len(paths), _suffix(name)))
            names.append(name)
            continue
        text = os.fspath(item)
        if text.startswith("file://"):
            text = text[len("file://"):]
        if "://" in text:
            import fsspec  # an optional dependency: pip install fsspec (and s3fs, gcsfs, ...)

            if holder is None:
                holder = tempfile.TemporaryDirectory(prefix="gamerec-")
            with fsspec.open(text, "rb") as remote:
                paths.append(_copy(remote, holder.name, len(paths), _suffix(text)))
            names.append(text)
            continue
        paths.append(text)
        names.append("")
    return paths, names, holder


@dataclass
class Game:
    """One game: tags in file order, and per-ply lists along the main line.

    ``clk_ms``, ``emt_ms``, ``eval_cp`` and ``eval_mate`` come from the
    ``[%clk]``, ``[%emt]`` and ``[%eval]`` commands of the comment after each
    move (``None`` where a move has none); ``comments`` holds that comment's
    full text. ``pgn`` is the game in PGN export format, comments and
    variations included.
    """

    tags: List[Tuple[str, str]]
    result: Optional[str]
    uci: List[str]
    san: List[str]
    comments: List[Optional[str]]
    clk_ms: List[Optional[int]]
    emt_ms: List[Optional[int]]
    eval_cp: List[Optional[int]]
    eval_mate: List[Optional[int]]
    nags: List[List[int]]
    pgn: str = field(repr=False)

    @property
    def headers(self) -> dict:
        """The tags as a dict (the first value of a repeated tag)."""
        out: dict = {}
        for name, value in self.tags:
            out.setdefault(name, value)
        return out

    @property
    def clocks(self) -> List[Optional[float]]:
        """``[%clk]`` values in seconds, as python-chess's ``node.clock()``."""
        return [None if ms is None else ms / 1000 for ms in self.clk_ms]

    def to_python_chess(self) -> "chess.pgn.Game":
        """The game as a ``chess.pgn.Game``.

        Needs python-chess: ``pip install "gamerec[chess]"`` (the ``chess``
        extra) or ``pip install chess``.
        """
        import io

        import chess.pgn

        game = chess.pgn.read_game(io.StringIO(self.pgn))
        if game is None:  # pragma: no cover - our export always reads back
            raise ValueError("the game's PGN did not read back")
        return game


@dataclass(frozen=True)
class Diagnostic:
    """A problem found while reading: place, severity and message.

    ``line`` is 0 for a problem about a whole input (one that could not be
    read) or a binary format (then ``offset`` is the byte offset).
    """

    path: str
    line: int
    column: int
    offset: int
    is_error: bool
    message: str

    def __str__(self) -> str:
        kind = "error" if self.is_error else "warning"
        if self.line:
            return f"{self.path}:{self.line}:{self.column}: {kind}: {self.message}"
        return f"{self.path}: {kind}: {self.message}"


GamerecWarning = _gamerec.GamerecWarning
ReadError = _gamerec.ReadError

ERRORS = ("raise", "warn", "skip")


class Problems(List[Diagnostic]):
    """The diagnostics of a read, in input order, with its counts.

    The counts are ``gamerec check``'s: ``games`` read (those that failed
    and those a filter left out included), ``failed`` (games left out for
    an error), ``rows`` of the table, ``errors`` and ``warnings``
    (diagnostics), ``inputs_not_read`` (inputs that could not be opened or
    read to their end; each is also an error diagnostic with line 0, not
    counted in ``errors``, as ``gamerec check`` counts them).
    """

    games: int = 0
    failed: int = 0
    rows: int = 0
    errors: int = 0
    warnings: int = 0
    inputs_not_read: int = 0

    @classmethod
    def _from_native(cls, native: Tuple[list, dict]) -> "Problems":
        tuples, counts = native
        out = cls(Diagnostic(*d) for d in tuples)
        for name, value in counts.items():
            setattr(out, name, value)
        return out

    @property
    def ok(self) -> bool:
        """Whether nothing was left out: no error and every input read."""
        return self.errors == 0 and self.inputs_not_read == 0

    def summary(self) -> str:
        """``gamerec check``'s summary figures: ``3 games, 1 errors, 0 warnings``."""
        line = f"{self.games} games, {self.errors} errors, {self.warnings} warnings"
        if self.inputs_not_read:
            line += f", {self.inputs_not_read} inputs not read"
        return line

    def __repr__(self) -> str:
        return f"Problems({self.summary()}: {list.__repr__(self)})"


def _errors(errors: str) -> str:
    if errors not in ERRORS:
        raise ValueError(f'errors={errors!r}: expected "raise", "warn" or "skip"')
    return errors


def _read_error(problems: Problems, cause: Optional[BaseException] = None) -> ReadError:
    first = next((d for d in problems if d.is_error), None)
    message = str(first) if first is not None else str(cause)
    err = ReadError(f'{message} (errors="raise"; {problems.summary()} so far)')
    err.problems = problems
    return err


def _warn(problems: Problems, stacklevel: int = 3) -> None:
    if problems.ok:
        return
    first = next((d for d in problems if d.is_error), None)
    message = (
        f"gamerec: {problems.failed} of {problems.games} games left out, "
        f"{problems.errors} error(s)"
        + (f", {problems.inputs_not_read} input(s) not read" if problems.inputs_not_read else "")
        + (f"; first: {first}" if first is not None else "")
        + ' (errors="skip" silences this; the warning\'s .problems lists them all)'
    )
    warning = GamerecWarning(message)
    warning.problems = problems
    warnings.warn(warning, stacklevel=stacklevel)


def read_games(path: PathLike, errors: str = "warn") -> Iterator[Game]:
    """Iterates over the games of a file of any chess format (PGN, JSON,
    PGC, CBF, FBK, EPD; plain or compressed).

    A game with an error is left out. ``errors="raise"`` raises
    :class:`ReadError` at the first one (its ``problems`` says where),
    ``"warn"`` (the default) ends with one :class:`GamerecWarning` (with
    ``problems``) if any game was left out, ``"skip"`` says nothing; see
    :func:`check` for the reasons.
    """
    mode = _errors(errors)
    reader = _gamerec.GameReader(os.fspath(path))
    while True:
        try:
            raw = next(reader)
        except StopIteration:
            break
        if mode == "raise":
            problems = Problems._from_native(reader.problems())
            if problems.errors:
                raise _read_error(problems)
        raw["nags"] = [list(n) for n in raw["nags"]]
        yield Game(**raw)
    problems = Problems._from_native(reader.problems())
    if mode == "raise" and problems.errors:
        raise _read_error(problems)
    if mode == "warn":
        _warn(problems)


class ArrowStream:
    """A one-shot Arrow C stream of a table over game files
    (``__arrow_c_stream__``), and the problems found reading it.

    ``problems()`` gives the diagnostics and counts so far (all of them
    once the stream is consumed).
    """

    def __init__(self, native: "_gamerec.ArrowStream", holder: object = None):
        self._native = native
        # Local copies of URLs and file objects, removed with the stream.
        self._holder = holder

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self._native.__arrow_c_stream__(requested_schema)

    def problems(self) -> Problems:
        """The diagnostics and counts of what was read so far."""
        return Problems._from_native(self._native.problems())

    @property
    def schema(self) -> "pyarrow.Schema":
        """The table's Arrow schema (the stream is not consumed)."""
        import pyarrow

        return pyarrow.RecordBatchReader.from_stream(_SchemaOnly(self._native)).schema

    def to_reader(self) -> "pyarrow.RecordBatchReader":
        """The stream as a ``pyarrow.RecordBatchReader`` (consumes it)."""
        import pyarrow

        return pyarrow.RecordBatchReader.from_stream(self)


class _SchemaOnly:
    def __init__(self, native: "_gamerec.ArrowStream"):
        self._native = native

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self._native.schema_stream()


def _check_filters(table: str, min_rating: Optional[int], time_control: Optional[str]) -> None:
    if min_rating is not None and not isinstance(min_rating, int):
        raise TypeError(f"min_rating={min_rating!r}: expected an int")
    if time_control is not None and not isinstance(time_control, str):
        raise TypeError(f"time_control={time_control!r}: expected a str")


def arrow_stream(
    path: Union[PathLike, Sequence[PathLike]],
    table: str = "games",
    threads: int = 1,
    min_rating: Optional[int] = None,
    time_control: Optional[str] = None,
    errors: str = "warn",
) -> ArrowStream:
    """An Arrow C stream (``__arrow_c_stream__``) of a table over game files.

    Any consumer of the Arrow PyCapsule interface reads it without a copy,
    once: ``pyarrow.RecordBatchReader.from_stream(s)`` (or
    ``s.to_reader()``); ``pyarrow.table(s)``; ``polars.DataFrame(s)``;
    DuckDB's ``duckdb.sql("select ... from r")`` over ``r = s.to_reader()``.
    ``errors`` is as in :func:`to_arrow`: ``"raise"`` ends the stream with an
    error at the first game that fails, ``"warn"`` says one
    :class:`GamerecWarning` at its end, ``"skip"`` reads on silently;
    ``problems()`` has the diagnostics and counts either way.

    ``path`` is a path, a URL that fsspec opens (``s3://``, ``gs://``,
    ``hdfs://``, ``https://``; needs ``pip install fsspec`` and the
    file system's package), a binary or text file object, or a list of
    them; URLs and file objects are copied to a temporary file first (in
    1 MiB pieces) and named by their URL or ``name`` in diagnostics and
    the ``source`` column.
    """
    _check_filters(table, min_rating, time_control)
    mode = _errors(errors)
    paths, names, holder = _inputs(path)
    native = _gamerec.stream(paths, table, threads, min_rating, time_control, mode, names)
    return ArrowStream(native, holder)


def to_arrow(
    path: Union[PathLike, Sequence[PathLike]],
    table: str = "games",
    threads: int = 1,
    min_rating: Optional[int] = None,
    time_control: Optional[str] = None,
    errors: str = "warn",
) -> "pyarrow.Table":
    """Reads game files into a ``pyarrow.Table``.

    ``table`` is ``"games"`` (one row per game) or ``"positions"`` (one row
    per main-line ply, with the FEN before the move). SGF files (and
    directories, for the SGF files under them) give the Go tables instead:
    Go games (one row per game tree) and, with ``"positions"``, Go moves
    (one row per main-line move, with the boards); see docs/sgf.md. ``threads`` decode in
    parallel; rows keep input order. ``min_rating`` (both players rated at
    least this) and ``time_control`` (``"300+3"`` or a speed class such as
    ``"blitz"``) keep only the matching games, in either table. Record
    batches cross from Rust through the Arrow C data interface: no copy,
    no Python object per value.

    A game with an error gets no row. ``errors="warn"`` (the default) says
    one :class:`GamerecWarning` when any game was left out (its ``problems``
    attribute holds the diagnostics and counts); ``"raise"`` raises
    :class:`ReadError` (with ``problems``) at the first such game;
    ``"skip"`` says nothing (use :func:`arrow_stream` and its
    ``problems()`` to see them). An input that cannot be read raises
    ``OSError`` unless ``errors="skip"``.
    """
    import pyarrow

    mode = _errors(errors)
    _check_filters(table, min_rating, time_control)
    paths, names, holder = _inputs(path)
    native = _gamerec.stream(
        paths, table, threads, min_rating, time_control, "collect" if mode == "warn" else mode, names
    )
    stream = ArrowStream(native, holder)
    try:
        result = pyarrow.RecordBatchReader.from_stream(stream).read_all()
    except pyarrow.ArrowInvalid as e:
        problems = stream.problems()
        if mode == "raise" and problems.errors:
            raise _read_error(problems, e) from None
        raise
    if mode == "warn":
        _warn(stream.problems())
    return result


def check(path: Union[PathLike, Sequence[PathLike]], threads: int = 1) -> Problems:
    """Reads game files and returns every warning and error found, with
    ``gamerec check``'s counts (a :class:`Problems`, a list of
    :class:`Diagnostic`).

    A game with an error is left out of the tables; its diagnostic says
    where and why. Raises ``OSError`` when an input cannot be read.
    """
    paths, names, _holder = _inputs(path)
    problems = Problems._from_native(_gamerec.check(paths, threads, names))
    if problems.inputs_not_read:
        first = next(d for d in problems if d.is_error and d.line == 0)
        raise OSError(f"{first.path}: {first.message}")
    return problems


def problems(
    path: Union[PathLike, Sequence[PathLike]],
    threads: int = 1,
) -> Problems:
    """The diagnostics and counts of reading game files, as ``gamerec
    check`` gives them; inputs that cannot be read are in it (never raises
    for them)."""
    paths, names, _holder = _inputs(path)
    return Problems._from_native(_gamerec.check(paths, threads, names))
