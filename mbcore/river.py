"""mbcore's learners as river classifiers (``river.base.Classifier``).

river (https://riverml.xyz) learns from one example at a time, a dict ``{feature: value}``:
``learn_one(x, y)`` and ``predict_one(x)``.  Every mbcore learner whose rule does not depend
on the number of features (its tag ``dict_features`` is ``"grow"``: the additive family) has a
river classifier of the same name here, with the same parameters (but ``max_epochs``,
``n_jobs`` and ``multi_class``, which are about batches and K >= 3 classes), plus
``classes``.  It runs the
learner's own one-example path (``learn_one`` on dicts: the same results, bit for bit, as
``partial_fit`` on the rows as a matrix whose columns are the names in order of arrival), so
a river pipeline gets the compiled kernels.

:class:`SelectiveSampler` is river's active learning (``river.active``) on top of
:class:`mbcore.SelectiveSampler`: ``predict_one(x)`` gives ``(label, ask)``, the coin drawn as
the compiled pass draws it, so a river loop asks for the rows ``run_online`` asks for.

river is an optional dependency (``pip install 'mbcore[river]'``): importing this module
imports river; importing mbcore never does.

Labels, as river's classifiers take them, as they arrive:

* with ``classes`` given (two labels or more: with three or more the learner is the
  multi-class one, as :class:`mbcore.Perceptron` is on K classes), or bool labels (river's usual
  for binary tasks: the classes are ``False`` and ``True``), the learner starts at the first
  example;
* otherwise the first examples, while only one label has been seen, are kept (copied) and
  predicted as that label; when a second label arrives the learner starts with the two,
  sorted (the second is the positive class), and learns the kept examples first, so the state
  is the one ``classes=`` would have given.

A label that arrives after the learner has started is refused (ValueError naming
``classes=``; the learner is left as it was): a learner that took a new class on the way would
not be the learner that knew it from the start, for none of these rules.  A class that was
never the label still takes part in every prediction (its score, zero until it is predicted,
can win), and two classes keep the binary rule while three or more keep one weight vector
per class.  So give every label of a multi-class stream up front: ``classes=[...]``.

Before any example ``predict_one`` returns None, as river's classifiers do.  These learners
predict labels, not probabilities: they have no ``predict_proba_one`` (``hasattr`` is False),
and a metric that needs probabilities (``metrics.ROCAUC``, ``metrics.LogLoss``) says so when
it asks (an AttributeError that is also river's NotImplementedError, which its
``check_estimator`` allows).

The defaults are those of river's linear models: ``fit_intercept=True`` (river's
``linear_model.Perceptron`` and ``PAClassifier`` learn an intercept); the other parameters
keep the mbcore learner's defaults.

Examples
--------
Progressive validation (predict, then learn) on river's bundled phishing stream (1,250
examples; the first prediction, None, is not scored by river):

>>> from river import datasets, evaluate, metrics
>>> from mbcore.river import Perceptron
>>> model = Perceptron()                     # (fit_intercept=True, as river's)
>>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
Accuracy: 84.39%
>>> model.learner.mistakes_, list(model.learner.feature_names_in_)[:2]
(196, ['empty_server_form_handler', 'popup_window'])
"""

import inspect as _inspect

try:
    from river import active as _river_active, base as _river_base
except ImportError as exc:        # river is optional
    raise ImportError("mbcore.river needs river (https://riverml.xyz): pip install "
                      f"'mbcore[river]' ({exc})") from exc

from ._kernels.names import LearnOne as _LearnOne, PredictOne as _PredictOne
from ._one import NoProbabilities as _NoProbabilities, no_proba_message as _no_proba
from . import selective as _selective
from .base import all_learners as _all_learners

__all__ = []        # filled below: one class per learner that grows with new names

# parameters of the mbcore learners that are about batches or K >= 3 classes
_SKIP = ("max_epochs", "n_jobs", "multi_class")


