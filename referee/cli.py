"""The referee package's commands of ``referee`` (the command itself is :mod:`web.cli`,
which adds these with :func:`add_commands`, beside those of printables, vision and web).

    referee rule [--json] [--lang L] FILE    rule on a ruling file (POSITIONS.md), its words
                                             in en, it, fr or de
    referee verify [--redacted] [--key FP] [--head SEQ:HASH] LOG
                                             check a log's chain, signatures, cuts and head
    referee replay [--json] [--at N] [--key FP] [--head SEQ:HASH] LOG
                                             step through a game, or print a position
    referee export [--db DB] [--seat S] GAME print a game's log as JSON lines (redacted per seat)
    referee import [--db DB] [--head SEQ:HASH | --yes] [--trust-key FP] LOG
                                             store a verified log (its end checked, or confirmed)
    referee games [--db DB]                  list the games in a database
    referee trust add|list|remove [--db DB]  the server keys a tournament trusts (DB.trust)
    referee event list|export|verify|simulate
                                             tournament events (:mod:`referee.event.cli`)
    referee db upgrade [--db DB]             bring a PostgreSQL database's schema up to date
    referee db copy SRC DST                  copy every game and event into another database
    referee db verify [--db DB]              verify every game and event log (after a restore)

Every command that opens a database takes ``--db`` (default ``$REFEREE_DB``, else
``referee.sqlite3``): a SQLite file or a ``postgresql://`` URI, whose key and journal live in
its state folder ``--state DIR`` (:mod:`referee.place`).

Exit status: 0 when the file was read and ruled on (legal or not); 2 with one line on stderr
when the input is malformed or incomplete (``replay`` and ``import``: also a log that does not
verify, naming the record and what is wrong). Never a traceback for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine.errors import EngineError, NeedsInputError, NotationError
from engine.say import Say
from referee.anchors import (
    AnchorError,
    TrustedKey,
    TrustList,
    key_from_file,
    parse_fingerprint,
    trust_path,
)
from referee.fold import FoldError, fold
from referee.fold import step as fold_step
from referee.game import Malformed
from referee.games import DEFAULT, GAMES, all_seats, check_export_seat, game_of
from referee.keys import KeyFileError
from referee.language import say
from referee.log import Header, Record, read_lines, verify
from referee.narration import record_words
from referee.place import add_db_options, place_of
from referee.rulings import MAX_FILE_BYTES, game_of_file, language_refused
from referee.service import Referee, ServiceError, open_referee
from referee.store import StoreError
from referee.views import cutter
from referee.words import head_text


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
    lang = args.lang
    refused = language_refused(lang)
    if refused is not None:
        return _fail(_one_line(f"--lang: {refused}"))

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
        game = game_of_file(text, name, GAMES, DEFAULT)
        print(game.rule_on_file(text, name, args.json, lang))
    except NeedsInputError as e:
        missing = Say(
            "%(needs)s: cannot rule without it: %(reason)s (%(rule)s)",
            needs=e.needs,
            reason=e.reason,
            rule=e.rule,
        )
        return fail(say(missing, lang))
    except NotationError as e:  # the file is malformed: where, then what (said)
        msg = say(e.detail, lang)
        msg = f"{e.where}: {msg}" if e.where else msg
        return fail(msg[len(name) + 2 :] if msg.startswith(f"{name}: ") else msg)
    except EngineError as e:  # the rest
        msg = str(e)
        return fail(msg[len(name) + 2 :] if msg.startswith(f"{name}: ") else msg)
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
    try:
        game = game_of(records[0].body)
    except Malformed:
        return header, records  # no such game: the fold names the record
    try:  # the header's seat is one of the game's own (its players, judge, public)
        check_export_seat(header.seat, game)
    except Malformed as e:
        return _one_line(f"{path}: {e.reason}")
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
    v = verify(header, records, key=args.key, head=args.head)
    if not v.ok:  # a doctored log is not replayed: it says where and why, once
        return _fail(_one_line(f"{args.log}: {v.message()}"))
    if args.at is not None and not 0 <= args.at < len(records):
        return _fail(f"--at {args.at}: the log has events 0 to {len(records) - 1}")
    upto = records if args.at is None else records[: args.at + 1]
    try:
        # not checked again only when the log verified against a key the user named: a log
        # signed with its own header's key proves nothing about who checked its actions
        trusted = args.key is not None
        folded = fold(upto, verified=trusted)
        if args.json:
            position = folded.module.position_json(folded.state)
            print(json.dumps(position, indent=1, ensure_ascii=False))
            return 0
        replay_text(upto, args.step, verified=trusted)
    except FoldError as e:
        return _fail(_one_line(f"{args.log}: {e}"))
    except Exception as e:  # a log signed by some key may still carry a body no rule expects
        at = _failing_record(upto)
        what = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        return _fail(_one_line(f"{args.log}: record {at} cannot be replayed ({what})"))
    return 0


def _failing_record(records: list[Record]) -> int:
    """The first record that fails when the log is folded one record at a time (the last
    when none does that way)."""
    at = 0
    try:
        f = fold(records[:1])
        for r in records[1:]:
            at = r.seq
            fold_step(f, r)
    except Exception:  # looking for the record, not handling the error
        return at
    return at


def replay_text(records: list[Record], step: bool, verified: bool = False) -> None:
    """Prints the game event by event with the board after each action. ``verified``: the
    records' signatures verified against a named key, so their actions are not checked again."""
    f = fold(records[:1], verified)
    print(f"Game {records[0].game}: {json.dumps(records[0].body, ensure_ascii=False)}")
    for r in records[1:]:
        fold_step(f, r)
        # in words: who did what (the action in the game's notation, which `referee rule`
        # reads back), the service's records as the pages say them
        who = r.seat.capitalize()
        line = f"#{r.seq} {r.time[11:19]} {who}: "
        if r.kind == "action":
            line += f"{f.module.action_text(r.body['action'])}"
        elif r.kind == "observation":
            irr = r.body.get("irregularity")
            problem = irr.get("problem") if isinstance(irr, dict) else None
            line += f"saw {r.body.get('card', 'a card')}" + (f" ({problem})" if problem else "")
        else:
            line += record_words(r, True, records)
            note = r.body.get("reason") or r.body.get("note")
            if note and r.kind not in ("irregularity", "ask"):
                line += f" Reason: {note}"
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
        print(f"{over.winner.capitalize()} wins: {f.module.reason_text(over.reason)}.")


