"""Fuzzing: every public learner x method x kind of bad input, each case run in a child process.

README ("Bad input and files from elsewhere") promises that no input makes a kernel read or
write outside an array, that bad input raises one clear ``ValueError`` or ``TypeError`` whose
message names the class and the parameter, row or value, that a failed call leaves the learner
exactly as it was, that inputs are never modified, and that unusual but valid layouts
(non-contiguous, Fortran, big-endian, other dtypes, other sparse formats, DataFrames) give the
plain array's result.  This file checks all of that on the whole cross product.

How it runs
-----------
The cases live in ``fuzz_worker.py`` (beside conftest.py): a table of learners (with the data
family each reads), methods and input kinds, from which a case is rebuilt from its id alone.
One child process (``python fuzz_worker.py``, started from an empty directory so that it
imports the installed package, with this process's environment so that CI's LD_PRELOAD /
ASAN_OPTIONS reach it) serves all of them: each test sends its case id and gets the facts
back.  If the child dies (a segfault, an AddressSanitizer abort) or hangs, that case fails
naming the signal and the case, and the next case starts a new child.  The cases are grouped
by learner and method (one test each, every case still sent on its own; the failures of a
group are all named).

* ``test_bad_input_cases[<learner>-<method>]``, each case ``<learner>-<method>-<kind>``: the
  call raises ValueError or TypeError
  (not IndexError, AttributeError, OverflowError, SystemError, MemoryError, ...), never
  returns silently; the message names the class and what is wrong; the learner (fitted or
  not, ``fit`` on a fitted one included) and the inputs are exactly unchanged.
* ``test_valid_layout_cases[<learner>-<method>]``, each case ``<learner>-<method>-<layout>``:
  the unusual layout gives exactly
  the result of the plain C-contiguous array (or canonical CSR matrix), and is not modified.
* ``test_fuzz_*``: hypothesis generates corrupted CSR structures, packed rows and point indices
  here, sends them to the child, and checks them against this file's own validity rule: an
  invalid input is refused cleanly, a valid one gives the result of its plain equivalent.
"""

import base64
import json
import math
import os
import pickle
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import fuzz_worker as W

try:
    from hypothesis import HealthCheck, given, settings, strategies as st
except ImportError:          # pragma: no cover - hypothesis is a test requirement
    given = None

# CI runs this file on the debug build and the AddressSanitizer build too (tests/README.md)
pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

# the child runs the file the module above was imported from (fuzz_worker.py, beside conftest.py)
WORKER = os.path.abspath(W.__file__)
# Seconds one case may take before the child counts as hung (ASan builds are slower).
CASE_TIMEOUT = float(os.environ.get("MBCORE_FUZZ_TIMEOUT", "120"))

# Exceptions that are never the answer to bad input (and must not hide in a ValueError's
# ancestry either: numpy's AxisError is a ValueError *and* an IndexError).
FORBIDDEN = {"IndexError", "KeyError", "AttributeError", "OverflowError", "SystemError",
             "MemoryError", "ZeroDivisionError", "RecursionError", "UnicodeError",
             "FloatingPointError", "AssertionError", "NotImplementedError", "RuntimeError"}


# ------------------------------------------------------------------------------------------------
# The child process
# ------------------------------------------------------------------------------------------------

class WorkerDied(Exception):
    pass


