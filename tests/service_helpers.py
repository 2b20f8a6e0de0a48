"""Helpers for the service tests: a deterministic referee and a simulated physical table.

:class:`Table` plays a random game the way two people at a table would drive the referee: the
true decks are shuffled (a known-deck engine state, the *truth*), and every action is submitted
from the acting player's own seat with what that player would enter: his nine dealt cards, each
drawn card by name (or not scanned, ``?``), plays, Pegasus, Pythia, Sirens, Hades... When the
referee asks for an identity or a choice (``NeedsInput``), the seat it names answers from the
truth. The referee itself starts with unseen decks (D20), as at a real table.

Run as a script, it is the writer of the durability test: it plays games into an SQLite
database as fast as it can and prints ``GAME SEQ`` for every acknowledged record, flushed::

    python tests/service_helpers.py DB SEED
"""

from __future__ import annotations

import copy
import random
import sys
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, Generic, Protocol, cast

from typing_extensions import TypeVar

from engine.herazeus import Action, GameState, Player, apply, legal_actions, new_game
from engine.herazeus.actions import (
    Challenge,
    Deal,
    Dionysus,
    Draw,
    FirstRow,
    Hades,
    PegasusField,
    PegasusHand,
    PegasusOwnFigure,
    Persephone,
    Play,
    PythiaReveal,
    PythiaSpy,
    Redraw,
    Sirens,
    Starter,
)
from engine.herazeus.cards import HOSTAGE_NAME, POWERFUL, Card, card
from engine.herazeus.state import EndReason, Phase
from referee.fold import Folded
from referee.herazeus.game import ruleset_from_create
from referee.keys import Signer
from referee.log import Header, Record
from referee.models import SeatView
from referee.service import Created, FixedClock, NeedsInput, Receipt, Referee, fill_input
from referee.store import MemoryStore, Store

SIGNER = Signer.from_seed("tests")  # the test server's key: every test log is signed with it

HAND_SIZE = 9
# Actions that take a card of a name from the hand: own copy first, then a Sirens copy, then
# an unknown card (engine.herazeus.game._Work.take_named).
NAMED_POWERS = {
    PegasusHand: "Pegasus",
    PegasusField: "Pegasus",
    PegasusOwnFigure: "Pegasus",
    PythiaSpy: "Pythia",
    PythiaReveal: "Pythia",
    Sirens: "Sirens",
    Hades: "Hades",
    Persephone: "Persephone",
    Dionysus: "Dionysus",
}


def tokens(seed: int = 0) -> Callable[[], str]:
    """Deterministic secrets (join codes, nonces, game ids) for reproducible tests."""
    rng = random.Random(f"tokens-{seed}")
    return lambda: f"{rng.getrandbits(128):032x}"


def make_referee(store: Store | None = None, seed: int = 0) -> Referee:
    """A referee over ``store`` (a fresh MemoryStore by default) with a fixed clock, signing
    with the test key :data:`SIGNER`."""
    return Referee(
        store if store is not None else MemoryStore(),
        FixedClock(),
        tokens(seed),
        SIGNER,
    )


def header(game: str, seat: str = "judge", signer: Signer = SIGNER) -> Header:
    """The export header of ``game`` cut for ``seat``, signed by ``signer`` (default: the test
    key)."""
    return Header(game, seat, signer.public_b64, signer.fingerprint)


def fork(ref: Referee, game: str, seed: int = 0) -> Referee:
    """A second referee over a copy of ``game``'s records and secrets (a twin to diverge from
    here). Two forks made with the same ``seed`` draw the same nonces and times, so what they
    record differs only where what they are told differs."""
    store = MemoryStore()
    store.append(ref.store.records(game), ref.store.secrets(game))
    return make_referee(store, seed)


def shuffled_decks(rng: random.Random, st: GameState) -> tuple[tuple[Card, ...], ...]:
    cat = st.ruleset.catalogue
    out = []
    for p in Player:
        names = [c.name for c in cat.deck_list(p)]
        rng.shuffle(names)
        out.append(tuple(card(n, p) for n in names))
    return tuple(out)


