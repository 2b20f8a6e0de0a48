"""The event-driven front of ``referee serve`` (issue 33): an ASGI app before the Flask app.

hypercorn serves it. Each connection is a task of one event loop, not a thread, so idle live
pages and slow clients cost a little memory each and never a worker thread:

- **Live streams** (``GET /api/v1/games/<game>/stream``) are written here, natively async.
  Their admission is still the Flask view's (:func:`web.live.stream`: the seat, the game, the
  caps and their 503), run once in a worker thread; then the stream waits on its game's
  :class:`Notifier`, one per game with open streams: an ``asyncio`` event woken when the game's
  head moves. A write in this process rings the service's bell (:meth:`referee.bell.Bell.listen`),
  and so does one by another process when the store pushes them (PostgreSQL's LISTEN,
  :class:`referee.bell.Pushing`); otherwise it is seen by the notifier's own look at the store
  every :attr:`referee.bell.Bell.poll` seconds (a safety net only over a store that pushes), one
  look per game, not per stream. A notifier is watched on the bell while it runs, so the
  store's resync (its listener connected again) rings it. A broadcast to many
  streams yields to the loop every :data:`BROADCAST_BATCH` wakes, so a plain request is never
  held behind thousands of sends.
- **Everything else** goes to the unchanged Flask app through a2wsgi's thread pool, after
  :class:`WholeBody` has read the request's body whole, within a total deadline and a size
  cap: a worker thread never waits for a slow client's bytes.

:class:`Server` runs hypercorn on a loop of its own and stops within a bounded time whatever
the clients do: the streams end at once, requests in flight get :data:`GRACE` seconds, then
every connection still open is cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import json
import logging
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from typing import Any, Protocol, cast, runtime_checkable

from a2wsgi import WSGIMiddleware
from a2wsgi.wsgi import build_environ
from flask import Flask

from referee.models import Head
from referee.service import Referee
from web.live import FRONT_TICKET, RETRY_MS

log = logging.getLogger("referee.web")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

STREAM_PATH = re.compile(r"^/api/v1/games/([^/]+)/stream$")
BROADCAST_BATCH = 32  # streams woken between two yields to the loop
GRACE = 3.0  # seconds requests in flight get to finish once the server stops
CANCEL_WITHIN = 2.0  # seconds the connections still open then get to end once cancelled
HEAD_THREADS = 2  # threads that read the games' heads for the notifiers


def _event(head: Head) -> bytes:
    return f"event: head\nid: {head['seq']}\ndata: {json.dumps(head)}\n\n".encode()


class Notifier:
    """The live streams of one game: the head they were last told and a wake for each. One
    task (:meth:`run`) reads the head when the bell rings or every :attr:`Bell.poll
    <referee.bell.Bell.poll>` seconds and wakes every stream when it moved; it ends with the
    game's last stream."""

    def __init__(self, hub: Hub, ref: Referee, game: str, head: Head) -> None:
        self.hub, self.ref, self.game, self.head = hub, ref, game, head
        self.streams = 0
        self.rung = asyncio.Event()
        self._waiters: set[asyncio.Future[None]] = set()
        self.task: asyncio.Task[None] | None = None

    def waiter(self) -> asyncio.Future[None]:
        """A future done at the next move of the head (or the server's stop)."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.add(fut)
        fut.add_done_callback(self._waiters.discard)
        return fut

    async def broadcast(self) -> None:
        """Wakes every waiting stream, yielding to the loop between batches."""
        for i, fut in enumerate(list(self._waiters)):
            if not fut.done():
                fut.set_result(None)
            if i % BROADCAST_BATCH == BROADCAST_BATCH - 1:
                await asyncio.sleep(0)

    async def run(self) -> None:
        bell = self.ref.bell
        bell.watch(self.game)  # the store's resync rings it
        try:
            await self._run()
        finally:
            bell.unwatch(self.game)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self.streams > 0 and not self.hub.stopping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.rung.wait(), self.ref.bell.poll)
            self.rung.clear()
            if self.streams == 0:
                break
            try:
                seq = self.head["seq"]
                last = await loop.run_in_executor(self.hub.heads, self.ref.wait, self.game, seq, 0)
                if last == seq:
                    continue
                head = await loop.run_in_executor(self.hub.heads, self.ref.head, self.game)
            except Exception:  # a store that failed once: the next look tries again
                log.exception("reading the head of game %s for its live pages", self.game)
                continue
            if head != self.head:
                self.head = head
                await self.broadcast()
        if self.hub.notifiers.get((id(self.ref), self.game)) is self:
            del self.hub.notifiers[(id(self.ref), self.game)]


class Hub:
    """The notifiers of one server's loop, and the bell's way in from the writers' threads."""

    def __init__(self) -> None:
        self.notifiers: dict[tuple[int, str], Notifier] = {}
        self.stopping = asyncio.Event()
        self.heads = ThreadPoolExecutor(HEAD_THREADS, thread_name_prefix="heads")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listening: set[int] = set()

    async def join(self, ref: Referee, game: str) -> Notifier:
        """The notifier of ``game`` with one more stream (started when it is the first)."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        if id(ref) not in self._listening:
            self._listening.add(id(ref))
            ref.bell.listen(functools.partial(self._rang, id(ref)))
        key = (id(ref), game)
        n = self.notifiers.get(key)
        if n is None:
            head = await loop.run_in_executor(self.heads, ref.head, game)
            n = self.notifiers.get(key)  # another stream may have made it meanwhile
            if n is None:
                n = self.notifiers[key] = Notifier(self, ref, game, head)
        n.streams += 1
        if n.task is None or n.task.done():
            n.task = loop.create_task(n.run())
        return n

    def leave(self, n: Notifier) -> None:
        n.streams -= 1
        if n.streams <= 0:
            n.rung.set()  # its task sees no stream and ends

    def _rang(self, ref: int, game: str) -> None:
        """The bell rang in a writer's thread: wake the game's notifier on the loop."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._wake, (ref, game))

    def _wake(self, key: tuple[int, str]) -> None:
        n = self.notifiers.get(key)
        if n is not None:
            n.rung.set()

    async def stop(self) -> None:
        """Every stream ends now."""
        self.stopping.set()
        for n in list(self.notifiers.values()):
            await n.broadcast()
        self.heads.shutdown(wait=False)


