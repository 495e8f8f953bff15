"""The additive family: Perceptron, MarginPerceptron, AveragedPerceptron, OnlineHingeSVM,
PassiveAggressive (and KernelPerceptron, defined in :mod:`mbcore.kernel` and importable from here
too, as it was: old pickles name ``mbcore.linear.KernelPerceptron``).

Each class validates once in Python, then one compiled kernel does the whole pass with the GIL
released.  Their shared base, ``_Linear`` (the state, the compiled passes, the small-input paths,
the growth of the width, mixing), is in ``mbcore._additive`` (importable from here too).  The
pure-Python twin of each class, with the same name, is in ``mbref.linear``; the two agree bit for
bit (see ``mbref._arith`` for the summation order).
"""

import math

import numpy as np

from ._additive import _EXAMPLE_DATA, _HINGE, _MARGIN, _PA, _Linear, _raise_status
from ._kernels import linear as _k
from ._params import Choice, Custom, Real
from ._state import F8, I8, arr_list, need
from ._one import widen
from . import bounds as _bounds
from ._tags import tags
from .margins import cycled_separator  # noqa: F401  (now in mbcore.margins; for old imports)

__all__ = ["Perceptron", "MarginPerceptron", "AveragedPerceptron", "KernelPerceptron",
           "OnlineHingeSVM", "PassiveAggressive"]

_MULTI_PARAM = """multi_class : {"multiclass", "ovr"}, default="multiclass"
        The rule for three classes or more (two classes always take the binary rule):
        the genuinely multi-class rule, or one-vs-rest.  See "More than two classes"."""

_N_JOBS_PARAM = """n_jobs : int or None, default=None
        Threads of the online pass (``fit``, ``partial_fit``): None takes the environment
        variable ``MBCORE_NUM_THREADS`` if it is set, else every core; -1 every core.  The
        results are the same for any number: rows ahead are judged in parallel from the current
        weights, by the sequential arithmetic, and the pass updates at the first mistake of a
        block and judges again from the row after it (exact speculative passes).  With K >= 3
        classes and large rows, a stretch of dense mistakes also splits each row's K scores
        (and the Perceptron's update) between the threads, each score by the same arithmetic
        (see the threads guide)."""

_MULTI_RULES = """More than two classes (K >= 3; ``classes_`` sorted, class k = ``classes_[k]``;
    every argmax takes the smallest index among ties, so the first prediction is class 0):

    * ``multi_class="ovr"``: K binary learners in one compiled pass; learner k sees +1 when
      the label is class k and -1 otherwise and updates by its own binary rule above; the
      prediction is the class whose learner has the highest decision value.  Guarantee: a
      multi-class mistake needs a binary one, so the mistakes are at most the sum of the K
      binary bounds (``mbcore.bounds.ovr_bound``), each under its own assumptions."""


