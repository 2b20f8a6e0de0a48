"""The held-out family (issue 38): a second generator of photographs of the kit, written apart
from :mod:`vision.herazeus.synth` (its own camera, light, sleeve and table models, its own card
art and its own seeds), so that the reader can be measured on images it was never tuned on.

What is printed comes from what the kit prints: :func:`printed` writes the kit's PDFs
(``printables``) and rasterises them with pypdfium2 (in the ``test`` extra, imported only
here and only when a scene is made), so a change to the printed mat or stickers reaches these
frames with no change here. Cards are this module's own art; each face carries the kit's face
sticker in a bottom corner, as the kit's instructions say, and each back the deck's marker
sticker, centred, as the kit prints it.

The world is 3-D (:mod:`vision.herazeus.studio_render`): the table, the mat, cards (bowed a
little), draw piles, hands as chains of balls holding cards above the mat or a fan in front
of a phone, a lamp (a point or a disc, with fall-off and a colour temperature) and a camera
(a pinhole with OpenCV's k1, k2, p1, p2 distortion, defocus by depth, motion blur, a Bayer
sensor with shot and read noise, white balance off, sharpening and JPEG).

Scenes carry the truth in :mod:`vision.herazeus.synth`'s format, so
:func:`vision.herazeus.synth.score_table` and the phone scores apply:

- :func:`phone_scene`: ``{"kind": "cards", "cards": [...visible codes...], "hidden": [...]}``.
  A code is listed in ``cards`` only when its symbol and quiet zone are wholly in view (no
  card, finger or frame edge over any of it), with its four corners (the symbol's, in the
  photograph's pixels, in the code's own order: top-left, top-right, bottom-right,
  bottom-left), ``module_px``, ``glare`` and ``washed_out``. Codes partly or wholly covered are
  in ``hidden`` with their visible share: a reader may read a partly covered one (not wrong),
  and need not.
- :func:`overhead_scene`: ``{"kind": "table", "cells": {"side/col/row": {...}}}`` with each
  cell's content, ``visible`` (the share of its code, back marker, or, for a bare cell, of the
  whole cell that is in view), ``glare`` and ``expect``: what a reader must report (``up``,
  ``down``, ``empty``), may report (``any``: the truth or unknown) or must not claim
  (``unknown``: a card under a plain opaque sleeve, a cell mostly covered).

**Washed out**, physically: the grey levels that the lamp's mirrored light (and a matte
sleeve's veil) adds to dark print, through the camera's exposure and tone curve
(:func:`vision.herazeus.studio_render.added_light`). A point is washed where that is at least
:data:`WASH_LEVELS`; a code, back marker or bare cell is washed out when at least
:data:`WASHED_SHARE` of it is. Then a reader may read it and may say unknown (``any``).

Deterministic per seed. Test and benchmark equipment: the reader never imports it.
"""

from __future__ import annotations

import math
import tempfile
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from printables.herazeus.kit import DECKS, Kit
from printables.herazeus.mat import CARD_MM
from printables.herazeus.payload import Deck, face_payload
from printables.herazeus.sheets import (
    PAGE_MARGIN,
    TRIM,
    back_layout,
    back_sticker_size,
    face_layout,
    face_placements,
    mat_tiling,
    write_sheets,
)
from vision.herazeus.kit import VisionKit, as_vision_kit
from vision.herazeus.studio_render import (
    SRGB_TO_LINEAR,
    Camera,
    Frame,
    Lamp,
    Light,
    Material,
    Sensor,
    Sphere,
    Surface,
    draw_sphere,
    draw_surface,
    expose,
    kelvin_rgb,
    look_at,
    new_frame,
    to_srgb,
    unit,
)
from vision.herazeus.synth import Scene, cell_key

Image = NDArray[Any]
Vec = NDArray[np.float64]

# Fresh seeds, far from synth's (14_000-25_000): one range per set
HELDOUT_PHONE_SEEDS = {"1080p": 900_000, "12mp": 910_000}
HELDOUT_TABLE_SEEDS = {"1080p": 920_000, "4k": 930_000, "12mp": 940_000}
SENSORS = {"1080p": (1920, 1080), "4k": (3840, 2160), "12mp": (4000, 3000)}

WASH_LEVELS = 64.0  # grey levels added to dark print: black modules lifted a quarter of the range
WASHED_SHARE = 0.04  # of a code (half a finder pattern), a back marker or a bare cell
SLEEVE_RIM = 1.25  # mm a sleeve reaches past the card on each side (61.5 x 94.5 mm)
CARD_Z = 0.35  # mm: a sleeved card's thickness on the mat
FOREIGN_KIT = ("ZZZQ7", "0f" * 16)  # another kit's id and secret (its stickers print the same)


# -- what the kit prints ----------------------------------------------------------------------


class Printed:
    """A kit's PDFs (``printables.herazeus.sheets.write_sheets``), rasterised on demand at the
    pixels per mm asked. Rasters are sRGB as printed on ideal paper (white 255)."""

    def __init__(self, kit: Kit) -> None:
        import pypdfium2  # type: ignore[import-untyped]  # the test extra: only here

        self.kit = kit
        with tempfile.TemporaryDirectory() as d:
            write_sheets(kit, Path(d))
            self._docs = {
                name: pypdfium2.PdfDocument(Path(d, name).read_bytes())
                for name in ("faces.pdf", "backs.pdf", "mat.pdf")
            }
        self._places = {p.payload: p for p in face_placements(kit)}
        self._cache: dict[tuple[str, str, float], Image] = {}

    def _render(self, doc: str, page: int, ppm: float, box: tuple[float, ...] | None) -> Image:
        """Page ``page`` of ``doc`` at ``ppm``; ``box`` (x, y, w, h mm) crops it."""
        pg = self._docs[doc][page]
        pw, ph = pg.get_size()  # points
        pt = 72 / 25.4
        crop = (0.0, 0.0, 0.0, 0.0)
        if box is not None:
            x, y, w, h = box
            crop = (x * pt, ph - (y + h) * pt, pw - (x + w) * pt, y * pt)
        img: Image = pg.render(scale=ppm / pt, crop=crop).to_numpy()
        return np.ascontiguousarray(img[..., :3])

    def mat_sheets(self, ppm: float) -> list[tuple[Image, float, float]]:
        """Each sheet's window of the mat (image, mat x, mat y of its top-left)."""
        key = ("mat", "", ppm)
        if key not in self._cache:
            t = mat_tiling(self.kit.mat, self.kit.options.paper)
            sheets = []
            for n, (_, _, mx, my) in enumerate(t.windows()):
                w = min(t.window_w, self.kit.mat.width - mx)
                h = min(t.window_h, self.kit.mat.height - my)
                img = self._render("mat.pdf", n, ppm, (PAGE_MARGIN, PAGE_MARGIN, w, h))
                sheets.append((img, mx, my))
            self._cache[key] = sheets  # type: ignore[assignment]
        out: list[tuple[Image, float, float]] = self._cache[key]  # type: ignore[assignment]
        return out

    def face_sticker(self, payload: str, ppm: float) -> tuple[Image, tuple[float, float, float]]:
        """The face sticker of ``payload`` (as cut along its marks) and its code's top-left and
        side within it, mm."""
        p = self._places[payload]
        lay = face_layout(self.kit)
        quiet = self.kit.options.quiet_modules * p.size / 21
        sx, sy = p.x - TRIM - quiet, p.y - TRIM - quiet
        key = ("face", payload, ppm)
        if key not in self._cache:
            self._cache[key] = self._render(
                "faces.pdf", p.page, ppm, (sx, sy, lay.sticker_w, lay.sticker_h)
            )
        return self._cache[key], (p.x - sx, p.y - sy, p.size)

    def back_sticker(self, deck: Deck, ppm: float) -> tuple[Image, tuple[float, float, float]]:
        """The back sticker of ``deck`` and its marker's top-left and side within it, mm."""
        lay = back_layout(self.kit)
        per_deck = [
            math.ceil(sum(e.copies for e in self.kit.decks[d]) / lay.per_page) for d in DECKS
        ]
        page = 0 if deck == DECKS[0] else per_deck[0]
        side = back_sticker_size(self.kit.options.back_marker_mm)
        sx, sy = lay.origin(0)
        key = ("back", deck, ppm)
        if key not in self._cache:
            self._cache[key] = self._render("backs.pdf", page, ppm, (sx, sy, side, side))
        m = self.kit.options.back_marker_mm
        return self._cache[key], ((side - m) / 2, (side - m) / 2, m)


_PRINTED: dict[str, Printed] = {}


def printed(kit: Kit) -> Printed:
    """The kit's rasterised PDFs, kept for the process (one kit.json, one entry)."""
    key = kit.dumps()
    if key not in _PRINTED:
        _PRINTED[key] = Printed(kit)
    return _PRINTED[key]


