"""Stage: decode every face QR code in an image, for every game's kit.

``zxing-cpp`` reads the codes (measured in ``benchmarks/vision.py``: it reads more, and far
faster, than OpenCV's detectors). Small codes get a second pass on 2x-upscaled crops; a phone
photo gets retries and its blur undone; a kit's codebook matches codes too blurred to decode.
Each game's reader checks every text read against its kit's payloads (a code of another kit, a
misprint or a hand-typed fake is *refused with a reason*, never taken for a card).

Pure: arrays in, :class:`RawCode` values out. Nothing here opens a file or a camera.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

import cv2
import numpy as np
import zxingcpp
from numpy.typing import NDArray

from printables.codes import QR_ERROR_CORRECTION
from vision.codebook import SPOT_FIT, Codebook, likeliest_turned, matched_codes, spot_quads

Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]

SMALL_CODE_PX = 56.0  # codes read this small (the ~45 px limit + margin): search again, upscaled
_CLAHE = cv2.createCLAHE(clipLimit=3.0, tileGridSize=(4, 4))
_FORMATS = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)
# A code's text as it was encoded (the default writes a control character as "<SOH>"): the
# kit's codes are alphanumeric either way, and anyone's code (decode_all) reads as it is
_TEXT = zxingcpp.TextMode.Plain


class ImageError(ValueError):
    """An image that cannot be read at all (empty, wrong type or shape)."""


def quad_centre(corners: Sequence[Point]) -> Point:
    """The mean of a square's four corners (px)."""
    return (sum(p[0] for p in corners) / 4, sum(p[1] for p in corners) / 4)


def quad_side(corners: Sequence[Point]) -> float:
    """The mean length of a square's four sides (px)."""
    return (
        sum(
            float(np.hypot(a[0] - b[0], a[1] - b[1]))
            for a, b in zip(corners, [*corners[1:], corners[0]], strict=True)
        )
        / 4
    )


@dataclass(frozen=True, slots=True)
class RawCode:
    """A QR symbol as the decoder returned it: its text and its corners in image pixels
    (the symbol's own top-left, top-right, bottom-right, bottom-left). ``matched`` is None for
    a code decoded with the QR's own error correction, or the match score of a code read by
    matching the kit's codes (:mod:`vision.codebook`)."""

    text: str
    corners: Quad
    matched: float | None = None

    @property
    def centre(self) -> Point:
        return quad_centre(self.corners)

    @property
    def side_px(self) -> float:
        """The mean length of the symbol's sides in pixels."""
        return quad_side(self.corners)


@dataclass(frozen=True, slots=True)
class DecodedCode:
    """A QR code read in a photo, whosever it is: its ``text`` and its ``corners`` in image
    pixels (the symbol's own top-left, top-right, bottom-right, bottom-left), as
    :func:`decode_all` returns them."""

    text: str
    corners: Quad


def decode_all(image: Any) -> list[DecodedCode]:
    """Every QR code the phone photo path decodes in ``image`` (a BGR, BGRA or grey uint8
    array), before any kit's check or codebook: the same decoding a kit's reader runs, callable
    on anyone's codes (to measure it on public photo sets against plain zxing-cpp). A code is
    listed once, in no particular order. Raises ImageError for something that is not an image."""
    codes, _ = find_codes(as_gray(image), second_pass=True, retries=True, book=None)
    return [DecodedCode(c.text, c.corners) for c in codes]


def as_gray(image: Any) -> NDArray[Any]:
    """The image as 8-bit grey. Accepts BGR, BGRA or grey uint8 arrays.
    Raises ImageError for anything else (empty, other dtype or shape)."""
    if not isinstance(image, np.ndarray) or image.size == 0:
        raise ImageError("not an image (empty or not an array)")
    if image.dtype != np.uint8:
        raise ImageError(f"image must be 8-bit, not {image.dtype}")
    if image.ndim == 2:
        return image
    if image.ndim == 3 and image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    raise ImageError(f"image shape {image.shape} is not grey, BGR or BGRA")


def gray_and_colour(image: Any) -> tuple[NDArray[Any], NDArray[Any]]:
    """The image as 8-bit grey (:func:`as_gray`) and as BGR (a grey image's three channels
    alike). Raises ImageError as :func:`as_gray` does."""
    gray = as_gray(image)
    if image.ndim == 3 and image.shape[2] == 3:
        return gray, image
    return gray, cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)


class Laps:
    """A frame's stage times for a benchmark: :meth:`lap` adds the seconds since the last lap
    (or since made) to ``into[stage]``; nothing is timed when ``into`` is None."""

    def __init__(self, into: dict[str, float] | None) -> None:
        self.into = into
        self.clock = time.perf_counter()

    def lap(self, stage: str) -> None:
        if self.into is not None:
            now = time.perf_counter()
            self.into[stage] = self.into.get(stage, 0.0) + now - self.clock
            self.clock = now


class Scales:
    """An image at each scale the re-reads ask for, each made once (cubic up, area down, as
    each rung made its own), and each of those blurred at each sigma once. On a ladder's crop
    the 2x is the first re-read's, the thickened rung's and the first retry's, and the 1.5x two
    retries': the same pixels each rung made for itself, made once (the codes read the same)."""

    def __init__(self, img: NDArray[Any]) -> None:
        self.img = img
        self._at: dict[float, NDArray[Any]] = {1.0: img}
        self._soft: dict[tuple[float, float], NDArray[Any]] = {}

    def at(self, scale: float) -> NDArray[Any]:
        """The image scaled by ``scale``."""
        if scale not in self._at:
            interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
            self._at[scale] = cv2.resize(self.img, None, fx=scale, fy=scale, interpolation=interp)
        return self._at[scale]

    def soft(self, scale: float, sigma: float) -> NDArray[Any]:
        """The image scaled by ``scale``, blurred by a Gaussian of ``sigma`` px."""
        key = (scale, sigma)
        if key not in self._soft:
            self._soft[key] = cv2.GaussianBlur(self.at(scale), (0, 0), sigma)
        return self._soft[key]


def decode_qr(
    gray: NDArray[Any],
    scale: float = 1.0,
    offset: Point = (0.0, 0.0),
    ec_level: str | None = None,
) -> list[RawCode]:
    """Every QR code zxing-cpp reads in ``gray`` (with ``ec_level``, only those at that level
    of error correction). Corners are mapped back by ``/ scale`` and ``+ offset`` (for crops
    and upscaled images). Raises nothing for an image without codes."""
    found = zxingcpp.read_barcodes(gray, formats=_FORMATS, try_invert=False, text_mode=_TEXT)
    out: list[RawCode] = []
    ox, oy = offset
    for b in found:
        if not b.valid or (ec_level is not None and b.ec_level != ec_level):
            continue
        p = b.position
        pts = [p.top_left, p.top_right, p.bottom_right, p.bottom_left]
        corners = tuple((q.x / scale + ox, q.y / scale + oy) for q in pts)
        out.append(RawCode(b.text, corners))  # type: ignore[arg-type]
    return out


def decode_crop(
    gray: NDArray[Any],
    box: tuple[int, int, int, int],
    upscale: float = 2.0,
    equalise: bool = True,
    scales: Scales | None = None,
) -> list[RawCode]:
    """Decodes the crop ``box`` = (x, y, w, h) of ``gray`` after upscaling it (cubic) and
    sharpening it; when that reads nothing and ``equalise``, once more after local contrast
    equalisation (CLAHE: glare that washes a code out without saturating it). Corners come
    back in ``gray``'s pixels. A box partly outside the image is clipped. ``scales``: ``gray``
    at its scales, made once for every rung of a ladder (:class:`Scales`)."""
    h_img, w_img = gray.shape[:2]
    x, y, w, h = box
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(w_img, x + w), min(h_img, y + h)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return []
    crop = gray[y0:y1, x0:x1]
    if scales is not None and scales.img is gray and crop.shape == gray.shape:
        big, soft = scales.at(upscale), scales.soft(upscale, upscale)
    else:
        big = cv2.resize(crop, None, fx=upscale, fy=upscale, interpolation=cv2.INTER_CUBIC)
        soft = cv2.GaussianBlur(big, (0, 0), upscale)
    # unsharp mask (soft: the crop blurred by its upscale): undoes some of the blur of a
    # hand-held phone (measured: 2x alone read 71 of 83 small codes our first pass missed some
    # of, 2x + unsharp 78)
    sharp = cv2.addWeighted(big, 1.8, soft, -0.8, 0)
    found = decode_qr(sharp, upscale, (float(x0), float(y0)))
    if not found and equalise:
        flat = _CLAHE.apply(big)
        found = decode_qr(flat, upscale, (float(x0), float(y0)))
    return found


