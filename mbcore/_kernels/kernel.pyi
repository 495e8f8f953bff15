"""Type stubs for mbcore._kernels.kernel (compiled; not a public API)."""

from typing import Optional, Tuple

import numpy as np
from numpy.typing import NDArray

_F = NDArray[np.floating]
_I = NDArray[np.integer]
_Status = Tuple[int, int]

def kp_pass_dense(kind: int, degree: int, tie_pos: bool, gamma: float, coef0: float,
                  sv: NDArray[np.float64], svn: NDArray[np.float64], coef: NDArray[np.float64],
                  meta: NDArray[np.int64], budget: int, counts: NDArray[np.int64], X: _F,
                  start: int, y: NDArray[np.int8], pred: NDArray[np.int8],
                  upd: NDArray[np.uint8],
                  scores: Optional[NDArray[np.float64]] = ...,
                  sw: Optional[NDArray[np.float64]] = ...) -> _Status: ...
def kp_pass_csr(kind: int, degree: int, tie_pos: bool, gamma: float, coef0: float,
                sv: NDArray[np.float64], svn: NDArray[np.float64], coef: NDArray[np.float64],
                meta: NDArray[np.int64], budget: int, counts: NDArray[np.int64], data: _F,
                indices: _I, indptr: _I, start: int, y: NDArray[np.int8],
                pred: NDArray[np.int8], upd: NDArray[np.uint8],
                scores: Optional[NDArray[np.float64]] = ...,
                sw: Optional[NDArray[np.float64]] = ...) -> _Status: ...
def kpm_pass_dense(kind: int, degree: int, gamma: float, coef0: float,
                   sv: NDArray[np.float64], svn: NDArray[np.float64], A: NDArray[np.float64],
                   meta: NDArray[np.int64], budget: int, counts: NDArray[np.int64], X: _F,
                   start: int, y: NDArray[np.int32], pred: NDArray[np.int32],
                   upd: NDArray[np.uint8], sw: Optional[NDArray[np.float64]] = ...) -> _Status: ...
def kpm_pass_csr(kind: int, degree: int, gamma: float, coef0: float, sv: NDArray[np.float64],
                 svn: NDArray[np.float64], A: NDArray[np.float64], meta: NDArray[np.int64],
                 budget: int, counts: NDArray[np.int64], data: _F, indices: _I, indptr: _I,
                 start: int, y: NDArray[np.int32], pred: NDArray[np.int32],
                 upd: NDArray[np.uint8], sw: Optional[NDArray[np.float64]] = ...) -> _Status: ...
def kpm_scores_dense(kind: int, degree: int, gamma: float, coef0: float,
                     sv: NDArray[np.float64], svn: NDArray[np.float64], A: NDArray[np.float64],
                     n_sv: int, X: _F, out: NDArray[np.float64]) -> _Status: ...
def kpm_scores_csr(kind: int, degree: int, gamma: float, coef0: float, sv: NDArray[np.float64],
                   svn: NDArray[np.float64], A: NDArray[np.float64], n_sv: int, data: _F,
                   indices: _I, indptr: _I, out: NDArray[np.float64]) -> _Status: ...
def kp_scores_dense(kind: int, degree: int, gamma: float, coef0: float,
                    sv: NDArray[np.float64], svn: NDArray[np.float64],
                    coef: NDArray[np.float64], n_sv: int, X: _F,
                    out: NDArray[np.float64]) -> _Status: ...
def kp_scores_csr(kind: int, degree: int, gamma: float, coef0: float, sv: NDArray[np.float64],
                  svn: NDArray[np.float64], coef: NDArray[np.float64], n_sv: int, data: _F,
                  indices: _I, indptr: _I, out: NDArray[np.float64]) -> _Status: ...
