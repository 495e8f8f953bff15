"""Beyond one machine: partitioned prediction and parameter-mixing training on Dask.

Needs the optional extra ``pip install 'mbcore[dask]'`` (Dask arrays and DataFrames, and
``distributed`` for a cluster).  Dask is imported by the functions of this module when they are
called, never by ``import mbcore`` nor by ``import mbcore.distributed``; without it they raise
ImportError("mbcore.distributed needs Dask: pip install 'mbcore[dask]'").

When to use it
--------------
* The data does not fit in one machine's memory, or already lives in a Dask cluster (a Dask
  array or DataFrame read from Parquet, HDF5, Zarr, ...).  On data that fits in memory, the
  serial learners are the better choice: ``predict`` of the linear learners already scores a
  large batch on every core of the machine (the kernels release the GIL) at the speed of memory,
  so Dask workers on the *same* machine only add their overhead; compute-bound prediction (the
  kernel Perceptron) does scale with the workers (bench/README.md, "Dask").
* Prediction (:func:`predict`, :func:`decision_function`) maps a fitted learner's compiled kernel
  over the row blocks of a Dask array (dense or ``scipy.sparse`` CSR blocks) or the partitions of
  a Dask DataFrame.  Nothing changes: the result is exactly ``learner.predict(X.compute())``
  (same values, same dtype), because every learner scores each row from its state alone.
* Training (:func:`ipm_fit`) runs McDonald, Hall & Mann's *iterative parameter mixing* (2010,
  "Distributed training strategies for the structured perceptron", NAACL; Figure 3): the row
  blocks are shards, each worker runs one epoch of the learner's own compiled pass on its shard
  starting from the mixed weights, the driver averages the weights, and this repeats until an
  epoch without an update on any shard, or ``max_epochs``.  :func:`one_shot_fit` is their
  baseline, parameter mixing (Figure 2): every shard trained to convergence alone, the weights
  averaged once.

What changes compared with the serial learners
----------------------------------------------
* **It is a different algorithm.**  With one shard, ``ipm_fit`` *is* ``learner.fit`` (the same
  weights bit for bit, the same counts, epochs and flags: the mixture of one weight vector is
  that vector).  With several shards the examples of different shards are not seen in sequence:
  each shard's pass starts from the mixture of the previous epoch.  The result depends on the
  shards (how the rows are chunked), not on the scheduling: the same shards and mixing give the
  same weights bit for bit, on any number of workers.
* **The per-example mistake bounds no longer apply.**  Novikoff's (R/γ)², Winnow's
  2 + 3k(1 + log₂ n) and the Margin Perceptron's 12/γ² bound the mistakes of *one* sequence of
  predictions made by *one* state; here S states predict in parallel, and the online record
  (``mistakes_``, ``updates_``) is the sum over shards.  What holds instead, for the Perceptron
  on data separable with margin γ by a unit u with ‖x‖ ≤ R (McDonald et al., Theorem 3):
  Σ_n Σ_i μ_{i,n} k_{i,n} ≤ (R/γ)², with k_{i,n} the updates of shard i in epoch n and
  μ_{i,n} its mixing weight.  It bounds the *mixed* updates, not the total: uniform mixing gives
  total updates ≤ S·(R/γ)²; weighted mixing (Σ_i k_i²/Σ_i k_i ≥ 1 in an epoch with an update)
  gives at most (R/γ)² epochs with an update.  The total itself can exceed (R/γ)² (S copies of a
  sequence on which the Perceptron meets its bound make S·(R/γ)² updates in the first epoch;
  tests/io/test_distributed.py replays it).  :class:`MixingResult` reports both numbers
  (``mixed_updates``, ``total_updates``).  The multi-class Perceptron (K >= 3 classes) is the
  paper's structured Perceptron with Φ(x, y) = x in block y, so the same bound holds with
  R = max ‖Φ(x, y) − Φ(x, y')‖ = √2·max ‖x‖ and γ the margin of a weight matrix of unit
  Frobenius norm.
* **Convergence still means separation.**  An epoch with no update on any shard means every
  shard, starting from the same mixed weights, classified every example of its shard correctly
  (with the learner's tie rule and, for the Margin Perceptron, its margin): the returned weights
  are consistent with all the training data, exactly as after a clean serial epoch.  One-shot
  mixing gives no such guarantee: each shard's weights separate its own shard, their average
  may not separate the union (the point of the paper's Figure 2 vs Figure 3).
* **Numerics.**  The additive family's mixture is a float64 average, (Σ_i c_i w_i) / Σ_i c_i
  summed in shard order, so mixed weights are not exact even on integer data (the serial
  Perceptron's are); a run is still reproducible bit for bit, and the mixture of identical
  states is that state, bit for bit.  The Winnow family is mixed in log space (below).
* **Cycling** is detected as in ``fit``: the mixed state at an epoch boundary is the whole state
  of the iteration (every shard's pass is a function of it), so a repeated digest proves that the
  run would cycle for ever, and ``cycled_`` is set.

Which learners ``ipm_fit`` and ``one_shot_fit`` take, and why
-------------------------------------------------------------
Each class declares how its state mixes (its tag ``mix``, ``mbcore._tags``), and its family
reads and sets that state; a class that does not mix says why (tag ``no_mix``).

* **The additive learners** (``mix="additive"``: {additive}): the mixture of the weight
  vectors w (intercept included), set as the starting weights of each shard's pass exactly as
  ``fit(coef_init=...)`` sets them (the Margin Perceptron recomputes ‖w‖² from them).
  OnlineHingeSVM mixes its effective weights a·v (it stores w = a·v), and each shard keeps its
  own step counter across epochs, so Pegasos' step 1/(λt) follows the schedule of a serial run
  on that shard (with one shard: exactly ``fit``).  This is iterative parameter averaging of
  SGD (as in Zinkevich et al. 2010, which averages once); no mistake bound is claimed, and
  "converged" means an epoch without a hinge-loss step, as in ``fit``.
* **K >= 3 classes** (the additive learners, ``multi_class="multiclass"`` or ``"ovr"``): the
  weight matrix W (one weight vector per class, intercepts included) is mixed entry by entry as
  above, the effective a·W for the hinge SVM; the Margin Perceptron recomputes ‖W‖_F² and every
  ‖w_k‖² from the mixture, as ``fit(coef_init=...)`` does.  The classes are fixed before any
  shard runs: ``classes=``, or the learner's own rule applied to the union of the labels of all
  shards (as for two classes), so a shard that lacks a class still has its weight vector.
* **The multiplicative learners** (``mix="multiplicative"``: {multiplicative}): mixed in log
  space, the weighted geometric mean of the weights: log₂ w_mixed = Σ_i μ_i log₂ w_i (w⁺ and
  w⁻ separately for Balanced Winnow).  This is the natural mixture for multiplicative updates
  (each update adds ±log₂ α to a log-weight, so the mixture of logs is the average update, as
  the mixture of w is for the Perceptron), and the learners already store log₂ w.  A weight
  eliminated to 0 (log −inf: EliminationWinnow, or Winnow with beta=0) on a shard that takes
  part in the mixture stays eliminated: the geometric mean with a factor 0 is 0.  This is the
  elimination rule itself: a false positive on any shard proves (for a monotone disjunction
  target) that the variables it eliminated are not in the target.  (Weighted mixing leaves out
  shards without an update, whose weights are the starting ones.)
  *What is exact.*  With Boolean features and power-of-two factors the serial learners keep
  integer log-weights and decide Σ 2^{l_i} ≥ θ exactly.  A mixture of integers is generally not
  an integer (uniform mixing of S shards gives multiples of 1/S); when every mixed log-weight is
  an integer (one shard, a clean epoch, shards that agree) the learner stays in its exact mode;
  otherwise it is switched to its float mode, the one it uses for real-valued features or
  factors that are not powers of two: the log-weights are then float64, the prediction is the
  float64 sum of the weights in the fixed four-partial-sum order compared with θ, and the later
  updates add log₂ α and log₂ β to the logs as usual.  Nothing is rounded to force integers.
* **Not supported** (TypeError, with the reason the class gives, its tag ``no_mix``):
  {refused}.

Examples
--------
>>> import numpy as np, dask.array as da
>>> from mbcore import Perceptron
>>> from mbcore.datasets import load_mushrooms
>>> from mbcore.distributed import ipm_fit, predict
>>> X, y = load_mushrooms()                                  # separable: 8124 x 112
>>> dX = da.from_array(X, chunks=(2031, -1))                 # 4 row blocks = 4 shards
>>> dy = da.from_array(y, chunks=(2031,))
>>> res = ipm_fit(Perceptron(), dX, dy, mixing="weighted")
>>> res.converged, bool((res.learner.predict(X) == y).all())   # a clean epoch separates
(True, True)
>>> clf = Perceptron().fit(X, y)
>>> bool((predict(clf, dX).compute() == clf.predict(X)).all())
True
"""

