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
  documentation tools are not installed (``pip install '.[docs]'``).  With the next test it is
  a long run (``pytest -m longrun``, which CI runs): the build takes about two and a half
  minutes of one core, a third of the README's test command.
* ``test_the_pages_load_nothing_remote`` reads that same html build (one build for both, a
  fixture of this module): no page makes the browser fetch a script, stylesheet, font or image
  from another host (tags, inline and site-wide CSS, an inline MathJax configuration), and the
  pages with formulas load the MathJax the site serves.  Hyperlinks (``<a href>``) are fine.
* ``test_conf_*`` run docs/conf.py alone (no build) in a child Python, from a folder that
  stands for a checkout without a build: it imports the installed mbcore, never the source
  tree, and stops with a clear message where mbcore is not installed.
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
from html.parser import HTMLParser
from pathlib import Path

import pytest

import mbcore

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
API = DOCS / "api.rst"

# The public modules whose __all__ the reference documents (mbcore first).
MODULES = ("mbcore", "mbcore.bounds", "mbcore.margins", "mbcore.datasets", "mbcore.streaming",
           "mbcore.queries", "mbcore.distributed", "mbcore.persistence", "mbcore.exceptions")

# What the build imports: the Sphinx extensions and theme of docs/conf.py, matplotlib for the
# gallery, and what the pages' doctests use.
BUILD_NEEDS = ("sphinx", "numpydoc", "sphinx_gallery", "pydata_sphinx_theme", "matplotlib",
               "sklearn", "scipy", "dask", "sphinx-mathjax-offline")

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


@pytest.fixture(scope="module")
def html_build(tmp_path_factory):
    """The html build of the site, done once for the tests of this module that read it: the
    sources' copy, the finished process, the output folder, the doctrees and the environment."""
    missing = _missing_tools()
    if missing:
        pytest.skip(f"the documentation tools are not installed ({', '.join(missing)}): "
                    f"pip install '.[docs]' to build and check the site")
    tmp_path = tmp_path_factory.mktemp("site")
    src = tmp_path / "docs"
    shutil.copytree(DOCS, src, ignore=shutil.ignore_patterns(
        "_build", "generated", "auto_examples", "sg_execution_times.rst", "__pycache__"))
    env = dict(os.environ, MPLBACKEND="Agg")
    doctrees = tmp_path / "doctrees"     # shared: the doctest build reuses what html read
    start = time.monotonic()
    html = _sphinx("html", src, tmp_path / "html", doctrees, env)
    return {"src": src, "process": html, "out": tmp_path / "html", "doctrees": doctrees,
            "env": env, "seconds": time.monotonic() - start}


def _built(build):
    html = build["process"]
    assert html.returncode == 0, f"sphinx-build -b html failed:\n{html.stderr[-20000:]}"
    return build["out"]


@pytest.mark.longrun
def test_docs_build(html_build):
    out = _built(html_build)
    assert (out / "index.html").is_file()
    assert (out / "auto_examples" / "index.html").is_file()
    assert list((out / "_images").glob("sphx_glr_plot_*.png")), "the gallery produced no figure"

    start = time.monotonic()
    doctest = _sphinx("doctest", html_build["src"], out.parent / "doctest",
                      html_build["doctrees"], html_build["env"])
    output = doctest.stdout + doctest.stderr
    assert doctest.returncode == 0, f"sphinx-build -b doctest failed:\n{output[-20000:]}"
    report = (out.parent / "doctest" / "output.txt").read_text(encoding="utf-8")
    tests = re.search(r"^\s*(\d+) tests$", report, re.M)
    assert tests and int(tests.group(1)) > 0, "the pages ran no doctest"
    assert re.search(r"^\s*0 failures in tests$", report, re.M), report[-5000:]

    elapsed = html_build["seconds"] + time.monotonic() - start
    assert elapsed < BUILD_TIMEOUT, f"the documentation build took {elapsed:.0f} s"


# -- nothing remote in the built site ------------------------------------------------------

_REMOTE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.I)     # http://, https://, //host
# url(...) and @import "..." in a stylesheet or a style attribute
_CSS_URL = re.compile(r"""(?:url\(\s*|@import\s+(?!url\())["']?([^"')\s;]+)""", re.I)
# <link rel=...> values with which the browser fetches the target when the page loads
_LINK_LOADS = {"stylesheet", "preload", "modulepreload", "prefetch", "icon", "shortcut",
               "apple-touch-icon", "mask-icon", "manifest", "preconnect", "dns-prefetch"}
# elements whose attribute the browser loads (a hyperlink, <a href>, is only followed on a click)
_LOADED_ATTRS = {"script": ("src",), "img": ("src", "srcset"), "iframe": ("src",),
                 "source": ("src", "srcset"), "video": ("src", "poster"), "audio": ("src",),
                 "embed": ("src",), "object": ("data",), "track": ("src",), "input": ("src",)}


def _remote(url):
    return bool(_REMOTE.match(url or ""))


