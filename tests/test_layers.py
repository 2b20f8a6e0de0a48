"""The import graph keeps the layers: engine -> referee -> printables -> vision -> web.

Every module of the five packages is read with ``ast``; every import counts, at the top of a
module, inside a function or under ``TYPE_CHECKING``. A package may import only packages to
its left (engine imports none of ours); no two modules import each other, directly or through
others; the packages form no cycle. A failure names the modules and the lines.
(``../shared/tools/import-graph`` checks the same cycles from the outside.)
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("engine", "referee", "printables", "vision", "web")  # lowest first
NOT_PACKAGES = {"tests", "benchmarks"}


@dataclass(frozen=True, slots=True)
class Import:
    """One import of a project module by another: ``importer`` line ``line`` names
    ``imported``."""

    importer: str
    imported: str
    line: int

    def __str__(self) -> str:
        return f"{self.importer} imports {self.imported} (line {self.line})"


def package(module: str) -> str:
    return module.split(".", 1)[0]


def find_modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of ``packages`` under ``root`` by dotted name (a package by its own name)."""
    out: dict[str, Path] = {}
    for top in packages:
        for f in sorted((root / top).rglob("*.py")):
            parts = list(f.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = f
    return out


def imports_of(module: str, source: str, is_package: bool, known: Iterable[str]) -> list[Import]:
    """The project modules ``module`` imports, anywhere in ``source``. A name resolves to the
    longest known module it starts with (``from web.app import create_app`` -> ``web.app``);
    a module's own package and its parents are not counted (importing a module imports them)."""
    names_known = set(known)

    def resolve(name: str) -> str | None:
        while name:
            if name in names_known:
                return name
            name = name.rpartition(".")[0]
        return None

    here = module if is_package else module.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(source, module)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            names = [base, *(f"{base}.{a.name}" for a in node.names)]
        else:
            continue
        for name in names:
            target = resolve(name)
            if target is None or target == module or module.startswith(target + "."):
                continue
            found[target] = min(found.get(target, node.lineno), node.lineno)
    return [Import(module, t, line) for t, line in sorted(found.items())]


def import_graph(root: Path, packages: Iterable[str]) -> list[Import]:
    modules = find_modules(root, packages)
    out: list[Import] = []
    for name, path in modules.items():
        out += imports_of(name, path.read_text("utf-8"), path.name == "__init__.py", modules)
    return out


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def module_graph(edges: Iterable[Import]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for e in edges:
        graph.setdefault(e.importer, set()).add(e.imported)
        graph.setdefault(e.imported, set())
    return graph


def package_graph(edges: Iterable[Import]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {p: set() for p in LAYERS}
    for e in edges:
        a, b = package(e.importer), package(e.imported)
        if a != b:
            graph[a].add(b)
    return graph


def upward(edges: Iterable[Import]) -> list[Import]:
    """The imports of a package above the importer's in :data:`LAYERS`."""
    rank = {p: i for i, p in enumerate(LAYERS)}
    return [e for e in edges if rank[package(e.imported)] > rank[package(e.importer)]]


def describe_cycles(
    found: list[list[str]], edges: Iterable[Import], of: str = "module", most: int = 3
) -> str:
    """Each cycle with the imports that close it (at most ``most`` per pair of members)."""
    key = package if of == "package" else str
    lines: list[str] = []
    edge_list = list(edges)
    for comp in found:
        lines.append(f"{of} cycle: {' <-> '.join(comp)}")
        pairs: dict[tuple[str, str], list[Import]] = {}
        for e in edge_list:
            a, b = key(e.importer), key(e.imported)
            if a != b and a in comp and b in comp:
                pairs.setdefault((a, b), []).append(e)
        for _, shown in sorted(pairs.items()):
            lines += [f"    {e}" for e in shown[:most]]
            if len(shown) > most:
                lines.append(f"    ... and {len(shown) - most} more")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def edges() -> list[Import]:
    return import_graph(ROOT, LAYERS)


# ---- the project --------------------------------------------------------------------------


def test_the_layers_name_every_package_of_the_project() -> None:
    tops = {
        p.name
        for p in ROOT.iterdir()
        if p.is_dir() and (p / "__init__.py").exists() and p.name not in NOT_PACKAGES
    }
    assert tops == set(LAYERS), f"packages outside the layers: {sorted(tops - set(LAYERS))}"


def test_engine_imports_no_project_package(edges: list[Import]) -> None:
    bad = [e for e in edges if package(e.importer) == "engine" and package(e.imported) != "engine"]
    assert not bad, "engine is pure and imports none of ours:\n" + "\n".join(map(str, bad))


def test_no_package_imports_one_above_it(edges: list[Import]) -> None:
    bad = upward(edges)
    assert not bad, f"a package imports one above it ({' -> '.join(LAYERS)}):\n" + "\n".join(
        map(str, bad)
    )


def test_the_packages_form_no_cycle(edges: list[Import]) -> None:
    found = cycles(package_graph(edges))
    assert not found, describe_cycles(found, edges, "package")


def test_no_module_import_cycle(edges: list[Import]) -> None:
    found = cycles(module_graph(edges))
    assert not found, describe_cycles(found, edges)


def test_the_command_line_entry_point_is_at_the_top(edges: list[Import]) -> None:
    """referee.cli contributes its commands; web.cli, at the top, assembles them all."""
    bad = [
        e
        for e in edges
        if e.importer == "referee.cli" and package(e.imported) not in ("engine", "referee")
    ]
    assert not bad, "\n".join(map(str, bad))
    assert {"referee.cli", "printables.cli", "vision.cli", "web.serve"} <= {
        e.imported for e in edges if e.importer == "web.cli"
    }


@pytest.mark.parametrize("name", ["Kit", "KitError", "MatGeometry"])
def test_the_kit_model_is_defined_once_in_printables(name: str) -> None:
    """One kit model: vision (and everyone else) imports the kit, its error and the mat from
    printables instead of defining its own."""
    where = [
        module
        for module, path in find_modules(ROOT, LAYERS).items()
        for node in ast.walk(ast.parse(path.read_text("utf-8"), module))
        if isinstance(node, ast.ClassDef) and node.name == name
    ]
    assert len(where) == 1 and package(where[0]) == "printables", f"{name} defined in {where}"


# ---- the reader itself (so that the checks above can fail) ---------------------------------

KNOWN = (
    "engine",
    "engine.herazeus",
    "engine.herazeus.cards",
    "referee",
    "referee.cli",
    "web",
    "web.app",
    "web.auth",
)


@pytest.mark.parametrize(
    "module,source,imported",
    [
        ("referee.cli", "import web.app\n", ["web.app"]),
        ("referee.cli", "from web.app import create_app\n", ["web.app"]),
        ("referee.cli", "from web import app\n", ["web", "web.app"]),
        ("referee.cli", "def f():\n    from web.auth import x\n", ["web.auth"]),
        ("referee.cli", "if TYPE_CHECKING:\n    import web\n", ["web"]),
        ("web.app", "from . import auth\n", ["web.auth"]),
        ("web.app", "from .auth import x\n", ["web.auth"]),
        (
            "web.app",
            "from ..engine.herazeus import cards\n",
            ["engine.herazeus", "engine.herazeus.cards"],
        ),
        ("web.app", "import flask\nfrom cv2 import imread\n", []),
        ("web.app", "import web.app\nfrom web import app\n", []),  # itself, its package
    ],
)
def test_the_reader_sees_every_kind_of_import(
    module: str, source: str, imported: list[str]
) -> None:
    got = imports_of(module, source, False, KNOWN)
    assert [e.imported for e in got] == imported


def test_an_upward_import_inside_a_function_is_named_with_its_line() -> None:
    found = imports_of(
        "engine.herazeus.cards", "x = 1\n\ndef f():\n    import web.auth\n", False, KNOWN
    )
    assert [str(e) for e in upward(found)] == ["engine.herazeus.cards imports web.auth (line 4)"]


def test_a_cycle_is_found_and_described_with_its_imports() -> None:
    app = imports_of("web.app", "from web.auth import seat\n", False, KNOWN)
    auth = imports_of("web.auth", "def f():\n    from web.app import x\n", False, KNOWN)
    ref = imports_of("referee.cli", "import engine.herazeus.cards\n", False, KNOWN)
    edges = app + auth + ref
    found = cycles(module_graph(edges))
    assert found == [["web.app", "web.auth"]]
    assert describe_cycles(found, edges) == (
        "module cycle: web.app <-> web.auth\n"
        "    web.app imports web.auth (line 1)\n"
        "    web.auth imports web.app (line 2)"
    )
    assert cycles(package_graph(edges)) == []
