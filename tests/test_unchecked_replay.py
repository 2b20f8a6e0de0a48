"""A verified log is replayed without checking its actions again (issue 11, deliverable 4).

Every action of a log was checked when it was accepted, on the state it is replayed on, under
the rules the log is pinned to; so the fold of a verified log applies each action with
``checked=False``, its effects only. These tests show that this changes nothing for a legal
history (every random game, every prefix, corrections included), and that the checks really
are skipped: an action that is well-formed but illegal, in a log that verifies, is applied by a
load and refused by a checked replay. An amended history, a legacy log and an unverified log
are checked.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from service_helpers import Table, make_referee
from test_fold import corrected_game
from test_selfplay import RULESETS

from engine.herazeus import EventKind, GameState, IllegalActionError, Phase, apply
from engine.herazeus.actions import EndTurn
from engine.herazeus.notation import write_position
from engine.herazeus.simulate import random_game_start, random_playout
from referee.fold import Folded, Op, Patch, fold, start, step
from referee.herazeus.game import HERA_ZEUS
from referee.ledger import Draft
from referee.log import Record
from web.cli import main

GAMES = 30  # per rule set, for the engine's comparison


# ---- the engine: apply(checked=False) -------------------------------------------------------


def test_an_unchecked_apply_of_a_legal_action_is_the_checked_apply() -> None:
    """Every action of random self-play under every rule set: the same state, events, rules
    and notes with and without the checks."""
    kinds: Counter[str] = Counter()
    for name, rs in RULESETS.items():
        for i in range(GAMES):
            rng = random.Random(f"{name}/{i}")
            for before, action, out in random_playout(rng, random_game_start(rng, rs), 5000):
                assert apply(before, action, checked=False) == out, (name, i, action)
                kinds[type(action).__name__] += 1
    # every kind of action random play reaches was compared, the challenge's strengths included
    assert {"Draw", "Play", "Challenge", "EndTurn", "God", "PegasusHand"} <= set(kinds), kinds


def in_play_with_points_left() -> GameState:
    st = random_game_start(random.Random(7))
    assert st.phase is Phase.PLAY and st.used < st.ap
    return st


def test_an_unchecked_apply_skips_the_legality_checks() -> None:
    """D7: ending the turn with points left is refused when checked; unchecked, the turn ends
    (the check is skipped, the effect carried out)."""
    st = in_play_with_points_left()
    with pytest.raises(IllegalActionError) as refused:
        apply(st, EndTurn())
    assert refused.value.rule == "D7"
    out = apply(st, EndTurn(), checked=False)
    assert out.state.player is st.player.other
    assert [e.kind for e in out.events][:2] == [EventKind.TURN_ENDED, EventKind.TURN_BEGAN]


# ---- the fold of a verified log --------------------------------------------------------------


def played_game(seed: int) -> list[Record]:
    """A random game at a simulated table (unscanned cards, questions, observations)."""
    rng = random.Random(seed)
    t = Table(make_referee(seed=seed), rng, unknown_draw=0.3, unscanned_play=0.3, observe=0.2)
    t.setup()
    while t.step():
        pass
    return t.records()


def stepwise(records: list[Record], verified: bool) -> Iterator[Folded]:
    """The fold record by record, as the service extends a cached game; each prefix's."""
    f = start(records[0], verified)
    yield f
    for r in records[1:]:
        step(f, r)
        yield f


def same(a: Folded, b: Folded) -> None:
    """The same game: states, every action's outcome (events, rules, notes), the break."""
    assert a.state == b.state
    assert a.states == b.states
    assert a.outcomes == b.outcomes
    assert a.broken == b.broken
    assert operations(a.ops) == operations(b.ops)
    assert operations(a.suspended) == operations(b.suspended)


def operations(ops: list[Op]) -> list[tuple[int, object]]:
    """Each effective operation: its event and the action, or the identity a patch names."""
    return [(seq, op.op if isinstance(op, Patch) else op) for seq, op in ops]


def test_a_verified_log_folds_unchecked_exactly_as_checked() -> None:
    """Random games, with and without the judge's undos and amends (an amend may break the
    replay of a later action): for every prefix, the verified fold (whole, and record by
    record) is the checked fold."""
    unchecked = rechecked = broken = 0
    for seed in range(4):
        for records in (played_game(100 + seed), corrected_game(seed)):
            for cut in range(1, len(records) + 1):
                trusted, checked = fold(records[:cut], verified=True), fold(records[:cut])
                assert trusted.verified and not checked.verified
                same(trusted, checked)
                broken += checked.broken is not None
            for trusted, checked in zip(
                stepwise(records, True), stepwise(records, False), strict=True
            ):
                same(trusted, checked)
            unchecked += sum(1 for s, _ in trusted.ops if s not in trusted.recheck)
            rechecked += len(trusted.recheck)
    assert unchecked > 300 and rechecked > 0 and broken > 0, (unchecked, rechecked, broken)