class Perceptron(_Linear):
    __doc__ = """Rosenblatt's Perceptron, the classic mistake-driven linear learner.

    Update rule (Balcan lecture 3 §1; Kanade Alg. 3; Angluin lecture 23; Kakade Alg. 1):
    start from w = 0; predict +1 iff w·x > 0 (``tie="negative"``; ``tie="positive"`` gives
    Kanade's sign(0) = +1); on a mistake, w ← w + η·y·x.  The learning rate η only rescales w
    when w starts at 0; it matters when ``fit`` is given ``coef_init``.

    Mistake bound (Novikoff 1962; Block 1962; the Perceptron mistake-bound slides; Kanade
    Thm 9): if ‖x_t‖ ≤ R and some unit u has y_t u·x_t ≥ γ > 0 for every t, the number of
    mistakes is at most (R/γ)², or (‖u‖R/γ)² for a u that is not unit length.  Without a
    separator (Balcan): with unit-length x and any unit u,
    M ≤ 1/γ² + (2/γ)·TD_γ, TD_γ = Σ_t max(0, γ − y_t u·x_t).

    {_MULTI_RULES}
    * ``multi_class="multiclass"`` (the default): the multi-class Perceptron (Kesler's
      construction, Duda & Hart 1973; Crammer & Singer 2003, uniform update): W = 0
      (K x d); predict ŷ = argmax_k w_k·x (+ b_k); on a mistake w_y ← w_y + ηx and
      w_ŷ ← w_ŷ − ηx.  Bound: if ‖x_t‖ ≤ R and some U with unit Frobenius norm has
      u_{y_t}·x_t − u_k·x_t ≥ γ > 0 for every k ≠ y_t, mistakes ≤ 2R²/γ² (the Kesler vectors
      have norm √2‖x‖; ``mbcore.bounds.multiclass_perceptron_bound``).

    Parameters
    ----------
    tie : {"negative", "positive"}, default="negative"
        The prediction when w·x = 0.
    normalize : bool, default=False
        Scale each example to unit length before use (Balcan's convention; a zero vector stays
        zero).  With ``fit_intercept`` the augmented vector (x, 1) is scaled.
    fit_intercept : bool, default=False
        Append a constant coordinate 1 (the notes' dummy input x₀); its weight is
        ``intercept_``.
    eta : float, default=1.0
        Learning rate η > 0.
    max_epochs : int, default=100
        Passes ``fit`` may make before it gives up on a clean pass.
    {_MULTI_PARAM}
    {_N_JOBS_PARAM}
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplying ``sample_weight`` (as in scikit-learn): a dict
        {label: weight >= 0} (labels left out weigh 1), or "balanced":
        n_samples / (n_classes * np.bincount(y)) over the y given to ``fit`` (``partial_fit``
        refuses it, as scikit-learn's does: one batch's class frequencies are not the stream's;
        compute the weights once and pass them as a dict).
    record_updates : bool, default=False
        Keep the record of the updates (the dual form: the example index and the coefficient
        of each update, and its class with K >= 3 classes; one int64 and one float64 each),
        for :func:`mbcore.explain`'s split of a score over the training examples.  It is
        state: saved, copied, reset by ``fit``; switched on later, it starts from the weights
        then.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,), or (K, n_features) with K >= 3 classes
    intercept_ : float, or ndarray of shape (K,) with K >= 3 classes
    mistakes_, updates_, n_seen_ : int
        Online counts over all calls (``updates_ == mistakes_`` for the Perceptron; with
        one-vs-rest, ``updates_`` counts the examples on which some learner updated).
    classes_ : ndarray of shape (2,) or (K,)
        The labels, sorted; with two, the second is the positive class.
    n_features_in_ : int
    converged_, cycled_, n_iter_, epoch_mistakes_, epoch_updates_
        Set by ``fit``.

    Notes
    -----
    Sample weights (``fit``, ``partial_fit`` and ``run_online`` take ``sample_weight``, 1-D of
    n_samples finite values >= 0, times ``class_weight``): a mistake on a row of weight s adds
    η·s·y·x, the update scikit-learn's Perceptron makes; a row of weight 0 is predicted and its
    mistake counted in ``mistakes_``, but it never updates (nor counts in ``updates_``).  A
    weight is not a repetition: s = 2 is one step of 2η, while the row given twice is two
    steps, the second judged after the first.  ``mistakes_`` stays a count; the notes give no
    weighted bound, and Novikoff's argument carried through with the weights gives one
    (:func:`mbcore.bounds.weighted_perceptron_bound`, proved in its docstring): on rows of
    weight in [s_min, s_max] with s_min > 0, the mistakes on them are at most
    (R/γ)²(s_max/s_min)², and their weights sum to at most s_max (R/γ)².  Without weights the
    pass is the unweighted one, unchanged; all-ones weights give the same results bit for bit.

    Numerics: dot products use four interleaved partial sums combined as (s0+s1)+(s2+s3), with
    no fused multiply-add, exactly as the pure-Python twin ``mbref.Perceptron`` does, so both give
    the same predictions on any data.  A row with NaN or infinity, or an overflow, raises
    ValueError and leaves the learner as it was before the call.

    Examples
    --------
    {_EXAMPLE_DATA}
    >>> from mbcore import MarginPerceptron, Perceptron, run_online
    >>> from mbcore.bounds import margin, perceptron_bound, radius
    >>> run = run_online(Perceptron(), X, y)   # one online pass, predictions made before labels
    >>> clf = Perceptron().fit(X, y)           # cycle until a clean pass: mushrooms is separable
    >>> clf.converged_, bool((clf.predict(X) == y).all())
    (True, True)

    Any separator certifies the bound; one with a positive margin comes from the Margin
    Perceptron (at convergence every unit-length example has margin >= gamma/2):

    >>> u = MarginPerceptron(gamma=0.05).fit(X, y).coef_
    >>> gamma = margin(X, y, u)
    >>> bool(gamma > 0 and run.mistakes <= perceptron_bound(radius(X), gamma))
    True

    Ten classes: the bundled MNIST digits, one online pass on the even rows, tested on the odd
    rows; ``fit`` cycles until a clean pass (this slice is separable):

    >>> from mbcore.datasets import load_mnist
    >>> Xd, yd = load_mnist()                       # 1,000 images of 784 pixels, digits 0..9
    >>> mc = Perceptron().partial_fit(Xd[::2], yd[::2])
    >>> mc.mistakes_, mc.coef_.shape, mc.decision_function(Xd[:3]).shape
    (196, (10, 784), (3, 10))
    >>> round(mc.score(Xd[1::2], yd[1::2]), 3)
    0.734
    >>> Perceptron().fit(Xd, yd).converged_
    True
    """.replace("{_EXAMPLE_DATA}", _EXAMPLE_DATA.strip("\n").lstrip()).replace(
        "{_MULTI_RULES}", _MULTI_RULES).replace("{_MULTI_PARAM}", _MULTI_PARAM).replace(
        "{_N_JOBS_PARAM}", _N_JOBS_PARAM)

    # timed beside it by ``mbcore bench``
    _TAGS = tags(peer=("sklearn.linear_model.Perceptron",
                       lambda p: {"fit_intercept": p["fit_intercept"], "shuffle": False}),
                 bound="perceptron", multi_bound="multiclass")

    def _margin_bound(self, R, gamma):
        return ("Novikoff (R/gamma)^2", _bounds.perceptron_bound(R, gamma),
                "Novikoff/Block; Kanade Thm 9")

    def _kesler_bound(self, R, gamma):
        return ("multi-class Perceptron 2R^2/gamma^2 (Kesler)",
                _bounds.multiclass_perceptron_bound(R, gamma),
                "Kesler's construction (Duda & Hart 1973); Crammer & Singer 2003")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"tie": "positive", "fit_intercept": True}]

    _INTEGER_EXACT = True   # with a dyadic eta and no normalisation (tests/_cases.py)

    def __init__(self, tie="negative", normalize=False, fit_intercept=False, eta=1.0,
                 max_epochs=100, multi_class="multiclass", n_jobs=None,
                 class_weight=None, record_updates=False):
        self.tie = tie
        self.normalize = normalize
        self.fit_intercept = fit_intercept
        self.eta = eta
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.class_weight = class_weight
        self.record_updates = record_updates
        self.n_jobs = n_jobs

    _OVERFLOW_HINT = "scale X down or lower eta"
    _PARAMETERS = {"eta": Real(0)}