@lru_cache(maxsize=1)
def foreign_kit() -> Kit:
    """Another kit, printed the same way: its codes are well formed but not this kit's."""
    from datetime import UTC, datetime

    return Kit.create(
        kit_id=FOREIGN_KIT[0], secret=FOREIGN_KIT[1], now=datetime(2025, 6, 1, tzinfo=UTC)
    )


def _ink(img: Image, white: float, black: float, tint: Vec) -> Image:
    """Printed on real paper: ink from ideal sRGB to reflectance between ``black`` and
    ``white`` (the paper's), tinted by the paper; back to sRGB-encoded uint8."""
    lin = SRGB_TO_LINEAR.astype(np.float64)
    lut = np.empty((256, 3), np.float64)
    for c in range(3):
        lut[:, c] = black + (white * tint[c] - black) * lin
    codes = np.clip(to_srgb(lut.astype(np.float32)) * 255 + 0.5, 0, 255).astype(np.uint8)
    out = np.empty_like(img)
    for c in range(3):
        out[..., c] = codes[img[..., c], c]
    return out


# -- this module's own card art -----------------------------------------------------------------

_PALETTES = {
    # deck -> colours of its illustrations (BGR, sRGB)
    "hera": [(40, 30, 120), (60, 110, 200), (120, 170, 230), (70, 60, 60), (160, 90, 170)],
    "zeus": [(120, 70, 30), (180, 140, 60), (60, 170, 210), (90, 90, 60), (200, 200, 150)],
}


def _smooth_field(rng: np.random.Generator, h: int, w: int, waves: int) -> Image:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    f = np.zeros((h, w), np.float32)
    for _ in range(waves):
        k = rng.uniform(0.5, 4.0) * 2 * math.pi / max(h, w)
        a = rng.uniform(0, math.pi)
        f += np.sin(k * (xx * math.cos(a) + yy * math.sin(a)) + rng.uniform(0, 6.3)).astype(
            np.float32
        ) / rng.uniform(1, 3)
    f -= f.min()
    out: Image = f / max(1e-6, float(f.max()))
    return out


@lru_cache(maxsize=256)
def card_face_art(name: str, deck: str, ppm: float) -> Image:
    """A card's face as this module draws it (not the real edition's art): a dark frame, a
    title banner with the name, strength medallions in the top corners, an illustration and
    a text box in the lower third. The same card looks the same in every scene."""
    rng = np.random.default_rng(zlib.crc32(f"{deck}/{name}".encode()))
    w, h = round(CARD_MM[0] * ppm), round(CARD_MM[1] * ppm)
    pal = np.array(_PALETTES[deck], np.float32)
    order = rng.permutation(len(pal))
    field_ = _smooth_field(rng, h, w, 7)
    idx = field_ * (len(pal) - 1)
    lo = np.floor(idx).astype(int)
    hi = np.minimum(lo + 1, len(pal) - 1)
    t = (idx - lo)[..., None]
    img = np.clip(pal[order][lo] * (1 - t) + pal[order][hi] * t, 0, 255).astype(np.uint8)

    def mm(v: float) -> int:
        return round(v * ppm)

    # figures of the illustration
    for _ in range(int(rng.integers(3, 8))):
        c = (int(rng.integers(0, w)), int(rng.integers(mm(12), mm(55))))
        ax = (int(rng.integers(mm(3), mm(18))), int(rng.integers(mm(3), mm(22))))
        col = tuple(
            float(min(255.0, v))
            for v in pal[int(rng.integers(0, len(pal)))] * rng.uniform(0.5, 1.2)
        )
        cv2.ellipse(img, c, ax, float(rng.uniform(0, 180)), 0, 360, col, -1, cv2.LINE_AA)
        cv2.ellipse(img, c, ax, 0, 0, 360, (20, 20, 20), max(1, mm(0.3)), cv2.LINE_AA)
    parch = np.round(np.array((170, 215, 232), np.float32) * rng.uniform(0.9, 1.0))
    ink = (40, 40, 50)
    # the text box
    cv2.rectangle(img, (mm(4), mm(60)), (w - mm(4), h - mm(4)), parch.tolist(), -1)
    fh = 0.028 * ppm
    for line in range(6):
        y = mm(66 + line * 4.2)
        x = mm(6)
        while x < w - mm(10):
            word = "".join(chr(int(rng.integers(97, 123))) for _ in range(int(rng.integers(2, 8))))
            cv2.putText(
                img, word, (x, y), cv2.FONT_HERSHEY_SIMPLEX, fh, ink, max(1, mm(0.2)), cv2.LINE_AA
            )
            x += int(len(word) * 0.55 * fh * 22) + mm(2)
    # the title banner and the medallions
    cv2.rectangle(img, (mm(9), mm(3)), (w - mm(9), mm(10)), parch.tolist(), -1)
    scale = 0.05 * ppm
    (tw, _), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_TRIPLEX, scale, max(1, mm(0.25)))
    scale *= min(1.0, (w - mm(22)) / max(1, tw))
    (tw, _), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_TRIPLEX, scale, max(1, mm(0.25)))
    cv2.putText(
        img,
        name,
        ((w - tw) // 2, mm(8.6)),
        cv2.FONT_HERSHEY_TRIPLEX,
        scale,
        ink,
        max(1, mm(0.25)),
        cv2.LINE_AA,
    )
    for cx in (mm(5.5), w - mm(5.5)):
        cv2.circle(img, (cx, mm(6.5)), mm(4.5), (30, 150, 200), -1, cv2.LINE_AA)
        cv2.circle(img, (cx, mm(6.5)), mm(4.5), (20, 20, 20), max(1, mm(0.3)), cv2.LINE_AA)
        digit = str(int(rng.integers(0, 10)))
        cv2.putText(
            img,
            digit,
            (cx - mm(1.8), mm(8.5)),
            cv2.FONT_HERSHEY_DUPLEX,
            0.06 * ppm,
            ink,
            max(1, mm(0.35)),
            cv2.LINE_AA,
        )
    # the frame
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (25, 25, 30), mm(2.2))
    out: Image = np.clip(img, 0, 255).astype(np.uint8)
    return out


@lru_cache(maxsize=8)
def card_back_art(ppm: float) -> Image:
    """Both decks' printed card back, as this module draws it: a dark ground with a gold
    lattice and a medallion (the deck is told by its sticker, not its print)."""
    w, h = round(CARD_MM[0] * ppm), round(CARD_MM[1] * ppm)
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = (70, 40, 25)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) / ppm
    lattice = (np.abs(np.sin((xx + yy) * 0.9)) < 0.12) | (np.abs(np.sin((xx - yy) * 0.9)) < 0.12)
    img[lattice] = (60, 150, 190)
    cx, cy = w // 2, h // 2
    for r, col in ((22, (50, 120, 170)), (19, (40, 30, 20)), (15, (60, 160, 210))):
        cv2.circle(img, (cx, cy), round(r * ppm), col, -1, cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (30, 110, 150), round(2.0 * ppm))
    out: Image = img.astype(np.uint8)
    return out


def _rounded_alpha(w: int, h: int, r: float) -> Image:
    a = np.zeros((h, w), np.uint8)
    ri = max(1, round(r))
    cv2.rectangle(a, (ri, 0), (w - 1 - ri, h - 1), 255, -1)
    cv2.rectangle(a, (0, ri), (w - 1, h - 1 - ri), 255, -1)
    for cx, cy in ((ri, ri), (w - 1 - ri, ri), (ri, h - 1 - ri), (w - 1 - ri, h - 1 - ri)):
        cv2.circle(a, (cx, cy), ri, 255, -1, cv2.LINE_AA)
    return a


# -- cards, sleeves, stickers ------------------------------------------------------------------


@dataclass
class Sleeving:
    """A deck's sleeves as a player chose them: ``kind`` none, clear glossy ("glossy"),
    clear matte ("matte") or a clear front with a coloured back ("coloured"); ``colour`` of a
    coloured back (BGR); ``sticker_on_sleeve``: the face sticker stuck on the sleeve's front
    (as the kit says) rather than on the card under it; ``glossy_labels``: label paper."""

    kind: str
    colour: tuple[int, int, int]
    sticker_on_sleeve: bool
    glossy_labels: bool


SLEEVE_MATERIAL = {
    "none": Material(ks=0.02, shine=25.0),  # varnished card stock
    "glossy": Material(ks=0.05, shine=900.0, veil=0.005),
    "matte": Material(ks=0.035, shine=35.0, veil=0.03),
    "coloured": Material(ks=0.05, shine=700.0, veil=0.005),
    "opaque": Material(ks=0.04, shine=120.0),
}
LABEL_MATTE = Material(ks=0.008, shine=8.0)
LABEL_GLOSSY = Material(ks=0.04, shine=250.0)


