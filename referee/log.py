"""The game log: append-only records, hash-chained, signed, and cut for each seat verifiably.

Every record's hash covers its content and the previous record's hash, so an edit, insertion,
deletion or reordering breaks the chain where :func:`verify` says. Every hash is signed with the
server's Ed25519 key (:mod:`referee.keys`), so a log that was edited and re-hashed fails: nobody
without the server's key can sign the new hashes.

**Sealed fields.** A value that some seat may not see (a drawn card, a dealt hand, the
idempotency key, a judge's reason) sits at a *sealed path*. The hash covers not the
value but a salted commitment to it, ``sha256(salt ‖ value)``, with a salt derived from the
record's secret nonce. A seat's cut of the record replaces each value hidden from it by its
commitment (``{"$sealed": hex}``) and gives the salts of the sealed values it may see. So a
player's export verifies exactly, hash and signature, and :func:`verify` can check that only
what the rules hide from that seat was cut (``may_cut``), nothing else.

Record kinds:
    create       the game's setup choices (profile, switches, players, kit); always seq 0
    action       a player's (or the judge's) action, with the engine's events
    ask          the referee waits for a seat's input (an identity or a choice)
    observation  what a scan or a person saw: identifies an unknown card, or raises an
                 irregularity for the judge, inside the same record
    irregularity an input that contradicts the record, for the judge
    call         a seat calls the judge
    resolve      the judge settles an irregularity or a call
    reissue      the judge revoked a seat's join code and issued a new one (no code logged)
    undo         a judge's correction: the game continues from event N (reason for the judge)
    amend        a judge's correction: an action replaced (reason for the judge)
    claim        a device took a free seat with its join link (its public device id)
    request      a second device asks for a held seat
    move         the judge (or, at a table without one, the other player) gave a seat to the
                 device of a request
    propose      at a table without a judge: a player proposes a correction (undo or amend)
    approve      the other player approves a proposal (the correction follows it)
    decline      a player declines a proposal

An export is JSON lines: a header line (format, game, seat, the server's public key and its
fingerprint), then one record a line.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

import msgspec

from referee.jsonin import loads_strict
from referee.keys import fingerprint_of, parse_public_key, signature_ok
from referee.words import head_text, parse_head, plural

GENESIS = "0" * 64
FORMAT = "hz-log/2"
KINDS = frozenset(
    {
        "create",
        "action",
        "ask",
        "observation",
        "irregularity",
        "call",
        "resolve",
        "reissue",
        "undo",
        "amend",
        "claim",
        "request",
        "move",
        "propose",
        "approve",
        "decline",
    }
)
SEALED = "$sealed"
MAX_LINE = 256_000  # bytes: no record the service writes comes near it
MAX_RECORDS = 100_000

Path_ = tuple[str | int, ...]


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(obj: Any) -> bytes:
    """The bytes a hash is taken over: sorted keys, no spaces, UTF-8 (exactly
    ``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``)."""
    return _CANONICAL.encode(obj).encode()


@lru_cache(maxsize=4096)
def parse_path(path: str) -> Path_:
    """A dotted path's parts, list indexes as ints (cached: a log repeats few paths)."""
    return tuple(int(p) if p.isdigit() else p for p in path.split("."))


def get_path(obj: Any, path: str) -> Any:
    """The value at a dotted path; raises KeyError when it is not there."""
    cur = obj
    for p in parse_path(path):
        if isinstance(cur, list) and isinstance(p, int) and 0 <= p < len(cur):  # noqa: SIM114 (mypy narrows each branch)
            cur = cur[p]
        elif isinstance(cur, dict) and isinstance(p, str) and p in cur:
            cur = cur[p]
        else:
            raise KeyError(path)
    return cur


def set_path(obj: Any, path: str, value: Any) -> None:
    parts = parse_path(path)
    cur = obj
    for p in parts[:-1]:
        cur = cur[p]
    cur[parts[-1]] = value


