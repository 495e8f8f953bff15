"""The ``mbcore queries`` command group: learning with queries on seeded random targets.

``mbcore queries graph``
    Learn a seeded random hidden graph with edge-detecting queries
    (:func:`mbcore.queries.learn_graph`) and print the queries against their bounds.
``mbcore queries coin``
    Find seeded random defectives (the heavy coin when there is one) by group testing
    (:func:`mbcore.queries.find_defective`, :func:`mbcore.queries.find_defectives`).
``mbcore queries dfa``
    Learn a seeded random minimal DFA with Angluin's L* and an exact equivalence oracle
    (:func:`mbcore.queries.run_dfa_demo`) and print its queries against their bounds.

A new subcommand of the group is one ``_add_..._parser(qsub)`` function registered in
:func:`add_queries_parsers` and its handler; nothing else here needs to change.

Exit status: 0; 2 for a usage error (a missing subcommand, an unknown option, any option's
value out of its range, alone or against another option); 3 when a run exceeds a bound whose
assumptions hold or learns a wrong target (a bug in mbcore).  The sizes have upper limits that
keep a demonstration within about a minute and well within memory (``_MAX_STATES``,
``_MAX_VERTICES``, ``_MAX_EDGES``, ``_MAX_ITEMS``); a larger size is a usage error naming the
limit.
"""

import json
import math
import time

from ._cli_common import UsageError, emit

__all__ = ["add_queries_parsers", "QueriesBugFound"]

_GRAPH_METHODS = ("adaptive", "counting", "five_round")
_LETTERS = 26             # the alphabet: a, b, ..., z
_MAX_STATES = 20_000      # dfa --states: L* (Rivest-Schapire) on 20,000 states: about 9 s
_MAX_VERTICES = 20_000    # graph --n: five_round keeps an n x n bit matrix (50 MB at 20,000)
_MAX_EDGES = 10_000       # graph --m: the three methods on 5,000 edges: about 20 s
_MAX_ITEMS = 1_000_000    # coin --n: the run keeps every group it tests (0.6 GB at 10^6)


class QueriesBugFound(Exception):
    """A query learner exceeded its bound or learned a wrong target (exit status 3)."""


def add_queries_parsers(sub):
    """Add ``mbcore queries`` and its subcommands to the top-level subparsers ``sub``."""
    p = sub.add_parser("queries", help="learning with queries on seeded random targets "
                                       "(dfa, graph, coin)",
                       description="Learning with queries: run a learner on a seeded random "
                                   "target and print the queries it asked against its bound.")
    qsub = p.add_subparsers(dest="queries_command", metavar="SUBCOMMAND",
                            parser_class=type(p))
    _add_dfa_parser(qsub)
    _add_graph_parser(qsub)
    _add_coin_parser(qsub)
    p.set_defaults(handler=_cmd_queries_missing)


def _cmd_queries_missing(args):
    raise UsageError("a subcommand is required: mbcore queries dfa, mbcore queries graph or "
                     "mbcore queries coin (see mbcore queries --help)")


