"""The engines' exceptions, shared by every game's engine (each raises them on purpose).

    EngineError                   every error an engine raises on purpose
    ├── CatalogueError            a card list or override is invalid
    ├── NotationError             a position, action or ruling file is malformed
    ├── IllegalActionError        a well-formed action the rules forbid (carries the rule id)
    └── NeedsInputError           an action is missing a choice or a card identity

A malformed input is never an illegal move: the first says "I cannot read this", the second
"I read it, and the rules forbid it".
"""

from __future__ import annotations

from typing import Any


class EngineError(Exception):
    """Base class of every error an engine raises on purpose."""


class CatalogueError(EngineError):
    """A card list or a catalogue override is invalid."""


class NotationError(EngineError):
    """Input that cannot be read: bad JSON shape, unknown card, impossible counts.

    ``where`` names the offending input (``actions[2].column``).
    """

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.detail = message


class IllegalActionError(EngineError):
    """A well-formed action that the rules forbid.

    ``rule`` is the deciding rule id (an id of the game's rules or a project rule id), ``action``
    the action refused, ``reason`` a sentence for a person. ``also`` names further rules the
    refusal rests on (a finer project ruling, or the rule of the action that was refused);
    ``rules`` is ``rule`` followed by them.
    """

    def __init__(
        self, rule: str, reason: str, action: Any = None, *, also: tuple[str, ...] = ()
    ) -> None:
        super().__init__(f"{reason} ({rule})")
        self.rule = rule
        self.reason = reason
        self.action = action
        self.also: tuple[str, ...] = ()
        self.add_rules(also)

    @property
    def rules(self) -> tuple[str, ...]:
        """Every rule the refusal cites, the deciding one first."""
        return (self.rule, *self.also)

    def add_rules(self, ids: tuple[str, ...] | list[str]) -> None:
        """Adds rules the refusal also rests on (those already cited are skipped)."""
        have = set(self.rules)
        extra = []
        for r in ids:
            if r not in have:
                have.add(r)
                extra.append(r)
        if extra:
            self.also = (*self.also, *extra)


class NeedsInputError(EngineError):
    """The action cannot be resolved without more input.

    ``needs`` names what is missing (``reveal.attacker``, ``pick``, ``place``), ``rule`` the rule
    that asks for it, ``asked`` the seats who must supply it (player seats).
    """

    def __init__(self, rule: str, needs: str, reason: str, asked: tuple[str, ...] = ()) -> None:
        super().__init__(f"{reason} [{rule}]")  # words for a person; ``needs`` is a field
        self.rule = rule
        self.needs = needs
        self.reason = reason
        self.asked = asked
