"""Junk games from many addresses (issue 31, item 5): creation limits hold across addresses (a
global rate, a cap on games nobody has joined, each counting only for a while after its
creation: games cannot be deleted), and the judge's hall does not load idle games.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from service_helpers import make_referee
from web_helpers import JUDGE_CODE, make_app, referee_of

from referee.fold import Folded
from referee.reader import Reader
from referee.service import FixedClock, Referee, open_referee
from referee.store import CREATED_AT, MemoryStore, SQLiteStore, Store
from web import serve
from web.cli import build_parser

BODY = {"players": {"hera": "A", "zeus": "B"}}


def device(app: Flask, address: str) -> tuple[FlaskClient, str]:
    """A client at ``address`` with its CSRF token."""
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = address
    token = c.get("/api/v1/session").json["csrf"]  # type: ignore[index]
    return c, str(token)


def create(c: FlaskClient, token: str) -> Any:
    return c.post("/api/v1/games", json=BODY, headers={"X-CSRF-Token": token})


def clock_of(ref: Referee) -> FixedClock:
    """The test referee's fake clock, to move on instead of sleeping."""
    clock = ref.ledger.clock
    assert isinstance(clock, FixedClock)
    return clock


MINUTE = 60.0
HOUR = timedelta(minutes=60)


def test_many_addresses_together_meet_the_global_creation_rate() -> None:
    app = make_app(
        CREATE_BURST=10,
        CREATE_PER_MINUTE=6.0,
        CREATE_GLOBAL_BURST=5,
        CREATE_GLOBAL_PER_MINUTE=1.0,
    )
    statuses = []
    for i in range(10):  # ten addresses, each well within its own limit
        c, token = device(app, f"10.0.1.{i + 1}")
        for _ in range(2):
            r = create(c, token)
            statuses.append(r.status_code)
            if r.status_code == 429:
                assert r.json["error"] == "TooManyRequests"
                assert "all devices together" in r.json["message"]
                assert "1 a minute" in r.json["message"]
                assert int(r.headers["Retry-After"]) >= 30
    assert statuses.count(201) == 5 and statuses.count(429) == 15
    assert len(referee_of(app).games()) == 5  # a refused creation made nothing


def test_no_game_is_made_while_the_idle_games_cap_is_reached() -> None:
    app = make_app(IDLE_GAMES_CAP=3)
    ref = referee_of(app)
    made = []
    for i in range(3):
        c, token = device(app, f"10.0.2.{i + 1}")
        r = create(c, token)
        assert r.status_code == 201
        made.append(r.json)
    c, token = device(app, "10.0.2.9")
    r = create(c, token)
    assert r.status_code == 503
    assert r.json["error"] == "Busy"
    assert "3 games nobody has joined yet" in r.json["message"]
    assert "limit on idle games (3)" in r.json["message"]
    assert int(r.headers["Retry-After"]) >= 1
    assert len(ref.games()) == 3
    # the organiser sets up the hall's tables ahead of time: no limit for him
    judge = app.test_client()
    judge.get(f"/judge/join/{JUDGE_CODE}")
    jt = judge.get("/api/v1/session").json["csrf"]  # type: ignore[index]
    assert create(judge, jt).status_code == 201
    # a player takes a seat at one game: it is no longer idle, and a game may be made again
    first = made[0]
    ref.claim(first["game"], first["codes"]["hera"])
    assert ref.idle_count().count == 3  # the judge's one, and two others
    r = create(c, token)
    assert r.status_code == 503
    second = made[1]
    ref.claim(second["game"], second["codes"]["zeus"])
    assert create(c, token).status_code == 201


def test_the_home_form_meets_the_idle_games_cap_with_a_page_naming_it() -> None:
    app = make_app(IDLE_GAMES_CAP=1)
    referee_of(app).create_game()
    c, token = device(app, "10.0.3.1")
    r = c.post("/new", data={"csrf": token, "hera": "A", "zeus": "B"})
    page = r.get_data(as_text=True)
    assert r.status_code == 503
    assert "limit on idle games (1)" in page and "Traceback" not in page
    assert len(referee_of(app).games()) == 1


