"""Live updates: ``GET /api/v1/games/<game>/stream``, server-sent events.

Each event (type ``head``, id = the event number) carries the log's new head ``{"seq", "hash"}``
and nothing else: a page that gets it fetches its own view again, cut for its own seat, so the
stream can never carry a hidden card. The first event is sent at once (the head as it is now,
or nothing when ``Last-Event-ID`` is already current); then an event within a fraction of a
second of every change, a comment line every :data:`HEARTBEAT` seconds (proxies and phones drop
silent connections), and the stream ends after :data:`STREAM_SECONDS` so that no server thread is
held forever: the browser's EventSource reconnects by itself (``retry`` below) and resumes after
the ``Last-Event-ID`` it holds.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

from flask import Blueprint, Response, current_app, request

from referee.models import Head
from referee.service import Referee
from web.request import get_referee, seat_of, with_game

bp = Blueprint("live", __name__)

HEARTBEAT = 15.0
STREAM_SECONDS = 300.0
RETRY_MS = 2000
TICK = 1.0  # a stream checks at least this often whether the server is stopping

STOPPING = threading.Event()  # set by ``referee serve`` on shutdown: every stream ends


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


def _event(head: Head) -> str:
    return f"event: head\nid: {head['seq']}\ndata: {json.dumps(head)}\n\n"


def events(
    ref: Referee,
    game: str,
    since: int | None,
    *,
    heartbeat: float = HEARTBEAT,
    duration: float = STREAM_SECONDS,
) -> Iterator[str]:
    """The stream's text: ``retry``, the current head unless ``since`` is current, then one
    event per change and heartbeats, for ``duration`` seconds."""
    end = time.monotonic() + duration
    yield f"retry: {RETRY_MS}\n\n"
    head = ref.head(game)
    if since is None or head["seq"] != since:
        yield _event(head)
    seen = head["seq"]
    quiet_since = time.monotonic()
    while not STOPPING.is_set():
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
    """Server-sent events for ``game`` (any seat: the head is public). Raises NotFound."""
    seat_of(game)
    ref = get_referee()
    ref.head(game)  # 404 before the stream starts
    since: int | None = None
    last = request.headers.get("Last-Event-ID", "").strip()
    if last.isdigit() and len(last) <= 12:
        since = int(last)
    cfg = current_app.config
    body = events(
        ref,
        game,
        since,
        heartbeat=float(cfg.get("SSE_HEARTBEAT", HEARTBEAT)),
        duration=float(cfg.get("SSE_SECONDS", STREAM_SECONDS)),
    )
    resp = Response(body, 200, mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp
