"""Swiss pairing speed and quality (T4, T5) over simulated events (referee/event/simulate.py).

    .venv/bin/python benchmarks/pairing.py [--players 64 256] [--rounds 7] [--events 50]
        [--seed S]

For each field size, one simulated event of ``--rounds`` rounds; then a batch of ``--events``
simulated events of 8 to 64 players, 3 to 7 rounds, with drops and late entries. Each line
gives events, rounds paired, rematches made, rematches avoided (those pairing each round's
standings in order, 1-2, 3-4, ..., would have made, less those made), byes, and the mean and
maximum milliseconds ``pair_round`` took per pairing (rounds 2 on: round one is a shuffle).
The pairer is timed here, wrapped around ``pair_round``; the simulation itself stays pure.
Nothing here asserts: the numbers depend on the machine (tests never time anything).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.event.pairing import Pairable, Pairing, pair_round
from referee.event.simulate import Simulation, simulate


class TimedPairer:
    """``pair_round``, keeping the milliseconds of each later round's pairing."""

    def __init__(self) -> None:
        self.ms: list[float] = []

    def __call__(self, field: Sequence[Pairable], number: int, seed: str) -> Pairing:
        start = time.perf_counter()
        pairing = pair_round(field, number, seed)
        if number > 1:
            self.ms.append((time.perf_counter() - start) * 1000)
        return pairing


def report(label: str, sims: list[Simulation], ms: list[float]) -> None:
    rounds = sum(s.rounds_paired for s in sims)
    made = sum(s.rematches for s in sims)
    avoided = sum(s.rematches_avoided for s in sims)
    byes = sum(s.byes for s in sims)
    print(
        f"{label:>22}: {len(sims):3d} events, {rounds:4d} rounds, rematches made {made}, "
        f"avoided {avoided}, byes {byes}; pairing mean {statistics.fmean(ms):7.1f} ms, "
        f"max {max(ms):7.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--seed", default="34")
    args = parser.parse_args()
    for players in args.players:
        timer = TimedPairer()
        sim = simulate(players, args.rounds, f"bench-{args.seed}-{players}", pairer=timer)
        report(f"{players} players", [sim], timer.ms)
    if args.events:
        rng = random.Random(f"bench-{args.seed}")
        timer = TimedPairer()
        sims = []
        for k in range(args.events):
            players = rng.randint(8, 64)
            sims.append(
                simulate(
                    players,
                    rng.randint(3, 7),
                    f"bench-{args.seed}-batch-{k}",
                    drops=rng.randint(0, 3),
                    late=rng.randint(0, 3),
                    pairer=timer,
                )
            )
        report("8-64 players, batch", sims, timer.ms)


if __name__ == "__main__":
    main()
