"""Minotaur Lords's play mat (issue 38), in millimetres: the corner markers, the twelve lanes
(two regions x three columns, a lane per side) with their slot lines, and the deities' place.

Pure data, the one definition of the mat: the printer (:mod:`printables.minotaur.sheets`) and
the camera (:mod:`vision.minotaur.table`) both read :func:`minotaur_mat`.

Coordinates: origin at the mat's top-left corner as Miron sees it (Miron sits at the bottom
edge, Vess at the top), x to the right, y downwards, millimetres. Layout (not to scale)::

    [4]  V.um V.ue V.ur          V.lm V.le V.lr  [5]    Vess's lanes run up from the centre
         |    |    |     +-----+ |    |    |
         |    |    |     | god | |    |    |            the deities' place: three cells in
    ---- centre line --- | god | --------------- ----   the middle, between the two regions
         |    |    |     | god | |    |    |
         M.um M.ue M.ur  +-----+ M.lm M.le M.lr         Miron's lanes run down from it
    [7]  upper Cresos            lower Cresos    [6]

A column's cards lie overlapping (MINOTAUR.md M6-M8): the first card played lies with its top
edge on the lane's first slot line, at the centre line; each next card lies one slot further
out (``SLOT_PITCH``), covering all of the card before but its top strip. So each card shows
its top ``SLOT_PITCH`` mm, and its code strip sticker (:mod:`printables.minotaur.sheets`: the
card's code at the left end of a strip along its top edge) stays visible. The lane's
order is the play order: slot 1 at the centre line first.

The corner markers are ArUco ids 4-7 (DICT_4X4_50), not the other game's 0-3: a frame of the
other game's mat is never taken for this one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from engine.minotaur.cards import COLUMNS, PLAYERS

CARD_MM = (59.0, 92.0)  # a Kosmos two-player card (Standard European size)
LANE_W = 64.0  # a sleeved card (about 61.5 mm wide) with room to lay it by hand
COLUMN_GAP = 4.0
REGION_GAP = 8.0  # between a region's columns and the deities' place
CENTRE_GAP = 6.0  # between Vess's and Miron's first slot lines: the centre line
# A card shows its top SLOT_PITCH mm: the strip sticker's 20 mm code with its 2-module quiet
# zone (23.8 mm) and 1.2 mm to lay the next card by hand. The mat is 536 x 442 mm: a 1080p
# camera over the whole mat (its height filling 95% of the frame's 1080 px) sees 2.3 px/mm,
# 2.2 px a module of a 20 mm code, QR version 1's least (docs/vision.md); 4K sees twice that
SLOT_PITCH = 25.0
SLOTS = 5  # slot lines printed per lane; a sixth card lies on the lane's run-out
# The run-out past the fifth card's end: bare mat where a sixth card would lie, so that the
# camera can tell that a lane of five holds no sixth (a card whose code is hidden)
RUNOUT = 22.0
LANE_LEN = CARD_MM[1] + (SLOTS - 1) * SLOT_PITCH + RUNOUT  # 214 mm
DEITY_W = 64.0
DEITY_H = 97.0
DEITY_GAP = 3.0
DEITY_CELLS = 3  # M9: at most three deities, all of one player
MARKER_MM = 20.0  # corner markers: ArUco 4x4 reads down to ~28 px; 20 mm is ~46 px at 2.3 px/mm
MARKER_GAP = 4.0
MARGIN = 4.0
CORNER_IDS = (4, 5, 6, 7)  # top-left, top-right, bottom-right, bottom-left (as Miron sees)
# the code's centre from its card's top edge and from its card's left edge, as the strip
# sticker prints it (sheets.STRIP_INSET + the code's half, quiet zone included)
CODE_FROM_TOP = 12.4
CODE_FROM_LEFT = 12.4


class Rect(NamedTuple):
    """An axis-aligned rectangle in mat millimetres."""

    x: float
    y: float
    w: float
    h: float

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)


LaneKey = tuple[str, str]  # (side: miron or vess, column id: upper-military ...)


@dataclass(frozen=True)
class MinotaurMat:
    """The printed mat: its size, corner markers (id, centre), the twelve lanes and the three
    deity cells. ``centre_y`` is the centre line; a lane's slot ``k`` (from 0) has its card's
    top edge ``k * SLOT_PITCH`` from the lane's start at the centre line."""

    width: float
    height: float
    marker_size: float
    corners: tuple[tuple[int, float, float], ...]
    lanes: Mapping[LaneKey, Rect] = field(hash=False)
    deities: tuple[Rect, ...]
    centre_y: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "lanes", MappingProxyType(dict(self.lanes)))

    def marker_corners(self, marker_id: int) -> list[tuple[float, float]]:
        """A corner marker's four corners (TL, TR, BR, BL as printed upright). Raises KeyError
        for an id that is not one of this mat's corner markers."""
        found = {i: (x, y) for i, x, y in self.corners}
        x, y = found[marker_id]
        s = self.marker_size / 2
        return [(x - s, y - s), (x + s, y - s), (x + s, y + s), (x - s, y + s)]

    def lane_start(self, side: str) -> float:
        """The y of a side's first slot line (its cards' top edges run away from it)."""
        return self.centre_y + CENTRE_GAP / 2 if side == "miron" else self.centre_y - CENTRE_GAP / 2

    def outward(self, side: str) -> float:
        """+1 when a side's lanes run down the mat (Miron's), -1 up (Vess's)."""
        return 1.0 if side == "miron" else -1.0

    def depth(self, side: str, y: float) -> float:
        """How far (mm) a mat point lies out along ``side``'s lanes from their start."""
        return (y - self.lane_start(side)) * self.outward(side)

    def lane_at(self, x: float, y: float) -> LaneKey | None:
        for key, r in self.lanes.items():
            if r.x <= x < r.x + r.w and r.y <= y < r.y + r.h:
                return key
        return None

    def deity_at(self, x: float, y: float) -> int | None:
        for i, r in enumerate(self.deities):
            if r.x <= x < r.x + r.w and r.y <= y < r.y + r.h:
                return i
        return None

    def iter_lanes(self) -> Iterator[LaneKey]:
        """Miron's lanes then Vess's, each in the rules' column order."""
        for side in PLAYERS:
            for c in COLUMNS:
                yield (side, c.id)

    def to_json(self) -> dict[str, Any]:
        return {
            "units": "mm",
            "origin": "top-left corner as Miron sees the mat; x right, y down; Miron at the bottom",
            "width": self.width,
            "height": self.height,
            "marker_dictionary": "DICT_4X4_50",
            "marker_size": self.marker_size,
            "corner_markers": [{"id": i, "centre": [x, y]} for i, x, y in self.corners],
            "slot_pitch": SLOT_PITCH,
            "lanes": [
                {"side": s, "column": c, "rect": list(r)} for (s, c), r in self.lanes.items()
            ],
            "deities": [list(r) for r in self.deities],
        }


