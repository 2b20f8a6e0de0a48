"""Minotaur Lords as a game module of the referee (:class:`referee.game.Game`), over the pure
rules of :mod:`engine.minotaur`.

- setup: the owner's deck list (M12: the referee knows names, strengths, phases, icons,
  types and whether a text is active), the first player (M5), the basic or the advanced game
  (M17, M18);
- the referee does not know the cards dealt: hands and decks start unknown, and each player
  states his own cards (an observation of his hand, or naming the card he plays or draws);
- seats (M14): hands and decks hidden; a pile shows its height, and its cards as each seat
  saw them (from play: both; from a hand: the owner; from a deck's top: nobody);
- statements (ML-P7): a player never names a card hidden from him; a card an effect takes
  from his opponent's hand is named by its holder, who is asked;
- rulings with citations of M1-M18 and the project's rulings.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, NotRequired, TypedDict

import msgspec

from engine.errors import (
    CatalogueError,
    IllegalActionError,
    NeedsInputError,
    NotationError,
)
from engine.minotaur import rules as ml
from engine.minotaur.actions import (
    SELF,
    Action,
    Draw,
    Effect,
    Hand,
    Move,
    SetAside,
    Take,
    action_json,
    parse_action,
)
from engine.minotaur.cards import (
    COLUMN_IDS,
    COLUMNS,
    DECK_SIZES,
    PLAYERS,
    CardDef,
    CardJson,
    Catalogue,
    card_from_json,
    opponent,
    parse_deck_list,
)
from engine.minotaur.notation import (
    action_words,
    position_json,
    rule_file,
)
from engine.minotaur.rulebook import RULES
from engine.minotaur.rules import ColumnJson
from engine.minotaur.state import EndReason, Placed, Stage, State
from engine.outcome import Outcome as BaseOutcome
from engine.say import N_, Say, say_n
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
from referee.minotaur.guard import cautions, pile_for, project
from referee.minotaur.ruling import citation
from referee.models import Board, Caution, Ruling, Turn
from referee.validate import InputError, file_text
from referee.views import sees_all

NAME = "minotaur"
# bumped whenever a rules fix would decide a recorded action differently (docs/architecture.md);
# 2: a building's text does not act as it enters (M7, M10), a text keeps M8 and, in a basic
# game, each card with its owner (ML-P8); an effect ends its pending card's turn to act when it
# takes the card out of play (issue 31)
RULES_VERSION = "ml-engine/2"
LEGACY_RULES = "ml-engine/1"  # what a log naming no rules was made under
PROFILES = ("basic", "advanced")  # advanced: best of three with deck changes (M17)
MAX_DECK_LIST = 200_000


class MLTurn(Turn):
    """The turn (M1): its phase, what has happened in it, the card whose text acts now."""

    phase: str  # "0", "1", "2" or "supremacy"
    used: int  # actions used in this phase (M3)
    fresh: bool  # nothing done yet: a hand change is still possible (M1)
    left_hand: bool  # a card left the hand by play or discard (M4)
    checked: bool  # the supremacy check ran this turn (M11)
    exercised: list[str]  # columns exercised this turn (M11)
    taken: list[str]  # phases taken (M5)
    pending: str | None  # the card whose text acts now (M10, M12)


class PlacedView(TypedDict):
    """A card in play: its name, its curse tokens and its strength in the check (M10, M13)."""

    card: str
    curses: int
    strength: int


class MLSide(TypedDict):
    """One player's side as a seat sees it (M14): ``?`` for a card hidden from it."""

    hand: list[str]
    hand_size: int
    deck: int
    discard: list[str]  # "?" for a card the seat did not see
    discard_height: int
    columns: dict[str, list[PlacedView]]
    deities: list[PlacedView]
    owned: list[str]  # the seat's own deck list (empty for another's side)
    set_aside: NotRequired[list[str] | None]  # M17: the owner's, while cards are set aside


class MLMatch(TypedDict):
    """The advanced game (M17): best of three, with deck changes between games."""

    advanced: bool
    wins: dict[str, int]
    last_winner: str | None
    set_aside: dict[str, bool]
    taken_by: list[str]
    scarab_backs: bool


