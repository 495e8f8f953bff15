"""Exact attributions (twin of mbcore.explain; see that module for the documentation).

The score of an additive learner splits over the features (``w_i x_i``, the intercept ``b``)
and, with its record of updates, over the past examples (``c_j (<x_j, x> + [intercept])``,
summed per example, plus ``w_start . x``); then the learner's last step (``* multiplier``,
``/ divisor``).  Every product is rounded once and every sum is exact (``math.fsum``), so
mbcore computes the same floats.
"""

import math

__all__ = ["Explanation", "explain"]

_EPS = 2.0 ** -52


def _post(v, multiplier, divisor):
    if multiplier is not None:
        v = v * multiplier
    if divisor is not None:
        v = v / divisor if divisor > 0.0 else 0.0
    return v


class Explanation:
    """The parts of one row's score (twin of mbcore.Explanation): lists where mbcore has
    arrays; per class, ``feature_parts[i][k]`` and ``example_parts[e][k]``."""

    def __init__(self, learner, prediction, score, classes, feature_parts, intercept_part,
                 feature_names=None, multiplier=None, divisor=None, extra=None):
        self.learner = learner
        self.prediction = prediction
        self.score = score
        self.classes = classes
        self.feature_parts = feature_parts
        self.intercept_part = intercept_part
        self.feature_names = feature_names
        self.multiplier = multiplier
        self.divisor = divisor
        self.start_part = None
        self.example_indices = None
        self.example_parts = None
        self._example_mass = None
        self._n_updates = 0
        self.extra = {} if extra is None else extra

    def _multi(self):
        return isinstance(self.score, list)

    def _columns(self, rows, first):
        """Per class k: [first[k]] + [row[k] for row in rows] (one column when binary)."""
        if not self._multi():
            return [[first] + list(rows)]
        return [[first[k]] + [r[k] for r in rows] for k in range(len(self.score))]

    def _finish(self, sums, divisor):
        if not self._multi():
            return _post(sums[0], self.multiplier, divisor)
        return [_post(s, self.multiplier, divisor[k] if isinstance(divisor, list) else divisor)
                for k, s in enumerate(sums)]

    def _raw_total(self):
        cols = self._columns(self.feature_parts, self.intercept_part)
        return [math.fsum(c) for c in cols]

    def feature_score(self):
        return self._finish(self._raw_total(), self.divisor)

    def example_score(self):
        if self.example_parts is None:
            return None
        cols = self._columns(self.example_parts, self.start_part)
        return self._finish([math.fsum(c) for c in cols], self.divisor)

    def _scale(self, v, k):
        v = abs(v)
        if self.multiplier is not None:
            v = v * abs(self.multiplier)
        if self.divisor is not None:
            d = self.divisor[k] if isinstance(self.divisor, list) else self.divisor
            v = v / d if d > 0.0 else 0.0
        return v

    def bounds(self):
        out = {}
        score = self.score if self._multi() else [self.score]
        n_f = len(self.feature_parts) + 1
        cols = self._columns(self.feature_parts, self.intercept_part)
        fs = self.feature_score()
        fs = fs if self._multi() else [fs]
        out["features"] = (max(abs(a - b) for a, b in zip(fs, score)),
                           max((n_f + 3) * _EPS * self._scale(math.fsum(abs(v) for v in c), k)
                               for k, c in enumerate(cols)))
        if self.example_parts is not None:
            es = self.example_score()
            es = es if self._multi() else [es]
            mass = self._example_mass if self._multi() else [self._example_mass]
            out["examples"] = (max(abs(a - b) for a, b in zip(es, score)),
                               max((n_f + self._n_updates + 3) * _EPS * self._scale(m, k)
                                   for k, m in enumerate(mass)))
        return out

    def check(self):
        return all(err <= bound for err, bound in self.bounds().values())

    def _top(self, labels, parts, k, cls):
        multi = self._multi()
        if multi:
            if cls is None:
                cls = max(range(len(self.score)), key=lambda j: (self.score[j], -j))
            vals = [p[cls] for p in parts]
            total = self._raw_total()[cls]
        else:
            vals = list(parts)
            total = self._raw_total()[0]
        order = sorted(range(len(vals)), key=lambda i: -abs(vals[i]))[:k]   # (stable)
        return [(labels[i], vals[i], vals[i] / total if total != 0.0 else math.nan)
                for i in order]

    def top_features(self, k=10, cls=None):
        names = self.feature_names if self.feature_names is not None else \
            list(range(len(self.feature_parts)))
        return self._top(names, self.feature_parts, k, cls)

    def top_examples(self, k=10, cls=None):
        if self.example_parts is None:
            return []
        return self._top(list(self.example_indices), self.example_parts, k, cls)

    def to_dict(self, k=10):
        out = {"learner": self.learner, "prediction": self.prediction, "score": self.score,
               "classes": list(self.classes)}
        if self.feature_parts is not None:
            out["intercept_part"] = self.intercept_part
            out["top_features"] = [list(t) for t in self.top_features(k)]
        if self.example_parts is not None:
            out["start_part"] = self.start_part
            out["top_examples"] = [list(t) for t in self.top_examples(k)]
        out["bounds"] = {n: list(v) for n, v in self.bounds().items()}
        out["extra"] = dict(self.extra)
        return out


