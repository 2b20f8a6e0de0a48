"""One shape, one definition (STYLE.md 15): the API's schemas of a seat's view, a receipt, a
ruling and the overview are generated from the service's types (``referee/models.py`` and each
game's board view and ruling result: :func:`web.openapi.typed_components`), so the document
cannot promise another shape than the service returns. These tests check what the service
returns against them, for every registered game."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from service_helpers import make_referee
from test_minotaur_privacy import DECKS
from test_service import first_turns, new_game

from referee.games import GAMES
from referee.models import Receipt, SeatView
from referee.service import Referee
from web.openapi import REF, VIEW_WEB, typed_components

COMPONENTS = typed_components()
# what a view has only sometimes: a question, the seat's legal actions, a kit's id, a player's
# playable cards, and what the web adds
SOMETIMES = {"asked", "waiting", "legal", "kit_id", "playable", *VIEW_WEB}


def component(ref: str) -> dict[str, Any]:
    return COMPONENTS[ref.removeprefix(REF)]


def fits(value: dict[str, Any], schema: dict[str, Any]) -> None:
    """Every key of ``value`` is a property of ``schema``, and every required one is there."""
    props = set(schema["properties"])
    assert set(value) <= props, sorted(set(value) - props)
    missing = set(schema.get("required", ())) - set(value)
    assert not missing, sorted(missing)


@pytest.fixture(scope="module")
def tables() -> tuple[Referee, dict[str, str]]:
    """A referee with a table of each registered game."""
    ref = make_referee()
    hz = ref.create_game().game
    ml = ref.create_game(name="minotaur", options={"deck_list": DECKS, "first": "vess"}).game
    return ref, {"hera-zeus": hz, "minotaur": ml}


def views(ref: Referee, game: str) -> dict[str, SeatView[Any]]:
    g = GAMES[ref.game_info(game).module]
    return {seat: ref.view(game, seat) for seat in (*g.players, "judge", "public")}


def test_the_documents_view_is_one_of_every_registered_games_views(
    tables: tuple[Referee, dict[str, str]],
) -> None:
    assert set(tables[1]) == set(GAMES)
    listed = [x["$ref"] for x in COMPONENTS["View"]["anyOf"]]
    assert listed == [REF + g.board_type.__name__ + "View" for g in GAMES.values()]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_seats_view_has_the_keys_its_games_schema_names(
    name: str, tables: tuple[Referee, dict[str, str]]
) -> None:
    ref, games = tables
    schema = COMPONENTS[GAMES[name].board_type.__name__ + "View"]
    seen: set[str] = set()
    for view in views(ref, games[name]).values():
        fits(view.to_json(), schema)
        seen |= set(view.to_json())
    assert set(schema["properties"]) - seen <= SOMETIMES  # no key the service never writes


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_views_json_reads_back_as_the_same_typed_view(
    name: str, tables: tuple[Referee, dict[str, str]]
) -> None:
    ref, games = tables
    for view in views(ref, games[name]).values():
        assert SeatView.from_json(view.to_json(), GAMES[name].board_type) == view


def test_json_with_a_value_of_the_wrong_type_does_not_read_as_a_view(
    tables: tuple[Referee, dict[str, str]],
) -> None:
    ref, games = tables
    raw = ref.view(games["hera-zeus"], "hera").to_json()
    raw["hera"] = {**raw["hera"], "hand_size": "nine"}
    with pytest.raises(msgspec.ValidationError, match="hand_size"):
        SeatView.from_json(raw, GAMES["hera-zeus"].board_type)


def test_the_receipt_schema_is_the_receipts_json_and_the_webs_replayed(
    tables: tuple[Referee, dict[str, str]],
) -> None:
    ref, games = tables
    r = Receipt(seq=1, events=[], view=ref.view(games["hera-zeus"], "hera"))
    fits(r.to_json(), COMPONENTS["Receipt"])
    assert set(COMPONENTS["Receipt"]["properties"]) - set(r.to_json()) == {"replayed"}


def test_a_ruling_has_the_keys_of_its_games_ruling_schema() -> None:
    ref = make_referee()
    g = new_game(ref)
    first_turns(ref, g, hera=["Pythia", "Medusa", "Pandora"], zeus=["Hero", "Hero", "Argus"])
    ruling = ref.ruling(g, "judge", {"do": "challenge", "column": 2}).to_json()
    (hz, _ml) = (component(x["$ref"]) for x in COMPONENTS["Ruling"]["anyOf"])
    fits(ruling, hz)
    fits(ruling["result"], component(hz["properties"]["result"]["$ref"]))
    assert ruling["legal"] is True and ruling["citations"]
