"""Games held for the judge: a game that changed under the server is served to no seat until
the server restarts (:class:`~referee.errors.Held`); the judge's overview shows why."""

from __future__ import annotations

import logging
import threading

from engine.say import Say
from referee.errors import Held

_log = logging.getLogger(__name__)


class Holds:
    """The games held since this server started, each with the reason. Thread-safe."""

    def __init__(self) -> None:
        self._held: dict[str, str] = {}  # game -> the reason, a Say
        self._guard = threading.Lock()

    def hold(self, game: str, why: str) -> Held:
        """Holds ``game`` (the first reason stays) and returns the error to raise. Its message
        is a :class:`engine.say.Say` (``why`` too, where the caller gives one): a page says it in
        its reader's language."""
        message = Say(
            "game %(game)s failed verification (held for the judge): %(why)s",
            game=repr(game),
            why=why,
        )
        with self._guard:
            self._held.setdefault(game, message)
        _log.error("%s", message)
        return Held(message)

    def reason(self, game: str) -> str | None:
        """Why ``game`` is held, or None."""
        with self._guard:
            return self._held.get(game)

    def games(self) -> list[str]:
        """The held games, by id."""
        with self._guard:
            return sorted(self._held)
