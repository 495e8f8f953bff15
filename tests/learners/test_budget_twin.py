"""The budget kernel Perceptrons' twin (``mbref.budget``, issue 39): each rule against an
independent NumPy implementation written here from its paper, step by step on the first 2,000
rows of a9a (RBF with gamma = 1/123 and a polynomial kernel of degree 2); golden streams worked
by hand; the budget held after every row; the Randomized Budget Perceptron's generator; bad
input.

The NumPy implementations share nothing with the twin but the rule: kernel values as vectors
(``np.exp`` of NumPy's sums, ``Z @ x``), the Projectrons' projection by ``np.linalg.solve`` on
the Gram matrix (not an inverse kept up to date), the Forgetron in arrival order (the twin keeps
a ring) with its phi found by ``scipy.optimize.brentq`` and its damage measured on the shrunk
hypothesis, BPA-S's removal checked against the paper's whole objective, splitmix64 written
again from Steele, Lea & Flood (2014).  The orders of summation differ, so values are compared
to 1e-9 relative; predictions, mistakes, updates and support vectors exactly.
"""

import contextlib
import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import brentq
try:
    from threadpoolctl import threadpool_limits     # (a dependency of scikit-learn)
except ImportError:                                 # the wheel's smoke environment
    threadpool_limits = contextlib.nullcontext

import mbref
from mbref._rng import SplitMix64
from mbcore.datasets import load_a9a, load_mnist

ROWS = 2000
GAMMA = 1.0 / 123.0
KERNELS = {"rbf": dict(kernel="rbf", gamma=GAMMA),
           "poly": dict(kernel="poly", degree=2, gamma=GAMMA, coef0=1.0)}


@pytest.fixture(scope="module")
def a9a():
    X, y = load_a9a()
    X, y = np.ascontiguousarray(X[:ROWS]), y[:ROWS].astype(int)
    return X, sp.csr_matrix(X), y


# -- NumPy implementations, from the papers ----------------------------------------------------

def np_kernel(kernel="rbf", gamma=None, degree=3, coef0=1.0):
    """K(Z, x) for the rows of Z (n, d) and a row x (d,), as a vector."""
    def k(Z, x):
        Z = np.asarray(Z, dtype=float).reshape(-1, len(x))
        if kernel == "rbf":
            return np.exp(-gamma * ((Z - x) ** 2).sum(axis=1))
        if kernel == "poly":
            return (gamma * (Z @ x) + coef0) ** degree
        return Z @ x
    return k


class NpSplitMix:
    """splitmix64 (Steele, Lea & Flood 2014), the next double as the top 53 bits / 2**53."""

    def __init__(self, seed):
        self.s = seed % 2 ** 64

    def next64(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) % 2 ** 64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2 ** 64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2 ** 64
        return z ^ (z >> 31)

    def u(self):
        return (self.next64() >> 11) / 2.0 ** 53


class NpBinary:
    """A kernel Perceptron's hypothesis f = sum_i a_i K(z_i, .) kept as NumPy arrays (slots)."""

    def __init__(self, k, budget):
        self.k, self.B = k, budget
        self.Z, self.a = [], np.zeros(0)

    def f(self, x):
        return float(self.a @ self.k(self.Z, x)) if self.Z else 0.0

    def slots(self):
        return self.Z, self.a


class NpStoptron(NpBinary):
    def step(self, x, y):
        p = 1 if self.f(x) > 0 else -1
        if p == y or len(self.Z) == self.B:
            return p, False
        self.Z.append(x.copy())
        self.a = np.append(self.a, float(y))
        return p, True


class NpRBP(NpBinary):
    """Cavallanti, Cesa-Bianchi & Gentile (2007): on a mistake with a full budget, discard a
    support vector chosen uniformly at random (slot floor(u B)) and store the new one there."""

    def __init__(self, k, budget, rng):
        super().__init__(k, budget)
        self.rng = rng

    def step(self, x, y):
        p = 1 if self.f(x) > 0 else -1
        if p == y:
            return p, False
        if len(self.Z) < self.B:
            self.Z.append(x.copy())
            self.a = np.append(self.a, float(y))
        else:
            j = int(math.floor(self.rng.u() * self.B))
            self.Z[j] = x.copy()
            self.a[j] = float(y)
        return p, True


