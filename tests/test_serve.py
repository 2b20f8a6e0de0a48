"""``referee serve``: the address and QR code it prints, the port it picks, the files it keeps
beside the database, HTTPS, and a real server process that stops cleanly on SIGTERM/SIGINT and
continues every game after a restart."""

from __future__ import annotations

import ctypes
import http.client
import io
import ipaddress
import json
import os
import re
import signal
import socket
import ssl
import stat
import subprocess
import sys
import threading
import time
import types
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from web import serve
from web.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent


def test_serve_is_a_referee_command_with_its_options() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.db, args.host, args.port, args.https, args.demo) == (
        "referee.sqlite3",
        "0.0.0.0",
        None,
        False,
        False,
    )
    args = build_parser().parse_args(
        ["serve", "--db", "x.db", "--host", "127.0.0.1", "--port", "9", "--https", "--demo"]
    )
    assert (args.db, args.host, args.port, args.https, args.demo) == (
        "x.db",
        "127.0.0.1",
        9,
        True,
        True,
    )


def test_the_lan_address_is_an_ipv4_address() -> None:
    ip = ipaddress.ip_address(serve.lan_ip())
    assert ip.version == 4 and not ip.is_unspecified


@pytest.mark.process
def test_a_busy_default_port_gives_a_free_one_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        busy = s.getsockname()[1]
        monkeypatch.setattr(serve, "DEFAULT_PORT", busy)
        port, note = serve.choose_port("127.0.0.1", None)
        assert port != busy and note is not None and str(busy) in note
        with pytest.raises(SystemExit, match="in use"):
            serve.choose_port("127.0.0.1", busy)
    with pytest.raises(SystemExit, match="1 to 65535"):
        serve.choose_port("127.0.0.1", 70000)


def test_the_secret_and_the_judge_code_are_kept_private_and_reused(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite3"
    key, code = serve.secret_key(db), serve.judge_code(db)
    assert len(key) == 64 and len(code) >= 22
    assert (serve.secret_key(db), serve.judge_code(db)) == (key, code)
    if os.name == "posix":
        for name in ("r.sqlite3.secret", "r.sqlite3.judge"):
            assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600


def test_the_certificate_names_the_lan_address_and_is_reused(tmp_path: Path) -> None:
    from cryptography import x509

    db = tmp_path / "r.sqlite3"
    cert, key = serve.certificate(db, "192.168.1.20")
    c = x509.load_pem_x509_certificate(cert.read_bytes())
    san = c.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "localhost" in san.get_values_for_type(x509.DNSName)
    ips = {str(a) for a in san.get_values_for_type(x509.IPAddress)}
    assert {"192.168.1.20", "127.0.0.1"} <= ips
    if os.name == "posix":
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
    first = cert.read_bytes()
    serve.certificate(db, "192.168.1.20")
    assert cert.read_bytes() == first  # reused
    serve.certificate(db, "10.0.0.7")  # another venue: a new certificate naming it
    c = x509.load_pem_x509_certificate(cert.read_bytes())
    san = c.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "10.0.0.7" in {str(a) for a in san.get_values_for_type(x509.IPAddress)}


def test_the_announcement_shows_the_url_its_qr_code_and_the_seats() -> None:
    out = io.StringIO()
    demo = {s: f"http://10.0.0.2:8000/join/g/{s}-code" for s in ("hera", "zeus", "judge")}
    demo["public"] = "http://10.0.0.2:8000/g/g"
    serve.announce(
        out,
        "http://10.0.0.2:8000/",
        note=None,
        judge_url="http://10.0.0.2:8000/judge/join/j",
        demo=demo,
        qr=True,
        https=False,
    )
    text = out.getvalue()
    assert "open http://10.0.0.2:8000/ on a phone" in text
    for link in demo.values():
        assert link in text
    assert text.count("█") > 100  # QR codes drawn with blocks
    assert "Ctrl-C" in text


# ---- a real server ----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, db: Path, *extra: str) -> None:
        self.port = free_port()
        cmd = [
            sys.executable,
            "-c",
            "import sys; from web.cli import main; sys.exit(main(sys.argv[1:]))",
            "serve",
            "--db",
            str(db),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--no-qr",
            *extra,
        ]
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=ROOT,
            # SIGINT as at a terminal: a suite started in the background (``cmd &``) has it
            # ignored, the server inherited that, and Ctrl-C (SIGINT) never stopped it
            preexec_fn=_default_sigint,
        )
        self.lines: list[str] = []
        deadline = time.monotonic() + 30
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            if line.strip() == "ready":
                return
        self.proc.kill()
        raise AssertionError("the server did not start:\n" + "".join(self.lines))

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def stop(self, sig: int = signal.SIGTERM) -> str:
        self.proc.send_signal(sig)
        out, _ = self.proc.communicate(timeout=20)
        self.lines.append(out)
        return out


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def get(
    port: int,
    path: str,
    cookie: str = "",
    tls: bool = False,
    form: dict[str, str] | None = None,
) -> http.client.HTTPResponse:
    """A GET of ``path``, or with ``form`` a POST of it (URL-encoded)."""
    conn: http.client.HTTPConnection
    if tls:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=ctx)
    else:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Cookie": cookie} if cookie else {}
    if form is None:
        conn.request("GET", path, headers=headers)
    else:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn.request("POST", path, body=urllib.parse.urlencode(form), headers=headers)
    return conn.getresponse()


