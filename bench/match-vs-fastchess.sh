#!/bin/bash
# gamerec match against fastchess on the same stockfish pairing (issue #23):
# 1+0.01 and 2+0.02, concurrency 2, run alternately (gamerec, fastchess,
# gamerec, ...), and print one Markdown table row per run for BENCHMARKS.md:
# time forfeits, between-move latency p50/p99/max and wall time.
#
# The latency is measured the same way for both runners: every stockfish
# runs behind bench/referee/uci-stamp.py, which stamps each `bestmove` read
# from the engine and each `go` written to it; a move's latency is the time
# from one engine's `bestmove` to the opponent's next `go` for the position
# after that move (the runner's relay; the proxy's own hops are in it for
# both runners alike). gamerec's own relay figures (report.json `relay`,
# p99) are printed in the last column.
#
# fastchess is taken from FASTCHESS=path only; nothing in this repository
# builds it. Without FASTCHESS the fastchess runs are skipped (and said so).
#
# usage: FASTCHESS=/path/to/fastchess bench/match-vs-fastchess.sh [GAMES] [ROUNDS]
#        (GAMEREC=path/to/gamerec, STOCKFISH=path/to/stockfish, PYTHON=python3)
set -euo pipefail
games=${1:-20}
rounds=${2:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${GAMEREC:-$here/target/quick-release/gamerec}
sf=${STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
python=${PYTHON:-python3}
stamp="$here/bench/referee/uci-stamp.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$bin" ] || { echo "no gamerec at $bin (cargo build --profile quick-release -p gamerec-cli)" >&2; exit 2; }
[ -x "$sf" ] || { echo "no stockfish (apt-get install stockfish)" >&2; exit 2; }
if [ -z "${FASTCHESS:-}" ]; then
  echo "FASTCHESS is not set: fastchess runs skipped" >&2
fi
# The proxy as one executable (both runners start engines by path).
engine="$work/sf-stamped"
printf '#!/bin/sh\nexec %s %s\n' "$python" "$stamp" > "$engine"
chmod +x "$engine"
export UCI_STAMP_ENGINE="$sf"

forfeits() { # PGN -> number of games lost on time
  grep -ci '^\[Termination "time forfeit"\]' "$1" || true
}

echo "| runner | tc | games | time forfeits | between-move p50 ms | p99 ms | max ms | wall s | own relay p99 ms |"
echo "|---|---|---|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  for tc in 1+0.01 2+0.02; do
    dir="$work/g-$tc-$round"
    export UCI_STAMP_DIR="$dir.stamps"
    mkdir -p "$UCI_STAMP_DIR"
    start=$(date +%s.%N)
    "$bin" match "uci:$engine" "uci:$engine" --names sf-a,sf-b --tc "$tc" --games "$games" \
      --concurrency 2 -q --dir "$dir" --out "$dir.pgn" 2>"$dir.err" || true
    end=$(date +%s.%N)
    read -r p50 p99 max n < <("$python" "$stamp" --report "$UCI_STAMP_DIR")
    own=$("$python" -c 'import json,sys; r=json.load(open(sys.argv[1])).get("relay"); print("%.2f" % r["p99_ms"] if r else "n/a")' "$dir/report.json" 2>/dev/null || echo n/a)
    played=$(grep -c '^\[Result "' "$dir.pgn" || true)
    printf '| gamerec | %s | %s | %s | %s | %s | %s | %.1f | %s |\n' "$tc" "$played" "$(forfeits "$dir.pgn")" \
      "$p50" "$p99" "$max" "$(echo "$end - $start" | bc)" "$own"
    if [ -n "${FASTCHESS:-}" ]; then
      out="$work/f-$tc-$round"
      export UCI_STAMP_DIR="$out.stamps"
      mkdir -p "$UCI_STAMP_DIR"
      start=$(date +%s.%N)
      # fastchess writes its config.json in the current directory: the work one.
      (cd "$work" && "$FASTCHESS" -engine cmd="$engine" name=sf-a -engine cmd="$engine" name=sf-b \
        -each tc="$tc" proto=uci -rounds $((games / 2)) -games 2 -repeat \
        -concurrency 2 -pgnout file="$out.pgn" > "$out.log" 2>&1) || true
      end=$(date +%s.%N)
      read -r p50 p99 max n < <("$python" "$stamp" --report "$UCI_STAMP_DIR")
      played=$(grep -c '^\[Result "' "$out.pgn" || true)
      printf '| fastchess | %s | %s | %s | %s | %s | %s | %.1f | n/a |\n' "$tc" "$played" "$(forfeits "$out.pgn")" \
        "$p50" "$p99" "$max" "$(echo "$end - $start" | bc)"
    fi
  done
done
