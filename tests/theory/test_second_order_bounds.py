"""The mistake bounds of the second-order learners (AROW, the second-order Perceptron) and
ALMA, as functions (mbcore.bounds).

The golden values are worked by hand from the formulas (eigenvalues that can be written
down).
"""

import math

import pytest

from mbcore import bounds as B


# -- the functions: golden values worked by hand ------------------------------------------------

def test_arow_bound_golden_values():
    # two update rows x1 = (1, 0), x2 = (0, 2): X_A = diag(1, 4); u = (1, 1): ||u||^2 = 2,
    # u' X_A u = 1 + 4 = 5; r = a = 1: log det(I + X_A) = ln 2 + ln 5 = ln 10
    assert B.arow_bound(1.0, math.sqrt(2.0), 5.0, math.log(10.0)) == \
        pytest.approx(math.sqrt(7.0) * math.sqrt(math.log(10.0)), rel=1e-14)
    # one of the two was not a mistake (U = 1), hinge 0.5: the two quantities enter apart
    assert B.arow_bound(1.0, math.sqrt(2.0), 5.0, math.log(10.0), hinge=0.5, U=1) == \
        pytest.approx(math.sqrt(7.0) * math.sqrt(math.log(10.0) + 1.0) + 0.5 - 1.0, rel=1e-14)
    # r = 4, a = 2: r ||u||^2 / a = 4; log det(I + (2/4) diag(1, 4)) = ln 1.5 + ln 3 = ln 4.5
    assert B.arow_bound(4.0, math.sqrt(2.0), 5.0, math.log(4.5), a=2.0) == \
        pytest.approx(3.0 * math.sqrt(math.log(4.5)), rel=1e-14)
    assert B.arow_bound(1.0, 0.0, 0.0, 0.0, hinge=3.0, U=1) == 2.0        # u = 0: M <= M


def test_second_order_perceptron_bound_golden_values():
    # one mistake on x = (3, 4) with y = +1: X_M' X_M = [[9, 12], [12, 16]], eigenvalues 25
    # and 0; u = (1, 0), gamma = 0.5: y u . x = 3 >= gamma, D = 0; u' X X' u = 9; a = 1
    assert B.second_order_perceptron_bound(0.5, 1.0, 9.0, [25.0, 0.0]) == \
        pytest.approx(2.0 * math.sqrt(10.0 * math.log(26.0)), rel=1e-14)
    # mistakes on (1, 0) and (0, 2): eigenvalues 1 and 4; a = 2: ln 1.5 + ln 3; u = (1, 1),
    # gamma = 1, D = 1.5 (say); a ||u||^2 = 4, u' X X' u = 1 + 4
    assert B.second_order_perceptron_bound(1.0, math.sqrt(2.0), 5.0, [1.0, 4.0], D=1.5,
                                           a=2.0) == \
        pytest.approx(1.5 + math.sqrt(9.0 * math.log(4.5)), rel=1e-14)
    # scaling u and gamma together changes nothing
    b1 = B.second_order_perceptron_bound(0.5, 1.0, 9.0, [25.0], D=0.25)
    assert B.second_order_perceptron_bound(1.5, 3.0, 81.0, [25.0], D=0.75) == \
        pytest.approx(b1, rel=1e-14)
    assert B.second_order_perceptron_bound(0.5, 1.0, 9.0, []) == 0.0      # no mistake


def test_alma_bound_golden_values():
    assert B.alma_bound(0.5, 1.0) == 2.0 / 0.25 + 8.0 - 4.0 == 12.0
    assert B.alma_bound(0.25, 0.5, p=3.0) == 4.0 / (0.25 * 0.0625) + 16.0 - 4.0 == 268.0
    assert B.alma_bound(1.0, 1.0) == 6.0


@pytest.mark.parametrize("call, match", [
    (lambda: B.arow_bound(0.0, 1.0, 1.0, 1.0), "arow_bound: parameter r must be > 0"),
    (lambda: B.arow_bound(1.0, -1.0, 1.0, 1.0), "parameter u_norm must be >= 0"),
    (lambda: B.arow_bound(1.0, 1.0, 1.0, -0.1), "parameter log_det must be >= 0"),
    (lambda: B.arow_bound(1.0, 1.0, 1.0, 1.0, U=-1), "parameter U must be >= 0"),
    (lambda: B.arow_bound(1.0, 1.0, 1.0, 1.0, a=0.0), "parameter a must be > 0"),
    (lambda: B.arow_bound(1.0, 1.0, math.nan, 1.0), "parameter uXu must be a finite real"),
    (lambda: B.second_order_perceptron_bound(0.0, 1.0, 1.0, [1.0]),
     "second_order_perceptron_bound: parameter gamma must be > 0"),
    (lambda: B.second_order_perceptron_bound(1.0, 1.0, 1.0, [1.0, -2.0]),
     r"parameter eigenvalues\[1\] must be >= 0"),
    (lambda: B.second_order_perceptron_bound(1.0, 1.0, 1.0, 3.0),
     "parameter eigenvalues must be an iterable"),
    (lambda: B.second_order_perceptron_bound(1.0, 1.0, 1.0, [1.0], D=-1.0),
     "parameter D must be >= 0"),
    (lambda: B.alma_bound(1.5, 0.5), r"alma_bound: parameter gamma must be in \(0, 1\]"),
    (lambda: B.alma_bound(0.5, 0.0), r"parameter alpha must be a finite real in \(0.0, 1.0\]"),
    (lambda: B.alma_bound(0.5, 1.5), "parameter alpha"),
    (lambda: B.alma_bound(0.5, 0.5, p=1.5), "parameter p must be a finite real >= 2"),
])
def test_bound_functions_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
