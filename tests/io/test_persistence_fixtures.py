"""Files saved by an earlier mbcore load and continue exactly.

``tests/fixtures/files-0.1.0/`` holds one saved learner of every class (and of the variants the
persistence tests use: nested experts, concept classes, string labels, float modes), written by
mbcore 0.1.0 before the persistence code moved into the learner families
(``tests/fixtures/make_files.py`` says how).  Each must load, be exactly the learner that the
current version builds from the same first half of the data, and continue on the second half
exactly like it: the same online record, predictions and scores.  A change of the format or of
a family's state that breaks old files fails here.
"""

import copy
import os

import numpy as np
import pytest

import mbcore
from conftest import FILES_0_1_0, ADDITIVE, entry_id, make, real_stream
from _persistence_cases import (SAVED_0_1_0, _observe, fit_params, learner_state, record)

FOLDER = FILES_0_1_0

X, Y = real_stream(17, 120, 6)
# one registry entry per linear class, and every other learner of the persistence tests
_LINEAR = ["Perceptron(fit_intercept=True)", "MarginPerceptron(gamma=0.2,fit_intercept=True)",
           "AveragedPerceptron(mode=vote,fit_intercept=True,normalize=True,tie=positive)",
           "AveragedPerceptron(mode=average)", "KernelPerceptron(kernel=rbf,gamma=0.3,budget=5)",
           "KernelPerceptron(kernel=poly,degree=2)", "OnlineHingeSVM(lam=0.05,fit_intercept=True)"]
CASES = [(entry_id(e), (lambda e=e: make(mbcore, e)), (lambda: (X, Y, {})))
         for e in ADDITIVE if entry_id(e) in _LINEAR] + list(SAVED_0_1_0)


def first_half(clf, A, y, extra):
    h = len(y) // 2
    clf.partial_fit(A[:h], y[:h], **fit_params(extra, 0, h, True))
    return h


def same_state(clf):
    """The learner's state, with the voted Perceptron's list of vote blocks joined: how the
    votes are cut into blocks is bookkeeping (it changed after 0.1.0), their sequence is the
    state; and with the example of ``failure_`` left out: files of 0.1.0 do not say which
    example it was (they load with None there), only that there was one."""
    clf = copy.deepcopy(clf)
    todo = [clf]
    while todo:
        lrn = todo.pop()
        if isinstance(lrn, mbcore.AveragedPerceptron) and lrn.__dict__.get("_votes"):
            lrn._votes = [np.concatenate(lrn._votes)]
            lrn._vote_c = [np.concatenate(lrn._vote_c)]
        if lrn.__dict__.get("_failure") is not None:
            lrn._failure = (None, lrn._failure[1])
        todo.extend(getattr(lrn, "experts", None) or [])
    return learner_state(clf)


def test_every_case_has_a_file():
    assert len(CASES) == len(_LINEAR) + len(SAVED_0_1_0)
    names = {n + ".npz" for n, _, _ in CASES}
    assert names <= set(os.listdir(FOLDER)), sorted(names - set(os.listdir(FOLDER)))


@pytest.mark.parametrize("name, mk, data", CASES, ids=[c[0] for c in CASES])
def test_old_file_loads_and_continues_exactly(name, mk, data):
    A, y, extra = data()
    old = mbcore.load(os.path.join(FOLDER, name + ".npz"))
    new = mk()
    h = first_half(new, A, y, extra)
    assert type(old) is type(new)
    assert same_state(old) == same_state(new)
    rest = fit_params(extra, h, len(y), False)
    ro = mbcore.run_online(old, A[h:], y[h:], **rest)
    rn = mbcore.run_online(new, A[h:], y[h:], **rest)
    assert record(ro) == record(rn)
    assert same_state(old) == same_state(new)
    sub = fit_params(extra, 0, 20, False)
    assert _observe(old, A[:20], sub) == _observe(new, A[:20], sub)
