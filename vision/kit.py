"""What the camera needs to know about a kit: its id and secret, the card each face code
names, and the mat's geometry in millimetres.

The kit itself is made by :mod:`printables` (``referee kit``). This module only states the
small interface vision reads (:class:`KitLike`) and a loader that turns a ``kit.json`` into
it. Nothing here touches a camera or a file except :func:`load_kit`.

**Mat geometry.** Vision takes the cells from the kit's mat (``kit.json`` ``"mat"``,
:mod:`printables.mat`), so the numbering on the printed mat is the numbering read. Mat
coordinates are millimetres with the origin at the mat's top-left corner *as Hera sees it*,
x to the right, y down (towards Hera); Hera's side is the bottom half, Zeus's the top half.
Row 1 (the front) of each side is the row next to the centre band, row 4 the row at that
player's edge. Columns, in the standard mat the kit prints: column ``k`` of Hera faces column
``k`` of Zeus (D11 challenges go between opposite first-row cards), so Hera counts 1-3 from
her left and Zeus, from his seat, from his right; the column numbers are printed in the
centre band::

        [0]                    [1]     corner markers 0-3, clockwise from top-left
            Z1r4  Z2r4  Z3r4           Zeus's row 4 (his edge of the table)
            Z1r1  Z2r1  Z3r1           Zeus's row 1, at the centre band
            ---- 1 --- 2 --- 3 ----    centre band
            H1r1  H2r1  H3r1           Hera's row 1
            H1r4  H2r4  H3r4           Hera's row 4 (her edge)
        [3]                    [2]

A kit whose mat numbers the cells otherwise is read by its own numbers: nothing in vision
assumes this layout beyond the corner marker ids (:data:`printables.payload.MAT_CORNER_IDS`,
printed upright for Hera).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from printables.mat import standard_mat
from printables.payload import MAT_CORNER_IDS, PayloadError, face_payload

Side = Literal["hera", "zeus"]
SIDES: tuple[Side, Side] = ("hera", "zeus")
COLUMNS = 3
ROWS = 4


class KitError(ValueError):
    """A kit file that cannot be used: the message names the file and the problem."""


@dataclass(frozen=True, slots=True)
class CardRef:
    """One physical card of a kit: its deck, the card's name and its serial in the deck."""

    deck: Side
    name: str
    serial: int

    def notation(self, holder: Side) -> str:
        """The card as written on ``holder``'s side (POSITIONS.md): ``Name``, or
        ``Name/zeus`` for a card that came from the other deck."""
        return self.name if self.deck == holder else f"{self.name}/{self.deck}"

    def to_json(self) -> dict[str, Any]:
        return {"deck": self.deck, "name": self.name, "serial": self.serial}


Rect = tuple[float, float, float, float]  # x, y, width, height in mm


@dataclass(frozen=True, slots=True)
class MatGeometry:
    """The printed mat in millimetres (see the module docstring for the axes).

    ``markers`` maps each corner marker id to the mat position of the marker's own top-left
    corner; every marker is ``marker_mm`` wide and printed upright. ``cells`` maps
    ``(side, column, row)`` to the rectangle where that card lies.
    """

    width_mm: float
    height_mm: float
    marker_mm: float
    markers: Mapping[int, tuple[float, float]]
    cells: Mapping[tuple[Side, int, int], Rect]

    def marker_corners(self, marker_id: int) -> list[tuple[float, float]]:
        """The four corners of a corner marker in mat mm, in ArUco's order (TL, TR, BR, BL)."""
        x, y = self.markers[marker_id]
        s = self.marker_mm
        return [(x, y), (x + s, y), (x + s, y + s), (x, y + s)]

    def cell_at(self, x: float, y: float) -> tuple[Side, int, int] | None:
        """The cell whose rectangle holds the mat point (x, y), or None."""
        for key, (cx, cy, w, h) in self.cells.items():
            if cx <= x < cx + w and cy <= y < cy + h:
                return key
        return None

    def iter_cells(self) -> Iterator[tuple[Side, int, int]]:
        """Every cell: Hera then Zeus, columns 1-3, rows 1-4."""
        for side in SIDES:
            for col in range(1, COLUMNS + 1):
                for row in range(1, ROWS + 1):
                    yield (side, col, row)

    @classmethod
    def from_printables(cls, mat: Any) -> MatGeometry:
        """Vision's view of a :class:`printables.mat.MatGeometry` (corner markers given by
        their centres, printed upright). Raises KitError for a mat without the 4 corner
        markers or the 24 cells."""
        try:
            s = float(mat.marker_size)
            markers = {int(i): (float(x) - s / 2, float(y) - s / 2) for i, x, y in mat.corners}
            cells: dict[tuple[Side, int, int], Rect] = {}
            for c in mat.cells:
                if c.side not in SIDES:
                    raise KitError(f"mat cell side {c.side!r} is not hera or zeus")
                r = c.rect
                cells[(c.side, int(c.column), int(c.row))] = (
                    float(r.x),
                    float(r.y),
                    float(r.w),
                    float(r.h),
                )
            geo = cls(float(mat.width), float(mat.height), s, markers, cells)
        except (AttributeError, TypeError, ValueError) as e:
            raise KitError(f"mat geometry: {e}") from None
        _check_geometry(geo)
        return geo


