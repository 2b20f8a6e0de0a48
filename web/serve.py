"""``referee serve``: the web app on a real WSGI server, for a table or a venue.

    referee serve [--db FILE|URI] [--state DIR] [--host H] [--port P] [--https] [--demo] [limits...]

The server is hypercorn behind an event-driven front (:mod:`web.front`, issue 33): pure Python,
it installs everywhere Python does (Linux, macOS, Windows, a Raspberry Pi) and needs no compiler.
Every connection is a task of one event loop: a live page's stream is written there (one
notifier per game, no thread), a slow client holds a little memory and no thread, and the
Flask app runs on ``--threads`` (default 64) worker threads once a request's body is whole.

It prints the address to open on the venue's Wi-Fi (the machine's LAN address) and the same
address as a QR code. ``--db`` is a SQLite file or a ``postgresql://`` URI (default
``$REFEREE_DB``; :mod:`referee.place`); for PostgreSQL the files below live in its state
folder (``--state``) as ``referee.secret``... Files beside the database: ``<db>.secret``
(the key of the CSRF tokens, so
that open pages survive a restart), ``<db>.judge`` (the tournament judge's code), and with
``--https`` ``<db>.cert.pem`` / ``<db>.key.pem`` (a self-signed certificate naming the LAN
address and localhost, made once and reused; a new one when the LAN address changes).

**Limits** (issue 12: one client cannot stop the hall). Each is a flag; the defaults suit a hall
of 100 tables on one small machine:

- Live streams hold no thread (the front writes them): ``--stream-slots`` (12,000) open at
  once of every kind (within the process's open files, raised to fit at start:
  :func:`open_files`); a seat's device (player or judge) at most ``STREAMS_PER_SEAT`` (4) on
  its seat, never counted by address; streams holding no seat (onlookers)
  ``--streams-per-client`` (8) from one address, ``--streams-per-game`` (24) on one game and
  ``--spectator-streams`` (2,000) in all, past which a newcomer ends the oldest onlooker stream
  of the address holding the most (:class:`web.live.StreamGate`). A stream past a cap gets
  503 with ``Retry-After`` (the page then refreshes itself at that pace); a stream whose
  client has gone is freed at once.
- Connections (:class:`web.front.Doorman`): ``--idle-connections`` (2,048) holding no request
  now, from every address together, past which the oldest is closed;
  ``--new-connections-per-client`` (256) of one address that have not yet brought a request.
- Requests: ``--seat-rate``, ``--address-rate``, ``--photo-rate`` (Flask-Limiter,
  :mod:`web.limits`; 429 with ``Retry-After``).
- ``--header-timeout`` (10 s): a request's headers must have arrived within that time of the
  connection's start or its previous answer (hypercorn's idle deadline), else the connection
  is closed (slowloris); ``--request-timeout`` (60 s): its body within that time of its
  headers, read whole before a worker thread sees it (408; :class:`web.front.WholeBody`).
- ``--create-burst`` (10) and ``--create-per-minute`` (6): the games one address may create,
  at most 10 in any 100 s (429 with ``Retry-After`` past it); ``--create-per-minute 0`` turns the
  limit off. ``--create-global-burst`` (60) and ``--create-global-per-minute`` (60): the same
  for all addresses together; ``--idle-games`` (200): no game is created while that many
  of the games made in the last ``--idle-expiry`` minutes (60; 0: ever) have had nothing
  recorded since their creation (503 with ``Retry-After``, saying when the oldest stops
  counting). The tournament
  judge has no limit (:mod:`web.limits`).
- Photos and frames: at most ``FRAME_WORKERS`` (2) images read at once on the server (503 with
  ``Retry-After``), each read from its header first and refused above 50 megapixels before
  any decoding (:mod:`web.images`, :func:`vision.sources.image_size`).

**The heads journal** (issue 31): a database holding games its journal ``<db>.heads`` is missing
or older than (a database copied over this one with the journal deleted) is refused at start,
in one line naming both files and ``--accept-missing-journal``; with that option it is served,
the games are anchored as stored, and the acceptance is logged and shown on the judge's pages
(:func:`journal_check`). A new database (no game yet) needs no journal.

SIGINT (Ctrl-C) and SIGTERM stop it cleanly and within a bounded time whatever the clients do:
live streams end at once, requests in flight get ``web.front.GRACE`` seconds, the connections
still open are then cancelled, the worker threads get :data:`STOP_WITHIN` seconds, and the
database is closed; a restart on the same file continues every game.

**Memory** (glibc): large buffers (bodies, decoded photos) are given back to the system when
freed, whichever worker thread freed them (:func:`fixed_mmap_threshold`).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import ipaddress
import logging
import os
import secrets
import signal
import socket
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from referee.place import add_db_options, place_of

DEFAULT_PORT = 8000
IDLE_CONNECTIONS = 2048  # web.front.IDLE_CONNECTIONS (not imported: the CLI starts fast)
NEW_PER_CLIENT = 256  # web.front.NEW_PER_CLIENT (phones behind a venue's one address preconnect)
DEFAULT_THREADS = 64  # the app's work; streams and slow clients hold none (issue 33)
STREAM_SLOTS = 12_000  # live streams at once: they hold no thread (issue 33: 10,000 idle)
SPECTATOR_STREAMS = 2_000  # of them, streams holding no seat
STREAMS_PER_CLIENT = 8
STREAMS_PER_GAME = 24
HEADER_TIMEOUT = 10.0
REQUEST_TIMEOUT = 60.0
CREATE_BURST = 10
CREATE_PER_MINUTE = 6.0
CREATE_GLOBAL_BURST = 60
CREATE_GLOBAL_PER_MINUTE = 60.0
IDLE_GAMES = 200
SEAT_RATE = "20 per second; 300 per minute"  # a seat's device: taps, pages, questions
ADDRESS_RATE = "50 per second; 2000 per minute"  # no seat: onlookers, joins, the home page
PHOTO_RATE = "12 per minute"  # photos of cards one seat sends (each costs a core a moment)
IDLE_EXPIRY = 60.0  # minutes an idle game counts against --idle-games
MAX_FILE = 200_000  # bytes of a file a game's option names (a deck list)
MMAP_THRESHOLD = 256 * 1024  # bytes: a larger allocation is its own mapping (glibc)
M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter


def fixed_mmap_threshold(size: int = MMAP_THRESHOLD) -> bool:
    """Every allocation of ``size`` bytes or more gets its own mapping, returned to the system
    when freed (glibc's ``mallopt(M_MMAP_THRESHOLD)``); True if set. glibc otherwise raises
    the threshold to the largest block freed so far (up to 32 MB), after which request bodies
    and decoded photos are carved from the arenas of the worker threads (up to 8 per core) and
    stay there once freed: under benchmarks/attack.py's 100-address attack the server's
    resident memory climbed to 1 GB with 70-130 MB in use (more than 600 MB free inside the
    arenas). False elsewhere (macOS, Windows, musl: their allocators do not do this)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, size))


