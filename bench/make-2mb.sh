#!/usr/bin/env bash
# The fixed 2 MB PGN file that instruction counts (callgrind) of `check -t1`
# are taken on: the lichess and TWIC 1 MB samples of the corpus, one after
# the other (1,999,138 bytes of human games, no FEN starts).
# Usage: bench/make-2mb.sh [OUT]   (default: ${TMPDIR:-/tmp}/gamerec-bench/2mb.pgn)
#   (the corpus: $GAMEREC_SHARED/corpus, default ../shared beside the repository)
# Then: valgrind --tool=callgrind --callgrind-out-file=cg.out \
#         target/quick-release/gamerec check -t 1 OUT
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=${GAMEREC_SHARED:-$repo/../shared}/corpus/pgn
out=${1:-${TMPDIR:-/tmp}/gamerec-bench/2mb.pgn}
mkdir -p "$(dirname "$out")"
cat "$corpus/lichess_db_1000k.pgn" "$corpus/twic1599_1000k.pgn" > "$out"
echo "$out: $(wc -c < "$out") bytes"
