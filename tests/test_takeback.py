"""Issue 13, item 4 (HZ-P14): a player may ask to take back his own last action while his
opponent has not acted since; the opponent accepts or declines. An accepted take-back is a
logged correction that hides what D21/D22 hide, and both phones say what to put back."""

from __future__ import annotations

import html

import pytest
from flask import Flask
from service_helpers import make_referee
from test_service import new_game
from web_helpers import HttpReferee, make_app

from referee.log import is_sealed_marker
from referee.service import Forbidden, NeedsInput, Referee, Refused


@pytest.fixture
def ref() -> Referee:
    return make_referee()


def hera_drew(ref: Referee) -> str:
    g = new_game(ref)
    ref.submit(g, "hera", {"do": "draw", "card": "Medusa"})
    return g


def test_an_accepted_take_back_undoes_the_draw_and_hides_the_card(ref: Referee) -> None:
    g = hera_drew(ref)
    before = ref.view(g, "zeus").to_json()
    proposal = ref.take_back(g, "hera")
    assert proposal.kind == "propose"
    written = ref.approve(g, "zeus", proposal.seq)
    assert [r.kind for r in written] == ["approve", "undo"]
    st = ref.folded(g).state
    assert st.used == 0 and all(c.name != "Medusa" for c in st.sides[0].hand)
    after = ref.view(g, "zeus").to_json()
    assert after["hera"]["hand_size"] == before["hera"]["hand_size"] - 1
    assert set(after["hera"]["hand"]) == {"?"}  # D22: her hand stays hers
    drew = ref.log(g, "zeus")[-4]  # the draw, as Zeus reads it: its card sealed
    assert drew.kind == "action" and is_sealed_marker(drew.body["action"]["card"])


def test_a_declined_take_back_changes_nothing(ref: Referee) -> None:
    g = hera_drew(ref)
    proposal = ref.take_back(g, "hera")
    used = ref.folded(g).state.used
    assert [r.kind for r in ref.approve(g, "zeus", proposal.seq, agree=False)] == ["decline"]
    assert ref.folded(g).state.used == used == 1


def test_only_ones_own_last_action_before_the_opponent_acts(ref: Referee) -> None:
    g = hera_drew(ref)
    with pytest.raises(Refused) as info:
        ref.take_back(g, "zeus")  # Hera's draw is not his
    assert info.value.rule == "HZ-P14"
    for _ in range(2):
        ref.submit(g, "hera", {"do": "draw"})
    ref.submit(g, "hera", {"do": "end_turn"})
    ref.submit(g, "zeus", {"do": "draw"})
    with pytest.raises(Refused) as info:
        ref.take_back(g, "hera")  # Zeus has acted since
    assert "before your opponent acts" in info.value.message


def test_the_proposer_cannot_accept_his_own_take_back(ref: Referee) -> None:
    g = hera_drew(ref)
    proposal = ref.take_back(g, "hera")
    with pytest.raises(Forbidden):
        ref.approve(g, "hera", proposal.seq)


def test_a_take_back_lapses_when_anyone_acts(ref: Referee) -> None:
    g = hera_drew(ref)
    proposal = ref.take_back(g, "hera")
    ref.submit(g, "hera", {"do": "draw"})
    with pytest.raises(Refused):
        ref.approve(g, "zeus", proposal.seq)


def test_an_action_that_turned_up_a_hidden_card_stands(ref: Referee) -> None:
    """HZ-P12: Pegasus against the hand showed Hera a card of Zeus's: it is not taken back."""
    g = new_game(ref)
    for seat in ("hera", "zeus"):
        for _ in range(3):
            ref.submit(g, seat, {"do": "draw"})
        ref.submit(g, seat, {"do": "end_turn"})
    with pytest.raises(NeedsInput):
        ref.submit(g, "hera", {"do": "pegasus", "target": "hand"})
    with pytest.raises(Refused) as info:
        ref.take_back(g, "hera")
    assert info.value.rule == "HZ-P14" and "HZ-P12" in info.value.message


