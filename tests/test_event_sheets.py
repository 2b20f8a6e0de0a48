"""An event's printed sheets (issue 34, Deliver 7): pairings by name and by table, match slips,
standings. Each PDF is rendered with pypdfium2 and read back: its text (every player, table and
value where it belongs) and, on the slips, its QR codes decoded with zxing-cpp as a phone would
(each seat's code gives that seat's link, T13: a seat link reaches only its player).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pytest
import zxingcpp
from hypothesis import given
from hypothesis import strategies as st

from printables.event_sheets import (
    MatchSlip,
    PairedTable,
    PairingsSheet,
    SeatLine,
    SlipSeat,
    StandingLine,
    StandingsSheet,
    match_slips_pdf,
    pairings_by_name_pdf,
    pairings_by_table_pdf,
    printable_text,
    standings_pdf,
)

PRINTED = datetime(2026, 11, 28, 14, 5, tzinfo=UTC)
SIDES = ("Sun", "Moon")  # the game's two sides as the caller names them
ACCENTED = ("Zoë Ørsted", "Łukasz Wójcik", "Иван Жуков", "Đorđe Šćepanović")
DPI = 150


def players(n: int) -> list[str]:
    return [*ACCENTED, *(f"Player {i:03d}" for i in range(n - len(ACCENTED)))][:n]


def sheet(n: int) -> PairingsSheet:
    """``n`` players at n // 2 tables in registration order, the last one on a bye if n is
    odd; the points and side counts vary with the seat."""
    names = players(n)
    tables = tuple(
        PairedTable(i // 2 + 1, SeatLine(names[i], 3 * (i % 4), 1, 2), SeatLine(names[i + 1], 6))
        for i in range(0, n - 1, 2)
    )
    bye = SeatLine(names[-1], 4, 2, 0) if n % 2 else None
    return PairingsSheet("Autumn Open", 3, SIDES, tables, bye, PRINTED)


def page_texts(pdf: bytes) -> list[str]:
    return [page.get_textpage().get_text_range() for page in pdfium.PdfDocument(pdf)]


def lines(pdf: bytes) -> list[str]:
    return [ln.strip() for text in page_texts(pdf) for ln in text.splitlines()]


def qr_codes(pdf: bytes) -> list[dict[str, tuple[float, float]]]:
    """The links of the QR codes on each page, read from a 150 dpi rendering, each with where
    its centre is, as fractions of the page's width and height."""
    out = []
    for page in pdfium.PdfDocument(pdf):
        img = np.ascontiguousarray(page.render(scale=DPI / 72, grayscale=True).to_numpy())
        img = img if img.ndim == 2 else img[:, :, 0]
        fmt = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)
        found = {}
        for r in zxingcpp.read_barcodes(img, formats=fmt):
            p = r.position
            x = (p.top_left.x + p.bottom_right.x) / 2 / img.shape[1]
            y = (p.top_left.y + p.bottom_right.y) / 2 / img.shape[0]
            found[r.text] = (x, y)
        out.append(found)
    return out


def row_of(pdf: bytes, name: str) -> str:
    (row,) = [ln for ln in lines(pdf) if ln.startswith(printable_text(name) + " ")]
    return row


# -- names in the core font ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        ("Zoë Ørsted", "Zoë Ørsted"),  # Latin-1 prints as it is
        ("Łukasz Wójcik", "Lukasz Wójcik"),
        ("Đorđe Šćepanović", "Dorde Scepanovic"),
        ("Dvořák", "Dvorák"),
        ("Иван Жуков", "Ivan Zhukov"),
        ("Ἀλέξανδρος", "Alexandros"),
        ("Œdipe", "Oedipe"),
        ("東京", "??"),  # another script: a mark per letter, no wrong letters
    ],
)
def test_a_name_prints_in_latin_letters_keeping_what_latin_1_has(name: str, printed: str) -> None:
    assert printable_text(name) == printed


@given(st.text(max_size=40))
def test_any_name_becomes_printable_latin_1(name: str) -> None:
    text = printable_text(name)
    text.encode("latin-1")
    assert all(ch.isprintable() for ch in text)


