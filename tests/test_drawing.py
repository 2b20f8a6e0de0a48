"""The table drawing (web/games/herazeus_drawing.py): drawn only from a seat's view, tappable,
escaped."""

from __future__ import annotations

import re
from typing import Any
from xml.etree import ElementTree as ET

from web.games.herazeus_drawing import describe_cell, discard_facts, table_svg

SVG = "{http://www.w3.org/2000/svg}"


def view(seat: str = "hera", **over: Any) -> dict[str, Any]:
    """A view as referee.views.view_for writes it, for Hera's seat by default."""
    v: dict[str, Any] = {
        "seat": seat,
        "phase": "play",
        "turn": {"player": "hera", "first": False, "ap": 3, "used": 1},
        "winner": None,
        "reason": None,
        "hera": {
            "hand": ["Pegasus", "?"],
            "hand_size": 2,
            "deck": 30,
            "field": [["Hydra", "^Nemesis"], ["@", "Harpy"], ["Furies"]],
            "discard": ["Medusa", "Pegasus"],
            "figure": "field",
        },
        "zeus": {
            "hand": ["?", "?", "?/hera"],
            "hand_size": 3,
            "deck": 29,
            "field": [["?"], ["^Giant", "?"], []],
            "discard_top": "Centaur",
            "discard_height": 4,
            "figure": "supply",
        },
    }
    v.update(over)
    return v


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def cells(root: ET.Element, side: str) -> dict[tuple[int, int], ET.Element]:
    return {
        (int(g.get("data-column", 0)), int(g.get("data-position", 0))): g
        for g in root.iter(f"{SVG}g")
        if g.get("data-side") == side and g.get("data-column")
    }


def text_of(g: ET.Element) -> str:
    return " ".join(t.text or "" for t in g.iter(f"{SVG}text"))


def test_the_picture_is_well_formed_svg_with_the_seat_at_the_bottom() -> None:
    root = parse(table_svg(view()))
    assert root.tag == f"{SVG}svg" and root.get("data-bottom") == "hera"
    assert parse(table_svg(view("zeus"))).get("data-bottom") == "zeus"
    assert parse(table_svg(view("public"))).get("data-bottom") == "hera"


def test_every_field_entry_is_a_tappable_cell_with_its_column_and_position() -> None:
    root = parse(table_svg(view()))
    mine = cells(root, "hera")
    assert "Hydra" in text_of(mine[(1, 1)]) and "face down" in text_of(mine[(1, 1)])
    assert "Nemesis" in text_of(mine[(1, 2)]) and "face up" in text_of(mine[(1, 2)])
    assert "figure" in text_of(mine[(2, 1)])
    # the first free place at the back of each column is a target too
    assert mine[(1, 3)].get("data-empty") == "1" and mine[(3, 2)].get("data-empty") == "1"
    assert (1, 4) not in mine  # only the next free place, not every empty one


def test_the_opponents_hidden_cards_are_backs_that_tell_only_their_deck() -> None:
    root = parse(table_svg(view()))
    theirs = cells(root, "zeus")
    assert "back-zeus" in (theirs[(1, 1)].get("class") or "")
    assert "?" in text_of(theirs[(1, 1)]) and "hidden" in text_of(theirs[(1, 1)])
    assert "Giant" in text_of(theirs[(2, 1)])  # face up: everyone sees it
    assert "3 in hand" in table_svg(view())


def test_piles_show_top_and_height_from_either_view_form() -> None:
    """D21: the opponent's pile is its top card and height; older views list the pile."""
    assert discard_facts({"discard_top": "Centaur", "discard_height": 4}) == ("Centaur", 4)
    assert discard_facts({"discard": ["Medusa", "Pegasus"]}) == ("Pegasus", 2)
    assert discard_facts({"discard": []}) == (None, 0)
    svg = table_svg(view())
    assert "Centaur" in svg and "pile: 4" in svg and "pile: 2" in svg
    assert "29" in svg and "30" in svg  # deck sizes


def test_whose_turn_and_points_are_drawn_in_the_middle() -> None:
    assert "Hera · 2/3 points" in table_svg(view())
    over = view(phase="over", winner="zeus", reason="hostage_challenged")
    assert "Zeus wins" in table_svg(over)


def test_the_cell_reading_covers_every_notation_form() -> None:
    assert describe_cell("@", "hera") == ("figure", "Hera's figure")
    assert describe_cell("^Hydra", "hera") == ("up", "Hydra")
    assert describe_cell("?", "zeus") == ("back back-zeus", "?")
    assert describe_cell("?/hera", "zeus") == ("back back-hera", "?")
    assert describe_cell("Hydra", "hera") == ("down", "Hydra")


def test_text_is_escaped() -> None:
    v = view()
    v["hera"]["field"][2] = ["<script>x</script>"]
    svg = table_svg(v, caption='a "quoted" <caption>')
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    parse(svg)


def test_a_picture_for_print_has_no_tap_targets() -> None:
    svg = table_svg(view(), tappable=False)
    assert not re.search(r"data-column=", svg)
