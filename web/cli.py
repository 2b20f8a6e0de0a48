"""The ``referee`` command: the one command-line entry point (``[project.scripts]``).

It sits at the top of the layers (engine -> referee -> printables -> vision -> web) so that it
may gather the commands every package contributes, while no package imports one above it:

- :func:`referee.cli.add_commands`: ``rule``, ``verify``, ``replay``, ``export``, ``import``,
  ``games``;
- :func:`web.serve.add_serve_command`: ``serve``;
- :func:`printables.cli.add_kit_command`: ``kit``;
- :func:`vision.cli.add_vision_commands`: ``scan``, ``table``, ``deckcheck``.

Each command documents its own output and exit status; every one exits 2 with one line on
stderr for bad input, never with a traceback. ``python -m web.cli ARGS`` is ``referee ARGS``.
A camera command (``referee scan PHOTO`` ...) builds only the camera's parsers: the other
packages' commands are not imported, and a phone photo is read sooner (issue 38).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Collection, Sequence

from vision.cli import add_vision_commands

Command = Callable[[argparse.Namespace], int]


def build_parser(camera_only: bool = False) -> argparse.ArgumentParser:
    """The ``referee`` argument parser with every package's commands (``camera_only``: the
    camera's alone)."""
    return _parser(camera_only)[0]


def _parser(camera_only: bool) -> tuple[argparse.ArgumentParser, Collection[str]]:
    """The parser and its commands' names."""
    ap = argparse.ArgumentParser(prog="referee", description="The card game referee.")
    sub = ap.add_subparsers(dest="command", required=True)
    if not camera_only:
        from printables.cli import add_kit_command
        from referee.cli import add_commands
        from web.serve import add_serve_command

        add_commands(sub)
        add_serve_command(sub)
        add_kit_command(sub)
    add_vision_commands(sub)
    return ap, sub.choices


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``referee ARGV`` (default: ``sys.argv[1:]``) and returns its exit status. A usage
    error or ``--help`` raises SystemExit (argparse)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    ap, camera = _parser(camera_only=True)
    args = (ap if argv and argv[0] in camera else build_parser()).parse_args(argv)
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
