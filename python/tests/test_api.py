"""The package's API on small games and a real lichess sample."""

from __future__ import annotations

import subprocess

import pyarrow as pa
import pytest

import gamerec


def test_read_games_gives_tags_moves_comments_clocks_and_evals(sample):
    games = list(gamerec.read_games(sample))
    assert len(games) == 2
    first = games[0]
    assert first.headers["White"] == "alice"
    assert ("Annotator", "carol") in first.tags
    assert first.uci == ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]
    assert first.san == ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]
    assert first.clk_ms[:3] == [300_000, 298_500, None]
    assert first.clocks[1] == 298.5
    assert first.emt_ms[2] == 2000
    assert first.eval_cp[0] == 30 and first.eval_mate[2] == -3
    assert first.nags[2] == [6] and first.nags[3] == [1]
    assert "[%clk 0:05:00]" in first.comments[0]
    assert first.result == "0-1"
    second = games[1]
    assert second.uci == ["e2e4", "e8d7"] and second.result == "*"


def test_to_python_chess_gives_the_same_game(sample):
    chess = pytest.importorskip("chess")
    game = next(iter(gamerec.read_games(sample)))
    pc = game.to_python_chess()
    assert [m.uci() for m in pc.mainline_moves()] == game.uci
    assert pc.headers["White"] == "alice"
    assert pc.variations[0].variations[0].variations[1].move == chess.Move.from_uci("g1f3")
    clocks = [node.clock() for node in pc.mainline()]
    assert clocks[:2] == [300.0, 298.5]


def test_games_table_columns_are_typed(sample):
    table = gamerec.to_arrow(sample)
    assert table.num_rows == 2
    schema = table.schema
    assert schema.field("white_elo").type == pa.int32()
    assert schema.field("utc_date").type == pa.date32()
    assert schema.field("utc_time").type == pa.int32()
    assert schema.field("game_id").type == pa.int64()
    assert schema.field("ply_count").type == pa.int32()
    assert schema.field("uci").type == pa.list_(pa.string())
    assert schema.field("clk_ms").type == pa.list_(pa.int64())
    assert schema.field("tags").type == pa.map_(pa.string(), pa.string())
    row = table.slice(0, 1).to_pylist()[0]
    assert row["game_id"] == 0
    assert row["white_elo"] == 1500
    assert row["black_elo"] is None
    assert dict(row["tags"]) == {"BlackElo": "?", "Annotator": "carol"}
    assert row["white_rating_diff"] == -6
    assert str(row["utc_date"]) == "2024-01-02"
    assert row["utc_time"] == (10 * 3600 + 11 * 60 + 12) * 1000
    assert row["time_control_base_s"] == 300 and row["time_control_increment_s"] == 3
    assert row["ply_count"] == 7
    assert row["eval_mate"] == [None, None, -3, None, None, None, None]
    assert row["nags"][2] == [6]
    assert "(2. Nf3 Nc6)" in row["movetext"]
    assert row["game_result"] == "0-1"
    second = table.slice(1, 1).to_pylist()[0]
    assert second["fen"] == "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    assert second["game_result"] == "*"


def test_positions_table_has_fen_before_each_move(sample):
    table = gamerec.to_arrow(sample, table="positions")
    assert table.num_rows == 9
    rows = table.to_pylist()
    assert rows[0]["fen"] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert rows[0]["uci"] == "e2e4" and rows[0]["ply"] == 1
    assert rows[1]["clk_ms"] == 298_500
    assert rows[0]["white_elo"] == 1500 and rows[0]["result"] == "0-1"
    assert rows[7]["game_id"] == 1 and rows[7]["fen"].startswith("4k3/")


def test_positions_filters(lichess):
    everything = gamerec.to_arrow(lichess, table="positions")
    rated = gamerec.to_arrow(lichess, table="positions", min_rating=2000)
    assert 0 < rated.num_rows < everything.num_rows
    assert min(rated.column("white_elo").to_pylist()) >= 2000
    assert min(rated.column("black_elo").to_pylist()) >= 2000
    blitz = gamerec.to_arrow(lichess, table="positions", time_control="blitz")
    controls = set(blitz.column("time_control").to_pylist())
    assert controls
    for control in controls:
        base, inc = (int(x) for x in control.split("+"))
        assert 180 <= base + 40 * inc < 480, control
    exact = gamerec.to_arrow(lichess, table="positions", time_control="300+0")
    assert set(exact.column("time_control").to_pylist()) == {"300+0"}


def test_threads_give_the_same_table(lichess):
    one = gamerec.to_arrow(lichess, threads=1)
    two = gamerec.to_arrow(lichess, threads=2)
    assert one.num_rows == 438
    assert one.equals(two)


def test_many_inputs_number_games_across_files(sample, lichess):
    table = gamerec.to_arrow([sample, lichess], threads=2)
    ids = table.column("game_id").to_pylist()
    assert ids == list(range(len(ids)))


def test_compressed_input(sample, tmp_path):
    packed = tmp_path / "sample.pgn.zst"
    subprocess.run(["zstd", "-q", "-o", str(packed), str(sample)], check=True)
    lineage = ["game_key", "source"]  # the input's name is part of the key
    packed_table = gamerec.to_arrow(packed)
    assert packed_table.drop_columns(lineage).equals(gamerec.to_arrow(sample).drop_columns(lineage))
    assert packed_table.column("source").to_pylist() == [str(packed)] * 2


def test_check_reports_errors_with_their_place(tmp_path):
    path = tmp_path / "bad.pgn"
    path.write_text('[Event "ok"]\n\n1. e4 e5 *\n\n[Event "bad"]\n\n1. e4 Ke7 2. Qxx9 *\n')
    problems = gamerec.check(path)
    errors = [p for p in problems if p.is_error]
    assert len(errors) == 1
    assert errors[0].line == 7 and errors[0].path == str(path)
    assert "bad.pgn:7:" in str(errors[0])
    assert gamerec.to_arrow(path, errors="skip").num_rows == 1


def test_missing_input_raises(tmp_path):
    with pytest.raises(OSError):
        gamerec.check(tmp_path / "nope.pgn")
    with pytest.raises(OSError):
        gamerec.to_arrow(tmp_path / "nope.pgn")


def test_stream_is_an_arrow_pycapsule_stream(sample):
    stream = gamerec.arrow_stream(sample)
    reader = pa.RecordBatchReader.from_stream(stream)
    assert reader.read_all().num_rows == 2
    with pytest.raises(ValueError):
        stream.__arrow_c_stream__()
