"""The held-out family's renderer (:mod:`vision.herazeus.studio`): textured 3-D planes lit by a
lamp and photographed by a pinhole camera with a lens, a Bayer sensor and a phone's or webcam's
processing. Written apart from :mod:`vision.herazeus.synth` and sharing none of its image code.

World: millimetres, right-handed, x east, y north, z up (the table is z = 0). A
:class:`Surface` is a textured rectangle in 3-D, flat or bowed along one axis (a curled card);
a :class:`Sphere` is a piece of a hand. :class:`Lamp` is a point or a disc of light with a
colour temperature; :class:`Camera` a pinhole with OpenCV's distortion model (k1, k2, p1, p2).

Rendering is in linear light: each surface's albedo (sRGB-encoded reflectance, uint8) is warped
into an undistorted image by the homography of its plane (a bowed card in strips), shaded by
Lambert diffuse light with the inverse-square fall-off and a Blinn-Phong specular lobe from its
normal, the lamp and the camera, in soft shadow of the hands and held cards (the lamp sampled
over its area). :func:`expose` then distorts, blurs (defocus disc and motion line, per depth
layer), vignettes, exposes, mosaics (RGGB), adds shot and read noise, white-balances (off by
a little), demosaics, tone-maps, sharpens and JPEG-compresses. Test equipment only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[Any]
Vec = NDArray[np.float64]

# sRGB transfer: 8-bit code <-> linear light
_CODES = np.arange(256, dtype=np.float64) / 255
SRGB_TO_LINEAR = np.where(
    _CODES <= 0.04045, _CODES / 12.92, ((_CODES + 0.055) / 1.055) ** 2.4
).astype(np.float32)


def _srgb_exact(x: Image) -> Image:
    out: Image = np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)
    return out.astype(np.float32)


# a table of 2^16 + 1 steps: linear light to sRGB within 0.002 of a grey level
_SRGB_STEPS = 65536
_SRGB_TABLE = _srgb_exact(np.linspace(0.0, 1.0, _SRGB_STEPS + 1))


def to_srgb(lin: Image) -> Image:
    """Linear light (0-1) to sRGB-encoded 0-1 (float32), through a table."""
    idx = (np.clip(lin, 0.0, 1.0) * _SRGB_STEPS + 0.5).astype(np.int32)
    out: Image = _SRGB_TABLE[idx]
    return out


# the camera's tone curve: sRGB, then a mild S-curve (phones and webcams add contrast; slope
# 1.25 at mid-grey)
_TONE_TABLE = np.clip(
    _SRGB_TABLE - 0.25 * np.sin(2 * math.pi * _SRGB_TABLE) / (2 * math.pi), 0, 1
).astype(np.float32)


def tone(lin: Image) -> Image:
    """Linear light (0-1) to the camera's encoded 0-1 (float32)."""
    idx = (np.clip(lin, 0.0, 1.0) * _SRGB_STEPS + 0.5).astype(np.int32)
    out: Image = _TONE_TABLE[idx]
    return out


def kelvin_rgb(kelvin: float) -> Vec:
    """A black body's colour at ``kelvin`` as linear RGB with green = 1 (Planck's law sampled
    at three wavelengths standing for the camera's R, G and B filters)."""
    out = []
    for nm in (600.0, 540.0, 460.0):
        lam = nm * 1e-9
        out.append(1.0 / (lam**5 * (math.exp(1.4388e-2 / (lam * kelvin)) - 1.0)))
    rgb = np.array(out) / out[1]
    # normalise so that 6500 K is white (the sRGB white point)
    ref = []
    for nm in (600.0, 540.0, 460.0):
        lam = nm * 1e-9
        ref.append(1.0 / (lam**5 * (math.exp(1.4388e-2 / (lam * 6500.0)) - 1.0)))
    white = np.array(ref) / ref[1]
    res: Vec = rgb / white
    return res


def unit(v: Any) -> Vec:
    a = np.asarray(v, np.float64)
    out: Vec = a / np.linalg.norm(a, axis=-1, keepdims=True)
    return out


# -- the scene --------------------------------------------------------------------------------


@dataclass
class Material:
    """How a surface reflects: ``ks`` the specular share (a clear sleeve's front face
    reflects about 4-5% of light at normal incidence), ``shine`` the Blinn-Phong exponent
    (smooth film: hundreds to thousands; paper: about 10), ``veil`` a white diffuse
    reflectance added on top (a matte sleeve's frosted film scatters light over the card)."""

    ks: float = 0.01
    shine: float = 10.0
    veil: float = 0.0


