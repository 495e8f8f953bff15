"""Input checks and their error messages, in one place.

X is turned into a :class:`Batch`: a C-contiguous float32/float64 2-D array, or CSR arrays
(data float32/float64, indices and indptr of one integer type, int32 or int64), checked for shape,
feature count, dtype and (for CSR) sorted in-range indices.  Finiteness is checked by the kernels
themselves during their pass (a NaN or infinity makes the score non-finite, which the kernel
reports with the row), so valid data is read once.  Inputs are never modified: whatever has to
change is copied.
"""

import functools
import math
import numbers
import os
import sys

import numpy as np

from ._kernels import checks as _kchecks
from ._messages import spell

__all__ = ["Batch", "check_X", "check_2d", "check_dims", "read_2d", "input_type_error",
           "ndim_error", "empty_error", "feature_names", "check_feature_names", "check_finite",
           "encode_y", "encode_y_k", "check_labels", "infer_classes",
           "encode_codes", "NotFittedError", "is_sparse", "to_csr", "check_compressed",
           "index_array", "sparse_to_dense", "label_array", "is_index_lists"]


class NotFittedError(ValueError, AttributeError):
    """Raised when predict or decision_function is called before any data was seen.

    A ValueError and an AttributeError, like scikit-learn's ``NotFittedError``.  scikit-learn is
    optional, so this class cannot derive from scikit-learn's statically; instead, once
    ``sklearn.exceptions`` is imported (which any code catching scikit-learn's error has done),
    the error raised is an instance of a subclass of both (named ``NotFittedError`` too), so
    ``except sklearn.exceptions.NotFittedError`` and scikit-learn's ``check_is_fitted``-based
    tools recognise it, and ``except mbcore.NotFittedError`` keeps working.
    """

    def __new__(cls, *args, **kwargs):
        if cls is NotFittedError:
            sk = sys.modules.get("sklearn.exceptions")
            base = getattr(sk, "NotFittedError", None) if sk is not None else None
            if isinstance(base, type) and issubclass(base, BaseException):
                cls = _with_sklearn_base(base)
        return super().__new__(cls, *args, **kwargs)

    def __reduce__(self):
        # Unpickles through __new__ again (the subclass is made at run time).
        return (NotFittedError, self.args, self.__dict__ or None)


@functools.lru_cache(maxsize=None)
def _with_sklearn_base(base):
    """NotFittedError that is also scikit-learn's NotFittedError (made once, on demand)."""
    return type("NotFittedError", (NotFittedError, base),
                {"__module__": __name__, "__qualname__": "NotFittedError",
                 "__doc__": NotFittedError.__doc__})


class Batch:
    """A validated batch: ``dense`` (2-D float array) or ``csr`` (data, indices, indptr)."""

    __slots__ = ("X", "data", "indices", "indptr", "n", "d", "checked", "sw")

    def __init__(self, X=None, data=None, indices=None, indptr=None, n=0, d=0, checked=True,
                 sw=None):
        self.X = X
        # the rows' sample weights (float64, finite, >= 0), or None for an unweighted pass
        self.sw = sw
        self.data = data
        self.indices = indices
        self.indptr = indptr
        self.n = n
        self.d = d
        # CSR: whether the column indices were checked (sorted, distinct, in range); False when
        # the kernel checks each row as its pass reads it (check_X(check_indices=False)).  A
        # pass that went through the whole batch sets it, so later epochs skip the checks.
        self.checked = checked

    @property
    def sparse(self):
        return self.X is None

    @property
    def arrays(self):
        """The rows as every kernel entry point takes them: X, or (data, indices, indptr)."""
        return self.X if self.X is not None else (self.data, self.indices, self.indptr)

    def rows(self, start, stop):
        """The sub-batch of rows start..stop-1 (views, no copy of the values)."""
        sw = None if self.sw is None else self.sw[start:stop]
        if self.X is not None:
            return Batch(X=self.X[start:stop], n=stop - start, d=self.d, sw=sw)
        a, b = int(self.indptr[start]), int(self.indptr[stop])
        return Batch(data=self.data[a:b], indices=self.indices[a:b],
                     indptr=self.indptr[start:stop + 1] - a, n=stop - start, d=self.d,
                     checked=self.checked, sw=sw)

    def row_values(self, i):
        if self.X is not None:
            return self.X[i]
        return self.data[self.indptr[i]:self.indptr[i + 1]]


_FLOAT_CHARS = "fd"


# ------------------------------------------------------------------------------------------------
# The one 2-D input check.  Every matrix a learner reads (X of the linear, multiplicative and
# Boolean learners, the advice P of the experts and the specialists, the points of the version
# spaces) goes through these, with one set of messages; a matrix is named by ``name`` ("X", "P"),
# its rows by ``rows`` ("n_samples", "n_rounds") and its columns by ``unit`` ("feature", "expert",
# "specialist").  The twin has the same functions (mbref.base) and the same words.
# ------------------------------------------------------------------------------------------------

def input_type_error(owner, X, *, name="X", rows="n_samples", unit="feature"):
    """The TypeError for an X that is no matrix at all (None, a string, a number's bytes...)."""
    got = "None" if X is None else type(X).__name__
    return TypeError(f"{owner}: {name} must be a 2-D array-like ({rows}, n_{unit}s) or a sparse "
                     f"matrix, got {got}")


def ndim_error(owner, ndim, *, name="X", rows="n_samples", unit="feature"):
    return ValueError(f"{owner}: {name} must be 2-D ({rows}, n_{unit}s), got ndim={ndim}. "
                      f"Reshape your data: {name}.reshape(1, -1) for a single row, "
                      f"{name}.reshape(-1, 1) for a single {unit}")


def empty_error(owner, *, name="X"):
    return ValueError(f"{owner}: {name} is empty (0 rows); at least one row is required")