GC_THRESHOLDS = (20_000, 50, 100)  # allocations before a young collection; young, middle ones


def quiet_collector() -> None:
    """Python's cycle collector pauses every thread while it runs, the event loop's too: the
    objects alive once the server is ready (the app, the modules, the games read at start) are
    moved out of its sight (``gc.freeze``), and it runs less often (:data:`GC_THRESHOLDS`), so
    its pauses no longer stall the taps of a hall (100 tables under benchmarks/attack.py's
    open-close churn: post p99 124 -> 89 ms in one run each)."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def open_files(streams: int) -> int:
    """Raises the process's limit on open files to fit ``streams`` connections and the rest
    (1,024 more), within the hard limit; returns the streams it fits (fewer when the hard
    limit is lower). Unix only; elsewhere ``streams``."""
    try:
        import resource
    except ImportError:  # Windows
        return streams
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = streams + 1024
    if soft != resource.RLIM_INFINITY and soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(want, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return streams
    return max(16, min(streams, soft - 1024))


def limits_config(args: argparse.Namespace) -> dict[str, Any]:
    """The app's config for the limits given on the command line. Raises SystemExit naming
    a flag out of range."""
    for flag, value in (
        ("--streams-per-client", args.streams_per_client),
        ("--streams-per-game", args.streams_per_game),
        ("--stream-slots", args.stream_slots),
        ("--spectator-streams", args.spectator_streams),
        ("--idle-connections", args.idle_connections),
        ("--new-connections-per-client", args.new_connections_per_client),
        ("--create-burst", args.create_burst),
        ("--create-global-burst", args.create_global_burst),
    ):
        if value < 1:
            raise SystemExit(f"referee serve: {flag} {value}: at least 1")
    for flag, seconds in (
        ("--header-timeout", args.header_timeout),
        ("--request-timeout", args.request_timeout),
    ):
        if not 0 < seconds <= 3600:
            raise SystemExit(f"referee serve: {flag} {seconds:g}: from 0 to 3600 seconds")
    for flag, rate in (
        ("--create-per-minute", args.create_per_minute),
        ("--create-global-per-minute", args.create_global_per_minute),
    ):
        if rate < 0:
            raise SystemExit(f"referee serve: {flag} {rate:g}: 0 or more")
    if args.idle_games < 0:
        raise SystemExit(f"referee serve: --idle-games {args.idle_games}: 0 or more")
    from web.limits import rate

    rates = {}
    for flag, key, value in (
        ("--seat-rate", "RATE_SEAT", args.seat_rate),
        ("--address-rate", "RATE_ADDRESS", args.address_rate),
        ("--photo-rate", "PHOTO_RATE", args.photo_rate),
    ):
        try:
            rates[key] = rate(value, flag)
        except ValueError as e:
            raise SystemExit(f"referee serve: {e}") from None
    if args.idle_expiry < 0:
        raise SystemExit(f"referee serve: --idle-expiry {args.idle_expiry:g}: 0 or more minutes")
    return {
        "STREAM_SLOTS": args.stream_slots,
        "SPECTATOR_STREAMS": min(args.spectator_streams, args.stream_slots),
        "IDLE_CONNECTIONS": args.idle_connections,
        "NEW_CONNECTIONS_PER_CLIENT": args.new_connections_per_client,
        "STREAMS_PER_CLIENT": args.streams_per_client,
        "STREAMS_PER_GAME": args.streams_per_game,
        "CREATE_BURST": args.create_burst,
        "CREATE_PER_MINUTE": args.create_per_minute or None,
        "CREATE_GLOBAL_BURST": args.create_global_burst,
        "CREATE_GLOBAL_PER_MINUTE": args.create_global_per_minute or None,
        "IDLE_GAMES_CAP": args.idle_games or None,
        "IDLE_EXPIRY_MINUTES": args.idle_expiry or None,
        **rates,
    }


def add_serve_command(sub: Any) -> argparse.ArgumentParser:
    """Adds ``serve`` to the ``referee`` command's subparsers ``sub``; returns its parser."""
    from referee.games import DEFAULT, GAMES

    p: argparse.ArgumentParser = sub.add_parser(
        "serve",
        help="run the phone web app (prints its address and a QR code)",
        description="Run the web app on this machine for the players' phones.",
    )
    add_db_options(p)
    p.add_argument(
        "--host", default="0.0.0.0", help="address to listen on (default: every interface)"
    )
    p.add_argument(
        "--port",
        type=int,
        default=None,
        help=f"port (default {DEFAULT_PORT}, or a free one when {DEFAULT_PORT} is taken)",
    )
    p.add_argument(
        "--https",
        action="store_true",
        help="serve HTTPS with a self-signed certificate (phones allow the camera only there)",
    )
    p.add_argument("--demo", action="store_true", help="create a game and print its seats' links")
    p.add_argument(
        "--game",
        choices=sorted(GAMES),
        default=DEFAULT,
        help="the demo game's game (one with owner's deck lists needs --deck-list)",
    )
    p.add_argument(
        "--deck-list",
        metavar="FILE",
        help="the demo game's deck list, for a game whose cards are the owner's",
    )
    p.add_argument(
        "--proxy",
        type=int,
        default=0,
        metavar="HOPS",
        help="trust this many proxies in front (TLS, a load balancer) for the client's address, "
        "scheme and host (X-Forwarded-For, -Proto, -Host, -Port); default 0: the headers are "
        "ignored, as anyone can send them",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=DEFAULT_THREADS,
        help=f"worker threads for the app's requests (default {DEFAULT_THREADS}; live streams "
        "and slow clients hold none)",
    )
    p.add_argument(
        "--stream-slots",
        type=int,
        default=STREAM_SLOTS,
        help=f"live streams open at once, of every kind (default {STREAM_SLOTS:,})",
    )
    p.add_argument(
        "--spectator-streams",
        type=int,
        default=SPECTATOR_STREAMS,
        help="live streams holding no seat (onlookers) open at once; past it a newcomer ends "
        f"the oldest of the address holding the most (default {SPECTATOR_STREAMS:,})",
    )
    p.add_argument(
        "--idle-connections",
        type=int,
        default=IDLE_CONNECTIONS,
        help="connections holding no request now (not yet asked, or between two requests), "
        f"from every address together; past it the oldest is closed (default {IDLE_CONNECTIONS:,})",
    )
    p.add_argument(
        "--new-connections-per-client",
        type=int,
        default=NEW_PER_CLIENT,
        help="connections of one address that have not yet brought a request; past it a new "
        f"one is closed at once (default {NEW_PER_CLIENT})",
    )
    p.add_argument(
        "--streams-per-client",
        type=int,
        default=STREAMS_PER_CLIENT,
        help=f"live streams one address may hold (default {STREAMS_PER_CLIENT})",
    )
    p.add_argument(
        "--streams-per-game",
        type=int,
        default=STREAMS_PER_GAME,
        help=f"live streams open on one game (default {STREAMS_PER_GAME})",
    )
    p.add_argument(
        "--header-timeout",
        type=float,
        default=HEADER_TIMEOUT,
        help=f"seconds a request's headers may take to arrive (default {HEADER_TIMEOUT:g})",
    )
    p.add_argument(
        "--request-timeout",
        type=float,
        default=REQUEST_TIMEOUT,
        help=f"seconds a whole request with its body may take (default {REQUEST_TIMEOUT:g})",
    )
    p.add_argument(
        "--create-burst",
        type=int,
        default=CREATE_BURST,
        help=f"games one address may create back to back, at most, in any --create-burst / "
        f"--create-per-minute minutes (default {CREATE_BURST})",
    )
    p.add_argument(
        "--create-per-minute",
        type=float,
        default=CREATE_PER_MINUTE,
        help=f"games one address may create per minute on average (default "
        f"{CREATE_PER_MINUTE:g}; 0: no limit)",
    )
    p.add_argument(
        "--create-global-burst",
        type=int,
        default=CREATE_GLOBAL_BURST,
        help=f"games all addresses together may create back to back, at most (default "
        f"{CREATE_GLOBAL_BURST})",
    )
    p.add_argument(
        "--create-global-per-minute",
        type=float,
        default=CREATE_GLOBAL_PER_MINUTE,
        help=f"games all addresses together may create per minute on average (default "
        f"{CREATE_GLOBAL_PER_MINUTE:g}; 0: no limit)",
    )
    p.add_argument(
        "--idle-games",
        type=int,
        default=IDLE_GAMES,
        help=f"games nobody has joined yet the server may hold; past it no other is created "
        f"(default {IDLE_GAMES}; 0: no limit)",
    )
    p.add_argument(
        "--idle-expiry",
        type=float,
        default=IDLE_EXPIRY,
        metavar="MINUTES",
        help=f"how long after its creation a game nobody has joined counts against "
        f"--idle-games (default {IDLE_EXPIRY:g}; 0: for ever)",
    )
    p.add_argument(
        "--seat-rate",
        default=SEAT_RATE,
        metavar="RATE",
        help=f"requests one seat's device may send, e.g. '20 per second; 300 per minute' "
        f"(default '{SEAT_RATE}'; 0: no limit; the tournament judge has none)",
    )
    p.add_argument(
        "--address-rate",
        default=ADDRESS_RATE,
        metavar="RATE",
        help=f"requests holding no seat one address may send (default '{ADDRESS_RATE}'; 0: "
        "no limit)",
    )
    p.add_argument(
        "--photo-rate",
        default=PHOTO_RATE,
        metavar="RATE",
        help=f"photos of cards one seat may send (default '{PHOTO_RATE}'; 0: no limit)",
    )
    p.add_argument(
        "--accept-missing-journal",
        action="store_true",
        help="serve a database whose heads journal (DB.heads) is missing or behind it; "
        "logged and shown to the judge (a rolled-back database would go unnoticed)",
    )
    p.add_argument(
        "--kit", help="the sticker kit (kit.json from 'referee kit'), to read cards from photos"
    )
    p.add_argument(
        "--stills",
        metavar="DIR",
        help="the club's test photos: a player may save a still of his camera there, labelled "
        "with the codes he confirms (off by default; benchmarks/vision.py --photos DIR scores it)",
    )
    p.add_argument(
        "--create",
        choices=("anyone", "organiser"),
        default="anyone",
        help="who may create games: anyone on the network, or only a browser holding the "
        "organiser's (tournament judge's) link",
    )
    p.add_argument("--quiet", action="store_true", help="no access log")
    p.add_argument("--no-qr", action="store_true", help="print the links without QR codes")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="server processes sharing the port, each with its own event loop and threads, "
        "over the same database (default 1; Linux; web.workers)",
    )
    # a worker of `--workers N`: its supervisor's pid, and the journal's acceptance it made
    p.add_argument("--worker-of", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--journal-accepted", default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_serve)
    return p


# ---- addresses -----------------------------------------------------------------------------


def lan_ip() -> str:
    """The machine's address on its outward network (the venue's Wi-Fi), found by connecting a
    UDP socket (which sends nothing); 127.0.0.1 without a network."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        ip = str(s.getsockname()[0])
    except OSError:
        ip = "127.0.0.1"
    finally:
        s.close()
    return ip if ip != "0.0.0.0" else "127.0.0.1"


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def choose_port(host: str, asked: int | None) -> tuple[int, str | None]:
    """The port to listen on and a note when it is not the default. Raises SystemExit with a
    clear message when an explicitly asked port is taken."""
    if asked is not None:
        if not 0 < asked < 65536:
            raise SystemExit(f"referee serve: --port {asked}: a port is 1 to 65535")
        if not port_is_free(host, asked):
            raise SystemExit(
                f"referee serve: port {asked} is in use (another server?); choose another "
                "with --port, or leave --port out to get a free one"
            )
        return asked, None
    if port_is_free(host, DEFAULT_PORT):
        return DEFAULT_PORT, None
    port = free_port(host)
    return port, f"port {DEFAULT_PORT} is in use; serving on the free port {port} instead"


# ---- files beside the database ------------------------------------------------------------


def _private_file(path: Path, make: Any) -> str:
    """The text of ``path``, made by ``make()`` (readable by this user only) when missing."""
    if path.exists():
        text = path.read_text("utf-8").strip()
        if text:
            return text
    text = str(make())
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    return text


def private_files(db: Path, *, postgres: bool = False) -> list[Path]:
    """The files beside the database that hold secrets or hidden cards (checked at start:
    readable by their owner only). ``postgres``: ``db`` is the prefix of a PostgreSQL
    database's state folder's files (:class:`referee.place.Place`), and the database itself
    is no file."""
    names: tuple[str, ...] = (".secret", ".judge", ".key", ".heads", ".trust", ".cert.pem")
    names += (".key.pem",)
    if not postgres:
        names = ("", "-wal", "-shm", *names)
    return [db.with_name(db.name + n) for n in names]


def secret_key(db: Path) -> str:
    return _private_file(db.with_name(db.name + ".secret"), lambda: secrets.token_hex(32))


def judge_code(db: Path) -> str:
    return _private_file(db.with_name(db.name + ".judge"), lambda: secrets.token_urlsafe(16))


def certificate(db: Path, ip: str, title: str = "Card game") -> tuple[Path, Path]:
    """The certificate and key files for HTTPS beside ``db``: reused when they exist and name
    ``ip``; otherwise a new self-signed certificate (P-256, two years) for ``ip``, 127.0.0.1 and
    localhost."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    cert_path = db.with_name(db.name + ".cert.pem")
    key_path = db.with_name(db.name + ".key.pem")
    want = {ipaddress.ip_address(ip), ipaddress.ip_address("127.0.0.1")}
    if cert_path.exists() and key_path.exists():
        try:
            old = x509.load_pem_x509_certificate(cert_path.read_bytes())
            san = old.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
            now = datetime.datetime.now(datetime.UTC)
            if want <= set(san.get_values_for_type(x509.IPAddress)) and (
                old.not_valid_after_utc > now + datetime.timedelta(days=7)
            ):
                return cert_path, key_path
        except (ValueError, x509.ExtensionNotFound):
            pass
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{title} referee")])
    now = datetime.datetime.now(datetime.UTC)
    alt: list[x509.GeneralName] = [x509.DNSName("localhost")]
    alt += [x509.IPAddress(a) for a in sorted(want, key=str)]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=730))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key_pem)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


