"""gamerec's games and positions Parquet as a sharded dataset (8 files, one
per input shard, as a cluster job writes them) read by pyspark
(``spark.read.parquet``), pandas (``dtype_backend="pyarrow"``), DuckDB and
Polars: every column has the type its Arrow type maps to in that engine (no
unsigned ids, no time types, dates as dates, lists as lists, the tag map as
a map, or before Polars 2 a list of key/value structs), every value equals
pyarrow's, and ``game_key`` is unique across the 8 shards (``game_id``
restarts in each) and leads every position to its game."""

from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

SHARDS = 8


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """``games/part-K.parquet`` and ``positions/part-K.parquet`` of 8 shards
    of the lichess sample, plus the lichess variant samples in shard 0."""
    from conftest import REPO, corpus_dir

    source = corpus_dir() / "pgn" / "lichess_db_1000k.pgn"
    if not source.is_file():
        pytest.skip("corpus not found")
    text = source.read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r"(?m)^\[Event ", text)]
    bounds = [starts[len(starts) * k // SHARDS] for k in range(SHARDS)] + [len(text)]
    out = tmp_path_factory.mktemp("engine-shards")
    variants = sorted((REPO / "crates/gamerec-arrow/tests/data/variants").glob("*.pgn"))
    binary = os.environ.get("GAMEREC_BIN")
    for table in ("games", "positions"):
        (out / table).mkdir()
    for k in range(SHARDS):
        shard = out / f"shard-{k}.pgn"
        shard.write_text(text[bounds[k]:bounds[k + 1]], encoding="utf-8")
        inputs = [shard] + (variants if k == 0 and binary else [])
        for table, verb in (("games", "convert"), ("positions", "positions")):
            path = out / table / f"part-{k}.parquet"
            if binary:
                # Exit 1: the variant samples hold one illegal game each.
                run = subprocess.run(
                    [binary, verb, *map(str, inputs), "-o", str(path), "-q"], capture_output=True
                )
                assert run.returncode in (0, 1) and path.is_file(), run.stderr
            else:
                import gamerec

                kind = "games" if table == "games" else "positions"
                pq.write_table(gamerec.to_arrow(shard, table=kind), path)
    return out


def reference(dataset, table: str) -> pa.Table:
    tables = [pq.read_table(p) for p in sorted((dataset / table).glob("*.parquet"))]
    keys = ["game_key"] + (["ply"] if table == "positions" else [])
    return pa.concat_tables(tables).sort_by([(k, "ascending") for k in keys])


def norm(value):
    """A column value with maps as lists of (key, value) pairs, whichever
    engine read it (pyarrow: pairs, Spark: a dict, Polars: key/value
    structs)."""
    if isinstance(value, list):
        return [norm(v) for v in value]
    if isinstance(value, tuple):
        return tuple(norm(v) for v in value)
    if isinstance(value, dict):
        if set(value) == {"key", "value"}:
            return (value["key"], norm(value["value"]))
        return [(k, norm(v)) for k, v in value.items()]
    return value


def plain(row: dict) -> dict:
    return {name: norm(value) for name, value in row.items()}


def rows_of(table: pa.Table) -> list:
    return [plain(r) for r in table.to_pylist()]


def test_keys_are_unique_across_the_shards_and_lead_positions_to_games(dataset):
    games = reference(dataset, "games")
    positions = reference(dataset, "positions")
    assert games.num_rows >= 438
    ids = games.column("game_id").to_pylist()
    assert len(set(ids)) < len(ids), "game_id restarts in every shard"
    keys = games.column("game_key").to_pylist()
    assert len(set(keys)) == len(keys)
    assert len(set(games.column("source").to_pylist())) >= SHARDS
    assert set(positions.column("game_key").to_pylist()) <= set(keys)
    plies = dict(zip(keys, games.column("ply_count").to_pylist()))
    counts = {}
    for key in positions.column("game_key").to_pylist():
        counts[key] = counts.get(key, 0) + 1
    assert all(counts.get(k, 0) == n for k, n in plies.items())


def spark_type(t: pa.DataType) -> str:
    if pa.types.is_map(t):
        return f"map<{spark_type(t.key_type)},{spark_type(t.item_type)}>"
    if pa.types.is_list(t):
        return f"array<{spark_type(t.value_type)}>"
    return {
        pa.int64(): "bigint",
        pa.int32(): "int",
        pa.uint8(): "smallint",  # Spark has no unsigned type: widened, lossless
        pa.string(): "string",
        pa.date32(): "date",
    }[t]


def duckdb_type(t: pa.DataType) -> str:
    if pa.types.is_map(t):
        return f"MAP({duckdb_type(t.key_type)}, {duckdb_type(t.item_type)})"
    if pa.types.is_list(t):
        return duckdb_type(t.value_type) + "[]"
    return {
        pa.int64(): "BIGINT",
        pa.int32(): "INTEGER",
        pa.uint8(): "UTINYINT",
        pa.string(): "VARCHAR",
        pa.date32(): "DATE",
    }[t]


def polars_type(pl, t: pa.DataType):
    if pa.types.is_map(t):
        if hasattr(pl, "Map"):
            return pl.Map(polars_type(pl, t.key_type), polars_type(pl, t.item_type))
        # Older Polars has no map type: a list of key/value structs.
        return pl.List(
            pl.Struct({"key": polars_type(pl, t.key_type), "value": polars_type(pl, t.item_type)})
        )
    if pa.types.is_list(t):
        return pl.List(polars_type(pl, t.value_type))
    return {
        pa.int64(): pl.Int64,
        pa.int32(): pl.Int32,
        pa.uint8(): pl.UInt8,
        pa.string(): pl.String,
        pa.date32(): pl.Date,
    }[t]


@pytest.mark.parametrize("table", ["games", "positions"])
def test_pandas_duckdb_polars_keep_every_type_and_value(dataset, table):
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    pd = pytest.importorskip("pandas")
    ref = reference(dataset, table)
    want = rows_of(ref)
    order = "game_key" + (", ply" if table == "positions" else "")
    files = str(dataset / table / "*.parquet")

    frame = pd.read_parquet(dataset / table, dtype_backend="pyarrow")
    for field in ref.schema:
        assert frame[field.name].dtype.pyarrow_dtype.equals(field.type, check_metadata=False) or str(
            frame[field.name].dtype.pyarrow_dtype
        ) == str(field.type), (table, field.name, frame[field.name].dtype)
    back = pa.Table.from_pandas(frame, preserve_index=False)
    keys = ["game_key"] + (["ply"] if table == "positions" else [])
    assert rows_of(back.sort_by([(k, "ascending") for k in keys])) == want

    con = duckdb.connect()
    described = dict(r[:2] for r in con.sql(f"DESCRIBE SELECT * FROM read_parquet('{files}')").fetchall())
    for field in ref.schema:
        assert described[field.name] == duckdb_type(field.type), (table, field.name)
    got = con.sql(f"SELECT * FROM read_parquet('{files}') ORDER BY {order}").arrow()
    if isinstance(got, pa.RecordBatchReader):
        got = got.read_all()
    assert rows_of(got) == want

    frame = pl.read_parquet(files)
    for field in ref.schema:
        assert frame.schema[field.name] == polars_type(pl, field.type), (table, field.name)
    got = frame.sort(keys).to_dicts()
    assert [plain(r) for r in got] == want


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
        .appName("gamerec-engine-shards")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.mark.parametrize("table", ["games", "positions"])
def test_spark_reads_the_sharded_dataset_with_every_type_and_value(spark, dataset, table):
    import pyspark

    assert int(pyspark.__version__.split(".")[0]) >= 4 or os.environ.get("GAMEREC_REQUIRE_PEERS") != "1"
    ref = reference(dataset, table)
    df = spark.read.parquet(str(dataset / table))
    types = dict(df.dtypes)
    for field in ref.schema:
        assert types[field.name] == spark_type(field.type), (table, field.name, types[field.name])
    keys = ["game_key"] + (["ply"] if table == "positions" else [])
    # Spark's maps are hash maps: their pairs compare in key order.
    maps = [f.name for f in ref.schema if pa.types.is_map(f.type)]

    def unordered(row):
        return {k: sorted(v) if k in maps else v for k, v in row.items()}

    got = [unordered(plain(r.asDict(recursive=True))) for r in df.orderBy(*keys).collect()]
    want = [unordered(r) for r in rows_of(ref)]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == w, {k: (g.get(k), w[k]) for k in w if g.get(k) != w[k]}
    if table == "games":
        assert df.select("game_key").distinct().count() == df.count()
        assert df.select("game_id").distinct().count() < df.count()
        assert isinstance(got[0]["utc_date"], datetime.date)
