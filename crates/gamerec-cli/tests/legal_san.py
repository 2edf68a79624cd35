"""For every position of every game in the PGN files given as arguments,
print the FEN (python-chess's, with the en-passant square as written by
`board.fen(en_passant="fen")`) and the sorted set of legal moves in SAN,
tab-separated. Used by tests/python_chess.rs as the reference for
`gamerec moves`."""

import sys

import chess
import chess.pgn


def main() -> None:
    out = sys.stdout
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8", errors="replace") as handle:
            while True:
                game = chess.pgn.read_game(handle)
                if game is None:
                    break
                board = game.board()
                for move in game.mainline_moves():
                    emit(out, board)
                    board.push(move)
                emit(out, board)


def emit(out, board: chess.Board) -> None:
    sans = sorted(board.san(m) for m in board.legal_moves)
    out.write(board.fen(en_passant="fen") + "\t" + " ".join(sans) + "\n")


if __name__ == "__main__":
    main()
