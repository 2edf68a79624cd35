import os
from typing import IO, Dict, Iterator, List, Literal, Optional, Sequence, Set, Tuple, Union

import chess.pgn
import pyarrow

PathLike = Union[str, os.PathLike[str]]
# A path, an fsspec URL (s3://, gs://, hdfs://, https://) or a file object.
Source = Union[str, os.PathLike[str], IO[bytes], IO[str]]

class Game:
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
    pgn: str
    @property
    def headers(self) -> dict[str, str]: ...
    @property
    def clocks(self) -> List[Optional[float]]: ...
    def to_python_chess(self) -> chess.pgn.Game: ...

class GoGame:
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
    properties: Dict[str, str]
    errors: int
    warnings: int
    sgf: str
    @property
    def moves(self) -> List[Tuple[str, Optional[Tuple[int, int]]]]: ...
    @property
    def setup(self) -> Tuple[Set[Tuple[int, int]], Set[Tuple[int, int]]]: ...
    def to_sgf(self) -> str: ...

class Diagnostic:
    path: str
    line: int
    column: int
    offset: int
    is_error: bool
    message: str

class GamerecWarning(UserWarning):
    problems: Problems

class ReadError(ValueError):
    problems: Problems

class Problems(List[Diagnostic]):
    games: int
    failed: int
    rows: int
    errors: int
    warnings: int
    inputs_not_read: int
    not_listed: int
    @property
    def ok(self) -> bool: ...
    def summary(self) -> str: ...

Errors = Literal["raise", "warn", "skip"]

class ArrowStream:
    def __arrow_c_stream__(self, requested_schema: object = None) -> object: ...
    def problems(self) -> Problems: ...
    @property
    def schema(self) -> pyarrow.Schema: ...
    def to_reader(self) -> pyarrow.RecordBatchReader: ...

def read_games(path: Source, errors: Errors = "warn") -> Iterator[Union[Game, GoGame]]: ...
def arrow_stream(
    path: Union[Source, Sequence[Source]],
    table: str = "games",
    threads: int = 1,
    min_rating: Optional[int] = None,
    time_control: Optional[str] = None,
    errors: Errors = "warn",
) -> ArrowStream: ...
def to_arrow(
    path: Union[Source, Sequence[Source]],
    table: str = "games",
    threads: int = 1,
    min_rating: Optional[int] = None,
    time_control: Optional[str] = None,
    errors: Errors = "warn",
) -> pyarrow.Table: ...
def check(path: Union[Source, Sequence[Source]], threads: int = 1) -> Problems: ...
def problems(path: Union[Source, Sequence[Source]], threads: int = 1) -> Problems: ...
