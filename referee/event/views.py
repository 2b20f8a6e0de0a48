"""What each reader of an event may see (T13), cut from the whole :class:`EventState`.

- :func:`public_view`: pairings, results, standings and clocks: what the projector and anyone
  may see. No penalty (not even a count; a penalty's result shows as the judge's), no code, no
  dispute note, no drop reason.
- :func:`player_view`: the public view and his own part: his table, opponent, record, his own
  penalties and (filled in by the service, :meth:`referee.event.service.Events.player`) his
  own seat link. Never another player's.

The judge and the organiser read the :class:`EventState` itself. Each view is one typed value
(msgspec structs, as :class:`referee.models.SeatView`): the pages read it, the API encodes it.
"""

from __future__ import annotations

import msgspec

from referee.event.standings import Standing
from referee.event.state import EventState, Round, Table


class StandingRow(msgspec.Struct, frozen=True, kw_only=True):
    """One row of the standings (T3), each tiebreaker shown as a percentage."""

    rank: int
    player: str
    name: str
    points: int
    record: str  # wins-losses-draws
    omw: str
    gw: str
    ogw: str
    dropped: bool


class ResultRow(msgspec.Struct, frozen=True, kw_only=True):
    """One game's result (T8). ``source``: referee, slip, time or judge."""

    number: int
    winner: str | None
    reason: str
    source: str
    head: str | None
    final: bool
    confirmed: list[str]
    disputed: bool
    corrected: int


class ExtensionRow(msgspec.Struct, frozen=True, kw_only=True):
    minutes: int
    reason: str


class MatchRow(msgspec.Struct, frozen=True, kw_only=True):
    first_wins: int
    second_wins: int
    draws: int


class TableRow(msgspec.Struct, frozen=True, kw_only=True):
    """One match: who plays, their side counts (T5: games as the first seat, as the second),
    its games, results, extensions (T7), deadline (T6) and the match once final."""

    table: int
    first: str
    second: str
    names: list[str]
    sides: list[list[int]]
    games: list[str]
    firsts: list[str]
    results: list[ResultRow]
    extensions: list[ExtensionRow]
    deadline: str | None
    match: MatchRow | None


class RoundRow(msgspec.Struct, frozen=True, kw_only=True):
    number: int
    started_at: str | None
    finished: bool
    bye: str | None
    tables: list[TableRow]
    changes: list[str]  # re-pairs and swaps, with their reasons
    cut: bool  # a round of the top cut (T10)


class PlayerRow(msgspec.Struct, frozen=True, kw_only=True):
    player: str
    name: str
    checked_in: bool
    entered_round: int
    dropped_after_round: int | None


class CutRow(msgspec.Struct, frozen=True, kw_only=True):
    higher_seed: int
    higher: str
    lower_seed: int
    lower: str


class PublicEvent(msgspec.Struct, frozen=True, kw_only=True):
    """The event as anyone may see it (T13)."""

    event: str
    name: str
    game: str
    format: str
    rounds: int | None
    round_minutes: int
    top_cut: int
    seed: str
    self_register: bool
    phase: str
    round: int
    over: bool
    head: str | None
    players: list[PlayerRow]
    pairings: list[RoundRow]
    standings: list[StandingRow]
    cut: list[CutRow] | None
    champion: str | None  # the top cut's winner (T10)


class PenaltyRow(msgspec.Struct, frozen=True, kw_only=True):
    round: int
    infraction: str
    penalty: str
    reason: str
    judge: str


class SeatLinkRow(msgspec.Struct, frozen=True, kw_only=True):
    """His current game, his seat and its join code: for him only (T13)."""

    game: str
    seat: str
    code: str


class Me(msgspec.Struct, frozen=True, kw_only=True):
    player: str
    name: str
    checked_in: bool
    dropped_after_round: int | None
    table: int | None
    opponent: str | None
    bye: bool
    record: str | None
    rank: int | None
    penalties: list[PenaltyRow]
    seat_link: SeatLinkRow | None = None


class PlayerEvent(msgspec.Struct, frozen=True, kw_only=True):
    """The event as one player sees it: the public view and his own part."""

    event: PublicEvent
    me: Me


