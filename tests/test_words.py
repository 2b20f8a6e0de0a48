"""The words a person reads (issue 13, item 6): one way to write a log head, correct plurals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.herazeus import NeedsInputError
from referee.herazeus.board import describe_event_json
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
    from referee.herazeus.board import card_words, describe_event_json

    assert card_words("Pegasus/zeus") == "Pegasus (Zeus's card)"
    assert card_words("Pegasus") == "Pegasus" and card_words("?") == "?"
    line = describe_event_json({"kind": "drawn", "player": "hera", "card": "Pegasus/zeus"})
    assert line == "Hera draws Pegasus (Zeus's card)."


def test_a_challenge_reads_with_both_strengths_and_the_winner() -> None:
    """D11: the log says what was compared and who won, not only what was discarded."""
    import re

    from service_helpers import make_referee
    from test_service import first_turns, new_game

    from referee.herazeus.board import describe_event_json

    ref = make_referee()
    g = new_game(ref)  # Hera's column 1 starts with Hydra, Zeus's with Cyclops
    first_turns(ref, g)
    receipt = ref.submit(g, "hera", {"do": "challenge", "column": 1})
    lines = [describe_event_json(e) for e in receipt.events]
    said = next(line for line in lines if line and "against" in line)
    assert re.fullmatch(
        r"Hera's Hydra \(\d\) against Zeus's Cyclops \(\d\): "
        r"(Hera wins the challenge|Zeus wins the challenge|a tie: both cards are discarded)\.",
        said,
    ), said


def test_referee_replay_traces_a_game_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`referee replay` prints who did what: actions in the notation `referee rule` reads, the
    service's records as the pages say them; no record kind, no raw JSON body."""
    from service_helpers import make_referee
    from test_service import first_turns, new_game

    from web.cli import main

    ref = make_referee()
    g = new_game(ref)
    first_turns(ref, g)
    ref.call_judge(g, "hera", "the deck fell")
    receipt = ref.submit(g, "hera", {"do": "challenge", "column": 1})
    assert receipt.seq
    path = tmp_path / "game.jsonl"
    path.write_text(ref.export(g, "judge"), "utf-8")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Hera: The judge was called to the table. Reason: the deck fell" in out
    assert ("Hera's Hydra (" in out and "wins the challenge" in out) or "a tie" in out
    assert not re.search(r": (action|call|ask|undo|amend|claim) ", out), out
    assert '{"' not in out.split("\n", 1)[1]  # past the header line
