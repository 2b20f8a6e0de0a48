"""The rules of Hera & Zeus: which actions are legal, and what they do.

Public API (python-chess style):

- :func:`check` raises :class:`IllegalActionError` (or :class:`NeedsInputError`) when an action is
  not legal in a state; :func:`is_legal` says yes or no.
- :func:`apply` checks and applies, returning an :class:`Outcome` (new state, events, rules);
  ``apply(state, action, checked=False)`` only carries the action out, for an action already
  known to be legal there (one read back from a verified log, checked when it was accepted).
- :func:`legal_actions` enumerates every legal, fully specified action.

Check and apply are separate: each action's code runs its legality checks only when the work
copy is ``checked`` (``if w.checked and ...: raise``). What an unchecked apply keeps is what the
effect needs: reading card names (NotationError), finding the card a hand gives up, asking for
an identity or a choice the effect depends on (NeedsInputError), the challenge's strengths and
the end-of-game checks (D1, D2, D8, D9, D11), which decide the outcome, not the legality.

Every rule cites its decision of RULES.md (D1-D20) or a project rule of
:mod:`engine.herazeus.rulebook`.
Nothing here performs I/O, reads a clock or draws a random number.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from itertools import permutations
from typing import Generic, TypeVar

from engine.herazeus.actions import (
    Action,
    Challenge,
    Deal,
    DeclareStuck,
    Dionysus,
    Draw,
    EndTurn,
    FirstRow,
    God,
    Hades,
    PegasusField,
    PegasusHand,
    PegasusOwnFigure,
    Persephone,
    Play,
    PythiaReveal,
    PythiaSpy,
    Redeal,
    Redraw,
    RemoveFigure,
    Sirens,
    Starter,
)
from engine.herazeus.cards import (
    COLUMN_DEPTH,
    COLUMNS,
    DECK_SIZE,
    GOD_CARD_NAME,
    HAND_LIMIT,
    HOSTAGE_NAME,
    POWERFUL,
    UNKNOWN,
    Card,
    Catalogue,
    Kind,
    Player,
    card,
    parse_card,
    said_card,
    unknown,
    written,
)
from engine.herazeus.errors import IllegalActionError, NeedsInputError, NotationError
from engine.herazeus.events import Event, EventKind, Outcome
from engine.herazeus.names import card_name
from engine.herazeus.profiles import (
    OwnFigureRemoval,
    PandoraScope,
    PegasusBesideOwnFigure,
    PythiaDefends,
    Ruleset,
)
from engine.herazeus.state import FIGURE, EndReason, Field, GameState, Phase, Side, Slot, slot
from engine.say import Say

CANNOT_CHALLENGE = frozenset({"Io", "Argus", "Medusa", "Pandora"})  # D11
FREE_ACTIONS = (God, EndTurn, DeclareStuck)


def cost(action: Action) -> int:
    """D7: every action costs one point but the god card and ending the turn (and setup)."""
    if action.is_setup or isinstance(action, FREE_ACTIONS):
        return 0
    return 1


def field_loc(column: int, position: int) -> str:
    return f"field {column + 1}.{position + 1}"


def field_words(column: int, position: int) -> str:
    """A field place as a person says it: "column 2, row 1" (``field_loc`` is the log's)."""
    return Say("column %(column)s, row %(row)s", column=column + 1, row=position + 1)


def _holds_no(p: Player, c: Card, what: str) -> Say:
    """The refusal of a card ``p``'s hand does not hold, for what it was wanted (one whole
    sentence each: word order differs between languages)."""
    v = {"player": p.title, "card": said_card(c, p)}
    if what == "play":
        return Say("%(player)s holds no %(card)s to play", **v)
    if what == "place":
        return Say("%(player)s holds no %(card)s to place", **v)
    if what == "be drawn by Pegasus":
        return Say("%(player)s holds no %(card)s to be drawn by Pegasus", **v)
    return Say("%(player)s holds no %(card)s to use", **v)


# ---- the working copy ------------------------------------------------------------------------

_PLAYERS = (Player.HERA, Player.ZEUS)
_T = TypeVar("_T")


class _Lazy(Generic[_T]):
    """One zone (hand, deck or pile) of both players as lists, each copied from the state's
    tuple only when an action first touches it: most actions touch one or two zones."""

    __slots__ = ("_lists", "_src")

    def __init__(self, src: tuple[tuple[_T, ...], tuple[_T, ...]]) -> None:
        self._src = src
        self._lists: list[list[_T] | None] = [None, None]

    def __getitem__(self, p: int) -> list[_T]:
        got = self._lists[p]
        if got is None:
            got = self._lists[p] = list(self._src[p])
        return got

    def __setitem__(self, p: int, value: list[_T]) -> None:
        self._lists[p] = value

    def touched(self, p: int) -> bool:
        return self._lists[p] is not None

    def result(self, p: int) -> tuple[_T, ...]:
        got = self._lists[p]
        return self._src[p] if got is None else tuple(got)


class _LazyField:
    """Both fields as lists of column lists, copied on first use like :class:`_Lazy`."""

    __slots__ = ("_lists", "_src")

    def __init__(self, src: tuple[Field, Field]) -> None:
        self._src = src
        self._lists: list[list[list[Slot]] | None] = [None, None]

    def __getitem__(self, p: int) -> list[list[Slot]]:
        got = self._lists[p]
        if got is None:
            f = self._src[p]
            got = self._lists[p] = [list(f[0]), list(f[1]), list(f[2])]
        return got

    def touched(self, p: int) -> bool:
        return self._lists[p] is not None

    def result(self, p: int) -> Field:
        got = self._lists[p]
        if got is None:
            return self._src[p]
        return (tuple(got[0]), tuple(got[1]), tuple(got[2]))


class _Work:
    """A mutable copy of a state's sides while one action resolves. Never escapes this module."""

    __slots__ = (
        "asking",
        "checked",
        "deck",
        "discard",
        "events",
        "field",
        "hand",
        "notes",
        "reason",
        "rules",
        "st",
        "winner",
    )

    def __init__(self, st: GameState, checked: bool = True, asking: bool = False) -> None:
        self.st = st
        self.checked = checked  # False: the action is known legal here; only carry it out
        self.asking = asking  # True: a choice the rules give a player, left open, is asked
        h, z = st.sides
        self.hand = _Lazy((h.hand, z.hand))
        self.deck = _Lazy((h.deck, z.deck))
        self.field = _LazyField((h.field, z.field))
        self.discard = _Lazy((h.discard, z.discard))
        self.events: list[Event] = []
        self.rules: list[str] = []
        self.notes: list[str] = []
        self.winner: Player | None = None
        self.reason: EndReason | None = None

    @property
    def cat(self) -> Catalogue:
        return self.st.ruleset.catalogue

    def rule(self, *ids: str) -> None:
        for r in ids:
            if r not in self.rules:
                self.rules.append(r)

    def emit(
        self,
        kind: EventKind,
        player: Player | None = None,
        c: Card | None = None,
        src: str | None = None,
        dst: str | None = None,
        public: bool = True,
        **detail: object,
    ) -> None:
        self.events.append(
            Event(kind, player, c, src, dst, public, tuple(detail.items()) if detail else ())
        )

    def end(self, winner: Player, reason: EndReason, rule: str) -> None:
        if self.winner is None:
            self.winner = winner
            self.reason = reason
            self.rule(rule)
            self.emit(EventKind.GAME_OVER, winner, reason=reason.value, rule=rule)

    def sides(self) -> tuple[Side, Side]:
        """The sides after the action; a side nothing touched is the state's own object."""
        old = self.st.sides
        out = []
        for p in _PLAYERS:
            if not (
                self.hand.touched(p)
                or self.deck.touched(p)
                or self.field.touched(p)
                or self.discard.touched(p)
            ):
                out.append(old[p])
                continue
            out.append(
                Side(
                    self.hand.result(p),
                    self.deck.result(p),
                    self.field.result(p),
                    self.discard.result(p),
                )
            )
        return (out[0], out[1])

    # -- card lookup ---------------------------------------------------------------------

    def parse_card(self, text: str, holder: Player, where: str) -> Card:
        """A card name as ``holder`` writes it (``Pegasus/zeus`` when foreign). NotationError."""
        return parse_card_name(text, holder, self.st, where)

    def take_from_hand(self, p: Player, c: Card, rule: str, what: str) -> Card:
        """Removes ``c`` from p's hand; an unknown card stands in and is identified (D20)."""
        hand = self.hand[p]
        if c in hand:
            hand.remove(c)
            return c
        u = unknown(p)
        if u in hand and c.origin is p:
            hand.remove(u)
            self.emit(EventKind.IDENTIFIED, p, c, "hand", public=False)
            return c
        raise IllegalActionError(rule, _holds_no(p, c, what))

    def take_named(self, p: Player, name: str, rule: str, what: str) -> Card:
        """Removes a card of this name from p's hand, his own copy first, then one taken by
        Sirens, then an unknown card that he declares to be it (D20)."""
        hand = self.hand[p]
        own = card(name, p)
        if own in hand:
            hand.remove(own)
            return own
        foreign = card(name, p.other)
        if foreign in hand:
            hand.remove(foreign)
            return foreign
        return self.take_from_hand(p, own, rule, what)

    def discard_card(self, p: Player, c: Card, src: str) -> None:
        self.discard[p].append(c)
        self.emit(EventKind.DISCARDED, p, c, src, "discard")

    def reveal_slot(
        self, p: Player, col: int, pos: int, identity: str | None, needs: str, rule: str
    ) -> Card:
        """Turns the field card at (col, pos) face up, asking for its identity if unknown."""
        s = self.field[p][col][pos]
        assert s.card is not None
        c = s.card
        if c.is_unknown:
            if identity is None or identity == UNKNOWN:  # '?' names nothing: still unknown
                raise NeedsInputError(
                    "D20",
                    needs,
                    Say(
                        "the face-down card in %(player)s's %(place)s is not known to the "
                        "referee; %(player)s must show it",
                        player=p.title,
                        place=field_words(col, pos),
                    ),
                    (p.key,),
                )
            c = self.parse_card(identity, p, needs)
            if (
                self.checked
                and self.cat.strength(c) is None
                and self.cat.kind(c) is not Kind.HOSTAGE
            ):
                raise IllegalActionError(
                    "D10",
                    Say(
                        "%(card)s cannot stand on the field; it cannot be that card",
                        card=card_name(c.name),
                    ),
                )
            self.emit(EventKind.IDENTIFIED, p, c, field_loc(col, pos))
        elif self.checked and identity is not None and self.parse_card(identity, p, needs) != c:
            raise IllegalActionError(
                "D20",
                Say(
                    "the card in %(player)s's %(place)s is recorded as %(card)s, not "
                    "%(given)s; a judge must settle the difference",
                    player=p.title,
                    place=field_words(col, pos),
                    card=said_card(c, p),
                    given=identity,
                ),
            )
        if not s.up or c is not s.card:
            self.field[p][col][pos] = slot(c, True)
            if not s.up:
                self.emit(EventKind.REVEALED, p, c, field_loc(col, pos))
        return c

    def lose_column(self, p: Player, col: int, given: tuple[str, ...] | None) -> list[Card]:
        """D1: every card of p's column goes to his pile in the order he chooses; each event
        names the row where that card stood."""
        stood = [(i, s.card) for i, s in enumerate(self.field[p][col]) if s.card is not None]
        lost = [c for _, c in stood]
        order = identify_all(
            self,
            p,
            lost,
            given,
            f"order.{p.key}",
            "D1",
            Say("the cards lost to Pandora"),
            Say("the cards lost to Pandora from column %(column)s", column=col + 1),
        )
        for c in order:
            # the card itself, else an unknown card that the order identified as it
            k = next((k for k, (_, x) in enumerate(stood) if x == c), None)
            if k is None:
                k = next(k for k, (_, x) in enumerate(stood) if x.is_unknown)
            row, _ = stood.pop(k)
            self.discard_card(p, c, field_loc(col, row))
        self.field[p][col] = [s for s in self.field[p][col] if s.card is None]
        return order

    def close(self, st: GameState, **changes: object) -> Outcome:
        changes["sides"] = self.sides()  # ``changes`` is this call's own dict
        if self.winner is not None:
            changes.update(phase=Phase.OVER, winner=self.winner, reason=self.reason)
        return Outcome(
            st.evolve(**changes), tuple(self.events), tuple(self.rules), tuple(self.notes)
        )


def parse_card_name(text: str, holder: Player, st: GameState, where: str) -> Card:
    """A card name read under ``st``'s catalogue (see :func:`engine.herazeus.cards.parse_card`)."""
    return parse_card(st.ruleset.catalogue, text, holder, where)


def identify_all(
    w: _Work,
    p: Player,
    cards: list[Card],
    given: tuple[str, ...] | None,
    needs: str,
    rule: str,
    what: Say,
    where: Say | None = None,
) -> list[Card]:
    """Orders ``cards`` as ``given`` lists them (the owner's choice), identifying unknown ones.
    ``what`` names the cards ("the cards lost to Pandora"); ``where``, when given, names them
    with where they come from ("... from column 2"), for the question.

    With nothing given, the cards keep their order, unless some are unknown: then NeedsInputError.
    Raises IllegalActionError when ``given`` is not exactly these cards.
    """
    if given is None or (UNKNOWN in given and any(c.is_unknown for c in cards)):
        # '?' in the order names nothing; a discard pile holds only named cards (POSITIONS.md)
        if any(c.is_unknown for c in cards):
            raise NeedsInputError(
                "D20",
                needs,
                Say(
                    "%(player)s must name %(cards)s: the referee does not know them all",
                    player=p.title,
                    cards=what,
                ),
                (p.key,),
            )
        if given is None and w.asking and len(set(cards)) > 1:
            # the owner's choice (D1, D2), asked once the cards are face up for both (HZ-P13);
            # the words name no card: the question's reason is read by every seat
            raise NeedsInputError(
                rule,
                needs,
                Say(
                    "%(player)s chooses the order in which %(cards)s go onto the discard pile "
                    "(the last one ends on top)",
                    player=p.title,
                    cards=where if where is not None else what,
                ),
                (p.key,),
            )
        return list(cards)
    named, identified = _order_named(w, p, cards, given, needs, rule, what)
    for c in identified:
        w.emit(EventKind.IDENTIFIED, p, c)
    return named


def _order_named(
    w: _Work,
    p: Player,
    cards: list[Card],
    given: tuple[str, ...],
    needs: str,
    rule: str,
    what: Say,
) -> tuple[list[Card], list[Card]]:
    """The cards ``given`` names, checked to be exactly ``cards`` (an unknown card may be any
    card of its owner's deck), and those it names for the unknown ones. Changes nothing.
    Raises IllegalActionError (D20 when the list contradicts the record) or NotationError."""
    named = [w.parse_card(t, p, needs) for t in given]
    if w.checked and len(named) != len(cards):
        raise IllegalActionError(
            rule,
            Say(
                "the order of %(player)s's cards lists %(listed)s but %(cards)s are %(count)s",
                player=p.title,
                listed=len(named),
                cards=what,
                count=len(cards),
            ),
        )
    pool = Counter(c for c in cards if not c.is_unknown)
    unknowns = sum(1 for c in cards if c.is_unknown)
    extra = Counter(named)
    extra.subtract(pool)
    if w.checked and (any(v < 0 for v in extra.values()) or sum(extra.values()) != unknowns):
        raise IllegalActionError(
            "D20",
            Say(
                "the order of %(player)s's cards must list exactly %(cards)s (%(shown)s)",
                player=p.title,
                cards=what,
                shown=[said_card(c, p) for c in cards],
            ),
        )
    identified = list(extra.elements())
    for c in identified:
        if w.checked and c.origin is not p:
            raise IllegalActionError(
                "D20",
                Say(
                    "an unknown card of %(player)s cannot be %(card)s",
                    player=p.title,
                    card=said_card(c, p),
                ),
            )
    return named, identified


def _own_order_first(w: _Work, p: Player, ci: int, a: Challenge | PegasusField) -> None:
    """D1, D22: the order a challenger gives for his own column (the cards he would lose if
    the target were Pandora) is a statement about his own cards; it is checked against them
    before the target is turned up, whatever the target turns out to be, so that neither the
    check nor its answer depends on a card hidden from him. Changes nothing."""
    given = a.order_for(p)
    if given is None or w.st.ruleset.switches.pandora_scope is not PandoraScope.BOTH:
        return  # under ``owner`` his column is never lost: the order is never read (D1)
    col = w.field[p][ci]
    if col and col[0].is_figure:
        return  # the figure shields his column (D1): the order is never read
    cards = [s.card for s in col if s.card is not None]
    if UNKNOWN in given and any(c.is_unknown for c in cards):
        return  # names nothing yet: asked if Pandora empties the column (D1, D20)
    _order_named(w, p, cards, given, f"order.{p.key}", "D1", Say("the cards lost to Pandora"))


# ---- preconditions ---------------------------------------------------------------------------


def _turn_prelude(st: GameState, action: Action) -> Player:
    if st.phase is Phase.OVER:
        reason = st.reason.value if st.reason else "-"
        said = (
            Say(
                "the game is over: %(winner)s won (%(reason)s)",
                winner=st.winner.title,
                reason=reason,
            )
            if st.winner is not None
            else Say("the game is over: nobody won (%(reason)s)", reason=reason)
        )
        raise IllegalActionError("HZ-OVER", said, action)
    if st.phase is Phase.SETUP:
        raise IllegalActionError(
            "D19",
            Say("setup is not finished: both hands and first rows must be recorded first"),
            action,
        )
    actor = action.actor(st.player)
    if actor is not st.player:
        raise IllegalActionError(
            "HZ-TURN",
            Say(
                "it is %(player)s's turn, not %(actor)s's",
                player=st.player.title,
                actor=actor.title,
            ),
            action,
        )
    if cost(action) and st.used >= st.ap:
        raise IllegalActionError(
            "D7",
            Say(
                "%(player)s has no action point left (%(used)s of %(ap)s used); the turn must "
                "be ended",
                player=actor.title,
                used=st.used,
                ap=st.ap,
            ),
            action,
        )
    return actor


def _no_first_turn(st: GameState, what: str) -> None:
    """D6: ``what`` is "a challenge", "Pegasus against the hand" or "Pegasus against the first
    row"; each has its own whole sentence."""
    if st.first:
        who = st.player.title
        if what == "a challenge":
            said = Say("No challenge is allowed on %(player)s's first turn", player=who)
        elif what == "Pegasus against the hand":
            said = Say(
                "Pegasus against the hand is a challenge: no challenge is allowed on "
                "%(player)s's first turn",
                player=who,
            )
        else:
            said = Say(
                "Pegasus against the first row is a challenge: no challenge is allowed on "
                "%(player)s's first turn",
                player=who,
            )
        raise IllegalActionError("D6", said)


# ---- resolution of each action ---------------------------------------------------------------


def _resolve(
    st: GameState, action: Action, post: bool = True, checked: bool = True, asking: bool = False
) -> Outcome:
    """Resolves ``action``: checks that it is legal (unless ``checked`` is false: an action
    known to be legal in ``st``), then carries it out. ``post`` runs the end-of-game checks
    (D8, D9); ``asking`` asks the choices the action leaves open (see :func:`apply`)."""
    if action.is_setup:
        return _resolve_setup(st, action, checked)
    p = _turn_prelude(st, action) if checked else st.player
    w = _Work(st, checked, asking)
    ap = st.ap
    if action.__class__ is EndTurn:  # the commonest action, ahead of the chain below
        return _end_turn(w, p, post)
    try:
        if isinstance(action, Draw):
            _draw(w, p, action)
        elif isinstance(action, Play):
            _play(w, p, action)
        elif isinstance(action, Challenge):
            _challenge(w, p, action)
        elif isinstance(action, PegasusHand):
            _pegasus_hand(w, p, action)
        elif isinstance(action, PegasusField):
            _pegasus_field(w, p, action)
        elif isinstance(action, PegasusOwnFigure):
            _pegasus_own_figure(w, p)
        elif isinstance(action, RemoveFigure):
            _remove_figure(w, p)
        elif isinstance(action, PythiaSpy):
            _pythia_spy(w, p, action)
        elif isinstance(action, PythiaReveal):
            _pythia_reveal(w, p, action)
        elif isinstance(action, Sirens):
            _sirens(w, p)
        elif isinstance(action, Hades):
            _hades(w, p, action)
        elif isinstance(action, Persephone):
            _persephone(w, p)
        elif isinstance(action, Dionysus):
            _dionysus(w, p, action)
        elif isinstance(action, God):
            ap = _god(w, p, action)
        elif isinstance(action, EndTurn):
            return _end_turn(w, p, post)
        elif isinstance(action, DeclareStuck):
            _declare_stuck(w, p)
        else:  # pragma: no cover - every action class is handled above
            raise NotationError(f"unsupported action {action!r}")
    except IllegalActionError as e:
        e.add_rules(w.rules)  # the action's own rule, where a finer one refused it
        raise
    used = st.used + cost(action)
    if cost(action):
        w.emit(EventKind.SPENT, p, used=used, ap=ap)
    out = w.close(st, used=used, ap=ap)
    if post and out.state.phase is Phase.PLAY:
        out = _check_cannot_use(out)
    return out


def _draw(w: _Work, p: Player, a: Draw) -> None:
    w.rule("D18")
    hand, deck = w.hand[p], w.deck[p]
    if w.checked:
        if len(hand) >= HAND_LIMIT:
            raise IllegalActionError(
                "D18",
                Say(
                    "%(player)s already holds %(limit)s cards, the hand limit; drawing is not "
                    "allowed",
                    player=p.title,
                    limit=HAND_LIMIT,
                ),
                a,
            )
        if not deck:
            raise IllegalActionError(
                "D18", Say("%(player)s's deck is empty; drawing is not allowed", player=p.title), a
            )
    top = deck.pop(0)
    if a.card is not None:
        named = w.parse_card(a.card, p, "card")
        if w.checked and named.origin is not p:
            raise IllegalActionError(
                "D18", Say("%(player)s's deck holds only %(player)s's own cards", player=p.title), a
            )
        if top.is_unknown:
            top = named
        elif w.checked and not named.is_unknown and named != top:
            raise IllegalActionError(
                "D20",
                Say(
                    "the top card of %(player)s's deck is recorded as %(card)s, not %(given)s; "
                    "a judge must settle it",
                    player=p.title,
                    card=card_name(top.name),
                    given=card_name(named.name),
                ),
                a,
            )
    hand.append(top)
    w.emit(EventKind.DRAWN, p, top, "deck", "hand", public=False)


def _play(w: _Work, p: Player, a: Play) -> None:
    w.rule("D10")
    c = w.parse_card(a.card, p, "card")
    if w.checked and not c.is_unknown and not w.cat.info(c.name, c.origin).can_be_played:
        raise IllegalActionError(
            "D10",
            Say(
                "%(card)s has no printed strength and is never played to the field; it is used "
                "for its power from the hand",
                card=card_name(c.name),
            ),
            a,
        )
    col = w.field[p][a.column - 1]
    if w.checked and len(col) >= COLUMN_DEPTH:
        raise IllegalActionError(
            "D10",
            Say(
                "column %(column)s already holds %(depth)s entries (the figure counts as one)",
                column=a.column,
                depth=COLUMN_DEPTH,
            ),
            a,
        )
    pos = a.position if a.position is not None else len(col) + 1
    if w.checked and pos > len(col) + 1:
        raise IllegalActionError(
            "D10",
            Say(
                "column %(column)s holds %(count)s; a card can go at position 1 to %(last)s, "
                "not %(position)s (no gaps)",
                column=a.column,
                count=len(col),
                last=len(col) + 1,
                position=pos,
            ),
            a,
        )
    if w.checked and pos == 1 and col and col[0].is_figure:
        w.rule("D17")
        raise IllegalActionError(
            "D10",
            Say(
                "%(player)s's figure stands at the front of column %(column)s; no card may be "
                "played in front of it",
                player=p.title,
                column=a.column,
            ),
            a,
        )
    c = w.take_from_hand(p, c, "D10", "play")
    col.insert(pos - 1, slot(c, False))
    w.emit(EventKind.PLAYED, p, c, "hand", field_loc(a.column - 1, pos - 1), public=False)


def _can_initiate(c: Card, kind: Kind) -> bool:
    return c.name not in CANNOT_CHALLENGE and kind is not Kind.HOSTAGE


def _challenge(w: _Work, p: Player, a: Challenge) -> None:
    w.rule("D11")
    o = p.other
    ci = a.column - 1
    if w.checked:
        _check_challenge(w, p, a)
    att = w.reveal_slot(p, ci, 0, a.attacker, "reveal.attacker", "D11")
    if w.checked and not _can_initiate(att, w.cat.kind(att)):
        raise IllegalActionError(
            "D11", Say("%(card)s never starts a challenge", card=card_name(att.name)), a
        )
    if w.checked:
        _own_order_first(w, p, ci, a)
    dfn = w.reveal_slot(o, ci, 0, a.defender, "reveal.defender", "D11")
    _resolve_challenge(w, p, ci, att, dfn, a)


def _check_challenge(w: _Work, p: Player, a: Challenge) -> None:
    """D6, D11: whether the challenge may be made, before either card is turned over."""
    _no_first_turn(w.st, "a challenge")
    o = p.other
    ci = a.column - 1
    mine, theirs = w.st.sides[p].field[ci], w.st.sides[o].field[ci]
    if not mine:
        raise IllegalActionError(
            "D11",
            Say(
                "%(player)s has no card in column %(column)s to challenge with",
                player=p.title,
                column=a.column,
            ),
            a,
        )
    if not theirs:
        raise IllegalActionError(
            "D11",
            Say(
                "%(player)s has no card in column %(column)s to challenge (no diagonal challenges)",
                player=o.title,
                column=a.column,
            ),
            a,
        )
    if mine[0].is_figure or theirs[0].is_figure:
        who = p if mine[0].is_figure else o
        raise IllegalActionError(
            "D11",
            Say(
                "%(player)s's figure stands in column %(column)s; no challenge goes into or "
                "out of a column with a figure (only a Pegasus from the hand may hit the "
                "figure itself, D5)",
                player=who.title,
                column=a.column,
            ),
            a,
        )
    known = mine[0].card
    assert known is not None
    if not known.is_unknown and not _can_initiate(known, w.cat.kind(known)):
        raise IllegalActionError(
            "D11", Say("%(card)s never starts a challenge", card=card_name(known.name)), a
        )


def _resolve_challenge(w: _Work, p: Player, ci: int, att: Card, dfn: Card, a: Challenge) -> None:
    o = p.other
    cat = w.cat
    if cat.kind(dfn) is Kind.HOSTAGE:
        w.end(p, EndReason.HOSTAGE_CHALLENGED, "D11")
        return
    if dfn.name == "Medusa":
        if cat.info(att.name, att.origin).beats_medusa:
            _lose_front(w, o, ci)
        else:
            _lose_front(w, p, ci)
        return
    if dfn.name == "Pandora":
        _pandora(w, p, ci, a)
        return
    if att.name == "Pythia" and dfn.name in POWERFUL:
        w.rule("D3")
        _lose_front(w, o, ci)
        return
    if dfn.name == "Pythia":
        w.rule("D3")
        if (
            att.name in POWERFUL
            or w.st.ruleset.switches.pythia_defends is PythiaDefends.ALWAYS_LOSES
        ):
            _lose_front(w, o, ci)
            return
    if att.name == "Pythia":
        w.rule("D3")
    sa, sd = cat.strength(att) or 0, cat.strength(dfn) or 0
    winner = p if sa > sd else o if sd > sa else None
    w.emit(
        EventKind.CHALLENGED,
        p,
        att,
        dst=field_loc(ci, 0),
        strength=sa,
        against=dfn.notation(o),
        against_strength=sd,
        winner=winner,
    )
    if sa > sd:
        _lose_front(w, o, ci)
    elif sd > sa:
        _lose_front(w, p, ci)
    else:
        _lose_front(w, p, ci)
        _lose_front(w, o, ci)


def _lose_front(w: _Work, p: Player, ci: int) -> None:
    """The first-row card of p's column is discarded; the column closes up (D11)."""
    s = w.field[p][ci].pop(0)
    assert s.card is not None
    w.discard_card(p, s.card, field_loc(ci, 0))


def _pandora(w: _Work, challenger: Player, ci: int, a: Challenge | PegasusField) -> None:
    """D1: a challenged Pandora empties the column; hostages decide the game."""
    w.rule("D1")
    o = challenger.other
    scope = w.st.ruleset.switches.pandora_scope
    lost_o = w.lose_column(o, ci, a.order_for(o))
    lost_c: list[Card] = []
    col = w.field[challenger][ci]
    if scope is PandoraScope.BOTH and not (col and col[0].is_figure):
        lost_c = w.lose_column(challenger, ci, a.order_for(challenger))
    if any(c.name == HOSTAGE_NAME[challenger] and c.origin is challenger for c in lost_c):
        w.end(o, EndReason.PANDORA_OWN_HOSTAGE, "D1")
    elif any(c.name == HOSTAGE_NAME[o] and c.origin is o for c in lost_o):
        w.end(challenger, EndReason.PANDORA_HOSTAGE, "D1")


def _ignore_place(w: _Work, a: PegasusHand, picked: Card) -> None:
    """HZ-P7: a column named for a card that goes to the pile anyway changes nothing."""
    if a.place is not None:
        w.rule("HZ-P7")
        w.notes.append(
            Say(
                "column %(column)s was named, but %(card)s is discarded (HZ-P7)",
                column=a.place,
                card=card_name(picked.name),
            )
        )


def _pegasus_hand(w: _Work, p: Player, a: PegasusHand) -> None:
    w.rule("D2")
    o = p.other
    if w.checked:
        _no_first_turn(w.st, "Pegasus against the hand")
    if w.checked and not w.hand[o]:
        raise IllegalActionError(
            "D2", Say("%(player)s's hand is empty; Pegasus has nothing to draw", player=o.title), a
        )
    peg = w.take_named(p, "Pegasus", "D2", "use")
    w.discard_card(p, peg, "hand")
    if a.pick is None or a.pick == UNKNOWN:  # '?' names no card: the pick is still unknown
        raise NeedsInputError(
            "D2",
            "pick",
            Say(
                "%(player)s draws one card blind from %(opponent)s's hand; the referee must be "
                "told which",
                player=p.title,
                opponent=o.title,
            ),
            (p.key, o.key),
        )
    want = w.parse_card(a.pick, o, "pick")
    held = w.hand[o]
    # where the card stood in the hand as listed (take_from_hand takes this one)
    if want in held:
        at = held.index(want)
    else:
        at = next((i for i, c in enumerate(held) if c.is_unknown), 0)
    picked = w.take_from_hand(o, want, "D20", "be drawn by Pegasus")
    w.emit(EventKind.PICKED, o, picked, "hand")
    info = w.cat.info(picked.name, picked.origin)
    if info.kind is Kind.HOSTAGE:
        w.hand[o].append(picked)  # the game ends with the hostage found; it stays shown
        w.end(p, EndReason.HOSTAGE_BY_PEGASUS, "D2")
        return
    if picked.name == "Pandora":
        # Without an order the whole hand goes onto the pile as listed, Pandora in her place
        # (POSITIONS.md): the last card listed ends on top.
        rest = list(w.hand[o])
        rest.insert(at, picked)
        w.hand[o].clear()
        order = identify_all(
            w,
            o,
            rest,
            a.order_for(o),
            f"order.{o.key}",
            "D2",
            Say("the cards of %(player)s's hand", player=o.title),
        )  # the question says "the cards of Hera's hand": the page offers her hand
        for c in order:
            w.discard_card(o, c, "hand")
        if any(c.name == HOSTAGE_NAME[o] and c.origin is o for c in order):
            w.end(p, EndReason.PANDORA_HOSTAGE, "D2")
        return
    strength = info.strength or 0
    if (info.has_myth_symbol and not info.beats_medusa) or strength <= 1:
        w.discard_card(o, picked, "hand")
        _ignore_place(w, a, picked)
        return
    ok = [
        i
        for i, col in enumerate(w.field[o])
        if len(col) < COLUMN_DEPTH and not (col and col[0].is_figure)
    ]
    if not ok:
        w.notes.append(
            Say(
                "no column of %(player)s can take %(card)s; it is discarded (D2)",
                player=o.title,
                card=card_name(picked.name),
            )
        )
        w.discard_card(o, picked, "hand")
        _ignore_place(w, a, picked)
        return
    if a.place is None:
        raise NeedsInputError(
            "D2",
            "place",
            Say(
                "%(player)s must choose the column of %(opponent)s's first row for %(card)s "
                "(one of %(columns)s)",
                player=p.title,
                opponent=o.title,
                card=card_name(picked.name),
                columns=[str(i + 1) for i in ok],
            ),
            (p.key,),
        )
    if w.checked and a.place - 1 not in ok:
        raise IllegalActionError(
            "D2",
            Say(
                "%(card)s cannot go to column %(column)s (full, or the figure stands there); "
                "choose %(columns)s",
                card=card_name(picked.name),
                column=a.place,
                columns=[str(i + 1) for i in ok],
            ),
            a,
        )
    w.field[o][a.place - 1].insert(0, slot(picked, True))
    w.emit(EventKind.PLACED, o, picked, "hand", field_loc(a.place - 1, 0))


def _pegasus_field(w: _Work, p: Player, a: PegasusField) -> None:
    w.rule("D5")
    o = p.other
    ci = a.column - 1
    theirs = w.field[o][ci]
    if w.checked:
        _no_first_turn(w.st, "Pegasus against the first row")
    if w.checked and not theirs:
        raise IllegalActionError(
            "D5",
            Say(
                "%(player)s has no card or figure in column %(column)s",
                player=o.title,
                column=a.column,
            ),
            a,
        )
    mine = w.st.sides[p].field[ci]
    if (
        w.checked
        and mine
        and mine[0].is_figure
        and not theirs[0].is_figure  # D5: the opponent's figure may always be hit
        and w.st.ruleset.switches.pegasus_beside_own_figure is PegasusBesideOwnFigure.FORBIDDEN
    ):
        raise IllegalActionError(
            "D5",
            Say(
                "%(player)s's own figure stands in column %(column)s; under this rule set no "
                "Pegasus may challenge from it, except against %(opponent)s's figure",
                player=p.title,
                column=a.column,
                opponent=o.title,
            ),
            a,
        )
    peg = w.take_named(p, "Pegasus", "D5", "use")
    w.discard_card(p, peg, "hand")
    if w.checked and not theirs[0].is_figure:
        _own_order_first(w, p, ci, a)
    if theirs[0].is_figure:
        theirs.pop(0)
        w.emit(EventKind.FIGURE_REMOVED, o, None, field_loc(ci, 0), "supply")
        return
    target = w.reveal_slot(o, ci, 0, a.target, "reveal.target", "D5")
    info = w.cat.info(target.name, target.origin)
    if info.kind is Kind.HOSTAGE:
        w.end(p, EndReason.HOSTAGE_CHALLENGED, "D5")
    elif target.name == "Medusa":
        return
    elif target.name == "Pandora":
        _pandora(w, p, ci, a)
    elif (
        target.name == "Pythia"
        and w.st.ruleset.switches.pythia_defends is PythiaDefends.ALWAYS_LOSES
    ):
        w.rule("D3")
        _lose_front(w, o, ci)
    elif (info.strength or 0) <= 1:
        _lose_front(w, o, ci)


def _remove_own_figure(w: _Work, p: Player, how: str) -> None:
    ci = next((i for i, col in enumerate(w.field[p]) if col and col[0].is_figure), None)
    if ci is None:
        raise IllegalActionError(
            "D4", Say("%(player)s's figure is not on the field", player=p.title)
        )
    w.field[p][ci].pop(0)
    w.emit(EventKind.FIGURE_REMOVED, p, None, field_loc(ci, 0), "supply", how=how)


def _pegasus_own_figure(w: _Work, p: Player) -> None:
    w.rule("D4")
    if w.checked and w.st.ruleset.switches.own_figure_removal is OwnFigureRemoval.ACTION:
        raise IllegalActionError(
            "D4",
            Say(
                "under this rule set the own figure is removed by an action point, not by "
                "Pegasus (use remove_figure)"
            ),
        )
    if w.checked and w.st.sides[p].figure_column() is None:
        raise IllegalActionError(
            "D4", Say("%(player)s's figure is not on the field", player=p.title)
        )
    peg = w.take_named(p, "Pegasus", "D4", "use")
    w.discard_card(p, peg, "hand")
    _remove_own_figure(w, p, "pegasus")


def _remove_figure(w: _Work, p: Player) -> None:
    w.rule("D4")
    if w.checked and w.st.ruleset.switches.own_figure_removal is OwnFigureRemoval.PEGASUS:
        raise IllegalActionError(
            "D4",
            Say(
                "under this rule set the own figure is removed only by playing a Pegasus from "
                "the hand against it"
            ),
        )
    _remove_own_figure(w, p, "action")


def _pythia_spy(w: _Work, p: Player, a: PythiaSpy) -> None:
    w.rule("D12")
    o = p.other
    py = w.take_named(p, "Pythia", "D12", "use")
    w.discard_card(p, py, "hand")
    hand = w.hand[o]
    unknowns = [i for i, c in enumerate(hand) if c.is_unknown]
    if unknowns:
        if len(a.hand) != len(unknowns):
            if not a.hand:
                raise NeedsInputError(
                    "D20",
                    "reveal.hand",
                    Say(
                        "%(player)s must show the hand: the referee does not know %(count)s of "
                        "its cards",
                        player=o.title,
                        count=len(unknowns),
                    ),
                    (o.key,),
                )
            if w.checked:
                raise IllegalActionError(
                    "D12",
                    Say(
                        "reveal.hand names %(named)s cards for %(unknown)s unknown cards in "
                        "%(player)s's hand",
                        named=len(a.hand),
                        unknown=len(unknowns),
                        player=o.title,
                    ),
                    a,
                )
        if UNKNOWN in a.hand:  # '?' names nothing: the hand is still not shown
            raise NeedsInputError(
                "D20",
                "reveal.hand",
                Say("%(player)s must name every card shown, not '?'", player=o.title),
                (o.key,),
            )
        for i, text in zip(unknowns, a.hand, strict=True):
            c = w.parse_card(text, o, "reveal.hand")
            if w.checked and c.origin is not o:
                raise IllegalActionError(
                    "D20",
                    Say(
                        "an unknown card of %(player)s cannot be %(card)s",
                        player=o.title,
                        card=written(text, c, o),
                    ),
                )
            hand[i] = c
            w.emit(EventKind.IDENTIFIED, o, c, "hand", public=False)
    elif w.checked and a.hand:
        raise IllegalActionError(
            "D12",
            Say(
                "the referee knows %(player)s's whole hand; reveal.hand must be empty",
                player=o.title,
            ),
            a,
        )
    w.emit(
        EventKind.SHOWN,
        o,
        None,
        "hand",
        public=False,
        to=p.key,
        cards=[c.notation(o) for c in hand],
    )
    # onto the holder's pile in the order he chooses, asked when two different cards go
    # (HZ-P13); by default as they stood in the hand, the last one on top
    found = [c for c in hand if c.name in POWERFUL]
    w.hand[o] = [c for c in hand if c.name not in POWERFUL]
    if len(found) > 1:
        what = Say("the Poseidon and Nemesis cards Pythia found in the hand")
        found = identify_all(w, o, found, a.order_for(o), f"order.{o.key}", "D12", what)
    for c in found:
        w.discard_card(o, c, "hand")


def _pythia_reveal(w: _Work, p: Player, a: PythiaReveal) -> None:
    w.rule("D12")
    o = p.other
    ci = a.column - 1
    col = w.field[o][ci]
    if w.checked and not any(s.card is not None for s in col):
        raise IllegalActionError(
            "D12",
            Say(
                "%(player)s's column %(column)s holds no card to turn over",
                player=o.title,
                column=a.column,
            ),
            a,
        )
    py = w.take_named(p, "Pythia", "D12", "use")
    w.discard_card(p, py, "hand")
    unknown_at = [i for i, s in enumerate(col) if s.card is not None and s.card.is_unknown]
    if unknown_at and len(a.cards) != len(unknown_at):
        if not a.cards:
            raise NeedsInputError(
                "D20",
                "reveal.cards",
                Say(
                    "%(player)s must turn over column %(column)s: the referee does not know "
                    "%(count)s of its cards",
                    player=o.title,
                    column=a.column,
                    count=len(unknown_at),
                ),
                (o.key,),
            )
        if w.checked:
            raise IllegalActionError(
                "D12",
                Say(
                    "reveal.cards names %(named)s cards for %(unknown)s unknown cards",
                    named=len(a.cards),
                    unknown=len(unknown_at),
                ),
                a,
            )
    if w.checked and a.cards and not unknown_at:
        raise IllegalActionError(
            "D12",
            Say("the referee knows column %(column)s; reveal.cards must be empty", column=a.column),
            a,
        )
    names = iter(a.cards)
    for i, s in enumerate(col):
        if s.card is None or s.up:
            continue
        w.reveal_slot(o, ci, i, next(names) if s.card.is_unknown else None, "reveal.cards", "D12")


def _sirens(w: _Work, p: Player) -> None:
    w.rule("D13")
    o = p.other
    pile = w.discard[o]
    top = pile[-1] if pile else None
    if w.checked:
        strength = w.cat.strength(top) if top is not None else None
        if top is None or strength is None or not 1 <= strength <= 7:
            said = (
                Say(
                    "%(player)s's discard pile is empty; Sirens need a card of strength 1 to 7 "
                    "on top",
                    player=o.title,
                )
                if top is None
                else Say(
                    "%(player)s's discard pile shows %(card)s; Sirens need a card of strength 1 "
                    "to 7 on top",
                    player=o.title,
                    card=said_card(top, o),
                )
            )
            raise IllegalActionError("D13", said)
    assert top is not None  # a legal Sirens has a card to take
    s = w.take_named(p, "Sirens", "D13", "use")
    pile.pop()
    w.discard_card(p, s, "hand")
    w.hand[p].append(top)
    w.emit(EventKind.TAKEN, p, top, f"discard:{o.key}", "hand")


def _hades(w: _Work, p: Player, a: Hades) -> None:
    w.rule("D14")
    h = w.take_named(p, "Hades", "D14", "use")
    pile = w.discard[p]
    if w.checked and not pile:
        raise IllegalActionError(
            "D14",
            Say("%(player)s's discard pile is empty; Hades has nothing to take", player=p.title),
            a,
        )
    want = w.parse_card(a.card, p, "card")
    for i in range(len(pile) - 1, -1, -1):
        if pile[i] == want:
            del pile[i]
            break
    else:
        if w.checked:
            raise IllegalActionError(
                "D14",
                Say(
                    "%(player)s's discard pile holds no %(card)s",
                    player=p.title,
                    card=written(a.card, want, p),
                ),
                a,
            )
    w.hand[p].append(want)
    w.emit(EventKind.TAKEN, p, want, "discard", "hand", public=False)
    w.discard_card(p, h, "hand")


def _persephone(w: _Work, p: Player) -> None:
    w.rule("D15")
    ps = w.take_named(p, "Persephone", "D15", "use")
    pile = w.discard[p]
    room = max(0, HAND_LIMIT - len(w.hand[p]))
    n = min(3, room)
    taken = 0
    for i in range(len(pile) - 1, -1, -1):
        if taken >= n:
            break
        if pile[i].name == "Pegasus":
            c = pile.pop(i)
            w.hand[p].append(c)
            w.emit(EventKind.TAKEN, p, c, "discard", "hand")
            taken += 1
    w.discard_card(p, ps, "hand")


def _dionysus(w: _Work, p: Player, a: Dionysus) -> None:
    w.rule("D16")
    if w.checked:
        _check_dionysus(w.st.sides[p].field, p, a)
    (sc, sp), (dc, dp) = (a.src[0] - 1, a.src[1] - 1), (a.dst[0] - 1, a.dst[1] - 1)
    f = w.field[p]
    d = w.take_named(p, "Dionysus", "D16", "use")
    s = f[sc].pop(sp)
    f[dc].insert(dp, s)
    w.emit(EventKind.MOVED, p, s.card, field_loc(sc, sp), field_loc(dc, dp), public=s.up)
    w.discard_card(p, d, "hand")


def _check_dionysus(f: Field, p: Player, a: Dionysus) -> None:
    """D16, HZ-P1: whether Dionysus may move the card from ``a.src`` to ``a.dst``."""
    (sc, sp), (dc, dp) = (a.src[0] - 1, a.src[1] - 1), (a.dst[0] - 1, a.dst[1] - 1)
    if sp >= len(f[sc]):
        raise IllegalActionError(
            "D16",
            Say("%(player)s has nothing in %(place)s", player=p.title, place=field_words(sc, sp)),
            a,
        )
    if f[sc][sp].is_figure:
        raise IllegalActionError("D16", Say("Dionysus never moves the figure"), a)
    if sc == dc:
        if dp >= len(f[sc]):
            raise IllegalActionError(
                "D16",
                Say(
                    "column %(column)s holds %(count)s; a card moved within it goes to position "
                    "1 to %(count)s",
                    column=sc + 1,
                    count=len(f[sc]),
                ),
                a,
            )
        if dp == sp:
            raise IllegalActionError(
                "D16",
                Say("the card would stay where it is; Dionysus must move it to another place"),
                a,
                also=("HZ-P1",),
            )
        rest = f[sc][:sp] + f[sc][sp + 1 :]
        if dp == 0 and rest and rest[0].is_figure:
            raise IllegalActionError("D16", Say("no card may be put in front of the figure"), a)
    else:
        if len(f[dc]) >= COLUMN_DEPTH:
            raise IllegalActionError(
                "D16",
                Say(
                    "column %(column)s already holds %(depth)s entries",
                    column=dc + 1,
                    depth=COLUMN_DEPTH,
                ),
                a,
            )
        if dp > len(f[dc]):
            raise IllegalActionError(
                "D16",
                Say(
                    "column %(column)s holds %(count)s; a card goes to position 1 to %(last)s "
                    "(no gaps)",
                    column=dc + 1,
                    count=len(f[dc]),
                    last=len(f[dc]) + 1,
                ),
                a,
            )
        if dp == 0 and f[dc] and f[dc][0].is_figure:
            raise IllegalActionError("D16", Say("no card may be put in front of the figure"), a)


def _god(w: _Work, p: Player, a: God) -> int:
    w.rule("D17")
    if w.checked:
        _check_god(w.st, p, a)
    col = w.field[p][a.column - 1]
    g = w.take_from_hand(p, card(GOD_CARD_NAME[p], p), "D17", "play")
    w.discard_card(p, g, "hand")
    col.insert(0, FIGURE)
    w.emit(EventKind.FIGURE_PLACED, p, None, "supply", field_loc(a.column - 1, 0))
    w.rule("D7")
    w.emit(EventKind.POINTS, p, ap=4, used=w.st.used)
    return 4


def _check_god(st: GameState, p: Player, a: God) -> None:
    """D17: the figure goes into a column with 1 to 3 cards, once."""
    if st.sides[p].figure_column() is not None:
        raise IllegalActionError(
            "D17", Say("%(player)s's figure is already on the field", player=p.title), a
        )
    col = st.sides[p].field[a.column - 1]
    if not col:
        raise IllegalActionError(
            "D17",
            Say(
                "column %(column)s is empty; the figure goes only into a column with 1 to 3 cards",
                column=a.column,
            ),
            a,
        )
    if len(col) >= COLUMN_DEPTH:
        raise IllegalActionError(
            "D17",
            Say(
                "column %(column)s is full; the figure goes only into a column with 1 to 3 cards",
                column=a.column,
            ),
            a,
        )


def _end_turn(w: _Work, p: Player, post: bool) -> Outcome:
    st = w.st
    w.rule("D7")
    if w.checked and st.used < st.ap:
        raise IllegalActionError(
            "D7",
            Say(
                "%(player)s has used %(used)s of %(ap)s action points; every point must be used "
                "before the turn ends",
                player=p.title,
                used=st.used,
                ap=st.ap,
            ),
        )
    nxt = p.other
    w.emit(EventKind.TURN_ENDED, p)
    side = st.sides[nxt]
    ap = side.action_points()
    first = not st.started[nxt]
    started = (st.started[0] or nxt is Player.HERA, st.started[1] or nxt is Player.ZEUS)
    w.emit(EventKind.TURN_BEGAN, nxt, ap=ap, first=first)
    if not side.has_card_on_field():
        w.end(p, EndReason.EMPTY_FIELD, "D9")
    out = w.close(st, player=nxt, first=first, ap=ap, used=0, started=started)
    if post and out.state.phase is Phase.PLAY:
        out = _check_cannot_use(out)
    return out


def _declare_stuck(w: _Work, p: Player) -> None:
    """D8 declared (HZ-P6): the hand cards the referee does not know are declared unusable;
    what it does know must not offer a way to spend a point either."""
    w.rule("D8")
    w.rule("HZ-P6")
    st = w.st
    if w.checked:
        if st.used >= st.ap:
            raise IllegalActionError(
                "D8", Say("%(player)s has no action point left to lose over", player=p.title)
            )
        side = st.sides[p]
        known = side.evolve(hand=tuple(c for c in side.hand if not c.is_unknown))
        if can_use_a_point(st.evolve(sides=st.with_side(p, known))):
            raise IllegalActionError(
                "D8",
                Say(
                    "%(player)s can still spend a point with what the referee knows (see the "
                    "legal actions)",
                    player=p.title,
                ),
            )
    w.end(p.other, EndReason.CANNOT_USE_AP, "D8")


# ---- D8: cannot use all action points --------------------------------------------------------


def _check_cannot_use(out: Outcome) -> Outcome:
    st = out.state
    if st.used >= st.ap or can_use_a_point(st):
        return out
    loser = st.player
    ev = Event(
        EventKind.GAME_OVER,
        loser.other,
        None,
        None,
        None,
        True,
        (("reason", EndReason.CANNOT_USE_AP.value), ("rule", "D8")),
    )
    rules = out.rules + (() if "D8" in out.rules else ("D8",))
    return Outcome(
        st.evolve(phase=Phase.OVER, winner=loser.other, reason=EndReason.CANNOT_USE_AP),
        (*out.events, ev),
        rules,
        out.notes,
    )


def can_use_a_point(st: GameState) -> bool:
    """D8: whether the active player has a legal action that costs a point, possibly after a
    free god card. A hand card the referee does not know counts as usable (the player must
    declare otherwise, D8/D20)."""
    side = st.sides[st.player]
    if side.deck and len(side.hand) < HAND_LIMIT:
        return True
    if any(c.is_unknown for c in side.hand):
        return True
    if (
        not st.first
        and any(c.name == "Pegasus" for c in side.hand)
        and any(c.is_unknown for c in st.sides[st.player.other].hand)
    ):
        return True  # D2/D20: Pegasus may draw from a hand whose cards legal_actions cannot name
    gods = []
    for a in _play_actions(st):
        if cost(a):
            return True
        if isinstance(a, God):
            gods.append(a)
    for g in gods:
        after = _resolve(st, g, post=False, checked=False).state  # legal: listed above
        if any(cost(a) for a in _play_actions(after)):
            return True
    return False


# ---- setup (D19) -----------------------------------------------------------------------------


def _resolve_setup(st: GameState, a: Action, checked: bool = True) -> Outcome:
    if checked and st.phase is not Phase.SETUP:
        raise IllegalActionError("D19", Say("setup is over; the game is under way"), a)
    w = _Work(st, checked)
    w.rule("D19")
    if isinstance(a, Starter):
        fixed = st.ruleset.fixed_starting_player()
        if checked and fixed is not None and a.player is not fixed:
            raise IllegalActionError(
                "D19",
                Say(
                    "under the %(profile)s profile %(player)s always starts",
                    profile=st.ruleset.profile.value,
                    player=fixed.title,
                ),
                a,
            )
        if checked and st.starting is not None:
            raise IllegalActionError(
                "D19",
                Say("the starting player is already %(player)s", player=st.starting.title),
                a,
            )
        w.emit(EventKind.STARTER, a.player)
        return _maybe_begin(w.close(st, starting=a.player))
    p: Player = a.player  # type: ignore[attr-defined]
    if isinstance(a, Deal):
        deck = w.deck[p]
        if checked:
            if st.dealt[p]:
                raise IllegalActionError(
                    "D19", Say("%(player)s's nine cards are already recorded", player=p.title), a
                )
            if len(a.cards) != 9:
                raise IllegalActionError(
                    "D19", Say("a starting hand is 9 cards, not %(count)s", count=len(a.cards)), a
                )
            if len(deck) < 9:
                raise IllegalActionError(
                    "D19",
                    Say(
                        "%(player)s's deck holds only %(count)s cards",
                        player=p.title,
                        count=len(deck),
                    ),
                    a,
                )
        for i, text in enumerate(a.cards):
            c = w.parse_card(text, p, f"cards[{i}]")
            if checked and c.origin is not p:
                raise IllegalActionError(
                    "D19", Say("%(player)s's deck holds only %(player)s's cards", player=p.title), a
                )
            top = deck.pop(0)
            if checked and not top.is_unknown and not c.is_unknown and top != c:
                raise IllegalActionError(
                    "D20",
                    Say(
                        "card %(number)s dealt is recorded as %(card)s, not %(given)s",
                        number=i + 1,
                        card=card_name(top.name),
                        given=card_name(c.name),
                    ),
                    a,
                )
            got = top if c.is_unknown else c
            w.hand[p].append(got)
            w.emit(EventKind.DRAWN, p, got, "deck", "hand", public=False)
        dealt = (True, st.dealt[1]) if p is Player.HERA else (st.dealt[0], True)
        return _maybe_begin(w.close(st, dealt=dealt))
    if isinstance(a, Redraw):
        hostage = card(HOSTAGE_NAME[p], p)
        deck = w.deck[p]
        if checked:
            if not st.dealt[p]:
                raise IllegalActionError(
                    "D19", Say("%(player)s's hand is not recorded yet", player=p.title), a
                )
            if hostage not in w.hand[p]:
                raise IllegalActionError(
                    "D19",
                    Say(
                        "%(player)s did not draw %(card)s; there is nothing to redraw",
                        player=p.title,
                        card=card_name(hostage.name),
                    ),
                    a,
                )
            if not deck:
                raise IllegalActionError(
                    "D19", Say("%(player)s's deck is empty", player=p.title), a
                )
        w.hand[p].remove(hostage)
        w.emit(EventKind.HOSTAGE_SHOWN, p, hostage, "hand")
        top = deck.pop(0)
        if a.card is not None:
            named = w.parse_card(a.card, p, "card")
            if top.is_unknown:
                top = named
            elif checked and named != top:
                raise IllegalActionError(
                    "D20",
                    Say(
                        "the top card is recorded as %(card)s, not %(given)s",
                        card=card_name(top.name),
                        given=card_name(named.name),
                    ),
                    a,
                )
        w.hand[p].append(top)
        w.emit(EventKind.DRAWN, p, top, "deck", "hand", public=False)
        known = [c for c in deck if not c.is_unknown]
        if known:
            if a.at is None or a.at > len(deck):
                raise NeedsInputError(
                    "D19",
                    "at",
                    Say(
                        "where %(card)s went when %(player)s's deck was shuffled (0 to %(count)s)",
                        card=card_name(hostage.name),
                        player=p.title,
                        count=len(deck),
                    ),
                    (p.key,),
                )
            deck.insert(a.at, hostage)
        else:  # the deck is unseen: after the shuffle the referee knows only the count
            deck.append(unknown(p))
        w.emit(EventKind.RESHUFFLED, p, hostage, "hand", "deck")
        return _maybe_begin(w.close(st))
    if isinstance(a, Redeal):
        return _redeal(w, st, p, a)
    if isinstance(a, FirstRow):
        if checked:
            _check_first_row(st, p, a)
        for i, text in enumerate(a.cards):
            c = w.parse_card(text, p, f"cards[{i}]")
            if checked and not c.is_unknown and not w.cat.info(c.name, c.origin).can_be_played:
                raise IllegalActionError(
                    "D19",
                    Say(
                        "%(card)s cannot be placed in the first row (no printed strength)",
                        card=card_name(c.name),
                    ),
                    a,
                )
            c = w.take_from_hand(p, c, "D19", "place")
            w.field[p][i] = [slot(c, False)]
            w.emit(EventKind.PLAYED, p, c, "hand", field_loc(i, 0), public=False)
        placed = (True, st.placed[1]) if p is Player.HERA else (st.placed[0], True)
        return _maybe_begin(w.close(st, placed=placed))
    raise NotationError(f"unsupported setup action {a!r}")  # pragma: no cover


def _check_first_row(st: GameState, p: Player, a: FirstRow) -> None:
    """D19: a first row is laid once, after the hand is dealt and the hostage replaced."""
    if not st.dealt[p]:
        raise IllegalActionError(
            "D19", Say("%(player)s's hand is not recorded yet", player=p.title), a
        )
    if st.placed[p]:
        raise IllegalActionError(
            "D19", Say("%(player)s's first row is already placed", player=p.title), a
        )
    if card(HOSTAGE_NAME[p], p) in st.sides[p].hand:
        raise IllegalActionError(
            "D19",
            Say(
                "%(player)s must first show %(card)s and draw a replacement",
                player=p.title,
                card=card_name(HOSTAGE_NAME[p]),
            ),
            a,
        )
    if len(a.cards) != COLUMNS:
        raise IllegalActionError(
            "D19", Say("the first row is %(count)s cards, one per column", count=COLUMNS), a
        )


HAND_SIZE = 9  # D19
FIRST_ROW_MIN = COLUMNS  # D19: cards with a printed strength a hand needs for its first row


def _strong(cat: Catalogue, cards: Iterable[Card]) -> int:
    """How many of ``cards`` have a printed strength (the hostage has none)."""
    return sum(1 for c in cards if not c.is_unknown and cat.strength(c) is not None)


def must_redeal(st: GameState, p: Player) -> bool:
    """D19: whether ``p``'s recorded hand, hostage already replaced, cannot lay a first row
    (fewer than three cards with a printed strength) and must be re-dealt. False while the
    referee does not know the whole hand: the player shows it with the :class:`Redeal`."""
    if st.phase is not Phase.SETUP or not st.dealt[p] or st.placed[p]:
        return False
    hand = st.sides[p].hand
    if card(HOSTAGE_NAME[p], p) in hand or any(c.is_unknown for c in hand):
        return False
    return _strong(st.ruleset.catalogue, hand) < FIRST_ROW_MIN


def _redeal(w: _Work, st: GameState, p: Player, a: Redeal) -> Outcome:
    """D19: the hand is shown, shuffled into the deck, and nine cards are drawn again."""
    hand = w.hand[p]
    if w.checked:
        if not st.dealt[p]:
            raise IllegalActionError(
                "D19", Say("%(player)s's hand is not recorded yet", player=p.title), a
            )
        if st.placed[p]:
            raise IllegalActionError(
                "D19", Say("%(player)s's first row is already placed", player=p.title), a
            )
        hostage = card(HOSTAGE_NAME[p], p)
        if hostage in hand:
            raise IllegalActionError(
                "D19",
                Say(
                    "%(player)s must first show %(card)s and draw a replacement",
                    player=p.title,
                    card=card_name(hostage.name),
                ),
                a,
            )
        if len(a.cards) != HAND_SIZE:
            raise IllegalActionError(
                "D19",
                Say(
                    "a hand dealt again is %(size)s cards, not %(count)s",
                    size=HAND_SIZE,
                    count=len(a.cards),
                ),
                a,
            )
    # The hand is shown to both players: its owner names the cards the referee does not know.
    unknown_at = [i for i, c in enumerate(hand) if c.is_unknown]
    if unknown_at:
        if not a.shown or UNKNOWN in a.shown:
            raise NeedsInputError(
                "D19",
                "shown",
                Say(
                    "%(player)s shows the hand before it is dealt again: the referee does not "
                    "know %(count)s of its cards",
                    player=p.title,
                    count=len(unknown_at),
                ),
                (p.key,),
            )
        if w.checked and len(a.shown) != len(unknown_at):
            raise IllegalActionError(
                "D19",
                Say(
                    "shown names %(named)s cards for %(unknown)s unknown cards in %(player)s's "
                    "hand",
                    named=len(a.shown),
                    unknown=len(unknown_at),
                    player=p.title,
                ),
                a,
            )
        for i, text in zip(unknown_at, a.shown, strict=True):
            c = w.parse_card(text, p, "shown")
            if w.checked and c.origin is not p:
                raise IllegalActionError(
                    "D20",
                    Say(
                        "an unknown card of %(player)s cannot be %(card)s",
                        player=p.title,
                        card=written(text, c, p),
                    ),
                    a,
                )
            hand[i] = c
            w.emit(EventKind.IDENTIFIED, p, c, "hand")
    elif w.checked and a.shown:
        raise IllegalActionError(
            "D19",
            Say("the referee knows %(player)s's whole hand; shown must be empty", player=p.title),
            a,
        )
    strong = _strong(w.cat, hand)
    if w.checked and strong >= FIRST_ROW_MIN:
        raise IllegalActionError(
            "D19",
            Say(
                "%(player)s's hand holds %(count)s cards with a printed strength, enough for the "
                "first row; only a hand with fewer than %(least)s is dealt again",
                player=p.title,
                count=strong,
                least=FIRST_ROW_MIN,
            ),
            a,
        )
    w.rule("HZ-P9")
    w.emit(
        EventKind.REDEALT,
        p,
        None,
        "hand",
        "deck",
        cards=[c.notation(p) for c in hand],
        strong=strong,
    )
    deck = w.deck[p]
    pool = [*hand, *deck]
    if w.checked and len(pool) < HAND_SIZE:  # pragma: no cover - a deck holds 43 cards
        raise IllegalActionError(
            "D19",
            Say("%(player)s has only %(count)s cards to deal", player=p.title, count=len(pool)),
            a,
        )
    if deck and not any(c.is_unknown for c in deck):
        # The referee knows the deck (a simulation): the shuffle's result must be stated.
        if not a.deck:
            raise NeedsInputError(
                "D19",
                "deck",
                Say(
                    "the order of %(player)s's deck after the shuffle: the %(count)s cards left "
                    "under the nine drawn, top first",
                    player=p.title,
                    count=len(pool) - HAND_SIZE,
                ),
                (p.key,),
            )
        new_hand = [w.parse_card(t, p, f"cards[{i}]") for i, t in enumerate(a.cards)]
        new_deck = [w.parse_card(t, p, f"deck[{i}]") for i, t in enumerate(a.deck)]
        if w.checked and Counter(new_hand + new_deck) != Counter(pool):
            raise IllegalActionError(
                "D20",
                Say(
                    "cards and deck must be exactly the %(count)s cards of %(player)s's hand and "
                    "deck, shuffled",
                    count=len(pool),
                    player=p.title,
                ),
                a,
            )
    else:
        if w.checked and a.deck:
            raise IllegalActionError(
                "D19",
                Say(
                    "the referee does not know the order of %(player)s's deck; deck must be empty",
                    player=p.title,
                ),
                a,
            )
        new_hand = []
        for i, text in enumerate(a.cards):
            c = w.parse_card(text, p, f"cards[{i}]")
            if w.checked and c.origin is not p:
                raise IllegalActionError(
                    "D19", Say("%(player)s's deck holds only %(player)s's cards", player=p.title), a
                )
            new_hand.append(c)
        new_deck = [unknown(p)] * (len(pool) - HAND_SIZE)  # after the shuffle: only the count
    w.hand[p] = new_hand
    w.deck[p] = new_deck
    for c in new_hand:
        w.emit(EventKind.DRAWN, p, c, "deck", "hand", public=False)
    return _maybe_begin(w.close(st))


def _maybe_begin(out: Outcome) -> Outcome:
    """Setup ends when the starter is known and both first rows are placed."""
    st = out.state
    if st.starting is None or not all(st.placed):
        return out
    p = st.starting
    ap = st.sides[p].action_points()
    started = (p is Player.HERA, p is Player.ZEUS)
    ev = Event(EventKind.TURN_BEGAN, p, None, None, None, True, (("ap", ap), ("first", True)))
    new = st.evolve(phase=Phase.PLAY, player=p, first=True, ap=ap, used=0, started=started)
    return Outcome(new, (*out.events, ev), out.rules, out.notes)


# ---- public API ------------------------------------------------------------------------------


def check(st: GameState, action: Action) -> None:
    """Raises IllegalActionError (with the rule id) or NeedsInputError if ``action`` cannot be
    applied to ``st``; NotationError if it names a card no deck has."""
    # The end-of-game checks after the action (D8, D9) decide the outcome, never the legality.
    _resolve(st, action, post=False)


def is_legal(st: GameState, action: Action) -> bool:
    """Whether ``action`` is legal and complete in ``st``."""
    try:
        _resolve(st, action, post=False)
    except (IllegalActionError, NeedsInputError, NotationError):
        return False
    return True


def apply(st: GameState, action: Action, *, checked: bool = True, asking: bool = False) -> Outcome:
    """Checks ``action`` and returns the outcome. Raises as :func:`check` does; ``st`` is
    never changed.

    ``asking=True`` (a referee at a table) raises NeedsInputError for a choice the rules give
    a player that the action leaves open, once it arises: the order of the cards he loses to
    Pandora (D1) or of a whole hand he discards (D2), when two or more different cards go.
    Without it (a ruling file, a replay) the default order applies (HZ-P13).

    ``checked=False`` only carries the action out, for an action known to be legal in ``st``
    (one read back from a verified log: it was checked when it was accepted). For a legal
    action the outcome is exactly the checked one; for an illegal one it is unspecified (it
    may raise, or give a state no legal play reaches). It still raises NotationError for a
    card no deck has and NeedsInputError for a value the effect needs."""
    return _resolve(st, action, checked=checked, asking=asking)


def legal_actions(st: GameState) -> list[Action]:
    """Every legal, fully specified action in ``st`` (each with the choices it needs)."""
    if st.phase is Phase.OVER:
        return []
    if st.phase is Phase.SETUP:
        return _setup_actions(st)
    return list(_play_actions(st))


def _play_actions(st: GameState) -> Iterator[Action]:
    """The legal actions of a game in play, lazily (D8 stops at the first that costs a point)."""
    p, o = st.player, st.player.other
    me, them = st.sides[p], st.sides[o]
    sw = st.ruleset.switches
    cat = st.ruleset.catalogue
    mine_f, theirs_f = me.field, them.field
    my_fig = me.figure_column()
    if st.used < st.ap:
        if me.deck and len(me.hand) < HAND_LIMIT:
            yield Draw()
        seen: set[str] = set()  # notations already played from the hand
        powers: set[str] = set()  # names whose power from the hand is already listed
        for c in me.hand:
            name = c.name
            note = c.notation(p)
            if note in seen:
                continue
            seen.add(note)
            if c.is_unknown or cat.info(name, c.origin).can_be_played:
                for ci, col in enumerate(mine_f):
                    n = len(col)
                    if n >= COLUMN_DEPTH:
                        continue
                    start = 2 if n and col[0].card is None else 1
                    for pos in range(start, n + 2):
                        yield Play(note, ci + 1, pos)
            if name in powers:
                continue  # a second copy of a power card (own vs. taken) adds no new action
            powers.add(name)
            if name == "Pegasus":
                yield from _pegasus_actions(st, p, o)
            elif name == "Pythia":
                yield PythiaSpy()
                for ci, col in enumerate(theirs_f):
                    if any(s.card is not None for s in col):
                        yield PythiaReveal(ci + 1)
            elif name == "Sirens":
                top = them.discard[-1] if them.discard else None
                s = cat.strength(top) if top is not None else None
                if s is not None and 1 <= s <= 7:
                    yield Sirens()
            elif name == "Hades":
                for dn in dict.fromkeys(x.notation(p) for x in me.discard):
                    yield Hades(dn)
            elif name == "Persephone":
                yield Persephone()
            elif name == "Dionysus":
                yield from _dionysus_actions(mine_f)
        if not st.first:
            for ci in range(COLUMNS):
                mc, tc = mine_f[ci], theirs_f[ci]
                if not mc or not tc or mc[0].card is None or tc[0].card is None:
                    continue
                att = mc[0].card
                if att.is_unknown or _can_initiate(att, cat.kind(att)):
                    yield Challenge(ci + 1)
        if my_fig is not None and sw.own_figure_removal is not OwnFigureRemoval.PEGASUS:
            yield RemoveFigure()
    if my_fig is None and card(GOD_CARD_NAME[p], p) in me.hand:
        for ci, col in enumerate(mine_f):
            if 1 <= len(col) < COLUMN_DEPTH:
                yield God(ci + 1)
    if st.used >= st.ap:
        yield EndTurn()


def _pegasus_actions(st: GameState, p: Player, o: Player) -> Iterable[Action]:
    sw = st.ruleset.switches
    cat = st.ruleset.catalogue
    me, them = st.sides[p], st.sides[o]
    if me.figure_column() is not None and sw.own_figure_removal is not OwnFigureRemoval.ACTION:
        yield PegasusOwnFigure()
    if st.first:
        return
    if them.hand:
        ok = [
            i
            for i, col in enumerate(them.field)
            if len(col) < COLUMN_DEPTH and not (col and col[0].card is None)
        ]
        if any(c.is_unknown for c in them.hand):
            yield PegasusHand()  # D2, D22: drawn blind; the hand's owner states the card
        for note in dict.fromkeys(c.notation(o) for c in them.hand if not c.is_unknown):
            c = parse_card_name(note, o, st, "pick")
            info = cat.info(c.name, c.origin)
            placed = (
                info.kind not in (Kind.HOSTAGE,)
                and c.name != "Pandora"
                and not (info.has_myth_symbol and not info.beats_medusa)
                and (info.strength or 0) >= 2
            )
            if placed and ok:
                for i in ok:
                    yield PegasusHand(pick=note, place=i + 1)
            else:
                yield PegasusHand(pick=note)
    beside = sw.pegasus_beside_own_figure is PegasusBesideOwnFigure.ALLOWED
    for ci in range(COLUMNS):
        if not them.field[ci]:
            continue
        mc = me.field[ci]
        if mc and mc[0].card is None and not beside and them.field[ci][0].card is not None:
            continue  # D5: beside the own figure only the opponent's figure may be hit
        yield PegasusField(ci + 1)


def _dionysus_actions(f: tuple[tuple[Slot, ...], ...]) -> Iterable[Action]:
    for sc, col in enumerate(f):
        for sp, s in enumerate(col):
            if s.card is None:
                continue
            for dc, dcol in enumerate(f):
                if dc == sc:
                    n = len(col)
                    fig = col[0].card is None
                    for dp in range(1 if fig else 0, n):
                        if dp != sp:
                            yield Dionysus((sc + 1, sp + 1), (dc + 1, dp + 1))
                else:
                    n = len(dcol)
                    if n >= COLUMN_DEPTH:
                        continue
                    start = 1 if n and dcol[0].card is None else 0
                    for dp in range(start, n + 1):
                        yield Dionysus((sc + 1, sp + 1), (dc + 1, dp + 1))


def _setup_actions(st: GameState) -> list[Action]:
    out: list[Action] = []
    if st.starting is None:
        fixed = st.ruleset.fixed_starting_player()
        out.extend(Starter(p) for p in Player if fixed is None or p is fixed)
    cat = st.ruleset.catalogue
    for p in Player:
        side = st.sides[p]
        if not st.dealt[p] or st.placed[p]:
            continue
        if card(HOSTAGE_NAME[p], p) in side.hand:
            continue  # D19: the hostage must be redrawn first (an input, not a choice)
        names = [
            c.notation(p)
            for c in side.hand
            if c.is_unknown or cat.info(c.name, c.origin).can_be_played
        ]
        # Every ordered choice of three hand cards, each distinct row once (two copies of a
        # card give the same row).
        for row in dict.fromkeys(permutations(names, COLUMNS)):
            out.append(FirstRow(p, row))
    return out


def new_game(
    ruleset: Ruleset | None = None,
    decks: tuple[Iterable[Card], Iterable[Card]] | None = None,
) -> GameState:
    """A game in setup (D19). Without ``decks`` both decks are unseen: 43 unknown cards each
    (D20), as at a physical table; with them (top first), the order is known, as in simulation."""
    rs = ruleset or Ruleset()
    if decks is None:
        decks = (
            tuple(unknown(Player.HERA) for _ in range(DECK_SIZE)),
            tuple(unknown(Player.ZEUS) for _ in range(DECK_SIZE)),
        )
    sides = tuple(Side((), tuple(d), ((), (), ()), ()) for d in decks)
    return GameState(
        rs,
        (sides[0], sides[1]),
        phase=Phase.SETUP,
        started=(False, False),
        dealt=(False, False),
        placed=(False, False),
    )
