"""Lichess variants against python-chess's `chess.variant`.

    variants.py generate OUTDIR SEED GAMES_PER_VARIANT
        Random legal games of every lichess variant (and a few with one move
        that is legal in standard chess but not by the variant's rules), in
        lichess's export format (tags, `{ [%clk] }` comments), written as
        python-chess exports them.

    variants.py compare GAMES.parquet POSITIONS.parquet GAMERR PGN...
        Reads the PGN files with python-chess and checks gamerec's games and
        positions tables: one games row per game python-chess reads without
        error (the others must be exactly the games gamerec left out: their
        number is GAMERR), with the same tags, result, UCI and SAN moves,
        clocks; one positions row per ply with python-chess's FEN before the
        move; and the final position (the last FEN with the last move
        played) equal to python-chess's. Prints one line per difference and
        a summary; exits 1 on any difference.

    variants.py check-reference PGN...
        python-chess's reading of every game, one tab-separated line per game:
        file, game number (from 1), `ok` or `error`, then for a game read
        without error its final FEN and result (`board.result()`, `*` while
        the game is not over), for a game with an error the FEN of the
        position in which the refused move was played and an empty field;
        last the Variant tag.
"""

from __future__ import annotations

import random
import sys

import chess
import chess.pgn
import chess.variant

VARIANTS = [
    ("Crazyhouse", chess.variant.CrazyhouseBoard),
    ("Chess960", None),
    ("King of the Hill", chess.variant.KingOfTheHillBoard),
    ("Three-check", chess.variant.ThreeCheckBoard),
    ("Antichess", chess.variant.AntichessBoard),
    ("Atomic", chess.variant.AtomicBoard),
    ("Horde", chess.variant.HordeBoard),
    ("Racing Kings", chess.variant.RacingKingsBoard),
]


def clock(rng: random.Random, left: int) -> str:
    return f"[%clk {left // 3600}:{left // 60 % 60:02}:{left % 60:02}]"


def random_game(rng: random.Random, name: str, cls, index: int, corrupt: bool) -> str:
    if cls is None:
        board = chess.Board.from_chess960_pos(rng.randrange(960))
    else:
        board = cls()
    game = chess.pgn.Game()
    h = game.headers
    h["Event"] = f"Rated {name} game"
    h["Site"] = f"https://lichess.org/{name[:3].lower()}{index:05d}"
    h["Date"] = "2025.05.01"
    h["Round"] = "-"
    h["White"] = f"w{rng.randrange(1000)}"
    h["Black"] = f"b{rng.randrange(1000)}"
    h["Result"] = "*"
    h["UTCDate"] = "2025.05.01"
    h["UTCTime"] = f"{rng.randrange(24):02}:{rng.randrange(60):02}:{rng.randrange(60):02}"
    h["WhiteElo"] = str(rng.randrange(800, 2800))
    h["BlackElo"] = str(rng.randrange(800, 2800))
    h["Variant"] = name
    h["TimeControl"] = "180+0"
    h["ECO"] = "?"
    h["Termination"] = "Normal"
    # Lichess writes the start position of Chess960, Horde and Racing
    # Kings games; half of these samples do, half rely on the variant.
    if cls is None or (name in ("Horde", "Racing Kings") and index % 2 == 0):
        h["FEN"] = board.fen()
        h["SetUp"] = "1"
    game.setup(board)
    node = game
    left = [180, 180]
    limit = rng.randrange(1, 160)
    bad_at = rng.randrange(min(limit, 30)) if corrupt else limit
    for ply in range(limit):
        if board.is_game_over():
            break
        moves = list(board.legal_moves)
        if ply >= bad_at:
            wrong = standard_only_move(board)
            if wrong is not None:
                # Written by hand: python-chess cannot play it here.
                return export(game, extra=(board, wrong))
        captures = [m for m in moves if board.is_capture(m) or m.drop or m.promotion]
        move = rng.choice(captures if captures and rng.random() < 0.5 else moves)
        node = node.add_variation(move)
        side = ply % 2
        left[side] = max(0, left[side] - rng.randrange(0, 6))
        node.comment = clock(rng, left[side])
        board.push(move)
    h["Result"] = board.result() if board.is_game_over() else rng.choice(["1-0", "0-1", "1/2-1/2"])
    return export(game)


