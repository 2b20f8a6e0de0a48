"""The rules of Minotaur Lords as MINOTAUR.md rules them (M1-M18): legality, the supremacy
check, the win check, and the actions' effects. Pure: a state and an action in, an outcome out.

``apply(state, action)`` checks and applies; it raises ``IllegalActionError`` (with the
deciding M-number), ``NeedsInputError`` (a choice the action leaves open: the column of a
card, the deity a fourth one replaces, the card M4 discards, the religious target) or
``NotationError`` (a card not in the game's list). ``legal_actions`` lists the actions a
player may take now (effects, being the texts' own, are not listed: M12).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

from engine.errors import IllegalActionError, NeedsInputError, NotationError
from engine.minotaur.actions import (
    Action,
    Activate,
    ChangeHand,
    Cure,
    Curse,
    Draw,
    Effect,
    EndTurn,
    Exercise,
    Hand,
    Move,
    Op,
    Pass,
    Place,
    Play,
    SetAside,
    Strength,
    Take,
    resolve_self,
)
from engine.minotaur.cards import (
    COLUMN_IDS,
    COLUMNS,
    HAND_SIZE,
    MAX_DEITIES,
    MAX_SET_ASIDE,
    PLAYERS,
    CardDef,
    CardType,
    Catalogue,
    Column,
    Kind,
    Region,
    Text,
    opponent,
)
from engine.minotaur.names import card_name, kind_name, region_name, type_name
from engine.minotaur.state import (
    PHASES,
    Boost,
    Discarded,
    EndReason,
    Match,
    Phase,
    Placed,
    Side,
    Stage,
    State,
    Turn,
)
from engine.outcome import Outcome as BaseOutcome
from engine.say import Say, say_n

if TYPE_CHECKING:
    Outcome: TypeAlias = BaseOutcome[State, dict[str, Any]]
else:
    Outcome = BaseOutcome
"""The result of applying one action (:class:`engine.outcome.Outcome`), its events as JSON."""


class ColumnJson(TypedDict):
    """One column of a supremacy check as JSON (:meth:`ColumnCheck.as_json`)."""

    column: str
    miron: int
    vess: int
    before: str | None  # who held its marker before the check
    after: str | None  # who holds it after


@dataclass(frozen=True)
class ColumnCheck:
    """One column of a supremacy check (M11): both totals and where its marker goes."""

    column: Column
    totals: tuple[int, int]  # miron, vess
    before: str | None
    after: str | None

    def as_json(self) -> ColumnJson:
        return {
            "column": self.column.id,
            "miron": self.totals[0],
            "vess": self.totals[1],
            "before": self.before,
            "after": self.after,
        }


# ---- a new game ----------------------------------------------------------------------------


def new_game(
    catalogue: Catalogue,
    decks: dict[str, Sequence[str | None]],
    first: str,
    *,
    advanced: bool = False,
    scarab_backs: bool = True,
    bonus: Sequence[str] = (),
    owned: Mapping[str, Sequence[str]] | None = None,
) -> State:
    """A game about to start: each player's deck (top first; the first six are his opening
    hand) and the first player (M5). ``None`` entries are cards the referee does not know;
    ``owned`` the deck lists when the decks are not all named."""
    sides = []
    lists = []
    for p in PLAYERS:
        cards = tuple(decks[p])
        sides.append(Side(hand=cards[:HAND_SIZE], deck=cards[HAND_SIZE:]))
        names = owned[p] if owned is not None else [c for c in cards if c is not None]
        lists.append(tuple(sorted(names)))
    return State(
        catalogue=catalogue,
        turn=Turn(player=first, first=True),
        sides=(sides[0], sides[1]),
        bonus=tuple(bonus),
        owned=(lists[0], lists[1]),
        match=Match(advanced=advanced, scarab_backs=scarab_backs),
    )


def deal(st: State, decks: dict[str, Sequence[str | None]]) -> State:
    """The next game's shuffled decks named (a new game of a match starts with every hand
    and deck unknown). Each deck must be a reordering of the player's deck list."""
    out = st
    for p in PLAYERS:
        want = Counter(st.owned[PLAYERS.index(p)])
        got = Counter(c for c in decks[p] if c is not None)
        if got - want:
            raise NotationError(
                Say(
                    "%(card)s is not in %(deck)s's deck list",
                    card=repr(sorted(got - want)[0]),
                    deck=p,
                ),
                f"decks.{p}",
            )
        cards = tuple(decks[p])
        out = out.with_side(p, replace(out.side(p), hand=cards[:HAND_SIZE], deck=cards[HAND_SIZE:]))
    return out


# ---- strengths and the supremacy check (M11, M13) -------------------------------------------


def card(st: State, name: str) -> CardDef:
    try:
        return st.catalogue[name]
    except KeyError:
        raise NotationError(
            Say("%(card)s is not in the game's card list", card=repr(name[:40])), "card"
        ) from None


def _placed_at(st: State, side: str, at: str) -> tuple[Placed, ...]:
    s = st.side(side)
    return s.deities if at == "centre" else s.column(COLUMN_IDS[at])


def _source_works(st: State, b: Boost) -> bool:
    return any(p.name == b.source and not p.cursed for p in _placed_at(st, b.side, b.at))


def strength(st: State, p: Placed) -> int:
    """A card's strength in the check: 0 when cursed (M10); else printed plus the standing
    changes whose card still stands uncursed (M13)."""
    if p.cursed:
        return 0
    base = card(st, p.name).strength
    return max(0, base + sum(b.delta for b in p.boosts if _source_works(st, b)))


def totals(st: State, col: Column) -> tuple[int, int]:
    m, v = (sum(strength(st, p) for p in st.side(q).column(col)) for q in PLAYERS)
    return m, v


def supremacy_check(st: State) -> list[ColumnCheck]:
    """The six columns as the supremacy check finds them (M11): higher total takes the
    marker, equal totals leave none."""
    out = []
    for col in COLUMNS:
        m, v = totals(st, col)
        after = "miron" if m > v else "vess" if v > m else None
        out.append(ColumnCheck(col, (m, v), st.marker(col), after))
    return out


