"""One look at the store per request: inside :meth:`Looks.pinned`, a thread reads each game's
head and secrets once, together (:meth:`referee.store.Store.look`: one statement), and every
read of that thread uses them, so a page is one snapshot and costs one statement when its head
is known already.

A write of this thread moves its look on (:meth:`Looks.moved`); a write refused because another
process wrote first drops it (:meth:`Looks.drop`), and so does a reader that finds the look
behind a head this server has since written or verified in another thread (the look is then
read again, never taken for a log that went backwards). Secrets read for a decision under a
game's lock are read fresh, never from a look (another thread may have changed them)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from referee.store import Store

Head = tuple[int, str]


class Look:
    """What one pinned thread read of a game: its head and its secrets."""

    __slots__ = ("head", "secrets")

    def __init__(self, head: Head | None, secrets: dict[str, str]) -> None:
        self.head = head
        self.secrets = secrets


class Looks:
    """The looks of each thread that pinned, by game. Each thread sees only its own."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._local = threading.local()

    @contextmanager
    def pinned(self) -> Iterator[None]:
        """Within the block this thread looks at each game once. Blocks nest."""
        depth: int = getattr(self._local, "depth", 0)
        if depth == 0:
            self._local.looks = {}
        self._local.depth = depth + 1
        try:
            yield
        finally:
            self._local.depth = depth
            if depth == 0:
                self._local.looks = None

    def _mine(self) -> dict[str, Look] | None:
        looks: dict[str, Look] | None = getattr(self._local, "looks", None)
        return looks

    def look(self, game: str) -> Look | None:
        """This thread's look at ``game`` (read now when it has none yet); None outside
        :meth:`pinned`. Raises StoreError."""
        looks = self._mine()
        if looks is None:
            return None
        got = looks.get(game)
        if got is None:
            head, secrets = self.store.look(game)
            got = looks[game] = Look(head, secrets)
        return got

    def has(self, game: str) -> bool:
        """Whether this thread holds a look at ``game``."""
        looks = self._mine()
        return looks is not None and game in looks

    def moved(self, game: str, head: Head | None, secrets: Mapping[str, str] | None) -> None:
        """This thread wrote ``game`` up to ``head`` (None: no record) and ``secrets``: its look
        moves on with it."""
        looks = self._mine()
        if looks is not None and game in looks:
            if head is not None:
                looks[game].head = head
            looks[game].secrets.update(secrets or {})

    def drop(self, game: str) -> None:
        """Forgets this thread's look at ``game`` (the next read looks again)."""
        looks = self._mine()
        if looks is not None:
            looks.pop(game, None)