BODIES_HELD = 256 << 20  # bytes of request bodies held at once, every request together
LARGE_BODY = 64 << 10  # a body this large (a photo) takes the heavy lane
HEAVY_AT_ONCE = 2  # requests with a large body in the app at once (photos: CPU work)
ADMISSIONS_AT_ONCE = 4  # live streams admitted by the app at once
HEAVY_QUEUE = 64  # uploads waiting for the heavy lane (each holds its body), past it 503
ADMISSIONS_QUEUE = 4096  # streams waiting to be admitted (a hall's pages opening at once)


class Full(Exception):
    """A lane's queue is full."""


class Lane:
    """At most ``at_once`` requests of a kind in the app at once, the others waiting on the
    loop (holding no thread), ``queue`` of them at most: a burst of uploads or of stream
    openings, from however many addresses, never takes more than its lane's threads from the
    players' taps."""

    def __init__(self, at_once: int, queue: int) -> None:
        self._sem = asyncio.Semaphore(at_once)
        self.queue, self.waiting, self.refused = queue, 0, 0

    @contextlib.asynccontextmanager
    async def slot(self) -> Any:
        """Holds a place in the lane. Raises Full when ``queue`` requests already wait."""
        if self._sem.locked() and self.waiting >= self.queue:
            self.refused += 1
            raise Full
        self.waiting += 1
        try:
            await self._sem.acquire()
        finally:
            self.waiting -= 1
        try:
            yield
        finally:
            self._sem.release()


