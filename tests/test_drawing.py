"""The table drawing (web/games/herazeus/drawing.py): drawn only from a seat's view, tappable,
escaped."""

from __future__ import annotations

import html
import re
from typing import Any
from xml.etree import ElementTree as ET

from web.games.herazeus.drawing import describe_cell, discard_facts, table_svg, table_text

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
    assert "Zeus · 3 cards in hand · deck 29" in table_svg(view())


def test_piles_show_top_and_height_from_either_view_form() -> None:
    """D21: the opponent's pile is its top card and height; older views list the pile."""
    assert discard_facts({"discard_top": "Centaur", "discard_height": 4}) == ("Centaur", 4)
    assert discard_facts({"discard": ["Medusa", "Pegasus"]}) == ("Pegasus", 2)
    assert discard_facts({"discard": []}) == (None, 0)
    svg = table_svg(view())
    assert "pile 4, top Centaur" in svg and "pile 2, top Pegasus" in svg
    assert "deck 29" in svg and "deck 30" in svg


def test_the_picture_is_one_image_whose_label_says_the_side_and_the_turn() -> None:
    """Issue 13, item 8: a screen reader hears one label, no card."""
    root = parse(table_svg(view()))
    assert root.get("role") == "img"
    assert root.get("aria-label") == (
        "The table seen from Hera's side: Hera's turn, 2 of 3 points left"
    )
    over = view(phase="over", winner="zeus", reason="hostage_challenged")
    assert parse(table_svg(over)).get("aria-label") == "The table seen from Hera's side: Zeus won"


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


def column_lefts(root: ET.Element, side: str) -> dict[int, float]:
    """The x of each column's first-row place of ``side``, as drawn."""
    out = {}
    for (col, pos), g in cells(root, side).items():
        if pos == 1:
            rect = g.find(f"{SVG}rect")
            assert rect is not None
            out[col] = float(rect.get("x", "nan"))
    return out


def test_zeus_sees_the_table_turned_half_round_his_column_1_on_his_right() -> None:
    """HZ-P10 and the printed mat: Zeus's column 1 faces Hera's column 1, so from his seat it is
    on his right; Hera's column 1 is on her left. Each sees his own side at the bottom."""
    hera = parse(table_svg(view("hera")))
    assert column_lefts(hera, "hera")[1] < column_lefts(hera, "hera")[3]
    zeus = parse(table_svg(view("zeus")))
    assert column_lefts(zeus, "zeus")[1] > column_lefts(zeus, "zeus")[3]
    for root in (hera, zeus):  # a column faces the same column across the middle
        assert column_lefts(root, "hera") == column_lefts(root, "zeus")


def test_the_judge_and_the_public_choose_the_side_they_see_from() -> None:
    assert parse(table_svg(view("public"), side="zeus")).get("data-bottom") == "zeus"
    assert parse(table_svg(view("judge"), side="zeus")).get("data-bottom") == "zeus"
    assert parse(table_svg(view("judge"), side="nobody")).get("data-bottom") == "hera"
    # a player always sees his own side, whatever is asked
    assert parse(table_svg(view("hera"), side="zeus")).get("data-bottom") == "hera"


def test_each_card_carries_the_letter_of_its_deck() -> None:
    """Issue 13, item 8: the sides differ by more than colour."""
    v = view()
    v["hera"]["field"][2] = ["Pegasus/zeus"]
    root = parse(table_svg(v))
    mine = cells(root, "hera")
    assert "H · face down" in text_of(mine[(1, 1)])
    assert "Z · face down" in text_of(mine[(3, 1)]) and "Pegasus" in text_of(mine[(3, 1)])
    assert "Z · hidden" in text_of(cells(root, "zeus")[(1, 1)])


def test_only_the_rows_in_use_and_the_next_free_place_are_drawn() -> None:
    """D10: a column holds four entries; the drawing stays short while the columns are."""
    short = parse(table_svg(view(hera={**view()["hera"], "field": [[], [], []]})))
    assert {pos for (_, pos) in cells(short, "hera")} == {1}
    full = view()
    full["hera"]["field"][0] = ["Hydra", "Harpy", "Furies", "Giant"]
    assert {pos for (_, pos) in cells(parse(table_svg(full)), "hera")} == {1, 2, 3, 4}


def test_the_text_version_says_what_the_drawing_shows_and_no_more() -> None:
    text = html.unescape(table_text(view()))
    assert "Hera, column 1</th><td>row 1: Hydra, face down; row 2: Nemesis, face up" in text
    assert "Zeus, column 1</th><td>row 1: a card of Zeus's deck, hidden" in text
    assert "Zeus, column 3</th><td>empty" in text
    assert "3 cards in hand · deck 29; pile 4, top Centaur · figure in supply" in text
    public = view("public")
    public["hera"]["field"][0] = ["?", "^Nemesis"]
    assert "Hydra" not in table_text(public)
