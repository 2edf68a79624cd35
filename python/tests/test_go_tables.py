"""The Go tables (SGF input) against sgfmill on the corpus's SGF files.

gamerec's Go games table, read by ``to_arrow`` and written to Parquet by the
CLI (``gamerec convert DIR -o x.parquet``, when GAMEREC_BIN names it), is
compared game by game with sgfmill's reading of the same files: board size,
move count, the moves as GTP vertices, the final board, the stones captured
by each colour, and the game information (players, ranks, komi, handicap,
rules, result, date, event, round, place). The Go moves table must agree with
the games table (one row per move, the last board the final board).

Files sgfmill refuses (or games it cannot replay) are listed with why and not
compared; games other than Go (GM other than 1) are not compared either. The
one difference allowed: a text of a file without ``CA`` whose bytes are UTF-8,
which sgfmill reads as ISO-8859-1 and gamerec as UTF-8 (one file of the
corpus, ``Kis-1990-1.sgf``: ``PC[Düsseldorf]``).

On the whole corpus (GAMEREC_SLOW=1): 4746 games compared, 11 refused by
sgfmill (UTF-16 files, files cut short, boards over 19x19 it does not take).

By default a deterministic sample (every 8th file) is compared; the whole
corpus runs with GAMEREC_SLOW=1 (``-m slow`` selects it).
"""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

import gamerec

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

try:
    from sgfmill import boards, common, sgf, sgf_grammar
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("GAMEREC_REQUIRE_PEERS") == "1":
        raise
    pytest.skip("sgfmill is not installed", allow_module_level=True)

SAMPLE_STEP = 8
SLOW = os.environ.get("GAMEREC_SLOW") == "1"

# Game information: (column, SGF property), compared as text.
TEXT_TAGS = [
    ("black", "PB"),
    ("white", "PW"),
    ("black_rank", "BR"),
    ("white_rank", "WR"),
    ("rules", "RU"),
    ("result", "RE"),
    ("date", "DT"),
    ("event", "EV"),
    ("round", "RO"),
    ("place", "PC"),
]


def sgf_files() -> list:
    from conftest import corpus_dir

    root = corpus_dir() / "sgf"
    if not root.is_dir():
        if os.environ.get("GAMEREC_REQUIRE_PEERS") == "1":
            pytest.fail(f"corpus not found at {root}")
        pytest.skip(f"corpus not found at {root}")
    return sorted(root.rglob("*.sgf"))


def sgfmill_games(path: pathlib.Path) -> list:
    """sgfmill's view of each game of the file: a dict, or a str saying why
    sgfmill could not read or replay it. Raises when it cannot read the file."""
    data = path.read_bytes()
    out = []
    for coarse in sgf_grammar.parse_sgf_collection(data):
        try:
            game = sgf.Sgf_game.from_coarse_game_tree(coarse)
            out.append(replay(game))
        except Exception as e:  # sgfmill refuses this game
            out.append(f"{type(e).__name__}: {e}")
    return out


def play(board, stones: dict, caps: dict, colour: str, move: tuple) -> None:
    """Plays a move (replacing a stone already there), keeping `stones` (the
    count of each colour) and `caps` (stones taken by each colour; a
    suicide's own stones count for the opponent) up to date. The board is
    counted again only when the move took stones: then it emptied a
    neighbour or its own point."""
    size = board.side
    row, col = move
    if board.get(row, col) is not None:
        stones[board.get(row, col)] -= 1
        board.board[row][col] = None
    near = [
        (r, c)
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
        if 0 <= r < size and 0 <= c < size and board.board[r][c] is not None
    ]
    board.play(row, col, colour)
    if board.board[row][col] is not None and all(board.board[r][c] is not None for r, c in near):
        stones[colour] += 1
        return
    after = {c: sum(r.count(c) for r in board.board) for c in "bw"}
    other = "w" if colour == "b" else "b"
    caps[colour] += stones[other] - after[other]
    caps[other] += max(0, stones[colour] + 1 - after[colour])
    stones.update(after)


