"""Several observations at once (the cards of one photo) are recorded all or nothing
(issue 12, finding 7): each is judged on the table the ones before it leave; one refusal
records none of them and names the refused card."""

from __future__ import annotations

import pytest
from service_helpers import make_referee

from referee.errors import Forbidden, Refused
from referee.herazeus.game import hz_board
from referee.service import Referee


def hand(card: str, player: str = "hera") -> dict[str, str]:
    return {"player": player, "zone": "hand", "card": card, "source": "camera"}


def dealt(cards: list[str]) -> tuple[Referee, str]:
    ref = make_referee()
    g = ref.create_game().game
    ref.submit(g, "hera", {"do": "deal", "player": "hera", "cards": cards})
    return ref, g


def test_all_accepted_observations_are_written_in_one_go() -> None:
    ref, g = dealt(["?"] * 9)
    before = len(ref.log(g, "judge"))
    recs = ref.observe_all(g, "hera", [hand("Medusa"), hand("Pandora"), hand("Hydra")])
    assert [r.body["card"] for r in recs] == ["Medusa", "Pandora", "Hydra"]
    assert len(ref.log(g, "judge")) == before + 3
    assert sorted(hz_board(ref.view(g, "hera")).hera["hand"]) == sorted(
        ["Hydra", "Medusa", "Pandora", *["?"] * 6]
    )


def test_each_card_is_judged_on_the_table_the_cards_before_it_leave() -> None:
    """One unknown card in Hera's hand: the first card of the photo identifies it, so the
    second is no longer an unseen card but a contradiction for the judge (D20)."""
    known = ["Amazon", "Artemis", "Furies", "Harpy", "Nemesis", "Pegasus", "Dionysus", "Hydra"]
    ref, g = dealt(["?", *known])
    ref.observe_all(g, "hera", [hand("Medusa"), hand("Pythia")])
    recs = ref.log(g, "judge")[-2:]  # the irregularity is the judge's (D20)
    assert recs[0].body["identifies"] and recs[0].body["irregularity"] is None
    assert not recs[1].body["identifies"] and recs[1].body["irregularity"]["rule"] == "D20"
    assert sorted(hz_board(ref.view(g, "hera")).hera["hand"]) == sorted([*known, "Medusa"])


def test_one_refused_card_records_none_and_is_named() -> None:
    """Hera's only Pandora stands in her first row (catalogue: one copy): a Pandora read in
    her hand is refused, and the Medusa read with it is not recorded either."""
    ref, g = dealt(["Pandora", "Pythia", "Medusa", *["?"] * 6])
    ref.submit(
        g, "hera", {"do": "first_row", "player": "hera", "cards": ["Pandora", "Pythia", "Medusa"]}
    )
    before = len(ref.log(g, "judge"))
    with pytest.raises(Refused) as e:
        ref.observe_all(g, "hera", [hand("Medusa"), hand("Pandora")])
    assert e.value.message.startswith("Pandora: ") and e.value.rule == "D20"
    assert "none of the 2 cards was recorded" in e.value.message
    assert len(ref.log(g, "judge")) == before
    assert hz_board(ref.view(g, "hera")).hera["hand"] == ["?"] * 6


def test_a_card_the_seat_may_not_state_refuses_the_whole_photo() -> None:
    ref, g = dealt(["?"] * 9)
    before = len(ref.log(g, "judge"))
    with pytest.raises(Forbidden, match="none of the 2 cards was recorded"):
        ref.observe_all(g, "zeus", [hand("Cyclops", "zeus"), hand("Medusa")])
    assert len(ref.log(g, "judge")) == before


@pytest.mark.parametrize(
    ("observations", "problem"),
    [([], "observations: 1 to 60, not 0"), ("Medusa", "observations: must be a list")],
)
def test_an_empty_or_malformed_list_is_refused_naming_it(
    observations: object, problem: str
) -> None:
    ref, g = dealt(["?"] * 9)
    with pytest.raises(Refused, match=problem):
        ref.observe_all(g, "hera", observations)  # type: ignore[arg-type]