def random_sleeving(rng: np.random.Generator) -> Sleeving:
    kind = str(rng.choice(["none", "glossy", "matte", "coloured"], p=[0.15, 0.45, 0.25, 0.15]))
    colours = [(40, 40, 160), (150, 60, 30), (40, 120, 40), (30, 30, 30), (200, 200, 200)]
    return Sleeving(
        kind,
        colours[int(rng.integers(0, len(colours)))],
        bool(rng.random() < 0.75),
        bool(rng.random() < 0.2),
    )


@dataclass
class CardLook:
    """A card's texture with where its code lies: ``code`` the symbol's corners in texture mm
    (top-left, top-right, bottom-right, bottom-left), ``zone`` the symbol and its quiet zone's,
    ``sticker`` the sticker's bounding rectangle (mm)."""

    albedo: Image
    alpha: Image
    materials: list[tuple[tuple[float, float, float, float] | None, Material]]
    code: Vec | None
    zone: Vec | None


def _paste_rotated(
    dst: Image, src: Image, centre_mm: tuple[float, float], angle: float, ppm: float
) -> Image:
    """Pastes ``src`` (same ppm) centred at ``centre_mm`` turned by ``angle`` degrees; returns
    the affine map (src px -> dst px)."""
    h, w = src.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2 - 0.5, h / 2 - 0.5), -angle, 1.0)
    M[0, 2] += centre_mm[0] * ppm - w / 2
    M[1, 2] += centre_mm[1] * ppm - h / 2
    H, W = dst.shape[:2]
    warped = cv2.warpAffine(src, M, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    mask = (
        cv2.warpAffine(np.full((h, w), 255, np.uint8), M, (W, H), flags=cv2.INTER_LINEAR).astype(
            np.float32
        )[..., None]
        / 255
    )
    dst[:] = (dst * (1 - mask) + warped * mask).astype(np.uint8)
    return M


def _mm_points(M: Image, pts_mm: Vec, ppm: float) -> Vec:
    """Sticker mm -> card mm through the paste's affine map (pixel centres at mm * ppm)."""
    px = pts_mm * ppm - 0.5
    out = (M[:, :2] @ px.T).T + M[:, 2]
    res: Vec = (out + 0.5) / ppm
    return res


def card_look(
    rng: np.random.Generator,
    kit: Kit,
    ppm: float,
    face_up: bool,
    deck: Deck,
    payload: str | None,
    name: str,
    sleeving: Sleeving,
    opaque: bool,
    paper: tuple[float, float, Vec],
    corner_left: bool,
    face_print: Printed | None = None,
) -> CardLook:
    """A sleeved card's texture (the sleeve reaches :data:`SLEEVE_RIM` past the card)."""
    sleeved = sleeving.kind != "none" or opaque
    rim = SLEEVE_RIM if sleeved else 0.0
    W, H = round((CARD_MM[0] + 2 * rim) * ppm), round((CARD_MM[1] + 2 * rim) * ppm)
    tex = np.zeros((H, W, 3), np.uint8)
    tex[:] = sleeving.colour if sleeving.kind == "coloured" else (235, 235, 235)
    card = (card_face_art(name, deck, ppm) if face_up else card_back_art(ppm)).copy()
    white, black, tint = paper
    code = zone = None
    sticker_rect = None
    ch, cw = card.shape[:2]
    ox, oy = (W - cw) // 2, (H - ch) // 2
    showing_back = not face_up and sleeving.kind == "coloured"
    if not showing_back:
        tex[oy : oy + ch, ox : ox + cw] = card
    if sleeving.kind == "matte" and not opaque:
        tex = np.asarray(cv2.GaussianBlur(tex, (0, 0), max(0.3, 0.15 * ppm)), np.uint8)  # frosted
    if face_up and payload is not None and not opaque:
        pr = face_print or printed(kit)
        sticker, (cx0, cy0, side) = pr.face_sticker(payload, ppm)
        sticker = _ink(sticker, white, black, tint)
        sh, sw = sticker.shape[:2]
        smm = (sw / ppm, sh / ppm)
        inset = rng.uniform(1.5, 4.0), rng.uniform(1.5, 4.0)
        left = corner_left
        cxm = rim + (inset[0] + smm[0] / 2 if left else CARD_MM[0] - inset[0] - smm[0] / 2)
        cym = rim + CARD_MM[1] - inset[1] - smm[1] / 2
        angle = float(rng.normal(0, 1.5))
        M = _paste_rotated(tex, sticker, (cxm, cym), angle, ppm)
        q = 2 * side / 21
        code = _mm_points(
            M,
            np.array([[cx0, cy0], [cx0 + side, cy0], [cx0 + side, cy0 + side], [cx0, cy0 + side]]),
            ppm,
        )
        zone = _mm_points(
            M,
            np.array(
                [
                    [cx0 - q, cy0 - q],
                    [cx0 + side + q, cy0 - q],
                    [cx0 + side + q, cy0 + side + q],
                    [cx0 - q, cy0 + side + q],
                ]
            ),
            ppm,
        )
        sticker_rect = (cxm - smm[0] / 2, cym - smm[1] / 2, cxm + smm[0] / 2, cym + smm[1] / 2)
    elif not face_up:
        sticker, (mx0, my0, side) = printed(kit).back_sticker(deck, ppm)
        sticker = _ink(sticker, white, black, tint)
        angle = float(rng.normal(0, 1.5))
        centre = (W / 2 / ppm + rng.normal(0, 0.8), H / 2 / ppm + rng.normal(0, 0.8))
        M = _paste_rotated(tex, sticker, centre, angle, ppm)
        zone = _mm_points(
            M,
            np.array([[mx0, my0], [mx0 + side, my0], [mx0 + side, my0 + side], [mx0, my0 + side]]),
            ppm,
        )
        code = zone
        smm = (sticker.shape[1] / ppm, sticker.shape[0] / ppm)
        sticker_rect = (
            centre[0] - smm[0] / 2,
            centre[1] - smm[1] / 2,
            centre[0] + smm[0] / 2,
            centre[1] + smm[1] / 2,
        )
    if opaque:
        # a plain opaque sleeve over the face: nothing of the card shows
        plain = [(30, 30, 30), (220, 220, 215), (150, 180, 200), (40, 40, 140), (120, 60, 40)]
        tex[:] = plain[int(rng.integers(0, len(plain)))]
        noise = rng.normal(0, 2.0, tex.shape[:2]).astype(np.float32)
        tex = np.clip(tex + cv2.GaussianBlur(noise, (0, 0), 2)[..., None], 0, 255).astype(np.uint8)
    alpha = _rounded_alpha(W, H, (1.0 if sleeved else 3.0) * ppm)
    if sleeved and sleeving.kind != "coloured" and not opaque:
        # the clear rim: mostly see-through film
        inner = np.zeros_like(alpha)
        inner[oy : oy + ch, ox : ox + cw] = _rounded_alpha(cw, ch, 3.0 * ppm)
        alpha = np.maximum(inner, (alpha.astype(np.float32) * 0.25).astype(np.uint8))
    base = SLEEVE_MATERIAL["opaque" if opaque else sleeving.kind]
    mats: list[tuple[tuple[float, float, float, float] | None, Material]] = [(None, base)]
    if sticker_rect is not None and (
        sleeving.kind == "none" or sleeving.sticker_on_sleeve or not face_up
    ):
        mats.append((sticker_rect, LABEL_GLOSSY if sleeving.glossy_labels else LABEL_MATTE))
    return CardLook(tex, alpha, mats, code, zone)


# -- the world ----------------------------------------------------------------------------------

Z = np.array([0.0, 0.0, 1.0])
TEXTURE_PPM = (2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0)


def texture_ppm(px_per_mm: float, most: float = 32.0) -> float:
    """A texture's pixels per mm: the first level at least 1.5 times what the camera sees."""
    for level in TEXTURE_PPM:
        if level >= 1.5 * px_per_mm or level >= most:
            return min(level, most)
    return min(TEXTURE_PPM[-1], most)


def _planar(
    albedo: Image,
    alpha: Image,
    ppm: float,
    centre: Vec,
    right: Vec,
    down: Vec,
    angle: float,
    oid: int,
    order: float,
    **kw: Any,
) -> Surface:
    """A texture centred at ``centre`` in the plane of ``right`` and ``down`` (its front faces
    ``down x right``), turned by ``angle`` radians within it."""
    c, s = math.cos(angle), math.sin(angle)
    ex = unit(c * right + s * down)
    ey = unit(-s * right + c * down)
    h, w = albedo.shape[:2]
    origin = centre - (w / ppm / 2) * ex - (h / ppm / 2) * ey
    return Surface(albedo, alpha, ppm, origin, ex, ey, oid, order, **kw)


def _table_texture(rng: np.random.Generator, w_mm: float, h_mm: float, ppm: float) -> Image:
    """A table top: wood grain, a plain cloth or a laminate, with a little grain noise."""
    w, h = max(8, round(w_mm * ppm)), max(8, round(h_mm * ppm))
    kind = rng.choice(["wood", "cloth", "laminate"], p=[0.55, 0.25, 0.2])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) / ppm

    def lowpass(cell_mm: float) -> Image:
        small = rng.normal(0, 1, (max(2, int(h / ppm / cell_mm)), max(2, int(w / ppm / cell_mm))))
        out: Image = cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        return out

    noise = lowpass(40.0)
    if kind == "wood":
        base = np.array(
            rng.choice([(60, 100, 150), (40, 70, 110), (90, 140, 180), (30, 50, 80)]), np.float32
        )
        a = rng.uniform(0, math.pi)
        t = xx * math.cos(a) + yy * math.sin(a)
        # growth rings: stripes a few mm apart, bent by slow waves
        across = -xx * math.sin(a) + yy * math.cos(a)
        rings = np.sin(across * rng.uniform(0.8, 2.0) + 2.5 * noise + 0.8 * lowpass(200.0))
        grain = 0.5 + 0.5 * np.sign(rings) * np.abs(rings) ** 0.5
        fibre = lowpass(3.0) * 0.04
        img = base * (0.8 + 0.25 * grain[..., None] + fibre[..., None])
        del t
    elif kind == "cloth":
        base = np.array(
            rng.choice([(40, 90, 30), (90, 40, 30), (50, 50, 50), (120, 110, 100)]), np.float32
        )
        img = base * (1 + 0.05 * noise[..., None])
    else:
        base = np.array(rng.choice([(200, 200, 195), (150, 160, 170), (225, 225, 230)]), np.float32)
        img = base * (1 + 0.02 * noise[..., None])
    fine = rng.normal(0, 4, (h, w, 1)).astype(np.float32)
    out: Image = np.clip(img + fine, 0, 255).astype(np.uint8)
    return out


