"""Minotaur Lords privacy (issue 15, item 3; M14, ML-P7): the same property as Hera & Zeus's.

Random games are played through the service, each player stating his own cards. At sampled
positions the player to move faces twin tables that differ only in one card hidden from him
(an unstated card of the opponent's hand, stated differently at each twin). Every reply he
gets must be byte-identical at every twin: his view, log and export, the public ones, every
legal action (and his view after it), effects aimed at the opponent's hand (their questions
go to the opponent), cards he names that he cannot see, and observations; and the guardian's
warnings on every legal action before it is submitted (issue 37: M2, M4).
"""

from __future__ import annotations

import contextlib
import json
import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from privacy_property import Driver, HttpDriver, ServiceDriver, Told, blank_text

from engine.minotaur.cards import PLAYERS, opponent
from engine.minotaur.state import Stage, State
from referee.errors import NeedsInput, ServiceError
from referee.judging import changes_anything

DECKS = (Path(__file__).resolve().parent / "data" / "minotaur" / "decks.csv").read_text()
GAMES = 6
STEPS = 70
EVERY = 9  # a sample every so many steps
TWINS = 3


def _state(d: Driver, game: str) -> State:
    st: State = d.ref.folded(game).state
    return st


def _unstated(st: State, p: str) -> list[str]:
    """Names ``p`` could still state for an unknown card of his hand (his deck list less
    every copy the referee knows)."""
    s = st.side(p)
    known = Counter(n for n in s.hand if n is not None)
    known.update(x.name for _, x in s.in_play())
    known.update(dd.name for dd in s.discard if dd.name is not None)
    left = Counter(st.owned[PLAYERS.index(p)]) - known
    return sorted(left)


def _state_some(d: Driver, game: str, p: str, rng: random.Random, share: float) -> None:
    """``p`` states some of the unknown cards of his hand."""
    for _ in range(_state(d, game).side(p).hand.count(None)):
        names = _unstated(_state(d, game), p)
        if names and rng.random() < share:
            name = rng.choice(names)
            if rng.random() < 0.5:
                d.observe(game, p, {"player": p, "zone": "hand", "card": name})
            else:  # the page's way: the holder records cards of his hand (ML-P7)
                d.submit(game, p, {"do": "hand", "cards": [name], "by": p})


def _take_from_hand(p: str) -> dict[str, Any]:
    o = opponent(p)
    return {
        "op": "move",
        "card": "?",
        "from": {"side": o, "zone": "hand"},
        "to": {"side": o, "zone": "discard"},
    }


def _effects(st: State, p: str) -> list[dict[str, Any]]:
    """Effects ``p`` might record now: of the card acting, or of a passive card of his."""
    t = st.turn
    sources: list[dict[str, Any]] = []
    if t.pending and t.player == p:
        sources.append({"card": t.pending})
    for where, x in st.side(p).in_play():
        if st.catalogue[x.name].text.value == "passive" and not x.cursed:
            sources.append({"card": x.name, "column": where})
    o = opponent(p)
    ops = [
        [_take_from_hand(p)],
        [{"op": "draw", "side": o, "count": 1}],
        [
            {
                "op": "move",
                "card": "?",
                "from": {"side": o, "zone": "deck"},
                "to": {"side": o, "zone": "discard"},
            }
        ],
        [{"op": "draw", "count": 1}],
    ]
    return [{"do": "effect", **src, "ops": op} for src in sources[:2] for op in ops]


def _act(d: Driver, game: str, rng: random.Random) -> bool:
    """One random step of the player to act (stating his cards first); False when over."""
    st = _state(d, game)
    if st.stage is Stage.OVER:
        return False
    if st.stage in (Stage.SET_ASIDE, Stage.TAKE):
        return False  # one game at a time here; the match is self-play's
    p = st.turn.player
    _state_some(d, game, p, rng, 0.6)
    st = _state(d, game)
    view = d.view(game, p)
    waiting = view.get("asked")
    if waiting and waiting.get("seq") is not None:  # a question waits: no action (ML-P5)
        with contextlib.suppress(ServiceError):  # a refusal changes nothing
            _answer(d, game, str(waiting["asked"][0]), rng)
        return True
    legal = [json.loads(x) for x in view.get("legal", [])]
    choices = legal + (_effects(st, p) if rng.random() < 0.4 else [])
    raw = rng.choice(choices)
    try:
        d.submit(game, p, raw)
    except NeedsInput as e:
        q = e.to_json()
        asked = q.get("asked") or [p]
        if "seq" not in q:  # his own value: he gives it with the action
            return True
        _answer(d, game, asked[0], rng)
    except ServiceError:
        pass  # a refusal changes nothing
    return True


