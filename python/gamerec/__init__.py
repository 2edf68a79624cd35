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
    "GoGame",
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


# GTP's column letters (no I), as the Go tables write vertices.
_GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def _sgf_coordinate(c: str) -> int:
    """An SGF point letter's index: ``a``-``z`` 0-25, ``A``-``Z`` 26-51."""
    return ord(c) - (ord("a") if c.islower() else ord("A") - 26)


@dataclass
class GoGame:
    """One game tree of an SGF file (Go, or another SGF game: see ``gm``).

    The main line's moves are in ``colors`` (``"B"``/``"W"``), ``points``
    (SGF points such as ``"dd"``, ``None`` for a pass) and ``vertices`` (GTP
    vertices such as ``"D16"`` or ``"pass"``; ``None`` off the board or on
    boards over 25x25); ``time_left_s`` and ``periods_left`` hold each
    move's ``BL``/``WL`` and ``OB``/``OW`` (``None`` where absent). Setup
    stones (``AB``/``AW`` before the first move) are GTP vertices.
    ``moves`` and ``setup`` give the same in sgfmill's terms. ``HA`` never
    places stones: the handicap stones are the setup. ``errors`` and
    ``warnings`` count the diagnostics ``gamerec check`` reports for this
    game (a game with errors is still read: SGF is read with recovery).
    """

    source: str
    game_number: int
    gm: int
    size: int
    height: int
    komi: Optional[float]
    handicap: Optional[int]
    rules: Optional[str]
    black: Optional[str]
    white: Optional[str]
    black_rank: Optional[str]
    white_rank: Optional[str]
    result: Optional[str]
    winner: Optional[str]
    date: Optional[str]
    event: Optional[str]
    setup_black: List[Optional[str]]
    setup_white: List[Optional[str]]
    colors: List[str]
    points: List[Optional[str]]
    vertices: List[Optional[str]]
    time_left_s: List[Optional[float]]
    periods_left: List[Optional[int]]
    properties: dict
    errors: int
    warnings: int
    sgf: str = field(repr=False)

    _COLUMNS = (
        "source game_number gm size height komi handicap rules black white black_rank "
        "white_rank result winner date event setup_black setup_white colors points moves "
        "time_left_s periods_left properties errors warnings sgf"
    ).split()

    @classmethod
    def _from_row(cls, row: dict) -> "GoGame":
        fields = {k: row[k] for k in cls._COLUMNS if k != "moves"}
        fields["vertices"] = row["moves"]
        fields["properties"] = dict(row["properties"] or [])
        return cls(**fields)

    def _row_col(self, x: int, y: int) -> Tuple[int, int]:
        return (self.height - 1 - y, x)

    @property
    def moves(self) -> List[Tuple[str, Optional[Tuple[int, int]]]]:
        """The main line as sgfmill's ``node.get_move()`` gives it:
        ``("b", (row, col))`` with row 0 at the bottom, ``("w", None)`` for
        a pass."""
        out = []
        for color, point in zip(self.colors, self.points):
            where = None
            if point:
                where = self._row_col(_sgf_coordinate(point[0]), _sgf_coordinate(point[1]))
            out.append((color.lower(), where))
        return out

    @property
    def setup(self) -> Tuple[set, set]:
        """Setup stones as sgfmill's ``get_setup_stones()`` gives them:
        (black, white) sets of (row, col), row 0 at the bottom."""

        def points(vertices: List[Optional[str]]) -> set:
            out = set()
            for v in vertices:
                if v:
                    out.add((int(v[1:]) - 1, _GTP_COLUMNS.index(v[0])))
            return out

        return points(self.setup_black), points(self.setup_white)

    def to_sgf(self) -> str:
        """The game tree as SGF text (variations and comments included)."""
        return self.sgf


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
    ``not_listed`` counts the diagnostics past the first 100,000, which
    are kept (the counts cover them all), so a read of millions of bad
    games stays in bounded memory.
    """

    games: int = 0
    failed: int = 0
    rows: int = 0
    errors: int = 0
    warnings: int = 0
    inputs_not_read: int = 0
    not_listed: int = 0

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
        + ' (errors="skip" silences this; the warning\'s .problems lists them)'
    )
    warning = GamerecWarning(message)
    warning.problems = problems
    warnings.warn(warning, stacklevel=stacklevel)


_SGF_SUFFIXES = (".sgf", ".sgf.gz", ".sgf.bz2", ".sgf.zst")


def _looks_like_sgf(path: str, name: str) -> bool:
    """An SGF input: named ``.sgf`` (plain or compressed), a directory, or
    (a copied file object or URL of another name) text starting with ``(``."""
    if os.path.isdir(path):
        return True
    if (name or path).lower().endswith(_SGF_SUFFIXES):
        return True
    if name and not path.lower().endswith(_SGF_SUFFIXES):
        with open(path, "rb") as f:
            head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        return head.startswith(b"(")
    return False


def _read_go_games(paths: List[str], names: List[str], mode: str) -> Iterator[GoGame]:
    import pyarrow

    native = _gamerec.stream(paths, "games", 1, None, None, "collect" if mode == "warn" else mode, names)
    stream = ArrowStream(native)
    reader = pyarrow.RecordBatchReader.from_stream(stream)
    while True:
        try:
            batch = reader.read_next_batch()
        except StopIteration:
            break
        except pyarrow.ArrowInvalid as e:
            problems = stream.problems()
            if mode == "raise" and problems.errors:
                raise _read_error(problems, e) from None
            raise
        for row in batch.to_pylist():
            yield GoGame._from_row(row)
    if mode == "warn":
        _warn(stream.problems(), stacklevel=4)


def read_games(path, errors: str = "warn") -> Iterator[Union[Game, GoGame]]:
    """Iterates over the games of a file of any chess format (PGN, JSON,
    PGC, CBF, FBK, EPD; plain or compressed), or of SGF files.

    ``path`` is a path, an fsspec URL or a file object, as for
    :func:`to_arrow`. SGF (a ``.sgf`` file, plain or compressed, a
    directory of them, or a file object whose text starts with ``(``)
    gives :class:`GoGame` objects, one per game tree; a Go game with errors
    is still given (its ``errors`` counts them).

    A chess game with an error is left out. ``errors="raise"`` raises
    :class:`ReadError` at the first error (its ``problems`` says where),
    ``"warn"`` (the default) ends with one :class:`GamerecWarning` (with
    ``problems``) if there was any, ``"skip"`` says nothing; see
    :func:`check` for the reasons.
    """
    mode = _errors(errors)
    paths, names, holder = _inputs(path)
    if len(paths) != 1:
        raise TypeError("read_games reads one file (or one SGF directory)")
    try:
        if _looks_like_sgf(paths[0], names[0]):
            if names[0] and not paths[0].lower().endswith(_SGF_SUFFIXES):
                renamed = paths[0] + ".sgf"
                os.replace(paths[0], renamed)
                paths = [renamed]
            yield from _read_go_games(paths, names, mode)
            return
        yield from _read_chess_games(paths[0], mode)
    finally:
        if holder is not None:
            holder.cleanup()


def _read_chess_games(path: str, mode: str) -> Iterator[Game]:
    reader = _gamerec.GameReader(path)
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
        _warn(problems, stacklevel=4)


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

    def __del__(self) -> None:
        # Removed here rather than by TemporaryDirectory's finalizer, which
        # says ResourceWarning (an error under the test suite's filters).
        holder = getattr(self, "_holder", None)
        if holder is not None:
            holder.cleanup()

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
    paths, names, holder = _inputs(path)
    try:
        problems = Problems._from_native(_gamerec.check(paths, threads, names))
    finally:
        if holder is not None:
            holder.cleanup()
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
    paths, names, holder = _inputs(path)
    try:
        return Problems._from_native(_gamerec.check(paths, threads, names))
    finally:
        if holder is not None:
            holder.cleanup()