def centre_line(mat: MinotaurMat) -> tuple[tuple[float, float], ...]:
    """Where the mat prints its centre line (x from, x to, mm): across each region's lanes,
    not across the deities' place (the camera tests that for bare mat)."""
    xs = sorted({r.x for r in mat.lanes.values()})
    left, right = xs[0], xs[-1] + LANE_W
    d = mat.deities[0]
    return ((left, d.x - REGION_GAP / 2), (d.x + d.w + REGION_GAP / 2, right))


def minotaur_mat() -> MinotaurMat:
    """The mat every Minotaur Lords kit prints: 536 x 442 mm."""
    grid_x = MARGIN + MARKER_MM + MARKER_GAP
    region_w = 3 * LANE_W + 2 * COLUMN_GAP
    width = 2 * grid_x + 2 * region_w + 2 * REGION_GAP + DEITY_W
    height = 2 * (MARGIN + LANE_LEN) + CENTRE_GAP
    centre = height / 2
    lanes: dict[LaneKey, Rect] = {}
    for side in PLAYERS:
        for c in COLUMNS:
            region = 0 if c.region.value == "upper" else 1
            kind = ("military", "economic", "religious").index(c.kind.value)
            x = (
                grid_x
                + region * (region_w + 2 * REGION_GAP + DEITY_W)
                + kind * (LANE_W + COLUMN_GAP)
            )
            y = centre + CENTRE_GAP / 2 if side == "miron" else centre - CENTRE_GAP / 2 - LANE_LEN
            lanes[(side, c.id)] = Rect(x, y, LANE_W, LANE_LEN)
    dx = grid_x + region_w + REGION_GAP
    top = centre - (DEITY_CELLS * DEITY_H + (DEITY_CELLS - 1) * DEITY_GAP) / 2
    deities = tuple(
        Rect(dx, round(top + i * (DEITY_H + DEITY_GAP), 3), DEITY_W, DEITY_H)
        for i in range(DEITY_CELLS)
    )
    half = MARGIN + MARKER_MM / 2
    tl, tr, br, bl = CORNER_IDS
    corners = (
        (tl, half, half),
        (tr, width - half, half),
        (br, width - half, height - half),
        (bl, half, height - half),
    )
    return MinotaurMat(width, height, MARKER_MM, corners, lanes, deities, centre)
