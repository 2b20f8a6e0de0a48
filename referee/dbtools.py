"""``referee db upgrade`` and ``referee db copy`` (issue 35): bringing a database's schema up
to date, and moving a club's history between SQLite and PostgreSQL.

A copy moves every game's log and every event's log record for record in the stored form (the
exact bytes each hash is over), with its secrets, each log in one transaction. Nothing is
copied unless all of it can be:

- each log is verified at the source first (chain, hashes, signatures, and for a game its
  rules, as a server reads it); a log that fails is named and nothing is written;
- the destination must sign with the source's key: a destination with no key yet gets a copy
  of the source's key file (owner-only); one with another key is refused (single games move
  between servers with ``referee import --trust-key``), and the source's trusted keys are
  added to the destination's, so the games imported with them are served there too;
- a log the destination already holds must end at the same head (a copy run again after an
  interruption skips it); one that differs is named and nothing is written.

On arrival every log is read back and compared with the source, byte for byte, then verified
again as the destination's server reads it, which notes its head in the destination's heads
journal (:mod:`referee.anchors`), so the destination can be served at once.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.anchors import trust_path
from referee.errors import ServiceError
from referee.keys import KeyFileError, Signer
from referee.place import Place, add_db_options, place_of
from referee.service import Referee, open_referee
from referee.store import Store, StoreError, row_of


class CopyError(Exception):
    """A copy that wrote nothing (or, after the writing began, what stopped it). The message
    is one sentence naming the log and the reason."""


@dataclass
class CopyReport:
    """What a copy did: the logs copied, those already there (same head) and skipped."""

    copied: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    records: int = 0


def upgrade_db(place: Place) -> str:
    """Brings ``place``'s schema up to date; returns one sentence saying what was done.
    Raises StoreError."""
    if place.postgres:
        from referee.pgstore import latest_version, upgrade

        applied = upgrade(place.db)
        if not applied:
            return f"{place.name}: up to date (schema version {latest_version()})"
        names = ", ".join(f"{m.version:04d}_{m.name}" for m in applied)
        return f"{place.name}: applied {names}; now at schema version {latest_version()}"
    store = place.open_store()  # a SQLite file brings its own tables up to date on opening
    store.close()
    return f"{place.name}: a SQLite database brings its tables up to date when it is opened; done"


def _key_for(src: Place, dst: Place, signer: Signer) -> None:
    """Gives ``dst`` the source's key when it has none (before it is opened); refuses a
    destination that signs with another key it does not trust. Raises CopyError."""
    key = dst.file(".key")
    if not key.exists():
        try:
            dst.prepare()
            pem = src.file(".key").read_bytes()
            fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # owner-only at once
            with os.fdopen(fd, "wb") as f:
                f.write(pem)
        except OSError as e:
            raise CopyError(f"{key}: cannot write the signing key ({e.strerror})") from None
        return
    try:
        theirs = Signer.load_or_create(key)
    except KeyFileError as e:
        raise CopyError(str(e)) from None
    if theirs.fingerprint != signer.fingerprint:
        raise CopyError(
            f"{dst.name} signs with another key ({theirs.fingerprint}) than {src.name} "
            f"({signer.fingerprint}): a copy moves a server's history with its key, so copy "
            "into a database with no key yet (a new state folder), or bring single games over "
            "with referee import --trust-key; nothing was copied"
        )


def _trust_for(src: Place, dst: Place) -> None:
    """Adds to ``dst``'s trusted keys those of ``src`` it lacks (the games imported with them
    must be served there too). Raises CopyError for a name trusted there for another key."""
    from referee.anchors import AnchorError, TrustList

    try:
        theirs = TrustList(trust_path(src.files))
        ours = TrustList(trust_path(dst.files))
        for k in theirs.keys.values():
            if ours.trusts(k.fingerprint, k.public_key or None) is None:
                ours.add(k)
    except (AnchorError, ValueError) as e:
        raise CopyError(f"{dst.name}: cannot take the source's trusted keys: {e}") from None


def _verify_source(src: Referee, sid: str) -> None:
    """Raises CopyError unless the log ``sid`` verifies as ``src``'s server reads it: for a
    game also its head against the server's heads journal (a rolled-back game is held)."""
    from referee.event.log import PREFIX, is_event_log, verify_event_log  # only when copying

    if is_event_log(sid):
        check = verify_event_log(
            sid.removeprefix(PREFIX), src.signer.public_b64, src.store.entries(sid)
        )
        if not check.ok:
            at = f" at record {check.bad_seq}" if check.bad_seq is not None else ""
            raise CopyError(f"{sid}: does not verify{at}: {check.problem}; nothing was copied")
        return
    try:
        src.folded(sid)
    except ServiceError as e:
        raise CopyError(f"{sid}: does not verify: {e.message}; nothing was copied") from None