class AveragedPerceptron(Perceptron):
    __doc__ = """The averaged and the voted Perceptron (Freund & Schapire 1999), for the
    online-to-batch step.

    Online, it is exactly :class:`Perceptron` (same predictions, mistakes and updates).  What it
    adds is the hypothesis used by ``predict``:

    * ``mode="average"``: the average of the weight vectors after each example,
      w̄ = (1/T) Σ_{t=1..T} w_{t+1}, kept in O(1) extra work per update by the accumulator
      u = Σ_k t_k Δ_k (w̄ = w + (w − u)/T);
    * ``mode="vote"``: the voted Perceptron, sign(Σ_k c_k sign(v_k·x)) over every prediction
      vector v_k with c_k the number of examples it survived (memory grows with the mistakes).

    Mistake bound: that of the Perceptron for the online run, (R/γ)² on data separable with
    margin γ (Novikoff; Kanade Thm 9); Freund & Schapire bound the voted hypothesis' expected
    error by the same quantity over the training-set size.

    More than two classes (``mode="average"``; the voted mode takes two): online exactly the
    multi-class or one-vs-rest :class:`Perceptron`, with every class's weights averaged the
    same way for ``predict`` (the accumulator of class k gains t·c·x with each update c·x of
    w_k); the bounds are the Perceptron's.

    Parameters
    ----------
    mode : {"average", "vote"}, default="average"
    tie, normalize, fit_intercept, eta, max_epochs, multi_class, n_jobs, class_weight
        As for :class:`Perceptron`; a sample weight s scales each update (and so its share of
        the average) as it does the Perceptron's; the voted mode's counts stay the number of
        examples each vector survived.
    record_updates : bool, default=False
        Keep the record of the updates (the dual form: the example index and the coefficient
        of each update, and its class with K >= 3 classes; one int64 and one float64 each),
        for :func:`mbcore.explain`'s split of a score over the training examples.  It is
        state: saved, copied, reset by ``fit``; switched on later, it starts from the weights
        then.

    Attributes
    ----------
    coef_, intercept_ : the averaged weights (mode "average" or "vote")
    vote_vectors_ : ndarray of shape (K, n_features [+1]), mode "vote"
    vote_counts_ : ndarray of shape (K,), mode "vote"

    Examples
    --------
    {_EXAMPLE_DATA}
    >>> from mbcore import AveragedPerceptron
    >>> avg = AveragedPerceptron().partial_fit(X[::2], y[::2])   # train on even rows
    >>> bool(avg.score(X[1::2], y[1::2]) > 0.9)                   # test on odd rows
    True
    >>> vote = AveragedPerceptron(mode="vote").partial_fit(X[::2], y[::2])
    >>> int(vote.vote_counts_.sum()) == vote.n_seen_
    True

    The averaged weights generalise better than the last ones on the bundled MNIST digits
    (ten classes; the :class:`Perceptron` example reaches 0.734 on the same split):

    >>> from mbcore.datasets import load_mnist
    >>> Xd, yd = load_mnist()
    >>> avg10 = AveragedPerceptron().partial_fit(Xd[::2], yd[::2])
    >>> avg10.mistakes_, round(avg10.score(Xd[1::2], yd[1::2]), 3)
    (196, 0.81)
    """.replace("{_EXAMPLE_DATA}", _EXAMPLE_DATA.strip("\n").lstrip())

    _TAGS = tags(mix=None,
                 no_mix=("its hypothesis is the average over the whole sequence of states, "
                         "which mixing at epoch boundaries does not define; train a Perceptron "
                         "with ipm_fit (the mixing is itself an average)"),
                 peer=None)     # (scikit-learn has no averaged Perceptron)

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"mode": "vote"}]

    _FITTED = ("coef_", "intercept_", "vote_vectors_", "vote_counts_")     # (tests/_cases.py)

    def __init__(self, mode="average", tie="negative", normalize=False, fit_intercept=False,
                 eta=1.0, max_epochs=100, multi_class="multiclass", n_jobs=None,
                 class_weight=None, record_updates=False):
        self.mode = mode
        super().__init__(tie=tie, normalize=normalize, fit_intercept=fit_intercept, eta=eta,
                         max_epochs=max_epochs, multi_class=multi_class, n_jobs=n_jobs,
                         class_weight=class_weight, record_updates=record_updates)

    _PARAMETERS = {"mode": Choice("average", "vote")}

    def _validate_params(self):
        super()._validate_params()
        if self.mode == "vote" and self._K() > 1:
            raise self._vote_error(self.classes_)

    def _averaging(self):
        return True

    @property
    def _sk_multiclass(self):
        return self.mode != "vote"       # (scikit-learn's tag: the voted mode takes two)

    def _fast_path(self):
        # The voted mode records every prediction vector in _pass: no one-row shortcut.
        return None if self.mode == "vote" else super()._fast_path()

    def _infer_classes(self, y, classes):
        cl = super()._infer_classes(y, classes)
        if self.mode == "vote" and cl.shape[0] > 2:
            if classes is not None:
                raise ValueError(f"{self._owner}: classes must hold exactly two distinct labels "
                                 f"with mode='vote' (only binary classification is supported), "
                                 f"got {cl.tolist()!r}")
            raise self._vote_error(cl)
        return cl

    def _vote_error(self, classes):
        cl = np.asarray(classes).tolist()
        shown = repr(cl[:10]) + (f" and {len(cl) - 10} more" if len(cl) > 10 else "")
        return ValueError(f"{self._owner}: y has more than two labels ({len(cl)}: {shown}). "
                          "Only binary classification is supported with mode='vote'")

    def _init_state(self, d, w_init=None):
        super()._init_state(d, w_init)
        self._votes = [self._w.copy()[None, :]]
        self._vote_c = [np.zeros(1, dtype=np.int64)]

    _STATE = dict(_Linear._STATE, _votes=arr_list(F8, 2), _vote_c=arr_list(I8, 1))

    def _grow_state(self, d):
        self._votes = [self._widened(a, d) for a in self._votes]
        super()._grow_state(d)

    def _check_state(self, st):
        super()._check_state(st)
        V, C = st["_votes"], st["_vote_c"]
        D = st["_w"].shape[0]
        need(len(V) == len(C), f"{self._owner}: _votes and _vote_c differ in length")
        for a, c in zip(V, C):
            need(a.shape[1] == D and a.shape[0] == c.shape[0] >= 1 and (c >= 0).all() and
                 np.isfinite(a).all(), f"{self._owner}: the vote arrays do not match the weights")
        # every example seen gives one vote to the vector that predicted it (the predictions
        # read only the vectors with votes: there is at least one)
        need(self.mode != "vote" or sum(int(c.sum()) for c in C) == int(st["_counts"][0]),
             f"{self._owner}: the vote counts do not add up to n_seen_")


    def _pass(self, batch, yy, pred, upd):
        if self.mode != "vote":
            return super()._pass(batch, yy, pred, upd)
        w0 = self._w.copy()
        if upd is None:
            upd = np.empty(batch.n, dtype=np.uint8)
        super()._pass(batch, yy, pred, upd)
        rows = np.flatnonzero(upd).astype(np.int64)
        self._vote_c[-1][-1] += rows[0] if rows.shape[0] else batch.n
        if rows.shape[0] == 0:
            return
        V = np.empty((rows.shape[0], w0.shape[0]))
        args = (w0, self._d, self.fit_intercept, self.normalize, float(self.eta))
        _k.replay(*args, batch.arrays, rows, yy, V, batch.sw)
        c = np.empty(rows.shape[0], dtype=np.int64)
        c[:-1] = np.diff(rows)
        c[-1] = batch.n - rows[-1]
        self._votes.append(V)
        self._vote_c.append(c)
        # Merge the last pieces while the one before is at most twice as long: O(log K) pieces,
        # each vector copied O(log K) times in all.  Done here, in a call that changes the state
        # anyway (and is all or nothing), so that reading the votes changes nothing.
        while len(self._votes) > 1 and \
                self._votes[-2].shape[0] <= 2 * self._votes[-1].shape[0]:
            self._votes[-2:] = [np.concatenate(self._votes[-2:])]
            self._vote_c[-2:] = [np.concatenate(self._vote_c[-2:])]

    def _dict_mode(self):
        # the voted Perceptron keeps every prediction vector at the width it had: its names
        # are given up front (features=)
        return "fixed" if self.mode == "vote" else "grow"

    def _grow_features(self, d):
        d0 = self._d
        undo_w = super()._grow_features(d)
        # (mode="average": the one vote vector is the initial w, widened like w)
        old = self._votes[0]
        self._votes[0] = widen(old.ravel(), d0, d, old.shape[1] - d0).reshape(1, -1)

        def undo():
            self._votes[0] = old
            undo_w()
        return undo

    def _average(self):
        T = float(self._counts[0])
        if T == 0.0:
            return self._w.copy()
        return self._w + (self._w - self._u) / T

    def _weights(self):
        return self._average()

    def _rec_effective(self, idx):
        # the average w + (w - u)/T with w = w0 + sum c_j x_j, u = u0 + sum t_j c_j x_j
        # (t_j = idx_j + 1): the start w0 + (w0 - u0)/T and c_j (T - idx_j)/T
        T = int(self._counts[0])
        if T == 0:
            return super()._rec_effective(idx)
        w0, u0 = self._rec_w0, self._rec_u0
        return w0 + (w0 - u0) / T, self._rec_coef * ((T - idx) / T), None, 3

    def _flag_weights(self):
        return (self._average(), 1.0) if self.mode == "average" else None

    def _explanation(self, x, X_train):
        if self.mode == "vote":
            raise ValueError(f"{self._owner}: parameter mode is 'vote': the voted Perceptron's "
                             "prediction is a vote, not a sum, and has no explanation (use "
                             "mode='average')")
        return super()._explanation(x, X_train)

    def _vote_arrays(self):
        # Read only: predict, decision_function and score leave the learner exactly as it was
        # (also when they raise); _pass keeps the pieces few.
        V = np.concatenate(self._votes) if len(self._votes) > 1 else self._votes[0]
        c = np.concatenate(self._vote_c) if len(self._vote_c) > 1 else self._vote_c[0]
        keep = c > 0
        return np.ascontiguousarray(V[keep]), np.ascontiguousarray(c[keep])

    @property
    def vote_vectors_(self):
        """The prediction vectors v_k with a positive survival count (mode "vote")."""
        self._check_fitted("vote_vectors_")
        return self._vote_arrays()[0]

    @property
    def vote_counts_(self):
        """The survival count c_k of each vote vector (mode "vote")."""
        self._check_fitted("vote_counts_")
        return self._vote_arrays()[1]

    def _scores(self, batch):
        self._state()  # re-validates parameters changed since the last call
        if self.mode == "average":
            return self._raw_scores(batch, self._average())
        V, c = self._vote_arrays()
        out = np.empty(batch.n)
        tie = self.tie == "positive"
        status, bad = _k.vote_scores(V, c, self._d, self.fit_intercept, self.normalize, tie,
                                     batch.arrays, out)
        _raise_status(self, batch, status, bad)
        return out


