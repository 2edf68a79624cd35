"""Keys and lineage: ``game_key`` is unique across files read one by one
(as Spark and sharded jobs read them), ``source`` and ``offset`` lead back
to each game's bytes, ``lichess_id`` comes from ``Site``."""

from __future__ import annotations

import os
import re
import subprocess

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

import gamerec


def fnv_key(source: str, offset: int) -> int:
    """The documented key: FNV-1a 64 of the source, a 0 byte and the offset
    (8 bytes, little-endian), as int64."""
    h = 0xCBF29CE484222325
    for b in source.encode() + b"\0" + offset.to_bytes(8, "little"):
        h = ((h ^ b) * 0x100000001B3) & (2**64 - 1)
    return h - 2**64 if h >= 2**63 else h


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    from conftest import corpus_dir

    source = corpus_dir() / "pgn" / "lichess_db_1000k.pgn"
    if not source.is_file():
        pytest.skip("corpus not found")
    text = source.read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r"(?m)^\[Event ", text)]
    bounds = [starts[len(starts) * k // 8] for k in range(8)] + [len(text)]
    out = tmp_path_factory.mktemp("lineage")
    paths = []
    for k in range(8):
        path = out / f"shard-{k}.pgn"
        path.write_text(text[bounds[k]:bounds[k + 1]], encoding="utf-8")
        paths.append(path)
    return paths


def test_keys_are_unique_across_eight_shards_read_one_by_one(shards):
    tables = [gamerec.to_arrow(p) for p in shards]
    table = pa.concat_tables(tables)
    assert table.num_rows == 438
    ids = table.column("game_id").to_pylist()
    assert len(set(ids)) < len(ids)  # game_id restarts in every shard
    keys = table.column("game_key").to_pylist()
    assert len(set(keys)) == len(keys)
    for row in table.select(["game_key", "source", "offset", "site", "lichess_id", "white"]).to_pylist():
        assert row["game_key"] == fnv_key(row["source"], row["offset"])
        with open(row["source"], "rb") as f:
            f.seek(row["offset"])
            start = f.read(400).decode("utf-8", "replace")
        assert start.startswith("[Event "), start[:40]
        assert f'[White "{row["white"]}"]' in start
        assert row["lichess_id"] == row["site"].rsplit("/", 1)[1]


def test_positions_carry_the_games_keys(shards):
    games = gamerec.to_arrow(shards[0])
    plies = gamerec.to_arrow(shards[0], table="positions")
    by_id = dict(zip(games.column("game_id").to_pylist(), games.column("game_key").to_pylist()))
    for game_id, key, source in zip(
        plies.column("game_id").to_pylist(),
        plies.column("game_key").to_pylist(),
        plies.column("source").to_pylist(),
    ):
        assert by_id[game_id] == key and source == str(shards[0])


def test_cli_shards_as_one_dataset_have_unique_keys(shards, tmp_path):
    binary = os.environ.get("GAMEREC_BIN")
    if not binary:
        pytest.skip("GAMEREC_BIN is not set")
    out = tmp_path / "dataset"
    out.mkdir()
    for k, path in enumerate(shards):
        subprocess.run([binary, "convert", str(path), "-o", str(out / f"part-{k}.parquet"), "-q"], check=True)
    table = ds.dataset(str(out), format="parquet").to_table()
    keys = table.column("game_key").to_pylist()
    assert len(keys) == 438 and len(set(keys)) == 438
    assert set(table.column("source").to_pylist()) == {str(p) for p in shards}
