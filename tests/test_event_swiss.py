"""The next round from an event's records (referee/event/swiss.py) and simulated events
(referee/event/simulate.py): TOURNAMENT.md T3, T4, T5, T9.

Every round of many simulated events (8 to 64 players, 3 to 7 rounds, drops and late entries) is
checked against the rules; on rounds of at most 11 players, against every possible pairing.
Deliberately broken pairers run through the same checks and are caught.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

import pytest
from test_event_pairing import (
    best_quality_by_brute_force,
    eligible_for_bye,
    has_rematch_free_round,
    pairs_of,
    quality,
    rematches,
)

from referee.event.pairing import Pairable, Pairing, Table, pair_round
from referee.event.simulate import Pairer, Simulation, simulate
from referee.event.standings import Bye, Entrant, Match, Round, compute_standings
from referee.event.swiss import next_round, pairables

# --- next_round: the players from the records ---------------------------------------------

FOUR = [Entrant(p) for p in "abcd"]
ROUND_ONE = [Match("a", "b", 1, 0), Match("c", "d", 1, 0)]


def test_the_players_come_best_first_in_the_standings_order() -> None:
    field = pairables(FOUR, [ROUND_ONE], {}, 2, "s")
    standings = compute_standings(FOUR, [ROUND_ONE], "s")
    assert [p.player for p in field] == [s.player for s in standings]
    assert {p.player: p.points for p in field} == {"a": 3, "c": 3, "b": 0, "d": 0}


def test_opponents_met_and_byes_come_from_the_rounds() -> None:
    entrants = [Entrant(p) for p in "abc"]
    rounds: list[Round] = [[Match("a", "b", 1, 0), Bye("c")]]
    field = {p.player: p for p in pairables(entrants, rounds, {}, 2, "s")}
    assert field["a"].met == {"b"} and field["b"].met == {"a"} and field["c"].met == set()
    assert field["c"].had_bye and not field["a"].had_bye


def test_a_second_round_avoids_the_first_rounds_pairs() -> None:
    pairing = next_round(FOUR, [ROUND_ONE], {}, 2, "s")
    assert {frozenset(p) for p in pairs_of(pairing)} == {frozenset("ac"), frozenset("bd")}


def test_side_counts_come_from_the_sides_given() -> None:
    sides = {"a": (1, 0), "c": (0, 1), "b": (0, 1), "d": (1, 0)}
    field = {p.player: p for p in pairables(FOUR, [ROUND_ONE], sides, 2, "s")}
    assert (field["a"].first_games, field["a"].second_games) == (1, 0)
    tables = next_round(FOUR, [ROUND_ONE], sides, 2, "s").tables
    assert set(tables) == {Table(1, first="c", second="a"), Table(2, first="b", second="d")}


def test_a_player_who_dropped_is_not_paired_after_the_round_he_dropped_in() -> None:
    entrants = [Entrant("a", dropped_after_round=1), *(Entrant(p) for p in "bcde")]
    rounds: list[Round] = [[Match("a", "b", 1, 0), Match("c", "d", 1, 0), Bye("e")]]
    pairing = next_round(entrants, rounds, {}, 2, "s")
    assert pairing.players() == {"b", "c", "d", "e"} and pairing.bye is None


def test_a_late_entry_is_left_out_until_his_round_then_enters_with_losses() -> None:
    entrants = [*FOUR, Entrant("late", entered_round=3), Entrant("z", entered_round=2)]
    assert "late" not in next_round(entrants[:4], [], {}, 1, "s").players()
    round_two = pairables(entrants, [ROUND_ONE], {}, 2, "s")
    assert "late" not in {p.player for p in round_two}
    z = next(p for p in round_two if p.player == "z")
    assert z.points == 0 and z.met == set()  # T9: a match loss for round one, no opponent
    assert round_two[-1].player == "z"  # below b and d: same points, worse GW


def test_the_same_records_and_seed_pair_the_same_way() -> None:
    assert next_round(FOUR, [ROUND_ONE], {}, 2, "a") == next_round(FOUR, [ROUND_ONE], {}, 2, "a")


def test_the_round_to_pair_must_follow_the_rounds_played() -> None:
    for wrong in (1, 3, 0):
        with pytest.raises(ValueError, match=rf"round_number {wrong}: 1 round\(s\) played.*T4"):
            next_round(FOUR, [ROUND_ONE], {}, wrong, "s")


def test_side_counts_of_an_unknown_player_or_negative_counts_are_refused() -> None:
    with pytest.raises(ValueError, match=r"sides: 'x' is not a registered player \(T5\)"):
        next_round(FOUR, [ROUND_ONE], {"x": (1, 0)}, 2, "s")
    for bad in [(-1, 0), (1,), (1, 2, 3), [1, 0]]:
        with pytest.raises(ValueError, match=r"sides: 'a' has .*counted from 0 \(T5\)"):
            next_round(FOUR, [ROUND_ONE], {"a": bad}, 2, "s")  # type: ignore[dict-item]


def test_records_the_standings_refuse_are_refused() -> None:
    with pytest.raises(ValueError, match="not a registered player"):
        next_round(FOUR, [[Match("a", "x", 1, 0), Match("c", "d", 1, 0)]], {}, 2, "s")


def test_fewer_than_two_players_left_is_refused() -> None:
    entrants = [Entrant("a"), Entrant("b", dropped_after_round=1)]
    with pytest.raises(ValueError, match="at least two"):
        next_round(entrants, [[Match("a", "b", 1, 0)]], {}, 2, "s")


# --- simulated events: every round keeps the rules ----------------------------------------


def check_simulation(sim: Simulation) -> None:
    """T4, T5, T9 after every round of a simulated event; exhaustively on rounds of <= 11."""
    by_id = {e.player: e for e in sim.entrants}
    for number, (field, pairing) in enumerate(zip(sim.fields, sim.pairings, strict=True), 1):
        active = {p for p, e in by_id.items() if e.is_active_in(number)}
        assert {p.player for p in field} == active  # T9: the dropped and the later out
        placed = [p for t in pairing.tables for p in (t.first, t.second)]
        placed += [] if pairing.bye is None else [pairing.bye]
        assert len(placed) == len(set(placed)) and set(placed) == active  # once each
        assert (pairing.bye is not None) == (len(field) % 2 == 1)  # one bye, only if odd
        if number == 1:
            continue  # round one is random from the seed (T4)
        pairs = pairs_of(pairing)
        if pairing.bye is not None:
            assert pairing.bye in eligible_for_bye(field)
            lowest = eligible_for_bye(field)[-1]
            if pairing.bye != lowest:  # moved up only if the lowest's bye forces a rematch
                assert not has_rematch_free_round([p for p in field if p.player != lowest])
        if rematches(field, pairs):
            assert not has_rematch_free_round(field)
        if len(field) <= 11:  # every pairing of the round: rematches, bye, groups, steps
            assert quality(field, pairs, pairing.bye) == best_quality_by_brute_force(field)
        check_sides(field, pairing)


def check_sides(field: Sequence[Pairable], pairing: Pairing) -> None:
    """T5: whoever owes the second side takes it; two players owing the same side meet only
    if every other pairing is worse on a rule above sides (checked where it is cheap)."""
    by_id = {p.player: p for p in field}
    for t in pairing.tables:
        first, second = by_id[t.first], by_id[t.second]
        assert first.side_balance <= second.side_balance
        if first.side_balance >= 1 or second.side_balance <= -1:
            assert first.side_balance * second.side_balance > 0


def events(count: int, seed: str, smallest: int, largest: int) -> list[Simulation]:
    rng = random.Random(seed)
    out = []
    for k in range(count):
        players = rng.randint(smallest, largest)
        out.append(
            simulate(
                players,
                rng.randint(3, 7),
                f"{seed}-{k}",
                drops=rng.randint(0, min(3, players - 2)),
                late=rng.randint(0, 3),
            )
        )
    return out


@pytest.mark.parametrize("batch", range(4))
def test_every_round_of_simulated_events_of_8_to_64_players_keeps_the_rules(batch: int) -> None:
    for sim in events(10, f"batch-{batch}", 8, 64):
        check_simulation(sim)


@pytest.mark.parametrize("batch", range(4))
def test_every_round_of_small_simulated_events_is_the_best_of_every_possible_pairing(
    batch: int,
) -> None:
    for sim in events(12, f"small-{batch}", 8, 11):
        check_simulation(sim)


@pytest.mark.fuzz
def test_every_round_of_a_hundred_more_simulated_events_keeps_the_rules() -> None:
    for sim in events(60, "fuzz", 8, 64) + events(40, "fuzz-small", 8, 11):
        check_simulation(sim)


def test_a_simulated_event_counts_its_figures() -> None:
    sim = simulate(9, 5, "figures", drops=2, late=2)
    assert sim.rounds_paired == 5 == len(sim.rounds)
    assert sim.byes == sum(1 for p in sim.pairings if p.bye is not None)
    assert sim.rematches == sum(
        rematches(f, pairs_of(p)) for f, p in zip(sim.fields, sim.pairings, strict=True)
    )
    assert sim.rematches_avoided == sim.naive_rematches - sim.rematches >= 0
    assert [s.player for s in sim.standings()] != []


def test_the_same_seed_plays_the_same_event() -> None:
    assert simulate(12, 4, "x", drops=1, late=1) == simulate(12, 4, "x", drops=1, late=1)
    assert simulate(12, 4, "x") != simulate(12, 4, "y")


def test_a_simulation_that_cannot_be_played_is_refused() -> None:
    with pytest.raises(ValueError, match="at least two players"):
        simulate(3, 3, "s", drops=2)
    with pytest.raises(ValueError, match="at least one round"):
        simulate(8, 0, "s")
    with pytest.raises(ValueError, match="no round to enter late"):
        simulate(8, 1, "s", late=1)


# --- a broken pairer is caught ------------------------------------------------------------


def in_standings_order(field: Sequence[Pairable], number: int, seed: str) -> Pairing:
    """1-2, 3-4, ...: rematches whenever the order repeats one; the last one has the bye."""
    order = [p.player for p in field]
    bye = order.pop() if len(order) % 2 else None
    tables = tuple(Table(k + 1, order[2 * k], order[2 * k + 1]) for k in range(len(order) // 2))
    return Pairing(number, tables, bye)


def bye_to_the_top(field: Sequence[Pairable], number: int, seed: str) -> Pairing:
    """Right but for the bye, swapped with the best-ranked player."""
    pairing = pair_round(field, number, seed)
    if pairing.bye is None:
        return pairing
    top, bye = field[0].player, pairing.bye
    swap = {top: bye, bye: top}
    tables = tuple(
        Table(t.number, swap.get(t.first, t.first), swap.get(t.second, t.second))
        for t in pairing.tables
    )
    return Pairing(number, tables, top)


def sides_reversed(field: Sequence[Pairable], number: int, seed: str) -> Pairing:
    pairing = pair_round(field, number, seed)
    tables = tuple(Table(t.number, t.second, t.first) for t in pairing.tables)
    return replace(pairing, tables=tables)


def score_groups_ignored(field: Sequence[Pairable], number: int, seed: str) -> Pairing:
    return pair_round([replace(p, points=0) for p in field], number, seed)


@pytest.mark.parametrize(
    "broken", [in_standings_order, bye_to_the_top, sides_reversed, score_groups_ignored]
)
def test_a_pairer_that_breaks_a_rule_fails_the_checks(broken: Pairer) -> None:
    with pytest.raises(AssertionError):
        for k in range(8):
            check_simulation(simulate(9 + k % 3, 5, f"broken-{k}", drops=1, late=1, pairer=broken))
