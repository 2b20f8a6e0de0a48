"""The guardian for Minotaur Lords (issue 37): what a player should know before he confirms an
action, read from the position he sees (the game module's ``project``) and nothing else.

- M4: he ends his turn, or passes beyond the phases in which a card can be played, while no
  card has left his hand this turn and a card still could: he will have to discard one. The
  alternatives: the legal actions that take a card out of his hand now (a play, a hand
  change). Once none can, the discard is due whatever he does, and nothing is said (his end
  of turn asks which card).
- M2: the action would empty his own deck: his opponent wins at the start of his next turn.
  The alternatives: the legal actions that leave his deck with a card.

His deck's cards are hidden from him as from everyone; only its height counts here, which both
players see.
"""

from __future__ import annotations

import json
from dataclasses import replace

from engine.errors import IllegalActionError, NeedsInputError, NotationError
from engine.minotaur import rules as ml
from engine.minotaur.actions import Action, ChangeHand, EndTurn, Pass, Play, action_json
from engine.minotaur.cards import PLAYERS
from engine.minotaur.state import PHASES, Discarded, Phase, Stage, State
from engine.say import Say
from referee.models import Caution
from referee.views import sees_all


def pile_for(d: Discarded, owner: str, seat: str) -> str | None:
    """A pile card's name as ``seat`` knows it (None: a back)."""
    if d.name is None or d.seen == "nobody":
        return None
    if sees_all(seat) or d.seen == "both" or d.seen == seat == owner:
        return d.name
    return None


def project(st: State, seat: str) -> State:
    """The state as ``seat`` knows it: the opponent's hand, every deck, pile cards he did not
    see and the opponent's set-aside cards (M17) unknown. The judge's is the state itself."""
    if sees_all(seat):
        return st
    sides = []
    for p, s in zip(PLAYERS, st.sides, strict=True):
        hand = s.hand if p == seat else (None,) * len(s.hand)
        pile = tuple(
            d if pile_for(d, p, seat) == d.name else Discarded(None, d.seen) for d in s.discard
        )
        sides.append(replace(s, hand=hand, deck=(None,) * len(s.deck), discard=pile))
    m = st.match
    aside = tuple(
        x if p == seat or x is None else () for p, x in zip(PLAYERS, m.set_aside, strict=True)
    )
    return st.evolve(sides=(sides[0], sides[1]), match=replace(m, set_aside=(aside[0], aside[1])))


def _text(a: Action) -> str:
    """An action as the legal list writes it (its JSON)."""
    return json.dumps(action_json(a), separators=(",", ":"))


def _after(seen: State, a: Action) -> State | None:
    """The position after ``a`` as the player sees it, or None when it cannot be told."""
    try:
        return ml.apply(seen, a).state
    except (IllegalActionError, NeedsInputError, NotationError):
        return None


def _legal(seen: State, seat: str) -> list[Action]:
    return [a for a in ml.legal_actions(seen) if a.by in (None, seat)]


def _ends_playing(seen: State, a: Action) -> bool:
    """Ending the turn, or passing into the supremacy phase (no card is played there, M3)."""
    if isinstance(a, EndTurn):
        return True
    if isinstance(a, Pass) and seen.turn.phase is not Phase.SUPREMACY:
        now = PHASES.index(seen.turn.phase)
        to = a.to if a.to is not None else PHASES[now + 1]
        return to is Phase.SUPREMACY
    return False


def _empties_deck(seen: State, a: Action, seat: str) -> bool | None:
    if not seen.side(seat).deck:
        return False
    after = _after(seen, a)
    if after is None:
        return None
    return not after.side(seat).deck


def cautions(seen: State, action: Action, seat: str) -> tuple[Caution, ...]:
    """The M4 and M2 warnings for player ``seat``'s ``action`` on ``seen`` (his projection)."""
    if seat not in PLAYERS or seen.stage is not Stage.PLAY or seen.turn.player != seat:
        return ()
    if action.by not in (None, seat):
        return ()
    out: list[Caution] = []
    t = seen.turn
    if not t.left_hand and seen.side(seat).hand and _ends_playing(seen, action):
        ways: list[Action] = [
            a
            for a in _legal(seen, seat)
            if isinstance(a, Play | ChangeHand) and _after(seen, a) is not None
        ]
        said = (
            Say("No card has left your hand this turn: ending it, you must discard one.")
            if isinstance(action, EndTurn)
            else Say(
                "No card has left your hand this turn: past phase 2 no card can be played, and "
                "at the end of the turn you must discard one."
            )
        )
        if ways:  # else the discard is due whatever he does: his end-of-turn form asks for it
            out.append(Caution(rule="M4", text=said, alternatives=[_text(a) for a in ways]))
    if _empties_deck(seen, action, seat):
        ways = [
            a for a in _legal(seen, seat) if a != action and _empties_deck(seen, a, seat) is False
        ]
        out.append(
            Caution(
                rule="M2",
                text=Say(
                    "This would empty your own deck: your opponent wins at the start of his "
                    "next turn."
                ),
                alternatives=[_text(a) for a in ways],
            )
        )
    return tuple(out)
