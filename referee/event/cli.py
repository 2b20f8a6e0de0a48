"""The ``referee event`` commands (issue 34), added to ``referee`` by :mod:`referee.cli`.

    referee event list [--db DB]               the events in a database
    referee event export EVENT [--db DB] [--out FILE]
                                               the event's export file (T12, hz-event/1)
    referee event verify FILE                  check an event's export offline: exit 0 when
                                               intact, 1 when not (naming what is wrong)
    referee event simulate [--players N] [--rounds R] [--seed S] [--game G] [--db DB]
                           [--out FILE]        run a whole event on the real service, results
                                               from random match slips, one drop; print the
                                               standings and where the database is

Exit status 2 with one line on stderr for bad input or a database that cannot be opened.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.anchors import AnchorError
from referee.errors import ServiceError
from referee.games import DEFAULT, GAMES
from referee.keys import KeyFileError
from referee.place import add_db_options, place_of
from referee.service import Referee, open_referee
from referee.store import StoreError

if TYPE_CHECKING:
    from referee.event.service import Events

MAX_EXPORT_BYTES = 2_000_000_000


def _events(ref: Referee) -> Events:
    """The events of ``ref``. The event modules (and networkx, which pairs) are imported here,
    when an event command runs, not when any ``referee`` command starts (``referee rule``)."""
    from referee.event.service import Events

    return Events(ref)


def _fail(message: str) -> int:
    print(f"referee: {message}", file=sys.stderr)
    return 2


def _open(db: str, state: str | None, *, readonly: bool) -> Referee | str:
    try:
        return open_referee(db, readonly=readonly, state=state)
    except (StoreError, KeyFileError, AnchorError) as e:
        return str(e)


def cmd_event_list(args: argparse.Namespace) -> int:
    ref = _open(args.db, args.state, readonly=True)
    if isinstance(ref, str):
        return _fail(ref)
    try:
        ev = _events(ref)
        for e in ev.events():
            st = ev.get(e)
            r = st.round.number if st.round else 0
            print(f"{e}  {st.settings.name}  {len(st.players)} players  round {r}  {st.phase}")
    except ServiceError as e:
        return _fail(e.message)
    finally:
        ref.store.close()
    return 0


def cmd_event_export(args: argparse.Namespace) -> int:
    ref = _open(args.db, args.state, readonly=True)
    if isinstance(ref, str):
        return _fail(ref)
    try:
        text = _events(ref).export(args.event)
    except ServiceError as e:
        return _fail(e.message)
    finally:
        ref.store.close()
    if args.out:
        Path(args.out).write_text(text, "utf-8")
    else:
        sys.stdout.write(text)
    return 0


def cmd_event_verify(args: argparse.Namespace) -> int:
    try:
        with open(args.file, "rb") as f:
            data = f.read(MAX_EXPORT_BYTES + 1)
        if len(data) > MAX_EXPORT_BYTES:
            return _fail(f"{args.file}: too large")
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _fail(f"{args.file}: not UTF-8 text")
    except OSError as e:
        return _fail(f"{args.file}: cannot read: {e.strerror or e}")
    from referee.event.export import verify_event_export  # see _events

    v = verify_event_export(text)
    print(f"{args.file}: {v.message()}")
    return 0 if v.ok else 1


def simulate(ref: Referee, players: int, rounds: int | None, seed: str, game: str = DEFAULT) -> str:
    """Runs a whole event on ``ref``: registration, check-in, each round paired and started,
    results from random match slips (a few draws), a drop after round 1; returns its id."""
    rng = random.Random(seed)
    ev = _events(ref)
    eid = ev.create(
        name=f"Simulated event {seed}",
        game=game,
        options={},
        rounds=rounds,
        seed=seed.encode().hex()[:64].ljust(8, "0"),
    )
    for i in range(1, players + 1):
        reg = ev.register(eid, f"Player {i}")
        ev.check_in(eid, reg.player)
    total = None
    number = 0
    while True:
        r = ev.pair_next(eid)
        number = r.number
        total = ev.get(eid).settings.rounds
        r = ev.start_round(eid)
        for t in r.tables:
            roll = rng.random()
            winner = None if roll < 0.1 else t.first if roll < 0.55 else t.second
            ev.enter_result(eid, r.number, t.table, 1, winner, "match slip (simulated)")
        if number == 1 and players > 3:
            ev.drop(eid, f"p{rng.randint(1, players)}", "left early (simulated)")
        if total is not None and number >= total:
            break
    return eid


def cmd_event_simulate(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 512:
        return _fail("--players: 2 to 512")
    if args.rounds is not None and not 1 <= args.rounds <= 20:
        return _fail("--rounds: 1 to 20")
    if args.game not in GAMES:
        return _fail(f"--game: no game {args.game!r} (games: {', '.join(sorted(GAMES))})")
    db = args.db or str(Path(tempfile.mkdtemp(prefix="referee-event-")) / "event.sqlite3")
    ref = _open(db, args.state, readonly=False)
    if isinstance(ref, str):
        return _fail(ref)
    try:
        eid = simulate(ref, args.players, args.rounds, args.seed, args.game)
        ev = _events(ref)
        st = ev.get(eid)
        names = {p.id: p.name for p in st.players}
        print(f"event {eid}: {len(st.players)} players, {len(st.rounds)} rounds")
        print("rank  player        points  record  OMW      GW       OGW")
        for s in st.standings:
            mark = " (dropped)" if s.dropped else ""
            print(
                f"{s.rank:>4}  {names[s.player]:<12}  {s.match_points:>6}  {s.record!s:<6}  "
                f"{s.omw_text:<7}  {s.gw_text:<7}  {s.ogw_text}{mark}"
            )
        if args.out:
            Path(args.out).write_text(ev.export(eid), "utf-8")
            print(f"export: {args.out}")
        print(f"database: {place_of(db, args.state).name}")
    except ServiceError as e:
        return _fail(e.message)
    finally:
        ref.store.close()
    return 0


def add_event_commands(sub: Any) -> None:
    """Adds ``event list|export|verify|simulate`` to the ``referee`` command's subparsers."""
    p = sub.add_parser("event", help="tournament events: list, export, verify, simulate")
    esub = p.add_subparsers(dest="event_command", metavar="list|export|verify|simulate")
    esub.required = True
    q = esub.add_parser("list", help="list the events in a database")
    add_db_options(q)
    q.set_defaults(func=cmd_event_list)
    q = esub.add_parser("export", help="write an event's export (its log, games, standings)")
    q.add_argument("event")
    add_db_options(q)
    q.add_argument("--out", help="write to FILE instead of standard output")
    q.set_defaults(func=cmd_event_export)
    q = esub.add_parser("verify", help="check an event's export offline")
    q.add_argument("file")
    q.set_defaults(func=cmd_event_verify)
    q = esub.add_parser("simulate", help="run a whole simulated event on the real service")
    q.add_argument("--players", type=int, default=8)
    q.add_argument("--rounds", type=int, default=None, help="default: the usual count")
    q.add_argument("--seed", default="rehearsal")
    q.add_argument("--game", default=DEFAULT)
    add_db_options(q, default=None)  # default: a new temporary SQLite file
    q.add_argument("--out", help="also write the event's export to FILE")
    q.set_defaults(func=cmd_event_simulate)