def check_dims(owner, shape, n_features=None, *, name="X", rows="n_samples", unit="feature"):
    """Raise unless ``shape`` is (n, d) with n >= 1, d >= 1 and d == n_features (None: any d).
    The zero-width and width messages are scikit-learn's (its estimator checks match them)."""
    if len(shape) != 2:
        raise ndim_error(owner, len(shape), name=name, rows=rows, unit=unit)
    n, d = shape
    if n == 0:
        raise empty_error(owner, name=name)
    if d == 0:
        raise ValueError(f"{owner}: {name} has 0 {unit}(s) (shape=({n}, 0)) while a minimum of 1 "
                         "is required.")
    if n_features is not None and d != n_features:
        raise ValueError(f"{owner}: {name} has {d} {unit}s, but {owner} is expecting "
                         f"{n_features} {unit}s as input (the number it was fitted with)")


def check_2d(owner, A, n_features=None, **names):
    """check_dims on an array's shape."""
    check_dims(owner, A.shape, n_features, **names)


def read_2d(owner, X, *, sparse="dense", **names):
    """X as a NumPy array, before check_2d: None and strings refused (TypeError), a sparse
    matrix turned dense after its structure is checked (``sparse="dense"``) or left to the
    caller (``sparse="keep"``: returned as it is), and what NumPy cannot read (ragged rows) a
    ValueError."""
    if X is None or isinstance(X, (str, bytes)):
        raise input_type_error(owner, X, **names)
    if is_sparse(X):
        return X if sparse == "keep" else sparse_to_dense(owner, X)
    try:
        return np.asarray(X)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{owner}: {names.get('name', 'X')} could not be read as a 2-D array "
                         f"({exc})") from None


def _feature_count(owner, d, n_features):
    if n_features is not None and d != n_features:
        check_dims(owner, (1, d), n_features)


def _as_float(owner, a):
    kind = a.dtype.kind
    if kind == "f":
        if a.dtype.char in _FLOAT_CHARS:
            return a
        return a.astype(np.float32 if a.dtype.itemsize < 4 else np.float64)
    if kind in "biu":
        return a.astype(np.float64)
    raise TypeError(f"{owner}: X must hold real numbers (bool, int or float), got dtype "
                    f"{a.dtype} ({a.dtype.kind!r})")


def is_sparse(X):
    return (hasattr(X, "indptr") and hasattr(X, "indices") and hasattr(X, "data")
            and hasattr(X, "shape")) or (hasattr(X, "tocsr") and hasattr(X, "shape"))


def is_index_lists(X):
    """Whether X reads as lists of active indices: a non-empty list or tuple of rows, each a list
    or tuple of integers (bool excluded), such as ``[[0, 3], [], [1]]``.  The Winnow family
    takes such an X as lists of active indices when its parameter ``n_features`` is set (as a
    dense matrix otherwise): ``[[0, 1], [1, 2]]`` is then the rows {0, 1} and {1, 2}.  Whatever
    reads a learner's X again (``mbcore.certify``) asks this same question."""
    return isinstance(X, (list, tuple)) and len(X) > 0 and all(
        isinstance(r, (list, tuple)) and all(isinstance(j, numbers.Integral) and
                                             not isinstance(j, (bool, np.bool_)) for j in r)
        for r in X)


def index_array(owner, a, what):
    a = np.asarray(a)
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise TypeError(f"{owner}: X's {what} must be a 1-D array of integers, got "
                        f"{a.dtype} of shape {a.shape}")
    return a


def check_compressed(owner, indices, indptr, n_data, major, minor, what):
    """Check a compressed (CSR/CSC/BSR) structure with NumPy before anything reads through it:
    indptr of length major + 1 from 0 to len(indices), never decreasing, every index in
    [0, minor), data as long as indices."""
    if indptr.shape[0] != major + 1:
        raise ValueError(f"{owner}: X is not a valid {what} matrix: indptr has "
                         f"{indptr.shape[0]} entries, the shape needs {major + 1}")
    if n_data != indices.shape[0]:
        raise ValueError(f"{owner}: X is not a valid {what} matrix: {n_data} stored values "
                         f"but {indices.shape[0]} indices")
    if indptr[0] != 0 or indptr[-1] != indices.shape[0]:
        raise ValueError(f"{owner}: X is not a valid {what} matrix: indptr runs from "
                         f"{int(indptr[0])} to {int(indptr[-1])}, not from 0 to the "
                         f"{indices.shape[0]} stored values")
    if major and (np.diff(indptr) < 0).any():
        row = int(np.flatnonzero(np.diff(indptr) < 0)[0])
        raise ValueError(f"{owner}: X is not a valid {what} matrix (indptr decreases at "
                         f"{'row' if what == 'CSR' else 'position'} {row})")
    if indices.shape[0] and (int(indices.min()) < 0 or int(indices.max()) >= minor):
        k = int(np.flatnonzero((indices < 0) | (indices >= minor))[0])
        row = int(np.searchsorted(indptr, k, side="right") - 1)
        raise ValueError(f"{owner}: X has {'a column' if what == 'CSR' else 'an'} index "
                         f"{int(indices[k])} out of range [0, {minor}) in "
                         f"{'row' if what == 'CSR' else 'block row' if what == 'BSR' else 'column'}"
                         f" {row}")


def _sparse_shape(owner, X):
    try:
        shape = tuple(int(s) for s in X.shape)
    except (TypeError, ValueError):
        shape = None
    if shape is None or len(shape) != 2 or min(shape) < 0:
        raise ValueError(f"{owner}: X is a sparse matrix with an invalid shape "
                         f"{getattr(X, 'shape', None)!r}")
    return shape


