"""Issue 14, item 1: the camera never reports a wrong card. The cases the issue found in its
held-out photos read wrong before this change (each held card, the sleeve under glare, and the
flat test itself): a card held just above the mat was read as lying in the cell below it, and
a plain beige sleeve over a face-up card read "empty". The sleeve without glare and the hand
guard what already read right. Each scene is the
kit's paper mat seen at about 2.5 px/mm, as an overhead 1080p camera sees it, with the one
thing that fooled the reader; each test first checks that the thing is really seen (the held
card's code or marker is decoded), so it cannot pass by a missed detection."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest

import vision.herazeus.table
from printables.herazeus.payload import Deck
from vision.decode import as_gray, decode_qr
from vision.herazeus.markers import BACK_IDS, Marker, MatPose, detect_markers, find_mat, rectify
from vision.herazeus.synth import (
    _held_card,
    cell_key,
    demo_kit,
    foreign_payload,
    hard_table_options,
    hard_table_scene,
    render_mat,
    score_table,
    table_scene,
)
from vision.herazeus.table import (
    FLAT_BACK,
    FLAT_CODE,
    _off_centre,
    lies_flat,
    read_table,
    refit_on_backs,
)

# a kit printed before issue 38's bare-mat pattern: these tests guard the bare-mat tests such a
# kit is still read by (tests/test_vision_bare_pattern.py guards a kit with the pattern)
KIT = demo_kit(pattern=False)
PPM = 5.0  # rendered px per mm, before the camera
Cell = tuple[Deck, int, int]


def payload_of(deck: Deck, name: str) -> str:
    return next(p for p, c in KIT.cards.items() if c.deck == deck and c.name == name)


def face(deck: Deck, name: str) -> dict[str, Any]:
    p = payload_of(deck, name)
    return {"state": "up", "payload": p, **KIT.cards[p].to_json()}


def photo(
    layout: dict[Cell, dict[str, Any]],
    *,
    held_over: Cell | None = None,
    hold: dict[str, Any] | None = None,
    seed: int = 3,
    glare_over: Cell | None = None,
    hand_over: Cell | None = None,
    join: float = 0.0,
) -> tuple[Any, dict[str, Any]]:
    """The paper mat with ``layout``, a card held above ``held_over`` (``hold``: a back
    ``{"deck"}`` or a face ``{"payload"}``; how it is held comes from ``seed``), glare or a hand
    over a cell, the mat's sheets joined up to ``join`` mm off, photographed a little tilted,
    2400 px along the mat. Returns the frame and what the held card is."""
    rng = np.random.default_rng(seed)
    mat, _ = render_mat(KIT, layout, rng, PPM, join, paper_chance=1.0)
    what: dict[str, Any] = {}
    geo = KIT.mat

    def centre(key: Cell) -> tuple[float, float]:
        x, y, w, h = geo.cells[key]
        return ((x + w / 2) * PPM, (y + h / 2) * PPM)

    if held_over is not None:
        taken = {str(i.get("payload")) for i in layout.values()}
        img, mask, what = _held_card(KIT, rng, PPM, mat.shape[:2], centre(held_over), taken, hold)
        mat = np.where(mask[..., None] > 0, img, mat)
    if hand_over is not None:
        cx, cy = centre(hand_over)
        cv2.ellipse(mat, (round(cx), round(cy)), (140, 190), 20, 0, 360, (120, 150, 205), -1)
    out = mat.astype(np.float32)
    if glare_over is not None:
        cx, cy = centre(glare_over)
        yy, xx = np.mgrid[0 : mat.shape[0], 0 : mat.shape[1]].astype(np.float32)
        out += (170 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * 300.0**2)))[..., None]
    mat = np.clip(out * 0.88, 0, 255).astype(np.uint8)  # a camera exposed for the white mat
    h, w = mat.shape[:2]
    src = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    k = 2400 / max(w, h)
    dst = src * k + np.array([(60, 40), (-40, 70), (-30, -50), (40, -30)], np.float32) + 50
    size = (round(w * k) + 100, round(h * k) + 100)
    frame = cv2.warpPerspective(mat, cv2.getPerspectiveTransform(src, dst), size)
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), what


def cell_of_pose(pose: MatPose, point: tuple[float, float]) -> Cell | None:
    ((x, y),) = pose.to_mat([point])
    return KIT.mat.cell_at(float(x), float(y))


def held_back_seen(frame: Any, deck: Deck, cell: Cell) -> bool:
    """The held card's back marker is detected, over ``cell``."""
    gray = as_gray(frame)
    markers = detect_markers(gray)
    pose = find_mat(markers, KIT.mat)
    return any(BACK_IDS.get(m.id) == deck and cell_of_pose(pose, m.centre) == cell for m in markers)


