"""State is a fold over the log: replaying the records gives the game exactly as it was.

The fold knows no game's rules: the game module a create record names (:mod:`referee.games`)
parses and applies the actions and patches. It keeps the *effective* operations: actions and
identity patches (from observations, D20). A judge's ``undo`` to event N drops the effective
operations after N; an ``amend`` replaces the action of one event and replays what follows it.
Nothing is ever deleted from the log itself. When an amended history makes a later action
illegal, the fold stops there and says so (``broken``), for the judge; the operations from
there on are kept aside (``suspended``) until a later correction (an amend of that event or an
earlier one, or an undo) makes them apply again.

**Rules are pinned.** A create record names its rules version (``rules``: the game module's
version and a digest of its catalogue and profile). A log made under other rules is not
re-decided by today's: :func:`fold` stops with a message naming both versions. A log written
before versions were recorded was made under the game's ``legacy_rules`` (Hera & Zeus:
``hz-engine/1``) and replays only while the module still runs that version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.game import Game, Malformed, Outcome, RuleError
from referee.games import game_of
from referee.log import Record


class FoldError(Exception):
    """A log that cannot be replayed (not a referee log, a corrupt body, other rules)."""


class Patch:
    """Marks an effective operation that is a game's identity patch (``op`` is the game's
    patch value), not an action."""

    __slots__ = ("op",)

    def __init__(self, op: Any) -> None:
        self.op = op


Op = tuple[int, Any]  # (seq, the game's action, or a Patch)


@dataclass
class Folded:
    """The game as the log says it is now."""

    game: str
    module: Game
    rules: Any
    create: Mapping[str, Any]
    state: Any
    ops: list[Op] = field(default_factory=list)  # effective, by seq
    states: list[Any] = field(default_factory=list)  # states[i]: after ops[:i]
    outcomes: dict[int, Outcome] = field(default_factory=dict)  # seq -> outcome of its action
    irregularities: list[Record] = field(default_factory=list)
    corrections: list[Record] = field(default_factory=list)
    broken: str | None = None  # why the replay stopped early, if it did
    suspended: list[Op] = field(default_factory=list)  # from the break on
    last_seq: int = 0
    last_hash: str = ""
    last_time: str = ""
    question: Record | None = None  # the open question (an ``ask`` record), if any
    calls: list[Record] = field(default_factory=list)  # judge calls
    resolved: dict[int, Record] = field(default_factory=dict)  # seq settled -> resolve record
    holders: dict[str, str] = field(default_factory=dict)  # seat -> id of the device holding it
    requests: dict[int, Record] = field(default_factory=dict)  # open seat requests, by seq
    proposals: dict[int, Record] = field(default_factory=dict)  # open correction proposals
    approvals: dict[int, tuple[str, ...]] = field(default_factory=dict)  # proposal -> players

    def copy(self) -> Folded:
        """A snapshot to fold further without touching this one (readers keep theirs)."""
        return Folded(
            self.game,
            self.module,
            self.rules,
            self.create,
            self.state,
            list(self.ops),
            list(self.states),
            dict(self.outcomes),
            list(self.irregularities),
            list(self.corrections),
            self.broken,
            list(self.suspended),
            self.last_seq,
            self.last_hash,
            self.last_time,
            self.question,
            list(self.calls),
            dict(self.resolved),
            dict(self.holders),
            dict(self.requests),
            dict(self.proposals),
            dict(self.approvals),
        )

    def open_items(self) -> list[Record]:
        """Irregularities and judge calls the judge has not resolved yet."""
        items = [*self.irregularities, *self.calls]
        return sorted((r for r in items if r.seq not in self.resolved), key=lambda r: r.seq)

    def state_at(self, seq: int) -> Any:
        """The state right after event ``seq`` (through the effective operations)."""
        n = sum(1 for s, _ in self.ops if s <= seq)
        return self.states[min(n, len(self.states) - 1)]


def _advance(f: Folded, seq: int, op: Any, state: Any) -> Any:
    if isinstance(op, Patch):
        f.outcomes.pop(seq, None)
        return f.module.apply_patch(state, op.op)
    out = f.module.apply(state, op)
    f.outcomes[seq] = out
    return out.state


def _replay(f: Folded, start: int) -> None:
    """Recomputes states and outcomes from effective op ``start`` on."""
    del f.states[start + 1 :]
    f.broken = None
    st = f.states[start]
    for i in range(start, len(f.ops)):
        seq, op = f.ops[i]
        try:
            st = _advance(f, seq, op, st)
        except (RuleError, ValueError) as e:
            reason = e.reason if isinstance(e, RuleError) else str(e)
            f.broken = f"event {seq} no longer applies after the correction: {reason}"
            f.suspended = f.ops[i:]
            del f.ops[i:]
            break
        f.states.append(st)
    f.state = f.states[-1]


def start(create: Record) -> Folded:
    """A game's fold from its create record alone. Raises FoldError."""
    if create.kind != "create":
        raise FoldError("a game log starts with its create record")
    body = create.body
    try:
        module = game_of(body)
        rules = module.rules(body)
        pinned = body.get("rules")
        current = module.rules_version(body)
        if pinned is None:  # written before create records named their rules
            pinned, current = module.legacy_rules, current.partition("+")[0]
        if pinned != current:
            raise FoldError(
                f"the game was recorded under rules {str(pinned)[:60]}, and this referee "
                f"runs {current}: it is not replayed under other rules than its own"
            )
    except Malformed as e:
        raise FoldError(e.reason) from None
    st0 = module.new_state(rules)
    f = Folded(create.game, module, rules, body, st0, states=[st0])
    f.last_hash = create.hash
    f.last_time = create.time
    return f


