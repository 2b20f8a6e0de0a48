"""The guardian for Hera & Zeus (issue 37, D8): before an action that would leave the player
unable to use his remaining action points (he would lose at once), the referee warns him and
names the legal actions that avoid it, from the table as he sees it.

The positions are Hera's stuck field of the D8 rules tests (``test_rules_turn.py``): every
column full or nearly, every front card one that never challenges.
"""

from __future__ import annotations

from typing import Any

from helpers import pos

from engine.herazeus import EndReason, GameState, Player, apply, legal_actions
from engine.herazeus.actions import Draw, God, parse_action_text
from referee.herazeus.game import HERA_ZEUS, project
from referee.models import Caution

STUCK_FIELD = [
    ["Medusa", "Furies", "Furies", "Furies"],
    ["Pandora", "Harpy", "Harpy", "Harpy"],
    ["Medusa", "Hydra", "Hydra", "Hydra"],
]
ROOM_FOR_ONE = [STUCK_FIELD[0][:3], STUCK_FIELD[1], STUCK_FIELD[2]]  # column 1 holds one more


def god_or_card(**kw: Any) -> GameState:
    """Kosmos (the figure leaves only by a Pegasus, D4): one point left, Hera holds her god card
    and a Furies, her deck is empty. The god card (free) makes the turn's total 4 (D7) and fills
    column 1, where the Furies could have gone: two points she cannot use (D8). The Furies in
    column 1 uses her last point."""
    base: dict[str, Any] = {
        "profile": "kosmos",
        "hera_field": ROOM_FOR_ONE,
        "hera_hand": ["Hera", "Furies"],
        "hera_deck": 0,
        "ap": 3,
        "used": 2,
        "zeus_discard": ["Medusa"],
    }
    return pos(**(base | kw))


def warnings(st: GameState, text: str, seat: str = "hera") -> tuple[Caution, ...]:
    return HERA_ZEUS.guard(project(st, seat), parse_action_text(text), seat)


def test_the_god_card_that_leaves_points_unusable_is_warned_with_the_way_out() -> None:
    st = god_or_card()
    out = apply(st, God(1))
    assert (out.state.winner, out.state.reason) == (Player.ZEUS, EndReason.CANNOT_USE_AP)
    (warned,) = warnings(st, "god 1")
    assert warned.rule == "D8" and "lose at once" in warned.text
    assert warned.alternatives and all(a.startswith("play") for a in warned.alternatives)
    for text in warned.alternatives:  # every way out named is legal and does not lose by D8
        after = apply(st, parse_action_text(text)).state
        assert after.reason is not EndReason.CANNOT_USE_AP


def test_an_action_that_leaves_a_way_to_use_the_points_is_not_warned() -> None:
    st = god_or_card()
    for a in legal_actions(st):
        if not isinstance(a, God):
            assert warnings(st, a.text()) == (), a.text()


def test_a_draw_of_a_card_he_cannot_use_is_warned_with_nothing_to_offer() -> None:
    # his deck holds one Sirens, useless against Zeus's Medusa on top of the pile: after the
    # draw he is stuck with two points left (test_rules_turn's D8 case), and nothing else is open
    st = pos(hera_field=STUCK_FIELD, hera_deck=["Sirens"], zeus_discard=["Medusa"])
    assert [a.text() for a in legal_actions(st)] == [Draw().text()]
    (warned,) = warnings(st, "draw")
    assert warned.rule == "D8" and warned.alternatives == []


def test_no_warning_for_the_opponent_the_judge_or_before_play() -> None:
    st = god_or_card()
    assert warnings(st, "god 1", "zeus") == ()
    assert warnings(st, "god 1", "judge") == ()
    assert warnings(st, "god 1", "public") == ()


def test_a_card_hidden_from_him_counts_as_usable_so_nothing_is_warned() -> None:
    # the same dead end, but the referee does not know the card he would draw: in his view it
    # may be one he can use (D8 as the referee rules it), so the guardian says nothing
    st = pos(hera_field=STUCK_FIELD, hera_deck=["?"], zeus_discard=["Medusa"])
    assert warnings(st, "draw") == ()
