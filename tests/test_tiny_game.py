"""Tiny Duel, the tests' third game (tests/games/tiny/), keeps its own rules through the
shared service: hidden hands (T1), a card played face down (T5), a card stated only by the
seat that may see it (T1), the legal list, the end and the winner (T4)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from contract_games import TINY_DUEL
from privacy_property import ServiceDriver

from referee.errors import Forbidden, Refused


@pytest.fixture
def d() -> Iterator[ServiceDriver]:
    with TINY_DUEL.registered():
        yield ServiceDriver.new(0)


def dealt(d: ServiceDriver) -> str:
    g = d.create_game(name="tiny").game
    d.submit(g, "east", {"do": "deal", "by": "east", "cards": ["1", "4", "6"]})
    d.submit(g, "west", {"do": "deal", "by": "west", "cards": ["2", "3", "5"]})
    return g


def test_a_hand_is_its_holders_and_the_judges_only(d: ServiceDriver) -> None:
    g = dealt(d)
    assert d.view(g, "east")["hands"] == {"east": ["1", "4", "6"], "west": ["?", "?", "?"]}
    assert d.view(g, "public")["hands"] == {"east": ["?"] * 3, "west": ["?"] * 3}
    assert d.view(g, "judge")["hands"]["west"] == ["2", "3", "5"]


def test_only_a_cards_holder_states_it(d: ServiceDriver) -> None:
    g = d.create_game(name="tiny").game
    before = d.ref.head(g)
    with pytest.raises(Forbidden, match="only West or the judge"):
        d.submit(g, "east", {"do": "deal", "by": "west", "cards": ["1", "2", "3"]})
    assert d.ref.head(g) == before


def test_a_card_face_down_is_hidden_until_both_are_revealed(d: ServiceDriver) -> None:
    g = dealt(d)
    d.submit(g, "east", {"do": "play", "card": "4"})
    assert d.view(g, "west")["slots"] == {"east": "?", "west": None}
    assert d.view(g, "east")["slots"] == {"east": "4", "west": None}
    assert d.view(g, "west")["legal"] == [
        '{"do":"play","card":"2"}',
        '{"do":"play","card":"3"}',
        '{"do":"play","card":"5"}',
    ]
    assert "legal" not in d.view(g, "east")  # not his turn
    receipt = d.submit(g, "west", {"do": "play", "card": "5"})
    revealed = next(e for e in receipt.events if e.get("event") == "revealed")
    assert revealed["cards"] == {"east": "4", "west": "5"} and revealed["won"] == "west"
    assert d.view(g, "east")["wins"] == {"east": 0, "west": 1}


def test_a_card_not_in_the_hand_is_refused_with_its_rule(d: ServiceDriver) -> None:
    g = dealt(d)
    with pytest.raises(Refused, match="not in East's hand") as e:
        d.submit(g, "east", {"do": "play", "card": "2"})
    assert e.value.to_json()["rule"] == "T2"


def test_three_rounds_end_the_game_with_its_winner(d: ServiceDriver) -> None:
    g = dealt(d)
    # round 1: East leads; round 2: West; round 3: East (T2)
    for seat, card in [("east", "1"), ("west", "2"), ("west", "3"), ("east", "4")]:
        d.submit(g, seat, {"do": "play", "card": card})
    d.submit(g, "east", {"do": "play", "card": "6"})
    d.submit(g, "west", {"do": "play", "card": "5"})
    v = d.view(g, "public")
    assert (v["phase"], v["winner"], v["reason"]) == ("over", "east", "rounds")
    assert v["wins"] == {"east": 2, "west": 1}
