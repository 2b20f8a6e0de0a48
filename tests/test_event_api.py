"""The events' JSON API (issue 34, web/event_api.py): who may do what (the organiser, a player
by his personal code, the public), what each sees (T13), and that every refusal writes nothing.

Events of Tiny Duel (tests/games/tiny), whose games end in six plays, so results come from the
referee itself (T8)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from event_helpers import SEED, play_out
from flask import Flask
from flask.testing import FlaskClient
from games.tiny.game import TINY
from web_helpers import JUDGE_CODE, make_app, referee_of

from referee.event.log import store_id
from referee.games import registered

ORG = {"Authorization": f"Bearer {JUDGE_CODE}"}


def bearer(code: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {code}"}


@pytest.fixture
def app() -> Iterator[Flask]:
    with registered(TINY):
        yield make_app()


def records(app: Flask, eid: str) -> int:
    return len(referee_of(app).store.records(store_id(eid)))


def create(c: FlaskClient, **kw: Any) -> str:
    body = {"name": "Tuesday Cup", "game": TINY.name, "seed": SEED, **kw}
    r = c.post("/api/v1/events", json=body, headers=ORG)
    assert r.status_code == 201, r.data
    assert r.json is not None
    eid = str(r.json["event"])
    assert r.headers["Location"] == f"/api/v1/events/{eid}"
    return eid


def register(c: FlaskClient, eid: str, name: str, headers: dict[str, str] = ORG) -> dict[str, Any]:
    r = c.post(f"/api/v1/events/{eid}/players", json={"name": name}, headers=headers)
    assert r.status_code == 201, r.data
    assert isinstance(r.json, dict)
    return r.json


def playing(app: Flask, players: int = 4, **kw: Any) -> tuple[str, dict[str, str]]:
    """An event with round 1 started; each player's personal code by id."""
    c = app.test_client()
    eid = create(c, **kw)
    codes = {}
    for i in range(1, players + 1):
        reg = register(c, eid, f"Player {i}")
        codes[reg["player"]] = reg["code"]
    assert c.post(f"/api/v1/events/{eid}/rounds", headers=ORG).status_code == 201
    assert c.post(f"/api/v1/events/{eid}/rounds/1/start", headers=ORG).status_code == 200
    return eid, codes


def me(c: FlaskClient, eid: str, code: str) -> dict[str, Any]:
    r = c.get(f"/api/v1/events/{eid}/me", headers=bearer(code))
    assert r.status_code == 200, r.data
    assert isinstance(r.json, dict)
    return r.json


# ---- T13: who sees what ------------------------------------------------------------------


def test_the_public_view_shows_pairings_standings_and_clocks_but_no_code(app: Flask) -> None:
    eid, codes = playing(app)
    c = app.test_client()
    r = c.get(f"/api/v1/events/{eid}")
    assert r.status_code == 200 and r.json is not None
    (rnd,) = r.json["pairings"]
    assert rnd["started_at"] and all(t["deadline"] for t in rnd["tables"])
    text = r.get_data(as_text=True)
    assert not any(code in text for code in codes.values())
    assert "seat_link" not in text and "penalt" not in text


def test_a_players_code_opens_his_own_view_with_his_seat_link(app: Flask) -> None:
    eid, codes = playing(app)
    c = app.test_client()
    mine = me(c, eid, codes["p1"])["me"]
    assert mine["player"] == "p1" and mine["table"] is not None
    link = mine["seat_link"]
    assert link is not None and link["game"].startswith(f"{eid}-r1t")