ROW: dict[Cell, dict[str, Any]] = {
    ("hera", 1, 1): {"state": "down", "deck": "hera"},
    ("zeus", 1, 1): {"state": "down", "deck": "zeus"},
}


def test_a_back_held_above_an_empty_cell_is_not_a_card_there() -> None:
    frame, what = photo(ROW, held_over=("hera", 2, 3), hold={"deck": "zeus"})
    assert what == {"deck": "zeus"} and held_back_seen(frame, "zeus", ("hera", 2, 3))
    got = read_table(frame, KIT).cell("hera", 2, 3)
    assert got.state == "unknown" and got.reason, got


def test_a_back_held_above_a_face_up_card_is_not_read_there() -> None:
    layout: dict[Cell, dict[str, Any]] = {**ROW, ("hera", 2, 1): face("hera", "Artemis")}
    frame, _ = photo(layout, held_over=("hera", 2, 1), hold={"deck": "hera"})
    assert held_back_seen(frame, "hera", ("hera", 2, 1))
    got = read_table(frame, KIT).cell("hera", 2, 1)
    assert got.state != "down", got  # the Artemis beneath, or unknown; never a back


def test_a_back_held_above_a_card_of_the_other_deck_is_not_read_there() -> None:
    layout: dict[Cell, dict[str, Any]] = {**ROW, ("hera", 3, 1): {"state": "down", "deck": "hera"}}
    frame, _ = photo(layout, held_over=("hera", 3, 1), hold={"deck": "zeus"})
    assert held_back_seen(frame, "zeus", ("hera", 3, 1))
    got = read_table(frame, KIT).cell("hera", 3, 1)
    assert not (got.state == "down" and got.deck == "zeus"), got


def test_a_face_held_above_an_empty_cell_is_not_a_card_there() -> None:
    hold = {"payload": payload_of("zeus", "Apollo")}
    frame, what = photo(ROW, held_over=("zeus", 2, 2), hold=hold)
    codes = [c for c in decode_qr(as_gray(frame)) if c.text == what["payload"]]
    assert codes, "the held card's code is read in the frame"
    snap = read_table(frame, KIT)
    assert all(c.payload != what["payload"] for c in snap.cells.values())
    assert snap.cell("zeus", 2, 2).state == "unknown"


@pytest.mark.parametrize("glare", [False, True])
def test_a_plain_beige_sleeve_over_a_face_up_card_is_not_empty(glare: bool) -> None:
    layout: dict[Cell, dict[str, Any]] = {
        **ROW,
        ("hera", 2, 2): {**face("hera", "Hydra"), "sleeve": True},
    }
    frame, _ = photo(layout, glare_over=("hera", 2, 2) if glare else None)
    got = read_table(frame, KIT).cell("hera", 2, 2)
    assert got.state == "unknown", got  # a card lies there, unread: never "empty"


@pytest.mark.parametrize("seed, cell", [(96, ("hera", 2, 2)), (144, ("hera", 1, 3))])
def test_a_plain_sleeve_under_glare_on_a_mat_lit_to_white_is_not_empty(
    seed: int, cell: Cell
) -> None:
    """Two hard 1080p frames where the lamp lights the mat to near white and glare blows out
    a plain sleeve over a face-up card: smooth, colourless, edgeless. Once read empty."""
    scene = hard_table_scene(KIT, "1080p", seed)
    truth = scene.truth["cells"][cell_key(cell)]
    assert truth["state"] == "up" and truth["sleeve"] and truth["glare"] > 50
    assert read_table(scene.image, KIT).cell(*cell).state == "unknown"


