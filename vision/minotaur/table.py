"""Stage: one frame of the Minotaur Lords mat -> a table snapshot (issue 38).

The mat (:mod:`printables.minotaur.mat`) has twelve lanes, a column's side each, where a
column's cards lie overlapping, each showing its top strip with its code strip sticker, and the
deities' place in the middle. A frame reads:

- each lane as the **ordered list** of its cards, slot 1 (at the centre line) first, or
  ``unknown`` with the reason;
- the deities' place as the **set** of the deities lying there, or ``unknown``.

Never a guess: a lane is read only when every card in it is accounted for. Its codes are
checked against the kit (a code of another kit, game or a misprint is refused, and its lane
reads unknown); each lies flat on the mat (:func:`vision.pose.lies_flat`: a card
held above the mat is not placed) on a slot line (within ``SLOT_TOLERANCE_MM``); the slots
read run from the first without a gap (a card whose code is hidden leaves one); and past the
last card read, where a next card would lie, the lane is bare mat (a hand, a card whose code is
covered, a sixth card beyond the printed slots: unknown). An empty lane is bare mat all along.

The pipeline: grey -> ArUco corner markers 4-7 -> the mat's pose -> a full-frame QR pass ->
each code checked and placed in its lane's slot or deity cell -> lanes and cells not settled
get a second pass (their region upscaled 2x, then the kit's codes matched in the region
straightened, :func:`vision.pose.decode_cell`) -> the bare-mat tests on the mat
straightened at ``BARE_PX_PER_MM``. Pure: arrays in, values out. Reused game-neutral parts: the
marker pose (:class:`vision.pose.MatPose`), :func:`lies_flat`,
:func:`decode_cell`, :mod:`vision.codebook`, :mod:`vision.decode`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.minotaur.cards import COLUMNS, PLAYERS
from engine.say import Say
from printables.codes import PayloadError
from printables.minotaur.kit import MinotaurKit
from printables.minotaur.mat import (
    CARD_MM,
    CODE_FROM_TOP,
    CORNER_IDS,
    LANE_LEN,
    SLOT_PITCH,
    SLOTS,
    LaneKey,
    MinotaurMat,
    Rect,
    minotaur_mat,
)
from printables.minotaur.sheets import STRIP_CODE_MM
from vision.codebook import Codebook, codebook
from vision.decode import Laps, RawCode, decode_crop, decode_qr, gray_and_colour
from vision.pose import (
    Marker,
    MatNotFound,
    MatPose,
    clearest,
    decode_cell,
    detect_markers,
    lies_flat,
)

State = Literal["read", "unknown"]

# A code lying flat on the mat comes back, through the pose, the printed square: its sides'
# mean within 6% of the printed size and each side as near it, corners square within 6 degrees,
# turned at most 6 degrees off the lane (a card laid by hand lies up to 3 off); a card held
# above the mat is nearer the lens, 6-25% bigger, askew or turned (:func:`vision.pose.lies_flat`)
FLAT_CODE = (0.06, 6.0, 6.0)
MIN_CORNER_MARKERS = 3  # as the other game's mat: three corner markers place the mat within mm
POSE_MAX_ERROR_MM = 5.0  # markers fitting the mat worse than this are another mat's, or bent
# A code's centre lies CODE_FROM_TOP mm out from its card's top edge, and a card's top edge on
# its slot line. Laid by hand a card lies within a few mm of its line (the synthetic frames
# lay them within 2.5 mm, turned up to 3 degrees); half the pitch less 5.5 mm keeps a code
# that lies between two lines from being given either
SLOT_TOLERANCE_MM = SLOT_PITCH / 2 - 5.5
# The bare-mat tests look at the lane inside its outline and slot ticks (printed within 4 mm of
# the lane's long edges) and a card's side slack: this far in from the lane's long edges
LANE_INSET_MM = 7.0
# Past the last card's bottom edge the tail is tested from this far on: a card lies up to 2.5
# mm off its line and turned up to 3 degrees (its corners 1.5 mm further), its sleeve 1 mm
# longer; at 3 mm the last card's own edge fell in the tail's first block on tuned frames
# (edges 0.03-0.11 of the block, limit 0.01)
TAIL_AFTER_MM = 6.0
LABEL_MM = 10.0  # the run-out's outer end carries the column's name: not tested
MIN_TAIL_MM = 4.0  # a strip thinner than this tells nothing: the lane is full, unknown
BARE_PX_PER_MM = 2.0  # the mat straightened for the bare-mat tests
BLOCK_MM = 20.0  # a tested strip is judged in blocks this long (the light varies along it)
DEITY_INSET_MM = 7.0
SLOT_SEARCH_MM = 4.0  # the second pass looks this far round a slot's strip (a card laid off)
# Bare mat (the kit's mat is printed paper: one colour, no print inside the tested areas). A
# block is bare when all hold, against the mat's own margins beside the lanes:
# - its median grey within BRIGHT_SHARE (or BRIGHT_LEVELS grey levels, where more) of the light
#   fitted there (a plane over the margins' grey: a lamp's slope across the mat);
# - its grain (grey less its 3 px blur) under GRAIN_TIMES the margins' grain + GRAIN_LEVELS;
# - under EDGE_SHARE of its pixels on edges (Canny 30/90 on the 1 px-blurred grey): a card's
#   outline, art or a hand's border crosses a block;
# - its mean colour within TINT_AB (Lab a, b) of the margins' (below).
BRIGHT_SHARE = 0.15
BRIGHT_LEVELS = 12.0
GRAIN_TIMES = 2.0
GRAIN_LEVELS = 2.0
EDGE_SHARE = 0.01
# 12 (was 9): bare lanes far from the margins came back 6-10 off the margins' a, b under the
# uneven light of tuned frames (a tint of the light, not of the mat); the other game's mat reader
# counts 12 as "not mat" too (OFF_COLOUR_AB)
TINT_AB = 12.0
MARGIN_STRIP_MM = (8.0, 16.0)  # the mat's side margins: x from the mat's edge (both sides)


@dataclass(frozen=True, slots=True)
class CardSeen:
    """A card read on the mat: which physical card of the kit (deck, serial), its name, its
    code, and where (mm) its code lies out along its lane (its depth) or in the deity cell."""

    deck: str
    serial: int
    card: str
    payload: str

    def to_json(self) -> dict[str, Any]:
        return {
            "deck": self.deck,
            "serial": self.serial,
            "card": self.card,
            "payload": self.payload,
        }


@dataclass(frozen=True, slots=True)
class LaneReading:
    """One lane: ``read`` with its cards in slot order (none: an empty lane), or ``unknown``
    with the ``reason`` (``cards`` then lists the codes read there, for the person only)."""

    side: str
    column: str
    state: State
    cards: tuple[CardSeen, ...] = ()
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state, "cards": [c.to_json() for c in self.cards]}
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True, slots=True)
class DeitiesReading:
    """The deities' place: ``read`` with the deities lying there (a set, in cell order), or
    ``unknown`` with the reason."""

    state: State
    cards: tuple[CardSeen, ...] = ()
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state, "cards": [c.to_json() for c in self.cards]}
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class MinotaurSnapshot:
    """The Minotaur Lords table as one frame shows it."""

    lanes: dict[LaneKey, LaneReading]
    deities: DeitiesReading
    pose: MatPose
    refused: list[tuple[str, str]] = field(default_factory=list)  # (code, why)

    def lane(self, side: str, column: str) -> LaneReading:
        """Raises KeyError for a side or column that is not the mat's."""
        return self.lanes[(side, column)]

    def to_json(self) -> dict[str, Any]:
        """``{"mat": pose, "miron": {column: lane}, "vess": {...}, "deities": ..., "refused"}``."""
        out: dict[str, Any] = {"mat": self.pose.to_json()}
        for side in PLAYERS:
            out[side] = {c.id: self.lanes[(side, c.id)].to_json() for c in COLUMNS}
        out["deities"] = self.deities.to_json()
        out["refused"] = [{"payload": p, "refused": why} for p, why in self.refused]
        return out

    def text(self) -> str:
        """One line a lane: its cards in slot order, ``.`` empty, ``?`` unknown and why."""
        lines = []
        for side in PLAYERS:
            for c in COLUMNS:
                r = self.lanes[(side, c.id)]
                seen = ", ".join(x.card for x in r.cards) or "."
                lines.append(
                    f"{side:5} {c.id:16} " + (seen if r.state == "read" else f"? ({r.reason})")
                )
        d = self.deities
        gods = ", ".join(f"{x.card} ({x.deck})" for x in d.cards) or "."
        lines.append(f"{'':5} {'deities':16} " + (gods if d.state == "read" else f"? ({d.reason})"))
        return "\n".join(lines)


