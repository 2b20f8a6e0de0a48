"""Minotaur Lords state: two sides (hand, deck, face-down pile, six columns, deities), the six
supremacy markers, the turn and the match.

States are immutable values: every field is a tuple, a frozen dataclass or a scalar, and the
rules build a new state for every action (``dataclasses.replace``). A card name of ``None``
is a card the referee does not know (a hidden card not stated yet, or a deck-top card that
went to the pile unseen, M14). Nothing here checks a rule; see :mod:`engine.minotaur.rules`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any

from engine.minotaur.cards import COLUMNS, PLAYERS, Catalogue, Column
from engine.say import Say


class Phase(enum.Enum):
    """The phases of a turn (M1). A turn starts in phase 0 with nothing done yet."""

    ZERO = "0"
    ONE = "1"
    TWO = "2"
    SUPREMACY = "supremacy"

    @property
    def number(self) -> int | None:
        return {"0": 0, "1": 1, "2": 2}.get(self.value)

    @property
    def words(self) -> Say:
        """``phase 1``, ``the supremacy phase``: a :class:`~engine.say.Say`."""
        if self is Phase.SUPREMACY:
            return Say("the supremacy phase")
        return Say("phase %(phase)s", phase=self.value)

    @property
    def Words(self) -> Say:
        if self is Phase.SUPREMACY:
            return Say("The supremacy phase")
        return Say("Phase %(phase)s", phase=self.value)


PHASES = tuple(Phase)


class Stage(enum.Enum):
    """Where a game or a match stands."""

    PLAY = "play"
    SET_ASIDE = "set-aside"  # M17: both players move up to five cards to the bonus deck
    TAKE = "take"  # M17: the loser, then the winner, take as many bonus cards
    OVER = "over"


class EndReason(enum.Enum):
    SUPREMACY = "supremacy"  # M2: two of three columns in both regions
    EMPTY_DECK = "empty_deck"  # M2, M15: the opponent's deck is empty


@dataclass(frozen=True)
class Boost:
    """A standing strength change from a passive text (M13): ``delta`` to its card, while the
    card ``source`` stands uncursed at ``at`` (a column id or ``centre``) on ``side``."""

    source: str
    side: str
    at: str
    delta: int


@dataclass(frozen=True)
class Placed:
    """A card in play: in a column or among the deities."""

    name: str
    curses: int = 0
    boosts: tuple[Boost, ...] = ()

    @property
    def cursed(self) -> bool:
        return self.curses > 0


@dataclass(frozen=True)
class Discarded:
    """A face-down card on a pile (M14): ``seen`` by ``both``, only its owner (the pile's
    player), or ``nobody``; ``name`` is None when the referee does not know it."""

    name: str | None
    seen: str


@dataclass(frozen=True)
class Side:
    """One player's cards. ``deck`` is top first; ``discard`` bottom to top; ``columns`` in the
    order of :data:`COLUMNS`."""

    hand: tuple[str | None, ...] = ()
    deck: tuple[str | None, ...] = ()
    discard: tuple[Discarded, ...] = ()
    columns: tuple[tuple[Placed, ...], ...] = ((),) * 6
    deities: tuple[Placed, ...] = ()

    def column(self, col: Column) -> tuple[Placed, ...]:
        return self.columns[COLUMNS.index(col)]

    def with_column(self, col: Column, cards: tuple[Placed, ...]) -> Side:
        cols = list(self.columns)
        cols[COLUMNS.index(col)] = cards
        return replace(self, columns=tuple(cols))

    def in_play(self) -> list[tuple[str, Placed]]:
        """Every card in play as ``(where, card)``: a column id or ``centre``."""
        out = [(c.id, p) for c, cards in zip(COLUMNS, self.columns, strict=True) for p in cards]
        return out + [("centre", p) for p in self.deities]


@dataclass(frozen=True)
class Turn:
    """The turn: its player, phase and what has happened in it."""

    player: str
    first: bool = False  # the game's first turn (M5)
    phase: Phase = Phase.ZERO
    fresh: bool = True  # nothing done yet: a hand change is still possible (M1)
    used: int = 0  # actions used in this phase (phases 1 and 2 allow one, M3)
    taken: tuple[Phase, ...] = ()  # phases taken (M5 counts them in the first turn)
    left_hand: bool = False  # a card left the hand by play or discard (M4)
    checked: bool = False  # the supremacy check ran this turn (M11)
    exercised: tuple[str, ...] = ()  # columns exercised this turn (M11)
    pending: str | None = None  # the card whose text acts now (played or activated, M10, M12)


@dataclass(frozen=True)
class Match:
    """The advanced game (M17): best of three, with deck changes between games."""

    advanced: bool = False
    wins: tuple[int, int] = (0, 0)  # miron, vess
    last_winner: str | None = None
    set_aside: tuple[tuple[str, ...] | None, tuple[str, ...] | None] = (None, None)
    taken_by: tuple[str, ...] = ()  # players who took their bonus cards, in order
    scarab_backs: bool = True  # M18: only bonus cards whose back matches the deck

    def wins_of(self, p: str) -> int:
        return self.wins[PLAYERS.index(p)]


@dataclass(frozen=True)
class State:
    catalogue: Catalogue
    turn: Turn
    sides: tuple[Side, Side]
    markers: tuple[str | None, ...] = (None,) * 6  # by column, the side holding it (M11)
    stage: Stage = Stage.PLAY
    winner: str | None = None
    reason: EndReason | None = None
    bonus: tuple[str, ...] = ()  # the bonus deck (M17)
    owned: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # each player's deck list
    match: Match = field(default_factory=Match)

    def side(self, p: str) -> Side:
        return self.sides[PLAYERS.index(p)]

    def with_side(self, p: str, s: Side) -> State:
        sides = list(self.sides)
        sides[PLAYERS.index(p)] = s
        return replace(self, sides=(sides[0], sides[1]))

    def marker(self, col: Column) -> str | None:
        return self.markers[COLUMNS.index(col)]

    @property
    def over(self) -> bool:
        return self.stage is not Stage.PLAY

    def evolve(self, **kw: Any) -> State:
        return replace(self, **kw)
