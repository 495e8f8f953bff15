"""The twin of :mod:`mbcore.queries`' query learners (standard library only): deterministic
finite automata (``automata``), Angluin's L* and its oracles (``regular``), hidden graphs with
edge-detecting queries (``graphs``) and group testing (``group_testing``), module for module as
in mbcore; every public name is importable from here.

Each module is written from the rules of the papers and lecture notes it cites, not from
mbcore's code; mbcore's tests demand the same results from both (the same queries in the same
order, the same counterexamples, hypotheses and answers).  What mbcore compiles or vectorises
here is small (the DFA runs of ``_kernels/automata.pyx``, the graph learners' NumPy sets and
the five-round algorithm's bit-set arrays); the rest of mbcore's query learners is plain Python
too, and the twin is its independent second reading (see CONTRIBUTING.md, "The twin").
"""

from .automata import DFA
from .regular import (DEFAULT_MAX_STATES, PROCESSINGS, BoundCheck, DFAEquivalenceOracle,
                      DFAMembershipOracle, DFATraceOracle, LStarResult,
                      SamplingEquivalenceOracle, WMethodEquivalenceOracle, eq_test_sample_size,
                      lstar, lstar_equivalence_bound, lstar_membership_bound, run_dfa_demo)
from .graphs import (EdgeDetectingOracle, GraphResult, QueryBudgetExceeded, edge_detecting_bound,
                     find_edge, learn_graph)
from .group_testing import (GroupTestResult, find_defective, find_defectives,
                            group_testing_bound)
from ..exceptions import InconsistentOracleError

__all__ = ["DFA", "lstar", "LStarResult", "BoundCheck", "DFAMembershipOracle", "DFATraceOracle",
           "DFAEquivalenceOracle", "SamplingEquivalenceOracle", "WMethodEquivalenceOracle",
           "lstar_equivalence_bound", "lstar_membership_bound", "eq_test_sample_size",
           "run_dfa_demo", "PROCESSINGS", "DEFAULT_MAX_STATES",
           "EdgeDetectingOracle", "GraphResult", "GroupTestResult", "InconsistentOracleError",
           "QueryBudgetExceeded", "learn_graph", "find_edge", "find_defective",
           "find_defectives", "edge_detecting_bound", "group_testing_bound"]
