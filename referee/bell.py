"""Waiting for news: a reader blocks until a game's last record passes a number. A writer of
this process rings at once; another process's appends are noticed within :data:`POLL`
seconds (the store's head is looked at that often while someone waits)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

POLL = 0.25  # seconds between looks at the store while waiting (other processes' appends)


class Bell:
    """One condition per game. Thread-safe."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._changed: dict[str, threading.Condition] = {}

    def _cond(self, game: str) -> threading.Condition:
        with self._guard:
            return self._changed.setdefault(game, threading.Condition())

    def ring(self, game: str) -> None:
        """Wakes whoever waits on ``game`` (a record was appended)."""
        c = self._cond(game)
        with c:
            c.notify_all()

    def wait(self, game: str, seq: int, timeout: float, last: Callable[[], int]) -> int:
        """Blocks until ``last()`` (the game's last seq, read from the store) passes ``seq`` or
        ``timeout`` seconds pass; returns the last seq read."""
        deadline = time.monotonic() + timeout
        c = self._cond(game)
        while True:
            now = last()
            left = deadline - time.monotonic()
            if now > seq or left <= 0:
                return now
            with c:
                c.wait(min(left, POLL))