class MLBoard(Board, frozen=True, kw_only=True):
    """A seat's view of a Minotaur Lords table (:func:`view_for`): the profile (basic or
    advanced, M17) and switches (M18), each side (``miron``, ``vess``), the markers, the check
    column by column, the deck list, the match and the bonus deck."""

    turn: MLTurn
    profile: str
    switches: dict[str, str]
    miron: MLSide
    vess: MLSide
    markers: dict[str, str]
    supremacy: list[ColumnJson]  # each column's totals (M11)
    cards: list[CardJson]  # the owner's deck list, one entry per name
    match: MLMatch
    bonus: list[str]
    bonus_size: int


class MLRuling(msgspec.Struct, frozen=True, kw_only=True):
    """Minotaur Lords's result of a ruling (:func:`engine.minotaur.notation.rule_file`)."""

    legal: bool
    failed_at: int | None
    winner: str | None
    reason: str | None
    rules: list[str]
    ruling: str
    position: dict[str, Any]  # the position in the ruling file's JSON notation
    supremacy: list[ColumnJson]


@dataclass(frozen=True)
class MinotaurRules:
    """What a Minotaur Lords game runs under: the deck list's rows (copies repeated), the
    first player, the advanced game and the Scarab Lords back rule (M18)."""

    cards: tuple[CardDef, ...]
    catalogue: Catalogue
    first: str
    advanced: bool
    scarab_backs: bool


@dataclass(frozen=True)
class Patch:
    """An unknown hand card of ``player`` is ``card`` (stated by its holder or the judge)."""

    player: str
    card: str


@contextmanager
def _errors() -> Iterator[None]:
    try:
        yield
    except IllegalActionError as e:
        raise Illegal(f"{e.reason} ({', '.join(e.rules)})", e.rule) from None
    except NeedsInputError as e:
        raise Missing(e.reason, e.rule, e.needs, e.asked) from None
    except (NotationError, CatalogueError) as e:
        raise Malformed(str(e)) from None


def _cards_of(raw: object) -> tuple[CardDef, ...]:
    if not isinstance(raw, list):
        raise Malformed("cards: the deck list, a list of cards")
    try:
        cards = tuple(card_from_json(c, f"cards[{i}]") for i, c in enumerate(raw))
        Catalogue(cards)
    except (NotationError, CatalogueError) as e:
        raise Malformed(str(e)) from None
    for deck, n in DECK_SIZES.items():
        have = sum(c.deck == deck for c in cards)
        if have != n:
            raise Malformed(f"cards: the {deck} deck has {have} cards; it must have {n}")
    return cards


def rules_of(create: Mapping[str, Any]) -> MinotaurRules:
    """The rules a create body names. Raises Malformed."""
    cards = _cards_of(create.get("cards"))
    first = create.get("first", "miron")
    if first not in PLAYERS:
        raise Malformed("first: miron or vess")
    profile = create.get("profile", "basic")
    if profile not in PROFILES:
        raise Malformed(f"profile: {' or '.join(PROFILES)}")
    switches = create.get("switches", {})
    backs = switches.get("scarab_backs", "on") if isinstance(switches, Mapping) else None
    if backs not in ("on", "off"):
        raise Malformed("switches.scarab_backs: on or off (M18)")
    return MinotaurRules(cards, Catalogue(cards), str(first), profile == "advanced", backs == "on")