class _Classifier(_river_base.Classifier):
    """The river classifier of an mbcore learner (see the module's docstring)."""

    _LEARNER: type = type(None)     # the mbcore class (set per class)
    _PARAMS: tuple = ()             # its parameters kept here

    @property
    def _multiclass(self):
        # (river's word for "takes a multi-class stream": with three labels or more given;
        # without classes a third label is refused, see the module's docstring)
        cl = self.__dict__.get("classes")
        return cl is not None and len(set(cl)) > 2

    @property
    def predict_proba_one(self):
        """Absent: these learners predict labels, not probabilities (``hasattr`` is False;
        see the module's docstring)."""
        raise _NoProbabilities(_no_proba(f"mbcore.river.{type(self).__name__}"))

    @classmethod
    def _unit_test_params(cls):
        """The parameter sets of the mbcore class's contract tests that apply here (those under
        which the learner grows with new names: not the voted Perceptron)."""
        for p in cls._LEARNER._unit_test_params():
            p = {k: v for k, v in p.items() if k in cls._PARAMS}
            if cls._LEARNER(**p)._dict_mode() == "grow":
                yield p

    def _init(self, params):
        for k, v in params.items():
            setattr(self, k, v)
        self._learner = None
        self._pending = []          # (x, y) while only one label has been seen

    @property
    def learner(self):
        """The mbcore learner (None until it has started: see the module's docstring)."""
        return self._learner

    def learn_one(self, x, y):
        lrn = self._learner
        if lrn is not None:
            lrn.learn_one(x, y)
            return
        if self.classes is not None or isinstance(y, bool) or type(y).__name__ == "bool_":
            classes = self.classes if self.classes is not None else [False, True]
            new = self._LEARNER(**{k: getattr(self, k) for k in self._PARAMS})
            new.learn_one(x, y, classes=classes)
            self._started(new)
            return
        if not isinstance(x, dict):
            raise TypeError(f"{type(self).__name__}: x must be a dict {{feature name: value}}, "
                            f"got {type(x).__name__}")
        if not self._pending or y == self._pending[0][1]:
            self._pending.append((dict(x), y))
            return
        classes = sorted([self._pending[0][1], y])
        new = self._LEARNER(**{k: getattr(self, k) for k in self._PARAMS})
        first = True
        for xi, yi in self._pending + [(x, y)]:
            new.learn_one(xi, yi, classes=classes if first else None)
            first = False
        self._started(new)
        self._pending = []

    def _started(self, learner):
        self._learner = learner
        # learn_one and predict_one go straight to the learner's compiled step from now on
        # (no Python call in between: the learner's methods are this class's once it has
        # started; learn_one returns None, as river's do)
        self.predict_one = _PredictOne(learner)
        self.learn_one = _LearnOne(learner)

    def predict_one(self, x, **kwargs):
        lrn = self._learner
        if lrn is not None:
            return lrn.predict_one(x)
        if not isinstance(x, dict):
            raise TypeError(f"{type(self).__name__}: x must be a dict {{feature name: value}}, "
                            f"got {type(x).__name__}")
        return self._pending[0][1] if self._pending else None


_DOC = """{name} (:class:`mbcore.{name}`) as a river classifier.

    Parameters
    ----------
    {params}
        As for :class:`mbcore.{name}`{intercept}.
    classes : list of labels, optional
        Every label of the stream (two or more; three or more: the multi-class learner), when
        they are not bool labels and should not be learned as they arrive.  Without it, the
        learner starts at the second label, with two classes, and refuses a third (see
        :mod:`mbcore.river`).

    Attributes
    ----------
    learner : mbcore.{name} or None
        The mbcore learner, once it has started (``coef_``, ``mistakes_``,
        ``feature_names_in_``, ...).

    Examples
    --------
    >>> from river import datasets
    >>> from mbcore.river import {name}
    >>> model = {name}()
    >>> for x, y in datasets.Phishing().take(200):
    ...     model.learn_one(x, y)
    >>> model.learner.n_seen_, model.learner.n_features_in_
    (200, 9)
    """


# defaults that differ from the mbcore learner's: river's linear models learn an intercept
_DEFAULTS = {"fit_intercept": True}


