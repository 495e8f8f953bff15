"""Type stubs for mbcore._kernels.linear (compiled; not a public API)."""

from typing import Any, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

from .names import OneFast

_F = NDArray[np.floating]
_I = NDArray[np.integer]
_Status = Tuple[int, int]

class LinearState:
    def __init__(self, w: NDArray[np.float64], u: NDArray[np.float64],
                 aux: NDArray[np.float64], counts: NDArray[np.int64], d: int, algo: int,
                 tie_pos: bool, normalize: bool, intercept: bool, average: bool,
                 pegasos: bool, eta: float, thr: float, lam: float) -> None: ...

def spec_tuning(seq_gap: Optional[int] = ..., min_rows: Optional[int] = ...,
                max_rows: Optional[int] = ...,
                stretch: Optional[int] = ...) -> Tuple[int, int, int, int]: ...
def lin_pass_dense64(st: LinearState, X: NDArray[np.float64], y: NDArray[np.int8],
                     pred: Optional[NDArray[np.int8]] = ...,
                     upd: Optional[NDArray[np.uint8]] = ..., threads: int = ...) -> _Status: ...
def lin_pass_dense32(st: LinearState, X: NDArray[np.float32], y: NDArray[np.int8],
                     pred: Optional[NDArray[np.int8]] = ...,
                     upd: Optional[NDArray[np.uint8]] = ..., threads: int = ...) -> _Status: ...
def lin_step1(st: LinearState, X: NDArray[np.float64], y: int) -> int: ...
def lin_flag1(st: LinearState, X: NDArray[np.float64]) -> int: ...

class OneLinear(OneFast):
    def __init__(self, learner: Any, fast: Tuple[Any, ...], one: Tuple[Any, ...],
                 flags: bool) -> None: ...
def lin_pass_csr(st: LinearState, data: _F, indices: _I, indptr: _I, y: NDArray[np.int8],
                 pred: Optional[NDArray[np.int8]] = ...,
                 upd: Optional[NDArray[np.uint8]] = ..., check: bool = ...,
                 threads: int = ...) -> _Status: ...
def lin_scores_dense(w: NDArray[np.float64], a: float, d: int, intercept: bool,
                     normalize: bool, X: _F, out: NDArray[np.float64]) -> _Status: ...
def lin_scores_csr(w: NDArray[np.float64], a: float, d: int, intercept: bool, normalize: bool,
                   data: _F, indices: _I, indptr: _I, out: NDArray[np.float64]) -> _Status: ...
class MultiState:
    def __init__(self, W: NDArray[np.float64], U: NDArray[np.float64],
                 aux: NDArray[np.float64], counts: NDArray[np.int64], d: int, K: int,
                 algo: int, tie_pos: bool, normalize: bool, intercept: bool, average: bool,
                 pegasos: bool, eta: float, thr: float, lam: float, ovr: bool) -> None: ...

def mc_pass_dense(st: MultiState, X: _F, y: NDArray[np.int32],
                  pred: Optional[NDArray[np.int32]] = ...,
                  upd: Optional[NDArray[np.uint8]] = ..., threads: int = ...) -> _Status: ...
def mc_pass_csr(st: MultiState, data: _F, indices: _I, indptr: _I, y: NDArray[np.int32],
                pred: Optional[NDArray[np.int32]] = ...,
                upd: Optional[NDArray[np.uint8]] = ..., check: bool = ...,
                threads: int = ...) -> _Status: ...
def mc_scores_dense(W: NDArray[np.float64], K: int, a: float, d: int, intercept: bool,
                    normalize: bool, X: _F, out: NDArray[np.float64]) -> _Status: ...
def mc_scores_csr(W: NDArray[np.float64], K: int, a: float, d: int, intercept: bool,
                  normalize: bool, data: _F, indices: _I, indptr: _I,
                  out: NDArray[np.float64]) -> _Status: ...
