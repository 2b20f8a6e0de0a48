"""Issue 38, point 2: a positive sign of bare mat. The kit prints a faint lattice of grey squares
in every cell (``MatGeometry.pattern``, recorded in ``kit.json``); the camera reads a cell as
empty when it shows that lattice, and a cell where a card, a sleeve, a hand or a card held
above hides it never reads empty. A kit printed before it (no pattern in its ``kit.json``) is
read as it was then."""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pytest

import vision.herazeus.table
from printables.herazeus.kit import Kit, KitError
from printables.herazeus.mat import MatPattern, standard_mat
from printables.herazeus.payload import Deck
from printables.herazeus.sheets import PAGE_MARGIN, mat_pdf, mat_tiling
from vision.herazeus.kit import load_kit
from vision.herazeus.synth import (
    SceneOptions,
    _held_card,
    demo_kit,
    render_mat,
    table_scene,
)
from vision.herazeus.table import read_table

KIT = demo_kit()
OLD_KIT = demo_kit(pattern=False)
DATA = Path(__file__).parent / "data" / "vision"
Cell = tuple[Deck, int, int]
PPM = 5.0  # rendered px per mm, before the camera


# -- the kit and its printed mat ------------------------------------------------------------------


@functools.cache
def printed_mat(pattern: bool) -> np.ndarray:
    """The printed mat.pdf's sheets rendered at 5 px/mm (pypdfium2, grey) and laid side by side
    where they join: the whole mat as printed."""
    kit = Kit.create(kit_id="K7QX2", secret="5e" * 16)
    if not pattern:
        kit = replace(kit, mat=standard_mat(pattern=False))
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "mat.pdf"
        mat_pdf(kit, path)
        mat, k = kit.mat, PPM
        t = mat_tiling(mat, kit.options.paper)
        whole = np.full((round(mat.height * k), round(mat.width * k)), 255, np.uint8)
        for (_, _, mx, my), page in zip(t.windows(), pdfium.PdfDocument(str(path)), strict=True):
            img = page.render(scale=k * 25.4 / 72, grayscale=True).to_numpy()
            img = img if img.ndim == 2 else img[:, :, 0]
            m0 = round(PAGE_MARGIN * k)
            part = img[m0 : m0 + round(t.window_h * k), m0 : m0 + round(t.window_w * k)]
            y0, x0 = round(my * k), round(mx * k)
            h, w = min(part.shape[0], whole.shape[0] - y0), min(part.shape[1], whole.shape[1] - x0)
            whole[y0 : y0 + h, x0 : x0 + w] = part[:h, :w]
    return whole


def off_joins(key: Cell) -> list[Any]:
    """The lattice's squares in cell ``key`` but those a sheet's join line is printed over."""
    joins = KIT.seams[1]
    return [
        d
        for d in KIT.mat.pattern_dots(key)
        if not any(d.y - 1 <= j <= d.y + d.h + 1 for j in joins)
    ]


def test_the_printed_mat_shows_the_kits_lattice_in_every_cell_where_the_kit_says() -> None:
    whole, geo, k = printed_mat(True), KIT.mat, PPM
    assert geo.pattern is not None
    grey = 255 * geo.pattern.grey
    dots = 0
    for key in geo.cells:
        for x, y, w, h in off_joins(key):
            centre = whole[round((y + h / 2) * k), round((x + w / 2) * k)]
            gap = whole[round((y + h / 2) * k), round((x + w + (geo.pattern.period - w) / 2) * k)]
            assert abs(int(centre) - grey) <= 12, (key, x, y)  # a dot, in the kit's grey
            assert gap >= 240, (key, x, y)  # white between the dots
            dots += 1
    assert dots >= 24 * 240  # the cell's inside, less its name's zone, every 4 mm


def test_the_lattice_keeps_clear_of_what_the_mat_already_prints() -> None:
    geo = KIT.mat
    zones = geo.print_zones()
    for key, cell in geo.cells.items():
        for x, y, w, h in geo.pattern_dots(key):
            assert cell.x + 3 <= x and x + w <= cell.x + cell.w - 3  # inside its outline
            assert cell.y + 3 <= y and y + h <= cell.y + cell.h - 3
            for zx, zy, zw, zh in zones:
                assert x + w <= zx or x >= zx + zw or y + h <= zy or y >= zy + zh


def test_a_mat_printed_without_the_pattern_has_no_lattice() -> None:
    whole, geo, k = printed_mat(False), KIT.mat, PPM
    for key in geo.cells:
        for x, y, w, h in off_joins(key)[::7]:
            assert whole[round((y + h / 2) * k), round((x + w / 2) * k)] >= 240


def test_kit_json_records_the_pattern_and_reads_it_back() -> None:
    kit = KIT.kit
    data = kit.to_json()
    assert data["mat"]["pattern"] == {
        "kind": "square-lattice/1",
        "period_mm": 4.0,
        "dot_mm": 2.0,
        "grey": 0.8,
        "inset_mm": 3.0,
        "label_clear_mm": 1.0,
    }
    again = Kit.from_json(json.loads(kit.dumps()))
    assert again.mat.pattern == MatPattern()