class Worker:
    """A persistent ``python fuzz_worker.py`` child: ``ask(request)`` sends one JSON line and
    returns the reply; a dead or hung child raises WorkerDied (with the signal and its last
    stderr lines), and the next ``ask`` starts a new one."""

    def __init__(self):
        self.proc = None
        self.where = tempfile.mkdtemp(prefix="mbcore-fuzz-")      # an empty directory
        self.err_path = os.path.join(self.where, "stderr.txt")
        self.err = None
        self.started = 0

    def start(self):
        if self.err is not None:
            self.err.close()
        self.err = open(self.err_path, "w+b")
        self.proc = subprocess.Popen(
            [sys.executable, "-u", WORKER],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, cwd=self.where,
            env=dict(os.environ))
        self.started += 1
        hello = self._read(CASE_TIMEOUT, "starting")
        assert "ready" in hello, hello

    def _stderr_tail(self, n=3000):
        try:
            self.err.flush()
            with open(self.err_path, "rb") as f:
                return f.read().decode("utf-8", "replace")[-n:]
        except OSError:
            return ""

    def _died(self, what, hung=False):
        proc, self.proc = self.proc, None
        if hung:
            proc.kill()
        try:
            rc = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
        if hung:
            cause = f"hung for more than {CASE_TIMEOUT:.0f} s (killed)"
        elif rc < 0:
            try:
                cause = f"died from signal {signal.Signals(-rc).name} (return code {rc})"
            except ValueError:
                cause = f"died from signal {-rc} (return code {rc})"
        else:
            cause = f"exited with status {rc}"
        raise WorkerDied(f"the worker {cause} on {what}\n--- its stderr ---\n"
                         f"{self._stderr_tail()}")

    def _read(self, timeout, what):
        out = self.proc.stdout
        ready, _, _ = select.select([out], [], [], timeout)
        if not ready:
            self._died(what, hung=True)
        line = out.readline()
        if not line:
            self._died(what)
        return json.loads(line)

    def ask(self, request, what):
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            self._died(what)
        reply = self._read(CASE_TIMEOUT, what)
        if "worker_error" in reply:
            pytest.fail(f"the case could not be built or run (a bug in the test): {what}\n"
                        f"{reply['worker_error']}", pytrace=False)
        return reply

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        if self.err is not None:
            self.err.close()
        shutil.rmtree(self.where, ignore_errors=True)


@pytest.fixture(scope="session")
def worker():
    w = Worker()
    yield w
    w.close()


def ask(worker, request, what):
    try:
        return worker.ask(request, what)
    except WorkerDied as exc:
        pytest.fail(str(exc), pytrace=False)


# ------------------------------------------------------------------------------------------------
# Checks
# ------------------------------------------------------------------------------------------------

def check_refused(rec, names, expect, case):
    """A clean refusal: ValueError/TypeError, message naming the class and what is wrong, the
    learner and the input unchanged."""
    where = f"{case} ({rec.get('state', '')} learner)"
    assert rec["outcome"] == "raised", f"{where}: returned without an error"
    assert rec["type"] in ("ValueError", "TypeError"), \
        f"{where}: raised {rec['type']} ({rec['message']!r}) at {rec['where']}"
    assert not FORBIDDEN & set(rec["mro"]), f"{where}: {rec['type']} is a {rec['mro']}"
    msg = rec["message"]
    # "Perceptron: ..." (for the Conservative wrapper also the wrapped learner's own message)
    assert any(msg.startswith(n + ":") for n in names), \
        f"{where}: the message does not start with {' or '.join(names)}: {msg!r}"
    for pattern in expect:
        assert re.search(pattern, msg, re.I), \
            f"{where}: the message does not say /{pattern}/: {msg!r} (raised at {rec['where']})"
    assert rec["state_same"], f"{where}: the failed call changed the learner ({msg!r})"
    assert rec["input_same"], f"{where}: the call modified its input ({msg!r})"


BAD_CASES = W.bad_cases()
LAYOUT_CASES = W.layout_cases()


def test_the_table_covers_every_public_learner():
    """Every learner class mbcore exports is in the table, and every method it has is called."""
    import mbcore
    learners = {name for name in mbcore.__all__
                if isinstance(getattr(mbcore, name), type) and name != "OnlineLearner" and
                issubclass(getattr(mbcore, name), (mbcore.OnlineLearner, mbcore.Conservative))}
    assert len(learners) >= 15
    covered = {W.class_name(lid) for lid in W.LEARNERS}
    assert learners - covered == set()
    methods = {(W.class_name(c.split("-")[0]), c.split("-")[1]) for c in BAD_CASES}
    for lid in W.LEARNERS:
        for m in W.X_METHODS:
            if W.has_method(lid, m):
                assert (W.class_name(lid), m) in methods, (lid, m)