def _set_copied(obj: dict[str, Any], path: str, value: Any) -> None:
    """Sets ``value`` at ``path`` in ``obj``, copying (shallowly) each container on the way
    instead of changing it: ``obj`` shares the rest with the record it was built from."""
    parts = parse_path(path)
    cur: Any = obj
    for p in parts[:-1]:
        nxt = cur[p]
        nxt = dict(nxt) if isinstance(nxt, Mapping) else list(nxt)
        cur[p] = nxt
        cur = nxt
    cur[parts[-1]] = value


def salt_for(nonce: str, path: str) -> str:
    return hashlib.sha256(f"{nonce}:{path}".encode()).hexdigest()


def commit(salt: str, value: Any) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + canonical(value)).hexdigest()


def is_sealed_marker(v: Any) -> bool:
    return isinstance(v, dict) and set(v) == {SEALED} and isinstance(v[SEALED], str)


def _copy(v: Any) -> Any:
    return json.loads(json.dumps(v))


@dataclass(frozen=True, slots=True)
class Record:
    """One log record. A *full* record has its ``nonce``; a *cut* one (a seat's copy) has
    ``salts`` for the sealed values it shows and ``cut`` naming the sealed paths it hides
    (their values replaced by ``{"$sealed": commitment}``)."""

    game: str
    seq: int
    time: str  # ISO 8601, UTC
    seat: str  # a player seat of the game | judge | system
    kind: str
    body: Mapping[str, Any]
    events: tuple[Mapping[str, Any], ...] = ()
    key: str | dict[str, str] | None = None  # the submitter's idempotency key (or sealed)
    prev: str = GENESIS
    hash: str = ""
    nonce: str = ""  # secret: the salts of the sealed values derive from it
    sealed: tuple[str, ...] = ()  # paths of values some seat may not see
    sig: str = ""  # Ed25519 signature of the hash, by the server
    salts: Mapping[str, str] | None = None  # cut form only: salts of the shown sealed values
    cut: tuple[str, ...] = ()  # cut form only: sealed paths hidden from this copy's seat

    @property
    def redacted(self) -> bool:
        """Whether this is a seat's cut copy (no nonce), not the full record."""
        return self.salts is not None

    def content(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seq": self.seq,
            "time": self.time,
            "seat": self.seat,
            "kind": self.kind,
            "body": _copy(self.body),
            "events": _copy(list(self.events)),
            "key": self.key,
            "prev": self.prev,
            "sealed": list(self.sealed),
        }

    def hashed_content(self) -> dict[str, Any]:
        """The content with every sealed value replaced by its commitment (the record itself
        is not copied but where a commitment goes: hashing a long log is the load's main cost).

        Raises ValueError when a sealed path is missing or a cut copy lacks a salt."""
        out = {
            "game": self.game,
            "seq": self.seq,
            "time": self.time,
            "seat": self.seat,
            "kind": self.kind,
            "body": self.body,
            "events": list(self.events),
            "key": self.key,
            "prev": self.prev,
            "sealed": list(self.sealed),
        }
        for path in self.sealed:
            try:
                v = get_path(out, path)
            except KeyError:
                raise ValueError(f"sealed path {path!r} is not in the record") from None
            if is_sealed_marker(v):
                if path not in self.cut:
                    raise ValueError(f"{path!r} is cut but not listed as cut")
                continue
            if self.salts is None:
                salt = salt_for(self.nonce, path)
            else:
                s = self.salts.get(path)
                if not isinstance(s, str) or len(s) != 64:
                    raise ValueError(f"no salt for the sealed value at {path!r}")
                salt = s
            _set_copied(out, path, {SEALED: commit(salt, v)})
        return out

    def compute_hash(self) -> str:
        return hashlib.sha256(canonical(self.hashed_content())).hexdigest()

    def hash_ok(self) -> bool:
        """Whether the record's content matches its hash (re-serialised and hashed: the slow
        check, for records that were not read in their stored form)."""
        try:
            return self.compute_hash() == self.hash
        except ValueError:
            return False

    def record(self) -> Record:
        """The record itself (a Record is its own :class:`Entry`)."""
        return self

    def sealed_with(self, sign: Callable[[str], str]) -> Record:
        """This (full) record with its hash and signature filled in."""
        h = self.compute_hash()
        return _replace(self, hash=h, sig=sign(h))

    def cut_for(self, hidden: Iterable[str]) -> Record:
        """The copy of this full record for a seat from which the sealed paths ``hidden`` are
        hidden. It verifies exactly like the full record."""
        hidden = set(hidden)
        hide = tuple(p for p in self.sealed if p in hidden)
        c = self.content()
        salts: dict[str, str] = {}
        for path in self.sealed:
            s = salt_for(self.nonce, path)
            if path in hide:
                set_path(c, path, {SEALED: commit(s, get_path(c, path))})
            else:
                salts[path] = s
        return _replace(
            self,
            body=c["body"],
            events=tuple(c["events"]),
            key=c["key"],
            nonce="",
            salts=salts,
            cut=hide,
        )

    def to_json(self) -> dict[str, Any]:
        out = self.content()
        out["hash"] = self.hash
        out["sig"] = self.sig
        if self.salts is None:
            out["nonce"] = self.nonce
        else:
            out["salts"] = dict(self.salts)
            out["cut"] = list(self.cut)
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: Any) -> Record:
        """A record from its JSON object, strictly: every field present with its type, no other
        field. Raises ValueError naming the field."""
        if not isinstance(raw, dict):
            raise ValueError("a record must be a JSON object")
        keys = raw.keys()
        if keys != _FULL and keys != _CUT:
            want = _FULL if "nonce" in keys else _CUT
            extra, missing = sorted(keys - want), sorted(want - keys)
            what = f"unknown field {extra[0]!r}" if extra else f"missing field {missing[0]!r}"
            raise ValueError(what)
        game, seq, time_, seat, kind = (
            raw["game"],
            raw["seq"],
            raw["time"],
            raw["seat"],
            raw["kind"],
        )
        body, events, prev, hash_, sig = (
            raw["body"],
            raw["events"],
            raw["prev"],
            raw["hash"],
            raw["sig"],
        )
        sealed = raw["sealed"]
        # one test for the common case; the field-by-field check names what is wrong
        if not (
            type(game) is str
            and type(seq) is int
            and type(time_) is str
            and type(seat) is str
            and type(kind) is str
            and type(body) is dict
            and type(prev) is str
            and type(hash_) is str
            and type(sig) is str
            and type(events) is list
            and type(sealed) is list
        ):
            for name, typ in _TYPES:
                _typed(raw, name, typ)
        if not all(type(e) is dict for e in events):
            raise ValueError("field 'events' must be a list of objects")
        if not all(type(p) is str for p in sealed):
            raise ValueError("field 'sealed' must be a list of paths")
        key = raw["key"]
        if key is not None and type(key) is not str and not is_sealed_marker(key):
            raise ValueError("field 'key' must be a string or null")
        salts: dict[str, str] | None = None
        cut_paths: tuple[str, ...] = ()
        nonce = ""
        if "nonce" in raw:
            nonce = _typed(raw, "nonce", str)
        else:
            s = _typed(raw, "salts", dict)
            if not all(isinstance(v, str) for v in s.values()):
                raise ValueError("field 'salts' must map paths to strings")
            salts = s
            c = _typed(raw, "cut", list)
            if not all(isinstance(p, str) and p in sealed for p in c):
                raise ValueError("field 'cut' must list sealed paths")
            cut_paths = tuple(c)
        return cls(
            game,
            seq,
            time_,
            seat,
            kind,
            body,
            tuple(events),
            key,
            prev,
            hash_,
            nonce,
            tuple(sealed),
            sig,
            salts,
            cut_paths,
        )


