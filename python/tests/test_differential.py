"""Differential test: the games and positions tables of every corpus PGN
agree with python-chess on every game: tags, UCI and SAN moves, the FEN
before each move, clocks, move times and evaluations.

python-chess reads a game with an illegal move up to that move and records
the error; gamerec leaves such a game out and reports it. So the reference
is python-chess's games without errors, and gamerec must have left out
exactly the others (its error count is compared too).
"""

from __future__ import annotations

import datetime
import io
import subprocess

import pytest

import gamerec

from conftest import corpus_pgn_files

chess_pgn = pytest.importorskip("chess.pgn")

FILES = corpus_pgn_files()
SEVEN = {
    "Event": "?",
    "Site": "?",
    "Date": "????.??.??",
    "Round": "?",
    "White": "?",
    "Black": "?",
    "Result": "*",
}
TAG_COLUMNS = [
    ("event", "Event"), ("site", "Site"), ("date", "Date"), ("round", "Round"),
    ("white", "White"), ("black", "Black"), ("result", "Result"),
    ("white_elo", "WhiteElo"), ("black_elo", "BlackElo"),
    ("white_rating_diff", "WhiteRatingDiff"), ("black_rating_diff", "BlackRatingDiff"),
    ("white_title", "WhiteTitle"), ("black_title", "BlackTitle"),
    ("utc_date", "UTCDate"), ("utc_time", "UTCTime"), ("eco", "ECO"),
    ("opening", "Opening"), ("variant", "Variant"), ("termination", "Termination"),
    ("time_control", "TimeControl"), ("fen", "FEN"),
]


def read_text(path) -> str:
    if path.name.endswith(".zst"):
        data = subprocess.run(["zstd", "-dc", str(path)], check=True, capture_output=True).stdout
    else:
        data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def reference_games(path):
    """python-chess's games: (headers, per-ply dicts, has_errors)."""
    handle = io.StringIO(read_text(path))
    while True:
        game = chess_pgn.read_game(handle)
        if game is None:
            return
        board = game.board()
        plies = []
        for node in game.mainline():
            move = node.move
            score = node.eval()
            white = score.white() if score is not None else None
            clock = node.clock()
            emt = node.emt()
            plies.append({
                "fen": board.fen(),
                "uci": move.uci(),
                "san": board.san(move),
                "clk_ms": None if clock is None else round(clock * 1000),
                "emt_ms": None if emt is None else round(emt * 1000),
                "eval_cp": None if white is None else white.score(),
                "eval_mate": None if white is None or not white.is_mate() else white.mate(),
            })
            board.push(move)
        yield dict(game.headers), plies, bool(game.errors)


def table_value(column: str, value):
    if isinstance(value, datetime.date):
        return value.strftime("%Y.%m.%d")
    if isinstance(value, datetime.time):
        return value.strftime("%H:%M:%S")
    return str(value)


def our_tags(row) -> dict:
    """Tags of a games-table row, a repeated tag's last value winning (as in python-chess)."""
    tags = {}
    for column, tag in TAG_COLUMNS:
        if row[column] is not None:
            tags[tag] = table_value(column, row[column])
    for name, value in row["tags"]:
        tags[name] = value
    for name, default in SEVEN.items():
        tags.setdefault(name, default)
    return tags


def compare_file(path, threads: int):
    games = gamerec.to_arrow(path, threads=threads).to_pylist()
    positions = gamerec.to_arrow(path, table="positions", threads=threads)
    pos_columns = {name: positions.column(name).to_pylist() for name in positions.column_names}
    errors = sum(1 for d in gamerec.check(path) if d.is_error)
    reference = list(reference_games(path))
    expected = [(h, p) for h, p, bad in reference if not bad]
    rejected = len(reference) - len(expected)
    diffs = []
    if (len(games), errors) != (len(expected), rejected):
        diffs.append(
            f"{path.name}: gamerec {len(games)} games and {errors} errors, "
            f"python-chess {len(expected)} games without errors and {rejected} with"
        )
        return diffs
    row_at = 0
    for row, (headers, plies) in zip(games, expected):
        gid = row["game_id"]
        where = f"{path.name} game {gid}"
        tags = our_tags(row)
        if tags != headers:
            diffs.append(f"{where}: tags {tags} != {headers}")
        for key in ("uci", "san", "clk_ms", "emt_ms", "eval_cp", "eval_mate"):
            ours = row[key]
            theirs = [p[key] for p in plies]
            if ours != theirs:
                diffs.append(f"{where}: {key} {ours[:12]}... != {theirs[:12]}...")
        if row["ply_count"] != len(plies):
            diffs.append(f"{where}: ply_count {row['ply_count']} != {len(plies)}")
        for i, ply in enumerate(plies):
            at = row_at + i
            if at >= positions.num_rows or pos_columns["game_id"][at] != gid:
                diffs.append(f"{where}: positions table has no row for ply {i + 1}")
                break
            for key in ("fen", "uci", "san", "clk_ms", "emt_ms", "eval_cp", "eval_mate"):
                if pos_columns[key][at] != ply[key]:
                    diffs.append(f"{where} ply {i + 1}: positions {key} {pos_columns[key][at]!r} != {ply[key]!r}")
            if pos_columns["ply"][at] != i + 1:
                diffs.append(f"{where}: positions ply {pos_columns['ply'][at]} != {i + 1}")
        row_at += len(plies)
        if len(diffs) > 20:
            break
    if not diffs and row_at != positions.num_rows:
        diffs.append(f"{path.name}: {positions.num_rows} position rows, python-chess {row_at} plies")
    return diffs


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_tables_agree_with_python_chess(path):
    threads = 2 if path.stat().st_size > 500_000 else 1
    diffs = compare_file(path, threads)
    assert not diffs, "\n".join(diffs[:20])


def test_the_corpus_is_there():
    assert len(FILES) > 100, "the differential test needs the shared corpus"