def to_csr(owner, X):
    """A CSR matrix (an object with data, indices, indptr, shape) equal to the sparse X,
    whose structure was checked before any conversion read through it: scipy's own
    conversions (tocsr, toarray) trust the index arrays, which a caller may have changed after
    construction.  X itself is never modified (conversions return new objects)."""
    fmt = getattr(X, "format", "csr")
    n, d = _sparse_shape(owner, X)
    if fmt == "csr" and hasattr(X, "indptr"):
        return X
    if fmt in ("csc", "bsr") and hasattr(X, "indptr"):
        indices = index_array(owner, X.indices, "indices")
        indptr = index_array(owner, X.indptr, "indptr")
        data = np.asarray(X.data)
        if fmt == "csc":
            check_compressed(owner, indices, indptr, data.shape[0] if data.ndim else -1,
                                  d, n, "CSC")
        else:
            R, C = (int(b) for b in getattr(X, "blocksize", (0, 0)))
            if R < 1 or C < 1 or n % R or d % C or data.ndim != 3 or \
                    data.shape[1:] != (R, C):
                raise ValueError(f"{owner}: X is not a valid BSR matrix (blocks of shape "
                                 f"{data.shape[1:]} in a {n} x {d} matrix)")
            check_compressed(owner, indices, indptr, data.shape[0], n // R, d // C, "BSR")
    elif fmt == "coo":
        coords = getattr(X, "coords", None) or (getattr(X, "row", None), getattr(X, "col", None))
        if len(coords) != 2 or coords[0] is None:
            raise ValueError(f"{owner}: X is not a valid 2-D COO matrix")
        row = index_array(owner, coords[0], "row indices")
        col = index_array(owner, coords[1], "column indices")
        data = np.asarray(X.data)
        if not (row.shape == col.shape == data.shape):
            raise ValueError(f"{owner}: X is not a valid COO matrix: {data.shape[0]} values, "
                             f"{row.shape[0]} row and {col.shape[0]} column indices")
        for a, m, what in ((row, n, "row"), (col, d, "column")):
            if a.shape[0] and (int(a.min()) < 0 or int(a.max()) >= m):
                k = int(np.flatnonzero((a < 0) | (a >= m))[0])
                raise ValueError(f"{owner}: X has a {what} index {int(a[k])} out of range "
                                 f"[0, {m}) at stored value {k}")
    elif not hasattr(X, "tocsr"):
        raise TypeError(f"{owner}: X is a sparse matrix in format {fmt!r}; give CSR")
    # lil, dok and dia convert through Python lists and NumPy indexing (checked there); the
    # result is checked like any CSR matrix by the caller.
    try:
        out = X.tocsr()
    except (ValueError, IndexError, TypeError) as exc:
        raise ValueError(f"{owner}: X (a sparse matrix in format {fmt!r}) could not be "
                         f"converted to CSR ({exc})") from None
    if hasattr(out, "sum_duplicates"):           # a new object of ours: canonical order
        out.sum_duplicates()
    if fmt == "bsr" and hasattr(out, "eliminate_zeros"):
        # a BSR matrix's blocks hold the zeros around its values (storage, not data): as
        # stored values of the CSR they would be terms of the sums, and the rows would not be
        # the rows of the same matrix given as CSR
        out.eliminate_zeros()
    return out


_CSR_INDEX_DTYPES = frozenset((np.dtype(np.int32), np.dtype(np.int64)))


def _csr_common(owner, X, n_features, check_indices=True):
    """The common CSR input in few steps (small batches are dominated by validation): float32 or
    float64 values, int32 or int64 indices and indptr of one type, all native, 1-D and
    contiguous, and a shape of two positive ints.  The same checks as the general path
    (csr_check tests indptr and the indices); returns the Batch, or None for anything else or
    anything wrong (the general path then decides, with its message)."""
    try:
        data, indices, indptr, shape = X.data, X.indices, X.indptr, X.shape
    except AttributeError:
        return None
    if type(data) is not np.ndarray or type(indices) is not np.ndarray or \
            type(indptr) is not np.ndarray or type(shape) is not tuple or len(shape) != 2 or \
            getattr(X, "format", "csr") != "csr":
        return None
    n, d = shape
    itype = indices.dtype
    if type(n) is not int or type(d) is not int or n <= 0 or d <= 0 or \
            data.dtype.char not in _FLOAT_CHARS or not data.dtype.isnative or \
            itype not in _CSR_INDEX_DTYPES or indptr.dtype != itype or not itype.isnative or \
            data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1 or \
            not (data.flags.c_contiguous and indices.flags.c_contiguous and
                 indptr.flags.c_contiguous):
        return None
    nnz = indices.shape[0]
    if (n_features is not None and d != n_features) or indptr.shape[0] != n + 1 or \
            data.shape[0] != nnz or int(indptr[0]) != 0 or int(indptr[n]) != nnz:
        return None
    if check_indices:
        if _kchecks.csr_check(indices, indptr, d)[0]:
            return None
    elif _kchecks.indptr_check(indptr) >= 0:
        return None
    return Batch(data=data, indices=indices, indptr=indptr, n=n, d=d, checked=check_indices)


def _check_csr(owner, X, n_features, check_indices=True, keep_uint8=False):
    batch = _csr_common(owner, X, n_features, check_indices)
    if batch is not None:
        return batch
    X = to_csr(owner, X)
    n, d = _sparse_shape(owner, X)
    check_dims(owner, (n, d), n_features)
    data = np.asarray(X.data)
    if data.ndim != 1:
        raise ValueError(f"{owner}: X is not a valid CSR matrix (its data is not 1-D)")
    if keep_uint8 and data.dtype.kind == "b":
        data = data.view(np.uint8)
    data = np.ascontiguousarray(data if keep_uint8 and data.dtype == np.uint8
                                else _as_float(owner, data))
    data = _native(data)
    indices = index_array(owner, X.indices, "CSR indices")
    indptr = index_array(owner, X.indptr, "CSR indptr")
    itype = np.int32 if (indices.dtype == np.int32 and indptr.dtype == np.int32 and
                         indices.dtype.isnative and indptr.dtype.isnative) else np.int64
    if indices.dtype.kind == "u" and indices.dtype.itemsize == 8 and indices.shape[0] and \
            int(indices.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{owner}: X has a column index out of range [0, {d})")
    if indptr.dtype.kind == "u" and indptr.dtype.itemsize == 8 and \
            int(indptr.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{owner}: X is not a valid CSR matrix (indptr out of range)")
    indices = np.ascontiguousarray(indices, dtype=itype)
    indptr = np.ascontiguousarray(indptr, dtype=itype)
    if indptr.shape[0] != n + 1 or indptr[0] != 0 or \
            indptr[-1] != indices.shape[0] or data.shape[0] != indices.shape[0]:
        raise ValueError(f"{owner}: X is not a valid CSR matrix (indptr, indices and data "
                         f"disagree: {indptr.shape[0]} indptr entries for {n} rows, indptr "
                         f"ending at {int(indptr[-1]) if indptr.shape[0] else None}, "
                         f"{indices.shape[0]} indices, {data.shape[0]} values)")
    # The row boundaries must be safe to read through before anything (the kernels, or
    # csr_check's row-by-row search, which reads row i before it looks at indptr[i + 2]) does:
    # non-decreasing from 0 to nnz, hence all within the indices.  csr_check checks the whole
    # of indptr first (code 3) before it reads an index; without it, NumPy checks here.
    if not check_indices:
        if n and (np.diff(indptr) < 0).any():
            row = int(np.flatnonzero(np.diff(indptr) < 0)[0])
            raise ValueError(f"{owner}: X is not a valid CSR matrix (indptr decreases at row "
                             f"{row})")
        # The caller's kernel checks each row's column indices as it reads them.
        return Batch(data=data, indices=indices, indptr=indptr, n=n, d=d, checked=False)
    code, row = _kchecks.csr_check(indices, indptr, d)
    if code in (1, 2):
        raise csr_index_error(owner, d, code, row)
    if code == 3:
        raise ValueError(f"{owner}: X is not a valid CSR matrix (indptr decreases at row "
                         f"{row})")
    return Batch(data=data, indices=indices, indptr=indptr, n=n, d=d)


def sparse_to_dense(owner, X, dtype=np.float64):
    """A sparse X as a dense array, its structure checked first (never scipy's toarray on
    arrays that may have been changed after construction)."""
    b = _check_csr(owner, X, None)
    out = np.zeros((b.n, b.d), dtype=dtype)
    rows = np.repeat(np.arange(b.n), np.diff(b.indptr))
    out[rows, b.indices] = b.data
    return out


def _native(a):
    """a in the machine's byte order (the kernels read native numbers only)."""
    if a.dtype.isnative:
        return a
    return a.astype(a.dtype.newbyteorder("="))


# ------------------------------------------------------------------------------------------------
# Feature names (scikit-learn's rule): a DataFrame whose column names are all strings gives the
# learner its ``feature_names_in_`` on the first call; later calls must name the same columns
# in the same order.
# ------------------------------------------------------------------------------------------------

def feature_names(owner, X):
    """The column names of a DataFrame-like X (anything with ``columns``, as pandas and polars
    frames have) as an object array when they are all strings; None when X has no column
    names or none that are strings (pandas' default integer labels).  Names of several types,
    strings among them, are refused (TypeError), as scikit-learn refuses them."""
    cols = getattr(X, "columns", None)
    if cols is None or isinstance(X, np.ndarray) or is_sparse(X):
        return None
    try:
        names = list(cols)
    except TypeError:
        return None
    kinds = sorted({type(v).__qualname__ for v in names})
    if len(kinds) > 1 and "str" in kinds:
        raise TypeError(f"{owner}: feature names are only supported if all input features have "
                        f"string names, but X has {kinds} as feature name / column name types; "
                        "convert them all to strings (X.columns = X.columns.astype(str)) or "
                        "to a non-string type")
    if kinds != ["str"]:
        return None
    out = np.empty(len(names), dtype=object)
    out[:] = names
    return out


def _listed(names):
    shown = "".join(f"- {n}\n" for n in names[:5])
    return shown + ("- ...\n" if len(names) > 5 else "")


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_user(message, category=UserWarning):
    """``warnings.warn`` attributed to the first caller outside mbcore (the user's line, as
    ``mbcore.exceptions.warn_failure`` does for LearnerWarning): the depth of mbcore's own
    frames (the lock's wrappers, the learner's methods) varies with the path a call takes."""
    import warnings
    level, frame = 1, sys._getframe(0)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


def check_feature_names(owner, fitted, X):
    """A later call's X against the fitted names (a list; None: fitted without names).  Different or
    reordered names: ValueError naming them; names on one side only: a UserWarning (the
    columns are then taken by position), as scikit-learn does."""
    names = feature_names(owner, X)
    if names is None and fitted is None:
        return
    if fitted is None:
        warn_user(f"{owner}: X has feature names, but {owner} was fitted without feature "
                  "names")
        return
    if names is None:
        warn_user(f"{owner}: X does not have valid feature names, but {owner} was fitted "
                  "with feature names")
        return
    if len(names) == len(fitted) and all(a == b for a, b in zip(names, fitted)):
        return
    seen, now = set(fitted), set(names.tolist())
    unexpected = sorted(now - seen)
    missing = sorted(seen - now)
    msg = f"{owner}: The feature names should match those that were passed during fit.\n"
    if unexpected:
        msg += "Feature names unseen at fit time:\n" + _listed(unexpected)
    if missing:
        msg += "Feature names seen at fit time, yet now missing:\n" + _listed(missing)
    if not unexpected and not missing:
        msg += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(msg)


def check_X(owner, X, n_features=None, check_indices=True, keep_uint8=False):
    """Validate X once; returns a :class:`Batch` the kernels can trust (except finiteness, and
    except the CSR column indices with ``check_indices=False``, for kernels that check them).
    ``keep_uint8`` keeps uint8/bool CSR values as uint8 (for kernels that read them)."""
    if type(X) is np.ndarray and X.ndim == 2 and X.dtype.char in _FLOAT_CHARS and \
            X.dtype.isnative and X.flags.c_contiguous and X.shape[0] > 0 and X.shape[1] > 0:
        if n_features is not None and X.shape[1] != n_features:
            _feature_count(owner, X.shape[1], n_features)
        return Batch(X=X, n=X.shape[0], d=X.shape[1])
    A = read_2d(owner, X, sparse="keep")
    if is_sparse(A):
        return _check_csr(owner, A, n_features, check_indices, keep_uint8)
    if A.dtype.kind == "O":
        for v in A.flat:  # None or "1.5" would otherwise become NaN or 1.5 silently
            if not isinstance(v, (numbers.Real, np.bool_)):
                raise TypeError(f"{owner}: X must hold real numbers, got a value of type "
                                f"{type(v).__name__} ({v!r}); each argument must be a real "
                                "number (bool, int or float), not a string (even one that "
                                "spells a number) nor another object")
        A = A.astype(np.float64)
    check_2d(owner, A, n_features)
    A = np.ascontiguousarray(_native(_as_float(owner, A)))
    return Batch(X=A, n=A.shape[0], d=A.shape[1])


def check_finite(owner, batch):
    """Raise ValueError naming the first row with NaN or infinity."""
    vals = batch.X if batch.X is not None else batch.data
    if vals.size and not np.isfinite(vals).all():
        raise ValueError(f"{owner}: X contains NaN or infinity in row {first_bad_row(batch)}")


def first_bad_row(batch):
    if batch.X is not None:
        return int(np.flatnonzero(~np.isfinite(batch.X).all(axis=1))[0])
    k = int(np.flatnonzero(~np.isfinite(batch.data))[0])
    return int(np.searchsorted(batch.indptr, k, side="right") - 1)


def csr_index_error(owner, d, code, row):
    """The ValueError for a CSR row whose column indices a kernel refused as it read them
    (code 1: out of range; 2: unsorted or duplicate), or None for another code."""
    if code == 1:
        return ValueError(f"{owner}: X has a column index out of range [0, {d}) in row {row}")
    if code == 2:
        return ValueError(f"{owner}: X has unsorted or duplicate column indices in row {row}; "
                          "call X.sort_indices() and X.sum_duplicates() first")
    return None


def row_error(owner, batch, i, offset=0, hint="scale X down"):
    """The ValueError for a row the kernel refused (non-finite value, or overflow); ``hint``:
    what brings the learner's values back in range (its class's ``_OVERFLOW_HINT``)."""
    if not np.isfinite(batch.row_values(i)).all():
        return ValueError(f"{owner}: X contains NaN or infinity in row {i + offset}; the "
                          "learner was left as before the call")
    return ValueError(f"{owner}: overflow at row {i + offset} (a score or a weight is no longer "
                      f"finite: {hint}); the learner was left as before the call")


def _py_scalar(v):
    """A NumPy scalar as the Python value it holds (labels compared, hashed and shown as Python
    values); anything else as it is."""
    if isinstance(v, np.generic):
        return v.item()
    return v


def _distinct(ya):
    """np.unique(ya) for 1-D labels, in one compiled pass when the dtype allows."""
    if ya.ndim == 1 and ya.shape[0] > 64 and (ya.dtype in _LABEL_DTYPES or ya.dtype.kind == "b"):
        v = ya.view(np.uint8) if ya.dtype.kind == "b" else ya
        count, i1, i2 = _kchecks.distinct_labels(np.ascontiguousarray(v))
        idx = [0] + [i for i in (i1, i2) if i >= 0]
        return np.unique(ya[idx])
    return np.unique(ya)


def infer_classes(owner, y, classes=None, *, max_classes=2, real_labels=False):
    """The classes, sorted, from ``classes`` or from the labels: the one path of every learner
    (and of the conversions of mbcore.queries).

    ``max_classes=2``: the binary learners (exactly two; the second is the positive class);
    ``None``: two or more.  One label alone is enough when it names its pair: -1 -> (-1, 1),
    0 -> (0, 1), a bool -> (False, True); otherwise pass ``classes``.  With more than two,
    real labels that are not integers look like a regression target and are refused (pass them
    as ``classes`` to use them), unless ``real_labels`` (the expert pools, whose labels are
    whatever the experts predict).
    """
    if classes is not None:
        cl = _classes_array(owner, classes)
        if max_classes == 2 and cl.shape[0] != 2:
            raise ValueError(f"{owner}: classes must hold exactly two distinct labels, got "
                             f"{cl.tolist()!r}")
        if cl.shape[0] < 2:
            raise ValueError(f"{owner}: classes must hold at least two distinct labels, got "
                             f"{cl.tolist()!r}")
        return cl
    ya = _checked_labels(owner, y)
    if max_classes == 2:
        uniq = _native(_distinct(ya))          # (big-endian labels give native classes)
        if uniq.shape[0] > 2:
            raise ValueError(_too_many_labels(owner, ya, np.unique(ya)))   # every label, shown
    else:
        _check_one_label_kind(owner, y, ya)
        uniq = None
        if ya.ndim == 1 and ya.shape[0] > 64 and ya.dtype in _LABEL_DTYPES:
            found = _distinct(ya)
            if found.shape[0] <= 2:            # (the compiled scan stops at a third label)
                uniq = _native(found)
        if uniq is None:
            try:
                uniq = _native(np.unique(ya))
            except TypeError:
                raise TypeError(f"{owner}: the labels cannot be put in order (labels of "
                                f"different kinds, e.g. numbers and strings, in "
                                f"{ya.ravel()[:10].tolist()!r}); use labels of one kind") from None
        if uniq.shape[0] > 2 and not real_labels and ya.dtype.kind == "f" and \
                not np.array_equal(uniq, np.round(uniq)):
            shown = repr(uniq[:10].tolist()) + (f" and {uniq.shape[0] - 10} more"
                                                if uniq.shape[0] > 10 else "")
            raise ValueError(f"{owner}: y looks continuous (real values that are not integers: "
                             f"{uniq.shape[0]} labels, {shown}): a regression target? Give "
                             "class labels (integers or strings), or classes= to use these "
                             "values")
    if uniq.shape[0] >= 2:
        return uniq
    v = _py_scalar(uniq[0]) if uniq.shape[0] else None
    if isinstance(v, bool):
        return np.array([False, True])
    if isinstance(v, numbers.Real) and v == -1:
        return np.array([-1, 1], dtype=uniq.dtype)
    if isinstance(v, numbers.Real) and v == 0:
        return np.array([0, 1], dtype=uniq.dtype)
    raise ValueError(f"{owner}: cannot tell the two classes from y={uniq.tolist()!r} alone (one "
                     "class); pass classes=[-1, 1], classes=[0, 1] or the two labels to the "
                     "first partial_fit")


class _Nothing:
    """No label is this object (the items of ``NO_CLASSES_GIVEN``)."""

    __slots__ = ()


_NOTHING = _Nothing()
_IMMUTABLE = frozenset((int, float, str, bool, bytes))
NO_CLASSES_GIVEN = (_NOTHING, _NOTHING, None, None, None)


def classes_given(classes):
    """What a learner keeps of a ``classes=`` it has accepted, so that the same classes given
    again are recognised without the full check: ``(a, b, copy, container type, item types)``.
    ``a`` and ``b`` are the two items when ``classes`` is a list of two labels (the test of the
    one-row paths, compiled: ``mbcore._kernels.names.known_classes`` and
    ``OneFast.learn_given``: a list whose two items *are* these objects, as the same list or a
    list written in the loop, ``classes=[-1, 1]``, has); ``copy`` and the types of its items,
    for any list or tuple, serve ``same_classes``.  Other containers are not
    kept, nor lists of items that may change in place (only numbers, strings, bytes and NumPy
    scalars are): ``NO_CLASSES_GIVEN``.  The learner drops it when its ``classes_`` is
    assigned."""
    t = type(classes)
    if t is not list and t is not tuple:
        return NO_CLASSES_GIVEN
    copy = t(classes)
    types = list(map(type, copy))
    if not all(k in _IMMUTABLE or issubclass(k, np.generic) for k in types):
        return NO_CLASSES_GIVEN         # (items that may change in place: checked each time)
    if t is list and len(copy) == 2:
        return (copy[0], copy[1], copy, t, types)
    return (_NOTHING, _NOTHING, copy, t, types)


def same_classes(d, classes):
    """Whether ``classes=`` (not None), given to a fitted learner whose instance dict is ``d``,
    is one the full check (``infer_classes``, then the comparison with ``classes_``) would
    accept, known without it: the list or tuple accepted last (``classes_given``: the same
    container type, equal items of the same types, so NumPy converts them alike), or a 1-D
    array of ``classes_``'s dtype (not object) equal to ``classes_`` item by item (so sorted
    and distinct as it is).  Anything else (a changed list, another container, new labels)
    returns False, and the caller runs the full check and its errors."""
    g = d.get("_classes_given")
    if g is not None and type(classes) is g[3]:
        try:
            return classes == g[2] and list(map(type, classes)) == g[4]
        except Exception:       # (items whose == is not a bool, e.g. arrays: the full check)
            return False
    if type(classes) is np.ndarray:
        fitted = d.get("classes_")
        return fitted is not None and classes.ndim == 1 and classes.dtype.kind != "O" and \
            classes.dtype == fitted.dtype and classes.shape == fitted.shape and \
            bool((classes == fitted).all())
    return False


def _checked_labels(owner, y):
    """y as an array, refused when it holds NaN or complex values (the two families' common
    checks before the classes are counted)."""
    ya = label_array(owner, y)
    if ya.dtype.kind == "f" and np.isnan(ya).any():
        raise ValueError(f"{owner}: y contains NaN")
    if ya.dtype.kind == "O" and any(isinstance(v, float) and v != v for v in ya.ravel()):
        raise ValueError(f"{owner}: y contains NaN")
    if ya.dtype.kind == "c" or (ya.dtype.kind == "O" and
                                any(isinstance(v, (complex, np.complexfloating))
                                    for v in ya.ravel())):
        raise TypeError(f"{owner}: y must hold labels (numbers, strings or bools), got complex "
                        "values")
    return ya


def _classes_array(owner, classes):
    """The distinct labels of ``classes=``, sorted, with a message naming the learner when
    they are not a flat list of labels of one kind."""
    if isinstance(classes, (str, bytes)) or not (hasattr(classes, "__len__") or
                                                 hasattr(classes, "__iter__")):
        raise ValueError(f"{owner}: classes must be a list of labels, got {classes!r}")
    try:
        a = np.asarray(classes)
        if a.ndim != 1:
            raise ValueError(f"a {a.ndim}-D array")
        if a.dtype.kind == "f" and np.isnan(a).any():
            raise ValueError("NaN is not a label")
        if a.dtype.kind == "c":
            raise ValueError("complex values are not labels")
        return _native(np.unique(a))
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{owner}: classes must be a 1-D list of labels of one kind, got "
                         f"{classes!r} ({exc})") from None


def check_labels(owner, y, n, *, nan=True, rounds=False):
    """y as a 1-D array of n labels: the checks every label encoder opens with (``encode_y``,
    ``encode_y_k``, the expert pools' and the conversions' encoders).  A TypeError naming the
    learner for a y that is missing (None) or a string; a ValueError for one NumPy cannot hold
    (:func:`label_array`), not 1-D, or not n long, and, with ``nan``, for one holding NaN (the
    two-label path finds NaN in its one compiled pass instead).  ``rounds``: the expert pools'
    words (their twin's), "n rounds" and "y must be 1-D (a sequence of labels)"."""
    if y is None:
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got None")
    if isinstance(y, (str, bytes)):
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got a string")
    if rounds:
        try:
            ya = np.asarray(y)
        except ValueError:
            raise ValueError(f"{owner}: y must be 1-D (a sequence of labels)") from None
    else:
        ya = label_array(owner, y)
    if ya.ndim != 1:
        raise ValueError(f"{owner}: y must be 1-D, got ndim={ya.ndim}")
    if ya.shape[0] != n:
        rows = f"{n} rounds" if rounds else f"X has {n} rows"
        raise ValueError(f"{owner}: {rows} but y has {ya.shape[0]} labels")
    if nan and ya.dtype.kind == "f" and np.isnan(ya).any():
        raise ValueError(f"{owner}: y contains NaN")
    return ya


def label_array(owner, y):
    """np.asarray(y) with a message naming the learner when y is not a sequence of labels
    (ragged nesting, objects NumPy cannot hold)."""
    if y is None:
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got None")
    try:
        return np.asarray(y)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{owner}: y must be a 1-D array-like of labels ({exc})") from None


def _too_many_labels(owner, ya, uniq):
    """The message for more than two labels (at most ten of them shown)."""
    n = uniq.shape[0]
    shown = repr(uniq[:10].tolist()) + (f" and {n - 10} more" if n > 10 else "")
    msg = (f"{owner}: y has more than two labels ({n}: {shown}). Only binary classification is "
           "supported: these learners are binary")
    if ya.dtype.kind == "f" and not np.array_equal(uniq, np.round(uniq)):
        msg += ("; y looks continuous (real values that are not integers): a regression "
                "target?")
    return msg


_SMALL_DTYPES = {np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.int32, np.int64)}


def _encode_small(A, classes, dtype=np.int32):
    """Integer labels and integer classes spanning at most 2**16 values: one compiled pass
    through a lookup table.  The codes, the flat index of the first bad value, or None when
    this path does not apply."""
    if A.dtype not in _SMALL_DTYPES or classes.dtype.kind not in "iu" or A.size == 0:
        return None
    lo, hi = int(classes[0]), int(classes[-1])
    if hi - lo >= 1 << 16:
        return None
    table = np.full(hi - lo + 1, -1, dtype=np.int32)
    table[classes.astype(np.int64) - lo] = np.arange(classes.shape[0], dtype=np.int32)
    flat = np.ascontiguousarray(A).reshape(-1)
    out = np.empty(flat.shape[0], dtype=dtype)
    bad = _kchecks.encode_small(flat, lo, table, out)
    if bad >= 0:
        return int(bad)
    return out.reshape(A.shape)


def encode_codes(owner, A, classes, what, dtype=np.int32):
    """Labels -> class indices (``dtype``, int32 by default: positions in the sorted
    ``classes``); ``what(index)`` names the first value outside the classes for the error
    message."""
    A = np.asarray(A)
    fast = _encode_small(A, classes, dtype)
    if fast is not None:
        if isinstance(fast, np.ndarray):
            return fast
        bad = tuple(int(b) for b in np.unravel_index(fast, A.shape))
        raise ValueError(f"{owner}: {what(bad)} is {_py_scalar(A[bad])!r}, outside the labels "
                         f"{classes.tolist()!r}")
    if A.dtype.kind == "f" and np.isnan(A).any():
        bad = tuple(np.argwhere(np.isnan(A))[0])
        raise ValueError(f"{owner}: {what(bad)} is NaN")
    try:
        idx = np.searchsorted(classes, A)
    except TypeError:
        idx = None
    if idx is not None:
        idx = np.minimum(idx, classes.shape[0] - 1)
        ok = np.asarray(classes[idx] == A)
    if idx is None or ok.shape != A.shape or not ok.all():
        if idx is None or ok.shape != A.shape:
            flat = A.ravel()
            index = {_py_scalar(c): k for k, c in enumerate(classes)}
            codes = np.empty(flat.shape[0], dtype=np.int32)
            for j, v in enumerate(flat):
                try:
                    k = index.get(_py_scalar(v))
                except TypeError:            # unhashable (a dict, a list): no label
                    k = None
                if k is None:
                    bad = np.unravel_index(j, A.shape)
                    raise ValueError(f"{owner}: {what(tuple(int(b) for b in bad))} is "
                                     f"{_py_scalar(v)!r}, outside the labels {classes.tolist()!r}")
                codes[j] = k
            return codes.reshape(A.shape).astype(dtype, copy=False)
        bad = tuple(int(b) for b in np.argwhere(~ok)[0])
        raise ValueError(f"{owner}: {what(bad)} is {_py_scalar(A[bad])!r}, outside the labels "
                         f"{classes.tolist()!r}")
    return idx.astype(dtype)


_LABEL_DTYPES = {np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8,
                                        np.float32, np.float64)}


