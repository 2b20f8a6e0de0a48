"""The owner's Minotaur Lords deck list (issue 15, item 2): the template, strict reading, and
errors that name the line and the field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.herazeus.errors import CatalogueError
from engine.minotaur.cards import DECK_SIZES, CardType, Kind, Text, parse_deck_list, template
from web.cli import main

DECKS = Path(__file__).resolve().parent / "data" / "minotaur" / "decks.csv"


def _lines() -> list[str]:
    return DECKS.read_text().splitlines()


def _with(line_no: int, new: str) -> str:
    lines = _lines()
    lines[line_no - 1] = new
    return "\n".join(lines)


def _first_card_line() -> int:
    return next(i + 1 for i, x in enumerate(_lines()) if x.startswith("miron,"))


def test_the_template_has_30_30_and_24_rows_and_the_instructions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["kit", "--game", "minotaur", "--template"]) == 0
    out = capsys.readouterr().out
    assert out == template()
    rows = [x for x in out.splitlines() if x and not x.startswith("#")]
    assert rows[0].startswith("deck,name,strength,phase,icons,type,text")
    for deck, n in DECK_SIZES.items():
        assert sum(r.startswith(f"{deck},") for r in rows) == n
    assert "active (the text begins" in out


def test_an_unfilled_template_is_refused_at_its_first_row() -> None:
    text = template()
    first = next(i + 1 for i, x in enumerate(text.splitlines()) if x.startswith("miron,"))
    with pytest.raises(CatalogueError, match=rf"^line {first}: name is empty"):
        parse_deck_list(text)


def test_the_test_deck_list_reads_every_field() -> None:
    cards = parse_deck_list(DECKS.read_text())
    assert len(cards) == 84
    kinds = {c.type for c in cards}
    assert kinds == set(CardType)
    c = cards[0]
    assert c.deck == "miron" and c.phase in (0, 1, 2) and c.text in set(Text)
    assert all(c.icons <= set(Kind) for c in cards)


@pytest.mark.parametrize(
    ("cell", "value", "message"),
    [
        (2, "", "strength is empty"),
        (2, "three", "strength 'three'"),
        (3, "4", "phase '4': 0, 1 or 2"),
        (4, "naval", "icon 'naval'"),
        (5, "hero", "type 'hero'"),
        (6, "sometimes", "text 'sometimes'"),
        (0, "red", "deck 'red'"),
        (4, "", "needs at least one icon"),
    ],
)
def test_a_bad_field_names_its_line_and_field(cell: int, value: str, message: str) -> None:
    no = _first_card_line()
    row = _lines()[no - 1].split(",")
    assert row[5] == "servant"  # the file's first card, so strength and icons are needed
    row[cell] = value
    with pytest.raises(CatalogueError, match=rf"^line {no}\b.*{message}"):
        parse_deck_list(_with(no, ",".join(row)))


def test_a_deck_of_the_wrong_size_is_refused() -> None:
    no = _first_card_line()
    lines = _lines()
    del lines[no - 1]
    with pytest.raises(CatalogueError, match="the miron deck has 29 cards; it must have 30"):
        parse_deck_list("\n".join(lines))


def test_two_rows_with_one_name_must_agree() -> None:
    no = _first_card_line()
    lines = _lines()
    row = lines[no - 1].split(",")
    row2 = lines[no].split(",")
    row2[1] = row[1]
    row2[2] = str(int(row[2] or 0) + 1)
    lines[no] = ",".join(row2)
    with pytest.raises(CatalogueError, match="listed twice with different values"):
        parse_deck_list("\n".join(lines))


def test_a_header_without_a_field_is_refused() -> None:
    with pytest.raises(CatalogueError, match="the header lacks phase"):
        parse_deck_list("deck,name,strength,icons,type,text\n")
    with pytest.raises(CatalogueError, match="unknown column 'colour'"):
        parse_deck_list("deck,name,strength,phase,icons,type,text,colour\n")


@pytest.mark.parametrize("icons", ["military", "economic+religious"])
def test_a_fate_card_with_an_icon_is_refused_naming_its_line_and_m9(icons: str) -> None:
    """A fate card takes effect at once and is discarded (M9): it never enters a column, so
    a column icon on it is a typing error, not a card."""
    no = next(i + 1 for i, x in enumerate(_lines()) if ",fate," in x)
    row = _lines()[no - 1].split(",")
    assert row[4] == ""
    row[4] = icons
    with pytest.raises(
        CatalogueError, match=rf"^line {no} \(.*\): icons '{re.escape(icons)}': a fate card"
    ):
        parse_deck_list(_with(no, ",".join(row)))
    with pytest.raises(CatalogueError, match=r"\(M9, ML-P9\)$"):
        parse_deck_list(_with(no, ",".join(row)))


def test_a_fate_card_with_an_icon_is_refused_in_a_ruling_file_or_a_kit_file_too() -> None:
    from engine.herazeus.errors import NotationError
    from engine.minotaur.cards import card_from_json

    card = {"name": "Omen", "deck": "miron", "phase": 1, "type": "fate", "text": "active"}
    assert card_from_json(card, "cards[0]").icons == frozenset()
    with pytest.raises(
        NotationError, match=r"^cards\[0\]: icons 'military': a fate card.*\(M9, ML-P9\)$"
    ):
        card_from_json({**card, "icons": ["military"]}, "cards[0]")
    with pytest.raises(NotationError, match=r"^cards\[0\]: name 'O\\x00men': control character"):
        card_from_json({**card, "name": "O\x00men"}, "cards[0]")
