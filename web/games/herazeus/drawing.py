"""The table of Hera & Zeus as an SVG picture, drawn from a seat's view (``referee.views``).

Everything Hera & Zeus-specific about how the table looks lives here: two sides of three
columns of at most four entries (D10), the first row facing the middle, each side's hand, deck,
discard pile (its top card and height, D21) and figure. The picture is drawn only from the view
it is given, so it can never show more than that seat may see: an opponent's hidden card is a
back that tells its deck and nothing else.

Every field cell is a group with ``data-side``, ``data-column`` and ``data-position`` (1-based,
position 1 = the first row), plus ``data-empty`` for the free place at the back of a column, so
the page's script can let a player choose columns and places by tapping. Nothing here needs
JavaScript to display.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from web.games.herazeus.present import card_name
from web.i18n import gettext, ngettext

PLAYERS = ("hera", "zeus")
TITLE = {"hera": "Hera", "zeus": "Zeus"}
LETTER = {"hera": "H", "zeus": "Z"}  # sides told apart by more than colour (issue 13, item 8)
COLUMNS = 3
DEPTH = 4  # D10: four entries a column, the figure counting as one

# Geometry, in SVG user units. The picture is 360 wide, the width of a small phone; drawn at
# 315 px or wider, every text (16 units) shows at 14 px or more and every place (50 units) is at
# least 44 px tall (issue 13, item 8).
WIDTH = 360
COL_W = 114
COL_X = (4, 123, 242)  # left edge of the 1st, 2nd and 3rd column from the left of the picture
CELL_H = 50
GAP = 4
STRIP_H = 48  # each side's two lines: hand and deck, pile and figure
MID_H = 30  # the band between the sides: the column numbers, as on the printed mat
FONT = 16
TEXT_W = 8.2  # a generous average width of one character at FONT, for fitting lines


def _a(v: object) -> str:
    """An attribute value, escaped."""
    return escape(str(v), quote=True)


def discard_facts(side: Mapping[str, Any]) -> tuple[str | None, int]:
    """The top card and height of a side's pile, from a view after D21 (``discard_top``,
    ``discard_height``) or before it (the full ``discard`` list)."""
    if "discard_height" in side:
        top = side.get("discard_top")
        return (str(top) if top else None), int(side.get("discard_height") or 0)
    pile = list(side.get("discard") or [])
    return (str(pile[-1]) if pile else None), len(pile)


def describe_cell(text: str, owner: str) -> tuple[str, str]:
    """(css class, label) for one field entry as the view writes it: ``@`` the figure,
    ``^Name`` face up, ``?`` or ``?/deck`` a back or an unknown card, else a face-down card
    this seat may look at."""
    if text == "@":
        return "figure", gettext("%(seat)s's figure", seat=TITLE.get(owner, owner))
    if text.startswith("^"):
        return "up", text[1:]
    if text.startswith("?"):
        deck = text.partition("/")[2] or owner
        return f"back back-{deck}", "?"
    return "down", text


def cell_words(text: str, owner: str, mine: bool) -> tuple[str, str, str, str]:
    """What one field entry shows: (css class, name, the short line under it, its words for a
    listener). The short line starts with the letter of the deck the card belongs to (H or Z),
    so that the sides differ by more than colour; a card of the other deck says so in words."""
    cls, label = describe_cell(text, owner)
    if cls == "figure":
        return cls, gettext("figure"), LETTER.get(owner, "?"), label
    if cls.startswith("back"):
        deck = cls.rpartition("-")[2]
        seat = TITLE.get(deck, deck)
        if mine:
            state = gettext("not entered")
            words = gettext("a card of %(seat)s's deck, not entered", seat=seat)
        else:
            state = gettext("hidden")
            words = gettext("a card of %(seat)s's deck, hidden", seat=seat)
        return cls, "?", f"{LETTER.get(deck, '?')} · {state}", words
    base, _, origin = label.partition("/")
    name = card_name(base)
    deck = origin or owner
    up = cls == "up"
    state = gettext("face up") if up else gettext("face down")
    if deck != owner:
        other = TITLE.get(deck, deck)
        if up:
            words = gettext("%(card)s (%(seat)s's card), face up", card=name, seat=other)
        else:
            words = gettext("%(card)s (%(seat)s's card), face down", card=name, seat=other)
    elif up:
        words = gettext("%(card)s, face up", card=name)
    else:
        words = gettext("%(card)s, face down", card=name)
    return cls, name, f"{LETTER.get(deck, '?')} · {state}", words


def _fit(text: str, width: float) -> str:
    """The attributes that squeeze a line into ``width`` when it would run over."""
    if len(text) * TEXT_W <= width:
        return ""
    return f' textLength="{width:.0f}" lengthAdjust="spacingAndGlyphs"'


def _card(
    x: float,
    y: float,
    w: float,
    h: float,
    cls: str,
    label: str,
    attrs: str = "",
    sub: str = "",
    title: str = "",
) -> str:
    parts = [f'<g class="card {cls}"{attrs}>']
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    parts.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6"/>')
    cx = x + w / 2
    if "figure" in cls:
        parts.append(f'<circle class="fig" cx="{x + 18}" cy="{y + h / 2}" r="9"/>')
        label = f"{label} · {sub}" if sub else label
        parts.append(
            f'<text x="{cx + 8}" y="{y + h / 2 + 6}" text-anchor="middle">{escape(label)}</text>'
        )
    else:
        top = y + (21 if sub else h / 2 + 6)
        parts.append(
            f'<text x="{cx}" y="{top}" text-anchor="middle" class="name"'
            f"{_fit(label, w - 8)}>{escape(label)}</text>"
        )
        if sub:
            parts.append(
                f'<text x="{cx}" y="{y + h - 9}" class="small" text-anchor="middle"'
                f"{_fit(sub, w - 8)}>{escape(sub)}</text>"
            )
    parts.append("</g>")
    return "".join(parts)


def rows_shown(field: Sequence[Sequence[str]]) -> int:
    """How many rows a side's drawing needs: every card and, behind each column, its next free
    place (a column of four has none, D10); at least one row."""
    return max([1] + [min(len(col) + 1, DEPTH) for col in field])


def hand_line(side: Mapping[str, Any]) -> str:
    """A side's hand and deck, in words ("5 cards in hand · deck 20")."""
    n = int(side.get("hand_size", len(side.get("hand") or [])))
    deck = int(side.get("deck", 0))
    return ngettext(
        "%(num)d card in hand · deck %(deck)s",
        "%(num)d cards in hand · deck %(deck)s",
        n,
        deck=deck,
    )


