"""Junk games from many addresses (issue 31, item 5): creation limits hold across addresses (a
global rate, a cap on games nobody has joined), and the judge's hall does not load idle games.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from service_helpers import make_referee
from web_helpers import JUDGE_CODE, make_app, referee_of

from referee.fold import Folded
from referee.repository import Repository
from referee.service import open_referee
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
    assert ref.idle_count() == 3  # the judge's one, and two others
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
    real = Repository.folded

    def counting(self: Repository, game: str) -> Folded:
        loaded.append(game)
        return real(self, game)

    monkeypatch.setattr(Repository, "folded", counting)
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
    args = p.parse_args(["serve", "--idle-games", "0", "--create-global-per-minute", "0"])
    cfg = serve.limits_config(args)
    assert cfg["IDLE_GAMES_CAP"] is None and cfg["CREATE_GLOBAL_PER_MINUTE"] is None
    for bad in (["--idle-games", "-1"], ["--create-global-per-minute", "-2"]):
        with pytest.raises(SystemExit) as e:
            serve.limits_config(p.parse_args(["serve", *bad]))
        assert bad[0] in str(e.value)


def test_the_database_counts_and_pages_idle_games_without_loading_one(tmp_path: Path) -> None:
    ref = open_referee(tmp_path / "g.sqlite3")
    try:
        made = [ref.create_game() for _ in range(4)]
        ref.claim(made[2].game, made[2].codes["zeus"])
        idle = sorted(m.game for m in made if m is not made[2])
        assert ref.idle_count() == 3
        assert ref.idle_games("judge", 2) == (3, idle[:2])
        assert ref.idle_games("judge", 2, 2) == (3, idle[2:])
        assert [gh.game for gh in ref.repo.heads(moved=True)] == [made[2].game]
        assert [r["game"] for r in ref.overview("judge", idle=False)] == [made[2].game]
        assert len(ref.overview("judge")) == 4
    finally:
        ref.store.close()
