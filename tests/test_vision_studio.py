"""The held-out generator (vision.herazeus.studio) tells the truth about its own images: the
same seed gives the same photograph, every code it lists as visible is there to be read, a
code it lists as covered is covered, and a card under a plain opaque sleeve is never truthed
as a readable card."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import zxingcpp

from vision.herazeus import studio  # rasterises the kit with pypdfium2 (the test extra)
from vision.herazeus.synth import demo_kit

KIT = demo_kit()


def plain_zxing(image: Any) -> set[str]:
    fmt = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)
    return {b.text for b in zxingcpp.read_barcodes(image, formats=fmt) if b.valid}


def test_a_seed_gives_the_same_photograph_and_truth() -> None:
    a = studio.phone_scene(KIT, 901_234, size=(480, 360), cards=4)
    b = studio.phone_scene(KIT, 901_234, size=(480, 360), cards=4)
    c = studio.phone_scene(KIT, 901_235, size=(480, 360), cards=4)
    assert np.array_equal(a.image, b.image) and a.truth == b.truth
    assert not np.array_equal(a.image, c.image)
    t1 = studio.overhead_scene(KIT, 921_234, "1080p", size=(480, 272))
    t2 = studio.overhead_scene(KIT, 921_234, "1080p", size=(480, 272))
    assert np.array_equal(t1.image, t2.image) and t1.truth == t2.truth


@pytest.mark.parametrize("seed", [905_002, 905_003, 905_006, 905_009])
def test_every_visible_code_reads_and_no_covered_one_does(seed: int) -> None:
    # the geometry alone (no shadow, glare, blur, mosaic, noise or JPEG): plain zxing-cpp
    # reads every code the truth lists as visible (at least 3 px a module), and none that is
    # less than 60% in view
    scene = studio.phone_scene(KIT, seed, size=(1600, 1200), cards=5, clean=True)
    read = plain_zxing(scene.image)
    shown = [c for c in scene.truth["cards"] if c["module_px"] >= 3]
    assert shown, "the scene shows no code to check"
    assert {c["payload"] for c in shown} <= read
    covered = {c["payload"] for c in scene.truth["hidden"] if c["visible"] < 0.6}
    assert not covered & read


def test_a_card_under_an_opaque_sleeve_is_never_truthed_readable() -> None:
    seen = 0
    for seed in range(922_000, 922_040):
        scene = studio.overhead_scene(KIT, seed, "1080p", size=(320, 180))
        for cell in scene.truth["cells"].values():
            if cell.get("sleeve"):
                seen += 1
                assert cell["state"] == "up" and cell["expect"] == "unknown"
                assert cell["visible"] == 0
        if seen >= 2:
            break
    assert seen >= 2, "no opaque sleeve in the seeds tried"