def _river_class(cls):
    sig = _inspect.signature(cls.__init__)
    params = [p.replace(default=_DEFAULTS[k]) if k in _DEFAULTS else p
              for k, p in sig.parameters.items() if k != "self" and k not in _SKIP]
    names = tuple(p.name for p in params)
    full = sig.replace(parameters=[sig.parameters["self"], *params,
                                   _inspect.Parameter("classes", _inspect.Parameter.KEYWORD_ONLY,
                                                      default=None)])

    def __init__(self, *args, **kwargs):
        bound = full.bind(self, *args, **kwargs)
        bound.apply_defaults()
        self._init({k: v for k, v in bound.arguments.items() if k != "self"})

    __init__.__signature__ = full
    __init__.__qualname__ = f"{cls.__name__}.__init__"
    ns = {"__init__": __init__, "_LEARNER": cls, "_PARAMS": names, "__module__": __name__,
          "__qualname__": cls.__name__,
          "__doc__": _DOC.format(name=cls.__name__, params=", ".join(names),
                                 intercept=" (but ``fit_intercept=True`` by default, as river's "
                                 "linear models)" if "fit_intercept" in names else "")}
    return type(cls.__name__, (_Classifier,), ns)


for _name, _cls in _all_learners():
    if _cls._TAGS.dict_features == "grow":
        globals()[_name] = _river_class(_cls)
        __all__.append(_name)
del _name, _cls


# -- selective sampling: river's active learning ----------------------------------------------

