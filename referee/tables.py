"""Tables: a game's life outside play. Creating a game (its first records and the seats' join
codes in one transaction), importing a judge's log, the join codes, and who holds each seat.

A seat is one device. The join code opens a seat once: the first device that opens it
*claims* the seat (a public ``claim`` record) and gets a device token of its own, which its
cookie (or a Bearer header) carries from then on; the join code is never a credential after
that. A second device opening the same link is told the seat is held and may *request* it (a
``request`` record); the judge (at a table without one, the device holding it) approves, and the
seat *moves* to that device (a ``move`` record; the first device's token opens nothing any
more). Join codes and device tokens are stored only as their SHA-256 (a stolen database opens
no seat) and compared in constant time.

At a table without a judge, only the device holding a seat approves its move (never the other
player: he would read the hand), and the device that claims a seat is shown, once, the seat's
*recovery code* (stored only as its SHA-256, never in the log): whoever types it on any device
takes the seat back (:meth:`Tables.recover`), a lost phone or a copied key. Each move voids the
seat's code in its own transaction (whoever saw it must not take the seat back): a recovery
gives the device that typed it a new one at once; after an approved move, the new device is
shown a new one on its next page (:meth:`Tables.issue_recovery`).

A device token is a *lineage* part, fixed for the device, and a part that *rotates* as the token
is used (:meth:`Tables.device`, as refresh tokens are rotated): a page request gives the device
a fresh token now and then and the previous one stays good a short grace while requests sent
before the new cookie arrived are in flight (or as long as its successor was never used: the
new cookie may have been lost). A token of the seat's lineage used after that (a copied cookie:
the other copy moved on) *holds* the seat: an ``irregularity`` record naming it (``held``) for
the judge; no device acts for the seat or reads its hand until a move (the judge's approval, or
at a table without a judge the recovery code) or the judge's reissue settles it.

A game has no judge's code of its own: the server's tournament judge judges every game
(``judged``), or nobody does (``"judged": false`` in the create record: corrections then need
both players, :mod:`referee.judging`).

The guardian (issue 37) is on at a casual table; a table the organiser marks strict
(``"guardian": false`` in the create record, from ``create_game(strict=True)`` or an event's
``strict`` setting) has none: its players are warned of nothing (:func:`is_guarded`).
"""

from __future__ import annotations

import hashlib
import json
import secrets as _secrets
import time
from collections.abc import Mapping
from typing import Any, TypedDict

from referee.errors import Forbidden, NotFound, Refused, Stale
from referee.fold import Folded, FoldError, fold, start
from referee.game import Illegal, Malformed, RuleError
from referee.games import DEFAULT, all_seats, game_named
from referee.ledger import Draft, Ledger
from referee.log import GENESIS, Record, read_lines, verify
from referee.models import Claim, Created, Device
from referee.reader import Reader, checked_game_id
from referee.store import CREATED, CREATED_AT, parse_utc, utc_text
from referee.validate import InputError, file_text, game_id, mapping, text

MAX_KIT = 1_000_000  # characters of a kit file
MAX_LISTING = 200_000  # characters of a deck-list file (a game's card list)
DEVICE = "device:"  # secret name prefix: the hash of the token of the device holding a seat
PENDING = "pending:"  # secret name prefix: the hash of a requesting device's token, by its id
# secret name prefix + the hash of a token that held a seat until a reissue or a move replaced
# it; the value is that seat (so the old phone can be told, issue 13, item 5)
REPLACED = "replaced:"
LINEAGE = "lineage:"  # + seat: the hash of the fixed (lineage) part of its device's tokens
ROTATION = "rotation:"  # + seat: JSON {"prev": hash of the previous token, "at", "used"}
RECOVERY = "recovery:"  # + seat: the hash of its recovery code (a table without a judge)
PENDING_LINEAGE = "pending-lineage:"  # + request device id: its token's lineage hash
ROTATE_AFTER = 30.0  # seconds: a token is rotated on its first use this long after the last
# (longer than GRACE: a request in flight with the previous token finds it still previous)
GRACE = 20.0  # seconds the previous token stays good once its successor was used
LOST = 60.0  # seconds after which an unused successor is taken as lost (a new one is made)
RECOVERY_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: it is written by hand


