"""Reference values for crates/gamerec-referee/src/stats.rs, written from
the published formulas (M. Van den Bergh, "Comments on Normalized Elo";
"A practical introduction to the GSPRT"), independently of the Rust code.

Prints one line per case:
    tri W D L key=value ...
    penta LL LD WL+DD WD WW key=value ...
Keys: score, elo, elo_error, nelo, nelo_error, los, and
llr:MODEL:ELO0:ELO1:ALPHA:BETA for the SPRT's log-likelihood ratio.
Run by tests/stats.rs with $GAMEREC_PYTHON (standard library only).
"""
import math
from statistics import NormalDist

Z = NormalDist().inv_cdf(0.975)
NELO = 800 / math.log(10)

TRI = [
    (10, 20, 5), (5, 20, 10), (0, 40, 0), (12, 0, 0), (0, 0, 7),
    (1, 0, 0), (3, 0, 3), (1, 1, 1), (1000, 1500, 900), (0, 5, 1),
    (7, 3, 0), (123, 456, 78),
]
PENTA = [
    (1, 5, 20, 6, 2), (0, 0, 30, 0, 0), (0, 0, 0, 0, 9), (4, 0, 0, 0, 0),
    (0, 1, 0, 0, 0), (2, 0, 0, 0, 2), (10, 40, 200, 50, 12), (0, 3, 10, 3, 0),
    (1, 2, 3, 4, 5), (0, 0, 1, 0, 1),
]
SPRTS = [("logistic", 0, 5, 0.05, 0.05), ("normalized", 0, 5, 0.05, 0.05),
         ("logistic", -3, 1, 0.05, 0.1), ("normalized", 0, 2, 0.1, 0.05)]


def stats(scores, counts):
    n = sum(counts)
    mean = sum(a * c for a, c in zip(scores, counts)) / n
    var = sum(c * (a - mean) ** 2 for a, c in zip(scores, counts)) / n
    return n, mean, var


def elo(s):
    if s >= 1:
        return math.inf
    if s <= 0:
        return -math.inf
    return -400 * math.log10(1 / s - 1)


def values(scores, counts, k):
    n, s, v = stats(scores, counts)
    out = {"score": s, "elo": elo(s)}
    se = math.sqrt(v / n)
    if v == 0:
        out["elo_error"] = 0.0
        out["nelo"] = 0.0 if s == 0.5 else math.copysign(math.inf, s - 0.5)
        out["nelo_error"] = 0.0
        out["los"] = 1.0 if s > 0.5 else (0.0 if s < 0.5 else 0.5)
    else:
        out["elo_error"] = (elo(s + Z * se) - elo(s - Z * se)) / 2
        out["nelo"] = (s - 0.5) / (k * math.sqrt(v)) * NELO
        out["nelo_error"] = Z / (k * math.sqrt(n)) * NELO
        out["los"] = NormalDist().cdf((s - 0.5) / se)
    reg = [c if c else 1e-3 for c in counts]
    n, s, v = stats(scores, reg)
    for model, e0, e1, a, b in SPRTS:
        if model == "logistic":
            s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (e0, e1))
            llr = n * (s1 - s0) * (2 * s - s0 - s1) / (2 * v)
        else:
            t0, t1 = (k * e / NELO for e in (e0, e1))
            t = (s - 0.5) / math.sqrt(v)
            llr = n * (t1 - t0) * (2 * t - t0 - t1) / 2
        out[f"llr:{model}:{e0}:{e1}:{a}:{b}"] = llr
    return out


def line(kind, counts, vals):
    return " ".join([kind, *map(str, counts), *(f"{k}={v!r}" for k, v in vals.items())])


for w, d, l in TRI:
    print(line("tri", (w, d, l), values([0, 0.5, 1], [l, d, w], 1.0)))
for p in PENTA:
    print(line("penta", p, values([0, 0.25, 0.5, 0.75, 1], list(p), math.sqrt(2))))