def test_a_players_view_never_shows_another_players_seat_link_or_penalty(app: Flask) -> None:
    eid, codes = playing(app)
    c = app.test_client()
    opp = me(c, eid, codes["p1"])["me"]["opponent"]
    r = c.post(
        f"/api/v1/events/{eid}/penalties",
        json={"player": opp, "infraction": "tardiness", "penalty": "warning", "reason": "slow"},
        headers=ORG,
    )
    assert r.status_code == 201, r.data
    their = me(c, eid, codes[opp])
    assert [p["penalty"] for p in their["me"]["penalties"]] == ["warning"]
    mine = me(c, eid, codes["p1"])
    assert mine["me"]["penalties"] == []
    text = c.get(f"/api/v1/events/{eid}/me", headers=bearer(codes["p1"])).get_data(as_text=True)
    assert their["me"]["seat_link"]["code"] not in text and "slow" not in text
    public = c.get(f"/api/v1/events/{eid}").get_data(as_text=True)
    assert "slow" not in public and "warning" not in public


def test_there_is_no_me_without_a_players_code(app: Flask) -> None:
    eid, _ = playing(app)
    c = app.test_client()
    assert c.get(f"/api/v1/events/{eid}/me").status_code == 403
    assert c.get(f"/api/v1/events/{eid}/me", headers=ORG).status_code == 403


def test_a_code_that_is_no_players_here_is_401(app: Flask) -> None:
    eid, _codes = playing(app)
    _other, other_codes = playing(app)
    c = app.test_client()
    assert c.get(f"/api/v1/events/{eid}/me", headers=bearer("x" * 30)).status_code == 401
    # a player's code of another event opens nothing here
    r = c.get(f"/api/v1/events/{eid}/me", headers=bearer(other_codes["p1"]))
    assert r.status_code == 401 and r.headers["WWW-Authenticate"].startswith("Bearer")


# ---- the organiser -----------------------------------------------------------------------


def test_only_the_organiser_creates_an_event(app: Flask) -> None:
    c = app.test_client()
    body = {"name": "x", "game": TINY.name}
    r = c.post("/api/v1/events", json=body, headers={"X-CSRF-Token": "nope"})
    assert r.status_code == 403
    assert c.get("/api/v1/events").json == {"events": []}


def test_a_bad_setting_is_refused_with_its_rule_and_creates_nothing(app: Flask) -> None:
    c = app.test_client()
    r = c.post("/api/v1/events", json={"name": "x", "game": TINY.name, "top_cut": 6}, headers=ORG)
    assert r.status_code == 422
    r = c.post(
        "/api/v1/events",
        json={"name": "x", "game": TINY.name, "format": "bo3", "options": {"colour": "red"}},
        headers=ORG,
    )
    assert r.status_code == 422 and r.json is not None and "options" in r.json["message"]
    assert c.get("/api/v1/events").json == {"events": []}


def test_a_player_may_not_pair_start_or_enter_results(app: Flask) -> None:
    eid, codes = playing(app)
    c = app.test_client()
    before = records(app, eid)
    p1 = bearer(codes["p1"])
    for path, body in [
        ("rounds", None),
        ("rounds/1/start", None),
        ("tables/1/result", {"winner": "p1"}),
        ("tables/1/extend", {"minutes": 5, "reason": "r"}),
        (
            "penalties",
            {"player": "p2", "infraction": "tardiness", "penalty": "warning", "reason": "r"},
        ),
    ]:
        r = c.post(f"/api/v1/events/{eid}/{path}", json=body, headers=p1)
        assert r.status_code == 403, (path, r.data)
    assert c.get(f"/api/v1/events/{eid}/export", headers=p1).status_code == 403
    assert records(app, eid) == before


def test_a_refused_step_names_its_rule_and_writes_nothing(app: Flask) -> None:
    eid, _ = playing(app)
    c = app.test_client()
    before = records(app, eid)
    r = c.post(f"/api/v1/events/{eid}/rounds", headers=ORG)  # round 1 is unfinished
    assert r.status_code == 422 and r.json is not None and r.json["rule"] in ("T4", "T8")
    r = c.post(f"/api/v1/events/{eid}/rounds/1/repair", json={"reason": "x"}, headers=ORG)
    assert r.status_code == 422 and r.json is not None and r.json["rule"] == "T4"
    r = c.post(f"/api/v1/events/{eid}/tables/1/time", headers=ORG)  # before the deadline
    assert r.status_code == 422 and r.json is not None and r.json["rule"] == "T6"
    assert records(app, eid) == before


