r"""
Learning a hidden graph: edge-detecting queries against their bounds
====================================================================

An edge-detecting query Q(S) says whether some edge of a hidden graph has both ends in the
vertex set S (Angluin, lectures 28-31).  The adaptive algorithm of the lectures (halves, colour
classes, the bipartite search) learns any graph with n vertices and m edges in at most
:math:`12\,m\lceil\log_2 n\rceil + 1` queries; Angluin and Chen's randomised algorithm asks its
queries in 5 non-adaptive rounds and needs :math:`O(m\log n + \sqrt{m}\log^2 n)` in
expectation (mbcore's ``five_round`` is a reading of it, measured here, not proved).  This
script learns seeded random graphs with both, checks every run is exact, and plots the
queries against n (m fixed) and against m (n fixed) on log-log axes, beside the adaptive
bound and the reference :math:`m\log_2 n`.
"""

# %%
# The runs
# --------
#
# :class:`mbcore.queries.EdgeDetectingOracle` answers Q(S) for a known graph and counts its
# calls; :func:`mbcore.queries.learn_graph` learns the graph and reports its queries.

import math
import random

import matplotlib.pyplot as plt
import numpy as np

from mbcore.bounds import edge_detecting_bound
from mbcore.queries import EdgeDetectingOracle, learn_graph


def random_graph(n, m, seed):
    rnd = random.Random(seed)
    E = set()
    while len(E) < m:
        u, v = rnd.sample(range(n), 2)
        E.add((min(u, v), max(u, v)))
    return E


def mean_queries(n, m, method, seeds=(0, 1, 2)):
    out = []
    for s in seeds:
        E = random_graph(n, m, 100 * s + m)
        res = learn_graph(n, EdgeDetectingOracle(E, n), method=method, seed=s)
        assert res.edges == E and res.held is not False
        out.append(res.queries)
    return float(np.mean(out))


M_FIXED, NS = 50, [64, 128, 256, 512, 1024, 2048, 4096]
N_FIXED, MS = 1024, [5, 10, 20, 50, 100, 200]
by_n = {meth: [mean_queries(n, M_FIXED, meth) for n in NS] for meth in ("adaptive",
                                                                        "five_round")}
by_m = {meth: [mean_queries(N_FIXED, m, meth) for m in MS] for meth in ("adaptive",
                                                                        "five_round")}
for n, a, f in zip(NS, by_n["adaptive"], by_n["five_round"]):
    print(f"n={n:5d} m={M_FIXED}: adaptive {a:7.0f}  five_round {f:7.0f}  "
          f"m log2 n = {M_FIXED * math.log2(n):6.0f}")
for m, a, f in zip(MS, by_m["adaptive"], by_m["five_round"]):
    print(f"n={N_FIXED} m={m:4d}: adaptive {a:7.0f}  five_round {f:7.0f}  "
          f"m log2 n = {m * math.log2(N_FIXED):6.0f}")

# %%
# The figure
# ----------
#
# Solid lines are the average queries over three seeds; the dashed line is the adaptive
# algorithm's worst-case bound, the dotted one :math:`m\log_2 n`.  Both algorithms grow like
# :math:`m\log n`; the five-round algorithm pays a constant factor (and a
# :math:`\log^2 n` term from estimating m) for asking everything in 5 rounds.  Its curve is
# ragged: how many sets round 2 draws depends on round 1's estimate of m, which moves in steps.

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.2), constrained_layout=True)
ax1.plot(NS, by_n["adaptive"], "o-", label="adaptive (lectures 28-29)")
ax1.plot(NS, by_n["five_round"], "s-", label="five rounds (Angluin & Chen)")
ax1.plot(NS, [edge_detecting_bound(n, M_FIXED) for n in NS], "k--",
         label=r"bound $12\,m\lceil\log_2 n\rceil + 1$")
ax1.plot(NS, [M_FIXED * math.log2(n) for n in NS], "k:", label=r"$m \log_2 n$")
ax1.set(xscale="log", yscale="log", xlabel="vertices n", ylabel="edge-detecting queries",
        title=f"m = {M_FIXED} edges", ylim=(200, 3e4))
ax1.legend(fontsize=8, loc="upper left")
ax2.plot(MS, by_m["adaptive"], "o-", label="adaptive")
ax2.plot(MS, by_m["five_round"], "s-", label="five rounds")
ax2.plot(MS, [edge_detecting_bound(N_FIXED, m) for m in MS], "k--",
         label=r"bound $12\,m\lceil\log_2 n\rceil + 1$")
ax2.plot(MS, [m * math.log2(N_FIXED) for m in MS], "k:", label=r"$m \log_2 n$")
ax2.set(xscale="log", yscale="log", xlabel="edges m", title=f"n = {N_FIXED} vertices")
ax2.legend(fontsize=8)
fig.suptitle("Learning a hidden graph exactly: queries against the bounds")
plt.show()