class MarginPerceptron(_Linear):
    __doc__ = """Balcan's Margin Perceptron(γ): the Perceptron that also updates on margin
    mistakes, to approximately maximise the margin.

    Update rule (Balcan lecture 3 §1.1): examples are scaled to unit length.  Predict +1 if
    w·x/‖w‖ ≥ γ/2, −1 if ≤ −γ/2; strictly in between is a *margin mistake* (the prediction is
    then the sign, with the tie rule).  While ‖w‖ = 0 every example is a margin mistake, so the
    first example gives w = y₁x₁ (the notes' w₁ = ℓ(x)x).  On a wrong prediction or a margin
    mistake: w ← w + y·x.  ``margin_fraction`` f sets the threshold f·γ (the notes' γ/2 is
    f = 1/2; their generalisation (1−ε)γ is f = 1−ε).

    Mistake bound (Balcan Thm 2): if the unit-length examples are separable by a unit u with
    margin γ, the number of updates (wrong predictions plus margin mistakes) is at most 12/γ².

    {_MULTI_RULES}
    * ``multi_class="multiclass"`` (the default): Kesler's construction with Balcan's rule.
      s_k = w_k·x (+ b_k) on the unit-length x; ŷ = argmax_k s_k; r = argmax_{k≠y} s_k (the top
      rival); the multi-class margin is m = (s_y − s_r)/‖W‖_F (0 while W = 0).  Update when
      ŷ ≠ y or m < fγ: w_y ← w_y + x, w_r ← w_r − x.  This is the binary rule run on the unit
      Kesler vectors (e_y − e_r)⊗x/√2 with margin parameter γ/√2, so if some U with unit
      Frobenius norm has u_y·x − u_k·x ≥ γ for every k ≠ y on the unit-length rows, the updates
      are at most 24/γ² (f = 1/2; ``mbcore.bounds.multiclass_margin_perceptron_bound``).
      ``decision_function`` gives s_k/‖W‖_F; ``predict`` takes the argmax of s_k.

    Parameters
    ----------
    gamma : float, default=0.1
        The margin γ > 0 the learner aims for.
    margin_fraction : float in (0, 1], default=0.5
    tie : {"negative", "positive"}, default="negative"
    fit_intercept : bool, default=False
        Append the constant coordinate 1 before scaling to unit length.
    max_epochs : int, default=100
    {_MULTI_PARAM}
    {_N_JOBS_PARAM}
    class_weight : dict, "balanced" or None, default=None
        As for :class:`Perceptron`.  A row of sample weight s updates by s·y·x/‖x‖ (no weighted
        form of the 12/γ² bound is claimed: the notes give none).
    record_updates : bool, default=False
        Keep the record of the updates (the dual form: the example index and the coefficient
        of each update, and its class with K >= 3 classes; one int64 and one float64 each),
        for :func:`mbcore.explain`'s split of a score over the training examples.  It is
        state: saved, copied, reset by ``fit``; switched on later, it starts from the weights
        then.

    Attributes
    ----------
    coef_, intercept_, mistakes_, updates_, n_seen_, classes_, n_features_in_

    Notes
    -----
    ``decision_function`` returns the normalised margin w·x/‖w‖ of the unit-length example
    (0 while w = 0).  ‖w‖² is recomputed after every update in the fixed summation order, so it
    does not drift over long runs.

    Examples
    --------
    {_EXAMPLE_DATA}
    >>> from mbcore import MarginPerceptron
    >>> from mbcore.bounds import margin_perceptron_bound
    >>> clf = MarginPerceptron(gamma=0.05).fit(X, y)
    >>> clf.converged_, bool((clf.predict(X) == y).all())
    (True, True)
    >>> round(margin_perceptron_bound(0.05))   # updates bound if the data has margin 0.05
    4800

    Ten classes (the bundled MNIST digits): margin mistakes add updates beyond the mistakes.

    >>> from mbcore.datasets import load_mnist
    >>> Xd, yd = load_mnist()
    >>> m10 = MarginPerceptron().partial_fit(Xd[::2], yd[::2])
    >>> m10.mistakes_, m10.updates_, round(m10.score(Xd[1::2], yd[1::2]), 3)
    (189, 329, 0.742)
    """.replace("{_EXAMPLE_DATA}", _EXAMPLE_DATA.strip("\n").lstrip()).replace(
        "{_MULTI_RULES}", _MULTI_RULES).replace("{_MULTI_PARAM}", _MULTI_PARAM).replace(
        "{_N_JOBS_PARAM}", _N_JOBS_PARAM)

    _algo = _MARGIN

    # its bound is on the updates
    _TAGS = tags(bound="margin perceptron", multi_bound="multiclass margin perceptron",
                 bound_counts="updates")

    def _search_learner(self):
        return MarginPerceptron(gamma=float(self.gamma), margin_fraction=1.0, tie=self.tie,
                                fit_intercept=self.fit_intercept, max_epochs=100,
                                multi_class="multiclass")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"gamma": 0.2}]

    def __init__(self, gamma=0.1, margin_fraction=0.5, tie="negative", fit_intercept=False,
                 max_epochs=100, multi_class="multiclass", n_jobs=None, class_weight=None,
                 record_updates=False):
        self.gamma = gamma
        self.margin_fraction = margin_fraction
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.class_weight = class_weight
        self.record_updates = record_updates
        self.n_jobs = n_jobs

    _PARAMETERS = {"gamma": Real(0), "margin_fraction": Real(0, 1)}

    def _init_state(self, d, w_init=None):
        super()._init_state(d, w_init)
        self._aux[1:] = self._norms(self._w, d)

    def _norms(self, w, d):
        """[||w||^2] for two classes; [||W||_F^2, ||w_0||^2, ..., ||w_{K-1}||^2] for K >= 3
        (each class in the kernels' order, the total summed left to right)."""
        K, icpt = self._K(), bool(self.fit_intercept)
        if K == 1:
            return [_k.sqnorm(w, d, icpt)]
        W = w.reshape(-1, K)
        sq = [_k.sqnorm(np.ascontiguousarray(W[:, k]), d, icpt) for k in range(K)]
        total = 0.0
        for v in sq:
            total = total + v
        return [total] + sq

    def _check_state(self, st):
        super()._check_state(st)
        # ||w||^2 (each class's, and their sum) is recomputed after every update (the
        # prediction divides by its root)
        need([float(v) for v in st["_aux"][1:]] == self._norms(st["_w"], st["_d"]),
             f"{self._owner}: _aux[1:] are not the squared norms of the weights")


    def _normalizes(self):
        return True

    def _eta(self):
        return 1.0

    def _thr(self):
        return float(self.margin_fraction) * float(self.gamma)

    def _flag_weights(self):
        return None  # the prediction is the sign of w.x/||w||, which may round to 0

    def _scores(self, batch):
        s = self._raw_scores(batch, self._w)
        if self._K() > 1 and self.multi_class == "ovr":
            return self._per_class(s)
        nw = math.sqrt(self._aux[1])
        return s / nw if nw > 0.0 else np.zeros_like(s)

    def _explain_post(self, x):
        inv = super()._explain_post(x)[0]
        if self._K() > 1 and self.multi_class == "ovr":
            return inv, np.sqrt(self._aux[2:])
        return inv, math.sqrt(self._aux[1])

    def _per_class(self, s):
        """Each one-vs-rest learner's normalised margin s_k / ||w_k|| (0 while w_k = 0)."""
        nw = np.sqrt(self._aux[2:])
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(nw > 0.0, s / np.where(nw > 0.0, nw, 1.0), 0.0)

    def _class_scores(self, batch):
        s = self._raw_scores(batch, self._w)
        return self._per_class(s) if self.multi_class == "ovr" else s