class NpForgetron(NpBinary):
    """The self-tuned Forgetron (Dekel, Shalev-Shwartz & Singer 2008), in arrival order: on a
    mistake M += 1 and I' = I + {t} with sigma_t = 1; over budget, r = the oldest, mu = y_r
    f'(x_r), phi = max{phi in (0, 1]: Q + Psi(sigma_r phi, phi mu) <= 15/32 M}, every sigma
    times phi, Q += Psi(sigma_r phi, y_r f''(x_r)) with f'' the shrunk hypothesis, r removed."""

    def __init__(self, k, budget):
        super().__init__(k, budget)
        self.y, self.sigma = [], []
        self.Q, self.M = 0.0, 0

    def f(self, x):
        if not self.Z:
            return 0.0
        return float((np.array(self.sigma) * np.array(self.y)) @ self.k(self.Z, x))

    @staticmethod
    def psi(lam, mu):
        return lam ** 2 + 2 * lam - 2 * lam * mu

    def step(self, x, yt):
        p = 1 if self.f(x) > 0 else -1
        if p == yt:
            return p, False
        self.M += 1
        self.Z.append(x.copy())
        self.y.append(yt)
        self.sigma.append(1.0)
        if len(self.Z) <= self.B:
            return p, True
        s_r, y_r, x_r = self.sigma[0], self.y[0], self.Z[0]
        mu = y_r * self.f(x_r)                       # f' = f + y_t K(x_t, .): stored already
        cap = 15.0 / 32.0 * self.M

        def h(phi):
            return self.Q + self.psi(s_r * phi, phi * mu) - cap

        phi = 1.0 if h(1.0) <= 0 else brentq(h, 0.0, 1.0, xtol=1e-16, rtol=1e-15, maxiter=500)
        self.sigma = [s * phi for s in self.sigma]
        self.Q += self.psi(self.sigma[0], y_r * self.f(x_r))
        del self.Z[0], self.y[0], self.sigma[0]
        return p, True

    def slots(self):
        return self.Z, np.array(self.sigma) * np.array(self.y)


class NpProjectron(NpBinary):
    """Orabona, Keshet & Caputo (2009): on a mistake, d* = K_S^-1 k_t (here by solving with the
    Gram matrix), delta = ||P k_t - k_t|| = sqrt(k_tt - k_t . d*); delta <= eta (or the budget
    full): alpha += y d*; else add x_t with alpha y.  Projectron++ (``plus``): on a margin error
    (predicted right, y f < 1) with l = 1 - y f, the passive-aggressive step
    tau = min(l / ||P k_t||^2, 1), cut to the largest tau with beta_t = tau (2 l - tau ||P
    k_t||^2 - 2 delta / eta) >= 0; alpha += tau y d*."""

    def __init__(self, k, budget, eta, plus=False):
        super().__init__(k, budget)
        self.eta, self.plus = eta, plus
        self.G = np.zeros((0, 0))

    def _proj(self, x):
        kt = self.k(self.Z, x) if self.Z else np.zeros(0)
        d = np.linalg.solve(self.G, kt) if self.Z else np.zeros(0)
        ktt = float(self.k([x], x)[0])
        N = float(kt @ d)
        return kt, d, ktt, N, math.sqrt(max(ktt - N, 0.0))

    def step(self, x, y):
        f = self.f(x)
        p = 1 if f > 0 else -1
        if p != y:
            kt, d, ktt, N, delta = self._proj(x)
            if delta <= self.eta or len(self.Z) == self.B:
                if not self.Z:
                    return p, False
                self.a = self.a + y * d
                return p, True
            n = len(self.Z)
            G = np.zeros((n + 1, n + 1))
            G[:n, :n], G[:n, n], G[n, :n], G[n, n] = self.G, kt, kt, ktt
            self.G = G
            self.Z.append(x.copy())
            self.a = np.append(self.a, float(y))
            return p, True
        if not self.plus or not y * f < 1 or not self.Z or self.eta == 0:
            return p, False
        kt, d, ktt, N, delta = self._proj(x)
        loss = 1 - y * f
        if N <= 0:
            return p, False
        tau = min(loss / N, 1.0)
        if tau * (2 * loss - tau * N - 2 * delta / self.eta) < 0:
            tau = 2 * (loss - delta / self.eta) / N
        if tau <= 0:
            return p, False
        self.a = self.a + tau * y * d
        return p, True


