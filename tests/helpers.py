"""Shared helpers for the rules tests: a compact position builder and readers of the outcome.

``pos(...)`` builds a position in the notation of POSITIONS.md and reads it with
:func:`engine.read_position`, so every test states its position the way a judge would type it.
Defaults: Hera to move, not her first turn, 3 action points derived from the field (D7), both
decks holding 20 unseen cards (so a draw is always possible and D8 never strikes by accident),
and the strengths the shared scenarios use, pinned here so that a change of the provisional
default catalogue cannot change what these tests mean.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine.herazeus import (
    Action,
    GameState,
    IllegalActionError,
    NeedsInputError,
    Outcome,
    Player,
    apply,
    read_position,
    write_position,
)

# The strengths every shared scenario states; pinned for the same reason.
CATALOGUE: dict[str, int] = {
    "Hydra": 5,
    "Cyclops": 5,
    "Harpy": 4,
    "Giant": 4,
    "Artemis": 6,
    "Apollo": 6,
    "Furies": 3,
    "Centaur": 3,
    "Pythia": 1,
}

HERA_FIELD: list[list[str]] = [["Furies"], ["Hydra"], ["Harpy"]]
ZEUS_FIELD: list[list[str]] = [["Centaur"], ["Cyclops"], ["Giant"]]

Field = Sequence[Sequence[str]]
Deck = int | Sequence[str]


def position(
    *,
    turn: str = "hera",
    first: bool = False,
    ap: int | None = None,
    used: int = 0,
    profile: str | None = None,
    switches: Mapping[str, str] | None = None,
    catalogue: Mapping[str, int] | None = None,
    hera_hand: Sequence[str] = (),
    hera_deck: Deck = 20,
    hera_field: Field | None = None,
    hera_discard: Sequence[str] = (),
    zeus_hand: Sequence[str] = (),
    zeus_deck: Deck = 20,
    zeus_field: Field | None = None,
    zeus_discard: Sequence[str] = (),
) -> dict[str, Any]:
    """A position in the JSON notation of POSITIONS.md (a plain dict)."""
    turn_raw: dict[str, Any] = {"player": turn, "first": first, "used": used}
    if ap is not None:
        turn_raw["ap"] = ap
    raw: dict[str, Any] = {
        "catalogue": dict(CATALOGUE if catalogue is None else {**CATALOGUE, **catalogue}),
        "turn": turn_raw,
        "hera": {
            "hand": list(hera_hand),
            "deck": hera_deck if isinstance(hera_deck, int) else list(hera_deck),
            "field": [list(c) for c in (HERA_FIELD if hera_field is None else hera_field)],
            "discard": list(hera_discard),
        },
        "zeus": {
            "hand": list(zeus_hand),
            "deck": zeus_deck if isinstance(zeus_deck, int) else list(zeus_deck),
            "field": [list(c) for c in (ZEUS_FIELD if zeus_field is None else zeus_field)],
            "discard": list(zeus_discard),
        },
    }
    if profile is not None:
        raw["profile"] = profile
    if switches is not None:
        raw["switches"] = dict(switches)
    return raw


def pos(**kw: Any) -> GameState:
    """A :class:`GameState` in play: ``position(**kw)`` read by the notation reader."""
    return read_position(position(**kw))


def run(state: GameState, *actions: Action) -> Outcome:
    """Applies the actions in order (each must be legal) and returns the last outcome."""
    assert actions, "run() needs at least one action"
    out: Outcome | None = None
    for a in actions:
        out = apply(state, a)
        state = out.state
    assert out is not None
    return out


def after(state: GameState, *actions: Action) -> GameState:
    """The state after the actions."""
    return run(state, *actions).state


def side(state: GameState, who: str) -> dict[str, Any]:
    """One side of ``state`` in notation: hand, deck, field, discard."""
    written: dict[str, Any] = write_position(state)[who]
    return written


def field(state: GameState, who: str) -> list[list[str]]:
    out: list[list[str]] = side(state, who)["field"]
    return out


def hand(state: GameState, who: str) -> Counter[str]:
    """The hand as a multiset (order is irrelevant, POSITIONS.md)."""
    return Counter(side(state, who)["hand"])


def discard(state: GameState, who: str) -> list[str]:
    out: list[str] = side(state, who)["discard"]
    return out


def deck_size(state: GameState, who: str) -> int:
    d = side(state, who)["deck"]
    return d if isinstance(d, int) else len(d)


def ap(state: GameState) -> tuple[int, int]:
    """(this turn's action points, points used)."""
    return (state.ap, state.used)


def player(key: str) -> Player:
    return Player.parse(key)


def refused(state: GameState, action: Action, rule: str, phrase: str) -> IllegalActionError:
    """Asserts that ``action`` is illegal under ``rule`` with ``phrase`` in the reason."""
    with pytest.raises(IllegalActionError) as info:
        apply(state, action)
    err = info.value
    assert err.rule == rule, f"refused under {err.rule}, not {rule}: {err.reason}"
    assert phrase.lower() in err.reason.lower(), f"{phrase!r} not in {err.reason!r}"
    return err


def asks(state: GameState, action: Action, needs: str, rule: str = "D20") -> NeedsInputError:
    """Asserts that ``action`` cannot be resolved without ``needs``."""
    with pytest.raises(NeedsInputError) as info:
        apply(state, action)
    err = info.value
    assert err.needs == needs, f"asked for {err.needs}, not {needs}: {err.reason}"
    assert err.rule == rule, f"asked under {err.rule}, not {rule}"
    return err