# ---- the mat's pose ------------------------------------------------------------------------


def corner_markers(gray: NDArray[Any]) -> dict[int, Marker]:
    """The mat's corner markers (ids 4-7) in a grey frame, by id: the largest of repeats."""
    ids = frozenset(CORNER_IDS)
    return clearest(detect_markers(gray, ids), ids)


def find_mat(gray: NDArray[Any], mat: MinotaurMat) -> MatPose:
    """The mat's pose from its corner markers. Raises MatNotFound (fewer than three seen, or
    markers that do not fit this mat)."""
    by_id = corner_markers(gray)
    if len(by_id) < MIN_CORNER_MARKERS:
        seen = ", ".join(str(i) for i in sorted(by_id)) or "none"
        raise MatNotFound(
            Say(
                "the Minotaur Lords mat was not found: %(n)s of its 4 corner markers seen "
                "(%(seen)s); at least %(least)s are needed",
                n=len(by_id),
                seen=seen,
                least=MIN_CORNER_MARKERS,
            )
        )
    src: list[tuple[float, float]] = []
    dst: list[tuple[float, float]] = []
    for mid, m in sorted(by_id.items()):
        src += mat.marker_corners(mid)
        dst += list(m.corners)
    s, d = np.array(src, np.float64), np.array(dst, np.float64)
    h, _ = cv2.findHomography(s, d, cv2.RANSAC, 4.0)
    if h is None:
        raise MatNotFound(Say("the mat was not found: its corner markers give no consistent pose"))
    pose = MatPose(h, tuple(sorted(by_id)), 0.0, 0.0)
    err = float(np.mean(np.hypot(*(pose.to_mat(d) - s).T)))
    if err > POSE_MAX_ERROR_MM:
        raise MatNotFound(
            Say(
                "the mat was not found: the corner markers do not fit the mat (%(err)s mm off)",
                err=f"{err:.1f}",
            )
        )
    conf = (1.0 if len(by_id) == 4 else 0.8) * max(0.0, 1.0 - err / POSE_MAX_ERROR_MM)
    return MatPose(h, tuple(sorted(by_id)), err, round(conf, 3))


