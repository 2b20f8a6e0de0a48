"""Random games for tests and benchmarks: a shuffled, dealt start and a uniform random playout.

Randomness comes only from the :class:`random.Random` passed in, so a seed reproduces a game
exactly. Setup goes through the real setup actions of D19 (:class:`~.actions.Starter`,
:class:`~.actions.Deal`, :class:`~.actions.Redraw`,
:class:`~.actions.Redeal`, :class:`~.actions.FirstRow`), so a simulated start is
one the referee would accept at a table. The decks are the catalogue's (by default the
provisional list, RULES.md).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine.herazeus.actions import Action, Deal, FirstRow, Redeal, Redraw, Starter
from engine.herazeus.cards import COLUMNS, HOSTAGE_NAME, Kind, Player, card
from engine.herazeus.events import Outcome
from engine.herazeus.game import apply, legal_actions, must_redeal, new_game
from engine.herazeus.profiles import Ruleset
from engine.herazeus.state import GameState, Phase

HAND_SIZE = 9  # D19
DEFAULT_MAX_ACTIONS = 5000


def random_game_start(rng: random.Random, ruleset: Ruleset | None = None) -> GameState:
    """A game in play after a random setup (D19).

    Both decks are shuffled with ``rng``; the starting player is drawn among the legal choices
    (the ``kosmos`` profile fixes Hera); each player records the top nine cards; a player who
    drew his own hostage shows it, draws a replacement and the hostage goes back at a position
    drawn from ``rng``; each first row is three playable cards drawn among the legal choices.

    A hand with fewer than three cards with a printed strength (seven or more myth-only cards:
    about one deal in 10^5 with the default list) is shown, shuffled back and dealt again
    (:class:`~.actions.Redeal`, D19), as often as it takes.

    Raises ValueError when a deck holds fewer than three cards besides the hostage that may
    stand on the field (no deal could ever give a first row), and
    :class:`.errors.IllegalActionError` only if the engine refuses its own setup, which
    is a bug.
    """
    rs = ruleset or Ruleset()
    for p in Player:
        placeable = sum(
            i.copies
            for i in rs.catalogue.cards(p)
            if i.can_be_played and i.kind is not Kind.HOSTAGE
        )
        if placeable < COLUMNS:
            raise ValueError(f"{p.title}'s deck holds {placeable} cards for the first row")
    return _start(rng, rs)


def _start(rng: random.Random, rs: Ruleset) -> GameState:
    """One shuffle and deal, with the hostage redrawn and hands dealt again as D19 says."""
    cat = rs.catalogue
    decks: list[list[str]] = []
    for p in Player:
        names = [c.name for c in cat.deck_list(p)]
        rng.shuffle(names)
        decks.append(names)
    st = new_game(
        rs,
        decks=(
            tuple(card(n, Player.HERA) for n in decks[Player.HERA]),
            tuple(card(n, Player.ZEUS) for n in decks[Player.ZEUS]),
        ),
    )
    starters = [a for a in legal_actions(st) if isinstance(a, Starter)]
    st = apply(st, rng.choice(starters)).state
    for p in Player:
        top = tuple(c.notation(p) for c in st.sides[p].deck[:HAND_SIZE])
        st = _redraw_hostage(rng, apply(st, Deal(p, top)).state, p)
        while must_redeal(st, p):
            side = st.sides[p]
            pool = [c.notation(p) for c in (*side.hand, *side.deck)]
            rng.shuffle(pool)
            redeal = Redeal(p, tuple(pool[:HAND_SIZE]), deck=tuple(pool[HAND_SIZE:]))
            st = _redraw_hostage(rng, apply(st, redeal).state, p)
    for p in Player:
        rows = [a for a in legal_actions(st) if isinstance(a, FirstRow) and a.player is p]
        st = apply(st, rng.choice(rows)).state
    assert st.phase is Phase.PLAY
    return st


def _redraw_hostage(rng: random.Random, st: GameState, p: Player) -> GameState:
    """D19: a hostage in the hand is shown, replaced, and shuffled back at a random place."""
    if card(HOSTAGE_NAME[p], p) not in st.sides[p].hand:
        return st
    # The deck after the replacement is drawn holds len(deck) - 1 cards; the hostage may land
    # anywhere from the top (0) to the bottom (len(deck) - 1).
    at = rng.randrange(len(st.sides[p].deck))
    return apply(st, Redraw(p, at=at)).state


def random_playout(
    rng: random.Random, state: GameState, max_actions: int = DEFAULT_MAX_ACTIONS
) -> Iterator[tuple[GameState, Action, Outcome]]:
    """Plays from ``state`` with both players choosing uniformly among the legal actions.

    Yields ``(state_before, action, outcome)`` for each action, at most ``max_actions`` of
    them; stops when the game is over or no action is legal. Raises whatever :func:`apply`
    raises, which for an action taken from :func:`legal_actions` is a bug.
    """
    st = state
    for _ in range(max_actions):
        actions = legal_actions(st)
        if not actions:
            return
        action = actions[rng.randrange(len(actions))]
        out = apply(st, action)
        yield st, action, out
        st = out.state
