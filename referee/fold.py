"""State is a fold over the log: replaying the records gives the game exactly as it was.

The fold knows no game's rules: the game module a create record names (:mod:`referee.games`)
parses and applies the actions and patches. It keeps the *effective* operations: actions and
identity patches (from observations). A judge's ``undo`` to event N drops the effective
operations after N; an ``amend`` replaces the action of one event and replays what follows it.
Nothing is ever deleted from the log itself. When an amended history makes a later action
illegal, the fold stops there and says so (``broken``), for the judge; the operations from
there on are kept aside (``suspended``) until a later correction (an amend of that event or an
earlier one, or an undo) makes them apply again.

**Rules are pinned.** A create record names its rules version (``rules``: the game module's
version and a digest of its catalogue and profile). A log made under other rules is not
re-decided by today's: :func:`fold` stops with a message naming both versions. A log written
before versions were recorded was made under the game's ``legacy_rules`` and replays only
while the module still runs that version.

**A verified log is not checked again.** Every action of the log was checked when it was
accepted, on the state it is now applied to, under the rules the log is pinned to. So when the
caller has verified the records (``verified``: the hash chain and a signature covering them, as
a load does), the fold applies each action with ``checked=False``: its effects only. Two kinds
are still checked: an action an ``amend`` put in (the judge's amend is checked on a position
an earlier amend may change again) and every action after an amended event that was recorded
before the amend (it was checked on the history the amend replaced, and may no longer apply:
``broken``). A legacy log (no ``rules``) is always checked: before rules were pinned, nothing
says its actions were checked by the rules that replay them. An unverified log is checked
throughout, as is any action whose unchecked run fails (the checked run says why).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.game import AnyGame, Malformed, Outcome, RuleError
from referee.games import game_of
from referee.log import Entry, Record


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
    module: AnyGame
    rules: Any
    create: Mapping[str, Any]
    state: Any
    ops: list[Op] = field(default_factory=list)  # effective, by seq
    states: list[Any] = field(default_factory=list)  # states[i]: after ops[:i]
    outcomes: dict[int, Outcome[Any]] = field(default_factory=dict)  # seq -> outcome of its action
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
    verified: bool = False  # the caller verified the records: their actions are not re-checked
    recheck: set[int] = field(default_factory=set)  # seqs of actions checked all the same
    holders: dict[str, str] = field(default_factory=dict)  # seat -> id of the device holding it
    requests: dict[int, Record] = field(default_factory=dict)  # open seat requests, by seq
    proposals: dict[int, Record] = field(default_factory=dict)  # open correction proposals
    approvals: dict[int, tuple[str, ...]] = field(default_factory=dict)  # proposal -> players
    # seat -> the irregularity that holds it: two devices used its key (a copied cookie); the
    # seat acts again once a move (the judge's, or its recovery code) or a reissue settles it
    held: dict[str, Record] = field(default_factory=dict)
    # the last action, question or correction: what a take-back answers to (the game's
    # ``takeback_rule``), kept so
    # that it is never looked for in the whole log
    last_move: Record | None = None
    # what this snapshot's readers worked out on it (a seat's legal actions), by what and seat;
    # a snapshot never changes, so neither does what is worked out on it (a copy starts empty)
    worked: dict[tuple[str, str], Any] = field(default_factory=dict, compare=False)

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
            self.verified,
            set(self.recheck),
            dict(self.holders),
            dict(self.requests),
            dict(self.proposals),
            dict(self.approvals),
            dict(self.held),
            self.last_move,
        )

    def legal_for(self, seat: str) -> Any:
        """The game's legal actions for ``seat`` on this snapshot (the game module's
        :meth:`~referee.game.Game.legal`), worked out once: the receipt of an action and every
        page read at its head share them."""
        key = ("legal", seat)
        if key not in self.worked:
            self.worked[key] = self.module.legal(self.state, seat)
        return self.worked[key]

    def open_items(self) -> list[Record]:
        """Irregularities and judge calls the judge has not resolved yet."""
        items = [*self.irregularities, *self.calls]
        return sorted(
            (r for r in items if r.seq not in self.resolved and not self._settled_hold(r)),
            key=lambda r: r.seq,
        )

    def _settled_hold(self, r: Record) -> bool:
        """True for a held seat's irregularity that a move or a reissue has settled since."""
        seat = r.body.get("held")
        return isinstance(seat, str) and self.held.get(seat) is not r

    def state_at(self, seq: int) -> Any:
        """The state right after event ``seq`` (through the effective operations)."""
        n = sum(1 for s, _ in self.ops if s <= seq)
        return self.states[min(n, len(self.states) - 1)]


def _advance(f: Folded, seq: int, op: Any, state: Any) -> Any:
    if isinstance(op, Patch):
        f.outcomes.pop(seq, None)
        return f.module.apply_patch(state, op.op)
    if f.verified and seq not in f.recheck:
        try:
            out = f.module.apply(state, op, checked=False)  # checked when it was accepted
        except Exception:  # not legal after all: the checked run says why
            out = f.module.apply(state, op)
    else:
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


def start(create: Record, verified: bool = False) -> Folded:
    """A game's fold from its create record alone. ``verified``: the caller verifies every
    record folded into it (then its actions are not checked again, unless the log names no
    rules). Raises FoldError."""
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
            verified = False  # and maybe checked by other rules than today's: check again
        if pinned != current:
            raise FoldError(
                f"the game was recorded under rules {str(pinned)[:60]}, and this referee "
                f"runs {current}: it is not replayed under other rules than its own"
            )
    except Malformed as e:
        raise FoldError(f"event 0 (the create record): {e.reason}") from None
    st0 = module.new_state(rules)
    f = Folded(create.game, module, rules, body, st0, states=[st0], verified=verified)
    f.last_hash = create.hash
    f.last_time = create.time
    return f


