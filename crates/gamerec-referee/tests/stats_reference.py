"""Reference values for crates/gamerec-referee/src/stats.rs, written from
the published formulas (M. Van den Bergh, "Comments on Normalized Elo":
the maximum-likelihood distributions of proposition 1.1 and section 4.1
for the generalized SPRT), independently of the Rust code.

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


def theta_root(obs, phi):
    """Root of sum(o*f/(1+x*f)) on (-1/max f, -1/min f), by bisection."""
    lo, hi = -1 / max(phi), -1 / min(phi)
    for _ in range(2000):
        mid = (lo + hi) / 2
        if mid <= lo or mid >= hi:
            break
        if sum(o * f / (1 + mid * f) for o, f in zip(obs, phi)) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mle_logistic(scores, obs, s):
    """Van den Bergh, Comments on Normalized Elo, proposition 1.1."""
    phi = [a - s for a in scores]
    th = theta_root(obs, phi)
    return [o / (1 + th * f) for o, f in zip(obs, phi)]


def mle_normalized(scores, obs, t):
    """Same paper, section 4.1: fixed point from the uniform distribution."""
    p = [1 / len(scores)] * len(scores)
    for _ in range(10000):
        mu = sum(a * q for a, q in zip(scores, p))
        sigma = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(scores, p)))
        phi = [a - 0.5 - t * sigma * (1 + ((a - mu) / sigma) ** 2) / 2 for a in scores]
        th = theta_root(obs, phi)
        new = [o / (1 + th * f) for o, f in zip(obs, phi)]
        change = max(abs(x - y) for x, y in zip(new, p))
        p = new
        if change < 1e-14:
            break
    return p


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
    n = sum(reg)
    obs = [c / n for c in reg]
    for model, e0, e1, a, b in SPRTS:
        if model == "logistic":
            p0, p1 = (mle_logistic(scores, obs, 1 / (1 + 10 ** (-e / 400))) for e in (e0, e1))
        else:
            p0, p1 = (mle_normalized(scores, obs, k * e / NELO) for e in (e0, e1))
        llr = n * sum(o * (math.log(y) - math.log(x)) for o, x, y in zip(obs, p0, p1))
        out[f"llr:{model}:{e0}:{e1}:{a}:{b}"] = llr
    return out


def line(kind, counts, vals):
    return " ".join([kind, *map(str, counts), *(f"{k}={v!r}" for k, v in vals.items())])


for w, d, l in TRI:
    print(line("tri", (w, d, l), values([0, 0.5, 1], [l, d, w], 1.0)))
for p in PENTA:
    print(line("penta", p, values([0, 0.25, 0.5, 0.75, 1], list(p), math.sqrt(2))))