def check_bad_case(worker, case):
    """One bad input to one method of one learner (in the child): a clean refusal, or, for an
    unusual value some learners may take, a sane result with the input unchanged."""
    reply = ask(worker, {"case": case}, case)
    assert reply["runs"], f"{case}: nothing was run"
    for rec in reply["runs"]:
        if reply["may_return"] and rec["outcome"] == "returned":
            # an unusual value some learners may take (1e308): then the result must be sane
            assert rec["sane"] is not False, f"{case}: returned an insane result"
            assert rec["input_same"], f"{case}: the call modified its input"
            continue
        check_refused(rec, reply["names"], reply["expect"], case)


def check_layout_case(worker, case):
    """One valid but unusual layout of X (in the child): the same result and learner as the
    plain array, the input unchanged."""
    reply = ask(worker, {"case": case}, case)
    for rec in reply["runs"]:
        where = f"{case} ({rec['state']} learner)"
        assert rec["plain"] == "returned", f"{where}: the plain input was refused " \
                                           f"({rec['plain_error']}): a bug in the test data"
        assert rec["variant"] == "returned", \
            f"{where}: a valid layout was refused: {rec['variant_error_type']}: " \
            f"{rec['variant_error']}"
        assert rec["same_result"], f"{where}: the result differs from the plain array's"
        assert rec["same_learner"], f"{where}: the learner's state differs from the plain " \
                                    "array's"
        assert rec["input_same"], f"{where}: the call modified its input"


def by_method(cases):
    """The cases grouped by learner and method ("Perceptron-partial_fit": its inputs), one test
    each: every case still runs in the child on its own, and a case that fails or crashes the
    child is named while the rest of its group goes on (a crashed child is replaced)."""
    groups = {}
    for case in cases:
        groups.setdefault("-".join(case.split("-")[:2]), []).append(case)
    return groups


def run_group(worker, check, cases):
    failed = []
    for case in cases:
        try:
            check(worker, case)
        except (AssertionError, pytest.fail.Exception) as exc:
            failed.append(f"{case}: {exc}")
    assert not failed, f"{len(failed)} of {len(cases)} cases failed:\n" + "\n".join(failed)


BAD_GROUPS = by_method(BAD_CASES)
LAYOUT_GROUPS = by_method(LAYOUT_CASES)


@pytest.mark.parametrize("group", list(BAD_GROUPS))
def test_bad_input_cases(worker, group):
    run_group(worker, check_bad_case, BAD_GROUPS[group])


# the valid layouts through fit of the K-class forms (about 15 s of the child's time) are long
# runs (pytest -m longrun, which CI runs): the plain pytest runs their other methods and every
# two-class form's fit
@pytest.mark.parametrize("group", [
    pytest.param(g, marks=[pytest.mark.longrun] if "3 classes" in g and g.endswith("-fit") else [])
    for g in LAYOUT_GROUPS])
def test_valid_layout_cases(worker, group):
    run_group(worker, check_layout_case, LAYOUT_GROUPS[group])


def test_the_groups_hold_every_case_once():
    for groups, cases in ((BAD_GROUPS, BAD_CASES), (LAYOUT_GROUPS, LAYOUT_CASES)):
        grouped = [c for g in groups.values() for c in g]
        assert sorted(grouped) == sorted(cases) and len(set(cases)) == len(cases)


def test_a_failing_case_is_named_and_its_group_goes_on(worker):
    """run_group: a case that fails is reported by name, and the cases after it still run."""
    seen = []

    def check(w, case):
        seen.append(case)
        assert case != "b", "b is wrong"
    with pytest.raises(AssertionError, match=r"(?s)1 of 3 cases failed:.*b: b is wrong"):
        run_group(worker, check, ["a", "b", "c"])
    assert seen == ["a", "b", "c"]


