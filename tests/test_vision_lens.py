"""Issue 38: the overhead camera under a wide lens. A webcam's wide lens bends the mat (barrel
distortion), which no homography follows: its corner markers did not fit the mat and the frame
was refused, or the cells were placed a card's margin off and read nothing. The pose now fits
one radial lens term about the frame's centre with the homography. A mat whose markers truly do
not fit (a bent or folded mat, another mat's marker) is still refused, and a lens term never
puts a point anywhere but where the straight-lens pose and the lens together put it."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from printables.herazeus.payload import MAT_CORNER_IDS
from vision.decode import as_gray
from vision.herazeus.markers import Marker, MatNotFound, detect_markers, find_mat
from vision.herazeus.synth import cell_key, demo_kit, score_table, table_scene
from vision.herazeus.table import read_table
from vision.pose import LENS_K_TOLERANCE, Lens, MatPose, _least, _lens_maps
from vision.scenery import Scene, SceneOptions, _barrel

KIT = demo_kit()
# a lens bending the frame's corners in by 40% of their radius (scenery's model, radius 1 = half
# the diagonal): a webcam's widest lens, past what the old pose could follow (tuned frames go
# to 0.06)
STRONG_BARREL = 0.4


@functools.cache
def wide_lens_frame(seed: int) -> Scene:
    """A 1080p frame of the mat in play, taken through a strongly bending wide lens."""
    s = table_scene(KIT, seed, SceneOptions(blur=0.3, noise=1.0, tilt=0.05))
    return Scene(_barrel(s.image, STRONG_BARREL), s.truth)


@pytest.mark.parametrize("seed", [2, 3])
def test_a_mat_seen_through_a_strongly_bending_wide_lens_is_found_and_every_cell_read(
    seed: int,
) -> None:
    scene = wide_lens_frame(seed)
    table = read_table(scene.image, KIT)
    assert table.pose.lens is not None and table.pose.lens.k < -0.1  # barrel: bent inwards
    assert table.pose.error_mm < 1.0
    cells = {cell_key(k): r.to_json() for k, r in table.cells.items()}
    score = score_table(cells, scene.truth)
    assert score.wrong == []
    assert score.up_readable > 0 and score.up_read == score.up_readable
    assert score.backs_readable > 0 and score.backs_read == score.backs_readable
    assert score.empty_readable > 0 and score.empty_read == score.empty_readable


def test_without_the_frame_size_the_same_markers_fit_no_flat_pose() -> None:
    """The lens term is what finds the mat: a homography alone leaves the markers far off."""
    gray = as_gray(wide_lens_frame(3).image)
    markers = detect_markers(gray)
    with pytest.raises(MatNotFound, match="do not fit the mat"):
        find_mat(markers, KIT.mat)
    pose = find_mat(markers, KIT.mat, (gray.shape[1], gray.shape[0]))
    assert pose.error_mm < 1.0


@pytest.mark.parametrize("shift_px", [(40.0, 0.0), (0.0, -40.0), (28.0, 28.0)])
def test_a_mat_whose_corner_marker_lies_off_is_still_refused_whatever_the_lens(
    shift_px: tuple[float, float],
) -> None:
    """One corner marker 40 px (about 16 mm) from where the mat prints it, as on a folded mat
    or with another mat's marker: no lens term makes the four fit."""
    gray = as_gray(wide_lens_frame(3).image)
    markers = detect_markers(gray)
    moved = [
        Marker(m.id, tuple((x + shift_px[0], y + shift_px[1]) for x, y in m.corners))  # type: ignore[arg-type]
        if m.id == MAT_CORNER_IDS[0]
        else m
        for m in markers
    ]
    assert moved != markers
    with pytest.raises(MatNotFound, match="do not fit the mat"):
        find_mat(moved, KIT.mat, (gray.shape[1], gray.shape[0]))


def test_a_frame_through_a_straight_lens_keeps_its_flat_pose() -> None:
    scene = table_scene(KIT, 3, SceneOptions(blur=0.3, noise=1.0, tilt=0.05))
    gray = as_gray(scene.image)
    pose = find_mat(detect_markers(gray), KIT.mat, (gray.shape[1], gray.shape[0]))
    assert pose.lens is None