def test_the_taken_back_game_verifies_and_replays(ref: Referee) -> None:
    g = hera_drew(ref)
    ref.approve(g, "zeus", ref.take_back(g, "hera").seq)
    ref.submit(g, "hera", {"do": "draw", "card": "Hydra"})
    f = ref.folded(g)
    assert f.verified and f.broken is None and f.state.used == 1


@pytest.fixture
def app() -> Flask:
    return make_app()


def test_both_phones_say_what_to_put_back(app: Flask) -> None:
    http = HttpReferee(app)
    g = new_game(http)  # type: ignore[arg-type]  # the service, through the API
    http.ref.submit(g, "hera", {"do": "draw", "card": "Medusa"})
    hera, zeus = http.browser(g, "hera"), http.browser(g, "zeus")
    assert "Take back my last action" in hera.get(f"/g/{g}").get_data(as_text=True)
    assert hera.post(f"/g/{g}/takeback", data={}, game=g).status_code == 303
    page = html.unescape(zeus.get(f"/g/{g}").get_data(as_text=True))
    assert "Hera asks to take back the last action" in page and "Accept the take-back" in page
    proposal = http.ref.seat_news(g, "zeus")["proposals"][0]["seq"]
    r = zeus.post(f"/g/{g}/proposals/approve", data={"proposal": proposal}, game=g)
    assert r.status_code == 303
    mine = html.unescape(hera.get(f"/g/{g}").get_data(as_text=True))
    theirs = html.unescape(zeus.get(f"/g/{g}").get_data(as_text=True))
    assert "Taken back: your draw. Put Medusa back on top of your deck." in mine
    assert "Taken back: Hera's draw. Hera puts the card back on top of her deck." in theirs
    assert "Put Medusa" not in theirs and "puts Medusa" not in theirs


def test_after_the_judges_undo_each_phone_says_what_to_put_back(app: Flask) -> None:
    """Issue 13: after a judge's undo the pages do not narrate the undone moves as if they
    stood: the log strikes them through, and each phone says what goes back where."""
    http = HttpReferee(app)
    g = new_game(http)  # type: ignore[arg-type]
    before = http.ref.folded(g).last_seq
    http.ref.submit(g, "hera", {"do": "draw", "card": "Medusa"})
    http.ref.submit(g, "hera", {"do": "play", "card": "Nemesis", "column": 2})
    http.ref.undo(g, "judge", before, "the wrong card was scanned")
    mine = html.unescape(http.browser(g, "hera").get(f"/g/{g}").get_data(as_text=True))
    theirs = html.unescape(http.browser(g, "zeus").get(f"/g/{g}").get_data(as_text=True))
    assert mine.index("Undone by the judge: your play into column 2. Take Nemesis back") < (
        mine.index("Undone by the judge: your draw. Put Medusa back on top of your deck.")
    )
    assert "Undone by the judge: Hera's draw. Hera puts the card back on top of her deck." in (
        theirs
    )
    assert f"(undone by event {before + 3})" in theirs
    assert "Put Medusa" not in theirs


def test_a_take_back_over_the_api(app: Flask) -> None:
    """POST /api/v1/games/<g>/takeback asks; the other player answers at /proposals."""
    http = HttpReferee(app)
    g = new_game(http)  # type: ignore[arg-type]
    http.ref.submit(g, "hera", {"do": "draw", "card": "Medusa"})
    hera, zeus = http.browser(g, "hera"), http.browser(g, "zeus")
    r = hera.post(f"/api/v1/games/{g}/takeback", None, game=g)
    assert r.status_code == 201, r.data
    proposal = int(r.json["seq"])  # type: ignore[index]
    r = hera.post(f"/api/v1/games/{g}/proposals", {"proposal": proposal, "accept": True}, game=g)
    assert r.status_code == 403, r.data  # the asker does not accept his own take-back
    r = zeus.post(f"/api/v1/games/{g}/proposals", {"proposal": proposal, "accept": True}, game=g)
    assert r.status_code == 200, r.data
    assert [x["kind"] for x in r.json["records"]] == ["approve", "undo"]  # type: ignore[index]
    r = hera.post(f"/api/v1/games/{g}/takeback", None, game=g)
    assert r.status_code == 422 and "HZ-P14" in r.get_data(as_text=True), r.data