def standard_only_move(board) -> str | None:
    """A move of a piece on this board by standard chess's movement (ignoring
    checks) that the variant does not allow here, in SAN."""
    plain = chess.Board(None)
    plain.set_board_fen(board.board_fen())
    plain.turn = board.turn
    legal = set(board.legal_moves)
    wrong = [m for m in plain.pseudo_legal_moves if m not in legal]
    if not wrong:
        return None
    return plain.san(wrong[len(wrong) // 2])


def export(game, extra=None) -> str:
    text = game.accept(chess.pgn.StringExporter(headers=True, variations=True, comments=True))
    if extra is not None:
        board, san = extra
        head, _, moves = text.partition("\n\n")
        moves = moves.strip()
        moves = moves.rsplit(None, 1)[0] if " " in moves or "\n" in moves else ""
        number = board.fullmove_number
        mark = f"{number}." if board.turn == chess.WHITE else f"{number}..."
        text = f"{head}\n\n{moves + ' ' if moves else ''}{mark} {san} *\n"
    return text


def generate(out: str, seed: int, per_variant: int) -> None:
    """Writes OUT/<variant>.pgn for every variant."""
    import pathlib

    rng = random.Random(seed)
    for name, cls in VARIANTS:
        games = [
            random_game(rng, name, cls, i, corrupt=(i % 10 == 9)) for i in range(per_variant)
        ]
        path = pathlib.Path(out) / (name.lower().replace(" ", "-") + ".pgn")
        path.write_text("\n\n".join(games) + "\n", encoding="utf-8")


def reference(paths):
    """python-chess's reading of every game: (headers, plies, final FEN,
    errors) where plies are (fen before, uci, san, clock seconds)."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            while True:
                game = chess.pgn.read_game(f)
                if game is None:
                    break
                board = game.board()
                plies = []
                node = game
                for child in game.mainline():
                    plies.append(
                        (board.fen(), board.uci(child.move), board.san(child.move), child.clock())
                    )
                    board.push(child.move)
                    node = child
                yield game.headers, plies, board.fen(), game.errors, node


def board_of(variant: str, fen: str):
    if variant in ("Standard", "Chess960", "From Position"):
        return chess.Board(fen, chess960=(variant == "Chess960"))
    return chess.variant.find_variant(variant)(fen)


def compare(games_path: str, positions_path: str, gamerr: int, paths) -> int:
    import pyarrow.parquet as pq

    games = pq.read_table(games_path).to_pylist()
    positions = pq.read_table(positions_path).to_pylist()
    by_game = {}
    for row in positions:
        by_game.setdefault(row["game_id"], []).append(row)
    differences = 0
    failed = 0
    kinds = {}

    def differ(what):
        nonlocal differences
        differences += 1
        if differences <= 20:
            print(what)

    by_site = {row["site"]: row for row in games}
    seen = set()
    for headers, plies, final, errors, _ in reference(paths):
        variant = headers.get("Variant", "Standard")
        site = headers.get("Site")
        seen.add(site)
        row = by_site.get(site)
        if errors:
            failed += 1
            if row is not None:
                differ(f"{site}: python-chess found {errors[0]}, gamerec wrote a row")
            continue
        kinds[variant] = kinds.get(variant, 0) + 1
        if row is None:
            differ(f"{site}: python-chess read it, gamerec left it out")
            continue
        for column, tag in [("result", "Result"), ("variant", "Variant"), ("fen", "FEN"),
                            ("white", "White"), ("black", "Black"), ("event", "Event")]:
            if row[column] != headers.get(tag):
                differ(f"{site}: {column} {row[column]!r} != {headers.get(tag)!r}")
        if row["uci"] != [p[1] for p in plies]:
            differ(f"{site}: uci {row['uci']} != {[p[1] for p in plies]}")
        if row["san"] != [p[2] for p in plies]:
            differ(f"{site}: san {row['san']} != {[p[2] for p in plies]}")
        clocks = [None if p[3] is None else round(p[3] * 1000) for p in plies]
        if row["clk_ms"] != clocks:
            differ(f"{site}: clk_ms {row['clk_ms']} != {clocks}")
        prows = by_game.get(row["game_id"], [])
        fens = [p["fen"] for p in prows]
        want = [p[0] for p in plies]
        if fens != want:
            bad = next(i for i in range(max(len(fens), len(want)))
                       if i >= len(fens) or i >= len(want) or fens[i] != want[i])
            differ(f"{site}: ply {bad + 1} fen {fens[bad:bad + 1]} != {want[bad:bad + 1]}")
        if [p["uci"] for p in prows] != [p[1] for p in plies]:
            differ(f"{site}: positions uci differ")
        # The final position: gamerec's last FEN with its last move played.
        if prows:
            board = board_of(variant, prows[-1]["fen"])
            board.push_uci(prows[-1]["uci"])
            if board.fen() != final:
                differ(f"{site}: final fen {board.fen()} != {final}")
    extra = len(set(by_site) - seen)
    if extra or len(by_site) != len(games):
        differ(f"gamerec has {extra} rows python-chess did not read (or Site not unique)")
    if failed != gamerr:
        differ(f"python-chess found errors in {failed} games, gamerec left out {gamerr}")
    plies = len(positions)
    print(f"compared {sum(kinds.values())} games ({kinds}), {plies} plies, "
          f"{failed} illegal games: {differences} differences")
    return 1 if differences else 0


def check_reference(paths) -> int:
    import os

    for path in paths:
        with open(path, encoding="utf-8") as f:
            number = 0
            while True:
                game = chess.pgn.read_game(f)
                if game is None:
                    break
                number += 1
                board = game.end().board()
                name = os.path.basename(path)
                variant = game.headers.get("Variant", "Standard")
                if game.errors:
                    print(f"{name}\t{number}\terror\t{board.fen()}\t\t{variant}")
                else:
                    print(f"{name}\t{number}\tok\t{board.fen()}\t{board.result()}\t{variant}")
    return 0


def main(argv) -> int:
    if argv[1] == "check-reference":
        return check_reference(argv[2:])
    if argv[1] == "generate":
        generate(argv[2], int(argv[3]), int(argv[4]))
        return 0
    if argv[1] == "compare":
        return compare(argv[2], argv[3], int(argv[4]), argv[5:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