def _mat_texture(
    rng: np.random.Generator, kit: Kit, ppm: float, paper: tuple[float, float, Vec]
) -> Image:
    """The printed mat as assembled on the table: each sheet laid a little off (up to about
    1.5 mm) and the edge of each sheet's cut margin showing as a hairline over the one above."""
    pr = printed(kit)
    mat = kit.mat
    W, H = round(mat.width * ppm), round(mat.height * ppm)
    canvas = np.full((H, W, 3), 255, np.uint8)
    for img, mx, my in pr.mat_sheets(ppm):
        dx, dy = (np.clip(rng.normal(0, 0.5, 2), -1.5, 1.5) * ppm).round().astype(int)
        x0, y0 = round(mx * ppm) + int(dx), round(my * ppm) + int(dy)
        h, w = img.shape[:2]
        sx0, sy0 = max(0, -x0), max(0, -y0)
        x1, y1 = min(W, x0 + w), min(H, y0 + h)
        canvas[max(0, y0) : y1, max(0, x0) : x1] = img[
            sy0 : sy0 + y1 - max(0, y0), sx0 : sx0 + x1 - max(0, x0)
        ]
        if my > 0 and 0 <= y0 < H:
            edge = canvas[y0 : y0 + max(1, round(0.3 * ppm))]
            canvas[y0 : y0 + edge.shape[0]] = (edge * 0.85).astype(np.uint8)
    return _ink(canvas, *paper)


def _skin(rng: np.random.Generator) -> Vec:
    tones = [(140, 172, 224), (100, 134, 198), (75, 105, 160), (50, 70, 110), (35, 45, 70)]
    bgr = np.array(tones[int(rng.integers(0, len(tones)))], np.float64) * rng.uniform(0.9, 1.1)
    out: Vec = SRGB_TO_LINEAR[np.clip(bgr, 0, 255).astype(np.uint8)].astype(np.float64)
    return out


def _chain(a: Vec, b: Vec, r0: float, r1: float, colour: Vec, out: list[Sphere], **kw: Any) -> None:
    """Balls from ``a`` to ``b`` close enough that the chain reads as one limb."""
    n = max(2, int(np.linalg.norm(b - a) / (0.12 * min(r0, r1))) + 1)
    for i, t in enumerate(np.linspace(0, 1, n)):
        casts = i % 4 == 0 or i == n - 1  # every fourth ball still overlaps for the shadow
        out.append(Sphere(a + (b - a) * t, r0 + (r1 - r0) * t, colour, casts=casts, **kw))


def make_hand(
    rng: np.random.Generator,
    palm: Vec,
    fwd: Vec,
    up: Vec,
    skin: Vec,
    sleeve: Vec | None,
    left: bool,
    oid: int,
    layer: int,
    order: float,
    elbow_back: float = 260.0,
    elbow_up: float = 100.0,
    curl: float = 0.4,
    thumb_order: float | None = None,
) -> list[Sphere]:
    """A hand as balls: forearm, palm, four fingers and a thumb (mm; ``fwd`` along the
    fingers, ``up`` out of the back of the hand). ``thumb_order``: the thumb drawn apart
    (under a held card, or in front of a fan)."""
    fwd, up = unit(fwd), unit(up)
    side = unit(np.cross(fwd, up)) * (-1 if left else 1)
    scale = rng.uniform(0.9, 1.1)
    out: list[Sphere] = []
    kw: dict[str, Any] = {"oid": oid, "layer": layer, "order": order}
    wrist = palm - fwd * 50 * scale + up * 4
    elbow = wrist - fwd * elbow_back + up * elbow_up
    if sleeve is not None:
        mid = wrist + (elbow - wrist) * rng.uniform(0.2, 0.6)
        _chain(elbow, mid, 42, 36, sleeve, out, **kw)
        _chain(mid, wrist, 33, 26, skin, out, **kw)
    else:
        _chain(elbow, wrist, 36, 26, skin, out, **kw)
    for a in (-1, 0, 1):
        for s_ in (-1, 0, 1):
            c = palm + fwd * a * 20 * scale + side * s_ * 22 * scale - up * 3 * abs(s_)
            out.append(Sphere(c, 17 * scale, skin, **kw))
    for k, (off, length) in enumerate(((-27, 62), (-9, 72), (9, 76), (27, 70))):
        knuckle = palm + fwd * 38 * scale + side * off * scale
        d = fwd
        p = knuckle
        for j, (frac, r) in enumerate(((0.45, 9.0), (0.3, 8.2), (0.25, 7.4))):
            bend = curl * (j + 1) * 0.45 + rng.normal(0, 0.05) + 0.05 * k
            d = unit(fwd * math.cos(bend) - up * math.sin(bend))
            q = p + d * length * frac * scale
            _chain(p, q, r * scale, r * 0.92 * scale, skin, out, **kw)
            p = q
    tb = palm - fwd * 12 * scale + side * -34 * scale - up * 6
    tip = tb + unit(fwd * 0.8 - side * -0.35 - up * 0.35) * 58 * scale
    tkw = dict(kw)
    if thumb_order is not None:
        tkw["order"] = thumb_order
    _chain(tb, tip, 12 * scale, 9 * scale, skin, out, **tkw)
    return out


@dataclass
class Shot:
    """Everything a photograph needs besides the objects: camera, sensor, lamp, blur."""

    cam: Camera
    sensor: Sensor
    lamp: Lamp
    blur: dict[int, tuple[float, float, float]]


def _sensor(rng: np.random.Generator, kind: str) -> Sensor:
    phone = kind.startswith("phone")
    full_well = {"phone12": 5000.0, "phone1080": 20000.0, "web1080": 9000.0, "web4k": 5000.0}[kind]
    return Sensor(
        vignette=float(rng.uniform(0.05, 0.25) if phone else rng.uniform(0.1, 0.45)),
        exposure_bias=float(np.clip(rng.normal(0, 0.3), -0.7, 0.7)),
        iso=float(math.exp(rng.uniform(math.log(50), math.log(1600))))
        if phone
        else float(rng.uniform(100, 800)),
        full_well=full_well,
        read_noise=float(rng.uniform(2, 5)),
        wb_error=(float(math.exp(rng.normal(0, 0.06))), float(math.exp(rng.normal(0, 0.06)))),
        sharpen=float(rng.uniform(0.4, 1.3) if phone else rng.uniform(0.2, 1.0)),
        sharpen_sigma=float(rng.uniform(0.8, 1.5)),
        chroma_denoise=float(rng.uniform(1, 3) if phone else rng.uniform(0, 1.5)),
        jpeg=int(rng.integers(80, 96) if phone else rng.integers(65, 91)),
    )


