"""The bare-mat lattice test (:func:`vision.herazeus.table.pattern_look`) takes every tile's
sums at once, over the blocks the tiles' edges and the sheets' joins cut a patch into. It must
say exactly what measuring each tile, and each part of a tile between joins, on its own says:
that plain measure is written out here, tile by tile, as the definition the fast one is held to,
on patches of every kind a cell shows (the lattice sharp or blurred, a card's edge, print the
kit leaves out, glare clipped to white or just under it, joins across either axis)."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import pytest

from printables.herazeus.mat import PATTERN_PERIOD_MM
from vision.herazeus.table import (
    BLOWN_MAT,
    OCCUPANCY_PX_PER_MM,
    PATTERN_JOIN_MM,
    PATTERN_JUDGED,
    PATTERN_LEVELS,
    PATTERN_SCALES,
    PATTERN_TILES,
    PATTERN_WASHED,
    WASHED_OUT,
    PatternLook,
    _shows,
    pattern_look,
)

PERIOD = PATTERN_PERIOD_MM * OCCUPANCY_PX_PER_MM


def tile_by_tile(
    gray: np.ndarray,
    period_px: float,
    skip: np.ndarray | None = None,
    cuts: tuple[Sequence[float], Sequence[float]] = ((), ()),
) -> PatternLook:
    """The definition: each tile, and each part of it between joins' bands, measured on its own
    (its detail about its own mean, its Fourier coefficient along each axis at each scale)."""
    g = gray.astype(np.float64)
    box = max(2, round(period_px))
    detail = g - cv2.blur(g, (box, box), borderType=cv2.BORDER_REFLECT)
    use = np.ones(g.shape, bool) if skip is None else ~skip
    h, w = g.shape
    band = PATTERN_JOIN_MM * period_px / PATTERN_PERIOD_MM
    parts = []
    for size, at in ((w, cuts[0]), (h, cuts[1])):
        edges = sorted(float(c) for c in at if -band < c < size + band)
        bounds = [0.0, *(v for c in edges for v in (c - band, c + band)), float(size)]
        parts.append(
            [
                (max(0, round(a)), min(size, round(b)))
                for a, b in zip(bounds[::2], bounds[1::2], strict=True)
                if round(b) > round(a)
            ]
        )
    k = 2 * np.pi / period_px * np.array(PATTERN_SCALES)
    cols, rows = PATTERN_TILES
    shares: list[tuple[float, float]] = []
    shown = 0
    for r in range(rows):
        y0, y1 = r * h // rows, (r + 1) * h // rows
        for c in range(cols):
            x0, x1 = c * w // cols, (c + 1) * w // cols
            inside = use[y0:y1, x0:x1]
            n_all = int(inside.sum())
            if int((gray[y0:y1, x0:x1] >= WASHED_OUT)[inside].sum()) > PATTERN_WASHED * n_all:
                continue
            total = px = py = 0.0
            n = 0
            for ya, yb in parts[1]:
                for xa, xb in parts[0]:
                    top, bottom, left, right = max(y0, ya), min(y1, yb), max(x0, xa), min(x1, xb)
                    if bottom - top < box or right - left < box:
                        continue
                    m = use[top:bottom, left:right]
                    if m.sum() < box * box:
                        continue
                    nm = int(m.sum())
                    ys, xs = np.nonzero(m)
                    vals = detail[top:bottom, left:right][m]
                    vals = vals - vals.mean()
                    total += float(np.sum(vals**2))
                    # the strongest scale's coefficient along x, then along y
                    fx = max(abs(np.sum(vals * np.exp(-1j * kk * (xs + left)))) for kk in k)
                    fy = max(abs(np.sum(vals * np.exp(-1j * kk * (ys + top)))) for kk in k)
                    px += 2 * fx**2 / nm
                    py += 2 * fy**2 / nm
                    n += nm
            if n <= 0 or n < PATTERN_JUDGED * (y1 - y0) * (x1 - x0) or n < 0.5 * n_all:
                continue
            amp = float(np.sqrt(2 * min(px, py) / n))
            if total <= 0 or amp < PATTERN_LEVELS:
                if float(g[y0:y1, x0:x1][inside].mean()) >= BLOWN_MAT:
                    continue
                shares.append((0.0, 0.0))
                continue
            share, axis_share = (px + py) / total, min(px, py) / total
            shares.append((share, axis_share))
            shown += _shows(share, axis_share)
    return PatternLook(shown, len(shares), tuple(shares))


def patch(seed: int) -> tuple[np.ndarray, np.ndarray | None, tuple[list[float], list[float]]]:
    """A cell's inside as the camera might straighten it: paper, the lattice (faint, sharp or
    blurred, a little off scale or turned), maybe a card's edge, print left out, glare, joins."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(60, 140)), int(rng.integers(40, 90))
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    scale, turn = rng.uniform(0.9, 1.1), rng.uniform(-0.08, 0.08)
    u = (x * np.cos(turn) - y * np.sin(turn)) / (PERIOD * scale)
    v = (x * np.sin(turn) + y * np.cos(turn)) / (PERIOD * scale)
    squares = ((u % 1) < 0.5) & ((v % 1) < 0.5)
    paper = rng.uniform(150, 235)
    img = paper - rng.uniform(0, 0.25) * paper * squares
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.5))
    img += rng.normal(0, rng.uniform(0.5, 4), img.shape) + rng.uniform(-20, 20) * x / w
    kind = seed % 5
    if kind == 1:  # a card's edge across the patch, its art on one side
        img[:, : int(rng.integers(5, w - 5))] = rng.uniform(40, 200) + rng.normal(0, 12, (h, 1))
    elif kind == 2:  # glare over a part: clipped to white, or lifted until only dots stay grey
        r0 = int(rng.integers(0, h // 2))
        img[r0 : r0 + int(rng.integers(10, h)), :] += 255 if seed % 2 else rng.uniform(30, 90)
    elif kind == 3:  # glare just under white: the lattice washed away, grey high
        img[: int(rng.integers(20, h)), :] = rng.uniform(BLOWN_MAT - 5, WASHED_OUT - 1)
    elif kind == 4 and seed % 2:  # glare clipped all but the squares' darkest px: not judged
        img = np.where((abs(u % 1 - 0.25) < 0.04) & (abs(v % 1 - 0.25) < 0.04), img - 60, 255)
    skip = None
    if rng.random() < 0.5:  # the cell's name printed there, with slack round it
        skip = np.zeros((h, w), bool)
        y0, x0 = int(rng.integers(0, h - 10)), int(rng.integers(0, w - 10))
        skip[y0 : y0 + int(rng.integers(5, 40)), x0 : x0 + int(rng.integers(5, 40))] = True
    cuts: tuple[list[float], list[float]] = ([], [])
    for axis, size in ((0, w), (1, h)):
        for _ in range(int(rng.integers(0, 3))):
            cuts[axis].append(float(rng.uniform(-15, size + 15)))
    return np.clip(img, 0, 255).astype(np.uint8), skip, cuts


@pytest.mark.parametrize("seed", range(60))
def test_the_lattice_test_says_what_measuring_each_tile_on_its_own_says(seed: int) -> None:
    gray, skip, cuts = patch(seed)
    fast, plain = pattern_look(gray, PERIOD, skip, cuts), tile_by_tile(gray, PERIOD, skip, cuts)
    assert (fast.shown, fast.judged) == (plain.shown, plain.judged)
    assert np.allclose(fast.shares, plain.shares, rtol=1e-5, atol=1e-7)
    assert fast.bare == pytest.approx(plain.bare, abs=1e-5)


def test_the_patches_cover_what_the_lattice_test_must_tell_apart() -> None:
    """The patches above hold bare mat, covered cells, tiles left unjudged and joins."""
    patches = [patch(seed) for seed in range(60)]
    looks = [tile_by_tile(gray, PERIOD, skip, cuts) for gray, skip, cuts in patches]
    assert any(look.bare > 0 for look in looks)
    assert any(look.bare <= 0 and look.judged > 0 for look in looks)
    assert any(look.judged < PATTERN_TILES[0] * PATTERN_TILES[1] for look in looks)
    assert sum(bool(cuts[0] or cuts[1]) for _, _, cuts in patches) > 20
