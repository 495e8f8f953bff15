"""The warning of a learner that can no longer follow its rule.

A learner whose rule assumes that some concept of its class labels every example (Halving and
SOA over a finite class, conjunction and disjunction elimination with
``on_inconsistent="flag"``) can meet examples that no concept of the class fits.  From then on
it goes on with a documented fallback, but its mistake bound no longer holds.  The first time
this happens it emits a :class:`~mbcore.LearnerWarning` (once per learner: a fresh ``fit`` or a
``clone`` starts over) and records when and why in its fitted attribute ``failure_``.

Examples
--------
>>> import warnings
>>> from mbcore import ConceptClass, Halving, LearnerWarning
>>> C = ConceptClass.from_matrix([[1, 0], [1, 1]])     # both concepts label point 0 with 1
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     h = Halving(C).partial_fit([1, 0], [1, 0], classes=[0, 1])
>>> [w.category.__name__ for w in caught], h.failure_
(['LearnerWarning'], (1, 'no concept of the class is consistent with the examples'))
"""

import os
import sys
import warnings

__all__ = ["LearnerWarning", "InconsistentOracleError"]

_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep


class LearnerWarning(UserWarning):
    """A learner can no longer follow its rule: no concept of its class is consistent with the
    examples it has seen.

    Emitted once per learner, at the first such example; the message names the class, what
    happened, the example (its 0-based position in the whole stream the learner has seen, over
    all calls and epochs) and what the learner does from then on.  The learner's ``failure_``
    attribute keeps ``(index, reason)``.  Turn it into an error with
    ``warnings.simplefilter("error", LearnerWarning)``: the call that meets the example then
    raises it and leaves the learner as it was before the call.
    """


def warn_failure(owner, index, reason, detail, then):
    """Emit the LearnerWarning of learner class ``owner`` at example ``index``, attributed to
    the first caller outside mbcore (how mbcore's learners emit it; not part of the API)."""
    level, frame = 1, sys._getframe(0)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_HERE):
        frame = frame.f_back
        level += 1
    warnings.warn(f"{owner}: {reason}: example {index} {detail}; from now on the learner {then}",
                  LearnerWarning, stacklevel=level)


class InconsistentOracleError(ValueError):
    """An oracle of a query learner contradicted itself (its answers fit no target), so the
    learner cannot go on.

    Raised by :func:`mbcore.queries.lstar` when a membership answer changed for the same word
    (seen when a word is asked again, ``recheck=True``), when an equivalence oracle's
    counterexample is classified by the hypothesis as the membership oracle classifies it,
    when a counterexample adds no state (only inconsistent answers can do that), or when an
    answer is not a bool (or 0/1); the message names the word.  Raised by the hidden-graph and
    group-testing learners (:func:`mbcore.queries.learn_graph`, ``find_edge``,
    ``find_defective``, ``find_defectives``) when the answers fit no graph (no set of
    defectives); the message names the query.  A ValueError, so code that catches bad input
    keeps working.

    Attributes
    ----------
    query
        The query whose answer contradicts the others, where the learner names one: a set of
        vertices or items as a sorted tuple of int (graphs, group testing); None otherwise.
    answer
        That answer (or None).

    Examples
    --------
    An edge-detecting oracle that answers 1 for all 8 vertices but 0 for every smaller set: no
    graph does (an edge inside V lies inside one of the unions of halves the search asks).

    >>> from mbcore.queries import learn_graph
    >>> try:
    ...     learn_graph(8, lambda S: len(S) == 8)
    ... except InconsistentOracleError as exc:
    ...     print(exc.query)
    (0, 1, 2, 3, 4, 5, 6, 7)
    """

    def __init__(self, message, query=None, answer=None):
        super().__init__(message)
        self.query = query
        self.answer = answer
