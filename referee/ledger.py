"""The ledger: the only writer of the game logs.

It seals new records (their hidden values sealed as the game decides, :mod:`referee.views`),
signs them with the server's key, appends them to the store in one transaction (building them
again on the new head when another process appended first, a few times), notes each new head
in the heads journal (:mod:`referee.anchors`), hands what it wrote to the reader
(:mod:`referee.reader`: the game after it is known without reading it back) and rings the
bell for whoever waits (:mod:`referee.bell`). It knows no game's rules (the game module folds
its actions) and no seat's rights (the callers decide).
"""

from __future__ import annotations

import logging
import secrets as _secrets
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any, Protocol

from referee.anchors import AnchorError, Anchors
from referee.bell import Bell
from referee.errors import Refused, Stale, Unavailable
from referee.fold import Folded, step
from referee.game import AnyGame, Outcome
from referee.keys import Signer, fingerprint_of, parse_public_key
from referee.log import Entry, Record
from referee.reader import Reader, store_call
from referee.store import Conflict, Store, StoreError
from referee.views import sealed_paths

_log = logging.getLogger(__name__)


class Clock(Protocol):
    def now(self) -> str: ...


class SystemClock:
    def now(self) -> str:
        return datetime.now(UTC).isoformat(timespec="microseconds")


class FixedClock:
    """A clock for tests: starts at a fixed instant and ticks one second per reading; a test
    moves it on with :meth:`advance` instead of sleeping."""

    def __init__(self, start: str = "2026-01-01T00:00:00+00:00") -> None:
        self._t = datetime.fromisoformat(start)
        self._n = 0
        self._lock = threading.Lock()

    def now(self) -> str:
        with self._lock:
            self._n += 1
            n = self._n
        return (self._t + timedelta(seconds=n)).isoformat(timespec="microseconds")

    def advance(self, seconds: float) -> None:
        """Moves the clock ``seconds`` on (as if that long had passed)."""
        with self._lock:
            self._t += timedelta(seconds=seconds)


@dataclass(frozen=True)
class Draft:
    """A record to be written: who writes it, its kind and body, the events of its action,
    the writer's idempotency key, and (for an action) the outcome already computed on the
    snapshot, so the fold does not run the engine again."""

    seat: str
    kind: str
    body: Mapping[str, Any]
    events: Sequence[Mapping[str, Any]] = ()
    key: str | None = None
    outcome: Outcome[Any] | None = None


class Ledger:
    """Writes games over one store. Thread-safe: one lock per game for writers."""

    def __init__(
        self,
        store: Store,
        reader: Reader,
        bell: Bell,
        clock: Clock | None = None,
        token: Callable[[], str] | None = None,
        signer: Signer | None = None,
        anchors: Anchors | None = None,
    ) -> None:
        self.store = store
        self.reader = reader
        self.bell = bell
        self.clock = clock or SystemClock()
        self.token = token or (lambda: _secrets.token_urlsafe(16))  # 128 random bits
        self.signer = signer or reader.signer
        self.anchors = anchors or reader.anchors
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def lock(self, game: str) -> threading.Lock:
        """The writers' lock of one game."""
        with self._guard:
            return self._locks.setdefault(game, threading.Lock())

    def seal(self, game: str, seq: int, prev: str, d: Draft, module: AnyGame) -> Record:
        """A signed record from a draft; its sealed paths are those some seat of the game may
        not see."""
        r = Record(
            game,
            seq,
            self.clock.now(),
            d.seat,
            d.kind,
            dict(d.body),
            tuple(d.events),
            d.key,
            prev,
            "",
            self.token() + self.token(),
        )
        r = replace(r, sealed=sealed_paths(r, module))
        return r.sealed_with(self.signer.sign)

    def write(
        self,
        game: str,
        build: Callable[[Folded], list[Draft]],
        secrets: Mapping[str, str] | None = None,
        fresh: Folded | None = None,
    ) -> tuple[list[Record], Folded]:
        """Builds records on the fresh game and appends them in one transaction; when another
        process appended first, builds again on the new head (a few times). Returns the records
        and the game after them. ``build`` may raise a ServiceError: then nothing is written.
        ``fresh``: the snapshot the caller just read under the game's lock (saves a read; the
        store still refuses the append if another process wrote since)."""
        for _ in range(5):
            f = fresh if fresh is not None else self.reader.folded(game)
            fresh = None
            drafts = build(f)
            recs: list[Record] = []
            seq, prev = f.last_seq, f.last_hash
            for d in drafts:
                seq += 1
                r = self.seal(game, seq, prev, d, f.module)
                recs.append(r)
                prev = r.hash
            try:
                self.store.append(recs, secrets)
            except Conflict as e:
                if e.existing is not None:
                    raise Stale(
                        f"already applied as event {e.existing.seq} (same key)", e.existing.seq
                    ) from None
                self.reader.unpin(game)  # another process wrote first: look again
                continue  # and build again on its head
            except StoreError as e:
                raise Unavailable(str(e)) from None
            self._anchor(game, recs[-1])
            g = f.copy()
            for r, d in zip(recs, drafts, strict=True):
                step(g, r, d.outcome)
            self.reader.wrote(f, g, recs, secrets)
            self.bell.ring(game)
            return recs, g
        raise Stale("the game kept changing under this request; reload and try again")

    def write_on(self, seen: Folded, drafts: list[Draft]) -> tuple[list[Record], Folded]:
        """Writes records decided on the snapshot ``seen`` the caller checked; if another
        process wrote since, the request is stale (decided on an old table)."""

        def build(f: Folded) -> list[Draft]:
            if f.last_seq != seen.last_seq:
                raise Stale(
                    f"the game moved on to event {f.last_seq}; reload and try again",
                    seq=f.last_seq,
                )
            return drafts

        return self.write(seen.game, build, fresh=seen)

    def append_new(
        self, records: list[Record], secrets: Mapping[str, str], fingerprint: str | None = None
    ) -> None:
        """Appends a new game's first records (or an imported log, signed by the key
        ``fingerprint``; default: this server's). Raises Refused when the game exists already,
        Unavailable on a storage fault."""
        try:
            self.store.append(records, secrets)
        except Conflict:
            raise Refused(f"game {records[0].game!r} exists already") from None
        except StoreError as e:
            raise Unavailable(str(e)) from None
        self.reader.unpin(records[0].game)
        self._anchor(records[0].game, records[-1], fingerprint or self.signer.fingerprint)

    def put_secrets(self, game: str, secrets: Mapping[str, str]) -> None:
        """Stores secrets outside any record, one by one in the given order. Raises
        Unavailable."""
        for name, value in secrets.items():
            store_call(partial(self.store.put_secret, game, name, value))
            self.reader.moved(game, None, {name: value})

    def _anchor(self, game: str, last: Entry, fingerprint: str | None = None) -> None:
        """Notes a head this server wrote in the heads journal. A journal that cannot be
        written is logged, not raised: the records are stored already."""
        a = self.anchors.journal.get(game)
        fp = fingerprint or (
            a.fingerprint
            if a is not None
            else fingerprint_of(parse_public_key(self.reader.public_key(game)))
        )
        try:
            self.anchors.journal.note(game, last.seq, last.hash, fp)
        except AnchorError as e:
            _log.error("%s", e)