def holds_both_regions(st: State, p: str) -> bool:
    """M2: the markers on ``p``'s side hold two of the three columns in each region."""
    return all(sum(st.marker(Column(r, k)) == p for k in Kind) >= 2 for r in Region)


# ---- helpers ------------------------------------------------------------------------------


def _illegal(rule: str, reason: str, a: Any = None) -> IllegalActionError:
    return IllegalActionError(rule, reason, a)


def _take_from_hand(st: State, p: str, name: str, rule: str) -> State:
    hand = list(st.side(p).hand)
    if name in hand:
        hand.remove(name)
    elif None in hand:
        hand.remove(None)  # the player states a card of his own hand (he alone sees it)
    else:
        raise _illegal(
            rule,
            Say("%(card)s is not in %(player)s's hand", card=card_name(name), player=p.title()),
        )
    return st.with_side(p, replace(st.side(p), hand=tuple(hand)))


def _to_pile(st: State, p: str, name: str | None, seen: str) -> State:
    s = st.side(p)
    return st.with_side(p, replace(s, discard=(*s.discard, Discarded(name, seen))))


def _draw(st: State, p: str, n: int, named: Sequence[str] | None) -> tuple[State, int]:
    """``p`` draws up to ``n`` cards (M15: an empty deck draws nothing). ``named`` identifies
    them in order where the referee does not know them."""
    s = st.side(p)
    k = min(n, len(s.deck))
    if named is not None and len(named) > k:
        raise _illegal(
            "M15",
            say_n(
                "%(player)s draws %(num)d card, not %(named)s",
                "%(player)s draws %(num)d cards, not %(named)s",
                k,
                player=p.title(),
                named=len(named),
            ),
        )
    drawn = list(s.deck[:k])
    for i, name in enumerate(named or ()):
        card(st, name)
        if drawn[i] is not None and drawn[i] != name:
            raise _illegal(
                "M14",
                Say(
                    "the card on top of %(player)s's deck is not %(card)s",
                    player=p.title(),
                    card=card_name(name),
                ),
            )
        drawn[i] = name
    return st.with_side(p, replace(s, hand=(*s.hand, *drawn), deck=s.deck[k:])), k


def _find(st: State, at: Place, name: str) -> int:
    cards = _placed_at(st, at.side, at.zone)
    for i, p in enumerate(cards):
        if p.name == name:
            return i
    if at.zone == "centre":
        raise _illegal(
            "M12",
            Say(
                "%(player)s has no %(card)s among the deities",
                player=at.side.title(),
                card=card_name(name),
            ),
        )
    raise _illegal(
        "M12",
        Say(
            "%(player)s has no %(card)s in %(column)s",
            player=at.side.title(),
            card=card_name(name),
            column=COLUMN_IDS[at.zone].words,
        ),
    )


def _set_placed(st: State, side: str, at: str, cards: tuple[Placed, ...]) -> State:
    s = st.side(side)
    if at == "centre":
        return st.with_side(side, replace(s, deities=cards))
    return st.with_side(side, s.with_column(COLUMN_IDS[at], cards))


def _tidy_boosts(st: State) -> State:
    """Drops standing changes whose card left play (M13)."""
    out = st
    for p in PLAYERS:
        s = out.side(p)
        for where, _ in s.in_play():
            cards = _placed_at(out, p, where)
            new = tuple(
                replace(
                    c,
                    boosts=tuple(
                        b
                        for b in c.boosts
                        if any(x.name == b.source for x in _placed_at(out, b.side, b.at))
                    ),
                )
                for c in cards
            )
            if new != cards:
                out = _set_placed(out, p, where, new)
    return out


def _enter_centre(
    st: State, p: str, name: str, replaced: str | None
) -> tuple[State, list[dict[str, Any]]]:
    """A deity enters the centre (M9): a fourth replaces one of three; the opponent discards
    all of his."""
    events: list[dict[str, Any]] = []
    s = st.side(p)
    if len(s.deities) >= MAX_DEITIES:
        if replaced is None:
            raise NeedsInputError(
                "M9",
                "replace",
                Say("%(player)s has three deities: which one goes?", player=p.title()),
            )
        names = [d.name for d in s.deities]
        if replaced not in names:
            raise _illegal(
                "M9",
                Say(
                    "%(card)s is not one of %(player)s's deities",
                    card=card_name(replaced),
                    player=p.title(),
                ),
            )
        i = names.index(replaced)
        st = st.with_side(p, replace(s, deities=s.deities[:i] + s.deities[i + 1 :]))
        st = _to_pile(st, p, replaced, "both")
        events.append({"event": "discarded", "player": p, "card": replaced, "from": "centre"})
    elif replaced is not None:
        raise _illegal(
            "M9", Say("%(player)s has fewer than three deities: none is replaced", player=p.title())
        )
    s = st.side(p)
    st = st.with_side(p, replace(s, deities=(*s.deities, Placed(name))))
    o = opponent(p)
    for d in st.side(o).deities:
        st = _to_pile(st, o, d.name, "both")
        events.append({"event": "discarded", "player": o, "card": d.name, "from": "centre"})
    st = st.with_side(o, replace(st.side(o), deities=()))
    return st, events


def _phase_open(st: State, a: Any, what: str, phase: int) -> None:
    """An action in the card's phase with an action left (M3) and, in the first turn, in a
    phase he may still take (M5)."""
    t = st.turn
    if t.phase.number != phase:
        raise _illegal(
            "M3",
            Say(
                "%(card)s is a phase-%(phase)s card: it acts in phase %(phase)s, not in %(now)s",
                card=card_name(what),
                phase=phase,
                now=t.phase.words,
            ),
            a,
        )
    if t.phase is not Phase.ZERO and t.used >= 1:
        raise _illegal(
            "M3", Say("%(phase)s allows one action, and it was taken", phase=t.phase.Words), a
        )
    if t.first and t.phase not in t.taken and len(t.taken) >= 2:
        raise _illegal(
            "M5", Say("The first turn of the game takes only two phases, and two were taken"), a
        )


