"""The game log: append-only records, each chained to the previous one by a SHA-256 hash.

A record's hash covers its whole content and the previous record's hash, so any edit,
insertion, deletion or reordering breaks the chain at a place :func:`verify` names. Records are
JSON objects; exports are JSON lines, one record a line.

Record kinds:
    create       the game's setup choices (profile, switches, players, kits); always seq 0
    action       a player's (or the judge's) action, with the engine's events
    observation  what a scan or a person saw; may identify an unknown card (D20)
    irregularity an observation or input that contradicts the record, for the judge (D20)
    undo         a judge's correction: the game continues from event N (reason given)
    amend        a judge's correction: an action's card identity replaced (reason given)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

GENESIS = "0" * 64
KINDS = frozenset({"create", "action", "observation", "irregularity", "undo", "amend"})


def canonical(obj: Any) -> bytes:
    """The bytes a hash is taken over: sorted keys, no spaces, UTF-8."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass(frozen=True, slots=True)
class Record:
    game: str
    seq: int
    time: str  # ISO 8601, UTC
    seat: str  # hera | zeus | judge | system
    kind: str
    body: Mapping[str, Any]
    events: tuple[Mapping[str, Any], ...] = ()
    key: str | None = None  # the client's idempotency key
    prev: str = GENESIS
    hash: str = ""
    nonce: str = ""  # random salt: a redacted record's hash must not reveal what was cut
    redacted: bool = False  # cut for a player's export (not part of the hashed content)

    def content(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seq": self.seq,
            "time": self.time,
            "seat": self.seat,
            "kind": self.kind,
            "body": self.body,
            "events": list(self.events),
            "key": self.key,
            "prev": self.prev,
            "nonce": self.nonce,
        }

    def compute_hash(self) -> str:
        return hashlib.sha256(canonical(self.content())).hexdigest()

    def sealed(self) -> Record:
        """This record with its hash filled in."""
        return Record(
            self.game,
            self.seq,
            self.time,
            self.seat,
            self.kind,
            self.body,
            self.events,
            self.key,
            self.prev,
            self.compute_hash(),
            self.nonce,
        )

    def to_json(self) -> dict[str, Any]:
        out = self.content()
        out["hash"] = self.hash
        if self.redacted:
            out["redacted"] = True
            del out["nonce"]
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Record:
        """Raises ValueError naming the missing or mistyped field."""
        try:
            events = raw.get("events", [])
            if not isinstance(events, list):
                raise ValueError("events must be a list")
            r = cls(
                game=_typed(raw, "game", str),
                seq=_typed(raw, "seq", int),
                time=_typed(raw, "time", str),
                seat=_typed(raw, "seat", str),
                kind=_typed(raw, "kind", str),
                body=_typed(raw, "body", dict),
                events=tuple(events),
                key=raw.get("key"),
                prev=_typed(raw, "prev", str),
                hash=_typed(raw, "hash", str),
                nonce=str(raw.get("nonce", "")),
                redacted=raw.get("redacted") is True,
            )
        except KeyError as e:
            raise ValueError(f"missing field {e.args[0]!r}") from None
        return r


def _typed(raw: Mapping[str, Any], key: str, typ: type) -> Any:
    v = raw[key]
    if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
        raise ValueError(f"field {key!r} must be {typ.__name__}, not {type(v).__name__}")
    return v


@dataclass(frozen=True, slots=True)
class Verification:
    ok: bool
    count: int
    bad_seq: int | None = None  # the first record that does not verify (its seq or its line)
    problem: str = ""
    redacted: int = 0  # records cut for a player's export: linked, content not checkable

    def message(self) -> str:
        if self.ok and self.redacted:
            return (
                f"intact: {self.count} records chained; {self.redacted} redacted for a "
                "player, their content cannot be checked against their hashes"
            )
        if self.ok:
            return f"intact: {self.count} records, hash chain verified"
        return f"NOT intact at record {self.bad_seq}: {self.problem}"


def verify(records: Iterable[Record], allow_redacted: bool = False) -> Verification:
    """Checks numbering, the chain and every hash. Names the first place that fails.

    A record marked redacted (a player's export) fails unless ``allow_redacted``: then only its
    place in the chain is checked, since its cut content no longer matches its hash.
    """
    prev = GENESIS
    n = 0
    redacted = 0
    game: str | None = None
    for i, r in enumerate(records):
        n += 1
        if game is None:
            game = r.game
        if r.game != game:
            return Verification(
                False, n, i, f"belongs to game {r.game!r}, not {game!r} (inserted from another log)"
            )
        if r.seq != i:
            what = "a record is missing before it" if r.seq > i else "records are out of order"
            return Verification(False, n, i, f"numbered {r.seq} where {i} was expected: {what}")
        if r.prev != prev:
            return Verification(
                False,
                n,
                i,
                "does not chain to the record before it "
                "(a record was removed, inserted or reordered)",
            )
        if r.redacted:
            if not allow_redacted:
                return Verification(
                    False,
                    n,
                    i,
                    "is redacted (a player's export): only a full log can be verified completely",
                )
            redacted += 1
        elif r.compute_hash() != r.hash:
            return Verification(False, n, i, "its content does not match its hash (edited)")
        if r.kind not in KINDS:
            return Verification(False, n, i, f"unknown kind {r.kind!r}")
        prev = r.hash
    if n == 0:
        return Verification(False, 0, 0, "the log is empty")
    return Verification(True, n, redacted=redacted)


def read_lines(text: str) -> list[Record]:
    """Records from JSON lines. Raises ValueError naming the line."""
    out = []
    for ln, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"line {ln}: not JSON ({e.msg})") from None
        if not isinstance(raw, dict):
            raise ValueError(f"line {ln}: a record must be a JSON object")
        try:
            out.append(Record.from_json(raw))
        except ValueError as e:
            raise ValueError(f"line {ln}: {e}") from None
    return out
