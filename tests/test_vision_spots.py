"""The phone path's last look (issue 38, round seven): a code no dark square names is still a
square busier than the ring round it (``texture_spots``), and a code whose dark modules light
has thinned to strokes reads once they are thickened (``_thickened``)."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest
import qrcode  # type: ignore[import-untyped]

import vision.decode as decode
from vision.decode import _thickened, decode_crop, texture_spots
from vision.herazeus import studio  # rasterises the kit with pypdfium2 (the test extra)
from vision.herazeus.cards import read_cards
from vision.herazeus.synth import demo_kit

KIT = demo_kit()
TEXT = "https://example.org/not-a-kit-code"


def thinned_code(module_px: int = 5) -> tuple[np.ndarray, tuple[float, float], float]:
    """A grey picture of a code whose dark modules a bright light has thinned to strokes a px
    wide (the white round them grown by 2 px each way, then a little blur), its centre and side."""
    qr = qrcode.QRCode(border=0, box_size=1)
    qr.add_data(TEXT)
    modules = ~np.array(qr.get_matrix(), bool)
    sym = np.kron(modules.astype(np.uint8) * 255, np.ones((module_px, module_px), np.uint8))
    img = np.full((400, 400), 255, np.uint8)
    img[100 : 100 + sym.shape[0], 100 : 100 + sym.shape[1]] = sym
    thin = cv2.dilate(img, np.ones((module_px, module_px), np.uint8))
    side = float(sym.shape[0])
    return cv2.GaussianBlur(thin, (0, 0), 0.6), (100 + side / 2, 100 + side / 2), side


def test_a_code_thinned_to_strokes_reads_once_its_dark_modules_are_thickened() -> None:
    img, _, _ = thinned_code()
    assert decode_crop(img, (0, 0, 400, 400)) == []  # upscaled, sharpened, equalised: no
    assert [c.text for c in _thickened(img)] == [TEXT]


def test_a_code_is_a_spot_busier_than_the_ring_round_it() -> None:
    """On a plain picture with one code, the busiest spot at the code's size is the code."""
    img, centre, side = thinned_code()
    page = np.full((720, 1280), 235, np.uint8)
    page[200:600, 500:900] = img
    (score, at, size), *_ = texture_spots(page, side)
    assert at == pytest.approx((500 + centre[0], 200 + centre[1]), abs=side / 4)
    assert 0.6 * side <= size <= 1.2 * side
    assert score > 0


@pytest.mark.parametrize(
    ("seed", "cards", "tail", "why"),
    [
        # a fan of five, three read; a thumb against a fourth card's code merges it with its shade
        (970_034, 5, "AF7T", "beside codes read"),
        # a fan of four with one code in full view, pale and thin under the lamp
        (970_033, 4, "TXT3", "nothing read"),
    ],
)
def test_a_code_no_dark_square_names_is_read_at_its_spot(
    monkeypatch: pytest.MonkeyPatch, seed: int, cards: int, tail: str, why: str
) -> None:
    """Photos of the held-out generator's family (diagnostic seeds, never the named held-out
    sets): the code is read only by the spots' look."""
    scene = studio.phone_scene(KIT, seed, "1080p", cards=cards)
    (payload,) = (c["payload"] for c in scene.truth["cards"] if c["payload"].endswith(tail))
    assert payload in {d.payload for d in read_cards(scene.image, KIT)}, why

    def no_spots(*args: Any) -> list[Any]:
        return []

    monkeypatch.setattr(decode, "_spots_left", no_spots)
    assert payload not in {d.payload for d in read_cards(scene.image, KIT)}, why
