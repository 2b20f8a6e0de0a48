"""The web app's only reads of a game's full state, each named for what it gets.

The pages are cut for a seat from :meth:`Referee.view`; a few facts they show are not in the
seat's view yet, so they are read here, from the service's fold of the whole log, and nothing
else of it leaves this module. Each function is one thing the seat's view should carry; when it
does, the function goes and its callers read the view.
"""

from __future__ import annotations

from typing import Any

from engine import Player
from engine.cards import HOSTAGE_NAME, Catalogue
from engine.state import GameState
from referee.service import Referee


def _state(ref: Referee, game: str) -> GameState:
    return ref.folded(game).state


def catalogue_of(ref: Referee, game: str) -> Catalogue:
    """The game's card catalogue (public: which names each deck holds, which may be played).
    Raises NotFound."""
    return ref.folded(game).ruleset.catalogue


def starting_seat(ref: Referee, game: str) -> str | None:
    """Who starts, once decided (public). Raises NotFound."""
    st = _state(ref, game)
    return st.starting.key if st.starting is not None else None


def setup_facts(ref: Referee, game: str, p: Player, hand: list[str]) -> dict[str, Any]:
    """Where player ``p`` stands in setup (D19): only public facts and his own ``hand`` (as his
    view writes it). Raises NotFound."""
    st = _state(ref, game)
    return {
        "starting": st.starting.key if st.starting is not None else None,
        "dealt": bool(st.dealt[p]),
        "placed": bool(st.placed[p]),
        "other_dealt": bool(st.dealt[p.other]),
        "other_placed": bool(st.placed[p.other]),
        "hostage_in_hand": HOSTAGE_NAME[p] in hand,
    }
