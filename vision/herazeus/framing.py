"""Stage: does this framing give the camera what it needs? (issue 14, item 4)

A face code is a QR symbol of 21 x 21 modules, ``code_mm`` wide on the card (20 mm by default:
0.95 mm a module). Measured on the project's hard synthetic sets and the issue's held-out
photos: face codes read reliably from :data:`FACE_READS` pixels per module and never below
:data:`FACE_NEVER`; a back marker (ArUco 4 x 4: 6 x 6 cells with its border, 18 mm) needs about
:data:`BACK_PX_PER_CELL` pixels a cell. The mat's homography gives the scale at every cell, so
one frame says whether face codes will read at this framing, at the worst cell and the median
one, and what would fix it, in priority order. Pure: a frame (or a pose) in, a verdict out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from vision.decode import as_gray
from vision.herazeus.kit import KitLike
from vision.herazeus.markers import MatNotFound, MatPose, detect_markers, find_mat

FACE_READS = 2.2  # px per module from which face codes read reliably
FACE_NEVER = 1.6  # px per module below which no face code read
BACK_PX_PER_CELL = 4.0  # px per marker cell from which back markers read
QR_MODULES = 21  # a version 1 symbol
MARKER_CELLS = 6  # ArUco 4 x 4 and its black border
KIT_1080P_MM = 30.0  # the 1080p preset's face codes (referee kit --for-1080p)

Verdict = Literal["yes", "marginal", "no"]


@dataclass(frozen=True)
class Framing:
    """What one frame says about its framing. ``faces``: will face codes read (``yes`` at every
    cell, ``no`` where the median cell gives less than :data:`FACE_NEVER` px per module,
    ``marginal`` between: some cells only); ``backs``: will back markers read; ``fixes``:
    what to do, most useful first. Without the mat (``found`` false) only ``message`` and
    ``fixes`` are set."""

    found: bool
    width: int
    height: int
    code_mm: float
    message: str = ""
    markers: tuple[int, ...] = ()
    module_px_min: float = 0.0
    module_px_median: float = 0.0
    faces: Verdict | None = None
    backs: bool | None = None
    fixes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "found": self.found,
            "width": self.width,
            "height": self.height,
            "code_mm": self.code_mm,
            "fixes": list(self.fixes),
        }
        if not self.found:
            out["message"] = self.message
            return out
        out.update(
            markers=list(self.markers),
            module_px_min=round(self.module_px_min, 2),
            module_px_median=round(self.module_px_median, 2),
            faces=self.faces,
            backs=self.backs,
            needs=FACE_READS,
        )
        return out

    def text(self) -> str:
        """The verdict in words, then the fixes."""
        size = f"{self.width} x {self.height}"
        if not self.found:
            lines = [f"{size}: {self.message}"]
        else:
            faces = {
                "yes": "face codes will read",
                "marginal": "face codes will read only in part",
                "no": "face codes will not read",
            }[self.faces or "no"]
            lines = [
                f"{size}: {self.module_px_min:.1f} px per module at the farthest cell "
                f"({self.module_px_median:.1f} median) for {self.code_mm:g} mm face codes, "
                f"which need {FACE_READS:g}: {faces}; back markers "
                f"{'will' if self.backs else 'will not'} read."
            ]
        lines += [f"- {fix}" for fix in self.fixes]
        return "\n".join(lines)


def check_pose(pose: MatPose, kit: KitLike, width: int, height: int) -> Framing:
    """The verdict for a frame of ``width`` x ``height`` whose mat lies at ``pose``."""
    geo = kit.mat
    per_mm = np.array([pose.px_per_mm((x + w / 2, y + h / 2)) for x, y, w, h in geo.cells.values()])
    module_mm = kit.code_mm / QR_MODULES
    low, mid = float(per_mm.min()) * module_mm, float(np.median(per_mm)) * module_mm
    # yes: every cell reads; no: the median cell cannot; marginal: some cells only
    faces: Verdict = "yes" if low >= FACE_READS else ("no" if mid < FACE_NEVER else "marginal")
    backs = float(per_mm.min()) * kit.back_marker_mm / MARKER_CELLS >= BACK_PX_PER_CELL
    fixes: list[str] = []
    if faces != "yes":
        need = FACE_READS / max(low, 1e-6)
        fixes.append(
            f"Move the camera closer or lower: the mat must look {need:.1f} times as big "
            f"({low:.1f} px per module at the farthest cell where face codes need {FACE_READS:g})."
        )
        if _long_side_across(pose, geo.width, geo.height, width, height):
            fixes.append(
                "Turn the camera so that the mat's long side runs along the picture's long side."
            )
        if max(width, height) < 3000:
            fixes.append(
                f"Use a camera with more pixels ({width} x {height} now): a 4K camera (3840 x "
                "2160), or the phone's full-resolution photo instead of its video."
            )
        if kit.code_mm < KIT_1080P_MM and low * KIT_1080P_MM / kit.code_mm >= FACE_READS:
            fixes.append(
                "Or print the 1080p kit (referee kit --for-1080p): its "
                f"{KIT_1080P_MM:g} mm face codes read at this framing; each sticker covers "
                "about a quarter of a card's face."
            )
    if not backs:
        fixes.append("Back markers are too small in this frame: move the camera closer.")
    return Framing(
        True,
        width,
        height,
        kit.code_mm,
        markers=pose.markers,
        module_px_min=low,
        module_px_median=mid,
        faces=faces,
        backs=backs,
        fixes=fixes,
    )


def check_framing(image: Any, kit: KitLike) -> Framing:
    """The verdict for one frame (a still or a camera frame). Raises ImageError for something
    that is not an image; a frame without the mat is a verdict (``found`` false), not an
    error."""
    gray: NDArray[Any] = as_gray(image)
    h, w = gray.shape[:2]
    markers = detect_markers(gray)
    try:
        pose = find_mat(markers, kit.mat)
    except MatNotFound as e:
        return no_mat(kit, w, h, str(e))
    return check_pose(pose, kit, w, h)


def no_mat(kit: KitLike, width: int, height: int, message: str) -> Framing:
    """The verdict for a frame in which the mat was not found (``message`` says why)."""
    return Framing(
        False,
        width,
        height,
        kit.code_mm,
        message=message,
        fixes=[
            "Bring all four corner squares of the mat into the picture, none covered by a "
            "hand or a card, and hold the camera above the mat's centre."
        ],
    )


def _long_side_across(pose: MatPose, mat_w: float, mat_h: float, width: int, height: int) -> bool:
    """Whether the mat's long side runs along the picture's short side."""
    c = pose.to_image([(0, 0), (mat_w, 0), (0, mat_h)])
    along_x = np.abs(c[1] - c[0]) if mat_w >= mat_h else np.abs(c[2] - c[0])
    mat_long_horizontal = bool(along_x[0] >= along_x[1])
    return mat_long_horizontal != (width >= height)
