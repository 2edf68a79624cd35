#!/bin/sh
# WAC at 1 s per position with the builtin engine and Stockfish, then the
# side-by-side report. Run from the repository root after `cargo build --release`.
set -eu
G=target/release/gamerec
WAC=../shared/corpus/epd/arasan/wac.epd
OUT=bench/engine
$G epd solve --movetime 1s "$WAC" -o $OUT/wac-builtin-1s.epd
$G epd solve --engine uci:/usr/games/stockfish --option Hash=64 --option Threads=1 \
  --movetime 1s "$WAC" -o $OUT/wac-stockfish-1s.epd
$G report $OUT/wac-builtin-1s.epd $OUT/wac-stockfish-1s.epd -o $OUT/wac-1s.html \
  --title "WAC at 1 s per position: builtin vs Stockfish"
# Optional: check the page renders (headless Chromium screenshot).
if command -v chromium >/dev/null; then
  chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run \
    --user-data-dir="$(mktemp -d)" --window-size=900,2400 \
    --screenshot=$OUT/wac-1s.png "file://$PWD/$OUT/wac-1s.html"
fi