class WholeBody:
    """ASGI middleware: the request's body is read whole, within ``deadline`` seconds and at
    most ``max_bytes``, before ``app`` sees the request (408 or 413 otherwise, and the
    connection closes). The bodies held at once, read or being read, are ``held_cap`` bytes at
    most, every request together: past it a request is refused with 503 (so many clients
    sending large bodies slowly cannot fill the memory). ``whole(scope)`` is called once the
    body is whole, before the app sees it."""

    def __init__(
        self,
        app: Any,
        max_bytes: int,
        deadline: float,
        held_cap: int = BODIES_HELD,
        whole: Callable[[Scope], None] | None = None,
        heavy: Lane | None = None,
    ) -> None:
        self.app, self.max_bytes, self.deadline = app, max_bytes, deadline
        self.held_cap, self.whole = held_cap, whole
        self.heavy = heavy
        self.held = 0  # bytes of bodies held now
        self.refused = 0  # requests answered 408, 413 or 503 here

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or ()).get(b"content-length", b"0")
        if declared.strip().isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send, 413, "the request's body is larger than the server takes")
            return
        size = 0
        try:
            body = await self._read(receive, send)
            if body is None:
                return
            size = len(body)
            if self.whole is not None:
                self.whole(scope)
            pending: Message | None = {"type": "http.request", "body": body}
            del body

            async def replay() -> Message:
                nonlocal pending
                if pending is not None:
                    message, pending = pending, None
                    return message
                return await receive()

            if self.heavy is None or size < LARGE_BODY:
                await self.app(scope, replay, send)
                return
            try:
                async with self.heavy.slot():
                    await self.app(scope, replay, send)
            except Full:
                await self._refuse(
                    send, 503, "the server is reading as many uploads as it may; try again soon"
                )
        finally:
            self.held -= size

    async def _read(self, receive: Receive, send: Send) -> bytes | None:
        """The body, whole; None when the client left or the body was refused (answered)."""
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.deadline):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return None
                    chunk = bytes(message.get("body", b""))
                    size += len(chunk)
                    self.held += len(chunk)
                    if size > self.max_bytes:
                        await self._refuse(
                            send, 413, "the request's body is larger than the server takes"
                        )
                        return None
                    if self.held > self.held_cap:
                        await self._refuse(
                            send,
                            503,
                            "the server holds as many request bodies as it may; try again "
                            "in a moment",
                        )
                        return None
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        size = 0  # handed on: the caller releases it
                        return b"".join(chunks)
        except TimeoutError:
            await self._refuse(
                send, 408, f"the request's body did not arrive within {self.deadline:g} s"
            )
            return None
        finally:
            self.held -= size

    async def _refuse(self, send: Send, status: int, message: str) -> None:
        self.refused += 1
        text = json.dumps({"error": "RequestRefused", "rule": None, "message": message})
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(text)).encode()),
                    (b"connection", b"close"),
                ]
                + ([(b"retry-after", b"2")] if status == 503 else []),
            }
        )
        await send({"type": "http.response.body", "body": text.encode()})


IDLE_CONNECTIONS = 2048  # connections without a request in progress, from every address
NEW_PER_CLIENT = 256  # connections of one address that have not yet brought a request


