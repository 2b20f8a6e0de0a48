"""An event's export (T12): one file with the event's log, every game's log and the standings,
and its offline check.

The format, ``hz-event/1``, is JSON lines (docs/events.md "The export file"):

1. a header: ``{"format": "hz-event/1", "event": ID, "public_key": B64, "fingerprint": FP}``;
2. the event's records, in order, one a line: ``{"record": RECORD}`` (RECORD as in a game's
   export, :meth:`referee.log.Record.to_json`, whole: no cut);
3. each game of the event, in the order the event made them, one a line:
   ``{"game": GAME_ID, "log": TEXT}`` where TEXT is that game's full judge's export
   (``hz-log/2``, :meth:`referee.service.Referee.export`);
4. the standings as computed, one line: ``{"standings": [ROW...]}`` with each row's
   ``rank``, ``player``, ``name``, ``points``, ``record`` (``W-L-D``) and the exact fractions
   ``omw``, ``gw``, ``ogw`` (``"n/d"``), ``dropped``.

:func:`verify_event_export` checks the file offline: the event's chain and signatures, the fold
of its records (which recomputes every pairing from the records and the seed and refuses one
that differs), each game's log (chain, signatures, the game's rules: as ``referee verify``),
that every game the event names is there, signed by the same key, and holds the head its
``result`` names, that no other game is there, and that the standings recomputed from the
records are the file's. It names the first thing that is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from referee.event.log import FORMAT, store_id, verify_event_log
from referee.event.standings import Standing
from referee.event.state import EventState
from referee.jsonin import loads_strict
from referee.keys import fingerprint_of, parse_public_key
from referee.log import Record, read_lines, verify
from referee.service import Referee

MAX_EXPORT_LINE = 300_000_000


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def standings_rows(state: EventState) -> list[dict[str, Any]]:
    """The standings as the export writes them (exact fractions)."""
    names = {p.id: p.name for p in state.players}
    return [_row(s, names) for s in state.standings]


def _row(s: Standing, names: dict[str, str]) -> dict[str, Any]:
    return {
        "rank": s.rank,
        "player": s.player,
        "name": names.get(s.player, s.player),
        "points": s.match_points,
        "record": str(s.record),
        "omw": _frac(s.omw),
        "gw": _frac(s.gw),
        "ogw": _frac(s.ogw),
        "dropped": s.dropped,
    }


def event_games(state: EventState) -> list[str]:
    """Every game the event made, in order (round, table, game)."""
    return [g for r in state.rounds for t in r.tables for g in t.games]


def export_event(ref: Referee, state: EventState) -> str:
    """The export text of the event ``state`` (see the module's docstring), its logs read
    from ``ref``."""
    event = state.event
    lines = [
        json.dumps(
            {
                "format": FORMAT,
                "event": event,
                "public_key": ref.signer.public_b64,
                "fingerprint": ref.signer.fingerprint,
            },
            sort_keys=True,
        )
    ]
    for r in ref.store.records(store_id(event)):
        lines.append(json.dumps({"record": r.to_json()}, sort_keys=True, ensure_ascii=False))
    for g in event_games(state):
        lines.append(json.dumps({"game": g, "log": ref.export(g, "judge")}, sort_keys=True))
    lines.append(json.dumps({"standings": standings_rows(state)}, sort_keys=True))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class EventVerification:
    """What :func:`verify_event_export` found: ``ok``, or ``problem`` naming where."""

    ok: bool
    problem: str = ""
    event: str = ""
    records: int = 0
    games: int = 0
    players: int = 0
    rounds: int = 0
    fingerprint: str = ""

    def message(self) -> str:
        if not self.ok:
            return f"NOT intact: {self.problem}"
        return (
            f"intact: event {self.event}, {self.records} records, {self.games} games, "
            f"{self.players} players, {self.rounds} rounds; hash chains and signatures "
            f"verified (key {self.fingerprint}); pairings and standings recomputed from the "
            "records and the seed agree"
        )


def _bad(problem: str, **kw: Any) -> EventVerification:
    return EventVerification(False, problem, **kw)


def verify_event_export(text: str) -> EventVerification:
    """Checks an event's export offline (see the module's docstring)."""
    header: dict[str, Any] | None = None
    records: list[Record] = []
    games: dict[str, str] = {}
    order: list[str] = []
    standings: list[Any] | None = None
    for ln, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = loads_strict(line, f"line {ln}", max_bytes=MAX_EXPORT_LINE, max_depth=40)
        except ValueError as e:
            return _bad(str(e))
        if not isinstance(raw, dict):
            return _bad(f"line {ln}: not a JSON object")
        if header is None:
            if raw.get("format") != FORMAT or set(raw) != {
                "format",
                "event",
                "public_key",
                "fingerprint",
            }:
                return _bad(f"line {ln}: the first line must be the {FORMAT} header")
            header = raw
            continue
        if set(raw) == {"record"}:
            if games or standings is not None:
                return _bad(f"line {ln}: an event record after the games")
            try:
                records.append(Record.from_json(raw["record"]))
            except ValueError as e:
                return _bad(f"line {ln}: event record: {e}")
        elif set(raw) == {"game", "log"}:
            g, log = raw["game"], raw["log"]
            if not isinstance(g, str) or not isinstance(log, str):
                return _bad(f"line {ln}: a game's line holds its id and its log as text")
            if g in games:
                return _bad(f"line {ln}: game {g!r} is in the file twice")
            games[g] = log
            order.append(g)
        elif set(raw) == {"standings"}:
            standings = raw["standings"]
        else:
            return _bad(f"line {ln}: not a record, a game or the standings")
    if header is None:
        return _bad("the file is empty")
    event, pk, fp = header["event"], header["public_key"], header["fingerprint"]
    try:
        if fingerprint_of(parse_public_key(str(pk))) != fp:
            return _bad("the header's fingerprint is not that of its public key")
    except ValueError as e:
        return _bad(f"header: {e}")
    check = verify_event_log(str(event), str(pk), records)
    if not check.ok or check.state is None:
        where = f"event record {check.bad_seq}: " if check.bad_seq is not None else ""
        return _bad(f"{where}{check.problem}", event=str(event), fingerprint=str(fp))
    state = check.state
    kw: dict[str, Any] = {"event": str(event), "fingerprint": str(fp)}
    named = event_games(state)
    for g in named:
        if g not in games:
            return _bad(f"game {g} of the event is not in the file (removed)", **kw)
    for g in order:
        if g not in named:
            return _bad(f"game {g} is not a game of the event", **kw)
    reported: dict[str, tuple[str, str | None]] = {}  # game -> (head, winner's seat)
    for rnd in state.rounds:
        for t in rnd.tables:
            for g, first, r in zip(t.games, t.firsts, t.results, strict=False):
                if r.head and r.source == "referee" and not r.corrected:
                    seat = None if r.winner is None else 0 if r.winner == first else 1
                    reported[g] = (r.head, None if seat is None else str(seat))
    for g in named:
        problem = _check_game(g, games[g], str(fp), reported.get(g))
        if problem:
            return _bad(f"game {g}: {problem}", **kw)
    if standings is None:
        return _bad("the file has no standings", **kw)
    want = standings_rows(state)
    if standings != want:
        for i, (a, b) in enumerate(zip(want, standings, strict=False)):
            if a != b:
                return _bad(
                    f"standings: row {i + 1} is {_show(b)}, but the records give {_show(a)}",
                    **kw,
                )
        return _bad(
            f"standings: {len(standings)} rows, but the records give {len(want)}",
            **kw,
        )
    return EventVerification(
        True,
        "",
        str(event),
        len(records),
        len(named),
        len(state.players),
        len(state.rounds),
        str(fp),
    )


def _show(row: Any) -> str:
    return json.dumps(row, sort_keys=True)[:200]


def _check_game(
    game: str, text: str, fingerprint: str, reported: tuple[str, str | None] | None
) -> str:
    """What is wrong with one game's log in the export ("" when nothing). ``reported``: the
    final head and the winner (the index of his seat, None for a draw) of the event's result
    reported by the referee for this game (T8), when it has one."""
    from referee.fold import fold
    from referee.games import game_of
    from referee.views import cutter

    try:
        h, recs = read_lines(text)
    except ValueError as e:
        return str(e)
    if h.game != game or h.seat != "judge":
        return f"its log is {h.game}'s cut for {h.seat}, not the judge's full log of {game}"
    if not recs:
        return "its log has no records"
    try:
        module = game_of(recs[0].body)
    except Exception as e:
        return f"record 0: {e}"
    v = verify(h, recs, may_cut=cutter(module), key=fingerprint)
    if not v.ok:
        return v.message()
    if reported is None:
        try:
            fold(recs, verified=False)
        except Exception as e:
            return f"its records do not replay under the game's rules ({type(e).__name__}: {e})"
        return ""
    head, winner = reported
    seq_text, _, hash_ = head.partition(":")
    if not seq_text.isdigit():
        return f"its result names the head {head[:80]!r}, which is not SEQ:HASH"
    upto = [r for r in recs if r.seq <= int(seq_text)]
    if not upto or upto[-1].seq != int(seq_text) or upto[-1].hash != hash_:
        return f"its log does not hold the final head {head} its result names"
    try:
        f = fold(upto, verified=False)
    except Exception as e:
        return f"its records do not replay under the game's rules ({type(e).__name__}: {e})"
    won = module.summary(f.state).winner
    seat = None if won is None else str(module.players.index(won))
    if seat != winner:
        return (
            f"the event's result names the {_seat_words(winner)} as the winner, but at its head "
            f"{head} the game's winner is the {_seat_words(seat)}"
        )
    return ""


def _seat_words(seat: str | None) -> str:
    return {"0": "first seat", "1": "second seat"}.get(str(seat), "nobody (a draw)")
