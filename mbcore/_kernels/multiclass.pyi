"""Type stubs for mbcore._kernels.multiclass (compiled; not a public API)."""

from typing import Optional, Tuple, Union

import numpy as np
from numpy.typing import NDArray

_F = NDArray[np.floating]
_I = NDArray[np.integer]
_Rows = Union[_F, Tuple[_F, _I, _I]]       # as linear.pyi's
_Status = Tuple[int, int]

def spec_tuning(seq_gap: Optional[int] = ..., min_rows: Optional[int] = ...,
                max_rows: Optional[int] = ...,
                stretch: Optional[int] = ...) -> Tuple[int, int, int, int]: ...
def mc_split_tuning(min_work: Optional[int] = ...) -> int: ...
def mc_split_stats(reset: bool = ...) -> Tuple[int, int, int, int]: ...
class MultiState:
    def __init__(self, W: NDArray[np.float64], U: NDArray[np.float64],
                 aux: NDArray[np.float64], counts: NDArray[np.int64], d: int, K: int,
                 algo: int, tie_pos: bool, normalize: bool, intercept: bool, average: bool,
                 pegasos: bool, eta: float, thr: float, lam: float, ovr: bool,
                 C: float = ..., pa_lam: float = ...) -> None: ...
def mc_pass(st: MultiState, X: _Rows, y: NDArray[np.int32],
            pred: Optional[NDArray[np.int32]] = ..., upd: Optional[NDArray[np.uint8]] = ...,
            check: bool = ..., threads: int = ...,
            sw: Optional[NDArray[np.float64]] = ...,
            coef: Optional[NDArray[np.float64]] = ...) -> _Status: ...
def mc_scores(W: NDArray[np.float64], K: int, a: float, d: int, intercept: bool,
              normalize: bool, X: _Rows, out: NDArray[np.float64]) -> _Status: ...
def mc_select_pass(st: MultiState, X: _Rows, start: int, label0: int,
                   y: Optional[NDArray[np.int32]], b: float, adaptive: bool,
                   rng: NDArray[np.uint64], x2: NDArray[np.float64], counts: NDArray[np.int64],
                   pred: NDArray[np.int32], asked: NDArray[np.uint8], upd: NDArray[np.uint8],
                   check: bool = ...,
                   scores: Optional[NDArray[np.float64]] = ...) -> Tuple[int, int, int]: ...