class _RemoteLoads(HTMLParser):
    """What one page makes the browser fetch from elsewhere: remote scripts, stylesheets, fonts
    and images, in tags, inline styles and inline scripts (a MathJax configuration pointing at a
    CDN); and the local scripts it loads."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found, self.scripts, self._inline = [], [], None

    def handle_starttag(self, tag, attrs):
        attrs = {name: value or "" for name, value in attrs}
        if tag == "link":
            rel = set(attrs.get("rel", "").lower().split())
            if rel & _LINK_LOADS and _remote(attrs.get("href")):
                self.found.append(f"<link rel={attrs['rel']} href={attrs['href']}>")
        for name in _LOADED_ATTRS.get(tag, ()):
            for url in re.split(r",\s*", attrs.get(name, "")):
                if _remote(url.split(" ")[0]):
                    self.found.append(f"<{tag} {name}={url}>")
        for url in _CSS_URL.findall(attrs.get("style", "")):
            if _remote(url):
                self.found.append(f"<{tag} style=...url({url})>")
        if tag == "script":
            if attrs.get("src"):
                self.scripts.append(attrs["src"])
            else:
                self._inline = []
        elif tag == "style":
            self._inline = []

    def handle_data(self, data):
        if self._inline is not None:
            self._inline.append(data)

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._inline is not None:
            text, self._inline = "".join(self._inline), None
            if tag == "style":
                self.found += [f"<style> url({url})" for url in _CSS_URL.findall(text)
                               if _remote(url)]
            elif "mathjax" in text.lower() and re.search(r"(?:https?:)?//[\w.-]+\.\w", text):
                self.found.append(f"<script> MathJax configuration with a remote URL: "
                                  f"{text.strip()[:200]}")


@pytest.mark.longrun
def test_the_pages_load_nothing_remote(html_build):
    """Offline, the site looks as it does online: no page loads a script, stylesheet, font or
    image from another host, and every page with a formula typesets it with the MathJax the site
    serves (docs/conf.py), not with one from a CDN."""
    out = _built(html_build)
    remote, math_pages, mathjax_missing = [], 0, []
    for page in sorted(out.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        parser = _RemoteLoads()
        parser.feed(text)
        name = page.relative_to(out).as_posix()
        remote += [f"{name}: {what}" for what in parser.found]
        if 'class="math' in text:
            math_pages += 1
            local = [src for src in parser.scripts if "mathjax" in src.lower()
                     and not _remote(src)
                     and (page.parent / src.split("?")[0]).resolve().is_file()]
            if not local:
                mathjax_missing.append(name)
    for css in sorted(out.rglob("*.css")):
        name = css.relative_to(out).as_posix()
        remote += [f"{name}: url({url})" for url in
                   _CSS_URL.findall(css.read_text(encoding="utf-8", errors="replace"))
                   if _remote(url)]
    assert not remote, (f"the built site loads {len(remote)} remote resource(s) (nothing may "
                        f"be fetched from elsewhere when a page is viewed):\n"
                        + "\n".join(remote[:40]))
    assert math_pages, "no page of the site has a formula (class=math): is the check looking?"
    assert not mathjax_missing, (f"pages with formulas that load no MathJax served by the site: "
                                 f"{mathjax_missing[:20]}")


def test_the_remote_check_finds_what_a_browser_would_fetch():
    """The check above on small pages: what the browser loads from elsewhere is found, plain
    hyperlinks and local files are not."""
    def found(html):
        parser = _RemoteLoads()
        parser.feed(html)
        return parser.found

    for page in (
            '<script src="https://cdn.jsdelivr.net/npm/mathjax@4/tex-mml-chtml.js"></script>',
            '<script defer src="//cdn.example.org/x.js"></script>',
            '<link rel="stylesheet" href="https://fonts.example.org/css?family=Lato">',
            '<link href="http://example.org/a.css" rel="preload stylesheet">',
            '<style>@import url(https://fonts.example.org/css);</style>',
            '<style>@font-face { src: url("https://example.org/f.woff2") }</style>',
            '<div style="background: url(http://example.org/b.png)"></div>',
            '<img src="https://example.org/logo.png">',
            '<script>window.MathJax = {loader: {paths: {mathjax: "https://cdn.example.org/mj"}}}'
            '</script>'):
        assert found(page), page
    for page in ('<a href="https://example.org/paper.pdf">the paper</a>',
                 '<link rel="canonical" href="https://example.org/mbcore/">',
                 '<script src="_static/mathjax/tex-chtml.js?v=1"></script>',
                 '<link rel="stylesheet" href="../_static/styles/theme.css">',
                 '<style>.x { background: url(../_static/a.png) }</style>',
                 '<script>window.MathJax = {tex: {inlineMath: [["\\\\(", "\\\\)"]]}}</script>'):
        assert not found(page), page


# -- docs/conf.py imports the installed mbcore ---------------------------------------------
#
# Cheap checks, without a build: conf.py is run (runpy) in a child Python laid out as
# ``python -m sphinx`` would be, from a folder that stands for the repository's root.

CONF_NEEDS = ("sphinx", "matplotlib", "sphinx-mathjax-offline")


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
