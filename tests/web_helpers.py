"""Helpers for the web tests: an app over a deterministic referee, browsers holding seats, and
:class:`HttpReferee`, the service seen through the JSON API.

:class:`HttpReferee` has the service's methods (``submit``, ``answer``, ``observe``, ``view``,
``log``, ``export``) but sends each through the Flask test client with the cookie of the seat
named, and turns the JSON errors back into the service's exceptions; so the simulated table of
``service_helpers.Table`` and the checks of ``test_privacy`` run unchanged through HTTP.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from service_helpers import make_referee
from werkzeug.test import TestResponse

from referee.games import GAMES
from referee.log import Record, read_lines
from referee.models import SeatView
from referee.service import (
    Created,
    Forbidden,
    NeedsInput,
    NotFound,
    Receipt,
    Referee,
    Refused,
    ServiceError,
    Stale,
)
from web.app import create_app

JUDGE_CODE = "tournament-judge-code-0123456789"
ERRORS: dict[str, type[ServiceError]] = {
    "Forbidden": Forbidden,
    "Refused": Refused,
    "NotFound": NotFound,
    "Stale": Stale,
}


def make_app(ref: Referee | None = None, **config: Any) -> Flask:
    """The app over ``ref`` (default: a fresh deterministic referee in memory)."""
    cfg: dict[str, Any] = {
        "REFEREE": ref if ref is not None else make_referee(),
        "TESTING": True,
        "SECRET_KEY": "test-secret",
        "JUDGE_CODE": JUDGE_CODE,
        "ACCESS_LOG": True,
        "SSE_SECONDS": 0.3,
        "SSE_HEARTBEAT": 0.1,
    }
    cfg.update(config)
    return create_app(cfg)


def referee_of(app: Flask) -> Referee:
    ref = app.extensions["referee"]
    assert isinstance(ref, Referee)
    return ref


def take_seat(client: FlaskClient, path: str, **kw: Any) -> TestResponse:
    """Opens a join link (``path``) and presses its "Take the seat" button, a POST: opening
    the link takes nothing (issue 31, item 2). The reply to the press, or to the opening when
    it shows no button (a seat held already: 409; this browser's own: 303)."""
    page = client.get(path, **kw)
    if page.status_code != 200:
        return page
    found = re.search(r'name="csrf" value="([^"]+)"', page.get_data(as_text=True))
    assert found is not None, "the join page has no form"
    return client.post(path, data={"csrf": found.group(1)}, **kw)


class Browser:
    """One browser (a test client) holding at most one seat per game."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.client: FlaskClient = app.test_client()

    def join(self, game: str, code: str, **kw: Any) -> TestResponse:
        """Opens a join link and presses its "Take the seat" button (:func:`take_seat`)."""
        return take_seat(self.client, f"/join/{game}/{code}", **kw)

    def ask(self, game: str, code: str) -> TestResponse:
        """Asks for a seat another device holds (the held page's button)."""
        data = {"csrf": self.csrf(game), "ask": "1"}
        return self.client.post(f"/join/{game}/{code}", data=data)

    def csrf(self, game: str = "") -> str:
        if not game:
            return str(self.client.get("/api/v1/session").json["csrf"])  # type: ignore[index]
        r = self.client.get(f"/api/v1/games/{game}")
        return str(r.headers["X-CSRF-Token"])

    def get(self, path: str, **kw: Any) -> TestResponse:
        return self.client.get(path, **kw)

    def post(
        self,
        path: str,
        body: Any = None,
        *,
        game: str = "",
        headers: Mapping[str, str] | None = None,
        csrf: bool = True,
        **kw: Any,
    ) -> TestResponse:
        """POSTs ``body`` as JSON with this browser's CSRF token for ``game``."""
        h = dict(headers or {})
        if csrf:
            h.setdefault("X-CSRF-Token", self.csrf(game))
        if body is not None:
            kw["json"] = body
        return self.client.post(path, headers=h, **kw)


def token_of(b: Browser, game: str) -> str:
    """The device token a browser holds for its seat at ``game`` (its ``hz_<game>`` cookie),
    which a script sends as its Bearer token."""
    cookie = b.client.get_cookie(f"hz_{game}")
    assert cookie is not None, "this browser holds no seat there"
    return str(cookie.value)


def judge_browser(app: Flask) -> Browser:
    """A browser holding the tournament judge's link (the judge of every game)."""
    b = Browser(app)
    assert b.client.get(f"/judge/join/{JUDGE_CODE}").status_code == 303
    return b


def new_game(app: Flask, **create: Any) -> tuple[Created, dict[str, Browser]]:
    """A game made by the service and a browser per player seat (hera, zeus) that claimed it
    with its link, the tournament judge's browser, and a "public" browser with no cookie."""
    created = referee_of(app).create_game(**create)
    browsers = {"public": Browser(app)}
    for seat, code in created.codes.items():
        b = Browser(app)
        r = b.join(created.game, code)
        assert r.status_code == 303, r.data
        browsers[seat] = b
    if app.config.get("JUDGE_CODE"):
        browsers["judge"] = judge_browser(app)
    return created, browsers


def raise_error(r: TestResponse) -> None:
    """Raises the service error that an error response stands for."""
    body = r.json
    assert isinstance(body, dict), r.data
    if r.status_code == 202:
        raise NeedsInput(body["message"], body["rule"], body["needs"], tuple(body["asked"]))
    cls = ERRORS.get(str(body.get("error")))
    assert cls is not None, f"unexpected error {r.status_code}: {body}"
    err = cls(body["message"]) if cls is Stale else cls(body["message"], body.get("rule"))
    raise err


class HttpReferee:
    """The service, with every seat's reading and acting done through the JSON API."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.ref = referee_of(app)
        self.browsers: dict[tuple[str, str], Browser] = {}
        self.responses = 0

    def __getattr__(self, name: str) -> Any:  # folded, store, ...: the real service
        return getattr(self.ref, name)

    def create_game(self, **kw: Any) -> Created:
        created = self.ref.create_game(**kw)
        for seat, code in created.codes.items():
            b = Browser(self.app)
            assert b.join(created.game, code).status_code == 303
            self.browsers[(created.game, seat)] = b
        self.browsers[(created.game, "judge")] = judge_browser(self.app)
        self.browsers[(created.game, "public")] = Browser(self.app)
        return created

    def browser(self, game: str, seat: str) -> Browser:
        return self.browsers[(game, seat)]

    def _receipt(self, r: TestResponse) -> Receipt:
        self.responses += 1
        if r.status_code != 200:
            raise_error(r)
        b = r.json
        assert isinstance(b, dict)
        assert r.headers["ETag"] == f'"{b["seq"]}"'
        view = {k: v for k, v in b["view"].items() if k != "csrf"}
        typed = SeatView.from_json(view, GAMES[view["game_module"]].board_type)
        return Receipt(
            seq=b["seq"], events=b["events"], view=typed, rules=b["rules"], notes=b["notes"]
        )

    def submit(
        self,
        game: str,
        seat: str,
        raw: Mapping[str, Any],
        *,
        expected_seq: int | None = None,
        key: str | None = None,
    ) -> Receipt:
        headers = {}
        if expected_seq is not None:
            headers["If-Match"] = f'"{expected_seq}"'
        if key is not None:
            headers["Idempotency-Key"] = key
        b = self.browser(game, seat)
        r = b.post(f"/api/v1/games/{game}/actions", {"action": raw}, game=game, headers=headers)
        return self._receipt(r)

    def answer(self, game: str, seat: str, value: Any, *, key: str | None = None) -> Receipt:
        headers = {"Idempotency-Key": key} if key else {}
        b = self.browser(game, seat)
        r = b.post(f"/api/v1/games/{game}/answer", {"value": value}, game=game, headers=headers)
        return self._receipt(r)

    def observe(self, game: str, seat: str, obs: Mapping[str, Any]) -> Record:
        body = {k: v for k, v in obs.items() if v is not None}
        r = self.browser(game, seat).post(f"/api/v1/games/{game}/observations", body, game=game)
        self.responses += 1
        if r.status_code != 201:
            raise_error(r)
        # the submitter's own observation comes back whole
        return self.ref.log(game, "judge")[int(r.json["seq"])]  # type: ignore[index]

    def view(self, game: str, seat: str) -> dict[str, Any]:
        r = self.browser(game, seat).get(f"/api/v1/games/{game}")
        self.responses += 1
        assert r.status_code == 200, r.data
        v = dict(r.json)  # type: ignore[arg-type]
        assert v["seat"] == seat
        v.pop("csrf")
        v.pop("head")
        return v

    def log(self, game: str, seat: str, upto: int | None = None) -> list[Record]:
        if seat == "judge" and upto is not None:
            return self.ref.log(game, seat, upto)
        r = self.browser(game, seat).get(f"/api/v1/games/{game}/log")
        self.responses += 1
        assert r.status_code == 200, r.data
        records = [Record.from_json(x) for x in r.json["records"]]  # type: ignore[index]
        return records if upto is None else [x for x in records if x.seq <= upto]

    def export(self, game: str, seat: str) -> str:
        r = self.browser(game, seat).get(f"/api/v1/games/{game}/export")
        self.responses += 1
        assert r.status_code == 200
        assert r.mimetype == "application/x-ndjson"
        text = r.get_data(as_text=True)
        header, _ = read_lines(text)
        assert header.seat == seat
        return text


def sse_events(text: str) -> list[dict[str, Any]]:
    """The data of each ``head`` event in a server-sent-event stream's text."""
    out = []
    for block in text.split("\n\n"):
        data = [ln[6:] for ln in block.split("\n") if ln.startswith("data: ")]
        if data:
            out.append(json.loads("\n".join(data)))
    return out
