"""Actions: JSON (POSITIONS.md) and text forms round-trip; malformed input is a NotationError."""

from __future__ import annotations

from typing import Any

import pytest

from engine.herazeus import Action, NotationError, Player, parse_action, parse_action_text
from engine.herazeus.actions import (
    ActionKind,
    Challenge,
    Deal,
    DeclareStuck,
    Dionysus,
    Draw,
    EndTurn,
    FirstRow,
    God,
    Hades,
    PegasusField,
    PegasusHand,
    PegasusOwnFigure,
    Persephone,
    Play,
    PythiaReveal,
    PythiaSpy,
    Redeal,
    Redraw,
    RemoveFigure,
    Sirens,
    Starter,
    card_names,
)

H, Z = Player.HERA, Player.ZEUS

# Every action kind, with and without its optional parts, beside its JSON form.
GOLDEN: list[tuple[Action, dict[str, Any]]] = [
    (Draw(), {"do": "draw"}),
    (Draw("Cyclops"), {"do": "draw", "card": "Cyclops"}),
    (
        Play("Cyclops", 2, 1),
        {"do": "play", "card": "Cyclops", "column": 2, "position": 1},
    ),
    (Play("Pegasus/zeus", 3), {"do": "play", "card": "Pegasus/zeus", "column": 3}),
    (Challenge(2), {"do": "challenge", "column": 2}),
    (
        Challenge(2, attacker="Giant", defender="Hydra"),
        {"do": "challenge", "column": 2, "reveal": {"attacker": "Giant", "defender": "Hydra"}},
    ),
    (
        Challenge(2, order=((H, ("Furies", "Pandora")), (Z, ("Giant",)))),
        {
            "do": "challenge",
            "column": 2,
            "order": {"hera": ["Furies", "Pandora"], "zeus": ["Giant"]},
        },
    ),
    (PegasusHand(), {"do": "pegasus", "target": "hand"}),
    (
        PegasusHand(pick="Medusa"),
        {"do": "pegasus", "target": "hand", "pick": "Medusa"},
    ),
    (
        PegasusHand(pick="Nemesis", place=3),
        {"do": "pegasus", "target": "hand", "pick": "Nemesis", "place": 3},
    ),
    (
        PegasusHand(pick="Pandora", order=((H, ("Pandora", "Io")),)),
        {
            "do": "pegasus",
            "target": "hand",
            "pick": "Pandora",
            "order": {"hera": ["Pandora", "Io"]},
        },
    ),
    (PegasusField(2), {"do": "pegasus", "target": "field", "column": 2}),
    (
        PegasusField(2, target="Medusa"),
        {"do": "pegasus", "target": "field", "column": 2, "reveal": {"target": "Medusa"}},
    ),
    (PegasusOwnFigure(), {"do": "pegasus", "target": "own_figure"}),
    (PythiaSpy(), {"do": "pythia", "mode": "spy"}),
    (
        PythiaSpy(hand=("Poseidon", "Hero")),
        {"do": "pythia", "mode": "spy", "reveal": {"hand": ["Poseidon", "Hero"]}},
    ),
    (PythiaReveal(1), {"do": "pythia", "mode": "reveal", "column": 1}),
    (
        PythiaReveal(1, cards=("Cyclops", "Argus")),
        {"do": "pythia", "mode": "reveal", "column": 1, "reveal": {"cards": ["Cyclops", "Argus"]}},
    ),
    (Sirens(), {"do": "sirens"}),
    (Hades("Pegasus"), {"do": "hades", "card": "Pegasus"}),
    (Hades("Pegasus/zeus"), {"do": "hades", "card": "Pegasus/zeus"}),
    (Persephone(), {"do": "persephone"}),
    (Dionysus((1, 2), (3, 1)), {"do": "dionysus", "from": [1, 2], "to": [3, 1]}),
    (God(2), {"do": "god", "column": 2}),
    (RemoveFigure(), {"do": "remove_figure"}),
    (EndTurn(), {"do": "end_turn"}),
    (DeclareStuck(), {"do": "declare_stuck"}),
    (Draw(by=Z), {"do": "draw", "by": "zeus"}),
    (
        Dionysus((1, 1), (1, 2), by=H),
        {"do": "dionysus", "from": [1, 1], "to": [1, 2], "by": "hera"},
    ),
    (Starter(Z), {"do": "starter", "player": "zeus"}),
    (
        Deal(H, ("Io", "Hydra", "?", "?", "?", "?", "?", "?", "?")),
        {"do": "deal", "player": "hera", "cards": ["Io", "Hydra"] + ["?"] * 7},
    ),
    (Redraw(H), {"do": "redraw", "player": "hera"}),
    (
        Redraw(Z, card="Giant", at=4),
        {"do": "redraw", "player": "zeus", "card": "Giant", "at": 4},
    ),
    (
        Redeal(Z, ("?",) * 9, shown=("Hades", "Sirens")),
        {"do": "redeal", "player": "zeus", "cards": ["?"] * 9, "shown": ["Hades", "Sirens"]},
    ),
    (
        Redeal(H, ("Hydra",) * 9, deck=("Harpy", "Io")),
        {"do": "redeal", "player": "hera", "cards": ["Hydra"] * 9, "deck": ["Harpy", "Io"]},
    ),
    (
        FirstRow(H, ("Hydra", "Harpy", "Furies")),
        {"do": "first_row", "player": "hera", "cards": ["Hydra", "Harpy", "Furies"]},
    ),
]

