"""Random Minotaur Lords games for tests and benchmarks: shuffled decks, random legal actions
and random text effects (M12), a whole best-of-three match when asked (M17).

Randomness comes only from the :class:`random.Random` passed in, so a seed reproduces a game.
``play_random`` yields every state after every accepted action, so a test checks its
invariants after each one.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine.errors import IllegalActionError, NeedsInputError
from engine.minotaur.actions import (
    Action,
    ChangeHand,
    Curse,
    Draw,
    Effect,
    Move,
    Op,
    Place,
    SetAside,
    Strength,
    Take,
)
from engine.minotaur.cards import MAX_SET_ASIDE, PLAYERS, CardDef, Catalogue, opponent
from engine.minotaur.rules import Outcome, apply, deal, legal_actions, new_game, whose
from engine.minotaur.state import Stage, State

DEFAULT_MAX_ACTIONS = 3000


@dataclass(frozen=True)
class Step:
    action: Action
    outcome: Outcome


def random_start(rng: random.Random, cards: Sequence[CardDef], *, advanced: bool = False) -> State:
    """A new game: each player's deck shuffled with ``rng``, the first player drawn."""
    cat = Catalogue(cards)
    decks: dict[str, Sequence[str | None]] = {}
    for p in PLAYERS:
        d: list[str | None] = [c.name for c in cards if c.deck == p]
        rng.shuffle(d)
        decks[p] = d
    bonus = [c.name for c in cards if c.deck == "bonus"]
    return new_game(cat, decks, rng.choice(PLAYERS), advanced=advanced, bonus=bonus)


def reshuffle(rng: random.Random, st: State) -> State:
    """The next game of a match dealt from each player's new deck list (M17)."""
    decks: dict[str, Sequence[str | None]] = {}
    for i, p in enumerate(PLAYERS):
        d: list[str | None] = list(st.owned[i])
        rng.shuffle(d)
        decks[p] = d
    return deal(st, decks)


def random_effect(rng: random.Random, st: State, actor: str, card: str) -> Effect:
    """One to three plausible operations for ``card``'s text (M12): they may still be refused
    (an empty deck, a card gone), which the caller tolerates."""
    ops: list[Op] = []
    o = opponent(actor)
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(("discard", "draw", "curse", "cure", "strength", "bottom", "return"))
        theirs = st.side(o).in_play()
        mine = st.side(actor).in_play()
        if kind == "discard" and theirs:
            where, x = rng.choice(theirs)
            ops.append(Move(x.name, Place(o, where), Place(o, "discard")))
        elif kind == "draw":
            ops.append(Draw(actor, rng.randint(1, 2)))
        elif kind == "curse" and theirs:
            where, x = rng.choice(theirs)
            ops.append(Curse(x.name, Place(o, where)))
        elif kind == "cure":
            cursed = [(w, x) for w, x in mine if x.cursed]
            if cursed:
                where, x = rng.choice(cursed)
                ops.append(Curse(x.name, Place(actor, where), cure=True))
        elif kind == "strength":
            cols = [(w, x) for w, x in mine if w != "centre"]
            if cols:
                where, x = rng.choice(cols)
                ops.append(Strength(x.name, Place(actor, where), rng.choice((-1, 1, 2))))
        elif kind == "bottom":
            hand = [n for n in st.side(actor).hand if n is not None]
            if hand:
                ops.append(
                    Move(rng.choice(hand), Place(actor, "hand"), Place(actor, "deck-bottom"))
                )
        elif kind == "return":
            pile = [d.name for d in st.side(actor).discard if d.name is not None]
            if pile:
                ops.append(Move(rng.choice(pile), Place(actor, "discard"), Place(actor, "hand")))
    if not ops:
        ops.append(Draw(actor, 1))
    return Effect(card, tuple(ops))


def _choose(rng: random.Random, st: State) -> Action | None:
    if st.stage is Stage.SET_ASIDE:
        p = rng.choice(whose(st))
        deck = list(st.owned[PLAYERS.index(p)])
        return SetAside(
            tuple(rng.sample(deck, rng.randint(0, min(MAX_SET_ASIDE, len(deck))))), by=p
        )
    if st.stage is Stage.TAKE:
        p = whose(st)[0]
        want = len(st.match.set_aside[PLAYERS.index(p)] or ())
        backs = {c.back for c in st.catalogue.cards.values() if c.deck == p} or {"minotaur"}
        pool = [n for n in st.bonus if not st.match.scarab_backs or st.catalogue[n].back in backs]
        if len(pool) < want:
            return None
        return Take(tuple(rng.sample(pool, want)), by=p)
    acts = legal_actions(st)
    if not acts:
        return None
    a = rng.choice(acts)
    if isinstance(a, ChangeHand):  # one card stands for every choice: draw a real one
        hand = [n for n in st.side(st.turn.player).hand if n is not None]
        a = ChangeHand(tuple(rng.sample(hand, rng.randint(1, len(hand)))))
    return a


def play_random(
    rng: random.Random, st: State, max_actions: int = DEFAULT_MAX_ACTIONS, effects: float = 0.6
) -> Iterator[Step]:
    """Random actions (and, after a card's text acts, a random effect with probability
    ``effects``) until the game or match is over or ``max_actions`` were taken."""
    for _ in range(max_actions):
        if st.stage is Stage.OVER:
            return
        t = st.turn
        if st.stage is Stage.PLAY and t.pending and rng.random() < effects:
            eff = random_effect(rng, st, t.player, t.pending)
            try:
                out = apply(st, eff)
            except (IllegalActionError, NeedsInputError):
                out = None
            if out is not None:
                st = out.state
                yield Step(eff, out)
                continue
        a = _choose(rng, st)
        if a is None:
            return
        out = apply(st, a)
        was = st.stage
        st = out.state
        if was is Stage.TAKE and st.stage is Stage.PLAY:
            st = reshuffle(rng, st)
            out = Outcome(st, out.events, out.rules)
        yield Step(a, out)