@dataclass
class Surface:
    """A textured rectangle in 3-D. ``albedo`` is sRGB-encoded reflectance (uint8 BGR),
    ``alpha`` its coverage (uint8, 255 = opaque; rounded corners), ``ppm`` texture pixels per
    mm. Texture pixel (0, 0) lies at ``origin``; ``ex`` and ``ey`` are the world directions of
    the texture's x (right) and y (down); its front faces ``ey x ex``. ``bow``: the sagitta in
    mm of a bend along the texture's x (positive: the middle towards the front), ``materials``
    a base material and, optionally, rectangles (texture mm) of other materials (a sticker on a
    sleeve). ``order`` sorts drawing (lower first), ``oid`` names it in the id buffer, ``layer``
    its depth layer (0 the subject, 1 nearer the camera, -1 farther: each blurred by its own
    defocus and motion)."""

    albedo: Image
    alpha: Image
    ppm: float
    origin: Vec
    ex: Vec
    ey: Vec
    oid: int
    order: float
    bow: float = 0.0
    materials: list[tuple[tuple[float, float, float, float] | None, Material]] = field(
        default_factory=list
    )
    layer: int = 0
    shadows: bool = True  # receives shadows
    casts: bool = False  # casts shadows (held cards, piles)

    @property
    def size_mm(self) -> tuple[float, float]:
        h, w = self.albedo.shape[:2]
        return w / self.ppm, h / self.ppm

    @property
    def normal(self) -> Vec:
        return unit(np.cross(self.ey, self.ex))

    def points(self, u: Image, v: Image) -> tuple[Image, Image]:
        """World points and normals at texture mm (u, v) (arrays of one shape)."""
        w, _ = self.size_mm
        n0 = self.normal
        s = 2 * u / w - 1
        lift = self.bow * (1 - s**2)
        slope = self.bow * (-2 * s) * (2 / w)  # d lift / du
        p = self.origin + u[..., None] * self.ex + v[..., None] * self.ey + lift[..., None] * n0
        n = unit(n0 - slope[..., None] * self.ex)
        return p, n


@dataclass
class Sphere:
    """A ball of a hand or an arm: centre (mm), radius (mm), albedo (linear RGB)."""

    centre: Vec
    radius: float
    albedo: Vec
    layer: int = 1
    order: float = 100.0
    oid: int = 0
    casts: bool = True  # a ball of the shadow's coarser chain


@dataclass
class Lamp:
    """A lamp: a disc of ``radius`` mm (0: a point) centred at ``pos``, facing ``facing``,
    of ``power`` and colour temperature ``kelvin``; ``ambient``: the room's even light as a
    share of the lamp's irradiance straight below it at 1 m."""

    pos: Vec
    radius: float
    power: float
    kelvin: float
    facing: Vec
    ambient: float
    ambient_kelvin: float

    def samples(self, rng: np.random.Generator, n: int) -> Vec:
        if self.radius <= 0:
            out: Vec = self.pos[None, :]
            return out
        a = unit(np.cross(self.facing, [0.31, 0.47, 0.83]))
        b = np.cross(self.facing, a)
        k = math.ceil(math.sqrt(n))
        pts = []
        for i in range(k):
            for j in range(k):
                # stratified over the disc (concentric by area)
                r = self.radius * math.sqrt((i + rng.random()) / k)
                t = 2 * math.pi * (j + rng.random()) / k
                pts.append(self.pos + r * math.cos(t) * a + r * math.sin(t) * b)
        res: Vec = np.array(pts)
        return res


