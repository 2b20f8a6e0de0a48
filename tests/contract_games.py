"""What each game gives the contract suite (``test_game_contract.py``): the one place in it
that names a game. Every game registered in :mod:`referee.games` has a :class:`Contestant`
here (the suite checks it), as OpenSpiel gives each registered game to the same checks:

- ``registered``: the game registered for a block (the tests' own game, Tiny Duel); the
  built-in games are registered already;
- ``table``: a new table made the driver's way (the service, or the HTTP API) that plays
  random steps from the players' own seats, answering the referee's questions;
- ``action_of``: a legal action's text (``view["legal"]``) as the JSON a seat submits;
- ``twins``: tables that differ only in one card hidden from the player to move (and what
  may turn that card up: replies to those may differ, as the rules let them);
- ``ruling_file``: a ruling file of the game, for ``referee rule``.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from games.tiny.game import PLAYERS as TINY_PLAYERS
from games.tiny.game import TINY
from games.tiny.page import PAGES as TINY_PAGES
from privacy_property import (
    Driver,
    HttpDriver,
    ServiceDriver,
    positions,
    possible_names,
    scanned_as,
    touches,
    twin_names,
)
from service_helpers import Table
from test_minotaur_privacy import DECKS, _act, _new_game, _twins

from engine.herazeus.actions import parse_action_text
from engine.minotaur.cards import opponent
from engine.minotaur.state import Stage
from referee.errors import ServiceError
from referee.games import registered as game_registered
from web.games.installed import registered as page_registered

TESTS = Path(__file__).resolve().parent
DriverType = type[ServiceDriver] | type[HttpDriver]


class Played(Protocol):
    """A table playing random steps."""

    game: str

    def step(self) -> bool:
        """One step (False when the game is over)."""
        ...


@dataclass(frozen=True)
class TwinCase:
    """Tables that differ only in a card hidden from ``seat`` (the player to move)."""

    twins: list[Driver]
    game: str
    seat: str
    touches: Callable[[Mapping[str, Any]], bool] = field(default=lambda raw: False)


@dataclass(frozen=True)
class Contestant:
    name: str  # the game module's name
    table: Callable[[Driver, random.Random], Played]
    action_of: Callable[[str], dict[str, Any]]
    twins: Callable[[DriverType, int], TwinCase | None]
    ruling_file: Callable[[], dict[str, Any]]
    registered: Callable[[], contextlib.AbstractContextManager[object]] = contextlib.nullcontext
    create: Mapping[str, Any] = field(default_factory=dict)  # POST /games's game options
    # the checks this game is known to fail, with why (each a strict xfail: it flips when fixed)
    gaps: Mapping[str, str] = field(default_factory=dict)


def new_table(d: Driver, name: str, **options: Any) -> str:
    """A new game of ``name`` made the driver's way (the API names a game by its module)."""
    if isinstance(d, HttpDriver):
        return d.create_game(game_module=name, **options).game
    return d.create_game(name=name, options=options).game


# ---- Hera & Zeus ---------------------------------------------------------------------------


def hz_table(d: Driver, rng: random.Random) -> Played:
    t = Table(d, rng, blind=("hera", "zeus"), omit=0.3)
    t.setup()
    return t


def hz_twins(driver: DriverType, seed: int) -> TwinCase | None:
    rng = random.Random(seed)
    d = driver.new(seed)
    for s in positions(d, rng):
        made = []
        for name in twin_names(possible_names(s.d, s.game, s.secret), rng):
            twin = scanned_as(s.d, s.game, s.secret, name, seed)
            if twin is not None:
                made.append(twin)
            if len(made) == 3:
                break
        if len(made) >= 2:
            return TwinCase(made, s.game, s.seat, partial(touches, secret=s.secret))
    return None


HERA_ZEUS = Contestant(
    "hera-zeus",
    table=hz_table,
    action_of=lambda text: parse_action_text(text).to_json(),
    twins=hz_twins,
    ruling_file=lambda: json.loads(
        (TESTS.parent / "docs" / "examples" / "medusa-and-the-figure.json").read_text()
    ),
)


# ---- Minotaur Lords ------------------------------------------------------------------------