def replay(game) -> dict:
    """Plays the main line as SGF does (a move on an occupied point replaces
    the stone; setup in any node), as the Rust differential test's peer."""
    size = game.get_size()
    board = boards.Board(size)
    caps = {"b": 0, "w": 0}
    moves = []
    root = game.get_root()

    def count() -> dict:
        return {c: sum(r.count(c) for r in board.board) for c in "bw"}

    def text() -> str:
        return "".join(
            {"b": "X", "w": "O", None: "."}[board.get(row, col)]
            for row in range(size - 1, -1, -1)
            for col in range(size)
        )

    # Stones of each colour, kept up to date by play(); counted again
    # after setup.
    stones = count()
    sequence = game.get_main_sequence()
    last = max((i for i, n in enumerate(sequence) if n.get_move()[0] is not None), default=-1)
    after_last_move = None
    for i, node in enumerate(sequence):
        if node.has_setup_stones():
            bl, wh, em = node.get_setup_stones()
            board.apply_setup(bl, wh, em)
            stones = count()
        colour, move = node.get_move()
        if colour is None:
            continue
        moves.append(common.format_vertex(move).upper() if move else "pass")
        if move is not None:
            play(board, stones, caps, colour, move)
        if i == last:
            after_last_move = text()
    final = text()
    tags = {}
    for column, ident in TEXT_TAGS:
        if root.has_property(ident):
            try:
                tags[column] = root.get(ident)
            except ValueError:
                pass
    for column, ident in (("komi", "KM"), ("handicap", "HA")):
        if root.has_property(ident):
            try:
                tags[column] = root.get(ident)
            except ValueError:
                pass
    return {
        "size": size,
        "moves": moves,
        "final_board": final,
        "after_last_move": after_last_move,
        "captures_black": caps["b"],
        "captures_white": caps["w"],
        "tags": tags,
    }


@pytest.fixture(scope="module")
def files() -> list:
    everything = sgf_files()
    return everything if SLOW else everything[::SAMPLE_STEP]


@pytest.fixture(scope="module")
def theirs(files) -> dict:
    """sgfmill's games by file; files sgfmill refuses map to the reason."""
    out = {}
    for path in files:
        try:
            out[str(path)] = sgfmill_games(path)
        except Exception as e:
            out[str(path)] = f"{type(e).__name__}: {e}"
    return out


@pytest.fixture(scope="module")
def games_table(files) -> "pa.Table":
    return gamerec.to_arrow([str(p) for p in files], threads=2, errors="skip")


COMPARED = ["source", "game_number", "gm", "size", "move_count", "moves", "final_board"]
COMPARED += ["captures_black", "captures_white", "komi", "handicap"] + [c for c, _ in TEXT_TAGS]


def rows_by_game(table: "pa.Table") -> dict:
    rows = table.select(COMPARED).to_pylist()
    return {(r["source"], r["game_number"]): r for r in rows}


def utf8_read_as_latin1(theirs, ours) -> bool:
    """A text of a file without ``CA`` whose bytes are UTF-8: sgfmill
    decodes it as ISO-8859-1 (FF[4]'s default), gamerec as UTF-8 (valid
    UTF-8 is read as such); the one kind of difference expected."""
    if not isinstance(theirs, str) or not isinstance(ours, str):
        return False
    try:
        return theirs.encode("latin-1").decode("utf-8") == ours
    except UnicodeError:
        return False


def compare(ours: dict, theirs: dict) -> tuple:
    """Mismatches (text lines), games compared, and what sgfmill refused."""
    mismatches, refused, compared = [], [], 0
    sources = {key[0] for key in ours}
    for source, games in theirs.items():
        if isinstance(games, str):
            refused.append(f"{source}: {games}")
            continue
        if source not in sources and games:
            mismatches.append(f"{source}: no row in gamerec's table")
            continue
        for number, mill in enumerate(games, start=1):
            row = ours.get((source, number))
            if row is None:
                mismatches.append(f"{source} game {number}: no row")
                continue
            if row["gm"] != 1:
                continue
            if isinstance(mill, str):
                refused.append(f"{source} game {number}: {mill}")
                continue
            compared += 1
            where = f"{source} game {number}"
            for key in ("size", "final_board", "captures_black", "captures_white", "moves"):
                if row[key] != mill[key]:
                    mismatches.append(f"{where}: {key} {row[key]!r} != sgfmill {mill[key]!r}")
            if row["move_count"] != len(mill["moves"]):
                mismatches.append(f"{where}: move_count {row['move_count']} != {len(mill['moves'])}")
            for column, value in mill["tags"].items():
                if row[column] != value and not utf8_read_as_latin1(value, row[column]):
                    mismatches.append(f"{where}: {column} {row[column]!r} != sgfmill {value!r}")
    return mismatches, compared, refused


def report(what: str, mismatches: list, compared: int, refused: list) -> None:
    print(f"\n{what}: {compared} games compared with sgfmill; {len(refused)} refused by sgfmill:")
    for line in refused:
        print("  " + line)
    assert compared > 0
    assert not mismatches, f"{len(mismatches)} differences:\n" + "\n".join(mismatches[:50])


def test_to_arrow_go_games_agree_with_sgfmill(games_table, theirs):
    mismatches, compared, refused = compare(rows_by_game(games_table), theirs)
    report("to_arrow", mismatches, compared, refused)


