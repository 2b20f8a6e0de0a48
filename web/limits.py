"""Limits per client: how fast one address may create games (issue 12).

``CREATE_BURST`` games back to back, then ``CREATE_PER_MINUTE`` a minute (a token bucket per
client address; ``referee serve --create-burst/--create-per-minute``). Past it, 429
``TooManyRequests`` with ``Retry-After`` and a sentence saying when. ``CREATE_PER_MINUTE`` None
(the app's default, and ``--create-per-minute 0``) sets no limit. The form (``POST /new``) and
the API (``POST /api/v1/games``) share one bucket per address. The tournament judge (the
organiser, who sets up the hall's tables ahead of time) has no limit.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

from flask import current_app, request

from web.errors import TooManyRequests
from web.request import is_tournament_judge

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


def check_creation() -> None:
    """Spends one game creation of this client's allowance. Raises TooManyRequests (429, with
    the seconds to wait) when it is spent."""
    cfg = current_app.config
    per_minute = cfg.get("CREATE_PER_MINUTE")
    if not per_minute or is_tournament_judge():
        return
    buckets = current_app.extensions.get("create_buckets")
    if buckets is None:
        buckets = current_app.extensions.setdefault(
            "create_buckets",
            TokenBuckets(int(cfg.get("CREATE_BURST", 10)), float(per_minute) / 60.0),
        )
    assert isinstance(buckets, TokenBuckets)
    wait = buckets.take(request.remote_addr or "-")
    if wait > 0:
        raise TooManyRequests(
            f"this device has created {buckets.burst:g} games in a short time; this server "
            f"lets one device create {float(per_minute):g} a minute: try again in "
            f"{max(1, round(wait))} seconds",
            wait,
        )
