"""``referee rule``: a ruling file goes to the game it names (``"game"``; without it, the
default game's), whose module rules on it (:meth:`referee.game.Game.rule_on_file`)."""

from __future__ import annotations

from collections.abc import Mapping

from engine.errors import NotationError
from referee.game import AnyGame
from referee.jsonin import loads_strict

MAX_FILE_BYTES = 1_000_000  # a ruling file is a position and a few actions: kilobytes
MAX_DEPTH = 16  # a position nests a few levels (file, side, zone, column, entry)


def game_of_file(text: str, name: str, games: Mapping[str, AnyGame], default: str) -> AnyGame:
    """The game whose ruling file ``text`` is: the one its ``"game"`` names, else ``default``.
    Raises NotationError for text that is not strict JSON within the limits, an unknown game,
    or a file without ``"game"`` that has keys only another game's files have."""
    try:
        raw = loads_strict(text, name, max_bytes=MAX_FILE_BYTES, max_depth=MAX_DEPTH)
    except ValueError as e:
        raise NotationError(str(e)) from None
    if not isinstance(raw, dict):
        return games[default]  # its reader refuses it, naming what it is
    if "game" in raw:
        game = games.get(raw["game"]) if isinstance(raw["game"], str) else None
        if game is None:
            raise NotationError(
                f"unknown game {str(raw['game'])[:40]!r}: the games are {', '.join(games)}",
                "game",
            )
        return game
    for g in games.values():
        looks = sorted(set(raw) & g.ruling_keys)
        if g.name != default and looks:
            raise NotationError(
                f'missing: a {g.title} file (it has {looks[0]!r}) says "game": "{g.name}"; '
                f"a file without game is {games[default].title}'s",
                "game",
            )
    return games[default]
