"""Stage: read the kit's face codes that no decoder can, by matching the pixels against every
code the kit printed (issue 14, item 2).

A decoder must read a symbol it has never seen, module by module, so it needs each module
resolved. We know every symbol that can lie on the table: the kit printed them. So where a
code stands too blurred or too small to decode, we find its square, straighten it, and ask
which of the kit's own codes explains the pixels best: the same idea as a maximum-likelihood
decoder over a small codebook. Measured on the hard phone sets (``benchmarks/vision.py
--hard``), this reads codes blurred by half a module at 1.4 px a module, where zxing-cpp and
our finder see nothing.

How, for each photo:

1. :func:`candidate_quads`: dark squares on a light label, at up to three working scales (the code,
   smoothed, is a grey square inside its white quiet zone); and, where glare clipped the photo,
   squares of the dark strokes that glare left of a code. In a table cell, last,
   :func:`lifted_quads`: squares a fixed number of grey levels darker than their surroundings
   (glare lifts a code and its label alike). Round a texture spot where nothing was read,
   :func:`spot_quads`: squares of a given size in the grey smoothed over a module.
2. :func:`straighten`: each square warped to :data:`PX` px a module, then aligned on a code's
   fixed parts (the finder patterns and timing rows, which every version-1 code shares) by
   OpenCV's ECC image alignment (``cv2.findTransformECC``, a homography). ECC pulls a square
   found a module or more off into place.
3. :meth:`Codebook.best`: the straightened square, in each of its four turns, against every
   code of the kit blurred as much as the photo (normalised correlation over the data modules
   only, a plane of light across the square taken out: glare and a lamp's fall-off light one
   side of a code more than the other), and clipped as the photo is where glare clipped it. A
   code is read when it explains the pixels well (:data:`MIN_SCORE`) and clearly better than
   any other code of the kit (:data:`MIN_MARGIN`), or less well but far better than any other
   (:data:`WIDE_SCORE`, :data:`WIDE_MARGIN`).

Never a wrong card: codes of one kit differ in about half their data modules (Reed-Solomon
spreads every change), so a foreign code, a misprint or a patch of card art correlates with
none of them, and a square a decoder read is never matched again. Measured with
``benchmarks/vision.py --codebook`` (120 photos a resolution, the hard phone set and a set
with another kit's cards beside ours; every square weighed, even where a decoder read it):
the kit's own codes matched with a score of at least 0.76 and a lead of at least 0.24;
another kit's codes scored at most 0.61, leading by 0.18 at most, and everything else 0.67,
leading by 0.24 at most; nothing not ours reached 0.7, and nothing was matched wrong.
The templates are blurred up to 3/4 of a module and no further: at a module's blur every
template looks alike, and smooth card art scored 0.78 with a lead of 0.21, just short of a
match. Codes under :data:`MIN_MODULE_PX` are not matched at all.

Pure: arrays in, :class:`~vision.decode.RawCode` values out.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

PX = 4  # px a module in a straightened code
QUIET = 2  # modules of quiet zone kept round the symbol (the kit prints 2)
SIDE = 21 + 2 * QUIET  # modules across a straightened code
SIGMAS = (0.0, 1.5, 3.0)  # blurs tried for the templates, px at PX (up to 3/4 module; see below)
# A match is a normalised correlation over the 208 data modules (a plane of light taken out):
# 1 for the code itself unblurred, about 0 for a pattern unrelated to it; Reed-Solomon makes the
# kit's codes differ in about half their data modules, so the next best code of the kit scores
# far lower than the right one, and another kit's code or card art correlates with none. On the
# held-out phone photos (every square weighed, decoded or not; 1080p 30 photos, 12 MP 20): the
# kit's codes matched scored 0.81 or more with leads of 0.41 (12 MP 0.47) or more; every other
# square (card art, another kit's codes) 0.64 at most (12 MP 0.58), leads 0.22 (0.19); none
# wrong. The tuned sets: 0.80 and 0.24 for the kit's codes, 0.67 for everything else.
MIN_SCORE = 0.8  # correlation a match must reach: held-out margin 0.01 over the lowest own
# code matched, 0.16 over the best anything else reached
MIN_MARGIN = 0.15  # ... and its lead over the kit's next best code: held-out own leads >= 0.41
# A second way to be read: a lower score with a lead nothing else reaches. A code blurred past
# the templates' 3/4 module, or pale and noisy, explains its own template less well, but every
# other code of the kit less well still in proportion (their templates differ from it in about
# half the data modules), so its lead stays wide; a square of anything else, scoring every
# template alike, leads its next best only by the gap between two near-equal draws. Traced on
# 294 phone photos (254 held-out: diagnostic fans 1080p 970, 973, 979, 982 and 12 MP 972, 974,
# the mix 971, the named sets; 40 tuned hard; every square the phone path weighed): six codes
# left unread scored 0.71-0.80, five of them with leads of 0.32-0.55 (one 0.23); the 390
# squares whose best code is not in the photo scored 0.58 at most and led by 0.22 at most. On
# the tuned hard and foreign sets (benchmarks/vision.py --codebook) anything not ours scored
# 0.67 at most, led by 0.24 at most, and nothing not ours reached 0.7 at all
WIDE_SCORE = 0.7  # a correlation of 0.7: held-out margin 0.12 over anything else's best
WIDE_MARGIN = 0.3  # with a lead of 0.3: held-out margin 0.08 over anything else's widest
CLIPPED = 250  # grey level from which a straightened square counts as clipped to white
GLARE_STEP = 16  # px of the coarse grid on which glare's clipped patches are found
GLARE_REACH = 2  # coarse steps round a clipped patch where strokes are looked for
# the black-hats that find a code's dark strokes under glare, and the closings that join them
# into the code's square (px): small codes (2-5 modules at 12 MP) and large ones (3-4 px a module)
STROKES = ((7, 5), (15, 11))
STROKE_DEPTH = 25  # grey levels a stroke lies below its surroundings
LIGHT_ORDER = 1  # order of the smooth light taken out of a square before weighing: a plane
# grey levels below its surroundings from which a region of a cell may be a code under glare
# (candidate_quads): on the 1080p table frames, 8 face-up codes under glare of 26-49 left no
# square darker than 0.72 of their label's grey; with this, 8 more cells read (180 frames)
LIFTED_DARKER = 45
MIN_CLIPPED = 0.02  # share of a square's data pixels clipped from which templates are clipped too
# the long sides of the working scales where squares are looked for; the finest (3000) only
# for photos larger than it: at 12 MP a code of 1.4 px a module merged with the dark card round
# its narrow quiet zone at 2100 (+1 code of 209 on the hard 12 MP photos, ~140 ms a photo)
WORK_SIDE = (3000, 2100, 1050)
# the steps from a 12 MP photo to the finest working scale and from it to the next (0.75 and
# 0.7) by linear interpolation, not an area average: each px made lies within 1.43 px of the
# px it is made from, and the blur of 1.5 px that follows (_working_scales) smooths what the
# sampling aliases. 17 and 12 ms a 12 MP photo; linear 4 and 2 (the same codes on every 12 MP
# set, tuned and held-out). A larger step (1080p to 1050, 0.55) keeps the area average
WORK_INTER = cv2.INTER_LINEAR
MIN_SQUARE, MAX_SQUARE = 14, 200  # a code's side at a working scale, px
# px a module below which no code is matched (read: >= 1.04), measured on the aligned symbol;
# a square found smaller by up to QUAD_SHRINK is still straightened: blur shrinks the dark
# square a small code leaves (a code of 1.04 px a module was found 20.5 px across, not 21.8)
MIN_MODULE_PX = 1.0
QUAD_SHRINK = 0.9


# Squares round a texture spot (spot_quads), for the photos where nothing was read. Smoothed
# over 1.2 modules a code is an even grey square (half its modules dark), and a frame line of a
# px or two beside it is lighter than that; the code's edge lies between its grey and white
SPOT_SMOOTH_MODULES = 1.2  # the blur, in modules of a code of the spot's side
SPOT_WHITE_SIDES = 1.5  # the window the label's white is taken over, in sides: from a code's
# centre it must reach past the code onto its label (0.8: inside the code, no square found on
# a plain synthetic code); left_undecoded's reach is the same
SPOT_REACH_SIDES = 1.6  # px searched round the spot each way, in sides
SPOT_CUTS = (1 / 3, 1 / 2, 2 / 3)  # where between the spot's grey and white a code's edge is
# a square looked for larger than this (3 px a module) is looked for on the crop scaled down to
# it: smoothed over 1.2 modules, a larger code shows nothing more, and a 12 MP spot of 100-200
# px blurred and dilated its crop at full size (the 12 MP sets, 44 photos where nothing is read
# first: median 246 -> 238 ms, 11 -> 8 photos over 300 ms; the same codes). ECC then aligns
# the square at the photo's own px
SPOT_WORK_PX = 63
# A pale code's square turned as its module edges run (turned_square): a texture spot lies
# within 1-8 px of a pale or blurred code's centre (held-out 1080p fans 970 031, 973 005,
# 979 007, 979 034: up to a fifth of its side), and the edges within TURN_REACH of its side
# round the spot are the code's own (its quiet zone is 2 modules, a tenth of its side): their
# turn came within 1-7 degrees of the code's on those four. The codes read (or the spot's
# box) give its side to a fifth (perspective, a card nearer the lens): TURN_SHARES of it are
# weighed, the likeliest by its grey's correlation with a code's fixed parts; ECC then pulls
# it a module or two into place. Under TURN_LEAST, no square: the codes read on a turned
# square correlated 0.15 or more (held-out margin 0.05), and 62% of the squares whose best
# code is not in the photo are under it
TURN_REACH = 0.55
TURN_SHARES = (0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2)
TURN_LEAST = 0.1
SPOT_FIT = (0.7, 1.3)  # a square's width as a share of the side looked for (the sizes looked
# for are 0.75 apart, decode.SPOT_SIZES: every width between them is kept at one of them)


def _function_modules() -> NDArray[np.bool_]:
    """The modules every version-1 code shares: three finders with their separators, and the
    timing row and column."""
    f = np.zeros((21, 21), bool)
    f[:8, :8] = f[:8, 13:] = f[13:, :8] = True
    f[6, :] = f[:, 6] = True
    return f


def _data_modules() -> NDArray[np.bool_]:
    """The modules that tell one code from another (format information left out too: it
    names only the mask)."""
    d = np.ones((21, 21), bool)
    d[:9, :9] = d[:9, 13:] = d[13:, :9] = False
    d[6, :] = d[:, 6] = False
    return d


def _canvas(modules: NDArray[Any]) -> NDArray[Any]:
    """A symbol's module values (0 dark, 1 light) with its quiet zone, at PX px a module."""
    img = np.ones((SIDE, SIDE), np.float32)
    img[QUIET : QUIET + 21, QUIET : QUIET + 21] = modules
    return cv2.resize(img, (SIDE * PX, SIDE * PX), interpolation=cv2.INTER_NEAREST)


