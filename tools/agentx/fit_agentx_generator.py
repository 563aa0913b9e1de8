#!/usr/bin/env python3
"""Offline fits behind the AgentX generator's distributions (sim/workload/agentx_generator.cpp).

Pure Python (no third-party packages). Prints the fitted parameters the generator hard-codes and how
close each fit comes to the published corpus statistics (docs/agentic.md, "Generator").
Run: python3 tools/agentx/fit_agentx_generator.py
"""
import math
import random

Z90, Z99 = 1.2815516, 2.3263479


def ln_cdf(x, mu, s):
    return 0.5 * (1 + math.erf((math.log(x) - mu) / (s * math.sqrt(2))))


def mix_cdf(x, comps):
    return sum(w * ln_cdf(x, mu, s) for w, mu, s in comps)


def mix_quantile(p, comps):
    lo, hi = 1e-6, 1e9
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if mix_cdf(mid, comps) < p:
            lo = mid
        else:
            hi = mid
    return lo


def mix_mean(comps, cap=None):
    if cap is None:
        return sum(w * math.exp(mu + s * s / 2) for w, mu, s in comps)
    # mean of min(X, cap) for each lognormal component
    total = 0.0
    for w, mu, s in comps:
        a = (math.log(cap) - mu) / s
        phi = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))
        total += w * (math.exp(mu + s * s / 2) * phi(a - s) + cap * (1 - phi(a)))
    return total


def lognormal_from_p50_p90(p50, p90):
    return math.log(p50), (math.log(p90) - math.log(p50)) / Z90


def search(loss, x0, steps, iters=4000, seed=1):
    rng = random.Random(seed)
    best, fbest = list(x0), loss(x0)
    scale = 1.0
    for it in range(iters):
        cand = [b + rng.gauss(0, st * scale) for b, st in zip(best, steps)]
        f = loss(cand)
        if f < fbest:
            best, fbest = cand, f
        if it % 500 == 499:
            scale *= 0.6
    return best, fbest


def fit_gaps():
    """Inter-turn gap (s): two lognormals, agent-loop (tool) gaps and human gaps."""
    target = {"p50": 4.9, "p90": 131.5, "p99": 3257.0, "mean": 395.0}
    cap = 604800.0  # a gap is at most a week

    def comps(x):
        w = 1 / (1 + math.exp(-x[0]))
        return [(1 - w, x[1], abs(x[2])), (w, x[3], abs(x[4]))]

    def loss(x):
        c = comps(x)
        got = [mix_quantile(0.5, c), mix_quantile(0.9, c), mix_quantile(0.99, c), mix_mean(c, cap)]
        want = [target["p50"], target["p90"], target["p99"], target["mean"]]
        return sum((math.log(g / w)) ** 2 for g, w in zip(got, want))

    x, f = search(loss, [-1, 1.0, 0.8, 5, 2.0], [0.3, 0.2, 0.1, 0.3, 0.1], 3000, 1)
    c = comps(x)
    print("gaps: w_human=%.4f tool(mu=%.4f s=%.4f) human(mu=%.4f s=%.4f) cap=%g" % (c[1][0], c[0][1], c[0][2], c[1][1], c[1][2], cap))
    print("  p50 %.2f p90 %.1f p99 %.0f mean %.1f (want 4.9 131.5 3257 395)" % (
        mix_quantile(0.5, c), mix_quantile(0.9, c), mix_quantile(0.99, c), mix_mean(c, cap)))


def fit_new_prefill():
    """Uncached tokens per main turn U = ceil64(out_prev + x): x a two-lognormal mixture
    (ordinary tool results, and large reads/pastes), out the fitted output lognormal."""
    mu_o, s_o = lognormal_from_p50_p90(616, 3502)
    rng = random.Random(7)
    n = 40000
    zo = [rng.gauss(0, 1) for _ in range(n)]
    zx = [rng.gauss(0, 1) for _ in range(n)]
    ux = [rng.random() for _ in range(n)]
    outs = [min(32000, max(1, round(math.exp(mu_o + s_o * z)))) for z in zo]

    def sample(x):
        w = 1 / (1 + math.exp(-x[0]))
        res = []
        for o, z, u in zip(outs, zx, ux):
            mu, s = (x[3], abs(x[4])) if u < w else (x[1], abs(x[2]))
            xx = math.exp(mu + s * z)
            res.append(64 * math.ceil((o + xx) / 64))
        res.sort()
        return res, sum(res) / n

    def loss(x):
        r, mean = sample(x)
        got = [r[n // 2], r[int(0.99 * n)], mean]
        return sum((math.log(g / w)) ** 2 for g, w in zip(got, [1664, 46722, 3792]))

    x, f = search(loss, [-3.0, math.log(600), 1.2, math.log(20000), 0.8], [0.3, 0.2, 0.1, 0.2, 0.1], 1200)
    w = 1 / (1 + math.exp(-x[0]))
    r, mean = sample(x)
    print("new content x: w_large=%.4f small(mu=%.4f s=%.4f) large(mu=%.4f s=%.4f)" % (w, x[1], abs(x[2]), x[3], abs(x[4])))
    print("  U p50 %d p90 %d p99 %d mean %.0f (want 1664 - 46722 3792)" % (r[n // 2], r[int(0.9 * n)], r[int(0.99 * n)], mean))


def main():
    for name, p50, p90 in [("turns", 65, 330), ("output", 616, 3502), ("subagent groups", 4, None)]:
        if p90:
            mu, s = lognormal_from_p50_p90(p50, p90)
            print("%s: lognormal mu=%.4f s=%.4f mean=%.1f" % (name, mu, s, math.exp(mu + s * s / 2)))
    mu, s = lognormal_from_p50_p90(616, 3502)
    print("output mean capped at 32000: %.0f (published 1374)" % mix_mean([(1, mu, s)], 32000))
    # groups per session with subagents: median 4, mean 1697 / (0.445 * 393) = 9.70
    print("groups: mu=%.4f s=%.4f" % (math.log(4), math.sqrt(2 * math.log(1697 / (0.445 * 393) / 4))))
    # calls per group: median 16, mean 42029 / 1697 = 24.77
    print("calls per group: mu=%.4f s=%.4f" % (math.log(16), math.sqrt(2 * math.log(42029 / 1697 / 16))))
    fit_gaps()
    fit_new_prefill()


if __name__ == "__main__":
    main()