def hand_pool(truth: GameState, service: GameState, p: Player) -> list[Card]:
    """The true identities of the cards the referee holds as unknown in p's hand."""
    pool = Counter(truth.sides[p].hand)
    pool.subtract(c for c in service.sides[p].hand if not c.is_unknown)
    assert all(v >= 0 for v in pool.values()), "the referee holds a card the player does not"
    return list(pool.elements())


def consistent(truth: GameState, service: GameState) -> None:
    """Asserts that the referee's state is the truth with some identities unknown."""
    assert service.phase is truth.phase
    assert (service.player, service.ap, service.used, service.first) == (
        truth.player,
        truth.ap,
        truth.used,
        truth.first,
    )
    for p in Player:
        t, s = truth.sides[p], service.sides[p]
        assert len(t.deck) == len(s.deck)
        assert t.discard == s.discard
        assert len(t.hand) == len(s.hand)
        assert sum(1 for c in s.hand if c.is_unknown) == len(hand_pool(truth, service, p))
        for tc, sc in zip(t.field, s.field, strict=True):
            assert len(tc) == len(sc)
            for a, b in zip(tc, sc, strict=True):
                assert a.up == b.up
                assert b.card == a.card or (b.card is not None and b.card.is_unknown)


def as_json(view: SeatView[Any] | Mapping[str, Any]) -> Mapping[str, Any]:
    """A view as its JSON (the service's typed view, or what the API answered)."""
    return view.to_json() if isinstance(view, SeatView) else view


class Seats(Protocol):
    """What :class:`Table` needs of a referee: the service itself, or a driver that reaches it
    another way (``privacy_property.HttpDriver``: through the web app)."""

    def create_game(
        self,
        *,
        profile: str = ...,
        switches: Mapping[str, str] | None = ...,
        starting: str | None = ...,
        game: str | None = ...,
    ) -> Created: ...

    def folded(self, game: str) -> Folded: ...

    def log(self, game: str, seat: str, upto: int | None = None) -> list[Record]: ...

    def view(self, game: str, seat: str) -> SeatView[Any] | Mapping[str, Any]: ...

    def submit(
        self,
        game: str,
        seat: str,
        raw: Mapping[str, Any],
        *,
        expected_seq: int | None = None,
        key: str | None = None,
    ) -> Receipt: ...

    def answer(self, game: str, seat: str, value: Any, *, key: str | None = None) -> Receipt: ...

    def observe(self, game: str, seat: str, obs: Mapping[str, Any]) -> Record: ...


R = TypeVar("R", bound=Seats, default=Referee)  # the service itself unless named


