"""The game repository: the log of every game over one store, folded and kept fresh.

Its one job is records: read a game's head and fold what is new (other processes may append to
the same database), keep the folded games in a bounded cache, seal and sign new records, append
them in one transaction, and wake whoever waits on a game. It knows no game's rules (the game
module folds its actions) and no seat's rights (the callers decide).

**Loading is fast, verifying is whole.** Loading a game checks the whole hash chain (every
record's content against its hash, each against the one before it) and the head record's
signature: the head's signed hash commits to every record before it. ``referee verify``,
imports and every seat's cut still check every record's signature (:func:`referee.log.verify`).
Records another process appended are each checked (chain, hash, signature) before they are
folded in.
"""

from __future__ import annotations

import gc
import json
import logging
import secrets as _secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from referee.anchors import Anchor, AnchorError, Anchors
from referee.errors import Held, NotFound, Refused, Stale, Unavailable
from referee.fold import Folded, FoldError, fold, step
from referee.game import AnyGame, Outcome
from referee.keys import Signer, fingerprint_of, parse_public_key, signature_ok
from referee.log import GENESIS, Entry, Header, Record
from referee.models import IdleCount
from referee.store import Conflict, GameHead, Store, StoreError, parse_utc, utc_text
from referee.validate import InputError, game_id
from referee.views import sealed_paths
from referee.words import head_text

CACHE_GAMES = 256  # games kept folded in memory; the least recently used leave first
POLL = 0.25  # seconds between looks at the store while waiting (other processes' appends)

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


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pauses Python's cyclic garbage collector while a game is read whole: reading makes
    thousands of small containers, and each collection they trigger would walk the whole heap
    (a 10,000-record game read about 40% faster). Nothing read here makes a cycle."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def checked_game_id(game: str) -> None:
    """Raises Refused for a malformed game id."""
    try:
        game_id(game)
    except InputError as e:
        raise Refused(str(e)) from None


def store_call(fn: Callable[[], Any]) -> Any:
    """Runs a store call, turning a storage fault into Unavailable."""
    try:
        return fn()
    except StoreError as e:
        raise Unavailable(str(e)) from None


