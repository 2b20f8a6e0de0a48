"""The cheroot server of ``referee serve``, with a deadline on reading every request.

cheroot hands a connection to a worker thread as soon as its first byte arrives, and the worker
then reads the request line, the headers and (through the app) the body with a socket timeout
per ``recv``: a client that sends one byte every few seconds (slowloris) holds the thread for as
long as it likes. This server bounds the whole read instead (issue 12):

- **Headers**: the request line and every header must have arrived ``header_timeout`` seconds
  after the request's first byte.
- **Body**: the whole request (headers and body) must have arrived ``request_timeout`` seconds
  after its first byte (a phone photo of 8 MB on a slow Wi-Fi takes a few seconds).
- **Per client**: at most ``reading_per_client`` connections of one address may be reading
  their headers at once; a further one is closed before it holds a thread for long.

There is no cap over all clients: slow clients from many addresses together still hold a
thread each until their deadline (cutting the slowest under a flood was tried, and under a
loaded CPU it cut players whose threads waited for the interpreter, not for bytes).

A connection past its deadline while it waits for bytes is shut down (``SHUT_RDWR``): the read
in the worker returns at once, cheroot closes the connection and the thread serves the next one.
Time the app spends working (reading a photo, folding a game) never counts: only time blocked in
a read of the request. The deadlines are kept by one watchdog thread that looks every
:data:`WATCH_EVERY` seconds.

The WSGI environ also carries the connection's socket (``referee.socket``): a live stream polls
it to notice within a second that its client has gone (:func:`web.live.client_gone`).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

from cheroot import server as _server
from cheroot import wsgi

log = logging.getLogger("referee.web")

HEADER_TIMEOUT = 10.0  # seconds from a request's first byte to its last header
REQUEST_TIMEOUT = 60.0  # seconds from a request's first byte to the end of its body
READING_PER_CLIENT = 16  # connections of one address reading their headers at once
WATCH_EVERY = 0.25  # seconds between two looks of the watchdog


class _Watched:
    """A connection's deadline and whether its worker is blocked reading it now."""

    __slots__ = ("body_deadline", "client", "deadline", "in_headers", "reading")

    def __init__(self, client: str) -> None:
        self.client = client
        self.deadline = self.body_deadline = float("inf")
        self.reading = 0
        self.in_headers = False