@dataclass
class Camera:
    """A pinhole camera at ``pos`` with rotation ``R`` (world -> camera rows: right, down,
    forward), focal length ``f`` px, image ``size`` (w, h), principal point at the centre plus
    ``pp_shift``; distortion ``dist`` (k1, k2, p1, p2); aperture diameter ``aperture`` mm and
    focal length ``f_mm`` (defocus); focus distance ``focus`` mm."""

    pos: Vec
    R: Vec
    f: float
    size: tuple[int, int]
    dist: tuple[float, float, float, float]
    aperture: float
    focus: float
    pp_shift: tuple[float, float] = (0.0, 0.0)

    @property
    def K(self) -> Vec:
        w, h = self.size
        k: Vec = np.array(
            [
                [self.f, 0, w / 2 + self.pp_shift[0]],
                [0, self.f, h / 2 + self.pp_shift[1]],
                [0, 0, 1],
            ]
        )
        return k

    def to_cam(self, p: Any) -> Vec:
        out: Vec = (np.asarray(p, np.float64) - self.pos) @ self.R.T
        return out

    def project_ideal(self, p: Any, pad: tuple[int, int] = (0, 0)) -> Vec:
        """Undistorted pixel coordinates (plus ``pad``) of world points."""
        c = self.to_cam(p)
        k = self.K
        x = k[0, 0] * c[..., 0] / c[..., 2] + k[0, 2] + pad[0]
        y = k[1, 1] * c[..., 1] / c[..., 2] + k[1, 2] + pad[1]
        out: Vec = np.stack([x, y], axis=-1)
        return out

    def project(self, p: Any) -> Vec:
        """Pixel coordinates in the photograph (distortion applied) of world points."""
        pts = np.asarray(p, np.float64).reshape(-1, 3)
        rvec, _ = cv2.Rodrigues(self.R)
        tvec = -self.R @ self.pos
        img, _ = cv2.projectPoints(pts, rvec, tvec, self.K, np.array(self.dist))
        out: Vec = np.asarray(img, np.float64).reshape(*np.asarray(p).shape[:-1], 2)
        return out

    def depth(self, p: Any) -> Vec:
        out: Vec = self.to_cam(p)[..., 2]
        return out

    def px_per_mm(self, p: Any) -> float:
        """Roughly how many pixels a millimetre at ``p`` spans (facing the camera)."""
        return float(self.f / max(1.0, float(np.min(self.depth(p)))))


def look_at(pos: Any, target: Any, up: Any) -> Vec:
    """The rotation (world -> camera rows right, down, forward) of a camera at ``pos`` looking
    at ``target`` with ``up`` towards the image's top."""
    f = unit(np.asarray(target, np.float64) - np.asarray(pos, np.float64))
    r = unit(np.cross(f, up))
    d = np.cross(f, r)
    out: Vec = np.stack([r, d, f])
    return out


# -- light -------------------------------------------------------------------------------------


def _occluded(p: Image, lights: Vec, quads: list[Vec], spheres: list[Sphere]) -> Image:
    """Visibility (N, M) in [0, 1] of ``lights`` (M, 3) from points ``p`` (N, 3): 0 where
    a segment meets an occluder. ``quads``: parallelograms (corner, edge, edge)."""
    d = lights[None, :, :] - p[:, None, :]  # (N, M, 3)
    vis = np.ones(d.shape[:2], np.float32)
    for q in quads:
        c0, e1, e2 = q
        n = np.cross(e1, e2)
        denom = d @ n
        with np.errstate(divide="ignore", invalid="ignore"):
            t = ((c0 - p) @ n)[:, None] / denom
        hit = p[:, None, :] + t[..., None] * d - c0
        a = (hit @ e1) / (e1 @ e1)
        b = (hit @ e2) / (e2 @ e2)
        blocked = (t > 1e-3) & (t < 1) & (a >= 0) & (a <= 1) & (b >= 0) & (b <= 1)
        vis[blocked] = 0.0
    for s in spheres:
        w = s.centre - p  # (N, 3)
        dd = np.einsum("nmk,nmk->nm", d, d)
        t = np.clip(np.einsum("nmk,nk->nm", d, w) / dd, 0.0, 1.0)
        closest = p[:, None, :] + t[..., None] * d - s.centre
        blocked = np.einsum("nmk,nmk->nm", closest, closest) < s.radius**2
        vis[blocked] = 0.0
    return vis


