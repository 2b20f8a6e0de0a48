"""The event's record (T12) beyond a plain Swiss: the top cut (T10), a game whose own rules play
the whole match (T1), a rolled-back event log, the ledger's bell, and each kind's writer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from event_helpers import new_event, play_out, tiny_events
from service_helpers import SIGNER, tokens
from test_minotaur_privacy import DECKS

from referee.errors import Refused, ServiceError
from referee.event.export import verify_event_export
from referee.event.log import store_id
from referee.event.service import Events
from referee.event.state import Work, step
from referee.ledger import FixedClock
from referee.service import Referee
from referee.store import MemoryStore


def slips(ev: Events, eid: str) -> None:
    """Pairs, starts and ends a round by slips, the first player of each table winning."""
    ev.pair_next(eid)
    r = ev.start_round(eid)
    for t in r.tables:
        ev.enter_result(eid, r.number, t.table, 1, t.first, "slip")


def test_the_top_cut_pairs_the_best_four_then_the_winners_to_a_champion() -> None:
    with tiny_events() as ev:
        eid = new_event(ev, 8, top_cut=4)
        slips(ev, eid)
        with pytest.raises(Refused, match="T10"):
            ev.top_cut(eid)
        slips(ev, eid)
        slips(ev, eid)
        cut = ev.top_cut(eid)
        top = [s.player for s in ev.standings(eid)[:4]]
        assert [(c.higher, c.lower) for c in cut.pairings] == [
            (top[0], top[3]),
            (top[1], top[2]),
        ]
        with pytest.raises(Refused, match="not started"):
            ev.pair_cut(eid)
        with pytest.raises(Refused, match="T10"):
            ev.pair_next(eid)
        semi = ev.start_round(eid)
        assert semi.cut and semi.number == 4
        assert [s.player for s in ev.standings(eid)[:4]] == top  # the cut is not in them
        ev.enter_result(eid, 4, 1, 1, semi.tables[0].second, "slip")
        ev.enter_result(eid, 4, 2, 1, None, "slip")
        with pytest.raises(Refused, match="drawn"):
            ev.pair_cut(eid)
        ev.correct(eid, 4, 2, 1, semi.tables[1].first, "won the extra turns on the replay")
        final = ev.pair_cut(eid)
        # seed 4 beat seed 1, seed 2 beat seed 3: seed 2 is the higher seed of the final
        assert [(t.first, t.second) for t in final.tables] == [
            (semi.tables[1].first, semi.tables[0].second)
        ]
        ev.start_round(eid)
        assert ev.get(eid).champion is None
        ev.enter_result(eid, 5, 1, 1, semi.tables[1].first, "slip")
        assert ev.get(eid).champion == semi.tables[1].first
        assert ev.public(eid).champion == semi.tables[1].first
        with pytest.raises(Refused, match="final is played"):
            ev.pair_cut(eid)
        assert verify_event_export(ev.export(eid)).ok


def test_a_game_that_plays_the_match_itself_fixes_the_format_and_is_one_game_a_match() -> None:
    ev = Events(Referee(MemoryStore(), FixedClock(), tokens(1), SIGNER))
    eid = ev.create(
        name="Labyrinth Open",
        game="minotaur",
        options={"deck_list": DECKS, "profile": "advanced"},
    )
    s = ev.get(eid).settings
    assert s.format == "bo3" and s.match_in_game and s.games_per_match == 1
    with pytest.raises(Refused, match="T1"):
        ev.create(
            name="x",
            game="minotaur",
            options={"deck_list": DECKS, "profile": "advanced"},
            format="bo1",
        )
    for name in ("Ariadne", "Theseus"):
        ev.register(eid, name)
    ev.pair_next(eid)
    r = ev.start_round(eid)
    t = r.tables[0]
    ev.enter_result(eid, 1, t.table, 1, t.second, "the match slip")
    m = ev.get(eid).rounds[0].tables[0].match
    assert m is not None and (m.first_wins, m.second_wins) == (0, 2)


def test_a_bad_option_of_the_game_is_refused_by_the_games_own_setup() -> None:
    ev = Events(Referee(MemoryStore(), FixedClock(), tokens(1), SIGNER))
    with pytest.raises(Refused, match="options"):
        ev.create(name="x", game="minotaur", options={"profile": "basic"})  # no deck list
    assert ev.events() == []


def test_an_event_log_rolled_back_behind_the_journal_is_not_served() -> None:
    with tiny_events() as ev:
        eid = new_event(ev, 4)
        old = ev.referee.store.records(store_id(eid))[:-1]
        store = MemoryStore()
        store.append(old)
        copy = Events(
            Referee(store, FixedClock(), tokens(2), SIGNER, anchors=ev.referee.reader.anchors)
        )
        with pytest.raises(ServiceError, match="rolled back"):
            copy.get(eid)


def test_listening_to_the_bell_records_a_result_as_soon_as_the_game_ends() -> None:
    with tiny_events() as ev:
        eid = new_event(ev, 2)
        ev.listen()
        ev.pair_next(eid)
        ev.start_round(eid)
        link = ev.seat_link(eid, "p1")
        assert link is not None
        play_out(ev.referee, link.game, link.seat)
        (res,) = ev.get(eid).rounds[0].tables[0].results
        assert res.source == "referee" and res.winner == "p1"


def test_each_record_names_who_may_write_it() -> None:
    with tiny_events() as ev:
        eid = new_event(ev, 2)
        ev.pair_next(eid)
        ev.start_round(eid)
        w: Work = ev._work(eid).copy()
        cases: list[tuple[str, str, dict[str, Any]]] = [
            ("p1", "pair", {"round": 2}),
            ("p1", "extend", {"round": 1, "table": 1, "minutes": 5, "reason": "x"}),
            ("judge", "result", {"round": 1, "table": 1, "number": 1, "source": "referee"}),
            ("p1", "result", {"round": 1, "table": 1, "number": 1, "source": "slip"}),
            ("organiser", "correct", {"round": 1, "table": 1, "number": 1}),
            ("organiser", "penalty", {"player": "p1"}),
            ("p2", "checkin", {"player": "p1"}),
            ("p2", "drop", {"player": "p1", "after_round": 1}),
            ("organiser", "event", {}),
            ("judge", "shuffle", {}),
        ]
        for seat, kind, body in cases:
            with pytest.raises(Refused):
                step(w.copy(), seat, kind, body, "2026-01-01T00:00:00+00:00")


def test_a_writer_that_finds_another_process_appended_first_builds_again_on_the_new_head() -> None:
    with tiny_events() as ev:
        eid = new_event(ev, 2)
        store = ev.referee.store
        other = Events(Referee(store, FixedClock(), tokens(3), SIGNER))
        real = store.append
        raced: list[bool] = []

        def racing_append(records: Any, secrets: Any = None) -> None:
            if not raced and records[0].game == store_id(eid):
                raced.append(True)
                other.register(eid, "Quick")  # the other process appends first
            real(records, secrets)

        store.append = racing_append  # type: ignore[method-assign]
        slow = ev.register(eid, "Slow")
        names = {p.id: p.name for p in ev.get(eid).players}
        assert names == {"p1": "Player 1", "p2": "Player 2", "p3": "Quick", "p4": "Slow"}
        assert slow.player == "p4"


def test_a_page_waiting_on_the_event_wakes_when_a_record_is_written() -> None:
    import threading

    with tiny_events() as ev:
        eid = new_event(ev, 2)
        seq = ev.get(eid).head
        assert seq is not None
        got: list[int] = []
        waiter = threading.Thread(target=lambda: got.append(ev.wait(eid, seq[0], 10)))
        waiter.start()
        ev.pair_next(eid)
        waiter.join(10)
        assert got == [seq[0] + 1]
        assert ev.wait(eid, seq[0] + 1, 0) == seq[0] + 1  # nothing new: at once


def test_the_higher_seed_of_a_top_cut_table_chooses_his_side_before_it_starts() -> None:
    """T10: the higher seed chooses his side (himself, or the organiser for him), once, before
    the round starts; nobody else chooses; a Swiss round's sides are the pairing's (T5)."""
    with tiny_events() as ev:
        eid = new_event(ev, 8, top_cut=4)
        ev.pair_next(eid)
        with pytest.raises(Refused, match="T5"):
            ev.choose_side(eid, 1, "second")
        r = ev.start_round(eid)
        for t in r.tables:
            ev.enter_result(eid, r.number, t.table, 1, t.first, "slip")
        slips(ev, eid)
        slips(ev, eid)
        cut = ev.pair_cut(eid)
        higher, lower = cut.tables[0].first, cut.tables[0].second
        with pytest.raises(Refused, match="higher seed"):
            ev.choose_side(eid, 1, "second", by=lower)
        with pytest.raises(Refused, match="first or the second"):
            ev.choose_side(eid, 1, "hera", by=higher)
        r = ev.choose_side(eid, 1, "second", by=higher)
        assert (r.tables[0].first, r.tables[0].second) == (lower, higher)
        assert any("chose the second seat" in why for why in r.pair_reasons)
        with pytest.raises(Refused, match="chosen already"):
            ev.choose_side(eid, 1, "first", by=higher)
        ev.choose_side(eid, 2, "first")  # the organiser for the higher seed of table 2
        started = ev.start_round(eid)
        game = started.tables[0].current_game
        assert game is not None
        assert ev.referee.game_info(game).players[0] == ev.seat_link(eid, lower).seat  # type: ignore[union-attr]
        with pytest.raises(Refused, match="has started"):
            ev.choose_side(eid, 2, "second")
        assert verify_event_export(ev.export(eid)).ok


def _mutables(x: Any, path: str = "work") -> Iterator[tuple[str, Any]]:
    """Every mutable object reachable from ``x`` (lists, dicts, dataclasses not frozen)."""
    import dataclasses

    if isinstance(x, list | dict | set):
        yield path, x
        items = x.items() if isinstance(x, dict) else enumerate(x)
        for k, v in items:
            yield from _mutables(v, f"{path}[{k!r}]")
    elif dataclasses.is_dataclass(x) and not vars(type(x))["__dataclass_params__"].frozen:
        yield path, x
        for f in dataclasses.fields(x):
            yield from _mutables(getattr(x, f.name), f"{path}.{f.name}")


def test_a_copy_of_the_folds_state_shares_nothing_the_fold_changes() -> None:
    """The service checks each new record on a copy (:meth:`Work.copy`): a copy that shared a
    list or a mutable record with the state would let a refused record change it."""
    with tiny_events() as ev:
        eid = new_event(ev, 8, top_cut=4)
        slips(ev, eid)
        ev.pair_next(eid)
        r = ev.start_round(eid)
        ev.extend(eid, r.tables[0].table, 3, "a long ruling")
        ev.penalty(eid, r.tables[1].first, "tardiness", "warning", "late")
        ev.enter_result(eid, r.number, r.tables[0].table, 1, None, "slip")
        w = ev._work(eid)
        c = w.copy()
        shared = {id(o): p for p, o in _mutables(w)}
        twins = [(p, shared[id(o)]) for p, o in _mutables(c) if id(o) in shared]
        assert twins == []
        assert c == w  # the same state, equal field by field