import copy
import dataclasses
import importlib
import numbers
from typing import Any, Optional, Tuple

import numpy as np

from . import _registry, _tags
from ._validation import _distinct, _feature_count
from .base import OnlineLearner, clone

__all__ = ["predict", "decision_function", "ipm_fit", "one_shot_fit", "MixingResult"]


def _listed(names):
    """"A, B and C"."""
    names = list(names)
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def _refused():
    """The learners that do not mix, grouped by the reason they give: "A (why); B and C
    (why)"."""
    why = {}
    for n, c in _registry.learners():
        if c._TAGS.mix is None:
            why.setdefault(c._TAGS.no_mix, []).append(n)
    return "; ".join(f"{_listed(names)} ({reason})" for reason, names in why.items())


# (the lists of the module docstring come from the classes' tags: mbcore._registry)
__doc__ = __doc__.replace("{refused}", _refused()).replace("{additive}", _listed(
    n for n, c in _registry.learners() if c._TAGS.mix == "additive")).replace(
    "{multiplicative}", _listed(n for n, c in _registry.learners()
                                if c._TAGS.mix == "multiplicative"))

_NEEDS_DASK = "mbcore.distributed needs Dask: pip install 'mbcore[dask]'"
_MIXINGS = ("uniform", "weighted")


def _import(name):
    """Import an optional module (dask, dask.array, ...) with the extra's install hint."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(f"{_NEEDS_DASK} ({exc})") from exc


def _dask_frame_types():
    """(DataFrame, Series) of dask.dataframe, or () when it cannot be imported (then X is not
    one of them)."""
    try:
        dd = importlib.import_module("dask.dataframe")
    except ImportError:
        return ()
    return (dd.DataFrame, dd.Series)


# ------------------------------------------------------------------------------------------------
# Partitioned prediction
# ------------------------------------------------------------------------------------------------

def predict(learner: OnlineLearner, X: Any) -> Any:
    """``learner.predict`` over a Dask array or DataFrame, one block per row partition.

    Parameters
    ----------
    learner : fitted mbcore learner
        Any learner with ``predict`` whose prediction of a row depends on the row and the state
        only (every mbcore learner except RandomizedWeightedMajority, whose draws depend on the
        row's position in the call: TypeError).
    X : dask.array.Array or dask.dataframe.DataFrame
        A Dask array of 2-D blocks (NumPy, or ``scipy.sparse`` matrices, which are given to the
        learner as CSR) chunked along the rows only: each block must hold whole rows (a
        column-chunked array raises ValueError; rechunk it with ``X.rechunk({1: -1})``).  A 1-D
        array is mapped block by block (for learners whose rows are scalars).  A DataFrame's
        partitions are given to the learner as they are (the learner reads them as arrays, as
        it reads ``X.compute()``).

    Returns
    -------
    dask.array.Array
        Lazy, with one block per row block (or partition); ``.compute()`` equals
        ``learner.predict(X.compute())`` exactly (values and dtype).  The learner is copied when
        this function is called (training it further does not change the result) and enters the
        graph once, as one key, however many blocks there are.
    """
    return _map_blocks("predict", learner, X)


def decision_function(learner: OnlineLearner, X: Any) -> Any:
    """``learner.decision_function`` over a Dask array or DataFrame (see :func:`predict`).

    Returns a lazy float64 Dask array, one block per row partition (2-D, one column per class,
    for a multi-class pool of experts and for a linear learner fitted on K >= 3 classes: shape
    (n, K)); ``.compute()`` equals ``learner.decision_function(X.compute())`` exactly.
    """
    return _map_blocks("decision_function", learner, X)


def _predict_block(x, learner, method, empty):
    """One block: the learner's own method (a block without rows gives an empty result)."""
    if isinstance(x, list):          # blockwise(concatenate=False): the row's one block
        x = x[0]
    if x.shape[0] == 0:
        return empty.copy()
    sp = _sparse_to_csr(x)
    return getattr(learner, method)(x if sp is None else sp)


def _sparse_to_csr(x):
    """A sparse block that is not CSR (scipy COO/CSC, pydata sparse) as CSR; None otherwise."""
    fmt = getattr(x, "format", None)
    if fmt == "csr" or not hasattr(x, "tocsr") or isinstance(x, np.ndarray):
        return None
    from ._validation import to_csr
    return to_csr("mbcore.distributed", x)    # (its structure checked before conversion)


def _map_blocks(method, learner, X):
    fn = f"mbcore.distributed.{method}"
    if not isinstance(learner, OnlineLearner):
        raise TypeError(f"{fn}: parameter learner must be an mbcore learner, got "
                        f"{type(learner).__name__}")
    name = type(learner).__name__
    if not callable(getattr(learner, method, None)):
        raise TypeError(f"{fn}: parameter learner: {name} has no {method}")
    with learner.reading():
        # The checks, the result's shape and dtype and the copy the tasks predict with, of one
        # state (a fit of another thread in between could reset the learner or change its
        # classes); the graph is then built from the copy.
        learner._check_fitted(method)
        if method == "predict" and getattr(learner, "_randomized", False):
            raise TypeError(f"{fn}: parameter learner: {name}.predict draws from its random "
                            "generator row after row, so a row's prediction depends on its "
                            "position in the call and a partitioned prediction would differ "
                            "from the in-memory one; use decision_function (the probability of "
                            "each class), or predict in memory")
        dask = _import("dask")
        da = _import("dask.array")
        frames = _dask_frame_types() if not isinstance(X, da.Array) else ()
        cols = _score_columns(learner) if method == "decision_function" else None
        dtype = np.dtype(np.float64) if method == "decision_function" else learner.classes_.dtype
        learner = copy.deepcopy(learner)
    multi = cols is not None
    tail = (cols,) if multi else ()
    empty = np.empty((0,) + tail, dtype=dtype)
    snap = dask.delayed(learner, pure=False, traverse=False)
    if isinstance(X, da.Array):
        if X.ndim == 2:
            if X.numblocks[1] != 1:
                raise ValueError(f"{fn}: parameter X has {X.numblocks[1]} chunks along the "
                                 "columns; every block must hold whole rows: rechunk it with "
                                 "X.rechunk({1: -1}) (partitions are row blocks)")
            _check_width(learner, X.shape[1])
        elif X.ndim != 1:
            raise ValueError(f"{fn}: parameter X must be a 2-D (or 1-D) Dask array, got "
                             f"{X.ndim} dimensions")
        if X.ndim == 1:
            return X.map_blocks(_predict_block, snap, method, empty, dtype=dtype, meta=empty)
        # blockwise, not map_blocks(drop_axis=1): dropping an axis makes Dask concatenate the
        # blocks along it, which copies every block even when there is one (3x the time of
        # predict itself); with concatenate=False each task gets the list of its one block.
        out, new_axes = ("ik", {"k": tail[0]}) if multi else ("i", None)
        return da.blockwise(_predict_block, out, X, "ij", snap, None, method, None, empty, None,
                            new_axes=new_axes, dtype=dtype, concatenate=False, meta=empty)
    if frames and isinstance(X, frames[0]):
        _check_width(learner, len(X.columns))
        parts = X.to_delayed()
        blocks = [da.from_delayed(dask.delayed(_predict_block, pure=False)(p, snap, method,
                                                                             empty),
                                  shape=(np.nan,) + tail, dtype=dtype, meta=empty)
                  for p in parts]
        return da.concatenate(blocks, axis=0) if len(blocks) > 1 else blocks[0]
    raise TypeError(f"{fn}: parameter X must be a dask.array.Array or a dask.dataframe.DataFrame, "
                    f"got {type(X).__name__}; for in-memory data call learner.{method}(X)")


def _score_columns(learner):
    """The number of columns of ``learner.decision_function``, or None for 1-D scores: one per
    class for a multi-class pool of experts and for a linear learner with K >= 3 classes (its
    weight matrix has K columns)."""
    if getattr(learner, "_multi", False):
        return len(learner.classes_)
    k = getattr(learner, "_K", None)
    if callable(k) and k() > 1:
        return int(k())
    return None


def _check_width(learner, d):
    """The learner's own message for a wrong feature count, raised when the graph is built
    (the learners whose rows are feature vectors, as they declare: tag ``takes``; not packed
    Boolean rows)."""
    if learner._TAGS.takes == "features" and not getattr(learner, "packed", False):
        n = getattr(learner, "n_features_in_", None)
        if isinstance(n, numbers.Integral):
            _feature_count(learner._owner, int(d), int(n))


# ------------------------------------------------------------------------------------------------
# Parameter mixing: the record
# ------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True, eq=False)
class MixingResult:
    """What :func:`ipm_fit` and :func:`one_shot_fit` return.

    Attributes
    ----------
    learner : OnlineLearner
        A fitted learner of the same class and parameters as the one given, holding the mixed
        weights; usable like any fitted learner (``predict``, ``partial_fit``, pickle,
        ``save`` and ``mbcore.load``, a Winnow-family learner left in float mode by a mixture
        that is not integral included).  Its counts are the
        sums over shards and epochs (``n_seen_``, ``mistakes_``, ``updates_``), and
        ``converged_``, ``cycled_``, ``n_iter_``, ``epoch_mistakes_``, ``epoch_updates_`` are
        set as ``fit`` sets them (per-epoch totals over the shards; after one-shot mixing
        ``converged_`` is False: no pass was made with the mixed weights).
    method : {"ipm", "one_shot"}
    mixing : {"uniform", "weighted"}
    shard_sizes : tuple of int
        Rows of each shard, in shard order (shards without rows are left out).
    updates, mistakes : ndarray of shape (n_rounds, n_shards), int64
        IPM: k_{i,n}, the updates (mistakes) of shard i in epoch n.  One-shot: one row, each
        shard's updates (mistakes) over its whole ``fit``.
    weights : ndarray of shape (n_rounds, n_shards), float64
        The mixing weights μ_{i,n} applied after each round (uniform 1/S; weighted
        k_{i,n} / Σ_i k_{i,n}, uniform for a round with no update at all).
    shard_epochs : tuple of int
        Epochs each shard ran (IPM: the same for all).
    shard_converged : tuple of bool
        One-shot: whether each shard's ``fit`` reached a clean epoch.  IPM: all equal to
        ``converged``.
    converged : bool
        IPM: an epoch without an update on any shard happened (the mixed weights classify every
        training example correctly).  One-shot: every shard's ``fit`` converged (the *mixture*
        may still misclassify training examples).
    cycled : bool
        IPM: the mixed state repeated at an epoch boundary (the run would cycle for ever).
    """

    learner: OnlineLearner
    method: str
    mixing: str
    shard_sizes: Tuple[int, ...]
    updates: np.ndarray
    mistakes: np.ndarray
    weights: np.ndarray
    shard_epochs: Tuple[int, ...]
    shard_converged: Tuple[bool, ...]
    converged: bool
    cycled: bool

    @property
    def n_shards(self) -> int:
        return len(self.shard_sizes)

    @property
    def epochs(self) -> int:
        """IPM: epochs run; one-shot: the most epochs any shard's ``fit`` ran."""
        return max(self.shard_epochs) if self.shard_epochs else 0

    @property
    def total_updates(self) -> int:
        """Σ_n Σ_i k_{i,n}: every update made on every shard."""
        return int(self.updates.sum())

    @property
    def mixed_updates(self) -> float:
        """Σ_n Σ_i μ_{i,n} k_{i,n}: the quantity McDonald et al.'s Theorem 3 bounds by (R/γ)²
        for the Perceptron (IPM) on separable data."""
        return float((self.weights * self.updates).sum())

    def __repr__(self):
        return (f"MixingResult(method={self.method!r}, mixing={self.mixing!r}, "
                f"n_shards={self.n_shards}, epochs={self.epochs}, "
                f"total_updates={self.total_updates}, converged={self.converged}, "
                f"cycled={self.cycled}, learner={self.learner!r})")


# ------------------------------------------------------------------------------------------------
# Parameter mixing: the learner families (how their state is read, mixed and set)
# ------------------------------------------------------------------------------------------------

# How each kind of state mixes (mbcore._tags.MIXES): the class declares its kind (tag ``mix``)
# and owns the reading and setting of its state (``_mix_state``, ``_mix_vectors``,
# ``_set_mixed``, ``_settle_mixed``: mbcore.linear, mbcore.multiplicative); this module mixes
# the vectors.  A class that does not mix says why (tag ``no_mix``).
_MIXED = {"additive": "a weight vector or matrix, averaged",
          "multiplicative": "log2 of the weights, averaged in log space"}
if set(_MIXED) != set(_tags.MIXES):
    raise RuntimeError(f"mbcore.distributed mixes {sorted(_MIXED)}, but the tags allow "
                       f"{sorted(_tags.MIXES)} (mbcore._tags.MIXES)")


def _supported():
    return ", ".join(n for n, c in _registry.learners() if c._TAGS.mix is not None)


def _family(fn, learner):
    """A clone of ``learner`` (its parameters, validated); a TypeError for a learner whose
    family does not mix (tag ``no_mix``: the reason)."""
    if not isinstance(learner, OnlineLearner):
        raise TypeError(f"{fn}: parameter learner must be an mbcore learner, got "
                        f"{type(learner).__name__}")
    name = type(learner).__name__
    if learner._TAGS.mix is None:
        raise TypeError(f"{fn}: parameter learner: {name} is not supported "
                        f"({learner._TAGS.no_mix}); parameter mixing supports {_supported()}")
    with learner.reading():                 # its parameters, read at once (not torn by a
        template = clone(learner)           # set_params of another thread)
    template._validate_params()             # the learner's own message for bad parameters
    return template


def _mix(outs, counts, mixing):
    """Mix the shards' learners; returns (mu, a new learner holding the mixture).

    c_i = 1 (uniform) or k_i (weighted; uniform when no shard updated); the mixture is
    (sum_i c_i v_i) / sum_i c_i in float64, summed in shard order over the shards with c_i > 0.
    When those shards' states are identical the mixture is that state, bit for bit (one shard;
    a clean Perceptron epoch).
    """
    S = len(outs)
    c = list(counts) if mixing == "weighted" and sum(counts) > 0 else [1] * S
    C = float(sum(c))
    mu = np.array(c, dtype=np.float64) / C
    take = [i for i in range(S) if c[i] > 0]
    first = outs[take[0]]
    raw0 = [a.tobytes() for a in first._mix_state()]
    out = copy.deepcopy(first)
    if all([a.tobytes() for a in outs[i]._mix_state()] == raw0 for i in take[1:]):
        out._settle_mixed()
        return mu, out
    acc = None
    for i in take:
        vs = outs[i]._mix_vectors()
        if c[i] != 1:
            vs = tuple(v * float(c[i]) for v in vs)
        acc = vs if acc is None else tuple(a + v for a, v in zip(acc, vs))
    out._set_mixed(tuple(a / C for a in acc))
    return mu, out


# ------------------------------------------------------------------------------------------------
# Parameter mixing: shards and where they run
# ------------------------------------------------------------------------------------------------

class _Shard:
    """A shard validated once, kept where it was loaded: its initial learner (the state the
    learner starts from) and the batch and labels its kernel pass reads."""

    def __init__(self, index, offset, n, learner, batch, yy):
        self.index, self.offset, self.n = index, offset, n
        self.learner, self.batch, self.yy = learner, batch, yy


def _in_shard(exc, index, offset):
    """The learner's error, with the shard (and its first row in X) named."""
    where = f"shard {index}" + (f", whose first row is row {offset} of X"
                                if offset is not None else "")
    return type(exc)(f"{exc} (in {where})")


def _pair(x, y):
    return (x, y)


def _labels_of(holder):
    """The distinct labels of a shard (all of them: the classes are their union)."""
    y = np.asarray(holder[1]).ravel()
    if not y.size:
        return y
    try:
        u = _distinct(y)
        # (the compiled scan of _distinct stops at a third label: then take them all)
        return np.unique(y) if u.shape[0] > 2 else u
    except TypeError:       # labels that cannot be ordered: the learner's check says so
        return y


def _prep(holder, template, classes, index, offset):
    x, y = holder
    n = int(x.shape[0]) if hasattr(x, "shape") else len(x)
    if n == 0:
        return _Shard(index, offset, 0, None, None, None)
    lrn = clone(template)
    sp = _sparse_to_csr(x)
    try:
        batch, yy = lrn._prepare(x if sp is None else sp, y, classes)
    except (ValueError, TypeError) as exc:
        raise _in_shard(exc, index, offset) from None
    return _Shard(index, offset, n, lrn, batch, yy)


def _info(shard):
    return shard.n, shard.learner


def _epoch(shard, start, counts):
    """One online pass of the learner's kernel over the shard, from the mixed state."""
    lrn = copy.deepcopy(start)
    lrn._counts = np.array(counts, dtype=np.int64)
    lrn._kstate = None
    lrn._fast = None
    try:
        lrn._pass(shard.batch, shard.yy, None, None)
    except (ValueError, TypeError) as exc:      # a bad row (NaN, overflow, ...)
        raise _in_shard(exc, shard.index, shard.offset) from None
    return lrn


def _fit_shard(shard, max_epochs):
    """The shard's own serial ``fit`` (epochs until a clean pass or max_epochs)."""
    lrn = copy.deepcopy(shard.learner)
    if lrn.max_epochs != max_epochs:
        lrn.max_epochs = max_epochs
    try:
        lrn._epochs(shard.batch, shard.yy)
    except (ValueError, TypeError) as exc:
        raise _in_shard(exc, shard.index, shard.offset) from None
    return lrn


class _Local:
    """No Dask cluster: Dask's threaded scheduler in this process (the kernels release the
    GIL, so the shards' passes run in parallel)."""

    def __init__(self, dask):
        self.dask = dask

    def load(self, pairs, lazy):
        if not lazy:
            return [_pair(x, y) for x, y in pairs]
        d = self.dask
        return list(d.compute(*[d.delayed(_pair, pure=False)(x, y) for x, y in pairs],
                              scheduler="threads"))

    def map(self, fn, handles, *args):
        d = self.dask
        tasks = [d.delayed(fn, pure=False)(h, *a) for h, a in zip(handles, zip(*args))] \
            if args else [d.delayed(fn, pure=False)(h) for h in handles]
        return list(d.compute(*tasks, scheduler="threads"))

    def gather(self, handles):
        return handles

    def share(self, obj):
        return obj


class _Cluster:
    """A dask.distributed Client: shards stay on the workers that loaded them (futures); the
    mixed learner is shipped once per epoch."""

    def __init__(self, dask, client):
        self.dask, self.client = dask, client

    def load(self, pairs, lazy):
        if lazy:
            d = self.dask
            return self.client.compute([d.delayed(_pair, pure=False)(x, y) for x, y in pairs])
        return self.client.scatter([_pair(x, y) for x, y in pairs], hash=False)

    def map(self, fn, handles, *args):
        cols = list(zip(*args)) if args else [()] * len(handles)
        return [self.client.submit(fn, h, *a, pure=False) for h, a in zip(handles, cols)]

    def gather(self, handles):
        return self.client.gather(handles)

    def share(self, obj):
        # A small learner goes with each task (one round trip less per epoch); a large one is
        # scattered once and fetched by the workers.
        big = sum(v.nbytes for v in vars(obj).values() if isinstance(v, np.ndarray)) > 1 << 20
        return self.client.scatter(obj, hash=False) if big else obj


def _runner(fn, client):
    dask = _import("dask")
    if client is None:
        try:
            distributed = importlib.import_module("distributed")
            client = distributed.default_client()
        except (ImportError, ValueError):
            return _Local(dask)
        return _Cluster(dask, client)
    distributed = _import("distributed")
    if not isinstance(client, distributed.Client):
        raise TypeError(f"{fn}: parameter client must be a dask.distributed.Client or None, got "
                        f"{type(client).__name__}")
    return _Cluster(dask, client)


def _shard_inputs(fn, X, y):
    """[(x_i, y_i)], whether they are lazy (Dask), and each shard's first row (or None)."""
    da = _import("dask.array")
    frames = _dask_frame_types() if not isinstance(X, da.Array) else ()
    if y is None:
        raise TypeError(f"{fn}: parameter y is required (the labels, chunked like X)")
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"{fn}: parameter X must be a 2-D Dask array, got {X.ndim} "
                             "dimensions")
        if X.numblocks[1] != 1:
            raise ValueError(f"{fn}: parameter X has {X.numblocks[1]} chunks along the columns; "
                             "its row blocks are the shards, each must hold whole rows: rechunk "
                             "it with X.rechunk({1: -1})")
        if not isinstance(y, da.Array):
            if frames and isinstance(y, frames):
                raise TypeError(f"{fn}: parameter y must be a Dask array chunked like X (or an "
                                f"in-memory array), got {type(y).__name__}")
            ya = np.asarray(y)
            if ya.ndim != 1 or ya.shape[0] != X.shape[0] or \
                    any(c != c for c in X.chunks[0]):
                raise ValueError(f"{fn}: parameter y must be a 1-D Dask array chunked like X, "
                                 f"or a 1-D array of X.shape[0] = {X.shape[0]} labels, got "
                                 f"shape {ya.shape}")
            y = da.from_array(ya, chunks=(X.chunks[0],))
        if y.ndim != 1:
            raise ValueError(f"{fn}: parameter y must be 1-D, got {y.ndim} dimensions")
        cx, cy = X.chunks[0], y.chunks[0]
        if len(cx) != len(cy) or any(a == a and b == b and a != b for a, b in zip(cx, cy)):
            raise ValueError(f"{fn}: parameters X and y must be chunked alike along the rows "
                             f"(the row blocks are the shards): X has row chunks {cx}, y has "
                             f"{cy}; rechunk y with y.rechunk((X.chunks[0],))")
        xs = X.to_delayed().ravel().tolist()
        ys = y.to_delayed().ravel().tolist()
        offsets = None if any(c != c for c in cx) else \
            [int(v) for v in np.concatenate([[0], np.cumsum(cx)[:-1]])]
        return list(zip(xs, ys)), True, offsets
    if frames and isinstance(X, frames[0]):
        if not isinstance(y, frames[1]):
            raise TypeError(f"{fn}: parameter y must be a dask Series partitioned like the "
                            f"DataFrame X, got {type(y).__name__}")
        if y.npartitions != X.npartitions:
            raise ValueError(f"{fn}: parameters X and y must have the same partitions (they are "
                             f"the shards): X has {X.npartitions}, y has {y.npartitions}")
        return list(zip(X.to_delayed(), y.to_delayed())), True, None
    if isinstance(X, (list, tuple)):
        if len(X) == 0:
            raise ValueError(f"{fn}: parameter X is an empty list of shards")
        if not isinstance(y, (list, tuple)) or len(y) != len(X):
            raise ValueError(f"{fn}: parameter y must be a list of label arrays, one per shard of "
                             f"X ({len(X)} shards), got "
                             f"{type(y).__name__ if not isinstance(y, (list, tuple)) else len(y)}")
        offsets, at = [], 0
        for x in X:
            offsets.append(at)
            at += int(x.shape[0]) if hasattr(x, "shape") else len(x)
        return list(zip(X, y)), False, offsets
    hint = ""
    if hasattr(X, "shape"):
        hint = ("; X is one in-memory array: give a list of shards, or a Dask array whose row "
                "chunks are the shards (dask.array.from_array(X, chunks=(rows_per_shard, -1)))")
    raise TypeError(f"{fn}: parameter X must be a Dask array, a Dask DataFrame, or a list of "
                    f"in-memory shards, got {type(X).__name__}{hint}")


