"""Engine speed on one core: random self-play, and per-call times of the public rule functions.

    .venv/bin/python benchmarks/engine.py [--games N] [--states N] [--seed N] [--profile NAME]

Prints self-play throughput (actions/s, games/s), the median and 99th percentile time of
``legal_actions``, ``check`` and ``apply`` measured per call over states sampled from random
playouts (each with one of its legal actions), and check + apply per second, each next to its
target. Nothing here asserts: the numbers depend on the machine (tests never time anything).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.herazeus.actions import Action
from engine.herazeus.game import apply, check, legal_actions
from engine.herazeus.profiles import Profile, Ruleset, parse_profile
from engine.herazeus.simulate import random_game_start, random_playout
from engine.herazeus.state import GameState

TARGET_ACTIONS_PER_S = 10_000
TARGET_LEGAL_MEDIAN_US = 100.0
TARGET_CHECK_APPLY_PER_S = 50_000


def self_play(rs: Ruleset, games: int, seed: int) -> tuple[int, float]:
    """Plays ``games`` random games (setup included); returns (actions, seconds)."""
    rng = random.Random(seed)
    actions = 0
    t0 = time.perf_counter()
    for _ in range(games):
        st = random_game_start(rng, rs)
        for _ in random_playout(rng, st):
            actions += 1
    return actions, time.perf_counter() - t0


def sample_pairs(rs: Ruleset, n: int, seed: int) -> list[tuple[GameState, Action]]:
    """About ``n`` (state, legal action) pairs taken from random playouts, every third state."""
    rng = random.Random(seed)
    out: list[tuple[GameState, Action]] = []
    while len(out) < n:
        st = random_game_start(rng, rs)
        for i, (before, action, _) in enumerate(random_playout(rng, st)):
            if i % 3 == 0:
                out.append((before, action))
    return out[:n]


def per_call(
    fn: Callable[[GameState, Action], object],
    pairs: list[tuple[GameState, Action]],
    repeat: int,
) -> list[float]:
    """Seconds per call of ``fn`` on every pair, each call timed alone; per pair the best of
    ``repeat`` rounds (what other processes add is noise, not the engine's cost)."""
    clock = time.perf_counter
    best = [float("inf")] * len(pairs)
    for _ in range(repeat):
        for i, (st, a) in enumerate(pairs):
            t = clock()
            fn(st, a)
            dt = clock() - t
            if dt < best[i]:
                best[i] = dt
    return best


def check_apply_rate(pairs: list[tuple[GameState, Action]], repeat: int, chunk: int = 200) -> float:
    """Pairs per second through ``check`` then ``apply`` of the same action. The pairs are
    timed in chunks, each the best of ``repeat`` rounds, so a burst of load elsewhere on the
    machine spoils one round of one chunk rather than the whole measurement."""
    clock = time.perf_counter
    total = 0.0
    for i in range(0, len(pairs), chunk):
        part = pairs[i : i + chunk]
        best = float("inf")
        for _ in range(repeat):
            t0 = clock()
            for st, a in part:
                check(st, a)
                apply(st, a)
            best = min(best, clock() - t0)
        total += best
    return len(pairs) / total


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400, help="self-play games (default 400)")
    ap.add_argument("--states", type=int, default=3000, help="sampled states (default 3000)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--profile", default=Profile.RIO_GRANDE.value)
    ap.add_argument("--repeat", type=int, default=3, help="rounds; the best counts (default 3)")
    args = ap.parse_args(argv)
    rs = Ruleset.build(parse_profile(args.profile))

    py = sys.version.split()[0]
    print(f"engine benchmark, profile {rs.profile.value}, one core, Python {py}")
    gc.collect()
    actions, secs = min(
        (self_play(rs, args.games, args.seed) for _ in range(args.repeat)), key=lambda r: r[1]
    )
    aps = actions / secs
    print(
        f"self-play      {args.games} games, {actions} actions in {secs:.2f} s: "
        f"{aps:,.0f} actions/s, {args.games / secs:,.1f} games/s "
        f"(target ≥ {TARGET_ACTIONS_PER_S:,} actions/s) {_mark(aps >= TARGET_ACTIONS_PER_S)}"
    )

    pairs = sample_pairs(rs, args.states, args.seed + 1)
    timings = {
        "legal_actions": per_call(lambda st, a: legal_actions(st), pairs, args.repeat),
        "check": per_call(check, pairs, args.repeat),
        "apply": per_call(apply, pairs, args.repeat),
    }
    for name, ts in timings.items():
        med, p99 = statistics.median(ts) * 1e6, pct(ts, 0.99) * 1e6
        mean = statistics.fmean(ts) * 1e6
        target = ""
        if name == "legal_actions":
            ok = med <= TARGET_LEGAL_MEDIAN_US
            target = f" (target median ≤ {TARGET_LEGAL_MEDIAN_US:.0f} µs) {_mark(ok)}"
        print(
            f"{name:<14} {len(ts)} states: median {med:5.1f} µs, p99 {p99:5.1f} µs, "
            f"mean {mean:5.1f} µs{target}"
        )

    rate = check_apply_rate(pairs, args.repeat)
    print(
        f"check+apply    {rate:,.0f} per second (one check and one apply of the same action; "
        f"target ≥ {TARGET_CHECK_APPLY_PER_S:,}) {_mark(rate >= TARGET_CHECK_APPLY_PER_S)}"
    )
    return 0


def _mark(ok: bool) -> str:
    return "ok" if ok else "BELOW TARGET"


if __name__ == "__main__":
    raise SystemExit(main())