def test_accented_names_print_on_every_sheet() -> None:
    s = sheet(9)
    for pdf in (pairings_by_name_pdf(s), pairings_by_table_pdf(s)):
        text = "\n".join(page_texts(pdf))
        for name in ("Zoë Ørsted", "Lukasz Wójcik", "Ivan Zhukov", "Dorde Scepanovic"):
            assert name in text


# -- pairings by name ---------------------------------------------------------------------------


def test_by_name_every_player_has_his_table_opponent_side_side_counts_and_points() -> None:
    pdf = pairings_by_name_pdf(sheet(9))
    assert row_of(pdf, "Player 000") == "Player 000 3 Player 001 Sun Sun 1 · Moon 2 0"
    assert row_of(pdf, "Player 001") == "Player 001 3 Player 000 Moon Sun 0 · Moon 0 6"
    assert row_of(pdf, "Đorđe Šćepanović") == "Dorde Scepanovic 2 Ivan Zhukov Moon Sun 0 · Moon 0 6"
    assert row_of(pdf, "Zoë Ørsted") == "Zoë Ørsted 1 Lukasz Wójcik Sun Sun 1 · Moon 2 0"


def test_by_name_the_bye_has_its_own_line() -> None:
    row = row_of(pairings_by_name_pdf(sheet(9)), "Player 004")
    assert row.startswith("Player 004 bye ")
    assert row.endswith("Sun 2 · Moon 0 4")


def test_by_name_players_are_in_alphabetical_order() -> None:
    names = [printable_text(n) for n in players(40)]
    rows = lines(pairings_by_name_pdf(sheet(40)))
    listed = [n for r in rows for n in names if r.startswith(n + " ")]
    assert listed == sorted(names, key=str.casefold)


def test_by_name_every_page_repeats_the_header() -> None:
    texts = page_texts(pairings_by_name_pdf(sheet(80)))
    assert len(texts) > 1
    for i, text in enumerate(texts, start=1):
        assert "Autumn Open: round 3, pairings by name" in text
        assert f"page {i} of {len(texts)}" in text
        assert "Player Table Opponent Side Sides so far Pts" in text


def test_by_name_pages_grow_with_the_players() -> None:
    counts = [len(page_texts(pairings_by_name_pdf(sheet(n)))) for n in (8, 32, 64, 128)]
    assert counts == sorted(counts)
    assert counts[0] == 1 < counts[-1]


def test_a_256_player_sheet_lists_every_player_once() -> None:
    s = sheet(256)
    pdf = pairings_by_name_pdf(s)
    text = lines(pdf)
    for name in players(256):
        assert sum(ln.startswith(printable_text(name) + " ") for ln in text) == 1
    texts = page_texts(pdf)
    per_page = (
        sum(
            ln.startswith(("Player ", *(printable_text(n) for n in ACCENTED)))
            for ln in texts[0].splitlines()
        )
        - 1
    )
    assert len(texts) == math.ceil(256 / per_page)  # the heading "Player Table ..." is not one


# -- pairings by table --------------------------------------------------------------------------


def test_by_table_every_table_shows_both_seats_with_their_points_and_the_bye() -> None:
    s = sheet(9)
    rows = lines(pairings_by_table_pdf(s))
    assert "Table Sun Pts Moon Pts" in rows
    for t in s.tables:
        first, second = printable_text(t.first.player), printable_text(t.second.player)
        assert f"{t.number} {first} {t.first.points} {second} {t.second.points}" in rows
    assert "bye Player 004 4 (bye: counts as a win)" in rows


def test_by_table_tables_are_in_order() -> None:
    s = sheet(12)
    shuffled = replace(s, tables=tuple(reversed(s.tables)))
    numbers = [
        int(m.group(1))
        for ln in lines(pairings_by_table_pdf(shuffled))
        if (m := re.match(r"(\d+) ", ln))
    ]
    assert numbers == list(range(1, 7))


# -- match slips --------------------------------------------------------------------------------


