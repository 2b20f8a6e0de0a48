"""The guardian for Hera & Zeus (issue 37): before a player confirms an action, whether it
would leave him unable to use his remaining action points (D8: he loses at once), and the
legal actions that avoid it.

Everything here reads only the position the player sees (the game module's ``project``): an
action whose outcome depends on a card hidden from him (a challenge against a face-down card,
a Pegasus drawn from the opponent's hand) is judged neither a dead end nor a way out. A card he
would draw is unknown to him when he decides, and an unknown card counts as usable (D8, as the
referee rules it), so a draw never leads into a warned dead end; a draw is entered once the card
is in his hand (he names it), too late for a warning, and is never warned of.
"""

from __future__ import annotations

from engine.herazeus import (
    Action,
    EndReason,
    GameState,
    IllegalActionError,
    NeedsInputError,
    NotationError,
    Phase,
    Player,
    apply,
    legal_actions,
)
from engine.herazeus.actions import Draw, PegasusHand
from engine.herazeus.cards import unknown
from engine.herazeus.state import slot
from engine.say import Say
from referee.models import Caution
from referee.views import sees_all


def project(st: GameState, seat: str) -> GameState:
    """The state as ``seat`` knows it: every card hidden from him unknown (D22). The judge's
    projection is the state itself. Piles stay whole: every card on them was seen face up.
    Decks are unknown to everyone and stay as they are (the referee does not know them either,
    or knows them only in a simulation)."""
    if sees_all(seat):
        return st
    sides = list(st.sides)
    for p in (Player.HERA, Player.ZEUS):
        if seat == p.key:
            continue
        side = st.sides[p]
        hand = tuple(unknown(c.origin) for c in side.hand)
        fld = tuple(
            tuple(s if s.card is None or s.up else slot(unknown(s.card.origin), False) for s in col)
            for col in side.field
        )
        deck = tuple(unknown(c.origin) for c in side.deck)
        sides[p] = side.evolve(hand=hand, field=fld, deck=deck)
    return st.evolve(sides=(sides[0], sides[1]))


def loses_by_d8(seen: GameState, action: Action, player: Player) -> bool | None:
    """Whether ``action`` on ``seen`` makes ``player`` lose by D8 at once; None when it cannot
    be told from ``seen`` (it is not legal there, or its outcome needs a hidden card)."""
    try:
        out = apply(seen, action)
    except (IllegalActionError, NeedsInputError, NotationError):
        return None
    st = out.state
    return (
        st.phase is Phase.OVER and st.reason is EndReason.CANNOT_USE_AP and st.winner is not player
    )


def _text(a: Action) -> str:
    """An action as the player's legal list writes it (a Pegasus from the hand drawn blind)."""
    return (PegasusHand(by=a.by) if isinstance(a, PegasusHand) else a).text()


def cautions(seen: GameState, action: Action, seat: str) -> tuple[Caution, ...]:
    """The D8 warning for player ``seat``'s ``action`` on ``seen`` (his projection), with the
    legal actions known to avoid it; empty when there is none."""
    if seen.phase is not Phase.PLAY or seat not in (p.key for p in Player):
        return ()
    me = Player.parse(seat)
    if isinstance(action, Draw):  # he enters a draw once the card is in his hand: too late
        return ()
    if seen.player is not me or not loses_by_d8(seen, action, me):
        return ()
    alternatives: list[str] = []
    for a in legal_actions(seen):
        if a == action or loses_by_d8(seen, a, me) is not False:
            continue
        text = _text(a)
        if text not in alternatives:
            alternatives.append(text)
    said = Say(
        "This would leave you unable to use your remaining action points: you would lose at once."
    )
    return (Caution(rule="D8", text=said, alternatives=alternatives),)