@dataclass
class Light:
    """The lamp sampled over its area, its colour, the room's light and the occluders."""

    lamp: Lamp
    samples: Vec
    colour: Vec
    ambient_colour: Vec
    quads: list[tuple[int, Vec]]  # (oid, parallelogram)
    spheres: list[Sphere]
    gloss: bool = True  # False: diffuse light only (the truth's own check)

    def irradiance(self, p: Image, n: Image, own: int) -> tuple[Image, Image, Image]:
        """(diffuse irradiance (N, 3), light direction to the lamp's centre (N, 3), the
        unshadowed share (N,)) at points ``p`` with normals ``n``."""
        quads = [q for oid, q in self.quads if oid != own]
        vis = _occluded(p, self.samples, quads, [s for s in self.spheres if s.casts])
        d = self.samples[None, :, :] - p[:, None, :]
        r2 = np.einsum("nmk,nmk->nm", d, d)
        dn = d / np.sqrt(r2)[..., None]
        cos_r = np.clip(np.einsum("nmk,nk->nm", dn, n), 0.0, None)
        cos_e = np.clip(-(dn @ self.lamp.facing), 0.0, None) if self.lamp.radius > 0 else 1.0
        e = self.lamp.power * 1e6 * np.mean(vis * cos_r * cos_e / r2, axis=1)
        amb = self.lamp.power * self.lamp.ambient * (0.6 + 0.4 * np.clip(n[:, 2], 0, 1))
        diffuse = e[:, None] * self.colour[None, :] + amb[:, None] * self.ambient_colour[None, :]
        to_lamp = unit(self.lamp.pos - p)
        return diffuse, to_lamp, vis.mean(axis=1)


def shade(s: Surface, light: Light, cam_pos: Vec, step: float) -> tuple[Image, Image, float]:
    """A surface's shading on a coarse grid (texture mm every ``step``): diffuse irradiance
    (gh, gw, 3) and specular radiance (gh, gw, 3), and the grid's pixels per mm."""
    w, h = s.size_mm
    gw, gh = max(4, math.ceil(w / step) + 1), max(4, math.ceil(h / step) + 1)
    u, v = np.meshgrid(np.linspace(0, w, gw), np.linspace(0, h, gh))
    p, n = s.points(u, v)
    pf, nf = p.reshape(-1, 3), n.reshape(-1, 3)
    diffuse, to_lamp, unshadowed = light.irradiance(pf, nf, s.oid)
    to_cam = unit(cam_pos - pf)
    half = unit(to_lamp + to_cam)
    nh = np.clip(np.einsum("nk,nk->n", nf, half), 0.0, 1.0)
    nl = np.clip(np.einsum("nk,nk->n", nf, to_lamp), 0.0, 1.0)
    r2 = np.einsum("nk,nk->n", light.lamp.pos - pf, light.lamp.pos - pf)
    # the lamp's angular radius widens the lobe (a disc lamp's mirror image has a size)
    alpha2 = (light.lamp.radius**2) / r2
    spec = np.zeros((pf.shape[0], 3), np.float64)
    for rect, m in s.materials if light.gloss else []:
        shine = 2.0 / (2.0 / m.shine + alpha2)
        lobe = m.ks * (shine + 8) / (8 * math.pi) * nh**shine * nl
        e_lamp = light.lamp.power * 1e6 / r2 * unshadowed
        val = (lobe * e_lamp)[:, None] * light.colour[None, :] + (m.veil * diffuse.sum(axis=1) / 3)[
            :, None
        ]
        if rect is None:
            spec = val
        else:
            x0, y0, x1, y1 = rect
            inside = (u.ravel() >= x0) & (u.ravel() <= x1) & (v.ravel() >= y0) & (v.ravel() <= y1)
            spec[inside] = val[inside]
    return (
        (diffuse / math.pi).reshape(gh, gw, 3).astype(np.float32),
        spec.reshape(gh, gw, 3).astype(np.float32),
        (gw - 1) / w,
    )


# -- drawing -----------------------------------------------------------------------------------


@dataclass
class Frame:
    """The undistorted render: linear radiance per depth layer with its coverage, the id
    buffer, and the specular and diffuse luminance buffers (for the glare measure)."""

    size: tuple[int, int]  # (w, h) with the pad
    pad: tuple[int, int]
    layers: dict[int, tuple[Image, Image]] = field(default_factory=dict)
    ids: Image = field(default_factory=lambda: np.zeros((1, 1), np.int32))
    spec: Image = field(default_factory=lambda: np.zeros((1, 1), np.float32))
    diffuse: Image = field(default_factory=lambda: np.zeros((1, 1), np.float32))

    def layer(self, k: int) -> tuple[Image, Image]:
        if k not in self.layers:
            w, h = self.size
            self.layers[k] = (np.zeros((h, w, 3), np.float32), np.zeros((h, w), np.float32))
        return self.layers[k]


def new_frame(cam: Camera) -> Frame:
    """An empty frame large enough that the lens's distortion can be applied afterwards."""
    w, h = cam.size
    pad = _distortion_pad(cam)
    W, H = w + 2 * pad[0], h + 2 * pad[1]
    return Frame(
        (W, H),
        pad,
        ids=np.full((H, W), -1, np.int32),
        spec=np.zeros((H, W), np.float32),
        diffuse=np.zeros((H, W), np.float32),
    )


