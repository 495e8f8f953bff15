"""The release: one version everywhere, and a wheel that carries what a user runs and nothing else.

* The version is written once, in ``pyproject.toml``; ``mbcore.__version__`` and
  ``mbref.__version__`` read it from the installed metadata.  ``CITATION.cff``, the first
  release of ``CHANGELOG.md`` (and its date) and the docs' title must say the same.
* The installed package (a wheel, or ``pip install .``, which builds one) carries no build
  sources (``.pyx``, ``.pxd``, ``.pxi``, ``.h``, ``.c``, the template) and its compiled modules
  are stripped (on Linux: no symbol table, no debug sections).  An editable install maps the
  source tree itself: those checks skip there.
* ``MBCORE_TEST_WHEEL=1`` (cibuildwheel's test-command and CI's wheel check set it) also
  checks that the tests run against the installed package, not a source tree beside them.

The tests marked ``smoke`` here join the subset every built wheel is tested with.
"""

import os
import re
import runpy
import struct
import sys
from importlib import metadata

import pytest

import mbcore
import mbref

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD_SOURCES = (".pyx", ".pxd", ".pxi", ".h", ".c", ".tp")


def _source_file(name):
    path = os.path.join(ROOT, name)
    if not os.path.isfile(path):
        pytest.skip(f"{name} is not beside the tests (not a source checkout)")
    with open(path, encoding="utf-8") as f:
        return f.read()


def _pyproject_version():
    text = _source_file("pyproject.toml")
    project = text.split("\n[project]\n", 1)[1].split("\n[", 1)[0]
    found = re.findall(r'^version\s*=\s*"([^"]+)"\s*$', project, re.M)
    assert len(found) == 1, f"[project] should set version once: {found}"
    return found[0]


@pytest.mark.smoke
def test_both_packages_report_the_installed_version():
    installed = metadata.version("mbcore")
    assert mbcore.__version__ == installed
    assert mbref.__version__ == installed
    assert re.fullmatch(r"\d+\.\d+\.\d+", installed), installed


def test_every_place_gives_the_same_version():
    version = _pyproject_version()
    assert mbcore.__version__ == version, (
        f"the installed mbcore is {mbcore.__version__}, pyproject.toml says {version}: "
        "reinstall (pip install .)")
    cff = _source_file("CITATION.cff")
    assert re.search(rf"^version: {re.escape(version)}$", cff, re.M), "CITATION.cff's version"
    changelog = _source_file("CHANGELOG.md")
    releases = re.findall(r"^## \[(\d[^\]]*)\] - (\d{4}-\d{2}-\d{2})$", changelog, re.M)
    assert releases, "CHANGELOG.md has no release section"
    assert releases[0][0] == version, f"CHANGELOG.md's newest release is {releases[0][0]}"
    date = re.search(r'^date-released: "?(\d{4}-\d{2}-\d{2})"?$', cff, re.M).group(1)
    assert releases[0][1] == date, "CHANGELOG.md's release date and CITATION.cff's differ"


def test_no_version_is_written_in_the_code():
    """The packages read the version; a literal would drift at the next release."""
    for package in ("mbcore", os.path.join("python", "mbref")):
        folder = os.path.join(ROOT, package)
        if not os.path.isdir(folder):
            pytest.skip("not a source checkout")
        for dirpath, _dirs, names in os.walk(folder):
            for name in names:
                if name.endswith(".py"):
                    with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                        text = f.read()
                    assert not re.search(r"^__version__\s*=\s*['\"]", text, re.M), name


def test_the_docs_title_is_the_version():
    pytest.importorskip("matplotlib")
    pytest.importorskip("sphinx")
    conf = os.path.join(ROOT, "docs", "conf.py")
    if not os.path.isfile(conf):
        pytest.skip("not a source checkout")
    namespace = runpy.run_path(conf)
    assert namespace["release"] == mbcore.__version__
    assert namespace["html_title"] == f"mbcore {mbcore.__version__}"


# -- what the installed package carries -----------------------------------------------------------

def _installed_files():
    """The files the installed distribution put under mbcore/, or None for an editable install
    (which maps the source tree)."""
    files = metadata.files("mbcore") or []
    ours = [f for f in files if f.parts and f.parts[0] == "mbcore"]
    if not any(f.parts[:2] == ("mbcore", "_kernels") for f in ours):
        return None
    return ours


