"""The online record: run_online and OnlineRun (the twin of ``mbcore.online``).

``run_online(learner, X, y)`` is ``learner.partial_fit(X, y)`` that also returns what was
predicted before each label was revealed.  Its record has the attribute names of
``mbcore.OnlineRun``, so code written against one runs on the other; lists stand where mbcore
has NumPy arrays.
"""

from .base import label_key

__all__ = ["OnlineRun", "run_online"]


def _cumulative(flags):
    out, total = [], 0
    for f in flags:
        total += bool(f)
        out.append(total)
    return out


class OnlineRun:
    """The record of an online run over a batch (twin of ``mbcore.OnlineRun``).

    Attributes: ``predictions`` (the label predicted for each example before its label was
    revealed), ``errors`` and ``updated`` (lists of bools: a mistake; the state changed),
    ``mistakes`` and ``updates`` (totals), ``mistake_curve`` and ``update_curve``
    (cumulative counts: ``mistake_curve[t]`` = mistakes on examples 0..t), ``n`` (examples).
    """

    __slots__ = ("predictions", "errors", "updated", "mistakes", "updates", "mistake_curve",
                 "update_curve", "n")

    def __init__(self, predictions, errors, updated):
        self.predictions = list(predictions)
        self.errors = [bool(e) for e in errors]
        self.updated = [bool(u) for u in updated]
        self.n = len(self.errors)
        self.mistake_curve = _cumulative(self.errors)
        self.update_curve = _cumulative(self.updated)
        self.mistakes = self.mistake_curve[-1] if self.n else 0
        self.updates = self.update_curve[-1] if self.n else 0

    def __repr__(self):
        return f"OnlineRun(n={self.n}, mistakes={self.mistakes}, updates={self.updates})"


def run_online(learner, X, y, classes=None, **fit_params):
    """The online protocol over a batch, recorded (twin of ``mbcore.run_online``): returns an
    :class:`OnlineRun`."""
    if hasattr(learner, "_learn_rounds"):     # the experts learners: (prediction, updated) pairs
        rounds = learner._learn(X, y, classes, **fit_params)
        predictions = [learner.classes_[p] for p, _ in rounds]
        ys = [label_key(v) for v in y]
        return OnlineRun(predictions, [a != b for a, b in zip(predictions, ys)],
                         [u for _, u in rounds])
    preds, upd = learner._learn(X, y, classes, **fit_params)
    yy = learner._last_labels
    if len(learner.classes_) > 2:          # class indices
        return OnlineRun([learner.classes_[p] for p in preds],
                         [p != t for p, t in zip(preds, yy)], upd)
    neg, pos = learner.classes_
    return OnlineRun([pos if p > 0 else neg for p in preds],
                     [p != t for p, t in zip(preds, yy)], upd)