def test_a_card_under_glare_on_a_mat_lit_to_white_is_not_empty_as_bare_mats_texture_varies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hard 1080p frame 186: the lamp lights the mat to white, where brightness tells nothing,
    and glare of 184 grey levels washes out 85% of a face-up card. Its unclipped part keeps
    0.36 of bare mat's texture. Measured on the free areas a little off (by 17%, as a pose
    shifted by a few millimetres gave), it kept 0.45 and read empty, over the 0.4 a cell needs
    elsewhere. On a mat lit to white a cell needs 0.5 (bare cells there kept 0.53 or more)."""
    scene = hard_table_scene(KIT, "1080p", 186)
    truth = scene.truth["cells"][cell_key(("zeus", 1, 2))]
    assert truth["state"] == "up" and truth["glare"] > 150
    reference = vision.herazeus.table._reference

    def smoother(*args: Any, **kwargs: Any) -> Any:
        got = reference(*args, **kwargs)
        assert got is not None
        return replace(got, texture=got.texture * 0.83)

    monkeypatch.setattr("vision.herazeus.table._reference", smoother)
    assert read_table(scene.image, KIT).cell("zeus", 1, 2).state == "unknown"
    assert read_wrong(scene) == []


def test_a_hand_over_an_empty_cell_is_not_empty() -> None:
    frame, _ = photo(ROW, hand_over=("zeus", 3, 3))
    assert read_table(frame, KIT).cell("zeus", 3, 3).state == "unknown"


def test_the_bare_cells_of_these_scenes_still_read_empty() -> None:
    """The checks above cost no bare cell: away from the sleeve, the glare and the hand, every
    empty cell reads empty."""
    layout: dict[Cell, dict[str, Any]] = {
        **ROW,
        ("hera", 2, 2): {**face("hera", "Hydra"), "sleeve": True},
    }
    snap = read_table(photo(layout)[0], KIT)
    empty = [k for k in KIT.mat.iter_cells() if k not in layout]
    assert [k for k in empty if snap.cells[k].state != "empty"] == []


@pytest.mark.parametrize("seed", range(3, 11))
def test_a_bare_cell_crossed_by_a_taped_join_of_the_mat_reads_empty(seed: int) -> None:
    """The printed mat is five sheets taped end to end: its joins cross 4 of the 8 rows of
    cells as straight lines, and a sheet laid off its mark shows the printed join line beneath.
    A join is not a card (its edges are not counted)."""
    assert KIT.seams == ((), (190.0, 380.0, 570.0, 760.0))
    snap = read_table(photo(ROW, seed=seed, join=1.5)[0], KIT)
    empty = [k for k in KIT.mat.iter_cells() if k not in ROW]
    assert [k for k in empty if snap.cells[k].state != "empty"] == []


def test_bare_cells_at_the_far_end_of_the_mat_read_empty_where_the_fitted_light_is_off() -> None:
    """Hard 1080p frame 32: in Zeus's back row the bare mat is 15-19% brighter than the light
    fitted on the mat's free areas (all beside the cells) says. Within the brightness
    tolerance (0.2; they read unknown at 0.15) those bare cells read empty, and nothing on the
    table reads wrong."""
    scene = hard_table_scene(KIT, "1080p", 32)
    snap = read_table(scene.image, KIT)
    for cell in (("zeus", 2, 4), ("zeus", 3, 4)):
        assert scene.truth["cells"][cell_key(cell)]["expect"] == "empty"
        assert snap.cell(*cell).state == "empty"
    cells = {cell_key(k): r.to_json() for k, r in snap.cells.items()}
    assert score_table(cells, scene.truth).wrong == []


def read_wrong(scene: Any) -> list[Any]:
    """The cells of ``scene`` its snapshot reads wrong (a card or "empty" the truth denies)."""
    snap = read_table(scene.image, KIT)
    cells = {cell_key(k): r.to_json() for k, r in snap.cells.items()}
    return list(score_table(cells, scene.truth).wrong)


def test_bare_cells_at_the_mats_far_ends_read_empty_as_the_light_is_fitted_up_to_them() -> None:
    """Hard 4K frame 6: the lamp falls off towards Zeus's back row, and the light fitted on
    four pieces of each side margin (centres 190 mm apart) reached it only by extrapolating:
    the back row's bare cells read 21-25% darker than the fit, unknown. On eight pieces a
    side they read empty."""
    scene = hard_table_scene(KIT, "4k", 6)
    snap = read_table(scene.image, KIT)
    for cell in (("zeus", 1, 4), ("zeus", 2, 4), ("zeus", 3, 4)):
        assert scene.truth["cells"][cell_key(cell)]["expect"] == "empty"
        assert snap.cell(*cell).state == "empty", cell
    assert read_wrong(scene) == []


@pytest.mark.parametrize(
    "resolution, i, cells",
    [
        ("12mp", 2, [("hera", 3, 3), ("hera", 3, 4)]),  # lifted 46-49 grey levels, none clipped
        ("12mp", 17, [("zeus", 3, 2)]),  # 38% of it washed out to white
        ("4k", 16, [("zeus", 2, 3), ("zeus", 3, 3)]),  # a quarter and 43% washed out
        ("12mp", 5, [("hera", 3, 1)]),  # 61% washed out
        ("12mp", 21, [("zeus", 2, 4)]),  # 79% washed out
    ],
)
def test_a_bare_cell_under_glare_reads_empty_as_it_keeps_bare_mats_grain(
    resolution: str, i: int, cells: list[Cell]
) -> None:
    """Glare adds light where the lamp multiplies it: it lifts bare mat's grey level, even
    past white, and leaves the grain of what it does not wash out as it was. These bare cells
    of hard frames, under glare the sets count as readable (under 60 grey levels at their
    centre), read unknown before: brighter than bare mat, or a fifth or more washed out."""
    scene = hard_table_scene(KIT, resolution, i)
    snap = read_table(scene.image, KIT)
    for cell in cells:
        truth = scene.truth["cells"][cell_key(cell)]
        assert truth["expect"] == "empty" and 20 <= truth["glare"] < 60
        assert snap.cell(*cell).state == "empty", cell
    assert read_wrong(scene) == []


def test_a_bare_cell_glare_lifts_past_white_all_but_whole_is_not_one_the_sets_expect_read() -> None:
    """The test images' truth. Glare of 60 grey levels hides a code, and bare mat with it; on
    a white mat less glare does as much. In hard 12 MP frame 156, glare of 59.6 at the middle
    of a bare cell lifted 96% of it past white, and the sets counted it among the bare cells
    to read. Nothing shows there: either answer is right, and the reader says unknown. (The
    bare cells of the test above, up to 79% washed out, are still expected empty.)"""
    scene = hard_table_scene(KIT, "12mp", 156)
    truth = scene.truth["cells"]["zeus/3/3"]
    assert truth["state"] == "empty" and truth["glare"] <= 60 and truth["expect"] == "any"
    assert read_table(scene.image, KIT).cell("zeus", 3, 3).state == "unknown"
    assert read_wrong(scene) == []


@pytest.mark.parametrize(
    "resolution, i, cell",
    [
        # the edge limit in blotch borders, measured before the mat showed the kit's print
        ("12mp", 36, ("hera", 2, 2)),  # 1.09 times
        ("12mp", 42, ("zeus", 3, 3)),  # a dark mat, 1.26 times
        ("4k", 115, ("hera", 1, 4)),  # 2.04 times
    ],
)
def test_a_bare_cell_of_a_mottled_mat_reads_empty_as_its_blotches_only_shade(
    resolution: str, i: int, cell: Cell
) -> None:
    """A printed mat mottles, and Canny finds the borders of its blotches: these bare cells
    of hard frames showed more edges than the edge limit allows and read unknown. A blotch
    ramps over millimetres; its edges are not counted (``_soft``)."""
    scene = hard_table_scene(KIT, resolution, i)
    snap = read_table(scene.image, KIT)
    assert scene.truth["cells"][cell_key(cell)]["expect"] == "empty"
    assert snap.cell(*cell).state == "empty"
    assert read_wrong(scene) == []


@pytest.mark.parametrize(
    "resolution, i, cell",
    [
        # a cloth mat of grey 40: the cell lies 9 grey levels (22%) under the light fitted for
        # it; brightness is judged within 10 grey levels where that is more than 20% (noise,
        # JPEG and the fit err by about as many anywhere)
        ("12mp", 143, ("hera", 1, 4)),
        # a blotchy cloth mat: the cell is 2.1 times as textured as the mat's free areas (the
        # weave varies), with no edges at all; a cell with almost no edges may be 2.5 times as
        # textured as bare mat (1.8 otherwise)
        ("4k", 21, ("zeus", 3, 3)),
        # a dark blue cloth mat (grey 42): the lamp lights the cell a fifth less than the free
        # areas, and Lab's a and b shrink with the light; its colour lay 10 units of a, b from
        # theirs. Bare mat's colour is now compared at the cell's own grey level
        ("4k", 193, ("zeus", 3, 4)),
        # a red cloth mat: the cell, darker than the free areas, kept their colour as they show
        # it (glare on some of them paled the colour kept per grey level)
        ("1080p", 555, ("zeus", 1, 2)),
        # a lamp narrower than the mat, its light clipped at the ends: the fitted surface put
        # bare mat 20 and 30 grey levels (a quarter) brighter than these cells; what it leaves
        # of the side margins' areas is added back along each margin
        ("12mp", 313, ("hera", 1, 3)),
        ("12mp", 313, ("zeus", 3, 2)),
    ],
)
def test_a_bare_cell_of_a_cloth_mat_off_its_free_areas_but_bare_in_every_other_way_reads_empty(
    resolution: str, i: int, cell: Cell
) -> None:
    scene = hard_table_scene(KIT, resolution, i)
    assert scene.truth["cells"][cell_key(cell)]["expect"] == "empty"
    assert read_table(scene.image, KIT).cell(*cell).state == "empty"
    assert read_wrong(scene) == []


def cloth(rng: np.random.Generator, bgr: Any, light: float, glare: float = 0.0) -> Any:
    """A patch of cloth of colour ``bgr`` lit by ``light`` (a share of full light), with
    ``glare`` grey levels of white light added."""
    weave = 1 + rng.normal(0, 0.05, (60, 60, 1))
    return np.clip(np.asarray(bgr) * light * weave + glare, 0, 255).round().astype(np.uint8)


def test_a_lamp_dims_bare_mats_colour_without_moving_it_off_the_mats_tint() -> None:
    """Lab's a and b shrink as the light falls (they scale with its cube root, as L does). A
    dark blue cloth at 0.6 of the free areas' light lay far off their colour; it matches bare
    mat's colour dimmed to the patch's grey level. Glare, which adds white light, is not taken
    for dimming: a brighter patch is held to the free areas' colour as it is."""
    rng = np.random.default_rng(1)
    blue = (120.0, 50.0, 25.0)
    free = cloth(rng, blue, 1.0)
    bgr = np.array(cv2.mean(free)[:3])
    grey = float(bgr @ vision.herazeus.table._GREY_WEIGHTS)
    as_free = vision.herazeus.table._look(free)
    per_grey = (float(bgr[0] / grey), float(bgr[1] / grey), float(bgr[2] / grey))
    ref = replace(as_free, lum=grey, per_grey=per_grey)

    dim = vision.herazeus.table._look(cloth(rng, blue, 0.6), ref)
    assert (
        np.hypot(*np.subtract(dim.chroma, as_free.chroma)) > 0.5 * vision.herazeus.table.TINT_LIMIT
    )
    assert dim.mat_chroma is not None
    assert np.hypot(*np.subtract(dim.chroma, dim.mat_chroma)) < 1.0
    assert dim.off_colour == 0.0

    lit = vision.herazeus.table._look(cloth(rng, blue, 1.0, glare=40), ref)
    assert lit.mat_chroma is None


