"""Hera & Zeus as a game module of the referee (:class:`referee.game.Game`).

Everything the service must know of this game's rules lives here, over the pure engine:

- setup: profiles and switches, the players' names, the starting player (D19), a kit's
  catalogue (copies and strengths);
- legality: :func:`engine.check` / :func:`engine.apply`, their errors turned into the
  interface's (a D20 refusal is a contradiction for the judge); ``apply(..., checked=False)``
  is ``engine.apply(..., checked=False)``: a verified log's actions, carried out unchecked;
- seats: what each seat sees (D21 discard piles, backs that tell the deck: D13), the projection
  a player's action is judged on (D22), the legal list with a blind Pegasus (D2, D22);
- statements: which values a player may state (D22: never a card hidden from him) and who is
  asked for a missing one (the card's holder; the Pegasus pick by the hand's owner);
- observations: a seen card identifies an unknown one, or contradicts the record (D20); what
  could not be there is refused (D10 the field, D13 another deck's card for an unknown card,
  copy counts), decided only from what the observing seat may know (D22); a copy count that
  only cards hidden from him exceed is a sealed irregularity for the judge (D20);
- rulings (:mod:`referee.herazeus.ruling`) with citations from the rule catalogue.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NotRequired, TypedDict

import msgspec
from msgspec import UNSET, UnsetType

import engine.herazeus as engine
from engine.herazeus import (
    Action,
    EngineError,
    GameState,
    IllegalActionError,
    NeedsInputError,
    NotationError,
    Phase,
    Player,
    Profile,
    Ruleset,
    legal_actions,
    new_game,
    parse_action,
    write_position,
)
from engine.herazeus.actions import (
    Challenge,
    Deal,
    DeclareStuck,
    FirstRow,
    PegasusField,
    PegasusHand,
    PythiaReveal,
    PythiaSpy,
    Redeal,
    Redraw,
    Starter,
)
from engine.herazeus.cards import Card, Catalogue, Kind, default_catalogue, parse_card
from engine.herazeus.errors import CatalogueError
from engine.herazeus.game import parse_card_name
from engine.herazeus.names import card_name
from engine.herazeus.profiles import SWITCH_TYPES, parse_profile, parse_switches
from engine.herazeus.state import Slot, slot
from engine.outcome import Outcome as BaseOutcome
from engine.say import N_, Say
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
from referee.herazeus.board import board_text, describe_event_json
from referee.herazeus.guard import cautions
from referee.herazeus.guard import project as project  # the seat's table: where it lives
from referee.herazeus.ruling import render_json, render_text, rule_file, rule_on
from referee.models import Board, Caution, ProfileVerdict, Ruling, SeatView, Turn
from referee.validate import InputError, mapping, text
from referee.views import cutter, seats_of, sees_all

NAME = "hera-zeus"
PLAYERS = ("hera", "zeus")
# What a recorded action hides from the other seats: the card is the actor's secret.
PRIVATE_CARD_ACTIONS = frozenset({"draw", "play", "hades"})
PRIVATE_LIST_ACTIONS = frozenset({"deal", "first_row", "redeal"})
# Bumped whenever a rules fix would decide a recorded action differently (replays pin it).
RULES_VERSION = "hz-engine/1"


# Why a game ended (engine.EndReason), in words with the rule that ended it.
# (marked: said in the reader's language by referee.language.say)
END_WORDS = {
    "hostage_challenged": N_("The opponent's hostage was challenged in the first row [D11]."),
    "hostage_by_pegasus": N_("Pegasus drew the opponent's hostage from the hand [D2]."),
    "pandora_hostage": N_("Pandora cost the opponent his hostage [D1]."),
    "pandora_own_hostage": N_("The challenger of Pandora lost his own hostage [D1]."),
    "cannot_use_ap": N_("The player to move could not use all his action points [D8]."),
    "empty_field": N_("A turn began with no card on the player's side [D9]."),
}


class SideView(TypedDict):
    """One player's side as a seat sees it (``?`` a back of his own deck, ``?/hera`` of
    another; ``^`` a face-up card; ``@`` the figure)."""

    hand: list[str]
    hand_size: int
    deck: int
    field: list[list[str]]
    discard_top: str | None
    discard_height: int
    figure: str  # "field" or "supply"
    discard: NotRequired[list[str]]  # D21: the owner's own pile (and the judge's view)


class DeckEntry(TypedDict):
    """One card name of a deck list: its printed strength (None: none printed) and copies."""

    name: str
    strength: int | None
    copies: int


class SetupFacts(TypedDict):
    starting: str | None
    dealt: dict[str, bool]
    placed: dict[str, bool]


class HZTurn(Turn):
    """Whose turn, and his action points (D8): ``ap`` this turn, ``used`` of them."""

    ap: int
    used: int


class HZBoard(Board, frozen=True, kw_only=True):
    """A seat's view of a Hera & Zeus table (:func:`view_for`): the rule profile and house
    switches, both sides as the seat sees them, where setup stands, the deck lists, and for a
    player the cards of his hand that may go to the field."""

    turn: HZTurn
    profile: str
    switches: dict[str, str]
    hera: SideView
    zeus: SideView
    provisional_catalogue: bool
    setup: SetupFacts
    decks: dict[str, list[DeckEntry]]  # both deck lists, for every seat from the start
    playable: list[str] | UnsetType = UNSET  # a player's own hand cards that may be played


class HZRuling(msgspec.Struct, frozen=True, kw_only=True):
    """Hera & Zeus's result of a ruling (:func:`referee.herazeus.ruling.render_json`): the
    verdict under the game's profile, the ruling in words, the position after it, the profile,
    what the other profiles rule and the rules cited."""

    legal: bool
    failed_at: int | None
    winner: str | None
    reason: str | None
    rules: list[str]
    ruling: str
    position: dict[str, Any]  # the position in the game's JSON notation (POSITIONS.md)
    profile: str
    others: dict[str, ProfileVerdict]
    citations: dict[str, str]


def hz_board(view: SeatView[Any]) -> HZBoard:
    """The board of a seat's view of a Hera & Zeus game. Raises ValueError for another game's
    view."""
    if not isinstance(view.board, HZBoard):
        raise ValueError("not a Hera & Zeus view")
    return view.board


def side_of(board: HZBoard, player: str) -> SideView:
    """One player's side in a view (``hera`` or ``zeus``)."""
    return board.hera if player == "hera" else board.zeus


