"""The games whose kits the camera commands read, in the order ``referee scan`` asks them whether
a kit file is theirs (the last, the default game, takes any other): each game's camera command
module (``claims(head)``, ``cmd_scan(args)``, ``add_commands(sub)``)."""

from __future__ import annotations

from vision.cli_game import CameraCommands
from vision.herazeus import cli as hera_zeus
from vision.minotaur import cli as minotaur

CAMERA_COMMANDS: tuple[CameraCommands, ...] = (minotaur, hera_zeus)
