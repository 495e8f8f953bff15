"""One contract over every learner that mbcore.all_learners() returns (river's
``_unit_test_params`` pattern): each class gives its small test parameters
(``_unit_test_params``), and the data comes from what it declares its rows to be (``_TAKES``).
A learner without its own test parameters fails here, so a new learner cannot go untested.

For each learner and parameter set: a chunked ``partial_fit`` equals one call (predictions,
counts, later predictions); a copy pickled mid-stream continues exactly; ``clone`` gives an
unfitted learner with equal parameters; ``save``/``load`` gives the same predictions; predict
before fit raises NotFittedError; the inputs are not modified.  Each of these is its own test
id (``test_contract[<Learner>-<i>-<check>]``), so one failure hides none of the others.
"""

import copy
import io
import pickle

import numpy as np
import pytest

import mbcore
from mbcore import NotFittedError

from _cases import EXISTING
from _learner_data import N, data

LEARNERS = mbcore.all_learners()

# noisy streams make the elimination learners inconsistent: their warning is not the subject
pytestmark = [pytest.mark.smoke, pytest.mark.filterwarnings("ignore::mbcore.LearnerWarning")]


def _cases():
    """(class, params) per class and entry of its ``_unit_test_params()`` (None: it gives
    none, and each check fails saying so)."""
    return [(name, i, cls, params) for name, cls in LEARNERS
            for i, params in enumerate(cls.__dict__["_unit_test_params"].__func__(cls)
                                       if "_unit_test_params" in cls.__dict__ else [None])]


CASES = [pytest.param(cls, params, id=f"{name}-{i}") for name, i, cls, params in _cases()]


def test_every_learner_gives_its_own_test_parameters():
    missing = [name for name, cls in LEARNERS if "_unit_test_params" not in cls.__dict__]
    assert not missing, f"no _unit_test_params: {missing}"
    for name, cls in LEARNERS:
        params = cls._unit_test_params()
        assert params and all(isinstance(p, dict) for p in params), name


def test_the_suite_covers_every_learner():
    assert {c.values[0] for c in CASES} == {cls for _, cls in LEARNERS}
    # (every learner that existed is still registered, once; a new one adds itself)
    names = [name for name, _ in LEARNERS]
    assert len(set(names)) == len(names) and set(EXISTING) <= set(names)


def _outputs(clf, X, kw):
    out = {"predict": np.asarray(clf.predict(X, **kw)).tolist()}
    if hasattr(clf, "decision_function"):
        out["decision"] = np.asarray(clf.decision_function(X, **kw)).tolist()
    return out


def _classes(y):
    return [0, 1] if y.min() >= 0 else [-1, 1]


def _whole(cls, params, X, y, kw):
    """The learner run over the whole stream at once (run_online), its record checked."""
    whole = cls(**params)
    run = mbcore.run_online(whole, X, y, classes=_classes(y), **kw)
    assert whole.n_seen_ == N and 0 <= whole.mistakes_ <= N
    assert int(np.sum(run.errors)) == whole.mistakes_
    return whole


# -- the checks, one test id each (river's yield_checks, scikit-learn's parametrize_with_checks);
# each takes (cls, params, X, y, kw, tmp_path) --------------------------------------------------

def check_not_fitted(cls, params, X, y, kw, tmp_path):
    """predict before fit raises NotFittedError."""
    fresh = cls(**params)
    with pytest.raises(NotFittedError):
        fresh.predict(X[:3], **{k: v[:3] for k, v in kw.items()})


def check_chunked_equals_whole(cls, params, X, y, kw, tmp_path):
    """partial_fit in chunks gives the counts and outputs of one run over the whole stream."""
    whole = _whole(cls, params, X, y, kw)
    chunks = cls(**params)
    cut = [0, 7, 8, 31, N]
    for a, b in zip(cut[:-1], cut[1:]):
        chunks.partial_fit(X[a:b], y[a:b], classes=_classes(y),
                           **{k: v[a:b] for k, v in kw.items()})
    assert (chunks.n_seen_, chunks.mistakes_, chunks.updates_) == \
        (whole.n_seen_, whole.mistakes_, whole.updates_)
    assert _outputs(chunks, X, kw) == _outputs(whole, X, kw)


def check_pickle_mid_stream(cls, params, X, y, kw, tmp_path):
    """Pickled mid-stream, then both continue exactly alike (and as the whole run)."""
    whole = _whole(cls, params, X, y, kw)
    half = cls(**params)
    half.partial_fit(X[:30], y[:30], classes=_classes(y), **{k: v[:30] for k, v in kw.items()})
    other = pickle.loads(pickle.dumps(half))
    for c in (half, other):
        c.partial_fit(X[30:], y[30:], **{k: v[30:] for k, v in kw.items()})
    assert _outputs(half, X, kw) == _outputs(other, X, kw) == _outputs(whole, X, kw)


def check_clone(cls, params, X, y, kw, tmp_path):
    """clone: unfitted, equal parameters."""
    whole = _whole(cls, params, X, y, kw)
    c = mbcore.clone(whole)
    assert type(c) is cls
    with pytest.raises(NotFittedError):
        c.n_seen_
    assert c.get_params().keys() == whole.get_params().keys()


def check_save_load(cls, params, X, y, kw, tmp_path):
    """save / load gives the same class and the same outputs."""
    whole = _whole(cls, params, X, y, kw)
    buf = io.BytesIO()
    whole.save(buf)
    buf.seek(0)
    back = mbcore.load(buf)
    assert type(back) is cls and _outputs(back, X, kw) == _outputs(whole, X, kw)


def check_inputs_unchanged(cls, params, X, y, kw, tmp_path):
    """Every call of the checks above leaves its inputs untouched."""
    X0, y0 = copy.deepcopy(X), y.copy()
    kw0 = copy.deepcopy(kw)
    for check in CHECKS:
        if check is not check_inputs_unchanged:
            check(cls, params, X, y, kw, tmp_path)
    assert np.array_equal(X, X0) and np.array_equal(y, y0)
    assert all(np.array_equal(kw[k], kw0[k]) for k in kw)


CHECKS = [check_not_fitted, check_chunked_equals_whole, check_pickle_mid_stream, check_clone,
          check_save_load, check_inputs_unchanged]


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__[len("check_"):] for c in CHECKS])
@pytest.mark.parametrize("cls,params", CASES)
def test_contract(cls, params, check, tmp_path):
    assert params is not None, f"{cls.__name__} gives no _unit_test_params"
    X, y, kw = data(cls)
    check(cls, params, X, y, kw, tmp_path)
