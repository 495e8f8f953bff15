"""The online record: run_online and OnlineRun (the twin of ``mbcore.online``).

``run_online(learner, X, y)`` is ``learner.partial_fit(X, y)`` that also returns what was
predicted before each label was revealed.  Its record has the attribute names of
``mbcore.OnlineRun``, so code written against one runs on the other; lists stand where mbcore
has NumPy arrays.  It also keeps the true class of each example and counts, per class, the
examples and the mistakes made on them: a stream where 2 % of the examples are positive can
be predicted with a 2 % error rate by a learner that gets every positive wrong.
"""

import math

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

    Per class (None when the record is made without the true classes): ``classes`` (the
    learner's ``classes_``), ``true_codes`` (the true class of each example, its position in
    ``classes``), ``class_counts`` and ``class_mistakes`` (for each class: its examples, the
    mistakes made on them), ``class_error_rates`` (their quotient, NaN for a class without
    examples), ``balanced_error_rate`` (the mean of the rates of the classes that have
    examples, summed exactly: ``math.fsum``), and with two classes ``false_positive_rate``
    (the rate on ``classes[0]``) and ``false_negative_rate`` (the rate on ``classes[1]``);
    None with more classes.
    """

    __slots__ = ("predictions", "errors", "updated", "mistakes", "updates", "mistake_curve",
                 "update_curve", "n", "classes", "true_codes", "class_counts",
                 "class_mistakes")

    def __init__(self, predictions, errors, updated, true_codes=None, classes=None):
        self.predictions = list(predictions)
        self.errors = [bool(e) for e in errors]
        self.updated = [bool(u) for u in updated]
        self.n = len(self.errors)
        self.mistake_curve = _cumulative(self.errors)
        self.update_curve = _cumulative(self.updated)
        self.mistakes = self.mistake_curve[-1] if self.n else 0
        self.updates = self.update_curve[-1] if self.n else 0
        self.classes = self.true_codes = self.class_counts = self.class_mistakes = None
        if true_codes is not None and classes is not None:
            self.classes = list(classes)
            self.true_codes = [int(c) for c in true_codes]
            if len(self.true_codes) != self.n:
                raise ValueError(f"OnlineRun: true_codes has {len(self.true_codes)} entries "
                                 f"for {self.n} examples")
            k = len(self.classes)
            self.class_counts = [0] * k
            self.class_mistakes = [0] * k
            for c, e in zip(self.true_codes, self.errors):
                self.class_counts[c] += 1
                self.class_mistakes[c] += e

    @property
    def class_error_rates(self):
        if self.class_counts is None:
            return None
        return [m / n if n else float("nan")
                for n, m in zip(self.class_counts, self.class_mistakes)]

    @property
    def balanced_error_rate(self):
        rates = self.class_error_rates
        if rates is None:
            return None
        seen = [r for r in rates if r == r]
        return math.fsum(seen) / len(seen) if seen else float("nan")

    @property
    def false_positive_rate(self):
        rates = self.class_error_rates
        return None if rates is None or len(rates) != 2 else rates[0]

    @property
    def false_negative_rate(self):
        rates = self.class_error_rates
        return None if rates is None or len(rates) != 2 else rates[1]

    def per_class(self):
        """One dict per class: ``{"class", "examples", "mistakes", "error_rate"}`` (the rate
        None for a class without examples); None without the true classes."""
        if self.class_counts is None:
            return None
        return [{"class": label_key(c), "examples": n, "mistakes": m,
                 "error_rate": r if r == r else None}
                for c, n, m, r in zip(self.classes, self.class_counts, self.class_mistakes,
                                      self.class_error_rates)]

    def __repr__(self):
        return f"OnlineRun(n={self.n}, mistakes={self.mistakes}, updates={self.updates})"


def run_online(learner, X, y, classes=None, **fit_params):
    """The online protocol over a batch, recorded (twin of ``mbcore.run_online``): returns an
    :class:`OnlineRun`, with the true class of each example (its position in the learner's
    ``classes_``)."""
    if hasattr(learner, "_learn_rounds"):     # the experts learners: (prediction, updated) pairs
        rounds = learner._learn(X, y, classes, **fit_params)
        predictions = [learner.classes_[p] for p, _ in rounds]
        ys = [label_key(v) for v in y]
        where = {label_key(c): i for i, c in enumerate(learner.classes_)}
        return OnlineRun(predictions, [a != b for a, b in zip(predictions, ys)],
                         [u for _, u in rounds], [where[t] for t in ys], learner.classes_)
    preds, upd = learner._learn(X, y, classes, **fit_params)
    yy = learner._last_labels
    if len(learner.classes_) > 2:          # class indices
        return OnlineRun([learner.classes_[p] for p in preds],
                         [p != t for p, t in zip(preds, yy)], upd, yy, learner.classes_)
    neg, pos = learner.classes_
    return OnlineRun([pos if p > 0 else neg for p in preds],
                     [p != t for p, t in zip(preds, yy)], upd,
                     [1 if t > 0 else 0 for t in yy], learner.classes_)