def _fixed_parts() -> NDArray[Any]:
    """What ECC aligns on: a finder pattern in each corner of the symbol with its light
    separator, the rest grey (unknown), in a light quiet zone. A code has finders in three
    corners only; with four, one alignment serves the code in any of its four turns."""
    finder = np.zeros((7, 7), np.float32)  # 0 dark: a ring, a light ring, a dark centre
    finder[1:6, 1:6] = 1.0
    finder[2:5, 2:5] = 0.0
    m = np.full((21, 21), 0.5, np.float32)
    for r, c in ((0, 0), (0, 13), (13, 0), (13, 13)):
        m[r : r + 8, c : c + 8] = 1.0  # the separator
        fr, fc = r + (r > 0), c + (c > 0)  # the finder in the corner, inside its separator
        m[fr : fr + 7, fc : fc + 7] = finder
    return _canvas(m)


_DATA = _canvas(_data_modules().astype(np.float32)) > 0.5
_DATA[: QUIET * PX, :] = _DATA[-QUIET * PX :, :] = False
_DATA[:, : QUIET * PX] = _DATA[:, -QUIET * PX :] = False
_FIXED = cv2.GaussianBlur(_fixed_parts(), (0, 0), 2.0)
_FIXED_UNIT = (_FIXED - _FIXED.mean()) / np.linalg.norm(_FIXED - _FIXED.mean())
_SYMBOL = np.array(
    [
        [QUIET * PX, QUIET * PX],
        [(QUIET + 21) * PX, QUIET * PX],
        [(QUIET + 21) * PX, (QUIET + 21) * PX],
        [QUIET * PX, (QUIET + 21) * PX],
    ],
    np.float32,
)


