#!/bin/bash
# Referee overhead per move with real engine processes: `gamerec match`
# between two instant-reply UCI engines (bash scripts that play a fixed
# 28-ply line at once, then resign), over loopback TCP and the engine
# pipes, as fastchess and cutechess-cli measure theirs.
#
# Prints the wall time per move of the whole match (engine start-up,
# sign-on, reset, inform, conclude included: an upper bound), the same less
# the quiet times `match` keeps after each reset and conclude (2 x 50 ms a
# game, EPD 8.1.1/8.1.6), the share of moves whose [%emt] (respond out to
# reply in: bridge, engine pipes and the engine, as the referee charges it)
# is under 1 ms, and the median referee latency it recorded per move (reply
# in to next respond out).
#
# usage: bench/referee/overhead.sh [GAMES]   (GAMEREC=path/to/gamerec)
set -euo pipefail
games=${1:-20}
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${GAMEREC:-$here/target/quick-release/gamerec}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/instant.sh" <<'ENGINE'
#!/bin/bash
line=(c2c4 g7g6 d2d3 f7f5 e2e3 e7e6 d1h5 g8f6 e1d2 f6g8 b1a3 f8b4 d2c2 a7a5
      e3e4 e8e7 e4e5 g8h6 a3b1 d8f8 h5d1 c7c6 g1e2 a5a4 c1d2 a8a5 d2e3 a5e5)
n=0
while read -r cmd rest; do
  case "$cmd" in
    uci) echo "id name instant"; echo "uciok" ;;
    isready) echo "readyok" ;;
    position) if [[ "$rest" == *" moves "* ]]; then set -- ${rest#* moves }; n=$#; else n=0; fi ;;
    go) if (( n < ${#line[@]} )); then echo "bestmove ${line[n]}"; else echo "bestmove 0000"; fi ;;
    quit) exit 0 ;;
  esac
done
ENGINE
chmod +x "$work/instant.sh"
cp "$work/instant.sh" "$work/instant2.sh"
start=$(date +%s.%N)
"$bin" match "uci:$work/instant.sh" "uci:$work/instant2.sh" --games "$games" \
  --tc 60+1 --dir "$work/event" -o "$work/games.pgn" 2>/dev/null
end=$(date +%s.%N)
python3 - "$work" "$start" "$end" "$games" <<'PY'
import json, glob, re, statistics, sys
work, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
games = int(sys.argv[4])
moves, lat = 0, []
for f in glob.glob(work + "/event/state/*.json"):
    g = json.load(open(f))
    moves += len(g["moves"])
    lat += [m["latency_us"] for m in g["moves"] if "latency_us" in m]
pgn = open(work + "/games.pgn").read()
emt = []
for h, m, s in re.findall(r"\[%emt (\d+):(\d+):([\d.]+)\]", pgn):
    emt.append((int(h) * 3600 + int(m) * 60 + float(s)) * 1000)
wall = (end - start) * 1000
print(f"{moves} moves; wall per move {wall / moves:.3f} ms; "
      f"without quiet times {(wall - games * 100) / moves:.3f} ms; "
      f"[%emt] under 1 ms {sum(e < 1 for e in emt) / len(emt):.0%}; "
      f"median referee latency {statistics.median(lat) / 1000:.3f} ms")
PY
