r"""
Learning an automaton with L*: the even-even language, then random targets
==========================================================================

Angluin's L* (lectures 26-27; Angluin 1987) learns a regular language from membership
queries (is this word in it?) and equivalence queries (is this automaton right? if not, a
counterexample).  It keeps an observation table, makes it closed and consistent, and
proposes the automaton whose states are the distinct rows; it never proposes more states
than the target's minimal automaton has, so at most n equivalence queries are asked for an
n-state target.  This script replays the example language of Angluin's paper, the words over
{0, 1} with an even number of 0's and an even number of 1's, draws the automaton L* finds,
then learns random minimal automata of growing size with Angluin's and Rivest-Schapire's
counterexample processing and plots the queries beside the bounds.
"""

# %%
# The even-even language
# ----------------------
#
# With Angluin's processing (every prefix of a counterexample joins S), the first hypothesis
# has two states; the shortest counterexample is 10, and the second hypothesis, with four
# states, is right: 2 equivalence queries and 19 membership queries.

import matplotlib.pyplot as plt

from mbcore.bounds import lstar_equivalence_bound, lstar_membership_bound
from mbcore.queries import DFA, DFAEquivalenceOracle, DFAMembershipOracle, lstar

target = DFA("01", [[1, 2], [0, 3], [3, 0], [2, 1]], [True, False, False, False])
res = lstar("01", DFAMembershipOracle(target), DFAEquivalenceOracle(target),
            counterexamples="angluin")
print("equivalence queries:", res.equivalence_queries)
print("membership queries:", res.membership_queries)
print("counterexamples:", ["".join(z) for z in res.counterexamples])
print("table sizes (|S|, |S.Sigma|, |E|) per round:", res.table_sizes)
assert (res.equivalence_queries, res.membership_queries) == (2, 19)
assert ["".join(z) for z in res.counterexamples] == ["10"]
assert target.equivalent(res.hypothesis) is None and res.hypothesis.n_states == 4

fig, ax = plt.subplots(figsize=(4.2, 4.2))
res.hypothesis.plot(ax=ax)
ax.set_title("L*'s hypothesis: even 0's and even 1's")
plt.show()

# %%
# Random minimal automata
# -----------------------
#
# Seeded random minimal automata of n states over 2 letters, each learned exactly with an
# exact equivalence oracle (shortest counterexamples).  Rivest-Schapire's processing adds one
# distinguishing suffix per counterexample (found by binary search) where Angluin's adds every
# prefix; with shortest counterexamples the two ask similar numbers of membership queries
# (Rivest-Schapire somewhat fewer), far under their bounds, whose gap is the price of long
# counterexamples, and both ask at most n equivalence queries.

NS = [5, 10, 20, 50, 100, 200]
out = {"angluin": [], "rivest-schapire": []}
bounds = {"angluin": [], "rivest-schapire": []}
eqs = {"angluin": [], "rivest-schapire": []}
for n in NS:
    t = DFA.random(n, "ab", seed=n, minimal=True)
    for proc in out:
        r = lstar("ab", DFAMembershipOracle(t), DFAEquivalenceOracle(t), counterexamples=proc)
        assert t.equivalent(r.hypothesis) is None and r.hypothesis.n_states == n
        assert r.bounds_held
        m = max((len(z) for z in r.counterexamples), default=0)
        out[proc].append(r.membership_queries)
        bounds[proc].append(lstar_membership_bound(n, 2, m, proc))
        eqs[proc].append(r.equivalence_queries)
        assert r.equivalence_queries <= lstar_equivalence_bound(n)
    print(f"n={n:4d}: membership queries, Angluin {out['angluin'][-1]:7d}, "
          f"Rivest-Schapire {out['rivest-schapire'][-1]:6d}; equivalence queries "
          f"{eqs['angluin'][-1]}, {eqs['rivest-schapire'][-1]}")

fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.8))
for proc, colour in (("angluin", "C0"), ("rivest-schapire", "C1")):
    a.loglog(NS, out[proc], "o", color=colour, label=f"{proc}")
    a.loglog(NS, bounds[proc], "--", color=colour, label=f"{proc} bound")
    b.plot(NS, eqs[proc], "o", color=colour, label=proc)
b.plot(NS, NS, "k--", label="bound n")
a.set_xlabel("states n")
a.set_ylabel("membership queries")
a.set_title("Membership queries (2 letters)")
a.legend(fontsize=8)
b.set_xscale("log")
b.set_yscale("log")
b.set_xlabel("states n")
b.set_ylabel("equivalence queries")
b.set_title("Equivalence queries")
b.legend(fontsize=8)
fig.tight_layout()
plt.show()
