"""The docstring pieces the second-order learners share (:mod:`mbcore.second_order`): the
family's conventions, the K-class forms, the parameters' lines, the examples' data."""

_COMMON_DOC = """Conventions of the family (the twin ``mbref.second_order`` states them too):

    * ``D = d`` coordinates, ``d + 1`` with ``fit_intercept`` (the intercept is coordinate d,
      its input the constant 1.0); the score is s = w . x (+ w[d]), the intercept added last.
    * Prediction: +1 iff the score is > 0, or == 0 with ``tie="positive"`` (default
      "negative": a score of exactly 0, e.g. the first example, predicts the first class).
    * m = y s is the margin, v = x' Sigma x' the confidence (x' = x, with 1.0 appended for the
      intercept).
    * ``covariance="diagonal"`` keeps D variances (the diagonal form); ``"full"`` a D x D
      matrix, refused when all the learner's matrices would hold more than 2**27 entries
      (1 GiB), with a message naming ``covariance="diagonal"``.  A diagonal variance never
      goes below a * 2**-52 (the initial one times the machine epsilon: without this floor
      the exact CW step drove variances to 0 within one pass over a9a and then stopped on a
      finite row).
    * A row whose score, confidence or update is not finite raises ValueError naming the row;
      the learner is left as before the call (every call is all or nothing)."""

_K_DOC = """Three classes or more (``classes_`` sorted; every argmax takes the smallest index among
    ties):

    * ``multi_class="multiclass"`` (the default): the single-constraint form of Crammer,
      Dredze & Kulesza 2009 ("Multi-class confidence weighted algorithms"), diagonal only:
      one mean and one variance vector per class; r = the best wrong class, m = s_y - s_r,
      v = v_y + v_r, and the binary rule's step on (m, v) moves w_y by +alpha Sigma_y x and
      w_r by -alpha Sigma_r x and shrinks both classes' variances with the same c.  With
      ``covariance="full"`` it is refused (one (K D) x (K D) matrix), naming
      ``covariance="diagonal"`` and ``multi_class="ovr"``.
    * ``multi_class="ovr"``: learner k is the binary learner on +1 iff y is class k, with its
      own mean and covariance (diagonal or full); the prediction is the argmax of their
      scores, each taken before its own step."""

_EXAMPLE = """>>> from mbcore.datasets import load_a9a
    >>> X, y = load_a9a()                      # UCI Adult: 32561 x 123 indicators"""

_A_PARAM = """a : float > 0, default=1.0
        The initial covariance, Sigma_0 = a I."""

_TAIL = """covariance : {"diagonal", "full"}, default="diagonal"
    tie : {"negative", "positive"}, default="negative"
    fit_intercept : bool, default=False
    max_epochs : int, default=100
    %s
    n_jobs : int or None, default=None
        Checked as the linear learners' (the pass runs on one thread)."""

_PARAMS = _TAIL % 'multi_class : {"multiclass", "ovr"}, default="multiclass"'
_DUAL_PARAMS = _TAIL % ('multi_class : {"ovr", "multiclass"}, default="ovr"\n'
                        '        "multiclass" is refused with three classes or more.')
_CLASS_WEIGHT_PARAM = """class_weight : dict, "balanced" or None, default=None
        As for :class:`PassiveAggressive`: multiplies each row's sample weight."""
_ATTRS = """Attributes
    ----------
    coef_, intercept_, covariance_, mistakes_, updates_, n_seen_, classes_, n_features_in_"""
_PIECES = dict(_COMMON_DOC=_COMMON_DOC, _K_DOC=_K_DOC, _EXAMPLE=_EXAMPLE, _A_PARAM=_A_PARAM,
               _PARAMS=_PARAMS, _DUAL_PARAMS=_DUAL_PARAMS,
               _CLASS_WEIGHT_PARAM=_CLASS_WEIGHT_PARAM, _ATTRS=_ATTRS)
