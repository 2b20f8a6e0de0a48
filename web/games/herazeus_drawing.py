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

PLAYERS = ("hera", "zeus")
TITLE = {"hera": "Hera", "zeus": "Zeus"}
COLUMNS = 3
DEPTH = 4  # D10: four entries a column, the figure counting as one

# geometry (SVG user units; the picture is 360 wide, the width of a small phone)
WIDTH = 360
COL_X = (6, 90, 174)  # left edge of each column
CELL_W = 80
CELL_H = 46  # a touch target of at least 44 px at 360 px wide
GAP = 3
PILE_X = 262
PILE_W = 92
STRIP_H = 40  # hand strip per side
MID_H = 22


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
        return "figure", f"{TITLE.get(owner, owner)}'s figure"
    if text.startswith("^"):
        return "up", text[1:]
    if text.startswith("?"):
        deck = text.partition("/")[2] or owner
        return f"back back-{deck}", "?"
    return "down", text


def _card(
    x: float,
    y: float,
    w: float,
    h: float,
    cls: str,
    label: str,
    attrs: str = "",
    sub: str = "",
) -> str:
    parts = [f'<g class="card {cls}"{attrs}>']
    parts.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6"/>')
    if "figure" in cls:
        cx, cy = x + w / 2, y + h / 2
        parts.append(f'<circle class="fig" cx="{cx}" cy="{cy - 4}" r="9"/>')
        parts.append(
            f'<text x="{cx}" y="{y + h - 5}" class="small" text-anchor="middle">figure</text>'
        )
    else:
        parts.append(
            f'<text x="{x + w / 2}" y="{y + h / 2 + (0 if sub else 5)}" '
            f'text-anchor="middle">{escape(label)}</text>'
        )
        if sub:
            parts.append(
                f'<text x="{x + w / 2}" y="{y + h - 7}" class="small" '
                f'text-anchor="middle">{escape(sub)}</text>'
            )
    parts.append("</g>")
    return "".join(parts)


def _side(
    view: Mapping[str, Any], owner: str, top: bool, y0: float, seat: str, tappable: bool
) -> tuple[list[str], float]:
    """The field, hand strip and piles of one side; returns the SVG parts and the height."""
    side = view.get(owner) or {}
    field: Sequence[Sequence[str]] = side.get("field") or [[], [], []]
    out: list[str] = []
    field_h = DEPTH * (CELL_H + GAP)
    # hand strip: on the outside edge of the side (top for the upper side)
    strip_y = y0 if top else y0 + field_h
    field_y = y0 + STRIP_H if top else y0
    n = int(side.get("hand_size", len(side.get("hand") or [])))
    mine = seat in (owner, "judge")
    out.append(
        f'<text class="strip" x="6" y="{strip_y + 25}">{escape(TITLE[owner])} · {n} in hand</text>'
    )
    bx = PILE_X - 6 - min(n, 12) * 9 - 8  # small backs, one a card (at most 12, D18)
    for i in range(min(n, 12)):
        out.append(
            f'<rect class="handback back-{owner}" x="{bx + i * 9}" y="{strip_y + 9}" '
            f'width="16" height="22" rx="2"/>'
        )
    # columns
    for ci in range(COLUMNS):
        col = list(field[ci]) if ci < len(field) else []
        x = COL_X[ci]
        for pi in range(DEPTH):
            # position 1 (the first row) faces the middle
            row = (DEPTH - 1 - pi) if top else pi
            y = field_y + row * (CELL_H + GAP)
            attrs = (
                f' data-side="{owner}" data-column="{ci + 1}" data-position="{pi + 1}"'
                if tappable
                else ""
            )
            if pi < len(col):
                cls, label = describe_cell(str(col[pi]), owner)
                sub = {"up": "face up", "down": "face down"}.get(cls, "")
                if cls.startswith("back"):
                    sub = "hidden" if str(col[pi]) == "?" else f"{col[pi][2:]}'s deck"
                    if mine:
                        sub = "not entered"
                title = f"{TITLE[owner]}, column {ci + 1}, row {pi + 1}: {label}"
                g = _card(x, y, CELL_W, CELL_H, cls, label, attrs, sub)
                out.append(g.replace("<rect", f"<title>{escape(title)}</title><rect", 1))
            elif pi == len(col):
                empty = ' data-empty="1"' if tappable else ""
                out.append(
                    f'<g class="slot"{attrs}{empty}>'
                    f'<rect x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" rx="6"/>'
                    f"<title>{escape(TITLE[owner])}, column {ci + 1}: free place {pi + 1}</title>"
                    "</g>"
                )
    # piles: deck, discard, figure
    px = PILE_X
    deck = int(side.get("deck", 0))
    top_card, height = discard_facts(side)
    figure = side.get("figure", "supply")
    rows = [
        ("deck", f"{deck}", "cards in deck"),
        ("pile", top_card or "empty", f"pile: {height}" if height else "discard pile"),
        ("supply", "figure", "in supply" if figure == "supply" else "on the field"),
    ]
    for i, (cls, big, small) in enumerate(rows):
        row = (DEPTH - 1 - i) if top else i
        y = field_y + row * (CELL_H + GAP)
        kind = f"pile-{cls} back-{owner}" if cls == "deck" else f"pile-{cls}"
        out.append(
            _card(
                px, y, PILE_W, CELL_H, kind, big, f' data-side="{owner}" data-pile="{cls}"', small
            )
        )
    return out, STRIP_H + field_h