class Repository:
    """Games over one store. Thread-safe: one lock per game for writers; readers take an
    immutable snapshot (:class:`~referee.fold.Folded`) and never wait."""

    def __init__(
        self,
        store: Store,
        clock: Clock | None = None,
        token: Callable[[], str] | None = None,
        signer: Signer | None = None,
        cache_games: int = CACHE_GAMES,
        anchors: Anchors | None = None,
    ) -> None:
        self.store = store
        self.clock = clock or SystemClock()
        self.token = token or (lambda: _secrets.token_urlsafe(16))  # 128 random bits
        self.signer = signer or Signer.generate()
        # the heads this server wrote and the keys it trusts, outside the database
        self.anchors = anchors or Anchors.in_memory(self.signer)
        self._held: dict[str, str] = {}  # games held for a change under the server: why
        self._locks: dict[str, threading.Lock] = {}
        self._cache: OrderedDict[str, Folded] = OrderedDict()
        self._cache_games = max(1, cache_games)
        self._guard = threading.Lock()
        self._changed: dict[str, threading.Condition] = {}

    # ---- locks and waiting -------------------------------------------------------------------

    def lock(self, game: str) -> threading.Lock:
        """The writers' lock of one game."""
        with self._guard:
            return self._locks.setdefault(game, threading.Lock())

    def _cond(self, game: str) -> threading.Condition:
        with self._guard:
            return self._changed.setdefault(game, threading.Condition())

    def notify(self, game: str) -> None:
        c = self._cond(game)
        with c:
            c.notify_all()

    def wait(self, game: str, seq: int, timeout: float) -> int:
        """Blocks until the game's last seq passes ``seq`` or ``timeout`` seconds pass; returns
        the last seq. Notices other processes' appends within ``POLL`` seconds."""
        deadline = time.monotonic() + timeout
        c = self._cond(game)
        while True:
            h = self.head(game)
            left = deadline - time.monotonic()
            if h[0] > seq or left <= 0:
                return h[0]
            with c:
                c.wait(min(left, POLL))

    # ---- reading -----------------------------------------------------------------------------

    def head(self, game: str) -> tuple[int, str]:
        """The stored head. Raises NotFound, Unavailable."""
        h: tuple[int, str] | None = store_call(lambda: self.store.head(game))
        if h is None:
            raise NotFound(f"no game {game!r}")
        return h

    def exists(self, game: str) -> bool:
        return store_call(lambda: self.store.head(game)) is not None

    def secrets(self, game: str) -> dict[str, str]:
        out: dict[str, str] = store_call(lambda: self.store.secrets(game))
        return out

    def records(self, game: str, after: int = -1, upto: int | None = None) -> list[Record]:
        out: list[Record] = store_call(lambda: self.store.records(game, after=after, upto=upto))
        return out

    def by_key(self, game: str, seat: str, key: str) -> Record | None:
        out: Record | None = store_call(lambda: self.store.by_key(game, seat, key))
        return out

    def refuse_used_key(self, f: Folded, seat: str, key: str | None) -> None:
        """Raises Stale when ``seat`` already used the idempotency ``key`` in game ``f``."""
        if key is not None and (hit := self.by_key(f.game, seat, key)) is not None:
            raise Stale(f"already applied as event {hit.seq} (same key)", hit.seq, f.last_seq)

    def games(self) -> list[str]:
        out: list[str] = store_call(self.store.games)
        return out

    def heads(self, moved: bool = False) -> list[GameHead]:
        """Every game's head and where its creation ended (one read of the store);
        ``moved``: only the games that are not idle."""
        out: list[GameHead] = store_call(lambda: self.store.heads(moved))
        return out

    def idle(self, limit: int = 0, offset: int = 0) -> tuple[int, list[str]]:
        """How many games are idle, and ``limit`` of their ids from ``offset``."""
        out: tuple[int, list[str]] = store_call(lambda: self.store.idle(limit, offset))
        return out

    def unanchored(self) -> list[GameHead]:
        """The games whose stored head the heads journal does not cover: no line for the game,
        or a line before its head (the journal is missing, or older than the database)."""
        out = []
        for gh in self.heads():
            a = self.anchors.journal.get(gh.game)
            if a is None or a.seq < gh.seq:
                out.append(gh)
        return out

    def idle_count(self, within: timedelta | None = None) -> IdleCount:
        """The games nobody has joined yet (nothing recorded since their creation), counting
        only those created within ``within`` of the clock's now (a game whose creation time
        was not kept then does not count; None: every one counts), and when the oldest of
        them stops counting. One read of the store; no game is loaded."""
        now = parse_utc(self.clock.now())
        since = None if within is None else utc_text(now - within)
        count, oldest = store_call(lambda: self.store.idle_since(since))
        frees_at = None
        if within is not None and oldest is not None:
            with suppress(ValueError):  # a time written by hand: no date to give
                frees_at = parse_utc(oldest) + within
        return IdleCount(int(count), now, frees_at)

    def public_key(self, game: str) -> str:
        """The key a game's records are signed with: this server's, or an imported log's when
        this server trusts it (the key it imported the game with, in the heads journal, or a
        key of the tournament's trusted keys). A key stored in the database is never taken on
        its word. Raises Held for a key this server does not trust."""
        stored = self.secrets(game).get("key:public")
        own = self.signer.public_b64
        anchor = self.anchors.journal.get(game)
        if anchor is not None and anchor.fingerprint == self.signer.fingerprint:
            return own  # this server made the game: whatever key the database names
        if stored is None or stored == own:
            return own
        try:
            fp = fingerprint_of(parse_public_key(stored))
        except ValueError:
            raise self.hold(game, "the key stored for it is not a key") from None
        if (anchor is not None and anchor.fingerprint == fp) or self.anchors.trust.trusts(
            fp, stored
        ):
            return stored
        raise self.hold(
            game,
            f"it is signed by key {fp}, which this server does not trust (not its own key "
            f"{self.signer.fingerprint}, not a trusted key, not the key it was imported with): "
            "a key was written into the database",
        )

    def hold(self, game: str, why: str) -> Held:
        """Holds ``game`` until the server restarts: it changed under the server. The judge's
        overview shows ``why``. Returns the error to raise."""
        message = f"game {game!r} failed verification (held for the judge): {why}"
        with self._guard:
            self._held.setdefault(game, message)
            self._cache.pop(game, None)
        _log.error("%s", message)
        return Held(message)

    def held_games(self) -> list[str]:
        """The games held for a change under the server, by id."""
        with self._guard:
            return sorted(self._held)

    def held_reason(self, game: str) -> str | None:
        """Why ``game`` is held for a change under the server, or None."""
        with self._guard:
            return self._held.get(game)

    def _check_anchor(self, game: str, head: tuple[int, str], a: Anchor | None) -> None:
        """Raises Held when the stored head ``head`` is before the head ``a`` this server wrote
        or read (taken before ``head`` was read), or differs from it at the same event."""
        if a is None:
            return
        if head[0] < a.seq:
            raise self.hold(
                game,
                f"the log went backwards: the database ends at event {head_text(*head)}, "
                f"but this server had the game at event {head_text(a.seq, a.hash)} "
                "(records were deleted)",
            )
        if head[0] == a.seq and head[1] != a.hash:
            raise self.hold(game, self._changed_at(a.seq, head[1], a.hash))

    @staticmethod
    def _changed_at(seq: int, got: str, want: str) -> str:
        return (
            f"event {seq} changed under the server: the database holds {got[:8]}, this "
            f"server had {want[:8]}"
        )

    def verified(self, game: str, f: Folded, upto: int | None = None) -> list[Record]:
        """The game's stored records through ``upto`` (default: all), checked against the
        folded game ``f`` the caller serves: the chain, each record's content against its hash,
        and the end against ``f``'s head. Raises Held (the game is then held)."""
        # the stored form's own hash check: the bytes that were hashed, not a re-serialised copy
        entries = [e for e in self.store.entries(game) if e.seq <= f.last_seq]
        prev = GENESIS
        for i, e in enumerate(entries):
            try:
                ok = e.prev == prev and e.seq == i and e.hash_ok()
            except ValueError:
                ok = False
            if not ok:
                raise self.hold(game, f"event {i} changed under the server (it does not chain)")
            prev = e.hash
        if not entries or (entries[-1].seq, entries[-1].hash) != (f.last_seq, f.last_hash):
            end = head_text(entries[-1].seq, entries[-1].hash) if entries else "nothing"
            raise self.hold(
                game,
                f"the database ends at {end}, but this server had the game at event "
                f"{head_text(f.last_seq, f.last_hash)}",
            )
        wanted = entries if upto is None else entries[: upto + 1]
        try:
            return [e.record() for e in wanted]
        except ValueError:
            why = "a stored record is not a record (it changed under the server)"
            raise self.hold(game, why) from None

    def header(self, game: str, seat: str) -> Header:
        pk = self.public_key(game)
        return Header(game, seat, pk, fingerprint_of(parse_public_key(pk)))

    def _remember(self, f: Folded) -> None:
        with self._guard:
            self._cache[f.game] = f
            self._cache.move_to_end(f.game)
            while len(self._cache) > self._cache_games:
                self._cache.popitem(last=False)

    def _load(self, game: str, records: Sequence[Entry]) -> Folded:
        """Checks a game's whole chain and its head's signature, and folds it. Raises Held."""
        prev = GENESIS
        for i, r in enumerate(records):
            if r.game != game or r.seq != i or r.prev != prev or r.redacted:
                raise Held(f"game {game!r} failed verification: record {i} does not chain")
            if not r.hash_ok():
                raise Held(
                    f"game {game!r} failed verification: record {i}'s content does not match "
                    "its hash (edited)"
                )
            prev = r.hash
        a = self.anchors.journal.get(game)
        if a is not None and a.seq < len(records) and records[a.seq].hash != a.hash:
            raise self.hold(game, self._changed_at(a.seq, records[a.seq].hash, a.hash))
        last = records[-1]
        pk = self.public_key(game)
        if not signature_ok(parse_public_key(pk), last.hash, last.sig):
            raise Held(
                f"game {game!r} failed verification: the head's signature does not verify "
                "(re-hashed or signed by another key)"
            )
        try:
            f = fold(records, verified=True)  # its actions are not checked again
        except (FoldError, ValueError) as e:  # ValueError: a stored record that is not one
            raise Held(f"game {game!r} cannot be replayed: {e}") from None
        # a verified head is an anchor too (a game from before the journal is adopted here)
        self._anchor(game, last, fingerprint_of(parse_public_key(pk)))
        return f

    def folded(self, game: str) -> Folded:
        """The game as the log says it is now, fresh: what other processes appended is folded in
        first. Raises NotFound, Held (failed verification), Unavailable, or Refused for a
        malformed game id."""
        checked_game_id(game)
        with self._guard:
            held = self._held.get(game)
            f = self._cache.get(game)
            if f is not None:
                self._cache.move_to_end(game)
        if held is not None:
            raise Held(held)
        anchor = self.anchors.journal.get(game)  # before the head: a write notes it after
        head = self.head(game)
        self._check_anchor(game, head, anchor)
        if f is not None and head == (f.last_seq, f.last_hash):
            return f
        if f is not None and head[0] > f.last_seq:
            g = self._extend(f, self.records(game, after=f.last_seq))
            if g is not None:
                return g
        with _collector_paused():
            records: Sequence[Entry] = store_call(lambda: self.store.entries(game))
            if not records:
                raise NotFound(f"no game {game!r}")
            f = self._load(game, records)
        self._remember(f)
        return f

    def _extend(self, f: Folded, newer: list[Record]) -> Folded | None:
        """``f`` with records appended by another process folded in, each checked (chain,
        hash, signature); None when they do not follow on (then the game is reloaded whole)."""
        pk = parse_public_key(self.public_key(f.game))
        g = f.copy()
        prev = f.last_hash
        for r in newer:
            if (
                r.game != f.game
                or r.seq != g.last_seq + 1
                or r.prev != prev
                or not r.hash_ok()
                or not signature_ok(pk, r.hash, r.sig)
            ):
                return None
            try:
                step(g, r)
            except FoldError:
                return None
            prev = r.hash
        self._remember(g)
        self.anchors.journal.seen(g.game, g.last_seq, g.last_hash, fingerprint_of(pk))
        return g

    # ---- writing -----------------------------------------------------------------------------

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
            f = fresh if fresh is not None else self.folded(game)
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
                continue  # another process wrote first: build again on its head
            except StoreError as e:
                raise Unavailable(str(e)) from None
            self._anchor(game, recs[-1])
            g = f.copy()
            for r, d in zip(recs, drafts, strict=True):
                step(g, r, d.outcome)
            self._remember(g)
            self.notify(game)
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
        self._anchor(records[0].game, records[-1], fingerprint or self.signer.fingerprint)

    def _anchor(self, game: str, last: Entry, fingerprint: str | None = None) -> None:
        """Notes a head this server wrote in the heads journal. A journal that cannot be
        written is logged, not raised: the records are stored already."""
        a = self.anchors.journal.get(game)
        fp = fingerprint or (
            a.fingerprint
            if a is not None
            else fingerprint_of(parse_public_key(self.public_key(game)))
        )
        try:
            self.anchors.journal.note(game, last.seq, last.hash, fp)
        except AnchorError as e:
            _log.error("%s", e)

    def kit(self, game: str) -> dict[str, Any] | None:
        """The sticker kit the game was created with (secret included), or None."""
        raw = self.secrets(game).get("kit")
        out: dict[str, Any] | None = json.loads(raw) if raw else None
        return out
