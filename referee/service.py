"""The referee service: runs games for a physical table, from setup to result.

One :class:`Referee` serves many games over one :class:`~referee.store.Store`. Every change is a
signed log record appended durably before it is acknowledged, one transaction a call; the state
is a fold over the log (:mod:`referee.fold`), verified (chain and signatures) when a game is
loaded. Each seat reads only what it may see (:mod:`referee.views`), errors included:

- D22: a player never states a card hidden from him. A submission that does is refused before
  anything is compared, with one answer whatever it names. The card's holder (or the judge, or
  a scan) is asked instead, and the question is a log record (``ask``), so it survives a
  restart and every process sees it.
- A player's submission is judged on the table as he knows it (:func:`referee.views.project`):
  a refusal never depends on a card hidden from him.
- A statement that contradicts what is recorded about one's own cards becomes an irregularity
  for the judge (D20), inside the same transaction.

Several processes may serve one database: before answering, a process reads the game's head and
folds what other processes appended; two writers racing for the same seq are told apart by the
store (one wins, the other retries on the new head).

Errors (all :class:`ServiceError`): ``NotFound``, ``Forbidden`` (seat may not do that),
``Refused`` (illegal or malformed; carries the rule), ``Stale`` (sequence or key already used),
``NeedsInput`` (an identity or choice is missing; says from whom), ``Held`` (the game's record
failed verification), ``Unavailable`` (storage failed; nothing was written).
"""

from __future__ import annotations

import hashlib
import json
import secrets as _secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from engine import (
    RULES,
    Action,
    IllegalActionError,
    NeedsInputError,
    NotationError,
    Player,
    apply,
    check,
    legal_actions,
    parse_action,
)
from engine.actions import (
    Challenge,
    Deal,
    DeclareStuck,
    FirstRow,
    PegasusField,
    PegasusHand,
    PythiaReveal,
    PythiaSpy,
    Redeal,
    Redraw,
    Starter,
)
from engine.cards import Kind
from engine.game import parse_card_name
from engine.state import GameState, Phase
from referee.fold import Folded, FoldError, fold, patch_from_body, ruleset_from_create, step
from referee.keys import Signer
from referee.log import GENESIS, Header, Record, export_text, verify
from referee.store import Conflict, Store, StoreError
from referee.validate import InputError, game_id, idem_key, integer, json_value, mapping, text
from referee.views import (
    PLAYER_SEATS,
    SEATS,
    legal_for,
    project,
    redact,
    sealed_paths,
    view_for,
)

CACHE_GAMES = 256  # games kept folded in memory; the least recently used leave first
POLL = 0.25  # seconds between looks at the store while waiting (other processes' appends)


class ServiceError(Exception):
    """Base of the service's refusals. ``rule`` is the deciding rule id, when one applies."""

    status = 400

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": type(self).__name__, "message": self.message}
        if self.rule:
            out["rule"] = self.rule
        return out


class NotFound(ServiceError):
    status = 404


class Forbidden(ServiceError):
    status = 403


class Refused(ServiceError):
    status = 422


class Held(ServiceError):
    """The game's record failed verification: it is not served until the judge settles it."""

    status = 423


class Unavailable(ServiceError):
    """Storage failed (full disk, read-only file, locked database); nothing was written."""

    status = 503


class Stale(ServiceError):
    status = 409

    def __init__(self, message: str, existing_seq: int | None = None, seq: int | None = None):
        super().__init__(message)
        self.existing_seq = existing_seq
        self.seq = seq  # the game's current last seq, when known

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if self.seq is not None:
            out["seq"] = self.seq
        if self.existing_seq is not None:
            out["existing_seq"] = self.existing_seq
        return out


class NeedsInput(ServiceError):
    status = 202

    def __init__(
        self, message: str, rule: str, needs: str, asked: tuple[str, ...], seq: int | None = None
    ) -> None:
        super().__init__(message, rule)
        self.needs = needs
        self.asked = asked
        self.seq = seq  # the ``ask`` record, when the question was recorded for another seat

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out.update(needs=self.needs, asked=list(self.asked))
        if self.seq is not None:
            out["seq"] = self.seq
        return out


def _input(e: InputError) -> Refused:
    return Refused(str(e))


def _short(v: Any) -> str:
    """A value quoted in a message: text cut short, anything else by its type (``str`` of a
    huge int raises, and of a deep list recurses)."""
    return v[:20] if isinstance(v, str) else f"<{type(v).__name__}>"


class Clock(Protocol):
    def now(self) -> str: ...


class SystemClock:
    def now(self) -> str:
        return datetime.now(UTC).isoformat(timespec="microseconds")


class FixedClock:
    """A clock for tests: starts at a fixed instant and ticks one second per reading."""

    def __init__(self, start: str = "2026-01-01T00:00:00+00:00") -> None:
        self._t = datetime.fromisoformat(start)
        self._n = 0
        self._lock = threading.Lock()

    def now(self) -> str:
        with self._lock:
            self._n += 1
            n = self._n
        return (self._t + timedelta(seconds=n)).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class Created:
    game: str
    codes: dict[str, str]  # seat -> secret join code (hera, zeus, judge)


@dataclass(frozen=True)
class Receipt:
    """What a submitter gets back: the event number, its events as he may see them, the view."""

    seq: int
    events: list[dict[str, Any]]
    view: dict[str, Any]
    rules: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "events": self.events,
            "rules": self.rules,
            "notes": self.notes,
            "view": self.view,
        }


def code_hash(code: str) -> str:
    """How a join code is stored: only its SHA-256 (a stolen database opens no seat)."""
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


def _settled(f: Folded) -> None:
    """Raises Refused while a correction has left the record broken: nothing more is recorded
    on it until the judge settles it (an undo, or an amend of the event that no longer applies).
    """
    if f.broken is not None:
        raise Refused(
            "the record is held: after a correction an earlier event no longer applies; the "
            "judge must settle it first (undo, or amend that event)"
        )