def _lens(rng: np.random.Generator, phone: bool) -> tuple[float, float, float, float]:
    if phone:  # corrected in the phone: little left
        k1, k2 = rng.uniform(-0.05, 0.05), rng.uniform(-0.05, 0.05)
    else:  # a webcam's wide lens: barrel
        k1, k2 = rng.uniform(-0.28, 0.02), rng.uniform(0.0, 0.12)
    p1, p2 = rng.normal(0, 0.0015, 2)
    return float(k1), float(k2), float(p1), float(p2)


def coc(cam: Camera, depth: float) -> float:
    """The defocus blur's diameter in px of a point at ``depth`` (mm) with the camera focused
    at ``cam.focus``: f_px * aperture * |1/depth - 1/focus|."""
    return float(cam.f * cam.aperture * abs(1 / max(depth, 1.0) - 1 / cam.focus))


def _lamp(rng: np.random.Generator, pos: Vec) -> Lamp:
    kind = rng.choice(["point", "shade", "panel"], p=[0.2, 0.6, 0.2])
    radius = {"point": 0.0, "shade": rng.uniform(30, 150), "panel": rng.uniform(250, 500)}[kind]
    return Lamp(
        pos=pos,
        radius=float(radius),
        power=1.0,
        kelvin=float(rng.uniform(2700, 6500)),
        facing=np.array([0.0, 0.0, -1.0]),
        ambient=float(rng.uniform(0.04, 0.3)),
        ambient_kelvin=float(rng.uniform(4000, 6500)),
    )


def _light(
    rng: np.random.Generator, lamp: Lamp, quads: list[tuple[int, Vec]], spheres: list[Sphere]
) -> Light:
    n = 1 if lamp.radius <= 0 else 16
    return Light(
        lamp,
        lamp.samples(rng, n),
        kelvin_rgb(lamp.kelvin)[::-1].copy(),  # BGR
        kelvin_rgb(lamp.ambient_kelvin)[::-1].copy(),
        quads,
        spheres,
    )


def _quad(s: Surface) -> Vec:
    w, h = s.size_mm
    out: Vec = np.array([s.origin, s.ex * w, s.ey * h])
    return out


def _render(
    shot: Shot,
    rng: np.random.Generator,
    surfaces: list[Surface],
    spheres: list[Sphere],
    clean: bool,
    step: dict[int, float],
) -> tuple[Image, Image, Image]:
    return _render_with(shot, rng, surfaces, spheres, clean, step, [])


def _render_with(
    shot: Shot,
    rng: np.random.Generator,
    surfaces: list[Surface],
    spheres: list[Sphere],
    clean: bool,
    step: dict[int, float],
    extra_quads: list[tuple[int, Vec]],
) -> tuple[Image, Image, Image]:
    """Draws everything in order, then photographs it: (BGR image, ids, glare buffer).
    ``extra_quads``: occluders that are not drawn (the phone over the cards)."""
    quads = [(s.oid, _quad(s)) for s in surfaces if s.casts] + extra_quads
    light = _light(rng, shot.lamp, quads, spheres)
    if clean:  # the geometry alone: no shadow, no glare
        light.quads, light.spheres, light.gloss = [], [], False
    fr: Frame = new_frame(shot.cam)
    items: list[tuple[float, int, Surface | Sphere]] = [
        (s.order, i, s) for i, s in enumerate(surfaces)
    ]
    depth = {id(sp): float(shot.cam.depth(sp.centre)) for sp in spheres}
    items += [
        (sp.order - depth[id(sp)] * 1e-6, len(surfaces) + i, sp) for i, sp in enumerate(spheres)
    ]
    for _, _, it in sorted(items, key=lambda t: (t[0], t[1])):
        if isinstance(it, Surface):
            draw_surface(fr, shot.cam, it, light, step.get(it.oid, step[-1]))
        else:
            draw_sphere(fr, shot.cam, it, light)
    img, _, ids, glare = expose(fr, shot.cam, shot.sensor, shot.blur, rng, clean)
    return img, ids, glare


# -- measuring the truth in the photograph ------------------------------------------------------


def _densify(quad: Vec, k: int = 6) -> Vec:
    pts = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        for t in np.linspace(0, 1, k, endpoint=False):
            pts.append(a + (b - a) * t)
    out: Vec = np.array(pts)
    return out


def region(
    cam: Camera,
    surface: Surface | None,
    quad_mm: Vec,
    ids: Image,
    glare: Image,
    oid: int,
    world: Vec | None = None,
) -> tuple[float, float, float, Vec]:
    """How a region of a surface (its corners in texture mm) shows in the photograph: the
    share of it in view (not covered, inside the frame), the 95th percentile of the added
    light on dark print there (grey levels), the share of it washed, and its corners (px)."""
    dense = _densify(quad_mm)
    if world is None:
        assert surface is not None
        pw, _ = surface.points(dense[:, 0], dense[:, 1])
        cw, _ = surface.points(quad_mm[:, 0], quad_mm[:, 1])
    else:
        pw, cw = world, world[:: len(world) // 4][:4]
    poly = cam.project(pw)
    corners = cam.project(cw)
    h, w = ids.shape
    x0, y0 = np.floor(poly.min(axis=0)).astype(int)
    x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + 1
    area = float(cv2.contourArea(poly.astype(np.float32)))
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if cx1 <= cx0 or cy1 <= cy0 or area < 1:
        return 0.0, 0.0, 0.0, corners
    mask = np.zeros((cy1 - cy0, cx1 - cx0), np.uint8)
    cv2.fillPoly(mask, [np.round(poly - [cx0, cy0]).astype(np.int32)], 1)
    inside = mask.astype(bool)
    n_in = int(inside.sum())
    good = int((ids[cy0:cy1, cx0:cx1][inside] == oid).sum())
    vis = good / n_in if n_in >= 0.98 * area else good / max(area, n_in, 1)
    g = glare[cy0:cy1, cx0:cx1][inside]
    if g.size == 0:
        return float(vis), 0.0, 0.0, corners
    return float(vis), float(np.percentile(g, 95)), float((g >= WASH_LEVELS).mean()), corners


def _expect(state: str, vis: float, washed: float) -> str:
    """What a reader must report of a region ``vis`` in view, ``washed`` washed out: the truth
    when it is wholly in view and not washed out; the truth or unknown when partly covered
    or washed out; unknown when less than 60% of it shows."""
    if vis < 0.6:
        return "unknown"
    if washed >= WASHED_SHARE or vis < 0.999:
        return "any"
    return state


# -- overhead frames of the mat in play -----------------------------------------------------------

TABLE_OID, MAT_OID, CARD_OID, PILE_OID, HELD_OID, HAND_OID, PHONE_OID = 0, 1, 10, 100, 200, 300, 900


def _frame_footprint(cam: Camera, z: float, margin: float) -> tuple[float, float, float, float]:
    """The rectangle (x0, y0, x1, y1) of the plane at height ``z`` the frame sees."""
    w, h = cam.size
    kinv = np.linalg.inv(cam.K)
    pts = []
    for u, v in ((0, 0), (w, 0), (w, h), (0, h), (w / 2, 0), (w / 2, h), (0, h / 2), (w, h / 2)):
        ray = cam.R.T @ (kinv @ np.array([u, v, 1.0]))
        t = (z - cam.pos[2]) / ray[2] if abs(ray[2]) > 1e-9 else -1
        if t <= 0:
            t = 4000 / np.linalg.norm(ray)
        pts.append(cam.pos + ray * min(t, 4000 / np.linalg.norm(ray)))
    a = np.array(pts)
    return (
        a[:, 0].min() - margin,
        a[:, 1].min() - margin,
        a[:, 0].max() + margin,
        a[:, 1].max() + margin,
    )


def _background(
    rng: np.random.Generator,
    cam: Camera,
    z: float,
    oid: int,
    layer: int,
    order: float,
    most_px: float = 16e6,
) -> Surface:
    """The table (or floor) at height ``z`` under everything the frame sees."""
    x0, y0, x1, y1 = _frame_footprint(cam, z, 80.0)
    wmm, hmm = x1 - x0, y1 - y0
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2, z])
    ppm = texture_ppm(cam.px_per_mm(centre), 4.0)
    ppm = min(ppm, math.sqrt(most_px / max(1.0, wmm * hmm)))
    tex = _table_texture(rng, wmm, hmm, ppm)
    alpha = np.full(tex.shape[:2], 255, np.uint8)
    return _planar(
        tex,
        alpha,
        ppm,
        centre,
        np.array([1.0, 0, 0]),
        np.array([0, -1.0, 0]),
        0.0,
        oid,
        order,
        materials=[(None, Material(ks=0.03, shine=40.0))],
        layer=layer,
    )


