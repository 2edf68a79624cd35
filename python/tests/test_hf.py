"""The lichess games as Hugging Face publishes them (``Lichess/standard-chess-games``:
one Parquet row per game, a ``movetext`` string column and one column per
tag, ``WhiteElo`` int16, ``UTCDate`` date32, ``UTCTime`` time32[s]) read as
an input: ``to_arrow``, ``convert hf.parquet -o typed.parquet`` and the
Spark job give the same typed per-move columns as the PGN."""

from __future__ import annotations

import datetime
import os
import re
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import gamerec

HF_COLUMNS = [
    ("Event", pa.string()),
    ("Site", pa.string()),
    ("White", pa.string()),
    ("Black", pa.string()),
    ("Result", pa.string()),
    ("WhiteTitle", pa.string()),
    ("BlackTitle", pa.string()),
    ("WhiteElo", pa.int16()),
    ("BlackElo", pa.int16()),
    ("WhiteRatingDiff", pa.int16()),
    ("BlackRatingDiff", pa.int16()),
    ("UTCDate", pa.date32()),
    ("UTCTime", pa.time32("s")),
    ("ECO", pa.string()),
    ("Opening", pa.string()),
    ("Termination", pa.string()),
    ("TimeControl", pa.string()),
    ("movetext", pa.string()),
]

COMPARED = [
    "event", "site", "white", "black", "result", "white_elo", "black_elo", "utc_date", "utc_time", "eco", "opening",
    "termination", "time_control", "game_result", "ply_count", "uci", "san", "clk_ms",
    "eval_cp", "eval_mate", "nags", "movetext", "lichess_id",
]


def parse_pgn(text: str):
    """Games of lichess PGN text as (tags, movetext), without gamerec."""
    games = []
    for block in re.split(r"\n\n(?=\[Event )", text.strip()):
        head, _, moves = block.partition("\n\n")
        tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$', head, re.M))
        games.append((tags, moves.strip()))
    return games


def hf_value(name, t, tags):
    value = tags.get(name)
    if value is None or value in ("?", "-") and pa.types.is_integer(t):
        return None
    if pa.types.is_integer(t):
        return int(value)
    if pa.types.is_date(t):
        return datetime.date(*(int(x) for x in value.split(".")))
    if pa.types.is_time(t):
        h, m, s = (int(x) for x in value.split(":"))
        return datetime.time(h, m, s)
    return value


def write_hf(pgn_path, out, extra_rows=()):
    games = parse_pgn(pgn_path.read_text(encoding="utf-8"))
    columns = {name: [] for name, _ in HF_COLUMNS}
    for tags, moves in list(games) + list(extra_rows):
        for name, t in HF_COLUMNS:
            columns[name].append(moves if name == "movetext" else hf_value(name, t, tags))
    schema = pa.schema([pa.field(n, t) for n, t in HF_COLUMNS])
    pq.write_table(pa.table(columns, schema=schema), out, row_group_size=100)
    return len(games)


@pytest.fixture(scope="module")
def hf(tmp_path_factory):
    from conftest import corpus_dir

    pgn = corpus_dir() / "pgn" / "lichess_db_1000k.pgn"
    if not pgn.is_file():
        pytest.skip("corpus not found")
    out = tmp_path_factory.mktemp("hf") / "train-00000-of-00001.parquet"
    n = write_hf(pgn, out)
    assert n == 438
    return pgn, out


def test_to_arrow_of_hf_parquet_equals_the_pgn(hf):
    pgn, path = hf
    ours = gamerec.to_arrow(path, threads=2)
    reference = gamerec.to_arrow(pgn)
    assert ours.num_rows == reference.num_rows == 438
    for column in COMPARED:
        assert ours.column(column).to_pylist() == reference.column(column).to_pylist(), column
    for column in ("white_rating_diff", "black_rating_diff"):
        # lichess writes "+0", which the PGN table keeps in `tags` (not a
        # signed number); the dataset has the int16 0.
        pairs = zip(ours.column(column).to_pylist(), reference.column(column).to_pylist())
        assert all(a == b or (a == 0 and b is None) for a, b in pairs), column
    assert ours.column("offset").to_pylist() == list(range(438))  # the row number
    assert ours.column("source").to_pylist()[0] == str(path)
    plies = gamerec.to_arrow(path, table="positions")
    ref_plies = gamerec.to_arrow(pgn, table="positions")
    for column in ("fen", "uci", "clk_ms", "white_elo", "time_control", "ply"):
        assert plies.column(column).to_pylist() == ref_plies.column(column).to_pylist(), column


def test_a_bad_row_is_reported_with_its_row(hf, tmp_path):
    pgn, _ = hf
    path = tmp_path / "bad.parquet"
    bad = ({"Event": "x", "WhiteElo": "1500"}, "1. e4 Ke7 *")
    write_hf(pgn, path, extra_rows=[bad])
    with pytest.warns(gamerec.GamerecWarning, match=r"1 of 439 games left out") as caught:
        table = gamerec.to_arrow(path)
    assert table.num_rows == 438
    problems = caught[0].message.problems
    assert str(problems[0]).startswith(f"{path}: error: row 438: illegal move Ke7")


def test_a_parquet_file_without_movetext_is_refused(tmp_path):
    path = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), path)
    with pytest.raises(OSError, match="no column \"movetext\""):
        gamerec.to_arrow(path)


def test_cli_converts_hf_parquet_to_the_typed_table(hf, tmp_path):
    binary = os.environ.get("GAMEREC_BIN")
    if not binary:
        pytest.skip("GAMEREC_BIN is not set")
    pgn, path = hf
    typed = tmp_path / "typed.parquet"
    run = subprocess.run(
        [binary, "convert", str(path), "-o", str(typed), "-t", "2"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert "438 rows from 438 games (0 with errors)" in run.stderr
    # The rows of a batch are decoded on 2 threads: the file is the
    # one-thread file byte for byte.
    single = tmp_path / "single.parquet"
    subprocess.run([binary, "convert", str(path), "-o", str(single), "-t", "1", "-q"], check=True)
    assert single.read_bytes() == typed.read_bytes()
    ours = pq.read_table(typed)
    reference = gamerec.to_arrow(pgn)
    for column in COMPARED:
        assert ours.column(column).to_pylist() == reference.column(column).to_pylist(), column