def turn_with_points_left(seed: int) -> Table:
    """A game at a table, stopped where the player to act has points left and nothing is
    asked (a game that ends first is replaced by the next seed's)."""
    for s in range(seed, seed + 50):
        t = Table(make_referee(seed=s), random.Random(s), unknown_draw=0.3)
        t.setup()
        for i in range(240):
            f = t.ref.folded(t.game)
            st = f.state
            ready = st.phase is Phase.PLAY and st.used < st.ap and f.question is None
            if ready and st.used and i > 40:
                return t
            if not t.step():
                break
    raise AssertionError("no turn with points left in 50 games")


def with_illegal_end_of_turn(t: Table) -> tuple[list[Record], Record]:
    """The game's signed log with one more record, written past the checks: the player ends
    his turn with points left (D7). It chains and verifies like any other record."""
    st = t.ref.folded(t.game).state
    body = {"action": HERA_ZEUS.action_json(EndTurn()), "actor": st.player.key}
    recs, _ = t.ref.ledger.write(t.game, lambda f: [Draft("judge", "action", body)])
    return t.records(), recs[0]


def test_a_loaded_game_does_not_check_its_actions_again() -> None:
    """The illegal end of turn in a log that verifies: a restarted referee loads the game as
    the log says (the turn passed); a checked replay refuses that record (D7). Were the load
    to check again, the game would be broken at that event."""
    t = turn_with_points_left(3)
    player = t.ref.folded(t.game).state.player
    records, bad = with_illegal_end_of_turn(t)

    loaded = make_referee(t.ref.store).folded(t.game)  # a cold load: chain, head's signature
    assert loaded.broken is None
    assert loaded.state.player is player.other
    kinds = [e["kind"] for e in loaded.outcomes[bad.seq].events]
    assert "turn_ended" in kinds

    checked = fold(records)
    assert checked.broken is not None and "every point must be used" in checked.broken
    assert checked.state.player is player
    assert fold(records, verified=True).state == loaded.state


def test_a_legacy_log_is_checked_on_replay() -> None:
    """A log whose create record names no rules was written before rules were pinned: nothing
    says its actions were checked by today's rules, so its replay checks them, verified or
    not (the illegal end of turn breaks it)."""
    records, _ = with_illegal_end_of_turn(turn_with_points_left(4))
    create = records[0]
    legacy_body = {k: v for k, v in create.body.items() if k != "rules"}
    legacy = [dataclasses.replace(create, body=legacy_body), *records[1:]]
    for verified in (True, False):
        f = fold(legacy, verified=verified)
        assert not f.verified
        assert f.broken is not None and "every point must be used" in f.broken


def test_an_amended_history_is_checked_after_the_amended_event() -> None:
    """An action recorded before an amend of an earlier event was checked on the history the
    amend replaced: the verified fold checks it, and the amended action, again; an action
    recorded after the amend was checked on the amended history and is not checked again."""
    moved = after = 0
    for seed in range(12):
        records = corrected_game(seed)
        f = fold(records, verified=True)
        effective = {s for s, _ in (*f.ops, *f.suspended)}
        for amend in (r for r in records if r.kind == "amend"):
            event = amend.body["event"]
            if event not in effective:
                continue  # dropped by a later undo
            before = {s for s in effective if event <= s < amend.seq}
            assert before <= f.recheck, (seed, amend.seq)
            moved += len(before)
        last = max(r.seq for r in records if r.kind in ("amend", "undo"))
        later = {s for s in effective if s > last}
        assert not later & f.recheck, seed
        after += len(later)
    assert moved > 10 and after > 0, (moved, after)


def test_referee_replay_trusts_only_a_log_signed_by_the_key_it_was_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``referee replay`` of an export: signed by the server key named with ``--key``, the
    actions are applied unchecked (the illegal end of turn passes the turn); without ``--key``
    the header's own key proves nothing about who checked them, so the replay checks them (the
    record is refused, D7: the position stays before it); a damaged signature is refused in one
    line, exit 2."""
    t = turn_with_points_left(5)
    records, _ = with_illegal_end_of_turn(t)
    path = tmp_path / "game.jsonl"
    text = t.ref.export(t.game, "judge")
    path.write_text(text, "utf-8")
    fingerprint = json.loads(text.splitlines()[0])["fingerprint"]
    assert main(["replay", "--json", "--key", fingerprint, str(path)]) == 0
    unchecked = write_position(fold(records, verified=True).state)
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(unchecked))

    assert main(["replay", "--json", str(path)]) == 0
    checked = write_position(fold(records).state)
    assert checked != unchecked
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(checked))

    lines = [json.loads(line) for line in text.splitlines()]
    first = next(line for line in lines if line.get("seq") == 1)
    first["sig"] = next(line for line in lines if line.get("seq") == 2)["sig"]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    assert main(["replay", "--json", "--key", fingerprint, str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1
