"""The ``referee`` command.

    referee rule [--json] FILE      rule on a ruling file (POSITIONS.md)

Exit status: 0 when the file was read and ruled on (legal or not); 2 with one line on stderr
when the input is malformed or incomplete. Never a traceback for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from engine import HeraZeusError, NeedsInputError, NotationError
from referee.ruling import render_json, render_text, rule_file

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


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="referee", description="The Hera & Zeus referee.")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("rule", help="rule on a ruling file (position + actions)")
    p.add_argument("file", help="the ruling file (JSON, POSITIONS.md); - reads stdin")
    p.add_argument("--json", action="store_true", help="print the result object")
    p.set_defaults(func=cmd_rule)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    func: Command = args.func
    return func(args)


if __name__ == "__main__":
    sys.exit(main())