def _acted(st: State, *, left_hand: bool = False, pending: str | None = None) -> State:
    t = st.turn
    taken = t.taken if t.phase in t.taken else (*t.taken, t.phase)
    return st.evolve(
        turn=replace(
            t,
            fresh=False,
            used=t.used + 1,
            taken=taken,
            left_hand=t.left_hand or left_hand,
            pending=pending,
        )
    )


# ---- the turn's end and the next turn's start (M1, M2, M4) ---------------------------------


def _next_turn(st: State, events: list[dict[str, Any]]) -> tuple[State, list[str]]:
    nxt = opponent(st.turn.player)
    st = st.evolve(turn=Turn(player=nxt))
    events.append({"event": "turn", "player": nxt})
    rules: list[str] = []
    reason = None
    if holds_both_regions(st, nxt):
        reason = EndReason.SUPREMACY
    elif not st.side(opponent(nxt)).deck:
        reason = EndReason.EMPTY_DECK
        rules.append("M15")
    if reason is not None:
        rules.insert(0, "M2")
        st = _game_won(st, nxt, reason)
        events.append({"event": "won", "player": nxt, "reason": reason.value})
    return st, rules


def _game_won(st: State, p: str, reason: EndReason) -> State:
    m = st.match
    if not m.advanced:
        return st.evolve(stage=Stage.OVER, winner=p, reason=reason)
    wins = list(m.wins)
    wins[PLAYERS.index(p)] += 1
    m = replace(m, wins=(wins[0], wins[1]), last_winner=p, set_aside=(None, None), taken_by=())
    if max(wins) >= 2:
        return st.evolve(stage=Stage.OVER, winner=p, reason=reason, match=m)
    return st.evolve(stage=Stage.SET_ASIDE, reason=reason, match=m)


# ---- apply ----------------------------------------------------------------------------------


def apply(st: State, a: Action) -> Outcome:
    """The outcome of ``a`` on ``st``. Raises IllegalActionError, NeedsInputError or
    NotationError; nothing is half applied (the state is a value)."""
    actor = a.by or st.turn.player
    a = resolve_self(a, actor)
    if isinstance(a, (SetAside, Take)):
        return _match_step(st, a, actor)
    if st.stage is not Stage.PLAY:
        what = (
            Say("The match is over")
            if st.stage is Stage.OVER and st.match.advanced
            else (
                Say("The game is over")
                if st.stage is Stage.OVER
                else Say("The next game's decks are being changed (M17)")
            )
        )
        raise _illegal("M2" if st.stage is Stage.OVER else "M17", what, a)
    if isinstance(a, Effect):
        return _effect(st, a, actor)
    if isinstance(a, Hand):
        return _hand(st, a, actor)
    if actor != st.turn.player:
        raise _illegal("M1", Say("It is %(player)s's turn", player=st.turn.player.title()), a)
    st = st.evolve(turn=replace(st.turn, pending=None))
    if isinstance(a, ChangeHand):
        return _change_hand(st, a, actor)
    if isinstance(a, Play):
        return _play(st, a, actor)
    if isinstance(a, Activate):
        return _activate(st, a, actor)
    if isinstance(a, Cure):
        return _cure(st, a, actor)
    if isinstance(a, Pass):
        return _pass(st, a)
    if isinstance(a, Exercise):
        return _exercise(st, a, actor)
    return _end_turn(st, a, actor)


def check(st: State, a: Action) -> None:
    """Raises as :func:`apply` when ``a`` cannot be applied on ``st``."""
    apply(st, a)


def _hand(st: State, a: Hand, p: str) -> Outcome:
    """The holder names unknown cards of his hand (ML-P7), each within his deck's copies."""
    s = st.side(p)
    unknown = s.hand.count(None)
    if len(a.cards) > unknown:
        raise _illegal(
            "ML-P7",
            Say(
                "%(player)s's hand holds %(unknown)s unnamed cards, not %(named)s",
                player=p.title(),
                unknown=unknown,
                named=len(a.cards),
            ),
            a,
        )
    owned = Counter(st.owned[PLAYERS.index(p)])
    known = Counter(n for n in s.hand if n is not None)
    known.update(x.name for _, x in s.in_play())
    known.update(d.name for d in s.discard if d.name is not None)
    hand = list(s.hand)
    for name in a.cards:
        card(st, name)
        known[name] += 1
        if known[name] > owned[name]:
            raise _illegal(
                "ML-P6",
                Say(
                    "%(player)s's deck holds %(count)s %(card)s, all accounted for",
                    player=p.title(),
                    count=owned[name],
                    card=card_name(name),
                ),
                a,
            )
        hand[hand.index(None)] = name
    st = st.with_side(p, replace(s, hand=tuple(hand)))
    ev = {
        "event": "hand_named",
        "player": p,
        "count": len(a.cards),
        "cards": list(a.cards),
        "public": False,
    }
    return Outcome(st, (ev,), ("ML-P7",))


def _change_hand(st: State, a: ChangeHand, p: str) -> Outcome:
    if not st.turn.fresh:
        raise _illegal(
            "M1", Say("A hand change replaces the whole turn: something was already done in it"), a
        )
    if not a.discard:
        raise _illegal("M1", Say("A hand change discards at least one card"), a)
    for name in a.discard:
        card(st, name)
        st = _take_from_hand(st, p, name, "M1")
        st = _to_pile(st, p, name, p)
    need = max(0, HAND_SIZE - len(st.side(p).hand))
    st, k = _draw(st, p, need, a.draws)
    events: list[dict[str, Any]] = [
        {
            "event": "hand_changed",
            "player": p,
            "discarded": len(a.discard),
            "drew": k,
            "cards": list(a.discard),
            "public": False,  # M14: the discards are known to their owner only
        }
    ]
    st = st.evolve(turn=replace(st.turn, fresh=False, left_hand=True))
    st, more = _next_turn(st, events)
    return Outcome(st, tuple(events), ("M1", "M16", *(["M15"] if k < need else []), *more))


