"""
Decision lists: the levels of Balcan's example
==============================================

The mistake-bound learner for 1-decision lists (Balcan, §2.2) starts with all 4n + 2 rules
(x_i ⇒ b), (¬x_i ⇒ b) and (T ⇒ b) on one level.  It predicts with the first level on which
some rule fires, by the majority of that level's firing rules (ties → 1), and after a mistake
moves each firing rule of that level that predicted wrongly one level down.  The notes work it
out for n = 2: the example 01 labelled 0, then 00 labelled 1, and give the two levels after
each.  This script replays them with :class:`mbcore.DecisionList`, checks the notes' lists,
and goes on to the notes' target.
"""

# %%
# Rules in the notes' names
# -------------------------
#
# mbcore numbers variables from 0 and writes a rule as ``x0->1``; the notes number them from 1
# and write x1 ⇒ T.  A small function translates.

import re

import matplotlib.pyplot as plt
import numpy as np

from mbcore import DecisionList, run_online
from mbcore.bounds import decision_list_bound


def notes_name(rule):
    """'~x0->1' -> '¬x1⇒T' (variables from 1, T/F for the value)."""
    lit, value = rule.split("->")
    lit = re.sub(r"x(\d+)", lambda m: f"x{int(m.group(1)) + 1}", lit).replace("~", "¬")
    return f"{lit}⇒{'T' if value == '1' else 'F'}"


def show(levels):
    return "  else  ".join("{" + ", ".join(notes_name(r) for r in lvl) + "}" for lvl in levels)


# mbcore's rule order (``levels_``): x_i->0, x_i->1, ~x_i->0, ~x_i->1 for each i, then T->0, T->1
n = 2
RULES = [notes_name(f"{lit}->{b}") for i in range(n) for lit in (f"x{i}", f"~x{i}")
         for b in (0, 1)] + ["T⇒F", "T⇒T"]
print(len(RULES), "rules (4n + 2 with n = 2):", ", ".join(RULES))

# %%
# The two examples of the notes
# -----------------------------
#
# a) 01 labelled 0: every rule of level 0 that fires votes, three for 0 and three for 1, the
#    tie predicts 1, a mistake: the three firing rules ⇒T (¬x1⇒T, x2⇒T, T⇒T) go to level 1.
# b) 00 labelled 1: level 0 has three firing rules for 0 and one for 1, it predicts 0, a
#    mistake: ¬x1⇒F, ¬x2⇒F and T⇒F go to level 1.

X = np.array([[0, 1], [0, 0]], dtype=np.uint8)
y = np.array([0, 1])
dl = DecisionList()
history = [[RULES]]                      # before any example: every rule on level 0
predictions = []
for t in range(2):
    r = run_online(dl, X[t:t + 1], y[t:t + 1], classes=[0, 1] if t == 0 else None)
    predictions.append(int(r.predictions[0]))
    history.append(dl.level_lists())
    print(f"{''.join(map(str, X[t]))} labelled {y[t]}: predicted {predictions[-1]} "
          f"({'right' if predictions[-1] == y[t] else 'mistake'})")
    print("   ", show(history[-1]))

NOTES_A = [{"x1⇒T", "x1⇒F", "¬x1⇒F", "x2⇒F", "¬x2⇒T", "¬x2⇒F", "T⇒F"},
           {"¬x1⇒T", "x2⇒T", "T⇒T"}]
NOTES_B = [{"x1⇒T", "x1⇒F", "x2⇒F", "¬x2⇒T"},
           {"¬x1⇒T", "¬x1⇒F", "x2⇒T", "¬x2⇒F", "T⇒T", "T⇒F"}]
assert predictions == [1, 0]
assert [{notes_name(r) for r in lvl} for lvl in history[1]] == NOTES_A
assert [{notes_name(r) for r in lvl} for lvl in history[2]] == NOTES_B

