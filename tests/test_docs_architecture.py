"""docs/architecture.md names only what exists (issue 32, item 5); the other pages of the docs
and the README name only files that exist.

Every file path it names (``referee/fold.py``, ``web/templates/herazeus/``), every dotted name
of ours (``referee.fold.step``, ``web.live.events``: a module, then attributes of it) and every
link to another page of the docs must exist, so the page cannot drift from the code unseen.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = ("engine", "referee", "web", "vision", "printables", "tests", "benchmarks")

CODE = re.compile(r"`([^`\n]+)`")
OURS = "|".join(PACKAGES)
PATH = re.compile(rf"^(?:{OURS})/[\w./-]*$")
DOTTED = re.compile(rf"^(?:{OURS.replace('|tests', '')})(?:\.\w+)+$")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
DOC_FILE = re.compile(r"\bdocs/[\w-]+\.md\b")


def spans(text: str) -> list[str]:
    return [m.group(1).strip() for m in CODE.finditer(text)]


def paths_named(text: str) -> list[str]:
    """The repository paths in code spans (a trailing ``*`` pattern names a folder)."""
    found = []
    for span in spans(text):
        for word in re.split(r"[\s,]+", span):
            word = word.rstrip(".:;")
            if PATH.match(word):
                found.append(word.split("*")[0].rstrip("/") or word)
    return sorted(set(found))


def dotted_named(text: str) -> list[str]:
    found = []
    for span in spans(text):
        word = span.split("(")[0].strip()
        if DOTTED.match(word):
            found.append(word)
    return sorted(set(found))


def resolves(name: str) -> bool:
    """A module, then attributes: ``web.live.events`` is ``events`` of ``web.live``."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


TEXT = DOC.read_text("utf-8")


@pytest.mark.parametrize("path", paths_named(TEXT))
def test_every_path_the_page_names_exists(path: str) -> None:
    assert (ROOT / path).exists(), f"docs/architecture.md names {path}, which does not exist"


@pytest.mark.parametrize("page", [*sorted(p.name for p in DOC.parent.glob("*.md")), "../README.md"])
def test_every_path_the_other_pages_name_exists(page: str) -> None:
    """The other pages of the docs and the README name only files that exist, too."""
    text = (DOC.parent / page).read_text("utf-8")
    missing = [p for p in paths_named(text) if not (ROOT / p).exists()]
    assert not missing, f"{page} names files that do not exist: {missing}"


@pytest.mark.parametrize("name", dotted_named(TEXT))
def test_every_module_and_name_the_page_names_exists(name: str) -> None:
    assert resolves(name), f"docs/architecture.md names {name}, which is not in the code"


def test_every_docs_page_it_links_or_names_exists() -> None:
    targets = [t for t in LINK.findall(TEXT) if not t.startswith(("http:", "https:"))]
    missing = [t for t in targets if not (DOC.parent / t).exists()]
    missing += [t for t in DOC_FILE.findall(TEXT) if not (ROOT / t).exists()]
    assert not missing, f"docs/architecture.md links pages that do not exist: {missing}"


def test_the_checks_above_can_fail() -> None:
    assert paths_named("see `referee/nowhere.py` and `web/templates/x/`") == [
        "referee/nowhere.py",
        "web/templates/x",
    ]
    assert not (ROOT / "referee/nowhere.py").exists()
    assert dotted_named("`referee.fold.step` and `referee.fold.nothing(x)`") == [
        "referee.fold.nothing",
        "referee.fold.step",
    ]
    assert resolves("referee.fold.step")
    assert not resolves("referee.fold.nothing")
    assert not resolves("referee.nomodule.x")