# ---- bare mat ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Bare:
    """The straightened mat and what its bare margins look like."""

    grey: NDArray[Any]
    lab: NDArray[Any]
    edges: NDArray[Any]
    grain: NDArray[Any]
    light: tuple[float, float, float]  # grey = a + b x + c y (x, y in mm)
    ab: tuple[float, float]
    mat_grain: float

    def block_is_bare(self, r: Rect) -> str | None:
        """None when the mat block ``r`` (mm) looks like bare mat; else why not."""
        p = BARE_PX_PER_MM
        x0, y0 = max(0, round(r.x * p)), max(0, round(r.y * p))
        x1, y1 = round((r.x + r.w) * p), round((r.y + r.h) * p)
        g = self.grey[y0:y1, x0:x1]
        if g.size < 16:
            return "too small"
        cx, cy = r.centre
        a, b, c = self.light
        want = a + b * cx + c * cy
        med = float(np.median(g))
        if abs(med - want) > max(BRIGHT_SHARE * want, BRIGHT_LEVELS):
            return "brightness"
        if float(np.mean(self.grain[y0:y1, x0:x1])) > GRAIN_TIMES * self.mat_grain + GRAIN_LEVELS:
            return "grain"
        if float(np.mean(self.edges[y0:y1, x0:x1])) > EDGE_SHARE:
            return "edges"
        lab = self.lab[y0:y1, x0:x1].reshape(-1, 3)
        da = float(np.mean(lab[:, 1])) - self.ab[0]
        db = float(np.mean(lab[:, 2])) - self.ab[1]
        if float(np.hypot(da, db)) > TINT_AB:
            return "colour"
        return None

    def strip_is_bare(self, r: Rect) -> bool:
        """Whether every block of the strip ``r`` (along its long side) is bare mat."""
        n = max(1, round(max(r.w, r.h) / BLOCK_MM))
        for i in range(n):
            if r.h >= r.w:
                b = Rect(r.x, r.y + i * r.h / n, r.w, r.h / n)
            else:
                b = Rect(r.x + i * r.w / n, r.y, r.w / n, r.h)
            if self.block_is_bare(b) is not None:
                return False
        return True