def _play(st: State, a: Play, p: str) -> Outcome:
    c = card(st, a.card)
    _phase_open(st, a, a.card, c.phase)
    rules = ["M3"]
    events: list[dict[str, Any]] = []
    if c.type.in_column:
        if a.column is None:
            raise NeedsInputError(
                "M6",
                "column",
                Say("%(card)s is played into a column: which one?", card=card_name(a.card)),
            )
        if a.replace is not None:
            raise _illegal("M9", Say("Only a deity replaces one"), a)
        col = COLUMN_IDS[a.column]
        if not c.fits(col):
            kinds = [k.value for k in Kind if k in c.icons]
            if len(kinds) == 1:
                why = Say(
                    "%(card)s goes only into a %(kind)s column, not %(column)s",
                    card=card_name(a.card),
                    kind=kind_name(kinds[0]),
                    column=col.words,
                )
            elif len(kinds) == 2:
                why = Say(
                    "%(card)s goes only into a %(kind)s or %(other)s column, not %(column)s",
                    card=card_name(a.card),
                    kind=kind_name(kinds[0]),
                    other=kind_name(kinds[1]),
                    column=col.words,
                )
            else:  # no icon (a column card with all three always fits)
                why = Say(
                    "%(card)s goes only into a %(kinds)s column, not %(column)s",
                    card=card_name(a.card),
                    kinds=" or ".join(kinds),
                    column=col.words,
                )
            raise _illegal("M6", why, a)
        if c.type is CardType.COMMANDER:
            rules.append("M8")
            if any(card(st, x.name).type is CardType.COMMANDER for x in st.side(p).column(col)):
                raise _illegal(
                    "M8",
                    Say(
                        "%(player)s already has a commander in %(column)s",
                        player=p.title(),
                        column=col.words,
                    ),
                    a,
                )
        st = _take_from_hand(st, p, a.card, "M6")
        s = st.side(p)
        building = c.type is CardType.BUILDING
        st = st.with_side(
            p, s.with_column(col, (*s.column(col), Placed(a.card, curses=1 if building else 0)))
        )
        rules.append(
            {CardType.SERVANT: "M6", CardType.BUILDING: "M7", CardType.COMMANDER: "M6"}[c.type]
        )
        events.append({"event": "played", "player": p, "card": a.card, "column": col.id})
    else:
        if a.column is not None:
            raise _illegal(
                "M9",
                Say("A %(type)s card is not played into a column", type=type_name(c.type.value)),
                a,
            )
        st = _take_from_hand(st, p, a.card, "M9")
        rules.append("M9")
        if c.type is CardType.DEITY:
            events.append({"event": "played", "player": p, "card": a.card, "column": "centre"})
            st, more = _enter_centre(st, p, a.card, a.replace)
            events.extend(more)
        else:
            if a.replace is not None:
                raise _illegal("M9", Say("Only a deity replaces one"), a)
            st = _to_pile(st, p, a.card, "both")
            events.append({"event": "played", "player": p, "card": a.card, "column": "fate"})
    # a building enters with a curse token (M7), so its text does not act (M10)
    acting = c.type is not CardType.BUILDING and (
        c.text is Text.ACTIVE or (c.type is CardType.FATE and c.text is not Text.NONE)
    )
    if acting or c.text is Text.ACTIVE:
        rules.append("M10")
    st = _acted(st, left_hand=True, pending=a.card if acting else None)
    return Outcome(st, tuple(events), tuple(dict.fromkeys(rules)))


def _activate(st: State, a: Activate, p: str) -> Outcome:
    c = card(st, a.card)
    i = _find(st, Place(p, a.at), a.card)
    placed = _placed_at(st, p, a.at)[i]
    if c.text is not Text.ACTIVE:
        raise _illegal(
            "M10", Say("%(card)s has no active text to activate", card=card_name(a.card)), a
        )
    if placed.cursed:
        raise _illegal(
            "M10", Say("%(card)s is cursed: it has no text until cured", card=card_name(a.card)), a
        )
    _phase_open(st, a, a.card, c.phase)
    st = _acted(st, pending=a.card)
    return Outcome(
        st, ({"event": "activated", "player": p, "card": a.card, "at": a.at},), ("M10", "M3")
    )


def _cure(st: State, a: Cure, p: str) -> Outcome:
    c = card(st, a.card)
    cards = _placed_at(st, a.at.side, a.at.zone)
    i = next((j for j, x in enumerate(cards) if x.name == a.card and x.cursed), None)
    if i is None:
        _find(st, a.at, a.card)
        raise _illegal(
            "M10", Say("%(card)s carries no curse token to remove", card=card_name(a.card)), a
        )
    _phase_open(st, a, a.card, c.phase)
    cured = replace(cards[i], curses=cards[i].curses - 1)
    st = _set_placed(st, a.at.side, a.at.zone, (*cards[:i], cured, *cards[i + 1 :]))
    st = _acted(st)
    return Outcome(
        st,
        (
            {
                "event": "cured",
                "player": p,
                "card": a.card,
                "side": a.at.side,
                "at": a.at.zone,
                "left": cured.curses,
            },
        ),
        ("M10", "M3"),
    )


def _pass(st: State, a: Pass) -> Outcome:
    t = st.turn
    now = PHASES.index(t.phase)
    to = PHASES[now + 1] if a.to is None and now + 1 < len(PHASES) else a.to
    if to is None or PHASES.index(to) <= now:
        raise _illegal(
            "M1", Say("%(phase)s is the last phase: end the turn", phase=t.phase.Words), a
        )
    st = st.evolve(turn=replace(t, phase=to, used=0, fresh=False))
    events: list[dict[str, Any]] = [{"event": "phase", "player": t.player, "phase": to.value}]
    rules = ["M1"]
    if to is Phase.SUPREMACY:
        if t.first and len(t.taken) >= 2:
            rules.append("M5")
            events.append({"event": "supremacy_skipped", "player": t.player})
        else:
            st, checks = _run_check(st)
            events.append({"event": "supremacy_checked", "columns": [c.as_json() for c in checks]})
            rules.append("M11")
    elif t.first:
        rules.append("M5")
    return Outcome(st, tuple(events), tuple(rules))


def _run_check(st: State) -> tuple[State, list[ColumnCheck]]:
    checks = supremacy_check(st)
    t = st.turn
    taken = t.taken if Phase.SUPREMACY in t.taken else (*t.taken, Phase.SUPREMACY)
    return st.evolve(
        markers=tuple(c.after for c in checks), turn=replace(t, checked=True, taken=taken)
    ), checks


