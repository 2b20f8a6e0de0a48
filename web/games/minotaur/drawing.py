"""The Minotaur Lords table as an SVG picture, drawn only from a seat's view: two regions of
three columns (military, economic, religious), the opponent's cards above each column's
marker line and one's own below, both totals and the marker between them, curse tokens on
the cards, the deities in the centre. One ``role="img"`` with one label; every text escaped;
text at 14 px or more; the sides told apart by a letter as well as a colour."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from engine.minotaur.cards import COLUMNS, PLAYERS, Region, opponent
from engine.say import N_
from web.i18n import gettext

W = 360
COL_W = 116
GAP = 6
ROW_H = 26
FONT = 14
LETTER = {"miron": "M", "vess": "V"}
SVG_CSS = """
svg.ml-table { width: 100%; height: auto; font-family: system-ui, sans-serif; }
svg.ml-table text { font-size: 14px; fill: #1d1d1f; }
svg.ml-table .region { font-weight: 700; }
svg.ml-table .col { fill: #f6f1e7; stroke: #6b5d45; stroke-width: 1; }
svg.ml-table .card rect { fill: #fff; stroke: #555; }
svg.ml-table .card.miron rect { stroke: #9c1c1c; stroke-width: 2; }
svg.ml-table .card.vess rect { stroke: #1c4f9c; stroke-width: 2; stroke-dasharray: 4 2; }
svg.ml-table .card.cursed rect { fill: #e9e4f5; }
svg.ml-table .marker.miron { fill: #9c1c1c; }
svg.ml-table .marker.vess { fill: #1c4f9c; }
svg.ml-table .marker-letter { fill: #fff; font-weight: 700; }
svg.ml-table .totals { font-weight: 700; }
"""


def _col_label(kind: str) -> str:
    labels = {"military": N_("Military"), "economic": N_("Economic"), "religious": N_("Religious")}
    return gettext(labels[kind])


def _card_text(c: Mapping[str, Any]) -> str:
    curses = int(c.get("curses", 0))
    if curses:
        return gettext(
            "%(card)s %(strength)s ×%(curses)s curse",
            card=c.get("card"),
            strength=c.get("strength"),
            curses=curses,
        )
    return f"{c.get('card')} {c.get('strength')}"


def _cards(out: list[str], cards: list[Mapping[str, Any]], side: str, x: float, y: float) -> float:
    for c in cards:
        cursed = " cursed" if int(c.get("curses", 0)) else ""
        out.append(
            f'<g class="card {side}{cursed}"><rect x="{x + 2}" y="{y}" width="{COL_W - 4}" '
            f'height="{ROW_H - 2}" rx="3"/><text x="{x + 6}" y="{y + 18}">'
            f"{escape(LETTER[side])} {escape(_card_text(c)[:16])}</text></g>"
        )
        y += ROW_H
    return y


def table_svg(
    view: Mapping[str, Any], *, seat: str, tappable: bool = True, side: str | None = None
) -> str:
    """The table as ``seat`` sees it: his side below each marker line (the judge and the
    public from ``side``, Miron by default)."""
    me = seat if seat in PLAYERS else (side if side in PLAYERS else "miron")
    them = opponent(me)
    markers = view.get("markers", {})
    checks = {c["column"]: c for c in view.get("supremacy", [])}
    out: list[str] = []
    y = 4.0
    for region in Region:
        name = gettext("Upper Cresos") if region is Region.UPPER else gettext("Lower Cresos")
        out.append(f'<text class="region" x="4" y="{y + 16}">{escape(name)}</text>')
        y += 24
        cols = [c for c in COLUMNS if c.region is region]
        depth_them = max(1, *(len(view[them]["columns"].get(c.id, [])) for c in cols))
        depth_me = max(1, *(len(view[me]["columns"].get(c.id, [])) for c in cols))
        h = (depth_them + depth_me) * ROW_H + 3 * ROW_H
        for i, col in enumerate(cols):
            x = i * (COL_W + GAP)
            out.append(f'<rect class="col" x="{x}" y="{y}" width="{COL_W}" height="{h}" rx="4"/>')
            out.append(f'<text x="{x + 6}" y="{y + 18}">{_col_label(col.kind.value)}</text>')
            _cards(out, view[them]["columns"].get(col.id, []), them, x, y + ROW_H)
            mid = y + ROW_H * (1 + depth_them)
            c = checks.get(col.id, {})
            mine_total, their_total = c.get(me, 0), c.get(them, 0)
            holder = markers.get(col.id)
            if holder:
                cx, cy = x + COL_W - 16, mid + 12
                out.append(
                    f'<circle class="marker {holder}" cx="{cx}" cy="{cy}" r="11"/>'
                    f'<text class="marker-letter" x="{cx - 5}" y="{cy + 5}">{LETTER[holder]}</text>'
                )
            out.append(
                f'<text class="totals" x="{x + 6}" y="{mid + 18}">'
                f"{their_total} : {mine_total}</text>"
            )
            _cards(out, view[me]["columns"].get(col.id, []), me, x, mid + ROW_H)
        y += h + GAP
    gods = [(p, d) for p in (them, me) for d in view[p].get("deities", [])]
    deities = escape(gettext("Deities"))
    out.append(f'<text class="region" x="4" y="{y + 16}">{deities}</text>')
    y += 24
    if not gods:
        nothing = escape(gettext("none in play"))
        out.append(f'<text x="6" y="{y + 16}">{nothing}</text>')
        y += ROW_H
    for p, d in gods:
        _cards(out, [d], p, 0, y)
        y += ROW_H
    label = table_words(view, me)
    return (
        f'<svg class="ml-table" role="img" aria-label="{escape(label)}" viewBox="0 0 {W} {y + 4}" '
        f'xmlns="http://www.w3.org/2000/svg">{"".join(out)}</svg>'
    )


def table_words(view: Mapping[str, Any], me: str) -> str:
    held = {p: sum(1 for h in view.get("markers", {}).values() if h == p) for p in PLAYERS}
    return gettext(
        "The table from %(side)s's side: markers Miron %(miron)s, Vess %(vess)s; the text "
        "version follows.",
        side=me.title(),
        miron=held["miron"],
        vess=held["vess"],
    )


# the columns as the text version names them ("the upper military column")
COLUMN_TEXT = {
    "upper-military": N_("the upper military column"),
    "upper-economic": N_("the upper economic column"),
    "upper-religious": N_("the upper religious column"),
    "lower-military": N_("the lower military column"),
    "lower-economic": N_("the lower economic column"),
    "lower-religious": N_("the lower religious column"),
}


def table_text(view: Mapping[str, Any], *, seat: str) -> str:
    """Everything the drawing shows, as a list for a screen reader (visually hidden)."""
    items = []
    checks = {c["column"]: c for c in view.get("supremacy", [])}
    for col in COLUMNS:
        c = checks.get(col.id, {})
        cards = []
        for p in PLAYERS:
            placed = view[p]["columns"].get(col.id, [])
            names = ", ".join(_card_text(x) for x in placed) or gettext("none")
            cards.append(f"{p.title()}: {names}")
        holder = view.get("markers", {}).get(col.id)
        line = gettext(
            "%(column)s: %(cards)s. Totals Miron %(miron)s, Vess %(vess)s; marker %(marker)s.",
            column=gettext(COLUMN_TEXT[col.id]).capitalize(),
            cards="; ".join(cards),
            miron=c.get("miron", 0),
            vess=c.get("vess", 0),
            marker=holder.title() if holder else gettext("none"),
        )
        items.append(f"<li>{escape(line)}</li>")
    for p in PLAYERS:
        gods = ", ".join(str(d.get("card")) for d in view[p].get("deities", []))
        line = gettext(
            "%(side)s's deities: %(cards)s.", side=p.title(), cards=gods or gettext("none")
        )
        items.append(f"<li>{escape(line)}</li>")
    return f'<ul class="sr-only table-text">{"".join(items)}</ul>'