def test_an_extension_moves_the_tables_deadline(app: Flask) -> None:
    eid, _ = playing(app)
    c = app.test_client()
    was = c.get(f"/api/v1/events/{eid}").json["pairings"][0]["tables"][0]["deadline"]  # type: ignore[index]
    r = c.post(
        f"/api/v1/events/{eid}/tables/1/extend",
        json={"minutes": 5, "reason": "a judge call"},
        headers=ORG,
    )
    assert r.status_code == 200 and r.json is not None
    t = r.json["pairings"][0]["tables"][0]
    assert t["deadline"] > was and t["extensions"] == [{"minutes": 5, "reason": "a judge call"}]


# ---- results (T8) ------------------------------------------------------------------------


def test_a_result_the_referee_reported_counts_once_both_players_confirm_it(app: Flask) -> None:
    eid, codes = playing(app, 2)
    c = app.test_client()
    link = me(c, eid, codes["p1"])["me"]["seat_link"]
    play_out(referee_of(app), link["game"], link["seat"])
    (t,) = c.get(f"/api/v1/events/{eid}").json["pairings"][0]["tables"]  # type: ignore[index]
    (res,) = t["results"]
    assert res["winner"] == "p1" and not res["final"]
    for p in ("p1", "p2"):
        r = c.post(f"/api/v1/events/{eid}/tables/1/confirm", headers=bearer(codes[p]))
        assert r.status_code == 200, r.data
    (t,) = c.get(f"/api/v1/events/{eid}").json["pairings"][0]["tables"]  # type: ignore[index]
    assert t["results"][0]["final"] and t["match"] is not None


def test_only_a_player_of_the_table_confirms_or_disputes(app: Flask) -> None:
    eid, codes = playing(app, 4)
    c = app.test_client()
    mine = me(c, eid, codes["p1"])["me"]
    other = 2 if mine["table"] == 1 else 1
    before = records(app, eid)
    r = c.post(
        f"/api/v1/events/{eid}/tables/{other}/dispute",
        json={"note": "no"},
        headers=bearer(codes["p1"]),
    )
    assert r.status_code == 403
    r = c.post(f"/api/v1/events/{eid}/tables/{other}/confirm", headers=ORG)
    assert r.status_code == 403
    assert records(app, eid) == before


def test_a_dispute_note_is_for_the_judge_not_the_public(app: Flask) -> None:
    eid, codes = playing(app, 2)
    c = app.test_client()
    link = me(c, eid, codes["p1"])["me"]["seat_link"]
    play_out(referee_of(app), link["game"], link["seat"])
    note = "he played a card twice"
    r = c.post(
        f"/api/v1/events/{eid}/tables/1/dispute", json={"note": note}, headers=bearer(codes["p2"])
    )
    assert r.status_code == 200, r.data
    assert note not in c.get(f"/api/v1/events/{eid}").get_data(as_text=True)
    r = c.post(
        f"/api/v1/events/{eid}/tables/1/correct",
        json={"number": 1, "winner": "p2", "reason": "the judge watched the replay"},
        headers=ORG,
    )
    assert r.status_code == 200 and r.json is not None
    (t,) = r.json["pairings"][0]["tables"]
    assert t["results"][0]["winner"] == "p2" and t["results"][0]["final"]


def test_a_slip_result_is_final_and_standings_follow(app: Flask) -> None:
    eid, _ = playing(app, 2)
    c = app.test_client()
    r = c.post(f"/api/v1/events/{eid}/tables/1/result", json={"winner": "p2"}, headers=ORG)
    assert r.status_code == 200, r.data
    top = r.json["standings"][0]  # type: ignore[index]
    assert top["player"] == "p2" and top["points"] == 3 and top["omw"].endswith("%")


# ---- players -----------------------------------------------------------------------------


