"""Ratio tables for the mbcore benchmarks.

Every benchmark in ``bench/`` records two things in its ``extra_info``: ``key`` (a stable name,
listed in :data:`RATIOS` below) and ``rows`` (how many rows one timed call processes).  A ratio is
taken between per-row times, ``(t_a / rows_a) / (t_b / rows_b)``, so a twin timed on a 2,000-row
slice can be compared with mbcore timed on 200,000 rows; when both sides process the same rows it
is the plain time ratio.  Each ratio is computed twice, from the minimum and from the median of
the rounds, always from numbers measured in the same pytest session (same process, same data).

Used two ways:

* by ``bench/conftest.py``, which prints the table at the end of a benchmark session;
* from the command line on pytest-benchmark JSON files (``--benchmark-json``)::

      python bench/report.py run1.json [run2.json ...]
      python bench/report.py --markdown run1.json [run2.json ...]

  prints the table of each run, then (for several runs) one line per ratio with the value of
  every run and the better of the runs.  "Better of runs" picks, per ratio, the run in which
  mbcore looked best; each value still comes from a single run.  ``--markdown`` prints only the
  comparison, as the Markdown table used in bench/README.md.
"""

import json
import sys

# (label, numerator key, denominator key, kind, target)
#   kind "le": the ratio must be <= target;  "ge": >= target;  "abs_us": the numerator's
#   per-call time in microseconds must be <= target (no denominator);  "ns_per_row": the
#   numerator's time per row in nanoseconds must be <= target;  "info": no target.
RATIOS = [
    # -- targets -----------------------------------------------------------------------------
    ("Dense pass / X@w, default BLAS threads", "dense.mbcore.perceptron", "dense.floor.matvec",
     "le", 1.15),
    ("Dense pass / X@w, 1 BLAS thread", "dense.mbcore.perceptron", "dense.floor.matvec_1t",
     "le", 1.15),
    ("sklearn Perceptron epoch / dense pass", "dense.sklearn.perceptron",
     "dense.mbcore.perceptron", "ge", 1.7),
    ("twin (2k slice) / dense pass, per row", "dense.twin.perceptron_2k",
     "dense.mbcore.perceptron", "ge", 100.0),
    ("twin / mbcore, same 2k slice", "dense.twin.perceptron_2k", "dense.mbcore.perceptron_2k",
     "ge", 100.0),
    ("sklearn Perceptron epoch / pass, CSR", "csr.sklearn.perceptron", "csr.mbcore.perceptron",
     "ge", 4.0),
    ("CSR pass / scipy CSR X@w (floor, info)", "csr.mbcore.perceptron", "csr.floor.matvec",
     "info", None),
    ("sklearn CSR epoch / scipy CSR X@w (info)",
     "csr.sklearn.perceptron", "csr.floor.matvec", "info", None),
    ("partial_fit one row (us per call)", "row.mbcore.partial_fit", None, "abs_us", 5.0),
    ("predict 100k / X@w, default BLAS threads", "predict.mbcore.predict",
     "predict.floor.matvec", "le", 1.1),
    ("predict 100k / X@w, 1 BLAS thread", "predict.mbcore.predict", "predict.floor.matvec_1t",
     "le", 1.1),
    # -- reported, no target -----------------------------------------------------------------
    ("BLAS speedup: X@w 1 thread / X@w default (~1: 2nd core busy)", "dense.floor.matvec_1t",
     "dense.floor.matvec", "info", None),
    ("diag: decision_function 100k / X@w, default BLAS threads", "diag.predict.decision_function",
     "predict.floor.matvec", "info", None),
    ("diag: decision_function 100k / X@w, 1 BLAS thread", "diag.predict.decision_function",
     "predict.floor.matvec_1t", "info", None),
    ("sklearn Perceptron.partial_fit 1 row / mbcore", "row.sklearn.perceptron_partial_fit",
     "row.mbcore.partial_fit", "info", None),
    ("sklearn SGDClassifier.partial_fit 1 row / mbcore", "row.sklearn.sgd_partial_fit",
     "row.mbcore.partial_fit", "info", None),
    ("MarginPerceptron pass / Perceptron pass", "dense.mbcore.margin", "dense.mbcore.perceptron",
     "info", None),
    ("AveragedPerceptron pass / Perceptron pass", "dense.mbcore.averaged",
     "dense.mbcore.perceptron", "info", None),
    ("OnlineHingeSVM pass / Perceptron pass", "dense.mbcore.hinge", "dense.mbcore.perceptron",
     "info", None),
    ("Perceptron(fit_intercept=True) / Perceptron pass", "dense.mbcore.perceptron_intercept",
     "dense.mbcore.perceptron", "info", None),
    ("sklearn epoch / Perceptron(fit_intercept=True) pass", "dense.sklearn.perceptron",
     "dense.mbcore.perceptron_intercept", "info", None),
    ("Perceptron(normalize=True) / Perceptron pass", "dense.mbcore.perceptron_normalize",
     "dense.mbcore.perceptron", "info", None),
    ("float32 pass / float64 pass", "dense.mbcore.perceptron_f32", "dense.mbcore.perceptron",
     "info", None),
    ("diag: twin online pass only, no input checks (2k) / dense pass, per row",
     "diag.twin.perceptron_2k_run", "dense.mbcore.perceptron", "info", None),
    ("NumPy row loop (2k slice) / dense pass, per row", "dense.numpy_loop.perceptron_2k",
     "dense.mbcore.perceptron", "info", None),
    ("KernelPerceptron rbf: twin / mbcore, same 300 rows", "kp.twin.rbf_300", "kp.mbcore.rbf_300",
     "info", None),
    ("KernelPerceptron rbf, 5,000 rows d=20 (ms)", "kp.mbcore.rbf_5000", None, "abs_ms", None),
    # -- diagnostics (where the time goes) ---------------------------------------------------
    ("diag: kernel alone (lin_pass) / X@w default", "diag.dense.kernel_only",
     "dense.floor.matvec", "info", None),
    ("diag: kernel alone (lin_pass) / X@w 1 thread", "diag.dense.kernel_only",
     "dense.floor.matvec_1t", "info", None),
    ("diag: partial_fit(classes=[-1,1]) / X@w default", "diag.dense.pass_with_classes",
     "dense.floor.matvec", "info", None),
    ("diag: infer_classes(y), 200k labels (ms)", "diag.dense.infer_classes", None, "abs_ms",
     None),
    ("diag: encode_y(y), 200k labels (ms)", "diag.dense.encode_y", None, "abs_ms", None),
    ("diag: dense pass total (ms)", "dense.mbcore.perceptron", None, "abs_ms", None),
    ("diag: CSR check_X (ms)", "diag.csr.check_X", None, "abs_ms", None),
    ("diag: CSR kernel alone (lin_pass) (ms)", "diag.csr.kernel_only", None, "abs_ms", None),
    ("diag: CSR kernel alone / scipy CSR X@w", "diag.csr.kernel_only", "csr.floor.matvec",
     "info", None),
    ("diag: CSR pass total (ms)", "csr.mbcore.perceptron", None, "abs_ms", None),
    ("diag: 1 row check_X (us)", "diag.row.check_X", None, "abs_us", None),
    ("diag: 1 row encode_y (us)", "diag.row.encode_y", None, "abs_us", None),
    ("diag: 1 row _prepare (us)", "diag.row.prepare", None, "abs_us", None),
    ("diag: 1 row lin_pass call (us)", "diag.row.kernel_call", None, "abs_us", None),
    ("diag: 1 row lin_step1 call (us)", "diag.row.lin_step1", None, "abs_us", None),
    ("diag: 1 row X@w, d=100 (us)", "diag.row.matvec", None, "abs_us", None),
    # -- Winnow (multiplicative family) ------------------------------------------------------
    ("Winnow CSR pass, float64 data (ns per example)", "winnow.mbcore.csr_f64", None,
     "ns_per_row", 40.0),
    ("Winnow CSR pass, uint8 data (ns per example)", "winnow.mbcore.csr_u8", None,
     "ns_per_row", 40.0),
    ("twin (500 rows) / Winnow CSR pass, per row", "winnow.twin.csr_500",
     "winnow.mbcore.csr_f64", "ge", 100.0),
    ("NumPy row loop (2k rows) / Winnow CSR pass, per row", "winnow.numpy_loop.csr_2k",
     "winnow.mbcore.csr_f64", "info", None),
    ("Winnow CSR pass, uint8 data / NumPy gather-and-sum floor", "winnow.mbcore.csr_u8",
     "winnow.floor.gather_sum", "info", None),
    ("NumPy gather-and-sum floor, 50 weights per row (ns per example)",
     "winnow.floor.gather_sum", None, "ns_per_row", None),
    ("Winnow predict-only CSR (ns per example)", "winnow.mbcore.predict_f64", None,
     "ns_per_row", None),
    ("Winnow dense uint8 pass, n=100 (ns per example)", "winnow.mbcore.dense_u8", None,
     "ns_per_row", None),
    ("BalancedWinnow CSR pass, exact mode (ns per example)", "balanced.mbcore.csr_f64_exact",
     None, "ns_per_row", None),
    ("BalancedWinnow CSR pass, exact / float64 arithmetic", "balanced.mbcore.csr_f64_exact",
     "balanced.mbcore.csr_f64_float", "info", None),
    ("BalancedWinnow predict, every row exact (w0=2**600) / float64 predict",
     "balanced.mbcore.predict_every_row_exact", "balanced.mbcore.predict_float", "info", None),
    ("BalancedWinnow predict, every row exact (ns per example)",
     "balanced.mbcore.predict_every_row_exact", None, "ns_per_row", None),
    ("BalancedWinnow exact CSR pass / Winnow CSR pass", "balanced.mbcore.csr_f64_exact",
     "winnow.mbcore.csr_f64", "info", None),
    # -- Weighted Majority, 1,000 experts ----------------------------------------------------
    ("WM 1,000 experts, int8 advice (ns per round)", "wm.mbcore.int8", None, "ns_per_row",
     1000.0),
    ("WM 1,000 experts, fitted learner (ns per round)", "wm.mbcore.fitted", None,
     "ns_per_row", 1000.0),
    ("NumPy WM row loop (renormalising) / WM, per round", "wm.numpy_loop", "wm.mbcore.int8",
     "ge", 30.0),
    ("twin / WM, per round", "wm.twin", "wm.mbcore.int8", "ge", 100.0),
    ("RWM 1,000 experts (ns per round)", "rwm.mbcore.int8", None, "ns_per_row", None),
    ("WM 1,000 experts, 4 labels (ns per round)", "wm.mbcore.multi4", None, "ns_per_row",
     None),
    ("twin / WM, 4 labels, per round", "wm.twin.multi4", "wm.mbcore.multi4", "ge", 100.0),
    # -- Specialists -----------------------------------------------------------------------------
    ("Specialists 1,000, ~10% awake, 4 labels (ns per round)", "spec.mbcore.dense", None,
     "ns_per_row", None),
    ("twin / Specialists, per round", "spec.twin.dense", "spec.mbcore.dense", "ge", 100.0),
    ("PairSpecialists 12 attributes (66 awake) (ns per row)", "pair.mbcore", None,
     "ns_per_row", None),
    # -- Boolean learners, n = 1,000 ---------------------------------------------------------
    ("DecisionList pass, n = 1,000 (ns per example)", "bool.mbcore.decision_list", None,
     "ns_per_row", None),
    ("twin / DecisionList, per row", "bool.twin.decision_list", "bool.mbcore.decision_list",
     "ge", 50.0),
    ("Conjunction pass, n = 1,000 (ns per example)", "bool.mbcore.conjunction", None,
     "ns_per_row", None),
    ("twin / Conjunction, per row", "bool.twin.conjunction", "bool.mbcore.conjunction", "ge",
     50.0),
    # -- Halving, |C| = 2**18 on 1,024 points ------------------------------------------------
    ("Halving pass, 2,000 examples (ns per example)", "halving.mbcore", None, "ns_per_row",
     None),
    ("NumPy bitwise_count Halving / Halving, per example", "halving.numpy_bitwise_count",
     "halving.mbcore", "ge", 10.0),
    ("twin / Halving, per example", "halving.twin", "halving.mbcore", "ge", 20.0),
    ("twin / PairSpecialists, per row (info: ~70% mistakes, each a pow per voter)", "pair.twin",
     "pair.mbcore", "info", None),
    # -- the file -> model -> predictions workflow (5 M examples/s = 200 ns per example) -------
    ("train_file a9a shape, file to model (ns per example)", "workflow.mbcore.train_a9a", None,
     "ns_per_row", 200.0),
    ("train_file w8a shape, file to model (ns per example)", "workflow.mbcore.train_w8a", None,
     "ns_per_row", 200.0),
    ("sklearn load_svmlight_file + epoch / train_file, a9a shape",
     "workflow.sklearn.load_epoch_a9a", "workflow.mbcore.train_a9a", "ge", 20.0),
    ("sklearn load_svmlight_file + epoch / train_file, w8a shape",
     "workflow.sklearn.load_epoch_w8a", "workflow.mbcore.train_w8a", "ge", 20.0),
    ("predict_file a9a shape (ns per example)", "workflow.mbcore.predict_a9a", None,
     "ns_per_row", 200.0),
    ("predict_file w8a shape (ns per example)", "workflow.mbcore.predict_w8a", None,
     "ns_per_row", 200.0),
    ("predict line-buffered, one line per arrival (ns per line)", "workflow.mbcore.predict_line",
     None, "ns_per_row", 20_000.0),
    ("predict line-buffered, 2,000 lines in one arrival (ns per line)",
     "workflow.mbcore.predict_line_burst", None, "ns_per_row", None),
    ("train_file a9a shape, width found by a first pass (ns per example)",
     "workflow.mbcore.train_scan_a9a", None, "ns_per_row", None),
    ("train_file w8a shape, width found by a first pass (ns per example)",
     "workflow.mbcore.train_scan_w8a", None, "ns_per_row", None),
    # -- multi-class linear learners (bench/test_bench_multiclass.py) -------------------------
    ("MNIST 60k x 784 f32, 10 classes: sklearn OvR epoch / Perceptron multiclass",
     "mc.mnist.sklearn.perceptron", "mc.mnist.mbcore.perceptron_mc", "ge", 3.0),
    ("MNIST 60k: sklearn OvR epoch / Perceptron ovr", "mc.mnist.sklearn.perceptron",
     "mc.mnist.mbcore.perceptron_ovr", "ge", 2.0),
    ("MNIST 60k: twin multiclass (300 rows) / Perceptron multiclass, per row",
     "mc.mnist.twin.perceptron_mc_300", "mc.mnist.mbcore.perceptron_mc", "ge", 100.0),
    ("MNIST 60k: twin ovr (300 rows) / Perceptron ovr, per row (info)",
     "mc.mnist.twin.perceptron_ovr_300", "mc.mnist.mbcore.perceptron_ovr", "info", None),
    ("MNIST: twin / mbcore multiclass, same 300 rows (info)", "mc.mnist.twin.perceptron_mc_300",
     "mc.mnist.mbcore.perceptron_mc_300", "info", None),
    ("MNIST: twin / mbcore ovr, same 300 rows (info)", "mc.mnist.twin.perceptron_ovr_300",
     "mc.mnist.mbcore.perceptron_ovr_300", "info", None),
    ("MNIST 60k: sklearn epoch n_jobs=1 / n_jobs=-1 (info: ~1 when the 2nd core is busy)",
     "mc.mnist.sklearn.perceptron_1job", "mc.mnist.sklearn.perceptron", "info", None),
    ("MNIST 60k: sklearn epoch n_jobs=1 / Perceptron multiclass (info)",
     "mc.mnist.sklearn.perceptron_1job", "mc.mnist.mbcore.perceptron_mc", "info", None),
    ("MNIST 60k: Perceptron ovr / multiclass", "mc.mnist.mbcore.perceptron_ovr",
     "mc.mnist.mbcore.perceptron_mc", "info", None),
    ("MNIST 60k: Perceptron multiclass / X@W f32 (scores only)", "mc.mnist.mbcore.perceptron_mc",
     "mc.mnist.floor.matmul", "info", None),
    ("MNIST 60k: sklearn epoch / MarginPerceptron multiclass", "mc.mnist.sklearn.perceptron",
     "mc.mnist.mbcore.margin_mc", "info", None),
    ("MNIST 60k: sklearn epoch / MarginPerceptron ovr", "mc.mnist.sklearn.perceptron",
     "mc.mnist.mbcore.margin_ovr", "info", None),
    ("MNIST 60k: sklearn epoch / AveragedPerceptron multiclass", "mc.mnist.sklearn.perceptron",
     "mc.mnist.mbcore.averaged_mc", "info", None),
    ("MNIST 60k: sklearn epoch / AveragedPerceptron ovr", "mc.mnist.sklearn.perceptron",
     "mc.mnist.mbcore.averaged_ovr", "info", None),
    ("MNIST 60k: sklearn epoch / OnlineHingeSVM multiclass", "mc.mnist.sklearn.perceptron",
     "mc.mnist.mbcore.hinge_mc", "info", None),
    ("MNIST 60k: sklearn epoch / OnlineHingeSVM ovr", "mc.mnist.sklearn.perceptron",
     "mc.mnist.mbcore.hinge_ovr", "info", None),
    ("CSR 100k x 50k, K=1,000: Perceptron multiclass / scipy X@W", "mc.csr.mbcore.mc_k1000",
     "mc.csr.floor.k1000", "le", 2.0),
    ("CSR K=1,000: Perceptron ovr / scipy X@W", "mc.csr.mbcore.ovr_k1000", "mc.csr.floor.k1000",
     "le", 2.0),
    ("CSR K=10: Perceptron multiclass / scipy X@W (info)", "mc.csr.mbcore.mc_k10",
     "mc.csr.floor.k10", "info", None),
    ("CSR K=10: Perceptron ovr / scipy X@W (info)", "mc.csr.mbcore.ovr_k10", "mc.csr.floor.k10",
     "info", None),
    ("CSR K=100: Perceptron multiclass / scipy X@W (info)", "mc.csr.mbcore.mc_k100",
     "mc.csr.floor.k100", "info", None),
    ("CSR K=100: Perceptron ovr / scipy X@W (info)", "mc.csr.mbcore.ovr_k100",
     "mc.csr.floor.k100", "info", None),
    ("CSR K=10: scipy X@W (ns per example)", "mc.csr.floor.k10", None, "ns_per_row", None),
    ("CSR K=10: Perceptron multiclass (ns per example)", "mc.csr.mbcore.mc_k10", None,
     "ns_per_row", None),
    ("CSR K=10: Perceptron ovr (ns per example)", "mc.csr.mbcore.ovr_k10", None, "ns_per_row",
     None),
    ("CSR K=100: scipy X@W (ns per example)", "mc.csr.floor.k100", None, "ns_per_row", None),
    ("CSR K=100: Perceptron multiclass (ns per example)", "mc.csr.mbcore.mc_k100", None,
     "ns_per_row", None),
    ("CSR K=100: Perceptron ovr (ns per example)", "mc.csr.mbcore.ovr_k100", None,
     "ns_per_row", None),
    ("CSR K=1,000: scipy X@W (ns per example)", "mc.csr.floor.k1000", None, "ns_per_row", None),
    ("CSR K=1,000: Perceptron multiclass (ns per example)", "mc.csr.mbcore.mc_k1000", None,
     "ns_per_row", None),
    ("CSR K=1,000: Perceptron ovr (ns per example)", "mc.csr.mbcore.ovr_k1000", None,
     "ns_per_row", None),
    # -- multithreaded online passes, n_jobs = 2 (t2) and 1 (t1) (test_bench_speculative.py) ---
    ("spec: dense pass 2, 2 threads / X@w default BLAS threads",
     "spec.dense.perceptron_pass2_t2", "spec.floor.matvec", "le", 1.2),
    ("spec: dense pass 3, 2 threads / X@w default BLAS threads",
     "spec.dense.perceptron_pass3_t2", "spec.floor.matvec", "le", 1.2),
    ("spec: dense first pass, 2 threads / 1 thread", "spec.dense.perceptron_first_t2",
     "spec.dense.perceptron_first_t1", "le", 1.05),
    ("spec: CSR sklearn epoch / first pass, 2 threads", "spec.csr.sklearn_perceptron",
     "spec.csr.perceptron_first_t2", "ge", 4.0),
    ("spec: CSR sklearn epoch / pass 2, 2 threads", "spec.csr.sklearn_perceptron",
     "spec.csr.perceptron_pass2_t2", "ge", 4.0),
    ("spec: Winnow CSR f64 pass 2, 2 threads (ns per example)", "spec.winnow.csr_f64_pass2_t2",
     None, "ns_per_row", 40.0),
    ("spec: Winnow CSR u8 pass 2, 2 threads (ns per example)", "spec.winnow.csr_u8_pass2_t2",
     None, "ns_per_row", 40.0),
    ("spec: Winnow CSR f64, a later epoch of fit, 2 threads (ns per example)",
     "spec.winnow.csr_f64_fit_epoch_t2", None, "ns_per_row", 40.0),
    ("spec: Winnow CSR u8, a later epoch of fit, 2 threads (ns per example)",
     "spec.winnow.csr_u8_fit_epoch_t2", None, "ns_per_row", 40.0),
    ("spec: Winnow CSR f64, a later epoch of fit, 1 thread (ns per example)",
     "spec.winnow.csr_f64_fit_epoch_t1", None, "ns_per_row", None),
    ("spec: Winnow CSR u8, a later epoch of fit, 1 thread (ns per example)",
     "spec.winnow.csr_u8_fit_epoch_t1", None, "ns_per_row", None),
    ("spec: dense pass 2, 1 thread / X@w default threads (info)",
     "spec.dense.perceptron_pass2_t1", "spec.floor.matvec", "info", None),
    ("spec: dense pass 2, 1 thread / X@w 1 BLAS thread (info)",
     "spec.dense.perceptron_pass2_t1", "spec.floor.matvec_1t", "info", None),
    ("spec: dense pass 2, 2 threads / X@w 1 BLAS thread (info)",
     "spec.dense.perceptron_pass2_t2", "spec.floor.matvec_1t", "info", None),
    ("spec: dense first pass, 2 threads / X@w default threads (info)",
     "spec.dense.perceptron_first_t2", "spec.floor.matvec", "info", None),
    ("spec: BLAS speedup: X@w 1 thread / default (~1: 2nd core busy)", "spec.floor.matvec_1t",
     "spec.floor.matvec", "info", None),
    ("spec: diag: pass 2, 2 threads, after 50 ms idle / back to back",
     "spec.diag.dense_pass2_t2_after_sleep", "spec.dense.perceptron_pass2_t2", "info", None),
    ("spec: speed-up t1/t2, dense pass 2", "spec.dense.perceptron_pass2_t1",
     "spec.dense.perceptron_pass2_t2", "info", None),
    ("spec: speed-up t1/t2, dense pass 3", "spec.dense.perceptron_pass3_t1",
     "spec.dense.perceptron_pass3_t2", "info", None),
    ("spec: speed-up t1/t2, dense pass 2, 0% labels flipped", "spec.noise0.perceptron_pass2_t1",
     "spec.noise0.perceptron_pass2_t2", "info", None),
    ("spec: speed-up t1/t2, dense pass 2, 0.1% labels flipped",
     "spec.noise0p001.perceptron_pass2_t1", "spec.noise0p001.perceptron_pass2_t2", "info", None),
    ("spec: speed-up t1/t2, dense pass 2, 1% labels flipped",
     "spec.noise0p01.perceptron_pass2_t1", "spec.noise0p01.perceptron_pass2_t2", "info", None),
    ("spec: speed-up t1/t2, dense pass 2, 5% labels flipped",
     "spec.noise0p05.perceptron_pass2_t1", "spec.noise0p05.perceptron_pass2_t2", "info", None),
    ("spec: speed-up t1/t2, dense pass 2, 20% labels flipped",
     "spec.noise0p2.perceptron_pass2_t1", "spec.noise0p2.perceptron_pass2_t2", "info", None),
    ("spec: speed-up t1/t2, K=10 multiclass pass 2", "spec.mc10.perceptron_pass2_t1",
     "spec.mc10.perceptron_pass2_t2", "info", None),
    ("spec: K=10 pass 2, 2 threads / X@W default threads (info)",
     "spec.mc10.perceptron_pass2_t2", "spec.floor.matmul_k10", "info", None),
    ("spec: CSR sklearn epoch / first pass, 1 thread (info)", "spec.csr.sklearn_perceptron",
     "spec.csr.perceptron_first_t1", "info", None),
    ("spec: CSR sklearn epoch / pass 2, 1 thread (info)", "spec.csr.sklearn_perceptron",
     "spec.csr.perceptron_pass2_t1", "info", None),
    ("spec: speed-up t1/t2, CSR first pass", "spec.csr.perceptron_first_t1",
     "spec.csr.perceptron_first_t2", "info", None),
    ("spec: speed-up t1/t2, CSR pass 2", "spec.csr.perceptron_pass2_t1",
     "spec.csr.perceptron_pass2_t2", "info", None),
    ("spec: CSR pass 2, 2 threads / scipy CSR X@w (info)", "spec.csr.perceptron_pass2_t2",
     "spec.floor.csr_matvec", "info", None),
    ("spec: Winnow CSR f64 pass 2, 1 thread (ns per example)", "spec.winnow.csr_f64_pass2_t1",
     None, "ns_per_row", None),
    ("spec: Winnow CSR u8 pass 2, 1 thread (ns per example)", "spec.winnow.csr_u8_pass2_t1",
     None, "ns_per_row", None),
    ("spec: speed-up t1/t2, Winnow CSR f64 pass 2", "spec.winnow.csr_f64_pass2_t1",
     "spec.winnow.csr_f64_pass2_t2", "info", None),
    ("spec: speed-up t1/t2, Winnow CSR u8 pass 2", "spec.winnow.csr_u8_pass2_t1",
     "spec.winnow.csr_u8_pass2_t2", "info", None),
    # -- one example at a time on a fitted learner (test_bench_one_row.py) ---------------------
    ("one row: Perceptron predict / partial_fit", "one_row.Perceptron.predict",
     "one_row.Perceptron.partial_fit", "le", 1.5),
    ("one row: Perceptron predict (us)", "one_row.Perceptron.predict", None, "abs_us", 3.0),
    ("one row: Perceptron decision_function (us)", "one_row.Perceptron.decision_function", None,
     "abs_us", 3.0),
    ("one row: Perceptron partial_fit (us, info)", "one_row.Perceptron.partial_fit", None,
     "abs_us", None),
    ("one row: PassiveAggressive predict / partial_fit", "one_row.PassiveAggressive.predict",
     "one_row.PassiveAggressive.partial_fit", "le", 1.5),
    ("one row: sklearn Perceptron predict / mbcore predict", "one_row.sklearn.predict",
     "one_row.Perceptron.predict", "info", None),
    ("one row: sklearn Perceptron partial_fit / mbcore partial_fit",
     "one_row.sklearn.partial_fit", "one_row.Perceptron.partial_fit", "info", None),
    # -- classes= given on every call of a stream (test_bench_classes_again.py, issue 36) -----
    ("classes= on every call: learn_one, same list / none", "classes_again.learn_one.same",
     "classes_again.learn_one.none", "le", 1.1),
    ("classes= on every call: partial_fit one row, same list / none",
     "classes_again.partial_fit.same", "classes_again.partial_fit.none", "le", 1.1),
    ("classes= on every call: partial_fit 100 rows, same list / none",
     "classes_again.partial_fit_batch.same", "classes_again.partial_fit_batch.none", "le", 1.1),
    ("classes= on every call: learn_one, new list each call / none (info)",
     "classes_again.learn_one.literal", "classes_again.learn_one.none", "info", None),
    ("classes= on every call: partial_fit one row, new list each call / none (info)",
     "classes_again.partial_fit.literal", "classes_again.partial_fit.none", "info", None),
    ("classes= on every call: partial_fit 100 rows, new list each call / none (info)",
     "classes_again.partial_fit_batch.literal", "classes_again.partial_fit_batch.none", "info",
     None),
    # -- PassiveAggressive PA-I, C = 1, against scikit-learn (test_bench_pa.py) ---------------
    ("PA: a9a dense, sklearn PassiveAggressiveClassifier epoch / pass", "pa.a9a.sklearn.pa1",
     "pa.a9a.mbcore.pa1", "ge", 3.0),
    ("PA: a9a CSR, sklearn epoch / pass", "pa.a9a_csr.sklearn.pa1", "pa.a9a_csr.mbcore.pa1",
     "ge", 3.0),
    ("PA: dense 200k x 100, sklearn epoch / pass", "pa.dense.sklearn.pa1", "pa.dense.mbcore.pa1",
     "ge", 3.0),
    ("PA: twin (2k slice) / dense pass, per row", "pa.dense.twin.pa1_2k", "pa.dense.mbcore.pa1",
     "ge", 100.0),
    ("PA: twin / mbcore, same 2k slice", "pa.dense.twin.pa1_2k", "pa.dense.mbcore.pa1_2k", "ge",
     100.0),
    ("PA: a9a x10 dense, sklearn epoch / pass (info)", "pa.a9a_x10.sklearn.pa1",
     "pa.a9a_x10.mbcore.pa1", "info", None),
    ("PA: a9a dense, sklearn partial_fit / pass (info)", "pa.a9a.sklearn.pa1_partial_fit",
     "pa.a9a.mbcore.pa1", "info", None),
    ("PA: a9a dense, sklearn epoch / pass n_jobs=1 (info)", "pa.a9a.sklearn.pa1",
     "pa.a9a.mbcore.pa1_t1", "info", None),
    ("PA: a9a CSR, sklearn epoch / pass n_jobs=1 (info)", "pa.a9a_csr.sklearn.pa1",
     "pa.a9a_csr.mbcore.pa1_t1", "info", None),
    ("PA: a9a dense pass (ns per example)", "pa.a9a.mbcore.pa1", None, "ns_per_row", None),
    ("PA: a9a CSR pass (ns per example)", "pa.a9a_csr.mbcore.pa1", None, "ns_per_row", None),
    ("PA: dense 200k x 100 pass (ns per example)", "pa.dense.mbcore.pa1", None, "ns_per_row",
     None),
    ("PA: BLAS speedup: a9a X@w 1 thread / default (~1: 2nd core busy)",
     "pa.a9a.floor.matvec_1t", "pa.a9a.floor.matvec", "info", None),
    ("PA: diag: a9a dense pass / X@w default threads", "pa.a9a.mbcore.pa1",
     "pa.a9a.floor.matvec", "info", None),
    ("PA: diag: a9a CSR pass / scipy CSR X@w", "pa.a9a_csr.mbcore.pa1",
     "pa.a9a_csr.floor.matvec", "info", None),
    ("PA: diag: a9a dense, kernel alone (1 thread) / pass", "pa.a9a.diag.kernel_only",
     "pa.a9a.mbcore.pa1", "info", None),
    ("PA: diag: a9a CSR, kernel alone (1 thread) / pass", "pa.a9a_csr.diag.kernel_only",
     "pa.a9a_csr.mbcore.pa1", "info", None),
    ("PA: diag: a9a dense, pass n_jobs=1 / default", "pa.a9a.mbcore.pa1_t1",
     "pa.a9a.mbcore.pa1", "info", None),
    ("PA: diag: a9a CSR, pass n_jobs=1 / default", "pa.a9a_csr.mbcore.pa1_t1",
     "pa.a9a_csr.mbcore.pa1", "info", None),
    ("PA: diag: a9a dense, second partial_fit / first", "pa.a9a.mbcore.pa1_again",
     "pa.a9a.mbcore.pa1", "info", None),
    ("PA: diag: a9a dense pass total (ms)", "pa.a9a.mbcore.pa1", None, "abs_ms", None),
    ("PA: diag: a9a dense kernel alone, 1 thread (ms)", "pa.a9a.diag.kernel_only", None,
     "abs_ms", None),
    ("PA: diag: a9a CSR pass total (ms)", "pa.a9a_csr.mbcore.pa1", None, "abs_ms", None),
    ("PA: diag: a9a CSR kernel alone, 1 thread (ms)", "pa.a9a_csr.diag.kernel_only", None,
     "abs_ms", None),
    # -- L* (issue 26): a whole run, exact equivalence oracle, same target ------------------
    ("L*: AALpy / mbcore, 500 states, 2 letters", "lstar.aalpy.500x2", "lstar.mbcore.500x2",
     "ge", 5.0),
    ("L*: AALpy / mbcore, 500 states, 4 letters", "lstar.aalpy.500x4", "lstar.mbcore.500x4",
     "ge", 5.0),
    ("L*: AALpy / mbcore with trace queries, 500 states, 2 letters (info)", "lstar.aalpy.500x2",
     "lstar.mbcore_traces.500x2", "info", None),
    ("L*: AALpy / mbcore with trace queries, 500 states, 4 letters (info)", "lstar.aalpy.500x4",
     "lstar.mbcore_traces.500x4", "info", None),
    ("L*: AALpy / mbcore, 10 states, 2 letters (info)", "lstar.aalpy.10x2",
     "lstar.mbcore.10x2", "info", None),
    ("L*: AALpy / mbcore, 10 states, 4 letters (info)", "lstar.aalpy.10x4",
     "lstar.mbcore.10x4", "info", None),
    ("L*: AALpy / mbcore, 50 states, 2 letters (info)", "lstar.aalpy.50x2",
     "lstar.mbcore.50x2", "info", None),
    ("L*: AALpy / mbcore, 50 states, 4 letters (info)", "lstar.aalpy.50x4",
     "lstar.mbcore.50x4", "info", None),
    ("L*: AALpy / mbcore, 100 states, 2 letters (info)", "lstar.aalpy.100x2",
     "lstar.mbcore.100x2", "info", None),
    ("L*: AALpy / mbcore, 100 states, 4 letters (info)", "lstar.aalpy.100x4",
     "lstar.mbcore.100x4", "info", None),
    ("L*: twin / mbcore, 10 states, 2 letters (info)", "lstar.twin.10x2",
     "lstar.mbcore.10x2", "info", None),
    ("L*: twin / mbcore, 10 states, 4 letters (info)", "lstar.twin.10x4",
     "lstar.mbcore.10x4", "info", None),
    ("L*: twin / mbcore, 100 states, 2 letters (info)", "lstar.twin.100x2",
     "lstar.mbcore.100x2", "info", None),
    ("L*: twin / mbcore, 100 states, 4 letters (info)", "lstar.twin.100x4",
     "lstar.mbcore.100x4", "info", None),
    ("L*: twin / mbcore, 500 states, 2 letters (info)", "lstar.twin.500x2",
     "lstar.mbcore.500x2", "info", None),
    ("L*: twin / mbcore, 500 states, 4 letters (info)", "lstar.twin.500x4",
     "lstar.mbcore.500x4", "info", None),
]


