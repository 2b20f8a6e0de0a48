"""The Minotaur Lords table reader measured on seeded synthetic frames (issue 38):

    python -m vision.minotaur.bench [--family tuned|heldout] [--resolution 1080p|4k]
                                    [--frames N] [--one-core] [--no-match] [--json]

It prints the lanes and deities' places read right, unknown and **wrong** (must be 0), the
lanes holding cards read and the empty lanes read, and the reader's time per frame (median and
90th percentile, the frame's making not counted). ``tuned`` frames are the ones looked at while
the thresholds were set; ``heldout`` frames (their own seed range) are only measured.
Benchmark equipment: the reader never imports it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from engine.minotaur.cards import parse_deck_list
from printables.minotaur.kit import MinotaurKit
from vision.minotaur.synth import HELDOUT_SEEDS, TUNED_SEEDS, Score, table_frame
from vision.minotaur.table import read_table

DECKS = Path(__file__).resolve().parents[2] / "tests" / "data" / "minotaur" / "decks.csv"


def bench_kit() -> MinotaurKit:
    """The kit the frames are made with: the test deck list, a fixed id and secret."""
    cards = tuple(parse_deck_list(DECKS.read_text()))
    return MinotaurKit("K7QX2", "5e" * 16, "2025-01-01T00:00:00Z", cards)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--family", choices=("tuned", "heldout"), default="tuned")
    p.add_argument("--resolution", choices=("1080p", "4k"), default="1080p")
    p.add_argument("--frames", type=int, default=20)
    p.add_argument("--one-core", action="store_true", help="OpenCV on one thread")
    p.add_argument("--json", action="store_true")
    p.add_argument("--wrong", action="store_true", help="print each place read wrong")
    p.add_argument("--no-match", action="store_true", help="no codebook matching (faster)")
    args = p.parse_args(argv)
    if args.one_core:
        import cv2

        cv2.setNumThreads(1)
    kit = bench_kit()
    first = (TUNED_SEEDS if args.family == "tuned" else HELDOUT_SEEDS)[args.resolution]
    score = Score()
    times: list[float] = []
    for seed in range(first, first + args.frames):
        frame = table_frame(kit, seed, args.resolution)
        t = time.perf_counter()
        snap = read_table(frame.image, kit, match=not args.no_match)
        times.append(time.perf_counter() - t)
        for w in score.add(snap.to_json(), frame.truth):
            if args.wrong:
                print(f"seed {seed}: WRONG {w}", file=sys.stderr)
    times.sort()
    out = {
        "family": args.family,
        "match": not args.no_match,
        "resolution": args.resolution,
        "seeds": f"{first}-{first + args.frames - 1}",
        **score.to_json(),
        "median_s": round(statistics.median(times), 3),
        "p90_s": round(times[int(0.9 * (len(times) - 1))], 3),
    }
    print(json.dumps(out) if args.json else "  ".join(f"{k} {v}" for k, v in out.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
