"""The filter queries of tests/python_differential.rs, written independently
with python-chess: prints, per query name, the 0-based numbers of the games
of a PGN file that match (JSON)."""

import json
import re
import sys

import chess
import chess.pgn


def num(h, tag):
    try:
        return int(h.get(tag, "").strip())
    except ValueError:
        return None


def parts(value, n):
    out = []
    for p in value.split(".")[:n]:
        if not p.isdigit():
            return None
        out.append(int(p))
    return out if len(out) == n else None


def round_parts(value):
    ps = value.split(".")
    return [int(p) for p in ps] if all(p.isdigit() for p in ps) else None


def fen_key(fen):
    return chess.Board(fen)._transposition_key()


SICILIAN = fen_key("rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
QGD = fen_key("rnbqkbnr/ppp2ppp/4p3/3p4/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 0 3")


def counts(board, color):
    return {pt: len(board.pieces(pt, color)) for pt in chess.PIECE_TYPES}


def side_is(c, q, r, b, n):
    """Exact counts for Q R B N; None means any."""
    for pt, want in ((chess.QUEEN, q), (chess.ROOK, r), (chess.BISHOP, b), (chess.KNIGHT, n)):
        if want is not None and c[pt] != want:
            return False
    return True


def rook_ending(board):
    w, b = counts(board, chess.WHITE), counts(board, chess.BLACK)
    return all(c[chess.QUEEN] == 0 and c[chess.BISHOP] == 0 and c[chess.KNIGHT] == 0 and c[chess.ROOK] >= 1 for c in (w, b))


def q_vs_r(board):
    w, b = counts(board, chess.WHITE), counts(board, chess.BLACK)
    only = lambda c, pt: c[pt] == 1 and sum(v for k, v in c.items() if k not in (pt, chess.KING)) == 0
    return (only(w, chess.QUEEN) and only(b, chess.ROOK)) or (only(b, chess.QUEEN) and only(w, chess.ROOK))


def more_pawns(board):
    return len(board.pieces(chess.PAWN, chess.WHITE)) > len(board.pieces(chess.PAWN, chess.BLACK))


def at(board, sq, symbol):
    p = board.piece_at(chess.parse_square(sq))
    return p is not None and p.symbol() == symbol


def castled_black(board):
    return at(board, "f8", "r") and at(board, "g8", "k") and all(at(board, s, "p") for s in ("f7", "g7", "h7"))


def a1_not_king_queen(board):
    p = board.piece_at(chess.A1)
    return p is not None and p.symbol() not in ("K", "Q")


def ending(board):
    if board.is_checkmate():
        return "mate"
    if board.is_stalemate():
        return "stalemate"
    if board.is_insufficient_material():
        return "insufficient"
    if board.is_repetition(3):
        return "repetition"
    if board.halfmove_clock >= 100:
        return "fifty"
    return None


POSITIONAL = {
    "pattern_d4e4": lambda b: at(b, "d4", "P") and at(b, "e4", "P"),
    "pattern_castled": castled_black,
    "pattern_set": a1_not_king_queen,
    "subfen_knight_e5": lambda b: at(b, "e5", "N"),
    "material_rook_ending": rook_ending,
    "material_any_q_vs_r": q_vs_r,
    "material_more_pawns": more_pawns,
}


def evaluate(game):
    h = game.headers
    board = game.board()
    # Positional predicates over every main-line position, as the moves go.
    seen = {name: False for name in POSITIONAL}
    keys = set()

    def visit():
        keys.add(board._transposition_key())
        for name, pred in POSITIONAL.items():
            if not seen[name] and pred(board):
                seen[name] = True

    visit()
    for move in game.mainline_moves():
        board.push(move)
        visit()
    elos = [e for e in (num(h, "WhiteElo"), num(h, "BlackElo")) if e is not None]
    white, black = h.get("White"), h.get("Black")
    date = h.get("Date")
    rnd = round_parts(h["Round"]) if "Round" in h else None
    eco = h.get("ECO")
    result = h.get("Result", "*")
    end = ending(board)
    q = {
        "elo_ge_2500": any(e >= 2500 for e in elos),
        "white_elo_lt_2000": num(h, "WhiteElo") is not None and num(h, "WhiteElo") < 2000,
        "player_prefix_a": (white or "").startswith("A") or (black or "").startswith("A"),
        "event_regex": "Event" in h and re.search("(?i)open", h["Event"]) is not None,
        "date_lt_2000": date is not None and parts(date, 1) is not None and parts(date, 1) < [2000],
        "date_ge_2020_06": date is not None and parts(date, 2) is not None and parts(date, 2) >= [2020, 6],
        "round_gt_5": rnd is not None and rnd > [5],
        "plycount_ge_80": num(h, "PlyCount") is not None and num(h, "PlyCount") >= 80,
        "eco_b20_b99": eco is not None and "B20" <= eco.strip().upper()[:3] <= "B99",
        "result_white": result == "1-0",
        "result_not_draw": result != "1/2-1/2",
        "fen_sicilian": SICILIAN in keys,
        "fen_qgd": QGD in keys,
        "ended_mate": end == "mate",
        "ended_stalemate": end == "stalemate",
        "ended_insufficient": end == "insufficient",
        "ended_repetition": end == "repetition",
        "ended_fifty": end == "fifty",
    }
    q.update(seen)
    q["combo"] = (q["elo_ge_2500"] or result == "0-1") and not q["eco_b20_b99"]
    return q


def main():
    out = {}
    n = 0
    with open(sys.argv[1], encoding="utf-8") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            for name, hit in evaluate(game).items():
                out.setdefault(name, [])
                if hit:
                    out[name].append(n)
            n += 1
    json.dump({"games": n, "queries": out}, sys.stdout)


main()