class Deadlines:
    """The watchdog of request deadlines (one per server). Thread safe."""

    def __init__(
        self,
        header_timeout: float = HEADER_TIMEOUT,
        request_timeout: float = REQUEST_TIMEOUT,
        reading_per_client: int = READING_PER_CLIENT,
    ) -> None:
        self.header_timeout = header_timeout
        self.request_timeout = request_timeout
        self.reading_per_client = reading_per_client
        self.dropped = 0  # connections shut down past a deadline or over the per-client cap
        self._lock = threading.Lock()
        self._conns: dict[Any, _Watched] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def watched(self, conn: Any) -> _Watched:
        with self._lock:
            w = self._conns.get(conn)
            if w is None:
                w = self._conns[conn] = _Watched(str(conn.remote_addr or "-"))
            return w

    def forget(self, conn: Any) -> None:
        with self._lock:
            self._conns.pop(conn, None)

    def begin_headers(self, conn: Any) -> bool:
        """The request's first byte is here: its header deadline starts. False when the
        client already has ``reading_per_client`` connections reading headers (close it)."""
        w = self.watched(conn)
        with self._lock:
            busy = sum(1 for x in self._conns.values() if x.in_headers and x.client == w.client)
            if busy >= self.reading_per_client:
                self.dropped += 1
                log.warning(
                    "closed a connection of %s: %d of its connections read headers already",
                    w.client,
                    self.reading_per_client,
                )
                return False
            w.in_headers = True
            now = time.monotonic()
            w.deadline = now + self.header_timeout
            w.body_deadline = now + self.request_timeout
        return True

    def end_headers(self, conn: Any) -> None:
        """The headers are read: the body's deadline applies (from the same first byte)."""
        w = self.watched(conn)
        with self._lock:
            w.in_headers = False
            w.deadline = w.body_deadline

    @contextlib.contextmanager
    def reading(self, conn: Any) -> Iterator[None]:
        """Marks the worker of ``conn`` as blocked in a read of the request."""
        w = self.watched(conn)
        w.reading += 1
        try:
            yield
        finally:
            w.reading -= 1

    def sweep(self, now: float | None = None) -> int:
        """Shuts down the connections blocked in a read past their deadline; returns how
        many."""
        t = time.monotonic() if now is None else now
        with self._lock:
            late = [c for c, w in self._conns.items() if w.reading and t > w.deadline]
            for c in late:
                w = self._conns[c]
                w.deadline = float("inf")
                log.warning(
                    "cut a connection of %s: its request %s took too long",
                    w.client,
                    "headers" if w.in_headers else "body",
                )
            self.dropped += len(late)
        for conn in late:
            with contextlib.suppress(OSError):
                socket.socket.shutdown(conn.socket, socket.SHUT_RDWR)
        return len(late)

    def start(self) -> None:
        if self._thread is not None:
            return

        def loop() -> None:
            while not self._stop.wait(WATCH_EVERY):
                self.sweep()

        self._thread = threading.Thread(target=loop, name="request-deadlines", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()


class _TimedReader:
    """The connection's read file, each read marked as blocked on the client."""

    def __init__(self, raw: Any, conn: Any, deadlines: Deadlines) -> None:
        self._raw, self._conn, self._deadlines = raw, conn, deadlines

    def read(self, *args: Any) -> Any:
        with self._deadlines.reading(self._conn):
            return self._raw.read(*args)

    def readline(self, *args: Any) -> Any:
        with self._deadlines.reading(self._conn):
            return self._raw.readline(*args)

    def readinto(self, *args: Any) -> Any:
        with self._deadlines.reading(self._conn):
            return self._raw.readinto(*args)

    def __iter__(self) -> _TimedReader:
        return self

    def __next__(self) -> Any:
        with self._deadlines.reading(self._conn):
            return next(self._raw)

    def has_data(self) -> bool:
        return bool(self._raw.has_data())

    def close(self) -> None:
        self._raw.close()

    @property
    def bytes_read(self) -> int:
        """What cheroot's statistics read."""
        return int(self._raw.bytes_read)


class _Request(_server.HTTPRequest):
    def parse_request(self) -> None:
        deadlines: Deadlines = self.server.deadlines
        if not deadlines.begin_headers(self.conn):
            self.close_connection = True
            return  # not ready: cheroot closes the connection
        try:
            super().parse_request()
        finally:
            deadlines.end_headers(self.conn)


class _Connection(_server.HTTPConnection):
    RequestHandlerClass = _Request

    def __init__(self, server: Any, sock: Any, *args: Any) -> None:
        super().__init__(server, sock, *args)
        self.rfile = _TimedReader(self.rfile, self, server.deadlines)

    def close(self) -> None:
        self.server.deadlines.forget(self)
        super().close()


class _Gateway(wsgi.Gateway_10):
    def get_environ(self) -> Any:
        env = super().get_environ()  # type: ignore[no-untyped-call]
        env["referee.socket"] = self.req.conn.socket
        return env


class Server(wsgi.Server):
    """cheroot's WSGI server with request deadlines (:class:`Deadlines`) and the socket in
    the environ. ``deadlines`` is the watchdog (its ``dropped`` counts the connections cut)."""

    ConnectionClass = _Connection

    def __init__(self, *args: Any, deadlines: Deadlines | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.gateway = _Gateway
        self.deadlines = deadlines or Deadlines()

    def prepare(self) -> None:
        self.deadlines.start()
        super().prepare()

    def stop(self) -> None:
        self.deadlines.stop()
        super().stop()