def test_a_card_washed_out_on_a_white_mat_keeps_its_edges_as_they_step() -> None:
    """Hard 1080p frame 27: glare of 183 grey levels washes out 85% of a face-up card where
    the lamp lights the mat to white. It passes every other bare-mat test; only its edges
    keep it from reading empty, and what is left of its art steps from one pixel to the next,
    so they count though blotches' do not (2.26 times the edge limit; 1.89 before the mat
    showed the kit's print)."""
    scene = hard_table_scene(KIT, "1080p", 27)
    truth = scene.truth["cells"][cell_key(("zeus", 1, 1))]
    assert truth["state"] == "up" and truth["glare"] > 150
    assert read_table(scene.image, KIT).cell("zeus", 1, 1).state == "unknown"
    assert read_wrong(scene) == []


@pytest.mark.parametrize("i", [3, 16, 20])
def test_what_the_kit_prints_on_the_mats_free_areas_is_not_taken_for_bare_mat(i: int) -> None:
    """The kit prints each side's name up the mat's long margins and numbers and a dashed line
    across the centre band: the free areas bare mat is measured on. Taken in (hard 4K frames
    drawn with the kit's print), they lifted bare mat's edges from 0 to 0.023-0.043, and the
    edge limit, 2.5 times that, let as many edges as a card shows pass for bare mat's. Left
    out (``print_zones``), bare mat shows the edges of its own grain: none."""
    scene = hard_table_scene(KIT, "4k", i)
    pose = find_mat(detect_markers(as_gray(scene.image)), KIT.mat)
    mat = rectify(scene.image, pose, KIT.mat, vision.herazeus.table.OCCUPANCY_PX_PER_MM)
    marks = vision.herazeus.table._marks_mask(KIT.mat, KIT.seams)
    ref = vision.herazeus.table._reference(mat, KIT.mat, marks)
    assert ref is not None and ref.edges < 0.001
    assert read_wrong(scene) == []


