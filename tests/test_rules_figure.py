"""D17 the god card and the figure; D4 removing your own figure (with the kosmos variants)."""

from __future__ import annotations

import pytest
from helpers import after, ap, discard, field, hand, pos, refused, run

from engine.herazeus import Player, legal_actions
from engine.herazeus.actions import Dionysus, God, PegasusOwnFigure, Play, RemoveFigure

# ---- D17 -----------------------------------------------------------------------------------


def test_the_god_card_puts_the_figure_at_the_front_and_costs_nothing() -> None:
    st = pos(hera_hand=["Hera"], hera_field=[["Furies"], ["Hydra", "Harpy"], ["Harpy"]])
    out = run(st, God(2))
    assert field(out.state, "hera") == [["Furies"], ["@", "Hydra", "Harpy"], ["Harpy"]]
    assert discard(out.state, "hera") == ["Hera"]
    assert hand(out.state, "hera") == {}
    assert out.state.used == 0
    assert {"D17", "D7"} <= set(out.rules)


@pytest.mark.parametrize(
    ("column", "phrase"),
    [(2, "column 2 is empty"), (3, "column 3 is full")],
    ids=["empty-column", "full-column"],
)
def test_the_figure_goes_only_into_a_column_with_1_to_3_cards(column: int, phrase: str) -> None:
    st = pos(hera_hand=["Hera"], hera_field=[["Furies"], [], ["Harpy"] * 4])
    refused(st, God(column), "D17", phrase)


def test_only_one_figure_per_player() -> None:
    st = pos(hera_hand=["Hera"], hera_field=[["@", "Furies"], ["Hydra"], ["Harpy"]])
    refused(st, God(2), "D17", "already on the field")


def test_the_god_card_needs_the_god_card_in_hand() -> None:
    refused(pos(hera_hand=["Furies"]), God(1), "D17", "holds no Hera")


def test_the_god_card_may_be_played_on_the_first_turn() -> None:
    out = run(pos(first=True, hera_hand=["Hera"]), God(1))
    assert field(out.state, "hera")[0] == ["@", "Furies"]


def test_the_figure_never_moves_with_dionysus() -> None:
    st = pos(hera_hand=["Dionysus"], hera_field=[["@", "Furies"], ["Hydra"], ["Harpy"]])
    refused(st, Dionysus((1, 1), (2, 1)), "D16", "never moves the figure")


# ---- D4 ------------------------------------------------------------------------------------


def test_removing_your_own_figure_costs_one_point_and_the_cards_move_forward() -> None:
    st = pos(hera_field=[["Furies"], ["@", "Hydra", "Harpy"], ["Harpy"]])
    assert ap(st) == (4, 0)
    out = run(st, RemoveFigure())
    assert field(out.state, "hera") == [["Furies"], ["Hydra", "Harpy"], ["Harpy"]]
    assert ap(out.state) == (4, 1)  # D7: removing the figure mid-turn changes nothing
    assert "D4" in out.rules


def test_the_figure_may_be_removed_in_the_turn_it_was_placed() -> None:
    st = pos(hera_hand=["Hera"])
    out = run(st, God(1), RemoveFigure())
    assert field(out.state, "hera")[0] == ["Furies"]
    assert ap(out.state) == (4, 1)


def test_removing_a_figure_that_is_not_there_is_illegal() -> None:
    refused(pos(), RemoveFigure(), "D4", "not on the field")


def test_rio_grande_does_not_remove_the_own_figure_by_pegasus() -> None:
    st = pos(hera_hand=["Pegasus"], hera_field=[["@", "Furies"], ["Hydra"], ["Harpy"]])
    refused(st, PegasusOwnFigure(), "D4", "by an action point")
    assert PegasusOwnFigure() not in legal_actions(st)


@pytest.mark.parametrize(
    ("profile", "switches"),
    [("kosmos", None), (None, {"own_figure_removal": "pegasus"})],
    ids=["kosmos", "switch"],
)
def test_kosmos_removes_the_own_figure_only_by_a_pegasus_from_the_hand(
    profile: str | None, switches: dict[str, str] | None
) -> None:
    st = pos(
        profile=profile,
        switches=switches,
        hera_hand=["Pegasus", "Furies"],
        hera_field=[["@", "Furies"], ["Hydra"], ["Harpy"]],
    )
    refused(st, RemoveFigure(), "D4", "only by playing a Pegasus")
    out = run(st, PegasusOwnFigure())
    assert field(out.state, "hera") == [["Furies"], ["Hydra"], ["Harpy"]]
    assert discard(out.state, "hera") == ["Pegasus"]
    assert hand(out.state, "hera") == {"Furies": 1}
    assert ap(out.state) == (4, 1)
    assert RemoveFigure() not in legal_actions(st)
    assert PegasusOwnFigure() in legal_actions(st)


def test_kosmos_pegasus_removal_needs_a_pegasus() -> None:
    st = pos(profile="kosmos", hera_hand=["Furies"], hera_field=[["@", "Furies"], [], []])
    refused(st, PegasusOwnFigure(), "D4", "holds no Pegasus")


def test_kosmos_pegasus_removal_needs_the_figure_on_the_field() -> None:
    refused(pos(profile="kosmos", hera_hand=["Pegasus"]), PegasusOwnFigure(), "D4", "not on")


def test_kosmos_pegasus_removal_is_allowed_on_the_first_turn() -> None:
    # HZ-P2: removing one's own figure is not a challenge of the opponent.
    st = pos(
        profile="kosmos",
        first=True,
        hera_hand=["Pegasus"],
        hera_field=[["@", "Furies"], ["Hydra"], ["Harpy"]],
    )
    assert field(after(st, PegasusOwnFigure()), "hera")[0] == ["Furies"]


def test_own_figure_removal_both_allows_either_way() -> None:
    st = pos(
        profile="kosmos",
        switches={"own_figure_removal": "both"},
        hera_hand=["Pegasus"],
        hera_field=[["@", "Furies"], ["Hydra"], ["Harpy"]],
    )
    for action in (RemoveFigure(), PegasusOwnFigure()):
        assert field(after(st, action), "hera")[0] == ["Furies"]
        assert action in legal_actions(st)


def test_a_removed_figure_can_come_back_only_with_a_god_card() -> None:
    st = pos(hera_hand=["Furies"], hera_field=[["@", "Furies"], ["Hydra"], ["Harpy"]])
    st = after(st, RemoveFigure())
    assert not st.sides[Player.HERA].has_figure()
    assert not any(isinstance(a, God) for a in legal_actions(st))
    # and the freed front place takes a card again
    assert field(after(st, Play("Furies", 1, 1)), "hera")[0] == ["Furies", "Furies"]