def _check_mixing(fn, mixing):
    if not isinstance(mixing, str) or mixing not in _MIXINGS:
        raise ValueError(f"{fn}: parameter mixing must be one of {list(_MIXINGS)}, got "
                         f"{mixing!r}")
    return mixing


def _check_epochs(fn, max_epochs, learner):
    """max_epochs as an int (None: the learner's own max_epochs, as ``fit`` uses)."""
    if max_epochs is None:
        return int(learner.max_epochs)
    if isinstance(max_epochs, (bool, np.bool_)) or not isinstance(max_epochs, numbers.Integral) \
            or max_epochs < 1:
        raise ValueError(f"{fn}: parameter max_epochs must be an integer >= 1 or None (the "
                         f"learner's max_epochs, {learner.max_epochs}), got {max_epochs!r}")
    return int(max_epochs)


def _load_shards(fn, learner, X, y, client, classes):
    """Validate everything, load and prepare the shards; returns (runner, shards, sizes,
    initial learner, template)."""
    pairs, lazy, offsets = _shard_inputs(fn, X, y)
    run = _runner(fn, client)
    template = clone(learner)
    holders = run.load(pairs, lazy)
    # Every shard must encode its labels against the same classes (a shard may lack some):
    # the learner's own rule (two labels, or two or more for the linear learners) applied to
    # the union of the labels of all shards, or to ``classes``.
    if classes is None:
        found = [np.asarray(v) for v in run.gather(run.map(_labels_of, holders))]
        found = [v for v in found if v.size]
        if not found:
            raise ValueError(f"{fn}: parameter X has no rows")
        cl = template._infer_classes(found[0] if len(found) == 1 else np.concatenate(found),
                                     None)
    else:
        cl = template._infer_classes((), classes)
    S = len(pairs)
    shards = run.map(_prep, holders, [template] * S, [cl] * S, list(range(S)),
                     offsets if offsets is not None else [None] * S)
    del holders
    infos = run.gather(run.map(_info, shards))           # (rows, initial learner) per shard
    keep = [i for i in range(S) if infos[i][0] > 0]
    if not keep:
        raise ValueError(f"{fn}: parameter X has no rows")
    shards = [shards[i] for i in keep]
    sizes = tuple(int(infos[i][0]) for i in keep)
    return run, shards, sizes, infos[keep[0]][1], template


