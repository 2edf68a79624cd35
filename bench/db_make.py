#!/usr/bin/env python3
"""Builds the benchmark database of `bench/db.sh`: N games (default 1,000,000)
drawn with a fixed seed from the corpus (lichess, TWIC, TCEC; a source chosen
uniformly, then one of its games), TCEC comments removed (they are 90% of its
bytes), written as one PGN file. Standard library only."""

import random
import re
import subprocess
import sys

corpus, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000


def games(text):
    parts = re.split(r"\n(?=\[Event )", text)
    return [p.strip() + "\n\n" for p in parts if p.strip().startswith("[Event ")]


def read(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "replace")


tcec = subprocess.run(["zstd", "-dc", f"{corpus}/pgn/tcec-2011-2021.pgn.zst"], capture_output=True, check=True).stdout
tcec = re.sub(r"\{[^}]*\}", "", tcec.decode("utf-8", "replace"))
tcec = re.sub(r"^;.*$", "", tcec, flags=re.M)
sources = [
    games(read(f"{corpus}/pgn/lichess_db_1000k.pgn")),
    games(read(f"{corpus}/pgn/twic1599_1000k.pgn")),
    games(tcec),
]
rng = random.Random(20261124)
with open(out, "w", encoding="utf-8") as f:
    for _ in range(n):
        src = sources[rng.randrange(3)]
        f.write(src[rng.randrange(len(src))])
print(f"{out}: {n} games from {[len(s) for s in sources]} distinct", file=sys.stderr)
