"""How fast clients may ask (issue 33, item 2): request rates through Flask-Limiter, keyed by the
seat's device (its token, checked), the address as fallback; photos per seat; game creation per
address and for everyone together. Past a limit: 429 with Retry-After and a sentence naming the
limit, and nothing done. The tournament judge has no rate; the live streams are the front's.
"""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from flask import Flask
from test_availability import decodings
from test_web_camera import KIT, cards_photo, page_photo, upload
from web_helpers import Browser, make_app, new_game, referee_of, token_of

from web import serve
from web.cli import build_parser
from web.limits import rate

NINE = {"action": {"do": "deal", "by": "hera"}}


def assert_refused_for_rate(r: Any, *words: str) -> None:
    assert r.status_code == 429, r.data
    assert r.json["error"] == "TooManyRequests"
    assert r.json["rule"] is None
    assert int(r.headers["Retry-After"]) >= 1
    for w in words:
        assert w in r.json["message"], r.json["message"]


def test_a_seats_device_past_its_rate_gets_429_and_the_other_seat_does_not() -> None:
    app = make_app(RATE_SEAT="5 per minute")
    created, b = new_game(app)
    game = created.game
    for _ in range(5):
        assert b["hera"].get(f"/api/v1/games/{game}").status_code == 200
    r = b["hera"].get(f"/api/v1/games/{game}")
    assert_refused_for_rate(r, "one seat", "5 per minute")
    assert 1 <= int(r.headers["Retry-After"]) <= 60
    assert b["zeus"].get(f"/api/v1/games/{game}").status_code == 200  # his own window
    page = b["hera"].get(f"/g/{game}")  # a page gets the error page, not JSON
    assert page.status_code == 429 and "one seat" in page.get_data(as_text=True)


def test_an_action_refused_for_the_rate_changes_nothing() -> None:
    app = make_app(RATE_SEAT="2 per minute")
    created, b = new_game(app)
    game = created.game
    head = referee_of(app).head(game)
    hera = token_of(b["hera"], game)
    auth = {"Authorization": f"Bearer {hera}"}
    for _ in range(2):
        b["public"].client.get(f"/api/v1/games/{game}", headers=auth)
    r = b["public"].client.post(f"/api/v1/games/{game}/actions", json=NINE, headers=auth)
    assert_refused_for_rate(r, "one seat")
    assert referee_of(app).head(game) == head


def test_requests_without_a_seat_count_by_address_and_a_made_up_token_is_no_seat() -> None:
    app = make_app(RATE_ADDRESS="8 per minute", RATE_SEAT="100 per minute")
    created, b = new_game(app)  # joins from the test clients' address, 127.0.0.1
    game = created.game
    spectator = Browser(app)
    spectator.client.environ_base["REMOTE_ADDR"] = "10.9.0.1"
    for i in range(8):
        spectator.client.set_cookie(f"hz_{game}", f"made-up-token-number-{i:04d}-xxxxxxxx")
        assert spectator.get(f"/api/v1/games/{game}").status_code == 200
    spectator.client.set_cookie(f"hz_{game}", "another-made-up-token-0000-xxxxxxxxxx")
    assert_refused_for_rate(spectator.get(f"/api/v1/games/{game}"), "without a seat")
    neighbour = Browser(app)
    neighbour.client.environ_base["REMOTE_ADDR"] = "10.9.0.2"
    assert neighbour.get(f"/api/v1/games/{game}").status_code == 200
    assert b["hera"].get(f"/api/v1/games/{game}").status_code == 200  # a seat: its own rate


def test_the_tournament_judge_and_the_live_streams_have_no_rate() -> None:
    app = make_app(RATE_SEAT="2 per minute", RATE_ADDRESS="8 per minute")
    created, b = new_game(app)
    game = created.game
    for _ in range(12):  # more than either rate
        assert b["judge"].get(f"/api/v1/games/{game}").status_code == 200
    for _ in range(4):  # each answered with the stream (it ends after SSE_SECONDS)
        assert b["hera"].get(f"/api/v1/games/{game}/stream").status_code == 200
    assert b["hera"].get(f"/api/v1/games/{game}").status_code == 200