class SelectiveSampler(_river_active.base.ActiveLearningClassifier):
    """:class:`mbcore.SelectiveSampler` as a river active learner (``river.active``):
    ``predict_one(x)`` gives ``(label, ask)``, and ``learn_one(x, y)`` learns the label.

    The rule is Cesa-Bianchi, Gentile & Zaniboni (2006): the learner's score p of the row
    gives its prediction, and a coin with heads probability b / (b + abs(p)) (with three
    classes or more, the gap between the two highest scores) says whether to ask for its
    label.  The coin is drawn in ``predict_one``, one draw per row from the seeded splitmix64
    generator, exactly as the compiled pass of :meth:`mbcore.SelectiveSampler.run_online`
    draws it: a river loop that predicts each row and learns the asked ones (river's
    ``evaluate.progressive_val_score`` does) asks for the same rows, predicts the same labels
    and ends with the same learner as ``run_online`` on the rows as a matrix whose columns
    are the names in order of arrival.  The expected mistake bound of the paper's Theorem 1
    is :func:`mbcore.bounds.selective_sampling_bound`.

    Parameters
    ----------
    classifier : a classifier of this module, default=None
        The learner that is trained: ``Perceptron``, ``MarginPerceptron``, ``OnlineHingeSVM``,
        ``PassiveAggressive`` or a second-order learner (``SecondOrderPerceptron``, ``AROW``,
        ``ConfidenceWeighted``, ``SCW``, ``NHERD``, ``NAROW``), with its parameters and its
        ``classes``; it is not trained itself (the sampler trains its own).  None:
        ``Perceptron()`` (with an intercept, as river's).
    b : float > 0, default=1.0
        The query parameter: the smaller, the fewer labels asked.
    adaptive : bool, default=False
        The paper's adaptive variant (b scaled by the largest squared norm of a row so far
        and the square root of one plus the learner's updates).
    seed : int >= 0, default=0
        The seed of the generator.
    query : {"margin", "bbq"}, default="margin"
        The coin, or BBQ's query (``kappa``; the classifier a ``SecondOrderPerceptron`` with
        ``covariance="full"``; None: the full second-order Perceptron updating on every asked
        row): see :class:`mbcore.SelectiveSampler`.
    kappa : float in [0, 1], default=0.5

    Labels: the classifier's ``classes`` (every label of the stream: two, or three or more),
    else bool labels (the classes are False and True): the learner starts at the first row,
    as ``run_online`` starts with its classes.  With three classes or more the second-order
    learners are sampled one-vs-rest (``multi_class="ovr"``), the others keep their rule.  A
    label outside them is refused (ValueError, the sampler left as it was).

    ``learn_one`` learns the row given: after ``predict_one`` of the same row, its step as
    the compiled pass takes an asked row; a label given for a row the coin did not ask, or
    for a row not predicted, is learned too and counted as a label asked (river's
    active-learning protocol lets the caller decide).

    Attributes
    ----------
    sampler : mbcore.SelectiveSampler
        The sampler (``labels_asked_``, ``mistakes_``, ``n_seen_``, ``save``, ...).
    learner : the mbcore learner trained, or None before the first row

    Examples
    --------
    >>> from river import datasets
    >>> from mbcore.river import SelectiveSampler
    >>> model = SelectiveSampler(b=0.5)
    >>> mistakes = 0
    >>> for x, y in datasets.Phishing():
    ...     y_pred, ask = model.predict_one(x)
    ...     mistakes += y_pred != y
    ...     if ask:
    ...         model.learn_one(x, y)
    >>> model.sampler.n_seen_, model.sampler.labels_asked_ < 1250 // 2, mistakes < 250
    (1250, True, True)
    """

    def __init__(self, classifier=None, b=1.0, adaptive=False, seed=0, query="margin",
                 kappa=0.5):
        self.classifier = classifier
        self.b = b
        self.adaptive = adaptive
        self.seed = seed
        self.query = query
        self.kappa = kappa
        self._S = None          # the mbcore sampler (built at the first row)
        self._last = None       # (x, code, asked) of the row predict_one saw last

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"classifier": PassiveAggressive(C=0.5), "b": 0.1, "adaptive": True, "seed": 3}

    @property
    def _wrapped_model(self):
        return self._classifier()

    @property
    def _multiclass(self):
        cl = self._classifier().classes
        return cl is not None and len(set(cl)) > 2

    @property
    def predict_proba_one(self):
        """Absent: the sampler's learners predict labels, not probabilities (``hasattr`` is
        False)."""
        raise _NoProbabilities(_no_proba("mbcore.river.SelectiveSampler"))

    def _ask_for_label(self, x, y_pred):
        raise NotImplementedError("SelectiveSampler draws its coin in predict_one")

    def _classifier(self):
        c = self.classifier
        if c is None:
            return Perceptron()
        takes = _selective._TAKES
        if not isinstance(c, _Classifier) or c._LEARNER not in takes:
            raise TypeError("SelectiveSampler: parameter classifier must be one of "
                            f"{[t.__name__ for t in takes]} of mbcore.river (a linear "
                            f"learner), got {type(c).__module__}.{type(c).__name__}")
        return c

    def _sampler(self):
        S = self._S
        if S is None:
            c = self._classifier()
            self._given = c.classes is not None
            self._cl = list(c.classes) if self._given else [False, True]
            seed = self.seed
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise ValueError(f"SelectiveSampler: parameter seed must be an integer >= 0, "
                                 f"got {seed!r}")
            params = {k: getattr(c, k) for k in c._PARAMS}
            if self._multiclass and c._LEARNER in _selective._OVR_ONLY:
                params["multi_class"] = "ovr"       # (sampled one-vs-rest only)
            # (BBQ without a classifier: the sampler's own, the full second-order Perceptron)
            learner = None if self.classifier is None and self.query == "bbq" else \
                c._LEARNER(**params)
            S = _selective.SelectiveSampler(learner, b=self.b, adaptive=self.adaptive,
                                            random_state=seed, query=self.query,
                                            kappa=self.kappa)
            S._validate_params()
            self._S = S
        else:           # (b, adaptive and kappa are read at every row, as the sampler's)
            S.b, S.adaptive, S.kappa = self.b, self.adaptive, self.kappa
        return S

    @property
    def sampler(self):
        """The mbcore sampler (None before the first row)."""
        return self._S

    @property
    def learner(self):
        """The mbcore learner trained (None before the first row)."""
        S = self._S
        return None if S is None or not S._is_fitted() else S.learner_

    def predict_one(self, x, **kwargs):
        """``(label, ask)``: the learner's prediction of ``x`` and the coin's answer (one draw
        of the generator per call)."""
        S = self._sampler()
        label, ask, code = S._ask_one(x, self._cl)
        self._last = (dict(x), code, ask)
        return label, ask

    def learn_one(self, x, y, **kwargs):
        """Learn ``x`` with its label ``y`` (see the class)."""
        S = self._sampler()
        if not self._given and type(y).__name__ not in ("bool", "bool_"):
            raise ValueError(f"SelectiveSampler: the label {y!r} is not a bool and the "
                             "classifier was given no classes; give every label of the "
                             "stream up front: SelectiveSampler(Perceptron(classes=[...]))")
        last = self._last
        if last is not None and last[0] == x:
            S._learn_one(x, y, self._cl, last[1], last[2])
        else:
            S._learn_one(x, y, self._cl, None, False)
        self._last = None           # (kept when the call failed: it may be given again)


__all__.append("SelectiveSampler")
