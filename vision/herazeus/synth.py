"""A seeded generator of synthetic photographs of the kit: the mat with cards on it, or a few
cards held under a phone, with the truth of what lies where.

It renders the kit's own stickers (QR version 1, level Q through the ``qrcode`` package, as
printed; back and corner markers through ``cv2.aruco.generateImageMarker``) onto card
rectangles on a textured mat, then photographs the scene: perspective (a camera not straight
above), rotation, uneven light, glare, blur, sensor noise, JPEG, and hands over the table.

Everything random comes from the ``seed`` given; the same seed gives the same image. This is
test and benchmark equipment: the recognition code never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from printables.herazeus.kit import BACK_MARKER_MM as PRINT_BACK_MARKER_MM
from printables.herazeus.kit import DECKS, DEFAULT_CODE_MM, QUIET_MODULES, Kit
from printables.herazeus.mat import standard_mat
from printables.herazeus.payload import BACK_MARKER_IDS, Deck, face_payload, new_kit_secret
from printables.herazeus.sheets import DECK_RGB, GREY, cell_name, side_name
from vision.herazeus.kit import CardRef, VisionKit, as_vision_kit
from vision.scenery import GLARE_HIDES as GLARE_HIDES
from vision.scenery import WASHED_GRID as WASHED_GRID
from vision.scenery import WASHED_SHARE as WASHED_SHARE
from vision.scenery import Scene as Scene
from vision.scenery import SceneOptions as SceneOptions
from vision.scenery import _barrel as _barrel
from vision.scenery import _degrade as _degrade
from vision.scenery import _hand_mask as _hand_mask
from vision.scenery import _photograph as _photograph
from vision.scenery import _texture as _texture
from vision.scenery import _visible as _visible
from vision.scenery import marker_image as marker_image
from vision.scenery import qr_matrix as scenery_qr

Image = NDArray[Any]

CARD_MM = (59.0, 92.0)  # a Kosmos two-player card
QR_MM = DEFAULT_CODE_MM  # the printed symbol (21 x 21 modules), quiet zone not included
QR_BORDER = QUIET_MODULES  # modules of quiet zone around the symbol
QR_TOTAL_MM = QR_MM * (21 + 2 * QR_BORDER) / 21
BACK_MARKER_MM = PRINT_BACK_MARKER_MM
_ARUCO = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)


def qr_matrix(payload: str) -> NDArray[Any]:
    """The QR symbol of a face payload as the kit prints it: version 1, level Q, a 2-module
    quiet zone; 0 = dark, 255 = light. Raises qrcode's DataOverflowError if it does not fit."""
    return scenery_qr(payload, QR_BORDER)


# The hard sets (issue 14): at least as hard as the held-out photos the issue describes.
# Each set has its own seeds, so a figure names the frames it was measured on.
HARD_TABLE_SEEDS = {"1080p": 14_000, "4k": 15_000, "12mp": 16_000}
HARD_PHONE_SEEDS = {"1080p": 17_000, "12mp": 18_000}
FOREIGN_PHONE_SEEDS = {"1080p": 19_000, "12mp": 20_000}


def hard_table_options(resolution: str) -> SceneOptions:
    """An overhead table frame at ``resolution`` ("1080p", "4k", "12mp") as a real table gives
    it: tilt up to about 18 degrees, barrel distortion, lamp fall-off, join errors of the
    assembled mat, draw piles beside it, a hand in 30% of frames (often holding a card), plain
    beige and glossy sleeves (glare), blur 0.3-1 px, noise, JPEG 70-92."""
    size = {"1080p": (1920, 1080), "4k": (3840, 2160), "12mp": (4000, 3000)}[resolution]
    return SceneOptions(
        width=size[0],
        height=size[1],
        tilt=0.16,
        rotation=8.0,
        fill=0.8,
        blur=1.0,
        noise=5.0,
        jpeg=(70, 92),
        light=0.3,
        glare=0.4,
        hands=0,  # drawn per frame: a hand in 30% of frames (see hard_table_scene)
        render_px_per_mm=5.0 if resolution == "1080p" else 9.0,
        held=0.6,
        sleeves=0.06,
        paper=0.85,  # the kit's printed mat, mostly; now and then a cloth mat
        exposure=0.88,
        falloff=0.35,
        barrel=0.06,
        join=1.5,
        piles=True,
    )


def hard_phone_options(resolution: str) -> SceneOptions:
    """A phone photo of one card or a fan (perspective, blur up to about half a module, noise,
    uneven light, glare, JPEG 70-92) at "1080p" or "12mp"."""
    size = {"1080p": (1920, 1080), "12mp": (4000, 3000)}[resolution]
    return SceneOptions(
        width=size[0],
        height=size[1],
        tilt=0.12,
        rotation=30.0,
        fill=0.8,
        blur=2.0 if resolution == "12mp" else 1.0,
        noise=6.0,
        jpeg=(70, 92),
        light=0.45,
        glare=0.3,
        render_px_per_mm=12.0 if resolution == "12mp" else 6.0,
    )


def demo_kit(kit_id: str = "K7QX2", secret: str = "5e" * 16, pattern: bool = True) -> VisionKit:
    """A kit over the provisional deck lists (one sticker per physical card), with a fixed id
    and secret so that images made from it stay valid; its mat with the bare-mat pattern, or
    (``pattern=False``) as kits printed it before issue 38."""
    kit = Kit.create(kit_id=kit_id, secret=secret, now=datetime(2025, 1, 1, tzinfo=UTC))
    if not pattern:
        kit = replace(kit, mat=standard_mat(pattern=False))
    return as_vision_kit(kit)


def foreign_payload(rng: np.random.Generator) -> str:
    """A well-formed face code of another kit."""
    return face_payload("ZZZZ2", new_kit_secret(), "hera", int(rng.integers(1, 40)))


# ---- rendering in mat coordinates -------------------------------------------------------


def _paste(dst: Image, src: Image, x: int, y: int) -> None:
    h, w = src.shape[:2]
    dst[y : y + h, x : x + w] = src if src.ndim == 3 else src[..., None]


