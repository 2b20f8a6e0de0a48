"""The event-driven front of ``referee serve`` (issue 33): slow clients and idle live streams
hold no worker thread, so they never delay a plain request; a move reaches every stream from
one notifier per game, a write by another referee on the same database too; SIGTERM stops the
server within a bounded time whatever its clients do.

The servers run ``referee serve``'s own front (:func:`web.serve.make_server`) on a free
loopback port; every wait ends as soon as its condition holds, under a generous ceiling.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from service_helpers import make_referee
from test_availability import CEILING, connect, open_stream, request, status, streaming_app
from test_availability import wait_until as wait_until
from web_helpers import make_app, new_game, referee_of

from referee.store import SQLiteStore
from web import front, serve
from web.front import Server

ROOT = Path(__file__).resolve().parent.parent

# A plain request answers in a few milliseconds; under a loaded CI machine a second or two.
# A server that let slow clients or idle streams hold its threads would answer only after
# their deadlines (here longer than this), or never.
PLAIN_CEILING = 4.0


@contextlib.contextmanager
def serving(app: Flask, threads: int = 4, **limits: float) -> Iterator[tuple[int, Server]]:
    port = serve.free_port("127.0.0.1")
    server = serve.make_server(app, "127.0.0.1", port, threads, **limits)
    assert isinstance(server, Server)
    server.prepare()
    t = threading.Thread(target=server.serve, daemon=True)
    t.start()
    try:
        yield port, server
    finally:
        server.stop()
        t.join(CEILING)


def timed_request(port: int, path: str = "/") -> float:
    """Seconds a plain request takes to be answered whole; it must be a 200."""
    t0 = time.monotonic()
    answer = request(port, path)
    took = time.monotonic() - t0
    assert status(answer) == 200, answer[:300]
    return took


class Dribbler:
    """Sends one byte to each of ``socks`` every 0.2 s from a thread; ``closed`` are the
    indices of those the server closed (an answer such as 408, or the end of the stream)."""

    def __init__(self, socks: list[socket.socket], byte: bytes) -> None:
        self.socks, self.byte = socks, byte
        self.closed: set[int] = set()
        self.answers: dict[int, bytes] = {}
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for i, s in enumerate(self.socks):
                if i not in self.closed:
                    try:
                        s.sendall(self.byte)
                    except OSError:
                        self.closed.add(i)
            self._stop.wait(0.2)

    def all_cut(self) -> bool:
        for i, s in enumerate(self.socks):
            if i in self.closed:
                continue
            s.settimeout(0.01)
            try:
                data = s.recv(4096)
            except (TimeoutError, BlockingIOError):
                continue  # nothing yet: still open
            except OSError:
                data = b""  # reset by the server
            else:
                self.answers[i] = self.answers.get(i, b"") + data
            if data == b"" or b" 408 " in self.answers.get(i, b""):
                self.closed.add(i)
        return len(self.closed) == len(self.socks)

    def stop(self) -> None:
        self._stop.set()
        self._t.join(CEILING)
        for s in self.socks:
            s.close()


# ---- slow clients ------------------------------------------------------------------------------


@pytest.mark.process
def test_header_and_body_tricklers_never_delay_a_plain_request() -> None:
    app = streaming_app()
    with serving(app, threads=4, header_timeout=8.0, request_timeout=8.0) as (port, server):
        headers = [connect(port, f"127.0.5.{i + 1}") for i in range(30)]  # 30 addresses
        for s in headers:
            s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")
        bodies = [connect(port, f"127.0.6.{i + 1}") for i in range(30)]
        for s in bodies:
            s.sendall(
                b"POST /api/v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                b"Content-Length: 5000\r\n\r\n{"
            )
        slow = [Dribbler(headers, b"X"), Dribbler(bodies, b" ")]
        try:
            # 60 slow clients and 4 worker threads: each plain request is answered at once
            took = [timed_request(port) for _ in range(5)]
            assert max(took) < PLAIN_CEILING, took
            assert not any(d.all_cut() for d in slow)  # they were all still trickling
            # and each is cut at its deadline: the headers' connection closed, the body's 408
            for d in slow:
                wait_until(d.all_cut, "every trickler is cut")
            assert all(b" 408 " in a for a in slow[1].answers.values()), slow[1].answers
            assert server.front.rest.refused >= len(bodies)
        finally:
            for d in slow:
                d.stop()


@pytest.mark.process
def test_a_body_past_the_cap_is_refused_before_the_app_reads_it() -> None:
    app = streaming_app(MAX_CONTENT_LENGTH=10_000)
    with serving(app) as (port, _), connect(port) as s:
        s.sendall(
            b"POST /api/v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000000\r\n\r\n{"
        )
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
        assert status(answer) == 413, answer


# ---- idle streams --------------------------------------------------------------------------------

STREAMS = 1000  # issue 33: a socket pair each, both ends in this process (open files raised)


def read_all(socks: list[socket.socket], want: bytes, got: dict[int, bytes]) -> bool:
    """Reads what has arrived on every socket into ``got`` (by descriptor: what each received
    so far); True when each has received ``want``."""
    sel = selectors.DefaultSelector()
    for s in socks:
        got.setdefault(s.fileno(), b"")
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    end = time.monotonic() + CEILING
    try:
        while time.monotonic() < end and any(want not in v for v in got.values()):
            for key, _ in sel.select(0.1):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                with contextlib.suppress(BlockingIOError):
                    got[sock.fileno()] += sock.recv(65536)
    finally:
        sel.close()
    return all(want in v for v in got.values())


@pytest.mark.process
def test_many_idle_streams_hold_no_thread_and_do_not_delay_a_plain_request() -> None:
    serve.open_files(2 * STREAMS + 64)  # both ends of each stream's socket live here
    app = streaming_app(
        STREAM_SLOTS=STREAMS + 10, STREAMS_PER_CLIENT=STREAMS + 10, STREAMS_PER_GAME=STREAMS + 10
    )
    created, _ = new_game(app)
    game = created.game
    ref = referee_of(app)
    threads_before = threading.active_count()
    held: list[socket.socket] = []
    got: dict[int, bytes] = {}
    with serving(app, threads=4) as (port, server):
        try:
            for i in range(STREAMS):  # 50 addresses: each's new connections stay few
                s, head = open_stream(port, game, f"127.0.13.{i % 50 + 1}")
                held.append(s)
                got[s.fileno()] = head
                assert status(head) == 200, head
            wait_until(lambda: server.front.streams == STREAMS, f"{STREAMS} streams are open")
            # no thread per stream: the server's threads are its 4 workers, the heads' readers
            # and the loop
            assert threading.active_count() - threads_before < 12
            took = [timed_request(port) for _ in range(5)]
            assert max(took) < PLAIN_CEILING, took
            assert read_all(held, b"event: head", got)  # each was told the head when it opened
            # a move wakes every stream from the game's one notifier, while plain requests go on
            seq = ref.submit(game, "hera", {"do": "deal", "player": "hera", "cards": ["?"] * 9}).seq
            took = [timed_request(port) for _ in range(3)]
            assert max(took) < PLAIN_CEILING, took
            assert read_all(held, f"id: {seq}\n".encode(), got), "every stream is told the move"
            assert len(server.front.hub.notifiers) == 1
        finally:
            for s in held:
                s.close()
        wait_until(lambda: server.front.streams == 0, "the closed streams are freed")
        wait_until(lambda: not server.front.hub.notifiers, "the game's notifier ends with them")


@pytest.mark.process
def test_a_write_by_another_process_reaches_the_streams(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    ours = make_referee(SQLiteStore(str(db)))
    app = make_app(ours, SSE_SECONDS=120.0, SSE_HEARTBEAT=60.0, ACCESS_LOG=False)
    created, _ = new_game(app)
    other = make_referee(SQLiteStore(str(db)), seed=7)  # its bell is not ours: like a process
    with serving(app) as (port, _):
        s, head = open_stream(port, created.game)
        got = {s.fileno(): head}
        try:
            assert status(head) == 200
            assert read_all([s], b"event: head", got)
            action = {"do": "deal", "player": "hera", "cards": ["?"] * 9}
            seq = other.submit(created.game, "hera", action).seq
            assert read_all([s], f"id: {seq}\n".encode(), got), (
                "the stream is told the other's write"
            )
        finally:
            s.close()
            other.store.close()


# ---- the stop ---------------------------------------------------------------------------------

# ``referee serve`` with one more route: /_slow/<seconds> works that long in a worker thread
# (a request in flight; a very long one stands for a worker stuck in the app)
SLOW_SERVE = """
import sys, time
import web.app

