"""An event's own signed log (T12): records of :class:`referee.log.Record`, hash-chained and
signed by the server's key, in the same store as the games under the store id ``event.<id>``
(a '.' is in no game id, so it never meets a game's).

The event's record kinds are its own (:data:`referee.event.state.KINDS`), not a game's; an
event log is checked by :func:`verify_event_log`, which reuses the chain, hash and signature
checks of :mod:`referee.log`, then folds it (:func:`referee.event.state.fold`), which refuses
any record the rules do not allow (a pairing that is not the computed one included).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.errors import Refused
from referee.event.state import KINDS, EventState, Work, fold_work, freeze
from referee.keys import parse_public_key, signature_ok
from referee.log import GENESIS, Entry, Record, chain_fault

PREFIX = "event."
FORMAT = "hz-event/1"


def store_id(event: str) -> str:
    """The store id of the event ``event``'s log."""
    return f"{PREFIX}{event}"


def is_event_log(store_game: str) -> bool:
    """Whether a store id names an event's log (not a game)."""
    return store_game.startswith(PREFIX)


@dataclass(frozen=True)
class LogCheck:
    """What :func:`verify_event_log` found: ``ok``, or the first bad record and why."""

    ok: bool
    count: int
    problem: str = ""
    bad_seq: int | None = None
    state: EventState | None = None
    work: Work | None = None


def verify_event_log(
    event: str, public_key: str, records: Sequence[Entry], *, check_pairings: bool = True
) -> LogCheck:
    """Checks an event's log: numbering, chain and hashes (:func:`referee.log.chain_fault`),
    each record's kind and signature by ``public_key`` (base64), then its fold, which
    recomputes every pairing unless ``check_pairings`` is False (the server reading the log
    it wrote and signed itself: :attr:`referee.event.state.Work.check_pairings`)."""
    sid = store_id(event)
    if not records:
        return LogCheck(False, 0, "the event's log has no records", 0)
    fault = chain_fault(records, sid, GENESIS, 0)
    if fault is not None:
        at, what = fault
        words = {
            "chain": "does not follow on from the record before it (a record was removed, "
            "inserted, reordered or moved from another log)",
            "hash": "its content does not match its hash (edited)",
        }
        return LogCheck(False, len(records), words.get(what, what), at)
    pk = parse_public_key(public_key)
    recs: list[Record] = []
    for e in records:
        r = e.record()
        if r.kind not in KINDS:
            return LogCheck(False, len(records), f"unknown kind {r.kind[:20]!r}", r.seq)
        if not signature_ok(pk, r.hash, r.sig):
            return LogCheck(
                False,
                len(records),
                "its signature does not verify: the record was re-hashed or signed by another key",
                r.seq,
            )
        recs.append(r)
    try:
        work = fold_work(recs, check_pairings)
    except Refused as e:
        seq = None
        problem = e.message
        if problem.startswith("record "):
            head, _, rest = problem.partition(": ")
            number = head.removeprefix("record ")
            if number.isdigit():
                seq, problem = int(number), rest
        return LogCheck(False, len(records), problem, seq)
    return LogCheck(True, len(records), "", None, freeze(work), work)