def _pegasos_or_real(owner, name, value):
    if isinstance(value, str) and value == "pegasos":
        return value
    return Real(0, what='"pegasos" or a finite real > 0').check(owner, name, value)


class OnlineHingeSVM(_Linear):
    __doc__ = """Online subgradient descent on the L2-regularised hinge loss (a linear SVM
    trained online; Pegasos steps by default).

    Update rule (Kakade CSE 546 lecture 9 §3): the hinge loss ℓ(w; (x, y)) = max{0, 1 − y w·x}
    has subgradient −y·x when y w·x < 1.  Objective (λ/2)‖w‖² + average hinge loss (the notes
    write λ‖w‖², i.e. their λ is our λ/2).  Step t: predict sign(w·x); then
    w ← (1 − η_t λ) w, and w ← w + η_t y x if y w·x < 1 (a *margin mistake*, evaluated with the
    weights before the step).  η_t = 1/(λt) (Pegasos; Shalev-Shwartz et al. 2007), or a constant.
    The intercept, if any, is not regularised.

    Bound: Pegasos reaches ε accuracy on the objective in Õ(1/(λε)) steps (Shalev-Shwartz et al.
    2007); the online hinge regret is O(log T / λ) for the strongly convex objective.  This is a
    regret bound, not a mistake bound; ``updates_`` counts the steps where the hinge loss was
    positive and ``mistakes_`` the wrong predictions.

    {_MULTI_RULES}
    * ``multi_class="multiclass"`` (the default): Crammer & Singer's (2001) multi-class hinge
      loss max{0, 1 − (s_y − s_r)} with r = argmax_{k≠y} s_k (the top rival), s_k = a w_k·x +
      b_k: every step shrinks all classes, W ← (1 − η_t λ)W (one shared scale a), and when
      s_y − s_r < 1 (before the step), w_y ← w_y + η_t x and w_r ← w_r − η_t x.  A regret
      bound again, not a mistake bound.

    Parameters
    ----------
    lam : float, default=0.01
        Regularisation λ > 0.
    eta : "pegasos" or float, default="pegasos"
        Step size: 1/(λt), or a constant η with η·λ ≤ 1.
    tie, normalize, fit_intercept
        As for :class:`Perceptron`.
    max_epochs : int, default=5
    {_MULTI_PARAM}
    class_weight : dict, "balanced" or None, default=None
        As for :class:`Perceptron`.  A row of sample weight s takes the hinge step η_t·s·y·x
        (the weighted hinge loss's subgradient, as scikit-learn's SGDClassifier); the shrink
        (1 − η_t λ) belongs to the regulariser, not to the row, and applies on every row, weight
        0 included (such a row makes no hinge step and does not count in ``updates_``).
    record_updates : bool, default=False
        Keep the record of the updates (the dual form: the example index and the coefficient
        of each update, and its class with K >= 3 classes; one int64 and one float64 each),
        for :func:`mbcore.explain`'s split of a score over the training examples.  It is
        state: saved, copied, reset by ``fit``; switched on later, it starts from the weights
        then.

    Notes
    -----
    w is stored as a·v so that the shrink step costs O(1) (sparse rows cost their non-zeros);
    when a falls below 1e-9 it is folded into v, and a shrink to exactly 0 (the first Pegasos
    step) zeroes v.  The twin does the same at the same moments.

    The pass runs on one thread (there is no ``n_jobs``): the shrink step changes the state on
    every example, so no row can be judged ahead from the current weights, which is what the
    exact parallel passes of the Perceptrons and Winnows do.

    Examples
    --------
    {_EXAMPLE_DATA}
    >>> from mbcore import OnlineHingeSVM
    >>> svm = OnlineHingeSVM(lam=1e-4).fit(X[::2], y[::2])   # train on even rows
    >>> bool(svm.score(X[1::2], y[1::2]) > 0.9)
    True

    Ten classes (the bundled MNIST digits), with one shared scale for the K weight vectors:

    >>> from mbcore.datasets import load_mnist
    >>> Xd, yd = load_mnist()
    >>> svm10 = OnlineHingeSVM().partial_fit(Xd[::2], yd[::2])
    >>> svm10.mistakes_, svm10.updates_, round(svm10.score(Xd[1::2], yd[1::2]), 3)
    (201, 214, 0.762)
    """.replace("{_EXAMPLE_DATA}", _EXAMPLE_DATA.strip("\n").lstrip()).replace(
        "{_MULTI_RULES}", _MULTI_RULES).replace("{_MULTI_PARAM}", _MULTI_PARAM)

    _algo = _HINGE

    # timed beside it by ``mbcore bench``
    _TAGS = tags(peer=("sklearn.linear_model.SGDClassifier",
                       lambda p: {"loss": "hinge", "shuffle": False, "learning_rate": "optimal"}))

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"lam": 0.1}]

    def __init__(self, lam=0.01, eta="pegasos", tie="negative", normalize=False,
                 fit_intercept=False, max_epochs=5, multi_class="multiclass", class_weight=None,
                 record_updates=False):
        self.lam = lam
        self.eta = eta
        self.tie = tie
        self.normalize = normalize
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.class_weight = class_weight
        self.record_updates = record_updates

    _OVERFLOW_HINT = "scale X down or raise lam"
    _PARAMETERS = {"lam": Real(0), "eta": Custom(
        _pegasos_or_real, '"pegasos" or a finite real > 0', refused=("fast", 0, -1.0, math.nan,
                                                                     math.inf, None))}

    def _validate_params(self):
        super()._validate_params()
        if not isinstance(self.eta, str) and float(self.eta) * float(self.lam) > 1.0:
            raise ValueError(f"{self._owner}: parameters eta * lam must be <= 1 (the weights "
                             f"would change sign), got eta={self.eta!r}, lam={self.lam!r}")

    def _pegasos(self):
        return isinstance(self.eta, str)

    def _eta(self):
        return 0.0 if self._pegasos() else float(self.eta)

    def _lam(self):
        return float(self.lam)

    def _cycle_key(self):
        return None

    def _weights(self):
        w = self._w.copy()
        w[:self._d * self._K()] *= self._aux[0]
        return w

    def _scale_reached(self, a):
        # a product of factors in [0, 1], reset to 1 when it reaches 0
        return 0.0 < a <= 1.0

    def _rec_effective(self, idx):
        # w = a v: every row t shrinks the features by f_t (1 - 1/t, Pegasos; 1 - eta lam
        # otherwise), the intercept never; so update j (row t_j = idx_j + 1) weighs
        # c_j prod_{t > t_j} f_t = c_j t_j / T (Pegasos) or c_j f^(T - t_j) in the features and
        # c_j in the intercept, and the start (a0 w0 at row t0) the same from t0
        T, t0 = int(self._counts[0]), int(self._rec_t[0])
        K, d = self._K(), self._d
        t = idx + 1
        if self._pegasos():
            F = t / T
            Fs = t0 / T if T else 1.0
        else:
            f = 1.0 - float(self.eta) * float(self.lam)
            F = f ** (T - t).astype(np.float64)
            Fs = f ** float(T - t0)
        start = self._rec_w0.copy()
        start[:d * K] = (self._rec_a0[0] * self._rec_w0[:d * K]) * Fs
        return start, self._rec_coef * F, self._rec_coef, T - t0 + 2