def _pile_sides(top: Surface, height: float, oid: int, order: float) -> list[Surface]:
    """The four sides of a pile under ``top``: the stacked cards' edges, light lines on dark
    (each sleeved card 0.5 mm)."""
    out = []
    w, h = top.size_mm
    ppm = 8.0
    rows = max(2, round(height * ppm))
    edge = np.full((rows, 1, 3), 70, np.uint8)
    edge[(np.arange(rows) // 2) % 2 == 0] = 200
    down = -Z
    for a, b, length in (
        (top.origin, top.ex, w),
        (top.origin + top.ex * w, top.ey, h),
        (top.origin + top.ex * w + top.ey * h, -top.ex, w),
        (top.origin + top.ey * h, -top.ey, h),
    ):
        tex = np.repeat(edge, max(2, round(length * ppm)), axis=1)
        alpha = np.full(tex.shape[:2], 255, np.uint8)
        centre = a + b * length / 2 + down * height / 2
        out.append(_planar(tex, alpha, ppm, centre, b, down, 0.0, oid, order, shadows=False))
    return out


def _paper(rng: np.random.Generator) -> tuple[float, float, Vec]:
    """Label or printer paper: white's and black ink's reflectance and the paper's tint."""
    return (
        float(rng.uniform(0.8, 0.9)),
        float(rng.uniform(0.03, 0.07)),
        np.array([rng.uniform(0.93, 1.0), rng.uniform(0.97, 1.0), 1.0]),  # BGR: a little warm
    )


def _layout(
    kit: VisionKit, rng: np.random.Generator
) -> dict[tuple[Deck, int, int], dict[str, Any]]:
    """What lies where: per column 0-4 cards front to back, about half face up, now and then
    a card of the other deck, rarely another kit's card."""
    pools: dict[Deck, list[str]] = {d: [] for d in DECKS}
    for p, c in kit.cards.items():
        pools[c.deck].append(p)
    out: dict[tuple[Deck, int, int], dict[str, Any]] = {}
    for side in DECKS:
        for col in (1, 2, 3):
            for row in range(1, int(rng.integers(0, 5)) + 1):
                deck: Deck = side if rng.random() > 0.1 else DECKS[1 - DECKS.index(side)]
                if rng.random() < 0.55:
                    pool = pools[deck]
                    p = pool.pop(int(rng.integers(0, len(pool))))
                    out[(side, col, row)] = {"state": "up", "payload": p, **kit.cards[p].to_json()}
                else:
                    out[(side, col, row)] = {"state": "down", "deck": deck}
    free = [k for k in kit.mat.cells if k not in out]
    if free and rng.random() < 0.15:
        key = free[int(rng.integers(0, len(free)))]
        fk = foreign_kit()
        serial = int(rng.integers(1, 40))
        out[key] = {
            "state": "up",
            "payload": face_payload(fk.kit_id, fk.secret, "hera", serial),
            "name": "Alien",
            "serial": serial,
            "foreign": True,
        }
    return out


def _mat_world(mat: Any) -> Any:
    def at(x: float, y: float, z: float = 0.0) -> Vec:
        return np.array([x - mat.width / 2, -(y - mat.height / 2), z])

    return at


RIGHT, DOWN = np.array([1.0, 0.0, 0.0]), np.array([0.0, -1.0, 0.0])


def _overhead_camera(
    rng: np.random.Generator, resolution: str, size: tuple[int, int], kit: Kit
) -> tuple[Camera, str]:
    w, h = size
    kind = {"1080p": "web1080", "4k": "web4k", "12mp": "phone12"}[resolution]
    phone = kind == "phone12"
    hfov = math.radians(
        {
            "web1080": rng.uniform(60, 80),
            "web4k": rng.uniform(68, 90),
            "phone12": rng.uniform(62, 72),
        }[kind]
    )
    f = (w / 2) / math.tan(hfov / 2)
    mat = kit.mat
    at = _mat_world(mat)
    corners = np.array([at(0, 0), at(mat.width, 0), at(mat.width, mat.height), at(0, mat.height)])
    tilt = math.radians(rng.uniform(0, 20))
    az = rng.uniform(0, 2 * math.pi)
    view = np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), math.cos(tilt)])
    roll = math.radians(rng.normal(0, 5)) + (math.pi if rng.random() < 0.5 else 0.0)
    up = np.array([math.cos(roll), math.sin(roll), 0.0])
    target = at(mat.width / 2 + rng.normal(0, 10), mat.height / 2 + rng.normal(0, 20))
    fill = rng.uniform(0.74, 0.92)
    f_mm = rng.uniform(4.2, 5.2) if phone else rng.uniform(2.8, 3.8)
    aperture = f_mm / (rng.uniform(1.6, 1.9) if phone else rng.uniform(2.0, 2.8))
    dist = _lens(rng, phone)
    D = mat.height / (fill * 2 * math.tan(hfov / 2))
    cam = Camera(
        target + view * D, look_at(target + view * D, target, up), f, size, dist, aperture, D
    )
    for _ in range(30):
        cam = Camera(
            target + view * D, look_at(target + view * D, target, up), f, size, dist, aperture, D
        )
        px = cam.project(corners)
        span = max(np.ptp(px[:, 0]) / w, np.ptp(px[:, 1]) / h)
        inside = bool(np.all((px > [0.02 * w, 0.02 * h]) & (px < [0.98 * w, 0.98 * h])))
        if abs(span - fill) < 0.01 and inside:
            break
        D *= span / fill if inside else 1.04
        if not inside:
            fill *= 0.98
    focus = float(np.linalg.norm(cam.pos - target)) * rng.uniform(0.92, 1.08)
    cam.focus = focus
    return cam, kind


