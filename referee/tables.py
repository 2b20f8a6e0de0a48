"""Tables: a game's life outside play. Creating a game (its first records and the seats' join
codes in one transaction), importing a judge's log, and the join codes themselves.

Join codes are stored only as their SHA-256 (a stolen database opens no seat) and compared in
constant time.
"""

from __future__ import annotations

import hashlib
import json
import secrets as _secrets
from collections.abc import Mapping
from typing import Any

from referee.errors import Refused
from referee.fold import FoldError, fold, start
from referee.game import Illegal, Malformed, RuleError
from referee.games import DEFAULT, game_named
from referee.log import GENESIS, read_lines, verify
from referee.models import Created
from referee.reading import ALL_SEATS
from referee.repository import Draft, Repository, checked_game_id
from referee.validate import InputError, game_id, mapping, text

MAX_KIT = 1_000_000  # characters of a kit file


def code_hash(code: str) -> str:
    """How a join code is stored: only its SHA-256 (a stolen database opens no seat)."""
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


class Tables:
    """Creating and importing games; join codes."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo

    def new_code(self) -> tuple[str, str]:
        """A fresh join code and what is stored of it."""
        code = self.repo.token()
        return code, code_hash(code)

    def create_game(
        self,
        *,
        name: str = DEFAULT,
        options: Mapping[str, Any] | None = None,
        players: Mapping[str, str] | None = None,
        game: str | None = None,
        kit: Mapping[str, Any] | None = None,
    ) -> Created:
        """Starts a game of ``name`` in setup, codes and first records in one transaction.
        ``options`` are the game's own choices, which its module checks (Hera & Zeus:
        ``profile``, ``switches``, ``starting``, ``catalogue``). Raises Refused for a bad
        game, option, player, kit or id."""
        try:
            module = game_named(name)
        except Malformed as e:
            raise Refused(e.reason) from None
        try:
            opts = mapping(options or {}, "options")
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
            body["game"] = name  # a log without one is Hera & Zeus (docs/service.md)
        body["rules"] = module.rules_version(body)  # pinned: replays run these or stop
        gid = gid or self.repo.token()[:10].replace("_", "x").replace("-", "y")
        if self.repo.exists(gid):
            raise Refused(f"game {gid!r} exists already")
        codes: dict[str, str] = {}
        stored: dict[str, str] = {}
        for s in (*module.players, "judge"):
            codes[s], stored[s] = self.new_code()
        if kit is not None:
            # the kit (with its secret, which makes fake codes detectable) stays on the server;
            # the log names only its id
            kit_text = json.dumps(dict(kit), sort_keys=True)
            if len(kit_text) > MAX_KIT:
                raise Refused("kit: larger than a kit file can be")
            body["kit"] = {"id": str(kit.get("kit_id", kit.get("id", "")))[:20]}
            stored["kit"] = kit_text
        create = self.repo.seal(gid, 0, GENESIS, Draft("system", "create", body), module)
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
            recs.append(self.repo.seal(gid, len(recs), recs[-1].hash, d, module))
        self.repo.append_new(recs, stored)
        return Created(gid, codes)

    def kit(self, game: str) -> dict[str, Any] | None:
        """The sticker kit the game was created with (``kit.json``, secret included: for the
        server's camera code only, never for a page), or None for manual entry. Raises Refused
        for a malformed game id."""
        checked_game_id(game)
        return self.repo.kit(game)

    def seat_for_code(self, game: str, code: str) -> str:
        """The seat a join code opens; anyone without one is the public. Constant time."""
        try:
            game_id(game)
            text(code, "code", max_len=200)
        except InputError:
            return "public"
        h = code_hash(code)
        seat = "public"
        for name, stored in sorted(self.repo.secrets(game).items()):
            if name in ALL_SEATS and _secrets.compare_digest(stored, h):
                seat = name
        return seat

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
        signer = self.repo.signer
        if header.public_key != signer.public_b64:
            trusted = self.repo.anchors.trust.trusts(header.fingerprint, header.public_key)
            named = trust_key is not None and trust_key.strip().lower() == header.fingerprint
            if trusted is None and not named:
                raise Refused(
                    f"the log is signed by key {header.fingerprint}, not by this server "
                    f"({signer.fingerprint}) nor by a trusted key; to import a log from "
                    "another server, trust its key (referee trust add NAME KEY) or name it "
                    "once (--trust-key FINGERPRINT, from that server's score sheets)"
                )
            extra["key:public"] = header.public_key
        self.repo.append_new(lines, extra, header.fingerprint)
        return gid
