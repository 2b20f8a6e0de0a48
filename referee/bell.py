"""Waiting for news: a reader blocks until a game's last record passes a number. A writer of
this process rings at once. Another process's appends ring it too when the store pushes them
(:class:`Pushing`: the PostgreSQL store's LISTEN, :meth:`referee.pgstore.PostgresStore.listen`);
with a store that does not (memory, SQLite) they are noticed within :data:`POLL` seconds, the
store's head being looked at that often while someone waits. With a store that pushes, the look
is a safety net only, every :data:`SAFETY_POLL` seconds (:attr:`Bell.poll` says which).

A listener (:meth:`Bell.listen`) is told of every ring in this process: the event-driven front
of ``referee serve`` wakes its streams through it (``web.front``), with no thread waiting.
:meth:`Bell.resync` rings every game someone watches (:meth:`Bell.watch`, and every
:meth:`Bell.wait` while it waits): what a pushing store calls after its notices may have been
lost (its connection dropped and was made again)."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Protocol, runtime_checkable

log = logging.getLogger("referee.bell")

POLL = 0.25  # seconds between looks at the store while waiting (other processes' appends)
# seconds between those looks when the store pushes other processes' appends (:class:`Pushing`):
# a notice is lost only when the listener's connection drops between an append and the
# resync that follows its reconnection, or when the listener is stuck; a look this often bounds
# how late a wait then learns of it, at one read per watched game per SAFETY_POLL
SAFETY_POLL = 5.0


@runtime_checkable
class Pushing(Protocol):
    """A store that tells of the appends other processes commit (the PostgreSQL store; the
    memory and SQLite stores do not, and their readers poll)."""

    def listen(self, heard: Callable[[str, int], None], resync: Callable[[], None]) -> None:
        """Calls ``heard(game, seq)`` for each append committed to the store (by any process)
        and ``resync()`` whenever notices may have been missed (after its listening connection
        was made again): each in a thread of the store's, returning at once."""


class _Rings:
    """A game's condition and how many times it was rung (so that a ring between a look at the
    store and the wait that follows it is not lost)."""

    __slots__ = ("cond", "count")

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.count = 0


class Bell:
    """One condition per game. Thread-safe. ``poll``: the seconds between two looks at the
    store while :meth:`wait` waits (read on each wait: :data:`POLL`, or :data:`SAFETY_POLL`
    over a store that pushes)."""

    def __init__(self, poll: float = POLL) -> None:
        self.poll = poll
        self._guard = threading.Lock()
        self._changed: dict[str, _Rings] = {}
        self._listeners: list[Callable[[str], None]] = []
        self._watched: Counter[str] = Counter()

    def listen(self, listener: Callable[[str], None]) -> None:
        """Calls ``listener(game)`` on every ring from now on, in the ringing thread (a writer's,
        or a pushing store's listener thread): it must return at once. What it raises is logged,
        and the other listeners are called all the same."""
        with self._guard:
            self._listeners.append(listener)

    def watch(self, game: str) -> None:
        """Someone follows ``game`` until the matching :meth:`unwatch` (a live page's notifier):
        :meth:`resync` rings it."""
        with self._guard:
            self._watched[game] += 1

    def unwatch(self, game: str) -> None:
        with self._guard:
            self._watched[game] -= 1
            if self._watched[game] <= 0:
                del self._watched[game]

    def watched(self) -> list[str]:
        """The games someone waits on or watches now, sorted."""
        with self._guard:
            return sorted(self._watched)

    def _rings(self, game: str) -> _Rings:
        with self._guard:
            r = self._changed.get(game)
            if r is None:
                r = self._changed[game] = _Rings()
            return r

    def ring(self, game: str) -> None:
        """Wakes whoever waits on ``game`` (a record was appended)."""
        r = self._rings(game)
        with r.cond:
            r.count += 1
            r.cond.notify_all()
        with self._guard:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(game)
            except Exception:  # one listener's fault never keeps the others (or the writer) waiting
                log.exception("a listener of the bell failed on game %s", game)

    def resync(self) -> None:
        """Rings every watched game (news of them may have been missed: each looks again)."""
        for game in self.watched():
            self.ring(game)

    def wait(self, game: str, seq: int, timeout: float, last: Callable[[], int]) -> int:
        """Blocks until ``last()`` (the game's last seq, read from the store) passes ``seq`` or
        ``timeout`` seconds pass; returns the last seq read. The game is watched meanwhile."""
        deadline = time.monotonic() + timeout
        r = self._rings(game)
        self.watch(game)
        try:
            while True:
                with r.cond:
                    before = r.count
                now = last()
                left = deadline - time.monotonic()
                if now > seq or left <= 0:
                    return now
                with r.cond:
                    if r.count == before:  # not rung since the look: wait for a ring
                        r.cond.wait(min(left, self.poll))
        finally:
            self.unwatch(game)