def test_cli_parquet_go_games_agree_with_sgfmill(files, theirs, games_table, tmp_path):
    binary = os.environ.get("GAMEREC_BIN")
    if not binary:
        pytest.skip("GAMEREC_BIN is not set")
    out = tmp_path / "go.parquet"
    run = subprocess.run(
        [binary, "convert", *[str(p) for p in files], "-o", str(out), "-q"],
        capture_output=True,
        text=True,
    )
    assert run.returncode in (0, 1), run.stderr
    table = pq.read_table(out)
    assert table.schema == games_table.schema
    assert table.equals(games_table), "the CLI's Parquet holds what to_arrow gives"
    mismatches, compared, refused = compare(rows_by_game(table), theirs)
    report("gamerec convert -o x.parquet", mismatches, compared, refused)


def test_the_moves_table_agrees_with_the_games_table_and_sgfmill(files, games_table, theirs):
    moves = gamerec.to_arrow([str(p) for p in files], table="positions", threads=2, errors="skip")
    by_game = {}
    for row in moves.select(["game_key", "ply", "vertex", "board", "captures"]).to_pylist():
        by_game.setdefault(row["game_key"], []).append(row)
    checked, mismatches = 0, []
    columns = ["game_key", "source", "game_number", "gm", "moves"]
    for game in games_table.select(columns + ["captures_black", "captures_white"]).to_pylist():
        rows = by_game.get(game["game_key"], [])
        assert [r["vertex"] for r in rows] == game["moves"]
        assert [r["ply"] for r in rows] == list(range(1, len(rows) + 1))
        mill = theirs.get(game["source"])
        if not rows or game["gm"] != 1 or not isinstance(mill, list):
            continue
        mill = mill[game["game_number"] - 1]
        if not isinstance(mill, dict):
            continue
        checked += 1
        if rows[-1]["board"] != mill["after_last_move"]:
            mismatches.append(f"{game['source']} game {game['game_number']}: board after the last move")
        # Stones taken by moves (a suicide's own stones are not among them).
        assert sum(r["captures"] for r in rows) <= game["captures_black"] + game["captures_white"]
    assert checked > 0
    assert not mismatches, "\n".join(mismatches[:50])
    assert sum(len(v) for v in by_game.values()) == moves.num_rows


def test_a_directory_is_read_as_its_sgf_files(files):
    directory = files[0].parent
    table = gamerec.to_arrow(directory, errors="skip")
    expected = sorted(str(p) for p in directory.rglob("*.sgf"))
    assert sorted(set(table.column("source").to_pylist())) == expected


def test_compressed_sgf_reads_as_the_plain_file(files, tmp_path):
    import gzip

    plain = files[1]
    packed = tmp_path / (plain.name + ".gz")
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    lineage = ["game_key", "source"]
    for table in ("games", "positions"):
        a = gamerec.to_arrow(plain, table=table, errors="skip").drop_columns(lineage)
        b = gamerec.to_arrow(packed, table=table, errors="skip").drop_columns(lineage)
        assert a.num_rows > 0 and a.equals(b)


def test_errors_and_problems_as_for_pgn(tmp_path):
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[1]FF[4]SZ[9];B[ee];W[ee])", encoding="utf-8")
    stream = gamerec.arrow_stream(bad, errors="skip")
    table = stream.to_reader().read_all()
    problems = stream.problems()
    assert table.num_rows == 1 and table.column("errors").to_pylist() == [1]
    assert problems.games == 1 and problems.errors == 1
    assert any("illegal move W[ee]" in d.message for d in problems)
    assert problems[0].line == 1
    with pytest.raises(gamerec.ReadError, match="illegal move"):
        gamerec.to_arrow(bad, errors="raise")
    with pytest.warns(gamerec.GamerecWarning, match="1 error"):
        gamerec.to_arrow(bad)
    assert gamerec.problems(bad).errors == 1


def test_go_and_chess_cannot_share_a_table(tmp_path, sample):
    go = tmp_path / "a.sgf"
    go.write_text("(;GM[1]SZ[9];B[ee])", encoding="utf-8")
    with pytest.raises(ValueError, match="cannot share one table"):
        gamerec.to_arrow([go, sample])


@pytest.mark.slow
@pytest.mark.skipif(not SLOW, reason="slow: the whole corpus; set GAMEREC_SLOW=1")
def test_the_whole_corpus_is_compared():
    """Present so that `-m slow` names the whole-corpus run: with
    GAMEREC_SLOW=1 the fixtures above take every file."""
    assert len(sgf_files()) > 1000