def results_from_json(doc):
    """{key: {"min", "median", "rounds", "rows"}} from a pytest-benchmark JSON document."""
    out = {}
    for b in doc.get("benchmarks", []):
        info = b.get("extra_info") or {}
        key = info.get("key")
        if key is None or not b.get("stats"):
            continue
        s = b["stats"]
        out[key] = {"min": s["min"], "median": s["median"], "rounds": s["rounds"],
                    "rows": info.get("rows", 1)}
    return out


def _per_row(r, stat):
    return r[stat] / r["rows"]


def compute(results):
    """One dict per entry of RATIOS that has data: label, kind, target, by_min, by_median, met."""
    rows = []
    for label, num, den, kind, target in RATIOS:
        a = results.get(num)
        b = results.get(den) if den else None
        if a is None or (den and b is None):
            continue
        vals = {}
        for stat in ("min", "median"):
            if kind == "abs_us":
                vals[stat] = a[stat] * 1e6
            elif kind == "ns_per_row":
                vals[stat] = _per_row(a, stat) * 1e9
            elif kind == "abs_ms":
                vals[stat] = a[stat] * 1e3
            else:
                vals[stat] = _per_row(a, stat) / _per_row(b, stat)
        met = {}
        for stat, v in vals.items():
            if kind in ("le", "abs_us", "ns_per_row") and target is not None:
                met[stat] = v <= target
            elif kind == "ge":
                met[stat] = v >= target
        rows.append({"label": label, "kind": kind, "target": target, "by_min": vals["min"],
                     "by_median": vals["median"], "met": met})
    return rows