def _answer(d: Driver, game: str, who: str, rng: random.Random) -> None:
    """``who`` names a card of his hand for the question waiting on him."""
    hand = [n for n in _state(d, game).side(who).hand]
    named = [n for n in hand if n is not None] or _unstated(_state(d, game), who)
    d.answer(game, who, [rng.choice(named)] if named else [])


@dataclass
class Compared:
    replies: int = 0
    on_the_hand: int = 0  # effects aimed at the opponent's hand
    named: int = 0  # hidden cards he tried to name
    warned: int = 0  # legal actions the guardian warned of (M2, M4)


def _probe(twins: list[Driver], game: str, seat: str, names: list[str]) -> Compared:
    n = Compared()
    lead = twins[0]

    def same(what: str, call: Callable[[Driver], object]) -> Told:
        got = [t.told(partial(call, t)) for t in twins]
        assert len({g.text for g in got}) == 1, f"{what}: the replies differ:\n" + "\n".join(
            g.text for g in got
        )
        n.replies += 1
        return got[0]

    def back_to(seq: int) -> None:
        for t in twins:
            f = t.ref.folded(game)
            if f.last_seq != seq and changes_anything(f, seq):  # else refused (HZ-P15)
                t.undo(game, "judge", seq, "probe: back to the position under test")

    def submit(raw: Mapping[str, Any]) -> Callable[[Driver], object]:
        return lambda t: t.submit(game, seat, raw)

    def view(t: Driver) -> object:
        return t.view(game, seat)

    for path in lead.pages(game, seat):
        if path.endswith("/camera"):
            continue  # Hera & Zeus's camera page: not a page of this game
        texts = {blank_text(t.page(game, seat, path)) for t in twins}
        assert len(texts) == 1, f"page {path}: differs between the twins"
        n.replies += 1
    for reader in (seat, "public"):
        same(f"{reader}'s view", lambda t: t.view(game, reader))  # noqa: B023
        same(f"{reader}'s log", lambda t: t.log(game, reader))  # noqa: B023
        same(f"{reader}'s export", lambda t: t.export(game, reader))  # noqa: B023
    start = lead.ref.folded(game).last_seq
    st = _state(lead, game)
    o = opponent(seat)
    legal = [json.loads(x) for x in lead.view(game, seat).get("legal", [])]
    for raw in legal + _effects(st, seat):
        # the guardian's warnings (issue 37: M2, M4) before it is submitted
        same(f"warnings for {json.dumps(raw)}", lambda t: t.guard(game, seat, raw))  # noqa: B023
        n.warned += bool(lead.guard(game, seat, raw))
        same(json.dumps(raw), submit(raw))
        same(f"view after {json.dumps(raw)}", view)
        n.on_the_hand += raw.get("do") == "effect"
        back_to(start)
    for name in names:
        named: list[dict[str, Any]] = [
            {"do": "effect", "card": "?", "ops": [{**_take_from_hand(seat), "card": name}]},
            {
                "do": "effect",
                "card": "?",
                "ops": [_take_from_hand(seat)],
                "hand_cards": {o: [name]},
            },
        ]
        for raw in named:
            got = same(f"naming {name}", submit(raw))
            assert got.kind == "refused"
            n.named += 1
        same(f"observing {name}", partial(_observe, game=game, seat=seat, owner=o, name=name))
        back_to(start)
    return n


def _observe(t: Driver, *, game: str, seat: str, owner: str, name: str) -> object:
    return t.observe(game, seat, {"player": owner, "zone": "hand", "card": name})


def _twins(
    d: Driver, game: str, owner: str, rng: random.Random, seed: int
) -> tuple[list[Driver], list[str]]:
    """Tables where ``owner`` states one unknown hand card as different names."""
    names = _unstated(_state(d, game), owner)
    rng.shuffle(names)
    twins: list[Driver] = []
    used: list[str] = []
    for name in names:
        t = d.twin(game, seed)
        try:
            rec = t.observe(game, owner, {"player": owner, "zone": "hand", "card": name})
        except ServiceError:
            continue
        if t.ref.log(game, "judge")[rec.seq].body.get("irregularity"):
            continue
        twins.append(t)
        used.append(name)
        if len(twins) == TWINS:
            break
    return twins, used


