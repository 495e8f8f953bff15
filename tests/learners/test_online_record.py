"""The online record: ``mbref.run_online`` returns an ``mbref.OnlineRun`` with the attributes of
``mbcore.OnlineRun``, so code written against the compiled record runs unchanged on the twin's
(lists stand where mbcore has NumPy arrays)."""

import numpy as np
import pytest

import mbcore
import mbref
from conftest import integer_stream


def summarise(run):
    """Code written against ``mbcore.run_online``'s record: attributes and repr only (no
    indexing by name), its values returned as plain Python lists and numbers."""
    n = run.n
    assert len(run.predictions) == len(run.errors) == len(run.updated) == n
    assert len(run.mistake_curve) == len(run.update_curve) == n
    assert run.mistakes == sum(bool(e) for e in run.errors)
    assert run.updates == sum(bool(u) for u in run.updated)
    if n:
        assert run.mistake_curve[-1] == run.mistakes and run.update_curve[-1] == run.updates
    assert repr(run) == f"OnlineRun(n={n}, mistakes={run.mistakes}, updates={run.updates})"
    with pytest.raises(TypeError):
        run["mistakes"]                       # a record, not a mapping, on both sides
    return {"predictions": [p.item() if hasattr(p, "item") else p for p in run.predictions],
            "errors": [bool(e) for e in run.errors],
            "updated": [bool(u) for u in run.updated],
            "mistakes": run.mistakes, "updates": run.updates,
            "mistake_curve": [int(v) for v in run.mistake_curve],
            "update_curve": [int(v) for v in run.update_curve],
            "n": n, "repr": repr(run)}


def _perceptron_stream():
    X, y = integer_stream(5, 120, 5, noise=0.1)      # exact sums: bit-for-bit parity
    return X, y, [-1, 1]


def _experts_stream():
    rng = np.random.default_rng(8)
    P = rng.integers(0, 2, size=(150, 7))
    good = rng.random(150) < 0.85
    y = np.where(good, P[:, 2], 1 - P[:, 2])            # expert 2 is right 85% of the time
    return P, y, [0, 1]


@pytest.mark.parametrize("name,stream,params", [
    ("Perceptron", _perceptron_stream, {}),
    ("Perceptron", _perceptron_stream, {"tie": "positive", "fit_intercept": True}),
    ("WeightedMajority", _experts_stream, {"beta": 0.5}),
    ("WeightedMajority", _experts_stream, {"beta": 0.3}),
], ids=["Perceptron", "Perceptron(tie=positive,fit_intercept)", "WeightedMajority(beta=0.5)",
        "WeightedMajority(beta=0.3)"])
def test_code_written_for_mbcore_runs_unchanged_on_mbref(name, stream, params):
    X, y, classes = stream()
    a = getattr(mbcore, name)(**params)
    b = getattr(mbref, name)(**params)
    for k, (lo, hi) in enumerate([(0, 70), (70, len(y))]):     # each record covers its batch
        cl = classes if k == 0 else None
        ra = mbcore.run_online(a, X[lo:hi], y[lo:hi], classes=cl)
        rb = mbref.run_online(b, X[lo:hi], y[lo:hi], classes=cl)
        assert isinstance(ra, mbcore.OnlineRun) and isinstance(rb, mbref.OnlineRun)
        sa, sb = summarise(ra), summarise(rb)
        assert sa == sb, (name, k)
        assert sa["n"] == hi - lo and 0 < sa["mistakes"] < hi - lo, (name, k)
    assert a.mistakes_ == b.mistakes_ and a.updates_ == b.updates_
