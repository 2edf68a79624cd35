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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, List, Optional, Sequence, Tuple, Union

from . import _gamerec

if TYPE_CHECKING:  # pragma: no cover
    import chess.pgn
    import pyarrow

__all__ = [
    "Diagnostic",
    "Game",
    "arrow_stream",
    "check",
    "read_games",
    "to_arrow",
]

PathLike = Union[str, "os.PathLike[str]"]


def _paths(path: Union[PathLike, Sequence[PathLike]]) -> List[str]:
    if isinstance(path, (str, os.PathLike)):
        return [os.fspath(path)]
    return [os.fspath(p) for p in path]


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
        """The game as a ``chess.pgn.Game`` (needs the ``chess`` package)."""
        import io

        import chess.pgn

        game = chess.pgn.read_game(io.StringIO(self.pgn))
        if game is None:  # pragma: no cover - our export always reads back
            raise ValueError("the game's PGN did not read back")
        return game


@dataclass(frozen=True)
class Diagnostic:
    """A problem found while reading: place, severity and message."""

    path: str
    line: int
    column: int
    offset: int
    is_error: bool
    message: str

    def __str__(self) -> str:
        kind = "error" if self.is_error else "warning"
        return f"{self.path}:{self.line}:{self.column}: {kind}: {self.message}"


def read_games(path: PathLike) -> Iterator[Game]:
    """Iterates over the games of a file of any chess format (PGN, JSON,
    PGC, CBF, FBK, EPD; plain or compressed).

    Games with errors are skipped; see :func:`check` for the reasons.
    """
    for raw in _gamerec.GameReader(os.fspath(path)):
        raw["nags"] = [list(n) for n in raw["nags"]]
        yield Game(**raw)


def arrow_stream(
    path: Union[PathLike, Sequence[PathLike]],
    table: str = "games",
    threads: int = 1,
    min_rating: Optional[int] = None,
    time_control: Optional[str] = None,
) -> "_gamerec.ArrowStream":
    """An Arrow C stream (``__arrow_c_stream__``) of a table over game files.

    Any consumer of the Arrow PyCapsule interface reads it without a copy:
    ``pyarrow.RecordBatchReader.from_stream(s)``, ``polars.from_arrow``,
    DuckDB. The stream can be consumed once.
    """
    return _gamerec.stream(_paths(path), table, threads, min_rating, time_control)


def to_arrow(
    path: Union[PathLike, Sequence[PathLike]],
    table: str = "games",
    threads: int = 1,
    min_rating: Optional[int] = None,
    time_control: Optional[str] = None,
) -> "pyarrow.Table":
    """Reads game files into a ``pyarrow.Table``.

    ``table`` is ``"games"`` (one row per game) or ``"positions"`` (one row
    per main-line ply, with the FEN before the move). ``threads`` decode in
    parallel; rows keep input order. ``min_rating`` and ``time_control``
    (``"300+3"`` or a speed class such as ``"blitz"``) filter the positions
    table. Record batches cross from Rust through the Arrow C data
    interface: no copy, no Python object per value.
    """
    import pyarrow

    stream = arrow_stream(path, table, threads, min_rating, time_control)
    return pyarrow.RecordBatchReader.from_stream(stream).read_all()


def check(path: Union[PathLike, Sequence[PathLike]], threads: int = 1) -> List[Diagnostic]:
    """Reads game files and returns every warning and error found.

    A game with an error is left out of the tables; its diagnostic says
    where and why. Raises ``OSError`` when an input cannot be read.
    """
    return [Diagnostic(*d) for d in _gamerec.check(_paths(path), threads)]
