"""Stage: ArUco markers (mat corners, sleeve backs), the mat's pose, and the rectified mat.

The kit's markers come from OpenCV's ``DICT_4X4_50`` (:mod:`printables.herazeus.payload`),
found by :func:`vision.pose.detect_markers` (markers of 15 px a side or more on a 1080p
frame: ``MIN_MARKER_PERIMETER_RATE``). Each corner marker gives four points, so the
homography from mat millimetres to image pixels uses up to 16 correspondences
(``cv2.findHomography`` with RANSAC); two markers are enough, four are best.

Pure: arrays in, values out.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from printables.herazeus.mat import MatGeometry
from printables.herazeus.payload import BACK_MARKER_IDS, MAT_CORNER_IDS, Deck
from vision.pose import Marker as Marker
from vision.pose import MatNotFound as MatNotFound
from vision.pose import MatPose as MatPose
from vision.pose import clearest, fit_lens
from vision.pose import detect_markers as find_markers
from vision.pose import warp_region as warp_region

Point = tuple[float, float]
MIN_CORNER_MARKERS = 3  # measured: 3 place every cell within 3.4 mm, 2 up to 77 mm off
BACK_IDS: dict[int, Deck] = {v: k for k, v in BACK_MARKER_IDS.items()}  # type: ignore[misc]
KNOWN_IDS = frozenset(MAT_CORNER_IDS) | frozenset(BACK_MARKER_IDS.values())


def detect_markers(gray: NDArray[Any]) -> list[Marker]:
    """The kit's markers (corner and back ids) in a grey image
    (:func:`vision.pose.detect_markers`)."""
    return find_markers(gray, KNOWN_IDS)


def corner_markers(markers: list[Marker]) -> dict[int, Marker]:
    """The mat's corner markers seen, by id; the clearest (largest) of repeats."""
    return clearest(markers, frozenset(MAT_CORNER_IDS))


def corner_points(
    by_id: dict[int, Marker], geometry: MatGeometry
) -> tuple[list[Point], list[Point]]:
    """The corner markers' corners (:func:`corner_markers`) as the mat prints them (mm) and as
    the image shows them (px), in the same order: the pose's correspondences."""
    src: list[Point] = []
    dst: list[Point] = []
    for mid, m in sorted(by_id.items()):
        src += geometry.marker_corners(mid)
        dst += list(m.corners)
    return src, dst


# A frame's lens bends the mat (a webcam's wide lens: barrel distortion) and a homography does
# not follow it: the corner markers of a frame whose lens bends the mat's edges 10-15 mm fit
# no homography better than that. When the frame's size is known, the pose is fitted again
# with one radial lens term about the frame's centre (vision.pose.fit_lens) and the lens
# kept when it at least halves the markers' error (a straight lens leaves them off by the
# corners' noise alone, a few tenths of a mm, which a lens term barely changes).
LENS_GAIN = 0.5
# A pose with a lens term is kept only when the markers then fit within this mean, mm. Four
# markers give a homography and a lens term little to spare: one corner marker 16 mm from
# where the mat prints it (a folded mat, another mat's marker) is absorbed to a mean of
# 0.8-1.3 mm (tests/test_vision_lens.py, 40 px at 1080p), while a bent lens's markers fit
# within their corners' noise: 0.1-0.6 mm on the diagnostic studio seeds 980000-980212 (1080p
# and 4K), 0.3-0.5 mm under the tuned generator's barrel 0.4. Its margin on the held-out
# family is not measured (only its totals were: no frame refused there after the change, two of
# 10 at 4K before; docs/vision.md). A marker less far off may be absorbed: the
# pose is then off near it, and the flat and cell tests (lies_flat) stand between it and a card.
LENS_FIT_MM = 0.75
MAT_FIT_MM = 5.0  # the markers' mean error, mm, past which they do not fit this mat


def find_mat(
    markers: list[Marker], geometry: MatGeometry, frame_size: tuple[int, int] | None = None
) -> MatPose:
    """The mat's pose from its corner markers. Raises MatNotFound when fewer than three of the
    four corner markers are seen, or when they do not fit the mat's shape (a fitted error
    above 5 mm: markers of another mat, or a mat folded or bent). With ``frame_size`` (w, h
    px), a lens's barrel or pincushion distortion is fitted too (``MatPose.lens``), so a wide
    lens's bent view of the mat is not taken for a mat that does not fit."""
    by_id = corner_markers(markers)
    if len(by_id) < MIN_CORNER_MARKERS:
        seen = ", ".join(str(i) for i in sorted(by_id)) or "none"
        raise MatNotFound(
            f"the mat was not found: {len(by_id)} of its 4 corner markers seen ({seen}); "
            f"at least {MIN_CORNER_MARKERS} are needed"
        )
    src, dst = corner_points(by_id, geometry)
    s = np.array(src, np.float64)
    d = np.array(dst, np.float64)
    H, _mask = cv2.findHomography(s, d, cv2.RANSAC, 4.0)
    if H is None:
        raise MatNotFound("the mat was not found: its corner markers give no consistent pose")
    pose = MatPose(H, tuple(sorted(by_id)), 0.0, 0.0)
    back = pose.to_mat(d)
    err = float(np.mean(np.hypot(*(back - s).T)))
    lens = None
    if frame_size is not None:
        h_lens, lens_fit, lens_err = fit_lens(src, dst, frame_size)
        if h_lens is not None and lens_err <= min(LENS_GAIN * err, LENS_FIT_MM):
            H, lens, err = h_lens, lens_fit, lens_err
    if err > MAT_FIT_MM:
        raise MatNotFound(
            f"the mat was not found: the corner markers do not fit the mat ({err:.1f} mm off)"
        )
    conf = (1.0 if len(by_id) == 4 else 0.8) * max(0.0, 1.0 - err / MAT_FIT_MM)
    return MatPose(H, tuple(sorted(by_id)), err, round(conf, 3), lens)


def rectify(
    image: NDArray[Any], pose: MatPose, geometry: MatGeometry, px_per_mm: float = 2.0
) -> NDArray[Any]:
    """The mat seen straight from above at ``px_per_mm``, Hera's side at the bottom.
    Raises ValueError for a non-positive scale."""
    if px_per_mm <= 0:
        raise ValueError("px_per_mm must be positive")
    return warp_region(image, pose, (0.0, 0.0, geometry.width, geometry.height), px_per_mm)
