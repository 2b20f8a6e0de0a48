"""An event's printed sheets (issue 34, Deliver 7): pairings by name and by table, match slips
with a QR code to each seat's link, and standings, as print-ready PDFs (fpdf2, A4 portrait by
default, ``"letter"`` too).

The sheets know nothing of the event service: the caller maps the event's state onto the small
frozen values below (:class:`PairingsSheet`, :class:`MatchSlip`, :class:`StandingsSheet`), and
each function returns the PDF's bytes. Game-neutral: the sides are the names the caller gives
(the game's first and second seat). Pure but for fpdf2: the same input prints the same bytes
(the PDF is dated ``printed``, never the clock).

Names print in Helvetica, which fpdf2 encodes in Latin-1 (the "core fonts"): accents of western
European names print as they are ("Zoë Ørsted"); any other letter is written readably in
Latin-1 by :func:`printable_text` ("Łukasz" as "Lukasz", "Иван" as "Ivan"), since no Unicode
font ships with the packages the project depends on and the sheets must print on a bare machine.

Every function raises :class:`ValueError` naming the input and the rule it breaks before any
page is drawn.

Languages (issue 36): every sheet takes ``lang`` (``en``, ``it``, ``fr``, ``de``; default
English): its title, headings, column names and instructions are said in it
(:func:`referee.language.say`), written in Latin-1 as the names are. The data stays as given:
names, sides, table and round numbers, points, rule ids (T1...), the QR links.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from fpdf import FPDF

from engine.say import N_, Say
from printables.sheets import (
    PAGE_MARGIN,
    PAPER_MM,
    check_link,
    clipped,
    draw_cells,
    fitted_size,
    link_modules,
    paper_pdf,
    text_at,
)
from referee.language import DEFAULT, say

MAKER = "event sheets"
BEST_OF = (1, 3)  # T1
SLIPS_PER_PAGE = (2, 3)
STRIPE = (235, 235, 235)
DIM = (110, 110, 110)

# -- the inputs -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatLine:
    """A paired player as the pairings show him: his name, his match points before the round
    (T2), and how many games he has played as the first and as the second side (T5)."""

    player: str
    points: int
    first_games: int = 0
    second_games: int = 0


@dataclass(frozen=True, slots=True)
class PairedTable:
    """One table of a round: its number, the player of the first side and of the second."""

    number: int
    first: SeatLine
    second: SeatLine


@dataclass(frozen=True, slots=True)
class PairingsSheet:
    """A round's pairings. ``sides`` are the game's first and second side as players know them
    (its seat names); ``bye`` the player without an opponent this round, if any; ``printed``
    the (timezone-aware) instant the sheet is dated."""

    event: str
    round: int
    sides: tuple[str, str]
    tables: tuple[PairedTable, ...]
    bye: SeatLine | None
    printed: datetime


@dataclass(frozen=True, slots=True)
class SlipSeat:
    """One player on a match slip: his name, the side he plays (in game one, T1) and his seat's
    join link, printed as a QR code."""

    player: str
    side: str
    join_url: str


@dataclass(frozen=True, slots=True)
class MatchSlip:
    """One table's match slip: the result, ticked by the players and signed by both, for the
    judge to enter when the game was played without the referee (T8)."""

    event: str
    round: int
    table: int
    first: SlipSeat
    second: SlipSeat
    best_of: int = 1


@dataclass(frozen=True, slots=True)
class StandingLine:
    """One row of the standings (T3) as shown: the tiebreakers as text ("66.67%")."""

    rank: int
    player: str
    points: int
    wins: int
    losses: int
    draws: int
    omw: str
    gw: str
    ogw: str
    dropped: bool = False


@dataclass(frozen=True, slots=True)
class StandingsSheet:
    """The standings after round ``after_round``, best first."""

    event: str
    after_round: int
    rows: tuple[StandingLine, ...]
    printed: datetime


# -- names in the core font -----------------------------------------------------------------------


def _letters(capitals: str, spellings: str) -> dict[str, str]:
    """Each capital of ``capitals`` spelled as the word of ``spellings`` at its place ("-" for
    a letter written as nothing), and each small letter spelled in small letters."""
    words = [w.replace("-", "") for w in spellings.split()]
    upper = dict(zip(capitals, words, strict=True))
    return upper | {k.lower(): v.lower() for k, v in upper.items()}


_SPELLING = (
    _letters(
        "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯЄІЇҐЎЂЈЉЊЋЏ",
        "A B V G D E Yo Zh Z I Y K L M N O P R S T U F Kh Ts Ch Sh Shch - Y - E Yu Ya Ye I Yi G "
        "U Dj J Lj Nj C Dz",
    )
    | _letters("ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ", "A V G D E Z I Th I K L M N X O P R S T Y F Ch Ps O")
    | _letters("ŁĐĦŦĿŊƏŒ", "L D H T L N E Oe")
    | {"ı": "i", "ſ": "s", "ς": "s", "ĸ": "q", "’": "'", "‘": "'", "“": '"', "”": '"'}
    | {"–": "-", "—": "-", "…": "...", "€": "EUR"}
)


def _is_latin1(ch: str) -> bool:
    return ord(ch) < 256 and ch.isprintable()


def printable_text(text: str) -> str:
    """``text`` as the core font prints it (Latin-1): a character of Latin-1 as it is; any
    other letter without its accents when that leaves a Latin-1 letter ("ć" as "c"), else
    spelled in Latin letters (Polish "Ł" as "L", Cyrillic and Greek letter by letter); a
    character of another script as "?"; a control character as a space."""
    out: list[str] = []
    for ch in text:
        if _is_latin1(ch):
            out.append(ch)
        elif not ch.isprintable():
            out.append(" ")
        else:
            bare = "".join(
                c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)
            )
            spelled = all(_is_latin1(c) or c in _SPELLING for c in bare)
            out.append("".join(_SPELLING.get(c, c) for c in bare) if bare and spelled else "?")
    return "".join(out)


# -- checks ---------------------------------------------------------------------------------------


def _check_printed(printed: datetime) -> None:
    if printed.tzinfo is None:
        raise ValueError(f"printed {printed.isoformat()}: must be timezone-aware (UTC)")


def _check_name(what: str, name: str) -> None:
    if not name.strip():
        raise ValueError(f"{what}: a name must not be blank")


def _check_round(what: str, number: int) -> None:
    if number < 1:
        raise ValueError(f"{what} {number}: rounds are numbered from 1")


def _check_paper(paper: str) -> None:
    if paper not in PAPER_MM:
        raise ValueError(f"paper {paper!r}: must be one of {', '.join(PAPER_MM)}")


def _check_seat(line: SeatLine) -> None:
    _check_name("player", line.player)
    if line.points < 0 or line.first_games < 0 or line.second_games < 0:
        raise ValueError(f"player {line.player!r}: points and side counts must not be negative")


def check_pairings(sheet: PairingsSheet) -> None:
    """Raises ValueError for a sheet that is not one round's pairings: blank event or names,
    a round below 1, sides that are not two different names, nothing to print, a table number
    below 1 or used twice, a player twice, negative points or side counts, a naive date."""
    _check_name("event", sheet.event)
    _check_round("round", sheet.round)
    _check_printed(sheet.printed)
    if (
        len(sheet.sides) != 2
        or not all(s.strip() for s in sheet.sides)
        or len(set(sheet.sides)) != 2
    ):
        raise ValueError(f"sides {sheet.sides!r}: must be the game's two sides, by name")
    if not sheet.tables and sheet.bye is None:
        raise ValueError(f"round {sheet.round}: no table and no bye, nothing to print")
    numbers = [t.number for t in sheet.tables]
    for n in numbers:
        if n < 1 or numbers.count(n) > 1:
            raise ValueError(f"table {n}: table numbers must be 1 or more, each used once")
    lines = [s for t in sheet.tables for s in (t.first, t.second)]
    lines += [sheet.bye] if sheet.bye is not None else []
    names = [s.player for s in lines]
    for line in lines:
        _check_seat(line)
        if names.count(line.player) > 1:
            raise ValueError(f"player {line.player!r}: is paired more than once in the round (T4)")


# -- drawing --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Column:
    heading: str  # a marked constant (said in the sheet's language), or data (a side's name)
    share: float  # of the page's width inside the margins
    right: bool = False  # numbers align right


def _said(text: str, lang: str) -> str:
    """A marked sentence or heading in ``lang``, as the sheets print text (Latin-1)."""
    return printable_text(say(text, lang))


def _frame(
    pdf: FPDF, title: str, subtitle: str, width: float, pages: int, lang: str = DEFAULT
) -> float:
    """The page's header (title, subtitle, page n of ``pages``); returns the y below it."""
    pdf.set_text_color(0, 0, 0)
    size = fitted_size(pdf, title, width, 18, 11, "B")
    text_at(pdf, PAGE_MARGIN, PAGE_MARGIN + 7, clipped(pdf, title, width), size, "B")
    pdf.set_text_color(*DIM)
    text_at(pdf, PAGE_MARGIN, PAGE_MARGIN + 13, subtitle, 10)
    page = _said(Say("page %(page)s of %(pages)s", page=pdf.page_no(), pages=pages), lang)
    pdf.set_font("Helvetica", "", 10)
    pdf.text(PAGE_MARGIN + width - pdf.get_string_width(page), PAGE_MARGIN + 13, page)
    pdf.set_text_color(0, 0, 0)
    return PAGE_MARGIN + 17


