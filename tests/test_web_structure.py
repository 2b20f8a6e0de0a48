"""The shape of web/: every refusal has its status in one table, the modules import no private
name of another and form no cycle, and none reads a game's full state."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from referee import errors, service
from web.errors import STATUS, status_of

WEB = Path(__file__).resolve().parent.parent / "web"


def _modules() -> dict[str, ast.Module]:
    return {f"web.{p.stem}": ast.parse(p.read_text(), str(p)) for p in sorted(WEB.glob("*.py"))}


def _web_imports(tree: ast.Module) -> list[tuple[str, str]]:
    """(module, name) for every ``from web... import name`` and ``import web.x`` in ``tree``
    (inside functions too)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("web"):
            for a in node.names:
                if node.module == "web":
                    out.append((f"web.{a.name}", ""))
                else:
                    out.append((node.module, a.name))
        elif isinstance(node, ast.Import):
            out += [(a.name, "") for a in node.names if a.name.startswith("web.")]
    return out


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (service.NotFound, 404),
        (service.Forbidden, 403),
        (service.Refused, 422),
        (service.Held, 423),
        (service.Unavailable, 503),
        (service.Stale, 409),
        (service.NeedsInput, 202),
    ],
)
def test_each_service_refusal_has_its_status(
    error: type[service.ServiceError], status: int
) -> None:
    assert STATUS[error] == status


def test_every_error_class_of_the_service_is_in_the_table() -> None:
    classes = [
        c
        for _, c in inspect.getmembers(errors, inspect.isclass)
        if issubclass(c, errors.ServiceError) and c.__module__ == errors.__name__
    ]
    assert errors.ServiceError in classes and len(classes) == 8
    assert [c.__name__ for c in classes if c not in STATUS] == []


def test_a_subclass_takes_its_nearest_listed_base_s_status() -> None:
    class Lost(service.NotFound):
        pass

    assert status_of(Lost("no such thing")) == 404


def test_no_web_module_imports_a_private_name_of_another() -> None:
    private = [
        (mod, f"{src}.{name}")
        for mod, tree in _modules().items()
        for src, name in _web_imports(tree)
        if name.startswith("_")
    ]
    assert private == []


def test_the_web_modules_form_no_import_cycle() -> None:
    mods = _modules()
    edges = {m: {src for src, _ in _web_imports(t) if src in mods} for m, t in mods.items()}
    cycles: list[list[str]] = []

    def walk(m: str, path: list[str]) -> None:
        for n in sorted(edges[m]):
            if n in path:
                cycles.append([*path[path.index(n) :], n])
            elif len(path) < len(mods):
                walk(n, [*path, n])

    for m in mods:
        walk(m, [m])
    assert cycles == []


def test_no_web_module_reads_a_games_full_state() -> None:
    readers = sorted(
        mod
        for mod, tree in _modules().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in ("folded", "state_at")
    )
    assert readers == []


def test_no_web_module_guards_a_service_call_with_getattr() -> None:
    guarded = sorted(
        mod
        for mod, tree in _modules().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("getattr", "hasattr")
    )
    assert guarded == []