def test_a_crash_fails_the_case_and_the_next_case_gets_a_new_child(worker):
    """The crash guard itself: a child that segfaults is reported with its signal, and the
    next request is served by a new child."""
    # (a plain build dies from SIGSEGV; under AddressSanitizer the child exits with status 1)
    with pytest.raises(WorkerDied, match="signal SIG(SEGV|BUS|ABRT)|exited with status [1-9]"):
        worker.ask({"crash": True}, "the deliberate crash")
    started = worker.started
    reply = worker.ask({"case": BAD_CASES[0]}, BAD_CASES[0])
    assert reply["runs"] and worker.started == started + 1


# ------------------------------------------------------------------------------------------------
# Hypothesis: random corruption of CSR structures, packed rows and point indices
# ------------------------------------------------------------------------------------------------
#
# The parent draws the arrays, decides with its own rule (below, written from the README's
# definition of a valid input, not from the library) whether the input is valid, and sends
# both to the child.  An invalid input must be refused cleanly (as above); a valid one must give
# exactly the result of its plain equivalent (the dense matrix, the unpacked rows, the point
# indices as Python ints), which the child computes by a plain loop of its own.

def send(worker, family, learner, method, payload, what):
    req = {"fuzz": family, "learner": learner, "method": method,
           "payload": base64.b64encode(pickle.dumps(payload)).decode()}
    return ask(worker, req, what)


def check_fuzz(reply, valid, what):
    if valid:
        assert reply["outcome"] == "returned", \
            f"{what}: a valid input was refused: {reply.get('type')}: {reply.get('message')}"
        assert "plain_error" not in reply, f"{what}: the plain input was refused " \
                                           f"({reply['plain_error']}): a bug in the test"
        assert reply["same"], f"{what}: the result differs from the plain input's"
        assert reply["input_same"], f"{what}: the call modified its input"
    else:
        reply = dict(reply, state="fuzzed")
        check_refused(reply, reply["names"], [], what)


# The learners each kind of input goes to (sparse and dense results are equal on these: exact
# arithmetic on the small dyadic values drawn below), and the calls: partial_fit and predict on
# a fitted learner, and a first partial_fit ("fit_unfitted").
CSR_LEARNERS = {
    "real": ["Perceptron", "PassiveAggressive", "AveragedPerceptron(vote)", "KernelPerceptron(rbf)",
             "KernelPerceptron(poly,budget=3)", "Winnow(real)", "Conservative(Perceptron)",
             "WeightedMajority(pool)"],
    "bool": ["Winnow", "BalancedWinnow", "EliminationWinnow", "Conjunction", "Disjunction(all)",
             "DecisionList", "Conservative(Conjunction)"],
    "experts": ["WeightedMajority", "RandomizedWeightedMajority", "Specialists",
                "PairSpecialists"],
}
# (a learner added since the table: by its input family, tests/fuzz_worker.py's _derived)
for _lid, (_fam, _, _) in W.LEARNERS.items():
    if "(unit" in _lid and _fam in ("real", "bool", "advice", "awake", "categorical"):
        CSR_LEARNERS["experts" if _fam not in ("real", "bool") else _fam].append(_lid)
CSR_VALUES = {"real": [-2.0, -0.5, 0.25, 1.0, 3.0, math.nan], "bool": [1.0, 0.0, 2.0],
              "experts": [1.0, 0.0]}
FUZZ_METHODS = ["partial_fit", "predict", "fit_unfitted"]


def csr_valid(data, indices, indptr, shape, d_needed, min_d, values_ok):
    """A CSR structure a learner must take (README: indptr of the right length, from 0 to the
    number of stored values and never decreasing, every index in range, values and indices of
    one length, column indices sorted within rows), with the fitted width and valid values."""
    n, d = shape
    if n < 1 or d < min_d or (d_needed is not None and d != d_needed):
        return False
    if len(indptr) != n + 1 or indptr[0] != 0 or indptr[-1] != len(indices) or \
            len(data) != len(indices):
        return False
    for i in range(n):
        a, b = int(indptr[i]), int(indptr[i + 1])
        if b < a:
            return False
        row = [int(j) for j in indices[a:b]]
        if any(j < 0 or j >= d for j in row) or any(q <= p for p, q in zip(row, row[1:])):
            return False
    return all(values_ok(v) for v in data)