def overhead_scene(
    kit: VisionKit | Kit,
    seed: int,
    resolution: str = "1080p",
    size: tuple[int, int] | None = None,
    clean: bool = False,
) -> Scene:
    """A frame of the mat in play from a camera above it (a webcam at 1080p or 4K, a phone on
    a stand at 12 MP), tilted up to 20 degrees: cards in cells (sleeved or not, now and then
    under a plain opaque sleeve), bare cells, draw piles beside the mat, a hand over the table
    in about a third of frames, often holding a card above the mat. ``size`` overrides the
    sensor's (small frames for tests); ``clean``: no blur, mosaic, noise or JPEG."""
    vk = as_vision_kit(kit)
    k = vk.kit
    rng = np.random.default_rng(seed)
    size = size or SENSORS[resolution]
    cam, kind = _overhead_camera(rng, resolution, size, k)
    mat = k.mat
    at = _mat_world(mat)
    layout = _layout(vk, rng)
    sleeving = {d: random_sleeving(rng) for d in DECKS}
    corner_left = {d: bool(rng.random() < 0.5) for d in DECKS}
    same_corner = {d: bool(rng.random() < 0.8) for d in DECKS}
    paper = _paper(rng)
    label = _paper(rng)
    surfaces: list[Surface] = [_background(rng, cam, 0.0, TABLE_OID, 0, 0.0)]
    mat_ppm = texture_ppm(cam.px_per_mm(at(mat.width / 2, mat.height / 2)), 8.0)
    mat_tex = _mat_texture(rng, k, mat_ppm, paper)
    laminated = rng.random() < 0.15  # a mat kept in clear plastic: glossy
    surfaces.append(
        _planar(
            mat_tex,
            np.full(mat_tex.shape[:2], 255, np.uint8),
            mat_ppm,
            at(mat.width / 2, mat.height / 2, 0.15),
            RIGHT,
            DOWN,
            0.0,
            MAT_OID,
            1.0,
            materials=[
                (
                    None,
                    Material(ks=0.05, shine=400.0) if laminated else Material(ks=0.008, shine=8.0),
                )
            ],
        )
    )
    looks: dict[tuple[Deck, int, int], tuple[Surface, CardLook]] = {}
    for i, (key, item) in enumerate(sorted(layout.items())):
        side, _, _ = key
        rect = mat.cells[key]
        deck: Deck = item.get("deck", "hera")
        opaque = item["state"] == "up" and not item.get("foreign") and rng.random() < 0.06
        if opaque:
            item["sleeve"] = True
        centre = at(
            rect.x + rect.w / 2 + np.clip(rng.normal(0, 1.2), -3, 3),
            rect.y + rect.h / 2 + np.clip(rng.normal(0, 1.2), -3, 3),
            0.15 + CARD_Z,
        )
        ppm = texture_ppm(cam.px_per_mm(centre), 16.0)
        left = corner_left[deck] if same_corner[deck] else bool(rng.random() < 0.5)
        look = card_look(
            rng,
            k,
            ppm,
            item["state"] == "up",
            deck,
            item.get("payload"),
            item.get("name", ""),
            sleeving[deck],
            opaque,
            label,
            left,
            printed(foreign_kit()) if item.get("foreign") else None,
        )
        angle = (0.0 if side == "hera" else math.pi) + math.radians(
            float(np.clip(rng.normal(0, 1.5), -4, 4))
        )
        s = _planar(
            look.albedo,
            look.alpha,
            ppm,
            centre,
            RIGHT,
            DOWN,
            angle,
            CARD_OID + i,
            10.0 + i,
            bow=float(rng.uniform(-0.3, 1.2)),
            materials=look.materials,
        )
        surfaces.append(s)
        looks[key] = (s, look)
    # the draw piles
    if rng.random() < 0.7:
        for j, deck in enumerate(DECKS):
            n = int(rng.integers(8, 31))
            x = -45.0 if rng.random() < 0.5 else mat.width + 45.0
            y = mat.height * (0.75 if deck == "hera" else 0.25) + rng.normal(0, 40)
            top = at(x, y, 0.5 * n)
            ppm = texture_ppm(cam.px_per_mm(top), 16.0)
            look = card_look(rng, k, ppm, False, deck, None, "", sleeving[deck], False, label, True)
            turn = rng.uniform(0, 2 * math.pi)
            pile = _planar(
                look.albedo,
                look.alpha,
                ppm,
                top,
                RIGHT,
                DOWN,
                turn,
                PILE_OID + j,
                50.0 + j,
                materials=look.materials,
                casts=True,
            )
            surfaces += _pile_sides(pile, 0.5 * n, PILE_OID + j, 49.0 + j)
            surfaces.append(pile)
    # hands over the table, some holding a card above the mat
    spheres: list[Sphere] = []
    held: list[dict[str, Any]] = []
    hand_speed = 0.0
    if rng.random() < 0.35:
        for j in range(2 if rng.random() < 0.25 else 1):
            player = rng.choice(["hera", "zeus", "side"], p=[0.45, 0.4, 0.15])
            cell = list(mat.cells.values())[int(rng.integers(0, len(mat.cells)))]
            over = at(
                cell.x + cell.w / 2 + rng.normal(0, 25), cell.y + cell.h / 2 + rng.normal(0, 30)
            )
            if player == "hera":
                fwd = np.array([rng.normal(0, 0.3), 1.0, 0.0])
            elif player == "zeus":
                fwd = np.array([rng.normal(0, 0.3), -1.0, 0.0])
            else:
                fwd = np.array([1.0 if over[0] > 0 else -1.0, rng.normal(0, 0.3), 0.0]) * -1
            fwd = unit(fwd)
            holding = rng.random() < 0.55
            lift = rng.uniform(45, 160) if holding else rng.uniform(35, 160)
            palm = over + np.array([0, 0, lift])
            skin = _skin(rng)
            sleeve = (
                SRGB_TO_LINEAR[rng.integers(20, 200, 3).astype(np.uint8)].astype(np.float64)
                if rng.random() < 0.7
                else None
            )
            hand = make_hand(
                rng,
                palm,
                fwd,
                Z,
                skin,
                sleeve,
                bool(rng.random() < 0.5),
                HAND_OID + j,
                1,
                300.0 + j,
                elbow_up=rng.uniform(60, 200),
                curl=rng.uniform(0.2, 0.8),
                thumb_order=240.0 + j if holding else None,
            )
            spheres += hand
            hand_speed = max(hand_speed, float(rng.uniform(0, 300)))
            if holding:
                up_card = rng.random() < 0.5
                pool = [p for p in vk.cards if p not in {v.get("payload") for v in layout.values()}]
                p = pool[int(rng.integers(0, len(pool)))]
                c = vk.cards[p]
                centre = palm + fwd * 55 - Z * 28
                ppm = texture_ppm(cam.px_per_mm(centre), 16.0)
                look = card_look(
                    rng,
                    k,
                    ppm,
                    up_card,
                    c.deck,
                    p,
                    c.name,
                    sleeving[c.deck],
                    False,
                    label,
                    corner_left[c.deck],
                )
                side_ax = unit(np.cross(fwd, Z))
                a1 = math.radians(rng.uniform(-25, 25))
                a2 = math.radians(rng.uniform(-15, 15))
                rgt = unit(side_ax * math.cos(a2) + Z * math.sin(a2))
                dwn = unit(-fwd * math.cos(a1) + Z * math.sin(a1))
                dwn = unit(dwn - rgt * (dwn @ rgt))
                s = _planar(
                    look.albedo,
                    look.alpha,
                    ppm,
                    centre,
                    rgt,
                    dwn,
                    rng.uniform(-0.4, 0.4),
                    HELD_OID + j,
                    250.0 + j,
                    layer=1,
                    materials=look.materials,
                    casts=True,
                    bow=float(rng.uniform(0, 1.5)),
                )
                w_, h_ = s.size_mm
                low = min(
                    float(s.points(np.array([u]), np.array([v]))[0][0][2])
                    for u in (0, w_)
                    for v in (0, h_)
                )
                if low < 8.0:  # keep it above the mat
                    s.origin = s.origin + Z * (8.0 - low)
                    for sp in hand:
                        sp.centre = sp.centre + Z * (8.0 - low)
                surfaces.append(s)
                held.append(
                    {
                        "state": "up" if up_card else "down",
                        "deck": c.deck,
                        **({"payload": p} if up_card else {}),
                    }
                )
    lamp = _lamp(
        rng,
        at(
            mat.width / 2 + rng.normal(0, 300),
            mat.height / 2 + rng.normal(0, 400),
            rng.uniform(600, 1500),
        ),
    )
    sensor = _sensor(rng, kind)
    t_exp = rng.uniform(1 / 120, 1 / 30)
    mat_depth = float(cam.depth(at(mat.width / 2, mat.height / 2)))
    near_depth = float(np.mean([cam.depth(sp.centre) for sp in spheres])) if spheres else mat_depth
    vib = float(rng.uniform(0, 0.6))
    blur = {
        0: (coc(cam, mat_depth), vib, float(rng.uniform(0, math.pi))),
        1: (
            coc(cam, near_depth),
            vib + hand_speed * t_exp * cam.f / near_depth,
            float(rng.uniform(0, math.pi)),
        ),
    }
    shot = Shot(cam, sensor, lamp, blur)
    step = {TABLE_OID: 25.0, MAT_OID: 4.0, -1: 3.0}
    img, ids, glare = _render(shot, rng, surfaces, spheres, clean, step)
    truth: dict[str, Any] = {
        "kind": "table",
        "seed": seed,
        "kit_id": vk.kit_id,
        "family": "heldout",
        "resolution": resolution,
        "cells": {},
    }
    if held:
        truth["held"] = held
    mat_surface = surfaces[1]
    for key in mat.iter_cells():
        item = dict(layout.get(key, {"state": "empty"}))
        if key in looks:
            s, look = looks[key]
            if item.get("sleeve") or look.zone is None:
                vis, g, washed = 0.0, 0.0, 0.0
            else:
                vis, g, washed, _ = region(cam, s, look.zone, ids, glare, s.oid)
        else:
            r = mat.cells[key]
            inset = 4.0  # a neighbour's sleeve may reach a little into a cell
            quad = np.array(
                [
                    [r.x + inset, r.y + inset],
                    [r.x + r.w - inset, r.y + inset],
                    [r.x + r.w - inset, r.y + r.h - inset],
                    [r.x + inset, r.y + r.h - inset],
                ]
            )
            vis, g, washed, _ = region(cam, mat_surface, quad, ids, glare, MAT_OID)
        item["visible"] = round(vis, 3)
        if g > 1.0:
            item["glare"] = round(g)
        item["washed"] = round(washed, 3)
        expect = _expect(item["state"], vis, washed)
        if item.get("foreign") or item.get("sleeve"):
            expect = "unknown"
        item["expect"] = expect
        truth["cells"][cell_key(key)] = item
    return Scene(img, truth)


def heldout_table_scene(kit: VisionKit | Kit, resolution: str, i: int) -> Scene:
    """Frame ``i`` of the held-out overhead set at ``resolution`` ("1080p", "4k", "12mp")."""
    return overhead_scene(kit, HELDOUT_TABLE_SEEDS[resolution] + i, resolution)


# -- phone photos of one card or a fan ------------------------------------------------------------