def _exercise(st: State, a: Exercise, p: str) -> Outcome:
    t = st.turn
    col = COLUMN_IDS[a.column]
    if t.first and not t.checked and Phase.SUPREMACY not in t.taken and len(t.taken) >= 2:
        raise _illegal(
            "M5",
            Say(
                "The first turn of the game takes only two phases, and two were taken: no "
                "supremacy check, so no supremacy to exercise"
            ),
            a,
        )
    if t.phase is not Phase.SUPREMACY or not t.checked:
        raise _illegal(
            "M11", Say("Supremacy is exercised in the supremacy phase, after the check"), a
        )
    if st.marker(col) != p:
        raise _illegal(
            "M11",
            Say(
                "The marker of %(column)s is not on %(player)s's side",
                column=col.words,
                player=p.title(),
            ),
            a,
        )
    if a.column in t.exercised:
        raise _illegal(
            "M11",
            Say("Supremacy in %(column)s was already exercised this turn", column=col.words),
            a,
        )
    o = opponent(p)
    events: list[dict[str, Any]] = []
    rules = ["M11"]
    if col.kind is Kind.MILITARY:
        if a.target or a.draw:
            raise _illegal("M11", Say("Military supremacy takes no target and draws nothing"), a)
        deck = st.side(o).deck
        if deck:
            st = st.with_side(o, replace(st.side(o), deck=deck[1:]))
            st = _to_pile(st, o, deck[0], "nobody")
            rules.append("M14")
        else:
            rules.append("M15")
        events.append({"event": "deck_top_discarded", "player": o, "count": 1 if deck else 0})
    elif col.kind is Kind.ECONOMIC:
        if a.target:
            raise _illegal("M11", Say("Economic supremacy draws a card; it takes no target"), a)
        st, k = _draw(st, p, 1, None if a.draw is None else [a.draw])
        if not k:
            rules.append("M15")
        events.append({"event": "drew", "player": p, "count": k})
    else:
        if a.draw:
            raise _illegal("M11", Say("Religious supremacy curses a card; it draws nothing"), a)
        region = [c for c in COLUMNS if c.region is col.region]
        targets = [(x.name, c.id) for c in region for x in st.side(o).column(c)]
        if not targets:
            raise _illegal(
                "M11",
                Say(
                    "%(player)s has no card in the %(region)s region to curse",
                    player=o.title(),
                    region=region_name(col.region.value),
                ),
                a,
            )
        if a.target is None:
            raise NeedsInputError(
                "M11",
                "target",
                Say(
                    "Which card of %(player)s's in the %(region)s region is cursed?",
                    player=o.title(),
                    region=region_name(col.region.value),
                ),
            )
        name, where = a.target
        tcol = COLUMN_IDS[where]
        if tcol.region is not col.region:
            raise _illegal(
                "M11",
                Say(
                    "Religious supremacy in the %(region)s region curses only there, "
                    "not in %(column)s",
                    region=region_name(col.region.value),
                    column=tcol.words,
                ),
                a,
            )
        cards = st.side(o).column(tcol)
        i = _find(st, Place(o, where), name)
        cursed = replace(cards[i], curses=cards[i].curses + 1)
        st = st.with_side(o, st.side(o).with_column(tcol, (*cards[:i], cursed, *cards[i + 1 :])))
        rules.append("M10")
        events.append(
            {"event": "cursed", "player": o, "card": name, "at": where, "by": "supremacy"}
        )
    st = st.evolve(turn=replace(st.turn, exercised=(*t.exercised, a.column)))
    return Outcome(st, tuple(events), tuple(rules))


def _end_turn(st: State, a: EndTurn, p: str) -> Outcome:
    t = st.turn
    rules = ["M1"]
    if t.phase is not Phase.SUPREMACY and not t.first:
        raise _illegal(
            "M11", Say("The supremacy check is due: pass to the supremacy phase first"), a
        )
    if t.first:
        rules.append("M5")
    events: list[dict[str, Any]] = []
    hand = st.side(p).hand
    if not t.left_hand and hand:
        rules.append("M4")
        if a.discard is None:
            raise NeedsInputError(
                "M4",
                "discard",
                Say(
                    "No card left %(player)s's hand this turn: which one does he discard?",
                    player=p.title(),
                ),
            )
        card(st, a.discard)
        st = _take_from_hand(st, p, a.discard, "M4")
        st = _to_pile(st, p, a.discard, p)
        events.append(
            {
                "event": "discarded",
                "player": p,
                "card": a.discard,
                "from": "hand",
                "rule": "M4",
                "public": False,
            }
        )
    elif a.discard is not None:
        raise _illegal(
            "M4",
            Say("No discard is due: a card already left the hand this turn (or the hand is empty)"),
            a,
        )
    events.append({"event": "turn_ended", "player": p})
    st, more = _next_turn(st, events)
    return Outcome(st, tuple(events), (*rules, *more))


# ---- effects (M12, M13) ---------------------------------------------------------------------


