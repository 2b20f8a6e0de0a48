"""The live streams' shares across addresses (issue 33, item 2): a seat's streams are never
counted by address nor crowded out by onlookers; onlookers' streams have a cap of their own, and
once it is reached a newcomer ends the oldest stream of the address holding the most, so no mix
of addresses keeps the others out. Through ``referee serve``'s front the ended stream really
ends (its page reconnects).
"""

from __future__ import annotations

import socket

import pytest
from test_availability import CEILING, open_stream, status, wait_until
from test_front import serving
from web_helpers import make_app, new_game, token_of

from web.errors import Busy
from web.live import StreamGate


class Page:
    """A stream the gate may end: ``ended`` says whether it did."""

    def __init__(self, gate: StreamGate, client: str, game: str = "g1", seat: str = "public"):
        self.ended = False
        self.release = gate.enter(client, game, seat, self.end)

    def end(self) -> None:
        self.ended = True


def test_seats_streams_are_not_counted_by_address_nor_as_onlookers() -> None:
    gate = StreamGate(slots=100, per_client=2, per_game=2, spectators=2, per_seat=3)
    for game in ("g1", "g2", "g3"):  # one venue address: every table's phones behind it
        for seat in ("hera", "zeus"):
            Page(gate, "10.0.0.1", game, seat)
    Page(gate, "10.0.0.1")
    Page(gate, "10.0.0.1")
    assert gate.open == 8 and gate.public_open == 2
    for _ in range(2):
        Page(gate, "10.0.0.1", "g1", "hera")
    with pytest.raises(Busy, match="this seat already has 3 live pages"):
        Page(gate, "10.0.0.9", "g1", "hera")


def test_a_full_onlooker_share_ends_the_oldest_stream_of_the_address_holding_most() -> None:
    gate = StreamGate(slots=100, per_client=10, per_game=10, spectators=4)
    calm = Page(gate, "10.0.0.1")
    flood = [Page(gate, "10.6.6.6") for _ in range(3)]
    newcomer = Page(gate, "10.0.0.2")  # the share is full: the flood's oldest ends
    assert [p.ended for p in flood] == [True, False, False]
    assert not calm.ended and not newcomer.ended
    assert gate.public_open == 4 and gate.shed == 1
    flood[0].release()  # its page's own release after the end frees nothing twice
    assert gate.public_open == 4
    again = Page(gate, "10.6.6.6")  # the flood's page comes back: ends the flood's next oldest
    assert flood[1].ended and not calm.ended and not again.ended


def test_an_address_holding_no_more_than_the_newcomer_is_never_ended_for_him() -> None:
    gate = StreamGate(slots=100, per_client=10, per_game=10, spectators=2)
    a, b = Page(gate, "10.0.0.1"), Page(gate, "10.0.0.2")
    with pytest.raises(Busy, match=r"onlookers' live streams as it may \(2\)"):
        Page(gate, "10.0.0.3")
    gate.check("10.0.0.1", "g1")  # the same address may replace its own oldest
    assert not a.ended and not b.ended


def test_a_stream_that_cannot_end_early_is_never_chosen() -> None:
    gate = StreamGate(slots=100, per_client=10, per_game=10, spectators=2)
    gate.enter("10.6.6.6", "g1")
    gate.enter("10.6.6.6", "g1")  # no way to end them (another WSGI server's threads)
    with pytest.raises(Busy):
        Page(gate, "10.0.0.1")


def test_through_the_front_an_onlooker_stream_ended_for_another_is_closed_and_a_seat_stays() -> (
    None
):
    app = make_app(
        SSE_SECONDS=120.0,
        SSE_HEARTBEAT=60.0,
        ACCESS_LOG=False,
        SPECTATOR_STREAMS=2,
        STREAM_SLOTS=50,
        STREAMS_PER_CLIENT=5,
    )
    created, phones = new_game(app)
    game = created.game
    hera = token_of(phones["hera"], game)
    held: list[socket.socket] = []
    with serving(app) as (port, _):
        try:
            seat = socket.create_connection(("127.0.0.1", port), timeout=CEILING)
            seat.sendall(
                f"GET /api/v1/games/{game}/stream HTTP/1.1\r\nHost: t\r\n"
                f"Authorization: Bearer {hera}\r\n\r\n".encode()
            )
            assert status(seat.recv(4096)) == 200
            held.append(seat)
            flood = []
            for _ in range(2):
                s, head = open_stream(port, game, "127.0.0.66")
                assert status(head) == 200
                flood.append(s)
            held += flood
            s, head = open_stream(port, game, "127.0.0.7")  # ends the flood's oldest
            held.append(s)
            assert status(head) == 200
            flood[0].settimeout(CEILING)

            def closed() -> bool:
                try:
                    return flood[0].recv(65536) == b""
                except TimeoutError:
                    return False

            wait_until(closed, "the flood's oldest stream is closed by the server")
            gate = app.extensions["live_gate"]
            assert gate.open == 3 and gate.public_open == 2 and gate.shed == 1
        finally:
            for s in held:
                s.close()
