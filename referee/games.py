"""The games the referee runs, by name. A create record names its game (``"game"``); a log
made before games had names is Hera & Zeus."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from referee.game import Game, Malformed
from referee.herazeus.game import HERA_ZEUS
from referee.minotaur.game import MINOTAUR
from referee.views import seats_of

GAMES: dict[str, Game] = {HERA_ZEUS.name: HERA_ZEUS, MINOTAUR.name: MINOTAUR}
DEFAULT = HERA_ZEUS.name

RulingFile = Callable[[dict[str, Any]], tuple[dict[str, Any], str]]
"""A game's reader of its ruling files for ``referee rule``: the file's JSON (which names the
game: ``"game"``) to the result object and its text for a judge. Raises RuleError."""
RULING_FILES: dict[str, RulingFile] = {}


def register(game: Game, ruling_file: RulingFile | None = None) -> None:
    """Adds ``game`` (and its ruling-file reader) to the games the referee runs. Raises
    ValueError when a game of that name is registered already."""
    if game.name in GAMES:
        raise ValueError(f"a game named {game.name!r} is registered already")
    GAMES[game.name] = game
    if ruling_file is not None:
        RULING_FILES[game.name] = ruling_file


def unregister(name: str) -> None:
    """Removes the game ``name`` registered by :func:`register`."""
    GAMES.pop(name, None)
    RULING_FILES.pop(name, None)


@contextmanager
def registered(game: Game, ruling_file: RulingFile | None = None) -> Iterator[Game]:
    """``game`` registered for the block (the tests' third game)."""
    register(game, ruling_file)
    try:
        yield game
    finally:
        unregister(game.name)


def ruling_file_of(raw: object) -> RulingFile | None:
    """The registered reader of a ruling file's JSON that names its game, or None (the
    readers of :mod:`referee.herazeus.ruling` and :mod:`referee.minotaur.ruling` decide)."""
    if isinstance(raw, dict) and isinstance(raw.get("game"), str):
        return RULING_FILES.get(raw["game"])
    return None


def all_seats() -> tuple[str, ...]:
    """Every seat of every registered game, in order (its players, the judge, the public)."""
    return tuple(dict.fromkeys(s for g in GAMES.values() for s in seats_of(g)))


def all_players() -> tuple[str, ...]:
    """The player seats of every registered game."""
    return tuple(dict.fromkeys(p for g in GAMES.values() for p in g.players))


def game_named(name: str) -> Game:
    """The game module called ``name``. Raises Malformed naming the games there are."""
    game = GAMES.get(name)
    if game is None:
        known = ", ".join(sorted(GAMES))
        raise Malformed(f"game: no game {str(name)[:40]!r} (games: {known})")
    return game


def game_of(create: Mapping[str, Any]) -> Game:
    """The game a create record's body names (Hera & Zeus when it names none)."""
    name = create.get("game", DEFAULT)
    return game_named(name if isinstance(name, str) else repr(name))


def check_export_seat(seat: str, game: Game) -> None:
    """Raises Malformed when an export's header names ``seat``, which is none of ``game``'s
    seats (its players, the judge, the public): the log knows no game, its create record does."""
    seats = seats_of(game)
    if seat not in seats:
        raise Malformed(
            f"header seat {seat[:40]!r} is not a seat of {game.title} ({', '.join(seats)})"
        )