def _standing(s: Standing, names: dict[str, str]) -> StandingRow:
    return StandingRow(
        rank=s.rank,
        player=s.player,
        name=names.get(s.player, s.player),
        points=s.match_points,
        record=str(s.record),
        omw=s.omw_text,
        gw=s.gw_text,
        ogw=s.ogw_text,
        dropped=s.dropped,
    )


def _table(t: Table, names: dict[str, str], sides: dict[str, tuple[int, int]]) -> TableRow:
    return TableRow(
        table=t.table,
        first=t.first,
        second=t.second,
        names=[names.get(t.first, t.first), names.get(t.second, t.second)],
        sides=[list(sides.get(t.first, (0, 0))), list(sides.get(t.second, (0, 0)))],
        games=list(t.games),
        firsts=list(t.firsts),
        results=[
            ResultRow(
                number=r.number,
                winner=r.winner,
                reason=r.reason,
                # a penalty's result shows as the judge's: the penalty is not public (T13)
                source="judge" if r.source == "penalty" else r.source,
                head=r.head,
                final=r.final,
                confirmed=list(r.confirmed),
                disputed=bool(r.disputed),
                corrected=len(r.corrected),
            )
            for r in t.results
        ],
        extensions=[ExtensionRow(minutes=e.minutes, reason=e.reason) for e in t.extensions],
        deadline=t.deadline,
        match=None
        if t.match is None
        else MatchRow(
            first_wins=t.match.first_wins,
            second_wins=t.match.second_wins,
            draws=t.match.draws,
        ),
    )


def _round(r: Round, names: dict[str, str], sides: dict[str, tuple[int, int]]) -> RoundRow:
    return RoundRow(
        number=r.number,
        started_at=r.started_at,
        finished=r.finished,
        bye=r.bye,
        tables=[_table(t, names, sides) for t in r.tables],
        changes=list(r.pair_reasons),
        cut=r.cut,
    )


def public_view(state: EventState) -> PublicEvent:
    """The event as anyone may see it (T13): no penalties, no codes, no dispute notes."""
    s = state.settings
    names = {p.id: p.name for p in state.players}
    sides = dict(state.sides)
    return PublicEvent(
        event=s.event,
        name=s.name,
        game=s.game,
        format=s.format,
        rounds=s.rounds,
        round_minutes=s.round_minutes,
        top_cut=s.top_cut,
        seed=s.seed,
        self_register=s.self_register,
        phase=state.phase,
        round=state.round.number if state.round else 0,
        over=state.over,
        head=None if state.head is None else f"{state.head[0]}:{state.head[1]}",
        players=[
            PlayerRow(
                player=p.id,
                name=p.name,
                checked_in=p.checked_in,
                entered_round=p.entered_round,
                dropped_after_round=p.dropped_after_round,
            )
            for p in state.players
        ],
        pairings=[_round(r, names, sides) for r in state.rounds],
        standings=[_standing(x, names) for x in state.standings],
        cut=None
        if state.cut is None
        else [
            CutRow(
                higher_seed=c.higher_seed,
                higher=c.higher,
                lower_seed=c.lower_seed,
                lower=c.lower,
            )
            for c in state.cut.pairings
        ],
        champion=state.champion,
    )


def player_view(
    state: EventState, player: str, seat_link: SeatLinkRow | None = None
) -> PlayerEvent:
    """The event as ``player`` sees it: the public view, his own table, record and
    penalties (T11, T13), and his seat link when the caller gives it. Raises Refused for a
    player not in the event."""
    p = state.player(player)
    t = state.table_of(player)
    me = next((x for x in state.standings if x.player == player), None)
    return PlayerEvent(
        event=public_view(state),
        me=Me(
            player=p.id,
            name=p.name,
            checked_in=p.checked_in,
            dropped_after_round=p.dropped_after_round,
            table=None if t is None else t.table,
            opponent=None if t is None else (t.second if t.first == player else t.first),
            bye=state.round is not None and state.round.bye == player,
            record=None if me is None else str(me.record),
            rank=None if me is None else me.rank,
            penalties=[
                PenaltyRow(
                    round=x.round,
                    infraction=x.infraction,
                    penalty=x.penalty,
                    reason=x.reason,
                    judge=x.judge,
                )
                for x in p.penalties
            ],
            seat_link=seat_link,
        ),
    )
