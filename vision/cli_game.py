"""What one game's camera commands give ``referee`` (:mod:`vision.cli`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar


class CameraCommands(Protocol):
    """A game's camera command module."""

    def claims(self, head: str) -> bool:
        """Whether a kit file (its first 200 characters) is this game's."""
        ...

    def cmd_scan(self, args: argparse.Namespace) -> int:
        """``referee scan`` with this game's kit. Returns the exit status."""
        ...

    def cmd_table(self, args: argparse.Namespace) -> int:
        """``referee table`` with this game's kit (its mat). Returns the exit status."""
        ...

    def add_commands(self, sub: Any) -> None:
        """Adds the game's own camera commands to the ``referee`` subcommands."""
        ...


class Read(Protocol):
    """One code read in a photo: the card it names (None: refused, with why)."""

    @property
    def card(self) -> object: ...

    @property
    def refused(self) -> str | None: ...

    def to_json(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=Read)


def fail(message: str) -> int:
    """One line on stderr, exit status 2 (never a traceback for bad input)."""
    print(f"referee: {message}", file=sys.stderr)
    return 2


def read_view(path: str) -> dict[str, Any] | str:
    """A seat's view from a JSON file (``referee table --view``), or why it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            view = json.loads(f.read(2_000_000))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        return f"{path}: {e}"
    if not isinstance(view, dict):
        return f"{path}: a view is a JSON object"
    return view


def print_reads(image: str, reads: Sequence[R], as_json: bool, line: Callable[[R], str]) -> int:
    """``referee scan``'s answer for every game: the codes read (``line`` words a card found),
    or status 2 when no code of the kit was found or every one found was refused."""
    if not reads:
        return fail(f"{image}: no card code found")
    if all(r.card is None for r in reads):
        return fail(f"{image}: {reads[0].refused}")
    if as_json:
        print(json.dumps([r.to_json() for r in reads], indent=1))
        return 0
    for r in reads:
        print(line(r) if r.card is not None else f"refused: {r.refused}")
    return 0


def print_proposals(
    snapshot: dict[str, Any], proposals: list[dict[str, Any]], as_json: bool
) -> int:
    """``referee table --view``'s answer for every game: the proposals (each to confirm), or
    that the table agrees with the view; as JSON, the snapshot and the proposals."""
    if as_json:
        print(json.dumps({"snapshot": snapshot, "proposals": proposals}, indent=1))
        return 0
    if not proposals:
        print("the table agrees with the view")
    for p in proposals:
        print(f"{p['kind']}: {p['description']}")
    return 0


class Snapshot(Protocol):
    """What a game's table camera read in one frame."""

    def to_json(self) -> dict[str, Any]: ...


S = TypeVar("S", bound=Snapshot)
Propose = Callable[[S, dict[str, Any]], list[dict[str, Any]]]


def answer_table(
    args: argparse.Namespace,
    read: Callable[[Any], S],
    proposer: Callable[[], tuple[Propose[S], type[Exception]]],
    lines: Callable[[S], Iterable[str]],
) -> int:
    """``referee table``'s answer for every game: the frame ``args.image`` read by ``read``;
    with ``--view``, the proposals (``proposer`` gives the game's ``propose`` and the error a
    malformed view raises, loaded only then); else the snapshot as JSON or as ``lines``. Bad
    input (an unreadable image, no mat, a malformed view) is one line and status 2."""
    from vision.decode import ImageError
    from vision.pose import MatNotFound
    from vision.sources import SourceError, read_image_file

    try:
        snap = read(read_image_file(args.image))
    except (SourceError, ImageError) as e:
        return fail(str(e))
    except MatNotFound as e:
        return fail(f"{args.image}: {e}")
    view_path = getattr(args, "view", None)
    if view_path:
        propose, view_error = proposer()
        view = read_view(view_path)
        if isinstance(view, str):
            return fail(view)
        try:
            props = propose(snap, view)
        except view_error as e:
            return fail(f"{view_path}: {e}")
        return print_proposals(snap.to_json(), props, args.json)
    if args.json:
        print(json.dumps(snap.to_json(), indent=1))
        return 0
    for line in lines(snap):
        print(line)
    return 0