def merge_codes(codes: Iterable[RawCode], min_dist: float = 8.0) -> list[RawCode]:
    """Drops repeats: the same text found again within ``min_dist`` px of a kept one."""
    kept: list[RawCode] = []
    for c in codes:
        cx, cy = c.centre
        if any(
            k.text == c.text and np.hypot(k.centre[0] - cx, k.centre[1] - cy) < min_dist
            for k in kept
        ):
            continue
        kept.append(c)
    return kept


def _tiles(w: int, h: int, n: int) -> list[tuple[int, int, int, int]]:
    """``n`` x ``n`` overlapping tiles (25% overlap) covering a w x h image."""
    tw, th = int(w / n * 1.25) + 1, int(h / n * 1.25) + 1
    out = []
    for i in range(n):
        for j in range(n):
            x = round(i * (w - tw) / max(1, n - 1))
            y = round(j * (h - th) / max(1, n - 1))
            out.append((x, y, tw, th))
    return out


# Retries for a phone photo (issue 14, item 2), measured on the hard phone sets (synthetic:
# blur up to half a module, shake, noise, JPEG): which scale, unsharp amount and binarizer read
# the codes the first passes missed. Rescaling changes how many pixels a module's blur spans;
# the global-histogram binarizer reads where glare or shade defeats the local one. Since issue
# 38 they run on a crop round what is left (phone_codes), after the crop 2x upscaled: on the
# tuned sets (20 photos each: hard and overlapping fans, 1080p and 12 MP) they read 12 of the
# 117 codes the ladder read (the 2x crop 42, deblurring 13, our finder 8, the codebook
# 42); on the held-out sets (30 photos at 1080p, 20 at 12 MP) none of the 18 the ladder read
# (the 2x crop 16, our finder 1, the codebook 1).
RETRIES: tuple[tuple[float, float, Any], ...] = (
    (2.0, 2.0, zxingcpp.Binarizer.LocalAverage),
    (1.0, 1.0, zxingcpp.Binarizer.GlobalHistogram),
    (1.5, 2.0, zxingcpp.Binarizer.LocalAverage),
    (0.75, 2.0, zxingcpp.Binarizer.LocalAverage),
    (1.5, 2.0, zxingcpp.Binarizer.GlobalHistogram),
    (0.5, 1.0, zxingcpp.Binarizer.LocalAverage),
)
# Then the blur itself undone (Wiener deconvolution with a Gaussian of these sigmas, px at no more
# than DEBLUR_PIXELS): measured on the hard phone sets, of the codes every retry above missed,
# it read 6 of 25 at 1080p and 4 of 8 at 12 MP (halved first), for about 0.2-0.3 s a photo.
DEBLUR_SIGMAS = (1.0, 1.5, 2.0)
DEBLUR_NOISE = 0.01  # the Wiener filter's noise-to-signal ratio
DEBLUR_PIXELS = 2_100_000  # a larger photo is scaled down to this many pixels first


def deblurred(
    gray: NDArray[Any], sigmas: tuple[float, ...] = DEBLUR_SIGMAS, noise: float = DEBLUR_NOISE
) -> Iterator[NDArray[Any]]:
    """``gray`` with a Gaussian blur of each of ``sigmas`` px undone (a Wiener filter; the
    photo's spectrum is computed once)."""
    h, w = gray.shape[:2]
    f = np.fft.rfft2(gray.astype(np.float32) / 255.0)
    r2 = np.fft.fftfreq(h)[:, None] ** 2 + np.fft.rfftfreq(w)[None, :] ** 2
    for sigma in sigmas:
        otf = np.exp(-2 * (np.pi**2) * (sigma**2) * r2)
        out = np.fft.irfft2(f * otf / (otf * otf + noise), s=(h, w))
        yield np.clip(out * 255, 0, 255).astype(np.uint8)


# Then our own finder on the photo with its blur undone (sigma >= 1.5 px): nested dark
# squares (a QR finder pattern: 7 modules round a 3-module centre) found in three adaptive
# thresholds, grouped by threes into an L of a version-1 code (centres 14 modules apart), each
# group straightened to 8 px a module and decoded again. On the hard 1080p phone set it read 7
# codes zxing-cpp detects nowhere (204 -> 211 of 232) for about 0.35 s a photo; on a photo
# scaled down first (12 MP) it read none the other passes missed, so it runs only on photos
# read at their own size. The kit's check stays the judge: a wrong card is still impossible.
FINDER_SIGMAS = (1.5, 2.0)
FINDER_BLOCKS = (15, 31)  # adaptive threshold windows, px (61 read nothing more)
FINDER_PX = 8  # px a module in the straightened code
FINDER_MAX = 40  # candidates kept per image (the largest): bounds the triples tried


def finder_patterns(gray: NDArray[Any]) -> list[tuple[float, float, float]]:
    """Centres and module sizes ``(x, y, module_px)`` of what looks like a QR finder pattern:
    a dark square holding a dark centre about (7/3)^2 its area."""
    out: list[tuple[float, float, float]] = []
    for block in FINDER_BLOCKS:
        th = cv2.adaptiveThreshold(
            gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 5
        )
        contours, hier = cv2.findContours(th, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
        if hier is None:
            continue
        tree = hier[0]
        for i, c in enumerate(contours):
            area = cv2.contourArea(c)
            child = tree[i][2]
            if not 60 <= area <= 40_000 or child < 0 or tree[child][2] < 0:
                continue
            centre = contours[tree[child][2]]
            inner = cv2.contourArea(centre)
            _, _, w, h = cv2.boundingRect(c)
            moments = cv2.moments(centre)
            if inner <= 0 or not 3.0 < area / inner < 9.0 or not 0.5 < w / max(h, 1) < 2.0:
                continue
            if moments["m00"] == 0:
                continue
            cx, cy = moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]
            out.append((cx, cy, float(np.sqrt(area)) / 7.0))
    kept: list[tuple[float, float, float]] = []
    for x, y, m in sorted(out, key=lambda t: -t[2]):
        if all(np.hypot(x - a, y - b) > 2 * m for a, b, _ in kept):
            kept.append((x, y, m))
    return kept[:FINDER_MAX]


def _finder_groups(
    found: Sequence[tuple[float, float, float]], skew: float = 0.25
) -> list[tuple[NDArray[Any], NDArray[Any], NDArray[Any]]]:
    """Threes of finder patterns that stand as a version-1 code's L: (corner, top right,
    bottom left); its two arms' lengths within ``skew`` (a share of the longer) of each
    other."""
    out = []
    for a, b, c in combinations(found, 3):
        sizes = (a[2], b[2], c[2])
        if max(sizes) > 1.6 * min(sizes):
            continue
        m = sum(sizes) / 3
        pts = [np.array(p[:2]) for p in (a, b, c)]
        for k in range(3):
            corner = pts[k]
            p, q = (pts[j] for j in range(3) if j != k)
            v1, v2 = p - corner, q - corner
            d1, d2 = float(np.linalg.norm(v1)), float(np.linalg.norm(v2))
            if not (10 * m < d1 < 20 * m and 10 * m < d2 < 20 * m):
                continue
            if abs(d1 - d2) > skew * max(d1, d2) or abs(float(v1 @ v2)) > 0.35 * d1 * d2:
                continue
            cross = v1[0] * v2[1] - v1[1] * v2[0]
            out.append((corner, p, q) if cross > 0 else (corner, q, p))
            break
    return out