class NpBPAS(NpBinary):
    """BPA-S (Wang & Vucetic 2010): the PA-I step tau = min(C, l / k_tt) on a hinge loss;
    over budget, w' = w - a_r phi(x_r) + beta phi(x_t), r and beta minimising
    1/2 ||w' - w||^2 + C xi s.t. y w'.phi(x_t) >= 1 - xi.  For a given r the best beta is
    a_r k_rt / k_tt + tau y (setting the derivative in beta to zero: the constraint's
    y f(x_t) - y a_r k_rt + y beta k_tt = y f(x_t) + tau k_tt, independent of r); the objective
    is then 1/2 a_r^2 (k_rr - k_rt^2 / k_tt) plus terms without r: r minimises that term (the
    first on ties).  ``check_objective`` verifies the choice against the whole objective."""

    def __init__(self, k, budget, C):
        super().__init__(k, budget)
        self.C = C
        self.checked = 0

    def step(self, x, y):
        f = self.f(x)
        p = 1 if f > 0 else -1
        loss = max(0.0, 1 - y * f)
        if loss == 0:
            return p, False
        ktt = float(self.k([x], x)[0])
        tau = min(self.C, loss / ktt)
        if len(self.Z) < self.B:
            self.Z.append(x.copy())
            self.a = np.append(self.a, tau * y)
            return p, True
        kt = self.k(self.Z, x)
        krr = np.array([float(self.k([z], z)[0]) for z in self.Z])
        r = int(np.argmin(self.a ** 2 * (krr - kt ** 2 / ktt)))
        beta = self.a * kt / ktt + tau * y
        # the whole objective for every r: the chosen r is a minimiser (to rounding)
        dw2 = beta ** 2 * ktt - 2 * beta * self.a * kt + self.a ** 2 * krr
        xi = np.maximum(0.0, 1 - y * (f - self.a * kt + beta * ktt))
        obj = 0.5 * dw2 + self.C * xi
        assert obj[r] <= obj.min() + 1e-9 * max(1.0, abs(obj.min()))
        self.checked += 1
        self.Z[r] = x.copy()
        self.a[r] = beta[r]
        return p, True


class NpOvR:
    """One-vs-rest: learner k on y == k; the argmax of the scores before the row (smallest k
    among the largest); every learner then takes the row."""

    def __init__(self, learners):
        self.L = learners

    def step(self, x, y):
        f = [L.f(x) for L in self.L]
        p = int(np.argmax(f))
        upd = [L.step(x, 1 if y == k else -1)[1] for k, L in enumerate(self.L)]
        return p, any(upd)


def make(name, kern, params, k=None):
    """(twin, NumPy implementation) for a learner name and its parameters."""
    k = k or np_kernel(**kern)
    B = params.get("budget")
    if name == "Stoptron":
        ref = NpStoptron(k, B)
    elif name == "RandomizedBudgetPerceptron":
        ref = NpRBP(k, B, NpSplitMix(params.get("random_state", 0)))
    elif name == "Forgetron":
        ref = NpForgetron(k, B)
    elif name in ("Projectron", "ProjectronPP"):
        ref = NpProjectron(k, B, params.get("eta", 0.1), plus=name == "ProjectronPP")
    else:
        ref = NpBPAS(k, B, params.get("C", 1.0))
    return getattr(mbref, name)(**params, **kern), ref


# -- step by step -------------------------------------------------------------------------------

def close(a, b, what):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, what
    scale = max(1.0, float(np.abs(b).max())) if b.size else 1.0
    assert np.all(np.abs(a - b) <= 1e-9 * scale), (what, a, b)


def lockstep(twin, ref, X, Xnp, y, slots=None):
    """Run the twin over X (rows of Xnp, labels y) and the NumPy implementation beside it,
    comparing after every row: the prediction, whether the state changed, the support vectors
    (exactly) and their coefficients (to 1e-9).  ``slots(twin)`` maps the twin's slots to the
    reference's order (the Forgetron's ring to arrival order)."""
    orig = twin._step
    count = {"mistakes": 0, "updates": 0, "rows": 0}
    known = {}                       # id of a twin's support vector -> the row it was checked as

    def same_rows(tz, Z, i):
        assert len(tz) == len(Z), ("support vectors", i)
        for s, z in enumerate(tz):
            if known.get(id(z)) is not z:           # a new slot: compare it, then remember it
                assert np.array_equal(np.array(z), Z[s]), ("support vector", s, i)
                known[id(z)] = z

    def step(x, yi, i):
        p, u = orig(x, yi, i)
        rp, ru = ref.step(Xnp[i], yi)
        assert (p, u) == (rp, ru), (i, p, u, rp, ru)
        count["rows"] += 1
        count["mistakes"] += p != yi
        count["updates"] += u
        if hasattr(ref, "slots"):
            tz, ta = slots(twin) if slots else (twin._m[0].sv, twin._m[0].coef)
            Z, a = ref.slots()
            close(ta, a, ("coefficients", i))
            same_rows(tz, Z, i)
        return p, u

    twin._step = step
    try:
        with threadpool_limits(1):              # NumPy's small solves: one thread is faster
            twin.partial_fit(X, y)
    finally:
        vars(twin).pop("_step", None)
    assert count["rows"] == len(y)
    assert (twin.mistakes_, twin.updates_) == (count["mistakes"], count["updates"])
    if hasattr(ref, "slots"):
        tz, _ = slots(twin) if slots else (twin._m[0].sv, None)
        assert np.array_equal(np.array(tz).reshape(len(tz), -1),
                              np.array(ref.slots()[0]).reshape(len(tz), -1))
    return count


