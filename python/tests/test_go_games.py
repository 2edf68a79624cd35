"""Go games through Python: ``read_games`` on SGF against sgfmill (moves,
setup stones, game information, ``to_sgf()`` read back), file objects and
paths alike, per-move clocks; and the Go moves table's boards as int8
fixed-size lists read with numpy, equal to sgfmill's boards.

By default a deterministic sample of the corpus (every 8th file) is
compared; GAMEREC_SLOW=1 takes every file (as test_go_tables.py).
"""

from __future__ import annotations

import io
import os
import pathlib

import pytest

import gamerec

pa = pytest.importorskip("pyarrow")
np = pytest.importorskip("numpy")

try:
    from sgfmill import boards, sgf, sgf_grammar
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("GAMEREC_REQUIRE_PEERS") == "1":
        raise
    pytest.skip("sgfmill is not installed", allow_module_level=True)

from test_go_tables import SAMPLE_STEP, SLOW, sgf_files


@pytest.fixture(scope="module")
def files() -> list:
    everything = sgf_files()
    return everything if SLOW else everything[::SAMPLE_STEP]


def sgfmill_view(game) -> dict:
    """sgfmill's main line (colour, (row, col) or None) and the setup
    stones of the nodes before the first move."""
    moves, black, white = [], set(), set()
    before_first = True
    for node in game.get_main_sequence():
        if before_first and node.has_setup_stones():
            b, w, _ = node.get_setup_stones()
            black |= b
            white |= w
        colour, move = node.get_move()
        if colour is not None:
            before_first = False
            moves.append((colour, move))
    return {"size": game.get_size(), "moves": moves, "setup": (black, white)}


def sgfmill_games(path) -> list:
    out = []
    for coarse in sgf_grammar.parse_sgf_collection(path.read_bytes()):
        try:
            out.append(sgf.Sgf_game.from_coarse_game_tree(coarse))
        except Exception as e:  # sgfmill refuses this game
            out.append(f"{type(e).__name__}: {e}")
    return out


def test_read_games_on_sgf_agrees_with_sgfmill(files):
    compared, refused, mismatches = 0, 0, []
    for path in files:
        try:
            theirs = sgfmill_games(path)
        except Exception:
            refused += 1
            continue
        ours = list(gamerec.read_games(path, errors="skip"))
        assert len(ours) == len(theirs), path
        for game, mill in zip(ours, theirs):
            assert isinstance(game, gamerec.GoGame)
            assert game.source == str(path)
            if game.gm != 1 or isinstance(mill, str) or game.size > 19:
                continue
            try:
                view = sgfmill_view(mill)
            except Exception:
                refused += 1
                continue
            compared += 1
            where = f"{path} game {game.game_number}"
            if game.size != view["size"]:
                mismatches.append(f"{where}: size {game.size} != {view['size']}")
            if game.moves != view["moves"]:
                mismatches.append(f"{where}: moves differ")
            if game.setup != view["setup"]:
                mismatches.append(f"{where}: setup differs")
            assert len(game.time_left_s) == len(game.colors) == len(game.periods_left)
            root = mill.get_root()
            if root.has_property("KM"):
                try:
                    assert game.komi == root.get("KM"), where
                except ValueError:
                    pass
            for column, ident in (("black", "PB"), ("white", "PW"), ("result", "RE")):
                if root.has_property(ident) and getattr(game, column) is None:
                    mismatches.append(f"{where}: {column} missing")
    print(f"\n{compared} games compared with sgfmill, {refused} refused by it")
    assert compared > 0
    assert not mismatches, "\n".join(mismatches[:50])


def test_to_sgf_reads_back_in_sgfmill_with_the_same_moves(files):
    checked = 0
    for path in files[:40]:
        for game in gamerec.read_games(path, errors="skip"):
            if game.gm != 1 or game.size > 19:
                continue
            try:
                mill = sgf.Sgf_game.from_string(game.to_sgf())
                view = sgfmill_view(mill)
            except Exception:
                continue
            assert view["moves"] == game.moves, path
            assert view["setup"] == game.setup, path
            checked += 1
    assert checked > 0


HANDMADE = (
    "(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[6.5]HA[2]RU[Japanese]PB[Kuro]BR[3d]PW[Shiro]WR[2k]"
    "RE[W+3.5]DT[2024-03-01]EV[Club]AB[cc][gg]TM[600]OT[5x30 byo-yomi]"
    ";W[ee]WL[598.5];B[dd]BL[590]OB[5];W[]WL[30]OW[4];B[tt])"
)