if given is not None:
    FUZZ = settings(max_examples=int(os.environ.get("MBCORE_FUZZ_EXAMPLES", "60")),
                    deadline=None, database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

    @st.composite
    def csr_examples(draw, group):
        """A CSR structure (valid to start with), then up to three corruptions."""
        learner = draw(st.sampled_from(CSR_LEARNERS[group]))
        method = draw(st.sampled_from(FUZZ_METHODS))
        fam = W.family(W.LEARNERS[learner][0])
        d_fit = fam.X.shape[1]
        n = draw(st.integers(0, 6))
        d = draw(st.sampled_from([d_fit] * 6 + [d_fit + 1, d_fit - 1, 1, 0]))
        rows = [sorted(draw(st.sets(st.integers(0, d - 1), max_size=d))) if d else []
                for _ in range(n)]
        indices = [j for r in rows for j in r]
        indptr = [0]
        for r in rows:
            indptr.append(indptr[-1] + len(r))
        data = [draw(st.sampled_from(CSR_VALUES[group])) for _ in indices]
        shape = [n, d]
        itype = draw(st.sampled_from([np.int32, np.int64, np.uint32]))
        info = np.iinfo(itype)
        anyint = st.integers(-3, d + 3) | st.sampled_from([2 ** 31 - 1, 2 ** 40, -2 ** 40])
        for _ in range(draw(st.integers(0, 3))):
            what = draw(st.sampled_from(["index", "indptr", "indptr_short", "indptr_long",
                                         "swap", "duplicate", "data", "indices_short",
                                         "shape"]))
            if what == "index" and indices:
                indices[draw(st.integers(0, len(indices) - 1))] = draw(anyint)
            elif what == "indptr" and indptr:
                indptr[draw(st.integers(0, len(indptr) - 1))] = draw(
                    st.integers(-2, len(indices) + 3))
            elif what == "indptr_short" and indptr:
                indptr.pop()
            elif what == "indptr_long":
                indptr.append(draw(st.integers(0, len(indices) + 2)))
            elif what in ("swap", "duplicate") and len(indices) >= 2:
                k = draw(st.integers(1, len(indices) - 1))
                if what == "swap":
                    indices[k - 1], indices[k] = indices[k], indices[k - 1]
                else:
                    indices[k] = indices[k - 1]
            elif what == "data":
                data = data[:-1] if data and draw(st.booleans()) else data + [1.0]
            elif what == "indices_short" and indices:
                indices.pop()
            elif what == "shape":
                shape[draw(st.integers(0, 1))] += draw(st.sampled_from([-1, 1, 2]))
        # values the index dtype cannot hold stay out (NumPy would refuse to make the array)
        indices = [j for j in indices if info.min <= j <= info.max]
        indptr = [p for p in indptr if info.min <= p <= info.max]
        payload = {"data": np.array(data, dtype=np.float64),
                   "indices": np.array(indices, dtype=itype),
                   "indptr": np.array(indptr, dtype=itype), "shape": tuple(shape),
                   "scipy": draw(st.booleans()) and min(shape) >= 0,
                   "n_rows": max(shape[0], 0)}      # (y: one label per row of the shape)
        min_d = 2 if learner == "PairSpecialists" else 1
        payload["valid"] = csr_valid(payload["data"], payload["indices"], payload["indptr"],
                                     tuple(shape), None if method == "fit_unfitted" else d_fit,
                                     min_d, lambda v: v == v and (group == "real" or v in (0, 1)))
        return learner, method, payload

    def _run_csr(worker, example):
        learner, method, payload = example
        what = f"{learner}-{method} on a generated CSR matrix (valid={payload['valid']})"
        reply = send(worker, "csr", learner, method, payload, what)
        check_fuzz(reply, payload["valid"], what)

    @FUZZ
    @given(example=csr_examples("real"))
    def test_fuzz_csr_structure_real_learners(worker, example):
        _run_csr(worker, example)

    @FUZZ
    @given(example=csr_examples("bool"))
    def test_fuzz_csr_structure_boolean_learners(worker, example):
        _run_csr(worker, example)

    @FUZZ
    @given(example=csr_examples("experts"))
    def test_fuzz_csr_structure_experts(worker, example):
        _run_csr(worker, example)

    @st.composite
    def packed_examples(draw):
        """Rows packed 8 variables per byte (10 variables: 2 bytes, 6 padding bits), of any
        width, dtype and values; the padding bits cleared most of the time."""
        learner = draw(st.sampled_from(["DecisionList(packed)", "Conjunction(packed)"]))
        method = draw(st.sampled_from(FUZZ_METHODS))
        n = draw(st.integers(0, 5))
        width = draw(st.sampled_from([2, 2, 2, 2, 1, 3]))
        dtype = draw(st.sampled_from([np.uint8, np.uint8, np.int16, np.int64, np.float64,
                                      np.bool_, object]))
        rows = [[draw(st.integers(0, 255) | st.integers(-2, 300)) for _ in range(width)]
                for _ in range(n)]
        if width >= 2 and draw(st.integers(0, 3)):
            for r in rows:
                r[1] &= 0xC0                            # keep variables 8 and 9 only
        if dtype in (np.uint8, np.bool_):
            rows = [[v % 256 if dtype is np.uint8 else v % 2 for v in r] for r in rows]
        A = np.array(rows, dtype=dtype).reshape(n, width)
        # bytes are integers in 0..255 (of an integer dtype, or Python ints in an object
        # array); floats and bools are not, even of a byte's value
        items = A.ravel().tolist()
        valid = (n >= 1 and width == 2 and A.dtype.kind in "iuO" and
                 all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255
                     for v in items) and
                 all(int(r[1]) & 0x3F == 0 for r in A))
        return learner, method, {"rows": A, "valid": valid, "n_rows": n}

    @FUZZ
    @given(example=packed_examples())
    def test_fuzz_packed_rows(worker, example):
        learner, method, payload = example
        what = f"{learner}-{method} on generated packed rows (valid={payload['valid']})"
        check_fuzz(send(worker, "packed", learner, method, payload, what), payload["valid"],
                   what)

    @st.composite
    def point_examples(draw):
        """Point indices of the class (8 points) as lists or arrays of any dtype, with values
        in and out of range, floats, bools, None and huge integers."""
        learner = draw(st.sampled_from(["Halving(points)", "SOA(points)"]))
        method = draw(st.sampled_from(FUZZ_METHODS))
        n = draw(st.integers(0, 6))
        value = st.integers(0, 7) | st.integers(-3, 11) | st.sampled_from(
            [2 ** 63, 2 ** 70, -2 ** 63, 1.0, 2.5, math.nan, True, None])
        values = [draw(value) for _ in range(n)]
        container = draw(st.sampled_from(["list", "tuple", np.int8, np.int64, np.uint64,
                                          np.float64, object]))
        rows = values if container == "list" else tuple(values)
        if container != "tuple" and container != "list":
            try:
                with np.errstate(all="ignore"):
                    rows = np.array(values, dtype=container)
                if rows.dtype.kind in "iu" and [int(v) for v in rows] != values:
                    rows = values                       # the dtype would change the values
            except (TypeError, ValueError, OverflowError):
                rows = values
        items = rows.tolist() if isinstance(rows, np.ndarray) else list(rows)
        if isinstance(rows, np.ndarray) and rows.dtype.kind not in "iuO":
            valid = False                               # floats and bools are no indices
        else:
            valid = n >= 1 and all(isinstance(v, int) and not isinstance(v, bool) and
                                   0 <= v < 8 for v in items)
        return learner, method, {"rows": rows, "valid": valid, "n_rows": n,
                                 "plain": [int(v) for v in items] if valid else None}

    @FUZZ
    @given(example=point_examples())
    def test_fuzz_point_indices(worker, example):
        learner, method, payload = example
        what = f"{learner}-{method} on generated point indices (valid={payload['valid']})"
        check_fuzz(send(worker, "points", learner, method, payload, what), payload["valid"],
                   what)