def _arrived(src: Referee, dst: Referee, sid: str) -> None:
    """Reads ``sid`` back from the destination: the same rows as the source's, and verified
    as the destination's server reads it (which notes its head in the destination's
    journal). Raises CopyError."""
    from referee.event.log import PREFIX, is_event_log, verify_event_log

    if [row_of(r) for r in dst.store.records(sid)] != [row_of(r) for r in src.store.records(sid)]:
        raise CopyError(f"{sid}: the copy does not read back as the source's records")
    if is_event_log(sid):
        entries = dst.store.entries(sid)
        check = verify_event_log(
            sid.removeprefix(PREFIX), dst.signer.public_b64, entries, check_pairings=False
        )
        if not check.ok:
            raise CopyError(f"{sid}: the copy does not verify: {check.problem}")
        last = entries[-1]
        dst.reader.anchors.journal.note(sid, last.seq, last.hash, dst.signer.fingerprint)
        return
    try:
        dst.folded(sid)
    except ServiceError as e:
        raise CopyError(f"{sid}: the copy does not verify: {e.message}") from None


def copy_db(
    src_db: str,
    dst_db: str,
    *,
    src_state: str | None = None,
    dst_state: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> CopyReport:
    """Copies every game and event of ``src_db`` into ``dst_db`` (see the module's
    docstring). Raises CopyError, or StoreError/KeyFileError/AnchorError for a database or
    file that cannot be opened."""
    try:
        src_place, dst_place = place_of(src_db, src_state), place_of(dst_db, dst_state)
    except ValueError as e:
        raise CopyError(str(e)) from None
    if src_place.files == dst_place.files or src_place.db == dst_place.db:
        raise CopyError(f"{src_place.name}: the source and the destination are the same")
    src = open_referee(src_db, readonly=True, state=src_state)
    try:
        ids = src.store.games() + src.store.event_logs()
        for sid in ids:  # every log verified before anything is written
            _verify_source(src, sid)
        store = dst_place.open_store()
        try:
            report, todo = _plan(src, store, ids)
        finally:
            store.close()
        _key_for(src_place, dst_place, src.signer)
        _trust_for(src_place, dst_place)
        dst = open_referee(dst_db, state=dst_state)
        try:
            say = progress or (lambda _line: None)
            for sid in todo:
                records = src.store.records(sid)
                try:
                    dst.store.append(records, src.store.secrets(sid) or None)
                except StoreError as e:
                    done = len(report.copied)
                    raise CopyError(f"{sid}: {e} ({done} logs copied before it)") from None
                _arrived(src, dst, sid)
                report.copied.append(sid)
                report.records += len(records)
                say(f"{sid}: {len(records)} records")
            return report
        finally:
            dst.store.close()
    finally:
        src.store.close()


def _plan(src: Referee, dst: Store, ids: list[str]) -> tuple[CopyReport, list[str]]:
    """The logs to copy, and a report naming those the destination holds already at the same
    head. Raises CopyError for one it holds with another head."""
    report = CopyReport()
    todo: list[str] = []
    for sid in ids:
        there = dst.head(sid)
        if there is None:
            todo.append(sid)
        elif there == src.store.head(sid):
            report.skipped.append(sid)
        else:
            raise CopyError(
                f"{sid}: the destination already holds this log with another head "
                f"({there[0]}:{there[1][:12]}); nothing was copied"
            )
    return report, todo


def verify_db(db: str, state: str | None = None) -> tuple[int, list[str]]:
    """Verifies every game and event log of ``db`` as its server reads them (chain, hashes,
    signatures, the rules, and each head against the heads journal); returns how many logs
    were read and one line per log that failed (a log the heads journal knows and the
    database lacks counts as one that failed). Raises StoreError, KeyFileError or
    AnchorError for a database or file that cannot be opened."""
    ref = open_referee(db, readonly=True, state=state)
    try:
        ids = ref.store.games() + ref.store.event_logs()
        bad = []
        for sid in ids:
            try:
                _verify_source(ref, sid)
            except CopyError as e:
                bad.append(str(e).removesuffix("; nothing was copied"))
        lost = [(sid, seq) for sid, seq, held in ref.catalogue.behind() if held is None]
        for sid, seq in lost:  # a restore from before the journal's end
            bad.append(f"{sid}: missing from the database; the heads journal has it at event {seq}")
        return len(ids) + len(lost), bad
    finally:
        ref.store.close()


# ---- the commands --------------------------------------------------------------------------


def _fail(message: str) -> int:
    print(f"referee: {message}", file=sys.stderr)
    return 2


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    try:
        print(upgrade_db(place_of(args.db, args.state)))
    except (ValueError, StoreError) as e:
        return _fail(str(e))
    return 0


def cmd_db_copy(args: argparse.Namespace) -> int:
    from referee.anchors import AnchorError

    try:
        report = copy_db(
            args.src,
            args.dst,
            src_state=args.from_state,
            dst_state=args.to_state,
            progress=None if args.quiet else print,
        )
    except (CopyError, StoreError, KeyFileError, AnchorError) as e:
        return _fail(str(e))
    dst = place_of(args.dst, args.to_state).name
    print(
        f"copied {len(report.copied)} logs ({report.records} records) into {dst}, each "
        f"verified on arrival; {len(report.skipped)} already there"
    )
    return 0


def cmd_db_verify(args: argparse.Namespace) -> int:
    from referee.anchors import AnchorError

    try:
        n, bad = verify_db(args.db, args.state)
    except (StoreError, KeyFileError, AnchorError, ValueError) as e:
        return _fail(str(e))
    for line in bad:
        print(f"FAILED {line}")
    name = place_of(args.db, args.state).name
    print(f"{name}: {n - len(bad)} of {n} logs verify")
    return 1 if bad else 0


def add_db_commands(sub: Any) -> None:
    """Adds ``db upgrade`` and ``db copy`` to the ``referee`` command's subparsers."""
    p = sub.add_parser("db", help="the database: upgrade its schema, copy it to another")
    dsub = p.add_subparsers(dest="db_command", metavar="upgrade|copy|verify")
    dsub.required = True
    q = dsub.add_parser(
        "upgrade",
        help="bring a PostgreSQL database's tables to this referee's schema (run once, and "
        "after each upgrade of the referee)",
    )
    add_db_options(q)
    q.set_defaults(func=cmd_db_upgrade)
    q = dsub.add_parser(
        "copy",
        help="copy every game and event from one database into another (SQLite to PostgreSQL "
        "or back), verifying each on arrival",
    )
    q.add_argument("src", metavar="SRC", help="the database to read (a file or a URI)")
    q.add_argument("dst", metavar="DST", help="the database to write (a file or a URI)")
    q.add_argument("--from-state", metavar="DIR", help="SRC's state folder (PostgreSQL)")
    q.add_argument("--to-state", metavar="DIR", help="DST's state folder (PostgreSQL)")
    q.add_argument("--quiet", action="store_true", help="print only the summary")
    q.set_defaults(func=cmd_db_copy)
    q = dsub.add_parser(
        "verify",
        help="verify every game and event log of a database as its server reads them (after a "
        "restore); exit status 1 when one fails",
    )
    add_db_options(q)
    q.set_defaults(func=cmd_db_verify)
