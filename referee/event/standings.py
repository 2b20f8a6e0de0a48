"""An event's standings, computed from its players and the results of its rounds (T2, T3, T9, T10).

Pure: no clock, no I/O, no randomness but the event's recorded seed. The tiebreakers follow
the published Magic: The Gathering tournament rules (Appendix C), as TOURNAMENT.md says:

- match points: a match win 3, a draw 1, a loss 0 (T2); a bye is a match win, two games to none;
- match-win percentage (MW): match points / (3 x rounds played);
- game-win percentage (GW): game points / (3 x games played), a game won 3, a game drawn 1;
- OMW and OGW: the average of the opponents' MW and GW, each taken no lower than 1/3 (T3);
  a bye gives no opponent, nor does a late entry's loss for a missed round (T9); a player met
  twice counts twice (one entry per match);
- a player's own GW is shown as it is, without the floor.

Project rulings where the rules leave a value undefined: a percentage with nothing to divide by
(no opponents for OMW/OGW, no games for GW, no rounds for MW) is 1/3, the floor.

A late entry (T9) takes a match loss, 0-2 in games and no opponent, for each round he missed;
a dropped player is not in the rounds after his drop, and his results keep counting for his
opponents. Dropped players stay in the standings, marked, but are never in a top cut (T10).

Every input error raises :class:`ValueError` naming the input and the rule; nothing is computed
from a half-valid input.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

FLOOR = Fraction(1, 3)
"""The lowest a percentage counts for a player's opponents (T3); also the project's value for
a percentage with nothing to divide by."""

MATCH_WIN, MATCH_DRAW = 3, 1  # T2
GAME_WIN, GAME_DRAW = 3, 1  # T3 (Appendix C)
BYE_GAMES_WON = 2  # T2: a bye is two games won, none lost
LATE_GAMES_LOST = 2  # T9: a missed round is a match loss, 0-2 in games


@dataclass(frozen=True)
class Entrant:
    """A registered player. ``entered_round`` > 1 is a late entry (T9); ``dropped_after_round``
    is the last round he played (he is in no later round, T9), ``None`` while he plays on."""

    player: str
    entered_round: int = 1
    dropped_after_round: int | None = None

    def is_active_in(self, round_number: int) -> bool:
        """Whether he is paired in that round (entered, not yet dropped)."""
        return self.entered_round <= round_number and (
            self.dropped_after_round is None or round_number <= self.dropped_after_round
        )


@dataclass(frozen=True)
class Match:
    """One match of a round (T1): games won by each player and games drawn.

    Best of one is 1-0, 0-1 or 0-0 with one drawn game; best of three lets each player win
    up to two games. More games won wins the match; equal games won is a drawn match (T6).
    """

    first: str
    second: str
    first_wins: int
    second_wins: int
    draws: int = 0

    @property
    def games(self) -> int:
        """Games played in the match."""
        return self.first_wins + self.second_wins + self.draws


@dataclass(frozen=True)
class Bye:
    """A bye (T2): a match win for ``player``, two games to none, no opponent."""

    player: str


Pairing = Match | Bye
Round = Sequence[Pairing]


@dataclass(frozen=True)
class Record:
    """Matches won, lost and drawn, shown as ``wins-losses-draws``."""

    wins: int
    losses: int
    draws: int

    def __str__(self) -> str:
        return f"{self.wins}-{self.losses}-{self.draws}"


@dataclass(frozen=True)
class Standing:
    """One row of the standings (T3). The percentages are exact; ``*_text`` is how they show."""

    rank: int
    player: str
    match_points: int
    record: Record
    omw: Fraction
    gw: Fraction
    ogw: Fraction
    dropped: bool

    @property
    def omw_text(self) -> str:
        return percent(self.omw)

    @property
    def gw_text(self) -> str:
        return percent(self.gw)

    @property
    def ogw_text(self) -> str:
        return percent(self.ogw)


@dataclass(frozen=True)
class CutPairing:
    """A match of a top cut's first round (T10); the higher seed chooses his side."""

    higher_seed: int
    higher: str
    lower_seed: int
    lower: str