def side_lines(side: Mapping[str, Any], owner: str) -> tuple[str, str]:
    """The two lines of a side's strip: its hand and deck; its discard pile (height and top
    card, D21) and figure."""
    top, height = discard_facts(side)
    on_field = side.get("figure", "supply") != "supply"
    first = f"{TITLE[owner]} · {hand_line(side)}"
    if top and height:
        card = card_name(top.partition("/")[0])
        if on_field:
            second = gettext(
                "pile %(height)s, top %(card)s · figure on the field", height=height, card=card
            )
        else:
            second = gettext(
                "pile %(height)s, top %(card)s · figure in supply", height=height, card=card
            )
    elif on_field:
        second = gettext("pile empty · figure on the field")
    else:
        second = gettext("pile empty · figure in supply")
    return first, second


def column_x(ci: int, bottom: str) -> float:
    """The left edge of column ``ci`` (0-based) as the player at the bottom sees the table:
    Hera counts her columns from her left; Zeus's column k faces Hera's column k (HZ-P10), so
    seen from his seat his column 1 is on his right, as on the printed mat."""
    return COL_X[ci] if bottom == "hera" else COL_X[COLUMNS - 1 - ci]


def _side(
    view: Mapping[str, Any],
    owner: str,
    top: bool,
    y0: float,
    seat: str,
    tappable: bool,
    bottom: str,
) -> tuple[list[str], float]:
    """The strip and field of one side; returns the SVG parts and the height."""
    side = view.get(owner) or {}
    field: Sequence[Sequence[str]] = side.get("field") or [[], [], []]
    rows = rows_shown(field)
    field_h = rows * (CELL_H + GAP)
    out: list[str] = []
    # the strip lies on the outside edge of the side (the top for the upper side)
    strip_y = y0 if top else y0 + field_h
    field_y = y0 + STRIP_H if top else y0
    mine = seat in (owner, "judge")
    first, second = side_lines(side, owner)
    out.append(
        f'<rect class="strip strip-{owner}" x="0" y="{strip_y + 2}" width="{WIDTH}" '
        f'height="{STRIP_H - 4}" rx="4"/>'
    )
    for i, line in enumerate((first, second)):
        out.append(
            f'<text class="strip" x="8" y="{strip_y + 20 + i * 19}"'
            f"{_fit(line, WIDTH - 16)}>{escape(line)}</text>"
        )
    for ci in range(COLUMNS):
        col = list(field[ci]) if ci < len(field) else []
        x = column_x(ci, bottom)
        for pi in range(rows):
            # row 1 (the first row) faces the middle
            y = field_y + ((rows - 1 - pi) if top else pi) * (CELL_H + GAP)
            attrs = (
                f' data-side="{owner}" data-column="{ci + 1}" data-position="{pi + 1}"'
                if tappable
                else ""
            )
            if pi < len(col):
                cls, name, sub, words = cell_words(str(col[pi]), owner, mine)
                title = gettext(
                    "%(seat)s, column %(column)s, row %(row)s: %(card)s",
                    seat=TITLE[owner],
                    column=ci + 1,
                    row=pi + 1,
                    card=words,
                )
                out.append(_card(x, y, COL_W, CELL_H, cls, name, attrs, sub, title))
            elif pi == len(col):
                empty = ' data-empty="1"' if tappable else ""
                out.append(
                    f'<g class="slot"{attrs}{empty}>'
                    "<title>"
                    + escape(
                        gettext(
                            "%(seat)s, column %(column)s: free place, row %(row)s",
                            seat=TITLE[owner],
                            column=ci + 1,
                            row=pi + 1,
                        )
                    )
                    + "</title>"
                    f'<rect x="{x}" y="{y}" width="{COL_W}" height="{CELL_H}" rx="6"/></g>'
                )
    return out, STRIP_H + field_h