def _finish(out, counts, epoch_m, epoch_u, converged, cycled, max_epochs_param):
    out.max_epochs = max_epochs_param
    out._counts = np.sum(np.array(counts, dtype=np.int64), axis=0)
    out._kstate = None
    out._fast = None
    out.converged_ = bool(converged)
    out.cycled_ = bool(cycled)
    out.epoch_mistakes_ = [int(v) for v in epoch_m]
    out.epoch_updates_ = [int(v) for v in epoch_u]
    out.n_iter_ = len(epoch_u)
    return out


# ------------------------------------------------------------------------------------------------
# Parameter mixing: the two methods
# ------------------------------------------------------------------------------------------------

def ipm_fit(learner: OnlineLearner, X: Any, y: Any = None, *, max_epochs: Optional[int] = None,
            mixing: str = "uniform", client: Any = None, classes: Any = None) -> MixingResult:
    """Train by iterative parameter mixing (McDonald, Hall & Mann 2010, Figure 3).

    Every epoch, each shard's task starts from the mixed weights and runs exactly one online
    pass of the learner's compiled kernel over its shard; the driver mixes the shards' weights
    (``"uniform"``: the mean; ``"weighted"``: shard i weighted by μ_i = k_i / Σ_j k_j, its share
    of the epoch's updates, the paper's error mixing of §4), and repeats until an epoch in which
    no shard made an update (``converged``) or ``max_epochs``.  See the module docstring for what
    is exact, the log-space mixing of the Winnow family, and the bound that holds.

    Parameters
    ----------
    learner : OnlineLearner
        A learner whose class declares how its state mixes (its tag ``mix``: see the module
        docstring; the others raise TypeError with their reason).  Its parameters are used; it
        is not modified (fitted or not: training starts from the learner's initial state, as
        ``fit`` does).
    X : dask.array.Array, dask.dataframe.DataFrame, or list of in-memory shards
        The row blocks (partitions) are the shards, in order; a Dask array must be chunked
        along the rows only.  In-memory shards are 2-D arrays or CSR matrices.
    y : dask.array.Array, dask Series, or list of label arrays
        A Dask array chunked like X (or a 1-D in-memory array, chunked like X here), a Dask
        Series partitioned like X, or a list of label arrays (one per shard).
    max_epochs : int or None
        None means the learner's ``max_epochs`` (as ``fit``).
    mixing : {"uniform", "weighted"}, default="uniform"
    client : dask.distributed.Client or None
        None uses the current default client if there is one, else Dask's threaded scheduler in
        this process.
    classes : array-like of labels, optional
        As for ``fit`` (two labels; two or more for the linear learners); by default the
        labels found in y, over all shards (every shard is encoded against the same classes,
        including those it lacks).

    Returns
    -------
    MixingResult
        ``.learner`` is the fitted learner with the mixed weights; the record has the updates
        of every shard in every epoch, the mixing weights, ``converged`` and ``cycled``.

    Notes
    -----
    Shards are loaded and validated once (each stays on the worker that loaded it); every epoch
    ships the mixed learner once and brings back each shard's state.  Load the data with Dask
    (from files) or persist it on the cluster first: a Dask array made from an in-memory array
    (``da.from_array``) carries that array in its graph, which is shipped to the cluster at
    every call.  Each shard keeps its own
    counts across epochs (the hinge SVM's Pegasos step counter is the shard's); the returned
    learner's counts are the sums.  Shards without rows are left out.
    """
    fn = "mbcore.distributed.ipm_fit"
    learner = _family(fn, learner)          # (a clone: the parameters read once)
    mixing = _check_mixing(fn, mixing)
    epochs = _check_epochs(fn, max_epochs, learner)
    run, shards, sizes, start, template = _load_shards(fn, learner, X, y, client, classes)
    S = len(shards)
    counts = [np.zeros(3, dtype=np.int64) for _ in range(S)]
    ups, mis, mus = [], [], []
    converged = cycled = False
    seen = set()
    for _ in range(epochs):
        shared = run.share(start)
        outs = run.gather(run.map(_epoch, shards, [shared] * S, counts))
        new = [np.array(o._counts, dtype=np.int64) for o in outs]
        k = [int(a[2] - b[2]) for a, b in zip(new, counts)]
        m = [int(a[1] - b[1]) for a, b in zip(new, counts)]
        counts = new
        mu, start = _mix(outs, k, mixing)
        ups.append(k)
        mis.append(m)
        mus.append(mu)
        if sum(k) == 0:
            converged = True
            break
        key = start._cycle_key()
        if key is not None:
            if key in seen:
                cycled = True
                break
            seen.add(key)
    n = len(ups)
    out = _finish(start, counts, [sum(v) for v in mis], [sum(v) for v in ups], converged,
                  cycled, template.max_epochs)
    return MixingResult(learner=out, method="ipm", mixing=mixing, shard_sizes=sizes,
                        updates=np.array(ups, dtype=np.int64).reshape(n, S),
                        mistakes=np.array(mis, dtype=np.int64).reshape(n, S),
                        weights=np.array(mus, dtype=np.float64).reshape(n, S),
                        shard_epochs=(n,) * S, shard_converged=(converged,) * S,
                        converged=converged, cycled=cycled)


