"""D2 Pegasus from the hand against the hand; D5 Pegasus from the hand against the first row."""

from __future__ import annotations

import pytest
from helpers import ap, asks, discard, field, hand, pos, refused, run

from engine.herazeus import EndReason, Player, legal_actions
from engine.herazeus.actions import PegasusField, PegasusHand

# ---- D2: against the hand ------------------------------------------------------------------


def test_pegasus_against_an_empty_hand_is_illegal() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=[])
    refused(st, PegasusHand(pick="Medusa"), "D2", "hand is empty")


def test_pegasus_against_the_hand_needs_a_pegasus_in_hand() -> None:
    st = pos(turn="zeus", zeus_hand=["Hades"], hera_hand=["Medusa"])
    refused(st, PegasusHand(pick="Medusa"), "D2", "holds no Pegasus")


def test_pegasus_cannot_pick_a_card_the_hand_does_not_hold() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Medusa"])
    refused(st, PegasusHand(pick="Hydra"), "D20", "holds no Hydra")


def test_pegasus_drawing_the_hostage_wins() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Furies", "Io"])
    out = run(st, PegasusHand(pick="Io"))
    assert (out.state.winner, out.state.reason) == (Player.ZEUS, EndReason.HOSTAGE_BY_PEGASUS)
    assert "D2" in out.rules


def test_pegasus_drawing_pandora_discards_the_whole_hand() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Pandora", "Furies", "Amazon"])
    out = run(st, PegasusHand(pick="Pandora"))
    assert hand(out.state, "hera") == {}
    assert sorted(discard(out.state, "hera")) == ["Amazon", "Furies", "Pandora"]
    assert out.state.winner is None


def test_a_hand_discarded_by_pandora_goes_to_the_pile_in_the_listed_order() -> None:
    # POSITIONS.md: without an order the cards go as the hand lists them, Pandora in her
    # place, so the last one listed ends on top.
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Furies", "Pandora", "Amazon"])
    assert discard(run(st, PegasusHand(pick="Pandora")).state, "hera") == [
        "Furies",
        "Pandora",
        "Amazon",
    ]
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Furies", "Amazon", "Pandora"])
    assert discard(run(st, PegasusHand(pick="Pandora")).state, "hera")[-1] == "Pandora"


def test_pegasus_drawing_pandora_from_a_hand_with_the_hostage_wins() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Pandora", "Furies", "Io"])
    out = run(st, PegasusHand(pick="Pandora"))
    assert (out.state.winner, out.state.reason) == (Player.ZEUS, EndReason.PANDORA_HOSTAGE)


def test_the_hand_lost_to_pandora_goes_in_the_order_its_owner_chooses() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Pandora", "Furies", "Amazon"])
    order = ((Player.HERA, ("Amazon", "Pandora", "Furies")),)
    out = run(st, PegasusHand(pick="Pandora", order=order))
    assert discard(out.state, "hera") == ["Amazon", "Pandora", "Furies"]


@pytest.mark.parametrize(
    "card",
    ["Medusa", "Pythia", "Hera", "Sirens", "Hades", "Persephone", "Dionysus", "Pegasus"],
)
def test_pegasus_discards_a_myth_card_or_a_strength_0_or_1_card(card: str) -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=[card, "Furies"])
    out = run(st, PegasusHand(pick=card))
    assert discard(out.state, "hera") == [card]
    assert hand(out.state, "hera") == {"Furies": 1}
    assert discard(out.state, "zeus") == ["Pegasus"]
    assert field(out.state, "hera") == [["Furies"], ["Hydra"], ["Harpy"]]


@pytest.mark.parametrize("card", ["Amazon", "Furies", "Harpy", "Hydra", "Artemis", "Nemesis"])
def test_pegasus_places_a_strength_2_to_7_card_face_up_at_the_front(card: str) -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=[card])
    out = run(st, PegasusHand(pick=card, place=2))
    assert field(out.state, "hera") == [["Furies"], [f"^{card}", "Hydra"], ["Harpy"]]
    assert hand(out.state, "hera") == {}
    assert discard(out.state, "hera") == []


