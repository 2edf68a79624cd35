"""Errors in Python: every reading function takes ``errors="raise" | "warn" |
"skip"``, nothing is left out silently, and the counts and diagnostics are
``gamerec check``'s (the CLI is run when GAMEREC_BIN names it)."""

from __future__ import annotations

import bz2
import gzip
import os
import re
import subprocess
import warnings

import pyarrow as pa
import pytest

import gamerec

ILLEGAL = """[Event "one"]

1. e4 e5 2. Nf3 *

[Event "two"]

1. e4 Ke7 2. Qxx9 *

[Event "three"]
[WhiteElo "2100"]
[BlackElo "2200"]
[TimeControl "180+2"]

1. d4 d5 1-0
"""


@pytest.fixture()
def illegal(tmp_path):
    path = tmp_path / "illegal.pgn"
    path.write_text(ILLEGAL, encoding="utf-8")
    return path


def damaged_inputs(tmp_path, corpus_dir):
    """Name -> path of inputs that lose games: an illegal move, text that is
    not PGN, binary data, a NUL in a tag, a cut `.zst`."""
    out = {}
    out["illegal"] = tmp_path / "illegal.pgn"
    out["illegal"].write_text(ILLEGAL, encoding="utf-8")
    out["junk-text"] = tmp_path / "junk.pgn"
    out["junk-text"].write_text("this is not a chess game\nnor is this { ] line\n" * 20)
    out["binary"] = tmp_path / "binary.pgn"
    out["binary"].write_bytes(bytes(range(256)) * 64)
    out["nul-tag"] = tmp_path / "nul.pgn"
    out["nul-tag"].write_bytes(b'[Event "a\x00b"]\n\n1. e4 e5 *\n\n[Event "c"]\n\n1. d4 *\n')
    lichess = corpus_dir / "pgn" / "lichess_db_1000k.pgn"
    if lichess.is_file():
        packed = subprocess.run(
            ["zstd", "-q", "-c", str(lichess)], check=True, capture_output=True
        ).stdout
        out["cut-zst"] = tmp_path / "cut.pgn.zst"
        out["cut-zst"].write_bytes(packed[: len(packed) // 2])
        text = lichess.read_bytes()[: 1 << 20]
        out["cut-gz"] = tmp_path / "cut.pgn.gz"
        packed = gzip.compress(text)
        out["cut-gz"].write_bytes(packed[: len(packed) * 3 // 5])
        out["cut-bz2"] = tmp_path / "cut.pgn.bz2"
        packed = bz2.compress(text)
        out["cut-bz2"].write_bytes(packed[: len(packed) * 3 // 5])
    # A comment larger than the default bound on one game (64 MiB): that
    # game is reported and left out, the games around it are read.
    huge = (
        ILLEGAL
        + '\n[Event "huge"]\n\n1. e4 {'
        + "comment " * (9 << 20)
        + '} e5 *\n\n[Event "after"]\n\n1. c4 1-0\n'
    )
    out["huge-comment"] = tmp_path / "huge.pgn.gz"
    out["huge-comment"].write_bytes(gzip.compress(huge.encode(), compresslevel=1))
    return out


CHECK_SUMMARY = re.compile(
    r"^(\d+) games, (\d+) moves, (\d+) errors(?:, (\d+) files? not read)?(?:; .*)?$"
)
DIAGNOSTIC = re.compile(r"^(.*?):(\d+):(\d+): (error|warning): (.*)$")


def cli_check(path, threads):
    """`gamerec check`'s games, errors, inputs not read and error places."""
    binary = os.environ.get("GAMEREC_BIN")
    if not binary:
        pytest.skip("GAMEREC_BIN is not set")
    run = subprocess.run(
        [binary, "check", "--threads", str(threads), str(path)], capture_output=True, text=True
    )
    lines = run.stdout.splitlines()
    summary = CHECK_SUMMARY.match(lines[-1])
    assert summary, run.stdout + run.stderr
    games, _, errors, not_read = summary.groups()
    places = []
    for line in lines[:-1]:
        m = DIAGNOSTIC.match(line)
        if m and m.group(4) == "error":
            places.append((int(m.group(2)), int(m.group(3))))
    return int(games), int(errors), int(not_read or 0), places, run.returncode


def test_to_arrow_accounts_for_every_game(illegal):
    with pytest.warns(gamerec.GamerecWarning, match=r"1 of 3 games left out") as caught:
        table = gamerec.to_arrow(illegal)
    assert table.num_rows == 2
    problems = caught[0].message.problems
    assert (problems.games, problems.failed, problems.rows, problems.errors) == (3, 1, 2, 1)
    assert "illegal.pgn:7:" in str(caught[0].message)
    assert [str(d) for d in problems if d.is_error][0].startswith(f"{illegal}:7:7: error: illegal move")


def test_errors_raise_stops_with_the_place(illegal):
    with pytest.raises(gamerec.ReadError, match=r"illegal\.pgn:7:7: error: illegal move") as caught:
        gamerec.to_arrow(illegal, errors="raise")
    assert caught.value.problems.errors == 1
    assert isinstance(caught.value, ValueError)
    with pytest.raises(gamerec.ReadError):
        list(gamerec.read_games(illegal, errors="raise"))
    with pytest.raises(Exception, match="illegal move"):
        pa.RecordBatchReader.from_stream(gamerec.arrow_stream(illegal, errors="raise")).read_all()


def test_errors_skip_is_silent_and_problems_has_it_all(illegal):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gamerec.to_arrow(illegal, errors="skip").num_rows == 2
        assert len(list(gamerec.read_games(illegal, errors="skip"))) == 2
        stream = gamerec.arrow_stream(illegal, table="positions", errors="skip")
        assert pa.table(stream).num_rows == 5
    problems = stream.problems()
    assert (problems.games, problems.failed, problems.errors) == (3, 1, 1)
    assert problems.summary() == "3 games, 1 errors, 0 warnings"


def test_problems_keep_the_first_hundred_thousand_and_count_the_rest(tmp_path):
    # A good game, then 100,050 games with an illegal move: every one
    # counted, the first 100,000 diagnostics kept, the rest counted in
    # not_listed (memory stays bounded whatever the number of bad games).
    bad = 100_050
    path = tmp_path / "bad.pgn"
    path.write_text("[Event \"y\"]\n\n1. e4 *\n\n" + "[Event \"x\"]\n\n1. e5 *\n\n" * bad)
    for problems in (
        gamerec.problems(path),
        _consumed(gamerec.arrow_stream(path, errors="skip")).problems(),
    ):
        assert (problems.games, problems.failed, problems.errors) == (bad + 1, bad, bad)
        assert (len(problems), problems.not_listed) == (100_000, bad - 100_000)
        assert problems[0].line == 7 and problems[-1].line == 4 * 100_000 + 3
    with pytest.warns(gamerec.GamerecWarning) as caught:
        assert len(list(gamerec.read_games(path))) == 1
    assert caught[0].message.problems.not_listed == bad - 100_000


def _consumed(stream):
    pa.table(stream)
    return stream


def test_read_games_and_the_stream_warn_by_default(illegal):
    with pytest.warns(gamerec.GamerecWarning) as caught:
        games = list(gamerec.read_games(illegal))
    assert len(games) == 2
    assert caught[0].message.problems.games == 3
    with pytest.warns(gamerec.GamerecWarning, match="1 of 3 games left out"):
        assert pa.RecordBatchReader.from_stream(gamerec.arrow_stream(illegal)).read_all().num_rows == 2


def test_a_bad_errors_value_is_refused(illegal):
    for call in (gamerec.to_arrow, gamerec.arrow_stream):
        with pytest.raises(ValueError, match="errors="):
            call(illegal, errors="ignore")
    with pytest.raises(ValueError, match="errors="):
        list(gamerec.read_games(illegal, errors="ignore"))


def test_filters_apply_to_the_games_table(illegal, lichess):
    rated = gamerec.to_arrow(illegal, min_rating=2000, errors="skip")
    assert rated.column("white_elo").to_pylist() == [2100]
    blitz = gamerec.to_arrow(illegal, time_control="blitz", errors="skip")
    assert blitz.column("time_control").to_pylist() == ["180+2"]
    everything = gamerec.to_arrow(lichess)
    strong = gamerec.to_arrow(lichess, min_rating=2000)
    assert 0 < strong.num_rows < everything.num_rows
    assert min(strong.column("white_elo").to_pylist()) >= 2000
    assert min(strong.column("black_elo").to_pylist()) >= 2000
    # The games table and the positions table take the same games.
    plies = gamerec.to_arrow(lichess, table="positions", min_rating=2000)
    assert set(plies.column("game_id").to_pylist()) == set(strong.column("game_id").to_pylist())


def test_an_unknown_time_control_is_refused_not_ignored(illegal):
    for table in ("games", "positions"):
        with pytest.raises(ValueError, match="time_control"):
            gamerec.to_arrow(illegal, table=table, time_control="blits")
    with pytest.raises(ValueError, match="table"):
        gamerec.to_arrow(illegal, table="moves")


def test_junk_is_never_zero_rows_in_silence(tmp_path):
    junk = tmp_path / "junk.pgn"
    junk.write_bytes(bytes(range(256)) * 64)
    with pytest.warns(gamerec.GamerecWarning):
        assert gamerec.to_arrow(junk).num_rows == 0
    with pytest.raises(gamerec.ReadError):
        gamerec.to_arrow(junk, errors="raise")


def test_an_input_not_read(tmp_path, illegal):
    missing = tmp_path / "nope.pgn"
    with pytest.raises(OSError):
        gamerec.to_arrow(missing)
    with pytest.raises(OSError):
        gamerec.to_arrow(missing, errors="raise")
    stream = gamerec.arrow_stream([missing, illegal], errors="skip")
    assert pa.table(stream).num_rows == 2
    problems = stream.problems()
    assert problems.inputs_not_read == 1 and problems.games == 3
    assert not problems.ok
    assert str(problems[0]).startswith(f"{missing}: error:")
    assert gamerec.problems(missing).inputs_not_read == 1


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_python_counts_equal_gamerec_check(tmp_path, corpus, threads):
    from conftest import corpus_dir

    for name, path in damaged_inputs(tmp_path, corpus_dir()).items():
        games, errors, not_read, places, code = cli_check(path, threads)
        problems = gamerec.problems(path, threads=threads)
        assert (problems.games, problems.errors, problems.inputs_not_read) == (
            games,
            errors,
            not_read,
        ), name
        assert [(d.line, d.column) for d in problems if d.is_error and d.line] == places, name
        assert code != 0 and not problems.ok, name
        stream = gamerec.arrow_stream(path, threads=threads, errors="skip")
        rows = pa.table(stream).num_rows
        read = stream.problems()
        assert (read.games, read.errors) == (games, errors), name
        assert rows == games - read.failed, name