# ---- printing ------------------------------------------------------------------------------


def print_qr(url: str, out: TextIO) -> None:
    """``url`` as a QR code drawn with block characters (skipped where the terminal cannot
    print them)."""
    import io

    import qrcode  # type: ignore[import-untyped]

    qr = qrcode.QRCode(border=2)
    qr.add_data(url)
    buf = io.StringIO()
    qr.print_ascii(out=buf, invert=True)
    try:
        out.write(buf.getvalue())
    except UnicodeEncodeError:
        out.write("(this terminal cannot draw the QR code; type the address)\n")
    out.flush()


def demo_options(args: argparse.Namespace) -> dict[str, Any]:
    """The demo game's options: the deck list given (a game whose cards are the owner's
    refuses to start without one, saying how to make it). Raises SystemExit with one line
    when the file cannot be read."""
    from referee.validate import InputError, utf8_file

    if not args.deck_list:
        return {}
    try:
        with open(args.deck_list, "rb") as f:
            return {"deck_list": utf8_file(f.read(MAX_FILE + 1), max_bytes=MAX_FILE)}
    except OSError as e:
        raise SystemExit(f"referee serve: {args.deck_list}: cannot read: {e}") from None
    except InputError as e:
        raise SystemExit(f"referee serve: {args.deck_list}: {e}") from None