IDS = [a.text() for a, _ in GOLDEN]


def test_the_golden_table_holds_every_action_kind() -> None:
    assert {a.kind for a, _ in GOLDEN} == set(ActionKind)


@pytest.mark.parametrize(("action", "json_form"), GOLDEN, ids=IDS)
def test_an_action_writes_the_json_of_positions_md(
    action: Action, json_form: dict[str, Any]
) -> None:
    assert action.to_json() == json_form


@pytest.mark.parametrize(("action", "json_form"), GOLDEN, ids=IDS)
def test_an_action_reads_back_from_its_json(action: Action, json_form: dict[str, Any]) -> None:
    assert parse_action(json_form) == action
    assert parse_action(action.to_json()) == action


@pytest.mark.parametrize(("action", "json_form"), GOLDEN, ids=IDS)
def test_an_action_reads_back_from_its_text(action: Action, json_form: dict[str, Any]) -> None:
    text = action.text()
    assert parse_action_text(text) == action
    assert str(action) == text


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("draw Cyclops", Draw("Cyclops")),
        ("play Cyclops 2.1", Play("Cyclops", 2, 1)),
        ("challenge 2 attacker=Giant defender=Hydra", Challenge(2, "Giant", "Hydra")),
        ("pegasus hand pick=Medusa place=3", PegasusHand(pick="Medusa", place=3)),
        ("pegasus field 2", PegasusField(2)),
        ("pythia spy", PythiaSpy()),
        ("pythia reveal 1", PythiaReveal(1)),
        ("hades Pegasus", Hades("Pegasus")),
        ("dionysus 1.2>3.1", Dionysus((1, 2), (3, 1))),
        ("god 2", God(2)),
        ("remove-figure", RemoveFigure()),
        ("end", EndTurn()),
        ("starter hera", Starter(H)),
        ("redraw hera card=Hydra", Redraw(H, card="Hydra")),
        ("first-row hera Nemesis,Hydra,Harpy", FirstRow(H, ("Nemesis", "Hydra", "Harpy"))),
        (
            "redeal zeus ?,?,?,?,?,?,?,?,? shown=Hades,Sirens",
            Redeal(Z, ("?",) * 9, shown=("Hades", "Sirens")),
        ),
        (
            "challenge 2 order.hera=Pandora,Io by=zeus",
            Challenge(2, order=((H, ("Pandora", "Io")),), by=Z),
        ),
    ],
)
def test_the_documented_text_forms_parse(text: str, action: Action) -> None:
    assert parse_action_text(text) == action