def _elf_section_names(path):
    """The section names of a 64-bit little-endian ELF file (None for another format)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x7fELF\x02\x01":
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + k * shentsize) for k in range(shnum)]
    str_off, str_size = headers[shstrndx][4], headers[shstrndx][5]
    table = data[str_off:str_off + str_size]
    return {table[h[0]:table.index(b"\0", h[0])].decode() for h in headers}


@pytest.mark.smoke
def test_the_installed_package_carries_no_build_sources():
    files = _installed_files()
    if files is None:
        pytest.skip("an editable install maps the source tree")
    sources = [str(f) for f in files if str(f).endswith(BUILD_SOURCES)]
    assert not sources, f"build sources installed: {sources}"
    modules = [f for f in files if str(f).endswith((".so", ".pyd"))]
    assert len(modules) >= 9, modules
    stubs = {f.name for f in files if str(f).endswith(".pyi")}
    assert "linear.pyi" in stubs and any(f.name == "py.typed" for f in files)


@pytest.mark.smoke
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF modules are Linux's")
def test_the_installed_modules_are_stripped():
    files = _installed_files()
    if files is None:
        pytest.skip("an editable install maps the source tree")
    for f in files:
        if str(f).endswith(".so"):
            names = _elf_section_names(f.locate())
            assert names is not None and ".dynsym" in names, f
            assert not names & {".symtab", ".debug_info", ".debug_line"}, (f, sorted(names))


@pytest.mark.smoke
@pytest.mark.skipif(os.environ.get("MBCORE_TEST_WHEEL") != "1",
                    reason="MBCORE_TEST_WHEEL=1 is set where a built wheel is tested")
def test_the_tests_run_against_the_installed_wheel():
    assert _installed_files() is not None, "mbcore is not installed from a wheel"
    import importlib
    for module in (mbcore, mbref, importlib.import_module("mbcore._kernels.linear")):
        path = os.path.abspath(module.__file__)
        assert os.path.commonpath([path, ROOT]) != ROOT, f"{module.__name__} comes from {path}"


# What the wheel's smoke environment installs beside the wheel (.ci/wheel: pytest, hypothesis,
# SciPy; NumPy comes with mbcore).  Every test module is collected there, so a module-level
# import of anything else (threadpoolctl, pandas, ...) stops the whole smoke run: import it
# inside the test, or guard it with ``try: ... except ImportError``.
SMOKE_ENVIRONMENT = {"numpy", "pytest", "hypothesis", "scipy", "mbcore", "mbref", "_pytest"}


def _unguarded_imports(path):
    import ast
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:                      # module level only; a try block is a guard
        call = getattr(node, "value", None)
        if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "importorskip":
            return                              # the module is skipped from here on
        if isinstance(node, ast.Import):
            yield from ((node.lineno, a.name.split(".")[0]) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.split(".")[0]


def _test_modules():
    tests = os.path.join(ROOT, "tests")
    for folder, _, files in os.walk(tests):
        for name in files:
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def _foreign_imports(paths):
    tests = os.path.join(ROOT, "tests")
    local = {os.path.splitext(n)[0] for _, _, fs in os.walk(tests) for n in fs}
    allowed = set(sys.stdlib_module_names) | SMOKE_ENVIRONMENT | local
    return [(os.path.relpath(p, ROOT), line, name) for p in paths
            for line, name in _unguarded_imports(p) if name not in allowed]


def test_every_test_module_imports_in_the_smoke_environment():
    if not os.path.isfile(os.path.join(ROOT, "tests", "conftest.py")):
        pytest.skip("the tests are not beside a source checkout")
    assert _foreign_imports(_test_modules()) == []
    wheel = _source_file(os.path.join(".ci", "wheel"))
    for name in SMOKE_ENVIRONMENT - {"numpy", "mbcore", "mbref", "_pytest"}:
        assert re.search(rf'"{name}[>=<"]', wheel), f".ci/wheel no longer installs {name}"


def test_the_smoke_import_check_can_fail(tmp_path):
    bad = tmp_path / "test_bad.py"
    bad.write_text("import math\nfrom threadpoolctl import threadpool_limits\n"
                   "try:\n    import pandas\nexcept ImportError:\n    pandas = None\n"
                   "river = pytest.importorskip('river')\nimport river\n")
    assert _foreign_imports([str(bad)]) == [(os.path.relpath(str(bad), ROOT), 2, "threadpoolctl")]
