"""Type stubs for mbcore._kernels.kernel (compiled; not a public API)."""

from typing import Optional, Tuple, Union

import numpy as np
from numpy.typing import NDArray

_F = NDArray[np.floating]
_I = NDArray[np.integer]
_Rows = Union[_F, Tuple[_F, _I, _I]]       # as linear.pyi's
_Status = Tuple[int, int]

def kp_pass(kind: int, degree: int, tie_pos: bool, gamma: float, coef0: float,
            sv: NDArray[np.float64], svn: NDArray[np.float64], coef: NDArray[np.float64],
            meta: NDArray[np.int64], budget: int, counts: NDArray[np.int64], X: _Rows,
            start: int, y: NDArray[np.int8], pred: NDArray[np.int8], upd: NDArray[np.uint8],
            scores: Optional[NDArray[np.float64]] = ...,
            sw: Optional[NDArray[np.float64]] = ...) -> _Status: ...
def kpm_pass(kind: int, degree: int, gamma: float, coef0: float, sv: NDArray[np.float64],
             svn: NDArray[np.float64], A: NDArray[np.float64], meta: NDArray[np.int64],
             budget: int, counts: NDArray[np.int64], X: _Rows, start: int,
             y: NDArray[np.int32], pred: NDArray[np.int32], upd: NDArray[np.uint8],
             sw: Optional[NDArray[np.float64]] = ...) -> _Status: ...
def kpm_scores(kind: int, degree: int, gamma: float, coef0: float, sv: NDArray[np.float64],
               svn: NDArray[np.float64], A: NDArray[np.float64], n_sv: int, X: _Rows,
               out: NDArray[np.float64]) -> _Status: ...
def kp_scores(kind: int, degree: int, gamma: float, coef0: float, sv: NDArray[np.float64],
              svn: NDArray[np.float64], coef: NDArray[np.float64], n_sv: int, X: _Rows,
              out: NDArray[np.float64]) -> _Status: ...
