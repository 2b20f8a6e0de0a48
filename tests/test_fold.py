"""The fold: reading a whole log at once gives the game exactly as folding it record by record
(as the service does while a game is played), corrections included."""

from __future__ import annotations

import contextlib
import random

import pytest
from service_helpers import Table, make_referee

from engine.herazeus import legal_actions
from referee.fold import Folded, Patch, fold, start, step
from referee.log import Record
from referee.service import ServiceError


def stepwise(records: list[Record]) -> Folded:
    f = start(records[0])
    for r in records[1:]:
        step(f, r)
    return f


def same(a: Folded, b: Folded) -> None:
    assert a.state == b.state
    assert a.broken == b.broken
    assert [s for s, _ in a.ops] == [s for s, _ in b.ops]
    assert [s for s, _ in a.suspended] == [s for s, _ in b.suspended]
    assert len(a.states) == len(b.states) and a.states[-1] == b.states[-1]
    assert (a.last_seq, a.last_hash, a.question) == (b.last_seq, b.last_hash, b.question)
    assert [r.seq for r in a.open_items()] == [r.seq for r in b.open_items()]
    assert [r.seq for r in a.corrections] == [r.seq for r in b.corrections]


def corrected_game(seed: int) -> list[Record]:
    """A random game, then the judge's corrections on it: undos back to a random event with the
    actions entered again from there, and amends to another legal action (which may leave a
    later action inapplicable: the record is then broken until a later correction)."""
    rng = random.Random(seed)
    ref = make_referee(seed=seed)
    t = Table(ref, rng, unknown_draw=0.3, unscanned_play=0.3, observe=0.2)
    t.setup()
    for _ in range(120):
        if t.over or not t.step():
            break
    played = [r for r in t.records() if r.kind == "action" and r.seat != "judge"]
    for _ in range(6):
        f = ref.folded(t.game)
        effective = [s for s, op in f.ops if not isinstance(op, Patch)]
        if f.broken is None and rng.random() < 0.5 and len(effective) > 6:
            to = rng.choice(effective[4:-1])  # an undo to the present is refused (HZ-P15)
            ref.undo(t.game, "judge", to, "replayed from there")
            for r in [r for r in played if r.seq > to][: rng.randrange(1, 20)]:
                try:
                    ref.submit(t.game, "judge", dict(r.body["action"]))
                except ServiceError:
                    break
        else:
            targets = [s for s in effective if s > 4]
            if not targets:
                continue
            seq = rng.choice(targets)
            options = legal_actions(f.state_at(seq - 1))
            if options:
                other = rng.choice(options)
                with contextlib.suppress(ServiceError):
                    ref.amend(t.game, "judge", seq, other.to_json(), "entered wrongly")
    return t.records()


def test_a_whole_log_folds_as_it_did_record_by_record() -> None:
    corrections = broken = 0
    for seed in range(12):
        records = corrected_game(seed)
        corrections += sum(1 for r in records if r.kind in ("undo", "amend"))
        broken += any(stepwise(records[:n]).broken for n in range(len(records) - 12, len(records)))
        same(fold(records), stepwise(records))
        for cut in range(1, len(records), 7):  # and every prefix: the game as it was then
            same(fold(records[:cut]), stepwise(records[:cut]))
    assert corrections > 30 and broken > 0, (corrections, broken)


def test_a_correction_without_an_event_number_is_a_log_that_cannot_be_replayed() -> None:
    """A corrupt correction stops the replay with a message, never a traceback."""
    from referee.fold import FoldError
    from referee.herazeus.game import HERA_ZEUS
    from referee.ledger import Draft
    from referee.log import GENESIS

    ref = make_referee()
    create = ref.ledger.seal("g", 0, GENESIS, Draft("system", "create", {}), HERA_ZEUS)
    for kind, body in (("undo", {"to": "3"}), ("amend", {"event": None, "action": {}})):
        bad = ref.ledger.seal("g", 1, create.hash, Draft("judge", kind, body), HERA_ZEUS)
        for read in (fold, stepwise):
            with pytest.raises(FoldError, match="names no event number"):
                read([create, bad])
