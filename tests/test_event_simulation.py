"""Simulated events through the real service (``referee event simulate``'s engine): whatever
the number of players, rounds and the seed, every active player plays once a round (T4, T9),
a dropped player is not paired again (T9), nobody meets an opponent twice where there are
enough players (T4), and the export verifies (T12)."""

from __future__ import annotations

import pytest
from service_helpers import make_referee

from referee.event.cli import simulate
from referee.event.export import verify_event_export
from referee.event.service import Events


@pytest.mark.parametrize(
    ("players", "rounds", "seed"),
    [(2, 1, "a"), (3, 2, "b"), (5, None, "c"), (8, 3, "d"), (11, 4, "e"), (16, None, "f")],
)
def test_a_simulated_event_pairs_everyone_once_a_round_and_its_export_verifies(
    players: int, rounds: int | None, seed: str
) -> None:
    ref = make_referee()
    eid = simulate(ref, players, rounds, seed)
    st = Events(ref).get(eid)
    assert st.over
    for r in st.rounds:
        seated = [p for t in r.tables for p in t.players] + ([r.bye] if r.bye else [])
        active = [
            p.id
            for p in st.players
            if p.entered_round <= r.number
            and (p.dropped_after_round is None or p.dropped_after_round >= r.number)
        ]
        assert sorted(seated) == sorted(active)
    pairs = [frozenset(t.players) for r in st.rounds for t in r.tables]
    if players >= 2 * len(st.rounds):
        assert len(pairs) == len(set(pairs))  # T4: no rematch while one can be avoided
    v = verify_event_export(Events(ref).export(eid))
    assert v.ok, v.problem
