"""The Spark job of examples/spark in local[2] mode on corpus shards: its
partitioned Parquet dataset has the same rows and moves as the
single-machine tables."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pyarrow.dataset as ds
import pytest

import gamerec
from conftest import REPO, corpus_dir


def load_job():
    path = REPO / "examples" / "spark" / "pgn_to_parquet.py"
    spec = importlib.util.spec_from_file_location("pgn_to_parquet", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def split_games(text: str, parts: int):
    """Cuts PGN text into `parts` runs of whole games (at `[Event ` lines)."""
    starts = [m.start() for m in re.finditer(r"(?m)^\[Event ", text)]
    bounds = [starts[len(starts) * k // parts] for k in range(parts)] + [len(text)]
    return [text[bounds[k]:bounds[k + 1]] for k in range(parts)]


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    if shutil.which("java") is None or shutil.which("zstd") is None:
        if os.environ.get("GAMEREC_REQUIRE_PEERS") == "1":
            pytest.fail("java (openjdk-17-jre-headless) and zstd are needed")
        pytest.skip("java or zstd missing")
    pytest.importorskip("pyspark")
    source = corpus_dir() / "pgn"
    if not source.is_dir():
        pytest.skip("corpus not found")
    out = tmp_path_factory.mktemp("shards")
    texts = [
        ("lichess", (source / "lichess_db_1000k.pgn").read_text(encoding="utf-8"), 3),
        ("twic", (source / "twic1599_1000k.pgn").read_bytes().decode("latin-1"), 2),
    ]
    for name, text, parts in texts:
        for k, part in enumerate(split_games(text, parts)):
            plain = out / f"{name}-{k:04}.pgn"
            plain.write_text(part, encoding="utf-8")
            subprocess.run(["zstd", "-q", "--rm", str(plain)], check=True)
    return out


@pytest.fixture(scope="module")
def spark():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("gamerec-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.mark.parametrize("table", ["games", "positions"])
def test_spark_job_matches_single_machine_output(spark, shards, tmp_path, table):
    job = load_job()
    output = tmp_path / f"{table}.parquet"
    job.run(spark, str(shards), str(output), table=table)
    dataset = ds.dataset(str(output), format="parquet", partitioning="hive").to_table()
    paths = job.shard_paths(str(shards))
    assert len(paths) == 5
    assert "_SUCCESS" in os.listdir(output)
    partitions = sorted(n for n in os.listdir(output) if n.startswith("shard="))
    assert partitions == sorted(f"shard={job.shard_name(p)}" for p in paths)
    total = 0
    for path in paths:
        name = job.shard_name(path)
        single = gamerec.to_arrow(path, table=table)
        rows = dataset.filter(ds.field("shard") == name).sort_by([("game_id", "ascending")] + ([("ply", "ascending")] if table == "positions" else []))
        assert rows.num_rows == single.num_rows, name
        assert rows.num_rows > 0
        assert rows.column("game_id").to_pylist() == single.column("game_id").to_pylist()
        assert rows.column("uci").to_pylist() == single.column("uci").to_pylist()
        assert rows.column("san").to_pylist() == single.column("san").to_pylist()
        total += rows.num_rows
    assert total == dataset.num_rows
    if table == "games":
        # game_id restarts in every shard; game_key does not.
        keys = dataset.column("game_key").to_pylist()
        assert len(set(keys)) == len(keys)
        assert set(dataset.column("source").to_pylist()) == set(paths)


def test_spark_job_writes_problems_and_fails_or_warns(spark, tmp_path):
    job = load_job()
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "good-0000.pgn").write_text('[Event "a"]\n\n1. e4 e5 *\n\n[Event "b"]\n\n1. d4 *\n')
    (shards / "illegal-0001.pgn").write_text(
        '[Event "a"]\n\n1. e4 e5 *\n\n[Event "b"]\n\n1. e4 Ke7 *\n\n[Event "c"]\n\n1. d4 *\n'
    )
    (shards / "junk-0002.pgn").write_bytes(bytes(range(256)) * 16)
    output = tmp_path / "games.parquet"
    summary = job.run(spark, str(shards), str(output), errors="warn")
    assert summary == {"games": 5, "failed": 1, "errors": 2, "warnings": 0, "rows": 4}
    problems_dir = job.problems_path(str(output))
    assert problems_dir == str(output) + "_problems"
    problems = ds.dataset(problems_dir, format="parquet", partitioning="hive").to_table()
    rows = {(r["shard"], r["severity"]): r for r in problems.to_pylist()}
    assert rows[("illegal-0001", "error")]["line"] == 7
    assert "illegal move" in rows[("illegal-0001", "error")]["message"]
    assert rows[("illegal-0001", "summary")]["games"] == 3
    assert rows[("illegal-0001", "summary")]["failed"] == 1
    assert ("junk-0002", "error") in rows
    assert rows[("good-0000", "summary")]["games"] == 2
    data = ds.dataset(str(output), format="parquet", partitioning="hive").to_table()
    assert data.num_rows == 4
    with pytest.raises(SystemExit, match="4 rows from 5 games"):
        job.run(spark, str(shards), str(tmp_path / "again.parquet"))
    assert os.path.isdir(tmp_path / "again.parquet_problems")


def test_spark_job_reads_lichess_dataset_parquet_shards(spark, tmp_path):
    """Shards of the Hugging Face lichess Parquet (movetext + tag columns)
    become the typed table, the same rows as the PGN."""
    import pyarrow.parquet as pq

    from test_hf import write_hf

    pgn = corpus_dir() / "pgn" / "lichess_db_1000k.pgn"
    if not pgn.is_file():
        pytest.skip("corpus not found")
    whole = tmp_path / "whole.parquet"
    write_hf(pgn, whole)
    table = pq.read_table(whole)
    shards = tmp_path / "hf"
    shards.mkdir()
    pq.write_table(table.slice(0, 200), shards / "train-0000.parquet")
    pq.write_table(table.slice(200), shards / "train-0001.parquet")
    job = load_job()
    output = tmp_path / "games.parquet"
    summary = job.run(spark, str(shards), str(output))
    assert summary["rows"] == 438 and summary["errors"] == 0
    dataset = ds.dataset(str(output), format="parquet", partitioning="hive").to_table()
    reference = gamerec.to_arrow(pgn)
    rows = dataset.sort_by([("shard", "ascending"), ("offset", "ascending")])
    assert rows.column("uci").to_pylist() == reference.column("uci").to_pylist()
    assert rows.column("clk_ms").to_pylist() == reference.column("clk_ms").to_pylist()
