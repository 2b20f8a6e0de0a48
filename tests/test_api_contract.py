"""The JSON API does what its OpenAPI document says: schemathesis sends every operation of
``/api/v1/openapi.json`` to the app in-process (WSGI, no network), as each seat, and runs all its
checks on every answer (no server error, every status, header, content type and body as
documented, valid data accepted and invalid data refused, authentication enforced where the
document asks for it). Bounded and seeded, so a run is repeatable and short.

Beside it, one focused test per promise the document makes that schemathesis alone would not pin
down: a Bearer client keeps its seat whatever cookies it holds, a wrong Bearer code is 401, the
judge's code works as Bearer, the judge-only endpoints refuse another seat before reading the
body, only a player calls the judge, a judge's resolution needs a note.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from flask import Flask
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import Status, events
from schemathesis.transport.wsgi import WSGI_TRANSPORT
from service_helpers import Table
from web_helpers import JUDGE_CODE, make_app, new_game, referee_of, token_of

from web.events import get_events

# tournament: the tournament judge's code (the organiser of events); stranger: a Bearer code
# that opens no seat; entrant: a player's personal code at the caller's event (issue 34)
SEATS = ("hera", "zeus", "judge", "tournament", "public", "stranger", "entrant")
WRONG_CODE = "not-a-join-code-of-this-server-0123"
EXAMPLES = 12  # per operation and seat, in each generating phase


@dataclass(frozen=True)
class Caller:
    """A seat's client: the app, its game (set up and in play) and the headers it sends."""

    app: Flask
    game: str
    headers: dict[str, str]
    parameters: dict[str, str]


def caller(seat: str) -> Caller:
    """A fresh app and game for ``seat`` (each run may change the game: undo, reissue...)."""
    app = make_app()
    table = Table(referee_of(app), random.Random(11))
    table.setup()
    ref = referee_of(app)
    tokens = {s: ref.claim(table.game, c).token for s, c in table.codes.items()}
    event, entrant = event_playing(app)
    code = {
        **tokens,
        "judge": JUDGE_CODE,
        "tournament": JUDGE_CODE,
        "stranger": WRONG_CODE,
        "entrant": entrant,
    }.get(seat)
    headers = {"Authorization": f"Bearer {code}"} if code else {}
    parameters = {
        "path.game": table.game,
        "path.event": event,
        "path.player": "p1",
        "path.number": "1",
        "path.table": "1",
    }
    if seat == "judge":  # a reissue of the judge's own link would lock this run out at once
        parameters["path.seat"] = "zeus"
    return Caller(app, table.game, headers, parameters)


def event_playing(app: Flask) -> tuple[str, str]:
    """An event (issue 34) of four players, round 1 started; its id and p1's personal code."""
    with app.app_context():
        ev = get_events()
        eid = ev.create(name="Contract Cup", game="hera-zeus", seed="0123456789abcdef")
        code = ""
        for i in range(1, 5):
            reg = ev.register(eid, f"Player {i}")
            code = code or reg.code
        ev.pair_next(eid)
        ev.start_round(eid)
    return eid, code


def config_for(c: Caller) -> SchemathesisConfig:
    """Every phase and check on (their defaults), seeded and deterministic, no example database,
    no deadline (the engine's default) and no health check (a loaded machine is slow); the
    path's game is the caller's game. Valid data may meet a refusal by the rules (422 with the
    rule) besides the default statuses: no document can say which action is legal now."""
    return SchemathesisConfig.from_dict(
        {
            "seed": 20261123,
            "suppress-health-check": ["all"],
            "parameters": c.parameters,
            "headers": c.headers,
            "generation": {
                "max-examples": EXAMPLES,
                "deterministic": True,
                "database": "none",
            },
            "checks": {
                "positive_data_acceptance": {
                    "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422", "429"],
                },
            },
        }
    )


def without_socket_settings(send: Any) -> Any:
    """The WSGI transport's ``send``, minus the socket settings (max_redirects, verify, cert,
    proxies) that schemathesis 4.32 hands it when it probes an operation without credentials
    (the ``ignored_auth`` check): werkzeug's test client does not take them."""

    def wrapped(case: Any, **kwargs: Any) -> Any:
        for name in ("max_redirects", "verify", "cert", "proxies"):
            kwargs.pop(name, None)
        return send(case, **kwargs)

    return wrapped


