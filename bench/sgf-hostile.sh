#!/usr/bin/env bash
# Hostile SGF trees for the rule check (BENCHMARKS.md, "Hostile SGF trees"):
# writes them to a temporary directory and prints the time and peak memory
# of `gamerec check` on each.
# Usage: bench/sgf-hostile.sh [path/to/gamerec]
set -euo pipefail
gamerec=${1:-target/release/gamerec}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
def write(name, text):
    open(f"{d}/{name}.sgf", "w").write(text)
write("siblings-200000", "(;FF[4]GM[1]SZ[19]" + "(;B[aa])" * 200_000 + ")")
for k in (5_000, 20_000):
    s = "".join(f"(;{'BW'[i % 2]}[tt]" for i in range(k))
    s += "".join(f")(;{'BW'[i % 2]}[ab])" for i in reversed(range(k)))
    write(f"superko-branching-{k}", "(;FF[4]GM[1]SZ[19]RU[Chinese]" + s + ")")
write("broken-line-80000", "(;FF[4]GM[1]SZ[19]" + ";B[aa];W[bb]" * 80_000 + ")")
write("setup-again-100000", "(;FF[4]GM[1]SZ[19]" + ";AB[aa:ss]" * 100_000 + ")")
write("setup-empty-52x52-100000", "(;FF[4]GM[1]SZ[52]" + ";AE[aa:ZZ]" * 100_000 + ")")
write("broken-nesting-80000", "(;FF[4]GM[1]SZ[19]" + "(;B[aa]" * 80_000 + ")" * 80_000 + ")")
PY
for f in "$dir"/*.sgf; do
    /usr/bin/time -f "$(basename "$f"): check %e s, %M KB peak" "$gamerec" check "$f" >/dev/null 2>"$dir/err" || true
    tail -1 "$dir/err"
    /usr/bin/time -f "$(basename "$f"): Go games table %e s, %M KB peak" "$gamerec" convert "$f" -o "$dir/t.parquet" >/dev/null 2>"$dir/err" || true
    tail -1 "$dir/err"
done