def fill_input(raw: dict[str, Any], path: str, value: Any) -> None:
    """Puts an answer into an action at the dotted path the referee asked for (``reveal.defender``,
    ``order.zeus``, ``pick``)."""
    parts = path.split(".")
    cur = raw
    for p in parts[:-1]:
        nxt = cur.get(p)
        if not isinstance(nxt, dict):
            nxt = {}
            cur[p] = nxt
        cur = nxt
    cur[parts[-1]] = value


def stated_hidden(st: GameState, action: Action, seat: str) -> str | None:
    """D22: the field of ``action`` in which player ``seat`` states a card hidden from him, or
    None. Decided from the action's form and what the seat sees (faces up or down), never from
    what the hidden card is."""
    if seat not in PLAYER_SEATS:
        return None
    me = Player.parse(seat)
    opp = me.other
    for who, names in getattr(action, "order", ()):
        if who is opp and names:
            return f"order.{opp.key}"
    if isinstance(action, PegasusHand):
        if action.pick is not None:
            return "pick"
    elif isinstance(action, Challenge):
        if action.defender is not None and not _face_up(st, opp, action.column, 1):
            return "reveal.defender"
    elif isinstance(action, PegasusField):
        if action.target is not None and not _face_up(st, opp, action.column, 1):
            return "reveal.target"
    elif isinstance(action, PythiaSpy):
        if action.hand:
            return "reveal.hand"
    elif isinstance(action, PythiaReveal) and action.cards:
        return "reveal.cards"
    return None


def _face_up(st: GameState, p: Player, column: int, position: int) -> bool:
    col = st.sides[p].field[column - 1] if 1 <= column <= 3 else ()
    return len(col) >= position and col[position - 1].up


