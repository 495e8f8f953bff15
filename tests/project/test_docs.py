"""The documentation site (docs/): every public name has a page, and the site builds.

* ``test_every_public_name_is_in_the_api_reference`` reads docs/api.rst as text (no Sphinx
  needed): every name of ``mbcore.__all__`` and of each public submodule's ``__all__`` must be
  listed in an ``autosummary`` table of its module's section, and must have a page (a
  ``:toctree:`` entry, there or, for a name a submodule shares with ``mbcore``, in the section
  of ``mbcore``).
* ``test_docs_build`` builds the site as CI does, ``sphinx-build -W --keep-going -n`` (warnings
  are errors, every cross-reference checked), in HTML (which executes the sphinx-gallery
  examples) and then with the doctest builder (the examples of the pages), on a copy of docs/
  so that nothing is written into the source tree.  It is skipped, saying so, when the
  documentation tools are not installed (``pip install '.[docs]'``).
"""

import importlib
import importlib.util
import inspect
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mbcore

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
API = DOCS / "api.rst"

# The public modules whose __all__ the reference documents (mbcore first).
MODULES = ("mbcore", "mbcore.bounds", "mbcore.datasets", "mbcore.streaming", "mbcore.queries",
           "mbcore.distributed", "mbcore.persistence", "mbcore.exceptions")

# What the build imports: the Sphinx extensions and theme of docs/conf.py, matplotlib for the
# gallery, and what the pages' doctests use.
BUILD_NEEDS = ("sphinx", "numpydoc", "sphinx_gallery", "pydata_sphinx_theme", "matplotlib",
               "sklearn", "scipy", "dask")

BUILD_TIMEOUT = 900          # seconds, both builders together (about 2 minutes on 2 cores)


# -- docs/api.rst, read as text ------------------------------------------------------------

_DIRECTIVE = re.compile(r"^\.\. (\w[\w:-]*)::\s*(.*)$")


def _autosummary_entries(text):
    """Yield (current module, entry, has_toctree) for every entry of every autosummary."""
    module = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _DIRECTIVE.match(lines[i])
        i += 1
        if not m:
            continue
        name, arg = m.group(1), m.group(2).strip()
        if name in ("currentmodule", "py:currentmodule", "module", "py:module"):
            module = None if arg == "None" else arg
            continue
        if name != "autosummary":
            continue
        toctree = False
        # options (indented ':name: value' lines), then a blank line, then indented entries
        while i < len(lines) and lines[i].strip().startswith(":"):
            toctree = toctree or lines[i].strip().startswith(":toctree:")
            i += 1
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
            entry = lines[i].strip()
            i += 1
            if entry and not entry.startswith(".."):
                yield module, entry.lstrip("~"), toctree


def _resolve(module, entry):
    """The object an autosummary entry names (as Sphinx tries it: in the current module, then
    as a full name), and the full name it was found under; (None, None) if neither imports."""
    for full in ([f"{module}.{entry}"] if module else []) + [entry]:
        parts = full.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                break
            return obj, full
    return None, None


def _same(a, b):
    # Classes, functions and modules are compared by identity; constants (ints, strings,
    # dicts) by the full name alone, since equal small values may be one object.
    return a is b and (inspect.isclass(a) or inspect.isroutine(a) or inspect.ismodule(a))


def test_every_public_name_is_in_the_api_reference():
    entries = list(_autosummary_entries(API.read_text(encoding="utf-8")))
    assert entries, "docs/api.rst has no autosummary entries"

    unresolved = [(mod, entry) for mod, entry, _ in entries if _resolve(mod, entry)[0] is None]
    assert not unresolved, f"docs/api.rst lists names that do not import: {unresolved}"

    pages = {}                                   # full name -> object, for :toctree: entries
    for mod, entry, toctree in entries:
        if toctree:
            obj, full = _resolve(mod, entry)
            pages[full] = obj

    missing, no_page = [], []
    for modname in MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            obj = getattr(module, name)
            listed = []
            for mod, entry, _ in entries:
                if mod != modname or entry.rpartition(".")[2] != name:
                    continue
                found, full = _resolve(mod, entry)
                if full == f"{modname}.{name}" or _same(found, obj):
                    listed.append(full)
            if not listed:
                missing.append(f"{modname}.{name}")
                continue
            if not any(full in pages for full in listed) and \
                    not any(_same(page, obj) for page in pages.values()):
                no_page.append(f"{modname}.{name}")
    assert not missing, (f"public names missing from docs/api.rst (add each to an autosummary "
                         f"table of its module's section): {missing}")
    assert not no_page, f"public names without a page (no :toctree: entry): {no_page}"


def test_the_api_reference_lists_each_page_once():
    entries = list(_autosummary_entries(API.read_text(encoding="utf-8")))
    seen = {}
    for mod, entry, toctree in entries:
        if toctree:
            obj, full = _resolve(mod, entry)
            key = id(obj) if (inspect.isclass(obj) or inspect.isroutine(obj)) else full
            assert key not in seen, f"{full} and {seen[key]} are one object with two pages"
            seen[key] = full


# -- the build -----------------------------------------------------------------------------

def _missing_tools():
    return [name for name in BUILD_NEEDS if importlib.util.find_spec(name) is None]


def _sphinx(builder, src, out, doctrees, env):
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", builder,
           "-d", str(doctrees), str(src), str(out)]
    # Run from the copy's folder, as a user would run it from the repository's root (docs/conf.py
    # drops that folder from sys.path: see the tests of its import below).
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=src.parent,
                          timeout=BUILD_TIMEOUT)