def phone_scene(
    kit: VisionKit | Kit,
    seed: int,
    resolution: str = "1080p",
    size: tuple[int, int] | None = None,
    cards: int | None = None,
    clean: bool = False,
) -> Scene:
    """A phone photo (landscape or portrait) of one card, lying on a table or held, or of a fan
    of 3-6 cards held in a hand (``cards`` forces the count), from 8-60 cm, tilted up to 35
    degrees, filling 30-90% of the frame. ``size`` overrides the sensor's; ``clean``: no blur,
    mosaic, noise or JPEG."""
    vk = as_vision_kit(kit)
    k = vk.kit
    rng = np.random.default_rng(seed)
    w, h = size or SENSORS[resolution]
    if rng.random() < 0.4:
        w, h = h, w  # portrait
    kind = "phone12" if resolution == "12mp" else "phone1080"
    n = cards if cards is not None else (1 if rng.random() < 0.3 else int(rng.integers(3, 7)))
    payloads = [list(vk.cards)[int(i)] for i in rng.choice(len(vk.cards), n, replace=False)]
    sleeving = random_sleeving(rng)
    corner_left = bool(rng.random() < 0.5)
    held = n > 1 or rng.random() < 0.35
    label = _paper(rng)
    # the cards in their own plane (x right, y up, z towards the camera)
    poses: list[tuple[Vec, float, float]] = []  # centre, angle (radians, counter-clockwise), z
    if n == 1:
        a = rng.normal(0, 0.2) if held else rng.uniform(0, 2 * math.pi)
        poses.append((np.zeros(3), float(a), 0.0))
    else:
        p = rng.uniform(30, 250)  # the fan's pivot below the cards' bottom edge
        spread = rng.uniform(14, 45)  # mm between neighbouring cards' bottom edges
        delta = min(0.45, spread / p)
        reveal = rng.random() < 0.7  # fanned the way that shows the codes
        sign = (-1.0 if corner_left else 1.0) * (1 if reveal else -1)
        pivot = np.array([0.0, -(p + CARD_MM[1] / 2), 0.0])
        for i in range(n):
            th = sign * delta * (i - (n - 1) / 2) + math.radians(rng.normal(0, 1.0))
            up = np.array([-math.sin(th), math.cos(th), 0.0])
            poses.append((pivot + up * (p + CARD_MM[1] / 2), float(th), 0.45 * i))
    base_z = 0.0 if held else CARD_Z
    cam_probe = None
    surfaces: list[Surface] = []
    looks: list[tuple[str, Surface, CardLook]] = []
    # textures at a resolution from a first guess of the camera's distance
    hfov = math.radians(rng.uniform(63, 75))
    f = (max(w, h) / 2) / math.tan(hfov / 2)
    fill = rng.uniform(0.3, 0.9)
    extent = (CARD_MM[1] if n == 1 else CARD_MM[1] + n * 25.0) / fill
    guess = max(80.0, f * extent / min(w, h))
    ppm = texture_ppm(f / guess, 32.0)
    for i, (payload, (centre, th, z)) in enumerate(zip(payloads, poses, strict=True)):
        c = vk.cards[payload]
        left = corner_left if rng.random() < 0.85 else not corner_left
        look = card_look(rng, k, ppm, True, c.deck, payload, c.name, sleeving, False, label, left)
        bow = float(rng.uniform(0, 2.5) if held else rng.uniform(-0.3, 1.0))
        s = _planar(
            look.albedo,
            look.alpha,
            ppm,
            centre + Z * (z + base_z),
            RIGHT,
            np.array([0.0, -1.0, 0.0]),
            -th,
            CARD_OID + i,
            10.0 + i,
            bow=bow,
            materials=look.materials,
            casts=held,
        )
        surfaces.append(s)
        looks.append((payload, s, look))
    corners = np.array(
        [
            s.points(np.array([u]), np.array([v]))[0][0]
            for s in surfaces
            for u in (0, s.size_mm[0])
            for v in (0, s.size_mm[1])
        ]
    )
    target = (corners.min(axis=0) + corners.max(axis=0)) / 2
    tilt = math.radians(rng.uniform(0, 35))
    az = rng.uniform(0, 2 * math.pi)
    view = np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), math.cos(tilt)])
    roll = rng.normal(0, 0.25) if rng.random() < 0.8 else rng.uniform(0, 2 * math.pi)
    upv = np.array([-math.sin(roll), math.cos(roll), 0.0])
    dist = _lens(rng, True)
    f_mm = rng.uniform(4.2, 5.6)
    aperture = f_mm / rng.uniform(1.5, 2.2)
    D = guess
    cam = Camera(
        target + view * D, look_at(target + view * D, target, upv), f, (w, h), dist, aperture, D
    )
    for _ in range(20):
        cam = Camera(
            target + view * D, look_at(target + view * D, target, upv), f, (w, h), dist, aperture, D
        )
        px = cam.project_ideal(corners)
        span = max(np.ptp(px[:, 0]) / w, np.ptp(px[:, 1]) / h)
        if abs(span - fill) < 0.01 or D <= 80.0:
            break
        D = max(80.0, D * span / fill)
    cam_probe = cam
    depth = float(np.linalg.norm(cam.pos - target))
    miss = rng.normal(0, 0.03) if rng.random() < 0.9 else rng.normal(0, 0.12)
    cam.focus = depth * (1 + miss)
    spheres: list[Sphere] = []
    bg_z = -rng.uniform(250, 700) if held else 0.0
    if held:
        front = surfaces[-1]
        th = poses[-1][1] if n == 1 else poses[(n - 1) // 2][1]
        fwd = np.array([-math.sin(th), math.cos(th), 0.0])
        bottom = (
            poses[(n - 1) // 2][0] - fwd * (CARD_MM[1] / 2)
            if n > 1
            else poses[0][0] - fwd * (CARD_MM[1] / 2)
        )
        palm = bottom - fwd * rng.uniform(0, 25) - Z * 14
        spheres = make_hand(
            rng,
            palm,
            fwd,
            -Z,
            _skin(rng),
            None,
            bool(rng.random() < 0.5),
            HAND_OID,
            0,
            5.0,
            elbow_back=220.0,
            elbow_up=140.0,
            curl=rng.uniform(0.05, 0.3),
            thumb_order=front.order + 1,
        )
        for sp in spheres:
            if sp.order == front.order + 1:
                sp.centre = sp.centre + Z * 16  # the thumb lies on the front card
    surfaces.insert(0, _background(rng, cam, bg_z, TABLE_OID, -1 if held else 0, 0.0, 12e6))
    ang = rng.uniform(0, 2 * math.pi)
    elev = math.radians(rng.uniform(5, 60))
    lamp_dir = np.array(
        [math.sin(elev) * math.cos(ang), math.sin(elev) * math.sin(ang), math.cos(elev)]
    )
    lamp = _lamp(rng, target + lamp_dir * rng.uniform(700, 2500))
    lamp.facing = unit(target - lamp.pos)
    # the phone itself shades the cards when the lamp is behind it
    pr_, pd_ = cam.R[0], cam.R[1]
    phone_quad = np.array([cam.pos - pr_ * 37 - pd_ * 75, pr_ * 74, pd_ * 150])
    sensor = _sensor(rng, kind)
    t_exp = rng.uniform(1 / 120, 1 / 25)
    shake = math.exp(rng.uniform(math.log(0.005), math.log(0.06)))  # rad/s
    motion = cam.f * shake * t_exp
    mang = float(rng.uniform(0, math.pi))
    blur = {
        0: (coc(cam, depth), motion, mang),
        -1: (coc(cam, float(cam.depth(target + Z * bg_z))), motion, mang),
    }
    shot = Shot(cam, sensor, lamp, blur)
    step = {TABLE_OID: 15.0, -1: max(0.7, 2.0 * 300 / max(depth, 1.0))}
    quads_extra = [(PHONE_OID, phone_quad)]
    light_rng = rng
    img, ids, glare = _render_with(shot, light_rng, surfaces, spheres, clean, step, quads_extra)
    shown: list[dict[str, Any]] = []
    hidden: list[dict[str, Any]] = []
    for payload, s, look in looks:
        assert look.zone is not None and look.code is not None
        vis, g, washed, _ = region(cam, s, look.zone, ids, glare, s.oid)
        cw, _ = s.points(look.code[:, 0], look.code[:, 1])
        quad = cam.project(cw)
        side = float(np.mean([np.linalg.norm(quad[i] - quad[(i + 1) % 4]) for i in range(4)]))
        if vis >= 0.999:
            shown.append(
                {
                    "payload": payload,
                    "foreign": False,
                    **vk.cards[payload].to_json(),
                    "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in quad],
                    "module_px": round(side / 21, 2),
                    "glare": round(g, 1),
                    "washed_out": washed >= WASHED_SHARE,
                    "visible": round(vis, 3),
                }
            )
        else:
            hidden.append({"payload": payload, "visible": round(vis, 3)})
    del cam_probe
    return Scene(
        img,
        {
            "kind": "cards",
            "seed": seed,
            "kit_id": vk.kit_id,
            "family": "heldout",
            "resolution": resolution,
            "fan": n > 1,
            "held": held,
            "cards": shown,
            "hidden": hidden,
        },
    )


def heldout_phone_scene(kit: VisionKit | Kit, resolution: str, i: int) -> Scene:
    """Photo ``i`` of the held-out phone set at ``resolution`` ("1080p", "12mp")."""
    return phone_scene(kit, HELDOUT_PHONE_SEEDS[resolution] + i, resolution)
