"""The twin-table privacy property on PostgreSQL (issue 35, item 3): the same property as
``test_privacy`` (read ``privacy_property``'s docstring), with the service's games stored in a
real PostgreSQL database, so nothing the PostgreSQL store reads back (sealed values, secrets,
the order of rows) lets a seat see what its player could not see, and no reply depends on
what the opponent holds. Fewer tables than on memory: the property is the store-independent
part, run in full there; here it checks the store's side of it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from privacy_property import ServiceDriver, no_reply_depends_on_hidden, no_seat_sees_hidden
from service_helpers import make_referee

from referee.pgstore import PostgresStore

GAMES = 6
TWIN_GAMES = 2


@pytest.fixture
def pg_driver(pg_dsn: str) -> Iterator[type[ServiceDriver]]:
    """A driver class whose referees store their games in one PostgreSQL database."""
    opened: list[PostgresStore] = []

    class PostgresDriver(ServiceDriver):
        name = "service on PostgreSQL"

        @classmethod
        def new(cls, seed: int) -> ServiceDriver:
            store = PostgresStore(pg_dsn, max_size=2)
            opened.append(store)
            return cls(make_referee(store, seed=seed))

    yield PostgresDriver
    for store in opened:
        store.close()


def test_no_seat_sees_what_its_player_could_not_see_on_postgresql(
    pg_driver: type[ServiceDriver],
) -> None:
    cover = no_seat_sees_hidden(pg_driver.new, GAMES, log_every=1000, stranger_every=10)
    assert {"draw", "play", "deal", "challenge"} <= cover.kinds
    assert {"observation", "ask"} <= cover.kinds


def test_no_reply_depends_on_what_the_opponent_holds_on_postgresql(
    pg_driver: type[ServiceDriver],
) -> None:
    no_reply_depends_on_hidden(pg_driver.new, TWIN_GAMES)