def test_glare_on_the_mats_free_areas_is_left_out_of_the_light_fitted_for_bare_mat() -> None:
    """Hard 4K frame 60: a dark cloth mat, glare over the band between the two sides. The
    glare lifted three of the free areas the light is fitted on (and lowered their texture):
    with them the fit was 26% off its areas and the bare cells read 30-46% darker than it,
    unknown. Without them, every bare cell reads empty."""
    scene = hard_table_scene(KIT, "4k", 60)
    snap = read_table(scene.image, KIT)
    bare = [
        k for k in KIT.mat.iter_cells() if scene.truth["cells"][cell_key(k)]["expect"] == "empty"
    ]
    assert len(bare) >= 12
    assert [k for k in bare if snap.cells[k].state != "empty"] == []
    assert read_wrong(scene) == []


@pytest.mark.parametrize("seed", [900_002, 900_003, 900_004, 900_015, 900_021, 900_023])
def test_a_plain_sleeve_under_glare_never_reads_empty(seed: int) -> None:
    """Hard 1080p tables with glare in every frame and most face-up cards under a plain beige
    sleeve: a sleeve lifted by glare is smooth (no grain of bare mat's), so the glare that
    lets a bare cell read empty never lets a sleeve. Over 452 such sleeves at 1080p and 4K the
    highest bare-mat score was -0.26."""
    options = replace(hard_table_options("1080p"), sleeves=0.6, glare=1.0, held=0.0)
    scene = table_scene(KIT, seed, options)
    sleeves = [c for c in scene.truth["cells"].values() if c.get("sleeve")]
    assert any(c.get("glare", 0) > 30 for c in sleeves)
    assert read_wrong(scene) == []