def test_the_hall_does_not_load_the_games_nobody_joined(monkeypatch: Any) -> None:
    ref = make_referee()
    played = ref.create_game()
    ref.claim(played.game, played.codes["hera"])
    idle = [ref.create_game().game for _ in range(30)]
    app = make_app(ref)
    loaded: list[str] = []
    real = Reader.folded

    def counting(self: Reader, game: str) -> Folded:
        loaded.append(game)
        return real(self, game)

    monkeypatch.setattr(Reader, "folded", counting)
    judge = app.test_client()
    judge.get(f"/judge/join/{JUDGE_CODE}")
    page = judge.get("/judge").get_data(as_text=True)
    assert "Not joined yet (30)" in page
    assert played.game in loaded
    assert not set(loaded) & set(idle)  # counted and listed by id: not one is read


def test_serve_takes_the_global_limits_and_refuses_a_negative_one() -> None:
    p = build_parser()
    args = p.parse_args(["serve"])
    cfg = serve.limits_config(args)
    assert cfg["CREATE_GLOBAL_BURST"] == serve.CREATE_GLOBAL_BURST
    assert cfg["CREATE_GLOBAL_PER_MINUTE"] == serve.CREATE_GLOBAL_PER_MINUTE
    assert cfg["IDLE_GAMES_CAP"] == serve.IDLE_GAMES
    assert cfg["IDLE_EXPIRY_MINUTES"] == serve.IDLE_EXPIRY == 60
    args = p.parse_args(
        ["serve", "--idle-games", "0", "--create-global-per-minute", "0", "--idle-expiry", "0"]
    )
    cfg = serve.limits_config(args)
    assert cfg["IDLE_GAMES_CAP"] is None and cfg["CREATE_GLOBAL_PER_MINUTE"] is None
    assert cfg["IDLE_EXPIRY_MINUTES"] is None  # idle games count for ever
    cfg = serve.limits_config(p.parse_args(["serve", "--idle-expiry", "15"]))
    assert cfg["IDLE_EXPIRY_MINUTES"] == 15
    for bad in (
        ["--idle-games", "-1"],
        ["--create-global-per-minute", "-2"],
        ["--idle-expiry", "-5"],
    ):
        with pytest.raises(SystemExit) as e:
            serve.limits_config(p.parse_args(["serve", *bad]))
        assert bad[0] in str(e.value)


def test_the_database_counts_and_pages_idle_games_without_loading_one(tmp_path: Path) -> None:
    ref = open_referee(tmp_path / "g.sqlite3")
    try:
        made = [ref.create_game() for _ in range(4)]
        ref.claim(made[2].game, made[2].codes["zeus"])
        idle = sorted(m.game for m in made if m is not made[2])
        assert ref.idle_count().count == 3
        assert ref.idle_games("judge", 2) == (3, idle[:2])
        assert ref.idle_games("judge", 2, 2) == (3, idle[2:])
        assert [gh.game for gh in ref.catalogue.heads(moved=True)] == [made[2].game]
        assert [r["game"] for r in ref.overview("judge", idle=False)] == [made[2].game]
        assert len(ref.overview("judge")) == 4
    finally:
        ref.store.close()


def test_an_idle_game_stops_counting_against_the_cap_an_hour_after_its_creation() -> None:
    # games cannot be deleted: junk made slowly (or a club's abandoned games) must not lock
    # every player out for good
    app = make_app(IDLE_GAMES_CAP=3, IDLE_EXPIRY_MINUTES=60)
    clock = clock_of(referee_of(app))
    c, token = device(app, "10.0.4.1")
    for _ in range(3):  # at 00:00, 00:10 and 00:20 UTC
        assert create(c, token).status_code == 201
        clock.advance(10 * MINUTE)
    r = create(c, token)
    assert r.status_code == 503 and r.json["error"] == "Busy"
    message = r.json["message"]
    assert "3 games nobody has joined yet (made in the last 60 minutes)" in message
    assert "limit on idle games (3)" in message
    # the first game was made just after 00:00 UTC: it stops counting at 01:00
    assert "the oldest at 01:00 UTC" in message
    waited = re.search(r"in at most (\d+) minutes", message)  # it is 00:30
    assert waited is not None and int(waited.group(1)) == 30, message
    assert int(r.headers["Retry-After"]) == 60  # players may join sooner: asked again in a minute
    clock.advance(29 * MINUTE)  # 00:59: the first game still counts
    assert create(c, token).status_code == 503
    clock.advance(2 * MINUTE)  # 01:01: it no longer does
    assert create(c, token).status_code == 201
    r = create(c, token)  # the second, the third and this new one count now
    assert r.status_code == 503 and "the oldest at 01:10 UTC" in r.json["message"]
    assert len(referee_of(app).games()) == 4


