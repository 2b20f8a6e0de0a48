"""The service's errors: one tree, no transport in it (``web/`` maps each class to a status).

::

    ServiceError            a refusal; ``message`` for a human, ``rule`` the deciding rule id
    ├── NotFound            no such game, or nothing waits for this seat's input
    ├── Forbidden           this seat may not do that (a player acting for the other, ...)
    ├── Refused             illegal or malformed input; nothing was recorded, or only the
    │                       irregularity the judge must see
    ├── Stale               decided on an old table (a seq passed by), or a repeated key
    ├── NeedsInput          an identity or a choice is missing; says from whom
    ├── Held                the game's record failed verification or replay: not served
    └── Unavailable         storage failed (full disk, read-only, locked); nothing written

Every method of :class:`referee.service.Referee` raises only these. ``message`` is for a person:
an :class:`engine.say.Say` where the sentence was marked (its English words, so it reads as text),
said in the reader's language only at the edge (``web.errors``), never rebuilt as an f-string.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base of the service's refusals. ``rule`` is the deciding rule id, when one applies."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message  # an engine.say.Say, kept: said in the reader's language at the edge
        self.rule = rule

    def __str__(self) -> str:  # the message itself (a Say stays a Say)
        return self.message if isinstance(self.message, str) else super().__str__()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": type(self).__name__, "message": self.message}
        if self.rule:
            out["rule"] = self.rule
        return out


class NotFound(ServiceError):
    """No such game, or nothing is waiting for this seat's input."""


class Forbidden(ServiceError):
    """The seat may not do that."""


class Refused(ServiceError):
    """Illegal or malformed input; carries the rule when one decides it."""


class Held(ServiceError):
    """The game's record failed verification: it is not served until the judge settles it."""


class Unavailable(ServiceError):
    """Storage failed (full disk, read-only file, locked database); nothing was written."""


class Stale(ServiceError):
    """Decided on an old table, or an idempotency key already used."""

    def __init__(self, message: str, existing_seq: int | None = None, seq: int | None = None):
        super().__init__(message)
        self.existing_seq = existing_seq
        self.seq = seq  # the game's current last seq, when known

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if self.seq is not None:
            out["seq"] = self.seq
        if self.existing_seq is not None:
            out["existing_seq"] = self.existing_seq
        return out


class NeedsInput(ServiceError):
    """The action needs an identity or a choice (``needs``, a dotted path into the action) that
    only ``asked`` may state. ``seq``: the question's record, when it was asked of another
    seat."""

    def __init__(
        self, message: str, rule: str, needs: str, asked: tuple[str, ...], seq: int | None = None
    ) -> None:
        super().__init__(message, rule)
        self.needs = needs
        self.asked = asked
        self.seq = seq

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out.update(needs=self.needs, asked=list(self.asked))
        if self.seq is not None:
            out["seq"] = self.seq
        return out