MALFORMED_JSON: list[tuple[Any, str]] = [
    ("draw", "action"),
    ({"card": "Cyclops"}, "action.do"),
    ({"do": "fly"}, "action.do"),
    ({"do": "play", "card": "Cyclops"}, "action.column"),
    ({"do": "play", "card": "Cyclops", "column": 0}, "action.column"),
    ({"do": "play", "card": "Cyclops", "column": 4}, "action.column"),
    ({"do": "play", "card": "Cyclops", "column": "2"}, "action.column"),
    ({"do": "play", "card": "Cyclops", "column": True}, "action.column"),
    ({"do": "play", "card": "Cyclops", "column": 1, "position": 5}, "action.position"),
    ({"do": "play", "column": 1}, "action.card"),
    ({"do": "play", "card": "", "column": 1}, "action.card"),
    ({"do": "draw", "colour": "red"}, "action"),
    ({"do": "draw", "by": "poseidon"}, "action.by"),
    ({"do": "challenge", "column": 2, "reveal": "Giant"}, "action.reveal"),
    ({"do": "challenge", "column": 2, "reveal": {"target": "Giant"}}, "action.reveal"),
    ({"do": "challenge", "column": 2, "reveal": {"attacker": 7}}, "action.reveal.attacker"),
    ({"do": "challenge", "column": 2, "order": ["Pandora"]}, "action.order"),
    ({"do": "challenge", "column": 2, "order": {"hades": []}}, "action.order"),
    ({"do": "challenge", "column": 2, "order": {"hera": "Pandora"}}, "action.order.hera"),
    ({"do": "pegasus", "target": "deck"}, "action.target"),
    ({"do": "pegasus", "target": "hand", "place": 4}, "action.place"),
    ({"do": "pegasus", "target": "field"}, "action.column"),
    ({"do": "pythia", "mode": "peek"}, "action.mode"),
    ({"do": "pythia", "mode": "spy", "reveal": {"hand": "Poseidon"}}, "action.reveal.hand"),
    ({"do": "hades"}, "action.card"),
    ({"do": "dionysus", "from": [1], "to": [2, 1]}, "action.from"),
    ({"do": "dionysus", "from": [1, 1], "to": [2, 5]}, "action.to"),
    ({"do": "god"}, "action.column"),
    ({"do": "starter"}, "action.player"),
    ({"do": "deal", "player": "hera", "cards": "Io"}, "action.cards"),
    ({"do": "redraw", "player": "hera", "at": -1}, "action.at"),
    ({"do": "redeal", "cards": ["Hydra"]}, "action.player"),
    ({"do": "redeal", "player": "zeus", "shown": "Hades"}, "action.shown"),
    ({"do": "redeal", "player": "zeus", "deck": [3]}, "action.deck"),
]


@pytest.mark.parametrize(("raw", "where"), MALFORMED_JSON, ids=[w for _, w in MALFORMED_JSON])
def test_a_malformed_json_action_is_a_notation_error_naming_the_input(raw: Any, where: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_action(raw)
    assert info.value.where == where
    assert str(info.value).startswith(where)


def test_a_malformed_action_names_its_place_in_the_file() -> None:
    with pytest.raises(NotationError) as info:
        parse_action({"do": "god", "column": 9}, "actions[3]")
    assert info.value.where == "actions[3].column"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("", "empty action"),
        ("   ", "empty action"),
        ("fly 2", "unknown action 'fly'"),
        ("play Cyclops", "needs 2 more"),
        ("challenge", "needs 1 more"),
        ("challenge two", "not a number"),
        ("god x", "not a number"),
        ("pythia reveal", "needs 2 more"),
        ("draw colour=red", "unknown option"),
        ("challenge 4", "column 1..3"),
        ("pegasus moon", "'hand', 'field' or 'own_figure'"),
        ("starter poseidon", "'hera' or 'zeus'"),
    ],
)
def test_a_malformed_text_action_is_a_notation_error(text: str, phrase: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_action_text(text)
    assert phrase in str(info.value)


def test_card_names_lists_every_name_an_action_carries_with_its_json_key() -> None:
    a = Challenge(2, "Giant", "?", order=((H, ("Furies", "Pandora")),))
    assert list(card_names(a)) == [
        ("reveal.attacker", "Giant"),
        ("reveal.defender", "?"),
        ("order.hera[0]", "Furies"),
        ("order.hera[1]", "Pandora"),
    ]
    assert list(card_names(Redeal(Z, ("Hero",), shown=("Hades",)))) == [
        ("cards[0]", "Hero"),
        ("shown[0]", "Hades"),
    ]
    assert list(card_names(Dionysus((1, 1), (2, 1)))) == []