def _new_game(d: Driver, first: str) -> str:
    """A Minotaur Lords game with the test deck list, made the driver's way (the service, or
    the API's POST /games)."""
    if isinstance(d, HttpDriver):
        return d.create_game(game_module="minotaur", deck_list=DECKS, starting=first).game
    return d.create_game(name="minotaur", options={"deck_list": DECKS, "first": first}).game


DRIVERS = [ServiceDriver, HttpDriver]


@pytest.mark.parametrize("driver", DRIVERS, ids=["service", "http"])
@pytest.mark.parametrize("seed", range(GAMES))
def test_no_reply_depends_on_a_card_hidden_from_the_player(
    seed: int, driver: type[ServiceDriver] | type[HttpDriver]
) -> None:
    rng = random.Random(seed)
    d = driver.new(seed)
    game = _new_game(d, rng.choice(PLAYERS))
    total = Compared()
    samples = 0
    for step in range(STEPS):
        if step % EVERY == EVERY - 1:
            st = _state(d, game)
            seat = st.turn.player
            if st.stage is Stage.PLAY and None in st.side(opponent(seat)).hand:
                twins, names = _twins(d, game, opponent(seat), rng, seed)
                if len(twins) >= 2:
                    got = _probe(twins, game, seat, names)
                    total.replies += got.replies
                    total.on_the_hand += got.on_the_hand
                    total.named += got.named
                    total.warned += got.warned
                    samples += 1
        if not _act(d, game, rng):
            break
    assert samples >= 2, f"only {samples} positions compared"
    assert total.replies >= 60 and total.named >= 4, total


@pytest.mark.parametrize("seed", range(GAMES))
def test_no_seat_is_shown_a_card_hidden_from_it(seed: int) -> None:
    """After every step each other seat's view shows the opponent's hand, every deck and the
    piles' hidden cards as backs, and no one's deck list changes but his own."""
    rng = random.Random(100 + seed)
    d = ServiceDriver.new(100 + seed)
    game = d.create_game(name="minotaur", options={"deck_list": DECKS}).game
    for _ in range(STEPS):
        st = _state(d, game)
        for seat in (*PLAYERS, "public"):
            v = d.view(game, seat)
            for p in PLAYERS:
                side = v[p]
                if seat != p:
                    assert set(side["hand"]) <= {"?"} and side["owned"] == []
                for shown, dd in zip(side["discard"], st.side(p).discard, strict=True):
                    visible = dd.seen == "both" or (dd.seen == seat == p)
                    assert shown == (dd.name if visible and dd.name else "?"), (seat, p)
        if not _act(d, game, rng):
            break


def test_a_card_an_effect_takes_from_a_hand_stays_its_holders_in_every_record() -> None:
    """Miron's effect takes a card from Vess's hand; Vess names it. The record of the effect
    holds the name for Vess and the judge only: not for Miron, who recorded the effect, nor the
    public (M14, ML-P7)."""
    from referee.log import is_sealed_marker

    d = ServiceDriver.new(7)
    game = d.create_game(name="minotaur", options={"deck_list": DECKS, "first": "miron"}).game
    st = _state(d, game)
    cards = st.catalogue.cards
    source = next(
        n
        for n in sorted(set(st.owned[0]))
        if cards[n].phase == 0
        and cards[n].type.value == "servant"
        and cards[n].text.value == "active"
    )
    column = f"upper-{sorted(k.value for k in cards[source].icons)[0]}"
    vess_card = _unstated(st, "vess")[0]
    d.submit(game, "vess", {"do": "hand", "cards": [vess_card], "by": "vess"})
    d.submit(game, "miron", {"do": "hand", "cards": [source], "by": "miron"})
    d.submit(game, "miron", {"do": "play", "card": source, "column": column})
    with pytest.raises(NeedsInput):
        d.submit(game, "miron", {"do": "effect", "card": source, "ops": [_take_from_hand("miron")]})
    d.answer(game, "vess", [vess_card])
    assert [x.name for x in _state(d, game).side("vess").discard] == [vess_card]

    def named(seat: str) -> Any:
        rec = next(
            r for r in reversed(d.log(game, seat)) if r.body.get("action", {}).get("do") == "effect"
        )
        return rec.body["action"]["hand_cards"]["vess"]

    assert named("vess") == [vess_card] and named("judge") == [vess_card]
    assert is_sealed_marker(named("miron")) and is_sealed_marker(named("public"))
    assert d.view(game, "miron")["vess"]["discard"] == ["?"]
