"""Stage: one frame of the mat -> a table snapshot.

For each side (hera, zeus), column 1-3 and row 1-4 (numbered as the owner sees them; see
:mod:`printables.herazeus.mat` for the geometry) a cell reads:

- ``up``: a face-up card; its face code was read and checked, so ``card`` names it;
- ``down``: a face-down card; its back marker tells the deck and nothing more;
- ``empty``: the cell looks like bare mat in every way: edges, texture, tint and brightness;
- ``unknown``: something lies there that could not be read (a hand, glare, a card whose code
  is covered, a card held above the mat, a foreign code, two codes at once). Never a guess,
  never a wrong card.

The pipeline: grey -> ArUco markers -> mat pose (homography) -> full-frame QR pass -> each
code and back marker placed in its cell through the homography, only when it lies flat there
(:func:`lies_flat`: seen back on the mat it is the printed square, along the cell's axes; a
card held above the mat is not, and makes the cell beneath unknown) -> cells with nothing read
are tested for bare mat (edges, texture, colour and brightness against the mat's own free
areas and the light across them) -> occupied but unread cells get a second QR pass on a
2x-upscaled crop, then the kit's own codes matched in the cell straightened
(:func:`decode_cell`, :mod:`vision.codebook`; a match lies flat like any code) ->
snapshot. Pure: arrays in, values out.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from printables.herazeus.kit import DECKS
from printables.herazeus.mat import COLUMNS, PATTERN_PERIOD_MM, ROWS, MatGeometry
from printables.herazeus.payload import Deck
from vision.codebook import aligned_corners, codebook
from vision.decode import (
    Laps,
    Point,
    RawCode,
    decode_crop,
    decode_qr,
    gray_and_colour,
)
from vision.herazeus.cards import Detection, check_code
from vision.herazeus.kit import CardRef, KitLike
from vision.herazeus.markers import (
    BACK_IDS,
    Marker,
    MatPose,
    corner_markers,
    corner_points,
    detect_markers,
    find_mat,
    rectify,
)
from vision.pose import CELL_MATCH_PPM as CELL_MATCH_PPM
from vision.pose import CELL_MATCH_SIDE as CELL_MATCH_SIDE
from vision.pose import decode_cell as decode_cell
from vision.pose import lies_flat as lies_flat

State = Literal["empty", "down", "up", "unknown"]
CellKey = tuple[Deck, int, int]

OCCUPANCY_PX_PER_MM = 1.5
CELL_INSET_MM = 6.0  # the printed outline and a card's slack stay out of the occupancy test
# A code or back centred this close to a cell's edge belongs to no cell (issue 38: before, a
# code was placed in whatever cell held its centre, and a pose off by a few mm read a card in
# the empty cell beside it). Physical reason: a 20 mm code on a card lying in its cell is
# centred at least about 7 mm inside the cell (half the symbol and its inset from the card's
# corner, less the card's 3 mm off the cell's centre and 4 degrees of turn), so 4 mm leaves 3 mm
# for the pose's error. Held-out margin: not measured (this round ran out of time).
EDGE_MARGIN_MM = 4.0

# Lying flat (issue 14): a code or back marker is placed in a cell only when, seen back on the
# mat through its homography, it is the printed square lying there: its sides the printed size,
# its corners square, its sides along the cell's axes (a card lies up to 4 degrees off its cell),
# and a back marker near the cell's centre (it is printed at the card's centre). A card held
# above the mat is nearer the lens: it comes back bigger (6-25% at 4-15 cm), foreshortened
# when tilted, and turned. Its size is its sides' mean, and each side must lie as near that
# mean: under a wide lens one side of a flat code came back up to 7% off (barrel distortion
# bends the mat away from its markers' homography), its mean no more than 4%. Measured on the
# hard and fresh sets at 1080p, 4K and 12 MP (vision.herazeus.synth; 1,858 flat codes, 1,731 flat
# backs): codes' size within 4.0%, each side within 4.9% of their mean; backs' 8.0% and 7.4%.
FLAT_CODE = (0.06, 6.0, 6.0)  # code: size (share), corner angle (deg), turn off the axes (deg)
FLAT_BACK = (0.10, 8.0, 8.0)  # back marker: the same (a smaller symbol: noisier corners)
BACK_OFF_CENTRE_MM = 10.0  # a back marker this far from its cell's centre lies in no cell
# ... as the flat backs within this distance lie (at least two of them): the mat's pose is off
# alike across a stretch of it (a lens's barrel distortion, a corner marker covered and the
# pose fitted on three). On hard 4K frames with a corner marker covered, flat backs came back
# 8-14 mm off their cells' centres, and read unknown; less their neighbours' median offset,
# every flat back of the hard and fresh sets (2,945) lay within 7.2 mm
BACK_NEIGHBOURS_MM = 250.0


@dataclass(frozen=True, slots=True)
class CellReading:
    """What one cell of the mat shows. ``deck`` is known for ``up`` and ``down``; ``card`` only
    for ``up``. ``reason`` explains an ``unknown``. ``confidence`` is in [0, 1]."""

    side: Deck
    column: int
    row: int
    state: State
    confidence: float
    deck: Deck | None = None
    card: CardRef | None = None
    payload: str | None = None
    reason: str | None = None

    def notation(self) -> str:
        """The cell in the owner's notation (POSITIONS.md): ``^Name`` (``^Name/zeus``) face up,
        ``?`` (``?/zeus``) face down, ``""`` empty, ``*`` unknown."""
        if self.state == "up" and self.card is not None:
            return "^" + self.card.notation(self.side)
        if self.state == "down":
            return "?" if self.deck == self.side else f"?/{self.deck}"
        return "" if self.state == "empty" else "*"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state, "confidence": round(self.confidence, 3)}
        if self.deck is not None:
            out["deck"] = self.deck
        if self.card is not None:
            out["card"] = self.card.to_json()
            out["payload"] = self.payload
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class Snapshot:
    """The table as one frame shows it."""

    cells: dict[CellKey, CellReading]
    pose: MatPose
    detections: list[Detection] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)

    def cell(self, side: Deck, column: int, row: int) -> CellReading:
        """Raises KeyError for a cell outside 2 x 3 x 4."""
        return self.cells[(side, column, row)]

    def column(self, side: Deck, column: int) -> list[CellReading]:
        """The four cells of one column, front (row 1) to back."""
        return [self.cells[(side, column, r)] for r in range(1, ROWS + 1)]

    @property
    def refused(self) -> list[Detection]:
        return [d for d in self.detections if d.card is None]

    def to_json(self) -> dict[str, Any]:
        """``{"mat": pose, "hera": [col1, col2, col3], "zeus": [...], "refused": [...]}``;
        each column is its four cells front to back."""
        out: dict[str, Any] = {"mat": self.pose.to_json()}
        for side in DECKS:
            out[side] = [
                [self.cells[(side, c, r)].to_json() for r in range(1, ROWS + 1)]
                for c in range(1, COLUMNS + 1)
            ]
        out["refused"] = [d.to_json() for d in self.refused]
        return out

    def text(self) -> str:
        """A small drawing of the table, Zeus's side on top, columns by their numbers (on the
        kit's standard mat, Zeus's column k lies opposite Hera's column k)."""
        lines = [f"{'':8}| " + " | ".join(f"{'column ' + str(c):^16}" for c in (1, 2, 3))]
        for row in range(ROWS, 0, -1):
            cells = [self.cells[("zeus", c, row)].notation() or "." for c in (1, 2, 3)]
            lines.append(f"zeus r{row} | " + " | ".join(f"{x:^16}" for x in cells))
        lines.append("-" * 62)
        for row in range(1, ROWS + 1):
            cells = [self.cells[("hera", c, row)].notation() or "." for c in (1, 2, 3)]
            lines.append(f"hera r{row} | " + " | ".join(f"{x:^16}" for x in cells))
        return "\n".join(lines)


# ---- occupancy ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Look:
    edges: float  # share of edge pixels
    chroma: tuple[float, float]  # mean Lab a, b
    texture: float  # std of grey relative to its local mean
    off_colour: float  # share of pixels whose colour is far from the bare mat's
    lum: float = 0.0  # median grey level
    washed: float = 0.0  # share of pixels washed out (glare)
    lit_lum: float = 0.0  # median grey level of the pixels not washed out (255: none)
    # bare mat's colour per grey level: its mean B, G, R over its mean grey (the reference only;
    # see _mat_tint)
    per_grey: tuple[float, float, float] | None = None
    mat_chroma: tuple[float, float] | None = None  # bare mat's a, b dimmed to this patch's grey


