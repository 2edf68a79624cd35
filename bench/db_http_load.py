#!/usr/bin/env python3
"""Load for `gamerec serve` (bench/db.sh): C client threads, each with one
keep-alive connection, send R requests in all, cycling through explorer
queries (opening lines, with and without filters). Prints requests,
failures, queries per second, p50 and p99 latency in ms. Standard library
only."""

import http.client
import sys
import threading
import time

host, port = sys.argv[1].rsplit(":", 1)
conc, total = int(sys.argv[2]), int(sys.argv[3])
lines = ["", "e2e4", "e2e4,c7c5", "d2d4", "d2d4,g8f6", "e2e4,e7e5,g1f3", "c2c4", "g1f3",
         "e2e4,c7c5,g1f3,d7d6", "e2e4,e7e6", "d2d4,d7d5,c2c4"]
filters = ["", "&speeds=blitz,rapid", "&ratings=2000,2200,2500", "&since=2015-01"]
queries = [f"/lichess?play={l}{f}" for l in lines for f in filters]
lat = []
fail = [0]
lock = threading.Lock()
counter = [0]


def worker():
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    mine = []
    while True:
        with lock:
            i = counter[0]
            counter[0] += 1
        if i >= total:
            break
        q = queries[i % len(queries)]
        t = time.perf_counter()
        try:
            conn.request("GET", q)
            r = conn.getresponse()
            r.read()
            ok = r.status == 200
        except Exception:
            ok = False
            conn.close()
            conn = http.client.HTTPConnection(host, int(port), timeout=60)
        mine.append((time.perf_counter() - t) * 1000)
        if not ok:
            with lock:
                fail[0] += 1
    with lock:
        lat.extend(mine)


t0 = time.perf_counter()
ts = [threading.Thread(target=worker) for _ in range(conc)]
for t in ts:
    t.start()
for t in ts:
    t.join()
wall = time.perf_counter() - t0
lat.sort()
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
print(f"{len(lat)} requests, {fail[0]} failed, {conc} connections: {len(lat) / wall:.0f} q/s, "
      f"p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms")
