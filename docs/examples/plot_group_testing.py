r"""
Group testing: the heavy coin, and several defectives
=====================================================

Lecture 28 opens with the heavy coin: n coins look alike, one is heavier, and a scale tells
whether a group of coins holds it.  Binary search finds it in :math:`\lceil\log_2 n\rceil`
weighings, choosing each group after the last answer (*adaptive*); the *non-adaptive* design
fixes every group before the first weighing, "group k = the coins whose k-th bit is 0", and
reads the heavy coin's number off the answers, in the same :math:`\lceil\log_2 n\rceil`
weighings, which no algorithm can beat when one coin is promised to be heavy.  mbcore checks
the promise: an item that no positive test held (the last item of binary search, 11...1 of the
design when n is a power of two) is weighed alone before it is named, so a scale that never
tips is caught, for at most :math:`\lceil\log_2 (n+1)\rceil` weighings (n coins and "none").
With d defectives, binary splitting finds each one in at most
:math:`\lceil\log_2 (n+1)\rceil` tests.  This script replays the lecture's eight coins, then
counts the tests against n and d beside the bounds.
"""

# %%
# The lecture's eight coins
# -------------------------
#
# Coins 0..7 are numbered by three bits.  The three groups of the non-adaptive design are the
# coins with first bit 0, second bit 0 and third bit 0: {000, 001, 010, 011},
# {000, 001, 100, 101} and {000, 010, 100, 110}.  The heavy coin 110 (= 6) is in neither of the
# first two groups but is in the third: the answers *no, no, yes* spell its number.

import math

import matplotlib.pyplot as plt
import numpy as np

from mbcore.bounds import group_testing_bound
from mbcore.queries import InconsistentOracleError, find_defective, find_defectives

heavy = 6
res = find_defective(8, lambda S: heavy in S, adaptive=False)
for group, answer in res.record:
    print(f"weigh {[format(c, '03b') for c in group]}: {'heavy' if answer else 'not there'}")
print(res)
assert [g for g, _ in res.record] == [(0, 1, 2, 3), (0, 1, 4, 5), (0, 2, 4, 6)]
assert [a for _, a in res.record] == [False, False, True]
assert list(res.defectives) == [6] and res.tests == 3

adaptive = find_defective(8, lambda S: heavy in S)
print(adaptive)
assert list(adaptive.defectives) == [6] and adaptive.tests == 3

# %%
# Coin 7 = 111 is in none of the three groups: three *no* answers name it, and it is weighed
# alone (a fourth weighing) before it is named.  A scale that never tips is caught there.

res7 = find_defective(8, lambda S: 7 in S, adaptive=False)
print(res7)
assert res7.record[-1] == ((7,), True) and res7.tests == 4 == res7.bound
try:
    find_defective(8, lambda S: False, adaptive=False)
except InconsistentOracleError as exc:
    print(f"a scale that never tips: {exc}")

# %%
# Every position, and many n
# --------------------------
#
# The non-adaptive design always weighs its :math:`\lceil\log_2 n\rceil` groups (and item
# n - 1 alone when n is a power of two and it is the heavy one); binary search needs as many
# where the heavy coin falls in the larger halves, fewer elsewhere when n is not a power of
# two, and one more for the last item when n is a power of two: never more than
# :math:`\lceil\log_2 (n+1)\rceil`.  For
# d defectives, binary splitting is shown with the number of tests it asked, averaged over
# random sets of defectives, beside its bound :math:`d\lceil\log_2 (n+1)\rceil` and the
# counting lower bound of any algorithm, :math:`\log_2\binom{n}{d}` (each answer is one bit,
# and there are :math:`\binom{n}{d}` possible sets).

NS = [2, 3, 5, 8, 13, 32, 100, 1000, 4096]
mean_adaptive = []
for n in NS:
    k = math.ceil(math.log2(n))
    for kind in (True, False):
        # every 64th position or so, and the last one
        hs = sorted(set(range(0, n, max(1, n // 64))) | {n - 1})
        counts = [find_defective(n, lambda S, h=h: h in S, adaptive=kind).tests for h in hs]
        assert max(counts) == math.ceil(math.log2(n + 1)), (n, kind, counts)
        if not kind:
            assert set(counts[:-1]) == {k}, (n, counts)
        if kind:
            mean_adaptive.append(float(np.mean(counts)))

rng = np.random.default_rng(0)
n_d, DS = 1024, [1, 2, 4, 8, 16, 32]
mean_tests = []
for d in DS:
    runs = []
    for _ in range(20):
        bad = set(rng.choice(n_d, size=d, replace=False).tolist())
        r = find_defectives(n_d, lambda S, bad=bad: not bad.isdisjoint(S), d=d)
        assert set(r.defectives) == bad and r.held
        runs.append(r.tests)
    mean_tests.append(float(np.mean(runs)))
    print(f"d={d:3d}: {mean_tests[-1]:7.1f} tests on average (bound "
          f"{group_testing_bound(n_d + 1, d)})")

fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.6))
a.plot(NS, [math.ceil(math.log2(n)) for n in NS], "k-",
       label=r"non-adaptive: $\lceil\log_2 n\rceil$")
a.plot(NS, [math.ceil(math.log2(n + 1)) for n in NS], "k:",
       label=r"checked bound: $\lceil\log_2 (n+1)\rceil$")
a.plot(NS, mean_adaptive, "o", label="binary search (mean over positions)")
a.set_xscale("log")
a.set_xlabel("n (coins)")
a.set_ylabel("weighings")
a.set_title("One heavy coin")
a.legend()
b.loglog(DS, [group_testing_bound(n_d + 1, d) for d in DS], "k-",
         label=r"bound $d\lceil\log_2 (n+1)\rceil$")
b.loglog(DS, mean_tests, "o", label="binary splitting (mean of 20)")
b.loglog(DS, [math.log2(math.comb(n_d, d)) for d in DS], ":", color="gray",
         label=r"any algorithm: $\log_2\binom{n}{d}$")
b.set_xlabel("d (defectives)")
b.set_ylabel("tests")
b.set_title(f"d defectives among n = {n_d}")
b.legend()
fig.tight_layout()
plt.show()
