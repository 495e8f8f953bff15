"""The user's path from a file, before and after a change: ``train_file`` and ``predict_file``
(what ``mbcore train`` and ``mbcore predict`` run after their start-up) on an a9a-shaped
svmlight file, min of 7 rounds in one process.  Run it once per tree, alternating, e.g.

    for t in /path/to/old /path/to/new; do PYTHONPATH=$t:$t/python python bench/workflow_ab.py A9A; done

where A9A is the tiled file bench/test_bench_workflow.py writes (260,488 rows); the command
line itself (start-up included) is timed with ``time mbcore train ...``.
"""

import sys
import time

import mbcore
from mbcore.streaming import predict_file, train_file


def main(path, rounds=7):
    tt, tp = [], []
    for _ in range(rounds):
        t = time.perf_counter()
        clf = mbcore.Perceptron()
        train_file(clf, path)
        tt.append(time.perf_counter() - t)
        t = time.perf_counter()
        predict_file(clf, path, path + ".pred")
        tp.append(time.perf_counter() - t)
    print(f"train {min(tt) * 1e3:.1f} ms  predict {min(tp) * 1e3:.1f} ms")


if __name__ == "__main__":
    main(sys.argv[1])