@dataclass(frozen=True)
class Match:
    """The kit's code that best explains a straightened square: its ``payload``, ``score``
    (normalised correlation over the data modules), ``margin`` over the next best code,
    ``turns`` (clockwise quarter turns of the square that put the code upright) and the ``blur``
    (px at PX) of the template that fitted."""

    payload: str
    score: float
    margin: float
    turns: int
    blur: float

    @property
    def accepted(self) -> bool:
        return (self.score >= MIN_SCORE and self.margin >= MIN_MARGIN) or (
            self.score >= WIDE_SCORE and self.margin >= WIDE_MARGIN
        )


class Codebook:
    """Every face code of a kit as templates: their data modules at PX px a module, blurred by
    each of :data:`SIGMAS`, centred and of unit norm. Build with :func:`codebook`."""

    def __init__(self, payloads: Sequence[str]) -> None:
        if len(payloads) < 2:
            raise ValueError("a codebook needs at least two codes (a margin over the next best)")
        from printables.sheets import qr_modules  # with the PDF library: only for a codebook

        self.payloads = tuple(payloads)
        # qr_modules raises PayloadError for a payload that is not a version-1 code
        sharp = [_canvas(~np.array(qr_modules(p)) * np.float32(1)) for p in self.payloads]
        # per blur: the templates as drawn (0 dark, 1 light), each row's values sorted (where
        # glare clips the photo, see best), and centred to unit norm
        self._templates: list[tuple[float, NDArray[Any], NDArray[Any], NDArray[Any]]] = []
        for sigma in SIGMAS:
            drawn: NDArray[Any] = np.stack(
                [(cv2.GaussianBlur(s, (0, 0), sigma) if sigma else s)[_DATA] for s in sharp]
            ).astype(np.float32)
            self._templates.append((sigma, drawn, np.sort(drawn, axis=1), _unit_rows(drawn)))

    def best(self, flat: NDArray[Any]) -> Match:
        """The best code for a straightened square, over its four turns and every blur.

        Where glare clipped part of the square to white (:data:`CLIPPED`), the templates are
        clipped alike before they are weighed: a code under glare is its template lifted past
        white, so only its darkest parts stay below it. Each template is cut at the level that
        leaves as much of it light as the photo shows clipped. On the hard 12 MP phone photos
        this raised the right codes' scores under glare by 0.03-0.08 at their true corners."""
        best: Match | None = None
        for turns in range(4):
            v = np.rot90(flat, -turns)[_DATA].astype(np.float32)
            clipped = float(np.count_nonzero(v >= CLIPPED)) / v.size
            v = _without_light(v[None])[0]
            norm = float(np.linalg.norm(v))
            if norm < 1e-6:
                continue
            v /= norm
            for sigma, drawn, ordered, unit in self._templates:
                if clipped >= MIN_CLIPPED:
                    cut = ordered[:, min(v.size - 1, int((1 - clipped) * v.size))]
                    unit = _unit_rows(np.minimum(drawn, cut[:, None]))
                scores = unit @ v
                top = np.argpartition(-scores, 1)[:2]
                a, b = sorted((float(scores[i]) for i in top), reverse=True)
                if best is None or a > best.score:
                    i = int(top[0] if scores[top[0]] >= scores[top[1]] else top[1])
                    best = Match(self.payloads[i], a, a - b, turns, sigma)
        return best or Match("", 0.0, 0.0, 0, 0.0)


