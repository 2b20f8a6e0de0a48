"""Issue 13, item 3 (HZ-P13): every choice the rules give a player is asked of him at the
moment the table makes it. The owner of cards lost to Pandora chooses their order on his pile
(D1), as does a player whose whole hand goes (D2) and the holder of the Poseidon and Nemesis
cards Pythia's spy finds (D12); the default order is one answer away, the
judge may answer for an absent player (HZ-P11), and a ruling file keeps the default."""

from __future__ import annotations

import re
from typing import Any

import pytest
from helpers import pos
from service_helpers import make_referee
from test_service import ZEUS_HAND, new_game, set_up
from web_helpers import HttpReferee, make_app

from engine.herazeus import NeedsInputError, Player, apply, parse_action_text
from referee.herazeus.game import hz_board
from referee.service import NeedsInput, Referee
from web.games.herazeus.present import order_choices


def pandora_in_column_1(ref: Referee, behind: str = "Nemesis", game: str | None = None) -> str:
    """Zeus's first row starts with Pandora (face down); Hera's column 1 holds her Hydra and,
    behind it, ``behind``; both first turns are played. Hera is to play. ``game``: a game
    created already (else one is made)."""
    zeus = ["Pandora" if c == "Cyclops" else c for c in ZEUS_HAND]
    if game is None:
        g = new_game(ref, zeus=zeus, zeus_row=["Pandora", "Giant", "Centaur"])
    else:
        g = game
        set_up(ref, g, zeus=zeus, zeus_row=["Pandora", "Giant", "Centaur"])
    ref.submit(g, "hera", {"do": "play", "card": behind, "column": 1})
    for _ in range(2):
        ref.submit(g, "hera", {"do": "draw"})
    ref.submit(g, "hera", {"do": "end_turn"})
    for _ in range(3):
        ref.submit(g, "zeus", {"do": "draw"})
    ref.submit(g, "zeus", {"do": "end_turn"})
    return g


def pile(ref: Referee, g: str, seat: str, owner: str) -> list[str]:
    side: dict[str, Any] = ref.view(g, seat).to_json()[owner]
    return list(side.get("discard") or [side.get("discard_top")])


def test_the_owner_of_a_column_lost_to_pandora_is_asked_its_order() -> None:
    """D1: Hera's challenge turns up Pandora; her Hydra and Nemesis go to her pile in the order
    she chooses. The challenge is recorded first (HZ-P12); Zeus sees that she is asked, and no
    card hidden from him."""
    ref = make_referee()
    g = pandora_in_column_1(ref)
    with pytest.raises(NeedsInput) as info:
        ref.submit(g, "hera", {"do": "challenge", "column": 1})
    e = info.value
    assert (e.needs, e.asked, e.rule) == ("order.hera", ("hera",), "D1")
    assert e.seq is not None and ref.log(g, "judge")[e.seq].kind == "ask"
    assert "from column 1" in e.message
    theirs = ref.view(g, "zeus").to_json()
    assert theirs["waiting"] == {"for": ["hera"], "needs": "order.hera"}
    assert "Nemesis" not in str(theirs.get("asked", ""))
    ref.answer(g, "hera", ["Nemesis", "Hydra"])
    assert pile(ref, g, "hera", "hera")[-2:] == ["Nemesis", "Hydra"]
    assert hz_board(ref.view(g, "zeus")).hera["discard_top"] == "Hydra"  # her choice on top


def test_the_default_order_is_one_answer_away() -> None:
    """D1's default: front card first, so the rearmost ends on top."""
    ref = make_referee()
    g = pandora_in_column_1(ref)
    with pytest.raises(NeedsInput):
        ref.submit(g, "hera", {"do": "challenge", "column": 1})
    ref.answer(g, "hera", ["Hydra", "Nemesis"])
    assert pile(ref, g, "hera", "hera")[-2:] == ["Hydra", "Nemesis"]


def test_the_judge_answers_for_an_absent_player() -> None:
    """HZ-P11: the judge may answer a question in the asked player's place."""
    ref = make_referee()
    g = pandora_in_column_1(ref)
    with pytest.raises(NeedsInput):
        ref.submit(g, "hera", {"do": "challenge", "column": 1})
    ref.answer(g, "judge", ["Nemesis", "Hydra"])
    assert pile(ref, g, "hera", "hera")[-1] == "Hydra"


def test_nobody_is_asked_when_the_order_cannot_matter() -> None:
    """Two Harpies on the pile look alike: the order is no choice, so nothing is asked."""
    ref = make_referee()
    zeus = ["Pandora" if c == "Cyclops" else c for c in ZEUS_HAND]
    g = new_game(ref, zeus=zeus, zeus_row=["Pandora", "Giant", "Centaur"])
    for _ in range(3):
        ref.submit(g, "hera", {"do": "draw"})
    ref.submit(g, "hera", {"do": "end_turn"})
    for _ in range(3):
        ref.submit(g, "zeus", {"do": "draw"})
    ref.submit(g, "zeus", {"do": "end_turn"})
    receipt = ref.submit(g, "hera", {"do": "challenge", "column": 1})  # Hydra alone is lost
    assert receipt.seq == len(ref.log(g, "judge")) - 1
    assert pile(ref, g, "hera", "hera")[-1] == "Hydra"


def test_a_ruling_keeps_the_default_order_and_a_table_asks() -> None:
    """A ruling file states every fact and asks nobody: the engine applies the default unless
    the referee at a table asks (``asking=True``)."""
    ref = make_referee()
    g = pandora_in_column_1(ref)
    st = ref.folded(g).state
    action = parse_action_text("challenge 1")
    out = apply(st, action)
    assert [c.name for c in out.state.sides[0].discard][-2:] == ["Hydra", "Nemesis"]
    with pytest.raises(NeedsInputError) as info:
        apply(st, action, asking=True)
    assert (info.value.needs, info.value.rule) == ("order.hera", "D1")


