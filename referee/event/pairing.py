"""Swiss pairings for one round of an event (TOURNAMENT.md T4, T5), by maximum-weight matching.

The caller hands over the active players best first (the standings, T3) and this module takes
that order as given; ``referee.event.swiss.next_round`` derives it from the event's records.
Round one is a random pairing drawn from the event's seed. Later rounds are one maximum-weight
perfect matching (``networkx.max_weight_matching``, ``maxcardinality``) of the players, never a
greedy loop (T4; issue 34 item 2). Each pair's weight is one integer encoding, in strict
priority (each level's unit exceeds the largest possible total of all lower levels, so no amount
of lower-level gain can buy a higher-level loss):

1. no rematch (two players meet again only if no pairing of the whole round avoids it);
2. the bye to the lowest-ranked player who has not had one (odd rounds, see below);
3. the fewest pairs across score groups, then the smallest score differences (in score-group
   steps), then the highest-ranked players of a lower group coming up first;
4. side balance (T5): a soft preference against pairing two players who both owe the same side;
5. a draw from the seed: each pair gets a random weight below every level above (a keyed hash
   of the two ids), so players equal on all of the above are paired at random (as in Magic's
   rules) and the best matching is all but surely unique: a replay does not rest on how a
   networkx version breaks ties (T12).

**Smaller graphs first.** Matching every pair of 256 players takes seconds, so the
matching is first sought in subgraphs that a best matching of the whole graph provably lies in
whenever the subgraph's own best meets a set of lower bounds (``_Bounds``): no rematch, the bye
to the lowest-ranked eligible player, half the odd score groups' count of pairs across groups,
the odd groups joined two by two from the top (the fewest steps), the lower group's top-ranked
player coming up, and as few pairs owing the same side as the counts allow. The *dense*
subgraph holds the rematch-free pairs within each group and those joining each designated
lower group's top to the group above; the *sparse* one keeps, within each large group, only a
few partners per player drawn from the seed. A sparse best that meets every bound is best on
every level but the random draw's (which is then a draw among the seed's partners); a dense
best that meets them down to the risers is the whole graph's best. A group that cannot pair
within itself (its largest rematch-free pairing leaves two or more over, as two players of a
small group who have met) takes the dense graph's place with bounds of its own drawn from a
small matching of the left-over players across groups (``_with_stuck_groups``). Otherwise
(rematches or a bye forced up, a bound not met) the whole graph is matched. Each graph is
matched one connected part at a time.

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
the round number, or from hashes keyed by that string, so a replay of the event gives the same
pairings (T12).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from engine.say import Say

BYE = "\x00bye"
"""The dummy vertex standing for the bye in an odd round (no player id can be it)."""

DRAW_RANGE = 1 << 20
"""Each pair's random weight (the lowest level) is drawn below this."""


@dataclass(frozen=True)
class Pairable:
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


Entrant = Pairable
"""The former name of :class:`Pairable`, kept for callers (the standings' ``Entrant`` is the
registered player; :func:`referee.event.swiss.next_round` builds these from the records)."""


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


def pair_round(entrants: Sequence[Pairable], round_number: int, seed: str) -> Pairing:
    """Pair one round. ``entrants`` are the active players best first (the caller's standings).

    Raises ValueError (nothing is computed) if fewer than two players, a player listed twice,
    an empty player id, a negative count, or ``round_number`` below 1.
    """
    _validate(entrants, round_number)
    rng = round_random(seed, round_number)
    if round_number == 1:
        pairs, bye = _random_pairs(entrants, rng)
    else:
        key = f"{_draw_key(seed, round_number)}/draw".encode()
        pairs, bye = _matched_pairs(entrants, hashlib.blake2b(key).digest())
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