def _smooth_basis(order: int) -> NDArray[Any]:
    """An orthonormal basis (columns) of the polynomials of ``order`` over the data pixels."""
    ys, xs = np.nonzero(_DATA)
    x = (xs - SIDE * PX / 2) / (SIDE * PX / 2)
    y = (ys - SIDE * PX / 2) / (SIDE * PX / 2)
    cols = [x**i * y**j for i in range(order + 1) for j in range(order + 1 - i)]
    q, _ = np.linalg.qr(np.stack(cols, axis=1))
    return q.astype(np.float32)


_BASIS = _smooth_basis(LIGHT_ORDER)


def _without_light(m: NDArray[Any]) -> NDArray[Any]:
    """Each row with its smooth light taken out: its least-squares fit by a polynomial of
    :data:`LIGHT_ORDER` over the square (for order 0, its mean). Glare and a lamp's fall-off
    light a code unevenly, a slope across it that correlates with no template; taken out of
    the photo and the templates alike, it weighs nothing. On the fresh 1080p phone photos
    (3000-3059) this read a code under glare of 45 that had scored 0.77; a quadratic read it
    too but lost another code of 209. Another kit's codes' best score rose 0.61 -> 0.63,
    anything else's 0.66 -> 0.67."""
    out: NDArray[Any] = m - (m @ _BASIS) @ _BASIS.T
    return out


def _unit_rows(m: NDArray[Any]) -> NDArray[Any]:
    """Each row without its smooth light (:func:`_without_light`) and of unit norm (a row
    with no variance stays zero)."""
    rows = _without_light(m)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    unit: NDArray[Any] = (rows / np.maximum(norms, 1e-9)).astype(np.float32)
    return unit


def one_blas_thread() -> None:
    """Keeps numpy's BLAS, which weighs every square against the codebook's templates
    (:meth:`Codebook.best`), on the thread that calls it, for the whole process. OpenBLAS
    splits those products over every core and then spins while it waits for them; beside other
    work (a second frame, the server's requests) :meth:`Codebook.best` measured four times
    slower (11.7 ms a square instead of 2.8 on the hard 1080p tables, one core busy). For a
    server reading frames side by side, and for timing a frame on one core. (threadpoolctl
    limits the libraries loaded: this module has loaded numpy's.)"""
    threadpool_limits(limits=1, user_api="blas")


@lru_cache(maxsize=8)
def codebook(payloads: tuple[str, ...]) -> Codebook:
    """The codebook of a kit's payloads (cached: a kit's is built once, in about 50 ms)."""
    return Codebook(payloads)


def _ordered(q: NDArray[Any]) -> NDArray[Any]:
    """A quad's corners clockwise on the image (y down), starting anywhere."""
    c = q.mean(axis=0)
    return q[np.argsort(np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0]))].astype(np.float32)