@dataclass
class Run:
    """What one schemathesis run found: failed checks, and per operation the statuses seen."""

    failures: list[str]
    statuses: dict[str, set[int]]


def run(c: Caller) -> Run:
    """Runs every phase (examples, coverage, fuzzing, stateful) of schemathesis over every
    operation as ``c``, with every check."""
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", c.app, config=config_for(c))
    out = Run([], {})
    for event in schemathesis.engine.from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished | events.FuzzScenarioFinished):
            rec = event.recorder
            for case_id, interaction in rec.interactions.items():
                node = rec.cases.get(case_id)
                if interaction.response is not None and node is not None:
                    label = f"{node.value.method.upper()} {node.value.path}"
                    out.statuses.setdefault(label, set()).add(interaction.response.status_code)
            for nodes in rec.checks.values():
                for check in nodes:
                    if check.status == Status.FAILURE and check.failure_info is not None:
                        f = check.failure_info.failure
                        out.failures.append(
                            f"{rec.label}: {f.title}: {f.message} "
                            f"(status {getattr(f, 'status_code', '-')})\n"
                            f"{check.failure_info.code_sample}"
                        )
        elif isinstance(event, events.NonFatalError):
            out.failures.append(f"error in {event.label}: {event.info.format()}")
        elif isinstance(event, events.FatalError):
            out.failures.append(f"schemathesis failed: {event.exception!r}")
    return out


def operations(app: Flask) -> set[str]:
    doc = app.test_client().get("/api/v1/openapi.json").json
    assert isinstance(doc, dict)
    return {f"{m.upper()} {p}" for p, ops in doc["paths"].items() for m in ops}


# what each seat must have been answered with success at least once (it proves the run reached
# past the seat and body checks, rather than meeting only refusals)
REACHED = {
    "hera": {"GET /games/{game}/log", "POST /games/{game}/actions", "POST /games/{game}/calls"},
    "zeus": {"GET /games/{game}", "GET /games/{game}/export", "POST /games/{game}/calls"},
    "judge": {"GET /tables", "POST /games/{game}/undo", "POST /games/{game}/ruling"},
    "tournament": {
        "GET /tables",
        "GET /games/{game}/export",
        "POST /games/{game}/undo",
        "GET /events/{event}/export",
        "POST /events/{event}/players",
    },
    "public": {
        "GET /games/{game}",
        "GET /games/{game}/stream",
        "GET /games/{game}/log",
        "GET /events/{event}",
    },
    "stranger": {"GET /session", "POST /games", "GET /events"},
    "entrant": {"GET /events/{event}", "GET /events/{event}/me"},
}