def _composite(
    fr: Frame,
    layer: int,
    x0: int,
    y0: int,
    rad: Image,
    a: Image,
    oid: int,
    spec: Image,
    diff: Image,
) -> None:
    h, w = a.shape
    img, cov = fr.layer(layer)
    sl = (slice(y0, y0 + h), slice(x0, x0 + w))
    a3 = a[..., None]
    img[sl] = img[sl] * (1 - a3) + rad * a3
    cov[sl] = cov[sl] * (1 - a) + a
    # nearer layers hide what the id and glare buffers hold below them
    fr.ids[sl][a > 0.5] = oid
    fr.spec[sl] = fr.spec[sl] * (1 - a) + spec * a
    fr.diffuse[sl] = fr.diffuse[sl] * (1 - a) + diff * a


def draw_surface(fr: Frame, cam: Camera, s: Surface, light: Light, step: float) -> None:
    """Shades ``s`` and warps it into ``fr`` (a bowed surface in strips)."""
    diffuse, spec, gppm = shade(s, light, cam.pos, step)
    w_mm, h_mm = s.size_mm
    _th, tw = s.albedo.shape[:2]
    strips = 1 if abs(s.bow) < 0.05 else 10
    W, H = fr.size
    for k in range(strips):
        u0, u1 = w_mm * k / strips, w_mm * (k + 1) / strips
        uu = np.array([u0, u1, u1, u0])
        vv = np.array([0.0, 0.0, h_mm, h_mm])
        p, _ = s.points(uu, vv)
        if np.any(cam.depth(p) <= 1.0):
            continue
        dst = cam.project_ideal(p, fr.pad)
        x0 = max(0, math.floor(dst[:, 0].min()) - 1)
        y0 = max(0, math.floor(dst[:, 1].min()) - 1)
        x1 = min(W, math.ceil(dst[:, 0].max()) + 2)
        y1 = min(H, math.ceil(dst[:, 1].max()) + 2)
        if x1 <= x0 or y1 <= y0:
            continue
        # mm -> the ROI's pixels; texture pixel i's centre is at mm (i + 0.5) / ppm
        src = np.stack([uu, vv], axis=1)
        Hm = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
        T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
        tex = np.array([[s.ppm, 0, -0.5], [0, s.ppm, -0.5], [0, 0, 1]], np.float64)
        M = T @ Hm @ np.linalg.inv(tex)
        Mmm = T @ Hm
        size = (x1 - x0, y1 - y0)
        # the strip's own texture columns (with a pixel to spare) so strips do not bleed
        c0 = max(0, math.floor(u0 * s.ppm) - 1)
        c1 = min(tw, math.ceil(u1 * s.ppm) + 1)
        shift = np.array([[1, 0, c0], [0, 1, 0], [0, 0, 1]], np.float64)
        Ms = M @ shift
        alb = cv2.warpPerspective(
            s.albedo[:, c0:c1], Ms, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        alpha_src = s.alpha[:, c0:c1].copy()
        if strips > 1:
            # a strip covers only its own columns
            lo = round(u0 * s.ppm) - c0
            hi = round(u1 * s.ppm) - c0
            alpha_src[:, :lo] = 0
            alpha_src[:, hi:] = 0
        a = (
            cv2.warpPerspective(
                alpha_src, Ms, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
            ).astype(np.float32)
            / 255.0
        )
        if not a.any():
            continue
        g = np.array([[gppm, 0, 0], [0, gppm, 0], [0, 0, 1]], np.float64)
        Mg = Mmm @ np.linalg.inv(g)
        dif = cv2.warpPerspective(
            diffuse, Mg, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        spc = cv2.warpPerspective(
            spec, Mg, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        refl = SRGB_TO_LINEAR[alb]
        rad = refl * dif + spc
        _composite(fr, s.layer, x0, y0, rad, a, s.oid, spc.mean(axis=2), dif.mean(axis=2))


def draw_sphere(fr: Frame, cam: Camera, sp: Sphere, light: Light) -> None:
    """A shaded ball (skin or cloth), lit by the lamp's centre and the room."""
    c = cam.to_cam(sp.centre)
    if c[2] <= sp.radius:
        return
    ctr = cam.project_ideal(sp.centre, fr.pad)
    r = cam.f * sp.radius / math.sqrt(max(1e-6, c[2] ** 2 - sp.radius**2))
    W, H = fr.size
    x0, y0 = max(0, int(ctr[0] - r - 2)), max(0, int(ctr[1] - r - 2))
    x1, y1 = min(W, int(ctr[0] + r + 3)), min(H, int(ctr[1] + r + 3))
    if x1 <= x0 or y1 <= y0:
        return
    xs = (np.arange(x0, x1, dtype=np.float32) - np.float32(ctr[0])) / np.float32(r)
    ys = (np.arange(y0, y1, dtype=np.float32) - np.float32(ctr[1])) / np.float32(r)
    dx, dy = xs[None, :], ys[:, None]
    d2 = dx * dx + dy * dy
    a = np.clip((1 - np.sqrt(d2)) * np.float32(r) + 0.5, 0, 1).astype(np.float32)
    if not a.any():
        return
    nz = -np.sqrt(np.clip(1 - d2, 0, 1))
    # the lamp is far from a ball: one direction and distance for the whole ball; normals in
    # camera coordinates dotted with the lamp's direction and the world's up, both turned so
    to_lamp = unit(light.lamp.pos - sp.centre)
    r2 = float(np.sum((light.lamp.pos - sp.centre) ** 2))
    lc = (cam.R @ to_lamp).astype(np.float32)
    zc = cam.R[:, 2].astype(np.float32)  # the world's up in camera coordinates
    # wrapped Lambert: skin scatters light past the terminator
    cos = np.clip((dx * lc[0] + dy * lc[1] + nz * lc[2] + 0.35) / 1.35, 0, 1)
    e = np.float32(light.lamp.power * 1e6 / r2) * cos
    up = np.clip(dx * zc[0] + dy * zc[1] + nz * zc[2], 0, 1)
    amb = np.float32(light.lamp.power * light.lamp.ambient) * (0.6 + 0.4 * up)
    col = light.colour.astype(np.float32)
    acol = light.ambient_colour.astype(np.float32)
    irr = e[..., None] * col + amb[..., None] * acol
    rad = (sp.albedo.astype(np.float32) / np.float32(math.pi)) * irr
    _composite(
        fr,
        sp.layer,
        x0,
        y0,
        rad.astype(np.float32),
        a,
        sp.oid,
        np.zeros_like(a),
        (irr.mean(axis=-1) / np.float32(math.pi)).astype(np.float32),
    )


# -- the camera's path from light to JPEG --------------------------------------------------------


def _distortion_pad(cam: Camera) -> tuple[int, int]:
    """How far (px) the undistorted image must reach beyond the frame on each side."""
    mx, my = _undistort_grid(cam, 9)
    w, h = cam.size
    px = max(0.0, -float(mx.min()), float(mx.max()) - w)
    py = max(0.0, -float(my.min()), float(my.max()) - h)
    return math.ceil(px) + 4, math.ceil(py) + 4


def _undistort_grid(cam: Camera, n: int) -> tuple[Image, Image]:
    """Undistorted pixel positions of an ``n`` x ``n`` grid over the photograph's pixel
    centres (0 .. w - 1, 0 .. h - 1)."""
    w, h = cam.size
    xs, ys = np.meshgrid(np.linspace(0, w - 1, n), np.linspace(0, h - 1, n))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64).reshape(-1, 1, 2)
    k = cam.K
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-6)
    und = cv2.undistortPoints(pts, k, np.array(cam.dist), None, None, k, crit).reshape(-1, 2)
    return und[:, 0].reshape(n, n), und[:, 1].reshape(n, n)


def distortion_maps(cam: Camera, pad: tuple[int, int]) -> tuple[Image, Image]:
    """For each pixel of the photograph, where to sample the padded undistorted render: the
    inverse of OpenCV's distortion, solved (``cv2.undistortPoints``) every few pixels and
    interpolated bilinearly in floating point (``cv2.resize`` with pixel centres aligned;
    ``cv2.remap`` would quantise the weights to 1/32 of a grid cell)."""
    w, h = cam.size
    step = next(s for s in (8, 4, 2, 1) if w % s == 0 and h % s == 0)
    # one grid point beyond each edge, so that the edge pixels interpolate, not clamp
    gw, gh = w // step + 2, h // step + 2
    xs = (np.arange(gw) - 0.5) * step - 0.5
    ys = (np.arange(gh) - 0.5) * step - 0.5
    gx, gy = np.meshgrid(xs, ys)
    pts = np.stack([gx.ravel(), gy.ravel()], axis=1).reshape(-1, 1, 2)
    k = cam.K
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-6)
    und = cv2.undistortPoints(pts, k, np.array(cam.dist), None, None, k, crit).reshape(gh, gw, 2)
    big = (w + 2 * step, h + 2 * step)
    mx = cv2.resize((und[..., 0] + pad[0]).astype(np.float32), big, interpolation=cv2.INTER_LINEAR)
    my = cv2.resize((und[..., 1] + pad[1]).astype(np.float32), big, interpolation=cv2.INTER_LINEAR)
    return mx[step:-step, step:-step].copy(), my[step:-step, step:-step].copy()


