"""Reference for tests/epd_python_chess.rs: for every game of a PGN file,
the start FEN and UCI moves of the main line, then python-chess's
board.epd() with sm/id/hmvc/fmvn for every position.

Output lines (tab-separated):
  G <Event> <Round> <start FEN>
  M <uci>                 (one per main-line move)
  E <epd line>            (one per position, start included)
"""
import sys

import chess
import chess.pgn


def main(path):
    out = sys.stdout
    with open(path, encoding="utf-8", errors="replace") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            if game.errors:
                continue
            board = game.board()
            event = game.headers.get("Event", "?")
            rnd = game.headers.get("Round", "?")
            moves = list(game.mainline_moves())
            out.write(f"G\t{event}\t{rnd}\t{board.fen()}\n")
            for m in moves:
                out.write(f"M\t{m.uci()}\n")
            for ply, m in enumerate(moves + [None]):
                ops = {}
                if m is not None:
                    ops["sm"] = m
                ops["id"] = f"{event}.{rnd}.{ply}"
                ops["hmvc"] = board.halfmove_clock
                ops["fmvn"] = board.fullmove_number
                out.write("E\t" + board.epd(**ops) + "\n")
                if m is not None:
                    board.push(m)


if __name__ == "__main__":
    main(sys.argv[1])
