"""What computing an event's standings costs (issue 34, T3): exact fractions for every player.

    .venv/bin/python benchmarks/event_standings.py [--players 256 1024] [--rounds 9] [--seed 1]

For each ``--players`` count, a Swiss-sized event of ``--rounds`` rounds, paired at random
(the pairing does not change the work), best-of-three results drawn from ``--seed``, a few
late entries and drops. Printed: the median and worst of 5 runs of
:func:`referee.event.standings.compute_standings` and of :func:`top_cut` of 8. Nothing asserts:
the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_event_standings import random_rounds

from referee.event.standings import (
    Entrant,
    Pairing,
    compute_standings,
    top_cut,
)


def make_event(
    players: int, rounds: int, rng: random.Random
) -> tuple[list[Entrant], list[tuple[Pairing, ...]]]:
    entrants = []
    for i in range(players):
        entered = 2 if rng.random() < 0.02 else 1
        dropped = rng.randrange(entered, rounds) if rng.random() < 0.1 else None
        entrants.append(Entrant(f"player-{i}", entered, dropped))
    played = list(random_rounds(entrants, rounds, rng))
    return entrants, played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for players in args.players:
        entrants, rounds = make_event(players, args.rounds, random.Random(args.seed))
        times = []
        for _ in range(5):
            start = time.perf_counter()
            standings = compute_standings(entrants, rounds, seed=args.seed)
            times.append(time.perf_counter() - start)
        start = time.perf_counter()
        top_cut(standings, 8)
        cut = time.perf_counter() - start
        print(
            f"{players} players, {args.rounds} rounds: standings median "
            f"{statistics.median(times) * 1000:.1f} ms, worst {max(times) * 1000:.1f} ms; "
            f"top cut of 8 {cut * 1000:.2f} ms"
        )


if __name__ == "__main__":
    main()
