#!/usr/bin/env bash
# Benchmark of the game-database verbs (issue #16), results in BENCHMARKS.md.
#
#   bash bench/db.sh [GAMES] [BIN]
#
# DB and IDX name the files (default /tmp/db1m.pgn, /tmp/db1m.idx);
# SKIP_FRAMES=1 leaves out the .pgn.zst of 1 MB frames (its index, find);
# SKIP_BUILD=1 reuses the index; SKIP_HTTP=1 leaves out the server load
# (CONC clients, REQUESTS requests); THREADS (default "1 2") lists the
# thread counts of the index builds; filter throughput is measured on the
# first FILTER_GAMES games (default 100,000) of the database.
# Builds /tmp/db1m.pgn (GAMES games, default 1,000,000, drawn with a fixed
# seed from the corpus by bench/db_make.py) and its .zst, then measures:
# index build (time, size vs the .pgn.zst), find --fen cold (index pages
# evicted with posix_fadvise) and warm, --tree, and filter throughput on 1
# and 2 threads against pgn-extract on the same criteria. Medians of 3.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
BIN=${2:-target/dist/gamerec}
CORPUS=${GAMEREC_SHARED:-../shared}/corpus
PE=${PGN_EXTRACT:-/usr/games/pgn-extract}
DB=${DB:-/tmp/db1m.pgn}
IDX=${IDX:-/tmp/db1m.idx}
if [ ! -s "$DB" ]; then
  python3 bench/db_make.py "$CORPUS" "$DB" "$N"
