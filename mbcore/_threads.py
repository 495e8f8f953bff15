"""Threads: how many an online pass runs on, and the pool that scores large batches.

* The threads of one online pass (the exact speculative block passes of
  ``mbcore/_kernels/_spec.h``): a learner with an ``n_jobs`` parameter checks it with
  :func:`check_n_jobs` and runs a pass on :func:`pass_threads` threads (``n_jobs``, or the
  environment variable MBCORE_NUM_THREADS, resolved by :func:`resolve_n_jobs`; one for a small
  pass).
* The scoring of a large batch (``predict``, ``decision_function``): :func:`map_rows` cuts it
  into row blocks scored in a shared thread pool (the kernels release the GIL).

The module-level knobs ``SPEC_MIN_VALUES`` and ``PARALLEL_MIN_VALUES`` are read at each call:
tests and benchmarks set them here.
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from ._params import Custom

__all__ = ["ENV_THREADS", "MAX_THREADS", "SPEC_MIN_VALUES", "PARALLEL_MIN_VALUES",
           "available_cores", "sharing_cores", "check_n_jobs", "resolve_n_jobs", "pass_threads",
           "map_rows", "N_JOBS"]

ENV_THREADS = "MBCORE_NUM_THREADS"
MAX_THREADS = 64                   # (MB_SPEC_MAXT in _spec.h)
# Below this many stored values a pass runs on one thread: starting and joining a team costs
# tens of microseconds.  (Tests set it to 0 to send small streams through the threads.)
SPEC_MIN_VALUES = 1 << 15
# Below this many stored values a batch is scored in one call (map_rows).
PARALLEL_MIN_VALUES = 1 << 19

_POOL = None                       # the threads of map_rows, made at its first large batch


def available_cores():
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                  # (not on Linux)
        return os.cpu_count() or 1


def _env_threads(owner):
    """The value of MBCORE_NUM_THREADS (-1 or a positive int), or None when it is not set."""
    env = os.environ.get(ENV_THREADS, "").strip()
    if not env:
        return None
    try:
        n = int(env)
    except ValueError:
        n = 0
    if not (n == -1 or n >= 1):
        raise ValueError(f"{owner}: the environment variable {ENV_THREADS} must be -1 (every "
                         f"core) or a positive integer, got {env!r}")
    return n


def check_n_jobs(owner, value, name="n_jobs"):
    """None, -1 (every core) or a positive int; a ValueError naming the parameter otherwise
    (with None, the environment variable it defers to is checked too)."""
    from ._params import bad
    if value is None:
        _env_threads(owner)
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or \
            not (value == -1 or value >= 1):
        raise bad(owner, name, value, "None, -1 (every core) or a positive integer")
    return int(value)


def resolve_n_jobs(owner, n_jobs):
    """The number of threads ``n_jobs`` asks for: None takes the environment variable
    MBCORE_NUM_THREADS if it is set (the same values), else every core; -1 every core; at most
    MAX_THREADS."""
    if n_jobs is None:
        n_jobs = _env_threads(owner)
        if n_jobs is None:
            n_jobs = -1
    n = available_cores() if n_jobs == -1 else n_jobs
    return max(1, min(n, MAX_THREADS))


_SHARED = threading.local()         # .cap: the threads a pass may take in this thread


@contextmanager
def sharing_cores(busy):
    """Within the block, the online passes this thread runs leave ``busy`` cores to other
    threads of the process (the reader's background parsing, in ``train_file`` and
    ``evaluate_file``): a pass whose ``n_jobs`` is not set (None, and no MBCORE_NUM_THREADS)
    takes at most the available cores less ``busy``, at least one.  A team larger than the
    free cores only makes the pass's threads and the parsing threads take turns.  The
    results are the same for any number of threads."""
    old = getattr(_SHARED, "cap", None)
    _SHARED.cap = max(1, available_cores() - int(busy))
    try:
        yield
    finally:
        _SHARED.cap = old


def pass_threads(owner, n_jobs, rows, values):
    """The threads of an online pass over ``rows`` rows holding ``values`` stored values: 1
    for one row or fewer than SPEC_MIN_VALUES values, else what ``n_jobs`` asks for
    (:func:`resolve_n_jobs`), within :func:`sharing_cores`'s cap where ``n_jobs`` is not set.
    The results are the same for any number."""
    if rows < 2 or values < SPEC_MIN_VALUES:
        return 1
    n = resolve_n_jobs(owner, n_jobs)
    cap = getattr(_SHARED, "cap", None)
    if cap is not None and n > cap and n_jobs is None and _env_threads(owner) is None:
        n = cap
    return n


def map_rows(batch, fn, out):
    """Run ``fn(sub_batch, out_slice) -> (status, bad_row)`` over row blocks of a batch.

    The kernels release the GIL, so a large batch is cut into one block per core and the
    blocks are scored in threads (scores are per row, so the result is the same as one call).
    Returns the first failure as (status, row in the whole batch), or (0, -1).
    """
    global _POOL
    size = batch.data.shape[0] if batch.X is None else batch.n * batch.d
    if size < PARALLEL_MIN_VALUES:                  # small: one call (os.cpu_count is slow)
        return fn(batch, out)
    workers = min(os.cpu_count() or 1, 8)
    if workers < 2 or batch.n < 2 * workers:
        return fn(batch, out)
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mbcore")
    edges = [batch.n * k // workers for k in range(workers + 1)]
    futures = [(a, _POOL.submit(fn, batch.rows(a, b), out[a:b]))
               for a, b in zip(edges[:-1], edges[1:])]
    first = (0, -1)
    for a, f in futures:
        status, bad = f.result()
        if status and first[0] == 0:
            first = (status, a + bad)
    return first


# The domain of every learner's ``n_jobs`` parameter, for the classes' _PARAMETERS
N_JOBS = Custom(lambda owner, name, value: check_n_jobs(owner, value, name),
                "None, -1 (every core) or a positive integer", refused=(0, -2, 1.5, True, "all"))
