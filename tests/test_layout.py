"""The package's layout: packages import one way (down a declared order of layers), no module
imports another module's private names or a private module of another package, and the import
graph of ``src/momentbound`` has no cycles.

Both checks read the source with :mod:`ast` (nothing is imported). An import counts wherever it
stands, at module level or inside a function: a deferred import still ties the two modules
together. Imports under ``if TYPE_CHECKING:`` do not run and are not counted. An import names the
module it loads: ``from momentbound.exact import zlaw`` is an edge to ``momentbound.exact.zlaw``,
``from momentbound.exact import NaiveBayes`` an edge to the package ``momentbound.exact``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "momentbound"

#: The layers of ``momentbound``, lowest first. A unit (a subpackage, or a module at the top of the
#: package) imports units of lower layers only: never one of its own layer, never one above. The
#: root ``momentbound/__init__.py`` is at the bottom: it holds ``__version__`` and re-exports the
#: public API lazily, so loading it imports nothing of the package. A new subpackage or top-level
#: module gets its place here.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("momentbound", "errors"),
    ("_validate", "core", "guard", "intervals", "output", "parallel", "progress", "quiet", "rational", "registry"),
    ("model",),  # cell probabilities, statistics, count tables
    ("moments",),  # moments of polynomial statistics
    ("bounds", "classifiers"),  # bounds from moments; classifiers on count tables
    ("exact",),  # exact laws of a classifier's predictions, fold allocations
    ("probability",),  # probability backends
    ("splitters",),  # how N points become training and test sets
    ("estimators",),  # the estimators' moments: exact engine and Monte Carlo
    ("data",),  # a user's data set: loading, fitted cell models, the evaluation plan
    ("studies",),
    ("cli",),
    ("__main__",),
)

#: Cycles known today, each with the modules it runs through. The test fails if one of them
#: grows or disappears (then delete it here) and if any other cycle appears.
KNOWN_CYCLES: dict[frozenset[str], str] = {}


def module_files(src: Path, package: str = PACKAGE) -> dict[str, Path]:
    """``{dotted module name: file}`` for every module of ``package`` under ``src``."""
    out = {}
    for f in sorted((src / package).rglob("*.py")):
        parts = f.relative_to(src).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = f
    return out


def _imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that runs, at any depth, skipping ``if TYPE_CHECKING:`` blocks.

    Imports are statements, so only statement lists are walked (bodies, ``else``, ``finally``,
    exception handlers, ``match`` cases)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, None) or ():
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    stack.append(ast.Module(body=child.orelse, type_ignores=[]))
                elif isinstance(child, (ast.Import, ast.ImportFrom)):
                    yield child
                else:
                    stack.append(child)


@lru_cache(maxsize=None)
def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` reads from."""
    if not node.level:
        return node.module or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def _owner(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_edges(src: Path, package: str = PACKAGE) -> dict[str, set[str]]:
    """``{module: modules it imports}`` within ``package``."""
    modules = module_files(src, package)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for node in _imports(_parse(path)):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = _base(module, path.name == "__init__.py", node)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for target in targets:
                owner = _owner(target, modules)
                if owner is not None and owner != module:
                    graph[module].add(owner)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[frozenset[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(frozenset(comp))
    return out


def private_imports(src: Path, package: str = PACKAGE) -> list[str]:
    """Places where a module takes a ``_private`` name of another module: ``from M import _x``
    (``_x`` not a submodule) or ``alias._x`` with ``alias`` an imported module of the package."""
    modules = module_files(src, package)
    found = []
    for module, path in modules.items():
        tree = _parse(path)
        module_aliases: dict[str, str] = {}
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname and a.name in modules:
                        module_aliases[a.asname] = a.name
                continue
            base = _base(module, path.name == "__init__.py", node)
            if _owner(base, modules) is None:
                continue
            for a in node.names:
                full = f"{base}.{a.name}"
                if full in modules:
                    module_aliases[a.asname or a.name] = full
                elif a.name.startswith("_") and not a.name.startswith("__") and base != module:
                    found.append(f"{path.relative_to(src)}:{node.lineno}: from {base} import {a.name}")
        for node in ast.walk(tree) if module_aliases else ():
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in module_aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__") and module_aliases[node.value.id] != module):
                found.append(f"{path.relative_to(src)}:{node.lineno}: {module_aliases[node.value.id]}.{node.attr}")
    return found


def unit(module: str) -> str:
    """The unit of the layer order a module belongs to: ``pkg.x.y`` -> ``x``, ``pkg`` -> ``pkg``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def against_layers(graph: dict[str, set[str]], layers: tuple[tuple[str, ...], ...]) -> list[str]:
    """The imports that run against ``layers`` (into the importer's own layer or above), and the
    units missing from ``layers`` or listed there but absent from the package."""
    level = {u: i for i, layer in enumerate(layers) for u in layer}
    units = {unit(m) for m in graph}
    found = [f"{u}: not in LAYERS; give it its place" for u in sorted(units - set(level))]
    found += [f"{u}: in LAYERS but not in the package; remove it" for u in sorted(set(level) - units)]
    for module in sorted(graph):
        for target in sorted(graph[module]):
            a, b = unit(module), unit(target)
            if a != b and a in level and b in level and level[a] <= level[b]:
                found.append(f"{module} -> {target}")
    return found


def private_module_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports of a private module (``_name.py``) from outside the package that holds it."""
    found = []
    for module in sorted(graph):
        for target in sorted(graph[module]):
            owner, _, name = target.rpartition(".")
            if (name.startswith("_") and not name.startswith("__")
                    and not module.startswith(owner + ".")):
                found.append(f"{module} -> {target}")
    return found


def test_packages_import_down_the_layers() -> None:
    graph = import_edges(SRC)
    found = against_layers(graph, LAYERS)
    assert not found, "imports against the layer order (move the shared piece down):\n" + "\n".join(found)


def test_no_private_module_is_imported_from_another_package() -> None:
    found = private_module_imports(import_edges(SRC))
    assert not found, "private modules used outside their package:\n" + "\n".join(found)


def test_no_module_imports_a_private_name_of_another_module() -> None:
    found = private_imports(SRC)
    assert not found, "make the shared piece public in a module of its own:\n" + "\n".join(found)


def test_import_graph_has_no_cycles() -> None:
    graph = import_edges(SRC)
    assert len(graph) > 100 and "momentbound.moments.core" in graph["momentbound.moments"]
    found = set(cycles(graph))
    new = [sorted(c) for c in found - set(KNOWN_CYCLES)]
    assert not new, f"import cycles: {new}"
    gone = [sorted(c) for c in set(KNOWN_CYCLES) - found]
    assert not gone, f"these cycles are gone or changed; update KNOWN_CYCLES: {gone}"


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    return _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg.b import helper\n_hidden = 1\n",
        "pkg/b.py": "def helper():\n    from pkg import a\n    return a._hidden\n",
        "pkg/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.d import X\n",
        "pkg/d.py": "from . import c\nfrom .a import _hidden\nfrom pkg import _private_module\n",
        "pkg/_private_module.py": "",
    })


def test_the_checks_catch_what_they_look_for(toy: Path) -> None:
    graph = import_edges(toy, "pkg")
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.b"] == {"pkg.a"}
    assert graph["pkg.c"] == set()  # TYPE_CHECKING imports do not run
    assert graph["pkg.d"] == {"pkg.c", "pkg.a", "pkg._private_module"}
    assert cycles(graph) == [frozenset({"pkg.a", "pkg.b"})]
    found = private_imports(toy, "pkg")
    assert len(found) == 2
    assert any("pkg.a._hidden" in f and f.startswith("pkg/b.py:3") for f in found)
    assert any("from pkg.a import _hidden" in f and f.startswith("pkg/d.py:2") for f in found)


def test_the_layer_checks_catch_what_they_look_for(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "toy/__init__.py": "",
        "toy/base.py": "",
        "toy/low/__init__.py": "from toy import base\n",
        "toy/low/_kernel.py": "",
        "toy/low/a.py": "def f():\n    from toy.high import b\n    return b\n",
        "toy/high/__init__.py": "",
        "toy/high/b.py": "from toy.low import _kernel\nfrom toy.low.a import f\n",
        "toy/high/c.py": "from toy.high import b\n",
        "toy/side/__init__.py": "from toy import low\n",
    })
    graph = import_edges(root, "toy")
    layers = (("toy", "base"), ("low",), ("high",), ("gone",))
    # an import inside a function counts; one within a unit does not; a unit not listed and a
    # listed unit that does not exist are reported
    assert against_layers(graph, layers) == [
        "side: not in LAYERS; give it its place", "gone: in LAYERS but not in the package; remove it",
        "toy.low.a -> toy.high.b"]
    # the same layer is not allowed either
    assert against_layers(graph, (("toy", "base"), ("low", "high"), ("side",))) == [
        "toy.high.b -> toy.low._kernel", "toy.high.b -> toy.low.a", "toy.low.a -> toy.high.b"]
    assert against_layers(graph, (("toy", "base"), ("low",), ("high",), ("side",))) == ["toy.low.a -> toy.high.b"]
    assert private_module_imports(graph) == ["toy.high.b -> toy.low._kernel"]


@pytest.mark.parametrize("name", ["rational", "intervals", "moments.sequence", "bounds.pieces", "model.z_sampler",
                                  "probability.naive_bayes_joint"])
def test_docstring_examples_of_shared_modules_run(name: str) -> None:
    import doctest
    import importlib

    module = importlib.import_module(f"momentbound.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0, name
