"""Minotaur Lords words said per language inside the engine's sentences (issue 36).

No card list ships (issue 15): the owner types his cards in, so a card's name is his. The names
known to the project are marked here as ``C_("minotaur card", ...)``: the Italian edition's
rulebook names one card, Jalal, printed so in Italian too; French and German say the English
name (no source in reach). Any other name is said as typed. :func:`card_name` makes a name a
:class:`~engine.say.Named` for a sentence; notation, rulings and the log keep the English name.

The kinds of column, the regions and the card types are marked too (contexts ``minotaur kind``,
``minotaur region``, ``minotaur type``), so a refusal that names one says it in the reader's
language.
"""

from __future__ import annotations

from engine.say import C_, Named

__all__ = [
    "CARDS",
    "KINDS",
    "REGIONS",
    "TYPES",
    "card_name",
    "kind_name",
    "region_name",
    "type_name",
]

CARD = "minotaur card"

#: every Minotaur Lords card name the project knows, marked for the catalogues
CARDS: tuple[Named, ...] = (C_("minotaur card", "Jalal"),)

KINDS: dict[str, Named] = {
    "military": C_("minotaur kind", "military"),
    "economic": C_("minotaur kind", "economic"),
    "religious": C_("minotaur kind", "religious"),
}
REGIONS: dict[str, Named] = {
    "upper": C_("minotaur region", "upper"),
    "lower": C_("minotaur region", "lower"),
}
TYPES: dict[str, Named] = {
    "servant": C_("minotaur type", "servant"),
    "building": C_("minotaur type", "building"),
    "commander": C_("minotaur type", "commander"),
    "deity": C_("minotaur type", "deity"),
    "fate": C_("minotaur type", "fate"),
}


def card_name(name: str) -> Named:
    """A card's name as a value of a sentence: said as the edition prints it where known."""
    return name if isinstance(name, Named) else Named(str(name), CARD)


def kind_name(value: str) -> Named:
    return KINDS.get(value) or Named(value, "minotaur kind")


def region_name(value: str) -> Named:
    return REGIONS.get(value) or Named(value, "minotaur region")


def type_name(value: str) -> Named:
    return TYPES.get(value) or Named(value, "minotaur type")