def test_the_lens_term_bends_and_straightens_points_back_to_where_they_were() -> None:
    lens = Lens.of_frame(-0.2, (1920, 1080))
    pts = np.array([[100.0, 80.0], [1800.0, 1000.0], [959.5, 539.5], [400.0, 900.0]])
    bent = lens.distort(pts)
    assert np.hypot(*(bent[0] - pts[0])) > 50  # a corner of the frame bent in
    assert np.allclose(lens.undistort(bent), pts, atol=1e-3)
    half = np.diag([0.5, 0.5, 1.0])
    half[:2, 2] = 0.5 * 0.5 - 0.5
    small = lens.scaled(half)
    assert np.allclose(small.distort(pts * 0.5 - 0.25), bent * 0.5 - 0.25, atol=1e-6)


def exact_lens_maps(
    pose: MatPose, origin: tuple[float, float], size: tuple[int, int], px_per_mm: float
) -> tuple[np.ndarray, np.ndarray]:
    """Where the pose and its lens put each pixel of a view, point by point."""
    u = origin[0] + np.arange(size[0], dtype=np.float64) / px_per_mm
    v = origin[1] + np.arange(size[1], dtype=np.float64) / px_per_mm
    gu, gv = np.meshgrid(u, v)
    px = pose.to_image(np.stack([gu.ravel(), gv.ravel()], axis=1))
    return px[:, 0].reshape(size[1], size[0]), px[:, 1].reshape(size[1], size[0])


@pytest.mark.parametrize("k", [-0.6, -0.2, 0.2])
@pytest.mark.parametrize(
    ("origin", "size", "px_per_mm"),
    [((0.0, 0.0), (900, 600), 1.5), ((100.0, 50.0), (252, 352), 4.0), ((3.3, 7.1), (37, 23), 2.0)],
)
def test_a_straightened_view_samples_each_pixel_where_the_bent_lens_puts_it(
    k: float, origin: tuple[float, float], size: tuple[int, int], px_per_mm: float
) -> None:
    """The view's sampling map is worked out on a grid and interpolated (vision.pose
    WARP_GRID_PX): every pixel, the borders included, stays within 0.05 px of where the pose
    and the lens put it point by point, on the widest lens we follow and a pincushion."""
    h = np.array([[1.7, 0.05, 200.0], [0.02, 1.72, 80.0], [1e-5, 2e-5, 1.0]])
    pose = MatPose(h, (0, 1, 2, 3), 0.1, 1.0, Lens.of_frame(k, (1920, 1080)))
    fast = _lens_maps(pose, origin, size, px_per_mm)
    exact = exact_lens_maps(pose, origin, size, px_per_mm)
    for a, b in zip(fast, exact, strict=True):
        assert a.shape == (size[1], size[0])
        assert float(np.abs(a - b).max()) < 0.05


@pytest.mark.parametrize(
    ("f", "a", "b", "least"),
    [
        (lambda x: (x - 0.123) ** 2, -0.6, 0.2, 0.123),  # a smooth minimum
        (lambda x: abs(x + 0.31), -0.6, 0.2, -0.31),  # a corner
        (lambda x: (x - 0.5) ** 2, -0.6, 0.2, 0.2),  # the least at the bracket's end
        (lambda x: float("inf") if x < -0.3 else (x + 0.2) ** 2, -0.6, 0.2, -0.2),  # a fold
    ],
)
def test_the_lens_search_finds_the_least_error_within_its_tolerance(
    f: Any, a: float, b: float, least: float
) -> None:
    """vision.pose._least (Brent's method, bounded): the lens term's search between the scan's
    neighbours, within LENS_K_TOLERANCE, where the error is smooth, has a corner, is least at
    an end, or is infinite past a strong barrel's fold."""
    assert _least(f, a, b, LENS_K_TOLERANCE) == pytest.approx(least, abs=3 * LENS_K_TOLERANCE)
