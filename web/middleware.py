"""What wraps every request: the security headers and the access log.

Every response carries a Content Security Policy without inline scripts and with
``frame-ancestors 'none'``, ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``
and ``Cache-Control: no-store`` (a page may show one seat's hidden cards; a shared tablet's cache
must not keep it). The access log writes one line per request with join secrets cut from the
path (:func:`loggable_path`) and no query string.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Response, request

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "media-src 'self' blob:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

access_log = logging.getLogger("referee.access")

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

# a seat's join link, the judge's, an event player's personal link (issue 34)
_JOIN_RE = re.compile(r"^(/join/[^/?#]+/|/judge/join/|/e/[^/?#]+/p/)[^/?#]+")


def loggable_path(path: str) -> str:
    """``path`` as it may appear in a log line: the secret of a join link cut to ``…``."""
    return _JOIN_RE.sub(lambda m: m.group(1) + "…", path)


def security_headers(resp: Response) -> Response:
    """The app's after_request hook: the security headers of every response."""
    h = resp.headers
    h.setdefault("Content-Security-Policy", CSP)
    h["X-Content-Type-Options"] = "nosniff"
    h["Referrer-Policy"] = "no-referrer"
    h["X-Frame-Options"] = "DENY"
    h.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    h.setdefault("Permissions-Policy", "camera=(self), microphone=(), geolocation=()")
    if not request.path.startswith("/static/"):
        h.setdefault("Cache-Control", "no-store")
    return resp


class AccessLog:
    """WSGI middleware: one line per request, with join secrets cut from the path and no query
    string (nothing secret travels there, but nothing needs to be logged from it either)."""

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        t0 = time.perf_counter()

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            path = loggable_path(environ.get("PATH_INFO", ""))
            access_log.info(
                "%s %s %s %s %.1fms",
                environ.get("REMOTE_ADDR", "-"),
                environ.get("REQUEST_METHOD", "-"),
                path,
                status.split(" ", 1)[0],
                (time.perf_counter() - t0) * 1000,
            )
            return start_response(status, headers, exc_info)

        return self.app(environ, start)