class Doorman:
    """The connections of one server that hold no request now, across addresses (issue 33).

    A connection is *idle* from its opening until its first request's headers are whole, and
    again between two requests (keep-alive); a request in progress (a live stream too) is never
    idle. ``total`` idle connections at most, from every address together: past it the oldest
    idle one is closed (a slow client's, or a browser's spare keep-alive connection, which it
    reopens as it needs). ``per_client`` connections of one address that have not yet brought
    any request (many phones behind one venue address each keep idle connections between taps;
    only those that never asked anything are counted by address): past it a new one is closed
    at once. Runs on the server's loop only.
    """

    def __init__(self, total: int = IDLE_CONNECTIONS, per_client: int = NEW_PER_CLIENT) -> None:
        self.total, self.per_client = total, per_client
        self._conns: dict[Any, tuple[str, asyncio.WriteTransport]] = {}
        self._idle: OrderedDict[Any, None] = OrderedDict()  # oldest first
        self._new: dict[Any, None] = {}  # no request yet
        self._new_by: dict[str, int] = {}
        self.refused = 0  # closed at once: their address held too many new ones
        self.shed = 0  # idle ones closed to make room

    def arrive(self, peer: Any, transport: asyncio.WriteTransport) -> bool:
        """A connection opens; False when it must be closed at once."""
        client = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        if self._new_by.get(client, 0) >= self.per_client:
            self.refused += 1
            log.warning(
                "a connection of %s closed at once: its address holds %d connections that "
                "have not asked anything yet (--new-connections-per-client)",
                client,
                self.per_client,
            )
            return False
        while len(self._idle) >= self.total:
            old, _ = self._idle.popitem(last=False)
            self._drop_new(old)
            _, t = self._conns.get(old, ("", None))
            if t is not None:
                t.abort()
            self.shed += 1
            log.info(
                "a connection of %s closed: the oldest of %d holding no request "
                "(--idle-connections)",
                old[0] if isinstance(old, tuple) else old,
                self.total,
            )
        self._conns[peer] = (client, transport)
        self._idle[peer] = None
        self._new[peer] = None
        self._new_by[client] = self._new_by.get(client, 0) + 1
        return True

    def busy(self, peer: Any) -> None:
        """A request of ``peer`` reached the app: not idle until it is answered."""
        self._idle.pop(peer, None)
        self._drop_new(peer)

    def rests(self, peer: Any) -> None:
        """``peer``'s request was answered: idle again (the newest)."""
        if peer in self._conns:
            self._idle[peer] = None

    def leave(self, peer: Any) -> None:
        self._idle.pop(peer, None)
        self._drop_new(peer)
        self._conns.pop(peer, None)

    def _drop_new(self, peer: Any) -> None:
        if self._new.pop(peer, 0) is None:
            client = self._conns[peer][0]
            self._new_by[client] -= 1
            if self._new_by[client] <= 0:
                del self._new_by[client]

    @property
    def idle(self) -> int:
        return len(self._idle)