def announce(
    out: TextIO,
    url: str,
    *,
    note: str | None,
    judge_url: str,
    demo: dict[str, str] | None,
    qr: bool,
    https: bool,
    title: str = "Card game",
) -> None:
    """What the person starting the server reads: the address, its QR code, the judge's link
    and the demo game's seats (``demo``: seat -> link, in seat order). ``title``: the games
    this server plays (:func:`web.games.site_title`)."""
    w = out.write
    if note:
        w(f"{note}\n")
    w(f"\n{title} referee: open {url} on a phone on this Wi-Fi\n")
    if qr:
        print_qr(url, out)
    if https:
        w(
            "HTTPS with a self-signed certificate: each phone asks once to accept it "
            "(this is expected; it is this machine's own certificate).\n"
        )
    w(f"\nTournament judge (every table; keep this link to yourself): {judge_url}\n")
    if demo:
        w("\nDemo game: give each seat its own link (it is that seat's key).\n")
        for seat, link in demo.items():
            w(f"\n{seat.title():7} {link}\n")
            if qr:
                print_qr(link, out)
    w("\nCtrl-C stops the server; the games are kept in the database.\n")
    out.flush()


# ---- running -------------------------------------------------------------------------------


def make_server(
    app: Any,
    host: str,
    port: int,
    threads: int,
    header_timeout: float = HEADER_TIMEOUT,
    request_timeout: float = REQUEST_TIMEOUT,
) -> Any:
    """hypercorn serving ``app`` through the event-driven front (:class:`web.front.Server`):
    the live streams on the event loop, the rest on ``threads`` worker threads, each
    request's body read whole within ``request_timeout`` seconds first, its headers within
    ``header_timeout``."""
    from web.front import Front, Server

    return Server(Front(app, max(threads, 4), request_timeout), host, port, header_timeout)


