#!/usr/bin/env python3
"""A UCI proxy that stamps moves, to measure a match runner's between-move
latency the same way whatever the runner (bench/match-vs-fastchess.sh).

As an engine: runs $UCI_STAMP_ENGINE and passes lines both ways; appends to
$UCI_STAMP_DIR/<pid>.log a line `out NS KEY` when the engine's `bestmove`
is read (KEY: the position searched plus the move) and `in NS KEY` when a
`go` arrives (KEY: the position to search). NS is CLOCK_MONOTONIC, shared
by every process on the machine.

As a report: `uci-stamp.py --report DIR` joins the logs: each `go` with the
latest `bestmove` whose position-plus-move is the position of that `go`,
and prints `p50_ms p99_ms max_ms count` of the gaps: the time from one
engine's answer to the opponent's next search, relay included (the proxy's
own hops are in it for every runner alike).
"""
import os
import subprocess
import sys
import threading
import time


def key_of(position_line):
    words = position_line.split()[1:]
    if "moves" not in words:
        words.append("moves")
    return " ".join(words)


def proxy():
    engine = os.environ["UCI_STAMP_ENGINE"]
    log = open(os.path.join(os.environ["UCI_STAMP_DIR"], f"{os.getpid()}.log"), "a", buffering=1)
    child = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    state = {"key": "startpos moves"}
    lock = threading.Lock()

    def pump_out():
        for raw in child.stdout:
            now = time.monotonic_ns()
            line = raw.decode("utf-8", "replace")
            if line.startswith("bestmove"):
                words = line.split()
                if len(words) > 1:
                    with lock:
                        log.write(f"out {now} {state['key']} {words[1]}\n")
            sys.stdout.write(line)
            sys.stdout.flush()
        os._exit(0)

    threading.Thread(target=pump_out, daemon=True).start()
    for line in sys.stdin:
        now = time.monotonic_ns()
        if line.startswith("position"):
            state["key"] = key_of(line)
        elif line.startswith("go"):
            with lock:
                log.write(f"in {now} {state['key']}\n")
        try:
            child.stdin.write(line.encode())
            child.stdin.flush()
        except BrokenPipeError:
            break
        if line.strip() == "quit":
            break
    try:
        child.wait(timeout=2)
    except subprocess.TimeoutExpired:
        child.kill()


def report(directory):
    outs = {}
    ins = []
    for name in os.listdir(directory):
        with open(os.path.join(directory, name)) as f:
            for line in f:
                kind, ns, key = line.rstrip("\n").split(" ", 2)
                if kind == "out":
                    outs.setdefault(key, []).append(int(ns))
                else:
                    ins.append((int(ns), key))
    gaps = []
    for ns, key in ins:
        before = [t for t in outs.get(key, ()) if t <= ns]
        if before:
            gaps.append((ns - max(before)) / 1e6)
    if not gaps:
        print("n/a n/a n/a 0")
        return
    gaps.sort()

    def at(q):
        return gaps[min(len(gaps) - 1, max(0, int(q * len(gaps)) - 1))]

    print(f"{at(0.50):.2f} {at(0.99):.2f} {gaps[-1]:.2f} {len(gaps)}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--report":
        report(sys.argv[2])
    else:
        proxy()