def _validate(entrants: Sequence[Pairable], round_number: int) -> None:
    if round_number < 1:
        raise ValueError(f"round_number {round_number}: rounds are numbered from 1 (T4)")
    if len(entrants) < 2:
        raise ValueError(
            Say(
                "entrants: %(num)s player(s); a round pairs at least two players (T4)",
                num=len(entrants),
            )
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
    entrants: Sequence[Pairable], rng: random.Random
) -> tuple[list[tuple[str, str]], str | None]:
    """Round one (T4): a shuffle from the seed, paired in order; an odd one out has the bye."""
    order = [e.player for e in entrants]
    rng.shuffle(order)
    bye = order.pop() if len(order) % 2 else None
    return [(order[i], order[i + 1]) for i in range(0, len(order), 2)], bye


def _matched_pairs(
    entrants: Sequence[Pairable], draw_key: bytes
) -> tuple[list[tuple[str, str]], str | None]:
    """Later rounds (T4, T5): one maximum-weight perfect matching, the bye a dummy vertex.

    Tried in smaller graphs first (see the module's docstring); the first whose best matching
    is certified to be best on every level the rules ask for is kept.
    """
    weights = _Weights(entrants, draw_key)
    bounds = _Bounds(weights)
    large = any(len(ranks) > SPARSE_GROUP for ranks in bounds.members.values())
    matched = _certified(weights, bounds, sparse=True) if large else None
    if matched is None:
        left_over = _left_over(weights, bounds)
        if all(count <= 1 for count in left_over.values()):
            # every group can pair within itself, so the dense subgraph may seat everyone
            matched = _certified(weights, bounds, sparse=False)
        else:
            matched = _with_stuck_groups(weights, bounds, left_over)
    if matched is None:
        matched = _match(weights.all_edges())
    bye: str | None = None
    pairs: list[tuple[str, str]] = []
    for a, b in matched:
        if BYE in (a, b):
            bye = b if a == BYE else a
        else:
            pairs.append((a, b))
    return pairs, bye


Edge = tuple[str, str, int]


class _Weights:
    """Every pair's weight: one integer, the levels of the module's docstring as its digits."""

    def __init__(self, entrants: Sequence[Pairable], draw_key: bytes) -> None:
        self.entrants = entrants
        self.draw_key = draw_key
        n = self.n = len(entrants)
        self.odd = n % 2 == 1
        pairs_count = (n + 1) // 2
        points = sorted({e.points for e in entrants}, reverse=True)
        index = {p: k for k, p in enumerate(points)}
        self.group = [index[e.points] for e in entrants]
        self.groups = len(points)
        # Units, lowest first; each exceeds the largest total of everything below it.
        self.side_unit = DRAW_RANGE * pairs_count + 1  # above every total of the draw level
        self.float_unit = self.side_unit * (pairs_count + 1)  # rank of the player who comes up
        self.step_unit = self.float_unit * (pairs_count * n + 1)  # score-group steps
        self.cross_unit = self.step_unit * (pairs_count * len(points) + 1)  # pairs across groups
        self.bye_unit = self.cross_unit * (pairs_count + 1)  # the bye's rank from the bottom
        self.rematch_unit = self.bye_unit * (n + 1)
        self.ceiling = self.rematch_unit * (pairs_count + 1)  # keeps every weight positive
        self.eligible = [i for i, e in enumerate(entrants) if not e.had_bye] or list(range(n))

    def met(self, i: int, j: int) -> bool:
        a, b = self.entrants[i], self.entrants[j]
        return b.player in a.met or a.player in b.met

    def draw(self, i: int, j: int) -> int:
        """The pair's random weight: a keyed hash of the two ids, the same whichever edges the
        graph holds (the certifying subgraph and the whole graph weigh a pair alike)."""
        a, b = sorted((self.entrants[i].player, self.entrants[j].player))
        digest = hashlib.blake2b(f"{a}\x00{b}".encode(), key=self.draw_key, digest_size=8).digest()
        return int.from_bytes(digest, "big") % DRAW_RANGE

    def pair(self, i: int, j: int) -> Edge:
        """The edge between the players ranked ``i`` and ``j``."""
        i, j = min(i, j), max(i, j)
        a, b = self.entrants[i], self.entrants[j]
        cost = self.draw(i, j)
        if b.player in a.met or a.player in b.met:
            cost += self.rematch_unit
        steps = abs(self.group[j] - self.group[i])
        if steps:
            riser = j if self.group[j] > self.group[i] else i
            cost += self.cross_unit + steps * self.step_unit + riser * self.float_unit
        if a.side_balance * b.side_balance > 0:
            cost += self.side_unit
        return a.player, b.player, self.ceiling - cost

    def bye(self, i: int) -> Edge:
        """The edge giving the bye to the player ranked ``i`` (higher as he ranks lower)."""
        return BYE, self.entrants[i].player, self.ceiling - (self.n - 1 - i) * self.bye_unit

    def all_edges(self) -> list[Edge]:
        edges = [self.pair(i, j) for i in range(self.n) for j in range(i + 1, self.n)]
        if self.odd:
            edges.extend(self.bye(i) for i in self.eligible)
        return edges


def _match(edges: list[Edge]) -> set[tuple[str, str]]:
    """networkx's maximum-weight matching of the most players, one connected part at a time
    (the same matching as of the whole graph at once, in less time)."""
    graph: nx.Graph[str] = nx.Graph()
    graph.add_weighted_edges_from(edges)
    matching: set[tuple[str, str]] = set()
    for part in nx.connected_components(graph):
        matching |= nx.max_weight_matching(graph.subgraph(part).copy(), maxcardinality=True)
    return matching


class _Bounds:
    """Lower bounds that every matching of the round meets, level by level (T4, T5).

    No rematch; the bye to the lowest-ranked eligible player; as many pairs across groups as
    half the groups left odd once the bye is out (each needs one); the steps of joining the odd
    groups two by two from the top, the *designated* pairs of groups (the one cheapest way to
    join points on a line); in each designated pair the lower group's top-ranked player coming
    up. A matching that meets all these has its pairs across groups exactly one per designated
    pair, from the lower group's top; within each part so joined (a group, or a designated pair
    of groups with its one riser), as few pairs of two players owing the same side as their
    counts allow.
    """

    def __init__(self, weights: _Weights) -> None:
        group = weights.group
        self.bye = max(weights.eligible) if weights.odd else None
        self.members: dict[int, list[int]] = {}
        for i in range(weights.n):
            if i != self.bye:
                self.members.setdefault(group[i], []).append(i)
        odd = sorted(g for g, ranks in self.members.items() if len(ranks) % 2)
        self.designated = list(zip(odd[::2], odd[1::2], strict=True))
        partner = {g: h for pair in self.designated for g, h in (pair, pair[::-1])}
        self.same_side = sum(
            _fewest_same_side(weights, ranks)
            for g, ranks in self.members.items()
            if g not in partner
        ) + sum(
            _fewest_same_side_across(weights, self.members[upper], self.members[lower])
            for upper, lower in self.designated
        )


def _owing(weights: _Weights, i: int) -> int:
    """The side the player ranked ``i`` owes: 1 the second, -1 the first, 0 neither (T5)."""
    balance = weights.entrants[i].side_balance
    return (balance > 0) - (balance < 0)


def _fewest_same_side(weights: _Weights, ranks: Sequence[int]) -> int:
    """The fewest pairs of two players owing the same side (T5) in any pairing of ``ranks``."""
    owing = [_owing(weights, i) for i in ranks]
    second, first = owing.count(1), owing.count(-1)
    either = len(owing) - second - first
    return max(0, second - first - either, first - second - either) // 2


def _fewest_same_side_across(weights: _Weights, upper: list[int], lower: list[int]) -> int:
    """As :func:`_fewest_same_side` for an odd group and the odd group below it, joined by one
    pair: the lower group's top-ranked player and someone of the upper group."""
    riser, rest = lower[0], lower[1:]
    below = _fewest_same_side(weights, rest)
    best: int | None = None
    for kind in {_owing(weights, i) for i in upper}:
        partner = next(i for i in upper if _owing(weights, i) == kind)
        above = _fewest_same_side(weights, [i for i in upper if i != partner])
        total = above + below + (kind != 0 and kind == _owing(weights, riser))
        best = total if best is None else min(best, total)
    return best if best is not None else 0


