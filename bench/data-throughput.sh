#!/usr/bin/env bash
# Games as data: PGN to Arrow/Parquet throughput against python-chess and
# rust-pgn-reader-python-binding, in one run on the same file (the table
# verbs also on its .zst and .gz copies: compressed-input throughput), and the peak
# memory of `gamerec convert -o .parquet` on a 1 GB input.
# Usage: bench/data-throughput.sh [path/to/gamerec] [path/to/python]
#   gamerec: default target/dist/gamerec; python: a venv with the gamerec
#   wheel, pyarrow, chess and rust-pgn-reader-python-binding (default .venv/bin/python).
#        bench/data-throughput.sh hf [path/to/gamerec] [path/to/python]
#   The lichess dataset as Hugging Face publishes it (one Parquet row per
#   game: tag columns and a `movetext` string), uncompressed, snappy and
#   zstd: `gamerec convert hf.parquet -o typed.parquet -t N` against
#   rust-pgn-reader-python-binding's `parse_games` on the same pre-split
#   games (the movetext column read from the same file), and Python's
#   `gamerec.to_arrow(hf.parquet)` against the same; whole processes, paired
#   alternating runs (RUNS pairs, default 7), 1 and 2 threads. python needs
#   pyarrow, the gamerec wheel and rust-pgn-reader-python-binding.
# Needs: zstd; ../shared/corpus beside the repository.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=$repo/../shared/corpus/pgn
if [ "${1:-}" = hf ]; then
  shift
  gamerec=$(realpath "${1:-$repo/target/dist/gamerec}")
  python=${2:-$repo/.venv/bin/python}
  work=${TMPDIR:-/tmp}/gamerec-bench
  mkdir -p "$work"
  [ -f "$work/human16.pgn" ] || for _ in $(seq 16); do cat "$corpus/lichess_db_1000k.pgn" "$corpus/twic1599_1000k.pgn"; done > "$work/human16.pgn"
  export OPENBLAS_NUM_THREADS=1
  # The HF files: the tags typed as the dataset types them (Elo int16,
  # UTCDate date32, UTCTime time32[s]), the movetext as lichess writes it.
  "$python" - "$work" <<'PY'
import datetime, os, re, sys
import pyarrow as pa, pyarrow.parquet as pq
work = sys.argv[1]
text = open(os.path.join(work, "human16.pgn"), encoding="utf-8", errors="replace").read()
names = ["Event", "Site", "White", "Black", "Result", "WhiteTitle", "BlackTitle", "WhiteElo", "BlackElo",
         "WhiteRatingDiff", "BlackRatingDiff", "UTCDate", "UTCTime", "ECO", "Opening", "Termination", "TimeControl"]
ints = {"WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff"}
columns = {n: [] for n in names + ["movetext"]}
for block in re.split(r"\n+(?=\[Event )", text.strip()):
    head, _, moves = block.partition("\n\n")
    tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$', head, re.M))
    for n in names:
        v = tags.get(n)
        if n in ints:
            v = int(v) if v and re.fullmatch(r"[+-]?\d+", v) and abs(int(v)) < 32768 else None
        elif n == "UTCDate":
            try:
                v = datetime.date(*map(int, v.split("."))) if v else None
            except ValueError:
                v = None
        elif n == "UTCTime":
            try:
                v = datetime.time(*map(int, v.split(":"))) if v else None
            except ValueError:
                v = None
        columns[n].append(v)
    columns["movetext"].append(moves.strip())
types = {n: pa.int16() if n in ints else pa.date32() if n == "UTCDate" else pa.time32("s") if n == "UTCTime"
         else pa.string() for n in columns}
table = pa.table({n: pa.array(v, type=types[n]) for n, v in columns.items()})
for codec in ("none", "snappy", "zstd"):
    pq.write_table(table, os.path.join(work, f"hf-{codec}.parquet"), compression=codec, row_group_size=100_000)
    print(f"hf-{codec}.parquet: {table.num_rows} games, {os.path.getsize(os.path.join(work, f'hf-{codec}.parquet')) / 1e6:.1f} MB")
PY
  moves=$("$gamerec" check "$work/human16.pgn" 2>&1 | grep -o '[0-9,]* moves' | head -1 || true)
  echo "main-line moves of the games: ${moves:-unknown}"
  # Paired runs: A and B alternate (A B A B ...) after one warm-up each,
  # whole processes (start-up and imports included) timed from outside
  # with os.wait4 (wall, user + system CPU, peak RSS); medians, and the
  # median of the pairwise ratios A/B. Two pairings:
  #   convert: A = `gamerec convert hf.parquet -o typed.parquet -t N` (reads,
  #     decodes, writes the whole typed table as Parquet);
  #   to_arrow: A = Python `gamerec.to_arrow(hf.parquet, threads=N)` (the
  #     typed table in memory, nothing written: the like-for-like one);
  #   B = Python reading the `movetext` column with pyarrow and calling
  #     `parse_games(..., num_threads=N, store_comments=True)` (NumPy arrays
  #     in memory, nothing written).
  "$python" - "$gamerec" "$work" "${RUNS:-7}" <<'PY'