def test_docs_build(tmp_path):
    missing = _missing_tools()
    if missing:
        pytest.skip(f"the documentation tools are not installed ({', '.join(missing)}): "
                    f"pip install '.[docs]' to build and check the site")
    src = tmp_path / "docs"
    shutil.copytree(DOCS, src, ignore=shutil.ignore_patterns(
        "_build", "generated", "auto_examples", "sg_execution_times.rst", "__pycache__"))
    env = dict(os.environ, MPLBACKEND="Agg")
    doctrees = tmp_path / "doctrees"     # shared: the doctest build reuses what html read

    start = time.monotonic()
    html = _sphinx("html", src, tmp_path / "html", doctrees, env)
    assert html.returncode == 0, f"sphinx-build -b html failed:\n{html.stderr[-20000:]}"
    assert (tmp_path / "html" / "index.html").is_file()
    assert (tmp_path / "html" / "auto_examples" / "index.html").is_file()
    assert list((tmp_path / "html" / "_images").glob("sphx_glr_plot_*.png")), \
        "the gallery produced no figure"

    doctest = _sphinx("doctest", src, tmp_path / "doctest", doctrees, env)
    output = doctest.stdout + doctest.stderr
    assert doctest.returncode == 0, f"sphinx-build -b doctest failed:\n{output[-20000:]}"
    report = (tmp_path / "doctest" / "output.txt").read_text(encoding="utf-8")
    tests = re.search(r"^\s*(\d+) tests$", report, re.M)
    assert tests and int(tests.group(1)) > 0, "the pages ran no doctest"
    assert re.search(r"^\s*0 failures in tests$", report, re.M), report[-5000:]

    elapsed = time.monotonic() - start
    assert elapsed < BUILD_TIMEOUT, f"the documentation build took {elapsed:.0f} s"


# -- docs/conf.py imports the installed mbcore ---------------------------------------------
#
# Cheap checks, without a build: conf.py is run (runpy) in a child Python laid out as
# ``python -m sphinx`` would be, from a folder that stands for the repository's root.

CONF_NEEDS = ("sphinx", "matplotlib")


def _fake_checkout(root):
    """A repository's root as a checkout without a build: docs/conf.py, and an mbcore/ whose
    import fails as the uncompiled sources would (no compiled kernels)."""
    (root / "docs").mkdir(parents=True)
    shutil.copy2(DOCS / "conf.py", root / "docs" / "conf.py")
    (root / "mbcore" / "_kernels").mkdir(parents=True)
    (root / "mbcore" / "__init__.py").write_text(
        "raise ImportError('the uncompiled source tree was imported (fake mbcore)')\n")
    (root / "mbcore" / "_kernels" / "__init__.py").write_text("")
    return root


_PROBE = """\
import runpy, sys
print("first:", sys.path[0])
runpy.run_path("docs/conf.py")
import mbcore
print("mbcore:", mbcore.__file__)
"""


@pytest.mark.parametrize("how", ["python -m", "python -c"])
def test_conf_imports_the_installed_package_not_the_source_tree(tmp_path, how):
    """``python -m sphinx`` from the root puts the root first on sys.path (``python -c``: '');
    conf.py must not import the uncompiled mbcore/ found there, but the installed one (here:
    the one this test imports)."""
    missing = [name for name in CONF_NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"docs/conf.py needs {', '.join(missing)}: pip install '.[docs]'")
    root = _fake_checkout(tmp_path / "checkout")
    (root / "_probe.py").write_text(_PROBE)
    cmd = ([sys.executable, "-m", "_probe"] if how == "python -m"
           else [sys.executable, "-c", _PROBE])
    run = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, MPLBACKEND="Agg"))
    assert run.returncode == 0, run.stdout + run.stderr[-5000:]
    lines = dict(line.split(":", 1) for line in run.stdout.splitlines() if ":" in line)
    # the layout is the one of the trap: the root ('' for -c) was first on sys.path ...
    first = lines["first"].strip()
    assert first == "" or Path(first).resolve() == root.resolve(), first
    # ... and the mbcore imported is the installed one, not the checkout's
    imported = Path(lines["mbcore"].strip()).resolve()
    assert root.resolve() not in imported.parents, f"conf.py imported {imported}"
    assert imported == Path(mbcore.__file__).resolve()


@pytest.mark.parametrize("fake", ["no kernels", "no package"])
def test_conf_says_when_mbcore_is_not_installed(tmp_path, fake):
    """Where mbcore (or its compiled kernels) does not import, the build stops at once with a
    message naming the interpreter and the command that installs the package; ``python -m
    sphinx`` shows it as a configuration error."""
    missing = [name for name in CONF_NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"docs/conf.py needs {', '.join(missing)}: pip install '.[docs]'")
    root = _fake_checkout(tmp_path / "checkout")
    # an mbcore first on the path (outside the root, so conf.py keeps it), standing for a
    # Python where the package is not installed: without its kernels, or not importable
    shadow = tmp_path / "shadow" / "mbcore"
    (shadow / "_kernels").mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        "" if fake == "no kernels" else "raise ImportError(\"No module named 'mbcore'\")\n")
    (shadow / "_kernels" / "__init__.py").write_text("")
    path = os.pathsep.join([str(shadow.parent)] + [p for p in
                                                   [os.environ.get("PYTHONPATH")] if p])
    run = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "docs",
                          str(tmp_path / "out")], cwd=root, capture_output=True, text=True,
                         timeout=300, env=dict(os.environ, PYTHONPATH=path, MPLBACKEND="Agg"))
    output = run.stdout + run.stderr
    assert run.returncode != 0, output[-5000:]
    assert "mbcore is not installed in this Python" in output, output[-5000:]
    assert sys.executable in output, output[-5000:]
    assert "pip install '.[docs]'" in output, output[-5000:]
    assert "fake mbcore" not in output, "the checkout's own mbcore/ was imported"
    assert not (tmp_path / "out" / "index.html").exists()
