"""The package's import structure: no import cycle anywhere in ``src/envpool/``, and the
generic layer (the registry, make and config resolution, specs, key names, the
adapters) reaches no task table or integration and names no family.

Edges are read from the source with ``ast``: module-level and function-level imports
alike, absolute and relative, and ``importlib.import_module("<constant>")``.
``from X import y`` is an edge to ``X.y`` when that is a module of the package, else to
``X``; the implicit import of a module's parent packages is not an edge (every module
has it, and it runs before the module, never in a loop).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "envpool"

# Modules that know no family: they may import no task table or integration (not even
# through another module) and their text names no family.
GENERIC = [
    "envpool.registration",
    "envpool._pool",
    "envpool._config",
    "envpool._spec",
    "envpool._keys",
    "envpool._make",
    "envpool.gym_env",
    "envpool.gymnasium_env",
    "envpool.dm_env_pool",
    "envpool._interfaces",
]
FAMILY_WORDS = re.compile(r"mujoco|atari|dmc|dm_control", re.IGNORECASE)


def _modules(package: Path) -> dict[str, Path]:
    """Module name -> file, for every .py file under ``package``."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that module ``name`` (at ``path``) imports anywhere in its text."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in known else base)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            targets = [node.args[0].value]
        out.update(t for t in targets if t in known and t != name)
    return out


# Compiled modules of the package (the C++ engine imports nothing of it).
EXTENSIONS = ("_envpool",)


def import_graph(package: Path) -> dict[str, set[str]]:
    modules = _modules(package)
    known = set(modules) | {f"{package.name}.{e}" for e in EXTENSIONS}
    graph = {name: _imports(name, path, known) for name, path in modules.items()}
    return {**graph, **{m: set() for m in known - set(graph)}}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for w in graph[todo.pop()] - seen:
            seen.add(w)
            todo.append(w)
    return seen


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(PACKAGE)


def test_the_graph_reader_sees_every_kind_of_import(tmp_path: Path) -> None:
    """A cycle through a function-level relative import, a plain ``import a.b`` and an
    ``importlib.import_module`` call is found (so the package test below can fail)."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("import importlib\nimportlib.import_module('pkg.c')\n")
    (pkg / "a.py").write_text("def f():\n    from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from ..c import thing\n")
    (pkg / "c.py").write_text("import pkg.a\nthing = 1\n")
    g = import_graph(pkg)
    assert g["pkg"] == {"pkg.c"}
    assert g["pkg.a"] == {"pkg.sub.b"}
    assert g["pkg.sub.b"] == {"pkg.c"}
    assert cycles(g) == [["pkg.a", "pkg.c", "pkg.sub.b"]]
    (pkg / "c.py").write_text("thing = 1\n")
    assert cycles(import_graph(pkg)) == []


def test_the_package_graph_holds_the_known_imports(graph: dict[str, set[str]]) -> None:
    assert set(GENERIC) <= set(graph)
    assert "envpool.registration" in graph["envpool._config"]
    assert "envpool.xla" in graph["envpool._pool"]  # function level (PoolBase.xla)
    assert "envpool.ray" in graph["envpool"]  # importlib.import_module in __getattr__
    assert "envpool.integrations.gymnasium_registry" in graph["envpool"]  # the wiring point


def test_no_import_cycle(graph: dict[str, set[str]]) -> None:
    assert cycles(graph) == []


@pytest.mark.parametrize("module", GENERIC)
def test_generic_modules_reach_no_task_table_or_integration(graph: dict[str, set[str]], module: str) -> None:
    bad = sorted(m for m in reachable(graph, module) if m.startswith(("envpool.tasks", "envpool.integrations")))
    assert bad == [], f"{module} imports {bad}"


@pytest.mark.parametrize("module", GENERIC)
def test_generic_modules_reach_no_compatibility_module(graph: dict[str, set[str]], module: str) -> None:
    """EnvPool 1.2's module paths (envpool.compat, imported as envpool.python) are built on the core, not the reverse:
    only the package root, the wiring point, installs them."""
    bad = sorted(m for m in reachable(graph, module) if m.startswith("envpool.compat."))
    assert bad == [], f"{module} imports {bad}"


def test_the_compatibility_classes_are_the_cores(graph: dict[str, set[str]]) -> None:
    for module in ("envpool.compat.envpool", "envpool.compat.gymnasium_envpool", "envpool.compat.dm_envpool"):
        assert graph[module] == {"envpool._interfaces"}


@pytest.mark.parametrize("module", GENERIC)
def test_generic_modules_name_no_family(module: str) -> None:
    path = _modules(PACKAGE)[module]
    hits = [
        f"{path.name}:{n}: {line.strip()}"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if FAMILY_WORDS.search(line)
    ]
    assert hits == []


def test_the_registry_imports_nothing_of_envpool(graph: dict[str, set[str]]) -> None:
    """Integrations subscribe to the registry; it imports none of them (nor anything else)."""
    assert graph["envpool.registration"] == set()