def _target_text(kind, target):
    if target is None:
        return "-"
    if kind == "le":
        return f"<= {target:g}x"
    if kind == "ge":
        return f">= {target:g}x"
    if kind == "abs_us":
        return f"<= {target:g} us"
    if kind == "ns_per_row":
        return f"<= {target:g} ns"
    return "-"


def _verdict(met):
    if not met:
        return "-"
    if met["min"] and met["median"]:
        return "MET"
    if met["min"]:
        return "met by min only"
    if met["median"]:
        return "met by median only"
    return "NOT MET"


def _fmt(kind, v):
    if kind in ("abs_us", "abs_ms"):
        return f"{v:.3g}" if v < 100 else f"{v:.0f}"
    return f"{v:.3f}" if v < 10 else f"{v:.1f}"


def format_table(results, title="mbcore benchmark ratios (one run)"):
    lines = [title, ""]
    head = f"{'ratio':<62} {'by min':>9} {'by median':>10} {'target':>10}  verdict"
    lines += [head, "-" * len(head)]
    for r in compute(results):
        lines.append(f"{r['label']:<62} {_fmt(r['kind'], r['by_min']):>9} "
                     f"{_fmt(r['kind'], r['by_median']):>10} "
                     f"{_target_text(r['kind'], r['target']):>10}  {_verdict(r['met'])}")
    lines += ["", "x = ratio of per-row times (same-session); abs rows are per call.",
              "verdict: MET = met by both the min and the median of the rounds."]
    return "\n".join(lines)