def test_self_registration_only_where_the_event_allows_it(app: Flask) -> None:
    c = app.test_client()
    closed = create(c)
    r = c.post(
        f"/api/v1/events/{closed}/players", json={"name": "Ann"}, headers={"X-CSRF-Token": "x"}
    )
    assert r.status_code in (403, 422)
    before = records(app, closed)
    open_ = create(c, self_register=True)
    session = app.test_client()
    token = session.get(f"/api/v1/events/{open_}").headers["X-CSRF-Token"]
    r = session.post(
        f"/api/v1/events/{open_}/players", json={"name": "Ann"}, headers={"X-CSRF-Token": token}
    )
    assert r.status_code == 201, r.data
    assert r.json is not None and r.json["link"] == f"/e/{open_}/p/{r.json['code']}"
    assert me(c, open_, r.json["code"])["me"]["name"] == "Ann"
    assert records(app, closed) == before


def test_a_player_drops_himself_but_not_another(app: Flask) -> None:
    c = app.test_client()
    eid = create(c)
    a = register(c, eid, "Ann")
    b = register(c, eid, "Bob")
    r = c.post(f"/api/v1/events/{eid}/players/{b['player']}/drop", headers=bearer(a["code"]))
    assert r.status_code == 403
    r = c.post(f"/api/v1/events/{eid}/players/{a['player']}/drop", headers=bearer(a["code"]))
    assert r.status_code == 200, r.data
    rows = {p["player"]: p for p in r.json["players"]}  # type: ignore[index]
    assert rows[a["player"]]["dropped_after_round"] == 0
    assert rows[b["player"]]["dropped_after_round"] is None


def test_a_cookie_post_needs_the_events_csrf_token(app: Flask) -> None:
    c = app.test_client()
    eid = create(c)
    a = register(c, eid, "Ann")
    c.set_cookie(f"hze_{eid}", a["code"])
    r = c.post(f"/api/v1/events/{eid}/players/{a['player']}/checkin")
    assert r.status_code == 403 and r.json is not None and r.json["error"] == "Csrf"
    token = c.get(f"/api/v1/events/{eid}").headers["X-CSRF-Token"]
    r = c.post(
        f"/api/v1/events/{eid}/players/{a['player']}/checkin", headers={"X-CSRF-Token": token}
    )
    assert r.status_code == 200, r.data


def test_the_export_is_the_events_file(app: Flask) -> None:
    eid, _ = playing(app, 2)
    c = app.test_client()
    r = c.get(f"/api/v1/events/{eid}/export", headers=ORG)
    first = r.get_data(as_text=True).splitlines()[0]
    assert r.status_code == 200 and '"format": "hz-event/1"' in first


def test_an_unknown_event_is_404(app: Flask) -> None:
    c = app.test_client()
    assert c.get("/api/v1/events/nope").status_code == 404
    assert c.post("/api/v1/events/nope/rounds", headers=ORG).status_code == 404


def test_the_document_states_every_event_route(app: Flask) -> None:
    doc = app.test_client().get("/api/v1/openapi.json").json
    assert doc is not None
    assert {"/events", "/events/{event}", "/events/{event}/me", "/events/{event}/export"} <= set(
        doc["paths"]
    )
    assert (
        "PublicEvent" in doc["components"]["schemas"]
        and "PlayerEvent" in doc["components"]["schemas"]
    )


def test_a_new_personal_code_shuts_the_old_one_out(app: Flask) -> None:
    eid, codes = playing(app, 2)
    c = app.test_client()
    assert (
        c.post(f"/api/v1/events/{eid}/players/p1/code", headers=bearer(codes["p1"])).status_code
        == 403
    )
    r = c.post(f"/api/v1/events/{eid}/players/p1/code", headers=ORG)
    assert r.status_code == 200 and r.json is not None
    assert c.get(f"/api/v1/events/{eid}/me", headers=bearer(codes["p1"])).status_code == 401
    assert me(c, eid, r.json["code"])["me"]["player"] == "p1"
