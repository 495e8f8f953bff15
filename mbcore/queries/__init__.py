"""Queries and conversions: the oracles EX, MQ and EQ, the
conservative form of any learner, mistake bounds <-> equivalence queries, online -> PAC,
Angluin's monotone-DNF learner, and learning a hidden graph with edge-detecting queries (with
group testing).

Sources: Kanade's lecture notes, section 1.2 (Definition 2, Proposition 3: every learner has a
conservative form with the same mistake bound) and section 2 (Theorem 4: online -> PAC;
Proposition 6: a mistake bound B gives at most B + 1 equivalence queries; Proposition 7: Q
equivalence queries give the mistake bound Q); Angluin's lecture 24 (monotone DNF with
equivalence and membership queries, the worked example x1x2 + x3) and lecture 25 (equivalence
queries simulated by sampling); lectures 28-31 and Angluin & Chen (2008) for the hidden graphs
and group testing.

The oracles are in ``mbcore.queries.oracles``, the conversions in
``mbcore.queries.conversions``, the exact learner of monotone DNF in
``mbcore.queries.exact``, deterministic finite automata in ``mbcore.queries.automata`` and
Angluin's L* with its oracles in ``mbcore.queries.regular`` (lectures 26-27; Angluin 1987), the
hidden graphs in ``mbcore.queries.graphs`` (lectures 28-31) and group testing in
``mbcore.queries.group_testing`` (lecture 28; its names importable from ``graphs`` too);
every public name is importable from here.

Conventions
-----------
* Points are the rows of a 2-D array, usually {0,1}^n as uint8.  A *target* or a *hypothesis*
  is any callable mapping such an array to a 1-D array of labels, or an object with a
  ``predict`` method (a fitted mbcore learner, or a :class:`MonotoneDNF`, which is callable).
* Labels are 0/1 (Boolean concepts) unless a learner's ``classes_`` say otherwise.
* An *EQ learner* is a generator function protocol: ``gen = make_learner()``;
  ``h = next(gen)`` is the first hypothesis; ``h = gen.send((x, label))`` is the next one after
  the counterexample x with its true label; the generator may ``return`` when it has nothing
  more to ask.  :func:`monotone_dnf_learner` is one.
* Every oracle counts its calls (``calls``); a hypothesis is evaluated on a whole array at once
  (one call per block of rows, never one per row, except where a docstring says otherwise).

Examples
--------
Angluin's worked example (lecture 24): the target x1x2 + x3 is learned with 3 equivalence
queries and 5 membership queries.

>>> from mbcore.queries import (MonotoneDNF, MembershipOracle, EquivalenceOracle,
...                             learn_monotone_dnf)
>>> target = MonotoneDNF([[0, 1], [2]], n=3)
>>> mq = MembershipOracle(target)
>>> eq = EquivalenceOracle(target, n=3, strategy="adversarial")
>>> res = learn_monotone_dnf(mq, eq, n=3)
>>> str(res.formula), res.equivalence_queries, res.membership_queries
('x1x2 + x3', 3, 5)
"""

from .conversions import (Conservative, EQOnlineLearner, EQPACResult, EQResult, PACResult,
                          eq_to_pac, from_equivalence_learner, online_to_pac,
                          to_equivalence_learner)
from .exact import DNFResult, MonotoneDNF, learn_monotone_dnf, monotone_dnf_learner
from .graphs import EdgeDetectingOracle, GraphResult, QueryBudgetExceeded, find_edge, learn_graph
from .group_testing import GroupTestResult, find_defective, find_defectives
from .oracles import EquivalenceOracle, ExampleOracle, MembershipOracle
from .automata import DFA
from .regular import (BoundCheck, DFAEquivalenceOracle, DFAMembershipOracle, DFATraceOracle,
                      LStarResult, SamplingEquivalenceOracle, WMethodEquivalenceOracle, lstar,
                      run_dfa_demo)
from ..exceptions import InconsistentOracleError

__all__ = ["MonotoneDNF", "ExampleOracle", "MembershipOracle", "EquivalenceOracle",
           "Conservative", "EQOnlineLearner", "EQResult", "DNFResult", "PACResult",
           "EQPACResult", "to_equivalence_learner", "from_equivalence_learner",
           "monotone_dnf_learner", "learn_monotone_dnf", "online_to_pac", "eq_to_pac",
           "EdgeDetectingOracle", "GraphResult", "GroupTestResult", "InconsistentOracleError",
           "QueryBudgetExceeded", "learn_graph", "find_edge", "find_defective",
           "find_defectives",
           "DFA", "lstar", "LStarResult", "BoundCheck", "DFAMembershipOracle", "DFATraceOracle",
           "DFAEquivalenceOracle", "SamplingEquivalenceOracle", "WMethodEquivalenceOracle",
           "run_dfa_demo"]
