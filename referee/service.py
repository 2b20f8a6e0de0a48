"""The referee service: runs games for a physical table, from setup to result.

:class:`Referee` is a small front over parts with one job each:

- :class:`~referee.ledger.Ledger`: the only writer. Seal, sign, append in one transaction
  (again on the new head when another process wrote first), anchor the head, ring the bell.
- :class:`~referee.reader.Reader`: the games as verified, by head. A game is verified once;
  then a read looks at the head and checks only what is new (several processes may serve one
  database). :class:`~referee.catalogue.Catalogue` reads over every game; :mod:`referee.holds`
  keeps the games held for the judge; :mod:`referee.bell` wakes whoever waits for news.
- :class:`~referee.tables.Tables`: creating and importing games; join codes, and the device
  holding each seat (claims and requests).
- :class:`~referee.acting.Acting`: submissions, answers to the referee's questions and
  observations, under the statement policy (each game's statement and contradiction rules).
- :class:`~referee.judging.Judging`: calls to the judge, settling, undo, amend, rulings,
  reissued join codes.
- :class:`~referee.reading.Reading`: read models, each cut for its seat: views, the overview,
  the log, exports, replays, waiting for news.

The service knows no game's rules: each game is a module (:mod:`referee.game`,
:mod:`referee.games`). Every method raises only :class:`~referee.errors.ServiceError`s (the
tree is in :mod:`referee.errors`) and returns the typed values of :mod:`referee.models`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from referee import witnessing
from referee.acting import Acting, fill_input
from referee.anchors import Anchors
from referee.bell import POLL, SAFETY_POLL, Bell, Pushing
from referee.catalogue import Catalogue
from referee.errors import (
    Forbidden,
    Held,
    NeedsInput,
    NotFound,
    Refused,
    ServiceError,
    Stale,
    Unavailable,
)
from referee.fold import Folded
from referee.games import DEFAULT
from referee.holds import Holds
from referee.judging import Judging
from referee.keys import Signer
from referee.ledger import Clock, FixedClock, Ledger, SystemClock
from referee.log import Record
from referee.models import (
    Caution,
    Claim,
    Created,
    Device,
    GameInfo,
    Head,
    IdleCount,
    Receipt,
    ReplayStep,
    Ruling,
    SeatView,
    TableRow,
)
from referee.reader import CACHE_GAMES, Reader
from referee.reading import Reading
from referee.review import Reviewing
from referee.store import Store
from referee.tables import Tables, code_hash

__all__ = [
    "Claim",
    "Created",
    "Device",
    "FixedClock",
    "Forbidden",
    "Held",
    "NeedsInput",
    "NotFound",
    "Receipt",
    "Referee",
    "Refused",
    "ServiceError",
    "Stale",
    "SystemClock",
    "Unavailable",
    "code_hash",
    "fill_input",
    "open_referee",
]


class Referee:
    """Games, seats and the log over one store. Thread-safe."""

    def __init__(
        self,
        store: Store,
        clock: Clock | None = None,
        token: Callable[[], str] | None = None,
        signer: Signer | None = None,
        cache_games: int = CACHE_GAMES,
        anchors: Anchors | None = None,
    ) -> None:
        signer = signer or Signer.generate()
        # the heads this server wrote and the keys it trusts, outside the database
        anchors = anchors or Anchors.in_memory(signer)
        self.holds = Holds()
        # a store that pushes other processes' appends rings the bell itself: polling is then
        # only a safety net (:mod:`referee.bell`)
        # (a read-only store, a command's, waits for nothing: no listening connection)
        pushing = isinstance(store, Pushing) and not getattr(store, "readonly", False)
        self.bell = Bell(SAFETY_POLL if pushing else POLL)
        self.reader = Reader(store, signer, anchors, self.holds, cache_games)
        self.ledger = Ledger(store, self.reader, self.bell, clock, token, signer, anchors)
        self.catalogue = Catalogue(store, anchors, self.ledger.clock)
        self.tables = Tables(self.ledger, self.reader)
        self.reading = Reading(self.reader, self.catalogue, self.holds, self.bell)
        self.acting = Acting(self.ledger, self.reader, self.reading)
        self.judging = Judging(self.ledger, self.reader, self.reading, self.tables)
        self.reviewing = Reviewing(self.reader, self.reading)
        if pushing:
            assert isinstance(store, Pushing)
            store.listen(lambda game, seq: self.bell.ring(game), self.bell.resync)

    @property
    def store(self) -> Store:
        return self.reader.store

    @property
    def signer(self) -> Signer:
        return self.ledger.signer

    def fingerprint(self) -> str:
        """This server's signing key fingerprint (for the players' score sheet)."""
        return self.ledger.signer.fingerprint

    @contextmanager
    def pinned(self) -> Iterator[None]:
        """One look at the store per game for the block (a page, a form's post): every read
        of this thread uses the head and secrets it read first (:meth:`Reader.pinned`)."""
        with self.reader.pinned():
            yield

    # ---- tables ------------------------------------------------------------------------------

    def create_game(
        self,
        *,
        name: str = DEFAULT,
        options: Mapping[str, Any] | None = None,
        players: Mapping[str, str] | None = None,
        game: str | None = None,
        kit: Mapping[str, Any] | None = None,
        judged: bool = True,
        strict: bool = False,
        hands_public: bool = False,
        **named: Any,
    ) -> Created:
        """A new game of the module ``name`` with its ``options``
        (:meth:`referee.tables.Tables.create_game`; ``strict``: without the guardian). Any
        further keyword is one of the game's options by name (``Game.options``), given when
        not None."""
        opts = {k: v for k, v in named.items() if v is not None}
        merged: Any = opts  # malformed options go on to be refused by name
        if options is not None:
            merged = {**opts, **options} if isinstance(options, Mapping) else options
        return self.tables.create_game(
            name=name,
            options=merged,
            players=players,
            game=game,
            kit=kit,
            judged=judged,
            strict=strict,
            hands_public=hands_public,
        )

    def import_log(self, text_: str, trust_key: str | None = None, head: str | None = None) -> str:
        return self.tables.import_log(text_, trust_key, head)

    def seat_for_code(self, game: str, code: str) -> str:
        return self.tables.seat_for_code(game, code)

    def seat_for_token(self, game: str, token: str) -> str:
        return self.tables.seat_for_token(game, token)

    def request_of(self, game: str, token: str) -> Record | None:
        return self.tables.request_of(game, token)

    def replaced(self, game: str, token: str) -> tuple[str, Record] | None:
        """The seat ``token`` held until a reissue or a move replaced it, and that record."""
        return self.tables.replaced(game, token)

    def claim(self, game: str, code: str, token: str | None = None, ask: bool = False) -> Claim:
        return self.tables.claim(game, code, token, ask)

    def peek(self, game: str, code: str, token: str | None = None) -> tuple[str, str]:
        """What opening a join link would do, without doing it (:meth:`Tables.peek`)."""
        return self.tables.peek(game, code, token)

    def device(self, game: str, token: str, *, rotate: bool = False) -> Device:
        """What a device token opens now, rotated when due (:meth:`Tables.device`)."""
        return self.tables.device(game, token, rotate=rotate)

    def recover(self, game: str, code: str, token: str | None = None) -> Claim:
        """Moves a seat to this device with its recovery code (:meth:`Tables.recover`)."""
        return self.tables.recover(game, code, token)

    def issue_recovery(self, game: str, seat: str, token: str | None) -> str | None:
        """A new recovery code, once, for the device holding a seat that has none (after an
        approved move, :meth:`Tables.issue_recovery`)."""
        return self.tables.issue_recovery(game, seat, token)

    def kit(self, game: str) -> dict[str, Any] | None:
        return self.tables.kit(game)

    def games(self) -> list[str]:
        return self.catalogue.games()

    def folded(self, game: str) -> Folded:
        """The whole truth of a game (every hidden card): for the CLI's replay and for tests,
        never for a seat (pages and the API read :meth:`view` and the other read models)."""
        return self.reader.folded(game)

    # ---- reading -----------------------------------------------------------------------------

    def head(self, game: str) -> Head:
        return self.reading.head(game)

    def game_info(self, game: str) -> GameInfo:
        return self.reading.game_info(game)

    def seat_news(self, game: str, seat: str) -> dict[str, Any]:
        return self.reading.seat_news(game, seat)

    def card_names(self, game: str) -> dict[str, list[str]]:
        return self.reading.card_names(game)

    def view(self, game: str, seat: str) -> SeatView[Any]:
        return self.reading.view(game, seat)

    def overview(self, seat: str, *, idle: bool = True) -> list[TableRow]:
        return self.reading.overview(seat, idle=idle)

    def idle_games(self, seat: str, limit: int, offset: int = 0) -> tuple[int, list[str]]:
        """How many games nobody has joined yet, and a page of their ids (judge only): see
        :meth:`Reading.idle_games`."""
        return self.reading.idle_games(seat, limit, offset)

    def report_head(
        self, game: str, seat: str, seen: tuple[Any, Any], served: tuple[Any, Any]
    ) -> Record:
        """A device reports a head it saw that the server no longer serves: an irregularity
        for the judge (:func:`referee.witnessing.report_head`)."""
        return witnessing.report_head(self.ledger, self.reading, game, seat, seen, served)

    def journal_gap(self) -> str | None:
        """None when the heads journal covers every game the database holds; else one
        sentence naming the database's games the journal misses or is behind on (a database
        copied over the one this server wrote, with its journal deleted, is served as if
        nothing happened: issue 31). A fresh database (no game) needs no journal."""
        gaps = self.catalogue.unanchored()
        if not gaps:
            return None
        journal = self.reader.anchors.journal.path
        where = str(journal) if journal is not None else "(in memory)"
        total = len(self.catalogue.heads())
        if journal is not None and not journal.exists():
            return f"its heads journal {where} is missing ({total} games stored)"
        names = ", ".join(gh.game for gh in gaps[:3]) + (" ..." if len(gaps) > 3 else "")
        return (
            f"its heads journal {where} is older than the database: {len(gaps)} of its "
            f"{total} games end past the journal's last line ({names})"
        )

    def journal_ahead(self) -> str | None:
        """None when the database holds every log the heads journal knows, at least at the
        journal's head; else one sentence naming those it holds short (held when read: they
        went backwards) and those it lacks (a database restored from before them)."""
        behind = self.catalogue.behind()
        if not behind:
            return None

        def names(rows: list[tuple[str, int, int | None]]) -> str:
            return ", ".join(rows_[0] for rows_ in rows[:5]) + (" ..." if len(rows) > 5 else "")

        short = [b for b in behind if b[2] is not None]
        lost = [b for b in behind if b[2] is None]
        parts = []
        if short:
            parts.append(
                f"{len(short)} logs end before the heads this server signed ({names(short)}): "
                "they are held for the judge"
            )
        if lost:
            parts.append(
                f"{len(lost)} logs this server signed are missing from the database ({names(lost)})"
            )
        return "the database is behind its heads journal: " + "; ".join(parts)

    def anchor_stored(self) -> int:
        """Loads (and so verifies and anchors in the journal) every game the journal does not
        cover; returns how many. A game that fails verification stays held for the judge."""
        n = 0
        for gh in self.catalogue.unanchored():
            try:
                self.reader.folded(gh.game)
                n += 1
            except ServiceError:
                pass
        return n

    def idle_count(self, within: timedelta | None = None) -> IdleCount:
        """The games nobody has joined yet, for the creation limits (no seat needed): those
        created within ``within`` (None: all), and when the oldest of them stops counting
        (:meth:`Catalogue.idle_count`)."""
        return self.catalogue.idle_count(within)

    def log(self, game: str, seat: str, upto: int | None = None) -> list[Record]:
        return self.reading.log(game, seat, upto)

    def corrections(self, game: str, seat: str) -> list[Record]:
        """The game's undo and amend records as ``seat`` may read them (the page's count of
        corrections; :meth:`Reading.corrections`)."""
        return self.reading.corrections(game, seat)

    def export(self, game: str, seat: str) -> str:
        return self.reading.export(game, seat)

    def replay(self, game: str, seat: str) -> list[ReplayStep]:
        return self.reading.replay(game, seat)

    def wait(self, game: str, seq: int, timeout: float) -> int:
        return self.reading.wait(game, seq, timeout)

    # ---- acting ------------------------------------------------------------------------------

    def submit(
        self,
        game: str,
        seat: str,
        raw: Mapping[str, Any],
        *,
        expected_seq: int | None = None,
        key: str | None = None,
    ) -> Receipt:
        return self.acting.submit(game, seat, raw, expected_seq=expected_seq, key=key)

    def guard(self, game: str, seat: str, raw: Mapping[str, Any]) -> list[Caution]:
        """The guardian's warnings for ``seat``'s action ``raw`` before he confirms it
        (:meth:`referee.acting.Acting.guard`); empty at a strict table."""
        return self.acting.guard(game, seat, raw)

    def answer(self, game: str, seat: str, value: Any, *, key: str | None = None) -> Receipt:
        return self.acting.answer(game, seat, value, key=key)

    def observe(self, game: str, seat: str, obs: Mapping[str, Any]) -> Record:
        return self.acting.observe(game, seat, obs)

    def observe_all(
        self, game: str, seat: str, observations: Sequence[Mapping[str, Any]]
    ) -> list[Record]:
        return self.acting.observe_all(game, seat, observations)

    # ---- judging -----------------------------------------------------------------------------

    def call_judge(self, game: str, seat: str, note: str = "") -> Record:
        return self.judging.call_judge(game, seat, note)

    def resolve(self, game: str, seat: str, event: int, note: str) -> Record:
        return self.judging.resolve(game, seat, event, note)

    def undo(self, game: str, seat: str, to: int, reason: str) -> Record:
        return self.judging.undo(game, seat, to, reason)

    def amend(
        self, game: str, seat: str, event: int, raw: Mapping[str, Any], reason: str
    ) -> Record:
        return self.judging.amend(game, seat, event, raw, reason)

    def ruling(
        self,
        game: str,
        seat: str,
        raw: Mapping[str, Any],
        at: int | None = None,
        lang: str = "en",
    ) -> Ruling[Any]:
        return self.judging.ruling(game, seat, raw, at, lang)

    def reissue(self, game: str, seat: str, target: str) -> str:
        return self.judging.reissue(game, seat, target)

    def approve_seat(self, game: str, seat: str, request: int) -> Record:
        return self.judging.approve_seat(game, seat, request)

    def propose(self, game: str, seat: str, correction: Mapping[str, Any]) -> Record:
        return self.judging.propose(game, seat, correction)

    def take_back(self, game: str, seat: str) -> Record:
        return self.judging.take_back(game, seat)

    def take_back_refusal(self, game: str, seat: str) -> str | None:
        """Why ``seat`` may not ask to take back his last action now (None: he may)."""
        self.reading.seat_of(game, seat)
        return self.judging.take_back_refusal(self.reader.folded(game), seat)[1]

    def approve(self, game: str, seat: str, proposal: int, agree: bool = True) -> list[Record]:
        return self.judging.approve(game, seat, proposal, agree)

    # ---- the review (issue 37) ---------------------------------------------------------------

    def review_views(self, game: str, seat: str) -> list[str]:
        return self.reviewing.review_views(game, seat)

    def may_study(self, game: str, seat: str) -> bool:
        return self.reviewing.may_study(game, seat)

    def open_actions(self, game: str, seat: str, at: int) -> dict[str, list[str]]:
        return self.reviewing.open_actions(game, seat, at)

    def what_if(
        self, game: str, seat: str, raw: Mapping[str, Any], at: int, lang: str = "en"
    ) -> Ruling[Any]:
        return self.reviewing.what_if(game, seat, raw, at, lang)


def open_referee(
    db: str | Path,
    *,
    readonly: bool = False,
    state: str | Path | None = None,
    max_size: int | None = None,
    **kw: Any,
) -> Referee:
    """A referee over the database ``db`` (a SQLite file, or a ``postgresql://`` URI:
    :mod:`referee.place`), signing with the key kept outside it (``DB.key`` beside a SQLite
    file, ``referee.key`` in a PostgreSQL database's state folder ``state``; created on first
    start; never a key from the database), with its anchors there too: the heads journal
    ``.heads`` and the trusted keys ``.trust`` (:mod:`referee.anchors`); ``":memory:"``: a
    store, key and anchors that last as long as the process, nothing written. ``readonly``: the
    database, key and journal must exist and are not written. ``max_size``: a PostgreSQL
    pool's connections at most. Raises StoreError, KeyFileError or AnchorError (a malformed
    ``db`` or ``state``: StoreError naming it)."""
    from referee.keys import KeyFileError
    from referee.place import place_of
    from referee.store import StoreError

    try:
        place = place_of(db, state)
    except ValueError as e:
        raise StoreError(str(e)) from None
    key = place.file(".key")
    if not readonly:
        try:
            place.prepare()
        except OSError as e:
            why = f"{place.folder}: cannot make the state folder ({e.strerror})"
            raise KeyFileError(why) from None
    store = place.open_store(readonly=readonly, max_size=max_size)  # "no such database" first
    try:
        if readonly and not key.exists():
            where = "in its state folder (--state)" if place.postgres else "beside the database"
            raise KeyFileError(f"{place.name}: no signing key {where} ({key})")
        if str(db) == ":memory:":  # a store that lasts as long as the process: so does its key
            signer = Signer.generate()
            anchors = Anchors.in_memory(signer)
        else:
            signer = Signer.load_or_create(key)
            anchors = Anchors.beside(place.files, signer, readonly=readonly)
    except Exception:
        store.close()
        raise
    return Referee(store, signer=signer, anchors=anchors, **kw)
