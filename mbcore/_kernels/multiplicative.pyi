"""Type stubs for mbcore._kernels.multiplicative (compiled; not a public API): the binary passes.

The fused ``value_t`` (uint8, float32, float64) and ``index_t`` (int32, int64) of the .pyx are
the unions ``_V`` and ``_I``; every array is C-contiguous.  ``y``/``pred``/``scores`` may be
None where the kernel skips them (``y`` is read only with ``update``).  ``threads``: the
threads of a learning pass (the same results for any number); ``check``, ``check_values``:
check each CSR row's column indices, each row's values, as the pass reads it (what is not
checked must have been checked before).
"""

from typing import Optional, Tuple, Union

import numpy as np
from numpy.typing import NDArray

_V = NDArray[Union[np.uint8, np.float32, np.float64]]
_I = NDArray[Union[np.int32, np.int64]]
_Rows = Union[_V, Tuple[_V, _I, _I]]       # a 2-D array, or CSR (data, indices, indptr)

def winnow_pass(variant: int, exact: bool, la: float, lb: float, theta: float,
                l: NDArray[np.float64], w: NDArray[np.float64], ln: NDArray[np.float64],
                wn: NDArray[np.float64], X: _Rows, n_cols: int, boolean: bool, limit: float,
                y: Optional[NDArray[np.int8]], pred: Optional[NDArray[np.int8]],
                counts: NDArray[np.int64], update: bool,
                scores: Optional[NDArray[np.float64]] = ..., threads: int = ...,
                check: bool = ..., check_values: bool = ...,
                ones: bool = ...) -> Tuple[int, int, bool]: ...
def spec_tuning(seq_gap: Optional[int] = ..., min_rows: Optional[int] = ...,
                max_rows: Optional[int] = ...,
                stretch: Optional[int] = ...) -> Tuple[int, int, int, int]: ...
def terms(l: NDArray[np.float64], out: NDArray[np.float64]) -> None: ...
def exact_sum_ge(exps: NDArray[np.int64], theta: float) -> bool: ...
def check_values(data: _V, boolean: bool, limit: float) -> int: ...