def _check_geometry(geo: MatGeometry) -> None:
    if set(MAT_CORNER_IDS) - set(geo.markers):
        raise KitError("mat geometry: the four corner markers 0-3 are required")
    if len(geo.cells) != 2 * COLUMNS * ROWS:
        raise KitError(f"mat geometry: {len(geo.cells)} cells, expected {2 * COLUMNS * ROWS}")


DEFAULT_MAT = MatGeometry.from_printables(standard_mat())


@runtime_checkable
class KitLike(Protocol):
    """What vision needs from a kit. :func:`as_vision_kit` makes one from a
    :class:`printables.kit.Kit`."""

    @property
    def kit_id(self) -> str: ...

    @property
    def secret(self) -> str: ...

    @property
    def mat(self) -> MatGeometry: ...

    def card_for(self, payload: str) -> CardRef | None:
        """The card a checked payload names, or None when the kit printed no such sticker."""
        ...


@dataclass(frozen=True)
class VisionKit:
    """A plain :class:`KitLike`: the kit id and secret, payload -> card, and the mat."""

    kit_id: str
    secret: str
    cards: Mapping[str, CardRef]
    mat: MatGeometry = field(default=DEFAULT_MAT)

    def card_for(self, payload: str) -> CardRef | None:
        return self.cards.get(payload)

    @classmethod
    def build(
        cls,
        kit_id: str,
        secret: str,
        decks: Mapping[Side, list[str]],
        mat: MatGeometry = DEFAULT_MAT,
    ) -> VisionKit:
        """A kit with one sticker per listed card, serials 1.. in list order per deck.
        Raises PayloadError for a bad kit id or a deck of more than 99 cards."""
        cards: dict[str, CardRef] = {}
        for deck, names in decks.items():
            for i, name in enumerate(names, start=1):
                cards[face_payload(kit_id, secret, deck, i)] = CardRef(deck, name, i)
        return cls(kit_id, secret, cards, mat)


def as_vision_kit(kit: Any) -> VisionKit:
    """Vision's view of a :class:`printables.kit.Kit` (or of anything with ``kit_id``,
    ``secret``, ``stickers`` of deck/serial/card/payload and a printables ``mat``).
    Raises KitError when a part is missing."""
    if isinstance(kit, VisionKit):
        return kit
    kit_id, secret = getattr(kit, "kit_id", None), getattr(kit, "secret", None)
    if not isinstance(kit_id, str) or not isinstance(secret, str):
        raise KitError("the kit has no kit id or secret")
    cards: dict[str, CardRef] = {}
    for s in getattr(kit, "stickers", ()):
        deck, serial = getattr(s, "deck", None), getattr(s, "serial", None)
        name, payload = getattr(s, "card", None), getattr(s, "payload", None)
        if deck not in SIDES or not isinstance(serial, int) or not isinstance(name, str):
            raise KitError(f"a sticker without deck, serial or card: {s!r}"[:200])
        if not isinstance(payload, str):
            raise KitError(f"a sticker without a payload: {s!r}"[:200])
        cards[payload] = CardRef(deck, name, serial)
    if not cards:
        raise KitError("the kit lists no stickers")
    mat = getattr(kit, "mat", None)
    geo = (
        mat
        if isinstance(mat, MatGeometry)
        else (DEFAULT_MAT if mat is None else MatGeometry.from_printables(mat))
    )
    return VisionKit(kit_id, secret, cards, geo)


def load_kit(path: str | Path) -> VisionKit:
    """Reads a ``kit.json`` written by ``referee kit`` (strictly, through
    :meth:`printables.kit.Kit.load`). Raises KitError naming the file and the problem."""
    from printables.kit import Kit
    from printables.kit import KitError as PrintKitError

    try:
        return as_vision_kit(Kit.load(path))
    except PrintKitError as e:
        raise KitError(str(e)) from None


__all__ = [
    "COLUMNS",
    "DEFAULT_MAT",
    "ROWS",
    "SIDES",
    "CardRef",
    "KitError",
    "KitLike",
    "MatGeometry",
    "PayloadError",
    "Side",
    "VisionKit",
    "as_vision_kit",
    "load_kit",
]