def join(port: int, link: str, tls: bool = False) -> str:
    """Opens a join link and presses its "Take the seat" button (opening it takes nothing:
    issue 31, item 2); returns the seat's cookie."""
    path = re.sub(r"^https?://[^/]+", "", link)
    page = get(port, path, tls=tls)
    html = page.read().decode()
    assert page.status == 200, html
    cookies = "; ".join(c.split(";")[0] for c in page.headers.get_all("Set-Cookie") or [])
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None, html
    r = get(port, path, cookies, tls=tls, form={"csrf": found.group(1)})
    assert r.status == 303, r.read()
    return r.headers["Set-Cookie"].split(";")[0]


@pytest.mark.process
@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_serve_demo_runs_stops_cleanly_and_continues_after_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    s = Server(db, "--demo")
    try:
        links = dict(re.findall(r"^(Hera|Zeus|Judge|Public)\s+(\S+)$", s.text, re.M))
        assert set(links) == {"Hera", "Zeus", "Public"}, s.text  # the judge is the server's
        for f in serve.private_files(db):  # hidden cards and secrets: the owner's only
            assert not f.exists() or f.stat().st_mode & 0o077 == 0, f
        assert re.search(rf"open http://127\.0\.0\.1:{s.port}/ on a phone", s.text)
        judge_link = re.search(r"Tournament judge.*: (\S+)$", s.text, re.M)
        assert judge_link is not None
        game = links["Public"].rsplit("/", 1)[1]
        cookie = join(s.port, links["Hera"])
        r = get(s.port, f"/api/v1/games/{game}", cookie)
        assert r.status == 200 and json.loads(r.read())["seat"] == "hera"
        # a live stream is open while the server is stopped: it must not hold the shutdown
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10)
        conn.request("GET", f"/api/v1/games/{game}/stream")
        assert conn.getresponse().status == 200
        t0 = time.monotonic()
        out = s.stop(signal.SIGTERM)
        assert s.proc.returncode == 0, out
        assert "stopped" in out
        assert time.monotonic() - t0 < 15
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
    assert str(serve.secret_key(db))  # kept beside the database
    again = Server(db)
    try:
        r = get(again.port, f"/api/v1/games/{game}", cookie)
        assert r.status == 200 and json.loads(r.read())["seat"] == "hera"  # same game, same seat
        again.stop(signal.SIGINT)
        assert again.proc.returncode == 0
    finally:
        if again.proc.poll() is None:
            again.proc.kill()


