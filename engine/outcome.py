"""The one outcome of applying an action, shared by every game's engine and by the referee's
game interface (:class:`referee.game.Game`): the new state, its events, the rules applied and
notes. Each engine names it with its own state and event types; the referee's game modules
hand it on with the events as JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

S = TypeVar("S")  # a game's state
E = TypeVar("E")  # one event as the engine or the service carries it


@dataclass(frozen=True, slots=True)
class Outcome(Generic[S, E]):
    """The result of applying one action: the new ``state``, its ``events``, the ids of the
    ``rules`` applied and ``notes`` (what the players should know, in words)."""

    state: S
    events: tuple[E, ...] = ()
    rules: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