def bottom_side(seat: str, side: str | None = None) -> str:
    """Whose side is at the bottom: a player's own; for the judge and the public the side they
    chose, Hera's by default."""
    if seat in PLAYERS:
        return seat
    return side if side in PLAYERS else "hera"


def table_label(view: Mapping[str, Any], bottom: str) -> str:
    """The drawing's one label for a listener (the text version beside it says the rest)."""
    turn = view.get("turn") or {}
    seen = TITLE[bottom]
    if view.get("phase") == "play" and turn.get("player") in TITLE:
        left = int(turn.get("ap", 0)) - int(turn.get("used", 0))
        return gettext(
            "The table seen from %(seat)s's side: %(player)s's turn, %(left)s of %(ap)s points"
            " left",
            seat=seen,
            player=TITLE[turn["player"]],
            left=left,
            ap=turn.get("ap", 0),
        )
    if view.get("phase") == "over":
        w = view.get("winner")
        if w in TITLE:
            return gettext(
                "The table seen from %(seat)s's side: %(winner)s won",
                seat=seen,
                winner=TITLE[str(w)],
            )
        return gettext("The table seen from %(seat)s's side: the game is over", seat=seen)
    if view.get("phase") == "setup":
        return gettext("The table seen from %(seat)s's side: setting up", seat=seen)
    return gettext("The table seen from %(seat)s's side", seat=seen)


