"""mbref: the pure-Python twin of mbcore (standard library only).

Every learner here has the same name, parameters and results as its compiled counterpart in
``mbcore``; it is written literally from the rules the mbcore docstrings state (each citing its
lecture notes or paper) and is the
specification the compiled kernels are tested against (same predictions, mistakes and updates on
the same streams, same exception types on bad input).  It is slow on purpose: use it to read the
algorithms, to check the compiled core, and to measure what compilation buys.
"""

from .base import NotFittedError, OnlineLearner
from .exceptions import LearnerWarning
from .boolean import (Conjunction, ConjunctionAdversary, DecisionList, Disjunction,
                      GreedyDecisionList, greedy_decision_list, most_specific_conjunction)
from .linear import (AveragedPerceptron, MarginPerceptron, OnlineHingeSVM, PassiveAggressive,
                     Perceptron)
from .kernel import KernelPerceptron
from .budget import (BPA_S, Forgetron, Projectron, ProjectronPP, RandomizedBudgetPerceptron,
                     Stoptron)
from .second_order import ALMA, AROW, NAROW, NHERD, SCW, ConfidenceWeighted, SecondOrderPerceptron
from .experts import RandomizedWeightedMajority, WeightedMajority
from .specialists import PairSpecialists, Specialists
from .multiplicative import BalancedWinnow, EliminationWinnow, Winnow, WinnowStar
from .online import OnlineRun, run_online
from .selective import SelectiveRun, SelectiveSampler
from .version_space import (SOA, ConceptClass, HalfIntervalAdversary, Halving,
                            littlestone_dimension, vc_dimension)
from .mistake_tree import MistakeTree, check_mistake_tree, shattering_concepts
from .adversary import AdversaryGame, Demonstration, TreeAdversary
from .explain import Explanation, explain

__all__ = ["Perceptron", "MarginPerceptron", "AveragedPerceptron", "KernelPerceptron",
           "OnlineHingeSVM", "PassiveAggressive", "ALMA", "AROW", "ConfidenceWeighted", "SCW",
           "Stoptron", "RandomizedBudgetPerceptron", "Forgetron", "Projectron", "ProjectronPP",
           "BPA_S", "NHERD", "NAROW", "SecondOrderPerceptron",
           "Winnow", "EliminationWinnow", "WinnowStar", "BalancedWinnow",
           "WeightedMajority", "RandomizedWeightedMajority", "Specialists", "PairSpecialists",
           "Conjunction", "Disjunction", "DecisionList", "most_specific_conjunction",
           "greedy_decision_list", "GreedyDecisionList", "ConjunctionAdversary",
           "ConceptClass", "Halving", "SOA", "littlestone_dimension", "vc_dimension",
           "HalfIntervalAdversary", "MistakeTree", "check_mistake_tree", "shattering_concepts",
           "OnlineLearner", "NotFittedError", "LearnerWarning", "run_online", "OnlineRun",
           "SelectiveSampler", "SelectiveRun", "TreeAdversary", "AdversaryGame", "Demonstration",
           "explain", "Explanation"]


def _installed_version():
    """The version of the installed distribution, as pyproject.toml sets it (the one place it is
    written; ``mbref`` is part of the same distribution, ``mbcore``)."""
    import importlib.metadata as metadata
    try:
        return metadata.version("mbcore")
    except metadata.PackageNotFoundError:
        return "0+unknown"          # a source tree that was never installed


__version__ = _installed_version()
