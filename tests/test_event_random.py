"""Random sequences of the organiser's, the judge's and the players' calls on an event, legal or
not (T1-T14): each call either writes and the event reads back the same from its log, or is
refused with a ServiceError and writes nothing; the export verifies at every end."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from event_helpers import new_event, play_out, tiny_events
from service_helpers import make_referee

from referee.errors import ServiceError
from referee.event.export import verify_event_export
from referee.event.log import store_id
from referee.event.service import Events
from referee.event.state import INFRACTIONS, PENALTIES
from referee.store import MemoryStore


def random_call(ev: Events, eid: str, rng: random.Random) -> Callable[[], Any]:
    st = ev.get(eid)
    ids = [p.id for p in st.players] + ["p99"]
    p = rng.choice(ids)
    q = rng.choice(ids)
    r = st.round.number if st.round else 1
    tables = list(st.round.tables) if st.round else []
    table = rng.choice(tables) if tables else None
    t = table.table if table is not None and rng.random() < 0.9 else 9
    n = len(table.results) + rng.choice([1, 1, 1, 0]) if table is not None else 1
    who = rng.choice([None, *table.players, table.first]) if table is not None else p

    def why() -> str:
        return rng.choice(["", "seen", "seen", "seen"])

    options: list[Callable[[], Any]] = [
        lambda: ev.pair_next(eid),
        lambda: ev.pair_next(eid),
        lambda: ev.repair(eid, why()),
        lambda: ev.swap(eid, p, q, why()),
        lambda: ev.start_round(eid),
        lambda: ev.start_round(eid),
        lambda: ev.register(eid, rng.choice(["Ann", "Bob", "ann", "", "Cy"])),
        lambda: ev.check_in(eid, p, by=rng.choice(["organiser", p, q])),
        lambda: ev.drop(eid, p, "random", by=rng.choice(["organiser", p, q])),
        lambda: ev.enter_result(eid, r, t, n, who, why()),
        lambda: ev.confirm(eid, p),
        lambda: ev.confirm(eid, who or p),
        lambda: ev.enter_result(eid, r, t, n, who, "slip"),
        lambda: ev.dispute(eid, p, why()),
        lambda: ev.correct(eid, r, t, n, who, why()),
        lambda: ev.extend(eid, t, rng.choice([0, 5, 61]), why()),
        lambda: ev.penalty(eid, p, rng.choice(INFRACTIONS), rng.choice(PENALTIES), why()),
        lambda: ev.time_result(eid, r, t),
        lambda: ev.sync(eid),
        lambda: ev.top_cut(eid),
        lambda: ev.pair_cut(eid),
        lambda: ev.choose_side(
            eid, t, rng.choice(["first", "second", "hera"]), rng.choice(["organiser", p])
        ),
    ]
    game = table.current_game if table is not None and st.phase == "playing" else None
    if game is not None and rng.random() < 0.3:
        options.append(lambda: play_out(ev.referee, game, rng.choice(["east", "west", None])))
    return rng.choice(options)


@pytest.mark.parametrize("seed", range(8))
def test_random_calls_either_write_what_the_log_reads_back_or_change_nothing(seed: int) -> None:
    rng = random.Random(seed)
    store = MemoryStore()
    with tiny_events(store) as ev:
        eid = new_event(ev, rng.randint(2, 7), format=rng.choice(["bo1", "bo3"]), top_cut=4)
        for _ in range(250):
            before = store.head(store_id(eid))
            call = random_call(ev, eid, rng)
            try:
                call()
            except ServiceError:
                assert store.head(store_id(eid)) == before
            fresh = Events(make_referee(store))
            assert fresh.get(eid) == ev.get(eid)
        v = verify_event_export(ev.export(eid))
        assert v.ok, v.problem