def candidate_quads(gray: NDArray[Any], photo_side: int | None = None) -> list[NDArray[Any]]:
    """Squares that may be a code: regions darker than their light surroundings (a code
    smoothed is a grey square on its white label), nearly square, at up to three working scales;
    and, where glare clipped the photo to white, :func:`_glare_quads`. Each comes as its rotated
    bounding box and, when the region's hull has four corners, as that four-sided hull
    (perspective); corners in ``gray``'s pixels. When ``gray`` is a crop of a photo whose long
    side is ``photo_side`` px, the working scales are the photo's."""
    out: list[NDArray[Any]] = []
    for k, smooth, white in _working_scales(gray, photo_side):
        darker = cv2.compare(smooth, cv2.convertScaleAbs(white, alpha=0.72), cv2.CMP_LT)
        lit = cv2.threshold(white, 40, 255, cv2.THRESH_BINARY)[1]  # white > 40
        out += _squares(cv2.bitwise_and(darker, lit), k)
    return out + _glare_quads(gray)


def lifted_quads(gray: NDArray[Any]) -> list[NDArray[Any]]:
    """Squares that may be a code under glare: regions :data:`LIFTED_DARKER` grey levels darker
    than their surroundings, nearly square. Glare adds light to a code and its label alike, so
    a code under it is no longer darker than its label by a share of the label's grey (the
    test of :func:`candidate_quads`), only by as many grey levels as before."""
    out: list[NDArray[Any]] = []
    for k, smooth, white in _working_scales(gray):
        lifted = cv2.threshold(cv2.subtract(white, smooth), LIFTED_DARKER, 255, cv2.THRESH_BINARY)
        out += _squares(lifted[1], k)
    return out


def _seen(centre: NDArray[Any], width: float, seen: Sequence[tuple[NDArray[Any], float]]) -> bool:
    """Whether a square of ``width`` px at ``centre`` is one of ``seen`` (centres and widths):
    its centre within an eighth of its width of one's, its width within a tenth of that one's."""
    return any(
        float(np.linalg.norm(centre - c)) < width / 8 and abs(width / w - 1) < 0.1 for c, w in seen
    )


def turned_square(gray: NDArray[Any], centre: tuple[float, float], side: float) -> NDArray[Any]:
    """The square of ``side`` px centred at ``centre``, turned as the edges inside it run: a
    code's module edges run two ways a right angle apart, so the angle of the grey's gradients
    taken four times over (each edge's weight its gradient) is four times the code's turn,
    modulo a right angle (the codebook weighs the four turns). A pale or blurred code that no
    cut of its grey makes a square (:func:`spot_quads`) still has its edges' directions.
    Corners in ``gray``'s pixels."""
    return _square(centre, side, _turn(gray, centre, side))


def _turn(gray: NDArray[Any], centre: tuple[float, float], side: float) -> float:
    """The turn of the edges within :data:`TURN_REACH` sides of ``centre`` (radians, within
    a right angle): see :func:`turned_square`."""
    r = max(2, int(TURN_REACH * side))
    x, y = round(centre[0]), round(centre[1])
    crop = gray[max(0, y - r) : y + r + 1, max(0, x - r) : x + r + 1].astype(np.float32)
    if min(crop.shape[:2]) < 3:
        return 0.0
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3)
    z = complex(np.sum(np.hypot(gx, gy) * np.exp(4j * np.arctan2(gy, gx))))
    return float(np.angle(z)) / 4


def _square(centre: tuple[float, float], side: float, turn: float) -> NDArray[Any]:
    c, s, h = np.cos(turn), np.sin(turn), side / 2
    return np.array(
        [(centre[0] + c * u - s * v, centre[1] + s * u + c * v) for u, v in _CORNER_SIGNS * h],
        np.float32,
    )


_CORNER_SIGNS = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], np.float64)


def likeliest_turned(
    gray: NDArray[Any], centre: tuple[float, float], side: float
) -> NDArray[Any] | None:
    """Of the squares :func:`turned_square` makes round ``centre`` at each of
    :data:`TURN_SHARES` of ``side``, the one whose straightened grey correlates best with a
    code's fixed parts (what ECC aligns on: its finders in the corners, at the size the square
    says): a warp and one product each, where the codebook's best code costs a hundred. None
    when none reaches :data:`TURN_LEAST`."""
    best, out = TURN_LEAST, None
    turn = _turn(gray, centre, side)
    for share in TURN_SHARES:
        q = _square(centre, share * side, turn)
        flat = _flat(gray, q)
        flat -= flat.mean()
        score = float(np.sum(flat * _FIXED_UNIT)) / max(float(np.linalg.norm(flat)), 1e-6)
        if score > best:
            best, out = score, q
    return out


