"""run_online: the online protocol over a batch, with its full record."""

import math

import numpy as np

from ._locking import holding

__all__ = ["OnlineRun", "run_online", "play_against"]


class ClassRates:
    """The per-class rates of a record that counts, for each true class, its examples and the
    mistakes made on them (``classes``, ``class_counts``, ``class_mistakes``: None when the
    record does not know the true classes).  Shared by :class:`OnlineRun`,
    :class:`mbcore.streaming.StreamRun` and the lines ``mbcore.workflow.evaluate_asking``
    returns.

    A stream where 2 % of the examples are positive can be predicted with a 2 % error rate by
    a learner that gets every positive wrong: the overall rate hides it, the rate on each
    class shows it (1.0 on the positives).
    """

    __slots__ = ()

    @property
    def class_error_rates(self):
        """ndarray of float64, shape (n_classes,): ``class_mistakes / class_counts``, the error
        rate on the examples of each class (NaN for a class without examples); None when the
        true classes are not known."""
        counts, mistakes = self.class_counts, self.class_mistakes
        if counts is None:
            return None
        counts = np.asarray(counts)
        out = np.full(counts.shape[0], np.nan)
        np.divide(np.asarray(mistakes, dtype=np.float64), counts, out=out, where=counts > 0)
        return out

    @property
    def balanced_error_rate(self):
        """float: the mean of :attr:`class_error_rates` over the classes that have examples
        (``1 - balanced_accuracy_score`` in scikit-learn's terms), summed exactly
        (``math.fsum``); NaN before any example, None when the true classes are not known."""
        rates = self.class_error_rates
        if rates is None:
            return None
        seen = [float(r) for r in rates if r == r]
        return math.fsum(seen) / len(seen) if seen else float("nan")

    @property
    def false_positive_rate(self):
        """float: with two classes, the error rate on ``classes[0]`` (the negative class, as
        scikit-learn's ``classes_[0]``): false positives / negatives.  None with more classes
        (or when the true classes are not known)."""
        rates = self.class_error_rates
        return None if rates is None or rates.shape[0] != 2 else float(rates[0])

    @property
    def false_negative_rate(self):
        """float: with two classes, the error rate on ``classes[1]`` (the positive class):
        false negatives / positives, ``1 - recall``.  None with more classes (or when the true
        classes are not known)."""
        rates = self.class_error_rates
        return None if rates is None or rates.shape[0] != 2 else float(rates[1])

    def per_class(self):
        """The per-class counts as a list of dicts, one per class in the order of ``classes``:
        ``{"class": label, "examples": int, "mistakes": int, "error_rate": float or None}``
        (None for a class without examples), plain Python values (for JSON); None when the
        true classes are not known."""
        if self.class_counts is None:
            return None
        rates = self.class_error_rates
        labels = self.classes.tolist() if hasattr(self.classes, "tolist") else list(self.classes)
        return [{"class": c, "examples": int(n), "mistakes": int(m),
                 "error_rate": float(r) if r == r else None}
                for c, n, m, r in zip(labels, self.class_counts, self.class_mistakes, rates)]


def class_counts(codes, errors, k):
    """(examples, mistakes) of each of ``k`` classes, int64 arrays: ``codes`` the true class of
    each example (its position in ``classes``), ``errors`` whether each was a mistake."""
    codes = np.asarray(codes)
    errors = np.asarray(errors, dtype=bool)
    if k == 2 and codes.dtype == np.uint8:          # 0/1: two counts (no histogram)
        ones = codes.view(bool)
        n1, m1 = np.count_nonzero(ones), np.count_nonzero(ones & errors)
        return (np.array([codes.shape[0] - n1, n1], dtype=np.int64),
                np.array([np.count_nonzero(errors) - m1, m1], dtype=np.int64))
    return (np.bincount(codes, minlength=k).astype(np.int64, copy=False),
            np.bincount(codes[errors], minlength=k).astype(np.int64, copy=False))


def label_classes(learner, codes):
    """The true class of each example (its position in ``learner.classes_``) from the label
    codes of the learner's online pass: the codes themselves with three classes or more (class
    indices), ``codes > 0`` with two (codes +-1, or 0/1), as uint8 (one array of n bytes)."""
    if len(learner.classes_) > 2:
        return np.asarray(codes)
    return (np.asarray(codes) > 0).view(np.uint8)