def psf(defocus: float, motion: float, angle: float) -> Image:
    """A blur kernel: a disc of ``defocus`` px diameter convolved with a line of ``motion``
    px at ``angle`` (radians)."""
    r = max(0.0, defocus / 2)
    m = max(0.0, motion)
    half = math.ceil(r + m / 2) + 1
    size = 2 * half + 1
    sup = 4  # supersampled so sub-pixel sizes still blur a little
    big = size * sup
    yy, xx = np.mgrid[0:big, 0:big].astype(np.float32)
    cx = (big - 1) / 2
    disc = (((xx - cx) ** 2 + (yy - cx) ** 2) <= (max(r, 0.5) * sup) ** 2).astype(np.float32)
    if m > 0.5:
        line = np.zeros((big, big), np.float32)
        dx, dy = math.cos(angle) * m * sup / 2, math.sin(angle) * m * sup / 2
        cv2.line(line, (int(cx - dx), int(cx - dy)), (int(cx + dx), int(cx + dy)), 1.0, 1)
        k = cv2.filter2D(disc, -1, line / line.sum(), borderType=cv2.BORDER_CONSTANT)
    else:
        k = disc
    small = cv2.resize(k, (size, size), interpolation=cv2.INTER_AREA)
    out: Image = small / small.sum()
    return out


