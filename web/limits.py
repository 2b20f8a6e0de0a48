"""Limits on creating games: per client (issue 12), and across clients (issue 31).

Per client: ``CREATE_BURST`` games back to back, then ``CREATE_PER_MINUTE`` a minute (a token
bucket per client address; ``referee serve --create-burst/--create-per-minute``). Past it, 429
``TooManyRequests`` with ``Retry-After`` and a sentence saying when.

Across every client, so that many addresses together cannot flood the server (issue 31:
100 addresses made 1,000 games in 18 s):

- a global rate: ``CREATE_GLOBAL_BURST`` games back to back, then
  ``CREATE_GLOBAL_PER_MINUTE`` a minute, whoever asks (one token bucket for the server;
  ``--create-global-burst/--create-global-per-minute``); past it, 429 ``TooManyRequests``
  with ``Retry-After``;
- a cap on idle games: while ``IDLE_GAMES_CAP`` games made in the last
  ``IDLE_EXPIRY_MINUTES`` have had nothing recorded since their creation (no seat taken, no
  action: :attr:`referee.store.GameHead.idle`), no other is made (``--idle-games``,
  ``--idle-expiry``); 503 ``Busy`` with ``Retry-After``, until players join some or the
  oldest of them stops counting (the message says when). Games cannot be deleted: an idle game
  that counted for ever would lock every player out for good once enough were abandoned, or
  made slowly under the global rate. ``IDLE_EXPIRY_MINUTES`` is 60 when not set; None (``0``
  on the command line) counts idle games for ever. A game made before its creation time was
  kept never counts while they expire.

A limit set to None (the app's default; ``0`` on the command line) is off. The form
(``POST /new``) and the API (``POST /api/v1/games``) share the buckets. The tournament judge
(the organiser, who sets up the hall's tables ahead of time) has no limit.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from datetime import timedelta

from flask import current_app, request

from web.errors import Busy, TooManyRequests
from web.request import get_referee, is_tournament_judge

CLIENTS_KEPT = 4096  # buckets remembered; the least recently used leave first


class TokenBuckets:
    """A token bucket per key: ``burst`` tokens, refilled at ``rate`` a second. Thread safe."""

    def __init__(self, burst: int, rate: float) -> None:
        self.burst, self.rate = float(burst), float(rate)
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: str, now: float | None = None) -> float:
        """Spends one token of ``key``'s bucket; returns 0.0, or the seconds until a token is
        there when the bucket is empty (nothing is spent then)."""
        t = time.monotonic() if now is None else now
        with self._lock:
            tokens, last = self._buckets.get(key, (self.burst, t))
            tokens = min(self.burst, tokens + (t - last) * self.rate)
            self._buckets[key] = (tokens, t)
            self._buckets.move_to_end(key)
            while len(self._buckets) > CLIENTS_KEPT:
                self._buckets.popitem(last=False)
            if tokens < 1.0:
                return (1.0 - tokens) / self.rate if self.rate > 0 else 3600.0
            self._buckets[key] = (tokens - 1.0, t)
            return 0.0


IDLE_RETRY = 60.0  # seconds a client refused by the idle-games cap is asked to wait, at most
IDLE_EXPIRY_MINUTES = 60.0  # how long an idle game counts against the cap, unless configured


def _buckets(name: str, burst: int, per_minute: float) -> TokenBuckets:
    buckets = current_app.extensions.get(name)
    if buckets is None:
        buckets = current_app.extensions.setdefault(name, TokenBuckets(burst, per_minute / 60.0))
    assert isinstance(buckets, TokenBuckets)
    return buckets


def _check_idle(cap: int, expiry_minutes: float | None) -> None:
    """Raises Busy when ``cap`` games made in the last ``expiry_minutes`` (None or 0: ever)
    are idle, saying when the oldest of them stops counting."""
    within = timedelta(minutes=float(expiry_minutes)) if expiry_minutes else None
    idle = get_referee().idle_count(within)
    if idle.count < cap:
        return
    held = f"{idle.count} game{'s' if idle.count != 1 else ''} nobody has joined yet"
    wait = idle.frees_in
    if within is None or idle.frees_at is None or wait is None:
        raise Busy(
            f"this server holds {held}, its limit on idle games ({cap}): no game is made until "
            "players join some; try again later or ask the organiser",
            IDLE_RETRY,
        )
    minutes = max(1, math.ceil(wait / 60))
    raise Busy(
        f"this server holds {held} (made in the last {float(expiry_minutes or 0):g} "
        f"minutes), its limit on idle games ({cap}): no game is made until fewer are, as "
        "players join them or they stop counting (the oldest at "
        f"{idle.frees_at:%H:%M} UTC, in at most {minutes} minute{'s' if minutes != 1 else ''}); "
        "try again then or ask the organiser",
        min(IDLE_RETRY, max(1.0, math.ceil(wait))),
    )


def check_creation() -> None:
    """Spends one game creation of this client's allowance and of the server's. Raises
    TooManyRequests (429, with the seconds to wait) when either is spent, Busy (503) when the
    server holds as many idle games as it may (nothing is spent then)."""
    cfg = current_app.config
    if is_tournament_judge():
        return
    cap = cfg.get("IDLE_GAMES_CAP")
    if cap:
        _check_idle(int(cap), cfg.get("IDLE_EXPIRY_MINUTES", IDLE_EXPIRY_MINUTES))
    per_minute = cfg.get("CREATE_PER_MINUTE")
    if per_minute:
        buckets = _buckets("create_buckets", int(cfg.get("CREATE_BURST", 10)), float(per_minute))
        wait = buckets.take(request.remote_addr or "-")
        if wait > 0:
            raise TooManyRequests(
                f"this device has created {buckets.burst:g} games in a short time; this "
                f"server lets one device create {float(per_minute):g} a minute: try again in "
                f"{max(1, round(wait))} seconds",
                wait,
            )
    overall = cfg.get("CREATE_GLOBAL_PER_MINUTE")
    if overall:
        burst = int(cfg.get("CREATE_GLOBAL_BURST", 60))
        wait = _buckets("create_global", burst, float(overall)).take("*")
        if wait > 0:
            raise TooManyRequests(
                f"games are being created on this server faster than its limit for all "
                f"devices together ({float(overall):g} a minute after {burst} back to back): "
                f"try again in {max(1, round(wait))} seconds",
                wait,
            )