def format_times(results):
    lines = [f"{'benchmark key':<40} {'rows':>8} {'min':>12} {'median':>12} {'rounds':>7}"]
    for k in sorted(results):
        r = results[k]
        lines.append(f"{k:<40} {r['rows']:>8} {_t(r['min']):>12} {_t(r['median']):>12} "
                     f"{r['rounds']:>7}")
    return "\n".join(lines)


def _t(s):
    if s >= 1.0:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3f} ms"
    return f"{s * 1e6:.3f} us"


def _better(kind, vals):
    if kind in ("ge",):
        return max(vals)
    if kind in ("le", "abs_us", "abs_ms"):
        return min(vals)
    return None


def compare(runs):
    """One line per ratio: its by-min value in each run and the better of the runs."""
    tables = [{r["label"]: r for r in compute(res)} for res in runs]
    labels = [lab for lab, *_ in RATIOS if any(lab in t for t in tables)]
    head = f"{'ratio (by min)':<62} " + " ".join(f"{'run ' + str(i + 1):>9}"
                                                    for i in range(len(runs))) + \
        f" {'better':>9} {'target':>10}"
    lines = [head, "-" * len(head)]
    for lab in labels:
        rs = [t.get(lab) for t in tables]
        kind = next(r for r in rs if r)["kind"]
        target = next(r for r in rs if r)["target"]
        vals = [r["by_min"] for r in rs if r]
        cells = " ".join(f"{_fmt(kind, r['by_min']) if r else '-':>9}" for r in rs)
        best = _better(kind, vals)
        lines.append(f"{lab:<62} {cells} {(_fmt(kind, best) if best is not None else '-'):>9} "
                     f"{_target_text(kind, target):>10}")
    return "\n".join(lines)