def ring_to_arrival(twin):
    """The Forgetron's slots in arrival order: the ring from its head once full."""
    m = twin._m[0]
    if len(m.sv) < twin.budget:
        return m.sv, m.coef
    h = m.head
    return m.sv[h:] + m.sv[:h], m.coef[h:] + m.coef[:h]


CASES = [("Stoptron", dict(budget=50)),
         ("RandomizedBudgetPerceptron", dict(budget=50, random_state=7)),
         ("Forgetron", dict(budget=50)),
         ("Forgetron", dict(budget=5)),
         ("Projectron", dict(eta=0.2)),
         ("Projectron", dict(eta=0.1, budget=30)),
         ("ProjectronPP", dict(eta=0.2)),
         ("ProjectronPP", dict(eta=0.3, budget=20)),
         ("BPA_S", dict(budget=50, C=1.0)),
         ("BPA_S", dict(budget=20, C=0.1))]


@pytest.mark.longrun      # (the 2,000 rows of a9a beside NumPy: pytest -m longrun, as CI runs)
@pytest.mark.parametrize("kname", list(KERNELS))
@pytest.mark.parametrize("name, params", CASES,
                         ids=[f"{n}-{'-'.join(f'{k}{v}' for k, v in p.items())}"
                              for n, p in CASES])
def test_a9a_step_by_step_beside_numpy(a9a, name, params, kname):
    X, Xcsr, y = a9a
    twin, ref = make(name, KERNELS[kname], params)
    c = lockstep(twin, ref, Xcsr, X, y,
                 slots=ring_to_arrival if name == "Forgetron" else None)
    assert c["updates"] > 0 and c["mistakes"] > 100
    if "budget" in params:
        assert twin.n_support_ <= params["budget"]
    if name == "BPA_S":
        assert ref.checked > 0                        # the removal was exercised
    if name == "Forgetron":
        assert ref.Q <= 15 / 32 * ref.M + 1e-9 and twin._m[0].M == ref.M
        close([twin._m[0].Q], [ref.Q], "Q")


DENSE = [CASES[0], CASES[1], CASES[2], CASES[4], CASES[6], CASES[8]]


@pytest.mark.parametrize("name, params", DENSE, ids=[d[0] for d in DENSE])
def test_dense_rows_step_by_step(a9a, name, params):
    """Dense rows (lists) take the same rule: the first 300 rows beside NumPy."""
    X, _, y = a9a
    twin, ref = make(name, KERNELS["rbf"], params)
    lockstep(twin, ref, X[:300].tolist(), X, y[:300].tolist(),
             slots=ring_to_arrival if name == "Forgetron" else None)


@pytest.mark.parametrize("name, params", [("Stoptron", dict(budget=10)),
                                          ("RandomizedBudgetPerceptron", dict(budget=10)),
                                          ("Forgetron", dict(budget=10)),
                                          ("ProjectronPP", dict(eta=0.2, budget=15)),
                                          ("BPA_S", dict(budget=10))])
def test_three_classes_one_vs_rest_beside_numpy(name, params):
    """MNIST's digits 0, 1 and 2 (CSR): K binary learners, learner k on y == k; the argmax of
    the scores before the row; the Randomized Budget Perceptron's learners draw from one
    generator in the order k = 0, 1, 2."""
    X, y = load_mnist()
    keep = np.flatnonzero(y < 3)[:240]
    X, y = np.ascontiguousarray(X[keep]), y[keep].astype(int)
    kern = dict(kernel="rbf", gamma=1.0 / 784)
    refs = [make(name, kern, params)[1] for _ in range(3)]
    if name == "RandomizedBudgetPerceptron":
        for r in refs:
            r.rng = refs[0].rng
    twin = getattr(mbref, name)(**params, **kern)
    c = lockstep(twin, NpOvR(refs), sp.csr_matrix(X), X, y)
    assert c["mistakes"] > 10
    assert twin.classes_ == [0, 1, 2]
    for k, r in enumerate(refs):
        Z, a = r.slots()
        tz, ta = twin.support_vectors_[k], twin.dual_coef_[k]
        if name == "Forgetron" and len(tz) == params["budget"]:      # the ring, oldest first
            h = twin._m[k].head
            tz, ta = tz[h:] + tz[:h], ta[h:] + ta[:h]
        assert np.array_equal(np.array(tz), np.array(Z))
        close(ta, a, ("learner", k))
    s = np.array(twin.decision_function(X[:20]))
    assert s.shape == (20, 3)
    assert twin.predict(X[:20]) == [twin.classes_[int(np.argmax(v))] for v in s]