def digest(r: MinotaurRules) -> str:
    blob = {
        "cards": [c.as_json() for c in r.cards],
        "first": r.first,
        "advanced": r.advanced,
        "scarab_backs": r.scarab_backs,
    }
    raw = json.dumps(blob, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(raw).hexdigest()[:16]


# ---- seats (M14) ---------------------------------------------------------------------------


def _placed_view(st: State, x: Placed) -> PlacedView:
    return {"card": x.name, "curses": x.curses, "strength": ml.strength(st, x)}


def view_for(st: State, seat: str) -> MLBoard:
    """The position as ``seat`` may see it."""
    t = st.turn
    sides: list[MLSide] = []
    for p, s in zip(PLAYERS, st.sides, strict=True):
        mine = sees_all(seat) or seat == p
        side: MLSide = {
            "hand": [n or "?" for n in s.hand] if mine else ["?"] * len(s.hand),
            "hand_size": len(s.hand),
            "deck": len(s.deck),
            "discard": [pile_for(d, p, seat) or "?" for d in s.discard],
            "discard_height": len(s.discard),
            "columns": {c.id: [_placed_view(st, x) for x in s.column(c)] for c in COLUMNS},
            "deities": [_placed_view(st, x) for x in s.deities],
            "owned": list(st.owned[PLAYERS.index(p)]) if mine else [],
        }
        if mine and st.stage is Stage.SET_ASIDE:
            aside = st.match.set_aside[PLAYERS.index(p)]
            side["set_aside"] = list(aside) if aside is not None else None
        sides.append(side)
    return MLBoard(
        phase=st.stage.value,
        turn={
            "player": t.player,
            "first": t.first,
            "phase": t.phase.value,
            "used": t.used,
            "fresh": t.fresh,
            "left_hand": t.left_hand,
            "checked": t.checked,
            "exercised": list(t.exercised),
            "taken": [p.value for p in t.taken],
            "pending": t.pending,
        },
        winner=st.winner,
        reason=st.reason.value if st.reason else None,
        profile="advanced" if st.match.advanced else "basic",
        switches={} if st.match.scarab_backs else {"scarab_backs": "off"},
        miron=sides[0],
        vess=sides[1],
        markers={c.id: m for c in COLUMNS if (m := st.marker(c))},
        supremacy=[c.as_json() for c in ml.supremacy_check(st)],
        cards=st.catalogue.as_json(),
        match={
            "advanced": st.match.advanced,
            "wins": dict(zip(PLAYERS, st.match.wins, strict=True)),
            "last_winner": st.match.last_winner,
            "set_aside": {
                p: (x is not None) for p, x in zip(PLAYERS, st.match.set_aside, strict=True)
            },
            "taken_by": list(st.match.taken_by),
            "scarab_backs": st.match.scarab_backs,
        },
        bonus=list(st.bonus) if st.stage is Stage.TAKE else [],
        bonus_size=len(st.bonus),
    )


# ---- statements (ML-P7) --------------------------------------------------------------------


def stated_hidden(st: State, a: Action, seat: str) -> str | None:
    """The field in which player ``seat`` names a card hidden from him, or None: from the
    action's form and what he sees, never from the hidden card."""
    if seat not in PLAYERS:
        return None
    other = opponent(seat)
    if isinstance(a, Effect):
        for i, op in enumerate(a.ops):
            if isinstance(op, Move) and op.card is not None:
                side = seat if op.src.side == SELF else op.src.side
                if op.src.zone in ("deck", "deck-bottom"):
                    return f"ops[{i}].card"  # nobody sees a deck (M14)
                if side == other and op.src.zone == "hand":
                    return f"ops[{i}].card"
                if side == other and op.src.zone == "discard":
                    seen = {pile_for(d, other, seat) for d in st.side(other).discard}
                    if op.card not in seen:
                        return f"ops[{i}].card"
            if isinstance(op, Draw) and op.cards is not None and op.side == other:
                return f"ops[{i}].cards"
        if a.hand_cards_of(other) is not None:
            return f"hand_cards.{other}"
    return None


class Minotaur:
    """The Minotaur Lords module: see the module's docstring."""

    name: str = NAME
    title: str = "Minotaur Lords"
    players: tuple[str, ...] = PLAYERS
    profiles: tuple[str, ...] = PROFILES
    hold_rule: str = "ML-P5"
    contradiction_rule: str = "ML-P6"
    legacy_rules: str = LEGACY_RULES
    board_type: type[MLBoard] = MLBoard
    result_type: type[MLRuling] = MLRuling
    options: tuple[Option, ...] = (
        Option(
            "deck_list",
            "text",
            "the owner's deck-list file (CSV text, up to 60,000 characters within the API's "
            "64 KiB body; referee kit --game minotaur --template)",
            max_len=60_000,
        ),
        Option("profile", "choice", "basic or advanced (M17)", choices=PROFILES, checked=False),
        Option(
            "switches",
            "switches",
            "scarab_backs: on or off (M18)",
            switches={"scarab_backs": ("on", "off")},
        ),
        Option("starting", "choice", "who starts (M5): miron or vess", choices=PLAYERS),
    )
    possessives: Mapping[str, str] = MappingProxyType({})
    takeback_rule: str = "ML-P10"
    answered_rule: str = "ML-P11"
    undo_rule: str = "ML-P12"
    zones: tuple[str, ...] = ("hand",)
    needs_phrases: Mapping[str, str] = MappingProxyType(
        {
            "hand_cards": "the cards of {whose} hand the text takes",
            "target": N_("the card the text acts on"),
            "column": N_("a column"),
            "discard": N_("the card discarded"),
            "replace": N_("the card put in its place"),
            "by": N_("who acts"),
        }
    )
    # the hand phrase as referee.words.needs_words says it: to the seat asked, and of another
    needs_said = (
        N_("the cards of his hand the text takes"),
        N_("the cards of %(seat)s's hand the text takes"),
    )
    ruling_keys: frozenset[str] = frozenset({"cards", "miron", "vess", "markers", "bonus", "match"})

    def rule_on_file(self, text: str, name: str, as_json: bool, lang: str = "en") -> str:
        from referee.minotaur.ruling import rule_text  # it reads the file's limits

        return rule_text(text, name, as_json, lang)

    # ---- a game's rules --------------------------------------------------------------------

    def match_format(self, options: Mapping[str, Any]) -> str | None:
        """The match format an event must use for these options when the game itself plays
        the whole match in one log (TOURNAMENT.md T1): the advanced game is a best of three by
        its own rules (M17); None: the event decides."""
        return "bo3" if options.get("profile") == "advanced" else None

    def setup(self, options: Mapping[str, Any], players: Mapping[str, str]) -> Setup:
        """Options: ``deck_list`` (the deck-list file's text) or ``cards`` (its cards as
        JSON), ``first`` (miron or vess, M5), ``profile`` (basic or advanced, M17),
        ``switches`` (``scarab_backs``: on or off, M18)."""
        extra = sorted(
            set(options) - {"deck_list", "cards", "first", "profile", "switches", "starting"}
        )
        if extra:
            raise Malformed(f"options: unknown option {str(extra[0])[:20]!r}")
        if "deck_list" in options:
            try:
                listing = file_text(options["deck_list"], "deck_list", max_len=MAX_DECK_LIST)
                cards = [c.as_json() for c in parse_deck_list(listing)]
            except InputError as e:
                raise Malformed(str(e)) from None
            except CatalogueError as e:
                raise Malformed(f"deck_list: {e}") from None
        elif "cards" in options:
            cards = [c.as_json() for c in _cards_of(options["cards"])]
        else:
            raise Malformed(
                "deck_list: a Minotaur Lords game needs the owner's deck list "
                "(referee kit --game minotaur --template)"
            )
        first = options.get("first", options.get("starting", "miron"))
        if first not in PLAYERS:
            raise Illegal(f"first: {str(first)[:20]!r} is not a player (miron or vess)", "M5")
        switches = options.get("switches") or {}
        if not isinstance(switches, Mapping) or set(switches) - {"scarab_backs"}:
            raise Malformed("switches: only scarab_backs (on or off, M18)")
        body: dict[str, Any] = {
            "cards": cards,
            "first": first,
            "profile": options.get("profile", "basic"),
            "switches": dict(switches),
            "players": {"miron": "Miron", "vess": "Vess", **players},
        }
        rules_of(body)
        return Setup(body)

    def rules(self, create: Mapping[str, Any]) -> MinotaurRules:
        return rules_of(create)

    def rules_version(self, create: Mapping[str, Any]) -> str:
        return f"{RULES_VERSION}+{digest(rules_of(create))}"

    def new_state(self, rules: MinotaurRules) -> State:
        owned = {p: [c.name for c in rules.cards if c.deck == p] for p in PLAYERS}
        decks: dict[str, list[str | None]] = {p: [None] * len(owned[p]) for p in PLAYERS}
        return ml.new_game(
            rules.catalogue,
            dict(decks),
            rules.first,
            advanced=rules.advanced,
            scarab_backs=rules.scarab_backs,
            bonus=[c.name for c in rules.cards if c.deck == "bonus"],
            owned=owned,
        )

    def card_names(self, rules: MinotaurRules) -> dict[str, list[str]]:
        return {
            p: sorted({c.name for c in rules.cards if c.deck == p or rules.advanced})
            for p in PLAYERS
        }

    # ---- actions ---------------------------------------------------------------------------

    def parse_action(self, raw: Any, where: str) -> Action:
        try:
            return parse_action(raw, where)
        except NotationError as e:
            raise Malformed(str(e)) from None

    def action_json(self, action: Action) -> dict[str, Any]:
        return action_json(action)

    def check(self, state: State, action: Action) -> None:
        with _errors():
            ml.check(state, action)

    def apply(
        self, state: State, action: Action, checked: bool = True, asking: bool = False
    ) -> Outcome[State]:
        with _errors():
            out = ml.apply(state, action)
        return BaseOutcome(out.state, out.events, out.rules)

    def reason_text(self, reason: str | None) -> str:
        try:
            return WINNER_SAID[EndReason(reason)]
        except ValueError:
            return reason or ""

    def take_back_refusal(self, action: Mapping[str, Any]) -> str | None:
        if action.get("do") in ("effect", "change_hand", "exercise"):
            return (
                f"a {str(action.get('do')).replace('_', ' ')} moved hidden cards: it stands; "
                "only the judge corrects it"
            )
        return None

    def actor(self, state: State, action: Action, seat: str) -> str:
        if isinstance(action, SetAside | Take | Hand):
            if action.by is None:
                if seat not in PLAYERS:
                    raise NotYours("the judge names the player he records this for (by)")
                return seat
            if seat not in ("judge", action.by):
                raise NotYours(
                    f"only {action.by.title()} or the judge records {action.by.title()}'s cards"
                )
            return action.by
        actor = action.by or state.turn.player
        if seat != "judge" and seat != actor:
            raise NotYours(
                f"it is {state.turn.player.title()}'s turn; the {seat} seat cannot act for "
                f"{actor.title()}",
                "M1",
            )
        return actor

    def refuse_statement(self, state: State, action: Action, seat: str) -> Illegal | None:
        hidden = stated_hidden(state, action, seat)
        if hidden is not None:
            return Illegal(
                f"{hidden}: a card hidden from you is named by its holder or the judge, never "
                "by you",
                "ML-P7",
            )
        return None

    def asked(self, missing: Missing, actor: str) -> tuple[str, ...]:
        return missing.asked or (actor,)

    def shown_while_asked(self, action: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    # ---- the guardian (issue 37) ------------------------------------------------------------

    def guard(self, seen: State, action: Action, seat: str) -> tuple[Caution, ...]:
        """M4 (no card has left his hand: he will discard one) and M2 (his own deck would be
        empty) (:mod:`referee.minotaur.guard`)."""
        return cautions(seen, action, seat)

    # ---- seats -----------------------------------------------------------------------------

    def project(self, state: State, seat: str) -> State:
        return project(state, seat)

    def view(self, state: State, seat: str) -> MLBoard:
        return view_for(state, seat)

    def legal(self, state: State, seat: str) -> list[str] | None:
        if seat != "judge" and seat not in ml.whose(state):
            return None
        acts = ml.legal_actions(project(state, seat))
        if seat in PLAYERS:
            acts = [a for a in acts if a.by in (None, seat)]
        return [json.dumps(action_json(a), separators=(",", ":")) for a in acts]

    def in_play(self, state: State) -> bool:
        return state.stage is Stage.PLAY

    def summary(self, state: State) -> Summary:
        return Summary(
            state.stage.value,
            {"player": state.turn.player, "phase": state.turn.phase.value},
            state.winner,
            state.reason.value if state.reason and state.winner else None,
        )

    def action_hidden(self, action: Mapping[str, Any], actor: str, seat: str) -> set[str]:
        if sees_all(seat):
            return set()
        # a card an effect took from a hand is its holder's to know (M14, ML-P7), whoever
        # recorded the effect: the actor included
        named = action.get("hand_cards")
        out: set[str] = (
            {f"hand_cards.{p}" for p in named if p != seat} if isinstance(named, Mapping) else set()
        )
        if seat == actor:
            return out
        do = action.get("do")
        if do == "change_hand":
            out |= {k for k in ("discard", "draw") if k in action}
        elif do == "end_turn" and "discard" in action:
            out.add("discard")
        elif do == "exercise" and "card" in action:
            out.add("card")
        elif do in ("set_aside", "hand") and "cards" in action:
            out.add("cards")
        elif do == "effect":
            for i, op in enumerate(action.get("ops") or []):
                if not isinstance(op, Mapping):
                    continue
                src = (op.get("from") or {}).get("zone") if op.get("op") == "move" else None
                dst = (op.get("to") or {}).get("zone") if op.get("op") == "move" else None
                into_play = dst == "centre" or dst in COLUMN_IDS
                hidden_src = src in ("hand", "deck", "deck-bottom", "discard")
                if hidden_src and not into_play and "card" in op:
                    out.add(f"ops.{i}.card")
                if op.get("op") == "draw" and "cards" in op:
                    out.add(f"ops.{i}.cards")
        return out

    def event_hidden(self, event: Mapping[str, Any], seat: str) -> set[str]:
        if sees_all(seat) or event.get("public", True) or event.get("player") == seat:
            return set()
        return {k for k in ("card", "cards") if k in event}

    # ---- what people saw -------------------------------------------------------------------

    def observe(self, state: State, seat: str, obs: Mapping[str, Any]) -> Observed[Patch]:
        """``{"player", "zone": "hand", "card", "source"}``: a card in a player's hand, stated
        by its holder or the judge (ML-P7); it names an unknown hand card or contradicts the
        record (ML-P6)."""
        who = obs.get("player")
        if who not in PLAYERS:
            raise Malformed("observation.player: miron or vess")
        if obs.get("zone") != "hand":
            raise Malformed("observation.zone: hand (the board is public: nothing to observe)")
        name = obs.get("card")
        if not isinstance(name, str) or name not in state.catalogue:
            raise Malformed(f"observation.card: {str(name)[:40]!r} is not in the deck list")
        if seat not in ("judge", who):
            raise NotYours("only its holder or the judge states a hand card (ML-P7)", "ML-P7")
        body: dict[str, Any] = {
            "player": who,
            "zone": "hand",
            "card": name,
            "source": obs.get("source", "manual"),
            "identifies": False,
            "irregularity": None,
        }
        hand = state.side(str(who)).hand
        if name in hand:
            return Observed(body)
        if None not in hand:
            body["irregularity"] = {
                "rule": "ML-P6",
                "recorded": "not in the hand",
                "seen": name,
                "problem": f"{str(who).title()} holds {name}, which the record does not have "
                "in his hand",
            }
            return Observed(body)
        copies = Counter(state.owned[PLAYERS.index(str(who))])[name]
        if _known(project(state, seat), str(who), name) >= copies:
            raise Illegal(
                f"observation.card: {str(who).title()}'s deck holds {copies} {name}, all "
                "accounted for elsewhere",
                "ML-P6",
            )
        body["identifies"] = True
        if _known(state, str(who), name) >= copies:
            body["irregularity"] = {
                "rule": "ML-P6",
                "recorded": "?",
                "seen": name,
                "problem": f"{name} was stated, but every copy is accounted for elsewhere",
            }
        return Observed(body, Patch(str(who), name))

    def patch(self, rules: MinotaurRules, body: Mapping[str, Any]) -> Patch:
        who, name = body.get("player"), body.get("card")
        if who not in PLAYERS or not isinstance(name, str) or name not in rules.catalogue:
            raise Malformed("observation: a player and a card of the deck list")
        return Patch(str(who), name)

    def apply_patch(self, state: State, patch: Patch) -> State:
        s = state.side(patch.player)
        hand = list(s.hand)
        if None not in hand:
            raise Illegal("no unknown card in that hand")
        hand[hand.index(None)] = patch.card
        return state.with_side(patch.player, replace(s, hand=tuple(hand)))

    # ---- text ------------------------------------------------------------------------------

    def action_text(self, action: Mapping[str, Any]) -> str:
        """The action as a verb phrase ("plays Guard into the upper military column"); the
        log puts the player's name before it. A part sealed for the reader names nothing."""
        try:
            a = self.parse_action(action, "action")
        except Malformed:
            return SEALED_WORDS.get(str(action.get("do")), str(action.get("do", "acts")))
        return action_words(a)

    def event_text(self, event: Mapping[str, Any]) -> str | None:
        return event_words(event)

    def board_text(self, state: State) -> str:
        return board_text(state)

    def position_json(self, state: State) -> dict[str, Any]:
        return position_json(state)

    # ---- rulings ---------------------------------------------------------------------------

    def ruling(self, state: State, action: Action, lang: str = "en") -> Ruling[MLRuling]:
        raw = position_json(state)
        raw["actions"] = [action_json(action)]
        try:
            result = rule_file(raw, possible=False)  # the rules reached this state
        except NotationError as e:
            msg = str(e)
            if "incomplete" in msg:
                raise Missing(msg, "M12", "action") from None
            raise Malformed(msg) from None
        typed = msgspec.convert(result, MLRuling)
        return Ruling(
            legal=typed.legal,
            rules=typed.rules,
            ruling=typed.ruling,
            citations={r: citation(RULES[r], lang) for r in typed.rules if r in RULES},
            other_profiles={},
            result=typed,
        )


def _known(st: State, p: str, name: str) -> int:
    """Copies of ``name`` of ``p``'s the state names: his hand, his side of the board, his
    pile."""
    s = st.side(p)
    n = sum(1 for x in s.hand if x == name)
    n += sum(1 for _, x in s.in_play() if x.name == name)
    n += sum(1 for d in s.discard if d.name == name)
    return n


# how a game ended, as whole sentences (English as REASON_WORDS says it after "The winner"/"he")
WINNER_SAID = {
    EndReason.SUPREMACY: Say(
        "The winner holds two of the three columns in both regions at the start of his turn (M2)."
    ),
    EndReason.EMPTY_DECK: Say(
        "The winner starts his turn with his opponent's deck empty (M2, M15)."
    ),
}


def _won(who: str, reason: str) -> Say:
    if EndReason(reason) is EndReason.SUPREMACY:
        return Say(
            "%(who)s wins: he holds two of the three columns in both regions at the start of "
            "his turn (M2).",
            who=who,
        )
    return Say(
        "%(who)s wins: he starts his turn with his opponent's deck empty (M2, M15).", who=who
    )


def event_words(e: Mapping[str, Any]) -> str | None:
    """One sentence for a recorded event (a sealed value names nothing), said per language."""
    kind = e.get("event")
    who = str(e.get("player", "")).title()
    card = e.get("card")
    if kind == "played":
        where = e.get("column")
        if where == "centre":
            return Say("%(who)s played the deity %(card)s (M9).", who=who, card=card)
        if where == "fate":
            return Say(
                "%(who)s played the fate card %(card)s, then discarded it (M9).", who=who, card=card
            )
        if where in COLUMN_IDS:
            return Say(
                "%(who)s played %(card)s into %(column)s.",
                who=who,
                card=card,
                column=COLUMN_IDS[str(where)].words,  # without its article: "nella %(column)s"
            )
        return None
    if kind == "hand_changed":
        return Say(
            "%(who)s changed his hand: %(discarded)s discarded face down, %(drew)s drawn (M1).",
            who=who,
            discarded=e.get("discarded"),
            drew=e.get("drew"),
        )
    if kind == "discarded":
        if e.get("from") == "hand":
            return Say("%(who)s discarded a card from his hand face down (M4).", who=who)
        return Say("%(who)s discarded %(card)s from play (M9).", who=who, card=card)
    if kind == "activated":
        return Say("%(who)s activated %(card)s (M10).", who=who, card=card)
    if kind == "cured":
        return Say("%(who)s's %(card)s lost a curse token (M10).", who=who, card=card)
    if kind == "cursed":
        return Say("%(who)s's %(card)s was cursed (M10).", who=who, card=card)
    if kind == "phase":
        ph = e.get("phase")
        if ph == "supremacy":
            return Say("%(who)s moved to the supremacy phase.", who=who)
        return Say("%(who)s moved to phase %(number)s.", who=who, number=ph)
    if kind == "supremacy_checked":
        held = [c for c in e.get("columns", []) if c.get("after")]
        return Say("Supremacy checked: %(held)s of 6 columns held (M11).", held=len(held))
    if kind == "supremacy_skipped":
        return Say("%(who)s's first turn took two phases: no supremacy check (M5).", who=who)
    if kind == "deck_top_discarded":
        if not e.get("count"):
            return None
        return Say("%(who)s discarded his deck's top card unseen (M11, M14).", who=who)
    if kind == "drew":
        n = e.get("count", 0)
        if not n:
            return Say("%(who)s drew nothing (M15).", who=who)
        return say_n("%(who)s drew %(num)d card.", "%(who)s drew %(num)d cards.", n, who=who)
    if kind == "effect":
        return Say("%(who)s recorded an effect of %(card)s (M12).", who=who, card=card)
    if kind == "strength":
        return Say(
            "%(who)s's %(card)s changed strength by %(delta)s (M13).",
            who=who,
            card=card,
            delta=e.get("delta"),
        )
    if kind == "moved":
        if card:
            return Say("%(card)s moved by a card's text (M12).", card=card)
        return Say("A card moved by a card's text (M12).")
    if kind == "turn_ended":
        return Say("%(who)s ended his turn.", who=who)
    if kind == "turn":
        return Say("%(who)s's turn.", who=who)
    if kind == "won":
        return _won(who, str(e.get("reason")))
    if kind == "hand_named":
        n = e.get("count", 0)
        return say_n(
            "%(who)s named %(num)d card of his hand.",
            "%(who)s named %(num)d cards of his hand.",
            n,
            who=who,
        )
    if kind == "set_aside":
        return Say(
            "%(who)s set %(count)s cards aside for the bonus deck (M17).",
            who=who,
            count=e.get("count"),
        )
    if kind == "bonus_revealed":
        return Say("The bonus deck now holds %(count)s cards (M17).", count=len(e.get("cards", [])))
    if kind == "took":
        cards = e.get("cards", [])
        if cards:
            return Say("%(who)s took %(cards)s from the bonus deck (M17).", who=who, cards=cards)
        return Say("%(who)s took no card from the bonus deck (M17).", who=who)
    if kind == "game_started":
        return Say("A new game: %(first)s starts (M17).", first=str(e.get("first")).title())
    return None


def board_text(st: State) -> str:
    """The whole table for the judge's terminal: each column, both sides, totals, marker."""
    lines = [
        f"Turn: {st.turn.player.title()}, {st.turn.phase.words}"
        + (" (first turn)" if st.turn.first else "")
    ]
    for c in ml.supremacy_check(st):
        mark = (st.marker(c.column) or "-").title()
        sides = []
        for p in PLAYERS:
            cards = [
                x.name + (f"*{x.curses}" if x.curses else "") for x in st.side(p).column(c.column)
            ]
            sides.append(", ".join(cards) or "-")
        lines.append(
            f"{c.column.id:<16} {sides[0]:<30} {c.totals[0]:>3} : {c.totals[1]:<3} "
            f"{sides[1]:<30} marker {mark}"
        )
    for p in PLAYERS:
        s = st.side(p)
        gods = ", ".join(d.name for d in s.deities) or "-"
        lines.append(
            f"{p.title()}: hand {len(s.hand)}, deck {len(s.deck)}, pile {len(s.discard)}, "
            f"deities {gods}"
        )
    return "\n".join(lines)


SEALED_WORDS = {
    "hand": N_("names cards of his hand"),
    "change_hand": N_("changes his hand"),
    "end_turn": N_("ends his turn, discarding a card face down (M4)"),
    "set_aside": N_("sets cards aside for the bonus deck (M17)"),
    "effect": N_("records an effect of a card (M12)"),
    "exercise": N_("exercises supremacy"),
}

# the module, checked by mypy against its own types
MINOTAUR: Game[State, Action, MLBoard, MinotaurRules, Patch, MLRuling] = Minotaur()