class Referee:
    """Games, seats and the log over one store. Thread-safe: one lock per game for writers;
    readers take an immutable snapshot and never wait."""

    def __init__(
        self,
        store: Store,
        clock: Clock | None = None,
        token: Callable[[], str] | None = None,
        signer: Signer | None = None,
        cache_games: int = CACHE_GAMES,
    ) -> None:
        self.store = store
        self.clock = clock or SystemClock()
        self.token = token or (lambda: _secrets.token_urlsafe(16))  # 128 random bits
        self.signer = signer or Signer.generate()
        self._locks: dict[str, threading.Lock] = {}
        self._cache: OrderedDict[str, Folded] = OrderedDict()
        self._cache_games = max(1, cache_games)
        self._guard = threading.Lock()
        self._changed: dict[str, threading.Condition] = {}

    # ---- plumbing ------------------------------------------------------------------------

    def _lock(self, game: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(game, threading.Lock())

    def _cond(self, game: str) -> threading.Condition:
        with self._guard:
            return self._changed.setdefault(game, threading.Condition())

    def _remember(self, f: Folded) -> None:
        with self._guard:
            self._cache[f.game] = f
            self._cache.move_to_end(f.game)
            while len(self._cache) > self._cache_games:
                self._cache.popitem(last=False)

    def _public_key(self, game: str) -> str:
        """The key a game's records are signed with: this server's, or an imported log's."""
        return self._secrets(game).get("key:public", self.signer.public_b64)

    def _secrets(self, game: str) -> dict[str, str]:
        try:
            return self.store.secrets(game)
        except StoreError as e:
            raise Unavailable(str(e)) from None

    def _header(self, game: str, seat: str) -> Header:
        from referee.keys import fingerprint_of, parse_public_key

        pk = self._public_key(game)
        return Header(game, seat, pk, fingerprint_of(parse_public_key(pk)))

    def _load(self, game: str, records: list[Record]) -> Folded:
        """Verifies a game's whole record (chain and signatures) and folds it. Raises Held."""
        v = verify(self._header(game, "judge"), records)
        if not v.ok:
            raise Held(f"game {game!r} failed verification: {v.message()}")
        try:
            return fold(records)
        except FoldError as e:
            raise Held(f"game {game!r} cannot be replayed: {e}") from None

    def folded(self, game: str) -> Folded:
        """The game as the log says it is now, fresh: what other processes appended is folded in
        first. Raises NotFound, Held (failed verification), Unavailable, or Refused for a
        malformed game id."""
        try:
            game_id(game)
        except InputError as e:
            raise _input(e) from None
        with self._guard:
            f = self._cache.get(game)
            if f is not None:
                self._cache.move_to_end(game)
        try:
            head = self.store.head(game)
            if head is None:
                raise NotFound(f"no game {game!r}")
            if f is not None and head == (f.last_seq, f.last_hash):
                return f
            if f is not None and head[0] > f.last_seq:
                newer = self.store.records(game, after=f.last_seq)
                g = self._extend(f, newer)
                if g is not None:
                    return g
            records = self.store.records(game)
        except StoreError as e:
            raise Unavailable(str(e)) from None
        if not records:
            raise NotFound(f"no game {game!r}")
        f = self._load(game, records)
        self._remember(f)
        return f

    def _extend(self, f: Folded, newer: list[Record]) -> Folded | None:
        """``f`` with records appended by another process folded in, each checked (chain,
        hash, signature); None when they do not follow on (then the game is reloaded whole)."""
        from referee.keys import parse_public_key, signature_ok

        pk = parse_public_key(self._public_key(f.game))
        g = f.copy()
        prev = f.last_hash
        for r in newer:
            if (
                r.game != f.game
                or r.seq != g.last_seq + 1
                or r.prev != prev
                or r.compute_hash() != r.hash
                or not signature_ok(pk, r.hash, r.sig)
            ):
                return None
            try:
                step(g, r)
            except FoldError:
                return None
            prev = r.hash
        self._remember(g)
        return g

    def _seal(
        self,
        game: str,
        seq: int,
        prev: str,
        seat: str,
        kind: str,
        body: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]] = (),
        key: str | None = None,
    ) -> Record:
        r = Record(
            game,
            seq,
            self.clock.now(),
            seat,
            kind,
            dict(body),
            tuple(events),
            key,
            prev,
            "",
            self.token() + self.token(),
        )
        r = Record(
            r.game,
            r.seq,
            r.time,
            r.seat,
            r.kind,
            r.body,
            r.events,
            r.key,
            r.prev,
            "",
            r.nonce,
            sealed_paths(r),
        )
        return r.sealed_with(self.signer.sign)

    def _write(
        self,
        game: str,
        build: Callable[
            [Folded],
            list[tuple[str, str, Mapping[str, Any], Sequence[Mapping[str, Any]], str | None]],
        ],
        secrets: Mapping[str, str] | None = None,
        fresh: Folded | None = None,
    ) -> tuple[list[Record], Folded]:
        """Builds records on the fresh game and appends them in one transaction; when another
        process appended first, builds again on the new head (a few times). Returns the records
        and the game after them. ``build`` may raise a ServiceError: then nothing is written.
        ``fresh``: the snapshot the caller just read under the game's lock (saves a read; the
        store still refuses the append if another process wrote since)."""
        for _ in range(5):
            f = fresh if fresh is not None else self.folded(game)
            fresh = None
            specs = build(f)
            recs: list[Record] = []
            seq, prev = f.last_seq, f.last_hash
            for seat, kind, body, events, key in specs:
                seq += 1
                r = self._seal(game, seq, prev, seat, kind, body, events, key)
                recs.append(r)
                prev = r.hash
            try:
                self.store.append(recs, secrets)
            except Conflict as e:
                if e.existing is not None:
                    raise Stale(
                        f"already applied as event {e.existing.seq} (same key)", e.existing.seq
                    ) from None
                continue  # another process wrote first: build again on its head
            except StoreError as e:
                raise Unavailable(str(e)) from None
            g = f.copy()
            for r in recs:
                step(g, r)
            self._remember(g)
            self._notify(game)
            return recs, g
        raise Stale("the game kept changing under this request; reload and try again")

    def _notify(self, game: str) -> None:
        c = self._cond(game)
        with c:
            c.notify_all()

    # ---- games ---------------------------------------------------------------------------

    def create_game(
        self,
        *,
        profile: str = "rio-grande",
        switches: Mapping[str, str] | None = None,
        players: Mapping[str, str] | None = None,
        starting: str | None = None,
        catalogue: Mapping[str, Any] | None = None,
        game: str | None = None,
        kit: Mapping[str, Any] | None = None,
    ) -> Created:
        """Starts a game in setup, codes and first records in one transaction. ``starting``:
        ``hera``/``zeus``, None for the D19 default, ``"table"`` to decide at the table.
        Raises Refused for a bad profile, switch, player, kit or id."""
        try:
            text(profile, "profile", max_len=40)
            sw = mapping(switches or {}, "switches")
            pl = mapping(players or {}, "players")
            for k, v in pl.items():
                if k not in PLAYER_SEATS:
                    raise InputError(f"players: {k[:20]!r} is not a player (hera or zeus)")
                text(v, f"players.{k}", max_len=40)
            if catalogue is not None:
                mapping(catalogue, "catalogue")
            gid = game_id(game) if game is not None else None
            if starting is not None:
                text(starting, "starting", max_len=10)
        except InputError as e:
            raise _input(e) from None
        body: dict[str, Any] = {
            "profile": profile,
            "switches": {str(k): v for k, v in sw.items()},
            "players": {"hera": "Hera", "zeus": "Zeus", **pl},
        }
        if catalogue:
            body["catalogue"] = dict(catalogue)
        try:
            rs = ruleset_from_create(body)
        except NotationError as e:
            raise Refused(str(e)) from None
        first: str | None
        fixed = rs.fixed_starting_player()
        if starting == "table":
            first = fixed.key if fixed else None
        elif starting is not None:
            try:
                st = Player.parse(starting)
            except ValueError as e:
                raise Refused(str(e), "D19") from None
            if fixed is not None and st is not fixed:
                raise Refused(f"under the {profile} profile {fixed.title} always starts", "D19")
            first = st.key
        else:
            first = fixed.key if fixed else "hera"  # D19: Hera by default
        gid = gid or self.token()[:10].replace("_", "x").replace("-", "y")
        try:
            if self.store.head(gid) is not None:
                raise Refused(f"game {gid!r} exists already")
        except StoreError as e:
            raise Unavailable(str(e)) from None
        codes = {s: self.token() for s in ("hera", "zeus", "judge")}
        stored = {s: code_hash(c) for s, c in codes.items()}
        if kit is not None:
            # the kit (with its secret, which makes fake codes detectable) stays on the server;
            # the log names only its id
            kit_text = json.dumps(dict(kit), sort_keys=True)
            if len(kit_text) > 1_000_000:
                raise Refused("kit: larger than a kit file can be")
            body["kit"] = {"id": str(kit.get("kit_id", kit.get("id", "")))[:20]}
            stored["kit"] = kit_text
        create = self._seal(gid, 0, GENESIS, "system", "create", body)
        recs = [create]
        if first is not None:
            f0 = fold([create])
            action = parse_action({"do": "starter", "player": first}, "action")
            out = apply(f0.state, action)
            recs.append(
                self._seal(
                    gid,
                    1,
                    create.hash,
                    "judge",
                    "action",
                    {"action": action.to_json(), "actor": first},
                    tuple(e.to_json() for e in out.events),
                )
            )
        try:
            self.store.append(recs, stored)
        except Conflict:
            raise Refused(f"game {gid!r} exists already") from None
        except StoreError as e:
            raise Unavailable(str(e)) from None
        return Created(gid, codes)

    def kit(self, game: str) -> dict[str, Any] | None:
        """The sticker kit the game was created with (``kit.json``, secret included: for the
        server's camera code only, never for a page), or None for manual entry. Raises Refused
        for a malformed game id."""
        try:
            game_id(game)
        except InputError as e:
            raise _input(e) from None
        raw = self._secrets(game).get("kit")
        return json.loads(raw) if raw else None

    def seat_for_code(self, game: str, code: str) -> str:
        """The seat a join code opens; anyone without one is the public. Constant time."""
        try:
            game_id(game)
            text(code, "code", max_len=200)
        except InputError:
            return "public"
        h = code_hash(code)
        seat = "public"
        for name, stored in sorted(self._secrets(game).items()):
            if name in ("hera", "zeus", "judge") and _secrets.compare_digest(stored, h):
                seat = name
        return seat

    def reissue(self, game: str, seat: str, target: str) -> str:
        """Revokes ``target``'s join code and returns a new one (a lost phone). Judge only; the
        reissue is recorded (without the code)."""
        self._judge(seat)
        try:
            game_id(game)
        except InputError as e:
            raise _input(e) from None
        if target not in ("hera", "zeus", "judge"):
            raise Refused(f"seat {_short(target)!r} has no join code (hera, zeus or judge)")
        code = self.token()
        with self._lock(game):
            self._write(
                game,
                lambda f: [(seat, "reissue", {"seat": target}, (), None)],
                {target: code_hash(code)},
            )
        return code

    def games(self) -> list[str]:
        try:
            return self.store.games()
        except StoreError as e:
            raise Unavailable(str(e)) from None

    def fingerprint(self) -> str:
        """This server's signing key fingerprint (for the players' score sheet)."""
        return self.signer.fingerprint

    def head(self, game: str) -> dict[str, Any]:
        f = self.folded(game)
        return {"seq": f.last_seq, "hash": f.last_hash}

    # ---- reading -------------------------------------------------------------------------

    def view(self, game: str, seat: str) -> dict[str, Any]:
        """The table as ``seat`` sees it, with its legal actions when it may act. Board and
        sequence come from one snapshot."""
        self._seat(seat)
        f = self.folded(game)
        return self._view(f, seat)

    def _view(self, f: Folded, seat: str) -> dict[str, Any]:
        st = f.state
        out = view_for(st, seat)
        out["game"] = f.game
        out["seq"] = f.last_seq
        out["head"] = {"seq": f.last_seq, "hash": f.last_hash}
        out["players"] = dict(f.create.get("players", {}))
        kit = f.create.get("kit")
        out["kit"] = "kit" if kit or f.create.get("catalogue") else "manual"
        if isinstance(kit, Mapping):
            out["kit_id"] = kit.get("id")
        if st.phase is Phase.PLAY and seat in (st.player.key, "judge") and f.broken is None:
            out["legal"] = legal_for(legal_actions(project(st, seat)), seat)
        pend = f.pending
        if pend is not None:
            asked = tuple(pend.body.get("asked", ()))
            if seat in asked or seat == "judge" or seat == pend.body.get("by"):
                q: dict[str, Any] = {
                    "needs": pend.body.get("needs"),
                    "by": pend.body.get("by"),
                    "asked": list(asked),
                    "rule": pend.body.get("rule"),
                    "reason": pend.body.get(
                        "detail" if seat in asked or seat == "judge" else "reason",
                        pend.body.get("reason"),
                    ),
                    "seq": pend.seq,
                }
                pick = pend.body.get("action", {}).get("pick")
                if pick is not None:  # the drawn card: both saw it come out (D2, D22)
                    q["pick"] = pick
                out["asked"] = q
            else:
                out["waiting"] = {"for": list(asked), "needs": pend.body.get("needs")}
        if seat == "judge":
            out["irregularities"] = [r.to_json() for r in f.irregularities]
            out["open"] = [_item(r) for r in f.open_items()]
            out["broken"] = f.broken
        out["calls_open"] = sum(1 for r in f.calls if r.seq not in f.resolved)
        return out

    def overview(self, seat: str) -> list[dict[str, Any]]:
        """All tables at a glance, for the judge."""
        self._judge(seat)
        out: list[dict[str, Any]] = []
        for g in self.games():
            try:
                f = self.folded(g)
            except Held as e:
                out.append({"game": g, "held": e.message})
                continue
            st = f.state
            items = f.open_items()
            out.append(
                {
                    "game": g,
                    "players": dict(f.create.get("players", {})),
                    "phase": st.phase.value,
                    "turn": {"player": st.player.key, "ap": st.ap, "used": st.used},
                    "winner": st.winner.key if st.winner else None,
                    "reason": st.reason.value if st.reason else None,
                    "open_calls": sum(1 for r in items if r.kind == "call"),
                    "open_irregularities": sum(1 for r in items if r.kind != "call"),
                    "waiting": f.pending is not None,
                    "broken": f.broken,
                    "last_time": f.last_time,
                    "head": {"seq": f.last_seq, "hash": f.last_hash},
                }
            )
        return out

    def log(self, game: str, seat: str, upto: int | None = None) -> list[Record]:
        """The game's records as ``seat`` may read them (cut copies for everyone but the
        judge); verified first."""
        self._seat(seat)
        if upto is not None:
            try:
                integer(upto, "upto", -1, 10**9)
            except InputError as e:
                raise _input(e) from None
        self.folded(game)  # verified, fresh
        try:
            records = self.store.records(game, upto=upto)
        except StoreError as e:
            raise Unavailable(str(e)) from None
        return [redact(r, seat) for r in records]

    def export(self, game: str, seat: str) -> str:
        """JSON lines: a header (seat, the signing key and its fingerprint), then the records as
        ``seat`` may read them. Verifies with ``referee verify``."""
        records = self.log(game, seat)
        return export_text(self._header(game, seat), records)

    def replay(self, game: str, seat: str) -> list[dict[str, Any]]:
        """Event by event as ``seat`` may see it: each cut record (JSON), the table after it
        as that seat saw it, and the rules its action applied."""
        self._seat(seat)
        self.folded(game)
        try:
            records = self.store.records(game)
        except StoreError as e:
            raise Unavailable(str(e)) from None
        f = fold(records[:1])
        out: list[dict[str, Any]] = []
        for i, r in enumerate(records):
            if i:
                step(f, r)
            o = f.outcomes.get(r.seq) if r.kind == "action" else None
            out.append(
                {
                    "record": redact(r, seat).to_json(),
                    "view": self._view(f, seat),
                    "rules": list(o.rules) if o is not None else [],
                }
            )
        return out

    def wait(self, game: str, seq: int, timeout: float) -> int:
        """Blocks until the game's last seq passes ``seq`` or ``timeout`` seconds pass; returns
        the last seq. Notices other processes' appends within ``POLL`` seconds. Raises Refused
        for a malformed argument, NotFound or Unavailable."""
        try:
            game_id(game)
            integer(seq, "seq", -1, 10**9)
            if isinstance(timeout, bool) or not isinstance(timeout, int | float):
                raise InputError(
                    f"timeout: must be a number of seconds, not {type(timeout).__name__}"
                )
            timeout = float(min(max(timeout, 0), 600))  # NaN compares false: taken as 0
        except InputError as e:
            raise _input(e) from None
        deadline = time.monotonic() + (timeout if timeout == timeout else 0.0)
        c = self._cond(game)
        while True:
            try:
                h = self.store.head(game)
            except StoreError as e:
                raise Unavailable(str(e)) from None
            if h is None:
                raise NotFound(f"no game {game!r}")
            left = deadline - time.monotonic()
            if h[0] > seq or left <= 0:
                return h[0]
            with c:
                c.wait(min(left, POLL))

    def import_log(self, text_: str, trust_key: str | None = None) -> str:
        """Stores a complete, verified log (a judge's export), in one transaction. A log signed
        by another server's key is imported only when ``trust_key`` names that key's
        fingerprint (anyone can sign a forged log with a key of his own). Raises Refused
        otherwise."""
        from referee.log import read_lines

        if not isinstance(text_, str):
            raise Refused(f"the log must be text, not {type(text_).__name__}")
        try:
            header, lines = read_lines(text_)
        except ValueError as e:
            raise Refused(f"the log cannot be read: {e}") from None
        if header.seat != "judge":
            raise Refused("only a judge's full log can be imported (this one is cut for a seat)")
        v = verify(header, lines)
        if not v.ok:
            raise Refused(f"the log does not verify: {v.message()}")
        try:
            fold(lines)
        except FoldError as e:
            raise Refused(f"the log cannot be replayed: {e}") from None
        gid = lines[0].game
        try:
            game_id(gid)
        except InputError as e:
            raise Refused(str(e)) from None
        extra = {}
        if header.public_key != self.signer.public_b64:
            if trust_key is None or trust_key.strip().lower() != header.fingerprint:
                raise Refused(
                    f"the log is signed by key {header.fingerprint}, not by this server "
                    f"({self.signer.fingerprint}); to import a log from another server, name "
                    "its key (--trust-key FINGERPRINT, from that server's score sheets)"
                )
            extra["key:public"] = header.public_key
        try:
            self.store.append(lines, extra)
        except Conflict:
            raise Refused(f"game {gid!r} exists already") from None
        except StoreError as e:
            raise Unavailable(str(e)) from None
        return gid

    # ---- acting --------------------------------------------------------------------------

    def _seat(self, seat: Any) -> None:
        if seat not in SEATS:
            raise Forbidden(f"unknown seat {_short(seat)!r}")

    def submit(
        self,
        game: str,
        seat: str,
        raw: Mapping[str, Any],
        *,
        expected_seq: int | None = None,
        key: str | None = None,
    ) -> Receipt:
        """Applies one action for ``seat``. ``expected_seq`` is the last event the client saw;
        ``key`` an idempotency key (per seat). Raises a ServiceError; on any error nothing is
        recorded, except a contradiction (an irregularity for the judge) or a question for
        another seat (NeedsInput with its ``seq``)."""
        self._seat(seat)
        if seat == "public":
            raise Forbidden("the public seat cannot act")
        try:
            game_id(game)
            raw = mapping(raw, "action")
            key = idem_key(key)
            if expected_seq is not None:
                integer(expected_seq, "expected_seq", -1, 10**9)
        except InputError as e:
            raise _input(e) from None
        with self._lock(game):
            return self._submit(game, seat, raw, expected_seq, key)

    def _refuse_pending(self, f: Folded, seat: str) -> None:
        p = f.pending
        if p is None or seat == "judge":
            return
        asked = p.body.get("asked", [])
        who = " or ".join(str(a).title() for a in asked)
        raise Refused(
            f"the referee is waiting for {who} to give {p.body.get('needs')} "
            f"({p.body.get('rule')}); nothing else is recorded until it is answered (HZ-P11)",
            "HZ-P11",
        )

    def _submit(
        self,
        game: str,
        seat: str,
        raw: dict[str, Any],
        expected_seq: int | None,
        key: str | None,
    ) -> Receipt:
        f = self.folded(game)
        if key is not None:
            hit = self._by_key(game, seat, key)
            if hit is not None:
                raise Stale(f"already applied as event {hit.seq} (same key)", hit.seq, f.last_seq)
        if expected_seq is not None and expected_seq != f.last_seq:
            raise Stale(
                f"stale: you saw event {expected_seq}, the game is at event "
                f"{f.last_seq}; reload and try again",
                seq=f.last_seq,
            )
        _settled(f)
        self._refuse_pending(f, seat)
        try:
            action = parse_action(raw, "action")
        except NotationError as e:
            raise Refused(str(e)) from None
        st = f.state
        hidden = stated_hidden(st, action, seat)
        if hidden is not None:
            raise Refused(
                f"{hidden}: a card hidden from you is stated by its holder, the judge or a scan, "
                "never by you",
                "D22",
            )
        if seat in PLAYER_SEATS and isinstance(action, PegasusHand) and action.place is not None:
            raise Refused(
                "place: the column is chosen once the drawn card is known; the referee asks for "
                "it then",
                "D2",
            )
        actor = self._actor(st, action, seat)
        if seat in PLAYER_SEATS:
            try:
                check(project(st, seat), action)
            except IllegalActionError as e:
                if e.rule != "D20":
                    raise Refused(e.reason, e.rule) from None
            except NeedsInputError:
                pass
            except NotationError as e:
                raise Refused(str(e)) from None
        return self._resolve(f, seat, seat, action, actor, key, seat in PLAYER_SEATS)

    def _resolve(
        self,
        f: Folded,
        submitter: str,
        writer: str,
        action: Action,
        actor: Player,
        key: str | None,
        projected: bool,
    ) -> Receipt:
        """Applies ``action`` (by ``submitter``; ``writer`` gave the last part of it) and
        records the outcome: the action, a question for another seat, or an irregularity.
        ``projected``: the player's action already passed the check on the table as he knows
        it, so a refusal now could only come from a card hidden from him: it goes to the judge
        as an irregularity and the player learns nothing from it."""
        try:
            out = apply(f.state, action)
        except NeedsInputError as e:
            asked = _asked(e, actor)
            if asked == (writer,) and writer == submitter:
                raise NeedsInput(e.reason, e.rule, e.needs, asked) from None
            told = _told(f.state, action, submitter, e, asked)
            body = {
                "action": action.to_json(),
                "actor": actor.key,
                "by": submitter,
                "needs": e.needs,
                "asked": list(asked),
                "rule": e.rule,
                "reason": told,
                "detail": e.reason,  # the engine's exact words: for the seat asked (D22)
            }
            recs, _ = self._write_checked(f, [(writer, "ask", body, (), key)])
            raise NeedsInput(told, e.rule, e.needs, asked, recs[0].seq) from None
        except IllegalActionError as e:
            if e.rule == "D20" or (projected and submitter in PLAYER_SEATS):
                # a statement that contradicts the record (D20); the judge settles it
                body = {
                    "source": "input",
                    "action": action.to_json(),
                    "rule": e.rule,
                    "problem": e.reason,
                }
                self._write_checked(f, [(writer, "irregularity", body, (), None)])
                raise Refused(
                    "this does not match what the referee recorded; the judge has been called "
                    "to settle it",
                    "D20",
                ) from None
            raise Refused(e.reason, e.rule) from None
        except NotationError as e:
            raise Refused(str(e)) from None
        body = {"action": action.to_json(), "actor": actor.key}
        events = tuple(e.to_json() for e in out.events)
        recs, g = self._write_checked(f, [(writer, "action", body, events, key)])
        rec = recs[0]
        return Receipt(
            rec.seq,
            [dict(ev) for ev in redact(rec, writer).events],
            self._view(g, writer),
            list(out.rules),
            list(out.notes),
        )

    def _write_checked(
        self,
        seen: Folded,
        specs: list[tuple[str, str, Mapping[str, Any], Sequence[Mapping[str, Any]], str | None]],
    ) -> tuple[list[Record], Folded]:
        """Writes records decided on the snapshot ``seen`` the caller checked; if another
        process wrote since, the request is stale (decided on an old table)."""

        def build(f: Folded) -> list[Any]:
            if f.last_seq != seen.last_seq:
                raise Stale(
                    f"the game moved on to event {f.last_seq}; reload and try again",
                    seq=f.last_seq,
                )
            return specs

        return self._write(seen.game, build, fresh=seen)

    def _by_key(self, game: str, seat: str, key: str) -> Record | None:
        try:
            return self.store.by_key(game, seat, key)
        except StoreError as e:
            raise Unavailable(str(e)) from None

    def _actor(self, st: GameState, action: Action, seat: str) -> Player:
        if isinstance(action, Starter):
            if seat not in ("judge", *PLAYER_SEATS):
                raise Forbidden("only the players or the judge choose the starting player")
            return action.player
        if isinstance(action, Deal | FirstRow | Redraw | Redeal):
            if seat not in ("judge", action.player.key):
                raise Forbidden(
                    f"only {action.player.title}'s seat records {action.player.title}'s cards"
                )
            return action.player
        if isinstance(action, DeclareStuck) and seat != "judge":
            raise Forbidden(
                "a player declares at the table that he cannot use his points; the "
                "judge confirms it from the judge's seat (D8, HZ-P6)",
                "D8",
            )
        actor = action.actor(st.player)
        if seat != "judge" and seat != actor.key:
            raise Forbidden(
                f"it is {st.player.title}'s turn; the {seat} seat cannot act for {actor.title}",
                "HZ-TURN",
            )
        return actor

    def supply(self, game: str, seat: str, value: Any, *, key: str | None = None) -> Receipt:
        """Gives the input the open question waits for (an identity or a choice) and applies
        the action on behalf of the seat that started it. The receipt is cut for ``seat`` (the
        supplier). When the action then needs another input, a new question is recorded.
        Raises NotFound when nothing waits on ``seat``."""
        self._seat(seat)
        try:
            game_id(game)
            json_value(value, "value", depth=3)
            key = idem_key(key)
        except InputError as e:
            raise _input(e) from None
        with self._lock(game):
            f = self.folded(game)
            pend = f.pending
            if pend is None or (seat not in pend.body.get("asked", ()) and seat != "judge"):
                raise NotFound("nothing is waiting for this seat's input")
            if key is not None and (hit := self._by_key(game, seat, key)) is not None:
                raise Stale(f"already applied as event {hit.seq} (same key)", hit.seq, f.last_seq)
            raw = json.loads(json.dumps(pend.body["action"]))
            fill_input(raw, str(pend.body["needs"]), value)
            try:
                action = parse_action(raw, "action")
            except NotationError as e:
                raise Refused(str(e)) from None
            actor = Player.parse(str(pend.body.get("actor")))
            return self._resolve(f, str(pend.body.get("by")), seat, action, actor, key, False)

    def observe(self, game: str, seat: str, obs: Mapping[str, Any]) -> Record:
        """Records what a scan or a person saw: ``{"player", "zone": "hand"|"field", "column",
        "position", "card", "source"}``. An unknown card is identified by it; a card recorded as
        another raises an irregularity for the judge inside the same record, and history stays
        as it was (D20). Only a card's holder or the judge reports a card hidden from others
        (D22); what could not be there (another deck's card in a hand where none came by
        Sirens, a card that cannot stand on the field, more copies than the deck holds) is
        refused."""
        self._seat(seat)
        if seat == "public":
            raise Forbidden("the public seat cannot report observations")
        try:
            game_id(game)
            obs = mapping(obs, "observation")
            allowed = {"player", "zone", "column", "position", "card", "source"}
            extra = sorted(set(obs) - allowed)
            if extra:
                raise InputError(f"observation: unknown field {extra[0][:20]!r}")
            who = Player.parse(text(obs.get("player"), "observation.player", max_len=10))
            zone = obs.get("zone")
            if zone not in ("hand", "field"):
                raise InputError("observation.zone: must be 'hand' or 'field'")
            card_text = text(obs.get("card"), "observation.card", max_len=40)
            source = text(obs.get("source", "manual"), "observation.source", max_len=20)
        except (InputError, ValueError) as e:
            raise Refused(str(e)) from None
        with self._lock(game):
            f = self.folded(game)
            _settled(f)
            st = f.state
            try:
                c = parse_card_name(card_text, who, st, "observation.card")
            except NotationError as e:
                raise Refused(str(e)) from None
            if c.is_unknown:
                raise Refused("observation.card: an observation names a card, not '?'")
            # every observation carries both flags, so a copy that seals them (the opponent's)
            # shows the same fields whether it identified a card, contradicted one or neither
            body: dict[str, Any] = {
                "player": who.key,
                "zone": zone,
                "card": c.notation(who),
                "source": source,
                "identifies": False,
                "irregularity": None,
            }
            side = st.sides[who]
            cat = st.ruleset.catalogue
            if zone == "field":
                col, pos = obs.get("column"), obs.get("position")
                if not (
                    isinstance(col, int)
                    and not isinstance(col, bool)
                    and isinstance(pos, int)
                    and not isinstance(pos, bool)
                    and 1 <= col <= 3
                    and 1 <= pos <= len(side.field[col - 1])
                ):
                    raise Refused("observation: no card at that column and position")
                s = side.field[col - 1][pos - 1]
                if s.card is None:
                    raise Refused("observation: the figure stands there, not a card")
                body.update(column=col, position=pos, face_up=s.up)
                if seat not in ("judge", who.key) and not s.up:
                    raise Forbidden(
                        "only its owner or the judge may report a face-down card (D22)", "D22"
                    )
                if cat.strength(c) is None and cat.kind(c) is not Kind.HOSTAGE:
                    raise Refused(
                        f"observation.card: {c.name} cannot stand on the field (D10)", "D10"
                    )
                recorded = s.card
            else:
                if seat not in ("judge", who.key):
                    raise Forbidden(
                        "only its owner or the judge may report a hand card (D22)", "D22"
                    )
                if c in side.hand:
                    recorded = c
                elif any(x.is_unknown for x in side.hand):
                    if c.origin is not who:
                        raise Refused(
                            f"observation.card: a card of {c.origin.title}'s deck reaches "
                            f"{who.title}'s hand only by Sirens, face up (D13); it cannot be "
                            "an unseen card",
                            "D13",
                        )
                    recorded = next(x for x in side.hand if x.is_unknown)
                else:
                    recorded = None  # not in the hand as recorded
            if recorded is not None and recorded.is_unknown:
                known = sum(1 for x in _all_cards(st) if x == c)
                if known >= cat.info(c.name, c.origin).copies:
                    raise Refused(
                        f"observation.card: {c.origin.title}'s deck holds "
                        f"{cat.info(c.name, c.origin).copies} {c.name}, all accounted for "
                        "elsewhere (catalogue)",
                        "D20",
                    )
                body["identifies"] = True
                try:
                    patch_from_body(st, body)
                except (NotationError, ValueError) as e:
                    raise Refused(f"observation: {e}") from None
            elif recorded != c:
                was = recorded.notation(who) if recorded is not None else "not in the hand"
                body["irregularity"] = {
                    "rule": "D20",
                    "recorded": was,
                    "seen": c.notation(who),
                    "problem": f"{who.title}'s card was recorded as {was} but seen as "
                    f"{c.notation(who)}",
                }
            recs, _ = self._write(game, lambda g: [(seat, "observation", body, (), None)])
            return recs[0]

    # ---- calls and the judge -------------------------------------------------------------

    def call_judge(self, game: str, seat: str, note: str = "") -> Record:
        """A player calls the judge to the table (the note is for the judge)."""
        self._seat(seat)
        if seat not in PLAYER_SEATS:
            raise Forbidden("only a player calls the judge")
        try:
            game_id(game)
            note = text(note, "note", required=False)
        except InputError as e:
            raise _input(e) from None
        with self._lock(game):
            recs, _ = self._write(game, lambda f: [(seat, "call", {"note": note}, (), None)])
        return recs[0]

    def resolve(self, game: str, seat: str, event: int, note: str) -> Record:
        """The judge settles an open irregularity or judge call (the note stays with her)."""
        self._judge(seat)
        try:
            game_id(game)
            integer(event, "event", 0, 10**9)
            note = text(note, "note")
        except InputError as e:
            raise _input(e) from None
        with self._lock(game):

            def build(f: Folded) -> list[Any]:
                if event not in {r.seq for r in f.open_items()}:
                    raise Refused(f"event {event} is not an open irregularity or judge call")
                return [(seat, "resolve", {"event": event, "note": note}, (), None)]

            recs, _ = self._write(game, build)
        return recs[0]

    def _judge(self, seat: str) -> None:
        if seat != "judge":
            raise Forbidden("only the judge may do that")

    def undo(self, game: str, seat: str, to: int, reason: str) -> Record:
        """The game continues from the state after event ``to``; nothing is deleted. The reason
        is shown to the judge only; players see that a correction happened."""
        self._judge(seat)
        try:
            game_id(game)
            integer(to, "to", 0, 10**9)
            reason = text(reason, "reason")
        except InputError as e:
            raise Refused(f"{e}; a correction needs an event and a reason") from None
        with self._lock(game):

            def build(f: Folded) -> list[Any]:
                if not 0 <= to <= f.last_seq:
                    raise Refused(f"no event {to} (the log ends at {f.last_seq})")
                return [(seat, "undo", {"to": to, "reason": reason}, (), None)]

            recs, _ = self._write(game, build)
        return recs[0]

    def amend(
        self, game: str, seat: str, event: int, raw: Mapping[str, Any], reason: str
    ) -> Record:
        """Replaces the action of event ``event`` (e.g. a card identity) and replays after it."""
        self._judge(seat)
        try:
            game_id(game)
            integer(event, "event", 0, 10**9)
            raw = mapping(raw, "action")
            reason = text(reason, "reason")
        except InputError as e:
            raise Refused(f"{e}; a correction needs an event, an action and a reason") from None
        try:
            action = parse_action(dict(raw), "action")
        except NotationError as e:
            raise Refused(str(e)) from None
        with self._lock(game):

            def build(f: Folded) -> list[Any]:
                try:
                    target = self.store.records(game, after=event - 1, upto=event)
                except StoreError as e:
                    raise Unavailable(str(e)) from None
                if not target or target[0].kind != "action":
                    raise Refused(f"event {event} is not an action")
                if not any(s == event for s, _ in (*f.ops, *f.suspended)):
                    raise Refused(
                        f"event {event} is no longer in effect: a judge's undo dropped it"
                    )
                before = f.state_at(event - 1)
                try:
                    check(before, action)
                except (IllegalActionError, NeedsInputError, NotationError) as e:
                    raise Refused(f"the amended action is not legal there: {e}") from None
                body = {
                    "event": event,
                    "action": action.to_json(),
                    "actor": target[0].body.get("actor"),
                    "reason": reason,
                }
                return [(seat, "amend", body, (), None)]

            recs, _ = self._write(game, build)
        return recs[0]

    def ruling(
        self, game: str, seat: str, raw: Mapping[str, Any], at: int | None = None
    ) -> dict[str, Any]:
        """The ruling on an action posed on the position after event ``at`` (default: now),
        with its sources and what the other profiles rule; the game is not changed."""
        from referee.ruling import render_json, render_text, rule_on

        self._judge(seat)
        try:
            raw = mapping(raw, "action")
            if at is not None:
                integer(at, "at", 0, 10**9)
        except InputError as e:
            raise _input(e) from None
        f = self.folded(game)
        st = f.state if at is None else f.state_at(at)
        if st.phase is not Phase.PLAY:
            raise Refused("the ruling tool poses actions on a position in play, not in setup")
        try:
            action = parse_action(raw, "action")
            r = rule_on(st, [action])
        except NeedsInputError as e:
            raise Refused(f"{e.needs}: cannot rule without it: {e.reason}", e.rule) from None
        except (NotationError, IllegalActionError) as e:
            raise Refused(str(e)) from None
        result = render_json(r)
        return {
            "legal": result["legal"],
            "rules": result["rules"],
            "ruling": render_text(r),
            "citations": result["citations"],
            "other_profiles": result["others"],
            "result": result,
        }

    def ruling_rules(self, ids: list[str]) -> list[str]:
        return [RULES[i].citation() for i in ids if i in RULES]


