"""What the camera needs to know about a kit: its id and secret, the card each face code
names, and the mat's geometry in millimetres.

The kit is defined once, by :mod:`printables` (``referee kit``): the kit file and its reader
(:class:`printables.herazeus.kit.Kit`, whose errors are
:class:`printables.herazeus.kit.KitError`), the face payloads (:mod:`printables.herazeus.payload`)
and the mat (:class:`printables.herazeus.mat.MatGeometry`; see that module for the axes and the
cell numbering). This module only states the small interface vision
reads (:class:`KitLike`), vision's index of a kit (:class:`VisionKit`: face payload -> card) and
a loader. Nothing here touches a camera or a file except :func:`load_kit`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from printables.herazeus.kit import Kit
from printables.herazeus.mat import MatGeometry
from printables.herazeus.payload import Deck


@dataclass(frozen=True, slots=True)
class CardRef:
    """One physical card of a kit: its deck, the card's name and its serial in the deck."""

    deck: Deck
    name: str
    serial: int

    def notation(self, holder: Deck) -> str:
        """The card as written on ``holder``'s side (POSITIONS.md): ``Name``, or
        ``Name/zeus`` for a card that came from the other deck."""
        return self.name if self.deck == holder else f"{self.name}/{self.deck}"

    def to_json(self) -> dict[str, Any]:
        return {"deck": self.deck, "name": self.name, "serial": self.serial}


@runtime_checkable
class KitLike(Protocol):
    """What vision needs from a kit. :func:`as_vision_kit` makes one from a
    :class:`printables.herazeus.kit.Kit`."""

    @property
    def kit_id(self) -> str: ...

    @property
    def secret(self) -> str: ...

    @property
    def mat(self) -> MatGeometry: ...

    @property
    def code_mm(self) -> float:
        """The printed face code's side (the symbol, quiet zone not included), mm."""
        ...

    @property
    def back_marker_mm(self) -> float:
        """The printed back marker's side, mm."""
        ...

    def card_for(self, payload: str) -> CardRef | None:
        """The card a checked payload names, or None when the kit printed no such sticker."""
        ...

    @property
    def payloads(self) -> tuple[str, ...]:
        """Every face payload the kit printed (what :mod:`vision.codebook` matches against)."""
        ...

    @property
    def seams(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """Where the printed mat's sheets are joined: the x of its vertical joins and the y of
        its horizontal ones, mat mm (a taped join is a line, not a card)."""
        ...


@dataclass(frozen=True)
class VisionKit:
    """A :class:`printables.herazeus.kit.Kit` as the camera reads it: the kit, and the card each of
    its face payloads names. Build with :func:`as_vision_kit`."""

    kit: Kit
    cards: Mapping[str, CardRef]

    @property
    def kit_id(self) -> str:
        return self.kit.kit_id

    @property
    def secret(self) -> str:
        return self.kit.secret

    @property
    def mat(self) -> MatGeometry:
        return self.kit.mat

    @property
    def code_mm(self) -> float:
        return self.kit.options.code_mm

    @property
    def back_marker_mm(self) -> float:
        return self.kit.options.back_marker_mm

    def card_for(self, payload: str) -> CardRef | None:
        return self.cards.get(payload)

    @property
    def payloads(self) -> tuple[str, ...]:
        return tuple(self.cards)

    @property
    def seams(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        from printables.herazeus.sheets import mat_tiling  # the PDF library: only for a mat

        t = mat_tiling(self.kit.mat, self.kit.options.paper)
        xs = tuple(c * t.window_w for c in range(1, t.columns))
        ys = tuple(r * t.window_h for r in range(1, t.rows))
        return xs, ys


def as_vision_kit(kit: Kit | VisionKit) -> VisionKit:
    """Vision's view of a :class:`printables.herazeus.kit.Kit` (a :class:`VisionKit` is returned as
    it is): every face sticker's payload with the card it names, and the kit's mat."""
    if isinstance(kit, VisionKit):
        return kit
    cards = {s.payload: CardRef(s.deck, s.card, s.serial) for s in kit.stickers}
    return VisionKit(kit, cards)


def load_kit(path: str | Path) -> VisionKit:
    """Reads a ``kit.json`` written by ``referee kit`` (strictly, through
    :meth:`printables.herazeus.kit.Kit.load`). Raises :class:`printables.herazeus.kit.KitError`
    naming the file and the problem."""
    return as_vision_kit(Kit.load(path))


__all__ = [
    "CardRef",
    "KitLike",
    "VisionKit",
    "as_vision_kit",
    "load_kit",
]
