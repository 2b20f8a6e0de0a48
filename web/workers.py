"""``referee serve --workers N``: several server processes behind one address (issue 35).

The process started by the person (the *supervisor*, :func:`web.serve.supervise`; this module
holds the process machinery and imports nothing of ``web.serve``) does what must happen once:
it checks the flags, makes the files beside the database that a first start creates (the
signing key, the heads journal, the Flask secret, the judge's code, the HTTPS certificate),
checks the heads journal, creates the ``--demo`` game, and picks the port. Then it starts N
*workers*: each is ``referee serve`` run again (``sys.executable -m web.cli serve ...
--worker-of PID``), a whole server with its own Referee over the same database, its own event
loop, front and worker threads, listening on the same host and port with ``SO_REUSEPORT`` (the
kernel spreads the connections over the workers).
Nothing is shared but the database and those files.

Why new processes (``subprocess``) rather than ``fork`` or ``multiprocessing``: a worker starts
from nothing, exactly as ``referee serve`` does, so it holds no copy of the supervisor's database
connections (an SQLite connection or a PostgreSQL pool must never cross a fork), locks or
threads; a restarted worker is the same program as the first; and its output is a pipe the
supervisor reads line by line. ``multiprocessing``'s spawn would re-import the app the same way
and give nothing more.

The supervisor prints the announcement once, when every worker is ready, then ``ready``. It
forwards SIGINT and SIGTERM to the workers and waits for them (:data:`STOP_WORKERS_WITHIN`
seconds, then SIGKILL), and starts again a worker that ended unexpectedly, at most
:data:`RESTARTS_PER_MINUTE` times a minute (each logged): past that it stops every worker and
exits 1 (a worker that keeps dying has a reason the supervisor cannot fix: a database gone, a disk
full). A worker ends by itself when its supervisor has gone.

Linux only for N > 1: ``SO_REUSEPORT`` spreads connections over the processes there (elsewhere the
option is missing or gives every connection to one process).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

log = logging.getLogger("referee.workers")

MAX_WORKERS = 64
RESTARTS_PER_MINUTE = 5  # a worker's unexpected ends the supervisor restarts in any minute
READY_WITHIN = 120.0  # seconds a worker may take to start (a busy 2-core machine, a big league)
STOP_WORKERS_WITHIN = 15.0  # seconds the workers get to stop (their own bound is ~10 s)
PARENT_CHECK = 0.5  # seconds between a worker's looks at its supervisor
ROOT = Path(__file__).resolve().parent.parent  # the folder holding the web package
QUIET_LINES = frozenset(
    {"ready", "stopping: closing live streams and the database", "stopped"}
)  # a worker's own lines the supervisor does not repeat


def check_workers(n: int) -> None:
    """Raises SystemExit with one line for a ``--workers`` value this machine cannot run."""
    if not 1 <= n <= MAX_WORKERS:
        raise SystemExit(f"referee serve: --workers {n}: from 1 to {MAX_WORKERS}")
    if n > 1 and not sys.platform.startswith("linux"):
        raise SystemExit(
            f"referee serve: --workers {n}: several processes on one port need Linux "
            "(SO_REUSEPORT spreads the connections there); run one process per port behind "
            "a proxy elsewhere"
        )


# ---- the worker's side -------------------------------------------------------------------


def bind_shared(server: Any, host: str, port: int) -> None:
    """Makes ``server`` (:class:`web.front.Server`, not yet prepared) listen on ``host``:``port``
    through a socket of its own with ``SO_REUSEPORT``, beside its sibling workers' sockets.
    Raises SystemExit naming the port when it cannot be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise SystemExit(f"referee serve: worker cannot listen on port {port}: {e}") from None
    sock.setblocking(False)
    # hypercorn makes its own socket object on the descriptor (fd://): this one lets go of it
    server.config.bind = [f"fd://{sock.detach()}"]


def watch_supervisor(server: Any, supervisor: int) -> threading.Thread:
    """A daemon thread that stops ``server`` once the process ``supervisor`` is no longer this
    process's parent (it ended, even by SIGKILL): a worker never outlives its supervisor."""

    def watch() -> None:
        while os.getppid() == supervisor:
            time.sleep(PARENT_CHECK)
        log.warning("the supervisor (pid %d) has gone: this worker stops", supervisor)
        server.stop_soon()

    t = threading.Thread(target=watch, name="supervisor-watch", daemon=True)
    t.start()
    return t


# ---- the supervisor's side ---------------------------------------------------------------

_NOT_PASSED = frozenset({"workers", "worker_of", "journal_accepted", "port", "demo", "game"})
_NOT_PASSED |= {"deck_list", "help", "func", "command", "db"}  # db: REFEREE_DB (a password)


def worker_command(
    serve: argparse.ArgumentParser,
    args: argparse.Namespace,
    port: int,
    supervisor: int,
    accepted: str | None,
) -> list[str]:
    """The command line of a worker: ``referee serve`` with the supervisor's options (every
    option of ``serve``, the serve command's parser, given back in its own form), the chosen
    ``port`` and the hidden ``--worker-of``; without ``--demo`` (the supervisor made the game),
    ``--workers``, nor ``--db``: a worker reads the database from ``REFEREE_DB``
    (:func:`worker_env`), since a command line is shown to every user of the machine and a
    connection string may hold a password."""
    argv = [sys.executable, "-m", "web.cli", "serve"]
    for action in serve._actions:
        if action.dest in _NOT_PASSED or not action.option_strings:
            continue
        value = vars(args).get(action.dest)
        flag = action.option_strings[-1]
        if isinstance(action, argparse._StoreTrueAction):
            if value:
                argv.append(flag)
        elif value is not None:
            argv += [flag, str(value)]
    argv += ["--port", str(port), "--worker-of", str(supervisor)]
    if accepted:
        argv += ["--journal-accepted", accepted]
    return argv


