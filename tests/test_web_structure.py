"""The shape of web/: every refusal has its status in one table, the modules import no private
name of another and form no cycle, none reads a game's full state, and the page shell knows no
game (every Hera & Zeus word, rule and engine import is in its page module)."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from engine.herazeus.cards import default_catalogue
from referee import errors, service
from referee.games import GAMES
from web.app import create_app
from web.errors import STATUS, status_of
from web.games import PARTS, PageModule, served
from web.games.installed import PAGE_MODULES

WEB = Path(__file__).resolve().parent.parent / "web"
TEMPLATES = WEB / "templates"

# Not the page shell: the page modules alone. The API's routes, bodies and document, the join
# links, the uploads and `referee serve` are shell: they take every game's seats, options and
# words from its modules (tests/test_game_boundaries.py checks every file of the project so).
NOT_SHELL: set[str] = set()
# What the shell must not say: the game's seats and cards, and its rule ids.
GAME_WORDS = re.compile(
    r"(?i:hera|zeus)|\b(?:" + "|".join(sorted(default_catalogue().all_names())) + r")\b"
)
RULE_ID = re.compile(r"\bD\d+\b")


def _name(p: Path) -> str:
    parts = list(p.relative_to(WEB.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, ast.Module]:
    return {_name(p): ast.parse(p.read_text(), str(p)) for p in sorted(WEB.rglob("*.py"))}


def _is_page_module(mod: str) -> bool:
    return mod.startswith("web.games.") and mod != "web.games.installed"


def _shell() -> dict[str, ast.Module]:
    return {m: t for m, t in _modules().items() if m not in NOT_SHELL and not _is_page_module(m)}


def _strings(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, text) of every string literal in ``tree`` but the docstrings."""
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    return [
        (n.lineno, n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def _imports(tree: ast.Module) -> list[str]:
    out: list[str] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out += [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom) and n.module:
            out.append(n.module)
    return out


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


# ---- the page shell knows no game ------------------------------------------------------------


def test_the_shell_is_all_of_web_but_the_api_the_camera_the_commands_and_page_modules() -> None:
    shell = _shell()
    assert {"web.seat", "web.judge", "web.home", "web.replay", "web.report"} <= set(shell)
    assert {"web.present", "web.desk", "web.acting", "web.games", "web.games.installed"} <= set(
        shell
    )
    assert "web.games.herazeus.page" not in shell and "web.games.herazeus.drawing" not in shell


def test_no_shell_module_names_a_seat_a_card_or_a_rule_of_hera_and_zeus() -> None:
    found = [
        f"{mod}:{line}: {text!r}"
        for mod, tree in _shell().items()
        for line, text in _strings(tree)
        if GAME_WORDS.search(text) or RULE_ID.search(text)
    ]
    assert found == []


def test_no_shell_module_imports_the_engine_or_a_games_rules_module() -> None:
    found = [
        f"{mod} imports {name}"
        for mod, tree in _shell().items()
        for name in _imports(tree)
        if name == "engine"
        or name.startswith("engine.")
        or name in ("referee.herazeus.game", "referee.herazeus.board")
    ]
    assert found == []


def test_no_shell_template_or_static_file_names_a_seat_a_card_or_a_rule_of_a_game() -> None:
    shell = sorted(TEMPLATES.glob("*.html"))  # a page module's templates are in its folder
    assert {p.name for p in shell} >= {"base.html", "seat.html", "judge.html", "public.html"}
    shell += [WEB / "static" / "app.css", WEB / "static" / "app.js"]
    found = [
        f"{p.name}:{n}: {line.strip()[:80]}"
        for p in shell
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if GAME_WORDS.search(line) or RULE_ID.search(line)
    ]
    assert found == []


@pytest.mark.parametrize("pm", PAGE_MODULES, ids=lambda pm: pm.name)
def test_each_page_module_is_a_games_and_fills_every_part_of_the_shell(pm: PageModule) -> None:
    assert pm.name in GAMES
    assert pm.players == GAMES[pm.name].players
    assert sorted(pm.templates) == sorted(PARTS)
    assert [t for t in pm.templates.values() if not (TEMPLATES / t).is_file()] == []


def test_the_app_serves_every_installed_page_module_by_its_games_name() -> None:
    app = create_app({"REFEREE_DB": ":memory:", "TESTING": True, "ACCESS_LOG": False})
    with app.app_context():
        assert list(served()) == [pm.name for pm in PAGE_MODULES]