def test_a_plain_sleeve_mostly_washed_out_by_glare_keeps_too_little_grain_to_read_empty() -> None:
    """Glare-lit 1080p table 900079 (no hands): glare of 143 grey levels washes out 78% of a
    plain sleeve. What glare left of it has 0.46 of bare mat's grain: a bare cell judged by
    its grain must keep half of it, as on a mat lit to white (it read empty at 0.4)."""
    options = replace(hard_table_options("1080p"), sleeves=0.6, glare=1.0, held=0.0, hands=0)
    scene = table_scene(KIT, 900_079, options)
    truth = scene.truth["cells"][cell_key(("hera", 2, 3))]
    assert truth["sleeve"] and truth["glare"] > 100
    assert read_table(scene.image, KIT).cell("hera", 2, 3).state != "empty"
    assert read_wrong(scene) == []


def square(pose: MatPose, x: float, y: float, side: float, turn: float = 0.0) -> Any:
    t = np.deg2rad(turn)
    r = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    pts = np.array([(0, 0), (side, 0), (side, side), (0, side)], float) @ r.T + (x, y)
    return [tuple(p) for p in pose.to_image(pts)]


def test_a_flat_code_whose_decoded_corner_lies_off_is_placed_on_its_finders_corners() -> None:
    """Fresh 4K frame 150: a hand hides a corner marker and the pose is fitted on three under
    a wide lens. The decoder put a flat code's fourth corner 1.5 mm off, and its quad read
    askew (a corner of 96 degrees): "tilted above the mat". On the corners its finders pin it
    lies flat, and the card is read."""
    scene = hard_table_scene(KIT, "4k", 150)
    truth = scene.truth["cells"][cell_key(("hera", 3, 3))]
    assert truth["expect"] == "up" and not scene.truth.get("held")
    snap = read_table(scene.image, KIT)
    assert snap.cell("hera", 3, 3).payload == truth["payload"]
    assert read_wrong(scene) == []


def test_lies_flat_takes_the_printed_square_and_nothing_bigger_askew_or_turned() -> None:
    frame, _ = photo(ROW)
    pose = find_mat(detect_markers(as_gray(frame)), KIT.mat)
    size = KIT.code_mm
    assert lies_flat(pose, square(pose, 100, 100, size), size, FLAT_CODE) is None
    assert lies_flat(pose, square(pose, 100, 100, size, 3), size, FLAT_CODE) is None
    assert "held above" in str(lies_flat(pose, square(pose, 100, 100, size * 1.1), size, FLAT_CODE))
    assert "turned" in str(lies_flat(pose, square(pose, 100, 100, size, 25), size, FLAT_CODE))
    # a quad no flat code shows (on the hard sets each side lay within 5% of the sides' mean):
    # one corner 2.5 mm off, or a card tilted above the mat, its far edge 10% narrower
    off = [(100.0, 100.0), (120.0, 100.0), (122.5, 120.0), (100.0, 120.0)]
    tilted = [(100.0, 100.0), (120.0, 100.0), (119.0, 119.5), (101.0, 119.5)]
    for quad in (off, tilted):
        corners = [tuple(p) for p in pose.to_image(np.array(quad))]
        assert "tilted" in str(lies_flat(pose, corners, size, FLAT_CODE))
    # a corner found half a millimetre off is not a symbol held above the mat
    near = [(100.0, 100.0), (120.0, 100.0), (120.5, 120.0), (100.0, 120.0)]
    assert (
        lies_flat(pose, [tuple(p) for p in pose.to_image(np.array(near))], size, FLAT_CODE) is None
    )
    back = KIT.back_marker_mm
    assert lies_flat(pose, square(pose, 80, 90, back, 6), back, FLAT_BACK) is None