def cmd_serve(args: argparse.Namespace) -> int:
    """Runs until SIGINT or SIGTERM. Returns 0, or raises SystemExit with a message for a
    taken port or an unusable database."""
    from referee.store import tighten
    from vision.codebook import one_blas_thread
    from web import live
    from web.app import create_app
    from web.games import site_title
    from web.request import open_db

    if args.stills and args.workers != 1:  # a still waits for its player's consent in the
        raise SystemExit("referee serve: --stills needs --workers 1")  # process that read it
    if args.workers != 1 and args.worker_of is None:
        return supervise(args)
    one_blas_thread()  # frames are read side by side (FRAME_WORKERS): each on one thread
    fixed_mmap_threshold()  # freed bodies and photos go back to the system, not the arenas
    try:
        place = place_of(args.db, args.state)
    except ValueError as e:
        raise SystemExit(f"referee serve: {e}") from None
    db = place.files.resolve()  # the prefix of the files outside the database
    os.umask(0o077)  # every file made from here on (database, -wal, -shm, keys): owner only
    try:
        place.prepare()
    except OSError as e:
        raise SystemExit(f"referee serve: cannot make the folder {place.folder}: {e}") from None
    for f in private_files(db, postgres=place.postgres):
        tighten(f)
    try:
        ref = open_db(place.db if place.postgres else str(db), args.state, args.threads)
    except Exception as e:  # an unreadable file, a locked or corrupt database, no server
        raise SystemExit(f"referee serve: cannot open the database {place.name}: {e}") from None
    # a worker's journal was checked by its supervisor (web.workers): a sibling killed between
    # its write and its journal line must not keep a restarted worker from serving
    accepted = (
        journal_check(ref, place.name, args.accept_missing_journal)
        if args.worker_of is None
        else args.journal_accepted
    )
    kit = None
    if args.kit:
        from web.games.installed import PAGE_MODULES

        try:  # the camera's kit for every game created without one: the first game's
            kit = PAGE_MODULES[0].load_kit(args.kit)
        except ValueError as e:
            raise SystemExit(f"referee serve: --kit {args.kit}: {e}") from None
    stills = None
    if args.stills:
        from web.stills import check_folder

        try:
            stills = str(check_folder(args.stills))
        except ValueError as e:
            raise SystemExit(f"referee serve: {e}") from None
    limits = limits_config(args)
    fits = open_files(limits["STREAM_SLOTS"])
    if fits < limits["STREAM_SLOTS"]:
        print(
            f"referee serve: --stream-slots {limits['STREAM_SLOTS']}: this system lets the "
            f"process open too few files; {fits} live streams at most",
            file=sys.stderr,
        )
        limits["STREAM_SLOTS"] = fits
        limits["SPECTATOR_STREAMS"] = min(fits, limits["SPECTATOR_STREAMS"])
    ip = lan_ip()
    port, note = (
        (args.port, None) if args.worker_of is not None else choose_port(args.host, args.port)
    )
    code = judge_code(db)
    app = create_app(
        {
            "REFEREE": ref,
            "REFEREE_DB": place.db if place.postgres else str(db),
            "REFEREE_STATE": args.state,
            "SECRET_KEY": secret_key(db),
            "JUDGE_CODE": code,
            "CREATE": args.create,
            "ACCESS_LOG": not args.quiet,
            "PREFERRED_URL_SCHEME": "https" if args.https else "http",
            "VISION_KIT": kit,
            "STILLS_DIR": stills,
            "JOURNAL_ACCEPTED": accepted,
            "PROXY_HOPS": args.proxy,
            **limits,
        }
    )
    with app.app_context():
        title = site_title()
    if not args.quiet:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
        logging.getLogger("hypercorn.error").setLevel(logging.WARNING)
    else:
        logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(message)s")
    if accepted:
        logging.getLogger("referee").warning("%s", accepted)
    base = base_url(args, ip, port)
    demo = demo_game(ref, args, base)
    server = make_server(
        app, args.host, port, args.threads, args.header_timeout, args.request_timeout
    )
    quiet_collector()
    if args.https:
        cert, key = certificate(db, ip, title)
        server.config.certfile, server.config.keyfile = str(cert), str(key)
    if args.worker_of is not None:
        return run_worker(server, ref, live, args)
    announce(
        sys.stdout,
        base + "/",
        note=note,
        judge_url=f"{base}/judge/join/{code}",
        demo=demo,
        qr=not args.no_qr,
        https=args.https,
        title=title,
    )
    return run(server, ref, live)


