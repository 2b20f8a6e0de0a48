"""Photographing a synthetic scene: the camera model the games' test generators share (a
scene drawn flat in mat millimetres, then seen through a tilted, rotated lens with barrel
distortion, uneven light, glare, hands, blur, noise and JPEG). Test and benchmark equipment:
the recognition code never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import qrcode  # type: ignore[import-untyped]
import qrcode.constants  # type: ignore[import-untyped]
from numpy.typing import NDArray

Image = NDArray[Any]
_ARUCO = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)


def marker_image(marker_id: int, px: int) -> Image:
    """An ArUco 4x4 marker of ``px`` pixels, no border of its own (gray)."""
    return cv2.aruco.generateImageMarker(_ARUCO, marker_id, px)


@dataclass(frozen=True)
class SceneOptions:
    """How to photograph a scene. Sizes in pixels; angles in degrees."""

    width: int = 1920
    height: int = 1080
    tilt: float = 0.12  # perspective: share of the mat size the corners may move
    rotation: float = 20.0  # extra rotation either way (on top of fitting the mat)
    fill: float = 0.85  # share of the frame the mat's long side spans
    blur: float = 0.8  # maximal Gaussian sigma (px of the output)
    motion: float = 0.0  # maximal motion-blur length (px)
    noise: float = 4.0  # maximal Gaussian noise sigma (grey levels)
    jpeg: tuple[int, int] = (70, 92)  # JPEG quality range
    light: float = 0.35  # depth of the uneven-light gradient (0 = even)
    glare: float = 0.0  # chance of a glare spot
    hands: int = 0  # hands over the table
    render_px_per_mm: float = 5.0
    held: float = 0.0  # chance that a hand holds a card just above the mat (issue 14)
    sleeves: float = 0.0  # chance that a face-up card lies under a plain beige sleeve
    falloff: float = 0.0  # the lamp's fall-off: light lost at the frame's corners (0-1)
    barrel: float = 0.0  # the lens's barrel distortion: largest k1 (radius 1 = half diagonal)
    join: float = 0.0  # the assembled mat's join errors: largest shift of a sheet (mm)
    piles: bool = False  # the draw piles lie beside the mat
    paper: float = 0.5  # chance that the mat is the kit's printed paper mat (else a dark cloth)
    exposure: float = 1.0  # the camera's exposure (a white mat filling the frame: below 1)


@dataclass
class Scene:
    """An image with its truth (JSON-ready)."""

    image: Image
    truth: dict[str, Any] = field(default_factory=dict)


def _texture(rng: np.random.Generator, h: int, w: int, base: tuple[int, int, int]) -> Image:
    """A smooth-noise texture around a base colour (felt, cloth, wood)."""
    acc = np.zeros((h, w), np.float32)
    for scale, amp in ((4, 6.0), (32, 10.0), (128, 14.0)):
        sh, sw = max(2, h // scale), max(2, w // scale)
        n = rng.normal(0, 1, (sh, sw)).astype(np.float32)
        acc += amp * cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)
    img = np.empty((h, w, 3), np.float32)
    for i in range(3):
        img[..., i] = base[i] + acc * (0.8 + 0.2 * i)
    return np.clip(img, 0, 255).astype(np.uint8)


def _hand_mask(
    rng: np.random.Generator, shape: tuple[int, int], centre: tuple[float, float], size: float
) -> NDArray[Any]:
    """A hand-shaped blob (palm and fingers) in a mask."""
    mask = np.zeros(shape, np.uint8)
    cx, cy = centre
    ang = float(rng.uniform(0, 360))
    cv2.ellipse(
        mask, (round(cx), round(cy)), (round(size * 0.5), round(size * 0.6)), ang, 0, 360, 255, -1
    )
    for k in range(4):
        a = np.deg2rad(ang - 40 + 25 * k)
        end = (round(cx + np.cos(a) * size * 1.2), round(cy + np.sin(a) * size * 1.2))
        cv2.line(mask, (round(cx), round(cy)), end, 255, max(2, round(size * 0.22)))
    return mask


def _photograph(
    src: Image, rng: np.random.Generator, o: SceneOptions, src_corners: NDArray[Any]
) -> tuple[Image, NDArray[Any]]:
    """Projects ``src`` (whose region of interest has corners ``src_corners``) into an
    ``o.width`` x ``o.height`` frame. Returns the frame and the homography src -> frame."""
    sw = float(np.linalg.norm(src_corners[1] - src_corners[0]))
    sh = float(np.linalg.norm(src_corners[3] - src_corners[0]))
    # fit the long side of the region along the frame's long side
    angle = (90.0 if (sh > sw) != (o.height > o.width) else 0.0) + float(
        rng.uniform(-o.rotation, o.rotation)
    )
    if rng.random() < 0.5:
        angle += 180.0
    t = np.deg2rad(angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    centred = (src_corners - src_corners.mean(axis=0)) @ rot.T
    span = centred.max(axis=0) - centred.min(axis=0)
    scale = min(o.width * o.fill / span[0], o.height * o.fill / span[1])
    dst = centred * scale
    jitter = rng.uniform(-o.tilt, o.tilt, (4, 2)) * np.array([span[0], span[1]]) * scale / 2
    dst = dst + jitter
    dst = (
        dst
        + np.array([o.width / 2, o.height / 2])
        + rng.uniform(-0.03, 0.03, 2)
        * [
            o.width,
            o.height,
        ]
    )
    Hm = cv2.getPerspectiveTransform(src_corners.astype(np.float32), dst.astype(np.float32))
    table = _texture(rng, o.height // 4, o.width // 4, (70, 110, 150))  # wood under the mat
    table = cv2.resize(table, (o.width, o.height))
    out = cv2.warpPerspective(
        src,
        Hm,
        (o.width, o.height),
        dst=table,
        flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_TRANSPARENT,
    )
    return out, Hm


def _barrel(img: Image, k1: float) -> Image:
    """The frame through a lens with barrel distortion ``k1`` (radius 1 = half the diagonal):
    straight lines bow outwards, most at the edges."""
    if k1 <= 0:
        return img
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = w / 2, h / 2
    r = np.hypot(w, h) / 2
    dx, dy = (xx - cx) / r, (yy - cy) / r
    f = 1 + k1 * (dx * dx + dy * dy)
    mx = (cx + dx * f * r).astype(np.float32)
    my = (cy + dy * f * r).astype(np.float32)
    out: Image = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


GLARE_HIDES = 60.0  # added light (grey levels) above which a code counts as washed out


# the share of a bare cell glare lifts past white from which it counts as washed out too,
# measured on a grid of WASHED_GRID x WASHED_GRID points over it
WASHED_SHARE = 0.9


WASHED_GRID = 5


def _degrade(
    img: Image,
    rng: np.random.Generator,
    o: SceneOptions,
    probes: Image | None = None,
    moment: np.random.Generator | None = None,
) -> tuple[Image, list[float], list[float]]:
    """The photo after light, glare, blur, noise and JPEG; the glare added at each of the
    ``probes`` points (frame px), and the grey level there before it (lit by the lamp).
    ``moment`` draws what changes from one frame of a fixed camera to the next (motion blur,
    noise, JPEG); ``rng`` the rest, and by default those."""
    now = rng if moment is None else moment
    h, w = img.shape[:2]
    glare_at = [0.0] * (0 if probes is None else len(probes))
    f: Image = img.astype(np.float32)
    if o.light > 0:  # uneven light: a tilted gradient
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = float(rng.uniform(0, 2 * np.pi))
        g = (np.cos(a) * xx / w + np.sin(a) * yy / h) * o.light
        f *= (1.0 - o.light / 2 + g - g.min())[..., None]
    if o.exposure != 1.0:
        f *= o.exposure
    if o.falloff > 0:  # the lamp: light falls off towards the frame's corners
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        cx, cy = rng.uniform(0.35, 0.65) * w, rng.uniform(0.35, 0.65) * h
        r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (0.25 * (w * w + h * h))
        f *= (1.0 - o.falloff * np.clip(r2, 0, 1.5))[..., None]
    lit_at = [0.0] * len(glare_at)
    if probes is not None and len(probes):
        px = np.clip(np.round(probes).astype(int), 0, [w - 1, h - 1])
        lit_at = [float(v) for v in f[px[:, 1], px[:, 0]] @ np.array([0.114, 0.587, 0.299])]
    if o.glare > 0 and rng.random() < o.glare:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
        r = rng.uniform(0.04, 0.1) * max(w, h)
        amp = float(rng.uniform(80, 200))
        f += (amp * np.exp(-(((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))))[..., None]
        if probes is not None:
            d2 = (probes[:, 0] - cx) ** 2 + (probes[:, 1] - cy) ** 2
            glare_at = [float(v) for v in amp * np.exp(-d2 / (2 * r * r))]
    sigma = float(rng.uniform(0, o.blur))
    if sigma > 0.2:
        f = cv2.GaussianBlur(f, (0, 0), sigma)
    if o.motion > 1:
        n = int(now.uniform(1, o.motion)) | 1
        k: Image = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1.0 / n
        rm = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), float(now.uniform(0, 180)), 1)
        k = cv2.warpAffine(k, rm, (n, n))
        kernel: Image = (k / max(float(k.sum()), 1e-6)).astype(np.float32)
        f = cv2.filter2D(f, -1, kernel)
    if o.noise > 0:
        f += now.normal(0, float(now.uniform(0, o.noise)), f.shape).astype(np.float32)
    out = np.clip(f, 0, 255).astype(np.uint8)
    q = int(now.integers(o.jpeg[0], o.jpeg[1] + 1))
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
    assert ok
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    assert decoded is not None
    return decoded, glare_at, lit_at


def _visible(mask: NDArray[Any], quad: NDArray[Any]) -> float:
    """The share of ``quad`` (mat px) not under ``mask``."""
    m = np.zeros(mask.shape, np.uint8)
    cv2.fillConvexPoly(m, quad.round().astype(np.int32), 255)
    area = int(np.count_nonzero(m))
    if area == 0:
        return 1.0
    return 1.0 - int(np.count_nonzero(m & mask)) / area


def qr_matrix(payload: str, border: int) -> NDArray[Any]:
    """The QR symbol of a kit's payload as printed: version 1, level Q, ``border`` modules of
    quiet zone; 0 = dark, 255 = light. Raises qrcode's DataOverflowError if it does not fit."""
    q = qrcode.QRCode(version=1, error_correction=qrcode.constants.ERROR_CORRECT_Q, border=border)
    q.add_data(payload.encode("ascii"))  # upper-case: alphanumeric mode
    q.make(fit=False)
    m = np.array(q.get_matrix(), dtype=bool)
    return np.where(m, 0, 255).astype(np.uint8)
