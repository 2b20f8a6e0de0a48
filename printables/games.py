"""The games whose sticker kits ``referee kit`` prints, by the game's name in the referee: each
game's kit command (``template()`` and ``write_kit(args, is_tty, ask)``)."""

from __future__ import annotations

from printables.herazeus import command as hera_zeus
from printables.kits import KitCommand
from printables.minotaur import command as minotaur

KIT_COMMANDS: dict[str, KitCommand] = {hera_zeus.NAME: hera_zeus, minotaur.NAME: minotaur}
DEFAULT = hera_zeus.NAME