class Front:
    """The ASGI app of ``referee serve``: the live streams here, the rest to ``app`` (Flask)
    through ``threads`` worker threads, each request's body read first (:class:`WholeBody`)."""

    def __init__(self, app: Flask, threads: int, request_timeout: float) -> None:
        self.flask = app
        self.wsgi = WSGIMiddleware(app, workers=threads)  # type: ignore[arg-type]
        self.rest = WholeBody(
            self.wsgi,
            int(app.config.get("MAX_CONTENT_LENGTH") or 8 << 20) + 4096,
            request_timeout,
            int(app.config.get("BODIES_HELD") or BODIES_HELD),
            whole=lambda scope: self.doorman.busy(_peer(scope.get("client"))),
            heavy=Lane(HEAVY_AT_ONCE, HEAVY_QUEUE),
        )
        self.admissions = Lane(ADMISSIONS_AT_ONCE, ADMISSIONS_QUEUE)
        self.hub = Hub()
        self.streams = 0  # open now
        self.ends: set[asyncio.Future[None]] = set()  # settled: the stream ends
        total = int(app.config.get("IDLE_CONNECTIONS") or IDLE_CONNECTIONS)
        per_client = int(app.config.get("NEW_CONNECTIONS_PER_CLIENT") or NEW_PER_CLIENT)
        if app.config.get("PROXY_HOPS"):  # every connection comes from the proxy's address:
            per_client = total  # the proxy caps its clients; the idle total still holds
        self.doorman = Doorman(total, per_client)

    @property
    def executor(self) -> ThreadPoolExecutor:
        return self.wsgi.executor

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    self.end_streams()
                    await self.hub.stop()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if kind != "http":
            return
        peer = _peer(scope.get("client"))
        try:
            if scope["method"] == "GET" and STREAM_PATH.match(scope["path"]):
                self.doorman.busy(peer)
                await self.stream(scope, receive, send)
            else:  # busy once its body is whole (WholeBody): a slow body is an idle connection
                await self.rest(scope, receive, send)
        finally:
            self.doorman.rests(peer)

    def _admission(self, environ: dict[str, Any]) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """The Flask app's answer to a stream's request (in a worker thread)."""
        got: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc: Any = None) -> Any:
            got[:] = [status, headers]
            return lambda chunk: None

        out = self.flask(environ, start_response)
        try:
            body = b"".join(out)
        finally:
            if isinstance(out, _Closable):  # WSGI: an answer that can close is closed
                out.close()
        status, headers = got
        pairs = [(k.lower().encode("latin1"), v.encode("latin1")) for k, v in headers]
        return int(status.split(" ", 1)[0]), pairs, body

    async def _admit(
        self, scope: Scope, ended: asyncio.Future[None]
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes, dict[str, Any]]:
        """The Flask view's answer to a stream's request, and its ticket (its own coroutine:
        the request's environ is gone once the stream is admitted)."""
        loop = asyncio.get_running_loop()
        environ: dict[str, Any] = dict(build_environ(scope, io.BytesIO(b"")))  # type: ignore[arg-type]
        ticket: dict[str, Any] = {"shed": functools.partial(_settle_soon, loop, ended)}
        environ[FRONT_TICKET] = ticket
        try:
            async with self.admissions.slot():
                status, headers, body = await loop.run_in_executor(
                    self.executor, self._admission, environ
                )
        except Full:
            status, body = 503, b""
            headers = [(b"retry-after", b"2"), (b"content-length", b"0")]
        return status, headers, body, ticket

    async def stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A live stream: admitted by the Flask view, then written from the game's notifier
        until it has lasted its time, its client goes, the gate ends it to make room
        (:class:`web.live.StreamGate`) or the server stops. It keeps as little as it can: ten
        thousand of them are held at once."""
        loop = asyncio.get_running_loop()
        ended: asyncio.Future[None] = loop.create_future()
        status, headers, body, ticket = await self._admit(scope, ended)
        release: Callable[[], None] | None = ticket.get("release")
        if status != 200 or release is None or ended.done() or self.hub.stopping.is_set():
            if release is not None:
                release()
            if status == 200:  # ended before it began: the client reconnects
                status, body = 503, b""
                headers = [(b"retry-after", b"2")]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        ref, game, since = ticket["ref"], ticket["game"], ticket["since"]
        heartbeat, duration = float(ticket["heartbeat"]), float(ticket["duration"])
        start = {
            "type": "http.response.start",
            "status": 200,
            "headers": [(k, v) for k, v in headers if k != b"content-length"],
        }
        del ticket, headers, body
        self.streams += 1
        self.ends.add(ended)
        gone = loop.create_task(_disconnected(receive))
        notifier: Notifier | None = None
        try:
            notifier = await self.hub.join(ref, game)
            await send(start)
            del start
            await self._events(send, notifier, since, heartbeat, duration, gone, ended)
            if not gone.done():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self.streams -= 1
            self.ends.discard(ended)
            release()
            if notifier is not None:
                self.hub.leave(notifier)
            gone.cancel()

    def end_streams(self) -> None:
        """Every open stream ends (the server stops)."""
        for fut in list(self.ends):
            _settle(fut)

    async def _events(
        self,
        send: Send,
        n: Notifier,
        since: int | None,
        heartbeat: float,
        duration: float,
        gone: asyncio.Task[None],
        stop: asyncio.Future[None],
    ) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + duration

        async def write(data: bytes) -> None:
            await send({"type": "http.response.body", "body": data, "more_body": True})

        await write(f"retry: {RETRY_MS}\n\n".encode())
        if since is None or n.head["seq"] != since:
            await write(_event(n.head))
        seen = n.head["seq"]
        quiet_since = loop.time()
        while not gone.done() and not stop.done():
            now = loop.time()
            if now >= end:
                return
            wake = n.waiter()
            waits: set[asyncio.Future[Any]] = {wake, gone, stop}
            await asyncio.wait(
                waits,
                timeout=min(end - now, quiet_since + heartbeat - now),
                return_when=asyncio.FIRST_COMPLETED,
            )
            wake.cancel()
            if gone.done() or stop.done():
                return
            if n.head["seq"] != seen:
                seen = n.head["seq"]
                quiet_since = loop.time()
                await write(_event(n.head))
            elif loop.time() - quiet_since >= heartbeat:
                quiet_since = loop.time()
                await write(b": heartbeat\n\n")


def new_loop() -> asyncio.AbstractEventLoop:
    """uvloop's event loop where it is installed (Linux, macOS: the ``fast`` extra), else
    asyncio's own; ``REFEREE_LOOP=asyncio`` asks for asyncio's."""
    if os.environ.get("REFEREE_LOOP", "") != "asyncio":
        try:
            import uvloop
        except ImportError:
            pass
        else:
            return uvloop.new_event_loop()
    return asyncio.new_event_loop()


def _peer(addr: Any) -> Any:
    """A connection's key: its client's (host, port), as hypercorn gives it in the scope."""
    return tuple(addr[:2]) if isinstance(addr, (list, tuple)) else addr


_FRONTS: dict[int, Front] = {}  # by the listening port
HEAD_MAX = 16 << 10  # bytes of a connection's first request head the front reads itself


class _Prefixed:
    """A connection's reader for hypercorn once the front read its first request head: that
    head first, then the connection's own bytes."""

    def __init__(self, head: bytes, reader: asyncio.StreamReader) -> None:
        self.head, self.reader = head, reader

    def at_eof(self) -> bool:
        return not self.head and self.reader.at_eof()

    async def read(self, n: int = -1) -> bytes:
        if self.head:
            out, self.head = self.head, b""
            return out
        return await self.reader.read(n)


