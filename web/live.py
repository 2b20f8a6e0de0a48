"""Live updates: ``GET /api/v1/games/<game>/stream``, server-sent events.

Under ``referee serve`` this view only admits a stream (the seat, the game, the caps below)
and the event-driven front writes it on its event loop, holding no thread
(:mod:`web.front`, issue 33); on another WSGI server (the tests', Werkzeug's) the events
below are written by the worker thread, as described here.

Each event (type ``head``, id = the event number) carries the log's new head ``{"seq", "hash"}``
and nothing else: a page that gets it fetches its own view again, cut for its own seat, so the
stream can never carry a hidden card. The first event is sent at once (the head as it is now,
or nothing when ``Last-Event-ID`` is already current); then an event within a fraction of a
second of every change, a comment line every :data:`HEARTBEAT` seconds (proxies and phones drop
silent connections), and the stream ends after :data:`STREAM_SECONDS` so that no server thread is
held forever: the browser's EventSource reconnects by itself (``retry`` below) and resumes after
the ``Last-Event-ID`` it holds.

**Limits** (issues 12 and 33). The streams have their own bounded share of the server
(:class:`StreamGate`): ``STREAM_SLOTS`` at once on the server; a seat's device at most
``STREAMS_PER_SEAT`` on its seat, never counted by address; streams holding no seat (onlookers)
``STREAMS_PER_CLIENT`` from one address, ``STREAMS_PER_GAME`` on one game and
``SPECTATOR_STREAMS`` in all, past which a newcomer ends the oldest onlooker stream of the
address holding the most (the front ends it; on another WSGI server a stream cannot be ended
early and is never chosen). Past a cap the stream is refused with 503 ``Busy`` and
``Retry-After`` before any thread is held; ``HEAD`` on the same URL asks whether a stream would
be admitted now without opening one (the live page's script falls back to refreshing the page
every ``Retry-After`` seconds and asks again). On another WSGI server a stream holds a worker
thread, and one whose client has gone is noticed within :data:`TICK` seconds (the socket is
readable at end of file; a live page never sends anything after its request); under
``referee serve`` the front hears the close at once.
"""

from __future__ import annotations

import json
import select
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, current_app, request

from referee.models import Head
from referee.service import Referee
from web.errors import Busy
from web.request import get_referee, seat_of, with_game

bp = Blueprint("live", __name__)

HEARTBEAT = 15.0
STREAM_SECONDS = 300.0
RETRY_MS = 2000
TICK = 0.5  # a stream checks this often whether its client has gone or the server stops
STREAM_SLOTS = 384  # streams at once on the server (``referee serve``: its threads' share)
STREAMS_PER_CLIENT = 8  # from one address (a browser opens at most 6 connections per host)
STREAMS_PER_GAME = 24  # onlookers' streams on one game
STREAMS_PER_SEAT = 4  # on one seat of one game (its device, a few pages)
BUSY_RETRY = 10.0  # seconds a refused page waits before it asks again

STOPPING = threading.Event()  # set by ``referee serve`` on shutdown: every stream ends
# the environ key of a stream the event-driven front of ``referee serve`` will write itself
FRONT_TICKET = "referee.front_stream"