def percent(value: Fraction) -> str:
    """A fraction as a percentage with two decimals, half rounded up: 2/3 -> ``"66.67%"``."""
    hundredths = math.floor(value * 10000 + Fraction(1, 2))
    return f"{hundredths // 100}.{hundredths % 100:02d}%"


@dataclass
class _Tally:
    rounds: int = 0
    match_points: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    game_points: int = 0
    games: int = 0

    def add(self, won: int, lost: int, drawn: int) -> None:
        self.rounds += 1
        self.game_points += GAME_WIN * won + GAME_DRAW * drawn
        self.games += won + lost + drawn
        if won > lost:
            self.wins += 1
            self.match_points += MATCH_WIN
        elif won < lost:
            self.losses += 1
        else:
            self.draws += 1
            self.match_points += MATCH_DRAW


def _ratio(points: int, count: int) -> Fraction:
    return Fraction(points, 3 * count) if count else FLOOR


def _mean(values: list[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values) if values else FLOOR


def _check_entrants(entrants: Sequence[Entrant], rounds_played: int) -> None:
    seen: set[str] = set()
    for e in entrants:
        if not isinstance(e.player, str) or not e.player:
            raise ValueError(f"entrant {e!r}: a player needs a non-empty id (T12 registration)")
        if e.player in seen:
            raise ValueError(f"entrant {e.player!r} is registered twice (T12 registration)")
        seen.add(e.player)
        for name in ("entered_round", "dropped_after_round"):
            value = getattr(e, name)
            if value is not None and type(value) is not int:
                raise ValueError(
                    f"entrant {e.player!r}: {name} {value!r} is not a round number (T9)"
                )
        if not 1 <= e.entered_round <= rounds_played + 1:
            raise ValueError(
                f"entrant {e.player!r}: entered_round {e.entered_round} must be between 1 and "
                f"{rounds_played + 1}, the next round (T9 late entry)"
            )
        if e.dropped_after_round is not None and not (
            e.entered_round - 1 <= e.dropped_after_round <= rounds_played
        ):
            raise ValueError(
                f"entrant {e.player!r}: dropped_after_round {e.dropped_after_round} must be "
                f"between {e.entered_round - 1} (before his first round) and {rounds_played} "
                "(the last round played) (T9 drop)"
            )


def _check_match(m: Match, where: str) -> None:
    for name in ("first_wins", "second_wins", "draws"):
        value = getattr(m, name)
        if type(value) is not int or value < 0:
            raise ValueError(f"{where}: {name} is {value!r}; games are counted from 0 (T1)")
    if m.first == m.second:
        raise ValueError(f"{where}: {m.first!r} cannot play himself (T4)")
    if m.first_wins > 2 or m.second_wins > 2 or (m.first_wins == 2 and m.second_wins == 2):
        raise ValueError(
            f"{where}: {m.first_wins}-{m.second_wins} in games; a match is best of one or "
            "best of three, so it ends when a player has won two games (T1)"
        )


def _check_rounds(entrants: Sequence[Entrant], rounds: Sequence[Round]) -> None:
    by_id = {e.player: e for e in entrants}
    for index, pairings in enumerate(rounds):
        number = index + 1
        seen: set[str] = set()
        for pairing in pairings:
            where = f"round {number}, {pairing!r}"
            if isinstance(pairing, Match):
                _check_match(pairing, where)
                players = [pairing.first, pairing.second]
            elif isinstance(pairing, Bye):
                players = [pairing.player]
            else:
                raise ValueError(f"{where}: a round holds matches and byes only (T2)")
            for player in players:
                if player not in by_id:
                    raise ValueError(
                        f"{where}: {player!r} is not a registered player (T12 registration)"
                    )
                if player in seen:
                    raise ValueError(
                        f"{where}: {player!r} already has a match or a bye in round {number}; "
                        "a player plays once a round (T4)"
                    )
                seen.add(player)
                entrant = by_id[player]
                if not entrant.is_active_in(number):
                    raise ValueError(
                        f"{where}: {player!r} is not in round {number} (entered round "
                        f"{entrant.entered_round}, dropped after "
                        f"{entrant.dropped_after_round}) (T9)"
                    )
        missing = [e.player for e in entrants if e.is_active_in(number) and e.player not in seen]
        if missing:
            raise ValueError(
                f"round {number}: no match or bye for {', '.join(map(repr, missing))}; every "
                "player in the event has one each round until he drops (T9)"
            )


def seed_key(seed: str | int, player: str) -> bytes:
    """The order a tie that survives all four tiebreakers falls in (T3): a hash of the
    event's seed and the player, so the same seed always gives the same order."""
    kind = "int" if isinstance(seed, int) else "str"
    return hashlib.sha256(f"{kind}:{seed}\x00{player}".encode()).digest()


def compute_standings(
    entrants: Sequence[Entrant], rounds: Sequence[Round], seed: str | int
) -> tuple[Standing, ...]:
    """The standings after ``rounds`` (round 1 first), best first, in T3 order.

    Raises:
        ValueError: an unknown or twice-registered player, a player twice in a round or in a
            round he was not in (late entry, drop: T9), a player missing from a round, a
            negative or impossible count of games (T1), a seed that is neither str nor int.
    """
    if isinstance(seed, bool) or not isinstance(seed, (str, int)):
        raise ValueError(f"seed {seed!r}: the event's seed is a string or an integer (T3)")
    _check_entrants(entrants, len(rounds))
    _check_rounds(entrants, rounds)

    tally = {e.player: _Tally() for e in entrants}
    opponents: dict[str, list[str]] = {e.player: [] for e in entrants}
    for e in entrants:
        for _missed in range(e.entered_round - 1):
            tally[e.player].add(0, LATE_GAMES_LOST, 0)  # T9
    for pairings in rounds:
        for pairing in pairings:
            if isinstance(pairing, Bye):
                tally[pairing.player].add(BYE_GAMES_WON, 0, 0)  # T2
            else:
                tally[pairing.first].add(pairing.first_wins, pairing.second_wins, pairing.draws)
                tally[pairing.second].add(pairing.second_wins, pairing.first_wins, pairing.draws)
                opponents[pairing.first].append(pairing.second)
                opponents[pairing.second].append(pairing.first)

    mw = {p: _ratio(t.match_points, t.rounds) for p, t in tally.items()}
    gw = {p: _ratio(t.game_points, t.games) for p, t in tally.items()}
    omw = {p: _mean([max(FLOOR, mw[o]) for o in opponents[p]]) for p in tally}
    ogw = {p: _mean([max(FLOOR, gw[o]) for o in opponents[p]]) for p in tally}

    def order(e: Entrant) -> tuple[int, Fraction, Fraction, Fraction, bytes]:
        p = e.player
        return (-tally[p].match_points, -omw[p], -gw[p], -ogw[p], seed_key(seed, p))

    ranked = sorted(entrants, key=order)
    return tuple(
        Standing(
            rank=i + 1,
            player=e.player,
            match_points=tally[e.player].match_points,
            record=Record(tally[e.player].wins, tally[e.player].losses, tally[e.player].draws),
            omw=omw[e.player],
            gw=gw[e.player],
            ogw=ogw[e.player],
            dropped=e.dropped_after_round is not None,
        )
        for i, e in enumerate(ranked)
    )


_BRACKETS: dict[int, tuple[tuple[int, int], ...]] = {
    4: ((1, 4), (2, 3)),
    8: ((1, 8), (4, 5), (2, 7), (3, 6)),
}


def top_cut(standings: Sequence[Standing], size: Literal[4, 8]) -> tuple[CutPairing, ...]:
    """The first round of a single-elimination top cut (T10), in bracket order: the winners of
    the first two matches meet, then those of the next two. Dropped players are passed over,
    the next in the standings moving up; seeds are places among those who play on.

    Raises:
        ValueError: a size other than 4 or 8, or fewer players left than the cut holds.
    """
    if size not in _BRACKETS:
        raise ValueError(f"top cut size {size!r}: a top cut is of 4 or 8 players (T10)")
    playing = [s for s in sorted(standings, key=lambda s: s.rank) if not s.dropped][:size]
    if len(playing) < size:
        raise ValueError(f"top cut of {size}: only {len(playing)} players have not dropped (T10)")
    return tuple(
        CutPairing(high, playing[high - 1].player, low, playing[low - 1].player)
        for high, low in _BRACKETS[size]
    )
