"""Game state: two sides (hand, deck, field, discard pile), the turn, and the result.

States are immutable by convention: every field is a tuple or a scalar, and the rules build a new
state for every action (:meth:`GameState.evolve`, :meth:`Side.evolve`). Nothing here checks a rule;
see :mod:`engine.herazeus.game`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.herazeus.cards import COLUMN_DEPTH, Card, Player
from engine.herazeus.profiles import Ruleset


class Phase(enum.Enum):
    SETUP = "setup"
    PLAY = "play"
    OVER = "over"


class EndReason(enum.Enum):
    """How a game ended (POSITIONS.md, "Result object")."""

    HOSTAGE_CHALLENGED = "hostage_challenged"  # D5, D11
    HOSTAGE_BY_PEGASUS = "hostage_by_pegasus"  # D2
    PANDORA_HOSTAGE = "pandora_hostage"  # D1, D2
    PANDORA_OWN_HOSTAGE = "pandora_own_hostage"  # D1
    CANNOT_USE_AP = "cannot_use_ap"  # D8
    EMPTY_FIELD = "empty_field"  # D9


@dataclass(frozen=True, slots=True)
class Slot:
    """One entry of a column: a card face down or up, or the owner's figure (``card is None``)."""

    card: Card | None
    up: bool

    @property
    def is_figure(self) -> bool:
        return self.card is None


FIGURE = Slot(None, True)


@cache
def slot(c: Card, up: bool) -> Slot:
    return Slot(c, up)


Column = tuple[Slot, ...]
Field = tuple[Column, Column, Column]


class Side:
    """One player's cards. ``deck`` is top first; ``discard`` bottom to top."""

    __slots__ = ("deck", "discard", "field", "hand")

    def __init__(
        self,
        hand: tuple[Card, ...],
        deck: tuple[Card, ...],
        field: Field,
        discard: tuple[Card, ...],
    ) -> None:
        self.hand = hand
        self.deck = deck
        self.field = field
        self.discard = discard

    def evolve(self, **kw: Any) -> Side:
        s = Side.__new__(Side)
        s.hand = kw.get("hand", self.hand)
        s.deck = kw.get("deck", self.deck)
        s.field = kw.get("field", self.field)
        s.discard = kw.get("discard", self.discard)
        return s

    # --- derived facts -------------------------------------------------------------------

    def figure_column(self) -> int | None:
        """The 0-based column holding the figure, or None when it is in the supply."""
        for i, col in enumerate(self.field):
            if col and col[0].card is None:
                return i
        return None

    def has_figure(self) -> bool:
        return self.figure_column() is not None

    def card_count_on_field(self) -> int:
        return sum(1 for col in self.field for s in col if s.card is not None)

    def has_card_on_field(self) -> bool:
        """D9: the figure is not a card."""
        for col in self.field:
            for s in col:
                if s.card is not None:
                    return True
        return False

    def occupied_columns(self) -> int:
        """D7: columns holding at least one card."""
        n = 0
        for col in self.field:
            for s in col:
                if s.card is not None:
                    n += 1
                    break
        return n

    def action_points(self) -> int:
        """D7: four with the figure on the field, else one per column holding a card."""
        n = 0
        for col in self.field:
            for s in col:
                if s.card is None:
                    return 4  # the figure
                n += 1
                break
        return n

    def column_room(self, i: int) -> int:
        return COLUMN_DEPTH - len(self.field[i])

    def field_cards(self) -> Iterator[tuple[int, int, Slot]]:
        for ci, col in enumerate(self.field):
            for pi, s in enumerate(col):
                yield ci, pi, s

    def all_cards(self) -> Iterator[Card]:
        """Every card this side holds anywhere (figure excluded)."""
        yield from self.hand
        yield from self.deck
        for col in self.field:
            for s in col:
                if s.card is not None:
                    yield s.card
        yield from self.discard

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Side)
            and self.hand == other.hand
            and self.deck == other.deck
            and self.field == other.field
            and self.discard == other.discard
        )

    def __hash__(self) -> int:
        return hash((self.hand, self.deck, self.field, self.discard))

    def __repr__(self) -> str:
        return (
            f"Side(hand={self.hand!r}, deck={self.deck!r}, field={self.field!r}, "
            f"discard={self.discard!r})"
        )


EMPTY_FIELD: Field = ((), (), ())


class GameState:
    """The whole game at one moment. Build new ones with :meth:`evolve`; never mutate.

    Setup bookkeeping: ``starting`` is the chosen starting player (None until chosen),
    ``dealt`` and ``placed`` say per player whether the hand was recorded (D19) and the first
    row placed. ``started`` says per player whether his first turn has begun.
    """

    __slots__ = (
        "ap",
        "dealt",
        "first",
        "phase",
        "placed",
        "player",
        "reason",
        "ruleset",
        "sides",
        "started",
        "starting",
        "used",
        "winner",
    )

    def __init__(
        self,
        ruleset: Ruleset,
        sides: tuple[Side, Side],
        *,
        phase: Phase = Phase.PLAY,
        player: Player = Player.HERA,
        first: bool = False,
        ap: int = 0,
        used: int = 0,
        started: tuple[bool, bool] = (True, True),
        winner: Player | None = None,
        reason: EndReason | None = None,
        starting: Player | None = None,
        dealt: tuple[bool, bool] = (True, True),
        placed: tuple[bool, bool] = (True, True),
    ) -> None:
        self.ruleset = ruleset
        self.sides = sides
        self.phase = phase
        self.player = player
        self.first = first
        self.ap = ap
        self.used = used
        self.started = started
        self.winner = winner
        self.reason = reason
        self.starting = starting
        self.dealt = dealt
        self.placed = placed

    def evolve(self, **kw: Any) -> GameState:
        """A copy with the named fields replaced (names that are not fields are ignored)."""
        s = GameState.__new__(GameState)
        get = kw.get
        s.ruleset = get("ruleset", self.ruleset)
        s.sides = get("sides", self.sides)
        s.phase = get("phase", self.phase)
        s.player = get("player", self.player)
        s.first = get("first", self.first)
        s.ap = get("ap", self.ap)
        s.used = get("used", self.used)
        s.started = get("started", self.started)
        s.winner = get("winner", self.winner)
        s.reason = get("reason", self.reason)
        s.starting = get("starting", self.starting)
        s.dealt = get("dealt", self.dealt)
        s.placed = get("placed", self.placed)
        return s

    def side(self, p: Player) -> Side:
        return self.sides[p]

    def with_side(self, p: Player, side: Side) -> tuple[Side, Side]:
        return (side, self.sides[1]) if p is Player.HERA else (self.sides[0], side)

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def points_left(self) -> int:
        return self.ap - self.used

    def key(self) -> tuple[Any, ...]:
        return (
            self.ruleset,
            self.sides,
            self.phase,
            self.player,
            self.first,
            self.ap,
            self.used,
            self.started,
            self.winner,
            self.reason,
            self.starting,
            self.dealt,
            self.placed,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key()[1:])

    def __repr__(self) -> str:
        return (
            f"GameState(phase={self.phase.value}, player={self.player.key}, first={self.first}, "
            f"ap={self.ap}, used={self.used}, winner={self.winner}, sides={self.sides!r})"
        )