def test_a_file_object_and_a_path_give_the_same_go_game(tmp_path):
    path = tmp_path / "hand.sgf"
    path.write_text(HANDMADE, encoding="utf-8")
    (by_path,) = gamerec.read_games(path)
    (by_str,) = gamerec.read_games(str(path))
    (by_bytes,) = gamerec.read_games(io.BytesIO(HANDMADE.encode()))
    (by_text,) = gamerec.read_games(io.StringIO(HANDMADE))
    for g in (by_str, by_bytes, by_text):
        assert g.moves == by_path.moves and g.setup == by_path.setup
        assert g.to_sgf() == by_path.to_sgf()
    g = by_path
    assert (g.size, g.komi, g.handicap, g.rules) == (9, 6.5, 2, "Japanese")
    assert (g.black, g.black_rank, g.white, g.white_rank) == ("Kuro", "3d", "Shiro", "2k")
    assert (g.result, g.winner, g.date, g.event) == ("W+3.5", "W", "2024-03-01", "Club")
    # HA places no stone: the setup is AB's two.
    assert g.setup_black == ["C7", "G3"] and g.setup_white == []
    assert g.setup == ({(6, 2), (2, 6)}, set())
    assert g.colors == ["W", "B", "W", "B"]
    assert g.vertices == ["E5", "D6", "pass", "pass"]
    assert g.points == ["ee", "dd", None, None]
    assert g.moves == [("w", (4, 4)), ("b", (5, 3)), ("w", None), ("b", None)]
    assert g.time_left_s == [598.5, 590.0, 30.0, None]
    assert g.periods_left == [None, 5, 4, None]
    assert g.properties.get("TM") is None and "OT" not in g.properties
    assert (g.errors, g.warnings) == (0, 0)


def test_errors_modes_for_go_games(tmp_path):
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[1]FF[4]SZ[9];B[ee];W[ee])", encoding="utf-8")
    (game,) = gamerec.read_games(bad, errors="skip")
    assert game.errors == 1 and len(game.moves) == 2
    with pytest.warns(gamerec.GamerecWarning, match="1 error"):
        list(gamerec.read_games(bad))
    with pytest.raises(gamerec.ReadError, match="illegal move"):
        list(gamerec.read_games(bad, errors="raise"))


def board_before_each_move(game) -> list:
    """sgfmill's board before each main-line move, as 19x19 int8 frames
    (1 black, -1 white, row 0 the top), playing as test_go_tables does."""
    from test_go_tables import play

    size = game.get_size()
    board = boards.Board(size)
    stones = {"b": 0, "w": 0}
    caps = {"b": 0, "w": 0}
    out = []
    for node in game.get_main_sequence():
        if node.has_setup_stones():
            bl, wh, em = node.get_setup_stones()
            board.apply_setup(bl, wh, em)
            stones = {c: sum(r.count(c) for r in board.board) for c in "bw"}
        colour, move = node.get_move()
        if colour is None:
            continue
        frame = np.zeros((19, 19), dtype=np.int8)
        for row in range(size):
            for col in range(size):
                v = board.get(row, col)
                if v is not None:
                    frame[size - 1 - row, col] = 1 if v == "b" else -1
        out.append(frame)
        if move is not None:
            play(board, stones, caps, colour, move)
    return out


def test_the_moves_tables_int8_boards_equal_sgfmills(files):
    sample = files[::4] if not SLOW else files
    table = gamerec.to_arrow([str(p) for p in sample], table="positions", errors="skip")
    games = gamerec.to_arrow([str(p) for p in sample], errors="skip")
    field = table.schema.field("stones_before")
    assert pa.types.is_fixed_size_list(field.type) and field.type.list_size == 361
    assert field.type.value_type == pa.int8()
    stones = table.column("stones_before").combine_chunks()
    after = table.column("stones").combine_chunks()
    keys = table.column("game_key").to_numpy()
    # Boards over 19x19 have null lists, which flatten() skips: the values
    # (a null list's are zeros) keep one frame per row.
    assert stones.offset == 0 and after.offset == 0
    frames = stones.values.to_numpy().reshape(-1, 19, 19)
    after_frames = after.values.to_numpy().reshape(-1, 19, 19)
    assert len(frames) == len(table)
    fits = table.filter(pa.compute.less_equal(table.column("size"), 19))
    fits = fits.filter(pa.compute.less_equal(fits.column("height"), 19))
    assert fits.column("stones_before").null_count == 0
    assert len(fits.column("stones_before").combine_chunks().flatten()) == 361 * len(fits)
    # The text board and the int8 frame hold one board.
    for i in range(0, len(table), 97):
        text = table.column("board_before")[i].as_py()
        size = table.column("size")[i].as_py()
        height = table.column("height")[i].as_py()
        if size > 19 or height > 19:
            assert not stones[i].is_valid
            continue
        grid = np.array(list(text)).reshape(height, size)
        expected = np.where(grid == "X", 1, np.where(grid == "O", -1, 0))
        assert (frames[i, :height, :size] == expected).all()
        assert not frames[i, height:, :].any() and not frames[i, :, size:].any()
    rows_of = {}
    for i, key in enumerate(keys):
        rows_of.setdefault(key, []).append(i)
    compared = 0
    for game in games.select(["game_key", "source", "game_number", "gm", "size"]).to_pylist():
        if game["gm"] != 1 or game["size"] > 19:
            continue
        try:
            mill = sgfmill_games(pathlib.Path(game["source"]))[game["game_number"] - 1]
            if isinstance(mill, str):
                continue
            theirs = board_before_each_move(mill)
        except Exception:
            continue
        rows = rows_of.get(game["game_key"], [])
        assert len(rows) == len(theirs), game["source"]
        for k, i in enumerate(rows):
            assert (frames[i] == theirs[k]).all(), f"{game['source']} move {k + 1}"
        compared += 1
    assert compared > 0
    assert after_frames.shape == frames.shape