def _encode_compiled(ya, neg, pos):
    """One compiled pass for numeric labels: the int8 codes, the index of the first label
    outside the pair, or None when the fast path does not apply."""
    dt = ya.dtype
    if dt.kind == "b":
        ya, dt = ya.view(np.uint8), np.dtype(np.uint8)
    if dt not in _LABEL_DTYPES or isinstance(neg, (str, bytes)) or isinstance(pos, (str, bytes)):
        return None
    try:
        n_, p_ = dt.type(neg), dt.type(pos)
    except (TypeError, ValueError, OverflowError):
        return None
    if not (n_ == neg and p_ == pos):
        return None
    out = np.empty(ya.shape[0], dtype=np.int8)
    bad = _kchecks.encode_labels(np.ascontiguousarray(ya), n_, p_, out)
    return out if bad < 0 else bad


def encode_y(owner, y, n, classes, out=None):
    """Labels -> int8 +1 (classes[1]) / -1 (classes[0]); checks length and membership."""
    neg, pos = _py_scalar(classes[0]), _py_scalar(classes[1])
    if n == 1 and out is not None and isinstance(y, (list, tuple, np.ndarray)) and len(y) == 1 \
            and (not isinstance(y, np.ndarray) or y.ndim == 1):
        v = _py_scalar(y[0])
        if v == pos and not (isinstance(v, float) and v != v):
            out[0] = 1
            return out
        if v == neg:
            out[0] = -1
            return out
    ya = check_labels(owner, y, n, nan=False)
    out = _encode_compiled(ya, neg, pos)
    if out is not None:
        if isinstance(out, np.ndarray):
            return out
        bad = _py_scalar(ya[out])
        if isinstance(bad, float) and bad != bad:
            raise ValueError(f"{owner}: y contains NaN")
        raise ValueError(f"{owner}: y has the label {bad!r}, outside the fitted classes "
                         f"{[neg, pos]!r}")
    if ya.dtype.kind == "f" and np.isnan(ya).any():
        raise ValueError(f"{owner}: y contains NaN")
    is_pos = ya == pos
    is_neg = ya == neg
    ok = np.logical_or(is_pos, is_neg)
    if not np.all(ok):
        bad = _py_scalar(ya[np.flatnonzero(~np.asarray(ok))[0]])
        raise ValueError(f"{owner}: y has the label {bad!r}, outside the fitted classes "
                         f"{[neg, pos]!r}")
    return np.where(is_pos, 1, -1).astype(np.int8)