import os, statistics, subprocess, sys, time
gamerec, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
python = sys.executable
RPR = """import sys, pyarrow.parquet as pq, rust_pgn_reader_python_binding as r
t = pq.read_table(sys.argv[1], columns=["movetext"])
r.parse_games(t.column("movetext"), num_threads=int(sys.argv[2]), store_comments=True)"""
TO_ARROW = """import sys, gamerec
gamerec.to_arrow(sys.argv[1], threads=int(sys.argv[2]))"""

def run(argv):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed ({status}): {argv}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024

def paired(a, b):
    run(a), run(b)
    ra, rb = [], []
    for _ in range(runs):
        ra.append(run(a))
        rb.append(run(b))
    med = lambda rs, i: statistics.median(r[i] for r in rs)
    ratio = lambda i: statistics.median(x[i] / y[i] for x, y in zip(ra, rb))
    return (f"{med(ra, 0):.3f} / {med(ra, 1):.3f} | {med(rb, 0):.3f} / {med(rb, 1):.3f} | "
            f"{ratio(0):.2f} | {ratio(1):.2f} | {max(r[2] for r in ra):.0f} / {max(r[2] for r in rb):.0f}")

print(f"load average before: {os.getloadavg()[0]:.1f}, {runs} pairs a row")
print("| A | input | threads | A wall / cpu s | B wall / cpu s | A/B wall | A/B cpu | peak MiB A / B |")
print("|---|---|---|---|---|---|---|---|")
for codec in ("none", "snappy", "zstd"):
    hf = os.path.join(work, f"hf-{codec}.parquet")
    for threads in ("1", "2"):
        b = [python, "-c", RPR, hf, threads]
        convert = [gamerec, "convert", hf, "-o", os.path.join(work, "typed.parquet"), "-q", "-t", threads]
        print(f"| convert | {codec} | {threads} | {paired(convert, b)} |", flush=True)
        print(f"| to_arrow | {codec} | {threads} | {paired([python, '-c', TO_ARROW, hf, threads], b)} |",
              flush=True)
print(f"load average after: {os.getloadavg()[0]:.1f}")
PY
  exit 0
fi
gamerec=$(realpath "${1:-$repo/target/dist/gamerec}")
python=${2:-$repo/.venv/bin/python}
work=${TMPDIR:-/tmp}/gamerec-bench
mkdir -p "$work"
# The same 32 MB file as ../shared/bench/pgn-throughput.sh: 16 copies of the lichess and TWIC samples.
[ -f "$work/human16.pgn" ] || for _ in $(seq 16); do cat "$corpus/lichess_db_1000k.pgn" "$corpus/twic1599_1000k.pgn"; done > "$work/human16.pgn"
# About 1 GB: 32 copies of that file.
[ -f "$work/human512.pgn" ] || for _ in $(seq 32); do cat "$work/human16.pgn"; done > "$work/human512.pgn"
# The same file compressed (issue #27: compressed-input throughput).
[ -f "$work/human16.pgn.zst" ] || zstd -q -19 -T0 "$work/human16.pgn" -o "$work/human16.pgn.zst"
[ -f "$work/human16.pgn.gz" ] || gzip -9 -c "$work/human16.pgn" > "$work/human16.pgn.gz"

# numpy's OpenBLAS threads (pyarrow imports numpy) spin on the cores the
# tools time; one BLAS thread for every Python child.
export OPENBLAS_NUM_THREADS=1
"$python" - "$gamerec" "$work" <<'PY'
import os, subprocess, sys, time

gamerec, work = sys.argv[1], sys.argv[2]
python = sys.executable
human = os.path.join(work, "human16.pgn")
big = os.path.join(work, "human512.pgn")
out = os.path.join(work, "out.parquet")

def run(argv):
    """Wall seconds and peak RSS (MB) of a child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    text = proc.stdout.read().decode()
    if status != 0:
        raise SystemExit(f"failed: {argv}")
    return wall, usage.ru_maxrss / 1024, text

def best(argv, n=3):
    results = [run(argv) for _ in range(n)]
    return min(r[0] for r in results), max(r[1] for r in results), results[0][2]

def py(code, *args, n=3):
    """Best inner time (seconds, printed by the snippet) of a Python child."""
    times, rss = [], 0.0
    for _ in range(n):
        _, peak, text = run([python, "-c", code, *args])
        times.append(float(text.split()[-1]))
        rss = max(rss, peak)
    return min(times), rss

moves = int(subprocess.run([python, "-c",
    "import sys, gamerec, pyarrow.compute as pc; t = gamerec.to_arrow(sys.argv[1], threads=2);"
    "print(pc.sum(t.column('ply_count')).as_py())", human], capture_output=True, check=True).stdout)

TO_ARROW = """
import sys, time, gamerec
s = time.perf_counter()
t = gamerec.to_arrow(sys.argv[1], threads=int(sys.argv[2]), table=sys.argv[3] if len(sys.argv) > 3 else "games")
e = time.perf_counter()
print(t.num_rows, e - s)
"""
# python-chess: headers and main-line moves (UCI and SAN) of every game, as the games table holds.
PYCHESS = """
import sys, time, chess.pgn
s = time.perf_counter(); n = 0
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    while (g := chess.pgn.read_game(f)) is not None:
        b = g.board(); h = dict(g.headers); uci = []; san = []
        for node in g.mainline():
            san.append(b.san(node.move)); uci.append(node.move.uci()); b.push(node.move); node.clock(); node.eval()
        n += len(uci)