class _Watch:
    """The live pages of one game share one waiter: one stream at a time (the leader) waits in
    the service, the others wait on this condition, and every change wakes them all. With three
    pages per table that is a third of the waiting threads looking at the store."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.seq = -1  # the last event number the leader saw
        self.leading = False


_watches: dict[tuple[int, str], _Watch] = {}
_watches_lock = threading.Lock()


def _watch(ref: Referee, game: str) -> _Watch:
    key = (id(ref), game)
    with _watches_lock:
        w = _watches.get(key)
        if w is None:
            if len(_watches) > 10_000:  # games long gone; their pages have reconnected
                _watches.clear()
            w = _watches[key] = _Watch()
        return w


def wait_for(ref: Referee, game: str, seq: int, timeout: float) -> int:
    """Blocks until ``game``'s last event number is above ``seq`` or ``timeout`` seconds pass;
    returns the last event number known. The waiting is :meth:`Referee.wait` (which also
    notices appends by other processes), done by one stream per game for all of them."""
    w = _watch(ref, game)
    deadline = time.monotonic() + timeout
    with w.cond:
        while True:
            if w.seq > seq:
                return w.seq
            left = deadline - time.monotonic()
            if left <= 0:
                return max(w.seq, seq)
            if w.leading:
                w.cond.wait(left)
                continue
            w.leading = True
            w.cond.release()
            try:
                got = ref.wait(game, seq, left)
            finally:
                w.cond.acquire()
                w.leading = False
                w.cond.notify_all()
            if got > w.seq or got < seq:  # got < seq: a shorter chain, reported as it is
                w.seq = got
            if got != seq:
                return got


# ---- the streams' share of the server --------------------------------------------------------


@dataclass(eq=False)
class _Slot:
    """One open stream: who holds it, and how to end it (None: it cannot be ended early)."""

    client: str
    game: str
    seat: str
    shed: Callable[[], None] | None


class StreamGate:
    """The streams' bounded share of the server. Thread safe.

    - ``slots``: streams open at once on the server, of every kind;
    - a seat's streams (a player's device or the judge's): ``per_seat`` on one seat of one game
      (a device with a few pages open); not counted by address, so phones sharing a venue's
      address never crowd one another out;
    - streams holding no seat (onlookers, and anyone with no seat): ``per_client`` from one
      address, ``per_game`` on one game, and ``spectators`` in all. When those are all taken,
      a newcomer ends the oldest onlooker stream of the address holding the most of them, when
      that address holds at least two more than the newcomer's or is his own (the ended page
      reconnects, and is refused unless its address still holds the most by two), so no mix of
      addresses keeps the others out; a stream that cannot be ended early is never chosen.
    """

    def __init__(
        self,
        slots: int,
        per_client: int,
        per_game: int,
        spectators: int | None = None,
        per_seat: int = STREAMS_PER_SEAT,
    ) -> None:
        self.slots, self.per_client, self.per_game = slots, per_client, per_game
        self.spectators = slots if spectators is None else spectators
        self.per_seat = per_seat
        self._lock = threading.Lock()
        self.open = 0
        self.shed = 0  # onlooker streams ended to make room
        self._public: dict[str, list[_Slot]] = {}  # by address, oldest first
        self.public_open = 0
        self._games: dict[str, int] = {}  # onlooker streams by game
        self._seats: dict[tuple[str, str], int] = {}

    def _victim(self, client: str) -> _Slot | None:
        """The stream a newcomer from ``client`` ends when the onlookers' share is full: the
        oldest that can end of the address holding the most (``client``'s own among equals),
        when that address is ``client`` or holds at least two more (so that after the swap it
        still holds as many as ``client``: no two addresses end each other's streams in turn);
        else None."""
        mine = len(self._public.get(client, ()))
        ranked = sorted(self._public.items(), key=lambda kv: (len(kv[1]), kv[0] == client))
        for address, slots in reversed(ranked):
            if address != client and len(slots) < mine + 2:
                return None
            for slot in slots:
                if slot.shed is not None:
                    return slot
        return None

    def _refusal(self, client: str, game: str, seat: str) -> Busy | None:
        if self.open >= self.slots:
            return Busy(
                f"the server holds as many live streams as it may ({self.slots}); this page "
                f"refreshes itself and asks again in {BUSY_RETRY:g} seconds",
                BUSY_RETRY,
            )
        if seat != "public":
            if self._seats.get((game, seat), 0) >= self.per_seat:
                return Busy(
                    f"this seat already has {self.per_seat} live pages open, the most one seat "
                    "may; close one of them or wait",
                    BUSY_RETRY,
                )
            return None
        if len(self._public.get(client, ())) >= self.per_client:
            return Busy(
                f"this device already holds {self.per_client} live streams, the most one "
                "client may; close a page of this server or wait",
                BUSY_RETRY,
            )
        if self._games.get(game, 0) >= self.per_game:
            return Busy(
                f"game {game} already has {self.per_game} live pages open, the most one game "
                "may; this page refreshes itself instead",
                BUSY_RETRY,
            )
        if self.public_open >= self.spectators and self._victim(client) is None:
            return Busy(
                f"the server holds as many onlookers' live streams as it may "
                f"({self.spectators}); this page refreshes itself and asks again in "
                f"{BUSY_RETRY:g} seconds (the players' and the judge's pages are not "
                "counted)",
                BUSY_RETRY,
            )
        return None

    def check(self, client: str, game: str, seat: str = "public") -> None:
        """Raises Busy when a stream of ``client`` (holding ``seat``) on ``game`` would be
        refused now."""
        with self._lock:
            refusal = self._refusal(client, game, seat)
        if refusal is not None:
            raise refusal

    def enter(
        self, client: str, game: str, seat: str = "public", shed: Callable[[], None] | None = None
    ) -> Callable[[], None]:
        """Takes a slot; returns its release (idempotent). ``shed`` ends the stream early (the
        gate calls it, at most once, to make room for another). Raises Busy past a cap."""
        slot = _Slot(client, game, seat, shed)
        victim: _Slot | None = None
        with self._lock:
            refusal = self._refusal(client, game, seat)
            if refusal is not None:
                raise refusal
            if seat == "public" and self.public_open >= self.spectators:
                victim = self._victim(client)
                if victim is not None:
                    self._forget(victim)
                    self.shed += 1
            self.open += 1
            if seat == "public":
                self._public.setdefault(client, []).append(slot)
                self.public_open += 1
                self._games[game] = self._games.get(game, 0) + 1
            else:
                self._seats[(game, seat)] = self._seats.get((game, seat), 0) + 1
        if victim is not None and victim.shed is not None:
            victim.shed()

        def release() -> None:
            with self._lock:
                self._forget(slot)

        return release

    def _forget(self, slot: _Slot) -> None:
        """Frees ``slot`` once (under the lock)."""
        if slot.client == "":
            return
        self.open -= 1
        if slot.seat == "public":
            held = self._public[slot.client]
            held.remove(slot)
            if not held:
                del self._public[slot.client]
            self.public_open -= 1
            self._games[slot.game] -= 1
            if self._games[slot.game] <= 0:
                del self._games[slot.game]
        else:
            key = (slot.game, slot.seat)
            self._seats[key] -= 1
            if self._seats[key] <= 0:
                del self._seats[key]
        slot.client = ""  # freed


def stream_gate() -> StreamGate:
    """The app's gate (``STREAM_SLOTS``, ``STREAMS_PER_CLIENT``, ``STREAMS_PER_GAME``)."""
    g = current_app.extensions.get("live_gate")
    if g is None:
        cfg = current_app.config
        g = current_app.extensions.setdefault(
            "live_gate",
            StreamGate(
                int(cfg.get("STREAM_SLOTS", STREAM_SLOTS)),
                int(cfg.get("STREAMS_PER_CLIENT", STREAMS_PER_CLIENT)),
                int(cfg.get("STREAMS_PER_GAME", STREAMS_PER_GAME)),
                int(cfg.get("SPECTATOR_STREAMS") or cfg.get("STREAM_SLOTS", STREAM_SLOTS)),
                int(cfg.get("STREAMS_PER_SEAT", STREAMS_PER_SEAT)),
            ),
        )
    assert isinstance(g, StreamGate)
    return g


def client_gone(sock: Any) -> bool:
    """True when the client of ``sock`` closed its end (or the socket is unusable): a live
    page sends nothing after its request, so a readable socket is one at end of file."""
    if sock is None:
        return False
    try:
        fd = sock.fileno()
        if fd < 0:
            return True
        if sys.platform != "win32":  # poll: any descriptor (select stops at 1024)
            p = select.poll()
            p.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)
            return bool(p.poll(0))
        readable, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _client_socket(environ: dict[str, Any]) -> Any:
    """The connection's socket, where the server tells it (``referee serve``'s gateway and
    Werkzeug's development server do); None elsewhere (the stream then ends on its own)."""
    return environ.get("referee.socket") or environ.get("werkzeug.socket")


def _event(head: Head) -> str:
    return f"event: head\nid: {head['seq']}\ndata: {json.dumps(head)}\n\n"


def events(
    ref: Referee,
    game: str,
    since: int | None,
    *,
    heartbeat: float = HEARTBEAT,
    duration: float = STREAM_SECONDS,
    gone: Callable[[], bool] = lambda: False,
) -> Iterator[str]:
    """The stream's text: ``retry``, the current head unless ``since`` is current, then one
    event per change and heartbeats, for ``duration`` seconds, or until ``gone()`` (checked
    every :data:`TICK` seconds) says the client has left."""
    end = time.monotonic() + duration
    yield f"retry: {RETRY_MS}\n\n"
    head = ref.head(game)
    if since is None or head["seq"] != since:
        yield _event(head)
    seen = head["seq"]
    quiet_since = time.monotonic()
    while not STOPPING.is_set() and not gone():
        now = time.monotonic()
        left = end - now
        if left <= 0:
            return
        beat = quiet_since + heartbeat - now
        seq = wait_for(ref, game, seen, max(0.0, min(TICK, left, beat)))
        if seq != seen:  # a shorter chain is never expected: sent too, the page warns loudly
            head = ref.head(game)
            seen = head["seq"]
            quiet_since = time.monotonic()
            yield _event(head)
        elif time.monotonic() - quiet_since >= heartbeat:
            quiet_since = time.monotonic()
            yield ": heartbeat\n\n"


@bp.get("/api/v1/games/<game>/stream")
@with_game
def stream(game: str) -> Response:
    """Server-sent events for ``game`` (any seat: the head is public); ``HEAD`` answers 200
    when a stream would be admitted now. Raises NotFound, Busy (a cap is reached)."""
    ref = get_referee()
    ref.head(game)  # 404 before the stream starts
    client = request.remote_addr or "-"
    seat = seat_of(game)
    gate = stream_gate()
    if request.method == "HEAD":
        gate.check(client, game, seat)
        return Response(b"", 200, mimetype="text/event-stream")
    ticket = request.environ.get(FRONT_TICKET)
    shed = ticket.get("shed") if isinstance(ticket, dict) else None
    release = gate.enter(client, game, seat, shed if callable(shed) else None)
    try:
        if isinstance(ticket, dict):
            return _admit(ticket, ref, game, release)
        return _open_stream(ref, game, release)
    except BaseException:
        release()
        raise


def _since() -> int | None:
    """The ``Last-Event-ID`` the browser resumes after, when it is a plain number."""
    last = request.headers.get("Last-Event-ID", "").strip()
    return int(last) if last.isdigit() and len(last) <= 12 else None


def _admit(
    ticket: dict[str, Any], ref: Referee, game: str, release: Callable[[], None]
) -> Response:
    """The stream admitted for ``referee serve``'s event-driven front (:mod:`web.front`): the
    checks are this view's, the events are the front's. ``ticket`` gets what the front needs
    (the referee, the game, the event to resume after, the release of the slot, the stream's
    heartbeat and length); the answer carries the headers, and no body."""
    cfg = current_app.config
    ticket.update(
        ref=ref,
        game=game,
        since=_since(),
        release=release,
        heartbeat=float(cfg.get("SSE_HEARTBEAT", HEARTBEAT)),
        duration=float(cfg.get("SSE_SECONDS", STREAM_SECONDS)),
    )
    resp = Response(b"", 200, mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp


def _open_stream(ref: Referee, game: str, release: Callable[[], None]) -> Response:
    since = _since()
    cfg = current_app.config
    sock = _client_socket(request.environ)

    def body() -> Iterator[str]:
        try:
            yield from events(
                ref,
                game,
                since,
                heartbeat=float(cfg.get("SSE_HEARTBEAT", HEARTBEAT)),
                duration=float(cfg.get("SSE_SECONDS", STREAM_SECONDS)),
                gone=lambda: client_gone(sock),
            )
        finally:
            release()

    resp = Response(body(), 200, mimetype="text/event-stream")
    resp.call_on_close(release)  # also when the body is never iterated
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp
