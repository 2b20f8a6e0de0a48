"""Swiss pairings (TOURNAMENT.md T4, T5): referee/event/pairing.py.

Exhaustive checks against every pairing of small rounds, simulated events with drops and late
entries, and the rule cases one by one. The tests ask networkx itself (an unweighted maximum
matching over the rematch-free pairs) whether a rematch could have been avoided.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

import networkx as nx
import pytest

from referee.event.pairing import (
    BYE,
    Entrant,
    Pairing,
    Table,
    _Bounds,
    _left_over,
    _match,
    _Weights,
    pair_round,
)
from referee.event.simulate import simulate

Pairer = Callable[[Sequence[Entrant], int, str], Pairing]


# --- helpers ------------------------------------------------------------------------------


def pairs_of(pairing: Pairing) -> list[tuple[str, str]]:
    return [(t.first, t.second) for t in pairing.tables]


def rematches(entrants: Sequence[Entrant], pairs: Sequence[tuple[str, str]]) -> int:
    met = {e.player: e.met for e in entrants}
    return sum(1 for a, b in pairs if b in met[a] or a in met[b])


def eligible_for_bye(entrants: Sequence[Entrant]) -> list[str]:
    return [e.player for e in entrants if not e.had_bye] or [e.player for e in entrants]


def has_rematch_free_round(entrants: Sequence[Entrant]) -> bool:
    """networkx's word: can every player (and the bye, if odd) be placed without a rematch?"""
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(e.player for e in entrants)
    for a, b in itertools.combinations(entrants, 2):
        if b.player not in a.met and a.player not in b.met:
            graph.add_edge(a.player, b.player)
    if len(entrants) % 2:
        for player in eligible_for_bye(entrants):
            graph.add_edge(BYE, player)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return 2 * len(matching) == graph.number_of_nodes()


def perfect_matchings(players: list[str]) -> Iterator[list[tuple[str, str]]]:
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for k, partner in enumerate(rest):
        for tail in perfect_matchings(rest[:k] + rest[k + 1 :]):
            yield [(first, partner), *tail]


def quality(
    entrants: Sequence[Entrant], pairs: Sequence[tuple[str, str]], bye: str | None
) -> tuple[int, int, int, int]:
    """(rematches, bye's height from the bottom, pairs across score groups, group steps)."""
    groups = sorted({e.points for e in entrants}, reverse=True)
    group = {e.player: groups.index(e.points) for e in entrants}
    rank = {e.player: i for i, e in enumerate(entrants)}
    crossings = sum(1 for a, b in pairs if group[a] != group[b])
    steps = sum(abs(group[a] - group[b]) for a, b in pairs)
    height = 0 if bye is None else len(entrants) - 1 - rank[bye]
    return rematches(entrants, pairs), height, crossings, steps


def best_quality_by_brute_force(entrants: Sequence[Entrant]) -> tuple[int, int, int, int]:
    players = [e.player for e in entrants]
    byes: list[str | None] = list(eligible_for_bye(entrants)) if len(players) % 2 else [None]
    return min(
        quality(entrants, pairs, bye)
        for bye in byes
        for pairs in perfect_matchings([p for p in players if p != bye])
    )


def random_round(rng: random.Random, n: int) -> list[Entrant]:
    """A round-two-to-five-like state: points in few groups, dense histories, some byes."""
    names = [f"p{i}" for i in range(n)]
    points = sorted((rng.choice([0, 1, 3, 3, 4, 6, 6, 9]) for _ in names), reverse=True)
    met: dict[str, set[str]] = {p: set() for p in names}
    for a, b in itertools.combinations(names, 2):
        if rng.random() < 0.35:
            met[a].add(b)
            met[b].add(a)
    return [
        Entrant(
            player=p,
            points=pts,
            met=frozenset(met[p]),
            had_bye=rng.random() < 0.3,
            first_games=rng.randint(0, 3),
            second_games=rng.randint(0, 3),
        )
        for p, pts in zip(names, points, strict=True)
    ]


@dataclass(frozen=True)
class Record:
    entrants: tuple[Entrant, ...]
    pairing: Pairing


def simulate_event(
    seed: int, players: int, rounds: int, pairer: Pairer = pair_round
) -> list[Record]:
    """A Swiss event with random results, drops and late entries (T9), paired by ``pairer``."""
    rng = random.Random(seed)
    state = {f"p{i}": Entrant(player=f"p{i}", points=0) for i in range(players)}
    tiebreak = {p: rng.random() for p in state}
    records: list[Record] = []
    late = players
    for round_number in range(1, rounds + 1):
        if round_number > 1:
            for dropped in rng.sample(sorted(state), k=min(rng.randint(0, 2), len(state) - 4)):
                del state[dropped]
            if rng.random() < 0.4:
                name = f"p{late}"
                late += 1
                state[name] = Entrant(player=name, points=0)
                tiebreak[name] = rng.random()
        entrants = tuple(sorted(state.values(), key=lambda e: (-e.points, tiebreak[e.player])))
        pairing = pairer(entrants, round_number, f"seed-{seed}")
        records.append(Record(entrants, pairing))
        for table in pairing.tables:
            a, b = state[table.first], state[table.second]
            outcome = rng.choice([(3, 0), (0, 3), (1, 1), (3, 0), (0, 3)])
            state[a.player] = replace(
                a,
                points=a.points + outcome[0],
                met=a.met | {b.player},
                first_games=a.first_games + 1,
            )
            state[b.player] = replace(
                b,
                points=b.points + outcome[1],
                met=b.met | {a.player},
                second_games=b.second_games + 1,
            )
        if pairing.bye is not None:
            e = state[pairing.bye]
            state[e.player] = replace(e, points=e.points + 3, had_bye=True)
    return records


EVENTS = [
    (seed, players, rounds)
    for seed, (players, rounds) in enumerate(
        [
            (8, 3),
            (8, 7),
            (9, 4),
            (10, 7),
            (11, 5),
            (12, 7),
            (16, 5),
            (17, 6),
            (24, 7),
            (33, 6),
            (48, 5),
            (64, 7),
        ]
    )
]


# --- validation ---------------------------------------------------------------------------


def test_a_round_of_fewer_than_two_players_is_refused() -> None:
    with pytest.raises(ValueError, match=r"entrants: 1 player.*at least two.*T4"):
        pair_round([Entrant("a", 0)], 2, "s")
    with pytest.raises(ValueError, match="entrants: 0 player"):
        pair_round([], 1, "s")


def test_a_player_listed_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="'a' is listed twice"):
        pair_round([Entrant("a", 0), Entrant("b", 0), Entrant("a", 3)], 2, "s")


def test_round_numbers_start_at_one() -> None:
    with pytest.raises(ValueError, match="round_number 0"):
        pair_round([Entrant("a", 0), Entrant("b", 0)], 0, "s")


def test_a_negative_side_count_is_refused() -> None:
    with pytest.raises(ValueError, match=r"negative side count.*T5"):
        pair_round([Entrant("a", 0, first_games=-1), Entrant("b", 0)], 2, "s")


def test_an_empty_or_reserved_player_id_is_refused() -> None:
    for bad in ("", BYE):
        with pytest.raises(ValueError, match="empty or reserved"):
            pair_round([Entrant(bad, 0), Entrant("b", 0)], 2, "s")


def test_opponents_who_dropped_are_ignored() -> None:
    pairing = pair_round(
        [Entrant("a", 3, met=frozenset({"gone"})), Entrant("b", 0, met=frozenset({"x"}))], 2, "s"
    )
    assert pairing.players() == {"a", "b"} and pairing.bye is None


# --- round one ----------------------------------------------------------------------------


def test_round_one_is_random_from_the_seed_and_the_same_seed_draws_the_same() -> None:
    field = [Entrant(f"p{i}", 0) for i in range(16)]
    first = pair_round(field, 1, "spring-open")
    assert first == pair_round(field, 1, "spring-open")
    draws = {tuple(pairs_of(pair_round(field, 1, f"seed-{k}"))) for k in range(8)}
    assert len(draws) == 8
    assert first.players() == {e.player for e in field}


def test_round_one_does_not_simply_pair_the_list_in_order() -> None:
    field = [Entrant(f"p{i}", 0) for i in range(16)]
    in_order = {frozenset((f"p{i}", f"p{i + 1}")) for i in range(0, 16, 2)}
    drawn = {frozenset(pair) for pair in pairs_of(pair_round(field, 1, "spring-open"))}
    assert drawn != in_order