def finder_codes(
    gray: NDArray[Any],
    scale: float = 1.0,
    found: list[tuple[float, float, float]] | None = None,
) -> list[RawCode]:
    """Codes read by straightening each L of three finder patterns (a version-1 code) found
    in ``gray`` (or the patterns ``found`` there already); corners mapped back by ``/ scale``."""
    n, quiet, px = 21, 4, FINDER_PX
    side = (n + 2 * quiet) * px
    a, b = (quiet + 3.5) * px, (quiet + n - 3.5) * px
    dst = np.array([[a, a], [b, a], [a, b], [b, b]], np.float32)
    out: list[RawCode] = []
    found = finder_patterns(gray) if found is None else found
    for corner, tr, bl in _finder_groups(found):
        src = np.array([corner, tr, bl, tr + bl - corner], np.float32)
        h = cv2.getPerspectiveTransform(src, dst)
        flat = cv2.warpPerspective(gray, h, (side, side), flags=cv2.INTER_CUBIC, borderValue=255)
        smooth = cv2.GaussianBlur(flat, (0, 0), px / 4)
        _, binary = cv2.threshold(smooth, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        back = np.linalg.inv(h)
        for img in (flat, binary):
            # only a symbol at the kit's error correction (Q): three finders of different
            # stickers straightened as one code make a grid of stray modules that decoded, now
            # and then, as a code at a weaker level ('961006', '573121': refused by the kit's
            # check, but shown as a refused code on a photo of stickers)
            read = [r for r in decode_qr(img, ec_level=QR_ERROR_CORRECTION) if r.text]
            if read:
                for r in read:
                    quad = np.array([r.corners], np.float32)
                    pts = cv2.perspectiveTransform(quad, back)[0] / scale
                    corners = tuple((float(x), float(y)) for x, y in pts)
                    out.append(RawCode(r.text, corners))  # type: ignore[arg-type]
                break
    return out


# Squares the codebook weighs where two finder patterns stand as a code's would (issue 14):
# blur merges a large code's third finder with its data, and the code with the dark card round
# its label, so neither an L of finders nor the dark-square test finds it; two finders still
# do. Two a side apart (14 modules between centres) put the code on either side of them; two
# across a diagonal, in one place. On fresh hard 1080p phone photos (seeds 2000-2059) three
# codes at 3 px a module were missed that way, and matched at 0.91-0.95 where they lie.
# PAIR_TOLERANCE: perspective foreshortens one side of a code against the other (a code turned
# 30 degrees from the lens: 1 - cos 30 = 0.13) and a blurred finder's centre lies up to half a
# module off (0.04 of 14 modules). Measured (benchmarks/vision.py finder_pair_margins): on the
# held-out 1080p phone photos (30) the true codes' finder pairs stood off their span by 0.052
# (median), 0.24 (95%): 58 of 62 within it; the tuned sets had set it.
PAIR_TOLERANCE = 0.15  # share off 14 (or 14 * sqrt 2) modules that two finders may stand apart
MAX_PAIR_QUADS = 12  # squares weighed a photo (the nearest pairs first): bounds the ECC runs
L_SKEW = 0.35  # the arms of an L of three finders the codebook weighs may differ this much


def finder_pair_quads(found: Sequence[tuple[float, float, float]]) -> list[NDArray[Any]]:
    """The squares a code would fill given two of its finder patterns ``found`` (centre x, y
    and module px each), corners in the patterns' pixels, nearest pairs first."""
    quads: list[tuple[float, NDArray[Any]]] = []
    for (ax, ay, am), (bx, by, bm) in combinations(found, 2):
        if max(am, bm) > 1.3 * min(am, bm):
            continue
        a, b = np.array([ax, ay]), np.array([bx, by])
        m = (am + bm) / 2
        d = float(np.linalg.norm(b - a))
        if abs(d / (14 * m) - 1) <= PAIR_TOLERANCE:  # a side: the code lies on either side
            u = (b - a) / 14
            for n in (np.array([-u[1], u[0]]), np.array([u[1], -u[0]])):
                tl, tr = a - 3.5 * (u + n), b + 3.5 * (u - n)
                quads.append((d, np.array([tl, tr, tr + 21 * n, tl + 21 * n], np.float32)))
        elif abs(d / (14 * np.sqrt(2) * m) - 1) <= PAIR_TOLERANCE:  # a diagonal
            c, h = (a + b) / 2, (b - a) / 2 * (10.5 / 7)
            r = np.array([-h[1], h[0]])
            quads.append((d, np.array([c - h, c + r, c + h, c - r], np.float32)))
    return [q for _, q in sorted(quads, key=lambda t: t[0])]


def finder_l_quads(found: Sequence[tuple[float, float, float]]) -> list[NDArray[Any]]:
    """The squares codes fill given three of their finder patterns ``found`` standing as a
    code's L (:func:`_finder_groups`): the parallelogram they span, out to the symbol's
    corners (a finder's centre lies 3.5 modules inside them). Perspective is nearly affine
    across one code, so this is nearer a tilted code's shape than a pair's square. Its arms
    may differ by :data:`L_SKEW` (the codebook weighs what lies there before it reads it)."""
    out = []
    for corner, tr, bl in _finder_groups(found, L_SKEW):
        u, v = (tr - corner) / 14, (bl - corner) / 14
        tl = corner - 3.5 * (u + v)
        out.append(np.array([tl, tl + 21 * u, tl + 21 * (u + v), tl + 21 * v], np.float32))
    return out


def finder_pair_candidates(gray: NDArray[Any]) -> list[NDArray[Any]]:
    """The squares :func:`find_codes` hands the codebook from pairs of finder patterns in
    ``gray`` (for the benchmark's margins: every square the codebook weighs)."""
    if gray.shape[0] * gray.shape[1] > DEBLUR_PIXELS:
        return []  # find_codes looks for finders only in photos read at their own size
    return _pair_squares([finder_patterns(sharp) for sharp in deblurred(gray, FINDER_SIGMAS)])


def _pair_squares(finders: Sequence[Sequence[tuple[float, float, float]]]) -> list[NDArray[Any]]:
    """The codebook's squares from each set of finder patterns in ``finders`` (one a deblurred
    image): those of Ls of three (:func:`finder_l_quads`), then of pairs; up to
    :data:`MAX_PAIR_QUADS`, in order, leaving out one centred within a quarter of its side of
    one kept (the same square found again)."""
    kept: list[NDArray[Any]] = []
    ls = (q for found in finders for q in finder_l_quads(found))
    pairs = (q for found in finders for q in finder_pair_quads(found))
    for q in (*ls, *pairs):
        if len(kept) >= MAX_PAIR_QUADS:
            break
        c, side = q.mean(axis=0), float(np.linalg.norm(q[0] - q[1]))
        if all(np.linalg.norm(c - k.mean(axis=0)) > side / 4 for k in kept):
            kept.append(q)
    return kept


def _retry(
    gray: NDArray[Any],
    scale: float,
    amount: float,
    binarizer: Any,
    scales: Scales | None = None,
) -> list[RawCode]:
    """One retry: ``gray`` rescaled, sharpened (unsharp mask of ``amount``), decoded with
    ``binarizer``; corners back in ``gray``'s pixels. ``scales``: ``gray`` at its scales, made
    once for every rung of a ladder."""
    at = scales if scales is not None and scales.img is gray else Scales(gray)
    img = at.at(scale)
    if amount > 0:
        img = cv2.addWeighted(img, 1 + amount, at.soft(scale, max(1.0, scale)), -amount, 0)
    out: list[RawCode] = []
    for b in zxingcpp.read_barcodes(
        img, formats=_FORMATS, try_invert=False, binarizer=binarizer, text_mode=_TEXT
    ):
        if b.valid:
            p = b.position
            pts = [p.top_left, p.top_right, p.bottom_right, p.bottom_left]
            out.append(RawCode(b.text, tuple((q.x / scale, q.y / scale) for q in pts)))  # type: ignore[arg-type]
    return out


def find_codes(
    gray: NDArray[Any],
    second_pass: bool = True,
    retries: bool = False,
    book: Codebook | Callable[[], Codebook] | None = None,
) -> tuple[list[RawCode], int]:
    """All codes in a photo of cards: a full-frame pass; then, without ``retries``, when
    nothing was read or the codes read are small (others nearby may be too small for one
    pass), overlapping crops upscaled 2x. With ``retries`` (a phone photo, read once), the
    phone path (:func:`phone_codes`): the first pass tells what it detected but could not
    decode, what else is left code-like is looked for cheaply, and only there, on a crop, run
    the upscaled crop, the :data:`RETRIES` ladder, the blur undone (:func:`deblurred`), our
    finder and, with a kit's ``book`` (or a function that builds it, called only when needed),
    the codes nothing decoded matched against the kit's own
    (:func:`vision.codebook.matched_codes`). Returns the codes and the number of passes run."""
    if retries and second_pass:
        return phone_codes(gray, book)
    codes = decode_qr(gray)
    if not second_pass:
        return codes, 1
    passes = 1
    small = not codes or min(c.side_px for c in codes) < SMALL_CODE_PX
    h, w = gray.shape[:2]
    if small:
        passes += 1
        n = 1 if max(w, h) <= 1400 else 2
        for box in _tiles(w, h, n):
            codes = [*codes, *decode_crop(gray, box)]
    return merge_codes(codes, min_dist=max(8.0, 0.3 * SMALL_CODE_PX)), passes


# ---- the phone photo path (issue 38): a cheap first pass; the costly ladder only round what a
# code may still lie in, on a crop of the photo.
#
# The first pass decodes the photo once with zxing-cpp (light codes on a dark ground too: its
# inverted pass costs nothing where it finds nothing, measured below) and names what it detected
# but could not decode. What else may be a code is looked for cheaply: a code whose modules merge
# (about a pixel a module) is a grey square on its light label, so the photo is scaled until the
# codes read are LEFT_CODE_PX across and the dark squares of about their size that no code read
# covers are what is left. When nothing was read, the codebook's own search for such squares
# (vision.codebook.candidate_quads, at three working scales) names them. Where nothing is left,
# the photo is read.
LEFT_CODE_PX = 16.0  # a read code's side at the scale where what is left is looked for (~0.8
# px a module: a code of any blur is a grey square there)
LEFT_SIDES = (0.6, 1.6)  # an unread code's side, as a share of the median side of the codes read
LEFT_DARKER = 0.72  # a square darker than this share of the light round it (the codebook's test)
LEFT_FILL = 0.85  # share of its rotated box a square's hull fills (a square ~1, a disc 0.785)
CROP_MARGIN = 1.0  # code sides of the photo kept round what is left, each way
# What is left must show a code's module detail (module_texture: its square at 2 px a module,
# less its own blur at a module). A code blurred by half a module keeps about 0.3 of its
# modules' contrast there; card art, print and the table keep little. Measured on the tuned
# phone sets (20 photos each of the hard set and the fans, 1080p and 12 MP): beside codes read,
# codes unread kept 0.84-1.06 of their detail, everything else at most 0.69; in photos with no
# code read, codes unread kept 8.3-36 grey levels, everything else 0.3-10.7 (tried the most
# detailed first, so what else passes costs only time).
# On the held-out sets (1080p 30 photos, 12 MP 20): beside codes read, no code was left unread
# and other squares kept up to 0.77 (these cost a ladder each); with no code read, the codes
# unread kept 16.7 grey levels or more, the other squares up to 53 (their art has fine print).
LEFT_TEXTURE_SHARE = 0.5  # of the median detail of the codes read
LEFT_TEXTURE_GREY = 6.0  # grey levels, when no code was read
# A symbol the first pass found but could not decode, with this share of the module detail
# of the codes it read, is as sharp as they are: it is not read for blur but for what covers
# or damages it (in a fan, the cards beneath's codes under the next card), and the codebook,
# which reads codes whose modules blur merged, is not tried there: on diagnostic held-out fans
# at 1080p it cost up to 200 times plain zxing-cpp's time and read none of them. Codes left
# unread beside codes read on the tuned sets keep 0.84-1.06 of their detail when sharp
LEFT_SHARP_SHARE = 0.75
# The passes past the crop's re-reads (the blur undone, our finder, the kit's codebook) read
# codes whose modules blur merged. A symbol zxing-cpp located but could not decode is blurred
# so only when its edges are (module_blur, LEFT_BLURRED_MODULES); a sharper one is stopped by
# what covers or damages its modules (a fan's cards beneath, a glare), or by a module's
# sampling, which the re-reads at other scales and binarisers mend. zxing-cpp's first pass
# reads codes up to about 0.6 module of blur (module_blur of the codes it read: tuned phone
# sets 0.13-0.59, held-out 0.13-0.47); the test's version-1 code blurred by 0.6 module, which
# it locates without decoding, measures 0.66. On the tuned sets (hard and fans, 1080p and
# 12 MP) every located symbol read was read by the crop 2x or the first re-read; on the
# diagnostic held-out fans at 1080p the costly passes round 17 of them cost 4.2 s and read
# none (4 of the 44 located there measure 0.45 or more). No such gate is put on the squares
# named when nothing was read: the codebook reads a kit code blurred by a whole module, which
# keeps 8 grey levels of module detail (tests/test_vision_codebook.py), as little as print
LEFT_BLURRED_MODULES = 0.45  # module_blur of a located symbol that gets the costly passes
# A symbol wider than this (6 px a module for the kit's version-1 codes) keeps every module when
# scaled down to it: the re-reads on its crop (the crop 2x, the RETRIES), the blur undone and
# the codebook run on the crop scaled so. zxing-cpp locates symbols of partly covered cards in
# close-ups up to 1,200 px across at 12 MP, whose crops (six of their sides wide when nothing
# was read) were upscaled to several thousand px a side. Diagnostic held-out fans at 12 MP
# (972 000-972 019), with the codebook's single search (_ladder): the same 22 of 25 codes
# read; over the 20 photos the crop's re-reads 6.3 -> 1.1 s and the codebook 5.1 -> 1.7 s, the
# slowest photo 5.1 -> 1.3 s, the 90th percentile 2.6 -> 0.7 s. The tuned sets read the same.
LADDER_SIDE_PX = 126.0
# Where the first pass read nothing, the squares with a code's module detail are mostly card
# art: a 12 MP photo of a fan with no code in full view named up to 40, each laddered for
# 15-40 ms (the codebook weighs every square found at its place), so such a photo took up to a
# second. On 19 sets (490 photos: diagnostic held-out fans at 1080p and 12 MP, the tuned hard
# and fan sets) the ladders that read a code round a square where nothing was read were the
# first tried, the most detailed (39 photos; 26 of them by a costly pass), the second (3: one a
# code in full view, by the crop's re-read; two partly covered cards, by the codebook), the
# third (2: 973 030 by the re-reads; 979 002 by the codebook, whose spot then reads it) and
# once the tenth (a partly covered card). So where nothing is read the costly passes (the blur
# undone, our finder, the codebook) run round the most detailed square (NOTHING_DEEP), the
# crop's re-reads round the next three (NOTHING_TRIES), and a spot where only the re-reads ran
# still gets its own look, its codebook included (_looked_at). A budget, not a rule that the
# rest is art: a code laddered fifth is left to the spots. 12 MP photos (220), the slowest
# 0.94 -> 0.40 s, the 90th percentile 0.31 -> 0.26 s; the same codes on every set, but one
# more on 973 (973 023, a spot no longer covered)
NOTHING_DEEP = 1  # squares where nothing was read that get the costly passes
NOTHING_TRIES = 4  # ... that get the crop's re-reads at least
TRY_INVERT = True  # the first pass reads light codes on a dark ground too


@dataclass(frozen=True, slots=True)
class Left:
    """Something a code may lie in that no pass has read: its centre and side, photo px; its
    module detail (:func:`module_texture`: grey levels, or a share of the codes read); and
    the squares found there (corners in photo px), for the codebook to weigh first."""

    centre: Point
    side: float
    texture: float = 1.0
    quads: tuple[NDArray[Any], ...] = ()
    sharp: bool = False  # as much module detail as the codes read: no codebook (see _ladder)
    deep: bool = True  # the costly passes past the crop's re-reads are tried (module_blur)
    spot: bool = False  # a texture spot: the crop's first re-read (see _ladder)
    searched: bool = True  # the codebook searched its crop, not only ``quads`` (see _covers)
    glance: bool = False  # a spot past SPOT_TRIES: one cheap re-read (SPOT_GLANCES, _ladder)


def _position(b: Any, scale: float = 1.0, offset: Point = (0.0, 0.0)) -> Quad:
    p = b.position
    pts = [p.top_left, p.top_right, p.bottom_right, p.bottom_left]
    ox, oy = offset
    return tuple((q.x / scale + ox, q.y / scale + oy) for q in pts)  # type: ignore[return-value]


def first_pass(gray: NDArray[Any]) -> tuple[list[RawCode], list[Left]]:
    """One zxing-cpp pass over the photo, light-on-dark codes too: the codes decoded, and the
    symbols it detected but could not decode (a failed error correction, a damaged format)."""
    found = zxingcpp.read_barcodes(
        gray, formats=_FORMATS, try_invert=TRY_INVERT, return_errors=True, text_mode=_TEXT
    )
    codes: list[RawCode] = []
    errors: list[Left] = []
    for b in found:
        corners = _position(b)
        if b.valid:
            codes.append(RawCode(b.text, corners))
        elif (c := RawCode("", corners)).side_px >= 8:
            quad = np.array(corners, np.float32)
            deep = module_blur(gray, quad) >= LEFT_BLURRED_MODULES
            errors.append(Left(c.centre, c.side_px, float("inf"), (quad,), deep=deep))
    return codes, errors


def _near(p: Point, q: Point, d: float) -> bool:
    return float(np.hypot(p[0] - q[0], p[1] - q[1])) < d


def _one_place(a: Left, b: Left) -> bool:
    """Whether two places left are one: their centres within half the larger side (two
    stickers' codes stand at least a side apart)."""
    return _near(a.centre, b.centre, max(a.side, b.side) / 2)


def _read_at(codes: Sequence[RawCode], left: Left) -> bool:
    """Whether a code read lies where ``left`` is: its centre within half a side, or ``left``'s
    centre inside the code (a square found on part of a code and what lies round it; two
    codes never overlap but where one covers the other)."""
    return any(
        _near(c.centre, left.centre, max(c.side_px, left.side) / 2)
        or cv2.pointPolygonTest(np.array(c.corners, np.float32), left.centre, False) > 0
        for c in codes
    )


def _halved(img: NDArray[Any]) -> NDArray[Any]:
    """``img`` at half its size, each px the mean of four (fast: an integer factor)."""
    return cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2), interpolation=cv2.INTER_AREA)


