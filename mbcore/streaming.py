"""Streaming input: svmlight and CSV files read in chunks, and progressive evaluation.

:func:`iter_svmlight` and :func:`iter_csv` read a file, plain or gzip-compressed (recognised by
its first two bytes, whatever its name), in blocks of 256 KiB and yield ``(X, y)`` chunks of
``chunk_size`` rows, so that memory is O(chunk_size + 256 KiB) whatever the size of the file.
:func:`run_stream` feeds such chunks (or any iterable of ``(X, y)`` pairs) through a learner with
:func:`mbcore.run_online` and keeps only per-chunk counts: the progressive, test-then-train
evaluation of the learner over the stream (every example is predicted before it is learned).

Only NumPy and the standard library are needed.  Reading gives exactly what
:func:`mbcore.datasets.load_svmlight` and :func:`mbcore.datasets.load_csv` give for the whole
file (the same rows, values and labels; see each function for the few rules a stream adds), and
errors are one line naming the file and the line.

The file workflow (:func:`train_file`, :func:`predict_file`, :func:`evaluate_file`: files in, a
model out, predictions out) is defined in :mod:`mbcore.workflow` and its names are also names of
this module, the same objects.

Examples
--------
>>> import os, tempfile
>>> from mbcore import Perceptron
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "tiny.svm")
...     with open(path, "w") as f:
...         _ = f.write("+1 1:1 3:1\\n-1 2:1\\n+1 1:1\\n-1 2:1 3:1\\n+1 3:1\\n")
...     stats = run_stream(Perceptron(), iter_svmlight(path, chunk_size=2))
>>> stats
StreamRun(n=5, chunks=3, mistakes=3, updates=3, error_rate=0.6)
>>> stats.chunk_n.tolist(), stats.mistake_curve.tolist()
([2, 2, 1], [1, 2, 3])
"""

# The module is made of two halves: the reading (mbcore._streaming: the readers, CSRChunk,
# run_stream, shuffling) and the file workflow (mbcore.workflow: train_file, predict_file,
# evaluate_file), which uses the reading.  Both are re-exported here, where every name is
# documented, so that every import of mbcore.streaming keeps working.

from ._streaming import (CSRChunk, LabelRuns, SHUFFLE_BUFFER, SORTED_MIN_ROWS, StreamRun,
                         declared_zero_based, iter_csv, iter_svmlight, iter_vw, run_stream,
                         shuffle_chunks)
from .workflow import (FORMATS, READING, REPORT_HEADER, EvaluationReport, default_workers,
                       evaluate_file, predict_file, prefetch, read_chunks, reading_options,
                       report_line, train_file)

__all__ = ["iter_svmlight", "iter_csv", "iter_vw", "run_stream", "StreamRun", "CSRChunk",
           "read_chunks", "prefetch", "train_file", "predict_file", "evaluate_file",
           "EvaluationReport", "REPORT_HEADER", "report_line", "FORMATS", "default_workers",
           "shuffle_chunks", "LabelRuns", "SHUFFLE_BUFFER", "SORTED_MIN_ROWS", "READING",
           "reading_options", "declared_zero_based"]
