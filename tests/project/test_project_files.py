"""The files every package has, and references that stay inside the project.

* No file of the project names a file outside it (the notes and design documents it was
  written from are cited by name, never by path): every text file the project holds is
  searched for the names below.
* ``LICENSE`` is the BSD-3-Clause text; ``pyproject.toml`` declares it as an SPDX expression
  with ``license-files`` (PEP 639).
* ``CITATION.cff`` has the keys CFF 1.2.0 requires (and the ones this project fills in), its
  version is the package's, and ``CHANGELOG.md`` has a section for that version.

Everything is read from the source tree, nothing imported; run from an unpacked sdist (no
``.git``) the tree is walked instead of asking git for its files.
"""

import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Names of files outside the project, written in pieces so that this file does not name them.
OUTSIDE = ("ALGORITHMS" + ".md", "DESIGN" + ".md", ".." + "/shared", "seeds" + "/")

# Folders of binary data (the bundled datasets, saved-learner fixtures): their text files
# (README.md, make_files.py) are still searched.
DATA_DIRS = ("mbcore/datasets/data/", "tests/fixtures/")
# What a tree walk skips (build output, caches, environments).
SKIP_DIRS = {".git", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis",
             ".benchmarks", ".mypy_cache", ".eggs"}


def project_files():
    """The project's files, relative to ROOT: git's tracked and new (not ignored) files."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
        files = [f for f in out.decode("utf-8").split("\0") if f]
    except (OSError, subprocess.SubprocessError):
        files = []
    if files:
        return [f for f in files if os.path.isfile(os.path.join(ROOT, f))]
    found = []
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")
                   and not d.startswith(".venv")]
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), ROOT).replace(os.sep, "/")
            found.append(rel)
    return found


def read_text(rel):
    """The file's text, or None for a binary file (NUL bytes or not UTF-8)."""
    with open(os.path.join(ROOT, rel), "rb") as f:
        data = f.read()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def outside_references(text):
    """(line number, name) of every name of an outside file in the text."""
    return [(no, name) for no, line in enumerate(text.splitlines(), 1)
            for name in OUTSIDE if name in line]


def read(name):
    path = os.path.join(ROOT, name)
    if not os.path.isfile(path):
        pytest.fail(f"{name} is missing from the project")
    with open(path, encoding="utf-8") as f:
        return f.read()


