#!/usr/bin/env bash
# Checks the referee's live spectator page in headless Chromium: runs a small
# event of built-in engines on 127.0.0.1 with --http, loads the page while the
# games are in progress, and writes a screenshot.
#
#   scripts/spectator-screenshot.sh [OUT.png]     (default: spectator.png)
#
# Needs `chromium` (Debian package) and a built `gamerec` (cargo build).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-spectator.png}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
bin="${GAMEREC:-target/debug/gamerec}"
[ -x "$bin" ] || cargo build -q -p gamerec-cli
dir="$(mktemp -d)"
trap 'kill "$ref" 2>/dev/null || true; rm -rf "$dir"' EXIT
port=$((20000 + RANDOM % 20000)); http=$((port + 1))
cat > "$dir/EVENT.toml" <<TOML
event = "Spectator check"
site = "127.0.0.1"
time_control = "40/600"
pairing = "round-robin"
rounds = 1
concurrency = 2
reset_delay = 0.1
conclude_delay = 0.1
[[player]]
name = "alpha"
engine = "builtin:4"
[[player]]
name = "beta"
engine = "builtin:3"
[[player]]
name = "gamma"
engine = "builtin:4"
[[player]]
name = "delta"
engine = "builtin:3"
TOML
"$bin" referee serve --event "$dir/EVENT.toml" --listen "127.0.0.1:$port" \
  --http "127.0.0.1:$http" </dev/null >"$dir/out.txt" 2>&1 &
ref=$!
for _ in $(seq 50); do
  curl -fsS "http://127.0.0.1:$http/state" 2>/dev/null | grep -q '"moves":\["' && break
  sleep 0.2
done
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run \
  --user-data-dir="$(mktemp -d)" --window-size=1300,900 --virtual-time-budget=3000 \
  --screenshot="$out" "http://127.0.0.1:$http/" >/dev/null 2>&1
test -s "$out"
echo "wrote $out"
