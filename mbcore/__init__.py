"""mbcore: mistake-bound online learners with a compiled core.

The online learners of the lecture notes (the Perceptron family, Passive-Aggressive, the Winnow
family, the experts and specialists, the Boolean learners, Halving and SOA; every one listed by
:func:`all_learners`), each run by a Cython kernel that does a whole online pass with the GIL
released, and each with a pure-Python twin of the same name in ``mbref`` that defines its
behaviour bit for bit; with the query learners and conversions of :mod:`mbcore.queries`, the
mistake bounds and their certificates, and streaming, persistence and distributed training.
"""

try:
    from ._kernels import linear as _linear_kernels  # noqa: F401
except ImportError as exc:  # pragma: no cover - only without a build
    raise ImportError(
        "mbcore's compiled kernels are not built or cannot be loaded "
        f"({exc}). Install the package with 'pip install .' (this compiles the Cython "
        "kernels; it needs a C compiler), and do not import mbcore from the source tree."
    ) from exc

from .base import NotFittedError, OnlineLearner, all_learners, clone
from .exceptions import LearnerWarning
from .linear import (AveragedPerceptron, MarginPerceptron, OnlineHingeSVM, PassiveAggressive,
                     Perceptron)
from .kernel import KernelPerceptron
from .budget import (BPA_S, Forgetron, Projectron, ProjectronPP, RandomizedBudgetPerceptron,
                     Stoptron)
from .second_order import (ALMA, AROW, NAROW, NHERD, SCW, ConfidenceWeighted,
                           SecondOrderPerceptron)
from .experts import RandomizedWeightedMajority, WeightedMajority
from .specialists import PairSpecialists, Specialists
from .multiplicative import BalancedWinnow, EliminationWinnow, Winnow, WinnowStar
from .boolean import (Conjunction, ConjunctionAdversary, DecisionList, Disjunction,
                      GreedyDecisionList, greedy_decision_list, most_specific_conjunction)
from .version_space import (SOA, ConceptClass, HalfIntervalAdversary, Halving,
                           littlestone_dimension, vc_dimension)
from .online import OnlineRun, run_online
from .selective import SelectiveRun, SelectiveSampler
from .queries import (Conservative, DNFResult, EQOnlineLearner, EQPACResult, EQResult,
                      EquivalenceOracle, ExampleOracle, MembershipOracle, MonotoneDNF,
                      PACResult, eq_to_pac, from_equivalence_learner, learn_monotone_dnf,
                      monotone_dnf_learner, online_to_pac, to_equivalence_learner)
from .certificates import BoundViolationError, Certificate, certify
from .persistence import load
from .explain import Explanation, explain
from .streaming import iter_csv, iter_svmlight, iter_vw, run_stream
from ._version import __version__   # the installed distribution's (pyproject.toml's)

__all__ = ["Perceptron", "MarginPerceptron", "AveragedPerceptron", "KernelPerceptron",
           "OnlineHingeSVM", "PassiveAggressive", "Winnow", "EliminationWinnow", "WinnowStar", "BalancedWinnow",
           "WeightedMajority", "RandomizedWeightedMajority", "Specialists", "PairSpecialists",
           "Conjunction", "Disjunction", "DecisionList", "GreedyDecisionList",
           "most_specific_conjunction", "greedy_decision_list", "ConjunctionAdversary",
           "ConceptClass", "Halving", "SOA", "littlestone_dimension", "vc_dimension",
           "HalfIntervalAdversary", "run_online", "OnlineRun", "certify", "Certificate",
           "BoundViolationError", "OnlineLearner", "NotFittedError", "LearnerWarning", "all_learners",
           "clone", "MonotoneDNF", "ExampleOracle", "MembershipOracle", "EquivalenceOracle",
           "Conservative", "EQOnlineLearner", "EQResult", "DNFResult", "PACResult", "EQPACResult",
           "to_equivalence_learner", "from_equivalence_learner", "monotone_dnf_learner",
           "learn_monotone_dnf", "online_to_pac", "eq_to_pac", "load", "explain", "Explanation",
           "iter_svmlight", "iter_csv", "iter_vw", "run_stream",
           "AROW", "ConfidenceWeighted", "SCW", "NHERD", "NAROW", "SecondOrderPerceptron",
           "ALMA", "SelectiveSampler", "SelectiveRun", "Stoptron", "RandomizedBudgetPerceptron",
           "Forgetron", "Projectron", "ProjectronPP", "BPA_S"]
