#!/usr/bin/env bash
# The fixed 2 MB PGN files that instruction counts (callgrind) of `check -t1`
# are taken on.
#   human (default): the lichess and TWIC 1 MB samples of the corpus, one
#     after the other (1,999,138 bytes of human games, no FEN starts).
#   tcec: the first games of the corpus's decompressed TCEC file, cut at the
#     last game start before byte 2,000,000 (long engine games, a comment
#     with eval, depth and time after nearly every move).
# Usage: bench/make-2mb.sh [human|tcec] [OUT]
#   (default OUT: ${TMPDIR:-/tmp}/gamerec-bench/2mb.pgn, or 2mb-tcec.pgn)
#   (the corpus: $GAMEREC_SHARED/corpus, default ../shared beside the repository)
# Needs: zstd (tcec).
# Then: valgrind --tool=callgrind --callgrind-out-file=cg.out \
#         target/quick-release/gamerec check -t 1 OUT
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=${GAMEREC_SHARED:-$repo/../shared}/corpus/pgn
kind=human
case "${1:-}" in human | tcec) kind=$1; shift ;; esac
work=${TMPDIR:-/tmp}/gamerec-bench
if [ "$kind" = tcec ]; then out=${1:-$work/2mb-tcec.pgn}; else out=${1:-$work/2mb.pgn}; fi
mkdir -p "$(dirname "$out")"
if [ "$kind" = tcec ]; then
  # 2,000,000 bytes, then back to the last line that opens a game's tags
  # (`[Event ` after a blank line): whole games only.
  zstd -dc "$corpus/tcec-2011-2021.pgn.zst" | head -c 2000000 > "$out.part" || true
  cut=$(grep -b -a '^\[Event ' "$out.part" | tail -1 | cut -d: -f1)
  head -c "$cut" "$out.part" > "$out"
  rm -f "$out.part"
else
  cat "$corpus/lichess_db_1000k.pgn" "$corpus/twic1599_1000k.pgn" > "$out"
fi
echo "$out: $(wc -c < "$out") bytes"
