"""Waiting for news: a reader blocks until a game's last record passes a number. A writer of
this process rings at once; another process's appends are noticed within :data:`POLL`
seconds (the store's head is looked at that often while someone waits).

A listener (:meth:`Bell.listen`) is told of every ring in this process: the event-driven front
of ``referee serve`` wakes its streams through it (``web.front``), with no thread waiting."""

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
        self._listeners: list[Callable[[str], None]] = []

    def listen(self, listener: Callable[[str], None]) -> None:
        """Calls ``listener(game)`` on every ring from now on, in the ringing thread (it must
        return at once and raise nothing)."""
        with self._guard:
            self._listeners.append(listener)

    def _cond(self, game: str) -> threading.Condition:
        with self._guard:
            return self._changed.setdefault(game, threading.Condition())

    def ring(self, game: str) -> None:
        """Wakes whoever waits on ``game`` (a record was appended)."""
        c = self._cond(game)
        with c:
            c.notify_all()
        with self._guard:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(game)

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