def _bare(bgr: NDArray[Any], pose: MatPose, mat: MinotaurMat) -> _Bare:
    p = BARE_PX_PER_MM
    M = np.diag([p, p, 1.0]) @ pose.inverse
    size = (round(mat.width * p), round(mat.height * p))
    img = cv2.warpPerspective(bgr, M, size, flags=cv2.INTER_AREA)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32) - np.array(
        [0, 128, 128], np.float32
    )
    soft = cv2.GaussianBlur(grey, (0, 0), 1.0)
    edges = cv2.Canny(soft.astype(np.uint8), 30, 90) > 0
    grain = np.abs(grey - cv2.GaussianBlur(grey, (0, 0), 3.0))
    # the margins beside the lanes, between the corner markers: blocks of 20 mm, their median
    lo, hi = MARGIN_STRIP_MM
    y_top, y_bottom = mat.marker_size + 12.0, mat.height - mat.marker_size - 12.0
    pts: list[tuple[float, float, float]] = []
    abs_: list[tuple[float, float]] = []
    grains: list[float] = []
    for x0 in (lo, mat.width - hi):
        y = y_top
        while y + BLOCK_MM <= y_bottom:
            sl = (
                slice(round(y * p), round((y + BLOCK_MM) * p)),
                slice(round(x0 * p), round((x0 + hi - lo) * p)),
            )
            pts.append((x0 + (hi - lo) / 2, y + BLOCK_MM / 2, float(np.median(grey[sl]))))
            ab = lab[sl].reshape(-1, 3)
            abs_.append((float(np.mean(ab[:, 1])), float(np.mean(ab[:, 2]))))
            grains.append(float(np.mean(grain[sl])))
            y += BLOCK_MM
    a = np.array(pts)
    # a robust plane: fitted, the blocks farthest from it (a hand or a card on the margin)
    # left out, fitted again
    keep = np.ones(len(a), bool)
    coef = np.zeros(3)
    for _ in range(3):
        A = np.c_[np.ones(int(keep.sum())), a[keep, 0], a[keep, 1]]
        coef, *_ = np.linalg.lstsq(A, a[keep, 2], rcond=None)
        res = np.abs(np.c_[np.ones(len(a)), a[:, 0], a[:, 1]] @ coef - a[:, 2])
        keep = res <= max(float(np.median(res)) * 3, 3.0)
    ab_med = np.median(np.array(abs_), axis=0)
    return _Bare(
        grey,
        lab,
        edges,
        grain,
        (float(coef[0]), float(coef[1]), float(coef[2])),
        (float(ab_med[0]), float(ab_med[1])),
        float(np.median(grains)),
    )


# ---- reading -------------------------------------------------------------------------------


@dataclass
class _Found:
    """What the codes placed in one lane or the deities' place say."""

    slots: dict[int, list[CardSeen]] = field(default_factory=dict)
    cells: dict[int, list[CardSeen]] = field(default_factory=dict)
    trouble: str | None = None  # a refused, lifted or misplaced code: the place reads unknown