def _check_one_label_kind(owner, y, ya):
    """TypeError for a sequence of labels of two kinds (NumPy turns numbers mixed with strings
    into strings)."""
    if ya.dtype.kind in "US" and not isinstance(y, np.ndarray) and ya.ndim == 1:
        vals = [_py_scalar(v) for v in y]
        if any(not isinstance(v, (str, bytes)) for v in vals):
            raise TypeError(f"{owner}: the labels cannot be put in order (labels of different "
                            f"kinds, e.g. numbers and strings, in {vals[:10]!r}); use labels of "
                            "one kind")


def encode_y_k(owner, y, n, classes):
    """Labels -> class indices (int32: positions in the sorted ``classes``), with the checks
    and messages of :func:`encode_y` (more than two classes)."""
    ya = check_labels(owner, y, n)
    try:
        return encode_codes(owner, ya, classes, lambda b: f"y[{b[0]}]")
    except ValueError:
        # encode_codes names the first label outside the classes by its index: say it in
        # the words of the two-label learners
        bad = _first_outside(ya, classes)
        if bad is None:
            raise
    v = _py_scalar(ya[bad])
    if isinstance(v, float) and v != v:
        raise ValueError(f"{owner}: y contains NaN")
    raise ValueError(f"{owner}: y has the label {v!r}, outside the fitted classes "
                     f"{classes.tolist()!r}")