def one_shot_fit(learner: OnlineLearner, X: Any, y: Any = None, *,
                 max_epochs: Optional[int] = None, mixing: str = "uniform", client: Any = None,
                 classes: Any = None) -> MixingResult:
    """Train by one-shot parameter mixing (McDonald, Hall & Mann 2010, Figure 2; the baseline).

    Each shard is trained alone with the learner's own ``fit`` (epochs until a clean pass or
    ``max_epochs``), and the shards' weights are mixed once: ``"uniform"`` (the paper's
    baseline) or ``"weighted"`` by each shard's total updates.  Parameters and the record are as
    for :func:`ipm_fit`; ``converged`` means that every shard's fit converged.  The mixture
    comes with no guarantee: on separable data it may not separate the training set even when
    every shard's weights separate their shard (McDonald et al. give such an example).
    """
    fn = "mbcore.distributed.one_shot_fit"
    learner = _family(fn, learner)          # (a clone: the parameters read once)
    mixing = _check_mixing(fn, mixing)
    epochs = _check_epochs(fn, max_epochs, learner)
    run, shards, sizes, _, template = _load_shards(fn, learner, X, y, client, classes)
    S = len(shards)
    outs = run.gather(run.map(_fit_shard, shards, [epochs] * S))
    k = [int(o.updates_) for o in outs]
    m = [int(o.mistakes_) for o in outs]
    mu, mixed = _mix(outs, k, mixing)
    n_iter = max(o.n_iter_ for o in outs)
    eu = [sum(o.epoch_updates_[e] for o in outs if e < o.n_iter_) for e in range(n_iter)]
    em = [sum(o.epoch_mistakes_[e] for o in outs if e < o.n_iter_) for e in range(n_iter)]
    conv = tuple(bool(o.converged_) for o in outs)
    # No pass was made with the mixed weights: the learner's converged_ ("a clean pass
    # happened") is False; the record says whether every shard's fit converged.
    out = _finish(mixed, [o._counts for o in outs], em, eu, False, False, template.max_epochs)
    return MixingResult(learner=out, method="one_shot", mixing=mixing, shard_sizes=sizes,
                        updates=np.array([k], dtype=np.int64),
                        mistakes=np.array([m], dtype=np.int64),
                        weights=mu.reshape(1, S), shard_epochs=tuple(int(o.n_iter_) for o in outs),
                        shard_converged=conv, converged=all(conv), cycled=False)