def test_round_one_sides_are_drawn_from_the_seed() -> None:
    field = [Entrant(f"p{i}", 0) for i in range(40)]
    firsts = [
        t.first == min(t.first, t.second)
        for k in range(5)
        for t in pair_round(field, 1, f"s{k}").tables
    ]
    assert 0 < sum(firsts) < len(firsts)


def test_an_odd_round_one_gives_one_bye() -> None:
    pairing = pair_round([Entrant(f"p{i}", 0) for i in range(7)], 1, "s")
    assert pairing.bye is not None and len(pairing.tables) == 3
    assert len(pairing.players()) == 7


# --- later rounds: rule cases -------------------------------------------------------------


def test_players_with_equal_points_are_paired_together() -> None:
    field = [
        Entrant(p, pts) for p, pts in [("a", 6), ("b", 6), ("c", 3), ("d", 3), ("e", 0), ("f", 0)]
    ]
    pairing = pair_round(field, 3, "s")
    assert {frozenset(p) for p in pairs_of(pairing)} == {
        frozenset("ab"),
        frozenset("cd"),
        frozenset("ef"),
    }


def test_tables_are_numbered_from_the_best_ranked_pair() -> None:
    field = [
        Entrant(p, pts) for p, pts in [("a", 6), ("b", 6), ("c", 3), ("d", 3), ("e", 0), ("f", 0)]
    ]
    tables = pair_round(field, 3, "s").tables
    assert [t.number for t in tables] == [1, 2, 3]
    assert [{t.first, t.second} for t in tables] == [{"a", "b"}, {"c", "d"}, {"e", "f"}]


def test_an_odd_group_brings_up_the_highest_ranked_player_of_the_lower_group() -> None:
    field = [
        Entrant(p, pts) for p, pts in [("a", 3), ("b", 3), ("c", 3), ("d", 0), ("e", 0), ("f", 0)]
    ]
    pairing = pair_round(field, 2, "s")
    crossing = [p for p in pairs_of(pairing) if "d" in p or "e" in p or "f" in p]
    up = [p for p in crossing if set(p) & {"a", "b", "c"}]
    assert len(up) == 1 and "d" in up[0]


def test_two_players_meet_again_only_when_no_pairing_avoids_it() -> None:
    # a met b, c met d; a-c and b-d are cross-group but rematch-free: they must be chosen.
    field = [
        Entrant("a", 6, met=frozenset("b")),
        Entrant("b", 6, met=frozenset("a")),
        Entrant("c", 3, met=frozenset("d")),
        Entrant("d", 3, met=frozenset("c")),
    ]
    pairs = pairs_of(pair_round(field, 3, "s"))
    assert rematches(field, pairs) == 0


def test_a_forced_rematch_is_taken_when_every_pairing_has_one() -> None:
    field = [Entrant(p, 3, met=frozenset("abc") - {p}) for p in "abc"] + [
        Entrant("d", 0, met=frozenset("abc"))
    ]
    pairing = pair_round(field, 4, "s")
    assert len(pairing.tables) == 2 and not has_rematch_free_round(field)


def test_the_bye_goes_to_the_lowest_ranked_player_without_one() -> None:
    field = [Entrant(p, pts) for p, pts in [("a", 3), ("b", 3), ("c", 0), ("d", 0)]]
    field.append(Entrant("e", 0, had_bye=True))
    assert pair_round(field, 2, "s").bye == "d"


def test_the_bye_skips_a_player_whose_absence_would_force_a_rematch() -> None:
    # a has met everyone but e: whoever sits out, a must meet e, so e cannot have the bye.
    field = [
        Entrant("a", 3, met=frozenset("bcd")),
        Entrant("b", 3, met=frozenset("a")),
        Entrant("c", 0, met=frozenset("a")),
        Entrant("d", 0, met=frozenset("a")),
        Entrant("e", 0),
    ]
    pairing = pair_round(field, 3, "s")
    assert rematches(field, pairs_of(pairing)) == 0
    assert pairing.bye == "d"