print(n, time.perf_counter() - s)
"""
# rust-pgn-reader-python-binding: it parses a pyarrow array of one PGN string per game;
# the file is cut into games with one regex split (timed separately).
RPR = """
import re, sys, time, pyarrow as pa, rust_pgn_reader_python_binding as r
s = time.perf_counter()
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
games = [g for g in re.split(r"\\n+(?=\\[Event )", text) if g.strip()]
arr = pa.chunked_array([pa.array(games)])
m = time.perf_counter()
parsed = r.parse_games(arr, num_threads=int(sys.argv[2]), store_comments=True)
e = time.perf_counter()
print(m - s, e - m, e - s)
"""
rows = []
for threads in (1, 2):
    wall, rss, _ = best([gamerec, "convert", human, "-o", out, "-q", "-t", str(threads)])
    rows.append((f"gamerec convert -o .parquet, {threads} thread(s)", wall, rss))
for threads in (1, 2):
    t, rss = py(TO_ARROW, human, str(threads))
    rows.append((f"gamerec.to_arrow, {threads} thread(s)", t, rss))
# The positions table: one row per ply with the FEN before the move.
for threads in (1, 2):
    wall, rss, _ = best([gamerec, "positions", human, "-o", out, "-q", "-t", str(threads)])
    rows.append((f"gamerec positions -o .parquet, {threads} thread(s)", wall, rss))
for threads in (1, 2):
    t, rss = py(TO_ARROW, human, str(threads), "positions")
    rows.append((f"gamerec.to_arrow(table='positions'), {threads} thread(s)", t, rss))
# Both table verbs on the compressed copies (decompressed on a thread of
# their own ahead of the parser); MB/s are of the decompressed PGN.
for ext in ("zst", "gz"):
    packed = f"{human}.{ext}"
    for verb in ("convert", "positions"):
        for threads in (1, 2):
            wall, rss, _ = best([gamerec, verb, packed, "-o", out, "-q", "-t", str(threads)])
            rows.append((f"gamerec {verb} human16.pgn.{ext} -o .parquet, {threads} thread(s)", wall, rss))
for threads in (1, 2):
    times = [run([python, "-c", RPR, human, str(threads)]) for _ in range(3)]
    split = min(float(x[2].split()[0]) for x in times)
    parse = min(float(x[2].split()[1]) for x in times)
    rss = max(x[1] for x in times)
    rows.append((f"rust-pgn-reader-python-binding parse_games, {threads} thread(s)", parse, rss))
    rows.append((f"  the same with the file split into games in Python", split + parse, rss))
# python-chess on the 2 MB sample (a 32 MB run takes minutes), scaled to moves/s.
small = os.path.join(work, "small.pgn")
sample_bytes = os.path.getsize(human) // 16
with open(human, "rb") as src, open(small, "wb") as dst:
    dst.write(src.read(sample_bytes))
    # finish the game the cut fell in
    rest = src.read(200_000)
    end = rest.find(b"\n\n[Event ")
    dst.write(rest[: end + 1] if end >= 0 else rest)
_, _, text = run([python, "-c", PYCHESS, small])
small_moves, small_time = int(text.split()[0]), float(text.split()[1])
pychess_rate = small_moves / small_time

print(f"## PGN to Arrow/Parquet, {os.path.getsize(human) / 1e6:.1f} MB ({moves:,} main-line moves)")
mb = os.path.getsize(human) / 1e6
print("| tool | seconds | moves/s | PGN MB/s | x python-chess | peak RSS MB |")
print("|---|---|---|---|---|---|")
print(f"| python-chess 1.11 (on 1/16 of the file) | {moves / pychess_rate:.2f} (scaled) | {pychess_rate:,.0f} | | 1.0x | |")
for name, t, rss in rows:
    print(f"| {name} | {t:.3f} | {moves / t:,.0f} | {mb / t:.0f} | {moves / t / pychess_rate:.0f}x | {rss:.0f} |")

wall, rss, _ = run([gamerec, "convert", big, "-o", out, "-q", "-t", "2"])
print()
print(f"Peak memory, `gamerec convert` of {os.path.getsize(big) / 1e9:.2f} GB to Parquet on 2 threads: "
      f"{rss:.0f} MB ({wall:.1f} s)")
STREAM = """
import sys, time, pyarrow as pa, gamerec
s = time.perf_counter(); n = 0
for b in pa.RecordBatchReader.from_stream(gamerec.arrow_stream(sys.argv[1], threads=2)):
    n += b.num_rows
print(n, time.perf_counter() - s)
"""
wall, rss, _ = run([python, "-c", STREAM, big])
print(f"Peak memory, `gamerec.arrow_stream` batch by batch over the same file: {rss:.0f} MB ({wall:.1f} s)")
PY
