"""Connections across addresses (issue 33, item 2): the front's doorman caps the connections
holding no request now (not yet asked, or between two requests) from every address together,
closing the oldest first, and the connections of one address that never asked anything; a
request in progress (a live stream too) is never idle. Slow clients spread over many addresses
cannot take the playing tables' connections.
"""

from __future__ import annotations

import socket
from typing import Any

from test_availability import CEILING, connect, open_stream, status, wait_until
from test_front import PLAIN_CEILING, serving, timed_request
from web_helpers import make_app, new_game

from web import front, serve
from web.front import Doorman


class Transport:
    def __init__(self) -> None:
        self.aborted = False

    def abort(self) -> None:
        self.aborted = True


def arrive(d: Doorman, host: str, port: int) -> tuple[bool, Transport]:
    t = Transport()
    return d.arrive((host, port), t), t  # type: ignore[arg-type]


def test_past_the_total_the_oldest_idle_connection_is_closed_not_a_busy_one() -> None:
    d = Doorman(total=3, per_client=10)
    _, first = arrive(d, "10.0.0.1", 1)
    _, second = arrive(d, "10.0.0.2", 1)
    _, third = arrive(d, "10.0.0.3", 1)
    d.busy(("10.0.0.1", 1))  # its request is in progress (a stream, say)
    ok, _ = arrive(d, "10.0.0.4", 1)
    assert ok and not first.aborted and not second.aborted  # room: the first is not idle
    ok, _ = arrive(d, "10.0.0.5", 1)
    assert ok and second.aborted and not third.aborted and d.shed == 1
    d.rests(("10.0.0.1", 1))  # answered: idle again, and the newest
    arrive(d, "10.0.0.6", 1)
    assert third.aborted and not first.aborted
    assert d.idle == 3


def test_one_address_may_hold_only_so_many_connections_that_never_asked() -> None:
    d = Doorman(total=100, per_client=2)
    assert arrive(d, "10.6.6.6", 1)[0] and arrive(d, "10.6.6.6", 2)[0]
    assert not arrive(d, "10.6.6.6", 3)[0] and d.refused == 1
    assert arrive(d, "10.0.0.1", 1)[0]  # another address
    d.busy(("10.6.6.6", 1))  # it asked: no longer counted against its address
    d.rests(("10.6.6.6", 1))
    assert arrive(d, "10.6.6.6", 4)[0]
    d.leave(("10.6.6.6", 2))
    assert arrive(d, "10.6.6.6", 5)[0]


def test_serve_and_the_front_agree_on_the_defaults() -> None:
    assert serve.IDLE_CONNECTIONS == front.IDLE_CONNECTIONS
    assert serve.NEW_PER_CLIENT == front.NEW_PER_CLIENT
    args = serve_args("--idle-connections", "99", "--new-connections-per-client", "3")
    cfg = serve.limits_config(args)
    assert cfg["IDLE_CONNECTIONS"] == 99 and cfg["NEW_CONNECTIONS_PER_CLIENT"] == 3


def serve_args(*argv: str) -> Any:
    from web.cli import build_parser

    return build_parser().parse_args(["serve", *argv])


def closed_by_server(s: socket.socket) -> bool:
    s.settimeout(0.05)
    try:
        return s.recv(4096) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def test_slow_connections_from_many_addresses_are_shed_oldest_first_and_a_stream_stays() -> None:
    app = make_app(IDLE_CONNECTIONS=20, ACCESS_LOG=False, SSE_SECONDS=120.0, SSE_HEARTBEAT=60.0)
    created, _ = new_game(app)
    held: list[socket.socket] = []
    with serving(app, header_timeout=120.0) as (port, server):
        try:
            stream, head = open_stream(port, created.game, "127.0.0.200")
            held.append(stream)
            assert status(head) == 200
            slow = []
            for i in range(30):  # 30 addresses, each with a connection that never asks
                s = connect(port, f"127.0.3.{i + 1}")
                s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\nX-Slow: ")
                slow.append(s)
            held += slow
            wait_until(
                lambda: server.front.doorman.shed >= 10, "the oldest idle connections are closed"
            )
            wait_until(
                lambda: all(closed_by_server(s) for s in slow[:10]), "the first ten are closed"
            )
            assert not any(closed_by_server(s) for s in slow[-5:])  # the newest stay
            assert timed_request(port) < PLAIN_CEILING  # a plain request still answered
            stream.settimeout(0.05)
            assert not closed_by_server(stream)  # a request in progress is never idle
        finally:
            for s in held:
                s.close()


def test_an_address_opening_too_many_silent_connections_gets_the_next_closed_at_once() -> None:
    app = make_app(NEW_CONNECTIONS_PER_CLIENT=5, ACCESS_LOG=False)
    held: list[socket.socket] = []
    with serving(app, header_timeout=120.0) as (port, server):
        try:
            for _ in range(5):
                held.append(connect(port, "127.0.4.1"))
            wait_until(lambda: server.front.doorman.idle == 5, "five connections are let in")
            sixth = connect(port, "127.0.4.1")
            held.append(sixth)
            sixth.settimeout(CEILING)
            try:
                got = sixth.recv(4096)
            except ConnectionResetError:
                got = b""
            assert got == b"" and server.front.doorman.refused == 1
            assert timed_request(port) < PLAIN_CEILING  # another address: served
        finally:
            for s in held:
                s.close()


def test_the_bodies_held_at_once_are_capped_and_a_slow_body_is_an_idle_connection() -> None:
    app = make_app(BODIES_HELD=64_000, IDLE_CONNECTIONS=50, ACCESS_LOG=False)
    held: list[socket.socket] = []
    with serving(app, header_timeout=120.0, request_timeout=120.0) as (port, server):
        try:
            for i in range(2):  # two large bodies, each stopped after 30 kB of 100 kB
                s = connect(port, f"127.0.7.{i + 1}")
                s.sendall(
                    b"POST /api/v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100000\r\n\r\n" + b" " * 30_000
                )
                held.append(s)
            wait_until(lambda: server.front.rest.held >= 60_000, "60 kB of bodies are held")
            assert server.front.doorman.idle == 2  # their requests are not whole: idle
            third = connect(port, "127.0.7.3")
            held.append(third)
            third.sendall(
                b"POST /api/v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100000\r\n\r\n" + b" " * 30_000
            )
            third.settimeout(CEILING)
            answer = third.recv(4096)
            assert status(answer) == 503 and b"request bodies" in answer, answer
            assert timed_request(port) < PLAIN_CEILING  # a request without a body still answers
        finally:
            for s in held:
                s.close()
        wait_until(lambda: server.front.rest.held == 0, "the bodies are let go with their clients")