def _lane_region(mat: MinotaurMat, key: LaneKey, d0: float, d1: float) -> Rect:
    """The part of lane ``key`` from depth d0 to d1 (mm), inside LANE_INSET_MM."""
    side, _ = key
    r = mat.lanes[key]
    start = mat.lane_start(side)
    ya, yb = sorted((start + mat.outward(side) * d0, start + mat.outward(side) * d1))
    return Rect(r.x + LANE_INSET_MM, ya, r.w - 2 * LANE_INSET_MM, yb - ya)


def read_table(
    image: Any,
    kit: MinotaurKit,
    second_pass: bool = True,
    match: bool = True,
    timings: dict[str, float] | None = None,
) -> MinotaurSnapshot:
    """The table snapshot of one frame of the Minotaur Lords mat. Raises ImageError for
    something that is not an image and MatNotFound when the mat's corner markers are not
    seen. ``second_pass``: slots and cells not settled are read again (``match``: with the
    kit's codes matched too, :mod:`vision.codebook`; slower, a few more lanes read at 1080p).
    ``timings`` receives each stage's seconds (``markers``, ``codes``, ``places``)."""
    lap = Laps(timings).lap
    gray, bgr = gray_and_colour(image)
    mat = minotaur_mat()
    pose = find_mat(gray, mat)
    lap("markers")
    lanes: dict[LaneKey, _Found] = {k: _Found() for k in mat.iter_lanes()}
    gods = _Found()
    refused: list[tuple[str, str]] = []
    seen_payloads: set[str] = set()

    def place(code: RawCode) -> None:
        if code.text in seen_payloads:
            return
        seen_payloads.add(code.text)
        ((mx, my),) = pose.to_mat([code.centre])
        x, y = float(mx), float(my)
        key = mat.lane_at(x, y)
        cell = mat.deity_at(x, y) if key is None else None
        if key is None and cell is None:
            return  # a card beside the mat (a hand, a pile) is none of the table's
        where = lanes[key] if key is not None else gods
        try:
            face, name = kit.read(code.text)
        except PayloadError as e:
            refused.append((code.text, str(e)))
            where.trouble = Say("a code that is not this kit's: %(why)s", why=str(e))
            return
        why = lies_flat(pose, code.corners, STRIP_CODE_MM, FLAT_CODE)
        if why is not None:
            where.trouble = why
            return
        seen = CardSeen(face.deck, face.serial, name, code.text)
        if key is not None:
            depth = mat.depth(key[0], y) - CODE_FROM_TOP
            slot = round(depth / SLOT_PITCH)
            if slot < 0 or abs(depth - slot * SLOT_PITCH) > SLOT_TOLERANCE_MM:
                where.trouble = Say("a card lies off the slot lines")
                return
            where.slots.setdefault(slot, []).append(seen)
        else:
            assert cell is not None
            where.cells.setdefault(cell, []).append(seen)

    for code in decode_qr(gray):
        place(code)
    lap("codes")
    bare = _bare(bgr, pose, mat)
    book: Codebook | None = None
    out: dict[LaneKey, LaneReading] = {}
    for key in mat.iter_lanes():
        f = lanes[key]
        reading = _lane(mat, key, f, bare)
        tried: set[int] = set()
        while reading.state == "unknown" and second_pass and f.trouble is None:
            # the slots where a code may be missing: a gap, or the slot after the last read
            missing = [
                k
                for k in range(max(f.slots, default=-1) + 2)
                if k not in f.slots and k not in tried and k <= SLOTS
            ]
            if not missing:
                break
            book = book or (codebook(tuple(s.payload for s in kit.stickers)) if match else None)
            for k in missing:
                tried.add(k)
                for code in _second_pass(gray, pose, _slot_rect(mat, key, k), book):
                    place(code)
            reading = _lane(mat, key, f, bare)
        out[key] = reading
    deities = _deities(mat, gods, bare)
    if deities.state == "unknown" and second_pass and gods.trouble is None:
        book = book or (codebook(tuple(s.payload for s in kit.stickers)) if match else None)
        for r in mat.deities:
            for code in _second_pass(gray, pose, r, book):
                place(code)
        deities = _deities(mat, gods, bare)
    lap("places")
    return MinotaurSnapshot(out, deities, pose, refused)