SPARSE_PARTNERS = 6
"""In the sparse graph, each player's edges to random players of his group owing the other
side (or none), and as many to any player of his group."""

SPARSE_GROUP = 4 * SPARSE_PARTNERS
"""Groups larger than this are thinned in the sparse graph (smaller ones keep every pair; with
none larger, the sparse graph would be the dense one and is not tried)."""


def _certified(weights: _Weights, bounds: _Bounds, sparse: bool) -> set[tuple[str, str]] | None:
    """The best matching of a subgraph, if it is provably best in the whole graph; else None.

    The dense subgraph holds every edge a matching meeting :class:`_Bounds` (down to the
    risers) can use: the bye's edge to the lowest-ranked eligible player, the rematch-free pairs
    within a group and those from each designated lower group's top to the upper group. Any
    matching of all its players meets those bounds (its only pairs across groups are the
    risers', and each odd group needs one). The whole graph's best matching meets them whenever
    one does, so it lies in the subgraph: the subgraph's best, if it seats everyone, is the
    whole graph's best. The sparse subgraph keeps, within each group of more than
    ``SPARSE_GROUP``, only edges to a few partners drawn from the seed; its best matching
    is kept if it also meets the side bound, so it is best on every level but the random
    draw's, which then ranges over the seed's partners (still at random from the seed).
    """
    edges: list[Edge] = [] if bounds.bye is None else [weights.bye(bounds.bye)]
    pick = random.Random(weights.draw_key + b"/partners")
    for ranks in bounds.members.values():
        if sparse and len(ranks) > SPARSE_GROUP:
            chosen: set[tuple[int, int]] = set()
            for i in ranks:
                others = [j for j in ranks if j != i and not weights.met(i, j)]
                balance = weights.entrants[i].side_balance
                suited = [j for j in others if weights.entrants[j].side_balance * balance <= 0]
                for j in pick.sample(suited, min(SPARSE_PARTNERS, len(suited))) + pick.sample(
                    others, min(SPARSE_PARTNERS, len(others))
                ):
                    chosen.add((min(i, j), max(i, j)))
            edges.extend(weights.pair(i, j) for i, j in sorted(chosen))
        else:
            for x, i in enumerate(ranks):
                edges.extend(weights.pair(i, j) for j in ranks[x + 1 :] if not weights.met(i, j))
    for upper, lower in bounds.designated:
        riser = bounds.members[lower][0]
        edges.extend(
            weights.pair(i, riser) for i in bounds.members[upper] if not weights.met(i, riser)
        )
    matching = _match(edges)
    if 2 * len(matching) != weights.n + (bounds.bye is not None):
        return None
    rank = {e.player: i for i, e in enumerate(weights.entrants)}
    pairs = [(rank[a], rank[b]) for a, b in matching if BYE not in (a, b)]
    if sparse:
        same_side = sum(
            1
            for i, j in pairs
            if weights.entrants[i].side_balance * weights.entrants[j].side_balance > 0
        )
        if same_side != bounds.same_side:
            return None
    return matching


def _left_over(weights: _Weights, bounds: _Bounds) -> dict[int, int]:
    """For each score group (the bye out), how many of its players its largest rematch-free
    pairing within itself leaves over: each of them must be paired outside the group. More
    than one (a *stuck* group, say two players who have met) and the dense subgraph cannot
    seat everyone."""
    left_over: dict[int, int] = {}
    for g, ranks in bounds.members.items():
        graph: nx.Graph[int] = nx.Graph()
        graph.add_nodes_from(ranks)
        graph.add_edges_from(
            (i, j) for x, i in enumerate(ranks) for j in ranks[x + 1 :] if not weights.met(i, j)
        )
        matched = len(nx.maximal_matching(graph))
        if 2 * matched < len(ranks) - 1:  # a greedy one may fall short: ask for the largest
            matched = len(nx.max_weight_matching(graph, maxcardinality=True))
        left_over[g] = len(ranks) - 2 * matched
    return left_over