def _asked(e: NeedsInputError, actor: Player) -> tuple[str, ...]:
    """Who states the missing input (D22): a card's holder, never his opponent. The pick of a
    Pegasus from the hand is stated by the hand's owner."""
    if e.needs == "pick":
        return (actor.other.key,)
    return tuple(e.asked) or (actor.key,)


def _told(
    st: GameState, action: Action, seat: str, e: NeedsInputError, asked: tuple[str, ...]
) -> str:
    """Why a question is asked, as player ``seat`` (who started the action) may read it: the
    engine's words on the table as he knows it (D22), so they count no card hidden from him
    (the engine's own words may say how many of the opponent's cards the referee knows)."""
    if seat in PLAYER_SEATS:
        try:
            apply(project(st, seat), action)
        except NeedsInputError as pe:
            if pe.needs == e.needs:
                return pe.reason
        except (IllegalActionError, NotationError):
            pass
        who = " or ".join(a.title() for a in asked)
        return f"{who} must give {e.needs} ({e.rule})"
    return e.reason


def _item(r: Record) -> dict[str, Any]:
    return {"seq": r.seq, "kind": r.kind, "seat": r.seat, "time": r.time, "body": dict(r.body)}


def _all_cards(st: GameState) -> list[Any]:
    out: list[Any] = []
    for p in (Player.HERA, Player.ZEUS):
        side = st.sides[p]
        out += [c for c in side.hand if not c.is_unknown]
        out += [s.card for col in side.field for s in col if s.card and not s.card.is_unknown]
        out += list(side.discard)
    return out


def open_referee(db: str | Path, **kw: Any) -> Referee:
    """A referee over the SQLite file ``db``, signing with the key beside it (``DB.key``,
    created on first start). Raises StoreError or KeyFileError."""
    from referee.store import SQLiteStore

    store = SQLiteStore(db)
    signer = Signer.load_or_create(Path(f"{db}.key"))
    return Referee(store, signer=signer, **kw)