def test_pegasus_may_place_the_card_in_an_empty_column() -> None:
    st = pos(
        turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Nemesis"], hera_field=[["Furies"], [], []]
    )
    out = run(st, PegasusHand(pick="Nemesis", place=3))
    assert field(out.state, "hera") == [["Furies"], [], ["^Nemesis"]]


@pytest.mark.parametrize(
    ("column", "hera_field"),
    [
        (1, [["Furies", "Hydra", "Harpy", "Harpy"], ["Hydra"], ["Harpy"]]),
        (1, [["@", "Furies"], ["Hydra"], ["Harpy"]]),
    ],
    ids=["full-column", "figure-column"],
)
def test_pegasus_may_not_place_into_a_full_or_figure_column(
    column: int, hera_field: list[list[str]]
) -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Nemesis"], hera_field=hera_field)
    refused(st, PegasusHand(pick="Nemesis", place=column), "D2", "cannot go to column 1")


def test_pegasus_discards_a_strong_card_when_no_column_can_take_it() -> None:
    full = [["@", "Furies", "Furies", "Furies"], ["Hydra"] * 4, ["Harpy"] * 4]
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Nemesis"], hera_field=full)
    out = run(st, PegasusHand(pick="Nemesis"))
    assert discard(out.state, "hera") == ["Nemesis"]
    assert field(out.state, "hera") == full
    assert any("discarded" in n for n in out.notes)


def test_pegasus_asks_which_card_it_drew() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Nemesis"])
    err = asks(st, PegasusHand(), "pick", rule="D2")
    assert set(err.asked) == {"hera", "zeus"}


def test_pegasus_asks_where_a_strong_card_goes() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_hand=["Nemesis"])
    err = asks(st, PegasusHand(pick="Nemesis"), "place", rule="D2")
    assert err.asked == ("zeus",)
    assert "1, 2, 3" in err.reason


def test_pegasus_against_the_hand_costs_one_point_and_goes_to_the_pile() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus", "Hades"], hera_hand=["Medusa"])
    out = run(st, PegasusHand(pick="Medusa"))
    assert ap(out.state) == (3, 1)
    assert hand(out.state, "zeus") == {"Hades": 1}
    assert discard(out.state, "zeus") == ["Pegasus"]


@pytest.mark.parametrize(
    "action", [PegasusHand(pick="Medusa"), PegasusField(2)], ids=["hand", "first-row"]
)
def test_pegasus_from_the_hand_is_a_challenge_and_not_allowed_on_the_first_turn(
    action: PegasusHand | PegasusField,
) -> None:
    st = pos(turn="zeus", first=True, zeus_hand=["Pegasus"], hera_hand=["Medusa"])
    refused(st, action, "D6", "first turn")


def test_legal_actions_offer_every_qualifying_column_for_a_strong_card() -> None:
    st = pos(
        turn="zeus",
        zeus_hand=["Pegasus"],
        hera_hand=["Nemesis"],
        hera_field=[["Furies"] * 4, ["@", "Hydra"], []],
    )
    picks = [a for a in legal_actions(st) if isinstance(a, PegasusHand)]
    assert picks == [PegasusHand(pick="Nemesis", place=3)]


# ---- D5: against the first row -------------------------------------------------------------


def test_pegasus_against_the_first_row_hostage_wins() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_field=[["Furies"], ["Io"], ["Harpy"]])
    out = run(st, PegasusField(2))
    assert (out.state.winner, out.state.reason) == (Player.ZEUS, EndReason.HOSTAGE_CHALLENGED)
    assert "D5" in out.rules


def test_pegasus_against_a_first_row_medusa_leaves_her_face_up() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_field=[["Furies"], ["Medusa"], ["Harpy"]])
    out = run(st, PegasusField(2))
    assert field(out.state, "hera") == [["Furies"], ["^Medusa"], ["Harpy"]]
    assert discard(out.state, "zeus") == ["Pegasus"]