def _stream_scope(head: bytes, writer: asyncio.StreamWriter) -> Scope | None:
    """The ASGI scope of a request head when it asks for a live stream (``GET`` on a stream's
    path, HTTP/1.1, no body); None for anything else (hypercorn serves it)."""
    try:
        text = head.decode("latin-1")
    except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes every byte
        return None
    line, _, rest = text.partition("\r\n")
    parts = line.split(" ")
    if len(parts) != 3 or parts[0] != "GET" or parts[2] != "HTTP/1.1":
        return None
    target = parts[1]
    path, _, query = target.partition("?")
    if not STREAM_PATH.match(path):
        return None
    headers: list[tuple[bytes, bytes]] = []
    for raw in rest.split("\r\n"):
        if not raw:
            continue
        name, sep, value = raw.partition(":")
        if not sep or not name or name != name.strip():
            return None  # malformed: hypercorn answers it
        key = name.lower().encode("latin-1")
        if key in (b"content-length", b"transfer-encoding", b"upgrade"):
            return None
        headers.append((key, value.strip().encode("latin-1")))
    sock, peer = writer.get_extra_info("sockname"), writer.get_extra_info("peername")
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "https" if writer.get_extra_info("ssl_object") is not None else "http",
        "path": path,
        "raw_path": path.encode("latin-1"),
        "query_string": query.encode("latin-1"),
        "root_path": "",
        "headers": headers,
        "client": _peer(peer),
        "server": _peer(sock),
    }