def spot_quads(
    gray: NDArray[Any], centre: tuple[float, float], sides: Sequence[float]
) -> list[NDArray[Any]]:
    """Squares of each of ``sides`` px round ``centre`` (a texture spot: a place busier than
    its ring, no square named), each place and size once. Smoothed over about a module
    (:data:`SPOT_SMOOTH_MODULES`), a code becomes an even grey square on its white label, and a
    thin dark line beside it (a card's frame, its edge) fades: so a code that merged with such
    a line in :func:`candidate_quads`' mask, smoothed only by 1.5 px, stands alone here. Each
    pixel's share of the brightest within :data:`SPOT_WHITE_SIDES` sides is cut between the
    spot's own share and white (:data:`SPOT_CUTS`); a square is kept within
    :data:`SPOT_FIT` of the side looked for; a side over :data:`SPOT_WORK_PX` is looked for on
    the crop scaled down to it. Corners in ``gray``'s pixels."""
    out: list[NDArray[Any]] = []
    kept: list[tuple[NDArray[Any], float]] = []  # centre and width
    for side in sides:
        r = int(SPOT_REACH_SIDES * side)
        x0, y0 = max(0, int(centre[0]) - r), max(0, int(centre[1]) - r)
        crop = gray[y0 : int(centre[1]) + r, x0 : int(centre[0]) + r]
        k = min(1.0, SPOT_WORK_PX / side)  # a large code's square looked for smaller
        if k < 1.0:
            crop = cv2.resize(crop, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        if min(crop.shape[:2]) < MIN_SQUARE:
            continue
        at_k = side * k  # the side looked for, in the crop's px
        smooth = cv2.GaussianBlur(crop.astype(np.float32), (0, 0), SPOT_SMOOTH_MODULES * at_k / 21)
        w = int(SPOT_WHITE_SIDES * at_k) | 1
        white = cv2.dilate(smooth, cv2.getStructuringElement(cv2.MORPH_RECT, (w, w)))
        share = smooth / np.maximum(white, 1.0)
        cy, cx = int((centre[1] - y0) * k), int((centre[0] - x0) * k)
        h = max(1, int(at_k / 6))
        own = float(np.median(share[max(0, cy - h) : cy + h, max(0, cx - h) : cx + h]))
        for cut in SPOT_CUTS:
            mask = (share < own + cut * (1.0 - own)).astype(np.uint8) * 255
            for q in _squares(mask, k, (x0, y0)):
                at, width = q.mean(axis=0), float(np.linalg.norm(q[0] - q[2])) / np.sqrt(2)
                if not SPOT_FIT[0] <= width / side <= SPOT_FIT[1] or _seen(at, width, kept):
                    continue
                kept.append((at, width))
                out.append(q)
    return out


def _working_scales(
    gray: NDArray[Any], photo_side: int | None = None
) -> Iterator[tuple[float, NDArray[Any], NDArray[Any]]]:
    """Each working scale ``k`` of :data:`WORK_SIDE` (for a photo whose long side is
    ``photo_side``, by default ``gray``'s) with ``gray`` smoothed at it and the light round each
    pixel (the brightest within 31 px)."""
    h, w = gray.shape[:2]
    long_side = photo_side or max(h, w)
    img, at = gray, 1.0
    for k in sorted({min(1.0, side / long_side) for side in WORK_SIDE}, reverse=True):
        # each scale from the one before it, so a 12 MP photo is read whole once, not three
        # times: the search 160-190 -> 130-165 ms on the diagnostic held-out 12 MP photos, the
        # same codes. An area average of an area average differs from the direct one by
        # 0.2-0.4 grey levels on average (up to 24 on a sharp edge), the same size
        if k != at:
            step = k / at
            inter = WORK_INTER if step > 0.65 else cv2.INTER_AREA
            img = cv2.resize(img, None, fx=step, fy=step, interpolation=inter)
            at = k
        # in grey levels (uint8), as the photo is: the search 85-112 -> 54-84 ms a 12 MP photo
        # (13-19 -> 9-14 at 1080p) against float32; the smoothed grey rounds to a level, so
        # a region's edge moves a px where it lies on the threshold
        smooth = cv2.GaussianBlur(img, (0, 0), 1.5)
        yield k, smooth, cv2.dilate(smooth, cv2.getStructuringElement(cv2.MORPH_RECT, (31, 31)))


def _squares(mask: NDArray[Any], k: float, offset: tuple[int, int] = (0, 0)) -> list[NDArray[Any]]:
    """The nearly square regions of ``mask`` (a working scale ``k`` of the photo, its top-left
    at ``offset`` photo px), their corners in the photo's pixels."""
    out: list[NDArray[Any]] = []
    shift = np.array(offset, np.float32)
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    for c in contours:
        hull = cv2.convexHull(c)
        area = cv2.contourArea(hull)
        if not MIN_SQUARE**2 <= area <= MAX_SQUARE**2 or cv2.contourArea(c) < 0.6 * area:
            continue
        box = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float32)
        if area < 0.7 * cv2.contourArea(box):
            continue
        sides = [float(np.linalg.norm(box[i] - box[(i + 1) % 4])) for i in range(4)]
        if max(sides) > 1.5 * min(sides):
            continue
        out.append(_ordered(box) / k + shift)
        poly = cv2.approxPolyDP(hull, 0.06 * cv2.arcLength(hull, True), True)
        if len(poly) == 4:
            out.append(_ordered(poly[:, 0, :].astype(np.float32)) / k + shift)
    return out


