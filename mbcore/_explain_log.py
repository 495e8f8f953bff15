"""The explanations of the multiplicative learners (the Winnow family) and of the experts
(Weighted Majority, randomized Weighted Majority), for :func:`mbcore.explain`.

Their scores split over the features (or the experts) as the additive learners' do:

* Winnow: ``score - theta = sum_i w_i x_i - theta`` (Balanced Winnow: ``(w+_i - w-_i) x_i``);
  the feature parts are ``w_i x_i`` and the intercept part is ``-theta``;
* Weighted Majority (two labels): ``decision_function = (q1 - q0) / T`` with ``T = q0 + q1``,
  one part ``+-w_i / T`` per expert (its vote's sign); randomized WM's ``q1 / T``, the parts
  ``w_i / T`` of the experts voting for ``classes_[1]``; K labels: the K shares ``q_v / T``,
  expert i's ``w_i / T`` in the column of its vote.

Their weights are not sums of updates but products: ``w_i = w0 alpha^P_i beta^D_i`` (Winnow,
``P_i`` promotions and ``D_i`` demotions of feature i), ``w_i = beta^m_i`` (an expert with
``m_i`` mistakes).  So the training examples enter through the logarithms of the weights: an
update's part is what it added to ``log2 w_i`` over the row's active features (the experts that
voted for the prediction count positively, the others negatively for WM), and the parts sum
exactly (integers for power-of-two factors) to the log-weights' total change.  These parts are
in log2 units of the weights, not of the score: :class:`LogExplanation` says so in ``extra``
(``"example_units"``) and its ``top_examples`` ranks them.
"""

import math

import numpy as np

from .explain import Explanation

__all__ = ["LogExplanation", "winnow_explanation", "experts_explanation"]


class LogExplanation(Explanation):
    """An :class:`mbcore.Explanation` whose training examples' parts are changes of the
    log2-weights (the multiplicative rules) rather than parts of the score; ``check`` tests
    the feature parts against the score and the replay of the record against the weights."""

    def __init__(self, *args, log_indices=None, log_parts=None, replay_exact=None, **kw):
        super().__init__(*args, **kw)
        self.log_indices = log_indices
        self.log_parts = log_parts
        self.replay_exact = replay_exact

    def top_features(self, k=10, cls=None):
        """As :meth:`mbcore.Explanation.top_features`; with K >= 3 classes the default class is
        the predicted one (Weighted Majority breaks a tie of the shares towards the later
        class, where the largest score's first index would name the other)."""
        if cls is None and self._multi():
            cls = int(np.flatnonzero(np.asarray(self.classes) == self.prediction)[0])
        return super().top_features(k, cls)

    def top_examples(self, k=10, cls=None):
        """The k recorded training examples with the largest ``|part|`` first: (example index,
        part in log2 units of the weights, share of the parts' total); [] without the record
        and X_train."""
        if self.log_parts is None:
            return []
        P = np.asarray(self.log_parts, dtype=np.float64)
        fin = P[np.isfinite(P)]
        total = math.fsum(fin.tolist())
        order = np.argsort(-np.abs(P), kind="stable")[:k]
        return [(int(self.log_indices[i]), float(P[i]),
                 float(P[i]) / total if total != 0.0 and np.isfinite(P[i]) else math.nan)
                for i in order]

    def check(self):
        """The feature parts within their bound of the score, and (with the record and
        X_train) the record replayed by the rule gives the learner's log-weights exactly."""
        return super().check() and self.replay_exact is not False

    def to_dict(self, k=10):
        out = super().to_dict(k)
        if self.log_parts is not None:
            out["top_examples"] = [[a, b, c] for a, b, c in self.top_examples(k)]
        out["replay_exact"] = self.replay_exact
        return out


def _plain_rows(rows):
    return [np.asarray(r, dtype=np.int64).tolist() for r in rows]


def winnow_explanation(learner, x, X_train):
    """The LogExplanation of a Winnow learner's score of row x (``learner._explain``)."""
    e = learner._explain(x, X_train)
    d, K = learner.n_features_in_, learner._K()
    cols, k = e["features"], e["class_index"]
    if K > 1:
        vals = np.zeros(d)
        vals[cols] = e["values"]
        parts = learner.coef_.T * vals[:, None]          # (d, K): w_ik x_i
        score = np.asarray(e["decision"], dtype=np.float64)
        icpt = np.zeros(K)
    else:
        parts = np.zeros(d)
        parts[cols] = e["terms"]
        score = float(e["decision"])
        icpt = -float(learner.theta_)
    names = learner.__dict__.get("_feature_names")
    extra = {"threshold": e["threshold"], "class_index": k,
             "active_features": cols.tolist(),
             "log2_weights": e["log2_weights"].tolist(),
             "log_alpha_weights": e["log_alpha_weights"].tolist(),
             "record": e["record"], "complete_record": e["complete"]}
    if e["log2_weights_neg"] is not None:
        extra["log2_weights_neg"] = e["log2_weights_neg"].tolist()
    if e["promotions"] is not None:
        extra.update(promotions=e["promotions"].tolist(), demotions=e["demotions"].tolist(),
                     skipped_demotions=e["skipped"].tolist(), rows=_plain_rows(e["rows"]),
                     example_units="log2 of the weights")
    out = LogExplanation(type(learner).__name__, e["label"], score, learner.classes_, parts,
                         icpt, feature_names=None if names is None else list(names),
                         extra=extra, replay_exact=e["exact"])
    if e["example_rows"] is not None:
        out.log_indices, out.log_parts = e["example_rows"], e["example_parts"]
    return out


def experts_explanation(learner, p, X_train):
    """The LogExplanation of a Weighted Majority pool's prediction on one round of advice."""
    e = learner._explain(p, X_train)
    n, K = learner.n_experts_, len(learner.classes_)
    w, v = e["weights"], e["vote_index"]
    T = math.fsum(e["sums"].tolist())
    if K > 2:
        parts = np.zeros((n, K))
        parts[np.arange(n), v] = w / T
        score = np.asarray(e["decision"], dtype=np.float64)
        icpt = np.zeros(K)
    elif learner._randomized:
        parts = np.where(v == 1, w / T, 0.0)
        score, icpt = float(e["decision"]), 0.0
    else:
        parts = np.where(v == 1, w / T, -w / T)
        score, icpt = float(e["decision"]), 0.0
    extra = {"votes": e["votes"].tolist(), "log2_weights": e["log2_weights"].tolist(),
             "weights": w.tolist(), "sums": e["sums"].tolist(),
             "expert_mistakes": e["expert_mistakes"].tolist(),
             "log2_weights_from_counts": e["log2_weights_from_counts"].tolist(),
             "counts_bound": e["counts_bound"].tolist(), "counts_exact": e["counts_exact"],
             "record": e["record"], "complete_record": e["complete"]}
    out = LogExplanation(type(learner).__name__, e["label"], score, learner.classes_, parts,
                         icpt, feature_names=[f"expert {i}" for i in range(n)], extra=extra,
                         replay_exact=e["exact"])
    if e["rounds_lost"] is not None:
        extra["rounds_lost"] = _plain_rows(e["rounds_lost"])
        extra["example_units"] = "log2 of the weights"
        out.log_indices, out.log_parts = e["example_rows"], e["example_parts"]
    return out
