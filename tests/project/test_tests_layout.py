"""The layout of tests/ (tests/README.md): every test file sits in a folder that is a suite,
every suite is a registered marker that the README describes, and no test module imports
another (what several files share lives in the support modules beside conftest.py).

Read from the files (``ast``, the TOML of pyproject.toml), nothing imported.
"""

import ast
import os

import pytest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TESTS)
# folders of tests/ that hold no tests
NOT_SUITES = {"fixtures", "__pycache__"}


def layout_files():
    """Every test_*.py under tests/, relative to tests/."""
    out = []
    for folder, dirs, names in os.walk(TESTS):
        dirs[:] = sorted(d for d in dirs if d not in NOT_SUITES and not d.startswith((".", "_")))
        out += [os.path.relpath(os.path.join(folder, n), TESTS) for n in sorted(names)
                if n.startswith("test_") and n.endswith(".py")]
    return out


def markers():
    try:
        import tomllib
    except ImportError:               # Python < 3.11
        tomllib = pytest.importorskip("tomli")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        lines = tomllib.load(f)["tool"]["pytest"]["ini_options"]["markers"]
    return {line.split(":", 1)[0].strip() for line in lines}


def test_the_test_files_are_found():
    files = layout_files()
    assert len(files) > 40
    assert os.path.join("project", "test_tests_layout.py") in files


def test_every_test_file_is_in_a_suite_folder():
    at_root = [f for f in layout_files() if os.sep not in f]
    assert not at_root, f"test files outside the suite folders of tests/: {at_root}"


def test_every_suite_is_a_registered_marker_the_readme_describes():
    suites = {f.split(os.sep)[0] for f in layout_files() if os.sep in f}
    registered = markers()
    with open(os.path.join(TESTS, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    assert not suites - registered, "folders without a marker in pyproject.toml"
    assert {"longrun", "checked", "sanitized"} <= registered
    assert [s for s in sorted(suites) if f"`{s}/`" not in readme] == []


def test_no_test_module_imports_another():
    found = []
    for rel in layout_files() + sorted(f for f in os.listdir(TESTS) if f.endswith(".py")):
        with open(os.path.join(TESTS, rel), encoding="utf-8") as f:
            tree = ast.parse(f.read(), rel)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            found += [f"{rel}:{node.lineno}: {n}" for n in names
                      if n.split(".")[0].startswith("test_")]
    assert not found, "test modules imported (move what they share next to conftest.py):\n" + \
        "\n".join(found)