def pyproject():
    try:
        import tomllib
    except ImportError:               # Python < 3.11
        tomllib = pytest.importorskip("tomli")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def cff_top_level(text):
    """The top-level keys of a CFF file and their scalar values (None for a block)."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z][\w-]*):(.*)$", line)
        if m:
            value = m.group(2).strip()
            if value.startswith("#"):
                value = ""
            out[m.group(1)] = value.strip("'\"") if value and value not in (">", ">-", "|",
                                                                              "|-") else None
    return out


# -- references -----------------------------------------------------------------------------------

def test_the_project_files_are_found():
    files = project_files()
    for name in ("README.md", "pyproject.toml", "mbcore/__init__.py",
                 "tests/project/test_project_files.py"):
        assert name in files


def test_no_file_names_a_file_outside_the_project():
    bad = []
    searched = 0
    for rel in project_files():
        text = read_text(rel)
        if text is None:
            assert rel.startswith(DATA_DIRS) or rel.endswith((".png", ".npz", ".gz")), \
                f"{rel}: a binary file outside the data folders"
            continue
        searched += 1
        bad += [f"{rel}:{no}: {name}" for no, name in outside_references(text)]
    assert searched > 50
    assert not bad, "files naming a file outside the project:\n" + "\n".join(bad)


@pytest.mark.parametrize("text", [
    "see ALGORITHMS" + ".md, section 3",
    "the layout of DESIGN" + ".md",
    "from ../" + "shared/notes",
    "the notes in seeds" + "/lecture3.txt",
])
def test_the_search_finds_each_outside_name(text):
    assert outside_references("first line\n" + text) == [
        (2, next(n for n in OUTSIDE if n in text))]


# -- LICENSE and pyproject ------------------------------------------------------------------------

BSD3_CLAUSES = (
    "Redistribution and use in source and binary forms, with or without modification, are "
    "permitted provided that the following conditions are met:",
    "1. Redistributions of source code must retain the above copyright notice, this list of "
    "conditions and the following disclaimer.",
    "2. Redistributions in binary form must reproduce the above copyright notice, this list of "
    "conditions and the following disclaimer in the documentation and/or other materials "
    "provided with the distribution.",
    "3. Neither the name of the copyright holder nor the names of its contributors may be used "
    "to endorse or promote products derived from this software without specific prior written "
    "permission.",
    'THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY '
    "EXPRESS OR IMPLIED WARRANTIES,",
    "EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.",
)


def test_license_is_bsd_3_clause():
    text = read("LICENSE")
    flat = " ".join(text.split())
    assert text.splitlines()[0].strip() == "BSD 3-Clause License"
    assert re.search(r"^Copyright \(c\) \d{4}(-\d{4})?, the mbcore developers$", text, re.M)
    for clause in BSD3_CLAUSES:
        assert clause in flat, f"LICENSE lacks: {clause[:60]}..."
    assert "4." not in flat.split("THIS SOFTWARE")[0]       # three clauses, not four


def test_pyproject_declares_the_spdx_license_and_its_file():
    meta = pyproject()
    project = meta["project"]
    assert project["license"] == "BSD-3-Clause"             # an SPDX expression, not a table
    assert project["license-files"] == ["LICENSE"]
    assert not any(c.startswith("License ::") for c in project.get("classifiers", ()))
    # PEP 639 metadata needs setuptools >= 77 at build time
    requires = meta["build-system"]["requires"]
    st = [r for r in requires if re.match(r"setuptools\b", r)]
    assert st, requires
    m = re.search(r">=\s*(\d+)", st[0])
    assert m and int(m.group(1)) >= 77, st[0]


def test_the_sdist_carries_the_project_files():
    manifest = read("MANIFEST.in").split()
    for name in ("LICENSE", "CHANGELOG.md", "CITATION.cff"):
        assert name in manifest


# -- CITATION.cff and CHANGELOG.md ----------------------------------------------------------------

CFF_REQUIRED = ("cff-version", "message", "title", "authors")          # CFF 1.2.0
CFF_FILLED = ("type", "abstract", "license", "version", "date-released", "keywords", "references")


def test_citation_has_the_keys_and_the_package_version():
    text = read("CITATION.cff")
    keys = cff_top_level(text)
    for key in CFF_REQUIRED + CFF_FILLED:
        assert key in keys, f"CITATION.cff lacks {key}"
    assert keys["cff-version"] == "1.2.0"
    assert keys["title"] == "mbcore"
    assert keys["license"] == "BSD-3-Clause"
    assert keys["version"] == pyproject()["project"]["version"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", keys["date-released"])
    assert re.search(r"^authors:\n  - name: \"?The mbcore developers\"?$", text, re.M)
    try:
        import yaml
    except ImportError:
        return
    doc = yaml.safe_load(text)                                         # it parses as YAML
    assert str(doc["version"]) == keys["version"]
    assert doc["authors"] == [{"name": "The mbcore developers"}]
    assert doc["keywords"] and all(isinstance(k, str) for k in doc["keywords"])
    for ref in doc["references"]:
        assert ref["type"] and ref["title"] and ref["authors"] and ref["year"], ref


def test_changelog_has_a_section_for_the_package_version():
    text = read("CHANGELOG.md")
    version = pyproject()["project"]["version"]
    heads = re.findall(r"^## \[([^\]]+)\]", text, re.M)
    assert version in heads, f"CHANGELOG.md has no '## [{version}]' section: {heads}"
    assert heads[0] in ("Unreleased", version)           # newest first
    section = text.split(f"## [{version}]", 1)[1].split("\n## ", 1)[0]
    assert "### Added" in section or "### Changed" in section or "### Fixed" in section