def _verdict_runs(rs):
    mets = [r["met"] for r in rs if r and r["met"]]
    if not mets:
        return "-"
    every = [m["min"] and m["median"] for m in mets]
    none = [not (m["min"] or m["median"]) for m in mets]
    if all(every):
        return "met"
    if all(none):
        return "**not met**"
    return "mixed"


def markdown(runs):
    """The comparison as a Markdown table: min / median of each run, better of runs (by min)."""
    tables = [{r["label"]: r for r in compute(res)} for res in runs]
    labels = [lab for lab, *_ in RATIOS if any(lab in t for t in tables)]
    head = "| ratio | " + " | ".join(f"run {i + 1} min / median" for i in range(len(runs))) + \
        " | better of runs (min) | target | verdict |"
    lines = [head, "|" + "---|" * (len(runs) + 4)]
    for lab in labels:
        rs = [t.get(lab) for t in tables]
        first = next(r for r in rs if r)
        kind, target = first["kind"], first["target"]
        cells = " | ".join(f"{_fmt(kind, r['by_min'])} / {_fmt(kind, r['by_median'])}" if r
                           else "-" for r in rs)
        best = _better(kind, [r["by_min"] for r in rs if r])
        lines.append(f"| {lab} | {cells} | {_fmt(kind, best) if best is not None else '-'} | "
                     f"{_target_text(kind, target).replace('<=', '≤').replace('>=', '≥')} | "
                     f"{_verdict_runs(rs)} |")
    return "\n".join(lines)