def _first_outside(ya, classes):
    index = {_py_scalar(c) for c in classes}
    for i, v in enumerate(ya.tolist() if ya.dtype.kind != "O" else ya):
        v = _py_scalar(v)
        try:
            if v not in index or (isinstance(v, float) and v != v):
                return i
        except TypeError:
            return i
    return None


# -- sample and class weights (the additive learners) ----------------------------------------

def _weight_error(owner, what, got):
    return ValueError(f"{owner}: parameter sample_weight must be {what}, got {got}")


def check_sample_weight(owner, sample_weight, n):
    """``sample_weight`` as the pass reads it: a new float64 array of n finite values >= 0 (a
    real number stands for n copies of itself, as in scikit-learn).  The caller's object is
    neither modified nor kept.  ValueError naming the class, the parameter and the value."""
    if isinstance(sample_weight, numbers.Real) and not isinstance(sample_weight, (bool, np.bool_)):
        sample_weight = [sample_weight] * n
    if isinstance(sample_weight, (str, bytes)):
        raise _weight_error(owner, "an array-like of real numbers", repr(sample_weight))
    try:
        raw = np.asarray(sample_weight)
    except ValueError:                              # (ragged nested sequences)
        raise _weight_error(owner, "1-D (one weight per row)", "a ragged sequence") from None
    if raw.ndim != 1:
        raise _weight_error(owner, "1-D (one weight per row)", f"an array of shape {raw.shape}")
    if raw.shape[0] != n:
        raise _weight_error(owner, f"of length n_samples = {n}", f"{raw.shape[0]} values")
    if raw.dtype.kind not in "biuf":
        # the first value that is not a real number, as given (the twin's message)
        items = sample_weight if isinstance(sample_weight, np.ndarray) else list(sample_weight)
        for i, v in enumerate(items):
            if not (isinstance(v, (numbers.Real, np.bool_)) and not isinstance(v, (str, bytes))):
                raise _weight_error(owner, "an array-like of real numbers", f"{v!r} at row {i}")
        raw = raw.astype(np.float64)
    a = np.array(raw, dtype=np.float64, order="C")         # (always a copy)
    ok = np.isfinite(a)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise _weight_error(owner, "finite", f"{float(a[i])!r} at row {i}")
    neg = a < 0.0
    if neg.any():
        i = int(np.flatnonzero(neg)[0])
        raise _weight_error(owner, "non-negative", f"{float(a[i])!r} at row {i}")
    return a


