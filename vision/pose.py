"""Where a printed mat lies in a frame, and what lies flat on it: the parts of the table camera
no game owns (issue 38). A game's package finds its mat's corner markers and fits the pose;
this module holds the pose itself (mat mm <-> image px), the test that a printed square lies flat
on the mat (a card held above it comes back bigger, askew or turned), a rectangle of the mat
seen straight from above, and the kit's codes matched in it (:mod:`vision.codebook`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.codebook import Codebook, matched_codes
from vision.decode import Point, Quad, RawCode


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
        return (
            sum(p[0] for p in self.corners) / 4,
            sum(p[1] for p in self.corners) / 4,
        )

    @property
    def side_px(self) -> float:
        c = self.corners
        return (
            sum(
                float(np.hypot(c[i][0] - c[(i + 1) % 4][0], c[i][1] - c[(i + 1) % 4][1]))
                for i in range(4)
            )
            / 4
        )

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners]}


@dataclass(frozen=True)
class MatPose:
    """Where the mat lies in the image: ``homography`` maps mat mm to image px.

    ``error_mm`` is the mean distance, back in mat millimetres, between where the corner
    markers' points were seen and where the fitted homography puts them; ``confidence`` is
    1.0 with four markers and a small error, less with fewer markers or a larger error.
    """

    homography: NDArray[Any]
    markers: tuple[int, ...]
    error_mm: float
    confidence: float

    @property
    def inverse(self) -> NDArray[Any]:
        inv: NDArray[Any] = np.linalg.inv(self.homography)
        return inv

    def to_image(self, pts_mm: NDArray[Any] | list[Point]) -> NDArray[Any]:
        """Mat mm -> image px for an (n, 2) array of points."""
        a = np.asarray(pts_mm, np.float64).reshape(-1, 1, 2)
        res: NDArray[Any] = cv2.perspectiveTransform(a, self.homography).reshape(-1, 2)
        return res

    def to_mat(self, pts_px: NDArray[Any] | list[Point]) -> NDArray[Any]:
        """Image px -> mat mm for an (n, 2) array of points."""
        a = np.asarray(pts_px, np.float64).reshape(-1, 1, 2)
        res: NDArray[Any] = cv2.perspectiveTransform(a, self.inverse).reshape(-1, 2)
        return res

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
        }


def warp_region(
    image: NDArray[Any],
    pose: MatPose,
    rect_mm: tuple[float, float, float, float],
    px_per_mm: float,
) -> NDArray[Any]:
    """One rectangle of the mat (x, y, w, h in mm) seen straight from above."""
    x, y, w, h = rect_mm
    T = np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], np.float64)
    S = np.diag([px_per_mm, px_per_mm, 1.0])
    M = S @ np.linalg.inv(T) @ pose.inverse
    size = (max(1, round(w * px_per_mm)), max(1, round(h * px_per_mm)))
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