class Table(Generic[R]):
    """One game at a simulated table, driven through the referee from the players' seats.

    ``unknown_draw`` is the chance that a drawn card is not scanned (entered as unknown);
    ``unscanned_play`` the chance that such a card is played without being scanned;
    ``omit`` the chance that a Pegasus pick or placement is left for the referee to ask;
    ``observe`` the chance, per step, of an observation; the players in ``blind`` never scan
    a drawn card and play the cards the referee does not know unscanned.
    ``on_ack(game, seq)`` is called for every acknowledged record; ``on_receipt(seat,
    receipt)`` for every receipt and ``on_asked(seat, error, raw)`` for every question,
    each with the seat that got it (and what that seat entered, when it submitted).
    """

    def __init__(
        self,
        ref: R,
        rng: random.Random,
        *,
        profile: str = "rio-grande",
        switches: Mapping[str, str] | None = None,
        starting: str | None = None,
        game: str | None = None,
        unknown_draw: float = 0.0,
        unscanned_play: float = 0.0,
        omit: float = 0.0,
        observe: float = 0.0,
        blind: tuple[str, ...] = (),
        hands_public: bool = False,
        on_ack: Callable[[str, int], None] | None = None,
        on_receipt: Callable[[str, Receipt], None] | None = None,
        on_asked: Callable[[str, NeedsInput, Any], None] | None = None,
    ) -> None:
        self.ref = ref
        self.rng = rng
        self.unknown_draw = unknown_draw
        self.unscanned_play = unscanned_play
        self.omit = omit
        self.observe_rate = observe
        self.blind = frozenset(blind)
        self.on_ack = on_ack or (lambda g, s: None)
        self.on_receipt = on_receipt or (lambda s, r: None)
        self.on_asked = on_asked or (lambda s, e, raw: None)
        body = {"profile": profile, "switches": dict(switches or {})}
        empty = new_game(ruleset_from_create(body))
        self.truth = new_game(empty.ruleset, decks=shuffled_decks(rng, empty))  # type: ignore[arg-type]
        # the review's choice (issue 37) only when made: a driver that predates it is unchanged
        extra: dict[str, Any] = {"hands_public": True} if hands_public else {}
        created = ref.create_game(
            profile=profile, switches=switches, starting=starting, game=game, **extra
        )
        self.game = created.game
        self.codes = created.codes
        self.asked_log: list[NeedsInput] = []  # every NeedsInput met, for the tests
        self.diverged = False  # the truth ended by D8 where the referee could not tell
        self.before_last: GameState | None = None  # the truth before the last action
        for r in ref.log(self.game, "judge"):
            self.on_ack(self.game, r.seq)

    # ---- reading ---------------------------------------------------------------------------

    @property
    def service(self) -> GameState:
        return cast(GameState, self.ref.folded(self.game).state)

    @property
    def seq(self) -> int:
        return self.ref.folded(self.game).last_seq

    @property
    def over(self) -> bool:
        return self.truth.phase is Phase.OVER or self.service.phase is Phase.OVER

    def records(self) -> list[Record]:
        return self.ref.log(self.game, "judge")

    # ---- setup (D19) -----------------------------------------------------------------------

    def setup(self) -> None:
        """Starter, deals (real card names), hostage redraws and first rows, each from the
        seat that records it."""
        st = self.service.starting
        if st is None:
            starter = self.rng.choice(
                [a for a in legal_actions(self.truth) if isinstance(a, Starter)]
            )
            self.act(self.rng.choice(["hera", "zeus", "judge"]), starter)
        else:
            self.truth = apply(self.truth, Starter(st)).state
        for p in Player:
            top = tuple(c.notation(p) for c in self.truth.sides[p].deck[:HAND_SIZE])
            self.act(p.key, Deal(p, top))
            if card(HOSTAGE_NAME[p], p) in self.truth.sides[p].hand:
                deck = self.truth.sides[p].deck
                replacement = deck[0].notation(p)
                at = self.rng.randrange(len(deck))
                self.act(
                    p.key,
                    Redraw(p, card=replacement, at=at),
                    {"do": "redraw", "player": p.key, "card": replacement},
                )
        for p in Player:
            rows = [
                a for a in legal_actions(self.truth) if isinstance(a, FirstRow) and a.player is p
            ]
            self.act(p.key, self.rng.choice(rows))
        assert self.truth.phase is Phase.PLAY
        consistent(self.truth, self.service)

    # ---- play --------------------------------------------------------------------------------

    def step(self) -> bool:
        """One random action (maybe preceded by an observation). False when the game is over."""
        if self.over:
            return False
        if self.observe_rate and self.rng.random() < self.observe_rate:
            self.random_observation()
        actions = legal_actions(self.truth)
        if not actions:
            return False
        a = self.rng.choice(actions)
        self.play(a)
        return not self.over

    def play(self, a: Action) -> Receipt:
        """Submits the truth's action ``a`` from the acting player's seat, as he would enter it."""
        p = self.truth.player
        raw = a.to_json()
        svc = self.service
        blind = p.key in self.blind
        if isinstance(a, Draw):
            if not blind and self.rng.random() >= self.unknown_draw:
                raw["card"] = self.truth.sides[p].deck[0].notation(p)
        elif isinstance(a, Play):
            c = self._hand_card(p, a.card)
            pool = hand_pool(self.truth, svc, p)
            if c in pool and (blind or self.rng.random() < self.unscanned_play):
                raw["card"] = "?"
        elif isinstance(a, PegasusHand):
            # D22: the Pegasus player names nothing; the hand's owner states the card drawn,
            # then the referee asks the Pegasus player for the column
            raw.pop("pick", None)
            raw.pop("place", None)
        name = NAMED_POWERS.get(type(a))
        if name is not None:
            self._identify_own_copy(p, name)
        return self.act(p.key, a, raw)

    def _hand_card(self, p: Player, note: str) -> Card:
        name, _, deck = note.partition("/")
        return card(name, Player.parse(deck) if deck else p)

    def _identify_own_copy(self, p: Player, name: str) -> None:
        """Before a power is used: if the truth uses its own copy that the referee holds as
        unknown while it also holds a Sirens copy, the player scans it first (as he would
        when asked which card he plays)."""
        svc = self.service.sides[p].hand
        own = card(name, p)
        if own in svc or own not in self.truth.sides[p].hand:
            return
        if card(name, p.other) in svc and any(c.is_unknown for c in svc):
            self.observe(p.key, {"player": p.key, "zone": "hand", "card": name})

    def act(self, seat: str, a: Action, raw: dict[str, Any] | None = None) -> Receipt:
        """Submits ``raw`` (default ``a.to_json()``) from ``seat``, answering every question
        the referee asks from the truth, then applies ``a`` to the truth."""
        raw = copy.deepcopy(raw if raw is not None else a.to_json())
        before = self.truth
        receipt = self._submit_answering(seat, a, raw, before)
        self.truth = apply(before, a).state
        self.before_last = before
        if self.service.phase is self.truth.phase:
            consistent(self.truth, self.service)
        else:  # D8 where the referee does not know a hand: only the truth sees the end
            assert self.truth.reason is EndReason.CANNOT_USE_AP, self.truth.reason
            self.diverged = True
        return receipt

    def _submit_answering(
        self, seat: str, a: Action, raw: dict[str, Any], before: GameState
    ) -> Receipt:
        caller, supplied = seat, None
        for _ in range(8):
            try:
                if supplied is None:
                    receipt = self.ref.submit(self.game, seat, raw)
                else:
                    receipt = self.ref.answer(self.game, caller, supplied)
            except NeedsInput as e:
                if e.seq is not None:  # the question was recorded: that record is acknowledged
                    self.on_ack(self.game, e.seq)
                self.asked_log.append(e)
                self.on_asked(caller, e, raw if supplied is None else supplied)
                value = self.answer(e.needs, a, raw, before)
                fill_input(raw, e.needs, value)
                waiting = [s for s in e.asked if "asked" in as_json(self.ref.view(self.game, s))]
                if waiting:
                    caller, supplied = self.rng.choice(waiting), value
                else:
                    caller, supplied = seat, None
                continue
            self.on_ack(self.game, receipt.seq)
            self.on_receipt(caller, receipt)
            return receipt
        raise AssertionError(f"the referee kept asking for input on {raw}")

    def answer(self, needs: str, a: Action, raw: Mapping[str, Any], st: GameState) -> Any:
        """The answer the table gives to a question of the referee, from the truth."""
        svc = self.service
        p = st.player
        o = p.other
        if needs == "reveal.attacker":
            return _front(st, p, raw["column"])
        if needs == "reveal.defender" or needs == "reveal.target":
            return _front(st, o, raw["column"])
        if needs == "reveal.cards":
            ci = raw["column"] - 1
            col_t, col_s = st.sides[o].field[ci], svc.sides[o].field[ci]
            return [
                t.card.notation(o)
                for t, s in zip(col_t, col_s, strict=True)
                if s.card is not None and s.card.is_unknown and t.card is not None
            ]
        if needs == "reveal.hand":
            return [c.notation(o) for c in hand_pool(st, svc, o)]
        if needs in ("pick", "place"):
            assert isinstance(a, PegasusHand)
            return getattr(a, needs)
        if needs.startswith("order."):
            who = Player.parse(needs.partition(".")[2])
            if isinstance(a, PegasusHand):  # the default (D2): the hand as it is, Pandora in place
                return [c.notation(who) for c in st.sides[who].hand]
            if isinstance(a, PythiaSpy):  # D12: the Poseidon and Nemesis found, as they stood
                return [c.notation(who) for c in st.sides[who].hand if c.name in POWERFUL]
            assert isinstance(a, Challenge | PegasusField)
            col = st.sides[who].field[a.column - 1]
            return [s.card.notation(who) for s in col if s.card is not None]
        raise AssertionError(f"the table cannot answer {needs!r}")

    # ---- observations ------------------------------------------------------------------------

    def observe(self, seat: str, obs: Mapping[str, Any]) -> Record:
        rec = self.ref.observe(self.game, seat, obs)
        for r in self.ref.log(self.game, "judge", None)[rec.seq :]:
            self.on_ack(self.game, r.seq)
        return rec

    def random_observation(self) -> Record | None:
        """A true observation: a player scans one of his own cards, or the judge or a camera
        one on the field; face-up cards may be reported by either player."""
        p = self.rng.choice(list(Player))
        t = self.truth.sides[p]
        if self.rng.random() < 0.4 and t.hand:
            c = self.rng.choice(t.hand)
            seat = self.rng.choice([p.key, "judge"])
            return self.observe(seat, {"player": p.key, "zone": "hand", "card": c.notation(p)})
        places = [
            (ci, pi, s) for ci, col in enumerate(t.field) for pi, s in enumerate(col) if s.card
        ]
        if not places:
            return None
        ci, pi, s = self.rng.choice(places)
        assert s.card is not None
        seat = self.rng.choice(["hera", "zeus", "judge"] if s.up else [p.key, "judge"])
        obs = {
            "player": p.key,
            "zone": "field",
            "column": ci + 1,
            "position": pi + 1,
            "card": s.card.notation(p),
            "source": self.rng.choice(["manual", "camera"]),
        }
        return self.observe(seat, obs)


