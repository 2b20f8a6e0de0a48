"""Swiss pairings for one round of an event (TOURNAMENT.md T4, T5), by maximum-weight matching.

The caller computes the standings (T3) and hands over the active players best first; this module
takes that order as given. Round one is a random pairing drawn from the event's seed. Later rounds
are one maximum-weight perfect matching (``networkx.max_weight_matching``, ``maxcardinality``)
over every pair of players, never a greedy loop (T4; issue 34 item 2). Each pair's weight encodes,
in strict priority (each level's unit exceeds the largest possible total of all lower levels, so
no amount of lower-level gain can buy a higher-level loss):

1. no rematch (two players meet again only if no pairing of the whole round avoids it);
2. the bye to the lowest-ranked player who has not had one (odd rounds, see below);
3. the fewest pairs across score groups, then the smallest score differences (in score-group
   steps), then the highest-ranked players of a lower group coming up first;
4. side balance (T5): a soft preference against pairing two players who both owe the same side;
5. a draw from the seed: each pair gets a random weight below every level above, so players
   equal on all of the above are paired at random (as in Magic's rules) and the best matching is
   all but surely unique: a replay does not rest on how a networkx version breaks ties (T12).

**The bye as a dummy vertex.** With an odd number of players a vertex ``BYE`` joins the graph,
linked to every player who has not had a bye (to everyone if all have); the link's weight grows
as the player's rank falls. One matching thus decides the bye and the pairs together: the bye goes
to the lowest-ranked eligible player *whose absence still leaves a rematch-free pairing* when one
exists (level 1 dominates level 2), which is what T4 asks, without trying candidates one by one.

**Sides (T5).** In each pair the player who owes the second side (more games as the first side
than as the second, net) takes the second side; equal nets: the one with more first-side games
takes the second; still equal: drawn from the seed. The "first side" is each game's first
seat (its own name is the game's to say); the names here stay neutral.

Everything random comes from ``random.Random`` seeded with a string made of the event's seed and
the round number, so a replay of the event gives the same pairings (T12).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

BYE = "\x00bye"
"""The dummy vertex standing for the bye in an odd round (no player id can be it)."""

DRAW_RANGE = 1 << 20
"""Each pair's random weight (the lowest level) is drawn below this."""


@dataclass(frozen=True)
class Entrant:
    """One active player as the pairing sees him: standings position is his place in the list.

    ``met`` may name players no longer in the event (dropped): they are ignored.
    """

    player: str
    points: int
    met: frozenset[str] = frozenset()
    had_bye: bool = False
    first_games: int = 0
    second_games: int = 0

    @property
    def side_balance(self) -> int:
        """Games as the first side minus games as the second: > 0 owes a second side."""
        return self.first_games - self.second_games


@dataclass(frozen=True)
class Table:
    """One pairing: table ``number`` (1 = the best-ranked pair), who plays which side."""

    number: int
    first: str
    second: str


@dataclass(frozen=True)
class Pairing:
    """A round's pairings, ordered by table, and the player who has the bye (T2), if any."""

    round: int
    tables: tuple[Table, ...]
    bye: str | None

    def players(self) -> frozenset[str]:
        """Every player of the round, the bye included."""
        seated = {p for t in self.tables for p in (t.first, t.second)}
        return frozenset(seated | ({self.bye} if self.bye is not None else set()))


def round_random(seed: str, round_number: int) -> random.Random:
    """The round's random source: the same seed and round always draw the same numbers."""
    return random.Random(_draw_key(seed, round_number))


def _draw_key(seed: str, round_number: int) -> str:
    return f"event-pairing/{seed}/round/{round_number}"


def pair_round(entrants: Sequence[Entrant], round_number: int, seed: str) -> Pairing:
    """Pair one round. ``entrants`` are the active players best first (the caller's standings).

    Raises ValueError (nothing is computed) if fewer than two players, a player listed twice,
    an empty player id, a negative count, or ``round_number`` below 1.
    """
    _validate(entrants, round_number)
    rng = round_random(seed, round_number)
    if round_number == 1:
        pairs, bye = _random_pairs(entrants, rng)
    else:
        pairs, bye = _matched_pairs(
            entrants, random.Random(f"{_draw_key(seed, round_number)}/draw")
        )
    rank = {e.player: i for i, e in enumerate(entrants)}
    by_id = {e.player: e for e in entrants}
    ordered = sorted(
        ((a, b) if rank[a] < rank[b] else (b, a) for a, b in pairs),
        key=lambda pair: (rank[pair[0]], rank[pair[1]]),
    )
    tables = tuple(
        _seat(number, by_id[a], by_id[b], rng) for number, (a, b) in enumerate(ordered, start=1)
    )
    return Pairing(round=round_number, tables=tables, bye=bye)


