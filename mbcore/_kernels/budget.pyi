"""Type stubs for mbcore._kernels.budget (compiled; not a public API)."""

from typing import Optional, Tuple, Union

import numpy as np
from numpy.typing import NDArray

_F = NDArray[np.floating]
_I = NDArray[np.integer]
_Rows = Union[_F, Tuple[_F, _I, _I]]       # as linear.pyi's
_Status = Tuple[int, int]

def bk_pass(rule: int, kind: int, degree: int, tie_pos: bool, gamma: float, coef0: float,
            budget: int, eta: float, C: float, sv: NDArray[np.float64],
            svn: NDArray[np.float64], kd: NDArray[np.float64], coef: NDArray[np.float64],
            meta: NDArray[np.int64], lab: Optional[NDArray[np.int8]],
            Q: Optional[NDArray[np.float64]], kinv: Optional[NDArray[np.float64]],
            rng: Optional[NDArray[np.uint64]], counts: NDArray[np.int64], X: _Rows, start: int,
            y: NDArray[np.int32], pred: NDArray[np.int32],
            upd: NDArray[np.uint8]) -> _Status: ...
def bk_scores(kind: int, degree: int, gamma: float, coef0: float, sv: NDArray[np.float64],
              svn: NDArray[np.float64], coef: NDArray[np.float64], meta: NDArray[np.int64],
              X: _Rows, out: NDArray[np.float64]) -> _Status: ...