class OnlineRun(ClassRates):
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
    classes : ndarray of shape (n_classes,)
        The learner's ``classes_`` (the order of the per-class counts).
    true_codes : ndarray of int, shape (n,)
        The true class of each example: its position in ``classes`` (uint8 with two classes,
        the learner's int32 class indices with more).
    class_counts, class_mistakes : ndarray of int64, shape (n_classes,)
        For each true class: its examples, and the mistakes made on them (scikit-learn's
        "support" and the off-diagonal of the confusion matrix's row).
    class_error_rates : ndarray of float64, shape (n_classes,)
        ``class_mistakes / class_counts`` (NaN for a class without examples).
    balanced_error_rate : float
        The mean of the per-class rates over the classes that have examples.
    false_positive_rate, false_negative_rate : float or None
        With two classes: the error rate on ``classes[0]`` (negatives predicted positive) and
        on ``classes[1]`` (positives predicted negative, ``1 - recall``); None with more.

    ``classes``, ``true_codes`` and the per-class attributes are None for a record made
    without the true classes.

    Examples
    --------
    A stream of mushrooms where 2 % are edible (+1) and a learner that calls every one
    poisonous (-1): 2 % errors overall, every edible one missed.

    >>> import numpy as np
    >>> from mbcore import WeightedMajority, run_online
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms(encoding="boolean")
    >>> rows = np.r_[np.flatnonzero(y == -1)[:490], np.flatnonzero(y == 1)[:10]]
    >>> P = np.full((500, 1), -1)           # one expert, always saying -1 (poisonous)
    >>> run = run_online(WeightedMajority(), P, y[rows], classes=[-1, 1])
    >>> run.mistakes / run.n, run.false_positive_rate, run.false_negative_rate
    (0.02, 0.0, 1.0)
    >>> run.class_counts.tolist(), run.class_mistakes.tolist(), run.balanced_error_rate
    ([490, 10], [0, 10], 0.5)
    """

    __slots__ = ("predictions", "errors", "updated", "mistakes", "updates", "mistake_curve",
                 "update_curve", "n", "classes", "true_codes", "class_counts",
                 "class_mistakes")

    def __init__(self, predictions: np.ndarray, errors: np.ndarray, updated: np.ndarray,
                 true_codes=None, classes=None) -> None:
        self.predictions = predictions
        self.errors = errors
        self.updated = updated
        self.n = int(errors.shape[0])
        self.mistake_curve = np.cumsum(errors, dtype=np.int64)
        self.update_curve = np.cumsum(updated, dtype=np.int64)
        self.mistakes = int(self.mistake_curve[-1]) if self.n else 0
        self.updates = int(self.update_curve[-1]) if self.n else 0
        self.classes = classes if true_codes is not None else None
        self.true_codes = true_codes if classes is not None else None
        self.class_counts = self.class_mistakes = None
        if self.true_codes is not None:
            if self.true_codes.shape[0] != self.n:
                raise ValueError(f"OnlineRun: true_codes has {self.true_codes.shape[0]} "
                                 f"entries for {self.n} examples")
            self.class_counts, self.class_mistakes = class_counts(self.true_codes, errors,
                                                                  len(classes))

    @classmethod
    def concatenate(cls, runs):
        """One record of consecutive runs (e.g. the passes of one learner): their arrays end
        to end, the counts (per class too) added; the per-class attributes are None unless
        every run knows the true classes, and the same ones."""
        runs = list(runs)
        if len(runs) == 1:
            return runs[0]
        codes, classes = None, runs[0].classes
        if classes is not None and all(r.true_codes is not None and
                                       np.array_equal(r.classes, classes) for r in runs):
            codes = np.concatenate([r.true_codes for r in runs])
        return cls(np.concatenate([r.predictions for r in runs]),
                   np.concatenate([r.errors for r in runs]),
                   np.concatenate([r.updated for r in runs]), codes,
                   classes if codes is not None else None)

    def __repr__(self):
        return f"OnlineRun(n={self.n}, mistakes={self.mistakes}, updates={self.updates})"

    def plot(self, ax=None, bound=None, label=None, updates=False, *, yscale="auto",
             legend=True, by_class=False, **style):
        """Draw the cumulative mistakes (or updates) against the examples seen, with the
        mistake bound as a dashed horizontal line of the curve's colour: a mistake bound caps
        the total, at every t.

        The figure is meant to be legible as it is: each curve drawn on the same Axes gets a
        colour no other line there has; the count axis turns logarithmic when the curves' totals
        and the bounds on the Axes span more than a decade (a bound of 18,900 over a curve that
        ends at 35 would otherwise flatten the curve to the floor); the legend is placed outside
        the Axes, to its right, so it never covers the data (a figure without a layout engine
        gets the constrained one, which makes room for it).

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
        yscale : {"auto", "linear", "log"} or None, default="auto"
            "auto": logarithmic when the largest of the totals and bounds drawn on the Axes is
            more than 10 times the smallest (positive) one, else the Axes' scale is left as it
            is (linear for a new Axes).  None leaves the scale alone.
        legend : bool, default=True
            Draw the legend (outside the Axes, upper left of the space to their right).
        by_class : bool, default=False
            One curve per true class instead of the total: the cumulative mistakes (or
            updates) on the examples of that class, each in a colour of its own, labelled with
            the class and its count of examples (a rare class whose every example is a mistake
            shows as a curve that climbs with each of its examples).  The bound, if given, is
            drawn once, in the first curve's colour.
        **style
            Passed to ``Axes.plot`` for the curve (color, linewidth, ...).

        Returns
        -------
        matplotlib Axes

        Raises
        ------
        ImportError
            When matplotlib is not installed (``pip install 'mbcore[plot]'``).
        ValueError
            ``by_class=True`` on a record made without the true classes.
        """
        if by_class and self.class_counts is None:
            raise ValueError("OnlineRun.plot: by_class=True needs the true class of each "
                             "example, and this record was made without them (run_online "
                             "records them)")
        plt = require_matplotlib("OnlineRun.plot")
        ax = plt.gca() if ax is None else ax
        if by_class:
            flags = np.asarray(self.updated if updates else self.errors, dtype=bool)
            codes = np.asarray(self.true_codes)
            curves = [(np.cumsum(flags & (codes == k), dtype=np.int64),
                       f"{label + ': ' if label else ''}class {_class_name(c)} "
                       f"({int(n):,} examples)")
                      for k, (c, n) in enumerate(zip(self.classes, self.class_counts))]
        else:
            curves = [(self.update_curve if updates else self.mistake_curve, label)]
        first = None
        for curve, name in curves:
            own = dict(style)
            if "color" not in own and "c" not in own:
                own["color"] = _unused_colour(ax)
            drawn, = ax.plot(np.arange(1, self.n + 1), curve, label=name, **own)
            drawn.set_gid(CURVE_GID)
            first = drawn if first is None else first
        line = first
        name = "bound"
        if bound is not None and hasattr(bound, "bound"):
            name = f"bound: {bound.bound_name}" if bound.bound is not None else name
            bound = bound.bound
        if bound is not None:
            value = float(bound)
            name = name.replace("bound", f"bound {count_text(value)}", 1)
            ax.axhline(value, color=line.get_color(), linestyle="--", linewidth=1,
                       label=f"{label} {name}" if label else name).set_gid(BOUND_GID)
        ax.set_xlabel("examples seen")
        ax.set_ylabel(("cumulative updates" if updates else "cumulative mistakes") +
                      (" on each class" if by_class else ""))
        if yscale == "auto":
            if decades_spanned(ax) > 1.0:
                ax.set_yscale("log")
        elif yscale is not None:
            ax.set_yscale(yscale)
        if legend and (label is not None or bound is not None or by_class):
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                      borderaxespad=0.0)
            fig = ax.figure
            if getattr(fig, "get_layout_engine", None) is not None and \
                    fig.get_layout_engine() is None:
                fig.set_layout_engine("constrained")
        return ax


def _class_name(label):
    """A class in a legend: an integral float without '.0' (svmlight's labels are floats)."""
    if hasattr(label, "item"):
        label = label.item()
    return str(int(label)) if isinstance(label, float) and label.is_integer() else str(label)


# -- figures ---------------------------------------------------------------------------------------
# Shared by OnlineRun.plot and ``mbcore plot``: the gid of the lines they draw (how a test or a
# caller tells the curves and bounds from other lines), the colours, and the scale rule.

CURVE_GID, BOUND_GID = "mbcore-curve", "mbcore-bound"


def distinct_colours(n):
    """``n`` colours, no two the same: tab10, then the five darkest of tab20b, then the light
    half of tab20 (25 in all), then evenly spaced hues."""
    from matplotlib import colormaps
    from matplotlib.colors import hsv_to_rgb, to_hex
    cols = [to_hex(c) for c in colormaps["tab10"].colors]
    cols += [to_hex(colormaps["tab20b"].colors[i]) for i in (0, 4, 8, 12, 16)]
    cols += [to_hex(colormaps["tab20"].colors[i]) for i in range(1, 20, 2)]
    extra = n - len(cols)
    for i in range(max(extra, 0)):
        c = to_hex(hsv_to_rgb((i / extra + 0.03, 0.7, 0.6 + 0.25 * (i % 2))))
        cols.append(c if c not in cols else to_hex(hsv_to_rgb((i / extra + 0.05, 0.9, 0.4))))
    return cols[:n]


def _unused_colour(ax):
    """The first of :func:`distinct_colours` that no line on ``ax`` has yet."""
    from matplotlib.colors import to_hex
    used = {to_hex(line.get_color()) for line in ax.lines}
    return next(c for c in distinct_colours(len(used) + 1) if c not in used)


def levels(ax):
    """The levels the count axis of ``ax`` must show: each mbcore curve's total and each
    bound (positive values only)."""
    out = []
    for line in ax.lines:
        if line.get_gid() in (CURVE_GID, BOUND_GID):
            y = np.asarray(line.get_ydata(), dtype=float)
            if y.size and np.nanmax(y) > 0:
                out.append(float(np.nanmax(y)))
    return out


def decades_spanned(ax):
    """log10(largest / smallest) of :func:`levels`; 0 when there is fewer than one level."""
    lv = levels(ax)
    return float(np.log10(max(lv) / min(lv))) if lv else 0.0


def count_text(value):
    """A count for a label: 54, 3.5, 18,900, 1.76 x 10^7 (mathtext)."""
    if value >= 1e6:
        mantissa, exponent = f"{value:.2e}".split("e")
        return f"${mantissa}\\times10^{{{int(exponent)}}}$"
    if value >= 100 or float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:.3g}"


def plural(count, word, many=None):
    """``"1 pass"``, ``"3 passes"``: the count and the word, in the right number."""
    if count == 1:
        return f"1 {word}"
    if many is None:
        many = word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")
    return f"{count:,} {many}"


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
    returning what was predicted before each label was revealed.  The call holds the learner's
    write lock throughout, the mapping of the predictions to labels included, so that another
    thread's ``fit`` comes wholly before or after it.

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
        With the true class of each example (``true_codes``) and the per-class counts.
    """
    # The pass and the mapping of its codes to labels under one hold of the learner's write
    # lock: the labels come from the ``classes_`` of the state the pass ran on (a ``fit`` of
    # another thread in between could reset or replace them).
    with holding(learner, write=True):
        pred, upd, yy = learner._online(X, y, classes, **fit_params)
        record = getattr(learner, "_record_labels", None)
        labels = record(pred) if record is not None else learner._labels(pred > 0)
        classes = learner.classes_
        codes = label_classes(learner, yy)
    return OnlineRun(labels, pred != yy, upd.astype(bool), codes, classes)


def play_against(learner, row):
    """One adversary round: show ``row`` (one row of X: a feature vector or a point index) to
    ``learner``, label it with the opposite of its prediction, and let it learn that.  Labels
    are 0/1 (``classes=[0, 1]``) for a learner that has seen nothing, else its own
    ``classes_``; such a learner cannot predict yet, so its first prediction is read from a copy
    that learns (row, 0): it predicted 1 iff that was a mistake.
    Returns the label given, 0 or 1 (1 = the learner's positive class).  The round holds the
    learner's write lock: the prediction, the labels and the update are of one state."""
    import copy
    with holding(learner, write=True):
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

