"""Real ``referee serve`` processes for the process tests (issue 35): start one (with
``--workers N`` or not) and wait until it is ready, find its worker processes and which of them
holds a connection, and play games through its JSON API with a seat's Bearer token and an
Idempotency-Key on every request, retrying on a broken connection (a killed process)."""

from __future__ import annotations

import copy
import http.client
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service_helpers import Table, make_referee

from referee.log import Header, Record, read_lines
from referee.service import NeedsInput

ROOT = Path(__file__).resolve().parent.parent
START_WITHIN = 90.0  # seconds a server may take to be ready on a busy 2-core machine


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Served:
    """``referee serve --db DB --port P ...`` in a process of its own, its output in a file
    (an access log under load would fill a pipe nobody reads). ``db``: the database and any
    option of where it lives (``[dsn, "--state", folder]``)."""

    def __init__(self, db: Sequence[str], tmp: Path, *extra: str, port: int | None = None) -> None:
        self.port = port or free_port()
        self.out_path = tmp / f"serve-{self.port}-{time.monotonic_ns()}.out"
        self._out = self.out_path.open("w")
        cmd = [sys.executable, "-m", "web.cli", "serve", "--db", *db, "--host", "127.0.0.1"]
        cmd += ["--port", str(self.port), "--no-qr", "--quiet", *extra]
        self.proc = subprocess.Popen(
            cmd,
            stdout=self._out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=ROOT,
            preexec_fn=_default_sigint,
        )
        deadline = time.monotonic() + START_WITHIN
        while time.monotonic() < deadline:
            if re.search(r"^ready$", self.text, re.M):
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.kill()
        raise AssertionError(f"the server did not start:\n{self.text}")

    @property
    def text(self) -> str:
        return self.out_path.read_text(errors="replace")

    @property
    def judge_code(self) -> str:
        found = re.search(r"/judge/join/(\S+)$", self.text, re.M)
        assert found is not None, self.text
        return found.group(1)

    def workers(self) -> set[int]:
        """The pids of the processes this one started (its workers)."""
        return children(self.proc.pid)

    def stop(self, within: float = 30) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(within)
        finally:
            self.kill()

    def kill(self) -> None:
        """Ends the server and its workers now (a test's clean-up)."""
        for pid in self.workers():
            with _gone():
                os.kill(pid, signal.SIGKILL)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._out.close()


class _gone:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> bool:
        return exc[0] is ProcessLookupError


def children(pid: int) -> set[int]:
    """The live processes whose parent is ``pid`` (from /proc)."""
    out = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.add(int(name))
    return out


def holder_of_connections(
    port: int, client_ports: Iterable[int], pids: Iterable[int]
) -> dict[int, int | None]:
    """For each client port of a connection to ``port`` on 127.0.0.1, the pid among ``pids``
    holding the server's end of it (None when none does), from /proc/net/tcp and each
    process's open files."""
    want = set(client_ports)
    inode_of: dict[int, str] = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        parts = line.split()
        local, remote, inode = parts[1], parts[2], parts[9]
        if int(local.split(":")[1], 16) == port and int(remote.split(":")[1], 16) in want:
            inode_of[int(remote.split(":")[1], 16)] = inode
    owner: dict[str, int] = {}
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                owner[link[8:-1]] = pid
    return {p: owner.get(inode_of.get(p, "")) for p in want}


def wait_for(check: Callable[[], Any], within: float, what: str, every: float = 0.05) -> Any:
    """``check()``'s first truthy value, within ``within`` seconds, else AssertionError."""
    deadline = time.monotonic() + within
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within:g} s: {what}")
        time.sleep(every)


# ---- HTTP ----------------------------------------------------------------------------------


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str]
    cookies: list[str] = field(default_factory=list)


RETRIED = (ConnectionError, http.client.HTTPException, OSError)


def request(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    headers: Mapping[str, str] | None = None,
    conn: http.client.HTTPConnection | None = None,
) -> Reply:
    """One request on ``conn`` (or a new connection); JSON in and out."""
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    h = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    try:
        c.request(method, path, body=data, headers=h)
        r = c.getresponse()
        raw = r.read()
    finally:
        if conn is None:
            c.close()
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        parsed = raw.decode(errors="replace")
    cookies = [v.split(";")[0] for k, v in r.getheaders() if k.lower() == "set-cookie"]
    return Reply(r.status, parsed, {k.lower(): v for k, v in r.getheaders()}, cookies)


def create_game(port: int) -> tuple[str, dict[str, str]]:
    """A new Hera & Zeus game created through the API; its id and each player seat's Bearer
    token (each seat claimed with its join code)."""
    s = request(port, "GET", "/api/v1/session")
    cookie = "; ".join(s.cookies)
    body = {"game_module": "hera-zeus", "profile": "rio-grande"}
    r = request(
        port, "POST", "/api/v1/games", body, {"X-CSRF-Token": s.body["csrf"], "Cookie": cookie}
    )
    assert r.status == 201, r.body
    game = r.body["game"]
    tokens = {}
    for seat, code in r.body["codes"].items():
        v = request(port, "GET", f"/api/v1/games/{game}", headers={"Cookie": cookie})
        c = request(
            port,
            "POST",
            f"/api/v1/games/{game}/claim",
            {"code": code},
            {"X-CSRF-Token": v.headers["x-csrf-token"], "Cookie": cookie},
        )
        assert c.status == 201, c.body
        tokens[seat] = c.body["token"]
    return game, tokens