def _card_face(
    rng: np.random.Generator, payload: str, name: str, serial: int, ppm: float, left: bool = False
) -> Image:
    """A card face (art, name, strength) with the face sticker in its bottom-right corner (its
    bottom-left with ``left``)."""
    w, h = round(CARD_MM[0] * ppm), round(CARD_MM[1] * ppm)
    base = tuple(int(v) for v in rng.integers(60, 230, 3))
    card = _texture(rng, h, w, base)  # type: ignore[arg-type]
    for _ in range(6):  # art
        c = tuple(int(v) for v in rng.integers(0, 255, 3))
        centre = (int(rng.integers(0, w)), int(rng.integers(0, h // 2)))
        cv2.circle(card, centre, int(rng.integers(w // 10, w // 3)), c, -1)
    cv2.rectangle(card, (0, 0), (w - 1, h - 1), (30, 30, 30), max(1, round(ppm)))
    cv2.putText(
        card,
        name,
        (round(3 * ppm), round(10 * ppm)),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.09 * ppm,
        (20, 20, 20),
        max(1, round(ppm / 3)),
    )
    cv2.putText(
        card,
        str(int(rng.integers(0, 10))),
        (round(3 * ppm), round(88 * ppm)),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.2 * ppm,
        (20, 20, 20),
        max(1, round(ppm / 2)),
    )
    # the sticker: white label, the QR, the serial beside it
    sw, sh = round((QR_TOTAL_MM + 2) * ppm), round((QR_TOTAL_MM + 7) * ppm)
    sticker = np.full((sh, sw, 3), 245, np.uint8)
    qr_px = round(QR_TOTAL_MM * ppm)
    q = cv2.resize(qr_matrix(payload), (qr_px, qr_px), interpolation=cv2.INTER_NEAREST)
    _paste(sticker, cv2.cvtColor(q, cv2.COLOR_GRAY2BGR), round(ppm), round(ppm))
    cv2.putText(
        sticker,
        f"{name[:8]} {serial:02d}",
        (round(ppm), sh - round(1.5 * ppm)),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.045 * ppm,
        (0, 0, 0),
        1,
    )
    _paste(
        card, sticker, round(2 * ppm) if left else w - sw - round(2 * ppm), h - sh - round(2 * ppm)
    )
    return card


def _card_back(rng: np.random.Generator, deck: Deck, ppm: float) -> Image:
    """A sleeve back: the deck's pattern and its back marker in the middle, on a white field."""
    w, h = round(CARD_MM[0] * ppm), round(CARD_MM[1] * ppm)
    base = (150, 60, 40) if deck == "hera" else (40, 70, 150)
    card = _texture(rng, h, w, base)
    m_px = round(BACK_MARKER_MM * ppm)
    pad = round(3 * ppm)
    field_ = np.full((m_px + 2 * pad, m_px + 2 * pad, 3), 245, np.uint8)
    _paste(
        field_,
        cv2.cvtColor(marker_image(BACK_MARKER_IDS[deck], m_px), cv2.COLOR_GRAY2BGR),
        pad,
        pad,
    )
    _paste(card, field_, (w - field_.shape[1]) // 2, (h - field_.shape[0]) // 2)
    cv2.rectangle(card, (0, 0), (w - 1, h - 1), (30, 30, 30), max(1, round(ppm)))
    return card


def _quad(x: float, y: float, w: float, h: float) -> NDArray[Any]:
    return np.array([(x, y), (x + w, y), (x + w, y + h), (x, y + h)], np.float32)


def _join_shows(out: Image, at: int, gap: int, line: int, span: slice) -> None:
    """A horizontal join at row ``at`` of ``out``, over the columns ``span``, the later sheet
    ``gap`` px off its mark: the margin of the sheet it overlaps shows (white paper and the
    printed join line, grey, ``line`` px), and its cut edge throws a thin shadow either way."""
    if gap:
        out[at : at + gap, span] = 245
        out[at : at + line, span] = 60
    edge = slice(at + gap, at + gap + line)
    out[edge, span] = (out[edge, span] * 0.8).astype(np.uint8)


def _join_errors(
    mat: Image,
    rng: np.random.Generator,
    ppm: float,
    join: float,
    seams: tuple[tuple[float, ...], tuple[float, ...]],
) -> tuple[Image, Any]:
    """The mat as assembled from the sheets the kit prints it on (joined at ``seams``: the x
    of the vertical joins, the y of the horizontal ones, mm), each sheet but the first shifted
    by up to ``join`` mm (the kit lays each sheet's cut edge on a printed line of the sheet
    before it). Returns the image and the shift (mm) at a mat point (mm)."""
    H, W = mat.shape[:2]
    xs = [0, *(round(x * ppm) for x in seams[0]), W]
    ys = [0, *(round(y * ppm) for y in seams[1]), H]
    sheets = [(r, c) for r in range(len(ys) - 1) for c in range(len(xs) - 1)]
    shifts = {
        rc: (float(rng.uniform(-join, join)), float(rng.uniform(-join, join))) for rc in sheets
    }
    shifts[sheets[0]] = (0.0, 0.0)
    out = mat.copy()
    for r, c in sheets:
        y0, y1, x0, x1 = ys[r], ys[r + 1], xs[c], xs[c + 1]
        dx, dy = shifts[r, c]
        m = np.array([[1, 0, dx * ppm], [0, 1, dy * ppm]], np.float32)
        part = mat[y0:y1, x0:x1]
        out[y0:y1, x0:x1] = cv2.warpAffine(
            part, m, (x1 - x0, y1 - y0), borderMode=cv2.BORDER_REPLICATE
        )
    line = max(1, round(0.3 * ppm))
    for r in range(1, len(ys) - 1):
        for c in range(len(xs) - 1):
            gap = round(max(0.0, shifts[r, c][1]) * ppm)
            _join_shows(out, ys[r], gap, line, slice(xs[c], xs[c + 1]))
    down = out.transpose(1, 0, 2)  # a vertical join is a horizontal one of the transpose
    for c in range(1, len(xs) - 1):
        for r in range(len(ys) - 1):
            gap = round(max(0.0, shifts[r, c][0]) * ppm)
            _join_shows(down, xs[c], gap, line, slice(ys[r], ys[r + 1]))

    def shift_at(x: float, y: float) -> tuple[float, float]:
        r = int(np.searchsorted(ys, y * ppm, side="right")) - 1
        c = int(np.searchsorted(xs, x * ppm, side="right")) - 1
        return shifts[min(r, len(ys) - 2), min(c, len(xs) - 2)]

    return out, shift_at


def _sleeve_over(card: Image, rng: np.random.Generator, ppm: float) -> Image:
    """A plain beige sleeve with folds lying over ``card`` (an empty sleeve, or a sleeve's
    plain side): the card's face, code included, does not show through."""
    h, w = card.shape[:2]
    base = np.array([168, 196, 214], np.float32) + rng.uniform(-10, 10, 3).astype(np.float32)
    shade: Image = np.zeros((h, w), np.float32)
    for _ in range(int(rng.integers(2, 5))):  # folds: soft ridges across the sleeve
        p0 = (int(rng.integers(0, w)), 0)
        p1 = (int(rng.integers(0, w)), h - 1)
        cv2.line(shade, p0, p1, float(rng.uniform(-22, 22)), max(2, round(2 * ppm)))
    shade = cv2.GaussianBlur(shade, (0, 0), max(1.0, 1.5 * ppm))
    sleeve = np.clip(base[None, None, :] + shade[..., None], 0, 255)
    out: Image = sleeve.astype(np.uint8)  # opaque: the card does not show through
    return out


# What the kit's mat prints besides its markers (printables.herazeus.sheets._draw_mat), as the
# synthetic
# mats show it: outlines in the deck's colour, each cell's name at its centre (7 pt grey), the
# centre band's column numbers (14 pt bold) and dashed middle line, each side's name up both
# long margins (11 pt bold). On a dark cloth mat, in light grey. Width of a character, mm:
_PRINT_CHAR_MM = {7: 1.08, 11: 1.86, 14: 2.75}
_DECK_BGR = {deck: rgb[::-1] for deck, rgb in DECK_RGB.items()}


def _print_text(
    img: Image, text: str, centre: tuple[float, float], pt: int, colour: Any, ppm: float, turn: int
) -> None:
    """``text`` printed at ``pt`` points centred on ``centre`` (mm), turned ``turn`` quarter
    turns anticlockwise, blended into ``img`` (anti-aliased, as a printer and lens leave it)."""
    bold = pt > 7
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 4.0, 8 if bold else 4)
    ink = np.zeros((th + base + 8, tw + 8), np.uint8)
    cv2.putText(ink, text, (4, th + 4), cv2.FONT_HERSHEY_SIMPLEX, 4.0, 255, 8 if bold else 4)
    k = len(text) * _PRINT_CHAR_MM[pt] * ppm / tw
    small = np.rot90(cv2.resize(ink, None, fx=k, fy=k, interpolation=cv2.INTER_AREA), turn)
    h, w = small.shape
    x0, y0 = round(centre[0] * ppm - w / 2), round(centre[1] * ppm - h / 2)
    xa, ya = max(0, x0), max(0, y0)
    xb, yb = min(img.shape[1], x0 + w), min(img.shape[0], y0 + h)
    if xb <= xa or yb <= ya:
        return
    a = small[ya - y0 : yb - y0, xa - x0 : xb - x0, None].astype(np.float32) / 255
    roi = img[ya:yb, xa:xb].astype(np.float32)
    img[ya:yb, xa:xb] = (roi * (1 - a) + np.asarray(colour, np.float32) * a).astype(np.uint8)


def _coverage(start: float, size: float, ppm: float) -> tuple[int, NDArray[Any]]:
    """The share of each pixel an interval ``[start, start + size)`` mm covers, at ``ppm``:
    its first pixel and the shares (a printed edge between pixels is grey, as a lens sees it)."""
    a, b = start * ppm, (start + size) * ppm
    i0 = int(np.floor(a))
    edges = np.arange(i0, int(np.ceil(b)) + 1, dtype=np.float64)
    cover = np.clip(np.minimum(edges[1:], b) - np.maximum(edges[:-1], a), 0.0, 1.0)
    return i0, cover.astype(np.float32)


def _print_pattern(mat: Image, geo: Any, ppm: float, paper: bool) -> None:
    """The bare-mat pattern the kit prints in every cell (``geo.pattern``, squares at
    :meth:`~printables.herazeus.mat.MatGeometry.pattern_dots`), anti-aliased: on paper a grey
    that reflects ``pattern.grey`` of the paper's light; on a cloth mat (its print light on
    dark) a light grey mixed in by the same share. Nothing random: a frame's other draws are
    as they were without it."""
    pattern = geo.pattern
    if pattern is None:
        return
    ink = np.zeros(mat.shape[:2], np.float32)
    for key in geo.cells:
        for x, y, w, h in geo.pattern_dots(key):
            x0, cx = _coverage(x, w, ppm)
            y0, cy = _coverage(y, h, ppm)
            ink[y0 : y0 + len(cy), x0 : x0 + len(cx)] += cy[:, None] * cx[None, :]
    depth = (1.0 - pattern.grey) * np.minimum(ink, 1.0)[..., None]
    f = mat.astype(np.float32)
    f = f * (1.0 - depth) if paper else f + depth * (215.0 - f)
    mat[:] = np.clip(f, 0, 255).astype(np.uint8)


def _print_marks(mat: Image, geo: Any, ppm: float, paper: bool) -> None:
    """The kit mat's printing on ``mat`` (px at ``ppm``): see :data:`_PRINT_CHAR_MM`, and the
    bare-mat pattern (:func:`_print_pattern`)."""
    _print_pattern(mat, geo, ppm, paper)
    grey, black = (GREY, (0, 0, 0)) if paper else ((190, 190, 190), (215, 215, 215))
    thick = max(1, round(ppm / 2))
    for (side, col, row), (x, y, w, h) in geo.cells.items():
        cv2.rectangle(
            mat,
            (round(x * ppm), round(y * ppm)),
            (round((x + w) * ppm), round((y + h) * ppm)),
            _DECK_BGR[side] if paper else (200, 200, 200),
            thick,
        )
        name = cell_name(side, col, row)
        _print_text(mat, name, (x + w / 2, y + h / 2), 7, grey, ppm, 2 if side == "zeus" else 0)
    band = geo.centre_band
    if band.h > 0:
        mid = band.y + band.h / 2
        x = band.x
        while x < band.x + band.w:
            x1 = min(x + 2.0, band.x + band.w)
            p0, p1 = (round(x * ppm), round(mid * ppm)), (round(x1 * ppm), round(mid * ppm))
            cv2.line(mat, p0, p1, black, max(1, round(0.3 * ppm)))
            x += 3.5
        for (side, col, row), (x, _, w, _) in geo.cells.items():
            if side == "hera" and row == 1:
                for who, at, turn in (("hera", 0.72, 0), ("zeus", 0.28, 2)):
                    colour = _DECK_BGR[who] if paper else grey
                    _print_text(
                        mat, str(col), (x + w / 2, band.y + at * band.h), 14, colour, ppm, turn
                    )
    turns: tuple[tuple[Deck, int], ...] = (("hera", 1), ("zeus", 3))
    for side, turn in turns:
        for at in geo.side_name_centres(side):
            colour = _DECK_BGR[side] if paper else grey
            _print_text(mat, side_name(side), at, 11, colour, ppm, turn)


def render_mat(
    kit: VisionKit,
    layout: dict[tuple[Deck, int, int], dict[str, Any]],
    rng: np.random.Generator,
    ppm: float,
    join: float = 0.0,
    paper_chance: float = 0.5,
) -> tuple[Image, dict[tuple[Deck, int, int], NDArray[Any]]]:
    """The mat seen straight from above at ``ppm`` px/mm with the cards of ``layout`` on it
    (``join``: the sheets' join errors, mm). Returns the image and, per occupied cell, the quad
    (mat px) of its code or back marker."""
    geo = kit.mat
    W, H = round(geo.width * ppm), round(geo.height * ppm)
    paper = rng.random() < paper_chance  # printed on white paper, or a dark cloth mat
    base = (228, 230, 232) if paper else tuple(int(v) for v in rng.integers(40, 120, 3))
    mat = _texture(rng, H, W, base)  # type: ignore[arg-type]
    _print_marks(mat, geo, ppm, paper)
    for mid, (mx, my) in geo.markers.items():
        s = round(geo.marker_size * ppm)
        pad = round(3 * ppm)
        cv2.rectangle(
            mat,
            (round(mx * ppm) - pad, round(my * ppm) - pad),
            (round(mx * ppm) + s + pad, round(my * ppm) + s + pad),
            (245, 245, 245),
            -1,
        )
        _paste(
            mat,
            cv2.cvtColor(marker_image(mid, s), cv2.COLOR_GRAY2BGR),
            round(mx * ppm),
            round(my * ppm),
        )
    shift_at: Any = lambda x, y: (0.0, 0.0)  # noqa: E731
    if join > 0:
        mat, shift_at = _join_errors(mat, rng, ppm, join, kit.seams)
    quads: dict[tuple[Deck, int, int], NDArray[Any]] = {}
    for key, item in layout.items():
        side = key[0]
        x, y, w, h = geo.cells[key]
        sx, sy = shift_at(x + w / 2, y + h / 2)  # the cell as printed on its sheet
        cx = x + sx + (w - CARD_MM[0]) / 2 + float(rng.uniform(-1.5, 1.5))
        cy = y + sy + (h - CARD_MM[1]) / 2 + float(rng.uniform(-1.5, 1.5))
        if item["state"] == "down":
            img = _card_back(rng, item["deck"], ppm)
            m = BACK_MARKER_MM
            local = _quad((CARD_MM[0] - m) / 2, (CARD_MM[1] - m) / 2, m, m)
        else:
            img = _card_face(
                rng, item["payload"], item.get("name", "Foreign"), int(item.get("serial", 0)), ppm
            )
            quiet = QR_BORDER * QR_MM / 21
            q0 = CARD_MM[0] - (QR_TOTAL_MM + 2) - 2 + 1 + quiet
            q1 = CARD_MM[1] - (QR_TOTAL_MM + 7) - 2 + 1 + quiet
            local = _quad(q0, q1, QR_MM, QR_MM)
        local = local * ppm
        if side == "zeus":  # a card faces its owner: Zeus's are upside down for Hera
            img = cv2.rotate(img, cv2.ROTATE_180)
            local = np.array([img.shape[1], img.shape[0]], np.float32) - local
        if item.get("sleeve"):
            img = _sleeve_over(img, rng, ppm)
        ox, oy = round(cx * ppm), round(cy * ppm)
        hh, ww = img.shape[:2]
        mat[oy : oy + hh, ox : ox + ww] = img
        quads[key] = local + np.array([ox, oy], np.float32)
    return mat, quads


# ---- the camera ---------------------------------------------------------------------------


def random_layout(
    kit: VisionKit, rng: np.random.Generator, foreign: int = 0
) -> dict[tuple[Deck, int, int], dict[str, Any]]:
    """A plausible table: per column a few cards front to back, some face up; now and then a
    card of the other deck (Sirens) face down or up; ``foreign`` codes of another kit."""
    by_deck: dict[Deck, list[tuple[str, CardRef]]] = {"hera": [], "zeus": []}
    for p, c in kit.cards.items():
        by_deck[c.deck].append((p, c))
    layout: dict[tuple[Deck, int, int], dict[str, Any]] = {}
    used: set[str] = set()
    for side in DECKS:
        for col in range(1, 4):
            for row in range(1, int(rng.integers(0, 5)) + 1):
                deck: Deck = side if rng.random() > 0.1 else ("zeus" if side == "hera" else "hera")
                if rng.random() < 0.45:
                    layout[(side, col, row)] = {"state": "down", "deck": deck}
                    continue
                pool = [pc for pc in by_deck[deck] if pc[0] not in used]
                p, c = pool[int(rng.integers(0, len(pool)))]
                used.add(p)
                layout[(side, col, row)] = {"state": "up", "payload": p, **c.to_json()}
    free = [k for k in kit.mat.cells if k not in layout]
    for i in range(min(foreign, len(free))):
        key = free[int(rng.integers(0, len(free)))]
        free.remove(key)
        layout[key] = {
            "state": "up",
            "payload": foreign_payload(rng),
            "name": f"Alien{i}",
            "serial": 1,
            "foreign": True,
        }
    return layout


def _held_card(
    kit: VisionKit,
    rng: np.random.Generator,
    ppm: float,
    shape: tuple[int, int],
    centre: tuple[float, float],
    taken: set[str],
    hold: dict[str, Any] | None = None,
) -> tuple[Image, NDArray[Any], dict[str, Any]]:
    """A card held a few centimetres above the mat near ``centre`` (mat px), as the camera sees
    it through the mat's homography: bigger than a card lying there (nearer the lens), turned,
    tilted (foreshortened) and off any cell's axes. Returns the mat-sized image, its mask and
    what it is (``{"payload"}`` face up, ``{"deck"}`` a back); ``hold`` chooses it."""
    if hold is None:
        if rng.random() < 0.5:
            free = [p for p in kit.cards if p not in taken]
            hold = {"payload": free[int(rng.integers(0, len(free)))]}
        else:
            hold = {"deck": "hera" if rng.random() < 0.5 else "zeus"}
    if "payload" in hold:
        c = kit.cards[hold["payload"]]
        img = _card_face(rng, hold["payload"], c.name, c.serial, ppm)
    else:
        img = _card_back(rng, hold["deck"], ppm)
    what = dict(hold)
    h, w = img.shape[:2]
    src = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    scale = float(rng.uniform(1.06, 1.25))  # 4-15 cm above the mat under a lens at ~80 cm
    tilt = np.cos(np.deg2rad(rng.uniform(8, 45)))  # turned about one axis: foreshortened
    keystone = float(rng.uniform(0.85, 0.97))  # its near edge wider than its far edge
    local = (src - src.mean(axis=0)) * scale
    local[:, 1] *= tilt
    local[:2, 0] *= keystone
    ang = np.deg2rad(rng.uniform(8, 80) * (1 if rng.random() < 0.5 else -1))
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]], np.float32)
    dst = local @ rot.T + np.array(centre, np.float32)
    hm = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    out = cv2.warpPerspective(img, hm, (shape[1], shape[0]))
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), hm, (shape[1], shape[0]))
    return out, mask, what


def _piles(
    rng: np.random.Generator, mat: Image, ppm: float, margin: int
) -> tuple[Image, tuple[int, int]]:
    """The mat on the table with both draw piles beside its short sides (stacks of backs,
    their markers showing). Returns the canvas and the mat's offset in it."""
    H, W = mat.shape[:2]
    canvas = _texture(rng, H + 2 * margin, W + 2 * margin, (70, 110, 150))
    canvas[margin : margin + H, margin : margin + W] = mat
    for deck, x0 in (("hera", 0), ("zeus", margin + W)):
        back = _card_back(rng, deck, ppm)  # type: ignore[arg-type]
        bh, bw = back.shape[:2]
        for k in range(3):  # a stack: each card a little off the one below
            ang = float(rng.uniform(-8, 8))
            rm = cv2.getRotationMatrix2D((bw / 2, bh / 2), ang, 1.0)
            card = cv2.warpAffine(back, rm, (bw, bh), borderMode=cv2.BORDER_REPLICATE)
            x = x0 + max(0, (margin - bw) // 2) + k * 2
            y = margin + (H - bh) // 2 + int(rng.integers(-20, 20)) - k * 2
            ww = min(bw, canvas.shape[1] - x)
            canvas[y : y + bh, x : x + ww] = card[:, :ww]
    return canvas, (margin, margin)


def hard_table_scene(kit: VisionKit, resolution: str, i: int) -> Scene:
    """Frame ``i`` of the hard overhead set at ``resolution`` (seeded by
    :data:`HARD_TABLE_SEEDS`): a hand over the table in 30% of frames."""
    seed = HARD_TABLE_SEEDS[resolution] + i
    o = hard_table_options(resolution)
    hands = 1 if np.random.default_rng(seed + 7_919).random() < 0.3 else 0
    return table_scene(kit, seed, replace(o, hands=hands), foreign=0)


LIVE_TABLE_SEEDS = {"1080p": 24_000, "4k": 25_000}
FAN_PHONE_SEEDS = {"1080p": 26_000, "12mp": 27_000}
LIVE_HANDS = 0.5  # share of a live sequence's frames with a hand over the table


def live_table_scene(kit: VisionKit, resolution: str, table: int, frame: int) -> Scene:
    """Frame ``frame`` of a fixed camera over table ``table`` (seeded by
    :data:`LIVE_TABLE_SEEDS`), with the hard options: players at work, a hand over the table
    in half the frames (often holding a card), each frame its own noise and JPEG."""
    seed = LIVE_TABLE_SEEDS[resolution] + table
    o = hard_table_options(resolution)
    hands = 1 if np.random.default_rng([seed, frame, 7_919]).random() < LIVE_HANDS else 0
    return table_scene(kit, seed, replace(o, hands=hands), foreign=0, frame=frame)


def hard_phone_scene(kit: VisionKit, resolution: str, i: int) -> Scene:
    """Photo ``i`` of the hard phone set at ``resolution`` (seeded by
    :data:`HARD_PHONE_SEEDS`): one card in a quarter of the photos, else a fan of 3-6, held at
    a distance that leaves the codes 2.5-8 px a module, blurred up to half a module, shaken."""
    seed = HARD_PHONE_SEEDS[resolution] + i
    r = np.random.default_rng(seed + 7_919)
    cards = 1 if r.random() < 0.25 else int(r.integers(3, 7))
    return card_scene(kit, seed, _held_phone(resolution, cards, r), cards=cards)


def foreign_phone_scene(kit: VisionKit, resolution: str, i: int) -> Scene:
    """Photo ``i`` of the foreign phone set (seeded by :data:`FOREIGN_PHONE_SEEDS`): as the
    hard set, but 1-3 of the kit's cards beside 1-3 cards of another kit, whose codes no
    reader may take for one of ours."""
    seed = FOREIGN_PHONE_SEEDS[resolution] + i
    r = np.random.default_rng(seed + 7_919)
    cards, foreign = int(r.integers(1, 4)), int(r.integers(1, 4))
    o = _held_phone(resolution, cards + foreign, r)
    return card_scene(kit, seed, o, cards=cards, foreign=foreign)


def _held_phone(resolution: str, cards: int, r: np.random.Generator) -> SceneOptions:
    """The hard phone options for a fan of ``cards``, held at a distance (drawn from ``r``)
    that leaves the codes 2.5-8 px a module, blurred up to half a module, shaken."""
    o = hard_phone_options(resolution)
    span_mm = CARD_MM[0] * cards * 1.35 + 30  # the scene's width (card_scene)
    module_px = float(r.uniform(2.5, 8.0))  # what the distance leaves a module
    fill = min(0.95, module_px / (QR_MM / 21) * span_mm / o.width)
    return replace(o, fill=fill, blur=0.5 * module_px, motion=0.3 * module_px)


def table_scene(
    kit: VisionKit,
    seed: int,
    options: SceneOptions | None = None,
    foreign: int = 0,
    frame: int | None = None,
) -> Scene:
    """A photo of the mat with a random layout. The truth maps ``"side/col/row"`` to the cell's
    content and how much of its code or marker stays visible (after hands), and records
    ``expect``: what a reader must report (``up``/``down``/``empty``/``unknown``, or ``any`` of
    the truth and unknown when a code is partly covered).

    ``frame``: one frame of a fixed camera over that table. Every frame of a seed shows the
    same layout, mat, camera pose, lens and lamp; each has its own hands (and held cards),
    motion blur, noise and JPEG. (Without it, the one photo of the seed, as before.)"""
    o = options or SceneOptions()
    rng = np.random.default_rng(seed)
    # what changes from one frame to the next; the one generator for a single photo
    moment = rng if frame is None else np.random.default_rng([seed, frame])
    layout = random_layout(kit, rng, foreign)
    if o.sleeves > 0:
        for item in layout.values():
            if item["state"] == "up" and rng.random() < o.sleeves:
                item["sleeve"] = True
    ppm = o.render_px_per_mm
    mat, quads = render_mat(kit, layout, rng, ppm, o.join, o.paper)
    hand: Image = np.zeros(mat.shape[:2], np.uint8)
    covered: Image = np.zeros(mat.shape[:2], np.uint8)  # hands and held cards
    held: list[dict[str, Any]] = []
    cells = list(kit.mat.cells)
    for _ in range(o.hands):
        key = cells[int(moment.integers(0, len(cells)))]
        x, y, w, h = kit.mat.cells[key]
        at = ((x + w * 0.6) * ppm, (y + h * 0.7) * ppm)
        if o.held > 0 and moment.random() < o.held:  # the hand holds a card above the mat
            taken = {str(i.get("payload")) for i in layout.values()}
            off = moment.uniform(-25, 25, 2) * ppm
            img, mask, what = _held_card(
                kit, moment, ppm, mat.shape[:2], (at[0] + off[0], at[1] - 30 * ppm + off[1]), taken
            )
            mat = np.where(mask[..., None] > 0, img, mat)
            covered |= mask
            held.append(what)
        hand |= _hand_mask(moment, (hand.shape[0], hand.shape[1]), at, 65 * ppm)
    covered |= hand
    if o.hands:
        skin = np.array([120, 150, 205], np.float32)
        shade = _texture(moment, mat.shape[0], mat.shape[1], (0, 0, 0)).astype(np.float32)[..., :1]
        colour = np.clip(skin + shade * 0.5, 0, 255).astype(np.uint8)
        mat = np.where(hand[..., None] > 0, colour, mat)
    geo = kit.mat
    corners = (
        np.array(
            [(0, 0), (geo.width, 0), (geo.width, geo.height), (0, geo.height)],
            np.float32,
        )
        * ppm
    )
    offset = np.zeros(2, np.float32)
    if o.piles:
        mat, (mx, my) = _piles(rng, mat, ppm, round(75 * ppm))
        offset = np.array([mx, my], np.float32)
        corners = corners + offset
    photo, Hm = _photograph(mat, rng, o, corners)
    photo = _barrel(photo, float(rng.uniform(0, o.barrel)) if o.barrel > 0 else 0.0)
    # glare is probed at each code or back marker, and at the centre of each empty cell; and
    # on a grid over each cell (how much of it glare lifts past white)
    keys = list(geo.iter_cells())
    spots = [
        quads[k].mean(axis=0) if k in quads else _quad(*geo.cells[k]).mean(axis=0) * ppm
        for k in keys
    ]
    steps = (np.arange(WASHED_GRID) + 0.5) / WASHED_GRID
    for k in keys:
        x, y, w, h = geo.cells[k]
        spots += [((x + w * i) * ppm, (y + h * j) * ppm) for i in steps for j in steps]
    on_mat = np.array(spots, np.float64).reshape(-1, 1, 2) + offset
    probes = cv2.perspectiveTransform(on_mat, Hm).reshape(-1, 2)
    photo, glare_at, lit_at = _degrade(photo, rng, o, probes, moment)
    n = len(keys)
    glare = dict(zip(keys, glare_at[:n], strict=True))
    # the share of each cell that glare lifts past white
    lifted = (np.add(glare_at, lit_at)[n:] >= 255).reshape(n, WASHED_GRID**2)
    past_white = dict(zip(keys, lifted.mean(axis=1), strict=True))
    truth: dict[str, Any] = {"kind": "table", "seed": seed, "kit_id": kit.kit_id, "cells": {}}
    if held:
        truth["held"] = held
    for key in geo.iter_cells():
        side, col, row = key
        x, y, w, h = geo.cells[key]
        cell_vis = _visible(covered, _quad(x, y, w, h) * ppm)
        item = dict(layout.get(key, {"state": "empty"}))
        vis = _visible(covered, quads[key]) if key in quads else cell_vis
        if item.get("sleeve"):
            vis = 0.0  # the sleeve hides the code: a card lies there, unread
        item["visible"] = round(vis, 3)
        if glare.get(key, 0.0) > 1.0:
            item["glare"] = round(glare[key])
        if item["state"] == "empty":
            # a covered empty cell may read unknown, and so may one glare washed out (a glare
            # that hides a code hides bare mat as well: the reader never calls it empty), or
            # that lifts nearly all of it past white (a white mat needs less glare for that)
            washed = glare.get(key, 0.0) > GLARE_HIDES or (
                glare.get(key, 0.0) > 1.0 and past_white[key] >= WASHED_SHARE
            )
            expect = "empty" if cell_vis >= 0.999 and not washed else "any"
        elif item.get("foreign"):
            expect = "unknown"
        else:
            expect = item["state"] if vis >= 0.999 else ("unknown" if vis < 0.6 else "any")
            if expect != "unknown" and glare.get(key, 0.0) > GLARE_HIDES:
                expect = "any"  # washed out: reading it is a bonus, unknown is right
        item["expect"] = expect
        truth["cells"][cell_key((side, col, row))] = item
    return Scene(photo, truth)


def card_scene(
    kit: VisionKit, seed: int, options: SceneOptions | None = None, cards: int = 3, foreign: int = 0
) -> Scene:
    """A phone photo of ``cards`` face-up cards (a loose fan on a table) and ``foreign``
    cards of another kit. Truth: the payloads shown and the foreign ones."""
    o = options or SceneOptions(tilt=0.08, rotation=30.0, fill=0.8)
    rng = np.random.default_rng(seed)
    ppm = o.render_px_per_mm
    n = cards + foreign
    W, H = round((CARD_MM[0] * n * 1.35 + 30) * ppm), round((CARD_MM[1] + 60) * ppm)
    canvas = _texture(rng, H, W, (90, 120, 140))
    payloads = list(kit.cards)
    chosen = [payloads[int(i)] for i in rng.choice(len(payloads), cards, replace=False)]
    shown: list[dict[str, Any]] = []
    sym_canvas: list[NDArray[Any]] = []
    items = [(p, kit.cards[p], False) for p in chosen] + [
        (foreign_payload(rng), CardRef("hera", "Alien", 1), True) for _ in range(foreign)
    ]
    for i, (p, c, alien) in enumerate(items):
        face = _card_face(rng, p, c.name, c.serial, ppm)
        ang = float(rng.uniform(-12, 12))
        hh, ww = face.shape[:2]
        big: Image = np.zeros((H, W, 3), np.uint8)
        m: Image = np.zeros((H, W), np.uint8)
        ox = round((20 + CARD_MM[0] * 1.35 * i) * ppm)
        oy = round(30 * ppm + rng.uniform(-10, 10) * ppm)
        oy = max(0, min(H - hh, oy))
        big[oy : oy + hh, ox : ox + ww] = face
        m[oy : oy + hh, ox : ox + ww] = 255
        rm = cv2.getRotationMatrix2D((ox + ww / 2, oy + hh / 2), ang, 1.0)
        big = cv2.warpAffine(big, rm, (W, H))
        m = cv2.warpAffine(m, rm, (W, H), flags=cv2.INTER_NEAREST)
        canvas = np.where(m[..., None] > 0, big, canvas)
        # the symbol's corners on the canvas (the sticker sits as _card_face pastes it)
        sw, sh = round((QR_TOTAL_MM + 2) * ppm), round((QR_TOTAL_MM + 7) * ppm)
        q0 = (ww - sw - round(2 * ppm) + round(ppm), hh - sh - round(2 * ppm) + round(ppm))
        pad = QR_BORDER * round(QR_TOTAL_MM * ppm) / (21 + 2 * QR_BORDER)
        a, b = q0[0] + ox + pad, q0[1] + oy + pad
        z = round(QR_TOTAL_MM * ppm) - 2 * pad
        sym = np.array([(a, b), (a + z, b), (a + z, b + z), (a, b + z)], np.float64)
        sym_canvas.append(np.hstack([sym, np.ones((4, 1))]) @ rm.T)
        shown.append({"payload": p, "foreign": alien, **({} if alien else c.to_json())})
    corners = np.array([(0, 0), (W, 0), (W, H), (0, H)], np.float32)
    frame, hm = _photograph(canvas, rng, o, corners)
    quads = [cv2.perspectiveTransform(q[None].astype(np.float32), hm)[0] for q in sym_canvas]
    probes = np.array([q.mean(axis=0) for q in quads], np.float32).reshape(-1, 2)
    frame, glare_at, _ = _degrade(frame, rng, o, probes)
    for item, quad, glare in zip(shown, quads, glare_at, strict=True):
        side = float(np.mean([np.linalg.norm(quad[i] - quad[(i + 1) % 4]) for i in range(4)]))
        item["corners"] = [[round(float(x), 1), round(float(y), 1)] for x, y in quad]
        item["module_px"] = round(side / 21, 2)
        item["glare"] = round(glare, 1)
        item["washed_out"] = glare > GLARE_HIDES
    return Scene(frame, {"kind": "cards", "seed": seed, "kit_id": kit.kit_id, "cards": shown})


@dataclass
class TableScore:
    """How a table snapshot compares with a scene's truth. ``wrong`` lists every cell read as
    something it is not (a card, a deck, or empty where a card lies): what a referee must never
    report. ``read``/``readable`` count the face-up codes and backs a reader must report."""

    up_read: int = 0
    up_readable: int = 0
    backs_read: int = 0
    backs_readable: int = 0
    empty_read: int = 0
    empty_readable: int = 0
    wrong: list[str] = field(default_factory=list)

    def add(self, other: TableScore) -> None:
        self.up_read += other.up_read
        self.up_readable += other.up_readable
        self.backs_read += other.backs_read
        self.backs_readable += other.backs_readable
        self.empty_read += other.empty_read
        self.empty_readable += other.empty_readable
        self.wrong.extend(other.wrong)


def cell_key(cell: tuple[str, int, int]) -> str:
    """A cell's key in a scene's truth and in :func:`score_table`: ``"side/col/row"``."""
    side, col, row = cell
    return f"{side}/{col}/{row}"


def score_table(cells: dict[str, dict[str, Any]], truth: dict[str, Any]) -> TableScore:
    """Scores snapshot cells (``"side/col/row"`` -> ``{"state", "payload"?, "deck"?}``, as
    :meth:`vision.herazeus.table.Snapshot.to_json` gives them per cell) against ``truth``."""
    out = TableScore()
    for key, c in truth["cells"].items():
        got = cells[key]
        state = got["state"]
        if c["expect"] == "up":
            out.up_readable += 1
            out.up_read += state == "up" and got.get("payload") == c["payload"]
        elif c["expect"] == "down":
            out.backs_readable += 1
            out.backs_read += state == "down" and got.get("deck") == c["deck"]
        elif c["expect"] == "empty":
            out.empty_readable += 1
            out.empty_read += state == "empty"
        seed = truth.get("seed")
        if state == "up" and (c["state"] != "up" or got.get("payload") != c.get("payload")):
            out.wrong.append(f"seed {seed} {key}: read {got.get('payload')}, truth {c}")
        if state == "down" and (c["state"] != "down" or got.get("deck") != c.get("deck")):
            out.wrong.append(f"seed {seed} {key}: read a {got.get('deck')} back, truth {c}")
        if state == "empty" and c["state"] != "empty":
            out.wrong.append(f"seed {seed} {key}: read empty, truth {c}")
    return out


def fan_phone_scene(kit: VisionKit, resolution: str, i: int) -> Scene:
    """Photo ``i`` of the overlapping fans (issue 38; seeded by :data:`FAN_PHONE_SEEDS`): 3-6
    cards, each laid over the last and turned a little from it, as a hand fans them, the
    sticker in the bottom corner the next card leaves bare (the kit says a bottom corner), so
    the next card's edge, its shadow and its art lie a few modules from the code, now and then
    over its quiet zone or its label; held as :func:`hard_phone_scene` is. Truth as
    :func:`card_scene`'s, and each code's ``covered``: the share of its symbol under the cards
    above (a code with any is not counted as readable: ``expect`` False)."""
    seed = FAN_PHONE_SEEDS[resolution] + i
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    o = hard_phone_options(resolution)
    ppm = o.render_px_per_mm
    step = float(rng.uniform(0.44, 0.7))  # of a card's width between neighbours
    spread = float(rng.uniform(0.0, 8.0))  # degrees between neighbours
    rightwards = bool(rng.random() < 0.5)  # the next card lies to the right (sticker left)
    cw, ch = CARD_MM
    span_mm = cw * (1 + step * (n - 1)) + 40
    W, H = round(span_mm * ppm), round((ch + 60) * ppm)
    canvas = _texture(rng, H, W, (90, 120, 140))
    payloads = list(kit.cards)
    chosen = [payloads[int(k)] for k in rng.choice(len(payloads), n, replace=False)]
    covers: list[NDArray[Any]] = []  # each card's mask on the canvas
    syms: list[NDArray[Any]] = []
    shown: list[dict[str, Any]] = []
    for k, p in enumerate(chosen):
        c = kit.cards[p]
        face = _card_face(rng, p, c.name, c.serial, ppm, left=rightwards)
        hh, ww = face.shape[:2]
        slot = k if rightwards else n - 1 - k
        ox = round((20 + cw * step * slot) * ppm)
        oy = round((30 + rng.uniform(-4, 4)) * ppm)
        ang = (slot - (n - 1) / 2) * -spread + float(rng.uniform(-2, 2))
        big: Image = np.zeros((H, W, 3), np.uint8)
        m: Image = np.zeros((H, W), np.uint8)
        big[oy : oy + hh, ox : ox + ww] = face
        m[oy : oy + hh, ox : ox + ww] = 255
        # turned about a point below the card, as a hand holds a fan
        rm = cv2.getRotationMatrix2D((ox + ww / 2, oy + hh * 1.4), ang, 1.0)
        big = cv2.warpAffine(big, rm, (W, H))
        m = cv2.warpAffine(m, rm, (W, H), flags=cv2.INTER_NEAREST)
        # the card's shadow on what lies under it, a few mm to one side
        soft: Image = cv2.GaussianBlur(m.astype(np.float32) / 255.0, (0, 0), 1.5 * ppm)
        shift = np.array([[1, 0, (1.5 if rightwards else -1.5) * ppm], [0, 1, ppm]], np.float32)
        shade = cv2.warpAffine(soft, shift, (W, H))
        canvas = (canvas * (1 - 0.35 * shade[..., None])).astype(np.uint8)
        canvas = np.where(m[..., None] > 0, big, canvas)
        sw, sh = round((QR_TOTAL_MM + 2) * ppm), round((QR_TOTAL_MM + 7) * ppm)
        x0 = round(2 * ppm) if rightwards else ww - sw - round(2 * ppm)
        q0 = (x0 + round(ppm), hh - sh - round(2 * ppm) + round(ppm))
        pad = QR_BORDER * round(QR_TOTAL_MM * ppm) / (21 + 2 * QR_BORDER)
        a, b = q0[0] + ox + pad, q0[1] + oy + pad
        z = round(QR_TOTAL_MM * ppm) - 2 * pad
        sym = np.array([(a, b), (a + z, b), (a + z, b + z), (a, b + z)], np.float64)
        syms.append(np.hstack([sym, np.ones((4, 1))]) @ rm.T)
        covers.append(m)
        shown.append({"payload": p, "foreign": False, **c.to_json()})
    for k, item in enumerate(shown):
        above = np.zeros((H, W), np.uint8)
        for m in covers[k + 1 :]:
            above |= m
        item["covered"] = round(1.0 - _visible(above, syms[k].astype(np.float32)), 3)
    corners = np.array([(0, 0), (W, 0), (W, H), (0, H)], np.float32)
    module_px = float(rng.uniform(2.5, 8.0))
    fill = min(0.95, module_px / (QR_MM / 21) * span_mm / o.width)
    o = replace(o, fill=fill, blur=0.5 * module_px, motion=0.3 * module_px)
    frame, hm = _photograph(canvas, rng, o, corners)
    quads = [cv2.perspectiveTransform(q[None].astype(np.float32), hm)[0] for q in syms]
    probes = np.array([q.mean(axis=0) for q in quads], np.float32).reshape(-1, 2)
    frame, glare_at, _ = _degrade(frame, rng, o, probes)
    for item, quad, glare in zip(shown, quads, glare_at, strict=True):
        side = float(np.mean([np.linalg.norm(quad[j] - quad[(j + 1) % 4]) for j in range(4)]))
        item["corners"] = [[round(float(x), 1), round(float(y), 1)] for x, y in quad]
        item["module_px"] = round(side / 21, 2)
        item["glare"] = round(glare, 1)
        item["washed_out"] = glare > GLARE_HIDES
        item["expect"] = item["covered"] == 0
    return Scene(frame, {"kind": "fan", "seed": seed, "kit_id": kit.kit_id, "cards": shown})
