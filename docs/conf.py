"""Sphinx configuration of the mbcore documentation.

Build it with (``pip install '.[docs]'`` first)::

    sphinx-build -W --keep-going -n -b html docs docs/_build/html          # the site
    sphinx-build -W --keep-going -n -b doctest docs docs/_build/doctest    # its examples

then open ``docs/_build/html/index.html``.  ``-W`` turns every warning into an error and ``-n``
(nitpicky) checks every cross-reference; the html build also runs the gallery's scripts.
tests/project/test_docs.py runs both builds.

The pages document the installed mbcore (its compiled kernels and their docstrings), never the
source tree.  ``python -m sphinx`` run from the repository's root puts the root first on
``sys.path``, where ``import mbcore`` would find the uncompiled sources; so this file first
drops every ``sys.path`` entry that points at the repository's root (``''`` or the root's path),
then imports mbcore and its kernels, and stops the build with a message naming the interpreter
when they do not import there.  An editable install (``pip install -e``) is found through its
own import hook, not through ``sys.path``, and keeps working.

Nothing is fetched from the network, neither by the build nor by the pages it writes:

* there is no intersphinx mapping, so references to NumPy, SciPy, scikit-learn or Python
  objects render as plain names (see ``nitpick_ignore`` below);
* MathJax, which typesets the formulas, is served by the site itself (``_static/mathjax/``):
  the copy of MathJax 3.2.2 shipped by the ``sphinx-mathjax-offline`` package (a ``docs``
  extra), instead of Sphinx's default, a CDN;
* sphinx-gallery's tables of execution times, which load jQuery and DataTables from CDNs, are
  not written.

tests/project/test_docs.py checks that no page of the built site loads a remote script,
stylesheet, font or image.
"""

import doctest
import importlib
import importlib.util
import inspect
import os
import sys
import warnings
from pathlib import Path

# -- The installed mbcore, never the source tree -------------------------------------------

_ROOT = Path(__file__).resolve().parent.parent        # the repository's root (docs/..)


def _is_root(entry):
    try:
        return Path(entry or os.curdir).resolve() == _ROOT
    except (OSError, RuntimeError, ValueError):
        return False


def _stop(message):
    """Stop the build: the message first on stderr (Sphinx shows a configuration error under
    a report of its versions and a traceback), then as the error itself."""
    from sphinx.errors import ConfigError

    print(f"\n{message}\n", file=sys.stderr)
    raise ConfigError(message)


sys.path[:] = [entry for entry in sys.path if not _is_root(entry)]

try:
    import mbcore
    import mbcore._kernels.linear  # noqa: F401  (the compiled kernels)
except ImportError as exc:
    _stop(f"mbcore is not installed in this Python ({sys.executable}): {exc}.\n"
          f"The documentation is built from the installed package (its compiled kernels), never "
          f"from the source tree: run `pip install '.[docs]'` with this interpreter first (from "
          f"the repository's root), then build again.")

import matplotlib  # noqa: E402

# -- Project -------------------------------------------------------------------------------

project = "mbcore"
author = "mbcore developers"
copyright = "mbcore developers"
release = getattr(mbcore, "__version__", "unknown")
version = ".".join(release.split(".")[:2])

# -- Extensions ----------------------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
# examples/ holds the gallery's sources: sphinx-gallery turns them into auto_examples/, the
# pages that are built (its README.rst would otherwise be read twice).
exclude_patterns = ["_build", "examples", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
root_doc = "index"
default_role = "literal"          # `x` in a page is code, never an accidental reference

# Every cross-reference to our own objects must resolve (sphinx-build -n).
nitpicky = True

# References that cannot resolve offline: their pages live in other projects' sites, and this
# build fetches nothing (no intersphinx).  Only names from outside mbcore belong here; a
# reference to an mbcore name that does not resolve is a bug to fix, never one to ignore.
# - Python's own types, written as types in the numpydoc "Parameters"/"Returns" sections;
# - anything under the NumPy, SciPy, scikit-learn, matplotlib, Dask and pandas namespaces.
nitpick_ignore = [("py:class", name) for name in (
    "object", "int", "float", "bool", "str", "bytes", "callable", "iterable", "iterator",
    "generator", "path-like", "file object")] + [("py:mod", "importlib.resources")]
nitpick_ignore_regex = [(r"py:.*", r"(numpy|np|scipy|sklearn|matplotlib|dask|pandas)\..*")]

# -- autodoc / autosummary / numpydoc ------------------------------------------------------

autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"member-order": "groupwise"}
autodoc_typehints = "none"        # the numpydoc sections document the types
autoclass_content = "class"

numpydoc_show_class_members = False      # the autosummary templates list the members
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False
# numpydoc drops a section it does not know (e.g. "Threads") from the page with only a Python
# warning; make it an error of the build, which names the docstring.
warnings.filterwarnings("error", message="Unknown section", category=UserWarning,
                        module="numpydoc")

# -- doctest -------------------------------------------------------------------------------

# The pages' own examples are ``.. doctest::`` blocks and run with ``-b doctest``.  The ``>>>``
# examples of the docstrings are run by tests/project/test_doctests.py in their modules'
# namespaces (where they are written to run); running them here again, in a page's namespace,
# would only duplicate that.
doctest_test_doctest_blocks = ""
# As tests/project/test_doctests.py runs the docstrings; exception messages are compared too
# (Sphinx's default, IGNORE_EXCEPTION_DETAIL, would accept any message).
doctest_default_flags = (doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
                         | doctest.DONT_ACCEPT_TRUE_FOR_1)
doctest_global_setup = """
import numpy as np
np.set_printoptions(legacy=False)
"""

