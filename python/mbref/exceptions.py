"""The warning of a learner that can no longer follow its rule (twin of mbcore.exceptions).

Halving and SOA whose version space becomes empty, and Conjunction / Disjunction meeting an
example that no hypothesis of their class fits (``on_inconsistent="flag"``), emit a
:class:`LearnerWarning` once per learner (``fit`` starts over) at that example, with mbcore's
message word for word, and keep ``(index, reason)`` in ``failure_``.
"""

import os
import sys
import warnings

__all__ = ["LearnerWarning", "InconsistentOracleError"]

_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep


class LearnerWarning(UserWarning):
    """A learner can no longer follow its rule: no concept of its class is consistent with the
    examples it has seen (emitted once per learner, at the first such example)."""


def _inside(frame):
    """Whether the code of ``frame`` is mbref's own."""
    return os.path.abspath(frame.f_code.co_filename).startswith(_HERE)


def warn_failure(owner, index, reason, detail, then):
    """Emit the LearnerWarning of learner class ``owner`` at example ``index`` (its 0-based
    position in the whole stream the learner has seen), attributed to the first caller outside
    mbref."""
    level = 1
    frame = sys._getframe(0)
    while frame is not None and _inside(frame):     # up to the first caller outside mbref
        level, frame = level + 1, frame.f_back
    warnings.warn(f"{owner}: {reason}: example {index} {detail}; from now on the learner {then}",
                  LearnerWarning, stacklevel=level)


class InconsistentOracleError(ValueError):
    """An oracle of a query learner contradicted itself (twin of mbcore's): for L*, a
    membership answer that changed for the same word, a counterexample that the hypothesis
    already classifies as the membership oracle does, an answer that is not a bool (the
    message names the word); for the hidden-graph and group-testing learners, answers that fit
    no graph (no set of defectives): ``query`` is the set whose answer contradicts the earlier
    ones (a sorted tuple), ``answer`` that answer."""

    def __init__(self, message, query=None, answer=None):
        super().__init__(message)
        self.query = query
        self.answer = answer