@pytest.mark.process
@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_serve_demo_of_minotaur_lords_uses_the_owners_deck_list(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    decks = ROOT / "tests" / "data" / "minotaur" / "decks.csv"
    s = Server(db, "--demo", "--game", "minotaur", "--deck-list", str(decks))
    try:
        links = dict(re.findall(r"^(Miron|Vess|Public)\s+(\S+)$", s.text, re.M))
        assert set(links) == {"Miron", "Vess", "Public"}, s.text
        game = links["Public"].rsplit("/", 1)[1]
        cookie = join(s.port, links["Vess"])
        r = get(s.port, f"/api/v1/games/{game}", cookie)
        view = json.loads(r.read())
        assert r.status == 200 and view["seat"] == "vess" and view["game_module"] == "minotaur"
        assert view["vess"]["hand"] == ["?"] * 6  # the referee does not know the cards dealt
    finally:
        s.stop()


def test_a_minotaur_demo_without_a_deck_list_says_how_to_make_one(tmp_path: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "web.cli",
            "serve",
            "--db",
            str(tmp_path / "g.sqlite3"),
            "--demo",
            "--game",
            "minotaur",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert out.returncode != 0
    assert "deck list" in out.stderr and "--template" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.process
@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_serve_https_uses_its_own_certificate(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    s = Server(db, "--https", "--demo")
    try:
        assert (tmp_path / "games.sqlite3.cert.pem").exists()
        links = dict(re.findall(r"^(Hera|Zeus|Judge|Public)\s+(\S+)$", s.text, re.M))
        assert links["Zeus"].startswith("https://")
        cookie = join(s.port, links["Zeus"], tls=True)
        assert cookie
        game = links["Public"].rsplit("/", 1)[1]
        r = get(s.port, f"/api/v1/games/{game}", cookie, tls=True)
        assert r.status == 200 and json.loads(r.read())["seat"] == "zeus"
    finally:
        s.stop()


@pytest.mark.process
def test_a_taken_port_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        r = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from web.cli import main; sys.exit(main(sys.argv[1:]))",
                "serve",
                "--db",
                str(tmp_path / "x.sqlite3"),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
    assert r.returncode != 0
    assert f"port {port} is in use" in r.stderr
    assert "Traceback" not in r.stderr


class _Server:
    """A server that is stopped at once, and whose stop returns or hangs until released."""

    def __init__(self, hangs: bool) -> None:
        self.hangs = hangs
        self.release = threading.Event()
        self.stopped = False

    def prepare(self) -> None: ...

    def serve(self) -> None:
        raise KeyboardInterrupt  # SIGTERM, as run's handler raises it

    def stop(self) -> None:
        if self.hangs:
            threading.current_thread().name = "worker stuck in a request"
            self.release.wait()
        self.stopped = True


class _Store:
    closed = False

    def close(self) -> None:
        self.closed = True


def _run(server: _Server, monkeypatch: pytest.MonkeyPatch) -> tuple[_Store, list[int]]:
    monkeypatch.setattr(signal, "signal", lambda *a: None)  # keep pytest's own handlers
    ref, live = types.SimpleNamespace(store=_Store()), types.SimpleNamespace()
    exits: list[int] = []
    live.STOPPING = threading.Event()
    assert serve.run(server, ref, live, exit_now=exits.append) == 0
    assert live.STOPPING.is_set()
    return ref.store, exits


def test_a_server_that_stops_closes_the_store_and_returns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = _Server(hangs=False)
    store, exits = _run(server, monkeypatch)
    assert server.stopped and store.closed and exits == []
    out, err = capsys.readouterr()
    assert out.endswith("stopped\n") and err == ""


def test_a_server_that_hangs_in_its_stop_is_left_behind_and_the_process_ends(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(serve, "STOP_WITHIN", 0.2)
    server = _Server(hangs=True)
    try:
        store, exits = _run(server, monkeypatch)
        assert store.closed and exits == [0] and not server.stopped
        out, err = capsys.readouterr()
        assert out.endswith("stopped\n")
        assert "did not stop within 0.2 s" in err and "the database is closed" in err
        assert "-- worker stuck in a request" in err and "self.release.wait()" in err  # its stack
    finally:
        server.release.set()


def test_serve_weighs_codes_on_one_blas_thread_per_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Frames are read side by side (FRAME_WORKERS); OpenBLAS spreading each codebook product
    over every core and spinning while it waits made the codebook four times slower beside
    other work (issue 14, item 3). ``referee serve`` keeps BLAS on the calling thread."""
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads() -> set[int]:
        return {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}

    served: list[object] = []
    monkeypatch.setattr(serve, "make_server", lambda *a, **k: object())

    def run(server: object, ref: Any, live: object) -> int:
        served.append(server)
        ref.store.close()
        return 0

    monkeypatch.setattr(serve, "run", run)
    args = build_parser().parse_args(
        ["serve", "--db", str(tmp_path / "g.sqlite3"), "--quiet", "--no-qr", "--host", "127.0.0.1"]
    )
    with threadpool_limits(limits=2, user_api="blas"):  # restored after the test
        assert blas_threads() == {2}
        assert serve.cmd_serve(args) == 0
        assert served and blas_threads() == {1}


_MMAP_PROBE = """
import ctypes, sys
from web.serve import fixed_mmap_threshold
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                 "uordblks", "fordblks", "keepcost")]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
fixed = fixed_mmap_threshold() if sys.argv[1] == "fixed" else False
big = bytearray(3_000_000)  # mapped (above glibc's first threshold, 128 kB)
del big  # glibc's own rule: the threshold rises to 3 MB here
before = libc.mallinfo2().hblks
body = bytearray(1_000_000)  # a request body, a decoded photo
print(fixed, libc.mallinfo2().hblks - before)
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not hasattr(ctypes.CDLL(None), "mallinfo2"),
    reason="glibc only (mallinfo2, glibc 2.33+)",
)
@pytest.mark.parametrize(("mode", "mapped"), [("fixed", "True 1"), ("glibc", "False 0")])
def test_large_buffers_are_their_own_mapping_under_serve(mode: str, mapped: str) -> None:
    """After serve's fixed_mmap_threshold, a 1 MB buffer freed after a 3 MB one is still its
    own mapping (given back when freed); with glibc's rising threshold it is carved from the
    heap and stays there (what made the server hold 1 GB under benchmarks/attack.py)."""
    out = subprocess.run(
        [sys.executable, "-c", _MMAP_PROBE, mode],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout.strip()
    assert out == mapped
