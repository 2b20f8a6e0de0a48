"""``vision.decode_all``: the phone photo path's decoding on anyone's QR codes (issue 38), with
the texts and corners it reads, before any kit's check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import qrcode  # type: ignore[import-untyped]
import zxingcpp

import vision
from vision.codebook import Codebook, codebook
from vision.decode import (
    LADDER_SIDE_PX,
    ImageError,
    Left,
    _ladder,
    find_codes,
    first_pass,
    module_blur,
)
from vision.herazeus.synth import demo_kit

TEXT = "https://example.org/not-a-kit-code"
OTHER = "another code, someone else's"
KIT = demo_kit()


def code_photo(text: str, module_px: int = 6, at: tuple[int, int] = (300, 200)) -> np.ndarray:
    """A grey 1280 x 720 picture of the QR code of ``text``, black on white, its symbol's top
    left at ``at``."""
    qr = qrcode.QRCode(border=0, box_size=1)
    qr.add_data(text)
    modules = ~np.array(qr.get_matrix(), bool)
    sym = np.kron(modules.astype(np.uint8) * 255, np.ones((module_px, module_px), np.uint8))
    img = np.full((720, 1280), 200, np.uint8)
    x, y = at
    q = 4 * module_px
    img[y - q : y + sym.shape[0] + q, x - q : x + sym.shape[1] + q] = 255
    img[y : y + sym.shape[0], x : x + sym.shape[1]] = sym
    return img


def test_decode_all_reads_anyones_code_with_its_text_and_corners() -> None:
    img = code_photo(TEXT)
    side = (img[200] < 128).nonzero()[0]
    codes = vision.decode_all(img)
    assert [c.text for c in codes] == [TEXT]
    tl, tr, br, bl = codes[0].corners
    assert tl == pytest.approx((300, 200), abs=2)
    assert tr[0] == pytest.approx(side.max() + 1, abs=2)
    assert br[1] == pytest.approx(bl[1], abs=2)


def test_decode_all_takes_a_colour_photo_and_refuses_what_is_not_an_image() -> None:
    img = code_photo(TEXT)
    colour = np.dstack([img, img, img])
    assert [c.text for c in vision.decode_all(colour)] == [TEXT]
    with pytest.raises(ImageError):
        vision.decode_all(np.zeros((0, 0), np.uint8))


def test_decode_all_reads_a_code_s_text_as_it_was_encoded_control_characters_too() -> None:
    """Someone else's code may hold control characters (zxing's public set qrcode-2 has one):
    its text is what was encoded, not a human-readable rendering such as "<SOH>"."""
    text = "\x01\x10MEBKM:TITLE:x;;"
    assert [c.text for c in vision.decode_all(code_photo(text))] == [text]


def test_a_photo_without_a_code_reads_nothing() -> None:
    assert vision.decode_all(np.full((480, 640), 128, np.uint8)) == []


def test_importing_vision_does_not_load_opencv() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import sys, vision; print('cv2' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "False"


def test_a_light_code_on_a_dark_ground_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    light = 255 - code_photo(TEXT)
    assert [c.text for c in vision.decode_all(light)] == [TEXT]
    monkeypatch.setattr("vision.decode.TRY_INVERT", False)
    assert vision.decode_all(light) == []


def test_a_photo_whose_codes_the_first_pass_reads_runs_no_other_pass() -> None:
    built: list[bool] = []

    def book() -> Codebook:
        built.append(True)
        return codebook(KIT.payloads)

    img = code_photo(TEXT)
    codes, passes = find_codes(img, retries=True, book=book)
    assert [c.text for c in codes] == [TEXT] and passes == 1
    assert built == []  # nor is the kit's codebook built


def test_a_code_the_first_pass_misses_beside_one_it_reads_is_read_on_a_crop_round_it() -> None:
    img = code_photo(TEXT, at=(200, 200))
    blurred = cv2.GaussianBlur(code_photo(OTHER, at=(800, 200)), (0, 0), 3.6)
    img[:, 640:] = blurred[:, 640:]
    first, _ = first_pass(img)
    assert [c.text for c in first] == [TEXT]  # zxing-cpp alone misses the blurred one
    codes, passes = find_codes(img, retries=True)
    assert sorted(c.text for c in codes) == sorted([TEXT, OTHER]) and passes > 1


def test_referee_scan_imports_neither_the_pdf_library_nor_the_other_commands() -> None:
    """A phone photo is read as soon as the camera's own modules are loaded (issue 38)."""
    data = Path(__file__).resolve().parent / "data" / "vision"
    code = (
        "import sys; from web.cli import main; "
        f"status = main(['scan', {str(data / 'card_single.jpg')!r}, '--kit', "
        f"{str(data / 'kit.json')!r}]); "
        "print(status, sorted(m for m in ('fpdf', 'referee.cli', 'printables.cli', "
        "'web.serve') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "0 []"


def covered(img: np.ndarray, at: tuple[int, int], module_px: int = 6) -> np.ndarray:
    """``img`` with a card's edge laid over the right third of the code whose top left is
    ``at``: a sharp symbol with its finders in view that no decoder can read whole."""
    out = img.copy()
    x, y = at
    out[y - 30 : y + 21 * module_px + 30, x + 15 * module_px :] = 120
    return out


@pytest.mark.parametrize(("blurred", "tried"), [(False, False), (True, True)])
def test_the_codebook_is_tried_on_an_unread_symbol_only_when_it_is_blurred(
    monkeypatch: pytest.MonkeyPatch, blurred: bool, tried: bool
) -> None:
    """A symbol the first pass sees but cannot read, as sharp as the code beside it that it
    reads, is covered or damaged (a fan's card beneath), not blurred: the kit's codebook,
    which reads codes whose modules blur merged, is not tried there (LEFT_SHARP_SHARE). A
    blurred one is still matched."""
    calls: list[bool] = []
    real = vision.decode.matched_codes  # type: ignore[attr-defined]

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(vision.decode, "matched_codes", spy)
    img = code_photo(TEXT, at=(200, 200))
    other = covered(code_photo(OTHER, at=(800, 200)), (800, 200))
    if blurred:
        other = cv2.GaussianBlur(other, (0, 0), 3.6)
    img[:, 640:] = other[:, 640:]
    codes, _ = find_codes(img, retries=True, book=codebook(KIT.payloads))
    assert [c.text for c in codes] == [TEXT]
    assert bool(calls) == tried


@pytest.mark.parametrize("sigma", [0.1, 0.2, 0.3, 0.45])
def test_a_codes_blur_is_measured_in_modules_whatever_covers_part_of_it(sigma: float) -> None:
    """module_blur: a version-1 code blurred by a Gaussian of ``sigma`` modules measures it
    within 0.1 (up to 0.45: the costly passes start there); a plain card laid over a third
    of it changes that by less than 0.05."""
    card = sorted(KIT.payloads)[3]  # the kit's codes are version 1: 21 modules, 6 px each here
    img = cv2.GaussianBlur(code_photo(card, at=(300, 200)), (0, 0), sigma * 6)
    quad = np.array([[300, 200], [426, 200], [426, 326], [300, 326]], np.float32)
    whole = module_blur(img, quad)
    assert whole == pytest.approx(sigma, abs=0.1)
    assert module_blur(covered(img, (300, 200)), quad) == pytest.approx(whole, abs=0.05)


@pytest.mark.parametrize(("blurred", "deep"), [(False, False), (True, True)])
def test_a_located_symbol_gets_the_costly_passes_only_when_its_edges_are_blurred(
    monkeypatch: pytest.MonkeyPatch, blurred: bool, deep: bool
) -> None:
    """A symbol zxing-cpp located but could not decode: sharp, it is covered (a fan's card
    beneath), and only the crop's re-reads are tried round it; blurred by 0.6 module, the blur
    undone reads it (LEFT_BLURRED_MODULES)."""
    calls: list[bool] = []
    real = vision.decode.deblurred

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(vision.decode, "deblurred", spy)
    # thickening its dark modules (a rung before the costly passes) reads this blurred code
    # too: left out here, where what is tested is whether the costly passes are reached
    monkeypatch.setattr(vision.decode, "_thickened", lambda crop, scales=None: [])
    card = sorted(KIT.payloads)[3]
    img = code_photo(TEXT, at=(200, 200))
    if blurred:
        other = cv2.GaussianBlur(code_photo(card, at=(800, 200)), (0, 0), 0.6 * 6)
    else:
        other = covered(code_photo(card, at=(800, 200)), (800, 200))
    img[:, 640:] = other[:, 640:]
    img = np.clip(img + np.random.default_rng(1).normal(0, 3, img.shape), 0, 255)
    img = img.astype(np.uint8)
    codes, errors = first_pass(img)
    assert [c.text for c in codes] == [TEXT] and errors  # located, not decoded
    found, _ = find_codes(img, retries=True, book=codebook(KIT.payloads))
    assert sorted(c.text for c in found) == sorted([TEXT, card] if blurred else [TEXT])
    assert bool(calls) == deep


def test_a_large_symbol_left_unread_is_read_again_on_its_crop_scaled_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A symbol wider than LADDER_SIDE_PX (6 px a module) loses no module when scaled down to
    it: the crop's re-reads run on the crop scaled so, not on a crop of a close-up photo
    upscaled twice more, and the code they read comes back in the photo's pixels."""
    sizes: list[int] = []
    real = zxingcpp.read_barcodes

    def spy(image: Any, *args: Any, **kwargs: Any) -> Any:
        sizes.append(max(image.shape[:2]))
        return real(image, *args, **kwargs)

    img = code_photo(TEXT, module_px=12, at=(400, 150))  # 25 modules of 12 px: 300 px
    side = (img[150] < 128).nonzero()[0].max() + 1 - 400
    assert side > 2 * LADDER_SIDE_PX
    monkeypatch.setattr(zxingcpp, "read_barcodes", spy)
    left = Left((400 + side / 2, 150 + side / 2), float(side), float("inf"), deep=False)
    steps = list(_ladder(img, left, [], None))
    assert [c.text for c in steps[0]] == [TEXT]
    tl, _, br, _ = steps[0][0].corners
    assert tl == pytest.approx((400, 150), abs=3)
    assert br == pytest.approx((400 + side, 150 + side), abs=3)
    # the crop is three of the code's sides across, scaled to three of LADDER_SIDE_PX, and
    # the largest re-read doubles that
    assert max(sizes) <= 2 * 3 * LADDER_SIDE_PX + 4