_TYPES = (
    ("game", str),
    ("seq", int),
    ("time", str),
    ("seat", str),
    ("kind", str),
    ("body", dict),
    ("events", list),
    ("prev", str),
    ("hash", str),
    ("sig", str),
    ("sealed", list),
)
_FIELDS = frozenset(
    {
        "game",
        "seq",
        "time",
        "seat",
        "kind",
        "body",
        "events",
        "key",
        "prev",
        "sealed",
        "hash",
        "sig",
    }
)


_FULL = frozenset({*_FIELDS, "nonce"})
_CUT = frozenset({*_FIELDS, "salts", "cut"})


def _replace(r: Record, **kw: Any) -> Record:
    d = {f: getattr(r, f) for f in Record.__dataclass_fields__}
    d.update(kw)
    return Record(**d)


def _typed(raw: Mapping[str, Any], key: str, typ: type) -> Any:
    v = raw[key]
    if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
        raise ValueError(f"field {key!r} must be {typ.__name__}, not {type(v).__name__}")
    return v


# ---- the stored form: hashed bytes kept, checked without re-serialising ------------------------


class Entry(Protocol):
    """A record as a game is loaded: its place in the chain and its hash are at hand; its
    content as a :class:`Record` on demand. A :class:`Record` is one; so is :class:`Stored`."""

    @property
    def game(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def time(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def prev(self) -> str: ...
    @property
    def hash(self) -> str: ...
    @property
    def sig(self) -> str: ...
    @property
    def redacted(self) -> bool: ...
    @property
    def body(self) -> Mapping[str, Any]: ...

    def hash_ok(self) -> bool:
        """Whether the content matches the hash."""
        ...

    def record(self) -> Record:
        """The whole record. Raises ValueError when the stored content is not a record."""
        ...


_decode = msgspec.json.Decoder().decode
_sha256 = hashlib.sha256


def parse_canonical(data: bytes) -> Any:
    """The value of JSON text that :func:`canonical` wrote. msgspec reads it (several times
    faster than the standard library, and alike for every such text: the property tests check
    it); what msgspec refuses (``NaN`` and ``Infinity``, which :func:`canonical` writes for such
    floats) the standard library reads. Raises ValueError for text that is not JSON."""
    try:
        return _decode(data)
    except msgspec.DecodeError:
        return json.loads(data)


class Stored(msgspec.Struct, gc=False):
    """A full record in its stored form (the SQLite store keeps it so): ``data`` is exactly the
    bytes its hash is over, ``canonical(hashed_content())``; ``opened`` holds the canonical JSON
    of each sealed value, one a line, in the order of ``sealed``. So the hash is checked over
    the stored bytes, without building and re-serialising the record, and each sealed value
    against its commitment (:meth:`hash_ok`); the record itself is built only when it is
    needed (:meth:`record`).

    Decoded from ``data``: the fields the chain and the fold read; the body stays raw. The
    fields after ``sealed`` are not in ``data``: :func:`stored_entry` sets them."""

    game: str
    seq: int
    time: str
    kind: str
    prev: str
    sealed: tuple[str, ...]
    raw_body: msgspec.Raw = msgspec.field(name="body")
    hash: str = ""
    sig: str = ""
    nonce: str = ""
    data: bytes = b""
    opened: bytes | None = None

    @property
    def redacted(self) -> bool:
        return False

    def hash_ok(self) -> bool:
        """Whether ``data`` hashes to ``hash`` and each stored sealed value opens the
        commitment ``data`` holds for it: ``sha256(salt ‖ value)``, the salt derived from the
        nonce and the path, must be one of the record's ``{"$sealed": …}`` markers. (A changed
        value, nonce or path gives another digest, which the signed bytes do not hold: finding
        one they do is a preimage of SHA-256.)"""
        try:
            if _sha256(self.data).hexdigest() != self.hash:
                return False
            opened = self.opened
            if opened is None:
                return not self.sealed
            values = opened.split(b"\n")
            if len(values) != len(self.sealed):
                return False
            text = self.data.decode()
            nonce = self.nonce + ":"
            for path, value in zip(self.sealed, values, strict=True):
                salt = _sha256((nonce + path).encode()).digest()
                if '{"$sealed":"' + _sha256(salt + value).hexdigest() + '"}' not in text:
                    return False
            return True
        except (TypeError, UnicodeDecodeError):  # a column of another type than it was written
            return False

    def _open(self, obj: Any, prefix: str) -> Any:
        """``obj`` (the content, or the part of it at ``prefix``) with the sealed values under
        ``prefix`` put back in place of their markers. Raises ValueError when a sealed path does
        not lead to a marker."""
        if self.opened is None:
            if self.sealed:
                raise ValueError("the stored record lacks its sealed values")
            return obj
        values = self.opened.split(b"\n")
        if len(values) != len(self.sealed):
            raise ValueError("the stored record's sealed values do not match its sealed paths")
        cut = len(prefix)
        for path, value in zip(self.sealed, values, strict=True):
            if not path.startswith(prefix):
                continue
            rest = path[cut:]
            if "." not in rest and type(obj) is dict:  # most sealed values: a key of the body
                at = obj.get(rest)
                if type(at) is not dict or len(at) != 1 or type(at.get(SEALED)) is not str:
                    raise ValueError(f"the stored record has no commitment at {path!r}")
                obj[rest] = parse_canonical(value)
                continue
            try:
                at = get_path(obj, rest)
            except KeyError:
                raise ValueError(f"sealed path {path!r} is not in the record") from None
            if not is_sealed_marker(at):
                raise ValueError(f"the stored record has no commitment at {path!r}")
            set_path(obj, rest, parse_canonical(value))
        return obj

    @property
    def body(self) -> Mapping[str, Any]:
        """The body with its sealed values in place (read from the raw bytes each time)."""
        body = self._open(parse_canonical(self.raw_body), "body.")
        if type(body) is not dict:
            raise ValueError("field 'body' must be dict")
        return body

    def record(self) -> Record:
        raw = self._open(parse_canonical(self.data), "")
        if type(raw) is not dict:
            raise ValueError("a record must be a JSON object")
        raw["hash"], raw["sig"], raw["nonce"] = self.hash, self.sig, self.nonce
        return Record.from_json(raw)


_STORED = msgspec.json.Decoder(Stored)


def stored_entry(data: bytes, opened: bytes | None, nonce: str, sig: str, hash_: str) -> Stored:
    """A stored record read back (its hash not checked yet: :meth:`Stored.hash_ok`). Raises
    ValueError when ``data`` is not a record's content."""
    try:
        e = _STORED.decode(data)
    except (msgspec.DecodeError, TypeError) as err:
        raise ValueError(f"not a stored record ({err})") from None
    e.hash, e.sig, e.nonce, e.data, e.opened = hash_, sig, nonce, data, opened
    return e


def stored_form(r: Record) -> tuple[bytes, bytes | None] | None:
    """``(data, opened)``: the bytes ``r``'s hash is over and its sealed values, one a line
    (see :class:`Stored`); None when ``r`` has no such form (a cut copy, a sealed path inside
    another, a content that does not match its hash, or one msgspec does not read back), which
    is then stored as its JSON line."""
    if r.redacted:
        return None
    sealed = r.sealed
    if any(q.startswith(p + ".") for p in sealed for q in sealed):
        return None
    try:
        data = canonical(r.hashed_content())
        _decode(data)
    except (ValueError, msgspec.DecodeError):
        return None
    if _sha256(data).hexdigest() != r.hash:
        return None
    if not sealed:
        return data, None
    content = {
        "game": r.game,
        "seq": r.seq,
        "time": r.time,
        "seat": r.seat,
        "kind": r.kind,
        "body": r.body,
        "events": list(r.events),
        "key": r.key,
        "prev": r.prev,
        "sealed": list(sealed),
    }
    values = [canonical(get_path(content, p)) for p in sealed]
    try:
        for v in values:
            _decode(v)
    except msgspec.DecodeError:
        return None
    return data, b"\n".join(values)


# ---- exports -------------------------------------------------------------------------------


SEAT_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")


@dataclass(frozen=True, slots=True)
class Header:
    """The first line of an export: whose cut it is and the key that signed it. The log knows
    no game: whether ``seat`` is a seat of the game its create record names (that game's
    players, the judge, the public) is checked where the game is known
    (:func:`referee.games.check_export_seat`)."""

    game: str
    seat: str
    public_key: str  # base64 Ed25519
    fingerprint: str

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "game": self.game,
            "seat": self.seat,
            "public_key": self.public_key,
            "fingerprint": self.fingerprint,
        }

    @classmethod
    def from_json(cls, raw: Any) -> Header:
        if not isinstance(raw, dict) or set(raw) != {
            "format",
            "game",
            "seat",
            "public_key",
            "fingerprint",
        }:
            raise ValueError(
                "the first line must be the export header "
                "(format, game, seat, public_key, fingerprint)"
            )
        if raw["format"] != FORMAT:
            raise ValueError(f"format {raw['format']!r} is not {FORMAT!r}")
        for k in ("game", "seat", "public_key", "fingerprint"):
            if not isinstance(raw[k], str):
                raise ValueError(f"header field {k!r} must be a string")
        if not SEAT_NAME.match(raw["seat"]):
            raise ValueError(f"header seat {raw['seat'][:40]!r} is not a seat's name")
        pk = parse_public_key(raw["public_key"])
        if fingerprint_of(pk) != raw["fingerprint"]:
            raise ValueError("the header's fingerprint is not that of its public key")
        return cls(raw["game"], raw["seat"], raw["public_key"], raw["fingerprint"])


def export_text(header: Header, records: Iterable[Record]) -> str:
    lines = [json.dumps(header.to_json(), sort_keys=True)]
    lines += [r.to_line() for r in records]
    return "\n".join(lines) + "\n"


def read_lines(text: str) -> tuple[Header, list[Record]]:
    """The header and records of an export. Raises ValueError naming the line."""
    header: Header | None = None
    out: list[Record] = []
    for ln, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            raise ValueError(f"line {ln}: longer than {MAX_LINE} characters")
        if len(out) >= MAX_RECORDS:
            raise ValueError(f"line {ln}: more than {MAX_RECORDS} records")
        try:
            raw = loads_strict(line, f"line {ln}", max_bytes=MAX_LINE, max_depth=32)
        except ValueError as e:
            raise ValueError(str(e)) from None
        try:
            if header is None:
                header = Header.from_json(raw)
            else:
                out.append(Record.from_json(raw))
        except ValueError as e:
            raise ValueError(f"line {ln}: {e}") from None
    if header is None:
        raise ValueError("the log is empty")
    return header, out


# ---- verification --------------------------------------------------------------------------

MayCut = Callable[[Record, str], set[str]]


def chain_fault(
    entries: Sequence[Entry], game: str, prev: str = GENESIS, first: int = 0
) -> tuple[int, str] | None:
    """The first of ``entries`` that does not follow on, with what is wrong ("chain": another
    game, number or link, or a cut copy; "hash": its content does not match its hash), or None
    when each does. ``prev`` and ``first``: the hash and the number the first one follows on
    from (a game's start by default; the last verified head to check only what is new)."""
    for i, e in enumerate(entries, start=first):
        if e.game != game or e.seq != i or e.prev != prev or e.redacted:
            return i, "chain"
        try:
            ok = e.hash_ok()
        except ValueError:  # a stored form that does not read
            ok = False
        if not ok:
            return i, "hash"
        prev = e.hash
    return None


@dataclass(frozen=True, slots=True)
class Verification:
    ok: bool
    count: int
    bad_seq: int | None = None  # the first record that does not verify (its place)
    problem: str = ""
    seat: str = "judge"
    cut: int = 0  # records of which something was cut for the export's seat
    head: tuple[int, str] | None = None
    fingerprint: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def message(self) -> str:
        if not self.ok:
            where = f" at record {self.bad_seq}" if self.bad_seq is not None else ""
            return f"NOT intact{where}: {self.problem}"
        head = f"; head {head_text(*self.head)}" if self.head else ""
        who = (
            "the judge's full log"
            if self.seat == "judge"
            else f"{self.seat}'s cut ({plural(self.cut, 'record')} with hidden values, each cut "
            "as the rules allow)"
        )
        out = (
            f"intact: {plural(self.count, 'record')}, hash chain and signatures verified "
            f"(key {self.fingerprint}); {who}{head}"
        )
        for n in self.notes:
            out += f"\n{n}"
        return out


def verify(
    header: Header,
    records: Iterable[Record],
    *,
    may_cut: MayCut | None = None,
    key: str | None = None,
    head: str | None = None,
    seat: str | None = None,
) -> Verification:
    """Checks a log: numbering, the chain, every hash and signature, what was cut, its head.

    ``seat`` is the seat the log claims to be cut for (default: the header's); a judge's log
    must be whole. ``may_cut(record, seat)`` gives the sealed paths the rules hide from a seat;
    a cut copy must hide exactly those: nothing else, and none of them shown (a player's cut
    relabelled "public" shows his own cards). ``key`` pins the signing key's fingerprint;
    ``head`` (``SEQ:HASH``, the hash or a prefix of at least 8 hex digits) says where the log must
    end. Names the first place that fails.
    """
    fp = header.fingerprint
    seat = seat or header.seat
    if key is not None and key.strip().lower() != fp:
        return Verification(
            False, 0, None, f"signed by key {fp}, not by {key.strip()}", seat, fingerprint=fp
        )
    pk = parse_public_key(header.public_key)
    prev = GENESIS
    n = 0
    cut = 0
    last: Record | None = None
    for i, r in enumerate(records):
        n += 1

        def bad(problem: str, i: int = i, n: int = n, cut: int = cut) -> Verification:
            return Verification(False, n, i, problem, seat, cut, fingerprint=fp)

        if r.game != header.game:
            return bad(f"belongs to game {r.game!r}, not {header.game!r} (moved between games)")
        if r.seq != i:
            what = "a record is missing before it" if r.seq > i else "records are out of order"
            return bad(f"numbered {r.seq} where {i} was expected: {what}")
        if r.prev != prev:
            return bad(
                "does not chain to the record before it "
                "(a record was removed, inserted or reordered)"
            )
        if r.kind not in KINDS:
            return bad(f"unknown kind {r.kind!r}")
        if i == 0 and r.kind != "create":
            return bad("a game's log starts with its create record")
        try:
            h = r.compute_hash()
        except ValueError as e:
            return bad(f"cannot be checked: {e}")
        if h != r.hash:
            return bad("its content does not match its hash (edited)")
        if not signature_ok(pk, r.hash, r.sig):
            return bad(
                "its signature does not verify: the record was re-hashed or signed by another key"
            )
        if r.redacted:
            if seat == "judge":
                return bad("is cut for a player, but a judge's log must be whole")
            allowed = may_cut(r, seat) if may_cut is not None else set()
            extra = sorted(set(r.cut) - allowed)
            if extra:
                return bad(f"hides {extra[0]!r}, which the rules do not hide from {seat}")
            shown = sorted(allowed - set(r.cut)) if may_cut is not None else []
            if shown:  # a cut for another seat, relabelled: it shows what this one may not see
                return bad(
                    f"shows {shown[0]!r}, which the rules hide from {seat}: this is not "
                    f"{seat}'s cut"
                )
            if r.cut:
                cut += 1
        elif seat != "judge":
            return bad(f"is a full record in {seat}'s cut (it carries the secret nonce)")
        prev = r.hash
        last = r
    if n == 0 or last is None:
        return Verification(False, 0, 0, "the log has no records", seat, fingerprint=fp)
    got = (last.seq, last.hash)
    if head is not None:
        try:
            want, want_hash = parse_head(head)
        except ValueError as e:
            return Verification(False, n, None, f"--head {e}", seat, cut)
        want_seq = str(want)
        if want != last.seq or not last.hash.startswith(want_hash):
            if want > last.seq:
                problem = (
                    f"the log ends at {head_text(last.seq, last.hash)}, before the head "
                    f"{head_text(int(want_seq), want_hash)}: it was cut short"
                )
            else:
                problem = (
                    f"the log ends at {head_text(last.seq, last.hash)}, not at the head "
                    f"{head_text(int(want_seq), want_hash)}"
                )
            return Verification(False, n, None, problem, seat, cut, got, fp)
    notes: tuple[str, ...] = ()
    if head is None:
        notes = (
            "(the end of a log cannot be proved from the log alone: check it against the head "
            "the players wrote down, with --head SEQ:HASH)",
        )
    return Verification(True, n, None, "", seat, cut, got, fp, notes)
