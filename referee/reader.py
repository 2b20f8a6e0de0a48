"""The reader: a game's log as this server verified it, kept by head.

A game is verified once: its first read checks the whole hash chain (every record's content
against its hash, each against the one before it) and the head record's signature, which
commits to every record before it, and folds it. The reader keeps that fold (with what
take-back and a seat's legal actions need: :class:`~referee.fold.Folded`), and once a log asks
for them the records and each seat's cut of them, by the head they were verified at (an LRU of
:data:`CACHE_GAMES` games). After that a read costs one look at the store's head:

- the same head: nothing is read again (a page for a head already seen reads only the head);
- a later head: only the records after the verified one are read, and each is checked (its
  chain link to the last verified head, its hash, its signature) before it is folded in;
- anything else (a head behind the one verified, another hash at the same number, records that
  do not follow on): the game is read and verified whole again, or held for the judge when it
  changed under the server (:mod:`referee.holds`, with the heads journal of
  :mod:`referee.anchors`).

Several processes may serve one database: what another process appended is noticed on the
next look at the head. The ledger (:mod:`referee.ledger`) hands the reader what it wrote
itself, already sealed and folded. ``referee verify``, imports and every export still check
every record (:func:`referee.log.verify`, :meth:`Reader.verified`).

**One look per request** (:mod:`referee.looks`): inside :meth:`Reader.pinned` a game's head
and secrets are read once, together, and every read of that thread uses them: a page is one
snapshot, and for a head already verified it costs one statement.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from engine.say import Say
from referee.anchors import Anchor, AnchorError, Anchors
from referee.errors import Held, NotFound, Refused, Stale, Unavailable
from referee.fold import Folded, FoldError, fold, step
from referee.gamekeys import Untrusted, game_key
from referee.holds import Holds
from referee.keys import Signer, fingerprint_of, parse_public_key, signature_ok
from referee.log import Entry, Header, Record, chain_fault
from referee.looks import Head, Look, Looks
from referee.store import Store, StoreError
from referee.validate import InputError, game_id
from referee.views import redact
from referee.words import head_text

_log = logging.getLogger(__name__)

CACHE_GAMES = 256  # games kept verified in memory; the least recently used leave first


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


class Known:
    """A verified head: the game folded through it and the entries it was verified from. The
    records are built from them once, when a log first asks, and each seat's cut of them once
    per seat (:func:`referee.views.redact`); a later head adds only its new records to each."""

    __slots__ = ("_cuts", "_records", "entries", "folded")

    def __init__(self, folded: Folded, entries: list[Entry]) -> None:
        self.folded = folded
        self.entries = entries
        self._records: list[Record] | None = None
        self._cuts: dict[str, list[Record]] = {}

    def records(self) -> list[Record]:
        """Every record through the head, in order (built once; never change)."""
        out = self._records
        if out is None:
            out = self._records = [e.record() for e in self.entries]
            self.entries = list(out)  # the stored forms are not needed any more
        return out

    def cut(self, seat: str) -> list[Record]:
        """Every record through the head as ``seat`` may read it (cut once per seat; the
        caller must not change the list)."""
        out = self._cuts.get(seat)
        if out is None:
            g = self.folded.module
            out = self._cuts[seat] = [redact(r, seat, g) for r in self.records()]
        return out

    def then(self, folded: Folded, newer: Sequence[Record]) -> Known:
        """The head after ``newer`` (checked by the caller), folded into ``folded``."""
        out = Known(folded, [*self.entries, *newer])
        if self._records is not None:
            out._records = [*self._records, *newer]
        g = folded.module
        for seat, cut in list(self._cuts.items()):
            out._cuts[seat] = [*cut, *(redact(r, seat, g) for r in newer)]
        return out


class Reader:
    """Verified games over one store, by head. Thread-safe: readers share immutable snapshots
    (:class:`~referee.fold.Folded`) and never wait on a writer."""

    def __init__(
        self,
        store: Store,
        signer: Signer,
        anchors: Anchors,
        holds: Holds,
        cache_games: int = CACHE_GAMES,
    ) -> None:
        self.store = store
        self.signer = signer
        self.anchors = anchors
        self.holds = holds
        self._cache: OrderedDict[str, Known] = OrderedDict()
        self._cache_games = max(1, cache_games)
        self._guard = threading.Lock()
        self.looks = Looks(store)

    # ---- one look per request (:mod:`referee.looks`) ---------------------------------------

    def pinned(self) -> AbstractContextManager[None]:
        """Within the block this thread reads each game's head and secrets once."""
        return self.looks.pinned()

    def moved(self, game: str, head: Head | None, secrets: Mapping[str, str] | None) -> None:
        """This thread wrote ``game`` up to ``head`` and ``secrets``: its look moves on."""
        self.looks.moved(game, head, secrets)

    def unpin(self, game: str) -> None:
        """Drops this thread's look at ``game`` (another process wrote: look again)."""
        self.looks.drop(game)

    # ---- the store, as read -----------------------------------------------------------------

    def stored_head(self, game: str) -> Head | None:
        """The store's head of ``game`` (the pinned one inside :meth:`pinned`)."""
        look: Look | None = store_call(lambda: self.looks.look(game))
        if look is not None:
            return look.head
        h: Head | None = store_call(lambda: self.store.head(game))
        return h

    def last_seq(self, game: str) -> int:
        """The store's last seq of ``game``, read now (never pinned: for waiting)."""
        h: Head | None = store_call(lambda: self.store.head(game))
        if h is None:
            raise NotFound(Say("no game %(game)s", game=repr(game)))
        return h[0]

    def head(self, game: str) -> Head:
        """The stored head. Raises NotFound, Unavailable."""
        h = self.stored_head(game)
        if h is None:
            raise NotFound(Say("no game %(game)s", game=repr(game)))
        return h

    def exists(self, game: str) -> bool:
        return self.stored_head(game) is not None

    def secrets(self, game: str) -> dict[str, str]:
        """The game's secrets, read now: for a decision taken under the game's lock."""
        out: dict[str, str] = store_call(lambda: self.store.secrets(game))
        return out

    def seen_secrets(self, game: str) -> dict[str, str]:
        """The game's secrets as this request looked at them (:meth:`pinned`; read now
        outside one): for telling who a request is, never for a check under the lock."""
        look: Look | None = store_call(lambda: self.looks.look(game))
        return dict(look.secrets) if look is not None else self.secrets(game)

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

    # ---- keys and holds -----------------------------------------------------------------------

    def public_key(self, game: str) -> str:
        """The key a game's records are signed with (:func:`referee.gamekeys.game_key`).
        Raises Held for a key this server does not trust."""
        stored = self.seen_secrets(game).get("key:public")
        try:
            return game_key(game, stored, self.signer, self.anchors)
        except Untrusted as e:
            raise self.hold(game, str(e)) from None

    def header(self, game: str, seat: str) -> Header:
        pk = self.public_key(game)
        return Header(game, seat, pk, fingerprint_of(parse_public_key(pk)))

    def hold(self, game: str, why: str) -> Held:
        """Holds ``game`` until the server restarts (it changed under the server) and forgets
        what was verified of it. Returns the error to raise."""
        with self._guard:
            self._cache.pop(game, None)
        return self.holds.hold(game, why)

    def _check_anchor(self, game: str, head: Head, a: Anchor | None) -> None:
        """Raises Held when the stored head ``head`` is before the head ``a`` this server wrote
        or read (taken before ``head`` was read), or differs from it at the same event."""
        if a is None:
            return
        if head[0] < a.seq:
            raise self.hold(
                game,
                Say(
                    "the log went backwards: the database ends at event %(stored)s, but this "
                    "server had the game at event %(known)s (records were deleted)",
                    stored=head_text(*head),
                    known=head_text(a.seq, a.hash),
                ),
            )
        if head[0] == a.seq and head[1] != a.hash:
            raise self.hold(game, _changed_at(a.seq, head[1], a.hash))

    # ---- verified games -----------------------------------------------------------------------

    def folded(self, game: str) -> Folded:
        """The game as the log says it is now (what other processes appended is folded in
        first). Raises NotFound, Held (failed verification), Unavailable, or Refused for a
        malformed game id."""
        return self.known(game).folded

    def log(self, game: str) -> list[Record]:
        """Every record of the game as verified at its head now (for the log a seat reads)."""
        return self.known(game).records()

    def known(self, game: str) -> Known:
        """The game verified at the stored head (see the module's docstring)."""
        checked_game_id(game)
        held = self.holds.reason(game)
        if held is not None:
            raise Held(held)
        with self._guard:
            k = self._cache.get(game)
            if k is not None:
                self._cache.move_to_end(game)
        anchor = self.anchors.journal.get(game)  # before the head: a write notes it after
        head = self.head(game)
        if anchor is not None and head[0] < anchor.seq and self.looks.has(game):
            # this thread's look was taken before another thread's write: look again
            self.looks.drop(game)
            head = self.head(game)
        self._check_anchor(game, head, anchor)
        if k is not None:
            f = k.folded
            if head == (f.last_seq, f.last_hash):
                return k
            if head[0] > f.last_seq:
                newer = self.records(game, after=f.last_seq, upto=head[0])
                caught = self._extend(k, newer)
                if caught is not None:
                    return caught
        with _collector_paused():
            entries: list[Entry] = list(store_call(lambda: self.store.entries(game)))
            if not entries:
                raise NotFound(Say("no game %(game)s", game=repr(game)))
            k = Known(self._load(game, entries), entries)
        self._remember(k)
        return k

    def _remember(self, k: Known) -> None:
        game = k.folded.game
        with self._guard:
            if self.holds.reason(game) is not None:
                return
            old = self._cache.get(game)
            if old is not None and old.folded.last_seq > k.folded.last_seq:
                return  # a later head was verified meanwhile
            self._cache[game] = k
            self._cache.move_to_end(game)
            while len(self._cache) > self._cache_games:
                self._cache.popitem(last=False)

    def _load(self, game: str, records: Sequence[Entry]) -> Folded:
        """Checks a game's whole chain and its head's signature, and folds it. Raises Held."""
        fault = chain_fault(records, game)
        if fault is not None:
            i, what = fault
            if what == "chain":
                raise Held(
                    Say(
                        "game %(game)s failed verification: record %(record)s does not chain",
                        game=repr(game),
                        record=i,
                    )
                )
            raise Held(
                Say(
                    "game %(game)s failed verification: record %(record)s's content does not "
                    "match its hash (edited)",
                    game=repr(game),
                    record=i,
                )
            )
        a = self.anchors.journal.get(game)
        if a is not None and a.seq < len(records) and records[a.seq].hash != a.hash:
            raise self.hold(game, _changed_at(a.seq, records[a.seq].hash, a.hash))
        last = records[-1]
        pk = self.public_key(game)
        if not signature_ok(parse_public_key(pk), last.hash, last.sig):
            raise Held(
                Say(
                    "game %(game)s failed verification: the head's signature does not verify "
                    "(re-hashed or signed by another key)",
                    game=repr(game),
                )
            )
        try:
            f = fold(records, verified=True)  # its actions are not checked again
        except (FoldError, ValueError) as e:  # ValueError: a stored record that is not one
            raise Held(
                Say("game %(game)s cannot be replayed: %(why)s", game=repr(game), why=str(e))
            ) from None
        # a verified head is an anchor too (a game from before the journal is adopted here); a
        # journal that cannot be written is logged, not raised
        try:
            self.anchors.journal.note(
                game, last.seq, last.hash, fingerprint_of(parse_public_key(pk))
            )
        except AnchorError as e:
            _log.error("%s", e)
        return f

    def _extend(self, k: Known, newer: list[Record]) -> Known | None:
        """``k`` with records another process appended folded in, each checked (its chain link
        to the head before it, its hash, its signature); None when they do not follow on
        (then the game is read whole again)."""
        f = k.folded
        if not newer or chain_fault(newer, f.game, f.last_hash, f.last_seq + 1) is not None:
            return None
        pk = parse_public_key(self.public_key(f.game))
        if not all(signature_ok(pk, r.hash, r.sig) for r in newer):
            return None
        g = f.copy()
        try:
            for r in newer:
                step(g, r)
        except FoldError:
            return None
        out = k.then(g, newer)
        # the anchor first: a head in the cache is never past the journal's
        self.anchors.journal.seen(g.game, g.last_seq, g.last_hash, fingerprint_of(pk))
        self._remember(out)
        return out

    def wrote(
        self,
        before: Folded,
        after: Folded,
        records: Sequence[Record],
        secrets: Mapping[str, str] | None = None,
    ) -> None:
        """The ledger appended ``records`` (sealed by this server) and ``secrets`` on
        ``before``, giving ``after``: kept as verified, as if read back."""
        with self._guard:
            k = self._cache.get(before.game)
        if k is not None and k.folded.last_seq == before.last_seq:
            self._remember(k.then(after, records))
        self.looks.moved(after.game, (after.last_seq, after.last_hash), secrets)

    def verified(self, game: str, f: Folded, upto: int | None = None) -> list[Record]:
        """The game's stored records through ``upto`` (default: all), read again and checked
        against the folded game ``f`` the caller serves: the chain, each record's content
        against its hash, and the end against ``f``'s head (for an export: the proof is made
        of what is stored now). Raises Held (the game is then held)."""
        # the stored form's own hash check: the bytes that were hashed, not a re-serialised copy
        stored: Sequence[Entry] = store_call(lambda: self.store.entries(game))
        entries = [e for e in stored if e.seq <= f.last_seq]
        fault = chain_fault(entries, game)
        if fault is not None:
            why = Say(
                "event %(event)s changed under the server (it does not chain)", event=fault[0]
            )
            raise self.hold(game, why)
        if not entries or (entries[-1].seq, entries[-1].hash) != (f.last_seq, f.last_hash):
            known = head_text(f.last_seq, f.last_hash)
            if entries:
                end = head_text(entries[-1].seq, entries[-1].hash)
                why = Say(
                    "the database ends at %(stored)s, but this server had the game at event "
                    "%(known)s",
                    stored=end,
                    known=known,
                )
            else:
                why = Say(
                    "the database ends at nothing, but this server had the game at event %(known)s",
                    known=known,
                )
            raise self.hold(game, why)
        wanted = entries if upto is None else entries[: upto + 1]
        try:
            return [e.record() for e in wanted]
        except ValueError:
            why = Say("a stored record is not a record (it changed under the server)")
            raise self.hold(game, why) from None


def _changed_at(seq: int, got: str, want: str) -> str:
    return Say(
        "event %(event)s changed under the server: the database holds %(stored)s, this server "
        "had %(known)s",
        event=seq,
        stored=got[:8],
        known=want[:8],
    )
