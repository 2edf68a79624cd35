"""sgfmill's view of SGF files, for the differential tests in sgf_sgfmill.rs.

Reads lines from stdin, each `KIND<TAB>PATH`, and writes one line per game
(`PATH<TAB>GAME<TAB>...`, tab-separated) to stdout:

* `board PATH`: `PATH GAME ok SIZE ROWS CAPB CAPW` where ROWS is the final
  main-line position, rows top to bottom joined by `/` (`.` `X` `O`), and
  CAPB/CAPW the stones taken by Black/White (own stones lost to suicide
  count for the opponent); or `PATH GAME skip REASON` when sgfmill cannot
  read or replay the game.
* `tree PATH`: `PATH GAME tree DIGEST` where DIGEST (a JSON string) lists
  every node in pre-order: its property identifiers, its move, its setup
  stones and its decoded text values (C, N, GN, PB, PW, RE, DT, KM).

Moves follow SGF semantics: a move on an occupied point replaces the stone
(FF[4]: moves are executed even when illegal); setup is applied in every
node with sgfmill's Board.apply_setup.
"""

import json
import sys

from sgfmill import boards, sgf, sgf_grammar

TEXT = ["C", "N", "GN", "PB", "PW", "RE", "DT", "KM"]


def games(path):
    with open(path, "rb") as f:
        data = f.read()
    for coarse in sgf_grammar.parse_sgf_collection(data):
        yield sgf.Sgf_game.from_coarse_game_tree(coarse)


def replay(game):
    size = game.get_size()
    board = boards.Board(size)
    caps = {"b": 0, "w": 0}
    for node in game.get_main_sequence():
        if node.has_setup_stones():
            bl, wh, em = node.get_setup_stones()
            board.apply_setup(bl, wh, em)
        colour, move = node.get_move()
        if colour is None or move is None:
            continue
        row, col = move
        if board.get(row, col) is not None:
            board.board[row][col] = None
        before = {c: sum(r.count(c) for r in board.board) for c in "bw"}
        board.play(row, col, colour)
        after = {c: sum(r.count(c) for r in board.board) for c in "bw"}
        other = "w" if colour == "b" else "b"
        caps[colour] += before[other] - after[other]
        # Suicide: own stones lost (the played stone counted in `after`).
        caps[other] += max(0, before[colour] + 1 - after[colour])
    rows = []
    for row in range(size - 1, -1, -1):
        rows.append("".join({"b": "X", "w": "O", None: "."}[board.get(row, c)] for c in range(size)))
    return "ok\t%d\t%s\t%d\t%d" % (size, "/".join(rows), caps["b"], caps["w"])


def digest(game):
    out = []
    stack = [game.get_root()]
    while stack:
        node = stack.pop()
        # CA may be added when the text is written in another charset.
        item = {"props": sorted(p for p in node.properties() if p != "CA")}
        try:
            item["move"] = node.get_move()
        except ValueError:
            item["move"] = "bad"
        try:
            if node.has_setup_stones():
                item["setup"] = [sorted(s) for s in node.get_setup_stones()]
        except ValueError:
            item["setup"] = "bad"
        for ident in TEXT:
            if node.has_property(ident):
                try:
                    item[ident] = str(node.get(ident))
                except ValueError:
                    item[ident] = "bad"
        out.append(item)
        stack.extend(reversed(list(node)))
    return json.dumps(out, sort_keys=True)


def main():
    for line in sys.stdin:
        kind, path = line.rstrip("\n").split("\t", 1)
        try:
            found = list(games(path))
        except Exception as e:  # sgfmill cannot read the file
            print("%s\t0\tskip\t%s" % (path, type(e).__name__))
            continue
        for k, game in enumerate(found):
            try:
                result = replay(game) if kind == "board" else "tree\t" + digest(game)
            except Exception as e:
                result = "skip\t%s: %s" % (type(e).__name__, str(e).replace("\t", " ")[:80])
            print("%s\t%d\t%s" % (path, k, result))
    sys.stdout.flush()


main()