def _effect(st: State, a: Effect, p: str) -> Outcome:
    c = card(st, a.card)
    t = st.turn
    if a.at is None:
        source: Place | None = None
        if c.type is not CardType.FATE:
            source = _where_in_play(st, p, a.card)
            if source is not None and all(
                x.cursed for x in _placed_at(st, p, source.zone) if x.name == a.card
            ):  # a building just played, say: it entered cursed (M7)
                raise _illegal(
                    "M10",
                    Say("%(card)s is cursed: it has no text until cured", card=card_name(a.card)),
                    a,
                )
        if t.pending != a.card or p != t.player:
            raise _illegal(
                "M12",
                Say(
                    "%(card)s's text is not acting now: say where the card stands in play",
                    card=card_name(a.card),
                ),
                a,
            )
    else:
        source = Place(p, a.at)
        i = _find(st, source, a.card)
        if _placed_at(st, p, a.at)[i].cursed:
            raise _illegal(
                "M10",
                Say("%(card)s is cursed: it has no text until cured", card=card_name(a.card)),
                a,
            )
        if c.text is Text.NONE:
            raise _illegal("M12", Say("%(card)s has no text", card=card_name(a.card)), a)
        if c.text is Text.ACTIVE and t.pending != a.card:
            raise _illegal(
                "M10",
                Say(
                    "%(card)s's text is active: it acts when played or activated",
                    card=card_name(a.card),
                ),
                a,
            )
    events: list[dict[str, Any]] = []
    stated = {side: list(a.hand_cards_of(side) or ()) for side in PLAYERS}
    for op in a.ops:
        if isinstance(op, Move) and op.src.zone == "hand" and op.card is None:
            if not st.side(op.src.side).hand:
                raise _illegal(
                    "M12", Say("%(player)s's hand is empty", player=op.src.side.title()), a
                )
            left = stated[op.src.side]
            if not left:
                raise NeedsInputError(
                    "M12",
                    f"hand_cards.{op.src.side}",
                    Say(
                        "Which card leaves %(player)s's hand? He names it.",
                        player=op.src.side.title(),
                    ),
                    (op.src.side,),
                )
            op = replace(op, card=left.pop(0))
        st = _op(st, p, a, op, source, events)
    if any(stated.values()):
        raise _illegal("M12", Say("More hand cards were named than leave a hand"), a)
    st = _tidy_boosts(st)
    st = _settle_pending(st)
    return Outcome(
        st, ({"event": "effect", "player": p, "card": a.card, "ops": len(a.ops)}, *events), ("M12",)
    )


def _where_in_play(st: State, p: str, name: str) -> Place | None:
    """Where ``p`` has ``name`` in play: an uncursed copy first."""
    found = sorted(
        ((where, x) for where, x in st.side(p).in_play() if x.name == name),
        key=lambda f: f[1].cursed,
    )
    return Place(p, found[0][0]) if found else None


def pending_acts(st: State) -> bool:
    """Whether the turn's pending card can still act (M10, M12): a fate card on its player's
    pile, any other card in play on his side with an uncursed copy."""
    t = st.turn
    if t.pending is None:
        return True
    s = st.side(t.player)
    if card(st, t.pending).type is CardType.FATE:
        return any(d.name == t.pending for d in s.discard)
    return any(x.name == t.pending and not x.cursed for _, x in s.in_play())


def _settle_pending(st: State) -> State:
    """An effect that took its pending card out of play, or cursed it, ends its text's turn
    to act: nothing of it is pending any more (M10)."""
    if pending_acts(st):
        return st
    return st.evolve(turn=replace(st.turn, pending=None))


def _op(
    st: State, p: str, a: Effect, op: Op, source: Place | None, events: list[dict[str, Any]]
) -> State:
    if isinstance(op, Draw):
        st, k = _draw(st, op.side, op.count, op.cards)
        events.append({"event": "drew", "player": op.side, "count": k})
        return st
    if isinstance(op, Strength):
        if source is None:
            raise _illegal(
                "M13",
                Say(
                    "A strength change lasts while its card stays in play: %(card)s is not in play",
                    card=card_name(a.card),
                ),
                a,
            )
        cards = _placed_at(st, op.at.side, op.at.zone)
        i = _find(st, op.at, op.card)
        boosted = replace(
            cards[i], boosts=(*cards[i].boosts, Boost(a.card, source.side, source.zone, op.delta))
        )
        events.append(
            {
                "event": "strength",
                "player": op.at.side,
                "card": op.card,
                "at": op.at.zone,
                "delta": op.delta,
            }
        )
        return _set_placed(st, op.at.side, op.at.zone, (*cards[:i], boosted, *cards[i + 1 :]))
    if isinstance(op, Curse):
        cards = _placed_at(st, op.at.side, op.at.zone)
        found = (
            next((j for j, x in enumerate(cards) if x.name == op.card and x.cursed), None)
            if op.cure
            else _find(st, op.at, op.card)
        )
        if found is None:
            _find(st, op.at, op.card)
            raise _illegal(
                "M10", Say("%(card)s carries no curse token to remove", card=card_name(op.card)), a
            )
        i = found
        new = replace(cards[i], curses=cards[i].curses + (-1 if op.cure else 1))
        events.append(
            {
                "event": "cured" if op.cure else "cursed",
                "player": op.at.side,
                "card": op.card,
                "at": op.at.zone,
            }
        )
        return _set_placed(st, op.at.side, op.at.zone, (*cards[:i], new, *cards[i + 1 :]))
    return _move(st, p, a, op, events)


