"""run_online: the online protocol over a batch, with its full record."""

import numpy as np

__all__ = ["OnlineRun", "run_online", "play_against"]


class OnlineRun:
    """The record of an online run over a batch (Kanade §1: MISTAKES(t)).

    Attributes
    ----------
    predictions : ndarray of shape (n,)
        The label predicted for each example *before* its label was revealed.
    errors : ndarray of bool, shape (n,)
        Whether each prediction was a mistake.
    updated : ndarray of bool, shape (n,)
        Whether the learner changed its state on each example.
    mistakes, updates : int
        Totals over this batch.
    mistake_curve, update_curve : ndarray of int64, shape (n,)
        Cumulative counts over this batch: ``mistake_curve[t]`` = mistakes on examples 0..t.
    n : int
        Number of examples in the batch.
    """

    __slots__ = ("predictions", "errors", "updated", "mistakes", "updates", "mistake_curve",
                 "update_curve", "n")

    def __init__(self, predictions, errors, updated):
        self.predictions = predictions
        self.errors = errors
        self.updated = updated
        self.n = int(errors.shape[0])
        self.mistake_curve = np.cumsum(errors, dtype=np.int64)
        self.update_curve = np.cumsum(updated, dtype=np.int64)
        self.mistakes = int(self.mistake_curve[-1]) if self.n else 0
        self.updates = int(self.update_curve[-1]) if self.n else 0

    def __repr__(self):
        return f"OnlineRun(n={self.n}, mistakes={self.mistakes}, updates={self.updates})"


def run_online(learner, X, y, classes=None, **fit_params):
    """Run the online protocol of ``learner`` over the rows of X in order, and record it.

    For each example the learner predicts, is told the label, and updates: exactly
    ``learner.partial_fit(X, y)``, in one compiled pass (no Python loop per example), but also
    returning what was predicted before each label was revealed.

    Parameters
    ----------
    learner : an mbcore learner (fitted or not; it is updated in place)
    X : array-like of shape (n_samples, n_features) or CSR matrix
    y : array-like of shape (n_samples,)
    classes : the labels, optional (as for ``partial_fit``)
    **fit_params : passed on to the learner (e.g. ``awake=`` for ``Specialists``)

    Returns
    -------
    OnlineRun
    """
    pred, upd, yy = learner._online(X, y, classes, **fit_params)
    record = getattr(learner, "_record_labels", None)
    labels = record(pred) if record is not None else learner._labels(pred > 0)
    return OnlineRun(labels, pred != yy, upd.astype(bool))


def play_against(learner, row):
    """One adversary round: show ``row`` (one row of X: a feature vector or a point index) to
    ``learner``, label it with the opposite of its prediction, and let it learn that.  Labels
    are 0/1 (``classes=[0, 1]``) for a learner that has seen nothing, else its own
    ``classes_``; such a learner cannot predict yet, so its first prediction is read from a copy
    that learns (row, 0): it predicted 1 iff that was a mistake.
    Returns the label given, 0 or 1 (1 = the learner's positive class)."""
    import copy
    cl = getattr(learner, "classes_", None)
    if cl is not None:
        p = 1 if learner.predict([row])[0] == cl[1] else 0
        labels = list(cl)
    else:
        probe = copy.deepcopy(learner)
        probe.partial_fit([row], [0], classes=[0, 1])
        p = 1 if probe.mistakes_ > 0 else 0
        labels = [0, 1]
    label = 1 - p
    learner.partial_fit([row], [labels[label]], classes=labels)
    return label