def table_svg(
    view: Mapping[str, Any],
    *,
    seat: str | None = None,
    tappable: bool = True,
    caption: str | None = None,
) -> str:
    """The whole table as one ``<svg>`` element (a string of markup, every text escaped).

    ``seat`` (default: the view's own ``seat``) decides which side is at the bottom: a player's
    own; Hera's for the judge and the public. ``tappable`` adds the data attributes the page's
    script uses to choose columns and places.
    """
    me = str(seat or view.get("seat") or "public")
    bottom = me if me in PLAYERS else "hera"
    upper = "zeus" if bottom == "hera" else "hera"
    parts: list[str] = []
    top_parts, h1 = _side(view, upper, True, 0, me, tappable)
    parts += top_parts
    mid_y = h1
    turn = view.get("turn") or {}
    mid_text = ""
    if view.get("phase") == "play" and turn.get("player") in TITLE:
        left = int(turn.get("ap", 0)) - int(turn.get("used", 0))
        mid_text = f"{TITLE[turn['player']]} · {left}/{turn.get('ap', 0)} points"
    elif view.get("phase") == "over":
        w = view.get("winner")
        mid_text = f"{TITLE.get(str(w), '?')} wins" if w else "game over"
    elif view.get("phase") == "setup":
        mid_text = "setup"
    parts.append(
        f'<line class="middle" x1="0" y1="{mid_y + MID_H / 2}" x2="{WIDTH}" '
        f'y2="{mid_y + MID_H / 2}"/>'
    )
    for ci in range(COLUMNS):
        parts.append(
            f'<text class="colno" x="{COL_X[ci] + CELL_W / 2}" y="{mid_y + MID_H / 2 + 4}" '
            f'text-anchor="middle">{ci + 1}</text>'
        )
    parts.append(
        f'<text class="midtext" x="{PILE_X + PILE_W / 2}" y="{mid_y + MID_H / 2 + 4}" '
        f'text-anchor="middle">{escape(mid_text)}</text>'
    )
    bot_parts, h2 = _side(view, bottom, False, mid_y + MID_H, me, tappable)
    parts += bot_parts
    height = mid_y + MID_H + h2
    label = caption or (
        f"The table as the {me} seat sees it: {TITLE[upper]} above, {TITLE[bottom]} below"
    )
    return (
        f'<svg class="table" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-label="{_a(label)}" data-bottom="{bottom}">'
        f"<title>{escape(label)}</title>{''.join(parts)}</svg>"
    )


# Inline styles for the picture when it stands alone (the offline report); the pages style
# the same classes in static/app.css.
SVG_CSS = """
svg.table { width: 100%; max-width: 480px; height: auto; font-family: system-ui, sans-serif; }
svg.table text { font-size: 13px; fill: #1d1d1f; }
svg.table text.small { font-size: 10px; fill: #555; }
svg.table text.strip { font-size: 12px; }
svg.table text.colno { font-size: 12px; font-weight: bold; fill: #666; }
svg.table text.midtext { font-size: 10px; }
svg.table .card rect { stroke: #555; stroke-width: 1.2; fill: #fff; }
svg.table .card.down rect { fill: #f4f0e6; stroke-dasharray: 4 3; }
svg.table .card.up rect { fill: #fffbe8; stroke: #a07800; stroke-width: 2; }
svg.table .back-hera rect, svg.table rect.back-hera { fill: #e9d7f5; stroke: #7b3fa0; }
svg.table .back-zeus rect, svg.table rect.back-zeus { fill: #d5e6fa; stroke: #2d5fa0; }
svg.table .card.figure rect { fill: #fff; stroke: #b00; stroke-width: 2; }
svg.table circle.fig { fill: #c33; }
svg.table .slot rect { fill: none; stroke: #bbb; stroke-dasharray: 2 4; }
svg.table line.middle { stroke: #999; stroke-width: 1; }
svg.table .pile-pile rect, svg.table .pile-supply rect { fill: #f7f7f7; }
"""