def _open(args: argparse.Namespace, *, readonly: bool) -> Referee | str:
    """A referee over the database ``args.db`` (with ``args.state``), with its key and anchors
    (read-only commands never create a file), or an error message."""
    try:
        return open_referee(args.db, readonly=readonly, state=args.state)
    except (StoreError, KeyFileError, AnchorError) as e:
        return str(e)


def cmd_export(args: argparse.Namespace) -> int:
    ref = _open(args, readonly=True)
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
    try:
        header, records = read_lines(text)
    except ValueError as e:
        return _fail(_one_line(f"{args.log}: the log cannot be read: {e}"))
    v = verify(header, records, head=args.head)
    if not v.ok:
        return _fail(_one_line(f"{args.log}: the log does not verify: {v.message()}"))
    unproven = (
        f"{args.log}: the end of this log is unproven (a log cut short verifies as well "
        "as a whole one): check it against the head on the score sheet with --head SEQ:HASH"
    )
    if args.head is None:
        if args.yes:
            pass  # warned once it is imported (a refusal stays one line)
        elif not sys.stdin.isatty():
            return _fail(f"{unproven}, or import it anyway with --yes; nothing was imported")
        else:
            print(f"referee: WARNING: {unproven}.", file=sys.stderr)
            try:
                end = f"event {head_text(*v.head)}" if v.head else "its last record"
                answer = input(f"Import it anyway, ending at {end}? [y/N] ")
            except EOFError:
                answer = ""
            if answer.strip().lower() not in ("y", "yes"):
                return _fail(f"{args.log}: not imported")
    ref = _open(args, readonly=False)
    if isinstance(ref, str):
        return _fail(ref)
    try:
        gid = ref.import_log(text, args.trust_key, args.head)
        n = len(ref.store.records(gid))
    except ServiceError as e:
        return _fail(_one_line(f"{args.log}: {e.message}"))
    finally:
        ref.store.close()
    print(f"imported game {gid} ({n} events)")
    if args.head is None and args.yes:
        print(f"referee: WARNING: {unproven}; imported anyway (--yes)", file=sys.stderr)
    return 0


def _trust_list(args: argparse.Namespace) -> TrustList | str:
    try:
        place = place_of(args.db, args.state)
        return TrustList(trust_path(place.files))
    except (AnchorError, ValueError) as e:
        return str(e)