def _move(st: State, p: str, a: Effect, op: Move, events: list[dict[str, Any]]) -> State:
    src, dst = op.src, op.dst
    name = op.card
    if name is not None:
        card(st, name)
    if not st.match.advanced:
        owner = src.side if name is None else card(st, name).deck
        if dst.side != owner:
            raise _illegal(
                "ML-P8",
                Say(
                    "In a basic game a card stays with its owner: %(card)s of %(owner)s's goes "
                    "to no zone of %(player)s's",
                    card=card_name(name) if name else Say("a card"),
                    owner=owner.title(),
                    player=dst.side.title(),
                )
                if owner in PLAYERS
                else Say(
                    "In a basic game a card stays with its owner: %(card)s of the bonus deck's "
                    "goes to no zone of %(player)s's",
                    card=card_name(name) if name else Say("a card"),
                    player=dst.side.title(),
                ),
            )
    s = st.side(src.side)
    seen = "both"
    curses = 0
    if src.zone == "hand":
        assert name is not None  # named in the operation or by hand_cards (_effect)
        st = _take_from_hand(st, src.side, name, "M12")
        seen = src.side
        if src.side == st.turn.player and dst.zone in ("discard", "centre", *COLUMN_IDS):
            st = st.evolve(turn=replace(st.turn, left_hand=True))  # M4: played or discarded
    elif src.zone in ("deck", "deck-bottom"):
        if not s.deck:
            raise _illegal("M15", Say("%(player)s's deck is empty", player=src.side.title()))
        i = 0 if src.zone == "deck" else len(s.deck) - 1
        top = s.deck[i]
        if name is not None and top is not None and top != name:
            raise _illegal(
                "M14",
                Say(
                    "The card there in %(player)s's deck is not %(card)s",
                    player=src.side.title(),
                    card=card_name(name),
                ),
            )
        name = name or top
        st = st.with_side(src.side, replace(s, deck=s.deck[:i] + s.deck[i + 1 :]))
        seen = "nobody"
    elif src.zone == "discard":
        j = next((k for k, d in enumerate(s.discard) if d.name == name), None)
        if j is None:
            j = next((k for k, d in enumerate(s.discard) if d.name is None), None)
        if j is None or name is None:
            raise _illegal(
                "M12",
                Say(
                    "%(player)s's pile holds no %(card)s",
                    player=src.side.title(),
                    card=card_name(name),
                )
                if name
                else Say("%(player)s's pile holds no such card", player=src.side.title()),
            )
        seen = s.discard[j].seen
        st = st.with_side(src.side, replace(s, discard=s.discard[:j] + s.discard[j + 1 :]))
    else:
        assert name is not None
        cards = _placed_at(st, src.side, src.zone)
        i = _find(st, src, name)
        curses = cards[i].curses
        st = _set_placed(st, src.side, src.zone, cards[:i] + cards[i + 1 :])
    d = st.side(dst.side)
    if dst.zone == "hand":
        st = st.with_side(dst.side, replace(d, hand=(*d.hand, name)))
    elif dst.zone == "deck":
        st = st.with_side(dst.side, replace(d, deck=(name, *d.deck)))
    elif dst.zone == "deck-bottom":
        st = st.with_side(dst.side, replace(d, deck=(*d.deck, name)))
    elif dst.zone == "discard":
        st = _to_pile(st, dst.side, name, seen)
    else:
        if name is None:
            raise _illegal("M12", Say("A card that comes into play is named: it is seen by both"))
        c = card(st, name)
        if dst.zone == "centre":
            if c.type is not CardType.DEITY:
                raise _illegal(
                    "M9",
                    Say(
                        "Only deities stand in the centre; %(card)s is a %(type)s",
                        card=card_name(name),
                        type=type_name(c.type.value),
                    ),
                )
            if len(st.side(dst.side).deities) >= MAX_DEITIES:
                raise _illegal(
                    "M9",
                    Say("%(player)s has three deities: discard one first", player=dst.side.title()),
                )
            st, more = _enter_centre(st, dst.side, name, None)
            events.extend(more)
        else:
            if not c.type.in_column:
                raise _illegal(
                    "M9",
                    Say("A %(type)s card does not stand in a column", type=type_name(c.type.value)),
                )
            if src.zone not in ("centre", *COLUMN_IDS):
                curses = 1 if c.type is CardType.BUILDING else 0  # M7: a building enters cursed
            d = st.side(dst.side)
            col = COLUMN_IDS[dst.zone]
            if c.type is CardType.COMMANDER and any(
                card(st, x.name).type is CardType.COMMANDER for x in d.column(col)
            ):  # M8 holds for a text too (ML-P4)
                raise _illegal(
                    "M8",
                    Say(
                        "%(player)s already has a commander in %(column)s",
                        player=dst.side.title(),
                        column=col.words,
                    ),
                )
            st = st.with_side(dst.side, d.with_column(col, (*d.column(col), Placed(name, curses))))
    events.append(
        {
            "event": "moved",
            "card": name if seen == "both" or dst.zone in ("centre", *COLUMN_IDS) else None,
            "from": src.as_json(),
            "to": dst.as_json(),
        }
    )
    return st


# ---- the match (M17, M18) --------------------------------------------------------------------


def _match_step(st: State, a: SetAside | Take, p: str) -> Outcome:
    m = st.match
    i = PLAYERS.index(p)
    if isinstance(a, SetAside):
        if st.stage is not Stage.SET_ASIDE:
            raise _illegal("M17", Say("Cards are set aside only between the games of a match"), a)
        if a.by is None:
            raise NeedsInputError("M17", "by", Say("Who sets these cards aside?"))
        if m.set_aside[i] is not None:
            raise _illegal(
                "M17", Say("%(player)s has already set his cards aside", player=p.title()), a
            )
        if len(a.cards) > MAX_SET_ASIDE:
            raise _illegal(
                "M17",
                Say(
                    "At most %(most)s cards are set aside, not %(named)s",
                    most=MAX_SET_ASIDE,
                    named=len(a.cards),
                ),
                a,
            )
        left = Counter(st.owned[i])
        for name in a.cards:
            card(st, name)
            if left[name] <= 0:
                raise _illegal(
                    "M17",
                    Say(
                        "%(card)s is not in %(player)s's deck",
                        card=card_name(name),
                        player=p.title(),
                    ),
                    a,
                )
            left[name] -= 1
        aside = list(m.set_aside)
        aside[i] = tuple(a.cards)
        m = replace(m, set_aside=(aside[0], aside[1]))
        st = st.evolve(match=m)
        events: list[dict[str, Any]] = [
            {
                "event": "set_aside",
                "player": p,
                "count": len(a.cards),
                "cards": list(a.cards),
                "public": False,
            }
        ]
        if all(x is not None for x in m.set_aside):
            owned = [
                tuple(sorted((Counter(st.owned[k]) - Counter(m.set_aside[k] or ())).elements()))
                for k in (0, 1)
            ]
            bonus = (*st.bonus, *(m.set_aside[0] or ()), *(m.set_aside[1] or ()))
            st = st.evolve(stage=Stage.TAKE, owned=(owned[0], owned[1]), bonus=bonus)
            events.append({"event": "bonus_revealed", "cards": list(bonus)})
        return Outcome(st, tuple(events), ("M17",))
    if st.stage is not Stage.TAKE:
        raise _illegal(
            "M17",
            Say(
                "Bonus cards are taken only between the games of a match, "
                "after both set theirs aside"
            ),
            a,
        )
    loser = opponent(m.last_winner or "miron")
    due = loser if not m.taken_by else opponent(loser)
    if a.by is None:
        raise NeedsInputError("M17", "by", Say("Who takes these cards?"))
    if p != due:
        raise _illegal(
            "M17",
            Say(
                "%(player)s takes his bonus cards first (the loser of the last game first)",
                player=due.title(),
            )
            if due == loser
            else Say(
                "%(player)s takes his bonus cards now (the loser of the last game first)",
                player=due.title(),
            ),
            a,
        )
    want = len(m.set_aside[i] or ())
    if len(a.cards) != want:
        raise _illegal(
            "M17",
            say_n(
                "%(player)s set %(num)d card aside and takes as many, not %(named)s",
                "%(player)s set %(num)d cards aside and takes as many, not %(named)s",
                want,
                player=p.title(),
                named=len(a.cards),
            ),
            a,
        )
    left = Counter(st.bonus)
    backs = {c.back for c in st.catalogue.cards.values() if c.deck == p} or {"minotaur"}
    for name in a.cards:
        c = card(st, name)
        if left[name] <= 0:
            raise _illegal("M17", Say("%(card)s is not in the bonus deck", card=card_name(name)), a)
        if m.scarab_backs and c.back not in backs:
            raise _illegal(
                "M18",
                Say(
                    "%(card)s has a %(back)s back; %(player)s's deck takes only cards "
                    "with its own back",
                    card=card_name(name),
                    back=c.back,
                    player=p.title(),
                ),
                a,
            )
        left[name] -= 1
    bonus = tuple(left.elements())
    owned = list(st.owned)
    owned[i] = tuple(sorted((*owned[i], *a.cards)))
    m = replace(m, taken_by=(*m.taken_by, p))
    st = st.evolve(bonus=bonus, owned=(owned[0], owned[1]), match=m)
    events = [{"event": "took", "player": p, "cards": list(a.cards)}]
    rules = ["M17"]
    if len(m.taken_by) == 2:
        sides = tuple(
            Side(hand=(None,) * HAND_SIZE, deck=(None,) * (len(owned[k]) - HAND_SIZE))
            for k in (0, 1)
        )
        st = st.evolve(
            stage=Stage.PLAY,
            sides=(sides[0], sides[1]),
            markers=(None,) * 6,
            turn=Turn(player=loser, first=True),
            reason=None,
            match=replace(m, set_aside=(None, None), taken_by=()),
        )
        events.append({"event": "game_started", "first": loser})
    return Outcome(st, tuple(events), tuple(rules))