def _row(learner, x, name="x"):
    o = type(learner).__name__
    v = x.tolist() if hasattr(x, "tolist") else list(x)
    if len(v) == 1 and isinstance(v[0], (list, tuple)):
        v = list(v[0])
    d = learner.n_features_in_
    if len(v) != d:
        raise ValueError(f"{o}: parameter {name} must be one row of {d} features (the fitted "
                         f"width), got {len(v)} values")
    v = [float(a) for a in v]
    if not all(math.isfinite(a) for a in v):
        raise ValueError(f"{o}: parameter {name} contains NaN or infinity")
    return v


def additive(learner, x, X_train):
    """The Explanation of a twin additive learner (mbcore.explain._additive)."""
    o = type(learner).__name__
    learner._check_fitted("explain")
    xd = _row(learner, x)
    score = learner.decision_function([xd])[0]
    prediction = learner.predict([xd])[0]
    coef, icpt = learner.coef_, learner.intercept_
    multi = isinstance(score, list)
    if multi:
        parts = [[c[i] * xd[i] for c in coef] for i in range(len(xd))]
        icpt = [float(b) for b in icpt]
    else:
        parts = [c * v for c, v in zip(coef, xd)]
        icpt = float(icpt)
    multiplier, divisor = learner._explain_post(xd)
    names = learner.__dict__.get("_feature_names")
    e = Explanation(o, prediction, score, list(learner.classes_), parts, icpt,
                    feature_names=None if names is None else list(names),
                    multiplier=multiplier, divisor=divisor)
    rec = learner._explain_record()
    if X_train is None:
        return e
    if rec is None:
        if "record_updates" not in learner.get_params():
            raise ValueError(f"{o}: parameter X_train was given, but {o} keeps no record of "
                             "its updates (its updates do not split into one coefficient per "
                             "example): explain it without X_train, over the features")
        raise ValueError(f"{o}: parameter X_train was given, but the learner did not record "
                         "its updates (construct it with record_updates=True and fit it again)")
    _example_parts(learner, e, xd, X_train, rec, multi)
    return e


def _example_parts(learner, e, xd, X_train, rec, multi):
    start, idx, cf, ci, cls, rows, extra = rec
    o = type(learner).__name__
    d = learner.n_features_in_
    K = len(learner.classes_) if multi else 1
    icpt = bool(learner.fit_intercept)
    if ci is None:
        ci = cf
    A = X_train.tolist() if hasattr(X_train, "tolist") else \
        (X_train.toarray().tolist() if hasattr(X_train, "toarray") else X_train)
    need = max(rows) + 1 if rows else 0
    if len(A) < need:
        raise ValueError(f"{o}: parameter X_train has {len(A)} rows, but the record of "
                         f"updates names row {need - 1} (X_train must hold every row the "
                         "learner learned from, in order)")
    dot, adot = {}, {}
    for r in sorted(set(rows)):
        # (the non-zero values only, as mbcore's CSR rows: the exact sums are the same)
        dot[r] = math.fsum(float(a) * b for a, b in zip(A[r], xd) if a != 0.0)
        adot[r] = math.fsum(abs(float(a)) * abs(b) for a, b in zip(A[r], xd) if a != 0.0)
    # start: flat, feature-major (D * K), as mbcore keeps W
    sp = [math.fsum([start[i * K + k] * xd[i] for i in range(d)] +
                    ([start[d * K + k]] if icpt else [])) for k in range(K)]
    sm = [math.fsum([abs(start[i * K + k]) * abs(xd[i]) for i in range(d)] +
                    ([abs(start[d * K + k])] if icpt else [])) for k in range(K)]
    terms, mass = {}, [[v] for v in sm]
    for t, (r, c, b) in enumerate(zip(rows, cf, ci)):
        k = 0 if cls is None else cls[t]
        terms.setdefault((r, k), []).extend((c * dot[r], b) if icpt else (c * dot[r],))
        mass[k].extend((abs(c) * adot[r], abs(b)) if icpt else (abs(c) * adot[r],))
    uniq = sorted({r for r, _ in terms})
    at = {r: n for n, r in enumerate(uniq)}
    parts = [[0.0] * K for _ in uniq]
    for (r, k), v in terms.items():
        parts[at[r]][k] = math.fsum(v)
    e.example_indices = uniq
    if multi:
        e.start_part, e.example_parts = sp, parts
        e._example_mass = [math.fsum(m) for m in mass]
    else:
        e.start_part, e.example_parts = sp[0], [p[0] for p in parts]
        e._example_mass = math.fsum(mass[0])
    e._n_updates = len(idx) + extra


def explain(learner, x, X_train=None):
    """Split a fitted twin learner's score of one row (twin of mbcore.explain)."""
    how = getattr(type(learner), "_explanation", None)
    if how is None:
        raise TypeError(f"{type(learner).__name__}: this learner has no explanation (explain "
                        "splits the scores of the additive learners and of the families that "
                        "define one)")
    return how(learner, x, X_train)