def run_worker(server: Any, ref: Any, live: Any, args: argparse.Namespace) -> int:
    """A worker of ``--workers N`` (:mod:`web.workers`): it listens on the port its siblings
    share, stops when its supervisor has gone, and prints no announcement."""
    from web.workers import bind_shared, watch_supervisor

    bind_shared(server, args.host, args.port)
    watch_supervisor(server, args.worker_of)
    return run(server, ref, live)


def supervise(args: argparse.Namespace) -> int:
    """``referee serve --workers N`` with N > 1 (:mod:`web.workers`): what is done once (the
    flags, the files beside the database, the journal, the demo game, the port), then the
    workers until SIGINT or SIGTERM. Returns 0 (1 when workers kept ending); raises SystemExit
    with one line for bad input or a worker that could not start."""
    from referee.place import place_of
    from referee.store import tighten
    from web.app import create_app
    from web.games import site_title
    from web.request import open_db
    from web.workers import Supervisor, check_workers, worker_command, worker_env

    check_workers(args.workers)
    limits_config(args)  # a flag out of range: one line from here, not one from each worker
    try:
        place = place_of(args.db, args.state)
    except ValueError as e:
        raise SystemExit(f"referee serve: {e}") from None
    db = place.files.resolve()  # the prefix of the files outside the database
    os.umask(0o077)
    try:
        place.prepare()
    except OSError as e:
        raise SystemExit(f"referee serve: cannot make the folder {place.folder}: {e}") from None
    for f in private_files(db, postgres=place.postgres):
        tighten(f)
    try:  # makes the key and the journal before any worker reads them
        ref = open_db(place.db if place.postgres else str(db), args.state, 1)
    except Exception as e:
        raise SystemExit(f"referee serve: cannot open the database {place.name}: {e}") from None
    try:
        accepted = journal_check(ref, place.name, args.accept_missing_journal)
        ip = lan_ip()
        port, note = choose_port(args.host, args.port)
        code = judge_code(db)
        secret = secret_key(db)
        app = create_app({"SECRET_KEY": secret})
        with app.app_context():
            title = site_title()
        if args.https:
            certificate(db, ip, title)  # made once here; each worker reuses it
        base = base_url(args, ip, port)
        demo = demo_game(ref, args, base)
    finally:
        with contextlib.suppress(Exception):
            ref.store.close()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    ap = argparse.ArgumentParser()
    argv = worker_command(add_serve_command(ap.add_subparsers()), args, port, os.getpid(), accepted)

    def anchor(w: Any) -> None:
        """A worker killed between a write and its journal line left that game's head past
        the journal, and the next start would refuse the database: the supervisor reads the
        games the journal misses, verifies them whole and notes their heads, as a start with
        ``--accept-missing-journal`` does (the records were written by this server's key)."""
        ref = open_db(place.db if place.postgres else str(db), args.state, 1)
        try:
            n = ref.anchor_stored()
        finally:
            ref.store.close()
        if n:
            logging.getLogger("referee.workers").warning(
                "worker %d ended between a write and its journal line: %d game%s verified and "
                "anchored",
                w.number,
                n,
                "" if n == 1 else "s",
            )

    sup = Supervisor(args.workers, argv, worker_env(args), sys.stdout, on_end=anchor)

    def stop(signum: int, frame: Any) -> None:
        sup.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    sup.start()
    if not sup.stopping.is_set():
        announce(
            sys.stdout,
            base + "/",
            note=note,
            judge_url=f"{base}/judge/join/{code}",
            demo=demo,
            qr=not args.no_qr,
            https=args.https,
            title=title,
        )
        pids = ", ".join(str(w.pid) for w in sup.workers)
        sys.stdout.write(
            f"{args.workers} server processes share port {port} (pids {pids}); this one "
            f"(pid {os.getpid()}) watches them\n"
        )
        sys.stdout.write("ready\n")
        sys.stdout.flush()
    status = sup.watch()
    sys.stdout.write("stopped\n")
    sys.stdout.flush()
    return status


