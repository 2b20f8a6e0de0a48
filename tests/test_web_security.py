"""Security of the web app: secrets stay out of URLs, logs and Referer headers; cookies are
HttpOnly and SameSite=Strict; every state-changing request needs the CSRF token; the headers
forbid framing, sniffing, inline scripts and referrers; bodies are bounded; a revoked link opens
nothing; the seat is decided on the server."""

from __future__ import annotations

import base64
import io
import logging
import re
import secrets

import pytest
from flask import Flask
from web_helpers import Browser, make_app, new_game, referee_of, take_seat

from referee import service
from referee.store import MemoryStore
from web.events import get_events
from web.middleware import loggable_path


@pytest.fixture
def app() -> Flask:
    return make_app()


def post_rules(app: Flask) -> list[str]:
    """Every state-changing route of the app (API and pages)."""
    out = []
    for rule in app.url_map.iter_rules():
        if rule.methods and ({"POST", "PUT", "PATCH", "DELETE"} & rule.methods):
            out.append(rule.rule)
    return sorted(out)


def fill(rule: str, game: str, event: str = "zeus") -> str:
    values = {"game": game, "event": event, "number": "1", "table": "1", "player": "p1"}
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values.get(m.group(1), "zeus"), rule)


def an_event(app: Flask) -> str:
    """An event of this app (issue 34), with a player: its routes reach their CSRF check."""
    with app.app_context():
        ev = get_events()
        eid = ev.create(name="Cup", game="hera-zeus")
        ev.register(eid, "Ann")
    return eid


# ---- the seats' secrets --------------------------------------------------------------------


def test_join_codes_carry_at_least_128_random_bits() -> None:
    app = make_app(service.Referee(MemoryStore()))  # the service's real tokens
    created = referee_of(app).create_game()
    token = referee_of(app).claim(created.game, created.codes["hera"]).token
    assert token is not None
    codes = [*created.codes.values(), token]  # the players' join codes, a device's token
    assert len(set(codes)) == 3
    for code in codes:
        raw = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
        assert len(raw) * 8 >= 128, code