@dataclass
class MinotaurTable:
    d: Driver
    rng: random.Random
    game: str = ""

    def __post_init__(self) -> None:
        self.game = _new_game(self.d, self.rng.choice(("miron", "vess")))

    def step(self) -> bool:
        return _act(self.d, self.game, self.rng)


def ml_twins(driver: DriverType, seed: int) -> TwinCase | None:
    rng = random.Random(seed)
    t = MinotaurTable(driver.new(seed), rng)
    for _ in range(40):
        st = t.d.ref.folded(t.game).state
        seat = st.turn.player
        if st.stage is Stage.PLAY and None in st.side(opponent(seat)).hand and rng.random() < 0.3:
            twins, _ = _twins(t.d, t.game, opponent(seat), rng, seed)
            if len(twins) >= 2:
                return TwinCase(twins, t.game, seat)
        if not t.step():
            break
    return None


MINOTAUR = Contestant(
    "minotaur",
    table=MinotaurTable,
    action_of=json.loads,
    twins=ml_twins,
    create={"deck_list": DECKS},
    ruling_file=lambda: json.loads(
        next(iter(sorted((TESTS / "data" / "minotaur" / "rulings").glob("*.json")))).read_text()
    ),
)


# ---- Tiny Duel (registered only in the tests) ------------------------------------------------


@dataclass
class TinyTable:
    """Each player states the cards he was dealt, then plays one of his legal actions."""

    d: Driver
    rng: random.Random
    game: str = ""

    def __post_init__(self) -> None:
        self.game = new_table(self.d, TINY.name)

    def step(self) -> bool:
        for seat in TINY_PLAYERS:
            legal = self.d.view(self.game, seat).get("legal")
            if legal:
                with contextlib.suppress(ServiceError):
                    self.d.submit(self.game, seat, json.loads(self.rng.choice(legal)))
                return True
        return False


def tiny_twins(driver: DriverType, seed: int) -> TwinCase | None:
    """Replays one script at each twin; the player not to move was dealt one card that he has
    not played yet differently at each (T1: only he sees it)."""
    rng = random.Random(seed)
    cards = [str(c) for c in range(1, 7)]
    hands = {p: rng.sample(cards, 3) for p in TINY_PLAYERS}
    plays: list[tuple[str, str]] = []
    order = ["east", "west"]
    left = {p: list(h) for p, h in hands.items()}
    for i in range(rng.randrange(0, 5)):  # plays before the position (round leaders alternate)
        p = order[(i + (i // 2)) % 2]
        card = rng.choice(left[p])
        left[p].remove(card)
        plays.append((p, card))
    i = len(plays)
    seat = order[(i + (i // 2)) % 2]
    owner = "west" if seat == "east" else "east"
    secret = rng.choice(left[owner])
    twins: list[Driver] = []
    for name in [secret, *(c for c in cards if c not in hands[owner])][:3]:
        d = driver.new(seed)
        game = new_table(d, TINY.name)
        for p in TINY_PLAYERS:
            dealt = [name if c == secret and p == owner else c for c in hands[p]]
            d.submit(game, p, {"do": "deal", "by": p, "cards": dealt})
        for p, card in plays:
            d.submit(game, p, {"do": "play", "card": card})
        twins.append(d)
    assert twins[0].view(game, seat).get("legal"), "the script leaves the seat to move"
    return TwinCase(twins, game, seat)


def tiny_ruling_file() -> dict[str, Any]:
    st = TINY.new_state(TINY.rules({}))
    for p, h in (("east", ("1", "4", "6")), ("west", ("2", "3", "5"))):
        st = TINY.apply(st, TINY.parse_action({"do": "deal", "by": p, "cards": list(h)}, "a")).state
    return {
        "game": TINY.name,
        "position": TINY.position_json(st),
        "actions": [{"do": "play", "card": "4"}, {"do": "play", "card": "5"}],
    }


@contextlib.contextmanager
def tiny_registered() -> Iterator[object]:
    with game_registered(TINY), page_registered(TINY_PAGES):
        yield TINY


TINY_DUEL = Contestant(
    TINY.name,
    table=TinyTable,
    action_of=json.loads,
    twins=tiny_twins,
    ruling_file=tiny_ruling_file,
    registered=tiny_registered,
)

CONTESTANTS = (HERA_ZEUS, MINOTAUR, TINY_DUEL)