def _validate(entrants: Sequence[Entrant], round_number: int) -> None:
    if round_number < 1:
        raise ValueError(f"round_number {round_number}: rounds are numbered from 1 (T4)")
    if len(entrants) < 2:
        raise ValueError(
            f"entrants: {len(entrants)} player(s); a round pairs at least two players (T4)"
        )
    seen: set[str] = set()
    for e in entrants:
        if not e.player or e.player == BYE:
            raise ValueError(f"entrants: player id {e.player!r} is empty or reserved")
        if e.player in seen:
            raise ValueError(f"entrants: player {e.player!r} is listed twice; one seat per round")
        seen.add(e.player)
        if e.first_games < 0 or e.second_games < 0:
            raise ValueError(f"entrants: player {e.player!r} has a negative side count (T5)")


def _random_pairs(
    entrants: Sequence[Entrant], rng: random.Random
) -> tuple[list[tuple[str, str]], str | None]:
    """Round one (T4): a shuffle from the seed, paired in order; an odd one out has the bye."""
    order = [e.player for e in entrants]
    rng.shuffle(order)
    bye = order.pop() if len(order) % 2 else None
    return [(order[i], order[i + 1]) for i in range(0, len(order), 2)], bye


def _matched_pairs(
    entrants: Sequence[Entrant], draw: random.Random
) -> tuple[list[tuple[str, str]], str | None]:
    """Later rounds (T4, T5): one maximum-weight perfect matching, the bye a dummy vertex."""
    n = len(entrants)
    odd = n % 2 == 1
    pairs_count = (n + 1) // 2
    groups = sorted({e.points for e in entrants}, reverse=True)
    group_of = {e.player: groups.index(e.points) for e in entrants}
    # Units, lowest first; each exceeds the largest total of everything below it.
    side_unit = DRAW_RANGE * pairs_count + 1  # above every total of the draw level
    float_unit = side_unit * (pairs_count + 1)  # rank of the player who comes up
    step_unit = float_unit * (pairs_count * n + 1)  # score-group steps between the pair
    cross_unit = step_unit * (pairs_count * len(groups) + 1)  # pairs across groups
    bye_unit = cross_unit * (pairs_count + 1)  # the bye's rank from the bottom
    rematch_unit = bye_unit * (n + 1)
    ceiling = rematch_unit * (pairs_count + 1)  # keeps every weight positive

    graph: nx.Graph[str] = nx.Graph()
    for i, a in enumerate(entrants):
        for j in range(i + 1, n):
            b = entrants[j]
            cost = 0
            if b.player in a.met or a.player in b.met:
                cost += rematch_unit
            steps = abs(group_of[b.player] - group_of[a.player])
            if steps:
                riser = j if group_of[b.player] > group_of[a.player] else i
                cost += cross_unit + steps * step_unit + riser * float_unit
            if a.side_balance * b.side_balance > 0:
                cost += side_unit
            cost += draw.randrange(DRAW_RANGE)
            graph.add_edge(a.player, b.player, weight=ceiling - cost)
    if odd:
        eligible = [i for i, e in enumerate(entrants) if not e.had_bye] or list(range(n))
        for i in eligible:
            graph.add_edge(BYE, entrants[i].player, weight=ceiling - (n - 1 - i) * bye_unit)
    matching = nx.max_weight_matching(graph, maxcardinality=True, weight="weight")
    pairs: list[tuple[str, str]] = []
    bye: str | None = None
    for a, b in matching:
        if BYE in (a, b):
            bye = b if a == BYE else a
        else:
            pairs.append((a, b))
    return pairs, bye


def _seat(number: int, a: Entrant, b: Entrant, rng: random.Random) -> Table:
    """T5: the player owing the second side takes it; a tie is drawn from the seed."""
    key_a = (a.side_balance, a.first_games)
    key_b = (b.side_balance, b.first_games)
    a_first = rng.random() < 0.5 if key_a == key_b else key_a < key_b
    first, second = (a, b) if a_first else (b, a)
    return Table(number=number, first=first.player, second=second.player)
