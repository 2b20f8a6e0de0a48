"""State is a fold over the log: replaying the records gives the game exactly as it was.

The fold keeps the *effective* operations: actions and identity patches (from observations,
D20). A judge's ``undo`` to event N drops the effective operations after N; an ``amend``
replaces the action of one event and replays what follows it. Nothing is ever deleted from the
log itself. When an amended history makes a later action illegal, the fold stops there and says
so (``broken``), for the judge; the operations from there on are kept aside (``suspended``) until
a later correction (an amend of that event or an earlier one, or an undo) makes them apply again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import (
    Action,
    GameState,
    HeraZeusError,
    Outcome,
    Player,
    Profile,
    Ruleset,
    apply,
    new_game,
    parse_action,
)
from engine.cards import Card, default_catalogue
from engine.errors import NotationError
from engine.game import parse_card_name
from engine.profiles import parse_profile, parse_switches
from engine.state import slot
from referee.log import Record


class FoldError(HeraZeusError):
    """A log that cannot be replayed (not a referee log, or a corrupt body)."""


@dataclass(frozen=True, slots=True)
class Patch:
    """An identity learned from an observation: the unknown card at ``where`` is ``card``."""

    player: Player
    zone: str  # hand | field
    column: int  # 1-based, field only
    position: int  # 1-based, field only
    card: Card


@dataclass
class Folded:
    """The game as the log says it is now."""

    game: str
    ruleset: Ruleset
    create: Mapping[str, Any]
    state: GameState
    ops: list[tuple[int, Action | Patch]] = field(default_factory=list)  # effective, by seq
    states: list[GameState] = field(default_factory=list)  # states[i]: after ops[:i]
    outcomes: dict[int, Outcome] = field(default_factory=dict)  # seq -> outcome of its action
    irregularities: list[Record] = field(default_factory=list)
    corrections: list[Record] = field(default_factory=list)
    broken: str | None = None  # why the replay stopped early, if it did
    suspended: list[tuple[int, Action | Patch]] = field(default_factory=list)  # from the break on
    last_seq: int = 0
    last_hash: str = ""
    last_time: str = ""
    pending: Record | None = None  # the open question (an ``ask`` record), if any
    calls: list[Record] = field(default_factory=list)  # judge calls
    resolved: dict[int, Record] = field(default_factory=dict)  # seq settled -> resolve record

    def copy(self) -> Folded:
        """A snapshot to fold further without touching this one (readers keep theirs)."""
        return Folded(
            self.game,
            self.ruleset,
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
            self.pending,
            list(self.calls),
            dict(self.resolved),
        )

    def open_items(self) -> list[Record]:
        """Irregularities and judge calls the judge has not resolved yet."""
        items = [*self.irregularities, *self.calls]
        return sorted((r for r in items if r.seq not in self.resolved), key=lambda r: r.seq)

    def state_at(self, seq: int) -> GameState:
        """The state right after event ``seq`` (through the effective operations)."""
        n = sum(1 for s, _ in self.ops if s <= seq)
        return self.states[min(n, len(self.states) - 1)]


def ruleset_from_create(body: Mapping[str, Any]) -> Ruleset:
    """The game's rules from its create record. Raises NotationError."""
    profile = parse_profile(body.get("profile", Profile.RIO_GRANDE.value))
    switches = parse_switches(body.get("switches"))
    cat = default_catalogue()
    kit = body.get("catalogue")
    if kit:
        from engine.errors import CatalogueError

        try:
            strengths = kit.get("strengths", {})
            copies = {
                (Player.parse(d), n): c
                for d, names in kit.get("copies", {}).items()
                for n, c in names.items()
            }
            cat = cat.with_overrides(
                strengths=strengths, copies=copies, provisional=bool(kit.get("provisional", False))
            )
        except (CatalogueError, ValueError, AttributeError) as e:
            raise NotationError(f"bad kit catalogue: {e}", "create.catalogue") from None
    return Ruleset.build(profile, switches, cat)


