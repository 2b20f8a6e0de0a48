"""The referee package's commands of ``referee`` (the command itself is :mod:`web.cli`,
which adds these with :func:`add_commands`, beside those of printables, vision and web).

    referee rule [--json] FILE               rule on a ruling file (POSITIONS.md)
    referee verify [--redacted] [--key FP] [--head SEQ:HASH] LOG
                                             check a log's chain, signatures, cuts and head
    referee replay [--json] [--at N] LOG     step through a game, or print a position
    referee export [--db DB] [--seat S] GAME print a game's log as JSON lines (redacted per seat)
    referee import [--db DB] LOG             store a verified log
    referee games [--db DB]                  list the games in a database

Exit status: 0 when the file was read and ruled on (legal or not); 2 with one line on stderr
when the input is malformed or incomplete. Never a traceback for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine import HeraZeusError, NeedsInputError
from referee.fold import FoldError, fold
from referee.fold import step as fold_step
from referee.game import Malformed
from referee.games import game_of
from referee.keys import KeyFileError, Signer
from referee.log import Header, Record, read_lines, verify
from referee.reading import ALL_SEATS
from referee.ruling import MAX_FILE_BYTES, render_json, render_text, rule_file
from referee.service import Referee, ServiceError, open_referee
from referee.store import SQLiteStore, StoreError
from referee.views import cutter

DEFAULT_DB = "referee.sqlite3"


def _fail(message: str) -> int:
    print(f"referee: {message}", file=sys.stderr)
    return 2


def _one_line(message: str, limit: int = 400) -> str:
    """A message as one printable line of bounded length (it may quote the input)."""
    out = "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        for ch in message[: limit + 1]
    )
    return out if len(out) <= limit else out[: limit - 1] + "…"


def _read_bounded(file: str, limit: int) -> str:
    """The text of ``file`` (``-``: stdin), reading at most ``limit`` + 1 bytes. Raises OSError,
    UnicodeDecodeError, or ValueError when the input is larger than ``limit``."""
    if file == "-":
        stream = getattr(sys.stdin, "buffer", None)
        data: bytes | str = stream.read(limit + 1) if stream else sys.stdin.read(limit + 1)
    else:
        with open(file, "rb") as f:
            data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"too large: more than {limit:,} bytes")
    return data.decode("utf-8") if isinstance(data, bytes) else data


def cmd_rule(args: argparse.Namespace) -> int:
    def fail(message: str) -> int:
        return _fail(_one_line(f"{args.file}: {message}"))

    try:
        text = _read_bounded(args.file, MAX_FILE_BYTES)
    except ValueError as e:  # too large, or not UTF-8 (UnicodeDecodeError is a ValueError)
        what = "not UTF-8 text" if isinstance(e, UnicodeDecodeError) else str(e)
        return fail(what)
    except OSError as e:
        return fail(f"cannot read: {e.strerror or e}")
    name = "stdin" if args.file == "-" else Path(args.file).name
    try:
        ruling = rule_file(text, name)
    except NeedsInputError as e:
        return fail(f"{e.needs}: cannot rule without it: {e.reason} ({e.rule})")
    except HeraZeusError as e:  # NotationError and the rest: the file is malformed
        msg = str(e)
        return fail(msg[len(name) + 2 :] if msg.startswith(f"{name}: ") else msg)
    if args.json:
        print(json.dumps(render_json(ruling), indent=1, ensure_ascii=False))
    else:
        print(render_text(ruling))
    return 0


MAX_LOG_BYTES = 256_000_000  # a log of a very long game is a few MB


def _read_log(path: str) -> tuple[Header, list[Record]] | str:
    """The header and records of a JSON-lines export, or an error message."""
    try:
        text = _read_bounded(path, MAX_LOG_BYTES)
    except ValueError as e:
        what = "not UTF-8 text" if isinstance(e, UnicodeDecodeError) else str(e)
        return f"{path}: {what}"
    except OSError as e:
        return f"{path}: cannot read: {e.strerror or e}"
    try:
        header, records = read_lines(text)
    except ValueError as e:
        return _one_line(f"{path}: {e}")
    if not records:
        return f"{path}: the log has no records"
    return header, records


def cmd_verify(args: argparse.Namespace) -> int:
    got = _read_log(args.log)
    if isinstance(got, str):
        return _fail(got)
    header, records = got
    if header.seat != "judge" and not args.redacted:
        print(
            f"{args.log}: NOT a full log: it is {header.seat}'s cut; check it with --redacted",
        )
        return 1
    try:
        module = game_of(records[0].body)
    except Malformed as e:
        return _fail(f"{args.log}: {e.reason}")
    v = verify(header, records, may_cut=cutter(module), key=args.key, head=args.head)
    print(f"{args.log}: {v.message()}")
    return 0 if v.ok else 1


def cmd_replay(args: argparse.Namespace) -> int:
    got = _read_log(args.log)
    if isinstance(got, str):
        return _fail(got)
    header, records = got
    if header.seat != "judge":
        return _fail(f"{args.log}: a replay needs the judge's full log, not {header.seat}'s cut")
    v = verify(header, records)
    if not v.ok:
        print(f"referee: warning: {args.log}: {v.message()}", file=sys.stderr)
    if args.at is not None and not 0 <= args.at < len(records):
        return _fail(f"--at {args.at}: the log has events 0 to {len(records) - 1}")
    upto = records if args.at is None else records[: args.at + 1]
    try:
        folded = fold(upto)
    except FoldError as e:
        return _fail(f"{args.log}: {e}")
    if args.json:
        position = folded.module.position_json(folded.state)
        print(json.dumps(position, indent=1, ensure_ascii=False))
        return 0
    replay_text(upto, args.step)
    return 0


def replay_text(records: list[Record], step: bool) -> None:
    """Prints the game event by event with the board after each action."""
    f = fold(records[:1])
    print(f"Game {records[0].game}: {json.dumps(records[0].body, ensure_ascii=False)}")
    for r in records[1:]:
        fold_step(f, r)
        line = f"#{r.seq} {r.time} {r.seat}: {r.kind}"
        if r.kind == "action":
            line += f" {f.module.action_text(r.body['action'])}"
        elif r.kind in ("undo", "amend", "ask", "call", "resolve", "reissue"):
            line += f" {json.dumps(dict(r.body), ensure_ascii=False)}"
        elif r.kind in ("observation", "irregularity"):
            irr = r.body.get("irregularity")
            problem = irr.get("problem") if isinstance(irr, dict) else r.body.get("problem")
            line += f" {problem or json.dumps(dict(r.body), ensure_ascii=False)}"
        print(line)
        for e in r.events:
            said = f.module.event_text(e)
            if said:
                print(f"    {said}")
        if r.kind == "action":
            print(f.module.board_text(f.state))
        if step and sys.stdin.isatty():
            input("  (Enter for the next event) ")
    over = f.module.summary(f.state)
    if over.winner is not None:
        print(f"{over.winner.capitalize()} wins ({over.reason or ''}).")


def _open(db: str, *, readonly: bool) -> Referee | str:
    """A referee over the database ``db`` (read-only commands never create a file), or an
    error message."""
    try:
        if readonly:
            store = SQLiteStore(db, readonly=True)
            key = Path(f"{db}.key")
            if not key.exists():
                store.close()
                return f"{db}: no signing key beside the database ({key})"
            return Referee(store, signer=Signer.load_or_create(key))
        return open_referee(db)
    except (StoreError, KeyFileError) as e:
        return str(e)


def cmd_export(args: argparse.Namespace) -> int:
    ref = _open(args.db, readonly=True)
    if isinstance(ref, str):
        return _fail(ref)
    try:
        text = ref.export(args.game, args.seat)
    except ServiceError as e:
        return _fail(e.message)
    finally:
        ref.store.close()
    sys.stdout.write(text)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    try:
        text = _read_bounded(args.log, MAX_LOG_BYTES)
    except ValueError as e:
        return _fail(f"{args.log}: {'not UTF-8 text' if isinstance(e, UnicodeDecodeError) else e}")
    except OSError as e:
        return _fail(f"{args.log}: cannot read: {e.strerror or e}")
    ref = _open(args.db, readonly=False)
    if isinstance(ref, str):
        return _fail(ref)
    try:
        gid = ref.import_log(text, args.trust_key)
        n = len(ref.store.records(gid))
    except ServiceError as e:
        return _fail(_one_line(f"{args.log}: {e.message}"))
    finally:
        ref.store.close()
    print(f"imported game {gid} ({n} events)")
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    ref = _open(args.db, readonly=True)
    if isinstance(ref, str):
        return _fail(ref)
    try:
        for g in ref.games():
            print(g)
    except ServiceError as e:
        return _fail(e.message)
    finally:
        ref.store.close()
    return 0


def add_commands(sub: Any) -> None:
    """Adds ``rule``, ``verify``, ``replay``, ``export``, ``import`` and ``games`` to the
    ``referee`` command's subparsers ``sub`` (from ``add_subparsers``)."""
    p = sub.add_parser("rule", help="rule on a ruling file (position + actions)")
    p.add_argument("file", help="the ruling file (JSON, POSITIONS.md); - reads stdin")
    p.add_argument("--json", action="store_true", help="print the result object")
    p.set_defaults(func=cmd_rule)

    p = sub.add_parser("verify", help="check a log: hash chain, signatures, cuts, head")
    p.add_argument("log")
    p.add_argument(
        "--redacted",
        action="store_true",
        help="accept a seat's cut export: checks that only what the rules hide was cut",
    )
    p.add_argument("--key", help="the server key's fingerprint the log must be signed with")
    p.add_argument("--head", help="SEQ:HASH the log must end with (the head on the score sheet)")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("replay", help="step through a game log, or print a position")
    p.add_argument("log")
    p.add_argument("--json", action="store_true", help="print the final position (POSITIONS.md)")
    p.add_argument("--at", type=int, help="stop after event N")
    p.add_argument("--step", action="store_true", help="wait for Enter after each event")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("export", help="print a game's log as JSON lines")
    p.add_argument("game")
    p.add_argument("--db", default=DEFAULT_DB)
    p.add_argument("--seat", default="judge", choices=ALL_SEATS)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="store a verified log (a judge's export)")
    p.add_argument("log")
    p.add_argument(
        "--trust-key",
        metavar="FINGERPRINT",
        help="accept a log signed by another server's key with this fingerprint",
    )
    p.add_argument("--db", default=DEFAULT_DB)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("games", help="list the games in a database")
    p.add_argument("--db", default=DEFAULT_DB)
    p.set_defaults(func=cmd_games)