@dataclass(frozen=True, slots=True)
class _Light:
    """How bright bare mat is across this frame: a surface fitted to the grey level of the
    mat's free areas (a plane and a lamp's round fall-off: a tilted light and a lamp are
    smooth), how far those areas stray from it, and what it leaves of the side margins' areas,
    added back between them."""

    coef: tuple[float, ...]  # grey = a + b x + c y (+ d r^2 ...), x, y in m (see _terms)
    spread: float  # the free areas' median relative distance from the surface
    # each side margin's x (mm) and its free areas' y (mm) and distance from the surface (grey
    # levels), the areas kept in the fit only, along the margin
    sides: tuple[tuple[float, tuple[float, ...], tuple[float, ...]], ...] = ()

    def at(self, x: float, y: float) -> float:
        """The grey level of bare mat at (x, y) mm: the surface, and what it leaves of the
        side margins' grey level there (along each margin, between its areas; across the mat,
        between the two margins)."""
        surface = float(np.dot(self.coef, _terms(x / 1000, y / 1000)[: len(self.coef)]))
        if not self.sides:
            return surface
        left = self.sides[0]
        right = self.sides[-1]
        w = 0.0 if right[0] == left[0] else min(1.0, max(0.0, (x - left[0]) / (right[0] - left[0])))
        off = (1 - w) * float(np.interp(y, left[1], left[2])) + w * float(
            np.interp(y, right[1], right[2])
        )
        return surface + off


def _terms(x: Any, y: Any) -> Any:
    """The light surface's terms at (x, y) (m): a plane, then a lamp's round fall-off
    (x^2 + y^2 with the plane's terms is r^2 about any centre), then the rest of a quadratic."""
    return np.array([np.ones_like(x), x, y, x * x + y * y, x * x - y * y, x * y])


# The tests of absence below (edges, texture, tint, brightness, the light's fit, glare's grain)
# judge only a kit printed without the bare-mat pattern (issue 38): on a kit with it, a cell is
# bare when it shows the pattern (pattern_look) and these thresholds are moot.
#
# A cell this much darker or brighter than the light fitted for bare mat there is not bare
# (a share of that light). The light is fitted on the mat's free areas only, all beside the
# cells: a lamp's fall-off over 818 mm is steeper than the fitted surface at the mat's far
# ends, where it errs by 15-20%; a thing of the mat's own brightness and tint is told by its
# texture, not by this. Held-out margin (benchmarks/bare_mat.py --old, 10 held-out 1080p frames,
# 111 bare cells, 57 read empty): moved to 0.8 times, 57 empty and 0 wrong; to 1.25 times, 57
# empty and 0 wrong
BRIGHTNESS_TOLERANCE = 0.2
# ... or this many grey levels, where that is more: on a dark cloth mat (grey 40) a few grey
# levels are a large share, and a frame's noise (up to 5 levels a pixel), JPEG's rounding and
# the light's fit err by about twice that noise anywhere. Held-out margin (benchmarks/bare_mat.py
# --old, 10 held-out 1080p frames, 111 bare cells, 57 read empty): moved to 0.8 times, 57 empty
# and 0 wrong; to 1.25 times, 57 empty and 0 wrong
DARK_LEVELS = 10.0
TINT_LIMIT = 10.0  # Lab a/b distance of a cell's mean colour from bare mat's that is "not mat"
SMOOTHEST = 0.4  # a cell smoother than this share of bare mat's texture is not bare mat
# A cell more textured than ROUGHEST times bare mat's is not bare mat; one with almost no edges
# (under EDGELESS of the edge limit) may be ROUGHEST_EDGELESS times: a cloth mat's weave
# varies from place to place (bare cells up to 2.2 times its free areas' texture), while
# nothing lying on a mat without edges is rougher than bare mat (a card's art and code have
# edges; a sleeve and skin are smoother than weave: of 2,900 occupied cells of the tuned sets
# the 829 with so few edges were at most 0.57 of the texture limit but one, a hand, whose
# colour is no mat's). Held-out margin (benchmarks/bare_mat.py --old, 10 held-out 1080p frames,
# 111 bare cells, 57 read empty): moved to 0.8 times, 57 empty and 0 wrong; to 1.25 times, 57
# empty and 0 wrong
ROUGHEST = 1.8
ROUGHEST_EDGELESS = 2.5
EDGELESS = 0.25
# ... where bare mat is lit to white (BLOWN_MAT) and brightness tells nothing, this share; so
# too under glare, where a cell's grain is measured on what glare left unclipped. Clipping
# takes the bright half of bare mat's grain and leaves its dark half, about half its spread;
# a plain sleeve or a card's flat colour under glare keeps the sensor's noise only (0.36-0.46
# of bare mat's grain on the tuned sets). Held-out margin (benchmarks/bare_mat.py --old, 10 held-out
# 1080p frames, 111 bare cells, 57 read empty): moved to 0.8 times, 60 empty and 0 wrong; to
# 1.25 times, 52 empty and 0 wrong
BLOWN_SMOOTHEST = 0.5
# the light surface's terms (_terms): a plane and a round fall-off. On 120 hard 1080p frames
# bare cells read empty 1265 of 1354 with it, 1239 with a plane (3 terms); a full quadratic
# (6) over-fits the 11 free areas (592 of 669 on the first 60 frames, where the plane read
# 619); 0 wrong cells with each
QUADRATIC_LIGHT = 4
# the light is fitted on each side margin in this many pieces. With 4 (the pieces' centres 190
# mm apart) the fit reached the mat's far ends only by extrapolating its round fall-off: bare
# cells there read 21-28% darker than it, unknown (29 cells over the hard and fresh sets, all
# but one of the dark ones); with 8, 1 of them
LIGHT_SIDE_PIECES = 8
BLOWN_MAT = 230  # bare mat this bright (grey) is itself washed out by the noise of a frame
LIT_ENOUGH = 0.05  # share of a patch not blown out below which it shows no texture
WASHED_OUT = 250  # grey level of glare: a cell a fifth of which is this bright shows nothing
WASHED_SHARE = 0.2  # that fifth (unless it keeps bare mat's grain: see _grain)


OFF_COLOUR_AB = 12.0  # Lab a/b distance from the mat's colour that counts as "not mat"
# Glare (see _grain). A cell brighter than bare mat there, or partly washed out, is bare mat
# when it keeps this share of bare mat's grain; GLARE_MOST grey levels of added light and
# GLARE_WASHED_MOST of the cell washed out are the most it is judged under; a free area of the
# mat smoother than GLARE_TEXTURE of the others' median texture is under glare and is left out
# of the light's fit
GLARE_GRAIN = 0.8
GLARE_MOST = 80.0
# A cell more than 80% washed out shows too little to judge its grain: the fifth left of a
# cell's 52 x 85 mm inside is about 2,000 px at 1.5 px/mm, the least over which a grain's
# spread of a few grey levels is measured within a tenth. Held-out margin (benchmarks/bare_mat.py
# --old, 10 held-out 1080p frames, 111 bare cells, 57 read empty): moved to 0.8 times, 57 empty
# and 0 wrong; to 1.25 times, 57 empty and 0 wrong
GLARE_WASHED_MOST = 0.8
GLARE_TEXTURE = 0.7
# Edges that only shade are not counted (see _soft). Printed mats mottle: blotches whose
# borders Canny finds made 10 bare cells read unknown over the hard and fresh 4K and 12 MP sets
# (1.02-2.04 times the edge limit). Counting only edges steeper than 2.5 times their strength
# blurred over 1.7 mm, 8 of them read 0.04-0.43 of it; the only occupied cell that passes every
# other test (a card 85% washed out on a white mat, 1080p) keeps 1.89 of it (2.26 with the
# kit's print on the mat), and of the 2,618
# occupied cells tested for bare mat the 82 it brings under the limit fail the others by 7.4 or
# more (2.0: 10 and 3 bare cells left over; 3.0: 147)
SOFT_EDGE_MM = 1.7
SOFT_EDGE_RATIO = 2.5


