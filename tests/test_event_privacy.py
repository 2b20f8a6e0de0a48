"""The privacy property holds for games inside an event (issue 34; T13, T14).

A game of an event is an ordinary game of the referee (T14): the same property as
``test_privacy`` and ``test_d22_oracles``, run over games that an event made (registered
players, a pairing, a started round, the seats' join codes kept by the event), through a
driver whose seat views carry the player's event view beside the game's. So:

- no seat sees what its player could not see at the table, in the game or in the event;
- at twin tables that differ only in a card hidden from the player, everything he is told is
  the same byte for byte, his event view (his table, opponent, record, penalties, the clock)
  included.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from privacy_property import ServiceDriver, no_reply_depends_on_hidden, no_seat_sees_hidden
from service_helpers import make_referee

from referee.event.log import store_id
from referee.event.service import Events
from referee.models import Created
from referee.service import Referee
from referee.store import MemoryStore

GAME = "hera-zeus"
PLAYERS = ("Ada Lovelace", "Blaise Pascal")


class EventDriver(ServiceDriver):
    """The service, with every game made by an event of two players (round 1, table 1)."""

    name = "event"

    def __init__(self, ref: Referee) -> None:
        super().__init__(ref)
        self.events = Events(ref)
        self.event_of: dict[str, tuple[str, dict[str, str]]] = {}  # game: event, seat: player

    @classmethod
    def new(cls, seed: int) -> EventDriver:
        return cls(make_referee(seed=seed))

    def create_game(self, **kw: Any) -> Created:
        opts = {k: v for k, v in kw.items() if k != "game" and v is not None}
        n = len(self.event_of) + 1
        eid = self.events.create(
            name=f"Privacy Cup {n}",
            game=GAME,
            options=opts,
            seed=f"{random.Random(n).getrandbits(64):016x}",
            event=f"cup{n}",
        )
        players = [self.events.register(eid, name).player for name in PLAYERS]
        for p in players:
            self.events.check_in(eid, p)
        self.events.pair_next(eid)
        self.events.start_round(eid)
        codes: dict[str, str] = {}
        seats: dict[str, str] = {}
        game = ""
        for p in players:
            link = self.events.seat_link(eid, p)
            assert link is not None
            game = link.game
            codes[link.seat] = link.code
            seats[link.seat] = p
        self.codes[game] = codes
        self.event_of[game] = (eid, seats)
        return Created(game, codes)

    def view(self, game: str, seat: str) -> dict[str, Any]:
        v = super().view(game, seat)
        eid, seats = self.event_of[game]
        player = seats.get(self._seat(game, seat))
        # the event as this reader sees it: his own page's view, or the public's
        ev = self.events.player(eid, player) if player is not None else self.events.public(eid)
        v["event"] = msgspec.to_builtins(ev)
        return v

    def twin(self, game: str, seed: int) -> EventDriver:
        eid, seats = self.event_of[game]
        store = MemoryStore()
        for log in (game, store_id(eid)):
            store.append(self.ref.store.records(log), self.ref.store.secrets(log))
        d = type(self)(make_referee(store, seed))
        d.codes = {game: self.codes[game]}
        d.event_of = {game: (eid, dict(seats))}
        return d


def test_no_seat_sees_what_its_player_could_not_see_in_a_game_of_an_event() -> None:
    cover = no_seat_sees_hidden(EventDriver.new, 8, log_every=1000, stranger_every=10)
    assert {"draw", "play", "deal", "challenge"} <= cover.kinds


def test_no_reply_depends_on_a_hidden_card_in_a_game_of_an_event() -> None:
    cover = no_reply_depends_on_hidden(EventDriver.new, 6)
    assert cover.samples >= 8 and cover.compared.replies > 1_000, cover
    assert cover.compared.on_the_column >= 20, cover


class LeakyEventDriver(EventDriver):
    """An event view that shows the player his opponent's hand (as the judge sees it)."""

    def view(self, game: str, seat: str) -> dict[str, Any]:
        v = super().view(game, seat)
        if seat in ("hera", "zeus"):
            other = "zeus" if seat == "hera" else "hera"
            v["event"]["opponent_hand"] = self.ref.view(game, "judge").to_json()[other]["hand"]
        return v


def test_the_property_catches_an_event_view_that_leaks() -> None:
    with pytest.raises(AssertionError, match="differ"):
        no_reply_depends_on_hidden(LeakyEventDriver.new, 2)