CLASS_WEIGHT_DOMAIN = 'None, "balanced" or a dict {label: finite weight >= 0}'


def check_class_weight(owner, name, value):
    """The domain of the parameter ``class_weight`` (its labels are checked against
    ``classes_`` when the weights are used)."""
    if value is None or (isinstance(value, str) and value == "balanced"):
        return value
    if type(value) is dict and all(
            isinstance(w, numbers.Real) and not isinstance(w, (bool, np.bool_)) and
            math.isfinite(float(w)) and float(w) >= 0.0 for w in value.values()):
        return value
    raise ValueError(f"{owner}: parameter {name} must be {CLASS_WEIGHT_DOMAIN}, got {value!r}")


def class_weights(owner, class_weight, classes, idx, fitting):
    """The weight of each class (float64, one per entry of ``classes``) under
    ``class_weight`` (checked by :func:`check_class_weight`), for rows whose class indices are
    ``idx``; ``fitting``: called by ``fit`` ("balanced" is refused elsewhere, as scikit-learn's
    ``partial_fit`` refuses it)."""
    K = len(classes)
    labels = [c.item() if isinstance(c, np.generic) else c for c in classes]
    if isinstance(class_weight, str):
        if not fitting:
            raise ValueError(f"{owner}: class_weight 'balanced' is not supported " + spell(
                "for partial_fit (one batch's class frequencies are not the stream's); compute "
                "the weights once from a large enough sample of the labels, n_samples / "
                "(n_classes * np.bincount(y)) (scikit-learn's compute_class_weight('balanced', "
                "classes=classes, y=y)), and pass them as a dict",
                "on a stream (one chunk's class frequencies are not the stream's); give the "
                "weights, e.g. n_samples / (n_classes * rows of the label), as --param "
                "class_weight=LABEL:WEIGHT,LABEL:WEIGHT"))
        counts = np.bincount(idx, minlength=K).astype(np.float64)
        out = np.ones(K)
        seen = counts > 0
        # scikit-learn's compute_class_weight: n_samples / (n_classes * bincount(y)), n_classes
        # counting the classes y holds; a class with no row here has no row to weigh (1.0)
        out[seen] = idx.shape[0] / (int(seen.sum()) * counts[seen])
        return out
    extra = [k for k in class_weight if k not in labels]
    if extra:
        raise ValueError(f"{owner}: class_weight has labels that are not among the classes "
                         f"{labels!r}: {extra!r}")
    return np.array([float(class_weight.get(c, 1.0)) for c in labels])
