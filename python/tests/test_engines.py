"""gamerec's games and positions Parquet read by pyspark (``spark.read.parquet``),
pandas, DuckDB and Polars with every type intact: no unsigned ids (Spark
would load a UINT_64 ``game_id`` as decimal(20,0)), time of day as int32
milliseconds since midnight (Spark rejects Parquet ``TIME(MILLIS)``)."""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import gamerec

EXPECTED_GAMES = {
    "game_id": pa.int64(),
    "white_elo": pa.int32(),
    "utc_date": pa.date32(),
    "utc_time": pa.int32(),
    "ply_count": pa.int32(),
    "uci": pa.list_(pa.string()),
    "clk_ms": pa.list_(pa.int64()),
    "tags": pa.map_(pa.string(), pa.string()),
}
EXPECTED_POSITIONS = {"game_id": pa.int64(), "ply": pa.int32(), "clk_ms": pa.int64()}


@pytest.fixture(scope="module")
def parquet_files(tmp_path_factory):
    from conftest import corpus_dir

    source = corpus_dir() / "pgn" / "lichess_db_1000k.pgn"
    if not source.is_file():
        pytest.skip("corpus not found")
    out = tmp_path_factory.mktemp("engines")
    games, plies = out / "games.parquet", out / "plies.parquet"
    binary = os.environ.get("GAMEREC_BIN")
    if binary:
        subprocess.run([binary, "convert", str(source), "-o", str(games), "-q"], check=True)
        subprocess.run([binary, "positions", str(source), "-o", str(plies), "-q"], check=True)
    else:
        pq.write_table(gamerec.to_arrow(source), games)
        pq.write_table(gamerec.to_arrow(source, table="positions"), plies)
    return games, plies


def test_parquet_types_have_no_unsigned_ids_and_no_time_type(parquet_files):
    games, plies = parquet_files
    for path, expected in ((games, EXPECTED_GAMES), (plies, EXPECTED_POSITIONS)):
        schema = pq.read_schema(path)
        for name, t in expected.items():
            assert schema.field(name).type == t, (path.name, name)
        parquet = pq.ParquetFile(path).schema
        for i in range(len(parquet)):
            column = parquet.column(i)
            logical = str(column.logical_type)
            assert "Time" not in logical, column.path
            assert not (column.physical_type == "INT64" and "isSigned=false" in logical), column.path


def test_utc_time_is_milliseconds_since_midnight(parquet_files):
    games, _ = parquet_files
    table = pq.read_table(games, columns=["utc_time", "tags"])
    first = table.column("utc_time")[0].as_py()
    assert isinstance(first, int) and 0 <= first < 86_400_000 and first % 1000 == 0


def test_pandas_duckdb_polars_read_the_same_values(parquet_files):
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    games, plies = parquet_files
    reference = pq.read_table(games).to_pylist()
    frame = pq.read_table(games).to_pandas()
    assert str(frame["game_id"].dtype) == "int64"
    assert str(frame["utc_time"].dtype) in ("int32", "Int32")
    assert frame["game_id"].tolist() == [r["game_id"] for r in reference]
    con = duckdb.connect()
    types = dict(con.sql(f"DESCRIBE SELECT * FROM read_parquet('{games}')").fetchall()[i][:2] for i in range(len(reference[0])))
    assert types["game_id"] == "BIGINT" and types["utc_time"] == "INTEGER"
    assert types["utc_date"] == "DATE" and types["uci"] == "VARCHAR[]"
    rows = con.sql(f"SELECT game_id, utc_time, uci FROM read_parquet('{games}') ORDER BY game_id").fetchall()
    assert [(r["game_id"], r["utc_time"], r["uci"]) for r in reference] == rows
    polars = pl.read_parquet(games)
    assert polars.schema["game_id"] == pl.Int64 and polars.schema["utc_time"] == pl.Int32
    assert polars["utc_time"].to_list() == [r["utc_time"] for r in reference]
    plies_pl = pl.read_parquet(plies)
    assert plies_pl.schema["ply"] == pl.Int32


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None:
        if os.environ.get("GAMEREC_REQUIRE_PEERS") == "1":
            pytest.fail("java (openjdk-17-jre-headless) is needed")
        pytest.skip("java missing")
    pytest.importorskip("pyspark")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[1]")
        .appName("gamerec-engines")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    yield session
    session.stop()


def test_spark_reads_games_and_positions_parquet(spark, parquet_files):
    games, plies = parquet_files
    df = spark.read.parquet(str(games))
    types = dict(df.dtypes)
    assert types["game_id"] == "bigint"
    assert types["utc_time"] == "int"
    assert types["utc_date"] == "date"
    assert types["ply_count"] == "int"
    assert types["uci"] == "array<string>"
    assert types["tags"] == "map<string,string>"
    reference = pq.read_table(games, columns=["game_id", "utc_date", "utc_time", "uci"]).to_pylist()
    rows = df.select("game_id", "utc_date", "utc_time", "uci").orderBy("game_id").collect()
    assert len(rows) == len(reference)
    for row, ref in zip(rows, reference):
        assert row.game_id == ref["game_id"] and row.utc_time == ref["utc_time"]
        assert row.utc_date == ref["utc_date"] and list(row.uci) == ref["uci"]
    positions = spark.read.parquet(str(plies))
    ptypes = dict(positions.dtypes)
    assert ptypes["game_id"] == "bigint" and ptypes["ply"] == "int"
    assert positions.count() == pq.ParquetFile(plies).metadata.num_rows
    assert isinstance(rows[0].utc_date, datetime.date)


def test_arrow_ipc_is_zstd_compressed_and_read_by_pyarrow_polars_duckdb(tmp_path):
    from conftest import corpus_dir

    binary = os.environ.get("GAMEREC_BIN")
    if not binary:
        pytest.skip("GAMEREC_BIN is not set")
    source = corpus_dir() / "pgn" / "lichess_db_1000k.pgn"
    ipc = tmp_path / "games.arrow"
    subprocess.run([binary, "convert", str(source), "-o", str(ipc), "-q"], check=True)
    import pyarrow.ipc

    table = pyarrow.ipc.open_file(ipc).read_all()
    assert table.num_rows == 438
    plain = tmp_path / "plain.arrow"
    with pyarrow.ipc.new_file(plain, table.schema) as writer:
        writer.write_table(table)
    assert ipc.stat().st_size * 2 < plain.stat().st_size
    pl = pytest.importorskip("polars")
    assert pl.read_ipc(ipc)["game_key"].to_list() == table.column("game_key").to_pylist()
    duckdb = pytest.importorskip("duckdb")
    reader = pyarrow.ipc.open_file(ipc).read_all()
    assert duckdb.sql("SELECT count(*) FROM reader").fetchall()[0][0] == 438
