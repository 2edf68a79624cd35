#!/usr/bin/env bash
# Instruction count (callgrind, repeatable on a loaded machine) of
# `gamerec check -t 1` on the fixed 2 MB PGN file of bench/make-2mb.sh, with
# the self costs of the reader, the checker and the SAN resolver.
# Usage: bench/pgn-callgrind.sh [path/to/gamerec]   (default: target/quick-release/gamerec)
#   (the corpus: $GAMEREC_SHARED/corpus, default ../shared beside the repository)
# Needs: valgrind.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
gamerec=${1:-$repo/target/quick-release/gamerec}
work=${TMPDIR:-/tmp}/gamerec-bench
mkdir -p "$work"
[ -f "$work/2mb.pgn" ] || bash "$repo/bench/make-2mb.sh" "$work/2mb.pgn" >/dev/null
out=$work/cg.$$.out
valgrind --tool=callgrind --callgrind-out-file="$out" "$gamerec" check -t 1 "$work/2mb.pgn" 2>&1 |
  grep -E 'refs' | sed 's/^==[0-9]*== //'
moves=130025
total=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
echo "per move: $((total / moves))"
callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
  grep -E 'read_game|Checker as .*Visitor>::san \[|resolve_inner|play\b|FastPos::play|play_unchecked' | head -12
rm -f "$out"
