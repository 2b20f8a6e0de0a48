"""The position notation of POSITIONS.md: exact round trips and every class of malformed input."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from helpers import after, pos, position

from engine.herazeus import NotationError, Player, read_position, write_position
from engine.herazeus.actions import Challenge, Draw, God, PegasusHand, Sirens
from referee.herazeus.ruling import load_ruling_file


def side(
    hand: list[str] | None = None,
    deck: int | list[str] = 20,
    field: list[list[str]] | None = None,
    discard: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "hand": hand or [],
        "deck": deck,
        "field": field if field is not None else [[], [], []],
        "discard": discard or [],
    }


def canonical(**kw: Any) -> dict[str, Any]:
    """A position written exactly as write_position writes it."""
    out: dict[str, Any] = {"profile": kw.pop("profile", "rio-grande")}
    for key in ("switches", "catalogue"):
        if key in kw:
            out[key] = kw.pop(key)
    out["turn"] = kw.pop("turn", {"player": "hera", "first": False, "ap": 3, "used": 0})
    out["hera"] = kw.pop("hera")
    out["zeus"] = kw.pop("zeus")
    assert not kw
    return out


ROUND_TRIPS: dict[str, dict[str, Any]] = {
    "plain": canonical(
        hera=side(["Amazon", "Pegasus"], 20, [["Nemesis", "Hydra"], ["^Medusa"], []], ["Sirens"]),
        zeus=side(["Hero"], 17, [["Poseidon"], ["Cyclops"], ["Giant", "Giant"]], []),
    ),
    "figure-face-up-unknown": canonical(
        turn={"player": "zeus", "first": True, "ap": 4, "used": 2},
        hera=side(["?", "Io", "?"], 30, [["@", "?", "^Hydra"], ["?"], ["Furies", "?"]]),
        zeus=side([], 0, [["^Argus"], ["@", "Centaur", "Centaur", "Centaur"], []], ["Zeus"]),
    ),
    "foreign-cards": canonical(
        hera=side(
            ["Pegasus/zeus", "Poseidon/zeus"],
            12,
            [["^Cyclops/zeus", "Furies"], ["Hero/zeus"], []],
            ["Sirens", "Apollo/zeus"],
        ),
        zeus=side(["Nemesis/hera"], 9, [["Centaur"], [], ["Amazon/hera"]], ["Pegasus/hera"]),
    ),
    "deck-as-list": canonical(
        turn={"player": "hera", "first": False, "ap": 1, "used": 1},
        hera=side([], ["Nemesis", "?", "Io"], [["Hydra"], [], []]),
        zeus=side([], ["Poseidon"], [["Giant"], [], []]),
    ),
    "profile-switches-catalogue": canonical(
        profile="kosmos",
        switches={"pandora_scope": "owner", "pegasus_beside_own_figure": "forbidden"},
        catalogue={"Cyclops": 6, "Pythia": 0},
        hera=side(["Pythia"], 5, [["Furies"], ["Hydra"], ["Harpy"]]),
        zeus=side(["Pythia"], 5, [["Cyclops"], ["Giant"], ["Centaur"]]),
    ),
    "translations": canonical(
        profile="translations",
        turn={"player": "zeus", "first": False, "ap": 0, "used": 0},
        hera=side(),
        zeus=side(),
    ),
}


@pytest.mark.parametrize("raw", ROUND_TRIPS.values(), ids=ROUND_TRIPS.keys())
def test_writing_what_was_read_gives_the_same_position(raw: dict[str, Any]) -> None:
    before = copy.deepcopy(raw)
    assert write_position(read_position(raw)) == raw
    assert raw == before  # the reader does not change its input


@pytest.mark.parametrize("raw", ROUND_TRIPS.values(), ids=ROUND_TRIPS.keys())
def test_reading_what_was_written_gives_the_same_state(raw: dict[str, Any]) -> None:
    st = read_position(raw)
    assert read_position(write_position(st)) == st


def test_positions_after_actions_round_trip() -> None:
    st = pos(
        hera_hand=["Hera", "Sirens", "Pegasus"],
        zeus_hand=["Nemesis/hera", "Medusa"],
        zeus_discard=["Cyclops"],
        hera_deck=["Hydra", "?"],
    )
    for action in (God(2), Sirens(), Draw(), PegasusHand(pick="Medusa"), Challenge(1)):
        st = after(st, action)
        assert read_position(write_position(st)) == st


def test_foreign_cards_are_always_written_with_their_origin() -> None:
    st = after(pos(hera_hand=["Sirens"], zeus_discard=["Cyclops"]), Sirens())
    assert write_position(st)["hera"]["hand"] == ["Cyclops/zeus"]


def test_a_plain_name_means_the_holders_own_card_and_an_own_origin_is_dropped() -> None:
    raw = position(hera_hand=["Pegasus/hera", "Pegasus"])
    assert write_position(read_position(raw))["hera"]["hand"] == ["Pegasus", "Pegasus"]


def test_action_points_are_derived_when_absent_and_taken_as_stated_when_given() -> None:
    assert pos(hera_field=[["@", "Furies"], [], []]).ap == 4
    assert pos(hera_field=[["Furies"], [], ["Harpy"]]).ap == 2
    assert pos(hera_field=[["Furies"], [], ["Harpy"]], ap=3).ap == 3


def test_defaults_are_rio_grande_hera_to_move_and_nothing_used() -> None:
    st = read_position({"hera": {}, "zeus": {}})
    assert st.ruleset.profile.value == "rio-grande"
    assert (st.player, st.first, st.ap, st.used) == (Player.HERA, False, 0, 0)


def test_a_profile_sets_its_switches() -> None:
    assert read_position(
        {"profile": "kosmos", "hera": {}, "zeus": {}}
    ).ruleset.switches.own_figure_removal.value == ("pegasus")
    assert read_position(
        {"profile": "translations", "hera": {}, "zeus": {}}
    ).ruleset.switches.pythia_defends.value == ("always_loses")


def test_a_ruling_file_allows_id_source_note_expect_and_actions() -> None:
    import json

    raw = position() | {
        "id": "x",
        "source": "EN",
        "note": "n",
        "expect": {"legal": True},
        "actions": [{"do": "draw"}],
    }
    st, actions = load_ruling_file(json.dumps(raw))
    assert st == read_position(position())
    assert actions == [Draw()]


def test_scenario_files_may_repeat_cards_beyond_the_deck_counts() -> None:
    st = pos(hera_hand=["Nemesis"] * 12, hera_field=[["Nemesis"] * 4] * 3)
    assert len(st.sides[Player.HERA].hand) == 12


def mutate(path: str, value: Any) -> dict[str, Any]:
    """``position()`` with one value replaced (``path`` like ``hera.field.0``)."""
    raw = position()
    keys = path.split(".")
    node: Any = raw
    for k in keys[:-1]:
        node = node[int(k)] if k.isdigit() else node[k]
    last = keys[-1]
    if last.isdigit():
        node[int(last)] = value
    else:
        node[last] = value
    return raw


MALFORMED: list[tuple[str, Any, str, str]] = [
    # unknown keys
    ("colour", "red", "position", "unknown key 'colour'"),
    ("hera.colour", "red", "hera", "unknown key 'colour'"),
    ("turn.phase", "play", "turn", "unknown key 'phase'"),
    # unknown cards, decks, origins
    ("hera.hand", ["Zeus"], "hera.hand[0]", "not a card of Hera's deck"),
    ("hera.hand", ["Minotaur"], "hera.hand[0]", "unknown card"),
    ("zeus.hand", ["Furies"], "zeus.hand[0]", "Furies/hera"),
    ("hera.hand", ["Pegasus/poseidon"], "hera.hand[0]", "unknown deck"),
    ("hera.hand", [7], "hera.hand[0]", "must be a card name"),
    ("hera.field", [["Furies"], ["Cerberus"], []], "hera.field[1][0]", "unknown card"),
    ("hera.field", [["Furies"], ["Sirens"], []], "hera.field[1][0]", "never stands on the field"),
    ("hera.field", [["^?"], [], []], "hera.field[0][0]", "face-up card is always known"),
    ("hera.discard", ["?"], "hera.discard[0]", "must be named"),
    ("hera.deck", ["Cyclops/zeus"], "hera.deck[0]", "only its owner's cards"),
    ("hera.hand", "Amazon", "hera.hand", "must be a list"),
    # profiles and switches
    ("profile", "hellenic", "profile", "unknown profile 'hellenic'"),
    ("switches", {"medusa_scope": "both"}, "switches", "unknown switch 'medusa_scope'"),
    ("switches", {"pandora_scope": "all"}, "switches", "pandora_scope must be both | owner"),
    ("switches", ["pandora_scope"], "switches", "must be an object"),
    ("catalogue", {"Minotaur": 3}, "catalogue", "unknown card"),
    ("catalogue", {"Cyclops": 9}, "catalogue", "0..7"),
    ("catalogue", {"Sirens": 2}, "catalogue", "no printed strength"),
    # field shape
    ("hera.field", [["Furies"], ["Hydra"]], "hera.field", "exactly 3 columns, not 2"),
    ("hera.field", [["Furies"], [], [], []], "hera.field", "exactly 3 columns, not 4"),
    ("hera.field", "Furies", "hera.field", "exactly 3 columns"),
    ("hera.field", [["Furies"], "Hydra", []], "hera.field[1]", "a column must be a list"),
    ("hera.field", [["Furies"] * 5, [], []], "hera.field[0]", "at most 4"),
    ("hera.field", [["@", "Furies"], ["@"], []], "hera.field", "2 figures"),
    ("hera.field", [["Furies", "@"], [], []], "hera.field[0][1]", "only at the front"),
    # counts
    ("hera.hand", ["Furies"] * 13, "hera.hand", "hand limit is 12"),
    ("hera.deck", -1, "hera.deck", "cannot hold -1"),
    ("hera.deck", 44, "hera.deck", "cannot hold 44 cards (0 to 43)"),
    ("zeus.deck", 2**31, "zeus.deck", "cannot hold 2147483648"),
    ("zeus.deck", 2**63, "zeus.deck", "cannot hold 9223372036854775808"),
    ("hera.deck", ["?"] * 44, "hera.deck", "a deck holds at most 43"),
    ("turn.ap", -1, "turn.ap", "whole number"),
    ("turn.ap", 5, "turn.ap", "0 to 4 (D7)"),
    ("turn.ap", 2**63, "turn.ap", "0 to 4 (D7)"),
    ("turn.used", -2, "turn.used", "whole number"),
    ("turn.ap", "three", "turn.ap", "whole number"),
    ("turn.used", 4, "turn.used", "more than the turn has"),
    # turn
    ("turn.player", "hades", "turn.player", "not a player"),
    ("turn.first", "yes", "turn.first", "true or false"),
    ("turn", [], "turn", "must be an object"),
    ("hera", [], "hera", "must be an object"),
]


@pytest.mark.parametrize(
    ("path", "value", "where", "phrase"),
    MALFORMED,
    ids=[f"{p}={v!r}"[:40] for p, v, _, _ in MALFORMED],
)
def test_malformed_input_is_a_notation_error_naming_the_input(
    path: str, value: Any, where: str, phrase: str
) -> None:
    raw = mutate(path, value)
    if path == "turn.used":
        raw["turn"]["ap"] = 3
    with pytest.raises(NotationError) as info:
        read_position(raw)
    assert info.value.where == where
    assert phrase in str(info.value)
    assert str(info.value).startswith(f"{where}: ")


def test_a_position_must_be_an_object() -> None:
    with pytest.raises(NotationError, match="JSON object"):
        read_position(["hera", "zeus"])


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"hera": {}, "verdict": 1}', "unknown key 'verdict'"),
        ('{"hera": {}, "zeus": {}, "actions": {"do": "draw"}}', "must be a list of actions"),
        ('{"hera": {}, "zeus": {}, "actions": [{"do": "fly"}]}', "actions[0].do"),
        ('{"zeus": {}}', "hera: must be an object"),
        ('{"hera": {}, "zeus": {}, "hera": {}}', "duplicate key 'hera'"),
        ('{"hera": {"deck": NaN}, "zeus": {}}', "NaN is not a JSON number"),
        ('{"hera": {"deck": 1e999}, "zeus": {}}', "too large"),
        ('{"hera": {"deck": ' + "4" * 4301 + '}, "zeus": {}}', "4301 digits"),
        ('{"hera": {}, "zeus": {}, "note": ' + "[" * 17 + "]" * 17 + "}", "levels deep"),
        ('{"hera": {}, "zeus": {}, "note": "\\udc00"}', "lone surrogate"),
        (
            '{"hera": {}, "zeus": {}, "actions": [' + ",".join(['{"do": "draw"}'] * 1001) + "]}",
            "at most 1000",
        ),
        (
            '{"hera": {}, "zeus": {"hand": ["Hades"]}, "actions": [{"do": "draw"}, '
            '{"do": "hades", "card": "Cerberus", "by": "zeus"}]}',
            "actions[1].card: unknown card 'Cerberus'",
        ),
        (
            '{"hera": {}, "zeus": {}, "actions": [{"do": "challenge", "column": 1, '
            '"order": {"zeus": ["Giant", "Minotaur"]}}]}',
            "actions[0].order.zeus[1]: unknown card 'Minotaur'",
        ),
    ],
)
def test_a_malformed_ruling_file_is_a_notation_error(text: str, phrase: str) -> None:
    with pytest.raises(NotationError) as info:
        load_ruling_file(text, "case.json")
    assert phrase in str(info.value)
