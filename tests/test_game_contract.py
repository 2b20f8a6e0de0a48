"""The contract every registered game keeps (issue 32, item 3), run over every game the
referee has registered, as OpenSpiel runs its checks over every registered game: Hera & Zeus,
Minotaur Lords and Tiny Duel, a third game registered only in the tests (tests/games/tiny/).

This module names no game: each gives what the checks need through its :class:`Contestant`
(``contract_games.py``): a table that plays random steps from the players' own seats, a
legal action's JSON, twin tables and a ruling file. The checks:

- the service: create, seats and their codes, submit from a seat, a bad input refused and
  nothing changed, the judge's undo giving the earlier position back, every seat's view;
- the API: its OpenAPI document lists the game's own keys of a seat's view and the API's view
  carries them; a bounded schemathesis run over a seat's view and actions of the game;
- the pages: each player's, the judge's and the public's render (200);
- export, verify and import: every seat's export verifies; the judge's imports elsewhere and
  exports the same again;
- privacy (twin tables): tables that differ only in a card hidden from the player to move give
  him and the public the same answers (view, log, export, pages; every legal action, the
  guardian's warnings on it and the view after it), through the service and through the web
  app;
- ``referee rule`` on a ruling file of the game, and the ruling tool on a position in play.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from contract_games import CONTESTANTS, Contestant, DriverType, TwinCase
from privacy_property import Driver, HttpDriver, ServiceDriver, Told, blank_text, recorded
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import Status, events
from schemathesis.transport.wsgi import WSGI_TRANSPORT
from test_api_contract import without_socket_settings
from web_helpers import JUDGE_CODE, Browser, judge_browser, make_app, referee_of

from referee.errors import Refused
from referee.games import GAMES
from referee.judging import changes_anything
from referee.log import read_lines, verify
from referee.models import SeatView
from referee.service import open_referee
from referee.views import seats_of
from web.cli import main
from web.games import PARTS
from web.games.installed import PAGE_MODULES

STEPS = 12  # random steps per table
SERVICE_KEYS = set(SeatView.__annotations__)  # the service's part of every view
FUZZ_EXAMPLES = 4  # schemathesis cases per operation and phase


@pytest.fixture(params=CONTESTANTS, ids=lambda c: c.name)
def game(request: pytest.FixtureRequest) -> Iterator[Contestant]:
    """Each game, registered for the test (the tests' own game only while it runs)."""
    c: Contestant = request.param
    gap = c.gaps.get(request.node.originalname)
    if gap is not None:
        request.applymarker(pytest.mark.xfail(reason=gap, strict=True))
    with c.registered():
        yield c


def played(c: Contestant, d: Driver, seed: int, steps: int = STEPS) -> str:
    rng = random.Random(seed)
    t = c.table(d, rng)
    for _ in range(steps):
        if not t.step():
            break
    return t.game


def own_part(view: Mapping[str, Any]) -> dict[str, Any]:
    """The game's own keys of a view, with its phase, turn and outcome."""
    keep = {"phase", "turn", "winner", "reason", "profile", "switches", "legal"}
    return {k: v for k, v in view.items() if k not in SERVICE_KEYS or k in keep}


# ---- the registry ---------------------------------------------------------------------------


def test_every_registered_game_runs_this_suite(game: Contestant) -> None:
    assert game.name in GAMES
    assert set(GAMES) <= {c.name for c in CONTESTANTS}, "a registered game without a contestant"
    assert game.name in {pm.name for pm in PAGE_MODULES}, "a game without a page module"


def test_the_tests_game_is_registered_only_while_its_tests_run() -> None:
    registered = set(GAMES)
    for c in CONTESTANTS:
        with c.registered():
            assert c.name in GAMES
    assert set(GAMES) == registered
    assert {pm.name for pm in PAGE_MODULES} == registered


# ---- the service ----------------------------------------------------------------------------


def test_the_service_runs_a_game_from_its_seats(game: Contestant) -> None:
    d = ServiceDriver.new(1)
    t = game.table(d, random.Random(1))
    g = t.game
    ref = d.ref
    for _ in range(STEPS):
        for seat in seats_of(GAMES[game.name]):
            v = d.view(g, seat)
            assert not ("asked" in v and "waiting" in v), v
            if "asked" in v:  # a question of the game's, as a seat concerned reads it
                q = v["asked"]
                assert q["needs"] and q["rule"] and q["reason"], q
                assert set(q["asked"]) <= set(GAMES[game.name].players) | {"judge"}, q
                assert seat in (*q["asked"], q["by"], "judge"), (seat, q)
        if not t.step():
            break
    assert {ref.seat_for_code(g, code) for code in d.codes[g].values()} == set(
        GAMES[game.name].players
    )
    for seat in seats_of(GAMES[game.name]):
        v = d.view(g, seat)
        assert v["game_module"] == game.name and v["seat"] == seat
        assert v["seq"] == ref.folded(g).last_seq == v["head"]["seq"]
        for text in v.get("legal", []):
            assert isinstance(game.action_of(text), dict)
    # a bad input is refused, naming it, and changes nothing
    before = ref.head(g)
    player = GAMES[game.name].players[0]
    with pytest.raises(Refused):
        d.submit(g, player, {"do": "no-such-action"})
    assert ref.head(g) == before


def test_the_judges_undo_gives_the_earlier_position_back(game: Contestant) -> None:
    d = ServiceDriver.new(2)
    rng = random.Random(2)
    t = game.table(d, rng)
    seen: dict[int, dict[str, Any]] = {}
    for _ in range(STEPS):
        f = d.ref.folded(t.game)
        if f.question is None:
            seen[f.last_seq] = own_part(d.view(t.game, "judge"))
        if not t.step():
            break
    f = d.ref.folded(t.game)
    back = [s for s in sorted(seen) if s < f.last_seq and changes_anything(f, s)]
    assert back, "the game moved on from no position the judge could go back to"
    to = back[len(back) // 2]
    d.undo(t.game, "judge", to, "contract: back to an earlier position")
    assert own_part(d.view(t.game, "judge")) == seen[to]


def test_the_ruling_tool_rules_on_a_position_in_play(game: Contestant) -> None:
    d = ServiceDriver.new(3)
    rng = random.Random(3)
    t = game.table(d, rng)
    for _ in range(40):
        f = d.ref.folded(t.game)
        legal = d.view(t.game, "judge").get("legal")
        if f.module.in_play(f.state) and f.question is None and legal:
            ruling = d.ref.ruling(t.game, "judge", game.action_of(legal[0]))
            assert isinstance(ruling.legal, bool) and isinstance(ruling.ruling, str)
            assert ruling.rules, "a ruling cites its rules"
            assert isinstance(ruling.result, GAMES[game.name].result_type)
            return
        if not t.step():
            break
    pytest.fail("no position in play with a legal action")


# ---- the API --------------------------------------------------------------------------------


def test_the_openapi_document_and_the_view_carry_the_games_keys(game: Contestant) -> None:
    app = make_app()
    board = GAMES[game.name].board_type
    doc = app.test_client().get("/api/v1/openapi.json").json
    assert isinstance(doc, dict)
    schemas = doc["components"]["schemas"]
    assert {"$ref": f"#/components/schemas/{board.__name__}View"} in schemas["View"]["anyOf"]
    listed = set(schemas[f"{board.__name__}View"]["properties"])
    own = set(board.__struct_fields__)
    assert own <= listed, own - listed
    g = played(game, HttpDriver(referee_of(app)), 4, steps=4)
    b = Browser(app)
    r = b.client.get(f"/api/v1/games/{g}", headers={"Authorization": f"Bearer {JUDGE_CODE}"})
    assert r.status_code == 200 and isinstance(r.json, dict)
    service = referee_of(app).view(g, "judge").to_json()
    assert {k for k in own if k in service} <= set(r.json), "the API dropped the game's keys"
    assert r.json["game_module"] == game.name


def test_the_api_creates_a_game_naming_its_players(game: Contestant) -> None:
    app = make_app()
    players = GAMES[game.name].players
    names = {p: f"Player {i}" for i, p in enumerate(players)}
    b = Browser(app)
    r = b.post("/api/v1/games", {"game_module": game.name, "players": names, **game.create})
    assert r.status_code == 201, r.data
    assert isinstance(r.json, dict) and set(r.json["codes"]) == set(players)
    assert referee_of(app).view(r.json["game"], "public").players == names


def fuzz_config(game_id: str, code: str) -> SchemathesisConfig:
    return SchemathesisConfig.from_dict(
        {
            "seed": 20261127,
            "suppress-health-check": ["all"],
            "parameters": {"path.game": game_id},
            "headers": {"Authorization": f"Bearer {code}"},
            "generation": {
                "max-examples": FUZZ_EXAMPLES,
                "deterministic": True,
                "database": "none",
            },
            "phases": {"stateful": {"enabled": False}},
            "checks": {
                "positive_data_acceptance": {
                    "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422", "429"],
                },
            },
        }
    )


@pytest.mark.fuzz
def test_schemathesis_over_a_seats_view_and_actions(
    game: Contestant, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(WSGI_TRANSPORT, "send", without_socket_settings(WSGI_TRANSPORT.send))
    app = make_app()
    d = ServiceDriver(referee_of(app))  # its seats unclaimed: the run claims one
    g = played(game, d, 5, steps=4)
    player = GAMES[game.name].players[0]
    token = referee_of(app).claim(g, d.codes[g][player]).token
    assert token is not None
    schema = schemathesis.openapi.from_wsgi(
        "/api/v1/openapi.json", app, config=fuzz_config(g, token)
    ).include(path_regex=r"^/games/\{game\}(/actions)?$")
    failures: list[str] = []
    statuses: dict[str, set[int]] = {}
    for event in schemathesis.engine.from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            rec = event.recorder
            for case_id, interaction in rec.interactions.items():
                node = rec.cases.get(case_id)
                if interaction.response is not None and node is not None:
                    label = f"{node.value.method.upper()} {node.value.path}"
                    statuses.setdefault(label, set()).add(interaction.response.status_code)
            for nodes in rec.checks.values():
                for check in nodes:
                    if check.status == Status.FAILURE and check.failure_info is not None:
                        f = check.failure_info.failure
                        failures.append(f"{rec.label}: {f.title}: {f.message}")
        elif isinstance(event, events.NonFatalError | events.FatalError):
            failures.append(f"error: {event!r}")
    assert not failures, "\n\n".join(dict.fromkeys(failures))
    assert 200 in statuses.get("GET /games/{game}", set()), statuses
    assert "POST /games/{game}/actions" in statuses, statuses


# ---- the pages ------------------------------------------------------------------------------


PAGES = ("", "/replay", "/report.html", "/export.jsonl")


def test_every_seats_pages_render(game: Contestant) -> None:
    app = make_app()
    d = HttpDriver(referee_of(app))
    g = played(game, d, 6)
    pm = next(pm for pm in PAGE_MODULES if pm.name == game.name)
    assert set(pm.templates) >= set(PARTS)
    for seat in (*GAMES[game.name].players, "judge", "public"):
        b = d.browser(g, seat)
        for path in PAGES:
            r = b.get(f"/g/{g}{path}")
            assert r.status_code == 200, (seat, path, r.status_code, r.data[:300])
    r = judge_browser(app).get("/judge")
    assert r.status_code == 200 and g in r.get_data(as_text=True)
    assert Browser(app).get("/").status_code == 200  # the home page offers every game


# ---- export, verify, import -----------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_exports_verify_and_the_judges_imports_elsewhere(
    game: Contestant, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the command line, as a judge does: ``export`` of every seat, ``verify`` against
    the score sheet's head, ``import`` of the judge's into another database."""
    db = tmp_path / "games.sqlite3"
    ref = open_referee(db)
    try:
        d = ServiceDriver(ref)
        g = played(game, d, 7)
        h = ref.head(g)
        view = own_part(ref.view(g, "judge").to_json())
    finally:
        ref.store.close()
    head = f"{h['seq']}:{h['hash']}"
    for seat in seats_of(GAMES[game.name]):
        rc, text, err = run(capsys, "export", "--db", str(db), "--seat", seat, g)
        assert rc == 0 and err == "", err
        header, records = read_lines(text)
        assert header.seat == seat
        verify(header, records, head=head)  # raises when it does not verify
        path = tmp_path / f"{seat}.jsonl"
        path.write_text(text, "utf-8")
        redacted = ["--redacted"] if seat != "judge" else []
        rc, _, err = run(capsys, "verify", *redacted, "--head", head, str(path))
        assert rc == 0 and err == "", err
    judge = tmp_path / "judge.jsonl"
    other = tmp_path / "other.sqlite3"
    key = read_lines(judge.read_text("utf-8"))[0].fingerprint
    rc, out, err = run(
        capsys, "import", "--db", str(other), "--trust-key", key, "--head", head, str(judge)
    )
    assert rc == 0 and out.startswith(f"imported game {g} "), err
    rc, out, err = run(capsys, "export", "--db", str(other), g)
    assert rc == 0 and out == judge.read_text("utf-8"), err
    rc, replayed, err = run(capsys, "replay", "--json", "--key", key, str(judge))
    assert rc == 0 and err == "", err
    rc, out, err = run(capsys, "replay", "--key", key, str(judge))
    assert rc == 0 and out.startswith(f"Game {g}: "), err
    ref = open_referee(other)
    try:
        assert own_part(ref.view(g, "judge").to_json()) == view
        position = GAMES[game.name].position_json(ref.folded(g).state)
        assert json.loads(replayed) == json.loads(json.dumps(position))
    finally:
        ref.store.close()


# ---- privacy: twin tables -------------------------------------------------------------------


def compare_twins(case: TwinCase, action_of: Any) -> int:
    """Everything ``case.seat`` and the public are told is the same at every twin; returns the
    number of replies compared."""
    twins, g, seat = case.twins, case.game, case.seat
    lead = twins[0]
    n = 0

    def same(what: str, call: Any) -> Told:
        nonlocal n
        got = [t.told(partial(call, t)) for t in twins]
        assert len({x.text for x in got}) == 1, f"{what}: the replies differ:\n" + "\n".join(
            x.text for x in got
        )
        n += 1
        return got[0]

    def back_to(seq: int) -> None:
        for t in twins:
            f = t.ref.folded(g)
            if f.last_seq != seq and changes_anything(f, seq):
                t.undo(g, "judge", seq, "contract: back to the position under test")

    for reader in (seat, "public"):
        same(f"{reader}'s view", lambda t, r=reader: t.view(g, r))
        same(f"{reader}'s log", lambda t, r=reader: t.log(g, r))
        same(f"{reader}'s export", lambda t, r=reader: t.export(g, r))
        for path in lead.pages(g, reader):
            if not path.endswith("/camera"):  # a page of one game's own blueprint
                texts = {blank_text(t.page(g, reader, path)) for t in twins}
                assert len(texts) == 1, f"{reader}'s page {path} differs between the twins"
                n += 1
    start = lead.ref.folded(g).last_seq
    legal = lead.view(g, seat).get("legal", [])
    assert legal, "the player to move has no legal action"
    for text in legal:
        raw = action_of(text)
        # the guardian's warnings come from the seat's projection alone (issue 37)
        same(f"warnings for {text}", lambda t, raw=raw: t.guard(g, seat, raw))
        if case.touches(raw):  # it may turn the card up: judged alike, what shows may differ
            got = [t.told(partial(t.submit, g, seat, raw)) for t in twins]
            assert len({recorded(x) for x in got}) == 1, f"{text}: judged differently: {got}"
        else:
            same(text, lambda t, raw=raw: t.submit(g, seat, raw))
            same(f"view after {text}", lambda t: t.view(g, seat))
        back_to(start)
    return n


@pytest.mark.parametrize("driver", [ServiceDriver, HttpDriver], ids=["service", "http"])
def test_no_answer_depends_on_a_card_hidden_from_the_player(
    game: Contestant, driver: DriverType
) -> None:
    compared = 0
    for seed in range(2):
        case = game.twins(driver, seed)
        if case is not None:
            compared += compare_twins(case, game.action_of)
    assert compared >= 8, f"only {compared} replies compared"


# ---- referee rule ---------------------------------------------------------------------------


def test_referee_rule_rules_on_a_file_of_the_game(
    game: Contestant, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ruling.json"
    path.write_text(json.dumps(game.ruling_file()), "utf-8")
    rc, out, err = run(capsys, "rule", "--json", str(path))
    assert rc == 0 and err == "", err
    result = json.loads(out)
    assert isinstance(result["legal"], bool) and result["rules"] and result["ruling"]
    rc, out, err = run(capsys, "rule", str(path))
    assert rc == 0 and err == "" and out.strip(), err
    path.write_text(json.dumps({**game.ruling_file(), "actions": "none"}), "utf-8")
    rc, out, err = run(capsys, "rule", str(path))
    assert rc == 2 and out == "" and err.count("\n") == 1, (rc, out, err)
