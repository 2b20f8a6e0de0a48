"""Deck lists (issue 12, finding 7): a game's catalogue may give only the values no source
confirms (RULES.md, "The card catalogue"); confirmed strengths and the hostage are fixed; both
players see both deck lists from the start, in the view and on their pages."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from service_helpers import make_referee
from web_helpers import make_app, new_game, referee_of

from printables.herazeus.kit import Kit
from referee.errors import Refused
from referee.herazeus.game import hz_board

KIT = Kit.create(kit_id="K7QX2", secret="5e" * 16, now=datetime(2025, 1, 1, tzinfo=UTC))


def kit_catalogue(**change: Any) -> dict[str, Any]:
    """The kit's catalogue with ``strengths`` or ``copies`` entries replaced."""
    cat = KIT.catalogue_for_game()
    for key, value in change.items():
        if key == "strengths":
            cat["strengths"] = {**cat["strengths"], **value}
        else:
            cat["copies"] = {d: {**cat["copies"][d], **value.get(d, {})} for d in cat["copies"]}
    return cat


@pytest.mark.parametrize(
    ("catalogue", "card", "field"),
    [
        (kit_catalogue(copies={"hera": {"Io": 0, "Furies": 7}}), "Io", "copies"),
        (kit_catalogue(copies={"zeus": {"Argus": 2, "Centaur": 5}}), "Argus", "copies"),
        (kit_catalogue(strengths={"Pegasus": 7}), "Pegasus", "strength"),
        (kit_catalogue(strengths={"Medusa": 7}), "Medusa", "strength"),
        (kit_catalogue(strengths={"Nemesis": 5}), "Nemesis", "strength"),
        (kit_catalogue(strengths={"Amazon": 3}), "Amazon", "strength"),
    ],
    ids=["no-io", "two-argus", "pegasus-7", "medusa-7", "nemesis-5", "amazon-3"],
)
def test_a_deck_list_that_changes_a_confirmed_value_is_refused_naming_card_field_and_rule(
    catalogue: dict[str, Any], card: str, field: str
) -> None:
    ref = make_referee()
    with pytest.raises(Refused) as e:
        ref.create_game(catalogue=catalogue)
    msg = str(e.value)
    assert card in msg and field in msg and "confirmed" in msg
    assert "The card catalogue" in msg
    assert ref.games() == []  # nothing was created


def test_the_rigged_deck_list_of_the_report_is_refused_by_the_api() -> None:
    """No Io, Pegasus and Medusa at strength 7 (issue 12): 422, nothing created."""
    app = make_app()
    _, b = new_game(app)
    rigged = kit_catalogue(
        copies={"hera": {"Io": 0, "Furies": 7}}, strengths={"Pegasus": 7, "Medusa": 7}
    )
    before = len(referee_of(app).games())
    r = b["public"].post("/api/v1/games", {"catalogue": rigged})
    assert r.status_code == 422, r.data
    assert "confirmed" in str(r.json)
    assert len(referee_of(app).games()) == before


def test_a_kit_may_set_what_no_source_confirms() -> None:
    """Copies of every card but the hostage and the god card, strengths of the cards whose
    strength is unconfirmed (Artemis, Pythia...)."""
    ref = make_referee()
    cat = kit_catalogue(
        strengths={"Artemis": 5, "Hydra": 6, "Pythia": 0},
        copies={"hera": {"Pegasus": 5, "Furies": 7}},
    )
    created = ref.create_game(catalogue=cat)
    decks = hz_board(ref.view(created.game, "zeus")).decks
    hera = {c["name"]: c for c in decks["hera"]}
    assert hera["Artemis"]["strength"] == 5 and hera["Pythia"]["strength"] == 0
    assert hera["Pegasus"]["copies"] == 5 and hera["Furies"]["copies"] == 7


@pytest.mark.parametrize("seat", ["hera", "zeus", "judge", "public"])
def test_every_seat_sees_both_deck_lists_from_the_start(seat: str) -> None:
    ref = make_referee()
    cat = kit_catalogue(strengths={"Artemis": 5}, copies={"zeus": {"Hades": 3, "Dionysus": 1}})
    created = ref.create_game(catalogue=cat)
    decks = hz_board(ref.view(created.game, seat)).decks
    assert set(decks) == {"hera", "zeus"}
    assert sum(c["copies"] for c in decks["hera"]) == 43
    assert sum(c["copies"] for c in decks["zeus"]) == 43
    zeus = {c["name"]: c for c in decks["zeus"]}
    assert zeus["Hades"]["copies"] == 3 and zeus["Argus"] == {
        "name": "Argus",
        "strength": None,
        "copies": 1,
    }
    assert {c["name"]: c["strength"] for c in decks["hera"]}["Artemis"] == 5


def test_each_player_reads_both_deck_lists_on_his_page_and_in_the_api() -> None:
    app = make_app()
    cat = kit_catalogue(copies={"zeus": {"Hades": 3, "Dionysus": 1}})
    created, b = new_game(app, catalogue=cat)
    g = created.game
    for seat in ("hera", "zeus", "judge"):
        html = b[seat].get(f"/g/{g}").get_data(as_text=True)
        section = re.search(r'<section id="decks".*?</section>', html, re.S)
        assert section is not None, seat
        text = section.group(0)
        assert 'id="deck-hera"' in text and 'id="deck-zeus"' in text
        assert re.search(r"<td>Hades</td><td>–</td><td>3</td>", text)
        assert re.search(r"<td>Poseidon</td><td>7</td><td>2</td>", text)
        api = b[seat].client.get(f"/api/v1/games/{g}").json
        assert isinstance(api, dict)
        hades = next(c for c in api["decks"]["zeus"] if c["name"] == "Hades")
        assert hades == {"name": "Hades", "strength": None, "copies": 3}