def left_undecoded(
    gray: NDArray[Any], codes: Sequence[RawCode], errors: Sequence[Left]
) -> list[Left]:
    """What may still hold a code in ``gray`` after the first pass read ``codes`` and detected
    ``errors``: those errors; dark squares of about the codes' size where no code was read (or,
    when nothing was read, the codebook's candidate squares, the most detailed first); each
    showing a code's module detail
    (:data:`LEFT_TEXTURE_SHARE`, :data:`LEFT_TEXTURE_GREY`)."""
    read = [Left(c.centre, c.side_px) for c in codes]
    out: list[Left] = []

    def free(p: Point, side: float) -> bool:
        # two stickers' codes stand at least a side and two quiet zones apart: a square nearer
        # a code read is that code (with some of what lies round it)
        return not any(_near(c.centre, p, max(c.side, side)) for c in read)

    def add(left: Left) -> None:
        if free(left.centre, left.side) and not any(_one_place(o, left) for o in out):
            out.append(left)

    for e in errors:
        add(e)
    if not read:
        from vision.codebook import candidate_quads

        squares = []
        for q in candidate_quads(gray):
            c, side = q.mean(axis=0), float(np.linalg.norm(q[0] - q[2])) / np.sqrt(2)
            at = (float(c[0]), float(c[1]))
            squares.append(Left(at, side, module_texture(gray, c, side), (q,)))
        for o in sorted(squares, key=lambda o: -o.texture):  # the most detailed of a place
            if o.texture >= LEFT_TEXTURE_GREY:
                add(o)
        # every square found where each lies, for the codebook (the search's scales differ
        # on a crop: the squares found on the whole photo are those it was measured with)
        return [
            replace(
                o,
                quads=tuple(
                    q.quads[0]
                    for q in squares
                    if _near(q.centre, o.centre, o.side / 2) and q.side < 2 * o.side
                ),
            )
            if o.texture != float("inf")
            else o
            for o in out
        ]
    side = float(np.median([c.side for c in read]))
    ref = float(np.median([module_texture(gray, c.centre, c.side) for c in read]))
    out = [
        replace(o, sharp=module_texture(gray, o.centre, o.side) >= LEFT_SHARP_SHARE * ref)
        for o in out
    ]
    img, k = gray, 1.0
    while side * k >= 2 * LEFT_CODE_PX:  # halved (fast) until a code is 16-32 px across
        img = _halved(img)
        k /= 2
    smooth = cv2.GaussianBlur(img, (0, 0), max(1.0, side * k / 21))  # a module or more
    reach = 2 * round(0.75 * side * k) + 1  # the label round a code: 1.5 of its sides across
    white = cv2.dilate(smooth, cv2.getStructuringElement(cv2.MORPH_RECT, (reach, reach)))
    mask = ((smooth < LEFT_DARKER * white.astype(np.float32)) & (white > 40)).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    lo, hi = (f * side * k for f in LEFT_SIDES)
    for cnt in contours:
        _, _, bw, bh = cv2.boundingRect(cnt)  # a square of side s spans s to 1.42 s upright
        if not (lo <= min(bw, bh) and max(bw, bh) <= 1.5 * hi):
            continue
        rect = cv2.minAreaRect(cnt)
        (cx, cy), (rw, rh), _ = rect
        if not lo <= min(rw, rh) <= max(rw, rh) <= hi or max(rw, rh) > 1.5 * min(rw, rh):
            continue
        if cv2.contourArea(cv2.convexHull(cnt)) < LEFT_FILL * rw * rh:
            continue
        centre, sq = (cx / k, cy / k), float(np.sqrt(rw * rh)) / k
        if free(centre, sq):
            quad = cv2.boxPoints(rect).astype(np.float32) / k
            add(Left(centre, sq, module_texture(gray, centre, sq) / ref, (quad,)))
    return [o for o in out if o.texture >= LEFT_TEXTURE_SHARE]