@functools.cache
def four_k_45() -> Any:
    """Hard 4K frame 45: a hand covers a corner marker (made once; not to be changed)."""
    return hard_table_scene(KIT, "4k", 45)


def back_offsets(pose: MatPose, markers: list[Marker]) -> list[float]:
    """How far (mm) each back in a cell lies from its cell's centre, as ``pose`` puts it."""
    out = []
    for m in markers:
        if m.id in BACK_IDS:
            ((x, y),) = pose.to_mat([m.centre])
            key = KIT.mat.cell_at(float(x), float(y))
            if key is not None:
                cx, cy = KIT.mat.cells[key].centre
                out.append(float(np.hypot(x - cx, y - cy)))
    return out


def test_a_three_marker_pose_is_refitted_on_the_backs_lying_in_cells() -> None:
    """Hard 4K frame 45: the pose fitted on three corner markers puts Hera's backs, by the
    hidden corner, 12-14 mm off their cells' centres, and three bare cells there and one
    across the mat held outlines and the next card in their tested insides (unknown).
    Refitted on the six backs lying flat in cells (cards lie up to 3 mm off their cells, and
    the lens bends what no homography follows), every back lies within 6 mm of its cell's
    centre, and those cells read empty."""
    scene = four_k_45()
    markers = detect_markers(as_gray(scene.image))
    coarse = find_mat(markers, KIT.mat)
    assert len(coarse.markers) == 3
    refit = refit_on_backs(coarse, markers, KIT.mat, KIT.back_marker_mm)
    assert max(back_offsets(coarse, markers)) > 12
    assert max(back_offsets(refit, markers)) < 6
    assert refit.error_mm < 1.5 and refit.markers == coarse.markers
    snap = read_table(scene.image, KIT)
    for cell in (("hera", 1, 3), ("hera", 2, 3), ("hera", 3, 3), ("zeus", 1, 1)):
        assert scene.truth["cells"][cell_key(cell)]["expect"] == "empty"
        assert snap.cell(*cell).state == "empty", cell
    assert read_wrong(scene) == []


def test_a_pose_is_not_refitted_on_too_few_backs_nor_on_a_back_far_off_its_cell() -> None:
    scene = four_k_45()
    markers = detect_markers(as_gray(scene.image))
    coarse = find_mat(markers, KIT.mat)
    backs = [m for m in markers if m.id in BACK_IDS]
    corners = [m for m in markers if m.id not in BACK_IDS]
    assert refit_on_backs(coarse, corners + backs[:2], KIT.mat, KIT.back_marker_mm) is coarse
    # a back 20 mm below its cell's centre (a card pushed half off it) is left out of the fit
    refit = refit_on_backs(coarse, markers, KIT.mat, KIT.back_marker_mm)
    m = backs[0]
    shift = coarse.to_image([(0.0, 20.0)])[0] - coarse.to_image([(0.0, 0.0)])[0]
    pushed = Marker(m.id, tuple((x + shift[0], y + shift[1]) for x, y in m.corners))  # type: ignore[arg-type]
    again = refit_on_backs(coarse, [*markers, pushed], KIT.mat, KIT.back_marker_mm)
    assert np.allclose(again.homography, refit.homography)


def test_backs_are_judged_off_their_cells_as_the_backs_around_them_lie() -> None:
    """Hard 4K frame 45: a hand covers a corner marker, and the pose fitted on the other three
    puts Hera's backs 12-14 mm off their cells' centres, all alike (refitted on them, under 6
    mm). Each is judged against its neighbours' median offset: read either way."""
    scene = four_k_45()
    snap = read_table(scene.image, KIT)
    assert len(snap.pose.markers) == 3
    for cell in (("hera", 1, 2), ("hera", 2, 1), ("hera", 3, 2)):
        truth = scene.truth["cells"][cell_key(cell)]
        assert (truth["expect"], truth["deck"]) == ("down", "hera")
        assert (snap.cell(*cell).state, snap.cell(*cell).deck) == ("down", "hera"), cell
    assert read_wrong(scene) == []


