#!/usr/bin/env bash
# PGN checking on compressed input: `gamerec check` on the same human games
# plain, gzip (one member and many), zstd (one frame and many) and bzip2,
# beside the decoder alone (`gzip -dc`, `zstd -dc`, `bzip2 -dc` into
# /dev/null): with decoding on its own thread the check should take about
# as long as the slower of the decoder and the plain-file check.
# Usage: bench/compressed-throughput.sh [path/to/gamerec] [RUNS]
#   (default target/dist/gamerec, 5 runs; best wall time of the runs)
# Needs: gzip, zstd, bzip2; the corpus at $GAMEREC_SHARED/corpus (default
# ../shared beside the repository).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=${GAMEREC_SHARED:-$repo/../shared}/corpus/pgn
gamerec=$(realpath "${1:-$repo/target/dist/gamerec}")
runs=${2:-5}
work=${TMPDIR:-/tmp}/gamerec-bench
mkdir -p "$work"
human=$work/human16.pgn
[ -f "$human" ] || for _ in $(seq 16); do cat "$corpus/lichess_db_1000k.pgn" "$corpus/twic1599_1000k.pgn"; done > "$human"
[ -f "$human.gz" ] || gzip -6 -c "$human" > "$human.gz"
[ -f "$human.zst" ] || zstd -q -3 -c "$human" > "$human.zst"
[ -f "$human.bz2" ] || bzip2 -9 -c "$human" > "$human.bz2"
# Many members / frames: the 1 MB pieces compressed one by one, joined.
if [ ! -f "$work/human16-members.pgn.gz" ]; then
  split -b 1000000 -d -a 3 "$human" "$work/piece."
  for p in "$work"/piece.*; do gzip -6 -c "$p"; done > "$work/human16-members.pgn.gz"
  for p in "$work"/piece.*; do zstd -q -3 -c "$p"; done > "$work/human16-frames.pgn.zst"
  rm -f "$work"/piece.*
fi
bytes=$(wc -c < "$human")

best() { local b=""; for _ in $(seq "$runs"); do
  local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
  b=$(python3 -c "t=$e-$s; b='$b'; print(t if not b else min(t, float(b)))"); done; echo "$b"; }
row() { local name=$1; shift; local t; t=$(best "$@")
  python3 -c "print(f'| $name | {$t:.3f} | {$bytes / $t / 1e6:.0f} |')"; }

echo "| command (human16.pgn, $bytes bytes decompressed) | best of $runs, s | MB/s (decompressed) |"
echo "|---|---|---|"
row "check -t 1 (plain)" "$gamerec" check -t 1 "$human"
row "check (plain, 2 threads)" "$gamerec" check "$human"
for f in "$human.gz" "$work/human16-members.pgn.gz" "$human.zst" "$work/human16-frames.pgn.zst" "$human.bz2"; do
  case $f in *.gz) dec="gzip -dc";; *.zst) dec="zstd -dcq";; *.bz2) dec="bzip2 -dc";; esac
  name=$(basename "$f")
  row "$dec $name > /dev/null" sh -c "exec $dec '$f' > /dev/null"
  row "check -t 1 $name" "$gamerec" check -t 1 "$f"
  row "check $name (2 threads)" "$gamerec" check "$f"
done