def module_texture(gray: NDArray[Any], centre: Point | NDArray[Any], side: float) -> float:
    """The mean module-scale detail in the square of ``side`` px round ``centre``: its inner
    80% scaled to 2 px a module (of a version-1 code), less its own blur at a module (grey
    levels)."""
    r = 0.4 * side
    x0, y0 = max(0, int(centre[0] - r)), max(0, int(centre[1] - r))
    x1, y1 = int(centre[0] + r) + 1, int(centre[1] + r) + 1
    crop = gray[y0:y1, x0:x1]
    if crop.shape[0] < 4 or crop.shape[1] < 4:
        return 0.0
    f = 0.8 * 42 / max(crop.shape)
    interp = cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR
    img = cv2.resize(crop, None, fx=f, fy=f, interpolation=interp).astype(np.float32)
    return float(np.abs(img - cv2.GaussianBlur(img, (0, 0), 2.0)).mean())


def module_blur(gray: NDArray[Any], quad: NDArray[Any]) -> float:
    """How blurred the code in ``quad`` (corners, px) is: a Gaussian's sigma in modules of a
    version-1 code (21 a side), from its contrast (the 2nd to 98th percentile of its grey) over
    its steepest edges (the 90th percentile of the grey's gradient where it is at least a
    quarter of its greatest): an edge of contrast C blurred by sigma px rises at most
    C / (sigma sqrt(2 pi)) a px. A plain card over part of the code leaves the edges' share."""
    corners = [(float(x), float(y)) for x, y in np.asarray(quad, np.float64).reshape(4, 2)]
    side, c = quad_side(corners), quad_centre(corners)
    r = 0.45 * side
    x0, y0 = max(0, int(c[0] - r)), max(0, int(c[1] - r))
    crop = gray[y0 : int(c[1] + r) + 1, x0 : int(c[0] + r) + 1].astype(np.float32)
    if crop.shape[0] < 8 or crop.shape[1] < 8:
        return 0.0
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3) / 8
    grad = np.hypot(gx, gy)
    if float(grad.max()) <= 0:
        return 0.0
    steepest = float(np.percentile(grad[grad >= 0.25 * grad.max()], 90))
    lo, hi = np.percentile(crop, (2, 98))
    return float((hi - lo) / (np.sqrt(2 * np.pi) * steepest) / (side / 21))


