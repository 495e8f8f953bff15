"""Type stubs for mbcore._kernels.second_order (compiled; not a public API)."""

from typing import Any, Optional, Tuple, Union

import numpy as np
from numpy.typing import NDArray

from .names import OneFast

_F = NDArray[np.floating]
_I = NDArray[np.integer]
_Rows = Union[_F, Tuple[_F, _I, _I]]       # as linear.pyi's
_Status = Tuple[int, int]

def simd_level(force: Optional[int] = ...) -> int: ...
def so_pass(rule: int, full: bool, intercept: bool, tie_pos: bool, p0: float, p1: float,
            floor: float, w: NDArray[np.float64], S: NDArray[np.float64], d: int, counts: NDArray[np.int64],
            X: _Rows, y: NDArray[np.int8], pred: Optional[NDArray[np.int8]] = ...,
            upd: Optional[NDArray[np.uint8]] = ..., scores: Optional[NDArray[np.float64]] = ...,
            check: bool = ..., sw: Optional[NDArray[np.float64]] = ...,
            V: Optional[NDArray[np.float64]] = ...) -> _Status: ...
def so_select_pass(rule: int, full: bool, intercept: bool, tie_pos: bool, p0: float, p1: float,
                   floor: float, w: NDArray[np.float64], S: NDArray[np.float64], d: int,
                   counts: NDArray[np.int64], X: _Rows, start: int, label0: int,
                   y: Optional[NDArray[np.int8]], b: float, adaptive: bool,
                   rng: NDArray[np.uint64], x2: NDArray[np.float64], sel: NDArray[np.int64],
                   pred: NDArray[np.int8], asked: NDArray[np.uint8], upd: NDArray[np.uint8],
                   check: bool = ..., scores: Optional[NDArray[np.float64]] = ...,
                   V: Optional[NDArray[np.float64]] = ..., query: int = ...,
                   kappa: float = ...) -> Tuple[int, int, int]: ...
def so_ovr_select_pass(rule: int, full: bool, intercept: bool, tie_pos: bool, p0: float,
                       p1: float, floor: float, W: NDArray[np.float64], S: NDArray[np.float64],
                       d: int, K: int, counts: NDArray[np.int64], X: _Rows, start: int,
                       label0: int, y: Optional[NDArray[np.int32]], b: float, adaptive: bool,
                       rng: NDArray[np.uint64], x2: NDArray[np.float64],
                       sel: NDArray[np.int64], pred: NDArray[np.int32],
                       asked: NDArray[np.uint8], upd: NDArray[np.uint8], check: bool = ...,
                       scores: Optional[NDArray[np.float64]] = ...,
                       V: Optional[NDArray[np.float64]] = ..., query: int = ...,
                       kappa: float = ...) -> Tuple[int, int, int]: ...
def so_mc_pass(rule: int, intercept: bool, p0: float, p1: float, floor: float, K: int,
               W: NDArray[np.float64], S: NDArray[np.float64], d: int,
               counts: NDArray[np.int64], X: _Rows, y: NDArray[np.int32],
               pred: Optional[NDArray[np.int32]] = ..., upd: Optional[NDArray[np.uint8]] = ...,
               check: bool = ..., sw: Optional[NDArray[np.float64]] = ...) -> _Status: ...
def alma_pass(p: float, alpha: float, B: float, C: float, intercept: bool, tie_pos: bool,
              w: NDArray[np.float64], T: NDArray[np.float64], k: NDArray[np.float64], d: int,
              counts: NDArray[np.int64], X: _Rows, y: NDArray[np.int8],
              pred: Optional[NDArray[np.int8]] = ..., upd: Optional[NDArray[np.uint8]] = ...,
              scores: Optional[NDArray[np.float64]] = ..., check: bool = ...,
              learn: bool = ...) -> _Status: ...
def alma_link(v: NDArray[np.float64], r: float, intercept: bool,
              out: NDArray[np.float64]) -> None: ...
class OneBinding:
    @property
    def d(self) -> int: ...
def so_binding(rule: int, full: bool, intercept: bool, tie_pos: bool, p0: float, p1: float,
               floor: float, w: NDArray[np.float64], S: NDArray[np.float64], d: int,
               counts: NDArray[np.int64],
               V: Optional[NDArray[np.float64]] = ...) -> OneBinding: ...
def alma_binding(p: float, alpha: float, B: float, C: float, intercept: bool, tie_pos: bool,
                 w: NDArray[np.float64], T: NDArray[np.float64], k: NDArray[np.float64],
                 d: int, counts: NDArray[np.int64]) -> OneBinding: ...
class OneSecondOrder(OneFast):
    @property
    def fast(self) -> Any: ...
    @property
    def one(self) -> Any: ...
    def __init__(self, learner: Any, fast: Tuple[Any, ...], one: Tuple[Any, ...]) -> None: ...
    def learn(self, x: Any, y: Any) -> int: ...
    def learn_given(self, x: Any, y: Any, classes: Any) -> int: ...
    def predict(self, x: Any, miss: Any) -> Any: ...