def head_seq(port: int, game: str, token: str) -> int:
    """The game's last event number, as a seat sees it."""
    r = request(port, "GET", f"/api/v1/games/{game}", headers={"Authorization": f"Bearer {token}"})
    assert r.status == 200, r.body
    return int(r.body["seq"])


def judge_cookie(port: int, code: str) -> str:
    r = request(port, "GET", f"/judge/join/{code}")
    assert r.status == 303, r.body
    return "; ".join(r.cookies)


def export(port: int, game: str, cookie: str) -> tuple[Header, list[Record]]:
    """The judge's export of ``game`` (every record), read back."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        c.request("GET", f"/api/v1/games/{game}/export", headers={"Cookie": cookie})
        r = c.getresponse()
        text = r.read().decode()
    finally:
        c.close()
    assert r.status == 200, text[:500]
    return read_lines(text)


# ---- a game's script -----------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One request of a game's script: ``seat`` POSTs ``body`` to ``/actions`` or
    ``/answer`` and is answered ``status`` (200, or 202 when the referee asks a question)."""

    seat: str
    path: str
    body: Mapping[str, Any]
    status: int


class _Recorder:
    """A referee that notes every submit and answer the players make (each writes one
    record), passing them on."""

    def __init__(self) -> None:
        self.ref = make_referee()
        self.steps: list[Step] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.ref, name)

    def _note(self, seat: str, path: str, body: dict[str, Any], call: Callable[[], Any]) -> Any:
        try:
            out = call()
        except NeedsInput:
            self.steps.append(Step(seat, path, body, 202))
            raise
        self.steps.append(Step(seat, path, body, 200))
        return out

    def submit(self, game: str, seat: str, raw: Mapping[str, Any], **kw: Any) -> Any:
        body = {"action": copy.deepcopy(dict(raw))}
        return self._note(seat, "actions", body, lambda: self.ref.submit(game, seat, raw, **kw))

    def answer(self, game: str, seat: str, value: Any, **kw: Any) -> Any:
        body = {"value": copy.deepcopy(value)}
        return self._note(seat, "answer", body, lambda: self.ref.answer(game, seat, value, **kw))


def script(seed: int, steps: int) -> list[Step]:
    """The requests of a Hera & Zeus game played at random (``seed``) by its two players for
    at most ``steps`` actions after the setup, each card named: played again through the API
    of a game created the same way, each is answered as it was here."""
    for s in range(seed, seed + 1000):
        rec = _Recorder()
        t = Table(rec, random.Random(s))
        t.setup()
        n = 0
        while n < steps and t.step():
            n += 1
        if {st.seat for st in rec.steps} <= {"hera", "zeus"}:  # no judge's step
            return rec.steps
    raise AssertionError("no game without a judge's step")  # pragma: no cover


class Player:
    """Plays a game's script through the API, every request with its own Idempotency-Key
    (``<prefix><step>``), retried with that key on a broken connection or a 503 until
    answered: a request a killed process took is then applied once, by whichever process
    gets it again. ``acked`` holds every step answered."""

    def __init__(self, port: int, game: str, tokens: Mapping[str, str], prefix: str = "s") -> None:
        self.port, self.game, self.tokens, self.prefix = port, game, tokens, prefix
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.acked: list[tuple[int, str, int]] = []  # (step, key, status)
        self.retries = 0
        self.replayed = 0  # retries answered "already applied (same key)" by another process

    def post(self, seat: str, path: str, body: Any, headers: Mapping[str, str]) -> Reply:
        h = {"Authorization": f"Bearer {self.tokens[seat]}", **headers}
        return request(self.port, "POST", f"/api/v1/games/{self.game}/{path}", body, h, self.conn)

    def play(self, i: int, step: Step, within: float = 60) -> None:
        """Step ``i``, until it is answered as in the script. Raises AssertionError for
        another answer."""
        key = f"{self.prefix}{i}"
        deadline = time.monotonic() + within
        while True:
            try:
                r = self.post(step.seat, step.path, step.body, {"Idempotency-Key": key})
            except RETRIED:
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                r = None
            if r is not None and r.status == step.status:
                self.acked.append((i, key, r.status))
                return
            if r is not None and r.status == 409 and "(same key)" in str(r.body):
                self.replayed += 1  # its first try was applied by a process that died after
                self.acked.append((i, key, step.status))
                return
            if r is not None and r.status != 503:
                raise AssertionError(f"{self.game} step {i} {step}: {r.status} {r.body}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.game} step {i}: not answered within {within} s")
            self.retries += 1
            time.sleep(0.05)

    def close(self) -> None:
        self.conn.close()