_PA_VARIANTS = ("PA", "PA-I", "PA-II")
_PA_THEOREMS = {"PA": "Theorem 2", "PA-I": "Theorem 4", "PA-II": "Theorem 5"}


class PassiveAggressive(_Linear):
    __doc__ = """The Passive-Aggressive algorithms PA, PA-I and PA-II of Crammer, Dekel, Keshet,
    Shalev-Shwartz and Singer (2006): the smallest change of w that gives the current example
    a margin of 1.

    Update rule: predict sign(w·x) (a score of 0 by the tie rule).  With the hinge loss
    ℓ = max{0, 1 − y w·x}, *passive* when ℓ = 0; else *aggressive*: w ← w + τ y x with

    * PA: τ = ℓ/‖x‖² (the projection onto {w : y w·x ≥ 1});
    * PA-I: τ = min(C, ℓ/‖x‖²) (at most C: a hinge-loss slack);
    * PA-II: τ = ℓ/(‖x‖² + 1/(2C)) (a squared slack).

    With ``fit_intercept`` the constant coordinate 1 is part of x (also in ‖x‖²).  A row whose
    ‖x‖² (+ 1/(2C)) is 0 or overflows is not an update (PA and PA-I leave a zero row alone).
    ``updates_`` counts the rows with ℓ > 0 that moved w; ``mistakes_`` the wrong predictions.

    Mistake bounds (Crammer et al. 2006; :func:`mbcore.bounds.passive_aggressive_bound`), for
    rows with ‖x‖ ≤ R and any vector u with hinge losses ℓ*_t:

    * PA, u with y u·x ≥ 1 on every row (Theorem 2): mistakes ≤ Σ ℓ_t² ≤ ‖u‖² R²; with a
      unit u of margin γ, R²/γ² (the Perceptron's bound);
    * PA-I (Theorem 4): mistakes ≤ max{R², 1/C} (‖u‖² + 2C Σ ℓ*_t);
    * PA-II (Theorem 5): mistakes ≤ (R² + 1/(2C)) (‖u‖² + 2C Σ (ℓ*_t)²).

    ``certify`` checks the separable forms (a unit u of margin γ: u/γ, ℓ* = 0).

    {_MULTI_RULES}
    * ``multi_class="multiclass"`` (the default): Crammer et al.'s multi-class rule (their
      section 7, with the top rival): s_k = w_k·x (+ b_k), ŷ = argmax_k s_k,
      r = argmax_{k≠y} s_k, ℓ = max{0, 1 − (s_y − s_r)}; when ℓ > 0, w_y ← w_y + τx and
      w_r ← w_r − τx, with τ computed as above from ‖z‖² = 2‖x‖² (z = (e_y − e_r)⊗x, Kesler's
      vector).  The binary bounds hold with R² replaced by 2R² and a U whose rows give
      u_y·x − u_k·x ≥ 1 (with a unit-Frobenius U of multi-class margin γ: ‖U/γ‖ = 1/γ).

    Parameters
    ----------
    C : float, default=1.0
        The aggressiveness C > 0 of PA-I and PA-II (ignored by PA).  Small C for noisy data.
    variant : {"PA", "PA-I", "PA-II"}, default="PA-I"
    tie : {"negative", "positive"}, default="negative"
    fit_intercept : bool, default=False
    max_epochs : int, default=100
        ``fit`` cycles until a pass with no update (every row then has margin ≥ 1) or this many.
    {_MULTI_PARAM}
    {_N_JOBS_PARAM}
    class_weight : dict, "balanced" or None, default=None
        As for :class:`Perceptron`.
    record_updates : bool, default=False
        Keep the record of the updates (the dual form: the example index and the coefficient
        of each update, and its class with K >= 3 classes; one int64 and one float64 each),
        for :func:`mbcore.explain`'s split of a score over the training examples.  It is
        state: saved, copied, reset by ``fit``; switched on later, it starts from the weights
        then.

    Attributes
    ----------
    coef_, intercept_, mistakes_, updates_, n_seen_, classes_, n_features_in_

    Notes
    -----
    scikit-learn's ``PassiveAggressiveClassifier`` (deprecated there since 1.8, to be removed;
    ``SGDClassifier(loss="hinge", penalty=None, learning_rate="pa1", eta0=C)`` is its
    replacement) runs PA-I (``loss="hinge"``) and PA-II (``loss="squared_hinge"``) with the same
    steps: with ``fit_intercept=False``, ``shuffle=False`` and one epoch its weights equal these
    to rounding (its dot products sum in another order), with K ≥ 3 classes under
    ``multi_class="ovr"``.  With an intercept scikit-learn leaves the constant out of ‖x‖²;
    here it is part of x, as in the paper.

    Sample weights: a row of weight s > 0 has the aggressiveness C·s, its loss weighing s times
    in the PA-I and PA-II objectives (½‖w − w_t‖² + C s ξ, or + C s ξ²): τ = min(C s, ℓ/‖x‖²)
    (PA-I), ℓ/(‖x‖² + 1/(2Cs)) (PA-II); PA, which has no C, takes the whole step whatever s > 0.
    A row of weight 0 never updates.  So a step never goes past the margin-1 point the
    algorithm projects onto.  scikit-learn instead multiplies the step by s (s·min(C, ℓ/‖x‖²)),
    which overshoots for s > 1 and, repeated over epochs with s > 2, diverges; with weights in
    {0, 1} the two agree.  No weighted bound is claimed (the paper gives none).

    Examples
    --------
    >>> from mbcore.datasets import load_a9a
    >>> from mbcore import PassiveAggressive
    >>> X, y = load_a9a()                      # UCI Adult: 32561 x 123 indicators, not separable
    >>> pa = PassiveAggressive(C=0.01).partial_fit(X[:30000], y[:30000])
    >>> pa.mistakes_, pa.updates_
    (4813, 11465)
    >>> round(pa.score(X[30000:], y[30000:]), 3)
    0.843

    Ten classes (the bundled MNIST digits), Crammer et al.'s multi-class rule:

    >>> from mbcore.datasets import load_mnist
    >>> Xd, yd = load_mnist()
    >>> pa10 = PassiveAggressive().partial_fit(Xd[::2], yd[::2])
    >>> pa10.mistakes_, round(pa10.score(Xd[1::2], yd[1::2]), 3)
    (174, 0.762)
    """.replace("{_MULTI_RULES}", _MULTI_RULES).replace("{_MULTI_PARAM}", _MULTI_PARAM).replace(
        "{_N_JOBS_PARAM}", _N_JOBS_PARAM)

    _algo = _PA

    # timed beside it by ``mbcore bench`` (scikit-learn's replacement for its deprecated
    # PassiveAggressiveClassifier: the same PA-I / PA-II steps)
    _TAGS = tags(peer=("sklearn.linear_model.SGDClassifier",
                       lambda p: {"loss": "hinge", "penalty": None, "eta0": p["C"],
                                  "learning_rate": "pa2" if p["variant"] == "PA-II" else "pa1",
                                  "fit_intercept": p["fit_intercept"], "shuffle": False}),
                 bound="margin", multi_bound="multiclass")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"variant": "PA", "fit_intercept": True},
                {"variant": "PA-II", "C": 0.5, "multi_class": "ovr"}]

    def __init__(self, C=1.0, variant="PA-I", tie="negative", fit_intercept=False,
                 max_epochs=100, multi_class="multiclass", n_jobs=None, class_weight=None,
                 record_updates=False):
        self.C = C
        self.variant = variant
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.class_weight = class_weight
        self.record_updates = record_updates
        self.n_jobs = n_jobs

    _OVERFLOW_HINT = "scale X down or lower C"
    _PARAMETERS = {"C": Real(0), "variant": Choice(*_PA_VARIANTS)}

    def _eta(self):
        return 1.0      # (no step size: PA's step is min(C, loss / (||x||^2 + pa_lam)))

    def _C(self):
        # the cap on the step (PA-I's C; none otherwise)
        return float(self.C) if self.variant == "PA-I" else math.inf

    def _pa_lam(self):
        # the term added to ||x||^2 (PA-II's 1/(2C), computed as scikit-learn does: 0.5 / C)
        return 0.5 / float(self.C) if self.variant == "PA-II" else 0.0

    def _pa_bound(self, R2, gamma):
        return _bounds.passive_aggressive_bound(math.sqrt(R2), 1.0 / gamma, self.variant,
                                                float(self.C))

    def _margin_bound(self, R, gamma):
        form = {"PA": "(R/gamma)^2", "PA-I": "max(R^2, 1/C)/gamma^2",
                "PA-II": "(R^2 + 1/(2C))/gamma^2"}[self.variant]
        return (f"{self.variant} {form}", self._pa_bound(R * R, gamma),
                f"Crammer et al. 2006, {_PA_THEOREMS[self.variant]}")

    def _kesler_bound(self, R, gamma):
        form = {"PA": "2R^2/gamma^2", "PA-I": "max(2R^2, 1/C)/gamma^2",
                "PA-II": "(2R^2 + 1/(2C))/gamma^2"}[self.variant]
        return (f"multi-class {self.variant} {form} (Kesler)", self._pa_bound(2.0 * R * R, gamma),
                f"Crammer et al. 2006, {_PA_THEOREMS[self.variant]} and section 7")

    def _search_learner(self):
        return PassiveAggressive(C=self.C, variant=self.variant, tie=self.tie,
                                 fit_intercept=self.fit_intercept, max_epochs=100,
                                 multi_class="multiclass")


# Defined in mbcore.kernel; importable from here, as before the split (imported after the classes
# above, so that the order of all_learners() keeps the linear classes first).
from .kernel import KernelPerceptron  # noqa: E402