def is_judged(create: Mapping[str, Any]) -> bool:
    """True when a game is judged (by the server's tournament judge; in logs made before, by
    its own judge); False for a table created without a judge (``"judged": false``)."""
    return create.get("judged", True) is not False


def is_guarded(create: Mapping[str, Any]) -> bool:
    """True when the guardian warns a game's players before they confirm an action (a casual
    table, and every game created before the switch); False at a strict table
    (``"guardian": false``)."""
    return create.get("guardian", True) is not False


def code_hash(code: str) -> str:
    """How a join code is stored: only its SHA-256 (a stolen database opens no seat)."""
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


def lineage_of(token: str) -> str:
    """The fixed part of a device token (its first half; the second rotates)."""
    return token[: len(token) // 2]


def new_recovery_code() -> str:
    """A seat's recovery code: 16 letters and digits (80 random bits) in four groups, easy to
    write down and type."""
    chars = "".join(_secrets.choice(RECOVERY_ALPHABET) for _ in range(16))
    return "-".join(chars[i : i + 4] for i in range(0, 16, 4))


def recovery_hash(code: str) -> str:
    """How a recovery code is stored and compared: the SHA-256 of its letters and digits,
    upper case (spaces and dashes as typed do not count)."""
    return code_hash("recovery\0" + "".join(c for c in code.upper() if c.isalnum()))


class SeatHeld(Exception):
    """A seat another device holds (raised inside a write's build, caught in claim)."""


class Rotation(TypedDict):
    """Where a seat's device token is in its rotation (the secret ``rotation:<seat>``)."""

    prev: str  # the hash of the previous token
    at: float  # when the current one was made (seconds)
    used: bool  # the current one came back (the device has it)


def _rotation(raw: str) -> Rotation | None:
    try:
        d = json.loads(raw) if raw else None
        if isinstance(d, dict):
            return Rotation(prev=str(d["prev"]), at=float(d["at"]), used=bool(d["used"]))
    except (ValueError, KeyError, TypeError):
        pass
    return None


def _rotation_text(prev: str, at: float, used: bool) -> str:
    return json.dumps({"prev": prev, "at": at, "used": used}, sort_keys=True)


class Tables:
    """Creating and importing games; join codes."""

    def __init__(self, ledger: Ledger, reader: Reader) -> None:
        self.ledger = ledger
        self.reader = reader

    def new_code(self) -> tuple[str, str]:
        """A fresh join code and what is stored of it."""
        code = self.ledger.token()
        return code, code_hash(code)

    def create_game(
        self,
        *,
        name: str = DEFAULT,
        options: Mapping[str, Any] | None = None,
        players: Mapping[str, str] | None = None,
        game: str | None = None,
        kit: Mapping[str, Any] | None = None,
        judged: bool = True,
        strict: bool = False,
        hands_public: bool = False,
    ) -> Created:
        """Starts a game of ``name`` in setup, codes and first records in one transaction.
        ``options`` are the game's own choices, which its module checks (its
        ``Game.options``). ``judged``: False for a table
        without a judge (the create record says so; corrections then need both players).
        ``strict``: the organiser's strict table, without the guardian (``"guardian": false``
        in the create record; absent at a casual table).

        ``hands_public``: the review shows every seat's hands once the game is over (the
        create record says ``"hands": "public"``; private by default, :mod:`referee.review`).
        Only the players get join codes: the judge is the server's. Raises Refused for a bad
        game, option, player, kit or id."""
        try:
            module = game_named(name)
        except Malformed as e:
            raise Refused(e.reason) from None
        try:
            raw_opts = dict(options or {}) if isinstance(options, Mapping) else options
            files: dict[str, str] = {}
            texts = sorted({o.name for o in module.options if o.kind == "text"})
            for n in texts:
                # a game's file (a deck list): one long text, read by its module's reader,
                # which names the line and the field of what it refuses
                if isinstance(raw_opts, dict) and n in raw_opts:
                    files[n] = file_text(raw_opts.pop(n), f"options.{n}", max_len=MAX_LISTING)
            opts = mapping(raw_opts, "options")
            opts.update(files)
            pl = mapping(players or {}, "players")
            for k, v in pl.items():
                if k not in module.players:
                    who = " or ".join(module.players)
                    raise InputError(f"players: {k[:20]!r} is not a player ({who})")
                text(v, f"players.{k}", max_len=40)
            gid = game_id(game) if game is not None else None
        except InputError as e:
            raise Refused(str(e)) from None
        try:
            names = {str(k): str(v) for k, v in pl.items()}
            setup = module.setup(opts, names)
        except Illegal as e:
            raise Refused(e.reason, e.rule) from None
        except RuleError as e:
            raise Refused(e.reason) from None
        body: dict[str, Any] = {**setup.body}
        if name != DEFAULT:
            body["game"] = name  # a log without one is the default game's (docs/service.md)
        body["rules"] = module.rules_version(body)  # pinned: replays run these or stop
        if not judged:
            body["judged"] = False
        if strict:
            body["guardian"] = False

        if hands_public:
            body["hands"] = "public"
        gid = gid or self.ledger.token()[:10].replace("_", "x").replace("-", "y")
        if self.reader.exists(gid):
            raise Refused(f"game {gid!r} exists already")
        codes: dict[str, str] = {}
        stored: dict[str, str] = {}
        for s in module.players:
            codes[s], stored[s] = self.new_code()
        if kit is not None:
            # the kit (with its secret, which makes fake codes detectable) stays on the server;
            # the log names only its id
            kit_text = json.dumps(dict(kit), sort_keys=True)
            if len(kit_text) > MAX_KIT:
                raise Refused("kit: larger than a kit file can be")
            body["kit"] = {"id": str(kit.get("kit_id", kit.get("id", "")))[:20]}
            stored["kit"] = kit_text
        create = self.ledger.seal(gid, 0, GENESIS, Draft("system", "create", body), module)
        recs = [create]
        state = start(create).state
        for actor, raw in setup.first:
            try:
                action = module.parse_action(raw, "action")
                out = module.apply(state, action)
            except RuleError as e:  # the module's own first actions: a bug in the module
                raise Refused(
                    f"the game's first action does not apply: {e.reason}", e.rule
                ) from None
            state = out.state
            act = {"action": module.action_json(action), "actor": actor}
            d = Draft("judge", "action", act, out.events)
            recs.append(self.ledger.seal(gid, len(recs), recs[-1].hash, d, module))
        stored[CREATED] = str(recs[-1].seq)  # where its creation ends: idle until then
        stored[CREATED_AT] = utc_text(parse_utc(create.time))  # how long it counts as idle
        self.ledger.append_new(recs, stored)
        return Created(gid, codes)

    def kit(self, game: str) -> dict[str, Any] | None:
        """The sticker kit the game was created with (``kit.json``, secret included: for the
        server's camera code only, never for a page), or None for manual entry. Raises Refused
        for a malformed game id."""
        checked_game_id(game)
        raw = self.reader.seen_secrets(game).get("kit")  # written with the create record
        out: dict[str, Any] | None = json.loads(raw) if raw else None
        return out

    def seat_for_code(self, game: str, code: str) -> str:
        """The player seat a join code opens; "public" for any other code. Constant time. A
        game's own judge code (made before the server's judge judged every game) opens
        nothing."""
        try:
            game_id(game)
            text(code, "code", max_len=200)
        except InputError:
            return "public"
        h = code_hash(code)
        seat = "public"
        for name, stored in sorted(self.reader.seen_secrets(game).items()):
            if name in all_seats() and name != "judge" and _secrets.compare_digest(stored, h):
                seat = name
        return seat

    def seat_for_token(self, game: str, token: str) -> str:
        """The seat whose device holds ``token``; "public" for any other (and for a held
        seat's). Constant time. Reads only: no rotation, no alarm."""
        return self.device(game, token, rotate=False, alarm=False).seat

    def device(self, game: str, token: str, *, rotate: bool = False, alarm: bool = True) -> Device:
        """What ``token`` opens at ``game`` now (constant-time compares). The token the seat's
        device holds opens the seat; with ``rotate`` (a request that can give the device a new
        cookie) it is rotated when due: the reply's ``token`` is the device's from now on. The
        previous token opens the seat while its successor was never used (the new cookie may
        not have arrived) or for ``GRACE`` seconds after (requests in flight). Any other token
        of the seat's lineage is a copy the other device moved on from: with ``alarm`` the seat
        is held (an irregularity for the judge) and the token opens nothing, as every token of
        a held seat (``held`` names it)."""
        try:
            game_id(game)
            text(token, "token", max_len=200)
        except InputError:
            return Device("public")
        secrets = self.reader.seen_secrets(game)
        h, lin = code_hash(token), code_hash(lineage_of(token))
        current = lineage = None
        for name, stored in sorted(secrets.items()):
            if name.startswith(DEVICE) and _secrets.compare_digest(stored, h):
                current = name[len(DEVICE) :]
            if name.startswith(LINEAGE) and _secrets.compare_digest(stored, lin):
                lineage = name[len(LINEAGE) :]
        seat = current or lineage
        if seat is None:
            return Device("public")
        if seat in self.reader.folded(game).held:
            return Device("public", held=seat)
        rot = _rotation(secrets.get(f"{ROTATION}{seat}", ""))
        now = self.now()
        if current is not None:
            if lineage != current:  # a token made before tokens rotated: as it always was
                return Device(seat)
            due = rot is None or now - rot["at"] >= ROTATE_AFTER
            if rotate and due:
                return self._rotate(game, seat, token, h, h)
            if rot is not None and not rot["used"]:
                self._mark_used(game, seat, h)
            return Device(seat)
        if rot is not None and _secrets.compare_digest(rot["prev"], h):
            if not rot["used"]:  # its successor never came back: the new cookie may be lost
                if rotate and now - rot["at"] >= LOST:
                    return self._rotate(game, seat, token, h, secrets.get(f"{DEVICE}{seat}", ""))
                return Device(seat)
            if now - rot["at"] <= GRACE:
                return Device(seat)  # sent before the new cookie arrived
        if alarm:
            self.hold(game, seat)
        return Device("public", held=seat)

    def now(self) -> float:
        """Seconds, for the tokens' rotation (a test may set its own clock)."""
        return time.time()

    def _put(self, game: str, secrets: Mapping[str, str]) -> None:
        """Stores secrets outside any record, one by one in the given order."""
        self.ledger.put_secrets(game, secrets)

    def _mark_used(self, game: str, seat: str, h: str) -> None:
        """Notes that the seat's current token (``h``: its hash) came back: its device has it.
        Under the game's lock, and only while it is still the current one (a rotation racing
        this request keeps its own previous token)."""
        with self.ledger.lock(game):
            secrets = self.reader.secrets(game)
            rot = _rotation(secrets.get(f"{ROTATION}{seat}", ""))
            if secrets.get(f"{DEVICE}{seat}") == h and rot is not None and not rot["used"]:
                text_ = _rotation_text(rot["prev"], rot["at"], True)
                self._put(game, {f"{ROTATION}{seat}": text_})

    def _rotate(self, game: str, seat: str, token: str, h: str, current: str) -> Device:
        """Gives the device of ``token`` (``h``: its hash) a new token of the same lineage,
        keeping ``token`` as the previous one; ``current``: the hash of the seat's token this
        was decided on. Under the game's lock: of two requests racing with one token, one
        rotates and the other finds the seat's token changed."""
        with self.ledger.lock(game):
            if self.reader.secrets(game).get(f"{DEVICE}{seat}") != current:
                return self.device(game, token, alarm=False)  # rotated just now
            new = lineage_of(token) + self.ledger.token()
            # the rotation first: a crash between the two leaves the old token current
            self._put(
                game,
                {
                    f"{ROTATION}{seat}": _rotation_text(h, self.now(), False),
                    f"{DEVICE}{seat}": code_hash(new),
                },
            )
        return Device(seat, token=new)

    def hold(self, game: str, seat: str) -> None:
        """Holds ``seat``: two devices used its key. An ``irregularity`` record naming it
        (``held``) for the judge; nothing when it is held already."""
        with self.ledger.lock(game):
            f0 = self.reader.folded(game)
            if seat in f0.held:
                return
            judged = is_judged(f0.create)
            settle = (
                "the judge settles it (a new link, or approving one device's request)"
                if judged
                else "someone types the seat's recovery code on the device that should hold it"
            )
            body = {
                "held": seat,
                "problem": (
                    f"{seat.capitalize()}'s seat is held: its device key was used by two "
                    "devices (a copied cookie?). No device acts for it or reads its hand until "
                    f"{settle}."
                ),
            }

            def build(f: Folded) -> list[Draft]:
                if seat in f.held:
                    raise SeatHeld(seat)
                return [Draft(seat, "irregularity", body)]

            try:
                self.ledger.write(game, build, fresh=f0)
            except SeatHeld:
                return

    def replaced(self, game: str, token: str) -> tuple[str, Record] | None:
        """The seat ``token``'s device held until a reissue or a move replaced it, with that
        (public) record; None for any other token."""
        try:
            game_id(game)
            text(token, "token", max_len=200)
        except InputError:
            return None
        seat = self.reader.seen_secrets(game).get(f"{REPLACED}{code_hash(token)}")
        if not seat:
            return None
        for r in reversed(self.reader.log(game)):
            if r.kind in ("reissue", "move") and r.body.get("seat") == seat:
                return seat, r
        return None

    def request_of(self, game: str, token: str) -> Record | None:
        """The open request of the device holding ``token`` (it waits for approval), or None."""
        try:
            game_id(game)
            text(token, "token", max_len=200)
        except InputError:
            return None
        h = code_hash(token)
        device = None
        for name, stored in sorted(self.reader.seen_secrets(game).items()):
            if name.startswith(PENDING) and _secrets.compare_digest(stored, h):
                device = name[len(PENDING) :]
        if device is None:
            return None
        f = self.reader.folded(game)
        return next((r for r in f.requests.values() if r.body.get("device") == device), None)

    def claim(self, game: str, code: str, token: str | None = None, ask: bool = False) -> Claim:
        """Opens a join link on a device. ``token``: what the device already holds (its
        cookie), if anything. A free seat is claimed (a ``claim`` record) and the device gets a
        new token (and, at a table without a judge, the seat's recovery code, once); a seat
        this device holds already is simply its own; a seat another device holds is ``held``,
        and with ``ask`` this device requests it (a ``request`` record, a token that opens the
        seat once the request is approved). Raises NotFound for a code that opens no seat,
        Held or Unavailable."""
        seat = self._link_seat(game, code)
        if token and self.device(game, token, alarm=False).seat == seat:
            return Claim(seat, token)
        asked = self.request_of(game, token) if token else None
        if asked is not None and asked.body.get("seat") == seat:
            return Claim(seat, token, held=True, request=asked.seq)
        new = self.ledger.token() + self.ledger.token()  # lineage, then the part that rotates
        device = self.ledger.token()[:12]
        with self.ledger.lock(game):
            f0 = self.reader.folded(game)
            free = seat not in f0.holders
            recovery = new_recovery_code() if free and not is_judged(f0.create) else None

            def build(f: Folded) -> list[Draft]:
                if (seat not in f.holders) != free:
                    raise Stale("the seat changed hands just now; open the link again")
                if free:
                    return [Draft(seat, "claim", {"seat": seat, "device": device})]
                if not ask:
                    raise SeatHeld(seat)
                return [Draft("public", "request", {"seat": seat, "device": device})]

            if free:
                secrets = {
                    f"{DEVICE}{seat}": code_hash(new),
                    f"{LINEAGE}{seat}": code_hash(lineage_of(new)),
                    f"{ROTATION}{seat}": "",
                }
                if recovery is not None:
                    secrets[f"{RECOVERY}{seat}"] = recovery_hash(recovery)
            else:
                secrets = {
                    f"{PENDING}{device}": code_hash(new),
                    f"{PENDING_LINEAGE}{device}": code_hash(lineage_of(new)),
                }
            try:
                recs, _ = self.ledger.write(game, build, secrets, fresh=f0)
            except SeatHeld:
                return Claim(seat, None, held=True)
        if recs[0].kind == "claim":
            return Claim(seat, new, recovery=recovery)
        return Claim(seat, new, held=True, request=recs[0].seq)

    def _link_seat(self, game: str, code: str) -> str:
        """The seat a join link opens. Raises NotFound for a code that opens none."""
        seat = self.seat_for_code(game, code)
        if seat == "public":
            raise NotFound(
                "this join link opens no seat: it is mistyped, or the judge has issued a new "
                "one (ask the judge for the new link)"
            )
        return seat

    def peek(self, game: str, code: str, token: str | None) -> tuple[str, str]:
        """What opening a join link would do, without doing it (a link preview changes
        nothing): its seat and "mine" (this device holds it), "asked" (this device waits for
        it), "held" (another device holds it) or "free". Raises NotFound for a code that opens
        no seat."""
        seat = self._link_seat(game, code)
        if token and self.device(game, token, alarm=False).seat == seat:
            return seat, "mine"
        asked = self.request_of(game, token) if token else None
        if asked is not None and asked.body.get("seat") == seat:
            return seat, "asked"
        return seat, "held" if seat in self.reader.folded(game).holders else "free"

    def recover(self, game: str, code: str, token: str | None = None) -> Claim:
        """Moves a seat to this device with the seat's recovery code (a table without a judge:
        a lost phone, or a copied key that held the seat): a ``move`` record (``recovery``),
        a new token for this device; the device holding the seat until now, and every copy of
        its key, open nothing any more. ``token``: this device's request, if it made one.
        Raises Refused for a code that opens no seat (it names no seat and changes nothing),
        Forbidden at a judged table."""
        try:
            game_id(game)
            typed = text(code, "recovery", max_len=60)
        except InputError as e:
            raise Refused(str(e)) from None
        f0 = self.reader.folded(game)
        if is_judged(f0.create):
            raise Forbidden("at a judged table the judge moves a seat: call the judge")
        h = recovery_hash(typed)
        seat = None
        for name, stored in sorted(self.reader.seen_secrets(game).items()):
            if name.startswith(RECOVERY) and _secrets.compare_digest(stored, h):
                seat = name[len(RECOVERY) :]
        refused = Refused(
            "recovery: this code is not the recovery code of a seat at this table (it is "
            "shown once, on the phone that holds the seat, and a new one replaces it each "
            "time the seat moves); nothing was changed"
        )
        if seat is None:
            raise refused
        asked = self.request_of(game, token) if token else None
        new = self.ledger.token() + self.ledger.token()
        device = self.ledger.token()[:12]
        with self.ledger.lock(game):
            secrets = self.reader.secrets(game)
            if secrets.get(f"{RECOVERY}{seat}") != h:  # the seat moved just now: a new code
                raise refused
            held = secrets.get(f"{DEVICE}{seat}", "")
            keep = {
                f"{DEVICE}{seat}": code_hash(new),
                f"{LINEAGE}{seat}": code_hash(lineage_of(new)),
                f"{ROTATION}{seat}": "",
                **({f"{REPLACED}{held}": seat} if held else {}),
            }
            body: dict[str, Any] = {"seat": seat, "device": device, "recovery": True}
            if asked is not None and asked.body.get("seat") == seat:
                body["request"] = asked.seq
                keep[f"{PENDING}{asked.body.get('device')}"] = ""
            # a new recovery code in the move's transaction: the one just typed stops working
            # (whoever else saw it must not take the seat back, issue 31 item 1)
            recovery = new_recovery_code()
            keep[f"{RECOVERY}{seat}"] = recovery_hash(recovery)
            self.ledger.write(game, lambda f: [Draft(seat, "move", body)], keep)
        return Claim(seat, new, recovery=recovery)

    def issue_recovery(self, game: str, seat: str, token: str | None) -> str | None:
        """A new recovery code for ``seat``, given once to the device holding it (``token``)
        when the seat has none: at a table without a judge, after a move approved by the device
        that held the seat (the move voids the old code: the device that approved it, or
        anyone it showed the code to, must not take the seat back, issue 31 item 1). Only its
        hash is stored. None when the table is judged, the seat has a live code, is held, or
        ``token`` is not its device's."""
        if not token:
            return None
        try:
            game_id(game)
            text(token, "token", max_len=200)
        except InputError:
            return None
        lin = code_hash(lineage_of(token))
        name = f"{RECOVERY}{seat}"

        def holds(stored: Mapping[str, str]) -> bool:
            return _secrets.compare_digest(stored.get(f"{LINEAGE}{seat}", ""), lin)

        if is_judged(self.reader.folded(game).create):
            return None
        first = self.reader.seen_secrets(game)
        if first.get(name) or not holds(first):  # every page load but the one after a move
            return None
        with self.ledger.lock(game):
            f = self.reader.folded(game)
            secrets = self.reader.secrets(game)
            if (
                is_judged(f.create)
                or seat not in f.module.players
                or seat not in f.holders
                or seat in f.held
                or secrets.get(name)
                or not holds(secrets)
            ):
                return None
            code = new_recovery_code()
            self._put(game, {name: recovery_hash(code)})
            # another process may have moved the seat between the check and the put (a move
            # voids the code in its own transaction): then this device holds nothing, and the
            # code it would be given is voided again
            if not holds(self.reader.secrets(game)):
                self._put(game, {name: ""})
                return None
        return code

    def import_log(self, text_: str, trust_key: str | None = None, head: str | None = None) -> str:
        """Stores a complete, verified log (a judge's export), in one transaction. A log signed
        by another server's key is imported only when that key is one of the tournament's
        trusted keys (``referee trust``) or ``trust_key`` names its fingerprint (anyone can
        sign a forged log with a key of his own). ``head`` (``SEQ:HASH``, from the score
        sheet) is where the log must end, as ``referee verify --head`` checks it; without one
        the end is unproven (the command line asks first). Raises Refused otherwise."""
        if not isinstance(text_, str):
            raise Refused(f"the log must be text, not {type(text_).__name__}")
        try:
            header, lines = read_lines(text_)
        except ValueError as e:
            raise Refused(f"the log cannot be read: {e}") from None
        if header.seat != "judge":
            raise Refused("only a judge's full log can be imported (this one is cut for a seat)")
        v = verify(header, lines, head=head)  # a judge's log is whole: nothing may be cut
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
        signer = self.ledger.signer
        if header.public_key != signer.public_b64:
            trusted = self.ledger.anchors.trust.trusts(header.fingerprint, header.public_key)
            named = trust_key is not None and trust_key.strip().lower() == header.fingerprint
            if trusted is None and not named:
                raise Refused(
                    f"the log is signed by key {header.fingerprint}, not by this server "
                    f"({signer.fingerprint}) nor by a trusted key; to import a log from "
                    "another server, trust its key (referee trust add NAME KEY) or name it "
                    "once (--trust-key FINGERPRINT, from that server's score sheets)"
                )
            extra["key:public"] = header.public_key
        self.ledger.append_new(lines, extra, header.fingerprint)
        return gid