def _slot_rect(mat: MinotaurMat, key: LaneKey, k: int) -> Rect:
    """Where slot ``k``'s code strip lies in lane ``key``: the lane's width and a little more
    (a card laid off centre), from just before the slot line to past its code's quiet zone."""
    r = mat.lanes[key]
    band = _lane_region(
        mat, key, k * SLOT_PITCH - SLOT_SEARCH_MM, (k + 1) * SLOT_PITCH + SLOT_SEARCH_MM
    )
    return Rect(r.x - SLOT_SEARCH_MM, band.y, r.w + 2 * SLOT_SEARCH_MM, band.h)


def _second_pass(
    gray: NDArray[Any], pose: MatPose, rect: Rect, book: Codebook | None
) -> list[RawCode]:
    """The codes of a slot's strip or a cell the full-frame pass missed: its box upscaled 2x;
    when that reads none, the kit's codes matched in it straightened (``book``; None: not)."""
    q = pose.to_image(
        [
            (rect.x, rect.y),
            (rect.x + rect.w, rect.y),
            (rect.x + rect.w, rect.y + rect.h),
            (rect.x, rect.y + rect.h),
        ]
    )
    x0, y0 = np.floor(q.min(axis=0)).astype(int)
    x1, y1 = np.ceil(q.max(axis=0)).astype(int)
    found = decode_crop(gray, (int(x0), int(y0), int(x1 - x0), int(y1 - y0)), equalise=False)
    if found or book is None:
        return found
    return decode_cell(gray, pose, (rect.x, rect.y, rect.w, rect.h), book, STRIP_CODE_MM)


def _cards(found: dict[int, list[CardSeen]]) -> list[CardSeen]:
    return [c for k in sorted(found) for c in found[k]]


def _lane(mat: MinotaurMat, key: LaneKey, f: _Found, bare: _Bare) -> LaneReading:
    """One lane from its codes and the bare-mat test past its last card (module docstring)."""
    side, column = key
    cards = tuple(_cards(f.slots))

    def unknown(reason: str) -> LaneReading:
        return LaneReading(side, column, "unknown", cards, reason)

    if f.trouble is not None:
        return unknown(f.trouble)
    if any(len(v) > 1 for v in f.slots.values()):
        return unknown(Say("two codes on one slot"))
    n = len(f.slots)
    if sorted(f.slots) != list(range(n)):
        return unknown(
            Say("a slot before a card read shows no code (a card whose code is hidden?)")
        )
    start = TAIL_AFTER_MM if n == 0 else (n - 1) * SLOT_PITCH + CARD_MM[1] + TAIL_AFTER_MM
    end = LANE_LEN - LABEL_MM
    if end - start < MIN_TAIL_MM:
        return unknown(Say("the lane is full: a card past its end could not be ruled out"))
    if not bare.strip_is_bare(_lane_region(mat, key, start, end)):
        if n == 0:
            return unknown(Say("something lies in the lane but no code was read"))
        return unknown(Say("something lies past the last card read (a card whose code is hidden?)"))
    return LaneReading(side, column, "read", cards)


def _deities(mat: MinotaurMat, f: _Found, bare: _Bare) -> DeitiesReading:
    """The deities' place: each cell a card, bare mat, or unknown (then the place is)."""
    cards = tuple(_cards(f.cells))
    if f.trouble is not None:
        return DeitiesReading("unknown", cards, f.trouble)
    for i, r in enumerate(mat.deities):
        got = f.cells.get(i, [])
        if len(got) > 1:
            return DeitiesReading("unknown", cards, Say("two codes in one deity's cell"))
        if got:
            continue
        inner = Rect(
            r.x + DEITY_INSET_MM,
            r.y + DEITY_INSET_MM,
            r.w - 2 * DEITY_INSET_MM,
            r.h - 2 * DEITY_INSET_MM,
        )
        if not bare.strip_is_bare(inner):
            return DeitiesReading(
                "unknown", cards, Say("something lies in a deity's cell but no code was read")
            )
    return DeitiesReading("read", cards)
