"""D20 unknown cards: the referee asks for an identity exactly when the outcome depends on it,
and refuses an identity that contradicts what it knows."""

from __future__ import annotations

from helpers import after, asks, discard, field, hand, pos, refused, run

from engine.herazeus import EndReason, Player, can_use_a_point
from engine.herazeus.actions import (
    Challenge,
    Draw,
    PegasusField,
    PegasusHand,
    Play,
    PythiaReveal,
    PythiaSpy,
)


def test_a_challenge_with_an_unknown_attacker_asks_for_it() -> None:
    st = pos(hera_field=[["Furies"], ["?"], ["Harpy"]])
    err = asks(st, Challenge(2), "reveal.attacker")
    assert err.asked == ("hera",)


def test_a_challenge_with_an_unknown_defender_asks_for_it() -> None:
    st = pos(zeus_field=[["Centaur"], ["?", "Giant"], ["Giant"]])
    err = asks(st, Challenge(2), "reveal.defender")
    assert err.asked == ("zeus",)
    asks(st, Challenge(2, defender="?"), "reveal.defender")  # '?' names nothing


def test_a_challenge_with_both_cards_revealed_is_ruled_on_them() -> None:
    st = pos(hera_field=[["Furies"], ["?"], ["Harpy"]], zeus_field=[["Centaur"], ["?"], ["Giant"]])
    out = run(st, Challenge(2, attacker="Nemesis", defender="Giant"))
    assert field(out.state, "hera")[1] == ["^Nemesis"]
    assert field(out.state, "zeus")[1] == []
    assert discard(out.state, "zeus") == ["Giant"]


def test_an_unknown_defender_revealed_as_the_hostage_wins() -> None:
    st = pos(zeus_field=[["Centaur"], ["?"], ["Giant"]])
    out = run(st, Challenge(2, defender="Argus"))
    assert (out.state.winner, out.state.reason) == (Player.HERA, EndReason.HOSTAGE_CHALLENGED)


def test_an_unknown_attacker_revealed_as_medusa_cannot_have_challenged() -> None:
    st = pos(hera_field=[["Furies"], ["?"], ["Harpy"]])
    refused(st, Challenge(2, attacker="Medusa"), "D11", "never starts a challenge")


def test_an_unknown_card_cannot_be_a_card_that_never_stands_on_the_field() -> None:
    st = pos(zeus_field=[["Centaur"], ["?"], ["Giant"]])
    refused(st, Challenge(2, defender="Hades"), "D10", "cannot be that card")


def test_a_reveal_that_contradicts_a_known_card_is_flagged_for_the_judge() -> None:
    st = pos(zeus_field=[["Centaur"], ["Cyclops"], ["Giant"]])
    refused(st, Challenge(2, defender="Giant"), "D20", "a judge must settle")


def test_pegasus_against_the_hand_asks_which_card_was_drawn() -> None:
    st = pos(hera_hand=["Pegasus"], zeus_hand=["?", "?"])
    asks(st, PegasusHand(), "pick", rule="D2")
    asks(st, PegasusHand(pick="?"), "pick", rule="D2")


def test_pegasus_drawing_an_unknown_strong_card_asks_where_it_goes() -> None:
    st = pos(hera_hand=["Pegasus"], zeus_hand=["?", "?"])
    asks(st, PegasusHand(pick="Poseidon"), "place", rule="D2")
    out = run(st, PegasusHand(pick="Poseidon", place=1))
    assert field(out.state, "zeus")[0] == ["^Poseidon", "Centaur"]
    assert hand(out.state, "zeus") == {"?": 1}


def test_pegasus_drawing_an_unknown_card_named_as_the_hostage_wins() -> None:
    st = pos(hera_hand=["Pegasus"], zeus_hand=["?"])
    out = run(st, PegasusHand(pick="Argus"))
    assert (out.state.winner, out.state.reason) == (Player.HERA, EndReason.HOSTAGE_BY_PEGASUS)


def test_pegasus_cannot_draw_a_card_the_known_hand_does_not_hold() -> None:
    st = pos(hera_hand=["Pegasus"], zeus_hand=["Hero"])
    refused(st, PegasusHand(pick="Poseidon"), "D20", "holds no Poseidon")


def test_pegasus_against_an_unknown_first_row_card_asks_for_it() -> None:
    st = pos(hera_hand=["Pegasus"], zeus_field=[["Centaur"], ["?"], ["Giant"]])
    asks(st, PegasusField(2), "reveal.target")
    out = run(st, PegasusField(2, target="Medusa"))
    assert field(out.state, "zeus")[1] == ["^Medusa"]