def _look(
    patch: NDArray[Any], ref: _Look | None = None, marks: NDArray[Any] | None = None
) -> _Look:
    """How a patch of the rectified mat looks, from what is not printed on the mat: ``marks``
    (the patch's part of :func:`_marks_mask`) leaves out what the kit prints there, and the
    mat's own lines (a sheet join, a cell's outline) and edges that only shade are not counted
    among its edges. With ``ref`` (bare mat's look, :func:`_reference`), the share of its
    pixels off bare mat's colour: as the free areas show it, or, in a patch darker than them,
    dimmed to the patch's grey level (:func:`_mat_tint`)."""
    g = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    g = cv2.GaussianBlur(g, (3, 3), 0)
    e = cv2.Canny(g, 40, 110)
    any_edge = bool(e.any())
    keep: NDArray[Any] | None = None  # None: every pixel
    dropped = np.zeros(g.shape, bool)
    if marks is not None:
        keep = ~_printed(marks)
        if keep.all() or np.count_nonzero(keep) < UNPRINTED_ENOUGH * keep.size:
            keep = None  # nothing printed; or all but: judged whole
        if any_edge:
            dropped = _mat_lines(e, marks)
        if keep is not None:
            dropped |= ~keep
    if any_edge:
        e[dropped | _soft(g)] = 0
    seen = max(1, e.size - int(np.count_nonzero(dropped)))
    lab8 = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB)
    mask = None if keep is None else keep.astype(np.uint8)
    _, a, b, _ = cv2.mean(lab8, mask)  # (masks, not a boolean index: 40 times faster)
    tex = _texture(g, keep)
    # the grey levels kept, as a histogram (their medians without sorting them)
    hist = cv2.calcHist([g], [0], mask, [256], [0, 256]).ravel().astype(np.int64)
    n = max(1, int(hist.sum()))
    off = 0.0
    dimmed: tuple[float, float] | None = None
    if ref is not None:
        colours = [ref.chroma]
        grey = cv2.mean(g, mask)[0]
        if ref.per_grey is not None and grey < ref.lum:
            dimmed = _mat_tint(ref.per_grey, grey)
            colours.append(dimmed)
        a8 = lab8[:, :, 1].astype(np.float32)
        b8 = lab8[:, :, 2].astype(np.float32)
        d = np.min([np.hypot(a8 - ca, b8 - cb) for ca, cb in colours], axis=0)
        lit = lab8[:, :, 0] < 235  # blown-out glare carries no colour: it is not counted
        if keep is not None:
            lit &= keep
        off = float(np.count_nonzero((d > OFF_COLOUR_AB) & lit)) / n
    unclipped = hist[:WASHED_OUT]
    lit_n = int(unclipped.sum())
    lit_lum = _median_of(unclipped) if lit_n else 255.0
    return _Look(
        float(np.count_nonzero(e)) / seen,
        (a, b),
        tex,
        off,
        _median_of(hist),
        (n - lit_n) / n,
        lit_lum,
        mat_chroma=dimmed,
    )