def _nonnegative_int(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        import argparse
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


def _int_from(lo, hi, why=""):
    """An argparse type: an integer in [lo, hi]; ``why`` says where the upper limit comes
    from."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not lo <= value <= hi:
            import argparse
            raise argparse.ArgumentTypeError(
                f"expected an integer from {lo} to {hi:,}{why}, got {text!r}")
        return value
    return parse


# -- mbcore queries dfa --------------------------------------------------------------------------

_PROCESSING = ("rivest-schapire", "angluin", "suffixes")


def _add_dfa_parser(qsub):
    p = qsub.add_parser(
        "dfa", help="learn a seeded random minimal DFA with L*",
        description="Draw a random minimal DFA with the given number of states over the first "
                    "letters of the alphabet (seeded), learn it with Angluin's L* (lectures "
                    "26-27; Angluin 1987) from membership queries and an exact equivalence "
                    "oracle (shortest counterexamples), and print the queries against the "
                    "bounds: at most n equivalence queries, and membership queries within the "
                    "observation table's bound for the longest counterexample m.")
    p.add_argument("--states", type=_int_from(1, _MAX_STATES), default=50, metavar="N",
                   help=f"states of the target's minimal DFA, 1 to {_MAX_STATES:,} "
                        f"(default: 50)")
    p.add_argument("--letters", type=_int_from(1, _LETTERS, " (the letters a to z)"),
                   default=2, metavar="K",
                   help="letters of the alphabet, 1 to 26: a, b, ... (default: 2)")
    p.add_argument("--seed", type=_nonnegative_int, default=0, metavar="S",
                   help="seeds the target (default: 0)")
    p.add_argument("--processing", choices=_PROCESSING + ("all",), default="all",
                   help="how a counterexample is used (default: all three)")
    p.add_argument("--json", action="store_true", help="print a JSON list of results")
    p.set_defaults(handler=_cmd_dfa)


def _cmd_dfa(args):
    from .queries import run_dfa_demo
    rows = []
    for proc in (_PROCESSING if args.processing == "all" else (args.processing,)):
        t = time.perf_counter()
        row = run_dfa_demo(args.states, args.letters, args.seed, proc)
        row["seconds"] = time.perf_counter() - t
        rows.append(row)
    if args.json:
        emit(json.dumps(rows, indent=2))
    else:
        emit(f"random minimal DFA: {args.states} states, {args.letters} letters, "
             f"seed {args.seed}")
        emit(f"{'processing':<16} {'MQ':>8} {'MQ bound':>10} {'EQ':>4} {'EQ bound':>8} "
             f"{'longest cex':>11} {'held':>5} {'exact':>5} {'seconds':>8}")
        for r in rows:
            m = max(r["counterexample_lengths"], default=0)
            emit(f"{r['processing']:<16} {r['membership_queries']:>8} "
                 f"{r['membership_bound']:>10} {r['equivalence_queries']:>4} "
                 f"{r['equivalence_bound']:>8} {m:>11} "
                 f"{'yes' if r['bounds_held'] else 'NO':>5} "
                 f"{'yes' if r['exact'] else 'NO':>5} {r['seconds']:>8.3f}")
    bad = [r["processing"] for r in rows if not r["bounds_held"] or not r["exact"]]
    if bad:
        raise QueriesBugFound(f"queries dfa: {', '.join(bad)} exceeded a bound or learned a "
                              "wrong automaton (a bug in mbcore)")
    return 0


# -- mbcore queries graph ------------------------------------------------------------------------

def _add_graph_parser(qsub):
    p = qsub.add_parser(
        "graph", help="learn a seeded random hidden graph with edge-detecting queries",
        description="Draw a random graph with m edges on n vertices (seeded), learn it with "
                    "edge-detecting queries (Angluin lectures 28-31; Angluin & Chen 2008) and "
                    "print the queries against the bound: 12 m ceil(log2 n) + 1 (adaptive), "
                    "6 m ceil(log2 n) + 1 (edge counting), none for five_round (5 rounds; "
                    "Angluin & Chen's algorithm needs O(m log n + sqrt(m) log^2 n) in "
                    "expectation).")
    p.add_argument("--n", type=_int_from(1, _MAX_VERTICES), default=1000, metavar="N",
                   help=f"vertices, 1 to {_MAX_VERTICES:,} (default: 1000)")
    p.add_argument("--m", type=_int_from(0, _MAX_EDGES), default=100, metavar="M",
                   help=f"edges, 0 to {_MAX_EDGES:,} and at most n(n-1)/2 (default: 100)")
    p.add_argument("--seed", type=_nonnegative_int, default=0, metavar="S",
                   help="seeds the graph and the five-round algorithm (default: 0)")
    p.add_argument("--method", choices=_GRAPH_METHODS + ("all",), default="all",
                   help="the algorithm (default: all three)")
    p.add_argument("--json", action="store_true", help="print a JSON list of results")
    p.set_defaults(handler=_cmd_graph)


def _random_graph(n, m, seed):
    """m distinct edges drawn uniformly (numpy's Generator seeded with ``seed``): among all
    pairs when the graph is dense, by rejection otherwise."""
    import itertools

    import numpy as np
    top = n * (n - 1) // 2
    if m > top:
        raise UsageError(f"argument --m: a graph on --n {n} vertices has at most n(n-1)/2 = "
                         f"{top} edges, got {m}")
    rng = np.random.default_rng(seed)
    if 2 * m > top:
        pairs = list(itertools.combinations(range(n), 2))
        return {pairs[int(i)] for i in rng.choice(top, size=m, replace=False)}
    E = set()
    while len(E) < m:
        u, v = (int(x) for x in rng.choice(n, size=2, replace=False))
        E.add((min(u, v), max(u, v)))
    return E


def _cmd_graph(args):
    from .queries import EdgeDetectingOracle, learn_graph
    E = _random_graph(args.n, args.m, args.seed)
    methods = _GRAPH_METHODS if args.method == "all" else (args.method,)
    rows = []
    for method in methods:
        O = EdgeDetectingOracle(E, args.n, counting=(method == "counting"))
        t = time.perf_counter()
        res = learn_graph(args.n, O, method=method, seed=args.seed)
        seconds = time.perf_counter() - t
        L = math.log2(args.n) if args.n > 1 else 0.0
        rows.append({"method": method, "n": args.n, "m": len(E), "seed": args.seed,
                     "queries": res.queries, "bound": res.bound, "held": res.held,
                     "bound_formula": res.record["bound_formula"], "rounds": res.rounds,
                     "round_queries": res.record.get("round_queries"),
                     "queries_per_m_log2_n": (res.queries / (len(E) * L)
                                              if E and L else None),
                     "exact": res.edges == E, "seconds": seconds})
    if args.json:
        emit(json.dumps(rows, indent=2))
    else:
        emit(f"hidden graph: n={args.n}, m={len(E)}, seed={args.seed}")
        emit(f"{'method':<11} {'queries':>8} {'bound':>8} {'held':>5} {'rounds':>6} "
             f"{'q/(m log2 n)':>12} {'exact':>5} {'seconds':>8}")
        for r in rows:
            ratio = "-" if r["queries_per_m_log2_n"] is None else \
                f"{r['queries_per_m_log2_n']:.2f}"
            emit(f"{r['method']:<11} {r['queries']:>8} "
                 f"{'-' if r['bound'] is None else r['bound']:>8} "
                 f"{'-' if r['held'] is None else ('yes' if r['held'] else 'NO'):>5} "
                 f"{'-' if r['rounds'] is None else r['rounds']:>6} {ratio:>12} "
                 f"{'yes' if r['exact'] else 'NO':>5} {r['seconds']:>8.3f}")
        emit("bounds: " + "; ".join(f"{r['method']}: {r['bound_formula']}" for r in rows))
    bad = [r["method"] for r in rows if r["held"] is False or not r["exact"]]
    if bad:
        raise QueriesBugFound(f"queries graph: {', '.join(bad)} exceeded its bound or learned "
                              "a wrong graph (a bug in mbcore)")
    return 0


# -- mbcore queries coin -------------------------------------------------------------------------

def _add_coin_parser(qsub):
    p = qsub.add_parser(
        "coin", help="find seeded random defectives (heavy coins) by group testing",
        description="Draw d defective items among n (seeded) and find them by group testing "
                    "(Angluin lecture 28): one defective by binary search and by the "
                    "non-adaptive bit design, ceil(log2 n) tests each, plus one (only when n "
                    "is a power of two) to test alone an item that no positive test held: at "
                    "most ceil(log2(n + 1)); d defectives by binary splitting, at most "
                    "d ceil(log2(n + 1)) tests when d is known, d (ceil(log2 n) + 1) + 1 when "
                    "it is not.")
    p.add_argument("--n", type=_int_from(1, _MAX_ITEMS), default=1000, metavar="N",
                   help=f"items, 1 to {_MAX_ITEMS:,} (default: 1000)")
    p.add_argument("--defectives", type=_nonnegative_int, default=1, metavar="D",
                   help="defective items, at most n (default: 1)")
    p.add_argument("--seed", type=_nonnegative_int, default=0, metavar="S",
                   help="seeds the defectives (default: 0)")
    p.add_argument("--json", action="store_true", help="print a JSON list of results")
    p.set_defaults(handler=_cmd_coin)


def _cmd_coin(args):
    import numpy as np

    from .queries import find_defective, find_defectives
    if args.defectives > args.n:
        raise UsageError(f"argument --defectives: at most --n ({args.n}) of the items can be "
                         f"defective, got {args.defectives}")
    rng = np.random.default_rng(args.seed)
    D = tuple(sorted(int(x) for x in rng.choice(args.n, size=args.defectives, replace=False)))
    Ds = set(D)

    def test(S):
        return bool(Ds.intersection(S))

    runs = []
    if len(D) == 1:
        runs.append(("binary search", find_defective(args.n, test)))
        runs.append(("bit design", find_defective(args.n, test, adaptive=False)))
    runs.append(("binary splitting (d known)", find_defectives(args.n, test, d=len(D))))
    runs.append(("binary splitting (d unknown)", find_defectives(args.n, test)))
    rows = [{"method": name, "n": args.n, "defectives": len(D), "seed": args.seed,
             "found": list(res.defectives), "tests": res.tests, "bound": res.bound,
             "held": res.held, "exact": res.defectives == D} for name, res in runs]
    if args.json:
        emit(json.dumps(rows, indent=2))
    else:
        emit(f"n={args.n} items, defectives {list(D)} (seed {args.seed})")
        emit(f"{'method':<29} {'tests':>6} {'bound':>6} {'held':>5} {'exact':>5}")
        for r in rows:
            emit(f"{r['method']:<29} {r['tests']:>6} {r['bound']:>6} "
                 f"{'yes' if r['held'] else 'NO':>5} {'yes' if r['exact'] else 'NO':>5}")
    bad = [r["method"] for r in rows if not r["held"] or not r["exact"]]
    if bad:
        raise QueriesBugFound(f"queries coin: {', '.join(bad)} exceeded its bound or missed "
                              "a defective (a bug in mbcore)")
    return 0