def test_a_back_off_its_cell_while_its_neighbours_lie_on_theirs_is_not_in_it() -> None:
    near = [((60.0, 460.0), (0.5, -1.0)), ((128.0, 560.0), (-1.0, 0.5))]
    assert _off_centre((128.0, 470.0), (0.0, 12.0), near) == pytest.approx(12.0, abs=1.0)
    shifted = [((60.0, 460.0), (0.0, 11.0)), ((128.0, 560.0), (1.0, 12.0))]
    assert _off_centre((128.0, 470.0), (0.0, 12.0), shifted) < 2.0
    # one neighbour, or neighbours far away, tell nothing of the pose: its own offset counts
    assert _off_centre((128.0, 470.0), (0.0, 12.0), shifted[:1]) == pytest.approx(12.0)
    far = [((60.0, 60.0), (0.0, 11.0)), ((128.0, 790.0), (1.0, 12.0))]
    assert _off_centre((128.0, 470.0), (0.0, 12.0), far) == pytest.approx(12.0)


@pytest.mark.parametrize(
    "resolution, i, cell", [("12mp", 11, ("zeus", 2, 1)), ("4k", 19, ("zeus", 1, 2))]
)
def test_a_code_lying_flat_under_a_wide_lens_is_not_taken_for_one_held_above(
    resolution: str, i: int, cell: Cell
) -> None:
    """Hard frames whose lens bends the mat (barrel distortion) away from the homography of
    its corner markers: a flat code there measured 20.3-21.3 and 19.6-21.2 mm a side, one side
    more than 6% off, and read unknown ("held above the mat"). Its size is its sides' mean
    (20.8 and 20.3 mm), each side within 6% of it: read."""
    scene = hard_table_scene(KIT, resolution, i)
    truth = scene.truth["cells"][cell_key(cell)]
    assert truth["expect"] == "up" and truth["visible"] == 1.0
    assert read_table(scene.image, KIT).cell(*cell).payload == truth["payload"]
    assert read_wrong(scene) == []


@pytest.mark.parametrize("seed", range(4))
def test_a_face_up_card_too_blurred_to_decode_is_matched_in_its_cell_and_a_foreign_one_never(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14, item 2: at about 1.9 px a module and blurred by half a module, no decoder
    reads the cards; the kit's codebook reads ours in its cell, and another kit's card beside
    it stays unknown (vision.codebook)."""
    alien = {"state": "up", "payload": foreign_payload(np.random.default_rng(seed)), "serial": 1}
    layout = {**ROW, ("hera", 2, 1): face("hera", "Artemis"), ("zeus", 3, 2): alien}
    frame, _ = photo(layout, seed=seed)
    small = cv2.resize(frame, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    frame = cv2.GaussianBlur(small, (0, 0), 0.9)
    snap = read_table(frame, KIT)
    ours = snap.cell("hera", 2, 1)
    assert ours.state == "up" and ours.payload == payload_of("hera", "Artemis"), ours
    assert [d.matched for d in snap.detections if d.payload == ours.payload] == [True]
    assert snap.cell("zeus", 3, 2).state == "unknown"
    monkeypatch.setattr("vision.herazeus.table.codebook", lambda payloads: None)
    assert read_table(frame, KIT).cell("hera", 2, 1).state == "unknown"  # only matching reads it


@pytest.mark.parametrize(
    "resolution, i, cells",
    [
        ("1080p", 50, [("hera", 2, 2), ("hera", 3, 2)]),  # under glare of 49 and 44
        ("1080p", 57, [("zeus", 1, 4)]),
    ],
)
def test_a_face_up_card_under_glare_no_decoder_reads_is_matched_in_its_cell(
    resolution: str, i: int, cells: list[Cell], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Glare adds light to a code and its label alike: the code's square is then darker than
    its label by as many grey levels as before, but no longer by a share of the label's grey,
    which is what the codebook's squares were looked for by. In a cell it now also looks for
    squares 45 grey levels darker than their surroundings. These hard 1080p face-up cards
    read unknown before."""
    scene = hard_table_scene(KIT, resolution, i)
    snap = read_table(scene.image, KIT)
    for cell in cells:
        truth = scene.truth["cells"][cell_key(cell)]
        got = snap.cell(*cell)
        assert truth["expect"] == "up" and (got.state, got.payload) == ("up", truth["payload"])
    assert read_wrong(scene) == []
    monkeypatch.setattr("vision.codebook.LIFTED_DARKER", 255)  # as before
    again = read_table(scene.image, KIT)
    assert [again.cell(*cell).state for cell in cells] == ["unknown"] * len(cells)