def test_an_older_kit_without_the_pattern_reads_and_writes_its_mat_as_before() -> None:
    text = (DATA / "kit.json").read_text()
    assert '"pattern"' not in text
    kit = Kit.loads(text)
    assert kit.mat.pattern is None
    assert kit.to_json()["mat"] == json.loads(text)["mat"]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("kind", "square-lattice/2", "this version reads 'square-lattice/1'"),
        ("period_mm", 0.5, "period must be 1-20 mm"),
        ("dot_mm", 4.0, "a dot smaller than it"),
        ("grey", 1.0, "grey: must be a share"),
    ],
)
def test_a_pattern_this_version_cannot_print_or_read_is_refused_by_name(
    field: str, value: Any, message: str
) -> None:
    data = KIT.kit.to_json()
    data["mat"]["pattern"][field] = value
    with pytest.raises(KitError, match=message):
        Kit.from_json(data)


# -- the camera -----------------------------------------------------------------------------------


def photograph(
    mat: np.ndarray,
    rng: np.random.Generator,
    blur: float,
    jpeg: int,
    glare_at: Any = None,
    glare: tuple[float, float] = (60.0, 40.0),
) -> np.ndarray:
    """``mat`` (rendered at PPM) under a 1080p camera that sees it at about 2 px/mm (the mat's
    long side across the frame, a little tilted), lit by a lamp, with glare of ``glare`` (grey
    levels at its centre, its spread in mm) round each of ``glare_at`` (mat px), blurred
    ``blur`` px, with noise, saved as JPEG ``jpeg``."""
    f = cv2.GaussianBlur(mat, (0, 0), 1.0).astype(np.float32) * 0.9  # the lens, the lamp
    spots = [] if glare_at is None else glare_at if isinstance(glare_at, list) else [glare_at]
    if spots:
        yy, xx = np.mgrid[0 : mat.shape[0], 0 : mat.shape[1]].astype(np.float32)
    for at in spots:
        d2 = (xx - at[0]) ** 2 + (yy - at[1]) ** 2
        f += (glare[0] * np.exp(-d2 / (2 * (glare[1] * PPM) ** 2)))[..., None]
    h, w = mat.shape[:2]
    src = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    dst = np.array([(1760, 80), (1770, 560), (150, 600), (140, 60)], np.float32)
    hm = cv2.getPerspectiveTransform(src, dst)
    frame = cv2.warpPerspective(np.clip(f, 0, 255).astype(np.uint8), hm, (1920, 1080))
    g: Any = frame.astype(np.float32)
    if blur > 0:
        g = cv2.GaussianBlur(g, (0, 0), blur)
    g = g + rng.normal(0, 3.0, g.shape).astype(np.float32)
    out = np.clip(g, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, jpeg])
    assert ok
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    assert decoded is not None
    return np.asarray(decoded)


def centre_px(key: Cell) -> tuple[float, float]:
    x, y, w, h = KIT.mat.cells[key]
    return ((x + w / 2) * PPM, (y + h / 2) * PPM)


FACE = next((p, c) for p, c in KIT.cards.items() if c.deck == "hera")
LAYOUT: dict[Cell, dict[str, Any]] = {
    ("hera", 1, 1): {"state": "up", "payload": FACE[0], **FACE[1].to_json()},
    ("hera", 2, 1): {"state": "down", "deck": "hera"},
    ("zeus", 1, 1): {"state": "down", "deck": "zeus"},
    ("zeus", 2, 2): {"state": "up", "payload": FACE[0], **FACE[1].to_json(), "sleeve": True},
}


@pytest.mark.parametrize(
    ("blur", "jpeg", "glare"),
    [(0.0, 92, False), (1.0, 70, False), (1.5, 70, False), (0.8, 75, True)],
)
def test_a_bare_cell_showing_the_lattice_reads_empty_under_blur_glare_and_jpeg(
    blur: float, jpeg: int, glare: bool
) -> None:
    rng = np.random.default_rng(5)
    mat, _ = render_mat(KIT, LAYOUT, rng, PPM, join=1.5, paper_chance=1.0)
    glare_at = centre_px(("hera", 3, 2)) if glare else None
    snap = read_table(photograph(mat, rng, blur, jpeg, glare_at), KIT)
    bare = [k for k in KIT.mat.iter_cells() if k not in LAYOUT]
    assert [k for k in bare if snap.cells[k].state != "empty"] == []
    assert [k for k in LAYOUT if snap.cells[k].state == "empty"] == []


def test_a_mat_without_the_lattice_its_kit_records_reads_no_cell_empty() -> None:
    """The sign is positive: bare mat that does not show the kit's lattice is not empty (a
    mat printed before the pattern, read with a kit that records one)."""
    rng = np.random.default_rng(5)
    mat, _ = render_mat(OLD_KIT, LAYOUT, rng, PPM, join=1.5, paper_chance=1.0)
    snap = read_table(photograph(mat, rng, 0.5, 85), KIT)
    assert [k for k, c in snap.cells.items() if c.state == "empty"] == []
    assert read_table(photograph(mat, rng, 0.5, 85), OLD_KIT).cell("hera", 3, 2).state == "empty"


