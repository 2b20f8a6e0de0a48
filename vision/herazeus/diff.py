"""Stage: compare a table snapshot with the referee's view and propose what happened.

Input: a :class:`vision.herazeus.table.Snapshot` and a view as ``referee.views.view_for(state,
seat)`` returns it (per side a ``field``: three columns, front to back, of ``Name`` / ``Name/zeus``
face down and known to the seat, ``^Name`` face up, ``?`` / ``?/hera`` a back, ``@`` the
figure). Output: a list of **proposals**, plain dicts a person confirms with a tap; nothing
is applied here.

Proposal format (every key always present)::

    {
      "kind": "reveal" | "play" | "pegasus_place" | "challenge" | "removed" | "irregularity",
      "side": "hera" | "zeus",        # whose field it concerns
      "column": 1-3, "position": 1-4, # the cell (position = row, 1 = front)
      "raw": {...} | None,            # what the service could take (see below), or None
      "description": "one sentence for the person confirming",
      "confidence": 0.0-1.0,
    }

``raw`` is an **observation** for ``Referee.observe`` (``{"player", "zone": "field",
"column", "position", "card", "source": "camera"}``) for ``reveal`` and for an
``irregularity`` where a face-up card shows another card than recorded (the service then
records the irregularity itself, D20), or an **action** for ``Referee.submit``
(``{"do": "play", "column", "position", "by"}`` without the card, which the camera cannot
see; ``{"do": "pegasus", "target": "hand", "pick", "place", "by"}``; ``{"do": "challenge",
"column", "by"}``). ``removed`` and the other irregularities carry ``raw: None``: the person
decides what to record.

Matching, column by column: ``unknown`` cells match anything (a hand over the table says
nothing). A column with one card more than recorded is explained by a play (face down) or a
Pegasus placement (face up at the front) at the one position whose removal makes the rest
match; with one card fewer, by a card removed at the one position whose removal from the
record makes it match; a first-row card revealed on one side and the opposite first-row card
gone on the other is proposed as a challenge (D11). Anything else is an irregularity.

Privacy: proposals repeat only what the view passed in says and what lies face up on the
table; pass the view of the seat that will read them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from printables.herazeus.kit import DECKS
from printables.herazeus.mat import COLUMNS
from printables.herazeus.payload import Deck
from vision.herazeus.table import CellReading, Snapshot
from vision.proposal import proposal

EntryKind = Literal["figure", "up", "down"]


class ViewError(ValueError):
    """A view that is not in the shape ``view_for`` returns; the message names the field."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One recorded entry of a column: the figure, or a card face up or down."""

    kind: EntryKind
    deck: Deck | None  # the card's deck (None for the figure)
    name: str | None  # None for the figure and for an unknown back
    text: str


def parse_entry(text: str, holder: Deck) -> Entry:
    """A view entry on ``holder``'s side. Raises ViewError for a malformed entry."""
    if not isinstance(text, str) or not text:
        raise ViewError(f"field entry {text!r} is not a card, back or figure")
    if text == "@":
        return Entry("figure", None, None, text)
    up = text.startswith("^")
    body = text[1:] if up else text
    name, _, origin = body.partition("/")
    if origin and origin not in DECKS:
        raise ViewError(f"field entry {text!r}: origin must be hera or zeus")
    deck: Deck = origin if origin else holder
    if not name:
        raise ViewError(f"field entry {text!r} names no card")
    if name == "?":
        if up:
            raise ViewError(f"field entry {text!r}: a face-up card is never unknown")
        return Entry("down", deck, None, text)
    return Entry("up" if up else "down", deck, name, text)


def parse_field(view: Mapping[str, Any], side: Deck) -> list[list[Entry]]:
    """The three recorded columns of ``side``. Raises ViewError for a malformed view."""
    s = view.get(side)
    if not isinstance(s, Mapping) or not isinstance(s.get("field"), list):
        raise ViewError(f"view: {side}.field is missing")
    cols = s["field"]
    if len(cols) != COLUMNS or not all(isinstance(c, list) and len(c) <= 4 for c in cols):
        raise ViewError(f"view: {side}.field must be 3 columns of at most 4 entries")
    return [[parse_entry(t, side) for t in col] for col in cols]


def _other(side: Deck) -> Deck:
    return "zeus" if side == "hera" else "hera"


def _fits(cell: CellReading, e: Entry) -> str:
    """``match``, ``reveal`` (recorded face down, seen face up and consistent) or ``conflict``."""
    if cell.state == "unknown":
        return "match"
    if e.kind == "figure":
        return "conflict"  # the figure carries no code: it can only read unknown
    if cell.state == "down":
        return "match" if e.kind == "down" and e.deck == cell.deck else "conflict"
    if cell.state == "up" and cell.card is not None:
        same = cell.card.deck == e.deck and (e.name is None or e.name == cell.card.name)
        if not same:
            return "conflict"
        return "match" if e.kind == "up" else "reveal"
    return "conflict"  # empty where something is recorded


def _observation(cell: CellReading) -> dict[str, Any]:
    assert cell.card is not None
    return {
        "player": cell.side,
        "zone": "field",
        "column": cell.column,
        "position": cell.row,
        "card": cell.card.notation(cell.side),
        "source": "camera",
    }


def _where(side: Deck, column: int, position: int) -> str:
    return f"{side.title()}'s column {column}, position {position}"


def _compare(
    cells: Sequence[CellReading], entries: Sequence[Entry]
) -> list[tuple[CellReading, Entry, str]] | None:
    """Pairs cells and entries in order; None when any pair conflicts."""
    out = []
    for c, e in zip(cells, entries, strict=True):
        f = _fits(c, e)
        if f == "conflict":
            return None
        out.append((c, e, f))
    return out


