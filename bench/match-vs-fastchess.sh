#!/bin/bash
# gamerec match against fastchess on the same stockfish pairing (issue #23):
# 1+0.01 and 2+0.02, concurrency 2, run alternately (gamerec, fastchess,
# gamerec, ...), and print one Markdown table row per run for BENCHMARKS.md:
# time forfeits, between-move latency p50/p99 (gamerec: the referee latency
# it logs per move, reply in to next respond out; fastchess does not log
# one, shown as n/a) and wall time.
#
# fastchess is taken from FASTCHESS=path only; nothing in this repository
# builds it. Without FASTCHESS the fastchess runs are skipped (and said so).
#
# usage: FASTCHESS=/path/to/fastchess bench/match-vs-fastchess.sh [GAMES] [ROUNDS]
#        (GAMEREC=path/to/gamerec, STOCKFISH=path/to/stockfish)
set -euo pipefail
games=${1:-20}
rounds=${2:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${GAMEREC:-$here/target/quick-release/gamerec}
sf=${STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$bin" ] || { echo "no gamerec at $bin (cargo build --profile quick-release -p gamerec-cli)" >&2; exit 2; }
[ -x "$sf" ] || { echo "no stockfish (apt-get install stockfish)" >&2; exit 2; }
if [ -z "${FASTCHESS:-}" ]; then
  echo "FASTCHESS is not set: fastchess runs skipped" >&2
fi

percentiles() { # stdin: one number a line -> "p50 p99"
  sort -n | awk '{v[NR]=$1} END {if (NR==0) {print "n/a n/a"; exit}
    i50=int(NR*0.50); if (i50<1) i50=1; i99=int(NR*0.99); if (i99<1) i99=1;
    printf "%.2f %.2f\n", v[i50], v[i99]}'
}

echo "| runner | tc | games | time forfeits | latency p50 ms | latency p99 ms | wall s |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  for tc in 1+0.01 2+0.02; do
    dir="$work/g-$tc-$round"
    start=$(date +%s.%N)
    "$bin" match "uci:$sf" "uci:$sf" --names sf-a,sf-b --tc "$tc" --games "$games" \
      --concurrency 2 -q --dir "$dir" --out "$dir.pgn" 2>"$dir.err" || true
    end=$(date +%s.%N)
    forfeits=$(grep -c '^\[Termination "time forfeit"\]' "$dir.pgn" || true)
    read -r p50 p99 < <(grep -o 'referee latency [0-9.]* ms' "$dir/log.txt" | awk '{print $3}' | percentiles)
    played=$(grep -c '^\[Result "' "$dir.pgn" || true)
    printf '| gamerec | %s | %s | %s | %s | %s | %.1f |\n' "$tc" "$played" "$forfeits" "$p50" "$p99" "$(echo "$end - $start" | bc)"
    if [ -n "${FASTCHESS:-}" ]; then
      out="$work/f-$tc-$round"
      start=$(date +%s.%N)
      "$FASTCHESS" -engine cmd="$sf" name=sf-a -engine cmd="$sf" name=sf-b \
        -each tc="$tc" proto=uci -rounds $((games / 2)) -games 2 -repeat \
        -concurrency 2 -pgnout file="$out.pgn" > "$out.log" 2>&1 || true
      end=$(date +%s.%N)
      forfeits=$(grep -ci 'loses on time\|time forfeit' "$out.pgn" || true)
      played=$(grep -c '^\[Result "' "$out.pgn" || true)
      printf '| fastchess | %s | %s | %s | n/a | n/a | %.1f |\n' "$tc" "$played" "$forfeits" "$(echo "$end - $start" | bc)"
    fi
  done
done