def test_when_everyone_has_had_a_bye_the_lowest_ranked_gets_another() -> None:
    field = [Entrant(p, 3, had_bye=True) for p in "abc"]
    assert pair_round(field, 4, "s").bye == "c"


def test_the_player_who_has_been_first_more_often_plays_second() -> None:
    field = [
        Entrant("a", 3, first_games=2, second_games=1),
        Entrant("b", 3, first_games=1, second_games=2),
    ]
    assert pair_round(field, 4, "s").tables == (Table(1, first="b", second="a"),)
    field = [
        Entrant("a", 3, first_games=1, second_games=2),
        Entrant("b", 3, first_games=2, second_games=1),
    ]
    assert pair_round(field, 4, "s").tables == (Table(1, first="a", second="b"),)


def test_equal_side_counts_draw_the_side_from_the_seed() -> None:
    field = [
        Entrant("a", 3, first_games=1, second_games=1),
        Entrant("b", 3, first_games=1, second_games=1),
    ]
    firsts = {pair_round(field, 3, f"s{k}").tables[0].first for k in range(20)}
    assert firsts == {"a", "b"}
    assert pair_round(field, 3, "s1") == pair_round(field, 3, "s1")


def test_side_balance_chooses_between_otherwise_equal_pairings() -> None:
    # a and b both owe the second side, c and d the first: a-c and b-d seat everyone well.
    field = [
        Entrant("a", 3, first_games=1),
        Entrant("b", 3, first_games=1),
        Entrant("c", 3, second_games=1),
        Entrant("d", 3, second_games=1),
    ]
    tables = pair_round(field, 2, "s").tables
    assert {(t.first, t.second) for t in tables} in (
        {("c", "a"), ("d", "b")},
        {("d", "a"), ("c", "b")},
    )


def test_side_balance_never_outweighs_score_groups() -> None:
    field = [
        Entrant("a", 3, first_games=1),
        Entrant("b", 3, first_games=1),
        Entrant("c", 0, second_games=1),
        Entrant("d", 0, second_games=1),
    ]
    assert {frozenset(p) for p in pairs_of(pair_round(field, 2, "s"))} == {
        frozenset("ab"),
        frozenset("cd"),
    }


# --- exhaustive: every pairing of small rounds --------------------------------------------


@pytest.mark.parametrize("n", range(4, 11))
def test_no_pairing_of_a_small_round_has_fewer_rematches_a_lower_bye_or_fewer_crossings(
    n: int,
) -> None:
    rng = random.Random(f"exhaustive-{n}")
    for _ in range(12 if n < 10 else 6):
        field = random_round(rng, n)
        pairing = pair_round(field, 3, "s")
        assert pairing.players() == {e.player for e in field}
        got = quality(field, pairs_of(pairing), pairing.bye)
        assert got == best_quality_by_brute_force(field), field


# --- simulated events ---------------------------------------------------------------------


def check_event(records: Sequence[Record]) -> None:
    """T4 and T5 after every round of a simulated event."""
    for record in records:
        field, pairing = record.entrants, record.pairing
        by_id = {e.player: e for e in field}
        seated = [p for t in pairing.tables for p in (t.first, t.second)]
        byes = [] if pairing.bye is None else [pairing.bye]
        assert sorted(seated + byes) == sorted(by_id)  # everyone placed once
        # T4: a rematch only when networkx finds no rematch-free pairing of the round
        if rematches(field, pairs_of(pairing)):
            assert not has_rematch_free_round(field)
        # T4: a second bye only when everyone still playing has had one
        if pairing.bye is not None:
            assert pairing.bye in eligible_for_bye(field)
        # T5: whoever owes the second side takes it; a player's sides drift past one apart
        # only against an opponent who owed the same side
        for t in pairing.tables:
            first, second = by_id[t.first], by_id[t.second]
            assert first.side_balance <= second.side_balance
            if first.side_balance >= 1 or second.side_balance <= -1:
                assert first.side_balance * second.side_balance > 0


@pytest.mark.parametrize(("seed", "players", "rounds"), EVENTS)
def test_a_simulated_event_keeps_the_pairing_rules(seed: int, players: int, rounds: int) -> None:
    check_event(simulate_event(seed, players, rounds))