@dataclass(frozen=True, slots=True)
class Patch:
    """An identity learned from an observation: the unknown card at ``where`` is ``card``."""

    player: Player
    zone: str  # hand | field
    column: int  # 1-based, field only
    position: int  # 1-based, field only
    card: Card


# ---- setup ---------------------------------------------------------------------------------


def ruleset_from_create(body: Mapping[str, Any]) -> Ruleset:
    """The game's rules from its create record. Raises NotationError."""
    profile = parse_profile(body.get("profile", Profile.RIO_GRANDE.value))
    switches = parse_switches(body.get("switches"))
    cat = default_catalogue()
    kit = body.get("catalogue")
    if kit:
        try:
            strengths = kit.get("strengths", {})
            copies = {
                (Player.parse(d), n): c
                for d, names in kit.get("copies", {}).items()
                for n, c in names.items()
            }
            cat = cat.with_overrides(
                strengths=strengths, copies=copies, provisional=bool(kit.get("provisional", False))
            )
        except (CatalogueError, ValueError, AttributeError) as e:
            raise NotationError(
                Say("bad kit catalogue: %(error)s", error=_said_args(e)), "create.catalogue"
            ) from None
    return Ruleset.build(profile, switches, cat)


def changed_confirmed(cat: Catalogue) -> str | None:
    """Why a game's catalogue may not be used, or None: a kit may give only the values no
    source confirms (RULES.md, "The card catalogue": the fields a deck file marks
    ``unconfirmed``). A confirmed strength (Nemesis, Amazon, Pegasus, Medusa, Pandora, ...)
    and the copies of the hostage and the god card are fixed: a deck without its hostage, or a
    Pegasus of strength 7, is a rigged deck list. Names the first card, field and value."""
    printed = default_catalogue()
    for p in Player:
        for info in printed.cards(p):
            got = cat.info(info.name, p)
            for fld in ("strength", "copies"):
                if fld in info.unconfirmed:
                    continue
                was, now = getattr(info, fld), getattr(got, fld)
                if now == was:
                    continue
                v = {
                    "player": p.title,
                    "card": card_name(info.name),
                    "field": fld,
                    "value": repr(now),
                    "was": was,
                }
                if info.kind is Kind.HOSTAGE:
                    return Say(
                        "catalogue: %(player)s's %(card)s: %(field)s %(value)s, but exactly "
                        "%(was)s is confirmed (the hostage is fixed); a kit gives only the values "
                        "no source confirms (RULES.md, 'The card catalogue')",
                        **v,
                    )
                return Say(
                    "catalogue: %(player)s's %(card)s: %(field)s %(value)s, but %(was)s is "
                    "confirmed; a kit gives only the values no source confirms (RULES.md, 'The "
                    "card catalogue')",
                    **v,
                )
    return None


