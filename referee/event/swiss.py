"""The next round of a Swiss event, from what the event records (T3, T4, T5, T9).

The standings (:mod:`referee.event.standings`) know the registered players (``Entrant``: the round
he entered, the round after which he dropped) and the rounds played; the pairing
(:mod:`referee.event.pairing`) takes the active players best first, each a ``Pairable`` (points,
who he met, whether he had a bye, his side counts). :func:`next_round` is the one way from the
first to the second: no caller builds a ``Pairable`` by hand.

Pure: no clock, no I/O, no randomness but the event's recorded seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from referee.event.pairing import Pairable, Pairing, pair_round
from referee.event.standings import Bye, Entrant, Match, Round, compute_standings


def pairables(
    entrants: Sequence[Entrant],
    rounds: Sequence[Round],
    sides: Mapping[str, tuple[int, int]],
    round_number: int,
    seed: str,
) -> tuple[Pairable, ...]:
    """The players of round ``round_number`` as the pairing sees them, best first (T3).

    ``rounds`` are the rounds played so far (round 1 first); ``round_number`` must be the next
    one. ``sides[player]`` is (games as the first seat, games as the second seat) so far; a
    player missing from it has played neither (a late entry, round one).

    Left out: players who dropped before ``round_number`` (``dropped_after_round <
    round_number``, T9) and players who enter later (``entered_round > round_number``). A late
    entry comes in with a match loss for each round he missed: his points are the standings'
    (T9). Points, opponents met and byes come from the rounds; the order is
    :func:`~referee.event.standings.compute_standings`'s (T3).

    Raises:
        ValueError: ``round_number`` is not the round after those played; ``sides`` names a
            player who is not registered, or holds anything but two counts from 0 (T5); or
            anything :func:`~referee.event.standings.compute_standings` refuses.
    """
    if type(round_number) is not int or round_number != len(rounds) + 1:
        raise ValueError(
            f"round_number {round_number!r}: {len(rounds)} round(s) played, so the next round "
            f"is {len(rounds) + 1} (T4)"
        )
    registered = {e.player for e in entrants}
    for player, counts in sides.items():
        if player not in registered:
            raise ValueError(f"sides: {player!r} is not a registered player (T5)")
        if (
            not isinstance(counts, tuple)
            or len(counts) != 2
            or any(type(c) is not int or c < 0 for c in counts)
        ):
            raise ValueError(
                f"sides: {player!r} has {counts!r}; (games as the first seat, games as the "
                "second seat), each counted from 0 (T5)"
            )
    present = [e for e in entrants if e.entered_round <= round_number]
    standings = compute_standings(present, rounds, seed)
    active = {e.player for e in present if e.is_active_in(round_number)}
    met: dict[str, set[str]] = {p: set() for p in registered}
    had_bye: set[str] = set()
    for pairings in rounds:
        for pairing in pairings:
            if isinstance(pairing, Bye):
                had_bye.add(pairing.player)
            elif isinstance(pairing, Match):
                met[pairing.first].add(pairing.second)
                met[pairing.second].add(pairing.first)
    return tuple(
        Pairable(
            player=s.player,
            points=s.match_points,
            met=frozenset(met[s.player]),
            had_bye=s.player in had_bye,
            first_games=sides.get(s.player, (0, 0))[0],
            second_games=sides.get(s.player, (0, 0))[1],
        )
        for s in standings
        if s.player in active
    )


def next_round(
    entrants: Sequence[Entrant],
    rounds: Sequence[Round],
    sides: Mapping[str, tuple[int, int]],
    round_number: int,
    seed: str,
) -> Pairing:
    """Pair round ``round_number`` of an event from its records (T4, T5, T9): the players of
    :func:`pairables`, best first, paired by :func:`~referee.event.pairing.pair_round`.

    Raises:
        ValueError: anything :func:`pairables` or :func:`~referee.event.pairing.pair_round`
            refuses (fewer than two players left, among others); nothing is paired.
    """
    return pair_round(pairables(entrants, rounds, sides, round_number, seed), round_number, seed)