def _with_stuck_groups(
    weights: _Weights, bounds: _Bounds, left_over: dict[int, int]
) -> set[tuple[str, str]] | None:
    """The whole graph's best matching when some group is stuck, or None.

    Each group's left-over players are *slots* (the group's best-ranked players, as many as it
    leaves over). A small networkx matching of the slots across groups gives lower bounds on
    the steps and on the risers' ranks of any matching with the fewest pairs across groups
    (half the slots): a slot in the lower group of a pair counts its rank. The subgraph holds
    the bye's edge to the lowest-ranked eligible player, every rematch-free pair within a group,
    and the rematch-free pairs from any player of a group with slots to a slot player of a
    group with slots below it, at most ``steps - pairs across + 1`` groups apart. A matching
    meeting all those bounds pairs across only such pairs (its risers are slot players, else
    the slots' bound would be lower still), so if the subgraph's best seats everyone and meets
    them, it is the whole graph's best.
    """
    slots = [(g, k) for g in sorted(left_over) for k in range(left_over[g])]
    if len(slots) % 2:
        return None
    top = {g: bounds.members[g][: left_over[g]] for g in left_over}
    rank_unit = weights.n * len(slots) + 1  # above every total of the risers' ranks
    ceiling = rank_unit * (weights.groups + 1)
    aux: nx.Graph[tuple[int, int]] = nx.Graph()
    for x, (g, k) in enumerate(slots):
        for h, m in slots[x + 1 :]:
            if g != h:  # g above h
                aux.add_edge((g, k), (h, m), weight=ceiling - (h - g) * rank_unit - top[h][m])
    joins = nx.max_weight_matching(aux, maxcardinality=True)
    if 2 * len(joins) != len(slots):
        return None
    crossings = len(joins)
    steps = sum(abs(a[0] - b[0]) for a, b in joins)
    risers = sum(top[max(a, b)[0]][max(a, b)[1]] for a, b in joins)
    reach = steps - crossings + 1
    group = weights.group
    edges: list[Edge] = [] if bounds.bye is None else [weights.bye(bounds.bye)]
    for ranks in bounds.members.values():
        for x, i in enumerate(ranks):
            edges.extend(weights.pair(i, j) for j in ranks[x + 1 :] if not weights.met(i, j))
    for g in left_over:
        for h in left_over:
            if left_over[g] and left_over[h] and 0 < h - g <= reach:
                edges.extend(
                    weights.pair(i, j)
                    for i in bounds.members[g]
                    for j in top[h]
                    if not weights.met(i, j)
                )
    matching = _match(edges)
    if 2 * len(matching) != weights.n + (bounds.bye is not None):
        return None
    rank = {e.player: i for i, e in enumerate(weights.entrants)}
    across = [
        (rank[a], rank[b])
        for a, b in matching
        if BYE not in (a, b) and group[rank[a]] != group[rank[b]]
    ]
    got_steps = sum(abs(group[i] - group[j]) for i, j in across)
    got_risers = sum(max(i, j, key=lambda r: group[r]) for i, j in across)
    if (len(across), got_steps, got_risers) != (crossings, steps, risers):
        return None
    return matching


def _seat(number: int, a: Pairable, b: Pairable, rng: random.Random) -> Table:
    """T5: the player owing the second side takes it; a tie is drawn from the seed."""
    key_a = (a.side_balance, a.first_games)
    key_b = (b.side_balance, b.first_games)
    a_first = rng.random() < 0.5 if key_a == key_b else key_a < key_b
    first, second = (a, b) if a_first else (b, a)
    return Table(number=number, first=first.player, second=second.player)
