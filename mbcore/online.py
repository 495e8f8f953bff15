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

    def __init__(self, predictions: np.ndarray, errors: np.ndarray, updated: np.ndarray) -> None:
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

    def plot(self, ax=None, bound=None, label=None, updates=False, **style):
        """Draw the cumulative mistakes (or updates) against the examples seen, with the
        mistake bound as a horizontal line: a mistake bound caps the total, at every t.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (default: the current Axes).
        bound : float or Certificate, optional
            The bound to draw (a :class:`mbcore.Certificate` gives its bound and name).
        label : str, optional
            The curve's legend label.
        updates : bool, default=False
            Draw the update curve instead (what the Margin Perceptron's bound counts).
        **style
            Passed to ``Axes.plot`` for the curve (color, linewidth, ...).

        Returns
        -------
        matplotlib Axes

        Raises
        ------
        ImportError
            When matplotlib is not installed (``pip install 'mbcore[plot]'``).
        """
        plt = require_matplotlib("OnlineRun.plot")
        ax = plt.gca() if ax is None else ax
        curve = self.update_curve if updates else self.mistake_curve
        line, = ax.plot(np.arange(1, self.n + 1), curve, label=label, **style)
        name = "bound"
        if bound is not None and hasattr(bound, "bound"):
            name = f"bound: {bound.bound_name}" if bound.bound is not None else name
            bound = bound.bound
        if bound is not None:
            ax.axhline(float(bound), color=line.get_color(), linestyle="--", linewidth=1,
                       label=f"{label} {name}" if label else name)
        ax.set_xlabel("examples seen")
        ax.set_ylabel("cumulative updates" if updates else "cumulative mistakes")
        if label is not None or bound is not None:
            ax.legend(fontsize=8)
        return ax


def require_matplotlib(what):
    """matplotlib.pyplot, or an ImportError that says how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(f"{what} needs matplotlib, an optional extra: pip install "
                          "'mbcore[plot]' (or pip install matplotlib)") from None
    return plt


def run_online(learner, X, y, classes=None, **fit_params) -> OnlineRun:
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
