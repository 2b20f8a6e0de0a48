"""The words a person reads (issue 13, item 6): one way to write a log head, correct plurals."""

from __future__ import annotations

import pytest

from engine import NeedsInputError
from referee.board import describe_event_json
from referee.words import head_text, plural


@pytest.mark.parametrize(
    ("count", "noun", "said"),
    [
        (1, "call", "1 call"),
        (2, "call", "2 calls"),
        (0, "call", "0 calls"),
        (1, "irregularity", "1 irregularity"),
        (3, "irregularity", "3 irregularities"),
        (1, "action point", "1 action point"),
        (2, "action point", "2 action points"),
        (1, "record", "1 record"),
        (2, "match", "2 matches"),
        (2, "day", "2 days"),
    ],
)
def test_a_count_goes_with_its_noun(count: int, noun: str, said: str) -> None:
    assert plural(count, noun) == said


def test_a_head_is_written_as_verify_head_reads_it() -> None:
    assert head_text(39, "18a78063" + "0" * 56) == "39:18a78063"


def test_a_turn_of_one_action_point_says_point() -> None:
    said = describe_event_json({"kind": "turn_began", "player": "hera", "ap": 1})
    assert said == "Hera's turn begins with 1 action point."
    said = describe_event_json({"kind": "points", "player": "zeus", "ap": 3})
    assert said == "Zeus's turn now has 3 action points."


def test_a_question_of_the_engine_reads_as_words_with_its_rule() -> None:
    e = NeedsInputError("D2", "place", "the card Pegasus drew goes to a column: which one?")
    assert str(e) == "the card Pegasus drew goes to a column: which one? [D2]"  # not "give place"


def test_a_card_of_the_other_deck_reads_with_its_origin_in_words() -> None:
    """D13: a card Sirens took stays its deck's; people read "Pegasus (Zeus's card)", never
    the notation's "Pegasus/zeus"."""
    from referee.board import card_words, describe_event_json

    assert card_words("Pegasus/zeus") == "Pegasus (Zeus's card)"
    assert card_words("Pegasus") == "Pegasus" and card_words("?") == "?"
    line = describe_event_json({"kind": "drawn", "player": "hera", "card": "Pegasus/zeus"})
    assert line == "Hera draws Pegasus (Zeus's card)."