def cmd_trust_add(args: argparse.Namespace) -> int:
    trust = _trust_list(args)
    if isinstance(trust, str):
        return _fail(trust)
    try:
        if Path(args.key).exists():
            found = key_from_file(args.key)
            key = TrustedKey(args.name, found.fingerprint, found.public_key)
        else:
            key = TrustedKey(args.name, parse_fingerprint(args.key))
        trust.add(key)
    except ValueError as e:
        return _fail(_one_line(f"trust add: {e}"))
    except AnchorError as e:
        return _fail(str(e))
    print(f"trusted {key.name}: key {key.fingerprint} (in {trust.path})")
    return 0


def cmd_trust_list(args: argparse.Namespace) -> int:
    trust = _trust_list(args)
    if isinstance(trust, str):
        return _fail(trust)
    for k in sorted(trust.keys.values(), key=lambda k: k.name):
        known = "" if k.public_key else "  (fingerprint only)"
        print(f"{k.name}  {k.fingerprint}{known}")
    return 0


def cmd_trust_remove(args: argparse.Namespace) -> int:
    trust = _trust_list(args)
    if isinstance(trust, str):
        return _fail(trust)
    try:
        k = trust.remove(args.name)
    except KeyError:
        return _fail(_one_line(f"trust remove: no trusted key named {args.name!r}"))
    except AnchorError as e:
        return _fail(str(e))
    print(f"no longer trusted: {k.name} ({k.fingerprint})")
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    ref = _open(args, readonly=True)
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
    """Adds ``rule``, ``verify``, ``replay``, ``export``, ``import``, ``games`` and ``trust`` to the
    ``referee`` command's subparsers ``sub`` (from ``add_subparsers``)."""
    p = sub.add_parser("rule", help="rule on a ruling file (position + actions)")
    p.add_argument("file", help="the ruling file (JSON, POSITIONS.md); - reads stdin")
    p.add_argument("--json", action="store_true", help="print the result object")
    p.add_argument(
        "--lang",
        default="en",
        metavar="LANG",
        help="the language of the ruling's words: en (default), it, fr or de; ids, codes, "
        "notation and the outcome are the same in every language",
    )
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
    p.add_argument("--key", help="the server key's fingerprint the log must be signed with")
    p.add_argument("--head", help="SEQ:HASH the log must end with (the head on the score sheet)")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("export", help="print a game's log as JSON lines")
    p.add_argument("game")
    add_db_options(p)
    p.add_argument("--seat", default="judge", choices=all_seats())
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="store a verified log (a judge's export)")
    p.add_argument("log")
    p.add_argument(
        "--trust-key",
        metavar="FINGERPRINT",
        help="accept, this once, a log signed by another server's key with this fingerprint "
        "(keys the tournament trusts for good: referee trust add)",
    )
    p.add_argument(
        "--head",
        metavar="SEQ:HASH",
        help="where the log must end (the head on the score sheet), as verify --head checks it",
    )
    p.add_argument(
        "--yes",
        action="store_true",
        help="import without --head, after a warning that the end is unproven (for scripts; "
        "without it a terminal asks, anything else is refused)",
    )
    add_db_options(p)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("games", help="list the games in a database")
    add_db_options(p)
    p.set_defaults(func=cmd_games)

    p = sub.add_parser(
        "trust",
        help="the server keys this tournament trusts (imports signed by them are accepted)",
        description="The tournament's trusted server keys, by name, in DB.trust beside the "
        "database (owner-only). import accepts a log signed by one of them; a game imported "
        "with one is served.",
    )
    tsub = p.add_subparsers(dest="trust_command", metavar="add|list|remove", required=True)
    q = tsub.add_parser("add", help="trust a server's key under a name")
    q.add_argument("name", help="a name for the key (letters, digits, '.', '_', '-')")
    q.add_argument(
        "key",
        metavar="KEYFILE|FINGERPRINT",
        help="that server's key file (DB.key), a log it exported, or its fingerprint "
        "(from its score sheets)",
    )
    add_db_options(q)
    q.set_defaults(func=cmd_trust_add)
    q = tsub.add_parser("list", help="list the trusted keys")
    add_db_options(q)
    q.set_defaults(func=cmd_trust_list)
    q = tsub.add_parser("remove", help="stop trusting a key")
    q.add_argument("name")
    add_db_options(q)
    q.set_defaults(func=cmd_trust_remove)

    from referee.event.cli import add_event_commands  # the event's commands (issue 34)

    add_event_commands(sub)

    from referee.dbtools import add_db_commands  # upgrade and copy (issue 35)

    add_db_commands(sub)