def fold(records: Sequence[Entry], verified: bool = False) -> Folded:
    """Replays a game's records. ``verified``: the caller checked the records' hash chain and
    signatures, so their actions are applied without checking them again (see the module's
    docstring for the exceptions). Raises FoldError when the log is not a referee log or was
    made under other rules.

    Two passes: the first reads every record and settles which operations are in effect
    (corrections only add, drop or replace operations: an undo keeps those up to its event,
    an amend replaces one); the second parses those actions and applies them, once each,
    stopping where one no longer applies (``broken``). That is the state :func:`step` reaches
    record by record, without parsing or running the rules on what a later undo drops (an
    action the server wrote was parsed when it was accepted). ``records`` may be entries read
    in their stored form (:class:`~referee.log.Entry`): a record is built only where the fold
    keeps one (a question, a call, an irregularity, a correction, a ruling)."""
    if not records:
        raise FoldError("a game log starts with its create record")
    f = start(records[0].record(), verified)
    ops: list[tuple[int, Entry | Patch]] = []  # an action's source: the record that states it
    moved: Entry | None = None  # the last action, question or correction
    for r in records[1:]:
        kind = r.kind
        if kind == "action":  # most records: noted here, at the cost of a few lines
            f.question = None  # an action settles the question
            f.proposals.clear()  # a proposal is made on the table as it was
            ops.append((r.seq, r))
            moved = r
            continue
        if kind in MOVES:
            moved = r
        if kind == "observation":
            body = r.body
            _note(f, r, body)
            if body.get("identifies"):
                ops.append((r.seq, _patch(f, r.seq, body)))
        elif kind == "undo":
            _note(f, r)
            to = _number(r, "to")
            ops = [op for op in ops if op[0] <= to]
        elif kind == "amend":
            _note(f, r)
            target = _number(r, "event")
            idx = next((i for i, (s, _) in enumerate(ops) if s == target), None)
            if idx is not None:
                ops[idx] = (target, r)
                f.recheck.update(s for s, _ in ops[idx:])
        else:
            _note(f, r)
    last = records[-1]
    f.last_seq, f.last_hash, f.last_time = last.seq, last.hash, last.time
    f.last_move = moved.record() if moved is not None else None
    f.ops = [
        (seq, op if isinstance(op, Patch) else _action(f, op.body.get("action"), op.seq))
        for seq, op in ops
    ]
    _replay(f, 0)
    return f


def _number(r: Entry, key: str) -> int:
    """The event number a correction names: one before it (an amend: not the create record).
    Raises FoldError for a corrupt body."""
    n = r.body.get(key)
    if isinstance(n, bool) or not isinstance(n, int):
        raise FoldError(f"event {r.seq}: {r.kind} names no event number in {key!r}")
    if not (1 if r.kind == "amend" else 0) <= n < r.seq:
        raise FoldError(f"event {r.seq}: {r.kind} names event {n}, which is not before it")
    return n


def _action(f: Folded, raw: Any, seq: int) -> Any:
    try:
        return f.module.parse_action(raw, f"event {seq}")
    except Malformed as e:
        raise FoldError(e.reason) from None


def _patch(f: Folded, seq: int, body: Mapping[str, Any]) -> Patch:
    try:
        return Patch(f.module.patch(f.rules, body))
    except RuleError as e:
        raise FoldError(f"event {seq}: {e.reason}") from None


def _note(f: Folded, r: Entry, body: Mapping[str, Any] | None = None) -> None:
    """What a record tells besides the operations: the head, the open question, calls,
    irregularities, corrections and what the judge settled (``body``: the record's body, when
    the caller read it already). Raises FoldError for a corrupt body."""
    f.last_seq, f.last_hash, f.last_time = r.seq, r.hash, r.time
    kind = r.kind
    if kind in MOVES:
        f.last_move = r.record()
    if kind == "action":
        f.question = None  # an action settles the question
    elif kind == "ask":
        f.question = r.record()
    elif kind == "observation":
        if (body if body is not None else r.body).get("irregularity"):
            f.irregularities.append(r.record())
    elif kind == "irregularity":
        rec = r.record()
        f.irregularities.append(rec)
        held = rec.body.get("held")
        if isinstance(held, str):
            f.held[held] = rec
    elif kind == "call":
        f.calls.append(r.record())
    elif kind == "resolve":
        target = (body if body is not None else r.body).get("event")
        if isinstance(target, int):
            f.resolved[target] = r.record()
    elif kind in ("undo", "amend"):
        f.question = None  # a correction withdraws the question
        f.corrections.append(r.record())
    elif kind in SEAT_KINDS:
        _note_seat(f, r.record())
    if kind in ("action", "undo", "amend"):
        f.proposals.clear()  # a proposal is made on the table as it was; the table moved on


MOVES = frozenset({"action", "ask", "undo", "amend"})  # what a take-back looks back to
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
        f.held.pop(seat, None)  # settled: the seat is on one device again
        asked = body.get("request")
        f.requests = {
            s: q for s, q in f.requests.items() if s != asked and q.body.get("seat") != seat
        }
    elif r.kind == "reissue" and isinstance(seat, str):
        f.holders.pop(seat, None)  # the new link claims the seat on its first device
        f.held.pop(seat, None)
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


def step(f: Folded, r: Record, outcome: Outcome[Any] | None = None) -> None:
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
        _push(f, r.seq, _patch(f, r.seq, r.body))
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
        f.recheck.update(s for s, _ in ops[idx:])  # the amended action and what it moved
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
