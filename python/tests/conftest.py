"""Shared fixtures: the corpus of real game files and small sample games."""

from __future__ import annotations

import os
import pathlib
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SOURCE = REPO / "python"

# Run from python/ (`cd python && python -m pytest`), the current directory
# comes first on sys.path and `import gamerec` would find the source tree,
# which has no compiled `_gamerec` unless `maturin develop` put one there:
# then test the installed package instead.
# Python processes the tests start (Spark's workers, `python -m ...`) would
# put the current directory first too: PYTHONSAFEPATH (3.11+) stops that.
if not any((SOURCE / "gamerec").glob("_gamerec*")):
    sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() != SOURCE]
    sys.modules.pop("gamerec", None)
    os.environ.setdefault("PYTHONSAFEPATH", "1")


def corpus_dir() -> pathlib.Path:
    """``GAMEREC_CORPUS``, else ``$GAMEREC_SHARED/corpus`` (as the Rust tests
    read it), else ``../shared/corpus`` beside the repository."""
    env = os.environ.get("GAMEREC_CORPUS")
    if env:
        return pathlib.Path(env)
    shared = os.environ.get("GAMEREC_SHARED")
    return pathlib.Path(shared) / "corpus" if shared else REPO.parent / "shared" / "corpus"


def corpus_pgn_files() -> list:
    """Every PGN file of the corpus (``.pgn`` and ``.pgn.zst``), sorted."""
    root = corpus_dir() / "pgn"
    files = [p for p in root.rglob("*") if p.name.endswith((".pgn", ".pgn.zst"))]
    return sorted(files)


@pytest.fixture(scope="session")
def corpus() -> pathlib.Path:
    root = corpus_dir()
    if not root.is_dir():
        if os.environ.get("GAMEREC_REQUIRE_PEERS") == "1":
            pytest.fail(f"corpus not found at {root}")
        pytest.skip(f"corpus not found at {root}")
    return root


@pytest.fixture(scope="session")
def lichess(corpus) -> pathlib.Path:
    """A lichess database sample with [%clk] comments."""
    return corpus / "pgn" / "lichess_db_1000k.pgn"


SAMPLE = """[Event "Rated Blitz game"]
[Site "https://lichess.org/abcd"]
[Date "2024.01.02"]
[Round "-"]
[White "alice"]
[Black "bob"]
[Result "0-1"]
[UTCDate "2024.01.02"]
[UTCTime "10:11:12"]
[WhiteElo "1500"]
[BlackElo "?"]
[WhiteRatingDiff "-6"]
[ECO "C20"]
[TimeControl "300+3"]
[Annotator "carol"]

1. e4 { [%eval 0.3] [%clk 0:05:00] } 1... e5 { [%clk 0:04:58.5] } 2. Qh5?! { [%eval #-3] [%emt 0:00:02] }
( 2. Nf3 Nc6 ) 2... Nc6 $1 3. Bc4 Nf6 4. Qxf7# 0-1

[Event "second"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]
[SetUp "1"]

1. e4 Kd7 *
"""


@pytest.fixture()
def sample(tmp_path) -> pathlib.Path:
    path = tmp_path / "sample.pgn"
    path.write_text(SAMPLE, encoding="utf-8")
    return path