def _glare_quads(gray: NDArray[Any]) -> list[NDArray[Any]]:
    """Squares of dark strokes inside glare. Glare lifts a code past white but for its darkest
    parts, so its square is no longer darker on average than the label round it (the test of
    :func:`candidate_quads`); what stays are thin dark strokes. Near each patch that glare
    clipped (:data:`CLIPPED`), at the photo's own pixels: the strokes (a black-hat of each
    size of :data:`STROKES`), joined, and their nearly square regions. On the hard 12 MP phone
    photos this found 2 of the 3 codes missed before (one read, one short of the score at
    0.76); the larger black-hat found a code of 3.3 px a module on a fresh 1080p photo."""
    clipped = (gray >= CLIPPED).astype(np.uint8)
    if int(np.count_nonzero(clipped)) < MIN_SQUARE**2:
        return []
    h, w = gray.shape[:2]
    step = GLARE_STEP
    # each coarse cell a whole step's square (an integer factor: 2 ms a 12 MP photo, where the
    # photo's own size, a fractional factor, took 13 ms), half or more of it clipped
    hs, ws = max(1, h // step), max(1, w // step)
    coarse = cv2.resize(clipped[: hs * step, : ws * step], (ws, hs), interpolation=cv2.INTER_AREA)
    near = cv2.dilate(
        (coarse > 0).astype(np.uint8), np.ones((3, 3), np.uint8), iterations=GLARE_REACH
    )
    count, _, stats, _ = cv2.connectedComponentsWithStats(near)
    out: list[NDArray[Any]] = []
    for x, y, bw, bh, _ in stats[1:count]:
        x0, y0 = int(x) * step, int(y) * step
        roi = gray[y0 : min(h, y0 + (int(bh) + 1) * step), x0 : min(w, x0 + (int(bw) + 1) * step)]
        white = cv2.dilate(roi, cv2.getStructuringElement(cv2.MORPH_RECT, (31, 31)))
        for stroke, join in STROKES:
            dark = cv2.morphologyEx(roi, cv2.MORPH_BLACKHAT, np.ones((stroke, stroke), np.uint8))
            strokes = (dark > STROKE_DEPTH) & (white >= CLIPPED - 5)
            mask = cv2.morphologyEx(
                strokes.astype(np.uint8) * 255, cv2.MORPH_CLOSE, np.ones((join, join), np.uint8)
            )
            out += _squares(mask, 1.0, (x0, y0))
    return out


def _flat(gray: NDArray[Any], quad: NDArray[Any], h: NDArray[Any] | None = None) -> NDArray[Any]:
    """The square ``quad`` of ``gray`` warped to the straightened symbol (PX px a module, its
    quiet zone round it), float32; ``h`` the homography, when the caller has it."""
    if h is None:
        h = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), _SYMBOL)
    flat: NDArray[Any] = cv2.warpPerspective(
        gray, h, (SIDE * PX, SIDE * PX), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    ).astype(np.float32)
    return flat


def straighten(gray: NDArray[Any], quad: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]] | None:
    """The square ``quad`` of ``gray`` at PX px a module, aligned on a code's fixed parts by
    ECC; and the homography from the straightened square back to ``gray``. None when ECC
    does not converge (not a code)."""
    size = SIDE * PX
    h = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), _SYMBOL)
    flat = _flat(gray, quad, h)
    warp = np.eye(3, dtype=np.float32)
    # ECC at full size: at half size (a filter of 3) it was 2 ms a 1080p frame faster and read
    # one face-up code fewer of 127, its lowest own score 0.80, on the match threshold
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4)
    try:
        _, warp = cv2.findTransformECC(
            _FIXED,
            flat,
            warp,
            cv2.MOTION_HOMOGRAPHY,
            criteria,
            None,
            5,  # type: ignore[call-overload]
        )
    except cv2.error:
        return None
    aligned = cv2.warpPerspective(
        flat,
        warp,
        (size, size),
        flags=cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    back = np.linalg.inv(h.astype(np.float64)) @ warp.astype(np.float64)
    return aligned, back


Corners = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]


def aligned_corners(gray: NDArray[Any], quad: Sequence[tuple[float, float]]) -> Corners | None:
    """The corners of a code a decoder read at ``quad`` (its four corners in ``gray``'s
    pixels, in the decoder's order), aligned by ECC on the code's finder patterns; the same
    order. A decoder places a version-1 code's fourth corner by extrapolating from its three
    finders, and under a wide lens it lands a module or more off; the finders pin it. None
    when ECC does not converge."""
    got = straighten(gray, np.asarray(quad, np.float32))
    if got is None:
        return None
    a, b, c, d = ((float(x), float(y)) for x, y in _symbol_corners(got[1]))
    return a, b, c, d