def replay_dense(w: NDArray[np.float64], d: int, intercept: bool, normalize: bool, eta: float,
                 X: _F, rows: NDArray[np.int64], y: NDArray[np.int8],
                 out: NDArray[np.float64]) -> None: ...
def replay_csr(w: NDArray[np.float64], d: int, intercept: bool, normalize: bool, eta: float,
               data: _F, indices: _I, indptr: _I, rows: NDArray[np.int64], y: NDArray[np.int8],
               out: NDArray[np.float64]) -> None: ...
def vote_scores_dense(V: NDArray[np.float64], counts: NDArray[np.int64], d: int,
                      intercept: bool, normalize: bool, tie_pos: bool, X: _F,
                      out: NDArray[np.float64]) -> _Status: ...
def vote_scores_csr(V: NDArray[np.float64], counts: NDArray[np.int64], d: int, intercept: bool,
                    normalize: bool, tie_pos: bool, data: _F, indices: _I, indptr: _I,
                    out: NDArray[np.float64]) -> _Status: ...
def kp_pass_dense(kind: int, degree: int, tie_pos: bool, gamma: float, coef0: float,
                  sv: NDArray[np.float64], svn: NDArray[np.float64], coef: NDArray[np.float64],
                  meta: NDArray[np.int64], budget: int, counts: NDArray[np.int64], X: _F,
                  start: int, y: NDArray[np.int8], pred: NDArray[np.int8],
                  upd: NDArray[np.uint8],
                  scores: Optional[NDArray[np.float64]] = ...) -> _Status: ...
def kp_pass_csr(kind: int, degree: int, tie_pos: bool, gamma: float, coef0: float,
                sv: NDArray[np.float64], svn: NDArray[np.float64], coef: NDArray[np.float64],
                meta: NDArray[np.int64], budget: int, counts: NDArray[np.int64], data: _F,
                indices: _I, indptr: _I, start: int, y: NDArray[np.int8],
                pred: NDArray[np.int8], upd: NDArray[np.uint8],
                scores: Optional[NDArray[np.float64]] = ...) -> _Status: ...
def kpm_pass_dense(kind: int, degree: int, gamma: float, coef0: float,
                   sv: NDArray[np.float64], svn: NDArray[np.float64], A: NDArray[np.float64],
                   meta: NDArray[np.int64], budget: int, counts: NDArray[np.int64], X: _F,
                   start: int, y: NDArray[np.int32], pred: NDArray[np.int32],
                   upd: NDArray[np.uint8]) -> _Status: ...
def kpm_pass_csr(kind: int, degree: int, gamma: float, coef0: float, sv: NDArray[np.float64],
                 svn: NDArray[np.float64], A: NDArray[np.float64], meta: NDArray[np.int64],
                 budget: int, counts: NDArray[np.int64], data: _F, indices: _I, indptr: _I,
                 start: int, y: NDArray[np.int32], pred: NDArray[np.int32],
                 upd: NDArray[np.uint8]) -> _Status: ...
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
def csr_check(indices: _I, indptr: _I, n_cols: int) -> _Status: ...
def indptr_check(indptr: _I) -> int: ...
def sqnorm(w: NDArray[np.float64], d: int, intercept: bool) -> float: ...
def encode_labels(y: np.ndarray, neg: object, pos: object, out: NDArray[np.int8]) -> int: ...
def distinct_labels(y: np.ndarray) -> Tuple[int, int, int]: ...
def lin_flags_dense(w: NDArray[np.float64], a: float, d: int, intercept: bool, normalize: bool,
                    tie_pos: bool, X: _F, out: NDArray[np.uint8]) -> _Status: ...
def lin_flags_csr(w: NDArray[np.float64], a: float, d: int, intercept: bool, normalize: bool,
                  tie_pos: bool, data: _F, indices: _I, indptr: _I,
                  out: NDArray[np.uint8]) -> _Status: ...