def slips(n: int, best_of: int = 1) -> list[MatchSlip]:
    names = players(2 * n)
    return [
        MatchSlip(
            "Autumn Open",
            3,
            t + 1,
            SlipSeat(
                names[2 * t], "Sun", f"https://referee.example/event/ao/seat/{t + 1}-1-k3Y9xQ"
            ),
            SlipSeat(
                names[2 * t + 1], "Moon", f"https://referee.example/event/ao/seat/{t + 1}-2-Zp0w7R"
            ),
            best_of,
        )
        for t in range(n)
    ]


@pytest.mark.parametrize("per_page", [2, 3])
def test_each_slip_s_two_codes_decode_to_its_two_seat_links(per_page: int) -> None:
    given_slips = slips(7)
    pdf = match_slips_pdf(given_slips, PRINTED, per_page=per_page)
    read = qr_codes(pdf)
    assert len(read) == math.ceil(7 / per_page)
    for page, codes in enumerate(read):
        on_page = given_slips[page * per_page : (page + 1) * per_page]
        assert set(codes) == {u for s in on_page for u in (s.first.join_url, s.second.join_url)}
        for i, s in enumerate(on_page):
            # each seat's code beside his name: the first seat's on the left, the second's on
            # the right, both inside their slip's band of the page
            (x1, y1), (x2, y2) = codes[s.first.join_url], codes[s.second.join_url]
            assert x1 < 0.35 and x2 > 0.65
            assert i / per_page < y1 < (i + 1) / per_page
            assert i / per_page < y2 < (i + 1) / per_page


def test_a_slip_names_the_event_round_table_players_and_sides() -> None:
    pdf = match_slips_pdf(slips(3), PRINTED)
    (text,) = page_texts(pdf)
    assert text.count("Autumn Open: round 3") == 3
    for t in (1, 2, 3):
        assert f"Table {t}" in text
    for name in ("Zoë Ørsted", "Lukasz Wójcik", "Ivan Zhukov", "Dorde Scepanovic"):
        assert name in text
    assert text.count("plays Sun") == text.count("plays Moon") == 3
    assert text.count("Signature") == 6
    assert text.count("cut here") == 2  # between the three slips


def test_a_best_of_one_slip_has_one_result_row_a_best_of_three_one_a_game() -> None:
    (one,) = page_texts(match_slips_pdf(slips(1, best_of=1), PRINTED))
    (three,) = page_texts(match_slips_pdf(slips(1, best_of=3), PRINTED))
    assert "Match" in one and "Game 1" not in one
    assert all(f"Game {g}" in three for g in (1, 2, 3))
    assert "best of three" in three and "Draw" in three and "Draw" in one


def test_long_links_still_decode() -> None:
    long = [
        replace(s, first=replace(s.first, join_url=s.first.join_url + "?t=" + "x" * 120))
        for s in slips(2)
    ]
    (links,) = qr_codes(match_slips_pdf(long, PRINTED))
    assert len(links) == 4
    assert long[0].first.join_url in links


# -- standings ----------------------------------------------------------------------------------