def test_pandora_hitting_the_challengers_unknown_cards_asks_for_his_order() -> None:
    st = pos(
        turn="zeus",
        hera_field=[["Furies"], ["Pandora"], ["Harpy"]],
        zeus_field=[["Centaur"], ["Cyclops", "?"], ["Giant"]],
    )
    err = asks(st, Challenge(2), "order.zeus")
    assert err.asked == ("zeus",)
    out = run(st, Challenge(2, order=((Player.ZEUS, ("Cyclops", "Giant")),)))
    assert discard(out.state, "zeus") == ["Cyclops", "Giant"]


def test_pandora_hitting_unknown_cards_asks_their_owner_for_the_order() -> None:
    st = pos(turn="zeus", hera_field=[["Furies"], ["Pandora", "?"], ["Harpy"]])
    err = asks(st, Challenge(2), "order.hera")
    assert err.asked == ("hera",)
    asks(st, Challenge(2, order=((Player.HERA, ("Pandora", "?")),)), "order.hera")
    out = run(st, Challenge(2, order=((Player.HERA, ("Harpy", "Pandora")),)))
    assert discard(out.state, "hera") == ["Harpy", "Pandora"]


def test_pandora_order_naming_the_unknown_card_as_the_hostage_decides_the_game() -> None:
    st = pos(turn="zeus", hera_field=[["Furies"], ["Pandora", "?"], ["Harpy"]])
    out = run(st, Challenge(2, order=((Player.HERA, ("Pandora", "Io")),)))
    assert (out.state.winner, out.state.reason) == (Player.ZEUS, EndReason.PANDORA_HOSTAGE)


def test_pegasus_drawing_pandora_from_a_partly_unknown_hand_asks_for_the_hand() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Pandora", "?"])
    asks(st, PegasusHand(pick="Pandora"), "order.hera")
    out = run(st, PegasusHand(pick="Pandora", order=((Player.HERA, ("Pandora", "Furies")),)))
    assert discard(out.state, "hera") == ["Pandora", "Furies"]


def test_pythia_spy_on_an_unknown_hand_asks_to_see_it() -> None:
    st = pos(hera_hand=["Pythia"], zeus_hand=["?", "Hero"])
    asks(st, PythiaSpy(), "reveal.hand")
    asks(st, PythiaSpy(hand=("?",)), "reveal.hand")
    out = run(st, PythiaSpy(hand=("Poseidon",)))
    assert hand(out.state, "zeus") == {"Hero": 1}
    assert discard(out.state, "zeus") == ["Poseidon"]


def test_pythia_reveal_of_an_unknown_column_asks_for_its_cards() -> None:
    st = pos(hera_hand=["Pythia"], zeus_field=[["Centaur"], ["?", "Giant", "?"], ["Giant"]])
    asks(st, PythiaReveal(2), "reveal.cards")
    out = run(st, PythiaReveal(2, cards=("Cyclops", "Argus")))
    assert field(out.state, "zeus")[1] == ["^Cyclops", "^Giant", "^Argus"]
    assert out.state.winner is None  # D12: nothing revealed triggers


def test_an_unknown_hand_card_can_be_played_and_stays_unknown() -> None:
    st = pos(hera_hand=["?"])
    assert field(after(st, Play("?", 1, 1)), "hera")[0] == ["?", "Furies"]


def test_an_unknown_hand_card_is_identified_when_played_by_name() -> None:
    st = pos(hera_hand=["?"])
    out = run(st, Play("Nemesis", 1, 1))
    assert field(out.state, "hera")[0] == ["Nemesis", "Furies"]
    assert hand(out.state, "hera") == {}


def test_a_draw_that_contradicts_a_known_deck_is_flagged() -> None:
    st = pos(hera_deck=["Nemesis", "Furies"])
    refused(st, Draw("Furies"), "D20", "a judge must settle")


def test_an_unknown_card_of_one_deck_cannot_turn_out_to_be_of_the_other() -> None:
    st = pos(turn="zeus", hera_field=[["Furies"], ["Pandora", "?"], ["Harpy"]])
    order = ((Player.HERA, ("Pandora", "Cyclops/zeus")),)
    refused(st, Challenge(2, order=order), "D20", "cannot be Cyclops/zeus")


def test_unknown_cards_in_a_hand_count_as_usable_for_d8() -> None:
    st = pos(hera_hand=["?"], hera_deck=0, hera_field=[["Medusa"] * 4] * 3)
    assert can_use_a_point(st)