class _RawStream:
    """The ASGI ``receive`` and ``send`` of a live stream the front serves on the connection
    itself, without hypercorn's per-connection machinery (HTTP/1.1, the body until the
    connection closes): ten thousand idle streams cost a third less memory (issue 33)."""

    DRAIN_WITHIN = 30.0  # seconds a client may leave written events unread before it is cut

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def receive(self) -> Message:
        """``http.disconnect`` once the client closed its end (a page sends nothing more)."""
        with contextlib.suppress(OSError):
            while await self.reader.read(4096):
                pass
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        w = self.writer
        if w.is_closing():
            return
        if message["type"] == "http.response.start":
            status = int(message["status"])
            try:
                reason = HTTPStatus(status).phrase
            except ValueError:
                reason = "Unknown"
            lines = [f"HTTP/1.1 {status} {reason}".encode()]
            for k, v in message.get("headers", ()):
                if bytes(k).lower() != b"connection":
                    lines.append(bytes(k) + b": " + bytes(v))
            lines.append(b"connection: close")
            w.write(b"\r\n".join(lines) + b"\r\n\r\n")
        elif message["type"] == "http.response.body":
            data = bytes(message.get("body", b""))
            if data:
                w.write(data)
            if not message.get("more_body", False):
                w.close()
                return
        try:
            await asyncio.wait_for(w.drain(), self.DRAIN_WITHIN)
        except (TimeoutError, OSError, ConnectionError):
            w.transport.abort()


async def _admitted(
    app: Any,
    loop: asyncio.AbstractEventLoop,
    config: Any,
    context: Any,
    state: Any,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
) -> None:
    """A connection of hypercorn's server, once its listening port's :class:`Doorman` let it
    in: the front reads its first request head itself (within the header deadline); a live
    stream is then served here (:class:`_RawStream`), anything else by hypercorn, that head
    first."""
    from hypercorn.asyncio.tcp_server import TCPServer

    sockname = writer.get_extra_info("sockname")
    front = _FRONTS.get(sockname[1]) if isinstance(sockname, tuple) else None
    if front is None:
        await TCPServer(app, loop, config, context, state, reader, writer)
        return
    peer = _peer(writer.get_extra_info("peername"))
    if not front.doorman.arrive(peer, writer.transport):
        writer.transport.abort()
        return
    try:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), config.keep_alive_timeout)
        except asyncio.LimitOverrunError:  # a head too long for us: hypercorn answers it
            head = await reader.read(HEAD_MAX)
        except (TimeoutError, asyncio.IncompleteReadError, OSError, ConnectionError):
            writer.close()  # no whole request head in time (slowloris), or gone: as hypercorn
            return  # closes an idle connection (a browser sees it closed before it reuses it)
        scope = _stream_scope(head, writer) if len(head) <= HEAD_MAX else None
        if scope is None:
            prefixed = cast(asyncio.StreamReader, _Prefixed(head, reader))  # read, at_eof only
            await TCPServer(app, loop, config, context, state, prefixed, writer)
            return
        del head
        raw = _RawStream(reader, writer)
        front.doorman.busy(peer)
        try:
            await front.stream(scope, raw.receive, raw.send)
        finally:
            if not writer.is_closing():
                writer.close()
    finally:
        front.doorman.leave(peer)


def _settle(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


def _settle_soon(loop: asyncio.AbstractEventLoop, fut: asyncio.Future[None]) -> None:
    """Settles ``fut`` on ``loop`` (from any thread)."""
    if not loop.is_closed():
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_settle, fut)


@runtime_checkable
class _Closable(Protocol):
    def close(self) -> None: ...


async def _disconnected(receive: Receive) -> None:
    """Returns when the client has gone (a stream's request has no body to wait for)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _quiet(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's exception handler: the default one, but for a task cancelled at the stop
    (hypercorn cancels the connections still open after its grace time, and so do we)."""
    if not isinstance(context.get("exception"), asyncio.CancelledError):
        loop.default_exception_handler(context)