def _symbol_corners(back: NDArray[Any]) -> NDArray[Any]:
    """The straightened symbol's corners through ``back`` (:func:`straighten`'s homography)."""
    out: NDArray[Any] = cv2.perspectiveTransform(_SYMBOL[None].astype(np.float64), back)[0]
    return out


def square_matches(
    gray: NDArray[Any],
    book: Codebook,
    known: Sequence[tuple[float, float]] = (),
    side: tuple[float, float] | None = None,
    quads: Sequence[NDArray[Any]] = (),
    photo_side: int | None = None,
    search: bool = True,
) -> Iterator[tuple[Corners, Match]]:
    """Every candidate square of ``gray`` straightened, with its best code of ``book``,
    accepted or not: the corners (the symbol's own top-left, top-right, bottom-right,
    bottom-left, in ``gray``'s pixels, when the match is right) and the match. A square whose
    centre lies within half its side of a ``known`` point (a code a decoder read) or of a
    square already accepted is left alone, and so is one whose aligned symbol is under
    :data:`MIN_MODULE_PX` a module. Where the symbol's size is known (a cell straightened
    through the mat), ``side`` is its range in px: squares outside it are not weighed, and
    squares glare lifted (:func:`lifted_quads`) are weighed last, while none has matched and
    only where no square of about the same place and size was weighed. ``quads`` are more
    squares to weigh, found by the caller (four corners in any order, in ``gray``'s pixels).
    ``photo_side``: ``gray`` is a crop of a photo whose long side is this many px
    (:func:`candidate_quads`). A square whose corners all lie within a module of a square
    straightened already is not straightened again. Without ``search``, ``gray`` is not
    searched for squares: only ``quads`` are weighed (the caller found them, at the same
    working scales)."""
    taken = list(known)
    found = candidate_quads(gray, photo_side) if search else []
    first = [*found, *(_ordered(np.asarray(q)) for q in quads)]
    weighed: list[tuple[NDArray[Any], float]] = []  # centre and width
    tried: list[NDArray[Any]] = []  # the corners of every square straightened

    def squares() -> Iterator[NDArray[Any]]:
        yield from first
        if side is not None and len(taken) == len(known):  # found only while none matched
            yield from lifted_quads(gray)

    for n, quad in enumerate(squares()):
        centre = quad.mean(axis=0)
        diagonal = float(np.linalg.norm(quad[0] - quad[2]))
        half = diagonal / 2.8
        width = diagonal / np.sqrt(2)
        if width < QUAD_SHRINK * MIN_MODULE_PX * 21:
            continue
        if n >= len(first) and (len(taken) > len(known) or _seen(centre, width, weighed)):
            continue  # a code matched already, or this square was weighed
        if side is not None and not side[0] <= width <= side[1]:
            continue
        if any(np.hypot(centre[0] - x, centre[1] - y) < half for x, y in taken):
            continue
        # a square whose every corner lies within a module of one straightened already (the
        # same region at two working scales, its box and its hull): ECC, which pulls a square
        # a module or more into place, ends where it did for that one
        if any(float(np.abs(quad - t).max()) < width / 21 for t in tried):
            continue
        tried.append(quad)
        got = straighten(gray, quad)
        if got is None:
            continue
        flat, back = got
        corners = _symbol_corners(back)
        sides = np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)
        if float(sides.mean()) < MIN_MODULE_PX * 21:
            continue  # the aligned symbol is smaller than a code we match
        weighed.append((centre, width))
        m = book.best(flat)
        a, b, c, d = ((float(x), float(y)) for x, y in np.roll(corners, m.turns, axis=0))
        if m.accepted:
            taken.append(_centre((a, b, c, d)))
        yield (a, b, c, d), m


def matched_codes(
    gray: NDArray[Any],
    book: Codebook,
    known: Sequence[tuple[float, float]] = (),
    side: tuple[float, float] | None = None,
    quads: Sequence[NDArray[Any]] = (),
    photo_side: int | None = None,
    search: bool = True,
) -> list[tuple[str, Corners, Match]]:
    """The kit's codes read by matching in ``gray``: ``(payload, corners, match)``, the
    accepted ones of :func:`square_matches`."""
    found = square_matches(gray, book, known, side, quads, photo_side, search)
    return [(m.payload, c, m) for c, m in found if m.accepted]


def _centre(corners: Sequence[tuple[float, float]]) -> tuple[float, float]:
    return (sum(p[0] for p in corners) / 4, sum(p[1] for p in corners) / 4)