def test_the_same_seed_pairs_a_whole_event_the_same_way() -> None:
    assert simulate_event(7, 20, 5) == simulate_event(7, 20, 5)
    assert simulate_event(7, 20, 5) != simulate_event(8, 20, 5)


def test_sides_stay_within_one_of_balance_in_most_of_a_simulated_event() -> None:
    records = simulate_event(3, 32, 6)
    final = records[-1].entrants
    assert sum(1 for e in final if abs(e.side_balance) <= 1) >= 0.9 * len(final)


def test_players_equal_on_everything_are_paired_at_random_from_the_seed() -> None:
    field = [Entrant(f"p{i}", 3) for i in range(8)]
    draws = {
        frozenset(frozenset(p) for p in pairs_of(pair_round(field, 2, f"s{k}"))) for k in range(6)
    }
    assert len(draws) > 1
    assert pair_round(field, 2, "s3") == pair_round(field, 2, "s3")


# --- the subgraphs tried first give the whole graph's best --------------------------------


def cost_above_the_draw(weights: _Weights, matched: Iterable[tuple[str, str]]) -> int:
    """A matching's cost on every level above the random draw (the draw's total is below one
    side unit, so the quotient drops it)."""
    rank = {e.player: i for i, e in enumerate(weights.entrants)}
    total = 0
    for a, b in matched:
        if BYE in (a, b):
            edge = weights.bye(rank[b if a == BYE else a])
        else:
            edge = weights.pair(min(rank[a], rank[b]), max(rank[a], rank[b]))
        total += weights.ceiling - edge[2]
    return total // weights.side_unit


@pytest.mark.parametrize(("seed", "players"), [(1, 61), (2, 96), (3, 130)])
def test_the_pairing_is_as_good_as_the_whole_graphs_best_matching_on_every_rule(
    seed: int, players: int
) -> None:
    # Fields large enough for the sparse and dense subgraphs (groups of more than 24).
    for record in simulate_event(seed, players, 6)[1:]:
        field, pairing = record.entrants, record.pairing
        weights = _Weights(field, b"check")
        ours = [*pairs_of(pairing), *([(BYE, pairing.bye)] if pairing.bye else [])]
        whole = _match(weights.all_edges())
        assert cost_above_the_draw(weights, ours) == cost_above_the_draw(weights, whole)


def test_a_large_group_with_one_side_balanced_pairing_gets_it() -> None:
    # 30 players owe the second side (s00..), 30 the first (f00..); s_i has met f_j for every
    # j < i, so s_i-f_i for all i is the one pairing where nobody owes the same side as his
    # opponent (T5). A group this large is first tried in the sparse subgraph, which rarely
    # holds all 30 of those pairs: its best must then be refused, not kept.
    seconds = [f"s{i:02d}" for i in range(30)]
    firsts = [f"f{i:02d}" for i in range(30)]
    field: list[Entrant] = []
    for i in range(30):
        field.append(Entrant(seconds[i], 3, met=frozenset(firsts[:i]), first_games=1))
        field.append(Entrant(firsts[i], 3, met=frozenset(seconds[i + 1 :]), second_games=1))
    for k in range(3):
        tables = pair_round(field, 2, f"seed-{k}").tables
        assert {(t.first, t.second) for t in tables} == set(zip(firsts, seconds, strict=True))


def test_rounds_with_a_group_that_cannot_pair_within_itself_get_the_whole_graphs_best() -> None:
    # Draws make small score groups of players who have met: such a group is stuck (its
    # players must all be paired outside it), and the pairing takes its own subgraph for it.
    stuck_rounds = 0
    for seed in ("stuck-1", "stuck-2", "stuck-3"):
        sim = simulate(90, 6, seed, drops=2, late=2)
        for number, (field, pairing) in enumerate(zip(sim.fields, sim.pairings, strict=True), 1):
            if number == 1:
                continue
            weights = _Weights(field, b"check")
            stuck_rounds += any(n > 1 for n in _left_over(weights, _Bounds(weights)).values())
            ours = [*pairs_of(pairing), *([(BYE, pairing.bye)] if pairing.bye else [])]
            whole = _match(weights.all_edges())
            assert cost_above_the_draw(weights, ours) == cost_above_the_draw(weights, whole)
    assert stuck_rounds >= 3