# -- sphinx-gallery ------------------------------------------------------------------------

os.environ.setdefault("MPLBACKEND", "Agg")       # figures are drawn into files, never shown
matplotlib.use("Agg")
warnings.filterwarnings("ignore", category=UserWarning,
                        message="Matplotlib is currently using agg, which is a non-GUI backend")

sphinx_gallery_conf = {
    "examples_dirs": "examples",          # the scripts, docs/examples/plot_*.py
    "gallery_dirs": "auto_examples",      # generated (git-ignored)
    "filename_pattern": r"/plot_",        # execute every plot_*.py
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "abort_on_example_error": False,      # report every failing example, then fail (-W)
    "only_warn_on_example_error": False,
    "show_memory": False,
    "plot_gallery": "True",
    # Its sg_execution_times pages load jQuery and DataTables from CDNs (see the top of this
    # file): not written.
    "write_computation_times": False,
}

# -- HTML ----------------------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"mbcore {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_static_path = []
html_show_sourcelink = False

# MathJax from the site itself, not from Sphinx's default CDN: the copy of MathJax 3.2.2 that the
# sphinx-mathjax-offline package ships (its static/mathjax/ folder) is copied by the html
# builders into _static/mathjax/, and the pages with formulas load its tex-chtml.js from there.
# The package's own Sphinx extension is not used: it does the same, but declares no parallel
# safety (``-j`` with ``-W`` would fail) and copies its 24 MB into every builder's output.
_mathjax = importlib.util.find_spec("sphinx-mathjax-offline")
_mathjax = _mathjax and Path(_mathjax.origin).parent / "static"
if not (_mathjax and (_mathjax / "mathjax" / "tex-chtml.js").is_file()):
    _stop(f"sphinx-mathjax-offline (the copy of MathJax that the site serves) is not installed "
          f"in this Python ({sys.executable}): run `pip install '.[docs]'` with this interpreter "
          f"first.")
html_static_path.append(str(_mathjax))
mathjax_path = "mathjax/tex-chtml.js"


# -- Re-exported names ---------------------------------------------------------------------
#
# Each public object has one page, under its public name (``mbcore.run_stream``), while its
# docstring is written in its own module's namespace (``mbcore.streaming``: ":class:`StreamRun`",
# ":func:`mbcore.streaming.iter_svmlight`").  Such a reference names the same Python object as a
# documented one, so it is resolved to that page: the name is imported (from the page's module,
# then from the module that defines the documented object) and matched by identity against the
# documented classes, functions and modules.  A reference that imports nothing, or imports an
# object without a page, is still reported (nitpicky).


def _import_dotted(name):
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _documented_by_identity(app, env):
    # Kept on the application (one build), not on the environment, which is pickled between
    # builds and would keep a stale table.
    table = getattr(app, "_mbcore_documented", None)
    if table is None:
        table = {}
        for name, entry in env.get_domain("py").objects.items():
            if entry.objtype not in ("class", "exception", "function", "module") or entry.aliased:
                continue
            obj = _import_dotted(name)
            if obj is not None and (inspect.isclass(obj) or inspect.isroutine(obj)
                                    or inspect.ismodule(obj)):
                table.setdefault(id(obj), name)
        app._mbcore_documented = table
    return table


def _resolve_reexport(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    scopes = [node.get("py:module")]
    page = node.get("refdoc", "")
    if page.startswith("generated/"):               # the page of one object: its home module
        owner = _import_dotted(page[len("generated/"):])
        scopes.append(getattr(owner, "__module__", None))
    candidates = [target] + [f"{scope}.{target}" for scope in scopes if scope]
    domain = env.get_domain("py")
    table = _documented_by_identity(app, env)
    for candidate in candidates:
        if candidate != target and candidate in domain.objects:   # e.g. a module's constant
            return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"],
                                       candidate, node, contnode)
        obj = _import_dotted(candidate)
        name = table.get(id(obj)) if obj is not None else None
        if name is not None and name != target:
            return domain.resolve_xref(
                env, node["refdoc"], app.builder, node["reftype"], name, node, contnode)
    return None


# -- Class signatures ----------------------------------------------------------------------
#
# The learners get their lock from ``Guarded.__new__(cls, *args, **kwargs)``
# (mbcore._locking), and autodoc prefers ``__new__`` to ``__init__`` for a class's signature;
# the signature Python itself reports (``inspect.signature``: the constructor's parameters) is
# the one to show.

def _class_signature(app, what, name, obj, options, signature, return_annotation):
    if what != "class" or signature is None or "*args, **kwargs" not in signature:
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    sig = sig.replace(parameters=[p.replace(annotation=inspect.Parameter.empty)
                                  for p in sig.parameters.values()],
                      return_annotation=inspect.Signature.empty)
    return str(sig), None


def _parameters_directive():
    """``.. mbcore-parameters::``: the table of every learner's parameters, made from the domains
    the classes declare (``_PARAMETERS``; mbcore._params.parameter_table), never written by
    hand."""
    from docutils.parsers.rst import Directive
    from docutils.statemachine import StringList

    from mbcore._params import parameter_table

    class Parameters(Directive):
        has_content = False

        def run(self):
            from docutils import nodes
            text = parameter_table(mbcore.all_learners())
            node = nodes.section()
            node.document = self.state.document
            self.state.nested_parse(StringList(text.splitlines(), source="mbcore-parameters"),
                                    self.content_offset, node, match_titles=True)
            return node.children

    return Parameters


def setup(app):
    app.add_directive("mbcore-parameters", _parameters_directive())
    app.connect("missing-reference", _resolve_reexport)
    app.connect("autodoc-process-signature", _class_signature)
