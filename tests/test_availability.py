"""Availability under abuse (issue 12, finding 4 and 5): one client cannot stop the hall.

Live streams have their own bounded share of the server (per server, per client, per game) and
a closed one is freed at once; a request that dribbles its headers is cut at its deadline; an
image is sized from its header and a decompression bomb is refused before any decoding; one
client creates a few games a minute; the judge's overview puts the tables playing now first.

The server tests run ``referee serve``'s own cheroot server in this process on a free port and
speak raw HTTP over sockets; they wait for conditions with generous ceilings, never for a fixed
time.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from service_helpers import Table, make_referee
from web_helpers import Browser, make_app, new_game, referee_of, token_of

from web import live, serve

CEILING = 20.0  # seconds: generous; each wait ends as soon as its condition holds


def wait_until(cond: Callable[[], bool], what: str, ceiling: float = CEILING) -> None:
    end = time.monotonic() + ceiling
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"not within {ceiling:g} s: {what}")
        time.sleep(0.02)


# ---- a real server in this process ---------------------------------------------------------


@contextlib.contextmanager
def running(app: Flask, threads: int = 8, **limits: float) -> Iterator[int]:
    """``app`` on ``referee serve``'s server (with its request deadlines) on a free port."""
    port = serve.free_port("127.0.0.1")
    server = serve.make_server(app, "127.0.0.1", port, threads, **limits)
    server.prepare()
    t = threading.Thread(target=server.serve, daemon=True)
    t.start()
    try:
        yield port
    finally:
        live.STOPPING.set()
        server.stop()
        live.STOPPING.clear()


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=CEILING, source_address=(source, 0))
    return s


