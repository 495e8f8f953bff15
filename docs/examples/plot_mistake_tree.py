r"""
A mistake tree, drawn: why no learner beats the Littlestone dimension
=====================================================================

The Littlestone dimension Ldim(C) is the largest depth of a *mistake tree* over the class C: a
complete binary tree whose nodes hold points, whose edges are the labels 0 and 1, and whose
every leaf holds a concept of C that labels the points of its path as the path does.  Walking
such a tree against a learner, answering each point with the label the learner did not
predict, forces one mistake per level on any deterministic learner, and the leaf reached is a
concept of C that agrees with every answer: no learner can promise fewer than Ldim(C) mistakes
on C.  :func:`mbcore.littlestone_dimension` with ``witness=True`` returns such a tree,
:func:`mbcore.check_mistake_tree` checks one, and :meth:`mbcore.MistakeTree.plot` draws it.
"""

# %%
# Half-intervals: binary search is a mistake tree
# -----------------------------------------------
#
# On :meth:`~mbcore.ConceptClass.half_intervals` ``(3)`` (:math:`c_t(x) = 1` iff
# :math:`x \le t` on the points 1..8) the tree asks the middle point, then the middle of the
# half its answer leaves: depth 3, although the VC dimension of the class is 1.

import matplotlib.pyplot as plt

from mbcore import (SOA, ConceptClass, Halving, check_mistake_tree, littlestone_dimension,
                    vc_dimension)
from mbcore.online import play_against

H = ConceptClass.half_intervals(3)
d, tree = littlestone_dimension(H, witness=True)
print(tree)
assert d == check_mistake_tree(tree) == 3 and vc_dimension(H) == 1
tree.plot()
plt.show()

# %%
# Monotone conjunctions of 4 variables
# ------------------------------------
#
# 16 concepts, Ldim 4 = log2 16: the tree asks the points with a single 0 and then zeroes one
# more variable at each level, so that each answer halves the conjunctions left.  The leaves
# are all 16 conjunctions, each reached by the answers it gives.

C = ConceptClass.monotone_conjunctions(4)
d, tree = littlestone_dimension(C, witness=True)
assert d == check_mistake_tree(tree) == 4
tree.plot()
plt.show()

# %%
# Walking the tree against two learners
# -------------------------------------
#
# At each node the point is shown to the learner and labelled against its prediction
# (``play_against``); the walk goes down the edge of that label.  Halving and SOA each make
# exactly Ldim(C) = 4 mistakes, the most SOA ever makes on C, and the leaf reached is a
# conjunction consistent with all four answers.


def walk(tree, learner):
    node, answers = tree, []
    while not node.is_leaf:
        label = play_against(learner, node.point)
        answers.append((node.point, label))
        node = node.child(label)
    return answers, node.concept


for learner in (Halving(C), SOA(C)):
    answers, target = walk(tree, learner)
    assert learner.mistakes_ == 4
    assert all(C.labels(target)[j] == label for j, label in answers)
    print(f"{type(learner).__name__}: {learner.mistakes_} mistakes, the target "
          f"{tree.concept_label(target)} agrees with every answer "
          f"{[(C.points[j], label) for j, label in answers]}")
