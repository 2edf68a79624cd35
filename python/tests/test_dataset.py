"""The Hive-partitioned dataset writer (``gamerec convert -o DIR/
--partition-by ...``) read by pyarrow.dataset, DuckDB, Polars and (slow)
Spark: the partition columns typed from the path, every row of the
single-file table there once, in its partition, keys unique across files.

Needs the CLI: GAMEREC_BIN names it (the test skips otherwise).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ds = pytest.importorskip("pyarrow.dataset")

from conftest import corpus_dir  # noqa: E402

# lichess (UTCDate, TimeControl), TWIC (Date only), and games without a
# date or a time control.
UNDATED = """[Event "x"]
[Date "????.??.??"]
[White "a"]
[Black "b"]
[Result "*"]

1. d4 *

[Event "y"]
[Date "2021.??.??"]
[White "a"]
[Black "b"]
[Result "*"]
[TimeControl "-"]

1. c4 *
"""


def binary() -> str:
    b = os.environ.get("GAMEREC_BIN")
    if not b:
        pytest.skip("GAMEREC_BIN is not set")
    return b


def run(*args: str) -> subprocess.CompletedProcess:
    out = subprocess.run([binary(), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> list:
    pgn = corpus_dir() / "pgn"
    if not pgn.is_dir():
        pytest.skip("corpus not found")
    extra = tmp_path_factory.mktemp("inputs") / "undated.pgn"
    extra.write_text(UNDATED, encoding="utf-8")
    return [str(pgn / "lichess_db_1000k.pgn"), str(pgn / "twic1599_1000k.pgn"), str(extra)]


@pytest.fixture(scope="module")
def games(inputs, tmp_path_factory) -> tuple:
    """(the single-file games table, the dataset directory by year,month)."""
    root = tmp_path_factory.mktemp("games")
    single = root / "games.parquet"
    run("convert", *inputs, "-o", str(single), "-q")
    directory = root / "ds"
    # Small files: keys must stay unique across many of them.
    run("convert", *inputs, "-o", str(directory), "--partition-by", "year,month",
        "--max-file-rows", "100", "-q")
    return pq.read_table(single), directory


def expected_year_month(table: "pa.Table") -> list:
    out = []
    for utc, date in zip(table.column("utc_date").to_pylist(), table.column("date").to_pylist()):
        if utc is not None:
            out.append((utc.year, utc.month))
            continue
        parts = (date or "").split(".")
        year = int(parts[0]) if parts and parts[0].isdigit() else None
        month = int(parts[1]) if year and len(parts) > 1 and parts[1].isdigit() else None
        out.append((year, month))
    return out


def by_key(rows: list) -> dict:
    return {r["game_key"]: (r["year"], r["month"]) for r in rows}


def test_pyarrow_reads_the_partitions_typed_and_every_row_once(games):
    single, directory = games
    files = list(directory.rglob("*.parquet"))
    assert len(files) > 5
    assert any("__HIVE_DEFAULT_PARTITION__" in str(f) for f in files)
    table = ds.dataset(directory, format="parquet", partitioning="hive").to_table()
    assert table.schema.field("year").type == pa.int32()
    assert table.schema.field("month").type == pa.int32()
    assert table.num_rows == single.num_rows
    keys = table.column("game_key").to_pylist()
    assert len(set(keys)) == len(keys), "game_key unique across files"
    assert set(keys) == set(single.column("game_key").to_pylist())
    expected = dict(zip(single.column("game_key").to_pylist(), expected_year_month(single)))
    assert by_key(table.select(["game_key", "year", "month"]).to_pylist()) == expected
    # The files hold the table's columns (none of them is a partition key).
    assert pq.read_schema(files[0]).names == single.schema.names


def test_duckdb_and_polars_read_the_partition_columns_as_integers(games):
    single, directory = games
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    glob = str(directory / "**" / "*.parquet")
    types = dict(
        (name, kind)
        for name, kind, *_ in duckdb.sql(
            f"describe select year, month from read_parquet('{glob}', hive_partitioning=true)"
        ).fetchall()
    )
    assert types == {"year": "BIGINT", "month": "BIGINT"}
    rows = duckdb.sql(
        f"select game_key, year, month from read_parquet('{glob}', hive_partitioning=true)"
    ).fetchall()
    expected = dict(zip(single.column("game_key").to_pylist(), expected_year_month(single)))
    assert {k: (y, m) for k, y, m in rows} == expected
    frame = pl.scan_parquet(glob, hive_partitioning=True).select(["game_key", "year", "month"]).collect()
    assert frame.schema["year"] == pl.Int64 and frame.schema["month"] == pl.Int64
    assert by_key(frame.to_dicts()) == expected


def speed_of(tc):
    """lichess's speed class, as gamerec computes it (base + 40 * increment)."""
    if tc is None:
        return None
    if tc.strip() == "-":
        return "correspondence"
    try:
        base, _, inc = tc.partition("+")
        total = int(base) + 40 * int(inc or 0)
    except ValueError:
        return None
    for bound, name in ((30, "ultrabullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid")):
        if total < bound:
            return name
    return "classical"


def test_positions_partitioned_by_speed_hold_every_row(inputs, tmp_path):
    single = tmp_path / "plies.parquet"
    run("positions", *inputs, "-o", str(single), "-q")
    directory = tmp_path / "plies"
    run("positions", *inputs, "-o", str(directory), "--partition-by", "speed", "-q")
    whole = pq.read_table(single)
    table = ds.dataset(directory, format="parquet", partitioning="hive").to_table()
    assert table.num_rows == whole.num_rows
    speeds = table.column("speed").to_pylist()
    assert speeds == [speed_of(tc) for tc in table.column("time_control").to_pylist()]
    assert {"blitz", "bullet", "correspondence"} <= set(speeds) and None in speeds


def test_variant_partitions_leave_the_column_out_of_the_files(tmp_path):
    pgn = tmp_path / "v.pgn"
    pgn.write_text(
        '[Event "a"]\n[Variant "Crazyhouse"]\n[Result "*"]\n\n1. e4 *\n\n'
        '[Event "b"]\n[Result "*"]\n\n1. d4 *\n',
        encoding="utf-8",
    )
    directory = tmp_path / "ds"
    run("convert", str(pgn), "-o", str(directory), "--partition-by", "variant", "-q")
    files = sorted(str(p.relative_to(directory)) for p in directory.rglob("*.parquet"))
    assert files == ["variant=Crazyhouse/part-00000.parquet", "variant=Standard/part-00000.parquet"]
    assert "variant" not in pq.read_schema(directory / files[0]).names
    table = ds.dataset(directory, format="parquet", partitioning="hive").to_table()
    assert sorted(zip(table.column("event").to_pylist(), table.column("variant").to_pylist())) == [
        ("a", "Crazyhouse"),
        ("b", "Standard"),
    ]


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("GAMEREC_SLOW") != "1", reason="slow: starts Spark (set GAMEREC_SLOW=1)")
def test_spark_reads_the_partitions_typed(games):
    if shutil.which("java") is None:
        pytest.skip("java missing")
    pytest.importorskip("pyspark")
    single, directory = games
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]")
        .appName("gamerec-dataset")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    try:
        frame = spark.read.parquet(str(directory))
        fields = {f.name: f.dataType.simpleString() for f in frame.schema.fields}
        assert fields["year"] == "int" and fields["month"] == "int"
        rows = frame.select("game_key", "year", "month").collect()
        expected = dict(zip(single.column("game_key").to_pylist(), expected_year_month(single)))
        assert {r["game_key"]: (r["year"], r["month"]) for r in rows} == expected
    finally:
        spark.stop()
