"""Rows of a data matrix as the theory reads them: dense or CSR, float64, checked once.

``check_rows(owner, X)`` validates X (a dense 2-D array-like, or a sparse matrix whose structure
``mbcore._validation`` checks before anything reads through it) and returns ``(n, d, part)``:
``part`` is the dense float64 array, or ``(values, indices, indptr)`` for CSR input.  The other
functions read such a triple (per-row sums, squared norms, dot products, dense copies), and
check the labels and the separators the data quantities take.  :class:`CSR` is the one minimal
CSR holder of the package (``mbcore.streaming.CSRChunk`` is the public one): a duck-typed
``scipy.sparse.csr_array`` that NumPy-only code builds, reads and slices by rows.

Shared by ``mbcore.margins`` (the data quantities), ``mbcore.certificates`` (the rules) and the
modules that hand CSR rows to a learner (``mbcore.multiplicative``, ``mbcore.queries``).
"""

import numpy as np

from ._validation import check_compressed, empty_error, index_array, is_sparse, ndim_error, to_csr

__all__ = ["CSR", "check_rows", "check_signs", "check_separator", "segment_sums", "row_sqnorms",
           "row_dots", "dense_rows", "row_vector"]


class CSR:
    """A minimal CSR matrix: ``data``, ``indices``, ``indptr`` and ``shape`` as given (no copy,
    no check), duck-typed like ``scipy.sparse.csr_array`` for the input checks that read it;
    rows are taken by contiguous slices (views of the arrays)."""

    format = "csr"

    def __init__(self, data, indices, indptr, shape):
        self.data, self.indices, self.indptr, self.shape = data, indices, indptr, shape

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, rows):
        if not isinstance(rows, slice):
            raise TypeError("rows of a sparse X are taken by slices only")
        start, stop, step = rows.indices(self.shape[0])
        if step != 1:
            raise TypeError("rows of a sparse X are taken by contiguous slices only")
        stop = max(start, stop)
        a, b = int(self.indptr[start]), int(self.indptr[stop])
        return CSR(self.data[a:b], self.indices[a:b], self.indptr[start:stop + 1] - a,
                   (stop - start, self.shape[1]))


def check_rows(owner, X):
    """Validate X; return (n, d, dense) or (n, d, (data, indices, indptr)) for CSR input.

    A sparse X (scipy's, or any object with ``data``, ``indices``, ``indptr`` and ``shape``) is
    converted to CSR and its structure checked by ``mbcore._validation`` (``to_csr``,
    ``check_compressed``) before it is read; duplicate entries of a non-canonical scipy matrix
    are summed on a copy."""
    if is_sparse(X):
        X = to_csr(owner, X)       # (other formats: structure checked, then converted)
        n, d = (int(s) for s in X.shape)
        check_compressed(owner, index_array(owner, X.indices, "CSR indices"),
                         index_array(owner, X.indptr, "CSR indptr"),
                         np.asarray(X.data).shape[0], n, d, "CSR")
        if not getattr(X, "has_canonical_format", True):
            X = X.copy()
            X.sum_duplicates()
        indptr = np.asarray(X.indptr, dtype=np.intp)
        nnz = int(indptr[-1])
        indices = np.asarray(X.indices, dtype=np.intp)[:nnz]
        values = np.asarray(X.data, dtype=np.float64)[:nnz]
        if values.size != nnz:                  # data of more than one dimension
            raise ValueError(f"{owner}: X is not a valid CSR matrix (indptr, indices and data "
                             "disagree)")
        part = (values, indices, indptr)
    else:
        part = np.asarray(X, dtype=np.float64)
        if part.ndim != 2:
            raise ndim_error(owner, part.ndim)
        n, d = part.shape
        values = part
    if n == 0:
        raise empty_error(owner)
    if not np.isfinite(values).all():
        raise ValueError(f"{owner}: X contains NaN or infinity")
    return n, d, part


def check_signs(owner, y, n):
    """y as float64 -1.0/+1.0, one label per row (labels -1 and +1 only)."""
    yy = np.asarray(y)
    if yy.ndim != 1 or yy.shape[0] != n:
        raise ValueError(f"{owner}: y must be 1-D with one label per row of X ({n}), got shape "
                         f"{yy.shape}")
    if yy.dtype.kind not in "biuf" or not np.isin(yy, (-1, 1)).all():
        raise ValueError(f"{owner}: y must hold labels -1 and +1 only, got "
                         f"{np.unique(yy)[:5].tolist()}")
    return yy.astype(np.float64)


def check_separator(owner, u, d):
    """u as a finite, non-zero float64 vector of d entries."""
    uu = np.asarray(u, dtype=np.float64)
    if uu.shape != (d,):
        raise ValueError(f"{owner}: u must have shape ({d},) to match X, got {uu.shape}")
    if not np.isfinite(uu).all():
        raise ValueError(f"{owner}: u contains NaN or infinity")
    if not uu.any():
        raise ValueError(f"{owner}: u is the zero vector, which has no margin")
    return uu


def segment_sums(values, indptr, n):
    """Per-row sums of CSR values; empty rows give 0 (np.add.reduceat alone would not)."""
    out = np.zeros(n, dtype=np.float64)
    starts = indptr[:-1]
    nonempty = indptr[1:] > starts
    if nonempty.any():
        out[nonempty] = np.add.reduceat(values[:indptr[-1]], starts[nonempty])
    return out


def row_sqnorms(rows):
    """||x_t||^2 of every row of a :func:`check_rows` triple."""
    n, _, part = rows
    if isinstance(part, tuple):
        data, _, indptr = part
        return segment_sums(data * data, indptr, n)
    return np.einsum("ij,ij->i", part, part)


def row_dots(rows, u):
    """x_t . u for every row of a :func:`check_rows` triple."""
    n, _, part = rows
    if isinstance(part, tuple):
        data, indices, indptr = part
        return segment_sums(data * u[indices], indptr, n)
    return part @ u


def dense_rows(rows):
    """The rows as a dense float64 array (CSR rows scattered)."""
    n, d, part = rows
    if not isinstance(part, tuple):
        return part
    data, indices, indptr = part
    out = np.zeros((n, d))
    out[np.repeat(np.arange(n), np.diff(indptr)), indices] = data
    return out


def row_vector(rows, j):
    """Row j as a dense float64 vector."""
    n, d, part = rows
    if not isinstance(part, tuple):
        return part[j]
    data, indices, indptr = part
    out = np.zeros(d)
    out[indices[indptr[j]:indptr[j + 1]]] = data[indptr[j]:indptr[j + 1]]
    return out
