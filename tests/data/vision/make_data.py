"""Regenerates the synthetic photos of this folder and their truth (``truth.json``).

    .venv/bin/python tests/data/vision/make_data.py

Seeded: the same code gives the same images. The kit is ``kit.json`` beside them (a fixed id
and secret, made only for these tests; its secret protects nothing).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from printables.herazeus.kit import Kit  # noqa: E402
from vision.herazeus.kit import as_vision_kit  # noqa: E402
from vision.herazeus.synth import SceneOptions, card_scene, demo_kit, table_scene  # noqa: E402

QUALITY = 58


def main() -> None:
    kit = demo_kit(pattern=False)  # these images show a mat printed before issue 38's pattern
    (HERE / "kit.json").write_text(_kit_json(), "utf-8")
    assert as_vision_kit(Kit.load(HERE / "kit.json")).cards == kit.cards
    scenes = {
        "table_plain.jpg": table_scene(
            kit, 101, SceneOptions(tilt=0.06, rotation=8, fill=0.92, noise=2.0, jpeg=(80, 80))
        ),
        "table_hands_glare.jpg": table_scene(
            kit,
            102,
            SceneOptions(tilt=0.08, rotation=15, fill=0.92, noise=2.5, hands=2, glare=1.0),
            foreign=1,
        ),
        "table_tilted_blur.jpg": table_scene(
            kit,
            103,
            SceneOptions(tilt=0.12, rotation=25, fill=0.9, blur=1.0, motion=3, light=0.5),
        ),
        "cards_fan.jpg": card_scene(
            kit,
            201,
            SceneOptions(width=1280, height=720, tilt=0.06, rotation=20),
            cards=3,
            foreign=1,
        ),
        "card_single.jpg": card_scene(
            kit,
            202,
            SceneOptions(width=960, height=720, tilt=0.1, rotation=35, fill=0.7),
            cards=1,
        ),
        "card_foreign.jpg": card_scene(
            kit,
            203,
            SceneOptions(width=960, height=720, tilt=0.05, rotation=10, fill=0.7),
            cards=0,
            foreign=1,
        ),
    }
    truth = {}
    for name, scene in scenes.items():
        cv2.imwrite(str(HERE / name), scene.image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
        truth[name] = scene.truth
    (HERE / "truth.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n")
    total = sum((HERE / n).stat().st_size for n in scenes)
    print(f"{len(scenes)} images, {total // 1024} KB")


def _kit_json() -> str:
    from dataclasses import replace
    from datetime import UTC, datetime

    from printables.herazeus.mat import standard_mat

    k = Kit.create(kit_id="K7QX2", secret="5e" * 16, now=datetime(2025, 1, 1, tzinfo=UTC))
    return replace(k, mat=standard_mat(pattern=False)).dumps()


if __name__ == "__main__":
    main()
