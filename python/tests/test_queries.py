"""The README's DuckDB and Polars examples, run on Parquet tables of the
lichess sample (written by the `gamerec` binary when GAMEREC_BIN names it,
else by pyarrow from `gamerec.to_arrow`)."""

from __future__ import annotations

import os
import subprocess

import pyarrow.parquet as pq
import pytest

import gamerec


def write_parquet(source, target, table):
    binary = os.environ.get("GAMEREC_BIN")
    if binary:
        verb = ["convert"] if table == "games" else ["positions"]
        subprocess.run([binary, *verb, str(source), "-o", str(target), "-q"], check=True)
    else:
        pq.write_table(gamerec.to_arrow(source, table=table), target)
    return target


@pytest.fixture(scope="module")
def tables(tmp_path_factory, request):
    from conftest import corpus_dir

    source = corpus_dir() / "pgn" / "lichess_db_1000k.pgn"
    if not source.exists():
        pytest.skip("corpus not found")
    out = tmp_path_factory.mktemp("tables")
    games = write_parquet(source, out / "games.parquet", "games")
    plies = write_parquet(source, out / "plies.parquet", "positions")
    return games, plies


TOP_OPENINGS = """
SELECT (white_elo + black_elo) // 2 // 400 * 400 AS band,
       opening,
       count(*) AS games
FROM read_parquet('{games}')
WHERE white_elo IS NOT NULL AND black_elo IS NOT NULL AND opening IS NOT NULL
GROUP BY band, opening
QUALIFY row_number() OVER (PARTITION BY band ORDER BY games DESC, opening) <= 3
ORDER BY band, games DESC, opening
"""


def test_duckdb_top_openings_by_rating_band(tables):
    duckdb = pytest.importorskip("duckdb")
    games, _ = tables
    rows = duckdb.sql(TOP_OPENINGS.format(games=games)).fetchall()
    assert rows
    bands = {band for band, _, _ in rows}
    assert len(bands) >= 3
    # Cross-check one band's counts with pyarrow.
    table = pq.read_table(games, columns=["white_elo", "black_elo", "opening"]).to_pylist()
    band, opening, count = rows[0]
    expected = sum(
        1
        for r in table
        if r["white_elo"] is not None
        and r["black_elo"] is not None
        and r["opening"] == opening
        and (r["white_elo"] + r["black_elo"]) // 2 // 400 * 400 == band
    )
    assert count == expected


def clock_use_by_move(plies_path):
    import polars as pl

    return (
        pl.scan_parquet(plies_path)
        .filter(pl.col("clk_ms").is_not_null())
        .with_columns(
            increment_ms=pl.col("time_control").str.split("+").list.get(1, null_on_oob=True).cast(pl.Int64, strict=False) * 1000,
            previous_ms=pl.col("clk_ms").shift(2).over("game_key", order_by="ply"),
        )
        .with_columns(used_s=(pl.col("previous_ms") - pl.col("clk_ms") + pl.col("increment_ms")) / 1000)
        .filter(pl.col("used_s").is_not_null())
        .group_by(move=(pl.col("ply") + 1) // 2)
        .agg(pl.col("used_s").mean().alias("mean_seconds"), pl.len().alias("plies"))
        .sort("move")
        .collect()
    )


def test_polars_average_clock_use_by_move(tables):
    pytest.importorskip("polars")
    _, plies = tables
    result = clock_use_by_move(plies)
    assert result.height > 20
    first = result.row(0, named=True)
    assert first["move"] == 2  # a side's first move has no earlier clock
    assert 0 < first["mean_seconds"] < 60
    # Cross-check move 10 by hand.
    rows = pq.read_table(plies).to_pylist()
    by_game = {}
    for r in rows:
        by_game.setdefault(r["game_id"], {})[r["ply"]] = r
    used = []
    for plies_of in by_game.values():
        for ply in (19, 20):
            r, prev = plies_of.get(ply), plies_of.get(ply - 2)
            if r and prev and r["clk_ms"] is not None and prev["clk_ms"] is not None:
                inc = int(r["time_control"].split("+")[1])
                used.append((prev["clk_ms"] - r["clk_ms"] + inc * 1000) / 1000)
    row10 = [r for r in result.iter_rows(named=True) if r["move"] == 10][0]
    assert row10["plies"] == len(used)
    assert abs(row10["mean_seconds"] - sum(used) / len(used)) < 1e-9


def test_polars_and_duckdb_read_the_arrow_stream_directly(tables):
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    from conftest import corpus_dir

    source = corpus_dir() / "pgn" / "lichess_db_1000k.pgn"
    frame = pl.from_arrow(gamerec.to_arrow(source))
    assert frame.height == pq.read_metadata(tables[0]).num_rows
    import pyarrow as pa

    reader = pa.RecordBatchReader.from_stream(gamerec.arrow_stream(source, table="positions"))
    count = duckdb.sql("SELECT count(*) FROM reader").fetchall()[0][0]
    assert count == pq.read_metadata(tables[1]).num_rows
