"""The games the referee runs, by name. A create record names its game (``"game"``); a log
made before games had names is Hera & Zeus."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from referee.game import AnyGame, Malformed
from referee.herazeus.game import HERA_ZEUS
from referee.minotaur.game import MINOTAUR
from referee.views import seats_of

GAMES: dict[str, AnyGame] = {HERA_ZEUS.name: HERA_ZEUS, MINOTAUR.name: MINOTAUR}
DEFAULT = HERA_ZEUS.name


def register(game: AnyGame) -> None:
    """Adds ``game`` to the games the referee runs (its ruling files come with it:
    :meth:`referee.game.Game.rule_on_file`). Raises ValueError when a game of that name is
    registered already."""
    if game.name in GAMES:
        raise ValueError(f"a game named {game.name!r} is registered already")
    GAMES[game.name] = game
    _changed()


def unregister(name: str) -> None:
    """Removes the game ``name`` registered by :func:`register`."""
    if GAMES.pop(name, None) is not None:
        _changed()


WATCHERS: list[Callable[[], None]] = []
"""Called after a game is registered or leaves: what is built from the games (the API's
create body, :mod:`web.schemas`) is built again."""


def _changed() -> None:
    for call in WATCHERS:
        call()


@contextmanager
def registered(game: AnyGame) -> Iterator[AnyGame]:
    """``game`` registered for the block (the tests' third game)."""
    register(game)
    try:
        yield game
    finally:
        unregister(game.name)


def all_seats() -> tuple[str, ...]:
    """Every seat of every registered game, in order (its players, the judge, the public)."""
    return tuple(dict.fromkeys(s for g in GAMES.values() for s in seats_of(g)))


def all_players() -> tuple[str, ...]:
    """The player seats of every registered game."""
    return tuple(dict.fromkeys(p for g in GAMES.values() for p in g.players))


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