def standings(n: int) -> StandingsSheet:
    rows = tuple(
        StandingLine(
            i + 1,
            name,
            max(0, 9 - i // 3),
            max(0, 3 - i // 3),
            min(3, i // 3),
            0,
            "55.56%",
            "66.67%",
            "33.33%",
            dropped=i == 2,
        )
        for i, name in enumerate(players(n))
    )
    return StandingsSheet("Autumn Open", 3, rows, PRINTED)


def test_standings_show_rank_points_record_and_the_tiebreakers_as_given() -> None:
    rows = lines(standings_pdf(standings(9)))
    assert "Rank Player Pts W-L-D OMW GW OGW" in rows
    assert "1 Zoë Ørsted 9 3-0-0 55.56% 66.67% 33.33%" in rows
    assert "5 Player 000 8 2-1-0 55.56% 66.67% 33.33%" in rows


def test_a_dropped_player_is_marked() -> None:
    rows = lines(standings_pdf(standings(9)))
    assert "3 Ivan Zhukov (dropped) 9 3-0-0 55.56% 66.67% 33.33%" in rows
    assert sum("(dropped)" in r for r in rows) == 1


def test_standings_pages_grow_with_the_players() -> None:
    assert len(page_texts(standings_pdf(standings(10)))) == 1
    assert len(page_texts(standings_pdf(standings(256)))) > 3


# -- the same input prints the same bytes -------------------------------------------------------


def test_the_same_input_prints_the_same_pdf() -> None:
    assert pairings_by_name_pdf(sheet(9)) == pairings_by_name_pdf(sheet(9))
    assert match_slips_pdf(slips(2), PRINTED) == match_slips_pdf(slips(2), PRINTED)


# -- bad input ----------------------------------------------------------------------------------


def test_a_player_paired_twice_is_refused() -> None:
    s = sheet(4)
    twice = replace(s, bye=SeatLine(s.tables[0].first.player, 0))
    with pytest.raises(ValueError, match=r"is paired more than once in the round \(T4\)"):
        pairings_by_name_pdf(twice)


def test_a_table_number_used_twice_is_refused() -> None:
    s = sheet(4)
    twice = replace(s, tables=(s.tables[0], replace(s.tables[1], number=1)))
    with pytest.raises(
        ValueError, match="table 1: table numbers must be 1 or more, each used once"
    ):
        pairings_by_table_pdf(twice)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sides": ("Sun", "Sun")}, "must be the game's two sides"),
        ({"round": 0}, "rounds are numbered from 1"),
        ({"event": " "}, "event: a name must not be blank"),
        ({"printed": datetime(2026, 11, 28, 14, 5)}, "must be timezone-aware"),
        ({"tables": (), "bye": None}, "nothing to print"),
    ],
)
def test_a_malformed_pairings_sheet_is_refused(change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pairings_by_name_pdf(replace(sheet(4), **change))  # type: ignore[arg-type]


def test_negative_points_are_refused() -> None:
    s = sheet(3)
    with pytest.raises(ValueError, match="points and side counts must not be negative"):
        pairings_by_name_pdf(replace(s, bye=SeatLine("Player 003", -3)))


def test_a_slip_is_best_of_one_or_three() -> None:
    with pytest.raises(ValueError, match=r"best of 2; a match is best of 1 or 3 \(T1\)"):
        match_slips_pdf(slips(1, best_of=2), PRINTED)


@pytest.mark.parametrize("per_page", [1, 4])
def test_slips_print_two_or_three_to_a_page(per_page: int) -> None:
    with pytest.raises(ValueError, match="slips print 2 or 3 to a page"):
        match_slips_pdf(slips(1), PRINTED, per_page=per_page)


def test_a_slip_without_a_link_or_twice_for_a_table_is_refused() -> None:
    s = slips(2)
    with pytest.raises(ValueError, match="a QR link must be 1 to 500 characters"):
        match_slips_pdf([replace(s[0], second=replace(s[0].second, join_url=""))], PRINTED)
    with pytest.raises(ValueError, match="two slips for round 3's table"):
        match_slips_pdf([s[0], replace(s[1], table=1)], PRINTED)
    with pytest.raises(ValueError, match="none given"):
        match_slips_pdf([], PRINTED)


def test_empty_standings_are_refused() -> None:
    with pytest.raises(ValueError, match="no rows, nothing to print"):
        standings_pdf(replace(standings(3), rows=()))


@pytest.mark.parametrize(("paper", "size"), [("a4", (210.0, 297.0)), ("letter", (215.9, 279.4))])
def test_sheets_are_portrait_on_the_paper_asked(paper: str, size: tuple[float, float]) -> None:
    mm_per_pt = 25.4 / 72
    for pdf in (
        pairings_by_name_pdf(sheet(9), paper=paper),
        standings_pdf(standings(9), paper=paper),
        match_slips_pdf(slips(2), PRINTED, paper=paper),
    ):
        for page in pdfium.PdfDocument(pdf):
            w, h = page.get_size()
            assert (w * mm_per_pt, h * mm_per_pt) == pytest.approx(size, abs=0.1)


def test_an_unknown_paper_is_refused() -> None:
    with pytest.raises(ValueError, match="paper 'a3': must be one of a4, letter"):
        pairings_by_table_pdf(sheet(4), paper="a3")
