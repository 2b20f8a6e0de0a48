"""Helpers for the event tests (issue 34): an event of Tiny Duel, the tests' third game, whose
games end in six plays, so results come from the referee itself (T8)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from games.tiny.game import TINY
from service_helpers import make_referee

from referee.event.service import Events
from referee.games import GAMES, registered
from referee.service import Referee
from referee.store import Store

SEED = "0123456789abcdef"
HIGH, LOW = ["4", "5", "6"], ["1", "2", "3"]


@contextmanager
def tiny_events(store: Store | None = None) -> Iterator[Events]:
    """An :class:`Events` over a test referee with Tiny Duel registered for the block."""
    if TINY.name in GAMES:  # registered already by an enclosing block
        yield Events(make_referee(store))
        return
    with registered(TINY):
        yield Events(make_referee(store))


def new_event(ev: Events, players: int = 8, **kw: Any) -> str:
    """A Tiny Duel event with ``players`` registered and checked in."""
    opts = {"name": "Tuesday Cup", "game": TINY.name, "options": {}, "seed": SEED}
    eid = ev.create(**{**opts, **kw})
    for i in range(1, players + 1):
        reg = ev.register(eid, f"Player {i}")
        ev.check_in(eid, reg.player)
    return eid


def play_out(ref: Referee, game: str, winner_seat: str | None) -> None:
    """Plays the game to its end in the referee: ``winner_seat`` holds the high cards (None:
    both hold the same, a draw, Tiny Duel T4)."""
    east, west = TINY.players
    hands = {east: list(LOW), west: list(LOW)}
    if winner_seat is not None:
        hands[winner_seat] = list(HIGH)
    for seat in (east, west):
        ref.submit(game, seat, {"do": "deal", "by": seat, "cards": hands[seat]})
    for _ in range(6):
        st = ref.folded(game).state
        seat = st.player
        ref.submit(game, seat, {"do": "play", "card": hands[seat].pop(0)})


def seat_of(ev: Events, event: str, player: str) -> str:
    """The seat ``player`` holds in his current game."""
    link = ev.seat_link(event, player)
    assert link is not None
    return link.seat


def first_seat() -> str:
    return TINY.players[0]