def table_svg(
    view: Mapping[str, Any],
    *,
    seat: str | None = None,
    tappable: bool = True,
    caption: str | None = None,
    side: str | None = None,
) -> str:
    """The whole table as one ``<svg>`` element (a string of markup, every text escaped).

    ``seat`` (default: the view's own ``seat``) decides which side is at the bottom: a player's
    own; for the judge and the public ``side`` (Hera's by default). Seen from Zeus the picture
    is Hera's turned half round. ``tappable`` adds the data attributes the page's script uses
    to choose columns and places. The picture is one image with one label for a screen reader
    (:func:`table_text` is its text version).
    """
    me = str(seat or view.get("seat") or "public")
    bottom = bottom_side(me, side)
    upper = "zeus" if bottom == "hera" else "hera"
    parts: list[str] = []
    top_parts, h1 = _side(view, upper, True, 0, me, tappable, bottom)
    parts += top_parts
    mid = h1 + MID_H / 2
    parts.append(f'<line class="middle" x1="0" y1="{mid}" x2="{WIDTH}" y2="{mid}"/>')
    for ci in range(COLUMNS):
        x = column_x(ci, bottom) + COL_W / 2
        number = escape(gettext("column %(column)s", column=ci + 1))
        parts.append(
            f'<rect class="band" x="{x - 44}" y="{h1 + 3}" width="88" height="{MID_H - 6}" rx="4"/>'
            f'<text class="colno" x="{x}" y="{mid + 6}" text-anchor="middle">'
            f"{number}</text>"
        )
    bot_parts, h2 = _side(view, bottom, False, h1 + MID_H, me, tappable, bottom)
    parts += bot_parts
    height = h1 + MID_H + h2
    label = caption or table_label(view, bottom)
    return (
        f'<svg class="table" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-label="{_a(label)}" data-bottom="{bottom}">'
        f"<title>{escape(label)}</title>{''.join(parts)}</svg>"
    )


def table_text(view: Mapping[str, Any], *, seat: str | None = None) -> str:
    """The drawing's text version, for a screen reader: a table of each side's columns, row by
    row, then each side's hand, deck, pile and figure, from the same view as the drawing (so it
    says no more than the drawing shows). Visually hidden by the page's ``sr-only`` class, on a
    ``<div>`` (a table ignores the clipping)."""
    me = str(seat or view.get("seat") or "public")
    rows: list[str] = []
    for owner in PLAYERS:
        side = view.get(owner) or {}
        field: Sequence[Sequence[str]] = side.get("field") or [[], [], []]
        mine = me in (owner, "judge")
        for ci in range(COLUMNS):
            col = list(field[ci]) if ci < len(field) else []
            cells = [
                gettext(
                    "row %(row)s: %(card)s", row=pi + 1, card=cell_words(str(t), owner, mine)[3]
                )
                for pi, t in enumerate(col)
            ]
            where = gettext("%(seat)s, column %(column)s", seat=TITLE[owner], column=ci + 1)
            said = "; ".join(cells) or gettext("empty")
            rows.append(f'<tr><th scope="row">{escape(where)}</th><td>{escape(said)}</td></tr>')
        _first, second = side_lines(side, owner)
        piles = gettext("%(seat)s's hand and piles", seat=TITLE[owner])
        rows.append(
            f'<tr><th scope="row">{escape(piles)}</th>'
            f"<td>{escape(hand_line(side))}; {escape(second)}</td></tr>"
        )
    caption = escape(table_label(view, bottom_side(me)))
    return (
        f'<div class="sr-only"><table class="table-text"><caption>{caption}</caption>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


# Inline styles for the picture when it stands alone (the offline report); the pages style
# the same classes in static/herazeus.css.
SVG_CSS = """
svg.table { width: 100%; max-width: 480px; height: auto; font-family: system-ui, sans-serif; }
svg.table text { font-size: 16px; fill: #1d1d1f; }
svg.table text.name { font-weight: 600; }
svg.table text.colno { font-weight: 700; fill: #3d3d42; }
svg.table rect.band { fill: #eee; }
svg.table rect.strip { fill: #f2f2f4; }
svg.table rect.strip-hera { fill: #f6e3f1; } svg.table rect.strip-zeus { fill: #dde7f4; }
svg.table .card rect { stroke: #555; stroke-width: 1.2; fill: #fff; }
svg.table .card.down rect { fill: #f4f0e6; stroke-dasharray: 4 3; }
svg.table .card.up rect { fill: #fffbe8; stroke: #8a6700; stroke-width: 2; }
svg.table .back-hera rect { fill: #f6e3f1; stroke: #a8368a; stroke-width: 2; }
svg.table .back-zeus rect { fill: #dde7f4; stroke: #0d2f5c; stroke-width: 2; }
svg.table .card.figure rect { fill: #fff; stroke: #b00; stroke-width: 2; }
svg.table circle.fig { fill: #c33; }
svg.table .slot rect { fill: transparent; stroke: #8a8a90; stroke-dasharray: 3 4; }
svg.table line.middle { stroke: #999; stroke-width: 1; }
"""