# -- golden streams worked by hand -------------------------------------------------------------

def run(learner, X, y):
    r = mbref.run_online(learner, X, y, classes=[-1, 1])
    return r.errors, r.updated


def test_golden_stoptron():
    X = [[1, 0], [0, 1], [-1, 0], [1, 1], [0, -1]]
    y = [1, 1, 1, -1, -1]
    L = mbref.Stoptron(budget=2, kernel="linear")
    # f = 0 (-1: mistake, store), f = 0 (mistake, store), f = -1 (mistake, full: not stored),
    # f = 2 (mistake, not stored), f = -1 (right)
    assert run(L, X, y) == ([True, True, True, True, False], [True, True, False, False, False])
    assert L.support_vectors_ == [[1.0, 0.0], [0.0, 1.0]] and L.dual_coef_ == [1.0, 1.0]
    assert (L.mistakes_, L.updates_, L.n_seen_) == (4, 2, 5)


def test_golden_randomized_budget_perceptron():
    # splitmix64 from seed 0 (Vigna's splitmix64.c): 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4,
    # u = output / 2**64 (top 53 bits): 0.8833..., 0.4315...; budget 2: slots 1, then 0.
    assert NpSplitMix(0).next64() == 0xE220A8397B1DCDAF
    g = SplitMix64(0)
    assert [g.next(), g.next()] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4]
    X = [[1, 0], [0, 1], [-1, 0], [1, 1], [0, 1]]
    y = [1, 1, 1, -1, 1]
    L = mbref.RandomizedBudgetPerceptron(budget=2, kernel="linear", random_state=0)
    # x3: f = -1, a mistake with a full budget: slot floor(2 * 0.883) = 1 <- (x3, +1);
    # x4: f = K(x4, x1) + K(x4, x3) = 1 - 1 = 0, predicted -1: right;
    # x5: f = 0 + 0, a mistake: slot floor(2 * 0.4315) = 0 <- (x5, +1)
    assert run(L, X, y) == ([True, True, True, False, True], [True, True, True, False, True])
    assert L.support_vectors_ == [[0.0, 1.0], [-1.0, 0.0]] and L.dual_coef_ == [1.0, 1.0]


def test_golden_forgetron():
    X = [[1, 0], [0, 1], [1, 1], [0, 1], [1, 0]]
    y = [1, 1, -1, 1, 1]
    L = mbref.Forgetron(budget=2, kernel="linear")
    assert run(L, X, y) == ([True] * 5, [True] * 5)
    # x3 (M = 3): r = x1 (sigma 1), f'(x1) = 1 + 1*0 - 1*1 = 0, mu = 0; Psi(1, 0) = 3 > 45/32:
    # phi^2 + 2 phi = 45/32, phi1 = sqrt(1 + 45/32) - 1; every sigma times phi1; Q = 45/32.
    phi1 = math.sqrt(1 + 45 / 32) - 1
    # x4 (M = 4): f = -phi1 + phi1 = 0, a mistake; r = x2 (sigma phi1), f'(x2) = -phi1*1 +
    # phi1*1 + 1*1 = 1, mu = 1, Psi(phi1, 1) = phi1^2, 45/32 + phi1^2 <= 60/32: phi = 1.
    Q = 45 / 32 + phi1 ** 2
    # x5 (M = 5): f = -phi1, a mistake; r = x3 (y = -1, sigma phi1): f'(x3) = -phi1*2 + 1*1 +
    # 1*1, mu = -(2 - 2 phi1); phi3 the root in (0, 1) of
    # (phi1^2 - 2 phi1 mu) phi^2 + 2 phi1 phi + Q - 75/32.
    mu = -(2 - 2 * phi1)
    A, B, C = phi1 ** 2 - 2 * phi1 * mu, 2 * phi1, Q - 75 / 32
    phi3 = (-B + math.sqrt(B * B - 4 * A * C)) / (2 * A)
    assert 0 < phi3 < 1
    # slots (ring): slot 0 = x5 (+phi3), slot 1 = x4 (1 * phi3); Q = 75/32
    assert L.support_vectors_ == [[1.0, 0.0], [0.0, 1.0]]
    close(L.dual_coef_, [phi3, phi3], "coefficients")
    close([L._m[0].Q], [75 / 32], "Q")
    assert L._m[0].head == 1 and L._m[0].M == 5 and L._m[0].lab == [1, 1]


