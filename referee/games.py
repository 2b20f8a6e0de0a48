"""The games the referee runs, by name. A create record names its game (``"game"``); a log
made before games had names is Hera & Zeus."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.game import AnyGame, Malformed
from referee.herazeus.game import HERA_ZEUS
from referee.minotaur.game import MINOTAUR
from referee.views import seats_of

GAMES: dict[str, AnyGame] = {HERA_ZEUS.name: HERA_ZEUS, MINOTAUR.name: MINOTAUR}
DEFAULT = HERA_ZEUS.name


def game_named(name: str) -> AnyGame:
    """The game module called ``name``. Raises Malformed naming the games there are."""
    game = GAMES.get(name)
    if game is None:
        known = ", ".join(sorted(GAMES))
        raise Malformed(f"game: no game {str(name)[:40]!r} (games: {known})")
    return game


def game_of(create: Mapping[str, Any]) -> AnyGame:
    """The game a create record's body names (Hera & Zeus when it names none)."""
    name = create.get("game", DEFAULT)
    return game_named(name if isinstance(name, str) else repr(name))


def check_export_seat(seat: str, game: AnyGame) -> None:
    """Raises Malformed when an export's header names ``seat``, which is none of ``game``'s
    seats (its players, the judge, the public): the log knows no game, its create record does."""
    seats = seats_of(game)
    if seat not in seats:
        raise Malformed(
            f"header seat {seat[:40]!r} is not a seat of {game.title} ({', '.join(seats)})"
        )
