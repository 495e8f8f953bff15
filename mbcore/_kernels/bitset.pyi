"""Type stubs for mbcore._kernels.bitset (compiled; not a public API).

Concept bitsets are C-contiguous uint64 words; ``y``/``pred``/``upd`` may be None where the
kernel skips them (``y`` is read only with ``update``).
"""

from typing import Optional, Tuple

import numpy as np
from numpy.typing import NDArray

def popcount_words(a: NDArray[np.uint64]) -> int: ...
def split_counts(cols: NDArray[np.uint64], v: NDArray[np.uint64],
                 out: NDArray[np.int64]) -> int: ...
def nonzero_words(a: NDArray[np.uint64], out: NDArray[np.int32]) -> int: ...
def halving_pass(cols: NDArray[np.uint64], idx: NDArray[np.int64],
                 y: Optional[NDArray[np.int8]], alive: NDArray[np.uint64],
                 nz: NDArray[np.int32], nnz: NDArray[np.int64], alive_count: NDArray[np.int64],
                 pred: Optional[NDArray[np.int8]], upd: Optional[NDArray[np.uint8]],
                 counts: NDArray[np.int64], conservative: bool, update: bool,
                 threads: int = ...) -> None: ...
def spec_tuning(seq_gap: Optional[int] = ..., min_rows: Optional[int] = ...,
                max_rows: Optional[int] = ..., stretch: Optional[int] = ...
                ) -> Tuple[int, int, int, int]: ...
