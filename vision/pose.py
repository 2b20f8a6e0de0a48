"""Where a printed mat lies in a frame, and what lies flat on it: the parts of the table camera
no game owns (issue 38). A game's package finds its mat's corner markers and fits the pose;
this module holds the pose itself (mat mm <-> image px), the test that a printed square lies flat
on the mat (a card held above it comes back bigger, askew or turned), a rectangle of the mat
seen straight from above, and the kit's codes matched in it (:mod:`vision.codebook`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.codebook import Codebook, matched_codes
from vision.decode import Point, Quad, RawCode, quad_centre, quad_side


@dataclass(frozen=True, slots=True)
class Lens:
    """A lens's radial (barrel or pincushion) distortion, one term about the frame's centre:
    a point ``r`` from ``centre``, in units of ``scale`` px (half the frame's diagonal), is seen
    at ``r * (1 + k * r**2)`` (OpenCV's k1, with the frame's half-diagonal for the focal length).
    A webcam's wide lens bends the mat's straight edges by up to ``k`` = -0.45 or so."""

    k: float
    centre: Point
    scale: float

    @classmethod
    def of_frame(cls, k: float, size: tuple[int, int]) -> Lens:
        """The lens term ``k`` about the centre of a frame ``size`` (w, h) px."""
        w, h = size
        return cls(k, ((w - 1) / 2, (h - 1) / 2), float(np.hypot(w, h)) / 2)

    def _camera(self) -> NDArray[Any]:
        cx, cy = self.centre
        return np.array([[self.scale, 0, cx], [0, self.scale, cy], [0, 0, 1]], np.float64)

    def distort(self, pts: NDArray[Any]) -> NDArray[Any]:
        """Straight-lens px -> px as the frame shows them, for an (n, 2) array."""
        c = np.asarray(self.centre, np.float64)
        u = (np.asarray(pts, np.float64) - c) / self.scale
        r2 = np.sum(u * u, axis=-1, keepdims=True)
        res: NDArray[Any] = c + u * (1 + self.k * r2) * self.scale
        return res

    def undistort(self, pts: NDArray[Any]) -> NDArray[Any]:
        """Px as the frame shows them -> straight-lens px, for an (n, 2) array."""
        a = np.asarray(pts, np.float64).reshape(-1, 1, 2)
        K = self._camera()
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9)
        d = np.array([self.k, 0.0, 0.0, 0.0])
        res: NDArray[Any] = cv2.undistortPoints(a, K, d, None, None, K, crit).reshape(-1, 2)
        return res

    def scaled(self, a: NDArray[Any]) -> Lens:
        """The same lens in a frame resized by the similarity ``a`` (3 x 3: scale, shift)."""
        cx, cy = self.centre
        nx, ny, _ = a @ np.array([cx, cy, 1.0])
        return Lens(self.k, (float(nx), float(ny)), self.scale * float(a[0, 0]))


class MatNotFound(ValueError):
    """The mat's corner markers are not visible enough to locate it; the message says which
    markers were seen."""


@dataclass(frozen=True, slots=True)
class Marker:
    """An ArUco marker: its id and its four corners in image px (the marker's own TL, TR,
    BR, BL as printed)."""

    id: int
    corners: tuple[Point, Point, Point, Point]

    @property
    def centre(self) -> Point:
        return quad_centre(self.corners)

    @property
    def side_px(self) -> float:
        return quad_side(self.corners)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners]}


@dataclass(frozen=True)
class MatPose:
    """Where the mat lies in the image: ``homography`` maps mat mm to image px.

    ``error_mm`` is the mean distance, back in mat millimetres, between where the corner
    markers' points were seen and where the fitted homography puts them; ``confidence`` is
    1.0 with four markers and a small error, less with fewer markers or a larger error.
    ``lens``, when the frame's lens bends the mat (:func:`fit_pose`): the homography then maps
    mat mm to the px a straight lens would show, and the lens term bends them as the frame does.
    """

    homography: NDArray[Any]
    markers: tuple[int, ...]
    error_mm: float
    confidence: float
    lens: Lens | None = None

    @property
    def inverse(self) -> NDArray[Any]:
        inv: NDArray[Any] = np.linalg.inv(self.homography)
        return inv

    def to_image(self, pts_mm: NDArray[Any] | list[Point]) -> NDArray[Any]:
        """Mat mm -> image px for an (n, 2) array of points."""
        a = np.asarray(pts_mm, np.float64).reshape(-1, 1, 2)
        res: NDArray[Any] = cv2.perspectiveTransform(a, self.homography).reshape(-1, 2)
        return res if self.lens is None else self.lens.distort(res)

    def to_mat(self, pts_px: NDArray[Any] | list[Point]) -> NDArray[Any]:
        """Image px -> mat mm for an (n, 2) array of points."""
        a = np.asarray(pts_px, np.float64).reshape(-1, 2)
        if self.lens is not None:
            a = self.lens.undistort(a)
        res: NDArray[Any] = cv2.perspectiveTransform(a.reshape(-1, 1, 2), self.inverse)
        return res.reshape(-1, 2)

    def scaled(self, a: NDArray[Any]) -> MatPose:
        """The same pose in the frame resized by the similarity ``a`` (3 x 3: scale, shift)."""
        lens = None if self.lens is None else self.lens.scaled(a)
        return MatPose(a @ self.homography, self.markers, self.error_mm, self.confidence, lens)

    def px_per_mm(self, at_mm: Point) -> float:
        """The image scale (px per mm) around a mat point: the geometric mean of the local
        stretch along x and y."""
        x, y = at_mm
        p = self.to_image([(x, y), (x + 10, y), (x, y + 10)])
        sx = float(np.hypot(*(p[1] - p[0]))) / 10
        sy = float(np.hypot(*(p[2] - p[0]))) / 10
        return float(np.sqrt(sx * sy))

    def to_json(self) -> dict[str, Any]:
        return {
            "markers": list(self.markers),
            "error_mm": round(self.error_mm, 2),
            "confidence": round(self.confidence, 3),
            "homography": [[round(float(v), 6) for v in row] for row in self.homography],
            **({} if self.lens is None else {"lens_k": round(self.lens.k, 4)}),
        }


# A marker's perimeter, as a share of the frame's long side (the frame as searched, at most
# DETECT_MAX_SIDE), under which the detector drops a candidate: OpenCV's default 0.03, a side of
# 14.4 px at 1080p, 2.4 px a cell of a 4x4 marker and its border, which is not read reliably
# below that. The smallest marker over 10 frames of each overhead set measured 24 px (tuned
# 1080p; held-out 29-32 px at 1080p, 4K, 12 MP). At 0.015 every set found the same markers,
# and the held-out 1080p frames took 17.9 ms against 12.8 (the texture of a lived-in table
# makes many small candidates)
MIN_MARKER_PERIMETER_RATE = 0.03
DETECT_MAX_SIDE = 2200  # larger frames are searched for markers at this size (then scaled back)


def _detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = MIN_MARKER_PERIMETER_RATE
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # one threshold window (15 px) instead of OpenCV's three (3, 13, 23): on our frames with
    # uneven light and glare it found the same markers in under half the CPU time
    params.adaptiveThreshWinSizeMin = 15
    params.adaptiveThreshWinSizeMax = 15
    params.adaptiveThreshWinSizeStep = 10
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return cv2.aruco.ArucoDetector(dictionary, params)


_DETECTOR = _detector()


def detect_markers(gray: NDArray[Any], ids: frozenset[int]) -> list[Marker]:
    """The markers of ``ids`` (the kit's, of OpenCV's ``DICT_4X4_50``) in a grey image; other
    ids of the dictionary are not ours and are ignored. A frame larger than
    ``DETECT_MAX_SIDE`` is searched at that size and the corners scaled back (a 12 MP frame:
    markers stay above 40 px)."""
    scale = min(1.0, DETECT_MAX_SIDE / max(gray.shape[:2]))
    small = (
        gray
        if scale >= 1.0
        else cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    )
    corners, found, _ = _DETECTOR.detectMarkers(small)
    out: list[Marker] = []
    if found is None:
        return out
    for quad, mid in zip(corners, found.ravel(), strict=True):
        if int(mid) not in ids:
            continue
        pts = quad.reshape(4, 2) / scale
        out.append(
            Marker(int(mid), tuple((float(x), float(y)) for x, y in pts))  # type: ignore[arg-type]
        )
    return out


def clearest(markers: list[Marker], ids: frozenset[int]) -> dict[int, Marker]:
    """The markers of ``ids`` seen, by id; the clearest (largest) of repeats."""
    by_id: dict[int, Marker] = {}
    for m in markers:
        if m.id in ids and (m.id not in by_id or m.side_px > by_id[m.id].side_px):
            by_id[m.id] = m
    return by_id


# Where a bent lens puts each pixel of a straightened view is worked out every WARP_GRID_PX px
# of the view and interpolated between (bilinearly) for the rest: the pose (a homography, then
# one radial term) bends slowly, so at 8 px the interpolated place is within 0.04 px of the
# exact one on the strongest lens the pose follows (k = -0.6 of LENS_K, a 1.5 px/mm view of
# the whole mat from a 1080p frame; tests/test_vision_lens.py), and the view costs a 64th of
# the points' arithmetic: that view took 32 ms point by point, 1.5 ms so.
WARP_GRID_PX = 8


def _lens_maps(
    pose: MatPose, origin: Point, size: tuple[int, int], px_per_mm: float
) -> tuple[NDArray[Any], NDArray[Any]]:
    """For a view of ``size`` (w, h) px at ``px_per_mm`` from mat point ``origin`` (mm): the
    frame's x and y of each of its pixels (cv2.remap's maps), computed on a grid of
    :data:`WARP_GRID_PX` and interpolated."""
    g = WARP_GRID_PX
    w, h = size
    nx, ny = -(-w // g) + 2, -(-h // g) + 2  # the nodes, one past the view on every side
    # node i stands at the centre of the grid's block i - 1, view px (i - 0.5) g - 0.5, so that
    # cv2.resize's bilinear upscaling by g puts view px X at its X + g (cropped off below)
    u = origin[0] + ((np.arange(nx, dtype=np.float64) - 0.5) * g - 0.5) / px_per_mm
    v = origin[1] + ((np.arange(ny, dtype=np.float64) - 0.5) * g - 0.5) / px_per_mm
    gu, gv = np.meshgrid(u, v)
    px = pose.to_image(np.stack([gu.ravel(), gv.ravel()], axis=1)).astype(np.float32)
    maps = []
    for coarse in (px[:, 0].reshape(ny, nx), px[:, 1].reshape(ny, nx)):
        fine = cv2.resize(coarse, (nx * g, ny * g), interpolation=cv2.INTER_LINEAR)
        maps.append(np.ascontiguousarray(fine[g : g + h, g : g + w]))
    return maps[0], maps[1]


def warp_region(
    image: NDArray[Any],
    pose: MatPose,
    rect_mm: tuple[float, float, float, float],
    px_per_mm: float,
) -> NDArray[Any]:
    """One rectangle of the mat (x, y, w, h in mm) seen straight from above."""
    x, y, w, h = rect_mm
    size = (max(1, round(w * px_per_mm)), max(1, round(h * px_per_mm)))
    if pose.lens is not None:
        mx, my = _lens_maps(pose, (x, y), size, px_per_mm)
        warped: NDArray[Any] = cv2.remap(image, mx, my, cv2.INTER_LINEAR)
        return warped
    T = np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], np.float64)
    S = np.diag([px_per_mm, px_per_mm, 1.0])
    M = S @ np.linalg.inv(T) @ pose.inverse
    out: NDArray[Any] = cv2.warpPerspective(image, M, size, flags=cv2.INTER_LINEAR)
    return out


def lies_flat(
    pose: MatPose, corners: Sequence[Point], size_mm: float, limits: tuple[float, float, float]
) -> str | None:
    """None when the quad ``corners`` (image px) is a square of ``size_mm`` lying flat on the
    mat along its axes; else why it is not (lifted, tilted or turned: a card held above it)."""
    q = pose.to_mat(list(corners))
    sides = [float(np.hypot(*(q[(i + 1) % 4] - q[i]))) for i in range(4)]
    mean = sum(sides) / 4
    # its size is its sides' mean (a corner found a little off moves one side, not the size);
    # each side stays as near that mean (a tilted symbol is foreshortened)
    if abs(mean / size_mm - 1) > limits[0]:
        return (
            f"a symbol {mean:.1f} mm wide where one lying on the mat is {size_mm:g} mm: "
            "held above the mat"
        )
    if max(abs(x / mean - 1) for x in sides) > limits[0]:
        return (
            f"a symbol {min(sides):.1f}-{max(sides):.1f} mm a side where one lying on the mat "
            "is square: tilted above the mat"
        )
    for i in range(4):
        a, b = q[i - 1] - q[i], q[(i + 1) % 4] - q[i]
        cos = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
        if abs(np.degrees(np.arccos(np.clip(cos, -1, 1))) - 90) > limits[1]:
            return "a symbol seen askew: tilted above the mat"
    d = q[1] - q[0]
    turn = float(np.degrees(np.arctan2(d[1], d[0]))) % 90
    if min(turn, 90 - turn) > limits[2]:
        return (
            f"a symbol turned {min(turn, 90 - turn):.0f} degrees off the cells: held above the mat"
        )
    return None


# An occupied cell still unread after the 2x crop (sharpened, not equalised) is matched against
# the kit's codebook. Two retries once stood between them: the crop equalised (CLAHE), and the
# cell straightened at 8 px/mm and sharpened (on 40 hard 1080p frames it read 149 face codes
# of 217, 134 without, before the codebook). Behind the codebook the second read 15 of the
# 218 cells of the hard 1080p set that reached it, all of which the codebook reads too. Over
# all 740 overhead frames (1080p, 4K, 12 MP) and the foreign tables, the same cells read
# without either (0 wrong), and a 1080p frame takes about 5 ms less (the mean; 3 the median).
CELL_MATCH_PPM = 4.0  # px per mm of a cell straightened for the codebook (a module ~3.8 px)


# A code lying flat in a straightened cell is the printed size within the mat's fit: squares
# the codebook weighs there are 0.8-1.25 of it (matched codes measured 0.91-1.06 on 20 hard
# 1080p frames; weighing only these halved the stage's ECC alignments).
CELL_MATCH_SIDE = (0.8, 1.25)


def decode_cell(
    gray: NDArray[Any],
    pose: MatPose,
    rect: tuple[float, float, float, float],
    book: Codebook,
    code_mm: float | None = None,
) -> list[RawCode]:
    """The kit's codes matched in one cell seen straight from above (:mod:`vision.codebook`):
    the cell straightened at ``CELL_MATCH_PPM``, only squares of about the printed code's side
    (``code_mm``, when given) weighed. Corners back in ``gray``'s pixels."""
    x, y = rect[0], rect[1]
    ppm = CELL_MATCH_PPM

    def back(corners: Sequence[Point]) -> Quad:
        px = pose.to_image([(x + u / ppm, y + v / ppm) for u, v in corners])
        a, b, c, d = ((float(u), float(v)) for u, v in px)
        return (a, b, c, d)

    cell = warp_region(gray, pose, rect, ppm)
    side = None
    if code_mm is not None:
        lo, hi = CELL_MATCH_SIDE
        side = (lo * code_mm * ppm, hi * code_mm * ppm)
    return [
        RawCode(p, back(corners), m.score) for p, corners, m in matched_codes(cell, book, side=side)
    ]


