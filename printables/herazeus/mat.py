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

Every cell of a kit's mat holds a faint printed pattern (:class:`MatPattern`, from issue 38):
the camera reads a cell as bare mat by finding it there. A kit printed before it has none in
its ``kit.json`` and is read as it was then.

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

# The bare-mat pattern (issue 38): a square lattice of small grey squares printed inside every
# cell, so the camera tells bare mat by what it shows (the lattice, found by correlation) and
# not only by the absence of everything else. Chosen physically:
# - period 4 mm: an overhead 1080p frame sees the far cells at about 1.6-1.9 px/mm, so a
#   period is 6-8 px there (well above the 2 px of Nyquist even after a pixel of blur, which
#   keeps about 60% of its contrast), and the camera's cell test straightens the mat at
#   1.5 px/mm, 6 px a period; a pose a few mm off only moves the lattice's phase, which the
#   test does not need (it measures the lattice's spectral peaks, their power, in each tile);
# - squares of 2 mm, apart: isolated dots, never a closed line (a grid of lines would give
#   ArUco thousands of square candidates, and its squares are just above the marker
#   detector's smallest perimeter on a 4K frame); half the period keeps the fundamental
#   strong (its amplitude 0.32 of the ink's depth) and the harmonics weak;
# - grey at 80% (0.2 of white's light absorbed): the lattice darkens a cell by 5% on average
#   and its fundamental's amplitude is 6% of the paper's grey (about 14 grey levels on a
#   white mat at 230), faint for players and still 8 or more after a 1080p camera's blur;
# - printed 3 mm inside a cell's outline (a card lying in its cell, 59 x 92 mm in a 64 x 97
#   cell, covers all of it) and kept 1 mm clear of the cell's name (LABEL_ZONE).
PATTERN_KIND = "square-lattice/1"  # the pattern's name and version in kit.json
PATTERN_PERIOD_MM = 4.0
PATTERN_DOT_MM = 2.0
PATTERN_GREY = 0.8  # the dots' grey: the share of white's light they reflect
PATTERN_INSET_MM = 3.0
PATTERN_LABEL_CLEAR_MM = 1.0

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


@dataclass(frozen=True, slots=True)
class MatPattern:
    """The faint pattern printed in every cell (see ``PATTERN_*``): a square lattice of grey
    squares ``dot`` mm wide every ``period`` mm along the mat's axes, the first dot's corner at
    the cell's corner plus ``inset`` mm, reflecting ``grey`` of white's light, over the cell
    less ``inset`` mm at each edge and less its name's zone (and ``label_clear`` mm round it).
    ``kind`` names the pattern and its version in ``kit.json``."""

    kind: str = PATTERN_KIND
    period: float = PATTERN_PERIOD_MM
    dot: float = PATTERN_DOT_MM
    grey: float = PATTERN_GREY
    inset: float = PATTERN_INSET_MM
    label_clear: float = PATTERN_LABEL_CLEAR_MM

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "period_mm": self.period,
            "dot_mm": self.dot,
            "grey": self.grey,
            "inset_mm": self.inset,
            "label_clear_mm": self.label_clear,
        }


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
    # the bare-mat pattern printed in every cell; None on a kit printed before it (issue 38),
    # whose cells the camera judges bare by the absence of everything else, as it did then
    pattern: MatPattern | None = None
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
        """Where the printed mat carries text or a rule besides its cells' outlines, corner
        markers and bare-mat pattern (:meth:`pattern_dots`; ``printables.sheets`` draws them):
        each cell's name at its centre, the column numbers and the dashed middle line of the
        centre band, and each side's name along both long margins. The camera does not take
        them for a card or for bare mat."""
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

    def label_zone(self, key: CellKey) -> Rect:
        """Where the mat prints cell ``key``'s name (its part of :meth:`print_zones`)."""
        c = self.cells[key]
        lw, lh = LABEL_ZONE
        return Rect(c.x + (c.w - lw) / 2, c.y + (c.h - lh) / 2, lw, lh)

    def pattern_dots(self, key: CellKey) -> list[Rect]:
        """The squares of the bare-mat pattern printed in cell ``key`` (mm), none without a
        pattern: those wholly inside the cell less the inset and clear of its name's zone."""
        p = self.pattern
        if p is None:
            return []
        c = self.cells[key]
        lab = self.label_zone(key)
        m = p.label_clear
        out = []
        n_x = int((c.w - 2 * p.inset - p.dot) // p.period) + 1
        n_y = int((c.h - 2 * p.inset - p.dot) // p.period) + 1
        for j in range(n_y):
            y = c.y + p.inset + j * p.period
            for i in range(n_x):
                x = c.x + p.inset + i * p.period
                clear = (
                    x + p.dot <= lab.x - m
                    or x >= lab.x + lab.w + m
                    or y + p.dot <= lab.y - m
                    or y >= lab.y + lab.h + m
                )
                if clear:
                    out.append(Rect(_r(x), _r(y), p.dot, p.dot))
        return out

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
            **({"pattern": self.pattern.to_json()} if self.pattern is not None else {}),
        }


def _r(v: float) -> float:
    return round(v, 3)


def standard_mat(pattern: bool = True) -> MatGeometry:
    """The mat every kit prints: 256 x 818 mm, five landscape A4 or Letter sheets, with the
    bare-mat pattern in every cell (``pattern=False``: the mat as kits printed it before)."""
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
    return MatGeometry(
        _r(width), _r(height), MARKER_MM, corners, cells, band, MatPattern() if pattern else None
    )


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
    _exact_keys(data, expected | ({"pattern"} if "pattern" in data else set()), where)
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
    pattern = _pattern(data["pattern"], f"{where}.pattern") if "pattern" in data else None
    return MatGeometry(width, height, marker, tuple(corners), cells, _band(cells), pattern)


def _pattern(data: object, where: str) -> MatPattern:
    """Reads the ``"pattern"`` object of a mat: a kind this version prints and reads, with
    its sizes (a kit printed by a later version with another pattern is refused by name)."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: must be an object")
    _exact_keys(data, {"kind", "period_mm", "dot_mm", "grey", "inset_mm", "label_clear_mm"}, where)
    if data["kind"] != PATTERN_KIND:
        raise ValueError(f"{where}.kind: this version reads {PATTERN_KIND!r}, not {data['kind']!r}")
    period = _mm(data["period_mm"], f"{where}.period_mm")
    dot = _mm(data["dot_mm"], f"{where}.dot_mm")
    if not 1.0 <= period <= 20.0 or not 0 < dot < period:
        raise ValueError(f"{where}: the period must be 1-20 mm and a dot smaller than it")
    grey = data["grey"]
    if isinstance(grey, bool) or not isinstance(grey, int | float) or not 0 <= grey < 1:
        raise ValueError(f"{where}.grey: must be a share of white's light below 1")
    inset = _mm(data["inset_mm"], f"{where}.inset_mm")
    clear = _mm(data["label_clear_mm"], f"{where}.label_clear_mm")
    return MatPattern(PATTERN_KIND, period, dot, float(grey), inset, clear)


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