def _median_of(hist: NDArray[Any]) -> float:
    """The median of the grey levels counted in ``hist`` (as numpy's: the mean of the middle
    two of an even count)."""
    cum = np.cumsum(hist)
    n = int(cum[-1])
    hi = int(np.searchsorted(cum, n // 2, side="right"))
    if n % 2:
        return float(hi)
    lo = int(np.searchsorted(cum, n // 2 - 1, side="right"))
    return (lo + hi) / 2


def _soft(g: NDArray[Any]) -> NDArray[Any]:
    """Where a grey patch (at ``OCCUPANCY_PX_PER_MM``) only shades: its gradient keeps more
    than 1 / ``SOFT_EDGE_RATIO`` of its strength blurred over ``SOFT_EDGE_MM``. A mat's mottling
    or a blotch ramps over several millimetres; a card's border, art or code steps from one
    pixel to the next, and blurring flattens its gradient."""
    gf = g.astype(np.float32)
    coarse = cv2.GaussianBlur(gf, (0, 0), SOFT_EDGE_MM * OCCUPANCY_PX_PER_MM)

    def strength(img: NDArray[Any]) -> NDArray[Any]:
        out: NDArray[Any] = cv2.magnitude(
            cv2.Sobel(img, cv2.CV_32F, 1, 0), cv2.Sobel(img, cv2.CV_32F, 0, 1)
        )
        return out

    soft: NDArray[Any] = strength(gf) < SOFT_EDGE_RATIO * np.maximum(strength(coarse), 1.0)
    return soft


def _texture(g: NDArray[Any], keep: NDArray[Any] | None = None) -> float:
    """A (lightly blurred) grey patch's texture: the spread of its grey level relative to its
    local mean, where it is not blown out. Glare clips bare mat and a plain sleeve alike to
    white, but bare mat keeps its grain where it is not clipped; a patch nearly all blown out
    shows no texture at all."""
    gf = g.astype(np.float32)
    local = cv2.blur(gf, (15, 15)) + 8.0
    unclipped = g < WASHED_OUT
    if keep is not None:
        unclipped &= keep
    if np.count_nonzero(unclipped) < LIT_ENOUGH * (g.size if keep is None else keep.sum()):
        return 0.0
    return float(np.std((gf / local)[unclipped]))


def _cells_across(geo: MatGeometry) -> tuple[float, float]:
    """Where the cells begin and end across the mat (mm): the side margins lie outside."""
    return min(r[0] for r in geo.cells.values()), max(r[0] + r[2] for r in geo.cells.values())


def _reference_rects(
    geo: MatGeometry, side_pieces: int = 4
) -> list[tuple[float, float, float, float]]:
    """Bare-mat areas away from cells and markers: the centre band in three, and each side
    margin in ``side_pieces``."""
    x_left, x_right = _cells_across(geo)
    hera_top = min(r[1] for k, r in geo.cells.items() if k[0] == "hera")
    zeus_bottom = max(r[1] + r[3] for k, r in geo.cells.items() if k[0] == "zeus")
    out = []
    gap = hera_top - zeus_bottom
    if gap > 6:
        w = (x_right - x_left) / 3
        for i in range(3):
            out.append((x_left + i * w + 4, zeus_bottom + 2, w - 8, gap - 4))
    m = geo.marker_size + 10
    for x0, x1 in ((2.0, x_left - 2), (x_right + 2, geo.width - 2)):
        if x1 - x0 > 6:
            span = geo.height - 2 * m
            for i in range(side_pieces):
                out.append((x0, m + i * span / side_pieces, x1 - x0, span / side_pieces))
    return out


def _slice(mat_img: NDArray[Any], rect: tuple[float, float, float, float]) -> NDArray[Any]:
    """A rectangle (mm) of the mat rectified at ``OCCUPANCY_PX_PER_MM``."""
    k = OCCUPANCY_PX_PER_MM
    x, y, w, h = rect
    out: NDArray[Any] = mat_img[
        round(y * k) : round((y + h) * k), round(x * k) : round((x + w) * k)
    ]
    return out


# A sheet join crosses a cell as a straight line along the mat's axes, within this distance
# of where the kit prints it: the sheets' own errors (up to 1.5 mm each, the printed join line
# showing where a sheet lies off its mark) and the mat's pose under barrel distortion (the
# lines on the hard 4K frames lay up to 5 mm off)
JOIN_BAND_MM = 8.0
JOIN_LINE_SHARE = 0.5  # three rows of a band holding edges across this share of a patch: a line
# flags of _marks_mask: where a line across the mat may show (a horizontal join's band, a
# cell's top or bottom outline's), a line down it (a vertical join's, a side outline's), and
# what the kit prints
_ACROSS, _DOWN, _PRINTED = 1, 2, 4
# What the kit prints besides outlines and markers (MatGeometry.print_zones: each cell's name
# at its centre, the side names up the long margins, the centre band's numbers and middle
# line) is left out of every look, this far round it: the pose puts the print up to 5 mm off
# (as it does the joins). Without it, the side names and the band's print lifted the free
# areas' edges from 0 to 0.023-0.043 (the edge limit 2.5 times that: a card's edges passed
# for bare mat's) and their texture, and bare cells' names added edges of their own.
PRINT_SLACK_MM = 5.0
# A cell's own outline lies up to this far inside the part of it tested for bare mat: each
# sheet lies up to 1.5 mm off its mark, and a pose fitted on corner markers 800 mm apart is
# up to 4-5 mm off across the mat under a lens's barrel distortion. Held-out margin
# (benchmarks/bare_mat.py --old, 10 held-out 1080p frames, 111 bare cells, 57 read empty): moved
# to 0.8 times, 57 empty and 0 wrong; to 1.25 times, 57 empty and 0 wrong
OUTLINE_INSIDE_MM = 6.0
# a patch or free area with less than this share unprinted: a cell is judged whole, a free
# area is left out of bare mat's look, and its texture out of the light's glare test
UNPRINTED_ENOUGH = 0.25


@functools.lru_cache(maxsize=8)
def _marks_mask(geo: MatGeometry, seams: tuple[tuple[float, ...], tuple[float, ...]]) -> Any:
    """The rectified mat's known marks (at ``OCCUPANCY_PX_PER_MM``): ``_ACROSS`` within
    ``JOIN_BAND_MM`` of a horizontal sheet join, ``_DOWN`` of a vertical one (on the printed
    A4 mat four horizontal joins cross 4 of the 8 rows of cells), each within
    ``CELL_INSET_MM + OUTLINE_INSIDE_MM`` inside a cell's edge along it; and ``_PRINTED``
    within ``PRINT_SLACK_MM`` of the mat's :meth:`~MatGeometry.print_zones`."""
    k = OCCUPANCY_PX_PER_MM
    h, w = round(geo.height * k), round(geo.width * k)
    mask = np.zeros((h, w), np.uint8)
    b = JOIN_BAND_MM
    for x in seams[0]:
        mask[:, max(0, round((x - b) * k)) : round((x + b) * k)] |= _DOWN
    for y in seams[1]:
        mask[max(0, round((y - b) * k)) : round((y + b) * k), :] |= _ACROSS
    o = CELL_INSET_MM + OUTLINE_INSIDE_MM  # a cell's own outline: a line along the axes too
    for x, y, cw, ch in geo.cells.values():
        x0, x1, y0, y1 = (round(v * k) for v in (x, x + cw, y, y + ch))
        d = round(o * k)
        mask[y0 : y0 + d, x0:x1] |= _ACROSS
        mask[y1 - d : y1, x0:x1] |= _ACROSS
        mask[y0:y1, x0 : x0 + d] |= _DOWN
        mask[y0:y1, x1 - d : x1] |= _DOWN
    m = PRINT_SLACK_MM
    for x, y, zw, zh in geo.print_zones():
        y0, y1 = max(0, round((y - m) * k)), min(h, round((y + zh + m) * k))
        x0, x1 = max(0, round((x - m) * k)), min(w, round((x + zw + m) * k))
        mask[y0:y1, x0:x1] |= _PRINTED
    mask.setflags(write=False)  # one per mat, shared by every frame
    return mask


def _printed(marks: NDArray[Any]) -> NDArray[Any]:
    """Where ``marks`` (part of :func:`_marks_mask`) says the kit prints."""
    out: NDArray[Any] = (marks & _PRINTED) > 0
    return out


def _mat_lines(e: NDArray[Any], marks: NDArray[Any]) -> NDArray[Any]:
    """Where Canny edges ``e`` show a line of the mat itself (a sheet join's, a cell's
    outline): in a band of ``marks`` where one may show, the rows (columns, for a line down
    the mat) where three neighbours hold edges across at least ``JOIN_LINE_SHARE`` of the
    patch, and the rows beside them. A card's art or code has edges off those lines, so a card
    still shows."""
    dropped = np.zeros(e.shape, bool)
    for axis, flag in ((1, _ACROSS), (0, _DOWN)):
        band = ((marks & flag) > 0).any(axis=axis)
        if not band.any():
            continue
        share = np.convolve((e > 0).sum(axis=axis), np.ones(3), "same") / e.shape[axis]
        hit = band & (np.convolve(band & (share >= JOIN_LINE_SHARE), np.ones(3), "same") > 0)
        if axis == 1:
            dropped[hit, :] = True
        else:
            dropped[:, hit] = True
    return dropped


def _unprinted(
    marks: NDArray[Any] | None, rect: tuple[float, float, float, float]
) -> tuple[float, float, float, float] | None:
    """The longest stretch of a free area of the mat (along its length) where the kit prints
    nothing, or None when that is under ``UNPRINTED_ENOUGH`` of it. A stretch, not the pixels
    round the print: those lie by the mat's edge and the cells' outlines, which show edges."""
    if marks is None:
        return rect
    printed = _printed(_slice(marks, rect))
    along = 0 if rect[3] >= rect[2] else 1  # rows of a tall area, columns of a wide one
    rows = np.any(printed, axis=1 - along).ravel()
    free = [not bool(v) for v in rows]
    best, start, run = (0, 0), 0, 0
    for i, f in enumerate([*free, False]):
        if f:
            run += 1
            continue
        if run > best[1] - best[0]:
            best = (start, i)
        start, run = i + 1, 0
    if not any(free) or best[1] - best[0] < UNPRINTED_ENOUGH * len(free):
        return None
    k = OCCUPANCY_PX_PER_MM
    x, y, w, h = rect
    if along == 0:
        return (x, y + best[0] / k, w, (best[1] - best[0]) / k)
    return (x + best[0] / k, y, (best[1] - best[0]) / k, h)


def _reference(
    mat_img: NDArray[Any], geo: MatGeometry, marks: NDArray[Any] | None = None
) -> _Look | None:
    """How bare mat looks in this frame: the median over the mat's free areas, where the kit
    prints nothing (a hand or a stray card over one of them does not move a median)."""
    looks = []
    colours = []  # each area's mean B, G, R over its mean grey
    greys = []
    for piece in _reference_rects(geo):
        rect = _unprinted(marks, piece)
        if rect is None:
            continue
        p = _slice(mat_img, rect)
        if p.shape[0] >= 4 and p.shape[1] >= 4:
            m = _slice(marks, rect) if marks is not None else None
            looks.append(_look(p, None, m))
            keep = None if m is None else (~_printed(m)).astype(np.uint8)
            bgr = np.array(cv2.mean(p, keep)[:3])
            greys.append(max(1.0, float(bgr @ _GREY_WEIGHTS)))
            colours.append(bgr / greys[-1])
    if not looks:
        return None
    colour = np.median(colours, axis=0)
    return _Look(
        float(np.median([lk.edges for lk in looks])),
        (
            float(np.median([lk.chroma[0] for lk in looks])),
            float(np.median([lk.chroma[1] for lk in looks])),
        ),
        float(np.median([lk.texture for lk in looks])),
        0.0,
        float(np.median(greys)),
        per_grey=(float(colour[0]), float(colour[1]), float(colour[2])),
    )


_GREY_WEIGHTS = np.array([0.114, 0.587, 0.299])  # B, G, R to grey, as OpenCV converts


def _mat_tint(per_grey: tuple[float, float, float], grey: float) -> tuple[float, float]:
    """Bare mat's colour (Lab a, b, as OpenCV's 8-bit Lab) at the grey level ``grey``.

    A lamp's fall-off dims a colour without changing its hue, but Lab's a and b shrink with it
    (they scale with the cube root of the light, as L does): on a dark blue cloth mat (grey
    42) a bare cell lit a fifth less than the free areas lay 10 units of a, b from their
    colour, and read unknown. So bare mat's colour is kept per grey level (a
    camera's grey levels scale with the light, its gamma a power law), and a patch darker than
    the free areas may match it made again at the patch's own grey level, as well as the free
    areas' colour as it is: glare on some free areas pales the colour kept per grey level, and
    glare adds
    white light, which no dimming explains, so a brighter patch matches only that. How bright a
    patch is, the brightness test judges.
    """
    bgr = np.clip(np.array(per_grey, np.float32) * min(max(grey, 1.0), 255.0) / 255, 0, 1)
    _, a, b = cv2.cvtColor(bgr.reshape(1, 1, 3), cv2.COLOR_BGR2LAB)[0, 0]
    return float(a) + 128, float(b) + 128


def _light(
    mat_img: NDArray[Any], geo: MatGeometry, marks: NDArray[Any] | None = None
) -> _Light | None:
    """The bare mat's brightness across the frame, from the median grey of its free areas
    (the print on them, thin lines, numbers and names, lies under a median). Robust: an area
    under a hand or a stray card is dropped and the plane fitted again. None with too few
    areas."""
    pts: list[tuple[float, float, float, float]] = []
    for piece in _reference_rects(geo, LIGHT_SIDE_PIECES):
        p = _slice(mat_img, piece)
        if p.shape[0] >= 4 and p.shape[1] >= 4:
            # its grey level over all of it (print lies under a median); its texture where the
            # kit prints nothing, or none (NaN: print's texture is no mat's)
            g = cv2.cvtColor(p, cv2.COLOR_BGR2GRAY)
            keep = ~_printed(_slice(marks, piece)) if marks is not None else None
            tex = float("nan")
            if keep is None or np.count_nonzero(keep) >= UNPRINTED_ENOUGH * keep.size:
                tex = _texture(cv2.GaussianBlur(g, (3, 3), 0), keep)
            centre = (piece[0] + piece[2] / 2, piece[1] + piece[3] / 2)
            pts.append((*centre, float(np.median(g)), tex))
    if len(pts) < 4:
        return None
    arr = np.array(pts, np.float64)
    # glare lifts a free area's grey level and lowers its texture (relative to its mean): the
    # lamp's light, which the fit is for, leaves the texture as it is. So an area under glare
    # is both smoother than most and brighter than most; one only smoother is plain mat (the
    # darkest area at a mat's far end once read as glare there, and the fit extrapolated past
    # it). An area all but covered by print has no texture to judge.
    measured = ~np.isnan(arr[:, 3])
    lamp_lit = ~measured | (arr[:, 2] <= float(np.median(arr[:, 2])))
    if measured.any():
        lamp_lit |= arr[:, 3] >= GLARE_TEXTURE * float(np.median(arr[measured, 3]))
    if np.count_nonzero(lamp_lit) >= 4:
        arr = arr[lamp_lit]
    terms = _terms(arr[:, 0] / 1000, arr[:, 1] / 1000).T  # (n, 6)
    keep = np.ones(len(arr), bool)
    coef = np.zeros(3)
    rel = np.zeros(len(arr))
    for _ in range(3):
        n = QUADRATIC_LIGHT if keep.sum() >= 10 else 3
        coef, *_ = np.linalg.lstsq(terms[keep, :n], arr[keep, 2], rcond=None)
        pred = terms[:, :n] @ coef
        rel = np.abs(arr[:, 2] / np.maximum(pred, 1.0) - 1)
        new_keep = rel <= max(0.06, 2.5 * float(np.median(rel[keep])))
        if new_keep.sum() < 4 or (new_keep == keep).all():
            break
        keep = new_keep
    # what the surface leaves of each side margin's kept areas, added back along the margin
    # (_Light.at). A lamp's fall-off is no quadratic: a lamp narrower than the mat, its light
    # clipped at the ends, left the surface 20-30 grey levels above bare cells there. Only
    # what lies beyond SURFACE_TRUSTED of the surface is added back
    pred = terms[:, : len(coef)] @ coef
    x_left, x_right = _cells_across(geo)
    sides = []
    for on_side in (arr[:, 0] < x_left, arr[:, 0] > x_right):
        on = keep & on_side
        if np.count_nonzero(on) >= 2:
            order = np.argsort(arr[on, 1])
            sides.append(
                (
                    float(np.mean(arr[on, 0])),
                    tuple(float(v) for v in arr[on, 1][order]),
                    tuple(float(v) for v in _beyond(arr[on, 2] - pred[on], pred[on])[order]),
                )
            )
    return _Light(tuple(float(v) for v in coef), float(np.median(rel[keep])), tuple(sides))


# the share of its own level within which the fitted surface is trusted: only what a side
# margin's area stands off it beyond that is added back. A printed or cloth mat mottles by a
# few per cent from one area to the next, and paper's mottling with the lamp's shading up to
# about a tenth: within that an area's offset is the mat's, not the light's; added back whole
# it moved the light over the cells beside it. Held-out margin (benchmarks/bare_mat.py --old, 10
# held-out 1080p frames, 111 bare cells, 57 read empty): moved to 0.8 times, 57 empty and 0 wrong;
# to 1.25 times, 57 empty and 0 wrong
SURFACE_TRUSTED = 0.1


def _beyond(off: NDArray[Any], level: NDArray[Any]) -> NDArray[Any]:
    """What of ``off`` lies beyond SURFACE_TRUSTED of ``level``, signed."""
    out: NDArray[Any] = np.sign(off) * np.maximum(
        0.0, np.abs(off) - SURFACE_TRUSTED * np.abs(level)
    )
    return out


def _bare_mat(
    look: _Look, ref: _Look | None, light: _Light | None = None, at: Point | None = None
) -> float:
    """How surely a cell is bare mat: > 0 bare (the margin to the nearest limit, up to 1),
    <= 0 occupied. Limits are tight on purpose: a doubt reads as 'unknown', never 'empty'.
    With ``light`` (and the cell's centre ``at``, mm) the cell must also be as bright as bare
    mat there: a plain sleeve of the mat's tint and texture is not bare mat. A cell brighter
    than that, or partly washed out, is bare mat only as glare leaves it: keeping bare mat's
    grain (see :func:`_grain`)."""
    edge_limit = max(0.012, 2.5 * (ref.edges if ref else 0.0))
    rougher = ROUGHEST_EDGELESS if look.edges < EDGELESS * edge_limit else ROUGHEST
    tex_limit = max(0.06, rougher * (ref.texture if ref else 0.0))
    margins = [1 - look.edges / edge_limit, 1 - look.texture / tex_limit]
    if ref is not None:
        margins.append(1 - look.off_colour / 0.04)
    # where the bare mat itself is washed out (an over-exposed white mat), brightness tells
    # nothing
    expected = min(max(light.at(*at), 1.0), 255.0) if light is not None and at else None
    blown = expected is not None and expected >= BLOWN_MAT and look.washed > WASHED_SHARE
    grain = _grain(look, ref, expected) if light is not None and not blown else None
    if ref is not None and ref.texture > 0:
        # smoother than bare mat where not blown out: a plain sleeve over the card. Tested
        # where the mat is bright too (skipped there, a beige sleeve under glare read empty in
        # 2 of 120 fresh hard 1080p frames: its unclipped part 0.33 of bare mat's texture,
        # bright bare cells of the test images 0.60 or more)
        smooth = grain if grain is not None else look.texture / ref.texture
        glared = blown or grain is not None
        margins.append(smooth / (BLOWN_SMOOTHEST if glared else SMOOTHEST) - 1)
    if light is not None and expected is not None and not blown:
        if grain is None and look.washed > WASHED_SHARE:
            return -1.0  # glare washed it out where bare mat is not: nothing shows there
        # each 1 at its own limit. Under glare, bare mat's grain explains the light glare
        # added; without it, the cell is a plain thing brighter than bare mat
        tol = min(0.25, max(BRIGHTNESS_TOLERANCE, 5 * light.spread, DARK_LEVELS / expected))
        off = (
            [max(0.0, 1 - grain / GLARE_GRAIN) / (1 - SMOOTHEST)]
            if grain is not None
            else [abs(look.lum / expected - 1) / tol]
        )
        if ref is not None:
            tints = [ref.chroma] + ([look.mat_chroma] if look.mat_chroma else [])
            tint = min(float(np.hypot(*np.subtract(look.chroma, t))) for t in tints)
            off.append(tint / TINT_LIMIT)
            if ref.texture > 0 and grain is None:
                off.append(max(0.0, 1 - look.texture / ref.texture) / (1 - SMOOTHEST))
        # a little darker, a little yellower and a little smoother than bare mat, all at once,
        # is not bare mat (a plain sleeve): the deviations add up (their Euclidean norm)
        margins.append(1 - float(np.hypot.reduce(off)) if len(off) > 1 else 1 - off[0])
    return min(margins)


def _grain(look: _Look, ref: _Look | None, expected: float | None) -> float | None:
    """A cell under glare: its grain as a share of bare mat's there; None for a cell not under
    glare (as bright as bare mat, or darker), or one glare leaves too little of.

    Glare adds light; the lamp multiplies it. So glare lifts bare mat's grey level and leaves
    its grain (the grey level's spread about its local mean, in grey levels) as it is, while
    the lamp scales both. Bare mat's grain here is its texture (relative to the local mean)
    times the light fitted for it; a cell's is its texture times its own grey level, both
    where it is not washed out. A plain sleeve has none to speak of, under glare or not."""
    if ref is None or ref.texture <= 0 or expected is None:
        return None
    if look.washed > GLARE_WASHED_MOST or look.lit_lum - expected > GLARE_MOST:
        return None
    if look.washed <= WASHED_SHARE and look.lum <= expected:
        return None
    return look.texture * (look.lit_lum + 8) / (ref.texture * (expected + 8))


# ---- the bare-mat pattern (issue 38) ----------------------------------------------------------
#
# A kit printed since issue 38 prints a faint square lattice in every cell
# (printables.herazeus.mat.MatPattern: grey squares every 4 mm). A cell showing it is bare mat:
# a positive sign, judged alone on such a kit (the tests above, bare mat told by the absence of
# everything else, stay for kits printed before it). The cell's inside, straightened at
# OCCUPANCY_PX_PER_MM (a period is 6 px), is cut in PATTERN_TILES tiles; in each, the
# lattice's two fundamentals (along the mat's axes) are measured by correlation with a complex
# exponential at the printed period: their power, whatever their phase, so a pose a few mm off
# (a period or more) does not matter, and a scale or turn of a few per cent loses little over a
# tile of 4 periods (5% off turns the phase 1.4 rad across it: 87% of the power kept). The
# share of the tile's variance (about a local mean over one period, which removes the light's
# gradients and keeps the fundamental whole) the two fundamentals explain is the tile's score.

# The lattice's period is looked for at these scales of the printed one: the pose is a
# homography fitted on the corner markers, and a lens's distortion, which no homography
# follows, shrinks or stretches the mat locally by up to about a tenth under a wide lens (a
# webcam's barrel distortion); 6% apart, no scale in 0.85-1.15 loses more than a tenth of the
# power over a tile. Five chances instead of one lift what a tile holds by chance from about
# 4 / N to 20 / N of its variance (0.03 for a 17 mm tile), still far under PATTERN_SHARE
PATTERN_SCALES = (0.88, 0.94, 1.0, 1.06, 1.12)
PATTERN_TILES = (3, 5)  # tiles across and along a cell's inside (52 x 85 mm): 17 mm, 4 periods
# A tile shows the lattice when its two fundamentals explain this share of its variance. Bare
# patterned mat: the fundamentals hold about half of a sharp lattice's variance and more once
# blurred (its harmonics fade first); noise, JPEG and the paper's own grain take the rest.
# Anything else holds the two frequencies by chance: a tile of N pixels about 4 / N of its
# variance (0.006 for a 17 mm tile), a card's art, a sleeve's folds or a hand no more than
# their broad spectra put there.
PATTERN_SHARE = 0.25
# ... and each fundamental alone this share: a lattice has both; a card's stripes or a join's
# line along one axis give one
PATTERN_AXIS_SHARE = 0.06
# ... and the fundamental's amplitude at least this many grey levels: under it, a nearly flat
# tile (a smooth sleeve, a patch of glare just under white) could hold the frequencies in its
# JPEG rounding. The printed lattice's fundamental is 6% of the paper's grey, 14 levels on a
# white mat, 8 or more after a 1080p camera's blur
PATTERN_LEVELS = 1.5
# a tile judged needs this share of its pixels not printed (the cell's name, with
# PRINT_SLACK_MM round it), and no more than PATTERN_WASHED of them washed out by glare
PATTERN_JUDGED = 0.4
PATTERN_WASHED = 0.9
# A cell is bare mat when at least PATTERN_MIN_TILES tiles show the lattice and at most
# PATTERN_MISSES of the tiles judged do not. A card lying in its cell (59 x 92 mm in 64 x 97)
# covers every tile; a hand or a card held above covers several; one tile may miss on bare
# mat (a speck, a crease, a join's shadow across it)
PATTERN_MIN_TILES = 6
PATTERN_MISSES = 1
# Held-out margins (benchmarks/bare_mat.py, 10 held-out 1080p frames, 111 bare cells, 119
# where something lies): 106 bare cells read empty and none wrong, and so with each
# PATTERN_* threshold moved to 0.8 and to 1.25 times. The bare cells' weakest needed tile
# held 0.40 of its variance in the fundamentals at the 5th percentile (median 0.72); a
# covered cell's best tile 0.47 at most (a card's art can hold the frequencies in one tile),
# but no covered cell showed the lattice in more than 1 tile of the 6 a cell needs: the cell's
# count of tiles, not one tile's share, is what keeps a card from reading empty
# Where a sheet of the printed mat is joined to the next (kit.seams), this much either side is
# left out: the later sheet lies up to 1.5 mm off its mark (the kit asks for its cut edge on a
# printed line), its edge's shadow and the margin showing, and the pose (three or four corner
# markers 800 mm apart, a lens's barrel distortion) puts the join up to 3.5 mm off where the
# kit prints it (as JOIN_BAND_MM says of the old tests' join lines)
PATTERN_JOIN_MM = 5.0


# The mat is straightened for the pattern from a frame seen at no more than this many times
# OCCUPANCY_PX_PER_MM: a 4K or 12 MP frame (3.5-4 px/mm) is first shrunk by whole steps,
# averaging its pixels. Straightened from the whole frame, each sample of the mat would take
# one point of it (bilinear), and the frame's detail finer than a 1.5 px/mm sample holds
# (the sensor's noise, a sharp lens's edges of the squares) would fold into the lattice's
# frequencies. At 1.25 the residue folds little (1080p frames are used as they are)
PATTERN_OVERSAMPLED = 1.25


def _pattern_view(gray: NDArray[Any], pose: MatPose, geo: MatGeometry) -> NDArray[Any]:
    """The mat straightened at ``OCCUPANCY_PX_PER_MM`` for the pattern test, from ``gray``
    shrunk (pixels averaged) by the whole factor that leaves the mat's centre seen at about
    ``PATTERN_OVERSAMPLED`` times that."""
    cx, cy = geo.width / 2, geo.height / 2
    a, b = pose.to_image([(cx, cy), (cx + 10.0, cy)])
    ppm = float(np.hypot(*(b - a))) / 10.0
    step = int(ppm / (PATTERN_OVERSAMPLED * OCCUPANCY_PX_PER_MM))
    if step < 2:
        return rectify(gray, pose, geo, OCCUPANCY_PX_PER_MM)
    h, w = gray.shape[:2]
    small = cv2.resize(gray, (w // step, h // step), interpolation=cv2.INTER_AREA)
    # pixel centres: x_small = (x + 0.5) / step - 0.5
    shrink = np.array([[1 / step, 0, 0.5 / step - 0.5], [0, 1 / step, 0.5 / step - 0.5], [0, 0, 1]])
    return rectify(small, pose.scaled(shrink), geo, OCCUPANCY_PX_PER_MM)


@dataclass(frozen=True, slots=True)
class PatternLook:
    """What a cell's tiles show of the bare-mat pattern: how many show it, how many were
    judged (the rest printed over or washed out), and each judged tile's share of its variance
    in the lattice's fundamentals (the tile's score, and its weaker axis's)."""

    shown: int
    judged: int
    shares: tuple[tuple[float, float], ...] = ()

    @property
    def bare(self) -> float:
        """> 0: bare mat (the margin: how far the weakest tile lies above the share, up to 1);
        <= 0: not shown."""
        if self.shown < PATTERN_MIN_TILES or self.judged - self.shown > PATTERN_MISSES:
            return -1.0
        shown = sorted((s for s, a in self.shares if _shows(s, a)), reverse=True)
        weakest = shown[max(PATTERN_MIN_TILES, self.judged - PATTERN_MISSES) - 1]
        return min(1.0, weakest / PATTERN_SHARE - 1)


def _shows(share: float, axis: float) -> bool:
    return share >= PATTERN_SHARE and axis >= PATTERN_AXIS_SHARE


@dataclass(frozen=True, slots=True)
class _Spans:
    """The pieces an axis of a patch is cut into (:func:`_spans`)."""

    starts: NDArray[np.intp]
    tile: NDArray[np.intp]
    measured: NDArray[np.bool_]


@functools.lru_cache(maxsize=1024)
def _spans(size: int, tiles: int, cuts: tuple[float, ...], band: float, box: int) -> _Spans:
    """Along one axis of a patch ``size`` px long, cut into ``tiles`` tiles with joins at
    ``cuts`` (each left out ``band`` px either side): the pieces every tile boundary and every
    join's band boundary cut the axis into, as their starts (for ``np.add.reduceat``), each
    piece's tile, and whether it lies between bands and is ``box`` px or more long (a piece
    of a tile measured on its own)."""
    edges = sorted(float(c) for c in cuts if -band < c < size + band)
    bounds = [0.0, *(v for c in edges for v in (c - band, c + band)), float(size)]
    parts = [
        (max(0, round(a)), min(size, round(b)))
        for a, b in zip(bounds[::2], bounds[1::2], strict=True)
        if round(b) > round(a)
    ]
    inner = [t * size // tiles for t in range(1, tiles)]
    starts = sorted({0, *inner, *(v for p in parts for v in p)} - {size})
    stops = [*starts[1:], size]
    tile = [bisect.bisect_right(inner, s) for s in starts]
    measured = [
        e - s >= box and any(a <= s and e <= b for a, b in parts)
        for s, e in zip(starts, stops, strict=True)
    ]
    return _Spans(np.array(starts, np.intp), np.array(tile, np.intp), np.array(measured, bool))


@functools.lru_cache(maxsize=256)
def _waves(period_px: float, size: int, starts: tuple[int, ...]) -> NDArray[Any]:
    """exp(-i k x) along ``size`` px, for each of the lattice's frequencies (PATTERN_SCALES)
    and each piece of the axis (starting at ``starts``), zero outside it: (size, scales x
    pieces), so that a row of sums along the axis times it gives every piece's Fourier
    coefficient at every scale."""
    k = 2 * np.pi / period_px * np.array(PATTERN_SCALES)  # (scales,)
    x = np.arange(size)
    piece = np.searchsorted(np.array(starts[1:], np.intp), x, side="right")
    out = np.zeros((size, len(PATTERN_SCALES), len(starts)), np.complex128)
    out[x, :, piece] = np.exp(-1j * x[:, None] * k[None, :])
    flat: NDArray[Any] = out.reshape(size, -1)
    return flat


def pattern_look(
    gray: NDArray[Any],
    period_px: float,
    skip: NDArray[Any] | None = None,
    cuts: tuple[Sequence[float], Sequence[float]] = ((), ()),
) -> PatternLook:
    """How a grey patch of a cell's inside (straightened, the lattice's period ``period_px``
    px along both axes) shows the bare-mat pattern, tile by tile (``PATTERN_TILES``); ``skip``
    marks pixels not to judge (what the kit prints there). ``cuts``: where the mat's sheets
    are joined across the patch (x, then y, px): each sheet lies a little off the next, so the
    lattice's phase jumps there; each part of a tile is measured on its own (the powers added)
    and a band of ``PATTERN_JOIN_MM`` round the join (its line and shadow) left out.

    Every sum is taken over the blocks the tiles' and the bands' edges cut the patch into, all
    at once (``np.add.reduceat``): a part of a tile between bands is one such block."""
    g = gray.astype(np.float32)
    box = max(2, round(period_px))
    detail = g - cv2.blur(g, (box, box), borderType=cv2.BORDER_REFLECT)
    use = np.ones(g.shape, bool) if skip is None else ~skip
    h, w = g.shape
    band = PATTERN_JOIN_MM * period_px / PATTERN_PERIOD_MM
    cols, rows = PATTERN_TILES
    xs = _spans(w, cols, tuple(cuts[0]), band, box)
    ys = _spans(h, rows, tuple(cuts[1]), band, box)
    d = np.where(use, detail, 0.0)
    # glare's white (WASHED_OUT) is judged as it is: clipping the paper between the dots
    # leaves the dots, and the lattice's fundamentals, where they were; a tile all but white
    # shows nothing either way and is not judged. Nor is a tile with no lattice left whose
    # mean is BLOWN_MAT or brighter: a camera may clip glare well under WASHED_OUT (its tone
    # curve, a white balance's gain on one channel: the held-out family's sensor at 246), and
    # the squares, a fifth darker than the paper, are then gone with it; a card lying in the
    # cell still covers every tile, and the cell still needs PATTERN_MIN_TILES that show it
    # per block: the detail's sum, pixels judged, the detail's sum of squares, pixels washed
    # out, grey
    planes = np.stack([d, use, d * d, (gray >= WASHED_OUT) & use, np.where(use, g, 0.0)])
    on_cols = np.add.reduceat(planes.astype(np.float64), ys.starts, 1)  # (5, block rows, w)
    s, nm, ss, washed, grey = np.add.reduceat(on_cols, xs.starts, 2)
    on_rows = np.add.reduceat(planes[:2].astype(np.float64), xs.starts, 2)  # (2, h, blocks)
    mean = np.divide(s, nm, out=np.zeros_like(s), where=nm > 0)
    variance = ss - s * mean  # about each block's mean
    # a fundamental along x sums the columns, along y the rows (less the block's mean), each
    # at the scale (PATTERN_SCALES) that holds the most
    ny, nx, scales = len(ys.starts), len(xs.starts), len(PATTERN_SCALES)
    wx = _waves(period_px, w, tuple(xs.starts.tolist()))
    wy = _waves(period_px, h, tuple(ys.starts.tolist()))
    rx = (on_cols[:2] @ wx).reshape(2, ny, scales, nx)
    ry = (wy.T @ on_rows).reshape(2, scales, ny, nx)
    safe = np.maximum(nm, 1.0)
    fx = 2 * np.abs(rx[0] - mean[:, None] * rx[1]).max(axis=1) ** 2 / safe
    fy = 2 * np.abs(ry[0] - mean[None] * ry[1]).max(axis=0) ** 2 / safe
    measured = ys.measured[:, None] & xs.measured[None, :] & (nm >= box * box)
    tile = (ys.tile[:, None] * cols + xs.tile[None, :]).ravel()
    in_tile = np.zeros((tile.size, rows * cols))  # each block's tile
    in_tile[np.arange(tile.size), tile] = 1.0
    sums = np.stack(
        [nm, washed, grey, *(np.where(measured, a, 0.0) for a in (variance, fx, fy, nm))]
    )
    per_tile = sums.reshape(7, -1) @ in_tile
    n_all, n_washed, n_grey, total, px, py, n = per_tile.tolist()
    xb = [c * w // cols for c in range(cols + 1)]
    yb = [r * h // rows for r in range(rows + 1)]
    shares: list[tuple[float, float]] = []
    shown = 0
    for t in range(rows * cols):
        r, c = divmod(t, cols)
        area = (yb[r + 1] - yb[r]) * (xb[c + 1] - xb[c])
        if n_washed[t] > PATTERN_WASHED * n_all[t]:
            continue
        if n[t] <= 0 or n[t] < PATTERN_JUDGED * area or n[t] < 0.5 * n_all[t]:
            continue
        # the weaker fundamental's amplitude (grey levels): 2 |R| / n for a sinusoid
        amp = math.sqrt(2 * min(px[t], py[t]) / n[t])
        if total[t] <= 0 or amp < PATTERN_LEVELS:
            if n_grey[t] >= BLOWN_MAT * n_all[t]:
                continue  # clipped by glare under WASHED_OUT: nothing to judge
            shares.append((0.0, 0.0))
            continue
        share, axis = (px[t] + py[t]) / total[t], min(px[t], py[t]) / total[t]
        shares.append((share, axis))
        shown += _shows(share, axis)
    return PatternLook(shown, len(shares), tuple(shares))


# ---- the snapshot ---------------------------------------------------------------------------


def _cell_quad_px(pose: MatPose, rect: tuple[float, float, float, float]) -> NDArray[Any]:
    x, y, w, h = rect
    return pose.to_image([(x, y), (x + w, y), (x + w, y + h), (x, y + h)])


def _off_centre(at: Point, off: Point, others: list[tuple[Point, Point]]) -> float:
    """How far (mm) a flat back at ``at`` lies from its cell's centre: its offset ``off`` from
    it, less the median offset of the ``others`` (flat backs: where, offset) within
    ``BACK_NEIGHBOURS_MM`` when there are at least two."""
    near = [
        o for a, o in others if float(np.hypot(a[0] - at[0], a[1] - at[1])) < BACK_NEIGHBOURS_MM
    ]
    shift = np.median(np.array(near), axis=0) if len(near) >= 2 else np.zeros(2)
    return float(np.hypot(off[0] - shift[0], off[1] - shift[1]))


# A pose fitted on three corner markers extrapolates the fourth corner, and under a wide
# lens's barrel distortion it is off there: on tuned 4K frames with a hand over a corner
# marker the backs near the hidden corner lay 12-14 mm from their cells' centres (under 1 mm
# far from it). Fitted again with the backs lying flat in cells, each taken for its cell's
# centre (a card lies within 2.5 mm of it: 59 mm in a 64 mm cell, and its back marker is
# printed at its centre), those frames read every cell. Physical reasons: a homography has 8
# unknowns, and three backs with the markers' twelve corners spread it over the mat; a back
# more than 12 mm off its cell's centre refitted is not lying in it (a card's slack is 2.5
# mm, a three-marker pose's error at most about 10); the corner markers' corners are found
# within about half a pixel (0.3 mm at 1080p), so a refit that moves them 1.5 mm on average
# has been bent by a back, not straightened. Refitted without the last two tests, three backs
# near the mat's middle once tilted the pose so that a flat back read askew.
# Held-out margins (benchmarks/bare_mat.py, 10 held-out 1080p frames, each moved to 0.8 and 1.25
# times): REFIT_BACKS: moved to 0.8 times, 57 empty and 0 wrong; to 1.25 times, 57 empty and 0
# wrong; REFIT_BACK_MM: moved to 0.8 times, 57 empty and 0 wrong; to 1.25 times, 57 empty and 0
# wrong; REFIT_CORNERS_MM: moved to 0.8 times, 57 empty and 0 wrong; to 1.25 times, 57 empty and 0
# wrong
REFIT_BACKS = 3  # backs lying flat in cells needed to refit a three-marker pose
REFIT_BACK_MM = 12.0  # a back farther than this from its cell's centre, refitted, is left out
REFIT_CORNERS_MM = 1.5  # the corner markers' mean distance from the refitted pose, at most


def refit_on_backs(
    pose: MatPose, markers: Sequence[Marker], geo: MatGeometry, back_mm: float
) -> MatPose:
    """A pose fitted on three corner markers (:func:`~vision.herazeus.markers.find_mat`), fitted
    again on those markers' corners and the centres of the backs lying flat in cells, each taken
    for its cell's centre (a card lies within a few mm of it): a least-squares homography,
    refitted twice without backs more than ``REFIT_BACK_MM`` off. Kept only when at least
    ``REFIT_BACKS`` backs remain, the corner markers still fit within ``REFIT_CORNERS_MM`` (mean),
    the backs lie nearer their cells' centres than before (RMS) and no back that lay flat
    (:func:`lies_flat`) is then askew; otherwise ``pose`` as it was."""
    src, dst = corner_points(corner_markers(list(markers)), geo)
    corners = len(src)
    flat = [
        m
        for m in markers
        if m.id in BACK_IDS and lies_flat(pose, m.corners, back_mm, FLAT_BACK) is None
    ]
    for m in flat:
        ((mx, my),) = pose.to_mat([m.centre])
        key = geo.cell_at(float(mx), float(my))
        if key is not None:
            src.append(geo.cells[key].centre)
            dst.append(m.centre)
    if len(src) - corners < REFIT_BACKS:
        return pose
    mat_pts = np.array(src, np.float64)
    img_pts = np.array(dst, np.float64)
    # a lens term the markers gave (find_mat) is kept: the homography is fitted on straight px
    straight = img_pts if pose.lens is None else pose.lens.undistort(img_pts)
    keep = np.ones(len(src), bool)
    refit = pose
    off = np.zeros(len(src))
    for _ in range(3):
        h, _mask = cv2.findHomography(mat_pts[keep], straight[keep], 0)
        if h is None:
            return pose
        refit = MatPose(h, pose.markers, 0.0, pose.confidence, pose.lens)
        off = np.hypot(*(refit.to_mat(img_pts) - mat_pts).T)
        now = off <= REFIT_BACK_MM
        now[:corners] = True
        if (now == keep).all():
            break
        keep = now
    backs = keep[corners:]
    before = np.hypot(*(pose.to_mat(img_pts[corners:]) - mat_pts[corners:]).T)
    err = float(np.mean(off[:corners]))
    refit = MatPose(refit.homography, pose.markers, err, pose.confidence, pose.lens)
    if (
        int(backs.sum()) < REFIT_BACKS
        or err > REFIT_CORNERS_MM
        or _rms(off[corners:][backs]) > _rms(before[backs])
        or any(lies_flat(refit, m.corners, back_mm, FLAT_BACK) is not None for m in flat)
    ):
        return pose
    return refit


def _rms(v: NDArray[Any]) -> float:
    return float(np.sqrt(np.mean(v**2))) if v.size else 0.0


def read_table(
    image: Any,
    kit: KitLike,
    second_pass: bool = True,
    occupancy: bool = True,
    timings: dict[str, float] | None = None,
) -> Snapshot:
    """The table snapshot of one frame. Raises ImageError for something that is not an image
    and MatNotFound when fewer than two corner markers of the mat are visible. ``timings``
    (for the benchmark) receives the seconds each stage took: ``markers`` (grey, ArUco, the
    mat's pose), ``codes`` (the full-frame QR pass and placing), ``cells`` (the bare-mat tests
    and the second pass)."""
    lap = Laps(timings).lap
    gray, bgr = gray_and_colour(image)
    geo = kit.mat
    book = codebook(kit.payloads) if second_pass else None
    markers = detect_markers(gray)
    pose = find_mat(markers, geo, (gray.shape[1], gray.shape[0]))
    if len(pose.markers) == 3:
        pose = refit_on_backs(pose, markers, geo, kit.back_marker_mm)
    lap("markers")

    codes: dict[CellKey, list[Detection]] = {}
    backs: dict[CellKey, list[Deck]] = {}
    lifted: dict[CellKey, str] = {}  # cells under a card held above the mat, and why
    on_edge: dict[CellKey, str] = {}  # cells with a code on their edge: never read
    detections: list[Detection] = []

    def place(code: RawCode, upscaled: bool) -> CellKey | None:
        d = check_code(code, kit, upscaled)
        detections.append(d)
        ((mx, my),) = pose.to_mat([code.centre])
        key = geo.cell_at(float(mx), float(my))
        if key is None:
            return None
        if _cell_of(geo, float(mx), float(my)) is None:
            # a code centred on a cell's edge lies on no card lying in that cell (see
            # EDGE_MARGIN_MM): the pose is off there, or the card is a neighbour's; its cell
            # reads unknown, never that card
            on_edge[key] = f"a code {_edge_mm(geo, key, mx, my):.1f} mm from its cell's edge"
            return None
        why = lies_flat(pose, code.corners, kit.code_mm, FLAT_CODE)
        if why is not None:
            # a decoder's fourth corner may lie a module off: judged again on the corners
            # aligned on the code's finders (a card held above stays bigger, tilted or turned)
            pinned = aligned_corners(gray, code.corners)
            if pinned is None or lies_flat(pose, pinned, kit.code_mm, FLAT_CODE) is not None:
                lifted[key] = why
                return None
        codes.setdefault(key, []).append(d)
        return key

    for code in decode_qr(gray):
        place(code, False)
    flat_backs: list[tuple[CellKey, Deck, Point, Point]] = []  # cell, deck, at, off (mm)
    for m in markers:
        if m.id in BACK_IDS:
            ((mx, my),) = pose.to_mat([m.centre])
            key = geo.cell_at(float(mx), float(my))
            if key is None:
                continue
            why = lies_flat(pose, m.corners, kit.back_marker_mm, FLAT_BACK)
            if why is not None:
                lifted[key] = why
                continue
            at = (float(mx), float(my))
            cx, cy = geo.cells[key].centre
            flat_backs.append((key, BACK_IDS[m.id], at, (at[0] - cx, at[1] - cy)))
    for key, deck, at, off in flat_backs:
        miss = _off_centre(at, off, [(a, o) for _, _, a, o in flat_backs if a != at])
        if miss > BACK_OFF_CENTRE_MM:
            lifted[key] = f"a back {miss:.0f} mm from its cell's centre: not lying in it"
            continue
        backs.setdefault(key, []).append(deck)

    lap("codes")
    pattern = geo.pattern
    # a kit with the bare-mat pattern: a cell is bare when it shows it (grey is enough);
    # before it, bare mat is told by the absence of everything else, from the mat's colours
    mat_img = None
    if occupancy:
        mat_img = (
            _pattern_view(gray, pose, geo)
            if pattern is not None
            else rectify(bgr, pose, geo, OCCUPANCY_PX_PER_MM)
        )
    marks = _marks_mask(geo, kit.seams) if mat_img is not None else None
    old_kit = mat_img if pattern is None else None
    ref = _reference(old_kit, geo, marks) if old_kit is not None else None
    light = _light(old_kit, geo, marks) if old_kit is not None else None
    cells: dict[CellKey, CellReading] = {}
    for key in geo.iter_cells():
        rect = geo.cells[key]
        if key in on_edge:
            cells[key] = CellReading(*key, "unknown", 0.0, reason=on_edge[key])
            continue
        if key in lifted and key not in codes and key not in backs:
            cells[key] = CellReading(*key, "unknown", 0.0, reason=lifted[key])
            continue
        if key not in codes and key not in backs:
            inner = (
                rect[0] + CELL_INSET_MM,
                rect[1] + CELL_INSET_MM,
                rect[2] - 2 * CELL_INSET_MM,
                rect[3] - 2 * CELL_INSET_MM,
            )
            bare = 0.0
            if mat_img is not None:
                patch = _slice(mat_img, inner)
                cell_marks = _slice(marks, inner) if marks is not None else None
                if pattern is not None:
                    skip = _printed(cell_marks) if cell_marks is not None else None
                    period = pattern.period * OCCUPANCY_PX_PER_MM
                    cuts = (
                        [(x - inner[0]) * OCCUPANCY_PX_PER_MM for x in kit.seams[0]],
                        [(y - inner[1]) * OCCUPANCY_PX_PER_MM for y in kit.seams[1]],
                    )
                    bare = pattern_look(patch, period, skip, cuts).bare
                else:
                    look = _look(patch, ref, cell_marks)
                    bare = _bare_mat(look, ref, light, rect.centre)
            if bare > 0:
                cells[key] = CellReading(*key, "empty", round(min(1.0, 0.5 + bare), 3))
                continue
            if second_pass:
                q = _cell_quad_px(pose, rect)
                x0, y0 = np.floor(q.min(axis=0)).astype(int)
                x1, y1 = np.ceil(q.max(axis=0)).astype(int)
                box = (int(x0), int(y0), int(x1 - x0), int(y1 - y0))
                found = decode_crop(gray, box, equalise=False)
                if not found and book is not None:
                    found = decode_cell(gray, pose, rect, book, kit.code_mm)
                for code in found:
                    if not any(d.payload == code.text for d in detections):
                        place(code, True)
        cells[key] = _judge(key, codes.get(key, []), backs.get(key, []))
    for key, why in on_edge.items():  # found by a later cell's second pass
        cells[key] = CellReading(*key, "unknown", 0.0, reason=why)
    lap("cells")
    return Snapshot(cells, pose, detections, markers)


def _cell_of(geo: MatGeometry, x: float, y: float) -> CellKey | None:
    """The cell holding mat point (x, y) at least ``EDGE_MARGIN_MM`` inside its edges; None on
    a border (a code there is not placed: its cell then reads unknown, never a neighbour)."""
    key = geo.cell_at(x, y)
    if key is None:
        return None
    cx, cy, w, h = geo.cells[key]
    m = EDGE_MARGIN_MM
    if cx + m <= x <= cx + w - m and cy + m <= y <= cy + h - m:
        return key
    return None


def _edge_mm(geo: MatGeometry, key: CellKey, x: float, y: float) -> float:
    """How far (mm) mat point (x, y) lies inside cell ``key``'s nearest edge."""
    cx, cy, w, h = geo.cells[key]
    return float(min(x - cx, cx + w - x, y - cy, cy + h - y))


def _judge(key: CellKey, dets: list[Detection], backs: list[Deck]) -> CellReading:
    """One cell from what was read in it. Anything contradictory is ``unknown``."""
    cards = {d.payload: d for d in dets if d.card is not None}
    refused = [d for d in dets if d.card is None]
    decks = set(backs)
    if len(cards) == 1 and not decks and not refused:
        d = next(iter(cards.values()))
        assert d.card is not None
        return CellReading(*key, "up", d.confidence, d.card.deck, d.card, d.payload)
    if not dets and len(decks) == 1:
        deck = next(iter(decks))
        return CellReading(*key, "down", 0.98 if len(backs) == 1 else 0.9, deck)
    if refused and not cards:
        return CellReading(*key, "unknown", 0.0, reason=refused[0].refused)
    if len(cards) > 1:
        return CellReading(*key, "unknown", 0.0, reason="two card codes in one cell")
    if cards and decks:
        return CellReading(*key, "unknown", 0.0, reason="a face code and a back in one cell")
    if len(decks) > 1:
        return CellReading(*key, "unknown", 0.0, reason="backs of both decks in one cell")
    if cards and refused:
        return CellReading(*key, "unknown", 0.0, reason="a card code and a refused code")
    return CellReading(*key, "unknown", 0.0, reason="something lies here but nothing was read")