def markdown_times(runs):
    """Per-call times of every benchmark, min / median of each run, as a Markdown table."""
    keys = sorted(set().union(*runs))
    lines = ["| benchmark key | rows per call | " +
             " | ".join(f"run {i + 1} min / median" for i in range(len(runs))) + " |",
             "|" + "---|" * (len(runs) + 2)]
    for k in keys:
        rows = next(res[k]["rows"] for res in runs if k in res)
        cells = " | ".join(f"{_t(res[k]['min'])} / {_t(res[k]['median'])}" if k in res else "-"
                           for res in runs)
        lines.append(f"| {k} | {rows:,} | {cells} |")
    return "\n".join(lines)


def main(argv):
    md = "--markdown" in argv
    argv = [a for a in argv if a != "--markdown"]
    if not argv:
        print(__doc__)
        return 2
    runs = []
    if md:
        for path in argv:
            with open(path) as fh:
                runs.append(results_from_json(json.load(fh)))
        print(markdown(runs))
        print()
        print(markdown_times(runs))
        return 0
    for path in argv:
        with open(path) as fh:
            doc = json.load(fh)
        res = results_from_json(doc)
        runs.append(res)
        mi = doc.get("machine_info", {})
        print(f"== {path}  ({doc.get('datetime', '?')}, "
              f"{mi.get('mbcore_cpu_model') or mi.get('cpu', {}).get('brand_raw', '?')})")
        print(format_times(res))
        print()
        print(format_table(res))
        print()
    if len(runs) > 1:
        print(compare(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
