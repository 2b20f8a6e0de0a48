"""What one game's camera commands give ``referee`` (:mod:`vision.cli`)."""

from __future__ import annotations

import argparse
from typing import Any, Protocol


class CameraCommands(Protocol):
    """A game's camera command module."""

    def claims(self, head: str) -> bool:
        """Whether a kit file (its first 200 characters) is this game's."""
        ...

    def cmd_scan(self, args: argparse.Namespace) -> int:
        """``referee scan`` with this game's kit. Returns the exit status."""
        ...

    def add_commands(self, sub: Any) -> None:
        """Adds the game's own camera commands to the ``referee`` subcommands."""
        ...