def test_golden_projectron():
    X = [[1, 0, 0], [2, 0, 0], [0, 1, 0], [1, 1, 0.05], [0, 0, 0.2]]
    y = [1, -1, 1, 1, 1]
    L = mbref.Projectron(eta=0.1, kernel="linear")
    # x1: S empty, delta = ||x1|| = 1 > 0.1: add.  x2: f = 2, d = [2], delta = 0: project,
    # a = 1 - 2 = -1.  x3: f = 0, delta = 1: add (Kinv = I).  x4: f = -1 + 1 = 0, d = [1, 1],
    # delta = sqrt(2.0025 - 2) = 0.05 <= 0.1: project, a = [0, 2].  x5: f = 0, d = [0, 0],
    # delta = 0.2 > 0.1 (the squared distance 0.04 would be <= 0.1): add, Kinv = diag(1, 1, 25).
    assert run(L, X, y) == ([True] * 5, [True] * 5)
    assert L.support_vectors_ == [[1, 0, 0], [0, 1, 0], [0, 0, 0.2]]
    close(L.dual_coef_, [0, 2, 1], "coefficients")
    close(L._m[0].kinv, np.diag([1, 1, 25.0]), "inverse Gram matrix")
    # a mistake on an empty support set within eta of nothing changes nothing
    L = mbref.Projectron(eta=2.0, kernel="linear")
    assert run(L, [[1.0, 0.0]], [1]) == ([True], [False]) and L.n_support_ == 0


def test_golden_projectron_pp():
    X = [[1, 0], [0.5, 0], [0.5, 0.06], [0.4, 0.035], [-1, 0]]
    y = [1, 1, 1, 1, 1]
    L = mbref.ProjectronPP(eta=0.1, kernel="linear")
    # x1: a mistake, add (a = 1).  x2: f = 0.5, a margin error, l = 0.5, P k = x2 (delta 0),
    # N = 0.25: tau = min(2, 1, 4) = 1, a = 1.5.  x3: f = 0.75, l = 0.25 < delta/eta = 0.6:
    # no step.  x4: f = 0.6, l = 0.4, N = 0.16, delta/eta = 0.35: tau = min(2.5, 1,
    # 2 * 0.05 / 0.16 = 0.625) = 0.625 (beta = 0), a = 1.5 + 0.625 * 0.4 = 1.75.
    # x5: f = -1.75, a mistake, d = [-1], delta = 0: project, a = 0.75.
    errors, updated = run(L, X, y)
    assert errors == [True, False, False, False, True]
    assert updated == [True, True, False, True, True]
    assert L.support_vectors_ == [[1.0, 0.0]]
    close(L.dual_coef_, [0.75], "coefficient")


def test_golden_bpa_s():
    X = [[1, 0], [0, 2], [1, 1], [2, 0], [0, 1]]
    y = [1, -1, -1, 1, -1]
    L = mbref.BPA_S(budget=2, C=1.0, kernel="linear")
    # x1: l = 1, tau = min(1, 1/1): a = 1.  x2: f = 0 (right), l = 1, k_tt = 4: a = -0.25.
    # x3: f = 1 - 0.5 = 0.5 (a mistake), l = 1.5, k_tt = 2, tau = 0.75; the removal term
    # a_r^2 (k_rr - k_rt^2 / k_tt): 1 * (1 - 1/2) = 0.5 for x1, 0.0625 * (4 - 4/2) = 0.125 for
    # x2: r = x2, beta = -0.25 * 2 / 2 - 0.75 = -1.  x4: f = 2 - 2 = 0 (a mistake), l = 1,
    # k_tt = 4, tau = 0.25; terms 1 * (1 - 4/4) = 0 for x1, 1 * (2 - 4/4) = 1 for x3: r = x1,
    # beta = 1 * 2 / 4 + 0.25 = 0.75.  x5: f = -1, y f = 1: no loss.
    assert run(L, X, y) == ([True, False, True, True, False], [True, True, True, True, False])
    assert L.support_vectors_ == [[2.0, 0.0], [1.0, 1.0]]
    assert L.dual_coef_ == [0.75, -1.0]


# -- the budget, the generator ---------------------------------------------------------------

MEMORY = [("Stoptron", dict(budget=3)), ("RandomizedBudgetPerceptron", dict(budget=3)),
          ("Forgetron", dict(budget=3)), ("Projectron", dict(eta=0.0, budget=3)),
          ("ProjectronPP", dict(eta=0.05, budget=3)), ("BPA_S", dict(budget=3))]