def deck_lists(cat: Catalogue) -> dict[str, list[DeckEntry]]:
    """Both decks' card lists (every name, its printed strength and copies), as every seat
    sees them from the start: the deck lists are public (issue 12)."""
    return {
        p.key: [{"name": i.name, "strength": i.strength, "copies": i.copies} for i in cat.cards(p)]
        for p in Player
    }


def rules_digest(rs: Ruleset) -> str:
    """A digest of what the rules read: profile, switches and every card's printed values."""
    cat = rs.catalogue
    cards = [
        [p.key, i.name, i.kind.value, i.strength, i.copies, i.beats_medusa]
        for p in Player
        for i in sorted(cat.cards(p), key=lambda i: i.name)
    ]
    blob = {"profile": rs.profile.value, "switches": rs.switches.to_json(), "cards": cards}
    raw = json.dumps(blob, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(raw).hexdigest()[:16]


# ---- seats ---------------------------------------------------------------------------------


def back(c: Card, holder: Player) -> str:
    """What the back of a card tells: ``?`` for the holder's own deck, ``?/hera`` for another."""
    return "?" if c.origin is holder else f"?/{c.origin.key}"


def _slot_view(s: Slot, holder: Player, open_: bool) -> str:
    if s.card is None:
        return "@"
    if s.up:
        return "^" + s.card.notation(holder)
    return s.card.notation(holder) if open_ else back(s.card, holder)


def side_view(st: GameState, holder: Player, seat: str) -> SideView:
    side = st.sides[holder]
    open_ = sees_all(seat) or seat == holder.key
    out: SideView = {
        "hand": [c.notation(holder) if open_ else back(c, holder) for c in side.hand],
        "hand_size": len(side.hand),
        "deck": len(side.deck),
        "field": [[_slot_view(s, holder, open_) for s in col] for col in side.field],
        "discard_top": side.discard[-1].notation(holder) if side.discard else None,
        "discard_height": len(side.discard),
        "figure": "field" if side.has_figure() else "supply",
    }
    if open_:  # D21: only the owner (and the judge) looks through a pile
        out["discard"] = [c.notation(holder) for c in side.discard]
    return out


def playable_names(cat: Catalogue, hand: Iterable[str], p: Player) -> list[str]:
    """The cards of ``p``'s hand (as his own view writes them) that may go to the field (D10);
    an unknown card may be anything, so it is listed too."""
    out = []
    for written in hand:
        name, _, deck = written.partition("/")
        origin = Player.parse(deck) if deck else p
        if written == "?" or (cat.has(name, origin) and cat.info(name, origin).can_be_played):
            out.append(written)
    return out


def setup_facts(st: GameState) -> SetupFacts:
    """Where setup stands (D19): public facts only (who starts, whose hand and first row are
    recorded)."""
    return {
        "starting": st.starting.key if st.starting is not None else None,
        "dealt": {p.key: bool(st.dealt[p]) for p in Player},
        "placed": {p.key: bool(st.placed[p]) for p in Player},
    }


def view_for(st: GameState, seat: str) -> HZBoard:
    """The position as ``seat`` may see it: the board cut for the seat, where setup stands,
    and, for a player, the cards of his hand that may go to the field. Raises ValueError for
    an unknown seat."""
    if seat not in (*PLAYERS, "judge", "public"):
        raise ValueError(f"unknown seat {seat!r} (seats: hera, zeus, judge, public)")
    rs = st.ruleset
    cat = rs.catalogue
    hera, zeus = side_view(st, Player.HERA, seat), side_view(st, Player.ZEUS, seat)
    playable: list[str] | UnsetType = UNSET
    if seat in PLAYERS:
        me = Player.parse(seat)
        playable = playable_names(cat, (hera if me is Player.HERA else zeus)["hand"], me)
    return HZBoard(
        phase=st.phase.value,
        turn={"player": st.player.key, "first": st.first, "ap": st.ap, "used": st.used},
        winner=st.winner.key if st.winner is not None else None,
        reason=st.reason.value if st.reason is not None else None,
        profile=rs.profile.value,
        switches=rs.switches.to_json(),
        hera=hera,
        zeus=zeus,
        provisional_catalogue=cat.provisional,
        setup=setup_facts(st),
        decks=deck_lists(cat),
        playable=playable,
    )


def legal_for(actions: Iterable[Action], seat: str) -> list[str]:
    """The legal actions as text. A player draws blind (D2): one ``pegasus hand`` that names
    nothing of the opponent's hand."""
    out: list[str] = []
    for a in actions:
        if isinstance(a, PegasusHand) and not sees_all(seat):
            a = PegasusHand(by=a.by)
        text = a.text()
        if text not in out:
            out.append(text)
    return out


# ---- statements (D22) ----------------------------------------------------------------------


def stated_hidden(st: GameState, action: Action, seat: str) -> str | None:
    """D22: the field of ``action`` in which player ``seat`` states a card hidden from him, or
    None. Decided from the action's form and what the seat sees (faces up or down), never from
    what the hidden card is."""
    if seat not in PLAYERS:
        return None
    me = Player.parse(seat)
    opp = me.other
    for who, names in getattr(action, "order", ()):
        if who is opp and names:
            return f"order.{opp.key}"
    if isinstance(action, PegasusHand):
        if action.pick is not None:
            return "pick"
    elif isinstance(action, Challenge):
        if action.defender is not None and not _face_up(st, opp, action.column, 1):
            return "reveal.defender"
    elif isinstance(action, PegasusField):
        if action.target is not None and not _face_up(st, opp, action.column, 1):
            return "reveal.target"
    elif isinstance(action, PythiaSpy):
        if action.hand:
            return "reveal.hand"
    elif isinstance(action, PythiaReveal) and action.cards:
        return "reveal.cards"
    return None


def _face_up(st: GameState, p: Player, column: int, position: int) -> bool:
    col = st.sides[p].field[column - 1] if 1 <= column <= 3 else ()
    return len(col) >= position and col[position - 1].up


def _all_known_cards(st: GameState) -> list[Card]:
    out: list[Card] = []
    for p in (Player.HERA, Player.ZEUS):
        side = st.sides[p]
        out += [c for c in side.hand if not c.is_unknown]
        out += [s.card for col in side.field for s in col if s.card and not s.card.is_unknown]
        out += list(side.discard)
    return out


def _copies_known(st: GameState, c: Card) -> int:
    """How many copies of ``c`` the hands, fields and piles of ``st`` name (a projection
    names only what its seat may see)."""
    return sum(1 for x in _all_known_cards(st) if x == c)


def apply_patch(st: GameState, p: Patch) -> GameState:
    """The state with one unknown card identified. Raises ValueError when nothing is unknown
    there."""
    side = st.sides[p.player]
    if p.zone == "hand":
        hand = list(side.hand)
        u = next((i for i, c in enumerate(hand) if c.is_unknown), None)
        if u is None:
            raise ValueError("no unknown card in that hand")
        hand[u] = p.card
        side = side.evolve(hand=tuple(hand))
    else:
        cols = [list(c) for c in side.field]
        s = cols[p.column - 1][p.position - 1]
        if s.card is None or not s.card.is_unknown:
            raise ValueError("that field card is not unknown")
        cols[p.column - 1][p.position - 1] = slot(p.card, s.up)
        side = side.evolve(field=(tuple(cols[0]), tuple(cols[1]), tuple(cols[2])))
    return st.evolve(sides=st.with_side(p.player, side))


def patch_from_body(st: GameState, body: Mapping[str, Any]) -> Patch:
    """The patch an identifying observation carries. Raises NotationError."""
    return _patch(st.ruleset.catalogue, body)


def _patch(cat: Catalogue, body: Mapping[str, Any]) -> Patch:
    who = Player.parse(str(body.get("player")))
    c = parse_card(cat, str(body.get("card")), who, "card")
    zone = body.get("zone")
    if zone not in ("hand", "field"):
        raise NotationError(Say("zone must be 'hand' or 'field'"), "zone")
    return Patch(who, zone, int(body.get("column", 0) or 0), int(body.get("position", 0) or 0), c)


def said(e: Exception) -> str:
    """An engine error's words for a person, as ``str(e)`` reads them, kept sayable in another
    language (:mod:`engine.say`): a notation error's place and detail, a refusal's reason and
    rule."""
    if isinstance(e, NotationError):
        if e.where:
            return Say("%(where)s: %(detail)s", where=e.where, detail=e.detail)
        return e.detail
    if isinstance(e, IllegalActionError):
        return Say("%(reason)s (%(rule)s)", reason=e.reason, rule=e.rule)
    return str(e)


def _said_args(e: Exception) -> str:
    """An exception's message as raised (a :class:`Say` stays one), else its text."""
    first = e.args[0] if len(e.args) == 1 else None
    return first if isinstance(first, str) else str(e)


def _illegal(e: IllegalActionError) -> Illegal:
    return Illegal(e.reason, e.rule, contradiction=e.rule == "D20")


@contextmanager
def _engine_errors() -> Iterator[None]:
    """The engine's errors as the game interface's: illegal (a D20 refusal contradicts the
    record), missing input, malformed."""
    try:
        yield
    except IllegalActionError as e:
        raise _illegal(e) from None
    except NeedsInputError as e:
        raise Missing(e.reason, e.rule, e.needs, e.asked) from None
    except NotationError as e:
        raise Malformed(said(e)) from None


class HeraZeus:
    """The Hera & Zeus module: see the module's docstring."""

    name: str = NAME
    title: str = "Hera & Zeus"
    players: tuple[str, ...] = PLAYERS
    profiles: tuple[str, ...] = tuple(p.value for p in Profile)
    hold_rule: str = "HZ-P11"
    contradiction_rule: str = "D20"
    legacy_rules: str = "hz-engine/1"  # logs written before create records named their rules
    board_type: type[HZBoard] = HZBoard
    result_type: type[HZRuling] = HZRuling
    options: tuple[Option, ...] = (
        Option(
            "profile",
            "choice",
            "rule profile (engine.herazeus.profiles; default rio-grande)",
            choices=tuple(p.value for p in Profile),
            checked=False,
        ),
        Option(
            "switches",
            "switches",
            "rule switches (name -> value), see RULES.md",
            switches={n: tuple(str(m.value) for m in t) for n, t in SWITCH_TYPES.items()},
        ),
        Option(
            "starting",
            "choice",
            "who starts (D19): hera, zeus, 'table' (decided at the table), or null for the "
            "profile's default",
            choices=(*PLAYERS, "table"),
        ),
        Option("catalogue", "object", "the sticker kit's card catalogue, when a kit is used"),
    )
    possessives: Mapping[str, str] = MappingProxyType({"hera": "her"})
    takeback_rule: str = "HZ-P14"
    answered_rule: str = "HZ-P12"
    undo_rule: str = "HZ-P15"
    zones: tuple[str, ...] = ("hand", "field")
    needs_phrases: Mapping[str, str] = MappingProxyType(
        {
            "order": "the order of {whose} cards onto the discard pile",
            "reveal": N_("the name of a card turned face up"),
            "pick": N_("the card drawn from the hand"),
            "place": N_("the column the card goes to"),
            "at": N_("where the card landed in the deck"),
        }
    )
    # the order phrase as referee.words.needs_words says it: to the seat asked, and of another
    needs_said = (
        N_("the order of his cards onto the discard pile"),
        N_("the order of her cards onto the discard pile"),
        N_("the order of %(seat)s's cards onto the discard pile"),
    )
    ruling_keys: frozenset[str] = frozenset({"hera", "zeus"})

    def rule_on_file(self, text: str, name: str, as_json: bool, lang: str = "en") -> str:
        ruling = rule_file(text, name)
        if as_json:
            return json.dumps(render_json(ruling, lang), indent=1, ensure_ascii=False)
        return render_text(ruling, lang)

    # ---- a game's rules --------------------------------------------------------------------

    def setup(self, options: Mapping[str, Any], players: Mapping[str, str]) -> Setup:
        """Options: ``profile`` (default rio-grande), ``switches``, ``starting`` (a player,
        ``"table"`` to decide at the table, None for D19's default), ``catalogue`` (a kit's
        copies and strengths)."""
        try:
            extra = sorted(set(options) - {"profile", "switches", "starting", "catalogue"})
            if extra:
                raise InputError(f"options: unknown option {str(extra[0])[:20]!r}")
            profile = text(options.get("profile", Profile.RIO_GRANDE.value), "profile", max_len=40)
            switches = mapping(options.get("switches") or {}, "switches")
            starting = options.get("starting")
            if starting is not None:
                text(starting, "starting", max_len=10)
            catalogue = options.get("catalogue")
            if catalogue is not None:
                mapping(catalogue, "catalogue")
        except InputError as e:
            raise Malformed(said(e)) from None
        body: dict[str, Any] = {
            "profile": profile,
            "switches": {str(k): v for k, v in switches.items()},
            "players": {"hera": "Hera", "zeus": "Zeus", **players},
        }
        if catalogue:
            body["catalogue"] = dict(catalogue)
        try:
            rs = ruleset_from_create(body)
        except NotationError as e:
            raise Malformed(said(e)) from None
        rigged = changed_confirmed(rs.catalogue)
        if rigged is not None:
            raise Malformed(rigged)
        first: str | None
        fixed = rs.fixed_starting_player()
        if starting == "table":
            if fixed is not None:  # nothing to decide at the table: refused, not ignored
                raise Illegal(
                    Say(
                        "under the %(profile)s profile %(player)s always starts: there is nothing "
                        "to decide at the table; choose another profile to decide there",
                        profile=profile,
                        player=fixed.title,
                    ),
                    "D19",
                )
            first = None
        elif starting is not None:
            try:
                chosen = Player.parse(starting)
            except ValueError as e:
                raise Illegal(str(e), "D19") from None
            if fixed is not None and chosen is not fixed:
                raise Illegal(
                    Say(
                        "under the %(profile)s profile %(player)s always starts",
                        profile=profile,
                        player=fixed.title,
                    ),
                    "D19",
                )
            first = chosen.key
        else:
            first = fixed.key if fixed is not None else "hera"  # D19: Hera by default
        moves = ((first, {"do": "starter", "player": first}),) if first is not None else ()
        return Setup(body, moves)

    def rules(self, create: Mapping[str, Any]) -> Ruleset:
        try:
            return ruleset_from_create(create)
        except NotationError as e:
            raise Malformed(said(e)) from None

    def rules_version(self, create: Mapping[str, Any]) -> str:
        return f"{RULES_VERSION}+{rules_digest(self.rules(create))}"

    def new_state(self, rules: Ruleset) -> GameState:
        return new_game(rules)

    def card_names(self, rules: Ruleset) -> dict[str, list[str]]:
        return {p.key: sorted(rules.catalogue.names(p)) for p in Player}

    # ---- actions ---------------------------------------------------------------------------

    def parse_action(self, raw: Any, where: str) -> Action:
        try:
            return parse_action(raw, where)
        except NotationError as e:
            raise Malformed(said(e)) from None

    def action_json(self, action: Action) -> dict[str, Any]:
        return action.to_json()

    def check(self, state: GameState, action: Action) -> None:
        with _engine_errors():
            engine.check(state, action)

    def apply(
        self, state: GameState, action: Action, checked: bool = True, asking: bool = False
    ) -> Outcome[GameState]:
        with _engine_errors():
            out = engine.apply(state, action, checked=checked, asking=asking)
        return BaseOutcome(
            out.state, tuple(ev.to_json() for ev in out.events), out.rules, out.notes
        )

    def reason_text(self, reason: str | None) -> str:
        """Why the game ended, in words with its rule (``END_WORDS``)."""
        return END_WORDS.get(str(reason), reason or "")

    def take_back_refusal(self, action: Mapping[str, Any]) -> str | None:
        """HZ-P14: a challenge, a Pegasus or a Pythia turns up cards hidden from its player:
        it stands (HZ-P12)."""
        do = str(action.get("do", ""))
        if do == "challenge":
            return Say(
                "a challenge turned up cards hidden from you: it stands (HZ-P12); only the "
                "judge corrects it"
            )
        if do == "pegasus":
            return Say(
                "a pegasus turned up cards hidden from you: it stands (HZ-P12); only the "
                "judge corrects it"
            )
        if do == "pythia":
            return Say(
                "a pythia turned up cards hidden from you: it stands (HZ-P12); only the "
                "judge corrects it"
            )
        return None

    def actor(self, state: GameState, action: Action, seat: str) -> str:
        if isinstance(action, Starter):
            if seat not in ("judge", *PLAYERS):
                raise NotYours(Say("only the players or the judge choose the starting player"))
            return action.player.key
        if isinstance(action, Deal | FirstRow | Redraw | Redeal):
            if seat not in ("judge", action.player.key):
                raise NotYours(
                    Say(
                        "only %(player)s's seat records %(player)s's cards",
                        player=action.player.title,
                    )
                )
            return action.player.key
        if isinstance(action, DeclareStuck) and seat != "judge":
            raise NotYours(
                Say(
                    "a player declares at the table that he cannot use his points; the judge "
                    "confirms it from the judge's seat (D8, HZ-P6)"
                ),
                "D8",
            )
        actor = action.actor(state.player)
        if seat != "judge" and seat != actor.key:
            raise NotYours(
                Say(
                    "it is %(player)s's turn; the %(seat)s seat cannot act for %(actor)s",
                    player=state.player.title,
                    seat=seat,
                    actor=actor.title,
                ),
                "HZ-TURN",
            )
        return actor.key

    def refuse_statement(self, state: GameState, action: Action, seat: str) -> Illegal | None:
        hidden = stated_hidden(state, action, seat)
        if hidden is not None:
            return Illegal(
                Say(
                    "%(field)s: a card hidden from you is stated by its holder, the judge or a "
                    "scan, never by you",
                    field=hidden,
                ),
                "D22",
            )
        if seat in PLAYERS and isinstance(action, PegasusHand) and action.place is not None:
            return Illegal(
                Say(
                    "place: the column is chosen once the drawn card is known; the referee asks "
                    "for it then"
                ),
                "D2",
            )
        return None

    def asked(self, missing: Missing, actor: str) -> tuple[str, ...]:
        # The pick of a Pegasus from the hand is stated by the hand's owner (D2, D22).
        if missing.needs == "pick":
            return (Player.parse(actor).other.key,)
        return missing.asked or (actor,)

    def shown_while_asked(self, action: Mapping[str, Any]) -> dict[str, Any]:
        # the card a Pegasus drew from the hand: both saw it come out (D2, D22)
        pick = action.get("pick")
        return {"pick": pick} if pick is not None else {}

    # ---- the guardian (issue 37) ------------------------------------------------------------

    def guard(self, seen: GameState, action: Action, seat: str) -> tuple[Caution, ...]:
        """D8: the action would leave the player unable to use his remaining points
        (:mod:`referee.herazeus.guard`)."""
        return cautions(seen, action, seat)

    # ---- seats -----------------------------------------------------------------------------

    def project(self, state: GameState, seat: str) -> GameState:
        return project(state, seat)

    def view(self, state: GameState, seat: str) -> HZBoard:
        return view_for(state, seat)

    def legal(self, state: GameState, seat: str) -> list[str] | None:
        if state.phase is not Phase.PLAY or seat not in (state.player.key, "judge"):
            return None
        return legal_for(legal_actions(project(state, seat)), seat)

    def in_play(self, state: GameState) -> bool:
        return state.phase is Phase.PLAY

    def summary(self, state: GameState) -> Summary:
        return Summary(
            state.phase.value,
            {"player": state.player.key, "ap": state.ap, "used": state.used},
            state.winner.key if state.winner else None,
            state.reason.value if state.reason else None,
        )

    def action_hidden(self, action: Mapping[str, Any], actor: str, seat: str) -> set[str]:
        if seat == actor or sees_all(seat):
            return set()
        do = action.get("do")
        out: set[str] = set()
        if do in PRIVATE_CARD_ACTIONS and "card" in action:
            out.add("card")
        if do in PRIVATE_LIST_ACTIONS and action.get("player") != seat and "cards" in action:
            out.add("cards")
        if do == "redeal" and action.get("player") != seat and "deck" in action:
            out.add("deck")  # the shown old hand stays visible: both players saw it (D19)
        if do == "redraw" and action.get("player") != seat and "card" in action:
            out.add("card")
        spy = do == "pythia" and action.get("mode") == "spy"
        if spy and seat not in PLAYERS and "reveal" in action:
            out.add("reveal")
        return out

    def event_hidden(self, event: Mapping[str, Any], seat: str) -> set[str]:
        if sees_all(seat) or event.get("public", True):
            return set()
        if event.get("kind") == "shown":
            visible = seat in (event.get("player"), event.get("to"))
        else:
            visible = event.get("player") == seat
        return set() if visible else {k for k in ("card", "cards", "hand") if k in event}

    # ---- what people saw -------------------------------------------------------------------

    def observe(self, state: GameState, seat: str, obs: Mapping[str, Any]) -> Observed[Patch]:
        """An observation ``{"player", "zone": "hand"|"field", "column", "position", "card",
        "source"}`` from ``seat``, already checked for its fields' types by the service."""
        try:
            who = Player.parse(str(obs.get("player")))
            c = parse_card_name(str(obs.get("card")), who, state, "observation.card")
        except (NotationError, ValueError) as e:
            raise Malformed(said(e)) from None
        if c.is_unknown:
            raise Malformed(Say("observation.card: an observation names a card, not '?'"))
        zone = obs.get("zone")
        # every observation carries both flags, so a copy that seals them (the opponent's)
        # shows the same fields whether it identified a card, contradicted one or neither
        body: dict[str, Any] = {
            "player": who.key,
            "zone": zone,
            "card": c.notation(who),
            "source": obs.get("source", "manual"),
            "identifies": False,
            "irregularity": None,
        }
        side = state.sides[who]
        cat = state.ruleset.catalogue
        recorded: Card | None
        if zone == "field":
            col, pos = obs.get("column"), obs.get("position")
            if not (
                isinstance(col, int)
                and not isinstance(col, bool)
                and isinstance(pos, int)
                and not isinstance(pos, bool)
                and 1 <= col <= 3
                and 1 <= pos <= len(side.field[col - 1])
            ):
                raise Malformed(Say("observation: no card at that column and position"))
            s = side.field[col - 1][pos - 1]
            if s.card is None:
                raise Malformed(Say("observation: the figure stands there, not a card"))
            body.update(column=col, position=pos, face_up=s.up)
            if seat not in ("judge", who.key) and not s.up:
                raise NotYours(
                    Say("only its owner or the judge may report a face-down card (D22)"), "D22"
                )
            if cat.strength(c) is None and cat.kind(c) is not Kind.HOSTAGE:
                raise Illegal(
                    Say(
                        "observation.card: %(card)s cannot stand on the field (D10)",
                        card=card_name(c.name),
                    ),
                    "D10",
                )
            recorded = s.card
        else:
            if seat not in ("judge", who.key):
                raise NotYours(
                    Say("only its owner or the judge may report a hand card (D22)"), "D22"
                )
            if c in side.hand:
                recorded = c
            elif any(x.is_unknown for x in side.hand):
                if c.origin is not who:
                    raise Illegal(
                        Say(
                            "observation.card: a card of %(deck)s's deck reaches %(player)s's "
                            "hand only by Sirens, face up (D13); it cannot be an unseen card",
                            deck=c.origin.title,
                            player=who.title,
                        ),
                        "D13",
                    )
                recorded = next(x for x in side.hand if x.is_unknown)
            else:
                recorded = None  # not in the hand as recorded
        if recorded is not None and recorded.is_unknown:
            if c.origin is not recorded.origin:
                # the back tells the deck: a card of the other deck on this side came by
                # Sirens, face up, and the referee knows it (D13)
                raise Illegal(
                    Say(
                        "observation.card: this card's back is %(back)s's; a card of %(deck)s's "
                        "deck is on %(player)s's side only if it came by Sirens, and then the "
                        "referee knows it (D13)",
                        back=recorded.origin.title,
                        deck=c.origin.title,
                        player=who.title,
                    ),
                    "D13",
                )
            copies = cat.info(c.name, c.origin).copies
            # judged on the observer's projection: a refusal counts only cards he may see (D22)
            if _copies_known(project(state, seat), c) >= copies:
                raise Illegal(
                    Say(
                        "observation.card: %(player)s's deck holds %(count)s %(card)s, all "
                        "accounted for elsewhere (catalogue)",
                        player=c.origin.title,
                        count=copies,
                        card=card_name(c.name),
                    ),
                    "D20",
                )
            body["identifies"] = True
            if _copies_known(state, c) >= copies:
                # the copies the referee knows hide among cards hidden from the observer: a
                # sealed irregularity for the judge, the same reply as an accepted one (D20)
                body["irregularity"] = {
                    "rule": "D20",
                    "recorded": "?",
                    "seen": c.notation(who),
                    "problem": f"{who.title}'s unknown card was identified as "
                    f"{c.notation(who)}, but {c.origin.title}'s deck holds {copies} {c.name} "
                    "and the referee knows every one elsewhere (catalogue)",
                }
            try:
                patch = patch_from_body(state, body)
            except (NotationError, ValueError) as e:
                raise Malformed(Say("observation: %(error)s", error=said(e))) from None
            return Observed(body, patch)
        if recorded != c:
            was = recorded.notation(who) if recorded is not None else "not in the hand"
            body["irregularity"] = {
                "rule": "D20",
                "recorded": was,
                "seen": c.notation(who),
                "problem": f"{who.title}'s card was recorded as {was} but seen as "
                f"{c.notation(who)}",
            }
        return Observed(body)

    def patch(self, rules: Ruleset, body: Mapping[str, Any]) -> Patch:
        try:
            return _patch(rules.catalogue, body)
        except (NotationError, ValueError) as e:
            raise Malformed(said(e)) from None

    def apply_patch(self, state: GameState, patch: Patch) -> GameState:
        try:
            return apply_patch(state, patch)
        except (ValueError, IndexError) as e:
            raise Illegal(str(e)) from None

    # ---- text ------------------------------------------------------------------------------

    def action_text(self, action: Mapping[str, Any]) -> str:
        return self.parse_action(action, "action").text()

    def event_text(self, event: Mapping[str, Any]) -> str | None:
        return describe_event_json(event)

    def board_text(self, state: GameState) -> str:
        return board_text(state)

    def position_json(self, state: GameState) -> dict[str, Any]:
        return write_position(state)

    # ---- rulings ---------------------------------------------------------------------------

    def ruling(self, state: GameState, action: Action, lang: str = "en") -> Ruling[HZRuling]:
        try:
            r = rule_on(state, [action])
        except NeedsInputError as e:
            reason = Say(
                "%(needs)s: cannot rule without it: %(reason)s", needs=e.needs, reason=e.reason
            )
            raise Missing(reason, e.rule, e.needs) from None
        except (NotationError, IllegalActionError, EngineError) as e:
            raise Malformed(said(e)) from None
        result = msgspec.convert(render_json(r), HZRuling)
        citations = result.citations if lang == "en" else render_json(r, lang)["citations"]
        return Ruling(
            legal=result.legal,
            rules=result.rules,
            ruling=render_text(r, lang),
            citations=citations,
            other_profiles=result.others,
            result=result,
        )


# the module, checked by mypy against its own types
HERA_ZEUS: Game[GameState, Action, HZBoard, Ruleset, Patch, HZRuling] = HeraZeus()

SEATS = seats_of(HERA_ZEUS)
may_cut = cutter(HERA_ZEUS)  # what a Hera & Zeus log's cut copy may hide (for verify)
