"""The play mat's geometry, in millimetres: where the corner markers and the card cells are.

Pure data, and the one definition of the mat: the printer (:mod:`printables.sheets` draws it)
and the camera (:mod:`vision` rectifies a frame with the corner markers and cuts the cells) both
read this :class:`MatGeometry`. It is written into ``kit.json`` under ``"mat"`` so that a kit
printed today is read correctly by later versions.

Coordinates: origin at the mat's top-left corner **as Hera sees it** (Hera sits at the bottom
edge, Zeus at the top edge), x to the right, y downwards, millimetres.

Layout (not to scale)::

    [0]                         [1]      <- corner markers, ids clockwise from top-left
         Z3r4   Z2r4   Z1r4               Zeus's side: row 4 (back) at the top ...
         ...
         Z3r1   Z2r1   Z1r1               ... row 1 (front) next to the centre band
         ----- 1 ---- 2 ---- 3 -----      centre band: column numbers (both ways up)
         H1r1   H2r1   H3r1               Hera's side: row 1 (front) next to the centre band
         ...
         H1r4   H2r4   H3r4               ... row 4 (back) at the bottom
    [3]                         [2]

Column ``k`` of Hera faces column ``k`` of Zeus (a challenge is between opposite first-row
cards, RULES.md D11), so Hera's columns count 1-3 from her left and Zeus's, seen from his
seat, from his right. Every cell is a full card place (cards never overlap: the rulebook lays the
cards of a column next to each other, without gaps), sized for a sleeved 59 x 92 mm card.

A kit whose mat numbers the cells otherwise is read by its own numbers: nothing in vision
assumes this layout beyond the corner marker ids
(:data:`printables.herazeus.payload.MAT_CORNER_IDS`, printed upright for Hera).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from printables.herazeus.payload import MAT_CORNER_IDS, Deck

CARD_MM = (59.0, 92.0)  # a Kosmos two-player card (Standard European size)
CELL_W = 64.0  # a sleeved card (about 61.5 x 94 mm) with room to lay it down by hand
CELL_H = 97.0
COLUMN_GAP = 4.0
ROW_GAP = 3.0
CENTRE_BAND = 16.0  # between the two sides: the column numbers
MARKER_MM = 20.0  # corner markers: ArUco 4x4 reads down to ~28 px; 20 mm is ~45 px at 2.25 px/mm
MARKER_GAP = 4.0  # white between a marker and the grid
MARGIN = 4.0  # white around the markers (more than one marker cell, 3.3 mm)
# What else the mat prints (MatGeometry.print_zones), w x h mm: a cell's name, 7 pt at its
# centre (at most 31.4 x 2.3 mm); a side's name, 11 pt bold up each long margin (98.6 mm);
# a column number, 14 pt bold in the centre band; the band's dashed middle line (0.3 mm)
LABEL_ZONE = (34.0, 4.0)
SIDE_NAME_ZONE = (6.0, 104.0)
NUMBER_ZONE_W = 6.0
RULE_ZONE_H = 2.0

COLUMNS = 3
ROWS = 4
SIDES: tuple[Deck, Deck] = ("zeus", "hera")  # top half, bottom half


class Rect(NamedTuple):
    """An axis-aligned rectangle in mat millimetres (also the tuple ``(x, y, w, h)``)."""

    x: float
    y: float
    w: float
    h: float

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)


CellKey = tuple[Deck, int, int]  # (side, column 1-3, row 1-4; row 1 = front, at the band)


@dataclass(frozen=True)
class MatGeometry:
    """The printed mat: size, corner markers (id, centre) and the 24 cells.

    ``cells`` maps ``(side, column, row)`` to the rectangle where that card lies, in the order
    the mat lists them (Zeus's side, then Hera's). Every corner marker is ``marker_size`` wide
    and printed upright; ``corners`` gives each one's id and centre, and ``markers`` (derived
    from them) each id's top-left corner on the mat.
    """

    width: float
    height: float
    marker_size: float
    corners: tuple[tuple[int, float, float], ...]  # (ArUco id, centre x, centre y)
    cells: Mapping[CellKey, Rect] = field(hash=False)  # a read-only mapping: compared, not hashed
    centre_band: Rect
    markers: Mapping[int, tuple[float, float]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cells", MappingProxyType(dict(self.cells)))
        s = self.marker_size
        origins = {i: (x - s / 2, y - s / 2) for i, x, y in self.corners}
        object.__setattr__(self, "markers", MappingProxyType(origins))

    def marker_corners(self, marker_id: int) -> list[tuple[float, float]]:
        """The four corners of a corner marker in mat mm, in ArUco's order (TL, TR, BR, BL).
        Raises KeyError for an id that is not a corner marker of this mat."""
        x, y = self.markers[marker_id]
        s = self.marker_size
        return [(x, y), (x + s, y), (x + s, y + s), (x, y + s)]

    def cell_at(self, x: float, y: float) -> CellKey | None:
        """The cell whose rectangle holds the mat point (x, y), or None."""
        for key, (cx, cy, w, h) in self.cells.items():
            if cx <= x < cx + w and cy <= y < cy + h:
                return key
        return None

    def print_zones(self) -> tuple[Rect, ...]:
        """Where the printed mat carries text or a rule besides its cells' outlines and corner
        markers (``printables.sheets`` draws them there): each cell's name at its centre, the
        column numbers and the dashed middle line of the centre band, and each side's name
        along both long margins. The camera does not take them for a card or for bare mat."""
        lw, lh = LABEL_ZONE
        zones = [
            Rect(c.x + (c.w - lw) / 2, c.y + (c.h - lh) / 2, lw, lh) for c in self.cells.values()
        ]
        band = self.centre_band
        if band.h > 0:
            y = band.y + (band.h - RULE_ZONE_H) / 2  # its ends reach past the band a little
            zones.append(Rect(band.x - 1, y, band.w + 2, RULE_ZONE_H))
            for (side, _, row), c in self.cells.items():
                if side == "hera" and row == 1:
                    zones.append(
                        Rect(c.x + (c.w - NUMBER_ZONE_W) / 2, band.y, NUMBER_ZONE_W, band.h)
                    )
        nw, nh = SIDE_NAME_ZONE
        for side in SIDES:
            for x, y in self.side_name_centres(side):
                zones.append(Rect(x - nw / 2, y - nh / 2, nw, nh))
        return tuple(zones)

    def side_name_centres(self, side: Deck) -> tuple[tuple[float, float], ...]:
        """Where the mat prints ``side``'s name (mm): up each long margin, on the corner
        markers' line, level with the middle of that side's rows."""
        rows = [c for (s, _, _), c in self.cells.items() if s == side]
        mid = (min(c.y for c in rows) + max(c.y + c.h for c in rows)) / 2
        return tuple((x, mid) for x in sorted({x for _, x, _ in self.corners}))

    def iter_cells(self) -> Iterator[CellKey]:
        """Every cell: Hera then Zeus, columns 1-3, rows 1-4."""
        for side in reversed(SIDES):
            for col in range(1, COLUMNS + 1):
                for row in range(1, ROWS + 1):
                    yield (side, col, row)

    def to_json(self) -> dict[str, Any]:
        """The ``"mat"`` object of ``kit.json``."""
        return {
            "units": "mm",
            "origin": "top-left corner as Hera sees the mat; x right, y down; Hera at the bottom",
            "width": self.width,
            "height": self.height,
            "marker_dictionary": "DICT_4X4_50",
            "marker_size": self.marker_size,
            "corner_markers": [{"id": i, "centre": [x, y]} for i, x, y in self.corners],
            "cells": [
                {
                    "side": side,
                    "column": column,
                    "row": row,
                    "rect": [r.x, r.y, r.w, r.h],
                }
                for (side, column, row), r in self.cells.items()
            ],
        }


def _r(v: float) -> float:
    return round(v, 3)


def standard_mat() -> MatGeometry:
    """The mat every kit prints: 256 x 818 mm, five landscape A4 or Letter sheets."""
    grid_x = MARGIN + MARKER_MM + MARKER_GAP
    grid_w = COLUMNS * CELL_W + (COLUMNS - 1) * COLUMN_GAP
    side_h = ROWS * CELL_H + (ROWS - 1) * ROW_GAP
    grid_y = MARGIN
    width = grid_x * 2 + grid_w
    height = MARGIN * 2 + side_h * 2 + CENTRE_BAND
    band = Rect(_r(grid_x), _r(grid_y + side_h), _r(grid_w), CENTRE_BAND)
    cells: dict[CellKey, Rect] = {}
    for side in SIDES:
        for col in range(1, COLUMNS + 1):
            for row in range(1, ROWS + 1):
                if side == "hera":  # column 1 on Hera's left; row 1 just below the band
                    x = grid_x + (col - 1) * (CELL_W + COLUMN_GAP)
                    y = grid_y + side_h + CENTRE_BAND + (row - 1) * (CELL_H + ROW_GAP)
                else:  # column 1 opposite Hera's column 1; row 1 just above the band
                    x = grid_x + (col - 1) * (CELL_W + COLUMN_GAP)
                    y = grid_y + side_h - row * CELL_H - (row - 1) * ROW_GAP
                cells[(side, col, row)] = Rect(_r(x), _r(y), CELL_W, CELL_H)
    half = MARGIN + MARKER_MM / 2
    tl, tr, br, bl = MAT_CORNER_IDS
    corners = (
        (tl, half, half),
        (tr, _r(width - half), half),
        (br, _r(width - half), _r(height - half)),
        (bl, half, _r(height - half)),
    )
    return MatGeometry(_r(width), _r(height), MARKER_MM, corners, cells, band)


def parse_mat(data: object, where: str = "mat") -> MatGeometry:
    """Reads a ``"mat"`` object of ``kit.json``. Raises ValueError naming the field."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: must be an object")
    expected = {
        "units",
        "origin",
        "width",
        "height",
        "marker_dictionary",
        "marker_size",
        "corner_markers",
        "cells",
    }
    _exact_keys(data, expected, where)
    if data["units"] != "mm" or data["marker_dictionary"] != "DICT_4X4_50":
        raise ValueError(f"{where}: units must be 'mm' and markers DICT_4X4_50")
    if not isinstance(data["origin"], str) or len(data["origin"]) > 200:
        raise ValueError(f"{where}.origin: must be a short text")
    width = _mm(data["width"], f"{where}.width")
    height = _mm(data["height"], f"{where}.height")
    marker = _mm(data["marker_size"], f"{where}.marker_size")
    cm = data["corner_markers"]
    if not isinstance(cm, list) or len(cm) != 4:
        raise ValueError(f"{where}.corner_markers: must list the 4 corner markers")
    corners: list[tuple[int, float, float]] = []
    for i, m in enumerate(cm):
        w = f"{where}.corner_markers[{i}]"
        if not isinstance(m, dict):
            raise ValueError(f"{w}: must be an object")
        _exact_keys(m, {"id", "centre"}, w)
        if m["id"] != MAT_CORNER_IDS[i]:
            raise ValueError(f"{w}.id: must be {MAT_CORNER_IDS[i]} (clockwise from top-left)")
        x, y = _point(m["centre"], f"{w}.centre")
        corners.append((MAT_CORNER_IDS[i], x, y))
    raw = data["cells"]
    if not isinstance(raw, list) or len(raw) != len(SIDES) * COLUMNS * ROWS:
        raise ValueError(f"{where}.cells: must list the {len(SIDES) * COLUMNS * ROWS} cells")
    cells: dict[CellKey, Rect] = {}
    for i, c in enumerate(raw):
        w = f"{where}.cells[{i}]"
        if not isinstance(c, dict):
            raise ValueError(f"{w}: must be an object")
        _exact_keys(c, {"side", "column", "row", "rect"}, w)
        side, col, row = c["side"], c["column"], c["row"]
        if side not in SIDES or col not in range(1, COLUMNS + 1) or row not in range(1, ROWS + 1):
            raise ValueError(f"{w}: side must be hera/zeus, column 1-3, row 1-4")
        if isinstance(col, bool) or isinstance(row, bool) or (side, col, row) in cells:
            raise ValueError(f"{w}: cell {side} {col}/{row} is listed twice or malformed")
        r = c["rect"]
        if not isinstance(r, list) or len(r) != 4:
            raise ValueError(f"{w}.rect: must be [x, y, width, height]")
        x, y, rw, rh = (_mm(v, f"{w}.rect") for v in r)
        cells[(side, col, row)] = Rect(x, y, rw, rh)
    return MatGeometry(width, height, marker, tuple(corners), cells, _band(cells))


def _band(cells: Mapping[CellKey, Rect]) -> Rect:
    """The strip between Zeus's and Hera's first rows."""
    top = max(r.y + r.h for (side, _, row), r in cells.items() if side == "zeus" and row == 1)
    bottom = min(r.y for (side, _, row), r in cells.items() if side == "hera" and row == 1)
    left = min(r.x for r in cells.values())
    right = max(r.x + r.w for r in cells.values())
    return Rect(left, top, right - left, max(0.0, bottom - top))


def _exact_keys(obj: dict[str, Any], expected: set[str], where: str) -> None:
    extra = sorted(set(obj) - expected)
    missing = sorted(expected - set(obj))
    if extra:
        raise ValueError(f"{where}: unknown field(s) {', '.join(map(repr, extra))}")
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(map(repr, missing))}")


def _mm(v: object, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 5000:
        raise ValueError(f"{where}: must be a length in millimetres (0-5000), not {v!r}")
    return float(v)


def _point(v: object, where: str) -> tuple[float, float]:
    if not isinstance(v, list) or len(v) != 2:
        raise ValueError(f"{where}: must be [x, y] in millimetres")
    return _mm(v[0], where), _mm(v[1], where)
