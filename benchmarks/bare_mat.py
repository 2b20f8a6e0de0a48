"""The bare-mat test's thresholds and their margins (issue 38): each threshold of
``vision.herazeus.table`` moved a quarter either way, what the overhead frames then read: bare
cells read empty, and cells where something lies read empty (wrong). A threshold's margin is
how far it can move before a wrong cell appears (or a bare cell is lost). With ``--pattern``,
the kit's bare-mat pattern and the tile scores behind it.

    python benchmarks/bare_mat.py --res 1080p --n 20 [--old] [--family tuned|heldout]

``--old``: the kit without the pattern (as kits printed before issue 38), its old tests.
Prints numbers; run it under ``nice`` on a shared machine.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.decode import as_gray
from vision.herazeus import table as T
from vision.herazeus.kit import VisionKit
from vision.herazeus.markers import MatNotFound, detect_markers, find_mat, rectify
from vision.herazeus.synth import Scene, cell_key, demo_kit, hard_table_scene

OLD = [
    "BRIGHTNESS_TOLERANCE",
    "DARK_LEVELS",
    "TINT_LIMIT",
    "SMOOTHEST",
    "ROUGHEST",
    "ROUGHEST_EDGELESS",
    "EDGELESS",
    "BLOWN_SMOOTHEST",
    "BLOWN_MAT",
    "WASHED_SHARE",
    "OFF_COLOUR_AB",
    "GLARE_GRAIN",
    "GLARE_MOST",
    "GLARE_WASHED_MOST",
    "GLARE_TEXTURE",
    "SOFT_EDGE_RATIO",
    "OUTLINE_INSIDE_MM",
    "SURFACE_TRUSTED",
    "LIGHT_SIDE_PIECES",
]
PATTERN = [
    "PATTERN_SHARE",
    "PATTERN_AXIS_SHARE",
    "PATTERN_LEVELS",
    "PATTERN_JUDGED",
    "PATTERN_WASHED",
    "PATTERN_MIN_TILES",
    "PATTERN_MISSES",
    "PATTERN_JOIN_MM",
]
POSE = ["REFIT_BACKS", "REFIT_BACK_MM", "REFIT_CORNERS_MM"]  # the pose: both kinds of kit
INTEGERS = {"REFIT_BACKS", "LIGHT_SIDE_PIECES", "PATTERN_MIN_TILES", "PATTERN_MISSES", "BLOWN_MAT"}


def family_scenes(family: str, kit: VisionKit, res: str, n: int) -> Iterator[Scene]:
    if family == "tuned":
        for i in range(n):
            yield hard_table_scene(kit, res, i)
        return
    from vision.herazeus.studio import heldout_table_scene  # the held-out generator

    for i in range(n):
        yield heldout_table_scene(kit, res, i)


def empties(scenes: list[Scene], kit: VisionKit) -> tuple[int, int, int]:
    """Bare cells read empty, bare cells a reader must read empty, cells read empty where
    something lies."""
    got = need = wrong = 0
    for s in scenes:
        try:
            snap = T.read_table(s.image, kit, second_pass=False)
        except MatNotFound:
            continue
        for key, r in snap.cells.items():
            truth = s.truth["cells"][cell_key(key)]
            if truth["expect"] == "empty":
                need += 1
                got += r.state == "empty"
            if truth["state"] != "empty" and r.state == "empty":
                wrong += 1
    return got, need, wrong


def moved(name: str, factor: float, run: Callable[[], Any]) -> Any:
    was = getattr(T, name)
    value = was * factor
    setattr(T, name, round(value) if name in INTEGERS else value)
    T._marks_mask.cache_clear()
    try:
        return run()
    finally:
        setattr(T, name, was)
        T._marks_mask.cache_clear()


def tile_scores(scenes: list[Scene], kit: VisionKit) -> None:
    """The pattern's tile scores: bare cells' weakest needed tile, the other cells' best."""
    geo = kit.mat
    assert geo.pattern is not None
    marks = T._marks_mask(geo, kit.seams)
    k = T.OCCUPANCY_PX_PER_MM
    bare_need: list[float] = []
    bare_amp: list[float] = []
    covered_best: list[float] = []
    covered_tiles: list[int] = []
    for s in scenes:
        gray = as_gray(s.image)
        try:
            pose = find_mat(detect_markers(gray), geo)
        except MatNotFound:
            continue
        img = rectify(gray, pose, geo, k)
        for key in geo.iter_cells():
            x, y, w, h = geo.cells[key]
            i = T.CELL_INSET_MM
            inner = (x + i, y + i, w - 2 * i, h - 2 * i)
            cuts = (
                [(c - inner[0]) * k for c in kit.seams[0]],
                [(c - inner[1]) * k for c in kit.seams[1]],
            )
            look = T.pattern_look(
                T._slice(img, inner),
                geo.pattern.period * k,
                T._printed(T._slice(marks, inner)),
                cuts,
            )
            truth = s.truth["cells"][cell_key(key)]
            shares = sorted((a for a, _ in look.shares), reverse=True) + [0.0] * 20
            need = max(T.PATTERN_MIN_TILES, look.judged - T.PATTERN_MISSES)
            if truth["expect"] == "empty":
                bare_need.append(shares[need - 1])
                bare_amp.append(min([b for _, b in look.shares] or [0.0]))
            elif truth["state"] != "empty":
                covered_best.append(shares[0])
                covered_tiles.append(look.shown)
    pct = [0, 1, 5, 50]
    if bare_need:
        print(
            f"  bare cells {len(bare_need)}: the weakest tile they need, its share at the "
            f"percentiles {pct}: {np.percentile(bare_need, pct).round(3).tolist()} "
            f"(threshold {T.PATTERN_SHARE}); weaker axis {np.percentile(bare_amp, pct).round(3)}"
        )
    if covered_best:
        print(
            f"  covered cells {len(covered_best)}: their best tile's share, highest "
            f"{max(covered_best):.3f}, 99th percentile {np.percentile(covered_best, 99):.3f}; "
            f"most tiles shown in one {max(covered_tiles)} (a cell needs {T.PATTERN_MIN_TILES})"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--res", default="1080p", choices=["1080p", "4k", "12mp"])
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--family", default="tuned", choices=["tuned", "heldout"])
    ap.add_argument("--old", action="store_true", help="the kit without the pattern")
    ap.add_argument("--factor", type=float, default=1.25)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    kit = demo_kit(pattern=not args.old)
    scenes = list(family_scenes(args.family, kit, args.res, args.n))
    names = (OLD if args.old else PATTERN) + POSE
    got, need, wrong = empties(scenes, kit)
    print(
        f"{args.family} {args.res}, {len(scenes)} frames, "
        f"{'without' if args.old else 'with'} the pattern: bare cells empty {got}/{need}, "
        f"wrong {wrong}"
    )
    if not args.old:
        tile_scores(scenes, kit)
    f = args.factor
    for name in names:
        lo = moved(name, 1 / f, lambda: empties(scenes, kit))
        hi = moved(name, f, lambda: empties(scenes, kit))
        print(
            f"  {name:22} {getattr(T, name)!s:>6}: x{1 / f:.2f} empty {lo[0]} wrong {lo[2]}; "
            f"x{f:.2f} empty {hi[0]} wrong {hi[2]}"
        )


if __name__ == "__main__":
    main()
