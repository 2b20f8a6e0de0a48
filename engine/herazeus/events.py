"""What happened when an action was applied: events and the outcome that carries them.

Events are data. Each names the player whose card or figure it concerns, the card (None for the
figure or bookkeeping), where it came from and went to, and whether its identity is public.
Zones are written ``hand``, ``deck``, ``discard``, ``supply`` or ``field C.P`` (1-based).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from engine.herazeus.cards import Card, Player
from engine.herazeus.state import GameState
from engine.outcome import Outcome as BaseOutcome


class EventKind(enum.Enum):
    SPENT = "spent"  # action points used (detail: used/ap)
    POINTS = "points"  # the turn's total changed (god card, D7)
    DRAWN = "drawn"  # deck -> hand
    PLAYED = "played"  # hand -> field, face down
    REVEALED = "revealed"  # a field card turned face up
    DISCARDED = "discarded"  # anywhere -> the discard pile, face up
    TAKEN = "taken"  # discard pile -> hand (Sirens, Hades, Persephone)
    MOVED = "moved"  # field -> field (Dionysus)
    PLACED = "placed"  # opponent's hand -> field face up (Pegasus, D2)
    PICKED = "picked"  # Pegasus drew this card from the hand (seen by both, D2)
    SHOWN = "shown"  # a hand shown to the opponent (Pythia's spy, D12)
    IDENTIFIED = "identified"  # an unknown card's identity was supplied (D20)
    FIGURE_PLACED = "figure_placed"
    FIGURE_REMOVED = "figure_removed"
    TURN_ENDED = "turn_ended"
    TURN_BEGAN = "turn_began"
    GAME_OVER = "game_over"
    # a challenge decided by strength (D11): both strengths and the winner, None for a tie
    CHALLENGED = "challenged"
    # setup (D19)
    STARTER = "starter"
    DEALT = "dealt"
    HOSTAGE_SHOWN = "hostage_shown"
    RESHUFFLED = "reshuffled"
    REDEALT = "redealt"  # a hand that cannot lay a first row, shown and shuffled back (cards)


@dataclass(frozen=True, slots=True, init=False)
class Event:
    kind: EventKind
    player: Player | None = None
    card: Card | None = None
    src: str | None = None
    dst: str | None = None
    public: bool = True  # whether the card's identity is seen by both players
    detail: tuple[tuple[str, Any], ...] = ()

    def __init__(
        self,
        kind: EventKind,
        player: Player | None = None,
        card: Card | None = None,
        src: str | None = None,
        dst: str | None = None,
        public: bool = True,
        detail: tuple[tuple[str, Any], ...] = (),
    ) -> None:
        # The generated frozen __init__, only faster: every action emits a few events. The
        # slots' own setters bypass the frozen __setattr__ as object.__setattr__ would.
        _set_kind(self, kind)
        _set_player(self, player)
        _set_card(self, card)
        _set_src(self, src)
        _set_dst(self, dst)
        _set_public(self, public)
        _set_detail(self, detail)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value}
        if self.player is not None:
            out["player"] = self.player.key
        if self.card is not None:
            out["card"] = (
                self.card.notation(self.player) if self.player is not None else str(self.card)
            )
        if self.src is not None:
            out["from"] = self.src
        if self.dst is not None:
            out["to"] = self.dst
        if not self.public:
            out["public"] = False
        for k, v in self.detail:
            out[k] = v.key if isinstance(v, Player) else v.value if isinstance(v, enum.Enum) else v
        return out


# The slot descriptors' setters, for Event.__init__.
_set_kind = Event.__dict__["kind"].__set__
_set_player = Event.__dict__["player"].__set__
_set_card = Event.__dict__["card"].__set__
_set_src = Event.__dict__["src"].__set__
_set_dst = Event.__dict__["dst"].__set__
_set_public = Event.__dict__["public"].__set__
_set_detail = Event.__dict__["detail"].__set__


if TYPE_CHECKING:
    Outcome: TypeAlias = BaseOutcome[GameState, Event]
else:
    Outcome = BaseOutcome  # built as the class itself: no typing alias call on the hot path
"""The result of applying one action (:class:`engine.outcome.Outcome`): the new state, its
events and the rules applied."""
