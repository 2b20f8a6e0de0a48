"""What every game's sticker kit shares: the print options (paper, code and marker sizes) kept
in its ``kit.json``, the bound on a kit file's size, and the error a kit file, deck list or kit
option that breaks a rule raises."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

KIT_FILE = "kit.json"
MAX_KIT_JSON_BYTES = 256 * 1024  # a real kit.json is about 20 kB
KIT_1080P_MM = 30.0  # face codes a 1080p camera over the whole mat reads (issue 14: 143 of 143)
DEFAULT_CODE_MM = 20.0  # see README, "Printing a sticker kit"
MIN_CODE_MM = 10.0
MAX_CODE_MM = 40.0
QUIET_MODULES = 2  # white modules around each code (QR asks for 4; decoders read 2 reliably)
BACK_MARKER_MM = 18.0  # ~40 px at 2.25 px/mm; ArUco 4x4 reads down to ~28 px
PAPERS = ("a4", "letter")


class KitError(ValueError):
    """A kit file, deck list or kit option that breaks a rule; the message names it."""


@dataclass(frozen=True, slots=True)
class PrintOptions:
    """What the sheets were printed with (kept so the camera knows the code size)."""

    paper: str = "a4"
    code_mm: float = DEFAULT_CODE_MM
    quiet_modules: int = QUIET_MODULES
    back_marker_mm: float = BACK_MARKER_MM

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise KitError(f"paper {self.paper!r}: must be one of {', '.join(PAPERS)}")
        if not MIN_CODE_MM <= self.code_mm <= MAX_CODE_MM:
            raise KitError(
                f"sticker size {self.code_mm:g} mm: must be {MIN_CODE_MM:g} to {MAX_CODE_MM:g} mm"
            )
        if not 2 <= self.quiet_modules <= 8:
            raise KitError(f"quiet zone of {self.quiet_modules} modules: must be 2 to 8")
        if not 10 <= self.back_marker_mm <= 50:
            raise KitError(f"back marker {self.back_marker_mm:g} mm: must be 10 to 50 mm")


# ---- the command's shared parts ----------------------------------------------------------


def fail(message: str) -> int:
    print(f"referee kit: {message}", file=sys.stderr)
    return 2


def out_dir(args: argparse.Namespace) -> Path | int:
    """The kit's directory (``--out``), or the exit status of its refusal: none given, or a kit
    already there (a new kit would need new stickers) without ``--force``."""
    if not args.out:
        return fail("--out DIR is required (where kit.json and the PDFs go)")
    out = Path(args.out)
    if (out / KIT_FILE).exists() and not args.force:
        return fail(
            f"{out / KIT_FILE} exists; a new kit would need new stickers. "
            "Use another --out, or --force to replace it"
        )
    return out


class KitCommand(Protocol):
    """One game's ``referee kit`` (a module of its printables package)."""

    NAME: str  # the game's name in the referee

    def template(self) -> str:
        """The deck list file to edit."""
        ...

    def write_kit(
        self,
        args: argparse.Namespace,
        is_tty: Callable[[], bool] | None,
        ask: Callable[[str], str],
    ) -> int:
        """Writes the kit ``args`` asks for. Returns the exit status (0 written, 2 bad input)."""
        ...