@dataclass
class Sensor:
    """What the camera does between the lens and the file."""

    vignette: float  # light lost at the frame's corner (share)
    exposure_bias: float  # EV against the camera's metering
    iso: float  # gain: 100 at base
    full_well: float  # electrons at saturation, base ISO
    read_noise: float  # electrons
    wb_error: tuple[float, float]  # multiplicative error of the R and B gains
    sharpen: float  # unsharp-mask amount
    sharpen_sigma: float
    chroma_denoise: float  # sigma (px) of the chroma smoothing
    jpeg: int
    bits: int = 10
    demosaic: int = cv2.COLOR_BayerBG2BGR  # R at (0, 0): see the module's test


def expose(
    fr: Frame,
    cam: Camera,
    sensor: Sensor,
    blur: dict[int, tuple[float, float, float]],
    rng: np.random.Generator,
    clean: bool = False,
) -> tuple[Image, float, Image, Image]:
    """The photograph (BGR uint8) of a render, the exposure used, and the distorted id buffer
    and glare buffer (added grey levels on dark print, see :func:`added_light`).

    ``blur``: per layer (defocus diameter px, motion length px, motion angle). ``clean``: no
    blur, mosaic, noise, sharpening or JPEG (the truth's own check)."""
    w, h = cam.size
    pad = fr.pad
    H, W = fr.size[1], fr.size[0]
    acc = np.zeros((H, W, 3), np.float32)
    cov_all = np.zeros((H, W), np.float32)
    for k in sorted(fr.layers):
        img, cov = fr.layers[k]
        if not clean and k in blur:
            d, m, ang = blur[k]
            kern = psf(d, m, ang)
            img = cv2.filter2D(img, -1, kern, borderType=cv2.BORDER_REPLICATE)
            cov = cv2.filter2D(cov, -1, kern, borderType=cv2.BORDER_REPLICATE)
        # premultiplied: the layer's radiance already carries its coverage
        acc = acc * (1 - cov[..., None]) + img
        cov_all = cov_all * (1 - cov) + cov
    mapx, mapy = distortion_maps(cam, pad)
    lin = cv2.remap(acc, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ids = cv2.remap(fr.ids, mapx, mapy, cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
    spec = cv2.remap(fr.spec, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    dif = cv2.remap(fr.diffuse, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # vignetting: the lens's natural cos^4 fall-off, partly corrected, plus the set share
    xs = (np.arange(w, dtype=np.float32) - w / 2) ** 2
    ys = (np.arange(h, dtype=np.float32) - h / 2) ** 2
    half_diag2 = (w / 2) ** 2 + (h / 2) ** 2
    rr = (ys[:, None] + xs[None, :]) / np.float32(half_diag2)
    cos4 = (1 / (1 + rr * np.float32(half_diag2 / cam.f**2))) ** 2
    vig: Image = (np.sqrt(cos4) * (1 - np.float32(sensor.vignette) * rr)).astype(np.float32)
    lin = np.asarray(lin, np.float32) * vig[..., None]
    spec = np.asarray(spec, np.float32) * vig
    dif = np.asarray(dif, np.float32) * vig
    # metering: the frame's log-average luminance to mid-grey, the highlights spared a little
    lum = lin @ np.array([0.114, 0.587, 0.299], np.float32)
    small = cv2.resize(lum, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA)
    logavg = float(np.exp(np.mean(np.log(small + 1e-4))))
    p98 = float(np.percentile(small, 98))
    exposure = min(0.18 / logavg, 0.92 / max(p98, 1e-6)) * 2**sensor.exposure_bias
    raw_rgb = lin * exposure
    if clean:
        bgr = np.clip(raw_rgb, 0, 1)
    else:
        # the Bayer mosaic: R at even rows and columns, B at odd ones, G elsewhere (BGR order)
        raw = np.empty((h, w), np.float32)
        raw[0::2, 0::2] = raw_rgb[0::2, 0::2, 2]
        raw[0::2, 1::2] = raw_rgb[0::2, 1::2, 1]
        raw[1::2, 0::2] = raw_rgb[1::2, 0::2, 1]
        raw[1::2, 1::2] = raw_rgb[1::2, 1::2, 0]
        raw = np.clip(raw, 0, 1)
        electrons = sensor.full_well * 100 / sensor.iso
        e = raw * electrons
        noisy = e + rng.standard_normal(raw.shape, dtype=np.float32) * np.sqrt(
            e + sensor.read_noise**2
        )
        levels = 2**sensor.bits - 1
        raw = np.clip(np.round(noisy / electrons * levels), 0, levels).astype(np.uint16)
        bgr = cv2.cvtColor(raw, sensor.demosaic).astype(np.float32) / levels
    # white balance: grey-world gains, off by the set error
    thumb = cv2.resize(bgr, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA)
    means = thumb.reshape(-1, 3).mean(axis=0) + 1e-6
    gains = np.array(
        [means[1] / means[0] * sensor.wb_error[1], 1.0, means[1] / means[2] * sensor.wb_error[0]],
        np.float32,
    )
    # gains only shift the colour, not the brightness: keep the green channel's exposure
    out = tone(bgr * gains)
    if not clean:
        ycc = cv2.cvtColor(out, cv2.COLOR_BGR2YCrCb)
        if sensor.chroma_denoise > 0:
            for c in (1, 2):
                ycc[..., c] = cv2.GaussianBlur(ycc[..., c], (0, 0), sensor.chroma_denoise)
        y = ycc[..., 0]
        ycc[..., 0] = y + sensor.sharpen * (y - cv2.GaussianBlur(y, (0, 0), sensor.sharpen_sigma))
        out = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR)
    u8: Image = np.clip(out * 255 + 0.5, 0, 255).astype(np.uint8)
    if not clean:
        ok, buf = cv2.imencode(".jpg", u8, [cv2.IMWRITE_JPEG_QUALITY, sensor.jpeg])
        assert ok
        u8 = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    glare = added_light(dif * exposure, spec * exposure, gains)
    return u8, exposure, ids, glare


DARK_PRINT = 0.05  # reflectance of black toner or ink on paper (a dark module of a code)


def added_light(diffuse: Image, spec: Image, gains: Image) -> Image:
    """Grey levels that the mirrored lamp (and a matte sleeve's veil) adds to dark print:
    the 8-bit value of dark print with the specular light minus without it, through the
    camera's exposure and tone curve (:func:`tone`); ``diffuse`` is irradiance / pi, ``spec``
    radiance."""
    g = float(gains[1])
    dark = np.clip(DARK_PRINT * diffuse * g, 0, 1)
    lit = np.clip((DARK_PRINT * diffuse + spec) * g, 0, 1)
    out: Image = (tone(lit) - tone(dark)) * 255
    return out