def test_the_service_compares_codes_in_constant_time(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    created, _ = new_game(app)
    calls: list[tuple[object, object]] = []
    real = secrets.compare_digest  # the function referee.service calls (as _secrets)

    def spy(a: str, b: str) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(secrets, "compare_digest", spy)
    b = Browser(app)
    b.join(created.game, created.codes["hera"])
    assert calls, "seat_for_code did not use a constant-time comparison"
    assert all(created.codes["hera"] not in (a, b) for a, b in calls)  # hashes are compared


def test_codes_are_stored_only_as_hashes(app: Flask) -> None:
    created, _ = new_game(app)
    stored = referee_of(app).reader.secrets(created.game)
    for code in created.codes.values():
        assert code not in stored.values()


def test_the_join_response_drops_the_secret_and_sends_no_referrer(app: Flask) -> None:
    created = referee_of(app).create_game()
    r = Browser(app).join(created.game, created.codes["zeus"])
    assert created.codes["zeus"] not in r.headers["Location"]
    assert r.headers["Referrer-Policy"] == "no-referrer"
    assert r.headers["Cache-Control"] == "no-store"
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie


def test_the_cookie_is_secure_over_https() -> None:
    app = make_app()
    created = referee_of(app).create_game()
    c = app.test_client()
    path = f"/join/{created.game}/{created.codes['hera']}"
    r = take_seat(c, path, base_url="https://table.local")
    seat = next(h for h in r.headers.getlist("Set-Cookie") if h.startswith("hz_"))
    assert "Secure" in seat


def test_the_access_log_never_holds_a_join_code(
    app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    created = referee_of(app).create_game()
    with caplog.at_level(logging.INFO, logger="referee.access"):
        for code in created.codes.values():
            Browser(app).join(created.game, code)
        Browser(app).join(created.game, "A" * 22)
        Browser(app).client.get("/judge/join/some-judge-code-000000")
    lines = [r.getMessage() for r in caplog.records if r.name == "referee.access"]
    assert len(lines) == 6  # each seat's link: its page and the press of its button
    for line in lines:
        for code in (*created.codes.values(), "A" * 22, "some-judge-code-000000"):
            assert code not in line, line
    assert any(f"/join/{created.game}/…" in ln for ln in lines)


@pytest.mark.parametrize(
    ("path", "logged"),
    [
        ("/join/g1/SECRET", "/join/g1/…"),
        ("/join/g1/SECRET/extra", "/join/g1/…/extra"),
        ("/judge/join/SECRET", "/judge/join/…"),
        ("/e/cup/p/SECRET", "/e/cup/p/…"),  # an event player's personal link (issue 34)
        ("/g/g1", "/g/g1"),
        ("/api/v1/games/g1/actions", "/api/v1/games/g1/actions"),
    ],
)
def test_loggable_path_cuts_the_secret(path: str, logged: str) -> None:
    assert loggable_path(path) == logged


def test_a_server_error_is_logged_without_the_code(
    app: Flask, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = referee_of(app).create_game()

    def boom(game: str, code: str, token: str | None = None, ask: bool = False) -> str:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(referee_of(app), "claim", boom)
    monkeypatch.setattr(referee_of(app), "peek", boom)  # the link's page reads the seat
    with caplog.at_level(logging.INFO):
        r = Browser(app).client.get(f"/join/{created.game}/{created.codes['zeus']}")
    assert r.status_code in (404, 500)
    assert created.codes["zeus"] not in caplog.text
    assert created.codes["zeus"] not in r.get_data(as_text=True)


# ---- CSRF ----------------------------------------------------------------------------------


def test_every_state_changing_route_refuses_a_request_without_the_token(app: Flask) -> None:
    created, b = new_game(app)
    event = an_event(app)
    rules = post_rules(app)
    assert len(rules) >= 12, rules
    n = len(referee_of(app).log(created.game, "judge"))
    for rule in rules:
        path = fill(rule, created.game, event)
        for seat in ("hera", "zeus", "judge"):
            r = b[seat].client.post(path, json={"action": "end"})
            assert r.status_code == 403, (rule, seat, r.status_code)
            r = b[seat].client.post(path, data={"action": "end", "csrf": "0" * 32})
            assert r.status_code == 403, (rule, seat, r.status_code)
    assert len(referee_of(app).log(created.game, "judge")) == n


def test_a_token_of_another_browser_or_game_is_refused(app: Flask) -> None:
    a, ba = new_game(app)
    c, bc = new_game(app)
    path = f"/api/v1/games/{a.game}/calls"
    stolen = bc["hera"].csrf(a.game)  # another browser's token for this game
    r = ba["hera"].post(path, {"note": "x"}, headers={"X-CSRF-Token": stolen}, csrf=False)
    assert r.status_code == 403
    other_game = ba["hera"].csrf(c.game)
    r = ba["hera"].post(path, {"note": "x"}, headers={"X-CSRF-Token": other_game}, csrf=False)
    assert r.status_code == 403
    r = ba["hera"].post(path, {"note": "x"}, game=a.game)
    assert r.status_code == 201


def test_a_request_from_another_sites_page_is_refused(app: Flask) -> None:
    created, b = new_game(app)
    token = b["hera"].csrf(created.game)
    r = b["hera"].post(
        f"/api/v1/games/{created.game}/calls",
        {"note": "x"},
        headers={"X-CSRF-Token": token, "Origin": "https://evil.example"},
        csrf=False,
    )
    assert r.status_code == 403
    assert r.json is not None and r.json["error"] == "Csrf"


def test_a_bearer_client_without_cookies_needs_no_token(app: Flask) -> None:
    created = referee_of(app).create_game()
    token = referee_of(app).claim(created.game, created.codes["zeus"]).token
    c = app.test_client()
    r = c.post(
        f"/api/v1/games/{created.game}/calls",
        json={"note": "from a script"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 201, r.data
    r = c.post(
        f"/api/v1/games/{created.game}/calls",
        json={"note": "from a script"},
        headers={"Authorization": "Bearer wrong-code-0000000000"},
    )
    assert r.status_code == 401  # a code that opens no seat is refused, not read as the public
    assert r.headers["WWW-Authenticate"].startswith("Bearer")


# ---- headers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/", "/api/v1/session", "/api/v1/openapi.json", "/api/v1/games/none", "/nowhere"]
)
def test_every_response_carries_the_security_headers(app: Flask, path: str) -> None:
    r = app.test_client().get(path)
    csp = r.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp
    assert "script-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"] == "no-referrer"
    assert r.headers["X-Frame-Options"] == "DENY"


def test_pages_and_views_are_not_cached(app: Flask) -> None:
    created, b = new_game(app)
    r = b["hera"].get(f"/api/v1/games/{created.game}")
    assert r.headers["Cache-Control"] == "no-store"


def test_errors_are_json_under_the_api_and_html_elsewhere(app: Flask) -> None:
    c = app.test_client()
    r = c.get("/api/v1/nowhere")
    assert r.status_code == 404 and r.json is not None
    assert set(r.json) == {"error", "rule", "message"}
    r = c.get("/nowhere-at-all")
    assert r.status_code == 404 and r.mimetype == "text/html"
    r = c.delete("/api/v1/games")
    assert r.status_code == 405 and "POST" in r.headers["Allow"]


# ---- bounded bodies ------------------------------------------------------------------------


def test_a_json_body_over_the_limit_is_413(app: Flask) -> None:
    created, b = new_game(app)
    body = {"note": "x" * (70 * 1024)}
    r = b["hera"].post(f"/api/v1/games/{created.game}/calls", body, game=created.game)
    assert r.status_code == 413
    assert r.json is not None and r.json["error"] == "RequestEntityTooLarge"


def test_an_upload_over_the_limit_is_413() -> None:
    app = make_app(MAX_CONTENT_LENGTH=1024 * 1024)
    created, b = new_game(app)
    h = {"X-CSRF-Token": b["hera"].csrf(created.game)}
    data = {"photo": (io.BytesIO(b"\xff" * (2 * 1024 * 1024)), "p.jpg", "image/jpeg")}
    r = b["hera"].client.post(
        f"/api/v1/games/{created.game}/photos",
        headers=h,
        data=data,
        content_type="multipart/form-data",
    )
    assert r.status_code == 413


def test_a_deeply_nested_action_is_refused(app: Flask) -> None:
    created, b = new_game(app)
    deep: object = "x"
    for _ in range(30):
        deep = [deep]
    r = b["hera"].post(
        f"/api/v1/games/{created.game}/actions",
        {"action": {"do": "play", "card": deep}},
        game=created.game,
    )
    # the strict JSON reader refuses it before any schema runs
    assert r.status_code == 400 and r.json is not None and "nested" in r.json["message"]


# ---- revocation and server-side seats -------------------------------------------------------


def test_a_lost_phone_is_locked_out_by_a_reissue(app: Flask) -> None:
    created, b = new_game(app)
    g = created.game
    assert b["hera"].get(f"/api/v1/games/{g}").json["seat"] == "hera"  # type: ignore[index]
    r = b["judge"].post(f"/api/v1/games/{g}/seats/hera/reissue", None, game=g)
    assert r.status_code == 200
    assert b["hera"].get(f"/api/v1/games/{g}").json["seat"] == "public"  # type: ignore[index]
    r = b["hera"].post(f"/api/v1/games/{g}/calls", {"note": "x"}, game=g)
    assert r.status_code == 403


def test_the_old_phone_is_told_its_link_was_reissued_and_a_stranger_is_not(app: Flask) -> None:
    """Issue 13, item 5: instead of silently becoming the public table, the phone whose seat
    link the judge reissued says so, by whom and when; any other visitor sees no such note."""
    created, b = new_game(app)
    g = created.game
    assert "replaced" not in b["hera"].get(f"/g/{g}").get_data(as_text=True)
    b["judge"].post(f"/api/v1/games/{g}/seats/hera/reissue", None, game=g)
    page = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    assert "This phone held Hera&#39;s seat until the judge reissued Hera&#39;s link" in page
    assert "Ask the judge for the new link." in page
    stranger = Browser(app)
    stranger.client.set_cookie(f"hz_{g}", "A" * 22)
    assert "This phone held" not in stranger.get(f"/g/{g}").get_data(as_text=True)
    assert "This phone held" not in b["zeus"].get(f"/g/{g}").get_data(as_text=True)


def test_the_judge_sees_the_reissued_link_at_once_with_its_qr_code(app: Flask) -> None:
    """Issue 13, item 5: the judge's reissue form leads to the new link and its QR code."""
    created, b = new_game(app)
    g = created.game
    r = b["judge"].post(f"/g/{g}/judge/reissue", data={"seat": "zeus"}, game=g)
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/g/{g}/reissued")
    page = b["judge"].get(f"/g/{g}/reissued").get_data(as_text=True)
    assert "New link for Zeus" in page and "<svg" in page and f"/join/{g}/" in page
    assert b["judge"].get(f"/g/{g}/reissued").status_code == 404  # shown once


def test_a_forged_cookie_opens_nothing(app: Flask) -> None:
    created, _ = new_game(app)
    g = created.game
    for value in ("hera", "judge", "A" * 22, created.codes["hera"][:-1] + "x"):
        c = Browser(app)
        c.client.set_cookie(f"hz_{g}", value)
        assert c.get(f"/api/v1/games/{g}").json["seat"] == "public"  # type: ignore[index]
    c = Browser(app)
    c.client.set_cookie("hzjudge", "guess-the-judge-code-1")
    assert c.get(f"/api/v1/games/{g}").json["seat"] == "public"  # type: ignore[index]
    assert c.get("/api/v1/tables").status_code == 403


def test_a_code_of_one_game_opens_nothing_at_another(app: Flask) -> None:
    a = referee_of(app).create_game()
    c, _ = new_game(app)
    b = Browser(app)
    assert b.join(c.game, a.codes["hera"]).status_code == 404
    token = referee_of(app).claim(a.game, a.codes["hera"]).token
    assert token is not None and referee_of(app).seat_for_token(a.game, token) == "hera"
    b.client.set_cookie(f"hz_{c.game}", token)
    assert b.get(f"/api/v1/games/{c.game}").json["seat"] == "public"  # type: ignore[index]
