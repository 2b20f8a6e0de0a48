"""Tiny Duel as a game module of the referee (:class:`referee.game.Game`): the smallest game
with hidden cards, registered only in the tests, so that the contract suite runs a third game
through the shared service (issue 32).

Rules (cited T1-T8):

- T1: each player (``east``, ``west``) has a deck of the cards 1 to 6 and is dealt three of
  them; each states his own three (``deal``), which only he and the judge see. Only a card's
  holder (or the judge) states it.
- T2: three rounds. The round's leader (East in round 1, then the players alternate) plays a
  card of his hand face down into his slot, then the other player does.
- T3: once both slots hold a card both are revealed; the higher card wins the round, equal
  cards win nothing; the slots are cleared.
- T4: after the third round the player who won more rounds wins; equal: a draw.
- T5: a card face down in a slot is hidden from the opponent until it is revealed.
- T6: an open question holds the game (Tiny Duel asks none).
- T7: a statement that contradicts the record goes to the judge.
- T8: a play stands once made (it may reveal both cards): only the judge undoes it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from itertools import combinations
from types import MappingProxyType
from typing import Any

import msgspec

from engine.errors import NotationError
from engine.outcome import Outcome as BaseOutcome
from referee.game import (
    Game,
    Illegal,
    Malformed,
    Missing,
    NotYours,
    Observed,
    Option,
    Outcome,
    Setup,
    Summary,
)
from referee.models import Board, Caution, Ruling, Turn

NAME = "tiny"
TITLE = "Tiny Duel"
PLAYERS = ("east", "west")
CARDS = ("1", "2", "3", "4", "5", "6")
HAND = 3
ROUNDS = 3
RULES_VERSION = "tiny/1"
RULES = {
    "T1": "T1: each player is dealt three of his cards 1-6 and states them; only the holder "
    "(or the judge) states a card.",
    "T2": "T2: the leader plays a card face down into his slot, then the other player.",
    "T3": "T3: both revealed; the higher card wins the round.",
    "T4": "T4: after three rounds, more rounds won wins; equal is a draw.",
    "T5": "T5: a face-down card is hidden from the opponent until revealed.",
    "T6": "T6: an open question holds the game.",
    "T7": "T7: a statement contradicting the record goes to the judge.",
    "T8": "T8: a play stands once made; only the judge undoes it.",
}
REASONS = {"rounds": "won more rounds (T4)", "draw": "the game is drawn: equal rounds (T4)"}


def other(p: str) -> str:
    return PLAYERS[1 - PLAYERS.index(p)]


class TinyBoard(Board, frozen=True, kw_only=True):
    """A seat's view of a Tiny Duel table: each hand (``?`` a card hidden from the seat, T1),
    each slot (None empty, ``?`` face down, T5, or the seat's own card), rounds won, the round
    and its leader."""

    hands: dict[str, list[str]]
    slots: dict[str, str | None]
    wins: dict[str, int]
    round: int
    leader: str


class TinyRuling(msgspec.Struct, frozen=True, kw_only=True):
    """Tiny Duel's result of a ruling (:func:`rule_file`)."""

    legal: bool
    failed_at: int | None
    rules: list[str]
    ruling: str
    winner: str | None
    reason: str | None
    position: dict[str, Any]


@dataclass(frozen=True)
class TinyRules:
    first: str = "east"


@dataclass(frozen=True)
class Deal:
    by: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Play:
    card: str
    by: str | None = None


Action = Deal | Play


@dataclass(frozen=True)
class State:
    """A table: each hand (None: a card hidden from the reader), whether each has been dealt,
    each slot (None empty; ``"?"`` a face-down card hidden from the reader), rounds won."""

    phase: str = "setup"  # setup, play, over
    hands: tuple[tuple[str | None, ...], tuple[str | None, ...]] = ((), ())
    dealt: tuple[bool, bool] = (False, False)
    slots: tuple[str | None, str | None] = (None, None)
    wins: tuple[int, int] = (0, 0)
    round: int = 1
    leader: str = "east"
    player: str = "east"
    winner: str | None = None
    reason: str | None = None

    def hand(self, p: str) -> tuple[str | None, ...]:
        return self.hands[PLAYERS.index(p)]


def _pair(values: Mapping[str, Any]) -> tuple[Any, Any]:
    return (values[PLAYERS[0]], values[PLAYERS[1]])


def _set(pair: tuple[Any, Any], p: str, value: Any) -> Any:
    return (value, pair[1]) if p == PLAYERS[0] else (pair[0], value)


def parse(raw: Any, where: str) -> Action:
    if not isinstance(raw, Mapping):
        raise Malformed(f"{where}: an action is a JSON object")
    do = raw.get("do")
    if do == "deal":
        extra = set(raw) - {"do", "by", "cards"}
        by, cards = raw.get("by"), raw.get("cards")
        if extra or by not in PLAYERS:
            raise Malformed(f"{where}: deal takes by (east or west) and cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise Malformed(f"{where}.cards: a list of card names (1-6)")
        return Deal(str(by), tuple(cards))
    if do == "play":
        extra = set(raw) - {"do", "card", "by"}
        card, by = raw.get("card"), raw.get("by")
        if extra or not isinstance(card, str) or (by is not None and by not in PLAYERS):
            raise Malformed(f"{where}: play takes card (1-6) and maybe by (east or west)")
        return Play(card, by)
    raise Malformed(f"{where}.do: deal or play")


def to_json(a: Action) -> dict[str, Any]:
    if isinstance(a, Deal):
        return {"do": "deal", "by": a.by, "cards": list(a.cards)}
    return {"do": "play", "card": a.card, **({"by": a.by} if a.by else {})}


def check(st: State, a: Action) -> None:
    if isinstance(a, Deal):
        if st.phase != "setup" or st.dealt[PLAYERS.index(a.by)]:
            raise Illegal(f"{a.by.title()} has been dealt already", "T1")
        bad = [c for c in a.cards if c not in CARDS]
        if bad or len(a.cards) != HAND or len(set(a.cards)) != HAND:
            raise Illegal("cards: three different cards of 1-6", "T1")
        return
    if st.phase != "play":
        raise Illegal("no card is played before both hands are dealt or after the end", "T2")
    if a.by is not None and a.by != st.player:
        raise Illegal(f"it is {st.player.title()}'s turn", "T2")
    if a.card not in CARDS:
        raise Illegal(f"card: {a.card[:10]!r} is not a card (1-6)", "T2")
    if a.card not in st.hand(st.player):
        raise Illegal(f"card: {a.card} is not in {st.player.title()}'s hand", "T2")


def apply(st: State, a: Action) -> Outcome[State]:
    check(st, a)
    if isinstance(a, Deal):
        i = PLAYERS.index(a.by)
        hands = _set(st.hands, a.by, a.cards)
        dealt = _set(st.dealt, a.by, True)
        events: list[dict[str, Any]] = [
            {"event": "dealt", "player": a.by, "cards": list(a.cards), "public": False}
        ]
        new = replace(st, hands=hands, dealt=dealt)
        if all(dealt):
            new = replace(new, phase="play", player=new.leader)
            events.append({"event": "round", "round": 1, "leader": new.leader})
        else:
            new = replace(new, player=PLAYERS[1 - i])
        return BaseOutcome(new, tuple(events), ("T1",))
    p = st.player
    hand = list(st.hand(p))
    hand.remove(a.card)
    new = replace(st, hands=_set(st.hands, p, tuple(hand)), slots=_set(st.slots, p, a.card))
    events = [{"event": "played", "player": p, "card": a.card, "public": False}]
    if None in new.slots:
        return BaseOutcome(replace(new, player=other(p)), tuple(events), ("T2",))
    east, west = (int(str(c)) for c in new.slots)
    won = "east" if east > west else "west" if west > east else None
    wins = new.wins if won is None else _set(new.wins, won, new.wins[PLAYERS.index(won)] + 1)
    events.append(
        {"event": "revealed", "cards": dict(zip(PLAYERS, new.slots, strict=True)), "won": won}
    )
    new = replace(new, slots=(None, None), wins=wins)
    if new.round == ROUNDS:
        winner = None if wins[0] == wins[1] else PLAYERS[0] if wins[0] > wins[1] else PLAYERS[1]
        reason = "rounds" if winner else "draw"
        events.append({"event": "over", "winner": winner, "reason": reason})
        new = replace(new, phase="over", winner=winner, reason=reason)
        return BaseOutcome(new, tuple(events), ("T2", "T3", "T4"))
    leader = other(new.leader)
    events.append({"event": "round", "round": new.round + 1, "leader": leader})
    new = replace(new, round=new.round + 1, leader=leader, player=leader)
    return BaseOutcome(new, tuple(events), ("T2", "T3"))


def project(st: State, seat: str) -> State:
    """The state as ``seat`` knows it: the opponent's hand and face-down card unknown (T1,
    T5). The judge's (and only his) is the state itself."""
    if seat == "judge":
        return st
    hands = tuple(
        h if p == seat else (None,) * len(h) for p, h in zip(PLAYERS, st.hands, strict=True)
    )
    slots = tuple(
        c if p == seat or c is None else "?" for p, c in zip(PLAYERS, st.slots, strict=True)
    )
    return replace(st, hands=(hands[0], hands[1]), slots=(slots[0], slots[1]))


def view_for(st: State, seat: str) -> TinyBoard:
    mine = project(st, seat)
    return TinyBoard(
        phase=st.phase,
        turn=Turn(player=st.player, first=st.round == 1),
        winner=st.winner,
        reason=st.reason,
        hands={p: [c or "?" for c in mine.hand(p)] for p in PLAYERS},
        slots=dict(zip(PLAYERS, mine.slots, strict=True)),
        wins=dict(zip(PLAYERS, st.wins, strict=True)),
        round=st.round,
        leader=st.leader,
    )


def position(st: State) -> dict[str, Any]:
    """The whole position in JSON (a ruling file's ``position``)."""
    return {
        "phase": st.phase,
        "hands": {p: list(st.hand(p)) for p in PLAYERS},
        "dealt": dict(zip(PLAYERS, st.dealt, strict=True)),
        "slots": dict(zip(PLAYERS, st.slots, strict=True)),
        "wins": dict(zip(PLAYERS, st.wins, strict=True)),
        "round": st.round,
        "leader": st.leader,
        "player": st.player,
    }


def from_position(raw: Any) -> State:
    """A state from :func:`position`'s JSON. Raises Malformed naming the field."""
    if not isinstance(raw, Mapping):
        raise Malformed("position: an object")
    try:
        st = State(
            phase=str(raw["phase"]),
            hands=_pair({p: tuple(str(c) for c in raw["hands"][p]) for p in PLAYERS}),
            dealt=_pair({p: bool(raw["dealt"][p]) for p in PLAYERS}),
            slots=_pair({p: raw["slots"][p] for p in PLAYERS}),
            wins=_pair({p: int(raw["wins"][p]) for p in PLAYERS}),
            round=int(raw["round"]),
            leader=str(raw["leader"]),
            player=str(raw["player"]),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise Malformed(f"position: missing or wrong {e}") from None
    if st.phase not in ("setup", "play", "over") or {st.leader, st.player} - set(PLAYERS):
        raise Malformed("position: phase setup/play/over, leader and player east or west")
    cards = [c for h in st.hands for c in h] + [c for c in st.slots if c is not None]
    if any(c not in CARDS for c in cards) or any(len(h) > HAND for h in st.hands):
        raise Malformed("position: hands of at most three cards and slots of cards 1-6 (T1)")
    if not 1 <= st.round <= ROUNDS:
        raise Malformed(f"position.round: 1 to {ROUNDS} (T2)")
    return st


def rule_file(raw: Any) -> dict[str, Any]:
    """A ruling file (``{"game": "tiny", "position": ..., "actions": [...]}``): the actions
    applied in turn from the position; the first illegal one ends the ruling. Raises
    Malformed."""
    if not isinstance(raw, Mapping) or raw.get("game") != NAME:
        raise Malformed('game: a Tiny Duel ruling file says "game": "tiny"')
    st = from_position(raw.get("position"))
    actions = raw.get("actions")
    if not isinstance(actions, list) or not actions:
        raise Malformed("actions: a list of at least one action")
    rules: list[str] = []
    for i, x in enumerate(actions):
        a = parse(x, f"actions[{i}]")
        try:
            out = apply(st, a)
        except Illegal as e:
            rules.append(str(e.rule))
            return {
                "legal": False,
                "failed_at": i,
                "rules": rules,
                "ruling": f"NOT LEGAL at action {i + 1}: {e.reason} ({e.rule})",
                "winner": st.winner,
                "reason": st.reason,
                "position": position(st),
            }
        st = out.state
        rules += [r for r in out.rules if r not in rules]
    return {
        "legal": True,
        "failed_at": None,
        "rules": rules,
        "ruling": f"LEGAL: {len(actions)} action(s) ({', '.join(rules)})",
        "winner": st.winner,
        "reason": st.reason,
        "position": position(st),
    }


def render_text(result: Mapping[str, Any]) -> str:
    cited = [RULES[r] for r in result["rules"] if r in RULES]
    return "\n".join([str(result["ruling"]), "", "Rules:", *(f"  {c}" for c in cited)])


def event_words(e: Mapping[str, Any]) -> str | None:
    who = str(e.get("player", "")).title()
    kind = e.get("event")
    if kind == "dealt":
        return f"{who} was dealt three cards (T1)."
    if kind == "played":
        return f"{who} played a card face down (T2)."
    if kind == "revealed":
        cards = e.get("cards") or {}
        won = e.get("won")
        words = f"{str(won).title()} wins the round" if won else "nobody wins the round"
        return f"Revealed: East {cards.get('east')}, West {cards.get('west')}: {words} (T3)."
    if kind == "round":
        return f"Round {e.get('round')}: {str(e.get('leader')).title()} leads (T2)."
    if kind == "over":
        won = e.get("winner")
        return f"{str(won).title()} wins the game (T4)." if won else "A draw (T4)."
    return None


class Tiny:
    """The Tiny Duel module: see the module's docstring."""

    name: str = NAME
    title: str = TITLE
    players: tuple[str, ...] = PLAYERS
    profiles: tuple[str, ...] = ("standard",)
    hold_rule: str = "T6"
    contradiction_rule: str = "T7"
    legacy_rules: str = RULES_VERSION
    board_type: type[TinyBoard] = TinyBoard
    result_type: type[TinyRuling] = TinyRuling

    def setup(self, options: Mapping[str, Any], players: Mapping[str, str]) -> Setup:
        """Options: ``first`` (east or west: who leads round 1); ``profile`` standard."""
        extra = sorted(set(options) - {"first", "profile", "starting", "switches"})
        if options.get("switches"):
            raise Malformed("switches: Tiny Duel has none")
        if extra:
            raise Malformed(f"options: unknown option {str(extra[0])[:20]!r}")
        if options.get("profile", "standard") != "standard":
            raise Malformed("profile: standard")
        first = options.get("first", options.get("starting", "east"))
        if first not in PLAYERS:
            raise Illegal(f"first: {str(first)[:20]!r} is not a player (east or west)", "T2")
        return Setup({"first": first, "players": {"east": "East", "west": "West", **players}})

    def rules(self, create: Mapping[str, Any]) -> TinyRules:
        first = create.get("first", "east")
        if first not in PLAYERS:
            raise Malformed("first: east or west")
        return TinyRules(str(first))

    def rules_version(self, create: Mapping[str, Any]) -> str:
        blob = json.dumps({"first": self.rules(create).first}).encode()
        return f"{RULES_VERSION}+{hashlib.sha256(blob).hexdigest()[:16]}"

    def new_state(self, rules: TinyRules) -> State:
        return State(leader=rules.first, player=rules.first)

    def card_names(self, rules: TinyRules) -> dict[str, list[str]]:
        return {p: list(CARDS) for p in PLAYERS}

    def parse_action(self, raw: Any, where: str) -> Action:
        return parse(raw, where)

    def action_json(self, action: Action) -> dict[str, Any]:
        return to_json(action)

    def check(self, state: State, action: Action) -> None:
        check(state, action)

    def apply(
        self, state: State, action: Action, checked: bool = True, asking: bool = False
    ) -> Outcome[State]:
        return apply(state, action)

    def reason_text(self, reason: str | None) -> str:
        return f"The winner {REASONS[reason]}." if reason in REASONS else reason or ""

    def take_back_refusal(self, action: Mapping[str, Any]) -> str | None:
        if action.get("do") == "play":
            return "a play stands once made (it may reveal both cards); only the judge undoes it"
        return None

    def actor(self, state: State, action: Action, seat: str) -> str:
        if isinstance(action, Deal):
            if seat not in ("judge", action.by):
                raise NotYours(f"only {action.by.title()} or the judge states his cards", "T1")
            return action.by
        actor = action.by or state.player
        if seat not in ("judge", actor) or actor != state.player:
            raise NotYours(f"it is {state.player.title()}'s turn", "T2")
        return actor

    def refuse_statement(self, state: State, action: Action, seat: str) -> Illegal | None:
        return None  # a player states only his own cards (T1): the actor check refuses the rest

    def asked(self, missing: Missing, actor: str) -> tuple[str, ...]:
        return missing.asked or (actor,)

    def shown_while_asked(self, action: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def guard(self, seen: State, action: Action, seat: str) -> tuple[Caution, ...]:
        """T3: a 1 wins no round (at best it ties); the other cards in his hand avoid that.
        From his own hand only: never from the opponent's face-down card."""
        if seen.phase != "play" or seat != seen.player or not isinstance(action, Play):
            return ()
        if action.card != "1" or action.by not in (None, seat) or "1" not in seen.hand(seat):
            return ()
        others = sorted({str(c) for c in seen.hand(seat) if c is not None and c != "1"})
        if not others:
            return ()
        alternatives = [json.dumps(to_json(Play(c)), separators=(",", ":")) for c in others]
        return (Caution(rule="T3", text="a 1 wins no round", alternatives=alternatives),)

    def project(self, state: State, seat: str) -> State:
        return project(state, seat)

    def view(self, state: State, seat: str) -> TinyBoard:
        return view_for(state, seat)

    def legal(self, state: State, seat: str) -> list[str] | None:
        mine = project(state, seat)
        acts: list[Action]
        if state.phase == "setup":
            who = [p for p in PLAYERS if not state.dealt[PLAYERS.index(p)]]
            who = who if seat == "judge" else [p for p in who if p == seat]
            acts = [Deal(p, c) for p in who for c in combinations(CARDS, HAND)]
        elif state.phase == "play" and seat in ("judge", state.player):
            acts = [Play(str(c)) for c in mine.hand(state.player)]
        else:
            acts = []
        if not acts:
            return None
        return [json.dumps(to_json(a), separators=(",", ":")) for a in acts]

    def in_play(self, state: State) -> bool:
        return state.phase == "play"

    def summary(self, state: State) -> Summary:
        return Summary(state.phase, {"player": state.player}, state.winner, state.reason)

    def action_hidden(self, action: Mapping[str, Any], actor: str, seat: str) -> set[str]:
        if seat in ("judge", actor):
            return set()
        return {k for k in ("card", "cards") if k in action}  # T1, T5

    def event_hidden(self, event: Mapping[str, Any], seat: str) -> set[str]:
        if seat == "judge" or event.get("public", True) or event.get("player") == seat:
            return set()
        return {k for k in ("card", "cards") if k in event}

    def observe(self, state: State, seat: str, obs: Mapping[str, Any]) -> Observed[Any]:
        raise Malformed("observation: nothing to observe in Tiny Duel (cards are stated, T1)")

    def patch(self, rules: TinyRules, body: Mapping[str, Any]) -> Any:
        raise Malformed("observation: Tiny Duel has no observations")

    def apply_patch(self, state: State, patch: Any) -> State:
        raise Illegal("Tiny Duel has no unknown cards to identify", "T1")

    def action_text(self, action: Mapping[str, Any]) -> str:
        card = action.get("card")
        if action.get("do") == "deal":
            return f"states {str(action.get('by')).title()}'s three cards"
        if action.get("do") == "play":
            return f"plays {card} face down" if isinstance(card, str) else "plays a card face down"
        raise Malformed("action: deal or play")

    def event_text(self, event: Mapping[str, Any]) -> str | None:
        return event_words(event)

    def board_text(self, state: State) -> str:
        lines = [f"Round {state.round}, {state.player.title()} to play ({state.phase})"]
        for i, p in enumerate(PLAYERS):
            hand = " ".join(str(c) for c in state.hands[i]) or "-"
            lines.append(
                f"{p.title()}: hand {hand}, slot {state.slots[i] or '-'}, won {state.wins[i]}"
            )
        return "\n".join(lines)

    def position_json(self, state: State) -> dict[str, Any]:
        return position(state)

    def ruling(self, state: State, action: Action, lang: str = "en") -> Ruling[TinyRuling]:
        result = msgspec.convert(
            rule_file({"game": NAME, "position": position(state), "actions": [to_json(action)]}),
            TinyRuling,
        )
        return Ruling(
            legal=result.legal,
            rules=result.rules,
            ruling=result.ruling,
            citations={r: RULES[r] for r in result.rules if r in RULES},
            other_profiles={},
            result=result,
        )

    # ---- what a game decides for the shared service -----------------------------------------

    options: tuple[Option, ...] = (
        Option("first", "choice", "who leads round 1 (T2): east or west", choices=PLAYERS),
    )
    possessives: Mapping[str, str] = MappingProxyType({})
    takeback_rule: str = "T8"
    answered_rule: str = "T6"
    undo_rule: str = "T8"
    zones: tuple[str, ...] = ()
    needs_phrases: Mapping[str, str] = MappingProxyType({})
    ruling_keys: frozenset[str] = frozenset({"slots", "wins"})

    def rule_on_file(self, text: str, name: str, as_json: bool, lang: str = "en") -> str:
        try:
            result = rule_file(json.loads(text))
        except json.JSONDecodeError as e:
            raise NotationError(f"{name}: not JSON ({e.msg})") from None
        except (Malformed, Illegal) as e:
            raise NotationError(f"{name}: {e.reason}") from None
        return json.dumps(result, indent=1) if as_json else render_text(result)


TINY: Game[State, Action, TinyBoard, TinyRules, Any, TinyRuling] = Tiny()