def test_a_whole_hand_lost_to_pandora_is_discarded_in_its_owners_order() -> None:
    """D2: Hera's Pegasus draws Pandora from Zeus's hand; he discards his whole hand in the
    order he chooses, asked after he has named the card that came out."""
    ref = make_referee()
    zeus = ["Pandora" if c == "Cyclops" else c for c in ZEUS_HAND]
    g = new_game(ref, zeus=zeus, zeus_row=["Giant", "Centaur", "Hero"])
    for _ in range(3):
        ref.submit(g, "hera", {"do": "draw"})
    ref.submit(g, "hera", {"do": "end_turn"})
    for card, column in (("Poseidon", 1), ("Apollo", 2), ("Medusa", 3)):
        ref.submit(g, "zeus", {"do": "play", "card": card, "column": column})
    ref.submit(g, "zeus", {"do": "end_turn"})
    with pytest.raises(NeedsInput) as info:
        ref.submit(g, "hera", {"do": "pegasus", "target": "hand"})
    assert info.value.needs == "pick"
    with pytest.raises(NeedsInput) as info:
        ref.answer(g, "zeus", "Pandora")
    e = info.value
    assert (e.needs, e.asked, e.rule) == ("order.zeus", ("zeus",), "D2")
    hand = hz_board(ref.view(g, "zeus")).zeus["hand"]
    assert sorted(hand) == ["Pandora", "Pegasus", "Pythia"]
    ref.answer(g, "zeus", ["Pandora", "Pythia", "Pegasus"])
    assert pile(ref, g, "zeus", "zeus")[-3:] == ["Pandora", "Pythia", "Pegasus"]


def test_the_seat_page_offers_the_default_first_and_each_card_on_top_one_tap_each() -> None:
    """Issue 13, item 3 on the page: the question reaches the owner's phone with one button
    for the default order and one per other card to put on top; one tap answers."""
    ref = HttpReferee(make_app())
    g = pandora_in_column_1(ref)  # type: ignore[arg-type]  # the service, through the API
    with pytest.raises(NeedsInput):
        ref.submit(g, "hera", {"do": "challenge", "column": 1})
    hera = ref.browser(g, "hera")
    page = hera.get(f"/g/{g}").get_data(as_text=True)
    buttons = re.findall(r'<button type="submit" name="order" value="([^"]+)"[^>]*>([^<]+)<', page)
    assert buttons == [
        ("Hydra,Nemesis", "Keep this order: Hydra, Nemesis (on top: Nemesis)"),
        ("Nemesis,Hydra", "Hydra on top"),
    ]
    zeus_page = ref.browser(g, "zeus").get(f"/g/{g}").get_data(as_text=True)
    assert 'name="order"' not in zeus_page
    r = hera.post(f"/g/{g}/answer", data={"needs": "order.hera", "order": "Nemesis,Hydra"}, game=g)
    assert r.status_code == 303
    assert pile(ref.ref, g, "hera", "hera")[-1] == "Hydra"


def test_the_poseidon_and_nemesis_found_by_pythia_go_in_their_holders_order() -> None:
    """D12: Pythia's spy finds Zeus's Poseidon and the Nemesis he took from Hera's pile (D13);
    both go onto his pile. At a table he is asked their order (HZ-P13); a ruling keeps the
    hand's order, the last one on top; one alone is never asked."""
    st = pos(hera_hand=["Pythia"], zeus_hand=["Poseidon", "Medusa", "Nemesis/hera"])
    spy = parse_action_text("pythia spy")
    out = apply(st, spy)
    assert [c.notation(Player.ZEUS) for c in out.state.sides[Player.ZEUS].discard] == [
        "Poseidon",
        "Nemesis/hera",
    ]
    assert [c.name for c in out.state.sides[Player.ZEUS].hand] == ["Medusa"]
    with pytest.raises(NeedsInputError) as info:
        apply(st, spy, asking=True)
    e = info.value
    assert (e.needs, e.rule, e.asked) == ("order.zeus", "D12", ("zeus",))
    assert "Poseidon and Nemesis" in str(e) and "Medusa" not in str(e)
    chosen = apply(
        st, parse_action_text("pythia spy order.zeus=Nemesis/hera,Poseidon"), asking=True
    )
    assert [c.name for c in chosen.state.sides[Player.ZEUS].discard] == ["Nemesis", "Poseidon"]
    alone = pos(hera_hand=["Pythia"], zeus_hand=["Poseidon", "Medusa"])
    assert [c.name for c in apply(alone, spy, asking=True).state.sides[Player.ZEUS].discard] == [
        "Poseidon"
    ]


def test_the_seat_page_offers_only_the_cards_pythia_found() -> None:
    """The one-tap answers to a D12 order question name the Poseidon and Nemesis only."""
    reason = (
        "Zeus chooses the order in which the Poseidon and Nemesis cards Pythia found in the hand "
        "go onto the discard pile (the last one ends on top)"
    )
    view = {
        "asked": {"needs": "order.zeus", "asked": ["zeus"], "reason": reason},
        "zeus": {"hand": ["Poseidon", "Medusa", "Nemesis/hera"]},
    }
    assert order_choices(view, Player.ZEUS) == [
        ("Keep this order: Poseidon, Nemesis/hera (on top: Nemesis/hera)", "Poseidon,Nemesis/hera"),
        ("Poseidon on top", "Nemesis/hera,Poseidon"),
    ]
