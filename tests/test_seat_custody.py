"""Who holds a seat (issue 31, "a cheater at the table"): the opponent's approval never moves a
seat (item 1), a link preview takes nothing (item 2), and a copied cookie shows itself (item 4).

At a table without a judge a seat moves only with the approval of the device holding it, or
with the seat's recovery code, shown once on the phone that holds the seat (a new one after
each move: the old one stops working). A join link opens a page with one button; only pressing
it (a POST) takes the seat. The device token rotates as it is used; a token of the seat used
after the other copy moved on holds the seat: nobody acts for it or sees its hand until the
judge, or the recovery code, settles it."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

import pytest
from flask import Flask
from web_helpers import Browser, make_app, new_game, referee_of, token_of

from referee.service import Forbidden, Refused
from referee.tables import GRACE, LOST, ROTATE_AFTER, recovery_hash

CODE = r'<strong class="code">([A-Z0-9-]{19})</strong>'  # a recovery code, as the page shows it
HERA_HAND = ("Hydra", "Harpy", "Furies", "Pegasus", "Nemesis", "Artemis", "Amazon", "Sirens")


class Clock:
    """The tokens' clock (seconds), moved by hand."""

    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t

    def pass_(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    c = Clock()
    monkeypatch.setattr("referee.tables.Tables.now", lambda self: c())
    yield c


def seat(b: Browser, game: str, headers: dict[str, str] | None = None) -> str:
    view = b.get(f"/api/v1/games/{game}", headers=headers or {}).json
    assert isinstance(view, dict)
    return str(view["seat"])


def kinds(app: Flask, game: str) -> list[str]:
    return [r.kind for r in referee_of(app).log(game, "judge")]


def page(b: Browser, game: str) -> str:
    r = b.get(f"/g/{game}")
    assert r.status_code == 200
    return r.get_data(as_text=True)


def unjudged(app: Flask) -> tuple[str, dict[str, str], dict[str, Browser]]:
    """A table without a judge, Hera and Zeus at it (each took the seat on his phone)."""
    created = referee_of(app).create_game(judged=False, starting="hera")
    phones = {}
    for s, code in created.codes.items():
        phones[s] = Browser(app)
        assert phones[s].join(created.game, code).status_code == 303
    return created.game, created.codes, phones


def deal_hera(app: Flask, game: str) -> None:
    ref = referee_of(app)
    ref.submit(game, "hera", {"do": "deal", "player": "hera", "cards": [*HERA_HAND, "Hades"]})


def hand_seen(b: Browser, game: str) -> list[str]:
    """Hera's hand as the browser's view of the table has it (her cards' names, or nothing)."""
    view = b.get(f"/api/v1/games/{game}").json
    assert isinstance(view, dict)
    return [c for c in view["hera"]["hand"] if c != "?"]


# ---- item 1: the opponent's approval never moves a seat --------------------------------------


def test_zeus_cannot_move_heras_seat_to_his_second_phone_at_a_table_without_a_judge() -> None:
    """The issue's path: Zeus opens Hera's link on a second phone (409), asks for the seat and
    approves the move from his own seat. Refused; the second phone never reads Hera's hand."""
    app = make_app(JUDGE_CODE=None)
    g, codes, phones = unjudged(app)
    deal_hera(app, g)
    second = Browser(app)
    assert second.join(g, codes["hera"]).status_code == 409
    assert second.ask(g, codes["hera"]).status_code == 303
    request = referee_of(app).log(g, "public")[-1]
    assert request.kind == "request"
    zeus_page = page(phones["zeus"], g)
    assert f'id="request-{request.seq}"' not in zeus_page  # nothing for Zeus to approve
    r = phones["zeus"].client.post(
        f"/g/{g}/seats/approve", data={"csrf": phones["zeus"].csrf(g), "request": request.seq}
    )
    assert r.status_code == 303
    refusal = page(phones["zeus"], g)
    assert "the other player&#39;s approval never moves a seat" in refusal
    assert seat(second, g) == "public" and seat(phones["hera"], g) == "hera"
    assert kinds(app, g)[-1] == "request"
    assert hand_seen(second, g) == [] and hand_seen(phones["hera"], g) != []
    # Hera's own phone is asked, and may move her seat (her new phone)
    assert f'id="request-{request.seq}"' in page(phones["hera"], g)


def test_a_judged_table_still_has_the_judge_approve_a_move() -> None:
    app = make_app()
    created, phones = new_game(app)
    g = created.game
    asked = referee_of(app).claim(g, created.codes["hera"], ask=True)
    assert asked.request is not None
    with pytest.raises(Forbidden):
        referee_of(app).approve_seat(g, "hera", asked.request)
    referee_of(app).approve_seat(g, "judge", asked.request)
    assert seat(phones["hera"], g) == "public"


def test_the_recovery_code_is_shown_once_on_the_phone_that_took_the_seat_and_nowhere_else(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = make_app(JUDGE_CODE=None)
    created = referee_of(app).create_game(judged=False)
    g = created.game
    hera, zeus = Browser(app), Browser(app)
    with caplog.at_level(logging.DEBUG):
        assert hera.join(g, created.codes["hera"]).status_code == 303
        first = page(hera, g)
        assert zeus.join(g, created.codes["zeus"]).status_code == 303
        zeus_first = page(zeus, g)
    found = re.search(r"Hera's recovery code: " + CODE + " Write it down now", first)
    assert found is not None, "the phone that took the seat is shown its recovery code"
    code = found.group(1)
    assert "print this page" in first
    assert code not in page(hera, g)  # once
    assert code not in zeus_first and code not in page(zeus, g)
    zeus_code = re.search(r"Zeus's recovery code: " + CODE, zeus_first)
    assert zeus_code is not None and zeus_code.group(1) not in first
    assert code not in caplog.text
    ref = referee_of(app)
    for s in ("hera", "zeus", "judge", "public"):
        assert code not in ref.export(g, s)
    secrets = ref.store.secrets(g)
    assert code not in str(secrets) and recovery_hash(code) in secrets.values()


def test_the_recovery_code_moves_the_seat_to_the_phone_that_types_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Hera's phone is lost: her new phone asks (nobody approves), she types her code."""
    caplog.set_level(logging.DEBUG)
    app = make_app(JUDGE_CODE=None)
    created = referee_of(app).create_game(judged=False)
    g = created.game
    old = Browser(app)
    assert old.join(g, created.codes["hera"]).status_code == 303
    code = re.search("recovery code: " + CODE, page(old, g))
    assert code is not None
    new = Browser(app)
    assert new.join(g, created.codes["hera"]).status_code == 409
    assert new.ask(g, created.codes["hera"]).status_code == 303
    waiting = page(new, g)
    assert 'id="recover-waiting"' in waiting
    before = kinds(app, g)
    r = new.client.post(f"/g/{g}/seats/recover", data={"csrf": new.csrf(g), "recovery": "AAAA"})
    assert r.status_code == 303
    refused = page(new, g)
    assert "recovery: this code is not the recovery code of a seat" in refused
    assert kinds(app, g) == before and seat(new, g) == "public"
    typed = code.group(1).lower().replace("-", " ")  # as written on paper, typed anyhow
    r = new.client.post(f"/g/{g}/seats/recover", data={"csrf": new.csrf(g), "recovery": typed})
    assert r.status_code == 303
    assert seat(new, g) == "hera" and seat(old, g) == "public"
    move = referee_of(app).log(g, "public")[-1]
    assert move.kind == "move" and move.body["recovery"] is True
    assert "seat moved to another device with its recovery code" in page(new, g)
    assert "moved to another device with Hera&#39;s recovery code" in page(old, g)
    assert code.group(1) not in caplog.text and typed not in caplog.text
    assert code.group(1) not in referee_of(app).export(g, "judge")


def test_a_judged_table_has_no_recovery_code() -> None:
    app = make_app()
    ref = referee_of(app)
    created = ref.create_game()
    claim = ref.claim(created.game, created.codes["hera"])
    assert claim.recovery is None
    with pytest.raises(Forbidden):
        ref.recover(created.game, "ABCD-EFGH-JKLM-NPQR")


def test_an_api_client_gets_the_recovery_code_in_its_claim_reply() -> None:
    app = make_app(JUDGE_CODE=None)
    created = referee_of(app).create_game(judged=False)
    g = created.game
    script = Browser(app)
    r = script.post(f"/api/v1/games/{g}/claim", {"code": created.codes["zeus"]}, game=g)
    assert r.status_code == 201 and r.json is not None
    assert re.fullmatch(r"[A-Z0-9]{4}(-[A-Z0-9]{4}){3}", r.json["recovery"])


# ---- item 2: a link preview takes nothing ----------------------------------------------------


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_opening_a_join_link_takes_nothing(method: str) -> None:
    """A chat app's preview bot fetches the link: nothing is recorded, no cookie is set, and
    the real player then takes the seat with one press."""
    app = make_app()
    created = referee_of(app).create_game()
    g, link = created.game, f"/join/{created.game}/{created.codes['hera']}"
    before = kinds(app, g)
    bot = Browser(app)
    r = bot.client.open(link, method=method)
    assert r.status_code == 200
    assert not any(h.startswith("hz_") for h in r.headers.getlist("Set-Cookie"))
    assert kinds(app, g) == before
    if method == "GET":
        assert "Take Hera's seat" in r.get_data(as_text=True)
        assert 'method="post"' in r.get_data(as_text=True)
    hera = Browser(app)
    assert hera.join(g, created.codes["hera"]).status_code == 303
    assert seat(hera, g) == "hera" and seat(bot, g) == "public"
    assert kinds(app, g) == [*before, "claim"]


def test_opening_your_own_link_again_leads_to_your_seat() -> None:
    app = make_app()
    created, phones = new_game(app)
    r = phones["hera"].get(f"/join/{created.game}/{created.codes['hera']}")
    assert r.status_code == 303 and r.headers["Location"] == f"/g/{created.game}"


def test_the_join_page_refuses_a_press_without_its_csrf_token() -> None:
    app = make_app()
    created = referee_of(app).create_game()
    r = Browser(app).client.post(f"/join/{created.game}/{created.codes['hera']}")
    assert r.status_code == 403
    assert kinds(app, created.game)[-1] != "claim"


# ---- item 4: a copied cookie shows itself ----------------------------------------------------


def copy_cookie(app: Flask, game: str, source: Browser) -> Browser:
    thief = Browser(app)
    thief.client.set_cookie(f"hz_{game}", token_of(source, game))
    return thief


def test_the_seat_cookie_rotates_as_it_is_used(clock: Clock) -> None:
    app = make_app()
    created, phones = new_game(app)
    g = created.game
    first = token_of(phones["hera"], g)
    page(phones["hera"], g)
    assert token_of(phones["hera"], g) != first  # rotated on its first use
    second = token_of(phones["hera"], g)
    page(phones["hera"], g)
    assert token_of(phones["hera"], g) == second  # not again within ROTATE_AFTER
    clock.pass_(ROTATE_AFTER + 1)
    page(phones["hera"], g)
    assert token_of(phones["hera"], g) != second
    assert first[: len(first) // 2] == second[: len(second) // 2]  # one device's lineage


def test_the_live_stream_does_not_rotate_the_cookie(clock: Clock) -> None:
    app = make_app()
    created, phones = new_game(app)
    g = created.game
    page(phones["hera"], g)
    clock.pass_(ROTATE_AFTER + 1)
    r = phones["hera"].get(f"/api/v1/games/{g}/stream")
    assert not any(h.startswith("hz_") for h in r.headers.getlist("Set-Cookie"))


def test_requests_in_flight_from_the_one_phone_raise_no_alarm(clock: Clock) -> None:
    """A POST racing a live reconnect, several tabs: a request sent with the previous token
    before the new cookie arrived is the same phone, within the grace."""
    app = make_app()
    created, phones = new_game(app)
    g, hera = created.game, phones["hera"]
    old = token_of(hera, g)
    page(hera, g)  # rotates: the reply carries the new cookie
    in_flight = copy_cookie(app, g, hera)
    in_flight.client.set_cookie(f"hz_{g}", old)
    assert seat(in_flight, g) == "hera"  # sent before the new cookie came: its successor unused
    page(hera, g)  # the new one is used
    clock.pass_(GRACE - 1)
    assert seat(in_flight, g) == "hera"  # still in flight, within the grace
    assert "irregularity" not in kinds(app, g)
    assert seat(hera, g) == "hera"


def test_a_lost_new_cookie_is_no_alarm(clock: Clock) -> None:
    """The reply with the new cookie never arrived: the phone keeps its token; after a while
    it is given another one, and nothing is held."""
    app = make_app()
    created, phones = new_game(app)
    g, hera = created.game, phones["hera"]
    old = token_of(hera, g)
    page(hera, g)
    hera.client.set_cookie(f"hz_{g}", old)  # as if that reply was lost
    clock.pass_(LOST + 1)
    assert seat(hera, g) == "hera"
    assert token_of(hera, g) != old
    clock.pass_(ROTATE_AFTER + 1)
    assert seat(hera, g) == "hera"
    assert "irregularity" not in kinds(app, g)


def test_a_copied_cookie_used_after_the_phone_moved_on_holds_the_seat(clock: Clock) -> None:
    """Zeus copies Hera's cookie. Hera's phone moves on (its cookie rotates); the copy, used
    later, holds the seat: neither device acts or reads her hand, both are told, and the judge
    sees it; his new link settles it."""
    app = make_app()
    created, phones = new_game(app, starting="hera")
    g, hera, judge = created.game, phones["hera"], phones["judge"]
    deal_hera(app, g)
    page(hera, g)
    assert hand_seen(hera, g) != []
    thief = copy_cookie(app, g, hera)
    clock.pass_(ROTATE_AFTER + 1)
    page(hera, g)  # rotates
    page(hera, g)  # and uses the new token
    clock.pass_(GRACE + 1)
    stolen = page(thief, g)
    assert 'id="held-seat"' in stolen and "Hera's seat is held" in stolen
    assert 'id="held-seat"' in page(hera, g)
    assert hand_seen(thief, g) == [] and hand_seen(hera, g) == []

    def table(b: Browser) -> dict[str, object]:
        view = b.get(f"/api/v1/games/{g}").json
        assert isinstance(view, dict)
        return {k: v for k, v in view.items() if k != "csrf"}  # the CSRF token is per browser

    for device in (thief, hera):  # no answer differs from the public's
        assert table(device) == table(phones["public"])
    assert seat(hera, g) == "public" and seat(thief, g) == "public"
    before = kinds(app, g)
    r = hera.client.post(f"/g/{g}/call", data={"csrf": hera.csrf(g), "note": "me"})
    assert r.status_code == 303 and kinds(app, g) == before  # the seat cannot act
    irregularity = referee_of(app).log(g, "judge")[-1]
    assert irregularity.kind == "irregularity" and irregularity.body["held"] == "hera"
    console = page(judge, g)
    assert "Hera&#39;s seat is held: its device key was used by two devices" in console
    with pytest.raises(Refused, match="reissue"):
        referee_of(app).resolve(g, "judge", irregularity.seq, "fine")
    new_code = referee_of(app).reissue(g, "judge", "hera")
    fresh = Browser(app)
    assert fresh.join(g, new_code).status_code == 303
    assert seat(fresh, g) == "hera" and seat(hera, g) == "public" and seat(thief, g) == "public"
    still = referee_of(app).view(g, "judge").open or []
    assert irregularity.seq not in {o["seq"] for o in still}


def test_the_copy_used_first_holds_the_seat_when_the_phone_comes_back(clock: Clock) -> None:
    """The thief's copy rotated first; Hera's phone, coming back with the old token after its
    successor was used elsewhere, holds the seat: it is detected whichever copy moves first."""
    app = make_app()
    created, phones = new_game(app)
    g, hera = created.game, phones["hera"]
    page(hera, g)
    thief = copy_cookie(app, g, hera)
    clock.pass_(ROTATE_AFTER + 1)
    page(thief, g)  # rotates: the thief holds the new token
    page(thief, g)
    clock.pass_(GRACE + 1)
    assert 'id="held-seat"' in page(hera, g)
    assert 'id="held-seat"' in page(thief, g)


def test_a_held_seat_at_a_table_without_a_judge_is_settled_with_its_recovery_code(
    clock: Clock,
) -> None:
    app = make_app(JUDGE_CODE=None)
    created = referee_of(app).create_game(judged=False)
    g = created.game
    hera = Browser(app)
    assert hera.join(g, created.codes["hera"]).status_code == 303
    found = re.search("recovery code: " + CODE, page(hera, g))
    assert found is not None
    thief = copy_cookie(app, g, hera)
    clock.pass_(ROTATE_AFTER + 1)
    page(hera, g)
    page(hera, g)
    clock.pass_(GRACE + 1)
    held = page(thief, g)
    assert 'id="recover-held"' in held
    assert 'id="recover-held"' in page(hera, g)
    r = hera.client.post(
        f"/g/{g}/seats/recover", data={"csrf": hera.csrf(g), "recovery": found.group(1)}
    )
    assert r.status_code == 303
    assert seat(hera, g) == "hera" and seat(thief, g) == "public"
    assert 'id="held-seat"' not in page(hera, g)


def test_a_held_seats_bearer_token_is_refused_with_the_reason(clock: Clock) -> None:
    app = make_app()
    created, phones = new_game(app)
    g, hera = created.game, phones["hera"]
    page(hera, g)
    copied = token_of(hera, g)
    clock.pass_(ROTATE_AFTER + 1)
    page(hera, g)
    page(hera, g)
    clock.pass_(GRACE + 1)
    r = Browser(app).get(f"/api/v1/games/{g}", headers={"Authorization": f"Bearer {copied}"})
    assert r.status_code == 401 and r.json is not None
    assert "held" in r.json["message"]


# ---- item 1: a seat's recovery code changes with its device ----------------------------------


def recovery_shown(b: Browser, game: str, title: str = "Hera") -> str | None:
    """The recovery code a browser's next page of the game shows it, if any."""
    found = re.search(f"{title}'s recovery code: " + CODE + " Write it down now", page(b, game))
    return found.group(1) if found else None


def recover(b: Browser, game: str, code: str) -> str:
    """Types ``code`` in the recovery form; the page the browser is led to."""
    r = b.client.post(f"/g/{game}/seats/recover", data={"csrf": b.csrf(game), "recovery": code})
    assert r.status_code == 303
    return page(b, game)


def zeus_holds_heras_seat_then_approves_her_request(
    app: Flask,
) -> tuple[str, dict[str, str], dict[str, Browser], str]:
    """The issue's path: Zeus created the table and saw both links; his second phone opens
    Hera's first and is shown Hera's recovery code; real Hera finds her seat held and asks for
    it; the second phone approves (it looks fair: nothing was entered yet). Returns the game,
    its codes, the phones and the code the second phone saw."""
    created = referee_of(app).create_game(judged=False, starting="hera")
    g, codes = created.game, created.codes
    phones = {"zeus": Browser(app), "zeus2": Browser(app), "hera": Browser(app)}
    assert phones["zeus"].join(g, codes["zeus"]).status_code == 303
    assert phones["zeus2"].join(g, codes["hera"]).status_code == 303
    seen = recovery_shown(phones["zeus2"], g)
    assert seen is not None
    assert phones["hera"].join(g, codes["hera"]).status_code == 409
    assert phones["hera"].ask(g, codes["hera"]).status_code == 303
    request = referee_of(app).log(g, "public")[-1]
    assert request.kind == "request"
    z2 = phones["zeus2"]
    r = z2.client.post(f"/g/{g}/seats/approve", data={"csrf": z2.csrf(g), "request": request.seq})
    assert r.status_code == 303
    assert seat(phones["hera"], g) == "hera" and seat(z2, g) == "public"
    return g, codes, phones, seen


def test_the_code_the_approving_phone_saw_no_longer_moves_the_seat() -> None:
    """Issue 31 item 1: after the approved move and Hera's six cards, Zeus types the old code
    on his second phone. Refused in words, nothing changes, her hand stays hers."""
    app = make_app(JUDGE_CODE=None)
    g, _, phones, seen = zeus_holds_heras_seat_then_approves_her_request(app)
    # the seat has no live code until Hera's phone loads a page; the second phone's old key
    # is never given the new one
    assert referee_of(app).issue_recovery(g, "hera", token_of(phones["zeus2"], g)) is None
    deal_hera(app, g)
    before = kinds(app, g)
    refused = recover(phones["zeus2"], g, seen)
    assert "recovery: this code is not the recovery code of a seat" in refused
    assert "nothing was changed" in refused
    assert kinds(app, g) == before
    assert seat(phones["zeus2"], g) == "public" and seat(phones["hera"], g) == "hera"
    assert hand_seen(phones["zeus2"], g) == [] and hand_seen(phones["hera"], g) != []
    with pytest.raises(Refused):
        referee_of(app).recover(g, seen)


def test_the_phone_the_seat_moved_to_is_shown_a_new_code_once_and_it_works() -> None:
    app = make_app(JUDGE_CODE=None)
    g, _, phones, seen = zeus_holds_heras_seat_then_approves_her_request(app)
    hera = phones["hera"]
    shown = page(hera, g)
    found = re.search("Hera's recovery code: " + CODE + " Write it down now", shown)
    assert found is not None and found.group(1) != seen
    assert "print this page" in shown and "it is shown only once" in shown
    fresh = found.group(1)
    assert recovery_shown(hera, g) is None and fresh not in page(hera, g)  # once
    # Hera's phone is lost later: her new phone takes the seat back with the new code
    new = Browser(app)
    assert "seat is on this phone now" in recover(new, g, fresh)
    assert seat(new, g) == "hera" and seat(hera, g) == "public"


def test_a_recovery_gives_the_phone_a_new_code_and_the_typed_one_stops_working() -> None:
    """Whoever else saw the code typed (it was written on paper) must not take the seat
    back: the phone that typed it is shown the seat's new code, once, and only that one
    works."""
    app = make_app(JUDGE_CODE=None)
    created = referee_of(app).create_game(judged=False, starting="hera")
    g = created.game
    old = Browser(app)
    assert old.join(g, created.codes["hera"]).status_code == 303
    first = recovery_shown(old, g)
    assert first is not None
    new = Browser(app)
    r = new.client.post(f"/g/{g}/seats/recover", data={"csrf": new.csrf(g), "recovery": first})
    assert r.status_code == 303
    moved = page(new, g)
    found = re.search("Hera's recovery code: " + CODE + " Write it down now", moved)
    assert found is not None and found.group(1) != first
    assert "print this page" in moved
    assert found.group(1) not in page(new, g)  # once
    deal_hera(app, g)
    before = kinds(app, g)
    third = Browser(app)
    assert "not the recovery code of a seat" in recover(third, g, first)
    assert kinds(app, g) == before and seat(third, g) == "public" and seat(new, g) == "hera"
    assert hand_seen(third, g) == []
    assert "seat is on this phone now" in recover(third, g, found.group(1))
    assert seat(third, g) == "hera" and seat(new, g) == "public"


def test_a_new_code_reaches_only_the_seats_new_phone(caplog: pytest.LogCaptureFixture) -> None:
    """Never on the other seat's pages or JSON, the log, an export or the server's logs; the
    store keeps only its hash."""
    caplog.set_level(logging.DEBUG)
    app = make_app(JUDGE_CODE=None)
    g, _, phones, seen = zeus_holds_heras_seat_then_approves_her_request(app)
    zeus_pages = [page(phones["zeus"], g), page(phones["zeus2"], g)]
    fresh = recovery_shown(phones["hera"], g)
    assert fresh is not None
    zeus_pages += [page(phones["zeus"], g), page(phones["zeus2"], g)]
    bearer = {"Authorization": f"Bearer {token_of(phones['zeus'], g)}"}
    zeus_json = phones["zeus"].get(f"/api/v1/games/{g}", headers=bearer).get_data(as_text=True)
    for text_ in [*zeus_pages, zeus_json]:
        assert fresh not in text_ and "Hera's recovery code" not in text_
    assert "recovery" not in str(phones["zeus"].get(f"/api/v1/games/{g}", headers=bearer).json)
    ref = referee_of(app)
    for s in ("hera", "zeus", "judge", "public"):
        assert fresh not in ref.export(g, s)
    assert fresh not in caplog.text
    secrets = ref.store.secrets(g)
    assert fresh not in str(secrets) and recovery_hash(fresh) in secrets.values()
    assert recovery_hash(seen) not in secrets.values()


def test_a_live_update_of_the_page_never_uses_up_the_new_code() -> None:
    """The page's script fetches the page for its live parts and reloads it when the seat
    changed: the code is issued on the page the browser shows, not on the fetch it drops."""
    app = make_app(JUDGE_CODE=None)
    g, _, phones, _ = zeus_holds_heras_seat_then_approves_her_request(app)
    live = phones["hera"].get(f"/g/{g}", headers={"X-Live-Refresh": "1"})
    assert live.status_code == 200 and "recovery code: <strong" not in live.get_data(as_text=True)
    assert recovery_shown(phones["hera"], g) is not None


def test_an_api_client_the_seat_moved_to_gets_its_new_code_on_its_next_get() -> None:
    app = make_app(JUDGE_CODE=None)
    created = referee_of(app).create_game(judged=False)
    g = created.game
    hera = Browser(app)
    assert hera.join(g, created.codes["hera"]).status_code == 303
    old = recovery_shown(hera, g)
    script = Browser(app)
    r = script.post(
        f"/api/v1/games/{g}/claim", {"code": created.codes["hera"], "ask": True}, game=g
    )
    assert r.status_code == 201 and r.json is not None and r.json["recovery"] is None
    token, request = r.json["token"], r.json["request"]
    referee_of(app).approve_seat(g, "hera", request)
    bearer = {"Authorization": f"Bearer {token}"}
    first = Browser(app).get(f"/api/v1/games/{g}", headers={**bearer, "If-None-Match": "999"})
    view = first.json
    assert first.status_code == 200 and view is not None and view["seat"] == "hera"
    code = view["recovery"]
    assert re.fullmatch(r"[A-Z0-9]{4}(-[A-Z0-9]{4}){3}", code) and code != old
    etag = first.headers["ETag"]
    again = Browser(app).get(f"/api/v1/games/{g}", headers=bearer)
    assert again.json is not None and "recovery" not in again.json  # once
    assert (
        Browser(app)
        .get(f"/api/v1/games/{g}", headers={**bearer, "If-None-Match": etag})
        .status_code
        == 304
    )
    assert referee_of(app).recover(g, code).seat == "hera"


def test_a_judged_table_gives_no_code_when_the_judge_moves_a_seat() -> None:
    app = make_app()
    created, _ = new_game(app)
    g = created.game
    new = Browser(app)
    assert new.join(g, created.codes["hera"]).status_code == 409
    assert new.ask(g, created.codes["hera"]).status_code == 303
    request = referee_of(app).log(g, "public")[-1]
    referee_of(app).approve_seat(g, "judge", request.seq)
    assert seat(new, g) == "hera"
    assert "recovery code: <strong" not in page(new, g)
    assert referee_of(app).store.secrets(g).get("recovery:hera") is None