def request(port: int, path: str, source: str = "127.0.0.1", method: str = "GET") -> bytes:
    """One whole request and its whole answer (the connection closes after it)."""
    with connect(port, source) as s:
        s.sendall(f"{method} {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode())
        out = b""
        while chunk := s.recv(65536):
            out += chunk
        return out


def open_stream(port: int, game: str, source: str = "127.0.0.1") -> tuple[socket.socket, bytes]:
    """A live stream's connection and its status line and headers as they arrived."""
    s = connect(port, source)
    s.sendall(f"GET /api/v1/games/{game}/stream HTTP/1.1\r\nHost: t\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        if not chunk:
            break
        head += chunk
    return s, head


def status(answer: bytes) -> int:
    m = re.match(rb"HTTP/1\.[01] (\d{3})", answer)
    assert m, answer[:200]
    return int(m.group(1))


def streaming_app(**config: Any) -> Flask:
    """An app whose streams last long and stay silent (so only the server notices a close)."""
    cfg: dict[str, Any] = {"SSE_SECONDS": 120.0, "SSE_HEARTBEAT": 60.0, "ACCESS_LOG": False}
    cfg.update(config)
    return make_app(**cfg)


# ---- live streams ----------------------------------------------------------------------------


@pytest.mark.process
def test_a_stream_slot_is_freed_soon_after_its_client_closes() -> None:
    app = streaming_app(STREAMS_PER_CLIENT=1)
    created, _ = new_game(app)
    with running(app) as port:
        s, head = open_stream(port, created.game)
        assert status(head) == 200
        gate = app.extensions["live_gate"]
        assert gate.open == 1
        s.close()
        # no event and no heartbeat is due for a minute: the server sees the close itself
        wait_until(lambda: gate.open == 0, "the closed stream's slot is free again", 10.0)
        again, head = open_stream(port, created.game)  # the one slot of this client is back
        assert status(head) == 200
        again.close()


@pytest.mark.process
def test_full_streams_get_503_and_actions_are_still_answered() -> None:
    app = streaming_app(STREAM_SLOTS=3, STREAMS_PER_CLIENT=2, STREAMS_PER_GAME=10)
    created, phones = new_game(app)
    game = created.game
    hera = token_of(phones["hera"], game)  # the device token of Hera's phone
    held: list[socket.socket] = []
    with running(app, threads=6) as port:
        try:
            for source in ("127.0.0.1", "127.0.0.1"):
                s, head = open_stream(port, game, source)
                held.append(s)
                assert status(head) == 200
            s, head = open_stream(port, game, "127.0.0.1")  # a third from the same client
            held.append(s)
            assert status(head) == 503
            assert re.search(rb"Retry-After: \d+", head, re.I)
            s, head = open_stream(port, game, "127.0.0.2")  # another client: the last slot
            held.append(s)
            assert status(head) == 200
            s, head = open_stream(port, game, "127.0.0.3")  # the server's streams are full
            held.append(s)
            assert status(head) == 503
            assert re.search(rb"Retry-After: \d+", head, re.I)
            probe = request(port, f"/api/v1/games/{game}/stream", "127.0.0.3", "HEAD")
            assert status(probe) == 503
            # the threads kept for actions answer: the views, and a move
            answer = request(port, f"/api/v1/games/{game}", "127.0.0.4")
            assert status(answer) == 200
            ref = referee_of(app)
            before = ref.head(game)["seq"]
            action = {"do": "deal", "player": "hera", "cards": ["?"] * 9}
            body = json.dumps({"action": action}).encode()
            with connect(port, "127.0.0.5") as c:
                c.sendall(
                    (
                        f"POST /api/v1/games/{game}/actions HTTP/1.1\r\nHost: t\r\n"
                        f"Authorization: Bearer {hera}\r\n"
                        "Content-Type: application/json\r\nConnection: close\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n"
                    ).encode()
                    + body
                )
                out = b""
                while chunk := c.recv(65536):
                    out += chunk
            assert status(out) in (200, 201), out[:400]
            assert ref.head(game)["seq"] > before
        finally:
            for s in held:
                s.close()


def test_streams_on_one_game_are_capped_and_the_probe_says_so() -> None:
    app = make_app(STREAMS_PER_GAME=2, STREAMS_PER_CLIENT=10)
    created, _ = new_game(app)
    url = f"/api/v1/games/{created.game}/stream"
    pages = [Browser(app) for _ in range(3)]
    first = pages[0].client.get(url, buffered=False)
    second = pages[1].client.get(url, buffered=False)
    try:
        assert first.status_code == second.status_code == 200
        third = pages[2].get(url)
        assert third.status_code == 503
        assert "2 live pages open" in third.json["message"]  # type: ignore[index]
        assert int(third.headers["Retry-After"]) >= 1
        assert pages[2].client.head(url).status_code == 503
    finally:
        first.close()
        second.close()
    assert pages[2].client.head(url).status_code == 200


# ---- slowloris -------------------------------------------------------------------------------


@pytest.mark.process
def test_a_slowloris_connection_is_cut_at_its_deadline_while_a_normal_request_is_served() -> None:
    app = streaming_app()
    with running(app, threads=4, header_timeout=1.0) as port:
        slow = [connect(port, "127.0.0.9") for _ in range(4)]  # as many as the threads
        for s in slow:
            s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")
        stop = threading.Event()
        closed: set[int] = set()

        def dribble() -> None:  # one header byte every 0.2 s, never the end of the headers
            while not stop.is_set():
                for i, s in enumerate(slow):
                    if i in closed:
                        continue
                    try:
                        s.sendall(b"X")
                    except OSError:
                        closed.add(i)
                stop.wait(0.2)

        t = threading.Thread(target=dribble, daemon=True)
        t.start()
        try:
            answer = request(port, "/", "127.0.0.1")
            assert status(answer) == 200

            def cut() -> bool:
                for i, s in enumerate(slow):
                    s.settimeout(0.01)
                    with contextlib.suppress(TimeoutError, BlockingIOError):
                        data = s.recv(4096)
                        if data == b"" or b" 408 " in data:
                            closed.add(i)
                return len(closed) == len(slow)

            wait_until(cut, "every slowloris connection is cut")
        finally:
            stop.set()
            for s in slow:
                s.close()


# ---- images ----------------------------------------------------------------------------------


def bomb_png(width: int = 14000, height: int = 14000) -> bytes:
    """A tiny PNG whose header declares ``width`` × ``height`` pixels (the data of a few rows
    of zeros, compressed: a decoder would allocate the whole image first)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = zlib.compress(b"\x00" * (1 + 3 * width) * 16, 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def decodings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the images OpenCV decodes from now on (``cv2.imdecode`` watched)."""
    import cv2

    decoded: list[int] = []
    real = cv2.imdecode

    def spy(buf: Any, flags: int) -> Any:
        decoded.append(len(buf))
        return real(buf, flags)

    monkeypatch.setattr(cv2, "imdecode", spy)
    return decoded


def test_a_decompression_bomb_is_refused_from_its_header_without_decoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from test_web_camera import KIT

    data = bomb_png()
    assert len(data) < 200_000
    decoded = decodings(monkeypatch)
    app = make_app()
    created, b = new_game(app, catalogue=KIT.catalogue_for_game(), kit=KIT.to_json())
    game = created.game
    r = b["hera"].post(
        f"/api/v1/games/{game}/photos",
        game=game,
        data=data,
        headers={"Content-Type": "image/png"},
    )
    assert r.status_code == 413, r.json
    message = r.json["message"]  # type: ignore[index]
    assert "14000 × 14000" in message and "50 MP limit" in message
    assert decoded == []  # refused before any decoding


def test_the_image_header_gives_the_size_of_png_jpeg_and_webp() -> None:
    import cv2
    import numpy as np

    from vision.sources import image_size

    img = np.zeros((37, 53, 3), np.uint8)
    for ext, params in (
        (".png", []),
        (".jpg", []),
        (".webp", []),
        (".webp", [cv2.IMWRITE_WEBP_QUALITY, 101]),
    ):
        ok, buf = cv2.imencode(ext, img, params)
        assert ok
        assert image_size(buf.tobytes()) == (53, 37), ext
    assert image_size(bomb_png()) == (14000, 14000)
    assert image_size(b"not an image") is None


# ---- creating games --------------------------------------------------------------------------


def test_one_client_creating_games_too_fast_gets_429_and_another_client_does_not() -> None:
    app = make_app(CREATE_BURST=2, CREATE_PER_MINUTE=1.0)
    body = {"players": {"hera": "A", "zeus": "B"}}
    b = Browser(app)
    token = b.csrf()
    for _ in range(2):
        r = b.client.post("/api/v1/games", json=body, headers={"X-CSRF-Token": token})
        assert r.status_code == 201, r.json
    r = b.client.post("/api/v1/games", json=body, headers={"X-CSRF-Token": token})
    assert r.status_code == 429
    assert r.json["error"] == "TooManyRequests"  # type: ignore[index]
    assert "1 a minute" in r.json["message"]  # type: ignore[index]
    assert int(r.headers["Retry-After"]) >= 30
    games = len(referee_of(app).games())
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.8"
    token = other.get("/api/v1/session").json["csrf"]  # type: ignore[index]
    r = other.post("/api/v1/games", json=body, headers={"X-CSRF-Token": token})
    assert r.status_code == 201
    assert len(referee_of(app).games()) == games + 1


# ---- the judge's overview --------------------------------------------------------------------


def test_the_overview_lists_the_tables_playing_now_first_and_pages_the_rest() -> None:
    ref = make_referee()
    finished: list[str] = []
    seed = 0
    while len(finished) < 2:
        t = Table(ref, random.Random(seed))
        seed += 1
        t.setup()
        while t.step():
            pass
        if t.over:
            finished.append(t.game)
    for i in range(60):  # tables created and never played
        ref.create_game(players={"hera": f"H{i}", "zeus": f"Z{i}"})
    playing = Table(ref, random.Random(99))
    playing.setup()
    playing.step()
    app = make_app(ref)
    judge = Browser(app)
    judge.client.get(f"/judge/join/{app.config['JUDGE_CODE']}")
    page = judge.get("/judge").get_data(as_text=True)
    rows = re.findall(r'data-state="(\w+)"[^>]*>\s*<a href="/judge\?table=(\w+)"', page)
    assert rows[0] == ("playing", playing.game)
    # the tables playing now, then the others; the 60 nobody joined are listed by id only,
    # 50 a page (issue 31: the hall's cost does not grow with idle games)
    assert sorted(rows[1:]) == sorted(("finished", g) for g in finished)
    assert "Not joined yet (60)" in page
    idle = re.findall(r'<li><a href="/judge\?table=(\w+)">', page)
    assert len(idle) == 50 and not set(idle) & {playing.game, *finished}
    rest = judge.get("/judge?idle=2").get_data(as_text=True)
    later = re.findall(r'<li><a href="/judge\?table=(\w+)">', rest)
    assert len(later) == 10 and not set(later) & set(idle)
    api = judge.get("/api/v1/tables?state=active").json["tables"]  # type: ignore[index]
    assert [t["game"] for t in api] == [playing.game]