def _front(st: GameState, p: Player, column: int) -> str:
    s = st.sides[p].field[column - 1][0]
    assert s.card is not None
    return s.card.notation(p)


def replay_with_engine(records: list[Record]) -> GameState:
    """Recomputes a log without the fold: each action applied with ``engine.apply`` must give
    exactly the events stored with it; identifying observations patch the state. Works on logs
    without judge corrections."""
    from engine.herazeus import parse_action
    from referee.herazeus.game import apply_patch, patch_from_body

    st = new_game(ruleset_from_create(records[0].body))
    for r in records[1:]:
        if r.kind == "action":
            out = apply(st, parse_action(r.body["action"]))
            assert [e.to_json() for e in out.events] == list(r.events), f"event {r.seq}"
            st = out.state
        elif r.kind == "observation" and r.body.get("identifies"):
            st = apply_patch(st, patch_from_body(st, r.body))
        else:
            assert r.kind in ("observation", "irregularity", "ask"), r.kind
    return st


def _writer(db: str, seed: int) -> None:  # pragma: no cover - runs in a subprocess
    from referee.store import SQLiteStore

    ref = Referee(SQLiteStore(db), signer=SIGNER)
    rng = random.Random(seed)

    def ack(game: str, seq: int) -> None:
        sys.stdout.write(f"{game} {seq}\n")
        sys.stdout.flush()

    n = 0
    while True:
        t = Table(
            ref,
            rng,
            game=f"g{seed}-{n}",
            unknown_draw=0.2,
            unscanned_play=0.3,
            observe=0.1,
            on_ack=ack,
        )
        t.setup()
        while t.step():
            pass
        n += 1


if __name__ == "__main__":  # pragma: no cover
    _writer(sys.argv[1], int(sys.argv[2]))