# The lens term is looked for in this range (k of :class:`Lens`, per half-diagonal squared): a
# webcam's wide lens (OpenCV's k1 down to -0.28 at a 90-degree field, -0.45 once taken to the
# half-diagonal) to a phone's nearly straight one; past it, no lens we know of.
LENS_K = (-0.6, 0.2)


# The lens term's search: a scan of LENS_SCAN terms over LENS_K (0.1 apart), then the least
# error between the scan's neighbours of its best (Brent's method: parabolas through three
# points, a golden section where they do not help) to LENS_K_TOLERANCE: a term 1e-5 off moves
# a point at the frame's corner by a hundredth of a px. On 48 frames' markers (tuned and
# held-out, 1080p, 4K, 12 MP, and the wide-lens tests' frames) it fits 20.6 poses a search
# where a scan of 17 and 20 golden steps fitted 37 (4.7 -> 3.2 ms), and the error it leaves is
# never 1e-5 mm more; the terms agree within 1e-4 (where the error is flat, to 3e-6 mm)
LENS_SCAN = 9
LENS_K_TOLERANCE = 1e-5


def _least(f: Callable[[float], float], a: float, b: float, tol: float) -> float:
    """The x in [a, b] where ``f`` is least, within ``tol``: Brent's method, bounded (Forsythe,
    Malcolm and Moler's FMIN, as SciPy's ``fminbound``): a parabola through the three best
    points where it falls well inside the bracket, else a golden section."""
    golden = (3 - 5**0.5) / 2
    eps = float(np.sqrt(np.finfo(float).eps))
    x = w = v = a + golden * (b - a)
    fx = fw = fv = f(x)
    step = e = 0.0
    m = (a + b) / 2
    t1 = eps * abs(x) + tol / 3
    while abs(x - m) > 2 * t1 - (b - a) / 2:
        parabola = False
        if abs(e) > t1:
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2 * (q - r)
            if q > 0:
                p = -p
            q = abs(q)
            before, e = e, step
            if abs(p) < abs(q * before / 2) and q * (a - x) < p < q * (b - x):
                parabola = True
                step = p / q
                u = x + step
                if u - a < 2 * t1 or b - u < 2 * t1:
                    step = t1 if m >= x else -t1
        if not parabola:
            e = (a - x) if x >= m else (b - x)
            step = golden * e
        u = x + (1.0 if step >= 0 else -1.0) * max(abs(step), t1)
        fu = f(u)
        if fu <= fx:
            if u >= x:
                a = x
            else:
                b = x
            v, fv, w, fw, x, fx = w, fw, x, fx, u, fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v, fv, w, fw = w, fw, u, fu
            elif fu <= fv or v in (x, w):
                v, fv = u, fu
        m = (a + b) / 2
        t1 = eps * abs(x) + tol / 3
    return float(x)


