"""URLs (through fsspec) and file objects as inputs: the same rows as the
local file, named by their URL or ``name`` in diagnostics and ``source``."""

from __future__ import annotations

import io

import pyarrow as pa
import pytest

import gamerec

from test_errors import ILLEGAL


def test_file_objects_binary_and_text(sample):
    local = gamerec.to_arrow(sample)
    with open(sample, "rb") as f:
        from_binary = gamerec.to_arrow(f)
    text = io.StringIO(sample.read_text(encoding="utf-8"))
    from_text = gamerec.to_arrow(text, table="games")
    for table in (from_binary, from_text):
        assert table.column("uci").to_pylist() == local.column("uci").to_pylist()
    assert from_binary.column("source").to_pylist() == [str(sample)] * 2
    assert from_text.column("source").to_pylist() == ["<file object>"] * 2


def test_fsspec_urls_are_read_and_named(sample):
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    fs.pipe("/games/sample.pgn", sample.read_bytes())
    fs.pipe("/games/illegal.pgn", ILLEGAL.encode())
    table = gamerec.to_arrow("memory://games/sample.pgn")
    assert table.num_rows == 2
    assert table.column("source").to_pylist() == ["memory://games/sample.pgn"] * 2
    stream = gamerec.arrow_stream(["memory://games/illegal.pgn"], errors="skip")
    assert pa.table(stream).num_rows == 2
    problems = stream.problems()
    assert problems.games == 3
    assert str(problems[0]).startswith("memory://games/illegal.pgn:7:7: error: illegal move")
    assert gamerec.problems("memory://games/illegal.pgn").errors == 1