def _table_pdf(
    title: str,
    subtitle: str,
    columns: Sequence[_Column],
    rows: Sequence[tuple[Sequence[str], bool]],
    printed: datetime,
    paper: str,
    size: float,
    lang: str = DEFAULT,
) -> bytes:
    """A PDF of one table of text: the header and the column headings repeated on every page,
    rows striped, each cell shrunk (to two thirds) then cut to fit. ``rows`` are each row's
    cells and whether it is dimmed (a dropped player). ``title``, ``subtitle`` and the
    headings are said in ``lang`` (the cells are data)."""
    title, subtitle = _said(title, lang), _said(subtitle, lang)
    w, h = PAPER_MM[paper]
    width = w - 2 * PAGE_MARGIN
    row_h = size * 0.3528 * 1.75
    pdf = paper_pdf(paper, False, title, printed, MAKER)
    top = PAGE_MARGIN + 19 + row_h  # below the header and the column headings
    per_page = int((h - PAGE_MARGIN - top) // row_h)
    pages = math.ceil(len(rows) / per_page)
    edges = [PAGE_MARGIN]
    total = sum(c.share for c in columns)
    for c in columns:
        edges.append(edges[-1] + width * c.share / total)
    y = h  # a new page first
    for i, (cells, dimmed) in enumerate(rows):
        if i % per_page == 0:
            pdf.add_page()
            y = _frame(pdf, title, subtitle, width, pages, lang) + 2
            headings = [_said(c.heading, lang) for c in columns]
            _row(pdf, headings, columns, edges, y, row_h, 10, "B")
            pdf.set_line_width(0.3)
            pdf.line(PAGE_MARGIN, y + row_h, PAGE_MARGIN + width, y + row_h)
            y += row_h
            stripe = False
        if stripe:
            pdf.set_fill_color(*STRIPE)
            pdf.rect(PAGE_MARGIN, y, width, row_h, style="F")
        stripe = not stripe
        pdf.set_text_color(*(DIM if dimmed else (0, 0, 0)))
        _row(pdf, cells, columns, edges, y, row_h, size, "")
        pdf.set_text_color(0, 0, 0)
        y += row_h
    return bytes(pdf.output())


def _row(
    pdf: FPDF,
    cells: Sequence[str],
    columns: Sequence[_Column],
    edges: Sequence[float],
    y: float,
    row_h: float,
    size: float,
    style: str,
) -> None:
    base = y + row_h * 0.7
    for i, (text, col) in enumerate(zip(cells, columns, strict=True)):
        room = edges[i + 1] - edges[i] - 2
        # The first column (name or number) in bold.
        st = "B" if i == 0 and not style else style
        fitted_size(pdf, text, room, size, size * 2 / 3, st)
        shown = clipped(pdf, text, room)
        x = edges[i] + 1
        if col.right:
            x = edges[i + 1] - 1 - pdf.get_string_width(shown)
        pdf.text(x, base, shown)


def _counts(sides: tuple[str, str], line: SeatLine) -> str:
    return f"{sides[0]} {line.first_games} · {sides[1]} {line.second_games}"


def pairings_by_name_pdf(sheet: PairingsSheet, paper: str = "a4", lang: str = DEFAULT) -> bytes:
    """The "find your name" sheet: every player in alphabetical order (by the printed name,
    case ignored) with his table, opponent, side this round, side counts so far (T5) and match
    points, in large type, the header repeated on every page. Raises ValueError (see
    :func:`check_pairings`; an unknown paper)."""
    check_pairings(sheet)
    _check_paper(paper)
    sides = tuple(printable_text(s) for s in sheet.sides)
    assert len(sides) == 2
    rows: list[tuple[str, str, str, str, str, int]] = []
    for t in sheet.tables:
        for me, him, side in ((t.first, t.second, sides[0]), (t.second, t.first, sides[1])):
            name = printable_text(me.player)
            rows.append(
                (
                    name,
                    str(t.number),
                    printable_text(him.player),
                    side,
                    _counts(sides, me),
                    me.points,
                )
            )
    if sheet.bye is not None:
        b = sheet.bye
        rows.append(
            (
                printable_text(b.player),
                _said(BYE, lang),
                _said(BYE_WIN, lang),
                "-",
                _counts(sides, b),
                b.points,
            )
        )
    rows.sort(key=lambda r: (r[0].casefold(), r[0], int(r[1]) if r[1].isdigit() else 0))
    columns = (
        _Column(N_("Player"), 30),
        _Column(N_("Table"), 8, right=True),
        _Column(N_("Opponent"), 26),
        _Column(N_("Side"), 12),
        _Column(N_("Sides so far"), 17),
        _Column(N_("Pts"), 7, right=True),
    )
    return _table_pdf(
        Say(
            "%(event)s: round %(round)s, pairings by name",
            event=printable_text(sheet.event),
            round=sheet.round,
        ),
        Say(
            "Find your name. Points are before this round. %(printed)s",
            printed=_dated(sheet.printed),
        ),
        columns,
        [((n, t, o, s, c, str(p)), False) for n, t, o, s, c, p in rows],
        sheet.printed,
        paper,
        14,
        lang,
    )


def pairings_by_table_pdf(sheet: PairingsSheet, paper: str = "a4", lang: str = DEFAULT) -> bytes:
    """Every table in order: its number, the first side's player and his points, the second
    side's and his; the bye on the last line. Raises ValueError (see :func:`check_pairings`;
    an unknown paper)."""
    check_pairings(sheet)
    _check_paper(paper)
    first, second = (printable_text(s) for s in sheet.sides)
    columns = (
        _Column(N_("Table"), 9, right=True),
        _Column(first, 36),
        _Column(N_("Pts"), 7, right=True),
        _Column(second, 36),
        _Column(N_("Pts"), 7, right=True),
    )
    rows: list[tuple[Sequence[str], bool]] = [
        (
            (
                str(t.number),
                printable_text(t.first.player),
                str(t.first.points),
                printable_text(t.second.player),
                str(t.second.points),
            ),
            False,
        )
        for t in sorted(sheet.tables, key=lambda t: t.number)
    ]
    if sheet.bye is not None:
        b = sheet.bye
        rows.append(
            (
                (
                    _said(BYE, lang),
                    printable_text(b.player),
                    str(b.points),
                    _said(BYE_WIN, lang),
                    "",
                ),
                False,
            )
        )
    return _table_pdf(
        Say(
            "%(event)s: round %(round)s, pairings by table",
            event=printable_text(sheet.event),
            round=sheet.round,
        ),
        Say("Points are before this round. %(printed)s", printed=_dated(sheet.printed)),
        columns,
        rows,
        sheet.printed,
        paper,
        13,
        lang,
    )


def standings_pdf(sheet: StandingsSheet, paper: str = "a4", lang: str = DEFAULT) -> bytes:
    """The standings (T3): rank, player, match points, wins-losses-draws, OMW, GW and OGW as
    given, a dropped player dimmed and marked "(dropped)" (T9). Raises ValueError for a blank
    event or name, a round below 1, no rows, a rank below 1 or negative counts, a naive date,
    an unknown paper."""
    _check_name("event", sheet.event)
    _check_round("after round", sheet.after_round)
    _check_printed(sheet.printed)
    _check_paper(paper)
    if not sheet.rows:
        raise ValueError(f"standings after round {sheet.after_round}: no rows, nothing to print")
    for r in sheet.rows:
        _check_name("player", r.player)
        if r.rank < 1 or min(r.points, r.wins, r.losses, r.draws) < 0:
            raise ValueError(f"player {r.player!r}: rank must be 1 or more, counts not negative")
    columns = (
        _Column(N_("Rank"), 9, right=True),
        _Column(N_("Player"), 40),
        _Column(N_("Pts"), 8, right=True),
        _Column(N_("W-L-D"), 12, right=True),
        _Column("OMW", 12, right=True),
        _Column("GW", 12, right=True),
        _Column("OGW", 12, right=True),
    )
    rows = [
        (
            (
                str(r.rank),
                _said(Say("%(player)s (dropped)", player=printable_text(r.player)), lang)
                if r.dropped
                else printable_text(r.player),
                str(r.points),
                f"{r.wins}-{r.losses}-{r.draws}",
                r.omw,
                r.gw,
                r.ogw,
            ),
            r.dropped,
        )
        for r in sheet.rows
    ]
    return _table_pdf(
        Say(
            "%(event)s: standings after round %(round)s",
            event=printable_text(sheet.event),
            round=sheet.after_round,
        ),
        Say("Match points, then OMW, GW, OGW (T3). %(printed)s", printed=_dated(sheet.printed)),
        columns,
        rows,
        sheet.printed,
        paper,
        12,
        lang,
    )


BYE = N_("bye")
BYE_WIN = N_("(bye: counts as a win)")


def _dated(printed: datetime) -> Say:
    return Say("Printed %(time)s.", time=printed.strftime("%Y-%m-%d %H:%M %Z"))


# -- match slips ----------------------------------------------------------------------------------

QR_MM = 30.0  # a link's code on a slip: a phone reads it from arm's length


def check_slips(slips: Sequence[MatchSlip]) -> None:
    """Raises ValueError for no slips, a blank event or name, a round or table below 1, two
    slips of one table in one round, a best of other than one or three (T1), the same player
    on both seats, or a link that is blank or too long for a QR code."""
    if not slips:
        raise ValueError("slips: none given, nothing to print")
    seen: set[tuple[str, int, int]] = set()
    for s in slips:
        _check_name("event", s.event)
        _check_round("round", s.round)
        if s.table < 1:
            raise ValueError(f"table {s.table}: table numbers start at 1")
        if (s.event, s.round, s.table) in seen:
            raise ValueError(f"table {s.table}: two slips for round {s.round}'s table")
        seen.add((s.event, s.round, s.table))
        if s.best_of not in BEST_OF:
            raise ValueError(
                f"table {s.table}: best of {s.best_of}; a match is best of 1 or 3 (T1)"
            )
        for seat in (s.first, s.second):
            _check_name(f"table {s.table}'s player", seat.player)
            _check_name(f"table {s.table}'s side", seat.side)
            check_link(seat.join_url)
        if s.first.player == s.second.player:
            raise ValueError(f"table {s.table}: {s.first.player!r} cannot play himself")


def match_slips_pdf(
    slips: Sequence[MatchSlip],
    printed: datetime,
    per_page: int = 3,
    paper: str = "a4",
    lang: str = DEFAULT,
) -> bytes:
    """The match slips, ``per_page`` (2 or 3) to a page with cut lines between them: event,
    round, table, both players with their side and a QR code to each one's seat link, result
    boxes (the winner, or a draw; game by game in a best of three, T1, T6) and a signature line
    for each player. Raises ValueError (see :func:`check_slips`; ``per_page``, the date, the
    paper)."""
    check_slips(slips)
    _check_printed(printed)
    _check_paper(paper)
    if per_page not in SLIPS_PER_PAGE:
        raise ValueError(f"per_page {per_page}: slips print 2 or 3 to a page")
    w, h = PAPER_MM[paper]
    title = _said(Say("%(event)s: match slips", event=printable_text(slips[0].event)), lang)
    pdf = paper_pdf(paper, False, title, printed, MAKER)
    codes = {u: link_modules(u) for s in slips for u in (s.first.join_url, s.second.join_url)}
    slip_h = (h - 2 * PAGE_MARGIN) / per_page
    for page in range(math.ceil(len(slips) / per_page)):
        pdf.add_page()
        on_page = slips[page * per_page : (page + 1) * per_page]
        for i, slip in enumerate(on_page):
            top = PAGE_MARGIN + i * slip_h
            if i:
                _cut_line(pdf, top, w, lang)
            _slip(pdf, slip, codes, top, slip_h, w - 2 * PAGE_MARGIN, lang)
    return bytes(pdf.output())


def _cut_line(pdf: FPDF, y: float, w: float, lang: str = DEFAULT) -> None:
    pdf.set_draw_color(*DIM)
    pdf.set_line_width(0.2)
    pdf.set_dash_pattern(dash=2, gap=1.5)
    pdf.line(2, y, w - 2, y)
    pdf.set_dash_pattern()
    pdf.set_text_color(*DIM)
    text_at(pdf, PAGE_MARGIN, y - 0.8, _said(N_("cut here"), lang), 6)
    pdf.set_text_color(0, 0, 0)
    pdf.set_draw_color(0, 0, 0)


def _slip(
    pdf: FPDF,
    slip: MatchSlip,
    codes: Mapping[str, Sequence[Sequence[bool]]],
    top: float,
    slip_h: float,
    width: float,
    lang: str = DEFAULT,
) -> None:
    x0 = PAGE_MARGIN
    y = top + 8
    table = _said(Say("Table %(table)s", table=slip.table), lang)
    pdf.set_font("Helvetica", "B", 20)
    tw = pdf.get_string_width(table)
    pdf.text(x0 + width - tw, y, table)
    head = _said(
        Say("%(event)s: round %(round)s", event=printable_text(slip.event), round=slip.round),
        lang,
    )
    size = fitted_size(pdf, head, width - tw - 6, 13, 9, "B")
    text_at(pdf, x0, y - 1, clipped(pdf, head, width - tw - 6), size, "B")
    fmt = (
        Say("Match slip, best of one. Each player scans only his own code.")
        if slip.best_of == 1
        else Say(
            "Match slip, best of three: sides swap after each game (T1). Each player scans only "
            "his own code."
        )
    )
    pdf.set_text_color(*DIM)
    text_at(pdf, x0, y + 4.5, _said(fmt, lang), 8.5)
    pdf.set_text_color(0, 0, 0)
    col = (width - 8) / 3  # the two seats on the sides, the result between them
    for k, seat in enumerate((slip.first, slip.second)):
        _seat_block(pdf, seat, codes[seat.join_url], x0 + k * 2 * (col + 4), y + 8, col, lang)
    _result_block(pdf, slip, x0 + col + 4, y + 8, col, lang)
    sig_y = top + slip_h - 7
    for k, seat in enumerate((slip.first, slip.second)):
        sx = x0 + k * (width / 2 + 4)
        sw = width / 2 - 4
        pdf.set_line_width(0.25)
        pdf.line(sx + 20, sig_y, sx + sw, sig_y)
        pdf.set_font("Helvetica", "", 8)
        signed = _said(Say("Signed: %(player)s", player=printable_text(seat.player)), lang)
        label = clipped(pdf, signed, sw)
        text_at(pdf, sx, sig_y - 1, _said(N_("Signature"), lang), 8)
        text_at(pdf, sx + 20, sig_y + 3.2, label, 8)


def _seat_block(
    pdf: FPDF,
    seat: SlipSeat,
    cells: Sequence[Sequence[bool]],
    x: float,
    y: float,
    width: float,
    lang: str = DEFAULT,
) -> None:
    name = printable_text(seat.player)
    fitted_size(pdf, name, width, 14, 9, "B")
    pdf.text(x, y + 4, clipped(pdf, name, width))
    pdf.set_font("Helvetica", "", 10)
    pdf.text(
        x,
        y + 9,
        clipped(pdf, _said(Say("plays %(side)s", side=printable_text(seat.side)), lang), width),
    )
    module = QR_MM / len(cells)
    draw_cells(pdf, cells, x + (width - QR_MM) / 2, y + 12 + 4 * module, module)


def _result_block(
    pdf: FPDF, slip: MatchSlip, x: float, y: float, width: float, lang: str = DEFAULT
) -> None:
    """The boxes to tick: one row per game (one for a best of one), a box for each player's win
    and one for a draw (T6: no winner after the extra turns is a draw)."""
    names = [
        printable_text(slip.first.player),
        printable_text(slip.second.player),
        _said(N_("Draw"), lang),
    ]
    label_w = 16.0
    box_w = (width - label_w) / 3
    text_at(pdf, x, y + 3.5, _said(N_("Result: tick the winner"), lang), 9, "B")
    yy = y + 7
    pdf.set_font("Helvetica", "", 7)
    for k, n in enumerate(names):
        shown = clipped(pdf, n, box_w - 1)
        pdf.text(x + label_w + (k + 0.5) * box_w - pdf.get_string_width(shown) / 2, yy + 2.5, shown)
    yy += 4
    games = (
        [_said(N_("Match"), lang)]
        if slip.best_of == 1
        else [_said(Say("Game %(number)s", number=n), lang) for n in (1, 2, 3)]
    )
    pdf.set_line_width(0.3)
    for g in games:
        text_at(pdf, x, yy + 4.5, g, 9)
        for k in range(3):
            cx = x + label_w + k * box_w + box_w / 2 - 3
            pdf.rect(cx, yy, 6, 6)
        yy += 9
    if slip.best_of == 3:
        text_at(
            pdf,
            x,
            yy + 2,
            _said(N_("Games won decide the match; equal games draw it (T6)."), lang),
            6.5,
        )