def _reveals(pairs: list[tuple[CellReading, Entry, str]]) -> list[dict[str, Any]]:
    out = []
    for c, e, f in pairs:
        if f == "reveal" and c.card is not None:
            out.append(
                proposal(
                    "reveal",
                    c.side,
                    c.column,
                    c.row,
                    _observation(c),
                    f"{_where(c.side, c.column, c.row)}: the card recorded face down "
                    f"({e.text}) lies face up as {c.card.notation(c.side)}",
                    c.confidence,
                )
            )
    return out


def _column(
    side: Deck, col: int, cells: list[CellReading], entries: list[Entry], turn: Deck | None
) -> list[dict[str, Any]]:
    """Proposals for one column (see the module docstring)."""
    n = len(entries)
    occupied = [c for c in cells if c.state != "empty"]
    last = max((c.row for c in occupied), default=0)
    gaps = [c for c in cells if c.state == "empty" and c.row < last]
    if gaps:
        g = gaps[0]
        return [
            proposal(
                "irregularity",
                side,
                col,
                g.row,
                None,
                f"{_where(side, col, g.row)} is empty with cards behind it; columns close up "
                "after every loss",
                0.8,
            )
        ]
    seen = cells[:last]
    if last == n:
        pairs = _compare(seen, entries)
        if pairs is not None:
            return _reveals(pairs)
    elif last == n + 1:
        fits = []
        for p in range(last):
            pairs = _compare(seen[:p] + seen[p + 1 :], entries)
            if pairs is not None and seen[p].state in ("down", "up"):
                fits.append((p, pairs))
        props = []
        for p, pairs in fits:
            c = seen[p]
            share = 1.0 / len(fits)
            if c.state == "down" and c.deck == side:
                props.append(
                    proposal(
                        "play",
                        side,
                        col,
                        p + 1,
                        {"do": "play", "column": col, "position": p + 1, "by": side},
                        f"{side.title()} played a card face down into column {col}, "
                        f"position {p + 1}",
                        c.confidence * share,
                    )
                )
            elif c.state == "up" and c.card is not None and p == 0 and c.card.deck == side:
                props.append(
                    proposal(
                        "pegasus_place",
                        side,
                        col,
                        1,
                        {
                            "do": "pegasus",
                            "target": "hand",
                            "pick": c.card.name,
                            "place": col,
                            "by": _other(side),
                        },
                        f"{_other(side).title()}'s Pegasus drew {c.card.name} from "
                        f"{side.title()}'s hand and placed it face up in front of column {col}",
                        c.confidence * share * 0.9,
                    )
                )
            props += _reveals(pairs)
        if props:
            return props
    elif last == n - 1:
        fits2 = []
        for p in range(n):
            pairs = _compare(seen, entries[:p] + entries[p + 1 :])
            if pairs is not None:
                fits2.append((p, pairs))
        props = []
        for p, pairs in fits2:
            e = entries[p]
            props.append(
                proposal(
                    "removed",
                    side,
                    col,
                    p + 1,
                    None,
                    f"{_where(side, col, p + 1)} ({e.text}) is no longer on the table: "
                    "discarded? Confirm the action that removed it",
                    0.9 / len(fits2),
                )
            )
            props += _reveals(pairs)
        if props:
            return props
    # nothing legal explains it: name the first cell that differs
    for c in cells:
        rec = entries[c.row - 1] if c.row <= n else None
        if rec is None and c.state in ("empty", "unknown"):
            continue
        if rec is not None and _fits(c, rec) != "conflict":
            continue
        seen_as = c.notation() or "empty"
        recorded = rec.text if rec is not None else "nothing"
        raw = (
            _observation(c)
            if c.state == "up" and rec is not None and rec.kind == "up" and c.card is not None
            else None
        )
        return [
            proposal(
                "irregularity",
                side,
                col,
                c.row,
                raw,
                f"{_where(side, col, c.row)}: recorded {recorded}, seen {seen_as}",
                0.9 if c.state != "unknown" else 0.5,
            )
        ]
    return []


def _challenges(props: list[dict[str, Any]], turn: Deck | None) -> list[dict[str, Any]]:
    """A first-row reveal on one side with the opposite first-row card removed (D11)."""
    out = []
    for r in props:
        if r["kind"] != "reveal" or r["position"] != 1:
            continue
        for q in props:
            if (
                q["kind"] == "removed"
                and q["position"] == 1
                and q["column"] == r["column"]
                and q["side"] != r["side"]
            ):
                by = turn or r["side"]
                out.append(
                    proposal(
                        "challenge",
                        by,
                        r["column"],
                        1,
                        {"do": "challenge", "column": r["column"], "by": by},
                        f"a challenge in column {r['column']}: {r['side'].title()}'s card "
                        f"stayed face up, {q['side'].title()}'s front card was discarded",
                        0.8,
                    )
                )
    return out


def propose(snapshot: Snapshot, view: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The proposals that explain how ``snapshot`` differs from ``view`` (empty when they
    agree). Raises ViewError when ``view`` is not in ``view_for``'s shape."""
    turn_raw = view.get("turn", {}).get("player") if isinstance(view.get("turn"), dict) else None
    turn: Deck | None = turn_raw if turn_raw in DECKS else None
    props: list[dict[str, Any]] = []
    for side in DECKS:
        field = parse_field(view, side)
        for col in range(1, COLUMNS + 1):
            props += _column(side, col, snapshot.column(side, col), field[col - 1], turn)
    return _challenges(props, turn) + props