real = web.app.create_app

def create_app(config=None):
    app = real(config)

    @app.get("/_slow/<int:seconds>")
    def slow(seconds):
        # one write with its newline: two threads' prints may otherwise interleave a line
        sys.stdout.write(f"slow {seconds} started\\n")
        sys.stdout.flush()
        time.sleep(seconds)
        return "done"

    return app

web.app.create_app = create_app
from web.cli import main
sys.exit(main(sys.argv[1:]))
"""

# streams end at once, requests in flight get GRACE, the rest is cancelled within CANCEL_WITHIN,
# the worker threads get STOP_WITHIN, and a second for the process to end
STOP_BOUND = front.GRACE + front.CANCEL_WITHIN + serve.STOP_WITHIN + 3.0


@pytest.mark.process
@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_sigterm_stops_within_its_bound_whatever_the_clients_do(tmp_path: Path) -> None:
    port = serve.free_port("127.0.0.1")
    script = tmp_path / "slow_serve.py"
    script.write_text(SLOW_SERVE)
    cmd = [sys.executable, str(script), "serve", "--db", str(tmp_path / "g.sqlite3"), "--demo"]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--no-qr", "--quiet"]
    cmd += ["--address-rate", "0"]  # the 50 pipelined requests below would spend it
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    lines: list[str] = []

    def keep() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)

    reader = threading.Thread(target=keep, daemon=True)
    reader.start()
    held: list[socket.socket] = []
    try:
        wait_until(lambda: "ready\n" in lines, "the server is ready", 60.0)
        game = re.findall(r"^Public\s+\S+/g/(\w+)$", "".join(lines), re.M)[0]
        for _ in range(3):  # live pages
            s, head = open_stream(port, game)
            held.append(s)
            assert status(head) == 200
        header_slow = connect(port)  # a client that never ends its headers
        header_slow.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")
        body_slow = connect(port)  # one that never ends its body
        body_slow.sendall(b"POST /new HTTP/1.1\r\nHost: t\r\nContent-Length: 900\r\n\r\nx=")
        reading = connect(port)  # one that asks and never reads the answer
        reading.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        reading.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n" * 50)
        held += [header_slow, body_slow, reading]
        in_flight = connect(port)  # a request the app works on for 2 s
        in_flight.sendall(b"GET /_slow/2 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        stuck = connect(port)  # and one stuck in the app for 10 minutes
        stuck.sendall(b"GET /_slow/600 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        held += [in_flight, stuck]
        try:
            wait_until(
                lambda: all(f"slow {n} started" in "".join(lines) for n in (2, 600)),
                "both slow requests are in the app",
            )
        except AssertionError as e:  # what the server said, to tell why
            proc.kill()
            _, err = proc.communicate()
            said = f"\nstdout: {''.join(lines)[-3000:]}\nstderr: {err[-3000:]}"
            raise AssertionError(f"{e}{said}") from e
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=STOP_BOUND + 10)
        took = time.monotonic() - t0
        assert proc.stderr is not None
        err = proc.stderr.read()
        print(f"SIGTERM to exit: {took:.2f} s (bound {STOP_BOUND:g} s)")
        assert took < STOP_BOUND, (took, err)
        assert proc.returncode == 0, err
        reader.join(CEILING)
        assert lines[-1] == "stopped\n", lines
        # the request in flight was answered within the grace time; the stuck worker is named
        in_flight.settimeout(CEILING)
        answer = b""
        while chunk := in_flight.recv(65536):
            answer += chunk
        assert status(answer) == 200 and answer.endswith(b"done"), answer
        assert "did not stop within" in err and "the database is closed" in err, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        for s in held:
            s.close()


def test_the_stream_events_are_the_ones_of_the_threaded_stream() -> None:
    """The front writes the same text as :func:`web.live.events` (a page reads either)."""
    from referee.models import Head
    from web import live

    head: Head = {"seq": 3, "hash": "ab"}
    assert front._event(head).decode() == live._event(head)


def read_answer(s: socket.socket) -> bytes:
    """One answer with a Content-Length, whole (the connection stays open)."""
    got = b""
    while b"\r\n\r\n" not in got:
        got += s.recv(65536)
    head, _, body = got.partition(b"\r\n\r\n")
    size = int(re.search(rb"content-length: (\d+)", head, re.I).group(1))  # type: ignore[union-attr]
    while len(body) < size:
        body += s.recv(65536)
    return head + b"\r\n\r\n" + body


def test_the_front_reads_a_first_head_itself_and_hands_the_rest_to_hypercorn_whole() -> None:
    """A stream asked on a fresh connection is served by the front on the connection itself;
    anything else (a plain request, a second request on the same connection, a stream asked
    after another request or over HTTP/1.0) is hypercorn's, the first head handed on first."""
    app = streaming_app()
    created, _ = new_game(app)
    game = created.game
    with serving(app) as (port, _):
        with connect(port) as s:  # keep-alive: two requests, then a stream on the same one
            for _ in range(2):
                s.sendall(f"GET /api/v1/games/{game} HTTP/1.1\r\nHost: t\r\n\r\n".encode())
                assert status(read_answer(s)) == 200
            s.sendall(f"GET /api/v1/games/{game}/stream HTTP/1.1\r\nHost: t\r\n\r\n".encode())
            got = b""
            while b"event: head" not in got:
                got += s.recv(4096)
            assert b"transfer-encoding: chunked" in got.lower()  # hypercorn's stream
        stream, head = open_stream(port, game)  # a fresh connection: the front's own
        try:
            assert status(head) == 200 and b"connection: close" in head.lower()
            assert b"text/event-stream" in head and b"x-content-type-options" in head.lower()
            got = head
            while b"event: head" not in got:
                got += stream.recv(4096)
        finally:
            stream.close()
        with connect(port) as s:  # HTTP/1.0: hypercorn answers
            s.sendall(f"GET /api/v1/games/{game}/stream HTTP/1.0\r\n\r\n".encode())
            assert status(s.recv(4096)) == 200
        with connect(port) as s:  # a stream of a game that does not exist: the view's 404
            s.sendall(b"GET /api/v1/games/nosuchgame/stream HTTP/1.1\r\nHost: t\r\n\r\n")
            answer = b""
            while chunk := s.recv(4096):
                answer += chunk
            assert status(answer) == 404 and b'"error"' in answer