def base_url(args: argparse.Namespace, ip: str, port: int) -> str:
    """The address the announcement names: the LAN address when listening on every one."""
    scheme = "https" if args.https else "http"
    shown_host = ip if args.host in ("0.0.0.0", "::", "") else args.host
    return f"{scheme}://{shown_host}:{port}"


def demo_game(ref: Any, args: argparse.Namespace, base: str) -> dict[str, str] | None:
    """With ``--demo``, a new game and each seat's link (seat -> link, then "public");
    else None. Raises SystemExit naming the deck list when the game cannot be made."""
    from referee.service import ServiceError
    from web.links import join_path

    if not args.demo:
        return None
    try:
        created = ref.create_game(name=args.game, options=demo_options(args))
    except ServiceError as e:
        source = f" from {args.deck_list}" if args.deck_list else ""
        raise SystemExit(f"referee serve: the demo game could not be made{source}: {e}") from None
    demo = {s: base + join_path(created.game, c) for s, c in created.codes.items()}
    demo["public"] = f"{base}/g/{created.game}"
    return demo


def journal_check(ref: Any, db: str | Path, accept: bool) -> str | None:
    """Refuses to serve a database its heads journal does not cover (missing, or older than
    the database: a database rolled back with its journal deleted, issue 31) unless
    ``accept`` (``--accept-missing-journal``). Returns None, or with ``accept`` the sentence
    the log and the judge's pages show (the games are then verified and anchored, so the next
    start needs no option). A database behind its journal (restored from before its last
    lines: :meth:`Referee.journal_ahead`) is served, its short games held, and said the same
    way. Raises SystemExit with one line naming the files and the option."""
    gap = ref.journal_gap()
    ahead = ref.journal_ahead()  # a restore from before the journal's last lines (issue 35)
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    behind = f"Started {stamp}: {ahead}." if ahead else None
    if gap is None:
        return behind
    if not accept:
        with contextlib.suppress(Exception):
            ref.store.close()
        raise SystemExit(
            f"referee serve: refusing to serve the database {db}: {gap}; a database copied "
            "over the one this server wrote would be served unnoticed. Restore the journal, "
            "or start with --accept-missing-journal to serve it anyway (logged and shown to "
            "the judge)"
        )
    n = ref.anchor_stored()
    said = (
        f"Started {stamp} with --accept-missing-journal: {gap}. The server took the {n} games "
        "the journal missed as stored: a database rolled back before this start would not "
        "have been noticed by it (the players' phones still compare the heads they saw)."
    )
    return said if behind is None else f"{said} {behind}"


