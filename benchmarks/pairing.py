"""Swiss pairing speed (T4, T5): time per round of a simulated 7-round event.

    .venv/bin/python benchmarks/pairing.py [--players 64 256] [--rounds 7] [--seed N]

For each field size, plays a simulated event (random results from the seed, standings by match
points then a random tiebreak) and prints the mean and maximum milliseconds ``pair_round`` took
per round, the rematches in its pairings, and the rematches that pairing each round's standings
in order (1-2, 3-4, ...) would have made: those are the rematches avoided. Nothing here asserts:
the numbers depend on the machine (tests never time anything).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.event.pairing import Entrant, pair_round


def rematch_count(entrants: dict[str, Entrant], pairs: list[tuple[str, str]]) -> int:
    return sum(1 for a, b in pairs if b in entrants[a].met)


def run(players: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    state = {f"p{i}": Entrant(player=f"p{i}", points=0) for i in range(players)}
    tiebreak = {p: rng.random() for p in state}
    times: list[float] = []
    ours = naive = 0
    for round_number in range(1, rounds + 1):
        standings = sorted(state.values(), key=lambda e: (-e.points, tiebreak[e.player]))
        start = time.perf_counter()
        pairing = pair_round(standings, round_number, f"bench-{seed}")
        times.append((time.perf_counter() - start) * 1000)
        pairs = [(t.first, t.second) for t in pairing.tables]
        ours += rematch_count(state, pairs)
        in_order = [e.player for e in standings]
        naive += rematch_count(
            state, [(in_order[i], in_order[i + 1]) for i in range(0, len(in_order) - 1, 2)]
        )
        for a_id, b_id in pairs:
            a, b = state[a_id], state[b_id]
            pa, pb = rng.choice([(3, 0), (0, 3), (3, 0), (0, 3), (1, 1)])
            state[a_id] = replace(
                a, points=a.points + pa, met=a.met | {b_id}, first_games=a.first_games + 1
            )
            state[b_id] = replace(
                b, points=b.points + pb, met=b.met | {a_id}, second_games=b.second_games + 1
            )
        if pairing.bye is not None:
            e = state[pairing.bye]
            state[e.player] = replace(e, points=e.points + 3, had_bye=True)
    later = times[1:]
    print(
        f"{players:4d} players, {rounds} rounds: "
        f"mean {statistics.fmean(times):8.1f} ms/round, max {max(times):8.1f} ms "
        f"(rounds 2+: mean {statistics.fmean(later):8.1f} ms); "
        f"rematches {ours}, in-order pairing would make {naive} "
        f"(avoided {naive - ours})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=34)
    args = parser.parse_args()
    for players in args.players:
        run(players, args.rounds, args.seed)


if __name__ == "__main__":
    main()
