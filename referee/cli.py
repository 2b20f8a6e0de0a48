"""The ``referee`` command.

    referee rule [--json] FILE               rule on a ruling file (POSITIONS.md)
    referee verify [--redacted] LOG          check a log's hash chain; names the first bad record
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
from collections.abc import Callable, Sequence
from pathlib import Path

from engine import HeraZeusError, NeedsInputError, NotationError, parse_action, write_position
from printables.cli import add_kit_command
from referee.board import board_text, describe_event_json
from referee.fold import FoldError, fold
from referee.fold import step as fold_step
from referee.log import Record, read_lines, verify
from referee.ruling import render_json, render_text, rule_file
from referee.service import Referee, ServiceError
from referee.store import SQLiteStore
from vision.cli import add_vision_commands
from web.serve import add_serve_command

DEFAULT_DB = "referee.sqlite3"

Command = Callable[[argparse.Namespace], int]


def _fail(message: str) -> int:
    print(f"referee: {message}", file=sys.stderr)
    return 2


def cmd_rule(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        text = sys.stdin.read() if args.file == "-" else path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return _fail(f"{args.file}: cannot read: {getattr(e, 'strerror', None) or e}")
    try:
        ruling = rule_file(text, path.name)
    except NeedsInputError as e:
        return _fail(f"{args.file}: {e.needs}: cannot rule without it: {e.reason} ({e.rule})")
    except NotationError as e:
        return _fail(f"{args.file}: {e}")
    except HeraZeusError as e:
        return _fail(f"{args.file}: {e}")
    if args.json:
        print(json.dumps(render_json(ruling), indent=1, ensure_ascii=False))
    else:
        print(render_text(ruling))
    return 0


def _read_log(path: str) -> list[Record] | str:
    """The records of a JSON-lines log, or an error message."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return f"{path}: cannot read: {getattr(e, 'strerror', None) or e}"
    try:
        records = read_lines(text)
    except ValueError as e:
        return f"{path}: {e}"
    if not records:
        return f"{path}: the log is empty"
    return records


def cmd_verify(args: argparse.Namespace) -> int:
    records = _read_log(args.log)
    if isinstance(records, str):
        return _fail(records)
    v = verify(records, allow_redacted=args.redacted)
    print(f"{args.log}: {v.message()}")
    return 0 if v.ok else 1


def cmd_replay(args: argparse.Namespace) -> int:
    records = _read_log(args.log)
    if isinstance(records, str):
        return _fail(records)
    v = verify(records)
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
        print(json.dumps(write_position(folded.state), indent=1, ensure_ascii=False))
        return 0
    replay_text(records if args.at is None else upto, args.step)
    return 0


def replay_text(records: list[Record], step: bool) -> None:
    """Prints the game event by event with the board after each action."""
    f = fold(records[:1])
    print(f"Game {records[0].game}: {json.dumps(records[0].body, ensure_ascii=False)}")
    for r in records[1:]:
        fold_step(f, r)
        line = f"#{r.seq} {r.time} {r.seat}: {r.kind}"
        if r.kind == "action":
            line += f" {parse_action(r.body['action']).text()}"
        elif r.kind in ("undo", "amend"):
            line += f" {json.dumps(dict(r.body), ensure_ascii=False)}"
        elif r.kind in ("observation", "irregularity"):
            line += f" {r.body.get('problem') or json.dumps(dict(r.body), ensure_ascii=False)}"
        print(line)
        for e in r.events:
            said = describe_event_json(e)
            if said:
                print(f"    {said}")
        if r.kind == "action":
            print(board_text(f.state))
        if step and sys.stdin.isatty():
            input("  (Enter for the next event) ")
    st = f.state
    if st.winner is not None:
        print(f"{st.winner.title} wins ({st.reason.value if st.reason else ''}).")


def _open_store(path: str) -> SQLiteStore:
    return SQLiteStore(path)


def cmd_export(args: argparse.Namespace) -> int:
    store = _open_store(args.db)
    try:
        text = Referee(store).export(args.game, args.seat)
    except ServiceError as e:
        return _fail(e.message)
    finally:
        store.close()
    sys.stdout.write(text)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    records = _read_log(args.log)
    if isinstance(records, str):
        return _fail(records)
    store = _open_store(args.db)
    try:
        gid = Referee(store).import_log(records)
    except ServiceError as e:
        return _fail(f"{args.log}: {e.message}")
    finally:
        store.close()
    print(f"imported game {gid} ({len(records)} events)")
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    store = _open_store(args.db)
    try:
        for g in store.games():
            print(g)
    finally:
        store.close()
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="referee", description="The Hera & Zeus referee.")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("rule", help="rule on a ruling file (position + actions)")
    p.add_argument("file", help="the ruling file (JSON, POSITIONS.md); - reads stdin")
    p.add_argument("--json", action="store_true", help="print the result object")
    p.set_defaults(func=cmd_rule)

    p = sub.add_parser("verify", help="check a log's hash chain (JSON lines)")
    p.add_argument("log")
    p.add_argument(
        "--redacted",
        action="store_true",
        help="accept a player's redacted export (checks the chain links only)",
    )
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
    p.add_argument("--seat", default="judge", choices=["hera", "zeus", "judge", "public"])
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="store a verified log (a judge's export)")
    p.add_argument("log")
    p.add_argument("--db", default=DEFAULT_DB)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("games", help="list the games in a database")
    p.add_argument("--db", default=DEFAULT_DB)
    p.set_defaults(func=cmd_games)
    add_serve_command(sub)
    add_kit_command(sub)
    add_vision_commands(sub)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    func: Command = args.func
    try:
        return func(args)
    except BrokenPipeError:  # the reader went away (e.g. piped into head)
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