def test_a_hand_over_a_bare_cell_hides_the_lattice_and_it_is_not_empty() -> None:
    rng = np.random.default_rng(6)
    mat, _ = render_mat(KIT, LAYOUT, rng, PPM, paper_chance=1.0)
    cx, cy = centre_px(("hera", 3, 2))
    cv2.ellipse(mat, (round(cx), round(cy)), (100, 150), 20, 0, 360, (120, 150, 205), -1)
    snap = read_table(photograph(mat, rng, 0.5, 85), KIT)
    assert snap.cell("hera", 3, 2).state == "unknown"
    assert snap.cell("hera", 3, 3).state == "empty"  # the one beside it: bare


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_card_held_above_a_bare_cell_hides_the_lattice_and_it_is_not_empty(seed: int) -> None:
    rng = np.random.default_rng(seed)
    mat, _ = render_mat(KIT, LAYOUT, rng, PPM, paper_chance=1.0)
    taken = {str(i.get("payload")) for i in LAYOUT.values()}
    hold = {"deck": "zeus"} if seed % 2 else {"payload": FACE[0]}
    img, mask, _ = _held_card(KIT, rng, PPM, mat.shape[:2], centre_px(("hera", 3, 2)), taken, hold)
    mat = np.where(mask[..., None] > 0, img, mat)
    snap = read_table(photograph(mat, rng, 0.5, 85), KIT)
    assert snap.cell("hera", 3, 2).state == "unknown"


def test_an_older_kit_is_read_by_its_old_tests_and_never_by_the_lattice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def never(*_: Any, **__: Any) -> Any:
        raise AssertionError("a kit without the pattern was judged by it")

    monkeypatch.setattr(vision.herazeus.table, "pattern_look", never)
    rng = np.random.default_rng(5)
    mat, _ = render_mat(OLD_KIT, LAYOUT, rng, PPM, join=1.5, paper_chance=1.0)
    snap = read_table(photograph(mat, rng, 0.5, 85), OLD_KIT)
    bare = [k for k in OLD_KIT.mat.iter_cells() if k not in LAYOUT]
    assert [k for k in bare if snap.cells[k].state != "empty"] == []
    kit = load_kit(DATA / "kit.json")
    assert kit.mat.pattern is None


# -- never wrong: a property over seeded frames ----------------------------------------------------

COVERED = SceneOptions(
    tilt=0.16,
    rotation=8.0,
    blur=1.0,
    noise=5.0,
    glare=0.5,
    hands=1,
    held=0.7,
    sleeves=0.5,
    paper=0.8,
    falloff=0.35,
    barrel=0.06,
    join=1.5,
    piles=True,
)


@pytest.mark.parametrize("seed", range(38_000, 38_012))
def test_no_cell_a_card_lies_in_reads_empty_whatever_covers_the_table(seed: int) -> None:
    """Seeded overhead frames, half the face-up cards under plain sleeves, a hand over the
    table holding a card above it in most, glare in half: no cell where a card lies (face, back
    or sleeve) reads empty, nor one a hand or a held card mostly hides; and the bare cells
    still read empty."""
    scene = table_scene(KIT, seed, COVERED)
    snap = read_table(scene.image, KIT)
    for key, truth in scene.truth["cells"].items():
        got = snap.cells[_key(key)].state
        if truth["state"] != "empty" or truth["visible"] < 0.5:
            assert got != "empty", (key, truth)


def _key(key: str) -> Cell:
    side, col, row = key.split("/")
    return (side, int(col), int(row))  # type: ignore[return-value]


@pytest.mark.parametrize("white", [246, 255])
def test_a_bare_cell_partly_under_glare_a_camera_clips_under_white_still_reads_empty(
    white: int,
) -> None:
    """Glare that clips the mat flat at ``white`` (a camera's tone curve or white balance may
    clip at 246, under WASHED_OUT: the held-out family's sensor does) leaves nothing to judge
    where it lies: those tiles are not judged, and the rest of the cell shows the lattice. A
    card under the same glare is never empty."""
    rng = np.random.default_rng(7)
    mat, _ = render_mat(KIT, LAYOUT, rng, PPM, paper_chance=1.0)
    bare: Cell = ("hera", 3, 2)
    card: Cell = ("hera", 1, 1)
    spots = []
    for key in (bare, card):
        x, y, w, _ = KIT.mat.cells[key]
        spots.append(((x + w / 2) * PPM, (y + 22) * PPM))
    # 150 grey levels over the lamp's light: the lattice's squares as white as the paper there
    frame = photograph(mat, rng, 0.5, 90, spots, (150.0, 14.0))
    frame = np.minimum(frame, white).astype(np.uint8)
    snap = read_table(frame, KIT)
    assert snap.cell(*bare).state == "empty"
    assert snap.cell(*card).state != "empty"