def test_photos_per_seat_are_counted_across_the_api_and_the_page_before_any_decoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:

    app = make_app(PHOTO_RATE="2 per minute")
    created, b = new_game(app, catalogue=KIT.catalogue_for_game(), kit=KIT.to_json())
    game = created.game
    photo = cards_photo([("hera", "Hydra")])
    assert upload(b["hera"], game, "photos", photo).status_code == 200
    assert page_photo(b["hera"], game, photo).status_code == 303
    decoded = decodings(monkeypatch)
    assert_refused_for_rate(upload(b["hera"], game, "photos", photo), "photos", "2 per minute")
    assert page_photo(b["hera"], game, photo).status_code == 429
    assert decoded == []  # refused before reading
    assert upload(b["zeus"], game, "photos", photo).status_code == 200  # his own photos


def test_a_creation_refused_for_another_reason_spends_no_creation() -> None:
    app = make_app(CREATE_BURST=2, CREATE_PER_MINUTE=1.0)
    b = Browser(app)
    token = b.csrf()
    for _ in range(3):  # refused by the schema: nothing made, nothing counted
        r = b.client.post("/api/v1/games", json={"bogus": 1}, headers={"X-CSRF-Token": token})
        assert r.status_code == 422, r.json
    body = {"players": {"hera": "A", "zeus": "B"}}
    for _ in range(2):
        r = b.client.post("/api/v1/games", json=body, headers={"X-CSRF-Token": token})
        assert r.status_code == 201, r.json
    r = b.client.post("/api/v1/games", json=body, headers={"X-CSRF-Token": token})
    assert_refused_for_rate(r, "1 a minute")


def test_an_app_without_rates_has_no_limiter_at_work() -> None:
    app: Flask = make_app()
    created, b = new_game(app)
    for _ in range(50):
        assert b["hera"].get(f"/api/v1/games/{created.game}").status_code == 200


def serve_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["serve", *argv])


def test_serve_sets_the_rates_and_names_a_flag_it_cannot_read() -> None:
    cfg = serve.limits_config(serve_args())
    assert cfg["RATE_SEAT"] == serve.SEAT_RATE
    assert cfg["RATE_ADDRESS"] == serve.ADDRESS_RATE
    assert cfg["PHOTO_RATE"] == serve.PHOTO_RATE
    cfg = serve.limits_config(serve_args("--seat-rate", "0", "--photo-rate", "3/minute"))
    assert cfg["RATE_SEAT"] is None and cfg["PHOTO_RATE"] == "3/minute"
    with pytest.raises(SystemExit, match="--address-rate 'lots'"):
        serve.limits_config(serve_args("--address-rate", "lots"))
    with pytest.raises(ValueError, match="'0 per second'"):
        rate("0 per second")


def test_players_at_an_event_behind_one_venue_address_each_have_their_own_rate() -> None:
    """A venue's phones share its router's address: each player's personal code (checked) is
    his own bucket, as a seat's device is; a made-up code counts as the address."""
    from referee.event.service import Events
    from web.events import get_events

    app = make_app(RATE_ADDRESS="4 per minute", RATE_SEAT="6 per minute")
    with app.app_context():
        ev: Events = get_events()
    eid = ev.create(name="Club night", game="hera-zeus")
    codes = [ev.register(eid, f"Player {i}").code for i in range(1, 4)]
    phones = []
    for code in codes:
        b = Browser(app)
        b.client.environ_base["REMOTE_ADDR"] = "10.9.0.7"  # the venue's one address
        phones.append((b, code))
    for _ in range(5):  # 15 requests from one address, 5 per player: within each one's rate
        for b, code in phones:
            r = b.get(f"/api/v1/events/{eid}/me", headers={"Authorization": f"Bearer {code}"})
            assert r.status_code == 200, r.data
    b, code = phones[0]
    b.get(f"/api/v1/events/{eid}/me", headers={"Authorization": f"Bearer {code}"})
    r = b.get(f"/api/v1/events/{eid}/me", headers={"Authorization": f"Bearer {code}"})
    assert r.status_code == 429  # his seventh: his own rate is spent, not the venue's
    onlooker = Browser(app)
    onlooker.client.environ_base["REMOTE_ADDR"] = "10.9.0.7"
    for _ in range(4):
        assert onlooker.get(f"/api/v1/events/{eid}").status_code == 200
    assert_refused_for_rate(onlooker.get(f"/api/v1/events/{eid}"), "without a seat")
