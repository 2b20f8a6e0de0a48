"""Join links: their paths, and the creator's one look at them.

A seat's secret join code (at least 128 random bits, made by the service) travels once, in the
join link ``/join/<game>/<code>`` (the judge's: ``/judge/join/<code>``); :mod:`web.auth`
exchanges it for a cookie (:func:`web.middleware.loggable_path` cuts it from log lines).
"""

from __future__ import annotations

import threading
import time

from web.request import browser_id

CODES_TTL = 30 * 60  # the creator's page shows the join links for half an hour


def join_path(game: str, code: str) -> str:
    """The join link of a seat (a path; the page or CLI puts the host in front)."""
    return f"/join/{game}/{code}"


# ---- the creator's one-time look at the join codes ---------------------------------------

_created: dict[tuple[str, str], tuple[float, dict[str, str]]] = {}
_created_lock = threading.Lock()


def remember_codes(game: str, codes: dict[str, str]) -> None:
    """Keeps a new game's join codes, in memory only, for the browser that created it, so that
    ``/g/<game>/created`` can show them (for :data:`CODES_TTL` seconds; never logged)."""
    now = time.monotonic()
    with _created_lock:
        for k in [k for k, (t, _) in _created.items() if now - t > CODES_TTL]:
            del _created[k]
        _created[(game, browser_id())] = (now, dict(codes))


def created_codes(game: str) -> dict[str, str] | None:
    """The join codes of ``game`` when this browser created it recently, else None."""
    with _created_lock:
        hit = _created.get((game, browser_id()))
    if hit is None or time.monotonic() - hit[0] > CODES_TTL:
        return None
    return dict(hit[1])