# ---- what may be done now ---------------------------------------------------------------------


def whose(st: State) -> tuple[str, ...]:
    """The players who may act now (both while cards are set aside, M17)."""
    if st.stage is Stage.PLAY:
        return (st.turn.player,)
    m = st.match
    if st.stage is Stage.SET_ASIDE:
        return tuple(p for p, x in zip(PLAYERS, m.set_aside, strict=True) if x is None)
    if st.stage is Stage.TAKE:
        loser = opponent(m.last_winner or "miron")
        return (loser if not m.taken_by else opponent(loser),)
    return ()


def legal_actions(st: State) -> list[Action]:
    """Every action the players may take now, one of each kind of choice (hand changes and
    set-asides of one card stand for every larger choice; effects are the texts' own)."""
    if st.stage in (Stage.SET_ASIDE, Stage.TAKE):
        out: list[Action] = []
        for p in whose(st):
            i = PLAYERS.index(p)
            if st.stage is Stage.SET_ASIDE:
                out.append(SetAside((), by=p))
                out += [SetAside((n,), by=p) for n in sorted(set(st.owned[i]))]
            else:
                out += _takes(st, p)
        return out
    if st.stage is not Stage.PLAY:
        return []
    cands: list[Action] = []
    p = st.turn.player
    t = st.turn
    hand = sorted({n for n in st.side(p).hand if n is not None})
    if t.fresh:
        cands += [ChangeHand((n,)) for n in hand]
    for n in hand:
        c = st.catalogue[n]
        if c.type.in_column:
            cands += [Play(n, col.id) for col in COLUMNS if c.fits(col)]
        elif c.type is CardType.DEITY and len(st.side(p).deities) >= MAX_DEITIES:
            cands += [Play(n, replace=d.name) for d in st.side(p).deities]
        else:
            cands.append(Play(n))
    for where, x in st.side(p).in_play():
        cands.append(Activate(x.name, where))
    for q in PLAYERS:
        for where, x in st.side(q).in_play():
            if x.cursed:
                cands.append(Cure(x.name, Place(q, where)))
    now = PHASES.index(t.phase)
    cands += [Pass(ph) for ph in PHASES[now + 1 :]]
    if t.phase is Phase.SUPREMACY and t.checked:
        o = opponent(p)
        for col in COLUMNS:
            if col.kind is Kind.RELIGIOUS:
                cands += [
                    Exercise(col.id, (x.name, c2.id))
                    for c2 in COLUMNS
                    if c2.region is col.region
                    for x in st.side(o).column(c2)
                ]
            else:
                cands.append(Exercise(col.id))
    if not t.left_hand and st.side(p).hand:
        cands += [EndTurn(n) for n in hand]
    else:
        cands.append(EndTurn())
    out = []
    seen: set[Action] = set()
    for a in cands:
        if a in seen:
            continue
        seen.add(a)
        try:
            apply(st, a)
        except (IllegalActionError, NeedsInputError):
            continue
        out.append(a)
    return out


def _takes(st: State, p: str) -> list[Action]:
    want = len(st.match.set_aside[PLAYERS.index(p)] or ())
    pool = sorted(st.bonus)
    out: list[Action] = []
    if want <= len(pool):
        out.append(Take(tuple(pool[:want]), by=p))
    return [a for a in out if _ok(st, a)]


def _ok(st: State, a: Action) -> bool:
    try:
        apply(st, a)
    except (IllegalActionError, NeedsInputError):
        return False
    return True


def all_cards(st: State) -> Iterable[str | None]:
    """Every card of both players wherever it lies, and the bonus deck (between the games of
    a match, where the last game's table is still shown: the players' deck lists)."""
    if st.stage in (Stage.SET_ASIDE, Stage.TAKE):
        for o in st.owned:
            yield from o
        yield from st.bonus
        return
    for s in st.sides:
        yield from s.hand
        yield from s.deck
        yield from (d.name for d in s.discard)
        yield from (x.name for _, x in s.in_play())
    yield from st.bonus
