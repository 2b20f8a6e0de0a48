"""A wrong field in a game's view fails mypy: each game's board view is a typed value
(:class:`referee.herazeus.game.HZBoard`...), and a game module is checked against its own
types (:class:`referee.game.Game`). The project's own mypy (``mypy.api``, with pyproject.toml)
reads small programs that build a board view, or make a game whose view is another game's,
and must refuse each wrong one with an error naming what is wrong, and pass the right one."""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy import api

ROOT = Path(__file__).resolve().parent.parent

HEAD = """
from referee.herazeus.game import HZBoard, HZTurn, SideView

SIDE: SideView = {
    "hand": ["?"], "hand_size": 1, "deck": 30, "field": [[], [], []],
    "discard_top": None, "discard_height": 0, "figure": "supply",
}
TURN: HZTurn = {"player": "hera", "first": True, "ap": 3, "used": 0}
"""


def board(**change: str) -> str:
    """A program that builds a Hera & Zeus board view, with ``change`` (field -> source)."""
    fields = {
        "phase": '"play"',
        "turn": "TURN",
        "winner": "None",
        "reason": "None",
        "profile": '"rio-grande"',
        "switches": "{}",
        "hera": "SIDE",
        "zeus": "SIDE",
        "provisional_catalogue": "False",
        "setup": '{"starting": "hera", "dealt": {}, "placed": {}}',
        "decks": "{}",
        **change,
    }
    args = ", ".join(f"{k}={v}" for k, v in fields.items() if v)
    return HEAD + f"\nBOARD = HZBoard({args})\n"


# Hera & Zeus's module stated as a game whose view is Minotaur Lords's board
SWAPPED = """
from engine.herazeus import Action, GameState, Ruleset
from referee.game import Game
from referee.herazeus.game import HeraZeus, HZRuling, Patch
from referee.minotaur.game import MLBoard

GAME: Game[GameState, Action, MLBoard, Ruleset, Patch, HZRuling] = HeraZeus()
"""

PROGRAMS = {
    "right": (board(), None),
    "wrong_type": (board(phase="3"), 'Argument "phase" to "HZBoard" has incompatible type "int"'),
    "unknown_field": (board(profil='"x"'), 'Unexpected keyword argument "profil"'),
    "missing_field": (board(decks=""), 'Missing named argument "decks"'),
    "wrong_side_key": (
        board(hera='{**SIDE, "hand_size": "nine"}'),
        'TypedDict item "hand_size" has type "int"',
    ),
    "wrong_turn": (board(turn='{"player": "hera", "first": True}'), 'Missing keys ("ap", "used")'),
    "another_games_board": (SWAPPED, "Incompatible types in assignment"),
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """mypy's report on each program, by name: one run over all of them."""
    where = tmp_path_factory.mktemp("typed")
    for name, (source, _) in PROGRAMS.items():
        (where / f"prog_{name}.py").write_text(source)
    out, err, _ = api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--no-error-summary",
            *(str(where / f"prog_{name}.py") for name in PROGRAMS),
        ]
    )
    assert not err, err
    found: dict[str, str] = {name: "" for name in PROGRAMS}
    for line in out.splitlines():
        for name in PROGRAMS:
            if f"prog_{name}.py:" in line:
                found[name] += line + "\n"
    return found


def test_a_right_board_view_passes_mypy(reports: dict[str, str]) -> None:
    assert reports["right"] == ""


@pytest.mark.parametrize("name", [n for n in PROGRAMS if n != "right"])
def test_a_wrong_field_in_a_games_view_fails_mypy(name: str, reports: dict[str, str]) -> None:
    expected = PROGRAMS[name][1]
    assert expected is not None
    assert "error" in reports[name], f"mypy passed {name}"
    assert expected in reports[name], reports[name]
