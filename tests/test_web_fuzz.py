"""Fuzzing the JSON API: hypothesis-generated bodies, headers and paths against every endpoint,
from every seat. A 5xx is a bug: every bad input gets a 4xx with a JSON error, and a refusal
changes nothing (the game's state is the same; the log grows at most by an irregularity for the
judge, D20)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import Table
from web_helpers import Browser, HttpReferee, make_app, referee_of

from engine.herazeus.state import Phase

pytestmark = pytest.mark.fuzz

SEATS = ("hera", "zeus", "judge", "public")
CARDS = ["Hydra", "Pegasus", "Pythia", "Zeus", "Hera", "Cyclops", "?", "Pandora", "x" * 50]
DOS = ["draw", "play", "challenge", "pegasus", "pythia", "sirens", "hades", "persephone"]
DOS += ["dionysus", "god", "remove_figure", "end_turn", "declare_stuck", "starter", "deal"]
DOS += ["redraw", "first_row", "fly", ""]

json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(CARDS)
)
json_any = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=25,
)
action_like = st.fixed_dictionaries(
    {"do": st.sampled_from(DOS)},
    optional={
        "card": st.sampled_from(CARDS) | json_any,
        "column": st.integers(-2, 6) | json_any,
        "position": st.integers(-1, 6),
        "player": st.sampled_from(["hera", "zeus", "judge", "x"]),
        "target": st.sampled_from(["hand", "field", "figure", "moon"]),
        "mode": st.sampled_from(["spy", "reveal", "peek"]),
        "cards": st.lists(st.sampled_from(CARDS), max_size=12),
        "pick": st.sampled_from(CARDS),
        "place": st.integers(-1, 12),
        "reveal": json_any,
        "by": st.sampled_from(["hera", "zeus", "public"]),
    },
)
action_text = st.sampled_from(
    ["draw", "end", "play Hydra 2", "challenge 1", "pegasus hand", "god 3", "sirens", "x y z"]
) | st.text(max_size=40)

ENDPOINT_BODIES: dict[str, st.SearchStrategy[Any]] = {
    "actions": st.fixed_dictionaries({"action": action_like | action_text | json_any}),
    "answer": st.fixed_dictionaries({"value": json_any}),
    "observations": st.fixed_dictionaries(
        {},
        optional={
            "player": st.sampled_from(["hera", "zeus", "x"]) | json_any,
            "zone": st.sampled_from(["hand", "field", "deck"]),
            "column": st.integers(-1, 5),
            "position": st.integers(-1, 6),
            "card": st.sampled_from(CARDS) | json_any,
            "source": st.text(max_size=25),
        },
    ),
    "calls": st.fixed_dictionaries({}, optional={"note": json_any}),
    "undo": st.fixed_dictionaries({"to": json_any | st.integers(-3, 400), "reason": json_any}),
    "amend": st.fixed_dictionaries(
        {"event": st.integers(-1, 400) | json_any, "action": action_like, "reason": st.text()}
    ),
    "resolve": st.fixed_dictionaries({"event": st.integers(-1, 400), "note": st.text()}),
    "ruling": st.fixed_dictionaries(
        {"action": action_like | action_text}, optional={"at": st.integers(-2, 400) | json_any}
    ),
    "seats/hera/reissue": st.just({}) | json_any,
}

headers = st.fixed_dictionaries(
    {},
    optional={
        "If-Match": st.sampled_from(['"1"', "*", 'W/"3"', "abc", '"99999999999999"'])
        | st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=20),
        "Idempotency-Key": st.text(
            alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=120
        ),
        "Content-Type": st.sampled_from(
            ["application/json", "text/plain", "application/x-www-form-urlencoded"]
        ),
        "Last-Event-ID": st.text(alphabet="0123456789x-", max_size=14),
    },
)

_GAME: dict[str, Any] = {}


def table() -> tuple[Flask, Table[HttpReferee], HttpReferee]:
    """One game in play, shared by the examples (a refusal leaves it as it was; an accepted
    action just moves it on)."""
    if not _GAME:
        app = make_app()
        http = HttpReferee(app)
        t = Table(http, random.Random(11))
        t.setup()
        for _ in range(6):
            t.step()
        _GAME.update(app=app, t=t, http=http)
    return _GAME["app"], _GAME["t"], _GAME["http"]


def snapshot(app: Flask, game: str) -> tuple[Any, list[str]]:
    ref = referee_of(app)
    return ref.folded(game).state, [r.kind for r in ref.log(game, "judge")]


def check_response(r: Any) -> None:
    assert r.status_code < 500, r.get_data(as_text=True)[:500]
    if r.status_code >= 400:
        body = r.json
        assert isinstance(body, dict), r.data[:200]
        assert body["error"] and body["message"], body
        assert "Traceback" not in body["message"]


def check_refusal_changed_nothing(
    before: tuple[Any, list[str]], after: tuple[Any, list[str]]
) -> None:
    state, kinds = before
    state2, kinds2 = after
    assert kinds2[: len(kinds)] == kinds
    assert all(k == "irregularity" for k in kinds2[len(kinds) :]), kinds2[len(kinds) :]
    if state.phase is not Phase.OVER:
        assert state2 == state


SLOW = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SLOW
@given(
    endpoint=st.sampled_from(sorted(ENDPOINT_BODIES)),
    seat=st.sampled_from(SEATS),
    data=st.data(),
    hdrs=headers,
    raw=st.booleans(),
)
def test_no_body_or_header_gets_a_5xx_and_a_refusal_changes_nothing(
    endpoint: str, seat: str, data: st.DataObject, hdrs: dict[str, str], raw: bool
) -> None:
    app, t, http = table()
    b = http.browser(t.game, seat)
    body = data.draw(ENDPOINT_BODIES[endpoint])
    h = {"X-CSRF-Token": b.csrf(t.game), **hdrs}
    before = snapshot(app, t.game)
    path = f"/api/v1/games/{t.game}/{endpoint}"
    if raw:  # the body as bytes that may not even be JSON
        text = json.dumps(body, allow_nan=True)
        cut = data.draw(st.integers(0, len(text)))
        r = b.client.post(path, data=text[:cut], headers=h)
    else:
        r = b.client.post(path, data=json.dumps(body, allow_nan=True), headers=h)
    check_response(r)
    if r.status_code >= 400 or r.status_code == 202:
        check_refusal_changed_nothing(before, snapshot(app, t.game))


@SLOW
@given(
    path=st.text(
        alphabet=st.characters(min_codepoint=33, max_codepoint=0x2FF, exclude_characters="?#"),
        max_size=40,
    ),
    prefix=st.sampled_from(["/api/v1/games/", "/api/v1/", "/join/", "/judge/join/", "/g/", "/"]),
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]),
)
def test_no_path_gets_a_5xx(path: str, prefix: str, method: str) -> None:
    app, t, _ = table()
    before = snapshot(app, t.game)
    c = Browser(app).client
    r = c.open(prefix + path, method=method, json={"note": "x"})
    assert r.status_code < 500, (prefix + path, r.data[:300])
    after = snapshot(app, t.game)
    assert after[1] == before[1]


@settings(max_examples=40, deadline=None)
@given(body=json_any, hdrs=headers)
def test_creating_a_game_never_fails_with_a_5xx(body: Any, hdrs: dict[str, str]) -> None:
    app = make_app()
    b = Browser(app)
    h = {"X-CSRF-Token": b.csrf(), **hdrs}
    r = b.client.post("/api/v1/games", data=json.dumps(body, allow_nan=True), headers=h)
    check_response(r)
    if r.status_code != 201:
        assert referee_of(app).games() == []