def worker_env(args: argparse.Namespace) -> dict[str, str]:
    """A worker's environment: this one, the database in ``REFEREE_DB``, and this checkout of
    the referee first on ``PYTHONPATH``."""
    from referee.place import ENV_DB

    env = dict(os.environ)
    env[ENV_DB] = str(args.db)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


class Worker:
    """One worker process: its number (1..N), the process, and a thread reading its output."""

    def __init__(self, number: int, argv: list[str], env: dict[str, str], out: IO[str]) -> None:
        self.number = number
        self.ready = threading.Event()
        self.lines: collections.deque[str] = collections.deque(maxlen=40)
        self.proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
            preexec_fn=_default_signals,  # sets two signal dispositions, nothing else
        )
        self._out = out
        self._reader = threading.Thread(target=self._read, name=f"worker-{number}-out", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            text = line.rstrip("\n")
            self.lines.append(text)
            if text == "ready":
                self.ready.set()
            elif text not in QUIET_LINES:
                with contextlib.suppress(ValueError, OSError):
                    self._out.write(f"[worker {self.number}] {text}\n")
                    self._out.flush()

    def signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signum)

    def describe_end(self) -> str:
        code = self.proc.returncode
        if code is not None and code < 0:
            try:
                return f"signal {signal.Signals(-code).name}"
            except ValueError:
                return f"signal {-code}"
        return f"status {code}"


def _default_signals() -> None:
    """In a new worker: SIGINT and SIGTERM as a plain process has them (a supervisor started
    in the background has SIGINT ignored, and a child would inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class Supervisor:
    """Starts ``n`` workers from ``argv``, restarts those that end unexpectedly, and stops them
    all on :meth:`stop` (any thread, a signal handler too). ``on_end(worker)`` is called for
    each unexpected end, before the restart (an exception there is logged)."""

    def __init__(
        self,
        n: int,
        argv: list[str],
        env: dict[str, str],
        out: IO[str],
        restarts_per_minute: int = RESTARTS_PER_MINUTE,
        on_end: Callable[[Worker], None] | None = None,
    ) -> None:
        self.n, self.argv, self.env, self.out = n, argv, env, out
        self.on_end = on_end
        self.restarts_per_minute = restarts_per_minute
        self.workers: list[Worker] = []
        self.restarts: collections.deque[float] = collections.deque()
        self.stopping = threading.Event()

    def start(self, ready_within: float = READY_WITHIN) -> None:
        """Starts every worker and waits until each is ready. Raises SystemExit with the output
        of a worker that ended before it was ready, or when one is not ready in time (every
        worker is then stopped)."""
        self.workers = [Worker(i + 1, self.argv, self.env, self.out) for i in range(self.n)]
        deadline = time.monotonic() + ready_within
        for w in self.workers:
            while not w.ready.wait(0.1):
                if self.stopping.is_set():
                    return
                if w.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop_workers()
                    self._reap(w)
                    told = "\n".join(w.lines)
                    why = (
                        f"ended ({w.describe_end()})"
                        if w.proc.returncode is not None
                        else f"was not ready within {ready_within:g} s"
                    )
                    raise SystemExit(
                        f"referee serve: worker {w.number} {why} before serving" + _told(told)
                    )

    @staticmethod
    def _reap(w: Worker) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            w.proc.wait(5)

    def stop(self) -> None:
        """Asks the supervisor to stop the workers and return (safe in a signal handler)."""
        self.stopping.set()

    def watch(self, every: float = 0.2) -> int:
        """Restarts the workers that end until :meth:`stop`; then stops them all. Returns 0, or
        1 when workers ended more than ``restarts_per_minute`` times within a minute (every
        worker is then stopped)."""
        status = 0
        while not self.stopping.wait(every):
            for i, w in enumerate(self.workers):
                if w.proc.poll() is None or self.stopping.is_set():
                    continue
                now = time.monotonic()
                while self.restarts and self.restarts[0] < now - 60:
                    self.restarts.popleft()
                if len(self.restarts) >= self.restarts_per_minute:
                    log.error(
                        "worker %d (pid %d) ended (%s): %d restarts within a minute already; "
                        "the server stops",
                        w.number,
                        w.pid,
                        w.describe_end(),
                        len(self.restarts),
                    )
                    status = 1
                    self.stopping.set()
                    break
                self.restarts.append(now)
                if self.on_end is not None:
                    try:
                        self.on_end(w)
                    except Exception:
                        log.exception("after worker %d (pid %d) ended", w.number, w.pid)
                new = Worker(w.number, self.argv, self.env, self.out)
                log.warning(
                    "worker %d (pid %d) ended unexpectedly (%s); started again as pid %d "
                    "(%d restart%s in the last minute)",
                    w.number,
                    w.pid,
                    w.describe_end(),
                    new.pid,
                    len(self.restarts),
                    "" if len(self.restarts) == 1 else "s",
                )
                self.workers[i] = new
        self.stop_workers()
        return status

    def stop_workers(self, within: float = STOP_WORKERS_WITHIN) -> list[int]:
        """SIGTERM to every worker, then waits ``within`` seconds for them all; SIGKILL to the
        ones still running (logged). Returns their pids."""
        for w in self.workers:
            if w.proc.poll() is None:
                w.signal(signal.SIGTERM)
        deadline = time.monotonic() + within
        killed = []
        for w in self.workers:
            try:
                w.proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.error("worker %d (pid %d) did not stop in time: killed", w.number, w.pid)
                w.signal(signal.SIGKILL)
                killed.append(w.pid)
                self._reap(w)
        return killed


def _told(text: str) -> str:
    return f"; it said:\n{text}" if text.strip() else ""