def test_when_the_oldest_stops_counting_within_a_minute_the_client_retries_then() -> None:
    app = make_app(IDLE_GAMES_CAP=1, IDLE_EXPIRY_MINUTES=1)
    c, token = device(app, "10.0.4.2")
    assert create(c, token).status_code == 201
    r = create(c, token)
    assert r.status_code == 503 and "in at most 1 minute)" in r.json["message"]
    assert 1 <= int(r.headers["Retry-After"]) < 60


def test_with_no_expiry_an_idle_game_counts_against_the_cap_for_ever() -> None:
    app = make_app(IDLE_GAMES_CAP=1, IDLE_EXPIRY_MINUTES=None)
    clock = clock_of(referee_of(app))
    c, token = device(app, "10.0.4.3")
    assert create(c, token).status_code == 201
    clock.advance(30 * 24 * 60 * MINUTE)
    r = create(c, token)
    assert r.status_code == 503
    assert "until players join some" in r.json["message"]
    assert "stops counting" not in r.json["message"]


def test_a_joined_game_never_counts_against_the_cap_however_recent() -> None:
    app = make_app(IDLE_GAMES_CAP=2, IDLE_EXPIRY_MINUTES=60)
    ref = referee_of(app)
    for _ in range(3):
        made = ref.create_game()
        ref.claim(made.game, made.codes["zeus"])  # a seat taken: it moved
    idle = ref.create_game()
    assert ref.idle_count(HOUR).count == 1
    c, token = device(app, "10.0.4.4")
    assert create(c, token).status_code == 201
    assert create(c, token).status_code == 503
    ref.claim(idle.game, idle.codes["hera"])
    assert create(c, token).status_code == 201


def _counts(store: Store) -> list[tuple[int, str | None, int]]:
    """The idle games a store counts as the clock moves on: a game made before creation times
    were kept, one made at the start, one joined and one idle half an hour later."""
    ref = make_referee(store)
    clock = clock_of(ref)
    older = make_referee(seed=1)  # another server, before it kept creation times
    g = older.create_game().game
    secrets = older.store.secrets(g)
    del secrets[CREATED_AT]
    store.append(older.store.records(g), secrets)
    early = ref.create_game().game
    clock.advance(30 * MINUTE)
    joined = ref.create_game()
    ref.claim(joined.game, joined.codes["hera"])
    late = ref.create_game().game
    made = {n: store.secrets(n)[CREATED_AT] for n in (early, late)}
    out = []
    for step in (0.0, 31 * MINUTE, 30 * MINUTE):
        clock.advance(step)
        counted = ref.idle_count(HOUR)
        frees = counted.frees_at
        out.append((counted.count, None if frees is None else frees.isoformat(), len(made)))
    forever = ref.idle_count(None)
    out.append((forever.count, None, len(made)))
    assert store.idle_since(None) == (3, made[early])  # every idle game, timed or not
    return out


def test_the_database_and_the_memory_store_count_recent_idle_games_alike(tmp_path: Path) -> None:
    db = SQLiteStore(tmp_path / "g.sqlite3")
    try:
        in_db = _counts(db)
    finally:
        db.close()
    in_memory = _counts(MemoryStore())
    assert in_db == in_memory
    early, late = "2026-01-01T01:00:0", "2026-01-01T01:30:0"
    (n0, f0, _), (n1, f1, _), (n2, f2, _), (n3, f3, _) = in_db
    # at 00:30 both timed idle games count (not the joined one, not the untimed one); the
    # early one stops counting at 01:00
    assert n0 == 2 and f0 is not None and f0.startswith(early)
    assert n1 == 1 and f1 is not None and f1.startswith(late)  # 01:01: only the late one
    assert (n2, f2) == (0, None)  # 01:31: none
    assert (n3, f3) == (3, None)  # counted for ever: every idle game, the untimed one too