@pytest.mark.fuzz
@pytest.mark.parametrize("seat", SEATS)
def test_every_operation_answers_as_its_document_says(
    seat: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(WSGI_TRANSPORT, "send", without_socket_settings(WSGI_TRANSPORT.send))
    c = caller(seat)
    found = run(c)
    assert not found.failures, f"{len(found.failures)} failed checks as {seat}:\n\n" + (
        "\n\n".join(dict.fromkeys(found.failures))
    )
    # every operation was called (but the document's own address, which schemathesis reads)
    assert set(found.statuses) >= operations(c.app) - {"GET /openapi.json"}
    succeeded = {op for op, codes in found.statuses.items() if any(200 <= s < 300 for s in codes)}
    assert succeeded >= REACHED[seat], found.statuses
    if seat == "stranger":  # a Bearer code of no seat opens nothing of a game
        assert found.statuses["GET /games/{game}"] == {401}


# ---- the fixes, one by one ---------------------------------------------------------------


@pytest.fixture
def app() -> Flask:
    return make_app()


def document(app: Flask) -> dict[str, Any]:
    doc = app.test_client().get("/api/v1/openapi.json").json
    assert isinstance(doc, dict)
    return doc


def operation(doc: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    op = doc["paths"][path][method]
    assert isinstance(op, dict)
    return op


def schema_of(doc: dict[str, Any], name: str) -> dict[str, Any]:
    s = doc["components"]["schemas"][name]
    assert isinstance(s, dict)
    return s


def bearer(code: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {code}"}


def test_a_bearer_client_that_keeps_cookies_needs_no_csrf_token(app: Flask) -> None:
    created, b = new_game(app)
    g = created.game
    client = app.test_client()  # keeps cookies, like requests.Session
    hera = token_of(b["hera"], g)
    assert client.get(f"/api/v1/games/{g}", headers=bearer(hera)).status_code == 200
    assert client.get_cookie("hzid") is not None  # the GET gave it the browser-id cookie
    r = client.post(f"/api/v1/games/{g}/calls", json={"note": "x"}, headers=bearer(hera))
    assert r.status_code == 201, r.data


def test_a_bearer_request_is_decided_by_its_code_not_by_its_cookies(app: Flask) -> None:
    created, b = new_game(app)
    g = created.game
    r = b["judge"].get(f"/api/v1/games/{g}", headers=bearer(token_of(b["zeus"], g)))
    assert r.json is not None and r.json["seat"] == "zeus"


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_wrong_bearer_code_is_401_not_the_public(app: Flask, method: str) -> None:
    created, _ = new_game(app)
    g = created.game
    c = app.test_client()
    if method == "GET":
        r = c.get(f"/api/v1/games/{g}", headers=bearer(WRONG_CODE))
    else:
        r = c.post(f"/api/v1/games/{g}/calls", json={"note": "x"}, headers=bearer(WRONG_CODE))
    assert r.status_code == 401, r.data
    assert r.headers["WWW-Authenticate"].startswith("Bearer")
    assert r.json is not None and r.json["error"] == "Unauthorized"


def test_a_revoked_bearer_code_is_401(app: Flask) -> None:
    created, b = new_game(app)
    g = created.game
    old = token_of(b["hera"], g)
    assert b["judge"].post(f"/api/v1/games/{g}/seats/hera/reissue", None, game=g).status_code == 200
    r = app.test_client().get(f"/api/v1/games/{g}/log", headers=bearer(old))
    assert r.status_code == 401
    assert r.headers["WWW-Authenticate"].startswith("Bearer")


def test_a_revoked_cookie_still_reads_as_the_public(app: Flask) -> None:
    created, b = new_game(app)
    g = created.game
    assert b["judge"].post(f"/api/v1/games/{g}/seats/hera/reissue", None, game=g).status_code == 200
    r = b["hera"].get(f"/api/v1/games/{g}")
    assert r.status_code == 200 and r.json is not None and r.json["seat"] == "public"


def test_only_the_tournament_judges_code_opens_the_tables_as_bearer(app: Flask) -> None:
    created, b = new_game(app)
    other, _ = new_game(app)
    c = app.test_client()
    hera = token_of(b["hera"], created.game)
    assert c.get("/api/v1/tables", headers=bearer(hera)).status_code == 403
    assert c.get("/api/v1/tables", headers=bearer(created.codes["hera"])).status_code == 403
    r = c.get("/api/v1/tables", headers=bearer(JUDGE_CODE))
    assert r.json is not None
    assert {t["game"] for t in r.json["tables"]} == {created.game, other.game}


def test_only_a_player_calls_the_judge(app: Flask) -> None:
    created, b = new_game(app)
    g = created.game
    r = b["judge"].post(f"/api/v1/games/{g}/calls", {"note": "me?"}, game=g)
    assert r.status_code == 403, r.data
    op = operation(document(app), "post", "/games/{game}/calls")
    assert "Hera or Zeus" in op["description"] and "any seat" not in op["description"].lower()
    assert {"bearer": []} in op["security"] and {} not in op["security"]


@pytest.mark.parametrize("endpoint", ["undo", "amend", "resolve", "ruling"])
def test_a_judge_only_endpoint_refuses_another_seat_before_reading_the_body(
    app: Flask, endpoint: str
) -> None:
    created, b = new_game(app)
    g = created.game
    r = b["hera"].post(f"/api/v1/games/{g}/{endpoint}", {"nonsense": True}, game=g)
    assert r.status_code == 403, r.data
    r = b["judge"].post(f"/api/v1/games/{g}/{endpoint}", {"nonsense": True}, game=g)
    assert r.status_code == 422 and r.json is not None and r.json["error"] == "Invalid"


@pytest.mark.parametrize("endpoint", ["actions", "answer", "observations", "calls"])
def test_the_public_is_refused_before_its_body_is_read(app: Flask, endpoint: str) -> None:
    created, b = new_game(app)
    g = created.game
    r = b["public"].post(f"/api/v1/games/{g}/{endpoint}", {"nonsense": True}, game=g)
    assert r.status_code == 403, r.data
    assert r.json is not None and r.json["error"] == "Forbidden"


@pytest.mark.parametrize(
    "body", [{"event": 1}, {"event": 1, "note": ""}, {"event": 1, "note": " "}]
)
def test_a_resolution_needs_a_note_and_the_document_says_so(
    app: Flask, body: dict[str, Any]
) -> None:
    created, b = new_game(app)
    g = created.game
    r = b["judge"].post(f"/api/v1/games/{g}/resolve", body, game=g)
    assert r.status_code == 422 and r.json is not None
    assert r.json["error"] == "Invalid" and "note" in r.json["fields"]
    resolve = schema_of(document(app), "Resolve")
    assert set(resolve["required"]) == {"event", "note"}
    assert resolve["properties"]["note"]["minLength"] == 1
    assert "default" not in resolve["properties"]["note"]


def test_a_view_answers_304_to_its_etag_and_the_document_says_so(app: Flask) -> None:
    created, b = new_game(app)
    g = created.game
    etag = b["hera"].get(f"/api/v1/games/{g}").headers["ETag"]
    assert b["hera"].get(f"/api/v1/games/{g}", headers={"If-None-Match": etag}).status_code == 304
    op = operation(document(app), "get", "/games/{game}")
    assert "ETag" in op["responses"]["304"]["headers"]
    assert "If-None-Match" in {p["name"] for p in op["parameters"]}


def test_the_response_headers_are_documented_where_they_are_sent(app: Flask) -> None:
    doc = document(app)
    view = operation(doc, "get", "/games/{game}")["responses"]["200"]["headers"]
    assert {"ETag", "X-CSRF-Token"} <= set(view)
    actions = operation(doc, "post", "/games/{game}/actions")["responses"]
    assert {"ETag", "Idempotent-Replayed"} <= set(actions["200"]["headers"])
    assert "ETag" in actions["409"]["headers"]
    frames = operation(doc, "post", "/games/{game}/frames")["responses"]
    assert "Retry-After" in frames["429"]["headers"] and "Retry-After" in frames["503"]["headers"]
    assert "Location" in operation(doc, "post", "/games")["responses"]["201"]["headers"]


def test_an_idempotent_replay_carries_the_documented_header(app: Flask) -> None:
    created, b = new_game(app)
    g = created.game
    c = app.test_client()
    h = {**bearer(token_of(b["zeus"], g)), "Idempotency-Key": "call-1"}
    assert c.post(f"/api/v1/games/{g}/calls", json={"note": "x"}, headers=h).status_code == 201
    r = c.post(f"/api/v1/games/{g}/calls", json={"note": "x"}, headers=h)
    assert r.status_code == 201 and r.headers["Idempotent-Replayed"] == "true"
    r = c.post(
        f"/api/v1/games/{g}/calls", json={"note": "x"}, headers={**h, "Idempotency-Key": "a b"}
    )
    assert r.status_code == 400
    parameters = operation(document(app), "post", "/games/{game}/calls")["parameters"]
    key = next(p for p in parameters if p["name"] == "Idempotency-Key")
    assert not re.match(key["schema"]["pattern"], "a b") and re.match(
        key["schema"]["pattern"], "k1"
    )


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("actions", {"action": ""}, "action"),
        ("actions", {"action": "   "}, "action"),
        ("actions", {"action": "play\x01 Cyclops 2"}, "action"),
        ("answer", {"value": None}, "value"),
        ("calls", {"note": "bell\x07"}, "note"),
    ],
)
def test_what_the_document_refuses_the_server_refuses(
    app: Flask, path: str, body: dict[str, Any], field: str
) -> None:
    created, b = new_game(app)
    g = created.game
    r = b["hera"].post(f"/api/v1/games/{g}/{path}", body, game=g)
    assert r.status_code == 422, r.data
    assert r.json is not None and field in r.json["fields"]


def test_the_document_states_the_text_constraints_the_server_applies(app: Flask) -> None:
    doc = document(app)
    action = schema_of(doc, "ActionBody")["properties"]["action"]["anyOf"]
    text = next(s for s in action if s["type"] == "string")
    assert text["minLength"] == 1
    for bad in ("", "   ", "play\x01"):
        assert not re.match(text["pattern"], bad)
    assert re.match(text["pattern"], "play Cyclops 2")
    value = schema_of(doc, "Answer")["properties"]["value"]
    assert "null" not in {s["type"] for s in value["anyOf"]} and not value.get("nullable")
    name = schema_of(doc, "Players")["properties"]["hera"]
    assert not re.match(name["pattern"], "Ann\x00") and re.match(name["pattern"], "Ann")
    assert not re.match(schema_of(doc, "Call")["properties"]["note"]["pattern"], "\x1b[31m")


def test_profiles_and_switches_are_the_engines(app: Flask) -> None:
    from engine.herazeus.profiles import SWITCH_TYPES, Profile
    from referee.minotaur.game import PROFILES as MINOTAUR_PROFILES

    create = schema_of(document(app), "CreateGame")["properties"]
    assert create["profile"]["enum"] == [p.value for p in Profile] + list(MINOTAUR_PROFILES)
    assert create["game_module"]["enum"] == ["hera-zeus", "minotaur"]
    switches = create["switches"]
    assert switches["additionalProperties"] is False
    assert {n: s["enum"] for n, s in switches["properties"].items()} == {
        **{n: [m.value for m in t] for n, t in SWITCH_TYPES.items()},
        "scarab_backs": ["on", "off"],  # Minotaur Lords, M18
    }


@pytest.mark.parametrize("part", ["photo", "frame"])
def test_each_upload_has_its_own_required_part_and_image_types(app: Flask, part: str) -> None:
    op = operation(document(app), "post", f"/games/{{game}}/{part}s")
    multipart = op["requestBody"]["content"]["multipart/form-data"]
    assert multipart["schema"]["required"] == [part]
    assert set(multipart["schema"]["properties"]) == {part, "csrf"}
    assert multipart["encoding"][part]["contentType"] == "image/jpeg, image/png, image/webp"
    assert {"image/jpeg", "image/png", "image/webp"} <= set(op["requestBody"]["content"])


def test_the_event_stream_has_a_schema(app: Flask) -> None:
    op = operation(document(app), "get", "/games/{game}/stream")
    schema = op["responses"]["200"]["content"]["text/event-stream"]["schema"]
    assert schema["properties"]["event"]["enum"] == ["head"]
    assert {"event", "data"} <= set(schema["required"])


def test_security_schemes_and_who_may_call_each_operation(app: Flask) -> None:
    doc = document(app)
    assert set(doc["components"]["securitySchemes"]) == {
        "bearer",
        "seatCookie",
        "judgeCookie",
        "eventCookie",  # an event player's (issue 34)
    }
    assert doc["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert {} in operation(doc, "get", "/games/{game}")["security"]  # the public reads
    for path in ("undo", "amend", "resolve", "ruling", "actions", "answer", "observations"):
        assert {} not in operation(doc, "post", f"/games/{{game}}/{path}")["security"]
    assert operation(doc, "post", "/games")["security"] == []
    organiser = operation(doc, "post", "/events/{event}/rounds")["security"]
    assert organiser == [{"bearer": []}, {"judgeCookie": []}]  # the organiser alone (issue 34)
    assert {} not in operation(doc, "get", "/events/{event}/me")["security"]
    assert {} in operation(doc, "get", "/events/{event}")["security"]
    for method, ops in ((m, o) for p in doc["paths"].values() for m, o in p.items()):
        assert "security" in ops, method
        if {"bearer": []} in ops["security"]:
            assert "401" in ops["responses"], ops["operationId"]


def test_the_document_is_valid_openapi(app: Flask) -> None:
    doc = document(app)
    schemathesis.openapi.from_dict(doc).validate()  # the OpenAPI 3.0 meta-schema
    broken = {**doc, "paths": {"/x": {"get": {"responses": "none"}}}}
    with pytest.raises(Exception, match="none"):
        schemathesis.openapi.from_dict(broken).validate()