def fold(records: Sequence[Record]) -> Folded:
    """Replays a game's records. Raises FoldError when the log is not a referee log or was
    made under other rules.

    Two passes: the first reads every record and settles which operations are in effect
    (corrections only add, drop or replace operations: an undo keeps those up to its event,
    an amend replaces one); the second applies those, once each, stopping where one no longer
    applies (``broken``). That is the state :func:`step` reaches record by record, without
    running the rules on what a later undo drops."""
    if not records:
        raise FoldError("a game log starts with its create record")
    f = start(records[0])
    ops: list[Op] = []
    for r in records[1:]:
        _note(f, r)
        if r.kind == "action":
            ops.append((r.seq, _action(f, r.body.get("action"), r.seq)))
        elif r.kind == "observation" and r.body.get("identifies"):
            ops.append((r.seq, _patch(f, r)))
        elif r.kind == "undo":
            to = _number(r, "to")
            ops = [op for op in ops if op[0] <= to]
        elif r.kind == "amend":
            target = _number(r, "event")
            idx = next((i for i, (s, _) in enumerate(ops) if s == target), None)
            if idx is not None:
                ops[idx] = (target, _action(f, r.body.get("action"), r.seq))
    f.ops = ops
    _replay(f, 0)
    return f


def _number(r: Record, key: str) -> int:
    """The event number a correction names. Raises FoldError for a corrupt body."""
    n = r.body.get(key)
    if isinstance(n, bool) or not isinstance(n, int):
        raise FoldError(f"event {r.seq}: {r.kind} names no event number in {key!r}")
    return n


def _action(f: Folded, raw: Any, seq: int) -> Any:
    try:
        return f.module.parse_action(raw, f"event {seq}")
    except Malformed as e:
        raise FoldError(e.reason) from None


def _patch(f: Folded, r: Record) -> Patch:
    try:
        return Patch(f.module.patch(f.rules, r.body))
    except RuleError as e:
        raise FoldError(f"event {r.seq}: {e.reason}") from None


