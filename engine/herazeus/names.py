"""The Hera & Zeus card names as a person reads them (issue 36).

The notation, the ruling files and the log name every card in English (one language); a
sentence for a person says the name as the edition of the reader's language prints it. Each
name is marked here with :func:`engine.say.C_` in the context ``herazeus card``, so the
catalogues carry its Italian, French and German name; :func:`card_name` gives the
:class:`engine.say.Named` a sentence takes as a value.
"""

from __future__ import annotations

from engine.say import C_, Named

__all__ = ["CARD_NAMES", "CONTEXT", "card_name"]

CONTEXT = "herazeus card"

# every card name of both decks (data/hera.toml, data/zeus.toml), marked for the catalogues
CARD_NAMES = (
    C_("herazeus card", "Amazon"),
    C_("herazeus card", "Apollo"),
    C_("herazeus card", "Argus"),
    C_("herazeus card", "Artemis"),
    C_("herazeus card", "Centaur"),
    C_("herazeus card", "Cyclops"),
    C_("herazeus card", "Dionysus"),
    C_("herazeus card", "Furies"),
    C_("herazeus card", "Giant"),
    C_("herazeus card", "Hades"),
    C_("herazeus card", "Harpy"),
    C_("herazeus card", "Hera"),
    C_("herazeus card", "Hero"),
    C_("herazeus card", "Hydra"),
    C_("herazeus card", "Io"),
    C_("herazeus card", "Medusa"),
    C_("herazeus card", "Nemesis"),
    C_("herazeus card", "Pandora"),
    C_("herazeus card", "Pegasus"),
    C_("herazeus card", "Persephone"),
    C_("herazeus card", "Poseidon"),
    C_("herazeus card", "Pythia"),
    C_("herazeus card", "Sirens"),
    C_("herazeus card", "Zeus"),
)


def card_name(name: str) -> Named:
    """The card name ``name`` (English, as the notation writes it), said per language."""
    return Named(name, CONTEXT)
