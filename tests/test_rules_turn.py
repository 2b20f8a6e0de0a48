"""D7 action points, D8 cannot use all points, D9 no cards on the field; turn order, game over."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import after, ap, field, pos, refused, run

from engine.herazeus import Action, EndReason, Player, can_use_a_point, cost, legal_actions
from engine.herazeus.actions import (
    Challenge,
    Dionysus,
    Draw,
    EndTurn,
    God,
    Hades,
    PegasusField,
    PegasusHand,
    Persephone,
    Play,
    PythiaReveal,
    PythiaSpy,
    RemoveFigure,
    Sirens,
)

# ---- D7 ------------------------------------------------------------------------------------

EVERYTHING = {
    "hera_hand": ["Furies", "Pegasus", "Pythia", "Sirens", "Hades", "Persephone", "Dionysus"],
    "hera_discard": ["Furies"],
    "zeus_hand": ["Medusa"],
    "zeus_discard": ["Centaur"],
}


@pytest.mark.parametrize(
    "action",
    [
        Draw(),
        Play("Furies", 1),
        Challenge(3),
        PegasusHand(pick="Medusa"),
        PegasusField(1),
        PythiaSpy(),
        PythiaReveal(1),
        Sirens(),
        Hades("Furies"),
        Persephone(),
        Dionysus((1, 1), (2, 1)),
    ],
    ids=lambda a: a.text(),
)
def test_every_action_costs_one_point(action: Action) -> None:
    st = pos(**EVERYTHING)
    assert cost(action) == 1
    assert ap(after(st, action)) == (3, 1)


def test_removing_the_own_figure_costs_one_point() -> None:
    st = pos(hera_field=[["@", "Furies"], ["Hydra"], ["Harpy"]])
    assert ap(after(st, RemoveFigure())) == (4, 1)


@pytest.mark.parametrize("action", [God(1), EndTurn()], ids=["god-card", "end-turn"])
def test_the_god_card_and_ending_the_turn_are_free(action: Action) -> None:
    assert cost(action) == 0


@pytest.mark.parametrize(
    ("hera_field", "points"),
    [
        ([["Furies"], ["Hydra"], ["Harpy"]], 3),
        ([["Furies"], [], ["Harpy"]], 2),
        ([[], ["Hydra", "Harpy"], []], 1),
        ([["@", "Furies"], [], []], 4),
    ],
    ids=["three-columns", "two-columns", "one-column", "figure"],
)
def test_a_turn_has_four_points_with_the_figure_else_one_per_column_with_a_card(
    hera_field: list[list[str]], points: int
) -> None:
    assert pos(hera_field=hera_field).ap == points  # derived by the notation reader
    st = pos(turn="zeus", ap=1, used=1, hera_field=hera_field)
    assert ap(after(st, EndTurn())) == (points, 0)


@pytest.mark.parametrize(("total", "used"), [(3, 2), (2, 0), (3, 3), (1, 1)])
def test_the_god_card_makes_the_total_four_counting_points_used(total: int, used: int) -> None:
    st = pos(ap=total, used=used, hera_hand=["Hera"])
    assert ap(after(st, God(1))) == (4, used)


def test_the_god_card_after_the_last_point_gives_more_points_to_use() -> None:
    st = pos(ap=3, used=3, hera_hand=["Hera"])
    refused(st, Draw(), "D7", "no action point left")
    assert ap(after(st, God(1), Draw())) == (4, 4)


def test_losing_a_column_mid_turn_does_not_reduce_the_points() -> None:
    st = pos(
        hera_field=[["Furies"], ["Harpy"], ["Harpy"]],
        zeus_field=[["Centaur"], ["Cyclops"], ["Giant"]],
    )
    out = run(st, Challenge(2))  # Harpy 4 loses to Cyclops 5: column 2 is empty now
    assert field(out.state, "hera")[1] == []
    assert ap(out.state) == (3, 1)
    assert ap(after(out.state, Draw(), Draw())) == (3, 3)


def test_no_costly_action_once_every_point_is_used() -> None:
    refused(pos(ap=3, used=3), Draw(), "D7", "no action point left")


def test_the_turn_ends_only_with_every_point_used() -> None:
    refused(pos(ap=3, used=2), EndTurn(), "D7", "every point must be used")
    assert EndTurn() not in legal_actions(pos(ap=3, used=2))
    assert legal_actions(pos(ap=3, used=3)) == [EndTurn()]


def test_ending_the_turn_passes_it_to_the_other_player() -> None:
    out = run(pos(ap=3, used=3), EndTurn())
    assert out.state.player is Player.ZEUS
    assert ap(out.state) == (3, 0)
    assert out.state.first is False  # a turn begun inside a file is never a first turn
    assert out.state.winner is None


# ---- D8 ------------------------------------------------------------------------------------

# Hera's field is full and every front card is one that never challenges: no play, no challenge.
STUCK_FIELD = [
    ["Medusa", "Furies", "Furies", "Furies"],
    ["Pandora", "Harpy", "Harpy", "Harpy"],
    ["Medusa", "Hydra", "Hydra", "Hydra"],
]
ZEUS_STUCK_FIELD = [
    ["Medusa", "Centaur", "Centaur", "Centaur"],
    ["Pandora", "Giant", "Giant", "Giant"],
    ["Medusa", "Cyclops", "Cyclops", "Cyclops"],
]
# Hera's stuck field with room for the figure in column 1.
ROOM_FOR_FIGURE = [STUCK_FIELD[0][:3], STUCK_FIELD[1], STUCK_FIELD[2]]


def stuck(**kw: Any) -> dict[str, Any]:
    """Hera will hold only what she draws from a one-card deck; Zeus's pile shows Medusa, so
    Sirens cannot be used."""
    base: dict[str, Any] = {
        "hera_field": STUCK_FIELD,
        "hera_deck": ["Sirens"],
        "zeus_discard": ["Medusa"],
    }
    return base | kw


def test_a_player_who_cannot_use_his_points_loses_at_once() -> None:
    out = run(pos(**stuck()), Draw())
    assert (out.state.winner, out.state.reason) == (Player.ZEUS, EndReason.CANNOT_USE_AP)
    assert "D8" in out.rules


def test_a_free_god_card_that_opens_a_usable_action_saves_the_player() -> None:
    # After the god card, removing the own figure costs a point (D4): Hera does not lose.
    st = pos(**stuck(hera_field=ROOM_FOR_FIGURE, hera_deck=["Hera"]))
    out = run(st, Draw())
    assert out.state.winner is None
    assert can_use_a_point(out.state)
    assert [a for a in legal_actions(out.state) if cost(a)] == []  # only the god card helps
    assert any(isinstance(a, God) for a in legal_actions(out.state))


def test_a_god_card_that_opens_nothing_does_not_save_the_player() -> None:
    # Under kosmos the figure leaves only by a Pegasus, and Hera holds none.
    st = pos(**stuck(hera_field=ROOM_FOR_FIGURE, hera_deck=["Hera"], profile="kosmos"))
    out = run(st, Draw())
    assert (out.state.winner, out.state.reason) == (Player.ZEUS, EndReason.CANNOT_USE_AP)


def test_a_god_card_that_cannot_be_placed_does_not_save_the_player() -> None:
    out = run(pos(**stuck(hera_deck=["Hera"])), Draw())
    assert (out.state.winner, out.state.reason) == (Player.ZEUS, EndReason.CANNOT_USE_AP)


def test_a_challenge_that_is_the_only_way_to_use_a_point_must_be_taken() -> None:
    field_ = [["Furies"], STUCK_FIELD[1], STUCK_FIELD[2]]
    out = run(pos(**stuck(hera_field=field_)), Draw())
    assert out.state.winner is None
    assert [a for a in legal_actions(out.state) if cost(a)] == [Challenge(1)]


def test_nothing_is_lost_when_the_last_point_was_just_used() -> None:
    out = run(pos(**stuck(ap=1)), Draw())
    assert out.state.winner is None
    assert legal_actions(out.state) == [EndTurn()]


def test_unknown_hand_cards_keep_the_referee_from_ruling_d8() -> None:
    # HZ-P6: the player declares it and a judge confirms.
    out = run(pos(**stuck(hera_hand=["?"])), Draw())
    assert out.state.winner is None


def test_pegasus_against_an_unknown_hand_is_a_way_to_use_a_point() -> None:
    # Zeus's field is empty and his hand unknown: the Pegasus may still draw from it (D2).
    st = pos(**stuck(hera_hand=["Pegasus"], zeus_field=[[], [], []], zeus_hand=["?", "?"]))
    out = run(st, Draw())
    assert out.state.winner is None
    assert can_use_a_point(out.state)


def test_a_player_who_begins_a_turn_unable_to_use_a_point_loses() -> None:
    st = pos(ap=3, used=3, zeus_field=ZEUS_STUCK_FIELD, zeus_deck=0, hera_discard=["Medusa"])
    out = run(st, EndTurn())
    assert (out.state.winner, out.state.reason) == (Player.HERA, EndReason.CANNOT_USE_AP)


# ---- D9 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "zeus_field", [[[], [], []], [["@"], [], []]], ids=["empty", "only-the-figure"]
)
def test_a_player_who_begins_his_turn_without_a_card_on_the_field_loses(
    zeus_field: list[list[str]],
) -> None:
    out = run(pos(ap=3, used=3, zeus_field=zeus_field), EndTurn())
    assert (out.state.winner, out.state.reason) == (Player.HERA, EndReason.EMPTY_FIELD)
    assert "D9" in out.rules


def test_losing_the_last_field_card_mid_turn_does_not_end_the_game() -> None:
    st = pos(
        ap=3,
        hera_field=[[], ["Harpy"], []],
        zeus_field=[["Centaur"], ["Cyclops"], ["Giant"]],
    )
    out = run(st, Challenge(2))
    assert field(out.state, "hera") == [[], [], []]
    assert out.state.winner is None
    assert ap(after(out.state, Draw())) == (3, 2)  # she plays on; D9 waits for her next turn


def test_a_position_without_cards_for_the_player_to_move_is_not_yet_lost() -> None:
    # D9 is checked when a turn begins inside the file, not on the file's own position.
    st = pos(hera_field=[[], [], []], ap=2)
    assert ap(after(st, Draw())) == (2, 1)


def test_d9_strikes_zeus_after_hera_emptied_his_field_and_ended_her_turn() -> None:
    st = pos(
        ap=2,
        used=0,
        hera_field=[["Nemesis"], [], []],
        zeus_field=[["Centaur"], [], []],
    )
    out = run(st, Challenge(1), Draw(), EndTurn())
    assert (out.state.winner, out.state.reason) == (Player.HERA, EndReason.EMPTY_FIELD)


# ---- turn order and the end of the game ----------------------------------------------------


def test_only_the_player_whose_turn_it_is_acts() -> None:
    refused(pos(), Draw(by=Player.ZEUS), "HZ-TURN", "it is Hera's turn")
    assert ap(after(pos(), Draw(by=Player.HERA))) == (3, 1)


def test_no_action_after_the_game_is_over() -> None:
    st = after(pos(zeus_field=[["Centaur"], ["Argus"], ["Giant"]]), Challenge(2))
    assert st.is_over
    refused(st, Draw(), "HZ-OVER", "the game is over")
    assert legal_actions(st) == []