def _note(f: Folded, r: Record) -> None:
    """What a record tells besides the operations: the head, the open question, calls,
    irregularities, corrections and what the judge settled. Raises FoldError for a corrupt
    body."""
    f.last_seq, f.last_hash, f.last_time = r.seq, r.hash, r.time
    if r.kind in ("action", "undo", "amend"):
        f.question = None  # an action settles the question; a correction withdraws it
    if r.kind == "ask":
        f.question = r
    elif r.kind == "observation":
        if r.body.get("irregularity"):
            f.irregularities.append(r)
    elif r.kind == "irregularity":
        f.irregularities.append(r)
    elif r.kind == "call":
        f.calls.append(r)
    elif r.kind == "resolve":
        target = r.body.get("event")
        if isinstance(target, int):
            f.resolved[target] = r
    elif r.kind in ("undo", "amend"):
        f.corrections.append(r)
    elif r.kind in SEAT_KINDS:
        _note_seat(f, r)
    if r.kind in ("action", "undo", "amend"):
        f.proposals.clear()  # a proposal is made on the table as it was; the table moved on


SEAT_KINDS = frozenset({"claim", "request", "move", "reissue", "propose", "approve", "decline"})


def _note_seat(f: Folded, r: Record) -> None:
    """Who holds a seat, open seat requests, open correction proposals (docs/service.md)."""
    body = r.body
    seat = body.get("seat")
    if r.kind == "claim" and isinstance(seat, str):
        f.holders[seat] = str(body.get("device", ""))
    elif r.kind == "request":
        f.requests[r.seq] = r
    elif r.kind == "move" and isinstance(seat, str):
        f.holders[seat] = str(body.get("device", ""))
        asked = body.get("request")
        f.requests = {
            s: q for s, q in f.requests.items() if s != asked and q.body.get("seat") != seat
        }
    elif r.kind == "reissue" and isinstance(seat, str):
        f.holders.pop(seat, None)  # the new link claims the seat on its first device
        f.requests = {s: q for s, q in f.requests.items() if q.body.get("seat") != seat}
    elif r.kind == "propose":
        f.proposals = {r.seq: r}  # one open proposal at a time: a new one replaces the last
        f.approvals = {r.seq: (r.seat,)}
    elif r.kind in ("approve", "decline"):
        target = body.get("proposal")
        if isinstance(target, int) and target in f.proposals:
            if r.kind == "decline":
                del f.proposals[target]
            else:
                f.approvals[target] = (*f.approvals.get(target, ()), r.seat)


def step(f: Folded, r: Record, outcome: Outcome | None = None) -> None:
    """Folds one more record into ``f`` (in place). ``outcome``: the outcome of the record's
    action, already computed on ``f.state`` by the caller (the engine is not run again).
    Raises FoldError for a corrupt body."""
    _note(f, r)
    if r.kind == "action":
        action = _action(f, r.body.get("action"), r.seq)
        if outcome is not None and f.broken is None:
            f.ops.append((r.seq, action))
            f.outcomes[r.seq] = outcome
            f.states.append(outcome.state)
            f.state = outcome.state
        else:
            _push(f, r.seq, action)
    elif r.kind == "observation" and r.body.get("identifies"):
        _push(f, r.seq, _patch(f, r))
    elif r.kind == "undo":
        to = _number(r, "to")
        keep = sum(1 for s, _ in f.ops if s <= to)
        f.ops = [op for op in (*f.ops, *f.suspended) if op[0] <= to]
        f.suspended = []
        _replay(f, keep)
    elif r.kind == "amend":
        target = _number(r, "event")
        ops = [*f.ops, *f.suspended]  # an amend may repair the event that broke the replay
        idx = next((i for i, (s, _) in enumerate(ops) if s == target), None)
        if idx is None:
            return
        ops[idx] = (target, _action(f, r.body.get("action"), r.seq))
        begin = min(idx, len(f.ops))
        f.ops, f.suspended = ops, []
        _replay(f, begin)


def _push(f: Folded, seq: int, op: Any) -> None:
    """One more effective operation; kept aside while the replay is broken."""
    if f.broken is not None:
        f.suspended.append((seq, op))
        return
    f.ops.append((seq, op))
    _replay(f, len(f.ops) - 1)
