"""What each reader of an event may see (T13), cut from the whole :class:`EventState`.

- :func:`public_view`: pairings, results, standings and clocks: what the projector and anyone
  may see. No penalty (not even a count), no code, no dispute note.
- :func:`player_view`: the public view, plus his own penalties and (filled in by the service,
  :meth:`referee.event.service.Events.seat_link`) his own seat link. Never another's.

The judge and the organiser read the :class:`EventState` itself. Both views are plain JSON
(dicts, lists, strings, numbers), ready for a page or the API.
"""

from __future__ import annotations

from typing import Any

from referee.event.standings import Standing
from referee.event.state import EventState, Round, Table


def _standing(s: Standing, names: dict[str, str]) -> dict[str, Any]:
    return {
        "rank": s.rank,
        "player": s.player,
        "name": names.get(s.player, s.player),
        "points": s.match_points,
        "record": str(s.record),
        "omw": s.omw_text,
        "gw": s.gw_text,
        "ogw": s.ogw_text,
        "dropped": s.dropped,
    }


def _table(t: Table, names: dict[str, str], sides: dict[str, tuple[int, int]]) -> dict[str, Any]:
    return {
        "table": t.table,
        "first": t.first,
        "second": t.second,
        "names": [names.get(t.first, t.first), names.get(t.second, t.second)],
        "sides": [list(sides.get(t.first, (0, 0))), list(sides.get(t.second, (0, 0)))],
        "games": list(t.games),
        "firsts": list(t.firsts),
        "results": [
            {
                "number": r.number,
                "winner": r.winner,
                "reason": r.reason,
                # a penalty's result shows as the judge's: the penalty is not public (T13)
                "source": "judge" if r.source == "penalty" else r.source,
                "head": r.head,
                "final": r.final,
                "confirmed": list(r.confirmed),
                "disputed": bool(r.disputed),
                "corrected": len(r.corrected),
            }
            for r in t.results
        ],
        "extensions": [{"minutes": e.minutes, "reason": e.reason} for e in t.extensions],
        "deadline": t.deadline,
        "match": None
        if t.match is None
        else {
            "first_wins": t.match.first_wins,
            "second_wins": t.match.second_wins,
            "draws": t.match.draws,
        },
    }


def _round(r: Round, names: dict[str, str], sides: dict[str, tuple[int, int]]) -> dict[str, Any]:
    return {
        "number": r.number,
        "started_at": r.started_at,
        "finished": r.finished,
        "bye": r.bye,
        "tables": [_table(t, names, sides) for t in r.tables],
        "changes": list(r.pair_reasons),
    }


def public_view(state: EventState) -> dict[str, Any]:
    """The event as anyone may see it (T13): no penalties, no codes, no dispute notes."""
    s = state.settings
    names = {p.id: p.name for p in state.players}
    sides = dict(state.sides)
    return {
        "event": s.event,
        "name": s.name,
        "game": s.game,
        "format": s.format,
        "rounds": s.rounds,
        "round_minutes": s.round_minutes,
        "top_cut": s.top_cut,
        "seed": s.seed,
        "self_register": s.self_register,
        "phase": state.phase,
        "round": state.round.number if state.round else 0,
        "over": state.over,
        "head": None if state.head is None else f"{state.head[0]}:{state.head[1]}",
        "players": [
            {
                "player": p.id,
                "name": p.name,
                "checked_in": p.checked_in,
                "entered_round": p.entered_round,
                "dropped_after_round": p.dropped_after_round,
            }
            for p in state.players
        ],
        "pairings": [_round(r, names, sides) for r in state.rounds],
        "standings": [_standing(x, names) for x in state.standings],
        "cut": None
        if state.cut is None
        else [
            {
                "higher_seed": c.higher_seed,
                "higher": c.higher,
                "lower_seed": c.lower_seed,
                "lower": c.lower,
            }
            for c in state.cut.pairings
        ],
    }


def player_view(state: EventState, player: str) -> dict[str, Any]:
    """The event as ``player`` sees it: the public view, his own table, record and
    penalties (T11, T13); ``seat_link`` is None here (the service fills it in)."""
    p = state.player(player)
    out = public_view(state)
    t = state.table_of(player)
    me = next((x for x in state.standings if x.player == player), None)
    out["me"] = {
        "player": p.id,
        "name": p.name,
        "checked_in": p.checked_in,
        "dropped_after_round": p.dropped_after_round,
        "table": None if t is None else t.table,
        "opponent": None if t is None else (t.second if t.first == player else t.first),
        "bye": state.round is not None and state.round.bye == player,
        "record": None if me is None else str(me.record),
        "rank": None if me is None else me.rank,
        "penalties": [
            {
                "round": x.round,
                "infraction": x.infraction,
                "penalty": x.penalty,
                "reason": x.reason,
                "judge": x.judge,
            }
            for x in p.penalties
        ],
        "seat_link": None,
    }
    return out