fi
[ -s "$DB.zst" ] || zstd -q -3 -T2 -f "$DB" -o "$DB.zst"
echo "database: $(grep -c '^\[Event ' "$DB") games, $(stat -c %s "$DB") bytes, .pgn.zst $(stat -c %s "$DB.zst") bytes"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Wall time of a command in ms.
ms() { local s e; s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
evict() { python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$1"; }

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  for j in ${THREADS:-1 2}; do
    # From the plain file: the index records the identity of the file it
    # read, and find checks the one it is given.
    t=$(ms "$BIN" index "$DB" -o "$IDX" -j $j)
    echo "index build from the .pgn, $j thread(s): $t ms"
  done
fi
echo "index $(stat -c %s "$IDX") bytes ($(python3 -c "print(round($(stat -c %s "$IDX")/$(stat -c %s "$DB.zst"),2))")x the .pgn.zst)"
ln -sf "$IDX" "$DB.idx"

# SKIP_FIND=1 leaves out find --fen/--tree/--material below.
START='rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
SICILIAN='rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2'
NAJDORF='rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6'
RARE=$("$BIN" filter --tag 'PlyCount>=120' -j 2 "$CORPUS/pgn/twic1599_1000k.pgn" --notation san 2>/dev/null | ${PYTHON:-python3} -c "
import sys,chess.pgn
g=chess.pgn.read_game(sys.stdin); b=g.board()
for i,m in enumerate(g.mainline_moves()):
    b.push(m)
    if i==59: break
print(b.fen())" 2>/dev/null || echo '8/8/8/4k3/8/8/8/K6Q w - - 0 1')
if [ "${SKIP_FIND:-0}" != 1 ]; then
for q in "$SICILIAN" "$NAJDORF" "$RARE"; do
  n=$("$BIN" find "$DB" --index "$DB.idx" --fen "$q" --ids | wc -l)
  cold=$(for i in 1 2 3; do evict "$DB.idx"; ms "$BIN" find "$DB" --index "$DB.idx" --fen "$q" --ids; done | median)
  warm=$(for i in 1 2 3; do ms "$BIN" find "$DB" --index "$DB.idx" --fen "$q" --ids; done | median)
  echo "find --fen --ids ($n games) $q: cold $cold ms, warm $warm ms"
done
n=$("$BIN" find "$DB" --index "$DB.idx" --fen "$NAJDORF" | grep -c '^\[MatchPly')
warm=$(for i in 1 2 3; do ms "$BIN" find "$DB" --index "$DB.idx" --fen "$NAJDORF"; done | median)
echo "find --fen (Najdorf, $n games written as PGN): warm $warm ms"
for q in "$START" "$SICILIAN"; do
  cold=$(for i in 1 2 3; do evict "$DB.idx"; ms "$BIN" find "$DB" --index "$DB.idx" --tree "$q"; done | median)
  warm=$(for i in 1 2 3; do ms "$BIN" find "$DB" --index "$DB.idx" --tree "$q"; done | median)
  echo "find --tree $q: cold $cold ms, warm $warm ms"
done
t=$(ms "$BIN" find "$DB" --index "$DB.idx" --material 'KQvKR' --ids)
echo "find --material KQvKR: $t ms ($("$BIN" find "$DB" --index "$DB.idx" --material 'KQvKR' --ids | wc -l) games)"
fi

# filter throughput: the same criteria for gamerec and pgn-extract, on the
# first FILTER_GAMES games (SKIP_FILTER=1 leaves it out).
if [ "${SKIP_FILTER:-0}" != 1 ]; then
SLICE=/tmp/db-slice.pgn
python3 - "$DB" "$SLICE" "${FILTER_GAMES:-100000}" <<'PY'
import sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
seen = 0
with open(src, "rb") as f, open(dst, "wb") as o:
    for line in f:
        if line.startswith(b"[Event "):
            seen += 1
            if seen > n:
                break
        o.write(line)
PY
echo "filter input: ${FILTER_GAMES:-100000} games, $(stat -c %s "$SLICE") bytes"
printf 'Elo >= "2500"\n' > /tmp/db-elo.txt
printf 'FEN "%s"\n' "$SICILIAN" > /tmp/db-fen.txt
for j in 1 2; do
  t=$(ms "$BIN" filter --tag 'Elo>=2500' -j $j "$SLICE")
  echo "filter Elo>=2500, $j thread(s): $t ms"
  t=$(ms "$BIN" filter --fen "$SICILIAN" -j $j "$SLICE")
  echo "filter --fen Sicilian, $j thread(s): $t ms"
done
t=$(ms "$PE" -t/tmp/db-elo.txt --quiet -o /dev/null "$SLICE")
echo "pgn-extract -t 'Elo >= 2500': $t ms"
t=$(ms "$PE" -t/tmp/db-fen.txt --quiet -o /dev/null "$SLICE")
echo "pgn-extract -t FEN Sicilian: $t ms"
fi

# Issue 25. The explorer over HTTP: tree answers (lichess JSON, 11 lines x 4
# filter sets) under a bounded concurrent load of CONC keep-alive clients.
if [ "${SKIP_HTTP:-0}" != 1 ]; then
  "$BIN" serve "$DB" --index "$DB.idx" --listen 127.0.0.1:0 2> /tmp/db-serve.err &
  SERVE=$!
  for i in $(seq 50); do grep -q 'listening' /tmp/db-serve.err && break; sleep 0.2; done
  ADDR=$(grep -o 'http://[^/]*' /tmp/db-serve.err | head -1 | sed 's,http://,,')
  python3 bench/db_http_load.py "$ADDR" 1 ${REQUESTS:-400} | sed 's/^/serve, /'
  python3 bench/db_http_load.py "$ADDR" ${CONC:-8} ${REQUESTS:-400} | sed 's/^/serve, /'
  kill -TERM $SERVE; wait $SERVE || true
fi
# find on a zstd database of 1 MB frames (the index records the frame
# table): each game is read from its frame. Against the plain file.
if [ "${SKIP_FRAMES:-0}" != 1 ]; then
  FZ=${DB%.pgn}.frames.pgn.zst
  FIDX=${IDX%.idx}.frames.idx
  [ -s "$FZ" ] || split -C 1M --filter 'zstd -q -3 -c' "$DB" > "$FZ"
  if [ ! -s "$FIDX" ] || [ "${SKIP_BUILD:-0}" != 1 ]; then
    t=$(ms "$BIN" index "$FZ" -o "$FIDX" -j 2)
    echo "index build from the .pgn.zst of 1 MB frames ($(stat -c %s "$FZ") bytes), 2 threads: $t ms"
  fi
  for q in "$RARE" "$NAJDORF"; do
    n=$("$BIN" find "$DB" --index "$DB.idx" --fen "$q" --ids | wc -l)
    cold=$(for i in 1 2 3; do evict "$FZ"; evict "$FIDX"; ms "$BIN" find "$FZ" --index "$FIDX" --fen "$q"; done | median)
    warm=$(for i in 1 2 3; do ms "$BIN" find "$FZ" --index "$FIDX" --fen "$q"; done | median)
    plain=$(for i in 1 2 3; do ms "$BIN" find "$DB" --index "$DB.idx" --fen "$q"; done | median)
    cmp <("$BIN" find "$FZ" --index "$FIDX" --fen "$q") <("$BIN" find "$DB" --index "$DB.idx" --fen "$q") >/dev/null \
      && same=same || same=DIFFERENT
    echo "find --fen ($n games written as PGN, $same output) $q: frames .zst cold $cold ms, warm $warm ms; plain .pgn warm $plain ms"
  done
  # 146 games from all over the file (the issue's case).
  cold=$(for i in 1 2 3; do evict "$FZ"; evict "$FIDX"; ms "$BIN" find "$FZ" --index "$FIDX" --fen "$NAJDORF" --sort rating --limit 146; done | median)
  warm=$(for i in 1 2 3; do ms "$BIN" find "$FZ" --index "$FIDX" --fen "$NAJDORF" --sort rating --limit 146; done | median)
  echo "find --fen Najdorf --sort rating --limit 146 on the frames .zst: cold $cold ms, warm $warm ms"
fi
# Filtered queries: position + player + date (the index alone).
P=$(grep -m1 '^\[White "' "$DB" | sed 's/^\[White "\(.*\)"\]$/\1/')
t=$(ms "$BIN" find "$DB" --index "$DB.idx" --moves "e4" --player "$P" --since 2000-01 --ids)
echo "find --moves e4 --player '$P' --since 2000-01 --ids: $t ms ($("$BIN" find "$DB" --index "$DB.idx" --moves e4 --player "$P" --since 2000-01 --ids | wc -l) games)"
t=$(ms "$BIN" find "$DB" --index "$DB.idx" --tree --moves "e4 c5" --speeds blitz --ratings 2000,2200 --to json)
echo "find --tree after 1.e4 c5, blitz, 2000-2499, JSON: $t ms"
# Pattern, sub-FEN and material: the index (its boards scanned on 2
# threads) against a full scan (gamerec filter, 2 threads) and pgn-extract,
# on the whole DB; the games found are checked equal to the full scan's.
PAT='*/*/*/*/???PP???/*/*/*'
SUB='8/8/8/8/3K4/8/8/8'
for q in "--pattern $PAT" "--sub-fen $SUB" "--sub-fen 6k1/5ppp/8/8/8/8/5PPP/6K1" "--material KRPvKR" "--material KQvKQ"; do
  set -- $q
  n=$("$BIN" find "$DB" --index "$DB.idx" "$1" "$2" --ids -j 2 | wc -l)
  cold=$(for i in 1 2 3; do evict "$DB.idx"; ms "$BIN" find "$DB" --index "$DB.idx" "$1" "$2" --ids -j 2; done | median)
  warm=$(for i in 1 2 3; do ms "$BIN" find "$DB" --index "$DB.idx" "$1" "$2" --ids -j 2; done | median)
  s0=$(date +%s%N)
  c=$("$BIN" filter "$1" "$2" -j 2 --count "$DB" 2>/dev/null)
  s=$(( ($(date +%s%N) - s0) / 1000000 ))
  echo "find $1 $2 -j 2: cold $cold ms, warm $warm ms ($n games); full scan (filter -j 2): $s ms ($c games)"
done
printf 'FENPattern "%s"\n' "$PAT" > /tmp/db-pat.txt
t=$(ms "$PE" -t/tmp/db-pat.txt --quiet -o /dev/null "$DB")
echo "pgn-extract FENPattern $PAT: $t ms"
printf 'KRP KR\n' > /tmp/db-mat.txt
t=$(ms "$PE" -y/tmp/db-mat.txt --quiet -o /dev/null "$DB")
echo "pgn-extract -y 'KRP KR': $t ms"
