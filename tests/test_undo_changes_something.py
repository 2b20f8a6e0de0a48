"""Issue 31, item 7 (HZ-P15): an undo continues the game from the position after an earlier
event; an undo to the position the game is in now corrects nothing and is refused, naming the
rule, with nothing written."""

from __future__ import annotations

import pytest
from service_helpers import make_referee
from test_service import new_game, unseen_zeus

from referee.service import NeedsInput, Referee, Refused


@pytest.fixture
def ref() -> Referee:
    return make_referee()


def test_an_undo_to_the_present_position_is_refused_and_writes_nothing(ref: Referee) -> None:
    g = new_game(ref)
    drew = ref.submit(g, "hera", {"do": "draw", "card": "Medusa"}).seq
    records = ref.log(g, "judge")
    with pytest.raises(Refused) as info:
        ref.undo(g, "judge", drew, "continue after the draw")
    assert info.value.rule == "HZ-P15"
    assert f"an undo to event {drew} changes nothing" in str(info.value)
    assert ref.log(g, "judge") == records


def test_an_undo_after_the_last_action_but_before_later_records_is_refused_too(
    ref: Referee,
) -> None:
    g = new_game(ref)
    drew = ref.submit(g, "hera", {"do": "draw", "card": "Medusa"}).seq
    ref.call_judge(g, "zeus", "a look at the table, please")  # a record, not an action
    with pytest.raises(Refused) as info:
        ref.undo(g, "judge", drew + 1, "after the call")
    assert info.value.rule == "HZ-P15"


def test_an_undo_that_drops_an_action_is_recorded(ref: Referee) -> None:
    g = new_game(ref)
    drew = ref.submit(g, "hera", {"do": "draw", "card": "Medusa"}).seq
    rec = ref.undo(g, "judge", drew - 1, "the draw was a mis-tap")
    assert rec.kind == "undo" and rec.body["to"] == drew - 1
    with pytest.raises(Refused) as info:  # the same undo again: nothing is left to drop
        ref.undo(g, "judge", drew - 1, "once more")
    assert info.value.rule == "HZ-P15"


def test_an_undo_withdraws_an_open_question_so_it_changes_something(ref: Referee) -> None:
    g = unseen_zeus(ref)
    with pytest.raises(NeedsInput):  # Zeus's front card is asked for (HZ-P11)
        ref.submit(g, "hera", {"do": "challenge", "column": 1})
    ask = ref.log(g, "judge")[-1]
    assert ask.kind == "ask" and ref.folded(g).question is not None
    rec = ref.undo(g, "judge", ask.seq, "the challenge was announced by mistake")
    assert rec.kind == "undo" and ref.folded(g).question is None