# Seconds the worker threads get to end once the server has stopped (the streams end at once,
# requests in flight get web.front.GRACE seconds, the connections still open are then
# cancelled): a worker stuck in the app would otherwise hold the process.
STOP_WITHIN = 5.0


def stop_within(server: Any, seconds: float) -> list[str]:
    """Stops ``server`` from a helper thread; when it has not stopped after ``seconds``, the
    names of the threads still running it (the helper and every non-daemon thread); else []."""
    t = threading.Thread(target=server.stop, name="server-stop", daemon=True)
    t.start()
    t.join(seconds)
    if not t.is_alive():
        return []
    main = threading.main_thread()
    return sorted(
        x.name for x in threading.enumerate() if x is t or (not x.daemon and x is not main)
    )


def run(server: Any, ref: Any, live: Any, exit_now: Callable[[int], Any] = os._exit) -> int:
    """Serves until SIGINT/SIGTERM, then stops the live streams, the server and the store.
    A server that has not stopped within :data:`STOP_WITHIN` seconds is left behind: the
    store is closed, the threads still running and their stacks go to stderr, and the
    process ends (``exit_now``) rather than hang."""

    from web.front import Server

    def stop(signum: int, frame: Any) -> None:
        if not isinstance(server, Server):
            raise KeyboardInterrupt
        server.stop_soon()  # the server's loop ends its streams and its connections

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        with contextlib.suppress(AttributeError, ValueError):  # Windows: Ctrl-Break
            signal.signal(signal.SIGBREAK, stop)  # type: ignore[attr-defined]
    try:
        server.prepare()
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        server.serve()
    except KeyboardInterrupt:
        pass
    finally:
        sys.stdout.write("stopping: closing live streams and the database\n")
        sys.stdout.flush()
        live.STOPPING.set()
        stuck = stop_within(server, STOP_WITHIN)
        with contextlib.suppress(Exception):
            ref.store.close()
        if stuck:
            sys.stderr.write(
                f"referee serve: the server did not stop within {STOP_WITHIN:g} s "
                f"(still running: {', '.join(stuck)}); the database is closed, "
                "so it ends now. The threads' stacks:\n"
            )
            frames = sys._current_frames()
            for t in threading.enumerate():
                if t.name in stuck and t.ident in frames:
                    stack = "".join(traceback.format_stack(frames[t.ident])[-6:])
                    sys.stderr.write(f"-- {t.name}\n{stack}")
        sys.stdout.write("stopped\n")
        sys.stdout.flush()
        sys.stderr.flush()
        if stuck:
            exit_now(0)
    return 0
