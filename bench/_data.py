"""The data files the bench scripts read from ``$MBCORE_DATA`` beyond the bundled datasets,
loaded in one place (``bench/`` is not a package: a script puts its own folder first on
``sys.path`` and imports this module as ``_data``, as ``bench/experiments/`` does with its
``_common``).

* :func:`mnist_t10k`: the 10,000 test images of MNIST, ``$MBCORE_DATA/mnist-t10k``
  (``t10k-images-idx3-ubyte.gz`` and ``t10k-labels-idx1-ubyte.gz``, the IDX files of
  LeCun et al.), pixels / 255 as C-contiguous float64 (10,000 x 784), labels int64 0-9;
* :func:`mnist_t10k_split`: the same, the first 8,000 images to learn from and the last 2,000
  to test on.

Each returns None when the files are not there (the scripts then skip the dataset).
"""

import gzip
import os

import numpy as np

TRAIN_ROWS = 8000           # the split: the first 8,000 images learned, the last 2,000 tested


def data_root():
    """The folder of the data files: ``$MBCORE_DATA`` ('' when unset)."""
    return os.environ.get("MBCORE_DATA", "")


def mnist_t10k():
    """(X, y) of MNIST's 10,000 test images (pixels / 255, float64, C order; labels int64),
    or None without ``$MBCORE_DATA/mnist-t10k``."""
    d = os.path.join(data_root(), "mnist-t10k")
    if not os.path.isdir(d):
        return None
    with gzip.open(os.path.join(d, "t10k-images-idx3-ubyte.gz")) as f:
        X = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784)
    with gzip.open(os.path.join(d, "t10k-labels-idx1-ubyte.gz")) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
    return np.ascontiguousarray(X / 255.0), y


def mnist_t10k_split():
    """(X, y, X_test, y_test): :func:`mnist_t10k` split into its first 8,000 rows and its last
    2,000, or None without the files."""
    got = mnist_t10k()
    if got is None:
        return None
    X, y = got
    return X[:TRAIN_ROWS], y[:TRAIN_ROWS], X[TRAIN_ROWS:], y[TRAIN_ROWS:]
