"""Who is who (issue 12, finding 1): a seat is one device, a game has no judge's code of its
creator's, a table without a judge corrects only with both players, and the files holding
secrets are the owner's only."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from flask import Flask
from service_helpers import make_referee
from web_helpers import JUDGE_CODE, Browser, make_app, new_game, referee_of, take_seat

from referee.service import Forbidden, Refused, code_hash
from referee.store import SQLiteStore


@pytest.fixture
def app() -> Flask:
    return make_app()


def kinds(app: Flask, game: str, seat: str = "public") -> list[str]:
    return [r.kind for r in referee_of(app).log(game, seat)]


# ---- a seat is one device ------------------------------------------------------------------


def test_a_second_device_opening_a_used_join_link_is_told_the_seat_is_held(app: Flask) -> None:
    created, b = new_game(app)
    other = Browser(app)
    r = other.join(created.game, created.codes["hera"])
    assert r.status_code == 409
    assert "This seat is already held" in r.get_data(as_text=True)
    assert other.get(f"/api/v1/games/{created.game}").json["seat"] == "public"  # type: ignore[index]
    assert b["hera"].get(f"/api/v1/games/{created.game}").json["seat"] == "hera"  # type: ignore[index]


def test_the_seat_cookie_holds_a_device_token_not_the_join_code(app: Flask) -> None:
    created = referee_of(app).create_game()
    r = Browser(app).join(created.game, created.codes["zeus"])
    cookie = next(h for h in r.headers.getlist("Set-Cookie") if h.startswith("hz_"))
    assert created.codes["zeus"] not in cookie
    token = cookie.split("=", 1)[1].split(";", 1)[0]
    assert referee_of(app).seat_for_token(created.game, token) == "zeus"
    assert referee_of(app).seat_for_token(created.game, created.codes["zeus"]) == "public"
    stored = referee_of(app).store.secrets(created.game)
    assert token not in stored.values() and code_hash(token) in stored.values()


def test_an_approved_request_moves_the_seat_and_every_step_is_in_the_public_log(
    app: Flask,
) -> None:
    created, b = new_game(app)
    g = created.game
    phone2 = Browser(app)
    assert phone2.join(g, created.codes["hera"]).status_code == 409
    r = phone2.ask(g, created.codes["hera"])
    assert r.status_code == 303
    assert "You asked for Hera" in phone2.get(f"/g/{g}").get_data(as_text=True)
    assert phone2.get(f"/api/v1/games/{g}").json["seat"] == "public"  # type: ignore[index]
    request = referee_of(app).log(g, "public")[-1]
    assert request.kind == "request" and request.body["seat"] == "hera"
    # the judge sees the request on his desk and approves it there
    assert f'id="request-{request.seq}"' in b["judge"].get(f"/g/{g}").get_data(as_text=True)
    jc = b["judge"].csrf(g)
    r = b["judge"].client.post(
        f"/g/{g}/seats/approve", data={"csrf": jc, "request": str(request.seq)}
    )
    assert r.status_code == 303
    assert phone2.get(f"/api/v1/games/{g}").json["seat"] == "hera"  # type: ignore[index]
    assert b["hera"].get(f"/api/v1/games/{g}").json["seat"] == "public"  # type: ignore[index]
    assert kinds(app, g)[-4:] == ["claim", "claim", "request", "move"]


def test_a_player_cannot_approve_a_move_at_a_judged_table(app: Flask) -> None:
    ref = referee_of(app)
    created = ref.create_game()
    ref.claim(created.game, created.codes["hera"])
    asked = ref.claim(created.game, created.codes["hera"], ask=True)
    assert asked.request is not None
    with pytest.raises(Forbidden):
        ref.approve_seat(created.game, "zeus", asked.request)
    with pytest.raises(Forbidden):
        ref.approve_seat(created.game, "hera", asked.request)


def test_at_a_table_without_a_judge_only_the_seats_own_device_approves_its_move() -> None:
    """Issue 31, item 1: Zeus opens Hera's link on a second phone and asks for her seat; his
    own approval never moves it (he would read her hand). The phone holding Hera's seat
    approves it (her own new phone)."""
    ref = make_referee()
    created = ref.create_game(judged=False)
    g = created.game
    first = ref.claim(g, created.codes["hera"])
    ref.claim(g, created.codes["zeus"])
    asked = ref.claim(g, created.codes["hera"], ask=True)
    assert asked.request is not None and asked.token is not None
    with pytest.raises(Forbidden, match="other player's approval never moves a seat"):
        ref.approve_seat(g, "zeus", asked.request)
    assert ref.seat_for_token(g, asked.token) == "public"
    assert [q["seq"] for q in ref.seat_news(g, "zeus")["requests"]] == []
    assert [q["seq"] for q in ref.seat_news(g, "hera")["requests"]] == [asked.request]
    ref.approve_seat(g, "hera", asked.request)
    assert ref.seat_for_token(g, asked.token) == "hera"
    assert first.token is not None and ref.seat_for_token(g, first.token) == "public"


def test_an_api_client_claims_a_seat_and_uses_the_returned_token_as_bearer(app: Flask) -> None:
    created = referee_of(app).create_game()
    g = created.game
    script = Browser(app)  # the game's CSRF token comes with its public view
    r = script.post(f"/api/v1/games/{g}/claim", {"code": created.codes["hera"]}, game=g)
    assert r.status_code == 201, r.data
    token = r.json["token"]  # type: ignore[index]
    assert token != created.codes["hera"]
    bearer = {"Authorization": f"Bearer {token}"}
    view = app.test_client().get(f"/api/v1/games/{g}", headers=bearer).json
    assert view is not None and view["seat"] == "hera"
    code = {"Authorization": f"Bearer {created.codes['zeus']}"}
    assert app.test_client().get(f"/api/v1/games/{g}", headers=code).status_code == 401
    other = Browser(app)
    again = other.post(f"/api/v1/games/{g}/claim", {"code": created.codes["hera"]}, game=g)
    assert again.status_code == 409 and "already held" in again.json["message"]  # type: ignore[index]
    asked = other.post(
        f"/api/v1/games/{g}/claim", {"code": created.codes["hera"], "ask": True}, game=g
    )
    assert asked.status_code == 201 and asked.json["held"] is True  # type: ignore[index]
    assert asked.json["request"] is not None  # type: ignore[index]


# ---- no judge's code for the creator ---------------------------------------------------------


def test_creating_a_game_gives_no_judge_code(app: Flask) -> None:
    b = Browser(app)
    r = b.post("/api/v1/games", {"players": {"hera": "Ann", "zeus": "Bo"}})
    assert r.status_code == 201, r.data
    body = r.json
    assert body is not None
    assert set(body["codes"]) == {"hera", "zeus"} and set(body["links"]) == {"hera", "zeus"}
    assert "judge" not in referee_of(app).store.secrets(body["game"])


def test_an_old_games_own_judge_code_opens_nothing_and_reads_no_hand(app: Flask) -> None:
    ref = referee_of(app)
    created = ref.create_game()
    old = "old-per-game-judge-code-000000"
    ref.store.put_secret(created.game, "judge", code_hash(old))  # as games were made before
    b = Browser(app)
    assert b.join(created.game, old).status_code == 404
    b.client.set_cookie(f"hz_{created.game}", old)
    view = b.get(f"/api/v1/games/{created.game}").json
    assert view is not None and view["seat"] == "public"
    bearer = {"Authorization": f"Bearer {old}"}
    assert Browser(app).get(f"/api/v1/games/{created.game}", headers=bearer).status_code == 401


def test_only_the_organiser_creates_games_when_he_keeps_that_to_himself() -> None:
    app = make_app(CREATE="organiser")
    anyone = Browser(app)
    r = anyone.post("/api/v1/games", {})
    assert r.status_code == 403 and "organiser" in r.json["message"]  # type: ignore[index]
    assert referee_of(app).games() == []
    organiser = Browser(app)
    assert organiser.get(f"/judge/join/{JUDGE_CODE}").status_code == 303
    assert organiser.post("/api/v1/games", {}).status_code == 201


# ---- a table without a judge corrects with both players --------------------------------------


def test_a_correction_at_a_table_without_a_judge_needs_both_players() -> None:
    ref = make_referee()
    g = ref.create_game(judged=False).game
    before = ref.head(g)["seq"]
    with pytest.raises(Forbidden):
        ref.undo(g, "hera", 0, "misdealt")  # no seat is the judge's here
    p = ref.propose(g, "hera", {"kind": "undo", "to": 0, "reason": "misdealt"})
    assert ref.folded(g).corrections == []  # proposed, not applied
    with pytest.raises(Refused):
        ref.approve(g, "hera", p.seq)  # the proposer approved it by proposing
    out = ref.approve(g, "zeus", p.seq)
    assert [r.kind for r in out] == ["approve", "undo"]
    assert [r.seq for r in ref.folded(g).corrections] == [before + 3]


def test_a_declined_proposal_changes_nothing() -> None:
    ref = make_referee()
    g = ref.create_game(judged=False).game
    p = ref.propose(g, "zeus", {"kind": "undo", "to": 0, "reason": "x"})
    ref.approve(g, "hera", p.seq, agree=False)
    assert ref.folded(g).corrections == [] and ref.folded(g).proposals == {}
    with pytest.raises(Refused):
        ref.approve(g, "hera", p.seq)


def test_players_propose_nothing_at_a_judged_table() -> None:
    ref = make_referee()
    g = ref.create_game().game
    with pytest.raises(Forbidden):
        ref.propose(g, "hera", {"kind": "undo", "to": 0, "reason": "x"})


# ---- files with secrets are the owner's ------------------------------------------------------


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_the_database_and_its_wal_and_shm_are_readable_by_the_owner_only(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        db = tmp_path / "games.sqlite3"
        ref = make_referee(SQLiteStore(db))
        ref.create_game()
        for f in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            assert f.exists() and mode(f) == 0o600, f
    finally:
        os.umask(old)


def test_an_existing_world_readable_database_is_tightened_at_start(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    SQLiteStore(db).close()
    os.chmod(db, 0o644)
    SQLiteStore(db).close()
    assert mode(db) == 0o600


def test_serve_tightens_its_secret_files(tmp_path: Path) -> None:
    from web.serve import judge_code, private_files, secret_key

    db = tmp_path / "games.sqlite3"
    secret_key(db)
    judge_code(db)
    for f in private_files(db):
        if f.exists():
            assert mode(f) == 0o600, f


def test_over_the_pages_a_table_without_a_judge_corrects_once_both_players_approve() -> None:
    app = make_app(JUDGE_CODE=None)  # a server without a tournament judge
    ref = referee_of(app)
    creator = Browser(app)
    r = creator.client.post("/new", data={"csrf": creator.csrf(), "profile": "kosmos"})
    assert r.status_code == 303
    g = r.headers["Location"].split("/")[2]
    assert ref.seat_news(g, "hera")["judged"] is False
    hera, zeus = Browser(app), Browser(app)
    for step, b in enumerate((hera, zeus)):  # each scans his own screen
        page = creator.get(f"/g/{g}/created?step={step}").get_data(as_text=True)
        link = re.search(r'href="http://localhost(/join/[^"]+)"', page)
        assert link is not None and take_seat(b.client, link.group(1)).status_code == 303
    assert "propose-undo-form" in hera.get(f"/g/{g}").get_data(as_text=True)
    r = hera.client.post(
        f"/g/{g}/propose/undo", data={"csrf": hera.csrf(g), "to": "0", "reason": "misdealt"}
    )
    assert r.status_code == 303
    proposal = ref.log(g, "public")[-1]
    assert proposal.kind == "propose" and ref.folded(g).corrections == []
    assert f'id="proposal-{proposal.seq}"' in zeus.get(f"/g/{g}").get_data(as_text=True)
    r = zeus.client.post(
        f"/g/{g}/proposals/approve", data={"csrf": zeus.csrf(g), "proposal": str(proposal.seq)}
    )
    assert r.status_code == 303
    assert kinds(app, g)[-3:] == ["propose", "approve", "undo"]


def test_a_proposed_amend_seals_the_proposers_hidden_cards_from_the_other_player() -> None:
    """A dealt hand is hidden from the other player (D21): so is a proposal to amend it."""
    from referee.log import read_lines, verify
    from referee.views import cutter

    ref = make_referee()
    g = ref.create_game(judged=False, starting="hera").game
    hand = ["Hydra", "Harpy", "Furies", "Pegasus", "Nemesis", "Artemis", "Amazon", "Sirens"]
    dealt = ref.submit(g, "hera", {"do": "deal", "player": "hera", "cards": [*hand, "Hades"]})
    other = [*hand[:-1], "Hades", "Sirens"]
    amend = {"do": "deal", "player": "hera", "cards": [*other[:-1], "Medusa"]}
    p = ref.propose(
        g, "hera", {"kind": "amend", "event": dealt.seq, "action": amend, "reason": "x"}
    )
    seen = ref.log(g, "zeus")[p.seq]
    assert "Medusa" not in repr(seen.body) and "body.correction.action.cards" in seen.sealed
    assert "Medusa" in repr(ref.log(g, "hera")[p.seq].body)
    header, lines = read_lines(ref.export(g, "zeus"))
    assert verify(header, lines, may_cut=cutter(ref.folded(g).module)).ok