def _flat_fit(src: NDArray[Any], dst: NDArray[Any]) -> tuple[NDArray[Any] | None, float]:
    """A least-squares homography mat mm -> px and its mean error back on the mat, mm."""
    h, _mask = cv2.findHomography(src, dst, 0)
    if h is None:
        return None, float("inf")
    back = cv2.perspectiveTransform(dst.reshape(-1, 1, 2), np.linalg.inv(h)).reshape(-1, 2)
    return h, float(np.mean(np.hypot(*(back - src).T)))


def fit_lens(
    src_mm: Sequence[Point], dst_px: Sequence[Point], size: tuple[int, int]
) -> tuple[NDArray[Any] | None, Lens, float]:
    """The homography, lens term (:class:`Lens` about the frame's centre, ``size`` (w, h))
    and mean error back on the mat (mm) that best fit the points printed at ``src_mm`` seen at
    ``dst_px``: the lens term searched over ``LENS_K`` (a scan, then Brent's method)."""
    src = np.asarray(src_mm, np.float64)
    dst = np.asarray(dst_px, np.float64)

    def err(k: float) -> float:
        lens = Lens.of_frame(k, size)
        flat = lens.undistort(dst)
        # past the fold of a strong one-term barrel no straight point is seen there: no fit
        if not np.all(np.hypot(*(lens.distort(flat) - dst).T) < 0.5):
            return float("inf")
        return _flat_fit(src, flat)[1]

    lo, hi = LENS_K
    ks = np.linspace(lo, hi, LENS_SCAN)
    errs = [err(float(k)) for k in ks]
    i = int(np.argmin(errs))
    a, b = float(ks[max(0, i - 1)]), float(ks[min(len(ks) - 1, i + 1)])
    k = _least(err, a, b, LENS_K_TOLERANCE)
    lens = Lens.of_frame(k, size)
    h, e = _flat_fit(src, lens.undistort(dst))
    return h, lens, e