class Server:
    """hypercorn serving a :class:`Front` on ``host``:``port``, on an event loop of its own.

    ``prepare`` binds, ``serve`` runs until :meth:`stop_soon` (any thread, a signal handler
    too), ``stop`` stops it and waits for the worker threads. ``header_timeout``: the seconds
    a connection may stay without a whole request's headers (hypercorn's idle deadline, which
    runs until the headers have arrived) and between two requests on one connection."""

    def __init__(
        self,
        front: Front,
        host: str,
        port: int,
        header_timeout: float,
        certfile: str | None = None,
        keyfile: str | None = None,
    ) -> None:
        from hypercorn.config import Config

        self.front = front
        config = Config()
        config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
        config.keep_alive_timeout = header_timeout
        config.graceful_timeout = GRACE
        config.backlog = 1024
        config.accesslog = None
        config.errorlog = logging.getLogger("hypercorn.error")
        config.include_server_header = False
        if certfile and keyfile:
            config.certfile, config.keyfile = certfile, keyfile
        self.config = config
        self._sockets: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_now: asyncio.Event | None = None
        self._asked = threading.Event()
        self._done = threading.Event()

    def prepare(self) -> None:
        self._sockets = self.config.create_sockets()
        for sock in (*self._sockets.secure_sockets, *self._sockets.insecure_sockets):
            sock.listen(self.config.backlog)  # connections wait in the backlog until serve

    def serve(self) -> None:
        from hypercorn.asyncio.run import worker_serve
        from hypercorn.utils import wrap_app

        loop = new_loop()
        loop.set_exception_handler(_quiet)  # a connection cancelled at the stop is no error
        self._loop = loop
        try:
            asyncio.set_event_loop(loop)
            self._stop_now = asyncio.Event()
            if self._asked.is_set():
                self._stop_now.set()

            async def trigger() -> None:
                assert self._stop_now is not None
                await self._stop_now.wait()
                self.front.end_streams()
                await self.front.hub.stop()  # streams end before hypercorn waits for them

            import hypercorn.asyncio.run as hypercorn_run

            # every connection is let in by its port's doorman first (hypercorn has no hook
            # for it: its connection class is swapped for a wrapper; idempotent)
            hypercorn_run.TCPServer = _admitted  # type: ignore[attr-defined,assignment]
            ports = [
                sock.getsockname()[1]
                for sock in (*self._sockets.secure_sockets, *self._sockets.insecure_sockets)
            ]
            for p in ports:
                _FRONTS[p] = self.front
            app = wrap_app(self.front, self.config.wsgi_max_body_size, "asgi")  # type: ignore[arg-type]
            loop.run_until_complete(
                worker_serve(app, self.config, sockets=self._sockets, shutdown_trigger=trigger)
            )
            self._cancel_the_rest(loop)
        finally:
            socks = self._sockets
            for sock in (*socks.secure_sockets, *socks.insecure_sockets) if socks else ():
                with contextlib.suppress(OSError):
                    if _FRONTS.get(sock.getsockname()[1]) is self.front:
                        del _FRONTS[sock.getsockname()[1]]
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()  # the default executor is never waited for: it holds no request
            asyncio.set_event_loop(None)
            self._done.set()

    @staticmethod
    def _cancel_the_rest(loop: asyncio.AbstractEventLoop) -> None:
        """Cancels the connections still open after the grace time, and waits
        :data:`CANCEL_WITHIN` seconds at most for them to end."""
        rest = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for t in rest:
            t.cancel()
        if rest:
            loop.run_until_complete(asyncio.wait(rest, timeout=CANCEL_WITHIN))

    def stop_soon(self) -> None:
        """Asks the server to stop (from any thread or a signal handler)."""
        self._asked.set()
        loop, ev = self._loop, self._stop_now
        if loop is not None and ev is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(ev.set)

    def stop(self) -> None:
        """Stops the server and waits for it and for the worker threads (a thread stuck in
        the app keeps this waiting: ``referee serve`` bounds it, :func:`web.serve.run`)."""
        self.stop_soon()
        if self._loop is not None:
            self._done.wait()
        self.front.executor.shutdown(wait=True, cancel_futures=True)