@pytest.mark.parametrize("name, params", MEMORY, ids=[m[0] for m in MEMORY])
def test_the_budget_holds_after_every_row(name, params):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 4))
    y = np.where(rng.random(150) < 0.5, -1, 1)          # noise: many mistakes
    L = getattr(mbref, name)(**params)
    orig, seen = L._step, []

    def step(x, yi, i):
        out = orig(x, yi, i)
        seen.append(len(L._m[0].sv))
        assert len(L._m[0].sv) <= params["budget"]
        return out
    L._step = step
    L.partial_fit(X, y)
    del L._step
    assert max(seen) == params["budget"] and L.n_support_ <= params["budget"]
    L.fit(X, y)                                          # epochs: the budget still holds
    assert L.n_support_ <= params["budget"]


def test_randomized_budget_perceptron_evicts_by_splitmix64():
    """The slot each eviction overwrites is floor(u * budget) for the generator's draws in
    order, one draw per eviction, the generator persisting across calls."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    y = np.where(rng.random(400) < 0.5, -1, 1)
    B, seed = 7, 12345
    L = mbref.RandomizedBudgetPerceptron(budget=B, random_state=seed)
    orig, evicted = L._step, []

    def step(x, yi, i):
        before = [id(z) for z in L._m[0].sv] if "_m" in vars(L) else []
        out = orig(x, yi, i)
        after = [id(z) for z in L._m[0].sv]
        if len(before) == B and out[1]:
            changed = [s for s in range(B) if before[s] != after[s]]
            assert len(changed) == 1
            evicted.append(changed[0])
        return out
    L._step = step
    for a in range(0, 400, 37):                          # several calls
        L.partial_fit(X[a:a + 37], y[a:a + 37])
    del L._step
    g = NpSplitMix(seed)
    assert len(evicted) > 100
    assert evicted == [int(g.u() * B) for _ in evicted]
    # the same seed replays; another seed evicts otherwise
    again = mbref.RandomizedBudgetPerceptron(budget=B, random_state=seed).partial_fit(X, y)
    assert again.support_vectors_ == L.support_vectors_ and again.dual_coef_ == L.dual_coef_
    other = mbref.RandomizedBudgetPerceptron(budget=B, random_state=seed + 1).partial_fit(X, y)
    assert other.support_vectors_ != L.support_vectors_
    # fit starts the generator again from its seed
    f1 = mbref.RandomizedBudgetPerceptron(budget=B, random_state=seed, max_epochs=3).fit(X, y)
    f2 = mbref.RandomizedBudgetPerceptron(budget=B, random_state=seed, max_epochs=3)
    f2.partial_fit(X[:50], y[:50])
    f2.fit(X, y)
    assert f1.support_vectors_ == f2.support_vectors_ and f1.mistakes_ == f2.mistakes_


def test_twin_generator_is_splitmix64():
    for seed in (0, 1, 2 ** 64 - 1, 987654321):
        a, b = SplitMix64(seed), NpSplitMix(seed)
        assert [a.uniform() for _ in range(500)] == [b.u() for _ in range(500)]


# -- bad input ---------------------------------------------------------------------------------

BIG = 2 ** 62
BAD = [
    ("Stoptron", dict(budget=0), "Stoptron: parameter budget must be an integer in "
     f"[1, {BIG}], got 0"),
    ("RandomizedBudgetPerceptron", dict(budget=-3), "RandomizedBudgetPerceptron: parameter "
     f"budget must be an integer in [1, {BIG}], got -3"),
    ("Forgetron", dict(budget=2.5), f"Forgetron: parameter budget must be an integer in "
     f"[1, {BIG}], got 2.5"),
    ("BPA_S", dict(budget=True), f"BPA_S: parameter budget must be an integer in [1, {BIG}], "
     "got True"),
    ("Projectron", dict(budget=0), "Projectron: parameter budget must be None or an integer "
     f"in [1, {BIG}], got 0"),
    ("Projectron", dict(eta=-0.1), "Projectron: parameter eta must be a finite real >= 0, "
     "got -0.1"),
    ("ProjectronPP", dict(eta=float("nan")), "ProjectronPP: parameter eta must be a finite "
     "real >= 0, got nan"),
    ("BPA_S", dict(budget=5, C=0), "BPA_S: parameter C must be a finite real > 0, got 0"),
    ("BPA_S", dict(budget=5, C=-1.0), "BPA_S: parameter C must be a finite real > 0, got -1.0"),
    ("RandomizedBudgetPerceptron", dict(budget=5, random_state=-1), "RandomizedBudget"
     "Perceptron: parameter random_state must be an integer >= 0, got -1"),
    ("Forgetron", dict(budget=5, kernel="sigmoid"), "Forgetron: parameter kernel must be one "
     "of ['linear', 'poly', 'rbf'], got 'sigmoid'"),
]


@pytest.mark.parametrize("name, params, message", BAD, ids=[f"{b[0]}-{b[2][-12:]}" for b in BAD])
def test_bad_parameters_name_the_class_parameter_and_value(name, params, message):
    L = getattr(mbref, name)(**params)
    with pytest.raises(ValueError) as e:
        L.partial_fit([[0.0, 1.0], [1.0, 0.0]], [1, -1])
    assert str(e.value) == message
    assert L.classes_ is None                            # a failed first call fits nothing


NAMES = ["Stoptron", "RandomizedBudgetPerceptron", "Forgetron", "Projectron", "ProjectronPP",
         "BPA_S"]


@pytest.mark.parametrize("name", NAMES)
def test_nan_rows_and_overflow_leave_the_learner_as_it_was(name):
    params = {} if name.startswith("Projectron") else {"budget": 2}
    L = getattr(mbref, name)(kernel="poly", degree=3, **params)
    twin = getattr(mbref, name)(kernel="poly", degree=3, **params)   # never sees a failure
    X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 2.0]]
    L.partial_fit(X, [1, -1, -1, 1])
    twin.partial_fit(X, [1, -1, -1, 1])
    state = (L.support_vectors_, L.dual_coef_, L.n_seen_, L.mistakes_, L.updates_)
    with pytest.raises(ValueError) as e:
        L.partial_fit([[1.0, 0.5], [float("nan"), 1.0]], [1, -1])
    assert str(e.value) == f"{name}: X contains NaN or infinity in row 1"
    if "budget" in params:
        assert L.n_support_ == 2                          # full: a mistake now evicts
    wrong = -L.predict([[-1.0, 0.5]])[0]                  # row 0 a mistake, an update
    with pytest.raises(ValueError) as e:                  # row 1 overflows the polynomial
        L.partial_fit([[-1.0, 0.5], [1e200, 1e200]], [wrong, 1])
    assert str(e.value).startswith(f"{name}: NaN, infinity or an overflow in row 1")
    assert (L.support_vectors_, L.dual_coef_, L.n_seen_, L.mistakes_, L.updates_) == state
    # and it goes on as the learner that never saw the failed calls (the generator included)
    more = [[-1.0, 0.5], [0.5, -2.0], [2.0, 0.5], [-0.5, -0.5], [1.5, -1.0]] * 3
    labels = [1, 1, -1, 1, -1] * 3
    L.partial_fit(more, labels)
    twin.partial_fit(more, labels)
    assert (L.support_vectors_, L.dual_coef_, L.mistakes_) == \
        (twin.support_vectors_, twin.dual_coef_, twin.mistakes_)
    with pytest.raises(TypeError, match=f"{name}: sample_weight is not supported"):
        L.partial_fit(X, [1, -1, -1, 1], sample_weight=[1.0] * 4)


def test_parameters_fixed_by_the_state():
    L = mbref.Forgetron(budget=3).partial_fit([[0.0, 1.0], [1.0, 0.0]], [1, -1])
    L.budget = 4
    with pytest.raises(ValueError, match="Forgetron: parameter budget was changed to 4 after "
                                         "fitting"):
        L.partial_fit([[0.0, 1.0]], [1])
    P = mbref.Projectron().partial_fit([[0.0, 1.0], [1.0, 0.0]], [1, -1])
    P.gamma = 2.0                                        # K_S^-1 holds the kernel's values
    with pytest.raises(ValueError, match="Projectron: parameter gamma was changed to 2.0"):
        P.predict([[0.0, 1.0]])
    P.gamma, P.eta = None, 0.5                           # eta may change
    P.partial_fit([[0.0, 1.0]], [1])


@pytest.mark.parametrize("name", NAMES)
def test_decision_function_sign_matches_predict(name):
    """scikit-learn's reading of a binary score: decision_function > 0 exactly where predict
    gives classes_[1], < 0 where classes_[0], and 0 (the default tie, "negative") classes_[0];
    on the rows learned and on fresh rows, after each of several calls."""
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(120, 4)) * 2) / 2
    X[rng.random(X.shape) < 0.3] = 0.0
    y = np.where(X @ rng.normal(size=4) + 0.5 * rng.normal(size=120) > 0, "yes", "no")
    L = getattr(mbref, name)(budget=6) if name != "Projectron" and name != "ProjectronPP" \
        else getattr(mbref, name)(budget=6, eta=0.1)
    for a in range(0, 120, 40):
        L.partial_fit(X[a:a + 40].tolist(), y[a:a + 40].tolist(), classes=["no", "yes"])
        rows = X[:a + 40].tolist() + np.round(rng.normal(size=(20, 4)), 1).tolist()
        df, pred = L.decision_function(rows), L.predict(rows)
        for s, p in zip(df, pred):
            assert p == (L.classes_[1] if s > 0 else L.classes_[0]), (s, p)