# %%
# Going on with the notes' target
# -------------------------------
#
# The target of the notes is the list (x1 ⇒ F), (¬x2 ⇒ T), (T ⇒ F).  Four more examples
# labelled by it: 10 → 0 is one more mistake (x1⇒T and ¬x2⇒T go down), then 00 → 1, 11 → 0 and
# 01 → 0 are predicted right, and level 0 holds exactly the target's first rule and x2⇒F.


def target(x):
    return 0 if x[0] else (1 if not x[1] else 0)


more = np.array([[1, 0], [0, 0], [1, 1], [0, 1]], dtype=np.uint8)
for x in more:
    r = run_online(dl, x[None, :], [target(x)])
    predictions.append(int(r.predictions[0]))
    history.append(dl.level_lists())
    print(f"{''.join(map(str, x))} labelled {target(x)}: predicted {predictions[-1]} "
          f"({'right' if predictions[-1] == target(x) else 'mistake'})")
X = np.vstack([X, more])
y = np.concatenate([y, [target(x) for x in more]])
print("final:", show(history[-1]))
assert predictions == [1, 0, 1, 1, 0, 0] and dl.mistakes_ == 3
assert [{notes_name(r) for r in lvl} for lvl in history[-1]] == [
    {"x1⇒F", "x2⇒F"}, {"x1⇒T", "¬x1⇒F", "¬x1⇒T", "x2⇒T", "¬x2⇒F", "¬x2⇒T", "T⇒F", "T⇒T"}]
assert (dl.predict(X) == y).all()
bound = decision_list_bound(2, 3)             # (4n + 2)(L + 1) with n = 2, L = 3 rules
print(f"mistakes: {dl.mistakes_}, bound (4n + 2)(L + 1) = {bound:g}")
assert dl.mistakes_ <= bound

# %%
# The levels as a figure
# ----------------------
#
# One column per example, showing the levels the learner used to predict it (the last column:
# the levels at the end); one row per rule, whose level is the number and the colour.  A frame
# marks the rules that voted: those that fire on the example, on the first level where any
# fires.  After a mistake the framed rules that voted wrongly are one level lower in the next
# column.

level = np.zeros((len(RULES), len(history)), dtype=int)
for k, lists in enumerate(history):
    for lv, rules in enumerate(lists):
        for rname in rules:
            name = rname if "⇒" in rname else notes_name(rname)
            level[RULES.index(name), k] = lv


def fires(rule, x):
    lit = rule.split("⇒")[0]
    if lit == "T":
        return True
    v = x[int(lit.lstrip("¬x")) - 1]
    return bool(v) != lit.startswith("¬")


fig, ax = plt.subplots(figsize=(10.5, 5.4))
ax.imshow(level, cmap=plt.get_cmap("Blues", 4), vmin=-0.5, vmax=3.5, aspect="auto")
for i in range(len(RULES)):
    for k in range(len(history)):
        ax.text(k, i, str(level[i, k]), ha="center", va="center", fontsize=10,
                color="white" if level[i, k] >= 2 else "black")
for t, x in enumerate(X):
    live = [i for i, r in enumerate(RULES) if fires(r, x)]
    top = min(level[i, t] for i in live)
    for i in live:
        if level[i, t] == top:
            ax.add_patch(plt.Rectangle((t - 0.45, i - 0.45), 0.9, 0.9, fill=False,
                                       ec="C3", lw=1.8))
ax.set_yticks(range(len(RULES)), RULES)
ax.set_xticks(range(len(history)),
              [f"x = {''.join(map(str, x))}, label {v}\npredicted {p}: "
               f"{'mistake' if p != v else 'right'}"
               for x, v, p in zip(X, y, predictions)] + ["at the end"], fontsize=8)
ax.set_ylabel("rule")
ax.set_title("Level of each rule (0 = first) when each example came; "
             "framed: the rules that voted", fontsize=10)
ax.axvline(1.5, color="0.3", lw=1.2, ls=":")
ax.text(0.5, -0.95, "the notes' two examples", ha="center", fontsize=9)
ax.text(4, -0.95, "going on with the notes' target", ha="center", fontsize=9)
ax.set_ylim(len(RULES) - 0.5, -1.4)
fig.tight_layout()
plt.show()