def apply_patch(st: GameState, p: Patch) -> GameState:
    """The state with one unknown card identified. Raises ValueError when nothing is unknown
    there."""
    side = st.sides[p.player]
    if p.zone == "hand":
        hand = list(side.hand)
        u = next((i for i, c in enumerate(hand) if c.is_unknown), None)
        if u is None:
            raise ValueError("no unknown card in that hand")
        hand[u] = p.card
        side = side.evolve(hand=tuple(hand))
    else:
        cols = [list(c) for c in side.field]
        s = cols[p.column - 1][p.position - 1]
        if s.card is None or not s.card.is_unknown:
            raise ValueError("that field card is not unknown")
        cols[p.column - 1][p.position - 1] = slot(p.card, s.up)
        side = side.evolve(field=(tuple(cols[0]), tuple(cols[1]), tuple(cols[2])))
    return st.evolve(sides=st.with_side(p.player, side))


def patch_from_body(st: GameState, body: Mapping[str, Any]) -> Patch:
    """The patch an identifying observation carries. Raises NotationError."""
    who = Player.parse(str(body.get("player")))
    c = parse_card_name(str(body.get("card")), who, st, "card")
    zone = body.get("zone")
    if zone not in ("hand", "field"):
        raise NotationError("zone must be 'hand' or 'field'", "zone")
    return Patch(who, zone, int(body.get("column", 0) or 0), int(body.get("position", 0) or 0), c)


def _replay(f: Folded, start: int) -> None:
    """Recomputes states and outcomes from effective op ``start`` on."""
    del f.states[start + 1 :]
    f.broken = None
    st = f.states[start]
    for i in range(start, len(f.ops)):
        seq, op = f.ops[i]
        try:
            if isinstance(op, Patch):
                st = apply_patch(st, op)
                f.outcomes.pop(seq, None)
            else:
                out = apply(st, op)
                f.outcomes[seq] = out
                st = out.state
        except (HeraZeusError, ValueError) as e:
            f.broken = f"event {seq} no longer applies after the correction: {e}"
            f.suspended = f.ops[i:]
            del f.ops[i:]
            break
        f.states.append(st)
    f.state = f.states[-1]


def fold(records: Sequence[Record]) -> Folded:
    """Replays a game's records. Raises FoldError when the log is not a referee log."""
    if not records or records[0].kind != "create":
        raise FoldError("a game log starts with its create record")
    create = records[0].body
    try:
        rs = ruleset_from_create(create)
    except NotationError as e:
        raise FoldError(str(e)) from None
    st0 = new_game(rs)
    f = Folded(records[0].game, rs, create, st0, states=[st0])
    f.last_hash = records[0].hash
    f.last_time = records[0].time
    for r in records[1:]:
        step(f, r)
    return f


def step(f: Folded, r: Record) -> None:
    """Folds one more record into ``f`` (in place). Raises FoldError for a corrupt body."""
    f.last_seq, f.last_hash, f.last_time = r.seq, r.hash, r.time
    if r.kind in ("action", "undo", "amend"):
        f.pending = None  # an action settles the question; a correction withdraws it
    if r.kind == "action":
        try:
            action = parse_action(r.body.get("action"), f"event {r.seq}")
        except NotationError as e:
            raise FoldError(str(e)) from None
        _push(f, r.seq, action)
    elif r.kind == "ask":
        f.pending = r
    elif r.kind == "observation":
        if r.body.get("identifies"):
            try:
                patch = patch_from_body(f.state, r.body)
            except (NotationError, ValueError) as e:
                raise FoldError(f"event {r.seq}: {e}") from None
            _push(f, r.seq, patch)
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
    elif r.kind == "undo":
        f.corrections.append(r)
        to = int(r.body["to"])
        keep = sum(1 for s, _ in f.ops if s <= to)
        f.ops = [op for op in (*f.ops, *f.suspended) if op[0] <= to]
        f.suspended = []
        _replay(f, keep)
    elif r.kind == "amend":
        f.corrections.append(r)
        target = int(r.body["event"])
        ops = [*f.ops, *f.suspended]  # an amend may repair the event that broke the replay
        idx = next((i for i, (s, _) in enumerate(ops) if s == target), None)
        if idx is None:
            return
        try:
            ops[idx] = (target, parse_action(r.body.get("action"), f"event {r.seq}"))
        except NotationError as e:
            raise FoldError(str(e)) from None
        start = min(idx, len(f.ops))
        f.ops, f.suspended = ops, []
        _replay(f, start)


def _push(f: Folded, seq: int, op: Action | Patch) -> None:
    """One more effective operation; kept aside while the replay is broken."""
    if f.broken is not None:
        f.suspended.append((seq, op))
        return
    f.ops.append((seq, op))
    _replay(f, len(f.ops) - 1)