# A code is a square of module-scale detail on its plain label: where no square darker than
# its light was found (a code washed pale by glare, its dark modules thinned, or merged with a
# thumb or a dark card edge beside it), it is still a square busier than the ring round it.
# texture_spots scores each place by the mean module detail (the grey's difference from its
# SPOT_BLUR px mean) in a square less that in the ring round it, at each of SPOT_OCTAVES halvings
# of the photo with each of SPOT_BOXES (a code of 26-144 px at 1080p), or at the codes' own size.
# Card art is busy too (up to 60 grey levels, more than a pale code's 5-25): a spot is only a
# place to look, never a code, so it gets the crop's re-reads (zxing-cpp's error correction
# and the kit's check, as for any code the first pass reads); the codebook weighs only squares
# found anew round it, where nothing was read (codebook.spot_quads). Measured on
# the held-out generator's diagnostic seeds (1080p fans 970 000-970 039, the set's mix
# 971 000-971 029, 12 MP fans 972 000-972 019; never the named held-out sets): 7 codes more,
# 0 wrong.
SPOT_BLUR = 5  # px: a module of 1.3-3.5 px differs from this mean (3 px: one code fewer)
SPOT_BOXES = ((13, 23), (18, 32))  # a square's side and its ring's outer side, px at an octave
SPOT_OCTAVES = 3  # halvings of the photo (at most ~2 MP) the spots are looked for at
# Beside codes read, the codes read themselves are busy, and a code paler than they are (less
# contrast in its label's light, a shadow's edge) is less busy than they are: its spot scores
# less of the codes' own score, by the ratio of the two codes' contrasts. Was 0.65 (the spots
# read on the diagnostic sets scored 0.68-1.17 of it): a fresh 1080p fan held two codes of
# 2.1 px a module at 0.49 and 0.56, paler than the code read beside them (each square's mean
# 0.87-0.88 of the label's grey, against its 0.83), unread, though a crop at the place of one
# (the other under a shadow's edge) decodes. At 0.4, the codes read at a spot beside codes
# read scored 0.44-1.32 of it: held-out margin 0.04 (fresh fans
# 1080p 984 000-039 59 -> 60/64, 12 MP 985 000-019 29 -> 30/33; every diagnostic set the same
# codes). What a lower share lets in is a place to look, never a code (a spot's ladder is the
# crop's re-reads, zxing-cpp's error correction and the kit's check), and SPOT_TRIES caps it:
# the sets' time the same within one core's noise
SPOT_SHARE = 0.4  # a spot beside codes read: at least this share of their own score
SPOT_GREY = 3.0  # grey levels a spot is busier than its ring at least (the codes read: 15-20)
SPOT_SIDE_PX = 13.0  # the codes' side at the octave their spots are looked for at, or less
# (26: the same codes read, the score map at twice the cost)
SPOT_MARGIN = 0.5  # code sides of the photo kept round a spot, each way (1.0: the same codes)
SPOT_TRIES = 4  # spots tried a photo, the busiest first (the codes read were 1st to 3rd)
# a spot's side is its square's at the octave it was found at, up to twice the code's: where
# nothing was read, the codebook weighs squares round it of these shares of that side
SPOT_SIZES = (1.0, 0.75, 0.55)
# A spot's ladder weighs squares of SPOT_SIZES of its side: a later spot at its place is left
# to that look only when it is about as large, within SPOT_SAME (the boxes are 1.38-1.44
# apart). Was any spot at its place: a code of 46 px (held-out 1080p fans 989 002), busiest as
# a box of 26 on its edge and busy as a box of 36 and 52 at its place, was weighed only at
# 14-26 px
SPOT_SAME = 0.2
# Past the SPOT_TRIES spots that get a ladder, the next spots (at least the same floor; none
# within a side of a glance taken) get a glance: the crop's first re-read (zxing-cpp's error
# correction and the kit's check, as for any re-read: never a code on its own say), on a crop
# four of the spot's sides across (a spot's box may be a part of its code: a code of 95 px at
# 12 MP was busiest as boxes of 52 and 72 on its edge), upscaled 2x but to at most GLANCE_PX.
# A glance costs 0.3-2 ms where a spot's ladder costs 5-15; where nothing is read first, the
# busiest places are card art, and a code under glare (held-out 12 MP fans 985 009: two codes
# of 4.5 px a module under a glare of 118-122 grey levels) or paler than the art (977 019: 72
# grey levels of contrast) ranks 12th to 34th among the spots. The codes read at a glance on
# the diagnostic sets were at the 1st to 7th glance: margin one glance.
SPOT_GLANCES = 8
# a glance's crop, decoded at up to this many px: a code filling a quarter of it (a spot on
# its edge) is 100 px or more, 4.7 px a module; at 300 px, the two codes of 985 009 (4.5 px a
# module at 12 MP, 2.4 at 300) were not read. On 12 MP fans 985 000-019 the glances took
# 47 ms upscaled 2x whatever the crop's size, 16 ms at this (the same codes)
GLANCE_PX = 400.0


def _spot_scores(detail: NDArray[Any], inner: int, outer: int) -> NDArray[Any]:
    """Mean ``detail`` in the ``inner`` px square round each pixel less that in the ring out
    to the ``outer`` px square."""
    d = detail.astype(np.float32)
    a, b = inner * inner, outer * outer
    box_in = cv2.boxFilter(d, -1, (inner, inner))
    box_out = cv2.boxFilter(d, -1, (outer, outer))
    # ring = (b * out - a * in) / (b - a); in - ring = (in - out) * b / (b - a)
    return cv2.addWeighted(box_in, b / (b - a), box_out, -b / (b - a), 0.0)


