"""A whole simulated Swiss event with random results drawn from a seed (issue 34, Tests).

:func:`simulate` registers players (some entering late, some dropping, T9), pairs each round
the way :func:`referee.event.swiss.next_round` does (its players from the records, then a
pairer: :func:`~referee.event.pairing.pair_round` unless told otherwise), plays every table with
a random result (a win for either seat, now and then a draw) and records it. The
:class:`Simulation` holds the records and the figures the benchmark prints: rounds paired,
rematches made, rematches a naive pairing would have made, byes given.

Pure: no clock, no I/O; every random draw comes from the seed, so the same arguments give the
same event. Timing belongs to the caller (``benchmarks/pairing.py`` wraps the pairer).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from referee.event.pairing import Pairable, Pairing, pair_round
from referee.event.standings import Bye, Entrant, Match, Standing, compute_standings
from referee.event.swiss import pairables

Pairer = Callable[[Sequence[Pairable], int, str], Pairing]
"""Pairs one round: (players best first, round number, seed), like ``pair_round``."""

DRAW_CHANCE = 0.1
"""How often a simulated match is drawn (best of one: one drawn game)."""


@dataclass(frozen=True)
class Simulation:
    """A simulated event: its records, each round's players as they were paired, and figures."""

    seed: str
    entrants: tuple[Entrant, ...]
    rounds: tuple[tuple[Match | Bye, ...], ...]
    fields: tuple[tuple[Pairable, ...], ...]
    """Round by round, the players paired (best first), as the pairer received them."""
    pairings: tuple[Pairing, ...]
    rematches: int
    """Pairs of players who had met before, over all rounds."""
    naive_rematches: int
    """The rematches pairing each round's players in standings order (1-2, 3-4, ...) makes."""
    byes: int

    @property
    def rounds_paired(self) -> int:
        return len(self.pairings)

    @property
    def rematches_avoided(self) -> int:
        """Rematches the naive pairing would have made that the pairer did not."""
        return self.naive_rematches - self.rematches

    def standings(self) -> tuple[Standing, ...]:
        """The final standings (T3)."""
        return compute_standings(self.entrants, self.rounds, self.seed)


def _met_count(field: Sequence[Pairable], pairs: Sequence[tuple[str, str]]) -> int:
    met = {p.player: p.met for p in field}
    return sum(1 for a, b in pairs if b in met[a] or a in met[b])


def simulate(
    players: int,
    rounds: int,
    seed: str,
    drops: int = 0,
    late: int = 0,
    pairer: Pairer = pair_round,
) -> Simulation:
    """Play an event of ``players`` registered at the start and ``late`` late entries (each
    entering a random round from 2, T9), of whom ``drops`` starting players drop after a random
    round before the last, for ``rounds`` rounds, with random results from ``seed``.

    Raises:
        ValueError: fewer than two players who never drop, no rounds, a negative count, or
            late entries in a one-round event.
    """
    if rounds < 1:
        raise ValueError(f"rounds {rounds}: an event has at least one round (T4)")
    if drops < 0 or late < 0:
        raise ValueError(f"drops {drops}, late {late}: counts of players are from 0 (T9)")
    if players - drops < 2:
        raise ValueError(
            f"players {players}, drops {drops}: at least two players must play every round (T4)"
        )
    if late and rounds < 2:
        raise ValueError(f"late {late}: a one-round event has no round to enter late (T9)")
    rng = random.Random(f"event-simulation/{seed}")
    width = len(str(players + late))
    entered = {f"p{i:0{width}d}": 1 for i in range(1, players + 1)}
    entered |= {f"l{i:0{width}d}": rng.randint(2, rounds) for i in range(1, late + 1)}
    dropping = rng.sample(sorted(p for p in entered if p.startswith("p")), drops)
    dropped_after = {p: rng.randint(1, max(1, rounds - 1)) for p in sorted(dropping)}

    played: list[tuple[Match | Bye, ...]] = []
    fields: list[tuple[Pairable, ...]] = []
    pairings: list[Pairing] = []
    sides: dict[str, tuple[int, int]] = {}
    rematches = naive = byes = 0
    for number in range(1, rounds + 1):
        known = [  # what the event has recorded when it pairs this round
            Entrant(
                player=p,
                entered_round=r,
                dropped_after_round=d
                if (d := dropped_after.get(p)) is not None and d < number
                else None,
            )
            for p, r in entered.items()
        ]
        field = pairables(known, played, sides, number, seed)
        pairing = pairer(field, number, seed)
        fields.append(field)
        pairings.append(pairing)
        rematches += _met_count(field, [(t.first, t.second) for t in pairing.tables])
        order = [p.player for p in field]
        naive += _met_count(field, list(zip(order[::2], order[1::2], strict=False)))
        results: list[Match | Bye] = []
        for table in pairing.tables:
            roll = rng.random()
            if roll < DRAW_CHANCE:
                results.append(Match(table.first, table.second, 0, 0, draws=1))
            elif roll < (1 + DRAW_CHANCE) / 2:
                results.append(Match(table.first, table.second, 1, 0))
            else:
                results.append(Match(table.first, table.second, 0, 1))
            first, second = sides.get(table.first, (0, 0)), sides.get(table.second, (0, 0))
            sides[table.first] = (first[0] + 1, first[1])
            sides[table.second] = (second[0], second[1] + 1)
        if pairing.bye is not None:
            results.append(Bye(pairing.bye))
            byes += 1
        played.append(tuple(results))

    final = tuple(
        Entrant(player=p, entered_round=r, dropped_after_round=dropped_after.get(p))
        for p, r in entered.items()
    )
    return Simulation(
        seed=seed,
        entrants=final,
        rounds=tuple(played),
        fields=tuple(fields),
        pairings=tuple(pairings),
        rematches=rematches,
        naive_rematches=naive,
        byes=byes,
    )