@pytest.mark.parametrize("card", ["Pegasus", "Pythia"])
def test_pegasus_discards_a_first_row_card_of_strength_0_or_1(card: str) -> None:
    st = pos(
        turn="zeus", zeus_hand=["Pegasus"], hera_field=[["Furies"], [card, "Hydra"], ["Harpy"]]
    )
    out = run(st, PegasusField(2))
    assert field(out.state, "hera") == [["Furies"], ["Hydra"], ["Harpy"]]
    assert discard(out.state, "hera") == [card]


@pytest.mark.parametrize("card", ["Amazon", "Furies", "Nemesis"])
def test_pegasus_leaves_a_first_row_card_of_strength_2_to_7_face_up(card: str) -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_field=[["Furies"], [card], ["Harpy"]])
    out = run(st, PegasusField(2))
    assert field(out.state, "hera") == [["Furies"], [f"^{card}"], ["Harpy"]]
    assert discard(out.state, "hera") == []


def test_pegasus_sends_the_figure_back_and_its_column_closes_up() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_field=[["Furies"], ["@", "Hydra"], ["Harpy"]])
    out = run(st, PegasusField(2))
    assert field(out.state, "hera") == [["Furies"], ["Hydra"], ["Harpy"]]
    assert not out.state.sides[Player.HERA].has_figure()
    assert discard(out.state, "hera") == []


def test_pegasus_against_an_empty_column_is_illegal() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_field=[["Furies"], [], ["Harpy"]])
    refused(st, PegasusField(2), "D5", "no card or figure in column 2")


def test_pegasus_may_target_the_card_opposite_its_own_figure() -> None:
    st = pos(
        turn="zeus",
        zeus_hand=["Pegasus"],
        hera_field=[["Furies"], ["Pegasus"], ["Harpy"]],
        zeus_field=[["Centaur"], ["@", "Cyclops"], ["Giant"]],
    )
    out = run(st, PegasusField(2))
    assert field(out.state, "hera")[1] == []
    assert discard(out.state, "hera") == ["Pegasus"]


@pytest.mark.parametrize("profile", [None, "kosmos", "translations"])
def test_pegasus_beside_own_figure_forbidden_switch(profile: str | None) -> None:
    st = pos(
        turn="zeus",
        profile=profile,
        switches={"pegasus_beside_own_figure": "forbidden"},
        zeus_hand=["Pegasus"],
        hera_field=[["Furies"], ["Pegasus"], ["Harpy"]],
        zeus_field=[["Centaur"], ["@", "Cyclops"], ["Giant"]],
    )
    refused(st, PegasusField(2), "D5", "own figure")
    assert PegasusField(2) not in legal_actions(st)
    assert PegasusField(1) in legal_actions(st)


@pytest.mark.parametrize("profile", [None, "kosmos", "translations"])
def test_the_own_figure_never_stops_a_pegasus_against_the_opponents_figure(
    profile: str | None,
) -> None:
    # D5 clarified: under `forbidden` the own figure still lets a Pegasus hit the opponent's
    # figure opposite it (the only way to remove that figure).
    st = pos(
        turn="zeus",
        profile=profile,
        switches={"pegasus_beside_own_figure": "forbidden"},
        zeus_hand=["Pegasus"],
        hera_field=[["Furies"], ["@", "Pegasus"], ["Harpy"]],
        zeus_field=[["Centaur"], ["@", "Cyclops"], ["Giant"]],
    )
    assert PegasusField(2) in legal_actions(st)
    out = run(st, PegasusField(2))
    assert field(out.state, "hera")[1] == ["Pegasus"]  # the figure is back in the supply
    assert field(out.state, "zeus")[1] == ["@", "Cyclops"]
    assert discard(out.state, "zeus") == ["Pegasus"]
    assert "D5" in out.rules


def test_pegasus_against_the_first_row_costs_one_point() -> None:
    st = pos(turn="zeus", zeus_hand=["Pegasus"], hera_field=[["Furies"], ["Amazon"], ["Harpy"]])
    assert ap(run(st, PegasusField(2)).state) == (3, 1)