def texture_spots(
    gray: NDArray[Any], side: float | None = None
) -> list[tuple[float, Point, float]]:
    """Places that may hold a code (:data:`SPOT_BOXES`): each as its score (grey levels of
    module detail its square shows more than the ring round it), centre and side (photo px),
    the best first. With ``side`` (the codes read), only at that size."""
    img, f = gray, 1.0
    while max(img.shape[:2]) > 2100:  # a 12 MP photo halved: its modules stay 1.5 px or more
        img = _halved(img)
        f /= 2
    detail = cv2.absdiff(img, cv2.blur(img, (SPOT_BLUR, SPOT_BLUR)))
    if side is None:
        plan = [(o, box) for o in range(1, SPOT_OCTAVES + 1) for box in SPOT_BOXES]
    else:  # the octave where the codes are SPOT_SIDE_PX or less, a square a little narrower
        o = 1
        while side * f / 2**o > SPOT_SIDE_PX and o < 8:
            o += 1
        inner = max(5, round(0.9 * side * f / 2**o) | 1)
        plan = [(o, (inner, round(1.8 * inner) | 1))]
    out: list[tuple[float, Point, float]] = []
    level, d = 0, detail
    for o, (inner, outer) in plan:
        while level < o:
            d = _halved(d)
            level += 1
        if min(d.shape[:2]) < outer:
            break
        score = _spot_scores(d, inner, outer)
        peak = cv2.dilate(score, np.ones((inner // 2 + 1,) * 2, np.uint8))
        ys, xs = np.nonzero((score >= peak) & (score > 0.5))  # its square's peaks
        k = 2**o / f  # photo px a px at this octave
        for y, x, v in zip(ys.tolist(), xs.tolist(), score[ys, xs].tolist(), strict=True):
            out.append((v, ((x + 0.5) * k, (y + 0.5) * k), inner * k))
    out.sort(key=lambda t: -t[0])
    return out


def _shifted(codes: Iterable[RawCode], offset: Point, scale: float = 1.0) -> list[RawCode]:
    """``codes`` found on a crop whose top-left is ``offset`` (scaled by ``scale``), in the
    photo's pixels."""
    ox, oy = offset
    return [
        RawCode(
            c.text,
            tuple((x / scale + ox, y / scale + oy) for x, y in c.corners),  # type: ignore[arg-type]
            c.matched,
        )
        for c in codes
    ]


def _thickened(crop: NDArray[Any], scales: Scales | None = None) -> list[RawCode]:
    """``crop`` upscaled 2x with its dark modules thickened by a px (a grey erosion): a code
    whose dark modules light has thinned to strokes (glare, a bright exposure) has its finders'
    1:1:3:1:1 proportions back. Corners in ``crop``'s pixels."""
    big = (scales if scales is not None and scales.img is crop else Scales(crop)).at(2.0)
    return decode_qr(cv2.erode(big, np.ones((2, 2), np.uint8)), 2.0)


def _ladder(
    gray: NDArray[Any],
    left: Left,
    known: Sequence[RawCode],
    book: Codebook | Callable[[], Codebook] | None,
    sized: bool = True,
) -> Iterator[list[RawCode]]:
    """The costly passes on a crop of ``gray`` round ``left``, one at a time (the caller stops
    once a code is read there): the crop sharpened (upscaled 2x round a symbol under
    :data:`LADDER_SIDE_PX`; equalised if need be), the
    :data:`RETRIES`, the blur undone at the scale the whole photo would be
    (:data:`DEBLUR_PIXELS`) and our finder on it (photos read at their own size), and the
    kit's codebook (squares found at the whole photo's working scales, and of our finder's
    pairs). Corners in ``gray``'s pixels. Unless ``sized`` (``left``'s side measured against
    the codes read), the crop is twice as wide: a square the codebook's search found may be
    only a part of a code. Round a symbol wider than :data:`LADDER_SIDE_PX`, every pass runs
    on the crop scaled down to it. Round a texture spot (``left.spot``), a crop of
    :data:`SPOT_MARGIN` and only the first re-reads; where nothing was read, the thickened
    rung and the codebook on the squares round it (:func:`~vision.codebook.spot_quads`), and
    on the square turned as its edges run (:func:`~vision.codebook.likeliest_turned`). Round a
    glance (``left.glance``, :data:`SPOT_GLANCES`), only the crop's re-read, on a crop twice as
    wide as a spot's, upscaled to at most :data:`GLANCE_PX`."""
    h, w = gray.shape[:2]
    if left.glance:
        r = (0.5 + SPOT_MARGIN) * left.side * 2
        cx, cy = left.centre
        up = min(2.0, GLANCE_PX / (2 * r))
        yield decode_crop(gray, (int(cx - r), int(cy - r), int(2 * r) + 1, int(2 * r) + 1), up)
        return
    margin = SPOT_MARGIN if left.spot else CROP_MARGIN
    r = (0.5 + margin) * left.side * (1 if sized else 2)
    x0, y0 = max(0, int(left.centre[0] - r)), max(0, int(left.centre[1] - r))
    x1, y1 = min(w, int(left.centre[0] + r) + 1), min(h, int(left.centre[1] + r) + 1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return
    crop = gray[y0:y1, x0:x1]
    off = (float(x0), float(y0))
    fit = min(1.0, LADDER_SIDE_PX / left.side)  # a large symbol's crop scaled down
    small = (
        crop if fit == 1.0 else cv2.resize(crop, None, fx=fit, fy=fit, interpolation=cv2.INTER_AREA)
    )
    sh, sw = small.shape[:2]
    at = np.array(off, np.float32)

    def in_small(quads: Iterable[NDArray[Any]]) -> list[NDArray[Any]]:
        return [(q - at) * fit for q in quads]  # the photo's px -> small's

    def matched(quads: Sequence[NDArray[Any]], search: bool = False) -> list[RawCode]:
        """The kit's codes the codebook matches on ``small`` (``quads`` in its px), away from
        the codes read."""
        if book is None:
            return []
        kit = book if isinstance(book, Codebook) else book()
        centres = [((c.centre[0] - off[0]) * fit, (c.centre[1] - off[1]) * fit) for c in known]
        found = matched_codes(
            small,
            kit,
            centres,
            quads=quads,
            photo_side=round(max(h, w) * fit),
            search=search,
        )
        return _shifted((RawCode(p, corners, m.score) for p, corners, m in found), off, fit)

    # a symbol scaled down to LADDER_SIDE_PX (6 px a module) is decoded at that size: upscaled
    # 2x it shows nothing more at four times the cost (diagnostic held-out 12 MP fans: the
    # same codes read, the ladders' time 10-15% less; 1080p fans 973 000-039: one code more).
    # Not a spot: its side is coarse, up to twice its code's, whose modules may be 3 px there
    # (fresh 12 MP fans 976 017: a code read only upscaled)
    upscale = 2.0 if fit == 1.0 or left.spot else 1.0
    scales = Scales(small)  # the crop at each scale, made once for every rung below
    yield _shifted(decode_crop(small, (0, 0, sw, sh), upscale, scales=scales), off, fit)
    # beside codes a decoder read, a spot is looked at for a code as sharp as they are (the
    # crop's re-read; the codebook on a turned square there too read 970 031 and two codes of
    # 995, and took the photos the first pass read entirely from 7 to 11.5 ms by the median:
    # docs/vision.md, round fourteen); beside a code only the codebook read, the photo's codes
    # are blurred past decoding, and a spot gets the codebook as where nothing was read
    # (diagnostic held-out 1080p fans 979 001: three codes of 1.7 px a module, one matched
    # first and the other two then left to the re-read alone)
    if left.spot and known and all(c.matched is None for c in known):
        return
    yield _shifted(_thickened(small, scales), off, fit)
    if left.spot:  # nothing read, or only matched: the codebook on squares of a code's size
        if book is not None:
            sides = [f * left.side for f in SPOT_SIZES]
            quads = spot_quads(gray, left.centre, sides)
            # and the square of the codes' side (or the spot's) turned as its edges run: a pale
            # code no cut of its grey makes a square (held-out 1080p fans 979 034, 973 005)
            side = float(np.median([c.side_px for c in known])) if known else left.side
            turned = likeliest_turned(gray, left.centre, side)
            quads += [] if turned is None else [turned]
            yield matched(in_small(quads))
        return
    for scale, amount, binarizer in RETRIES:
        yield _shifted(_retry(small, scale, amount, binarizer, scales), off, fit)
    if not left.deep:  # located, not decoded, and its edges sharp (LEFT_BLURRED_MODULES)
        return
    whole = min(1.0, float(np.sqrt(DEBLUR_PIXELS / (w * h))))  # the photo's deblur scale
    k = min(whole, fit)
    work = crop if k == 1.0 else cv2.resize(crop, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    finders: list[list[tuple[float, float, float]]] = []
    for sigma, sharp in zip(DEBLUR_SIGMAS, deblurred(work, DEBLUR_SIGMAS), strict=True):
        yield decode_qr(sharp, k, off)
        if sigma in FINDER_SIGMAS and whole == 1.0:  # at 12 MP it read none the rest missed
            finders.append(finder_patterns(sharp))
            yield _shifted(finder_codes(sharp, k, finders[-1]), off)
    if book is not None and not left.sharp:  # a sharp symbol unread is covered or damaged
        # The crop is searched for squares again, except when nothing was read: there a
        # square's quads are every square the codebook's own search found at its place on the
        # whole photo (left_undecoded), at the working scales the crop's search would use
        # (photo_side). Diagnostic held-out photos at 1080p (fans 970 000-970 039, the set's
        # mix 971 000-971 029): the same codes read, the codebook's time 1.8 -> 1.3 s and
        # 1.4 -> 0.6 s over each set (with LADDER_SIDE_PX). Beside codes read, a square is a
        # box of the coarse search in left_undecoded, not the codebook's: not searched again
        # there, a tuned overlapping fan at 1080p lost a code the crop's own search finds.
        again = bool(known) or left.texture == float("inf")
        pairs = _pair_squares(finders)  # found at k, which is fit there
        yield matched([*in_small(left.quads), *pairs], search=again)


def _covers(tried: Left, p: Point, side: float) -> bool:
    """Whether the ladder round ``tried`` looked at a spot of ``side`` px at ``p`` as the
    spot's own would: the spot within half the larger side, and ``tried`` no wider than
    :data:`LADDER_SIDE_PX` (its crop read at its own px) or than twice the spot's side (about
    a code's square round the spot). A wider square's crop is scaled down to
    :data:`LADDER_SIDE_PX`: a square of card art five times a code's side showed a code of
    2.4 px a module at 1.2, unread (held-out 1080p fans 979 002).

    What the ladder's codebook weighed decides too. A spot's ladder weighed squares of its own
    side's :data:`SPOT_SIZES`: it covers a spot about as large (:data:`SPOT_SAME`). A square
    tried where nothing was read weighed only the squares the search had found at its place
    (``searched`` false): it covers the spot only when one of those is of a size the spot's
    own look weighs (:data:`SPOT_SIZES` within :data:`~vision.codebook.SPOT_FIT`) and is
    centred within half the spot's side. Held-out 1080p
    fans 989 021: a pale code of 28 px, 1.3 px a module, 24 px from the centre of a square of
    art of 83 px whose ladder weighed squares of 71 and 83 px, matched at its own spot (0.89,
    a lead of 0.42)."""
    if not _near(tried.centre, p, max(tried.side, side) / 2):
        return False
    if tried.spot:  # its codebook weighed squares of its own side's SPOT_SIZES
        return abs(tried.side / side - 1) < SPOT_SAME
    if not tried.searched:  # its codebook weighed only the squares found there before
        lo, hi = SPOT_FIT[0] * min(SPOT_SIZES) * side, SPOT_FIT[1] * max(SPOT_SIZES) * side
        return any(
            _near((float(q[:, 0].mean()), float(q[:, 1].mean())), p, side / 2)
            and lo <= float(np.linalg.norm(q[0] - q[2])) / np.sqrt(2) <= hi
            for q in tried.quads
        )
    return tried.side <= max(LADDER_SIDE_PX, 2 * side)


def _looked_at(tried: Left) -> bool:
    """Whether the ladder round ``tried`` ran every pass its place asks: not a square of the
    search whose ladder stopped at the crop's re-reads (:data:`NOTHING_DEEP`, or a small square
    kept once a code was read), which leaves a spot there to its own look; nor a glance (one
    re-read)."""
    return not tried.glance and (tried.deep or tried.spot or tried.texture == float("inf"))


def _spots_left(gray: NDArray[Any], codes: Sequence[RawCode], tried: Sequence[Left]) -> list[Left]:
    """The :func:`texture_spots` of ``gray`` no code read or ladder tried covers, at least
    :data:`SPOT_SHARE` of the codes' own score (or :data:`SPOT_GREY` when nothing was read),
    the busiest :data:`SPOT_TRIES`; each gets the crop's first re-reads, and where nothing was
    read (or only codes the codebook matched) the codebook on squares of a code's size round it
    (a busy place is not yet a code's square: the squares are found anew there, see
    :func:`_ladder`). After them, up to :data:`SPOT_GLANCES` more, none within a side of a
    glance taken, each a glance (one re-read)."""
    read = [(c.centre, c.side_px) for c in codes]  # each a quad's sums: worked out once
    side = float(np.median([sd for _, sd in read])) if read else None
    spots = texture_spots(gray, side)
    if not spots:
        return []
    values = np.array([v for v, _, _ in spots])
    places = np.array([p for _, p, _ in spots])
    ref, floor = 1.0, SPOT_GREY
    if read:  # the codes' own score: the busiest spot within half a side of each
        ref = float(
            np.median(
                [
                    values[np.hypot(*(places - np.array(at)).T) < sd / 2].max(initial=0.0)
                    for at, sd in read
                ]
            )
        )
        floor = max(SPOT_GREY, SPOT_SHARE * ref)  # codes in no spot: the plain floor
        ref = max(ref, floor)
    out: list[Left] = []
    glances: list[Left] = []
    for score, p, sd in spots:
        if score < floor or len(glances) >= SPOT_GLANCES:
            break
        if any(_near(at, p, max(s, sd)) for at, s in read):
            continue
        if any(_covers(t, p, sd) for t in [*tried, *out] if _looked_at(t)):
            continue
        if len(out) < SPOT_TRIES:
            out.append(Left(p, sd, score / ref, sharp=True, deep=False, spot=True))
        elif not any(_near(g.centre, p, max(g.side, sd)) for g in [*tried, *glances] if g.glance):
            glances.append(Left(p, sd, score / ref, sharp=True, deep=False, spot=True, glance=True))
    return out + glances


def phone_codes(
    gray: NDArray[Any], book: Codebook | Callable[[], Codebook] | None = None
) -> tuple[list[RawCode], int]:
    """Every code in a phone photo: :func:`first_pass`, then :func:`_ladder` round each of
    :func:`left_undecoded` until a code is read there (when the first pass read nothing, the
    most detailed squares first). Each time the ladder reads a code, what is left is looked for
    again at the codes' size. Returns the codes and the passes run."""
    codes, errors = first_pass(gray)
    passes = 1
    lefts = left_undecoded(gray, codes, errors)
    tried: list[Left] = []
    spotted = False
    blind = 0  # squares of the search laddered while nothing is read (NOTHING_TRIES)
    while lefts or not spotted:
        if not lefts:  # what no square named: the spots busier than their ring (again after
            # a spot read a code, below)
            spotted = True
            lefts = _spots_left(gray, codes, tried)
            continue
        left = lefts.pop(0)
        if _read_at(codes, left):
            continue  # read by the ladder round another
        if not codes and not left.spot and left.texture != float("inf"):
            blind += 1  # the most detailed first (left_undecoded)
            if blind > NOTHING_TRIES:
                continue
            if blind > NOTHING_DEEP:
                left = replace(left, deep=False)
        # where nothing was read, a square's codebook weighs only the squares found there
        searched = bool(codes) or left.spot or left.texture == float("inf")
        tried.append(left if searched else replace(left, searched=False))
        before = len(codes)
        for found in _ladder(gray, left, codes, book, sized=bool(codes)):
            passes += 1
            codes = merge_codes([*codes, *found], min_dist=max(8.0, 0.3 * SMALL_CODE_PX))
            if _read_at(found, left):
                break
        if len(codes) > before:  # what is left, looked for again at the codes' size
            # and, after a spot read a code, the spots too: the codes' own score is now also
            # that of a code read only at its spot, less busy than the codes the first pass read
            spotted = spotted and not left.spot
            fresh = [
                new
                for new in left_undecoded(gray, codes, [])
                if not any(_one_place(t, new) for t in tried if not t.glance)
            ]
            # The squares kept from where nothing was read stay where they are. One under
            # LEFT_SIDES[0] of the codes' side is no code whose blur merged its modules (that
            # is a grey square of the codes' size, which the look above names afresh, for the
            # costly passes): it is a finder of a code sharp enough to show one, or art. It is
            # tried at the codes' size with the crop's re-reads only (no deep passes), and at
            # that size once a place (not within half a side of a place tried or kept).
            # Diagnostic held-out 12 MP fans 972 000-019: the same 25 codes, the slowest photo
            # 1.7 -> 1.0 s (thirteen squares of its card art each ran the codebook's search)
            size = float(np.median([c.side_px for c in codes]))
            kept = list(fresh)
            for old in lefts:
                if old.side < LEFT_SIDES[0] * size:
                    old = replace(old, side=size, deep=False)
                if not any(_one_place(o, old) for o in [*tried, *kept]):
                    kept.append(old)
            lefts = kept
    return codes, passes


def quad_of(points: Sequence[Sequence[float]]) -> Quad:
    """Four (x, y) points as a Quad. Raises ValueError for another count."""
    if len(points) != 4:
        raise ValueError(f"a quad has 4 corners, not {len(points)}")
    a, b, c, d = ((float(p[0]), float(p[1])) for p in points)
    return (a, b, c, d)
