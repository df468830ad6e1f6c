"""Sphinx configuration of envpool's documentation site.

Why Sphinx: gymnasium's and EnvPool's own documentation are Sphinx sites, so their
readers meet the same layout and search here, and autodoc reads the API reference
straight from envpool's docstrings (napoleon parses their Google-style ``Args:``).
The pages are MyST markdown (myst-parser) so that they read as plain markdown on
GitHub too; the theme is furo.

tests/docs/test_docs.py builds the site with ``sphinx-build -W --keep-going -n``:
any warning (a broken cross-reference, a page missing from or absent in the
toctree) fails the suite.
"""

from __future__ import annotations

project = "envpool"
author = "envpool developers"
copyright = "envpool developers"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# Heading anchors as GitHub makes them, so that "page.md#section" links work both
# on GitHub and in the built site (tests/docs/test_docs.py checks every one).
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]

html_theme = "furo"
html_title = "envpool"
html_static_path = ["_static"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# The build has no network, so no intersphinx inventories: references to other
# projects' objects (gymnasium's VectorEnv, numpy's ndarray, dm_env's TimeStep,
# the standard library's names in signatures: typing, os.PathLike, types.ModuleType)
# cannot resolve and are not ours to check. References into envpool itself stay
# checked.
nitpick_ignore_regex = [
    (r"py:.*", r"(gymnasium|gym|numpy|np|dm_env|jax|ray|typing|collections|abc|os|types)(\..*)?"),
    (r"py:.*", r"(Any|Callable|Iterable|Sequence|Mapping|Optional|Union)"),
]

# envpool.register's docstring names TaskSpec as its own module sees it; the page
# shows it as envpool.register, from where the short name does not resolve. The
# class itself is documented (envpool.registration.TaskSpec).
# Likewise TaskId, the type alias of make()'s and the pools' first argument
# (envpool._interfaces.TaskId: an id, ids, a mapping of ids to counts, or an
# env_fn), which the signatures show by its short name.
nitpick_ignore = [("py:class", "TaskSpec"), ("py:class", "TaskId")]

# napoleon reads a property's first line "X: Y" as "type: description", but our
# properties' docstrings are prose ("The tasks of the pool: ..."): they skip napoleon
# (they have no Args/Returns sections for it to parse).
_PROPERTY_DOCSTRINGS: dict[str, list[str]] = {}


def _save_property_docstring(app, what, name, obj, options, lines) -> None:
    if what in ("attribute", "property", "data"):
        _PROPERTY_DOCSTRINGS[name] = list(lines)


def _restore_property_docstring(app, what, name, obj, options, lines) -> None:
    if what in ("attribute", "property", "data") and name in _PROPERTY_DOCSTRINGS:
        lines[:] = _PROPERTY_DOCSTRINGS.pop(name)


def setup(app):
    # Around napoleon's handler (priority 500), which rewrites the docstring.
    app.connect("autodoc-process-docstring", _save_property_docstring, priority=400)
    app.connect("autodoc-process-docstring", _restore_property_docstring, priority=600)
