"""The Minotaur Lords position notation and ruling files (docs/minotaur.md).

A ruling file carries its own card list (``cards``), a position and ``actions``; the result
object has the keys every game's ruling has (``legal``, ``failed_at``, ``winner``, ``reason``,
``rules``, ``ruling``, ``position``) and ``supremacy``, the check of every column as it
stands after the actions. Every ruling cites M-numbers.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from engine.errors import (
    CatalogueError,
    IllegalActionError,
    NeedsInputError,
    NotationError,
)
from engine.minotaur.actions import (
    SELF,
    Action,
    Activate,
    ChangeHand,
    Cure,
    Effect,
    EndTurn,
    Exercise,
    Hand,
    Pass,
    Play,
    SetAside,
    parse_action,
)
from engine.minotaur.cards import (
    COLUMN_IDS,
    COLUMNS,
    PLAYERS,
    CardType,
    Catalogue,
    Text,
    card_from_json,
)
from engine.minotaur.names import card_name, type_name
from engine.minotaur.rules import apply, pending_acts, supremacy_check
from engine.minotaur.state import (
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
from engine.say import Say, say_n

GAME = "minotaur"
MAX_CARDS = 120
MAX_ACTIONS = 200
MAX_ZONE = 84
_POSITION_KEYS = {"game", "cards", "turn", "markers", "miron", "vess", "bonus", "match", "over"}
_FILE_KEYS = _POSITION_KEYS | {"actions", "id", "source", "note", "expect"}
_SIDE_KEYS = {"hand", "deck", "discard", "columns", "deities", "owned"}
_TURN_KEYS = {
    "player",
    "first",
    "phase",
    "fresh",
    "used",
    "taken",
    "left_hand",
    "checked",
    "exercised",
    "pending",
}
_PLACED = re.compile(r"^(?P<name>[^*]+?)(?:\*(?P<curses>[0-9]{1,2}))?$")


PHASE_IDS = tuple(p.value for p in Phase)


def _one_of(v: object, allowed: Collection[str]) -> bool:
    """Whether ``v`` is one of the strings ``allowed`` (any other JSON value is not, a list or
    an object included)."""
    return isinstance(v, str) and v in allowed


def _obj(v: object, where: str, keys: set[str]) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise NotationError(Say("an object"), where)
    extra = set(v) - keys
    if extra:
        raise NotationError(Say("unknown key %(key)s", key=repr(sorted(extra)[0])), where)
    return v


def _bool(v: object, where: str) -> bool:
    if not isinstance(v, bool):
        raise NotationError(Say("true or false"), where)
    return v


def _list(v: object, where: str, most: int = MAX_ZONE) -> list[Any]:
    if not isinstance(v, list) or len(v) > most:
        raise NotationError(Say("a list of at most %(most)s", most=most), where)
    return v


def _known(cat: Catalogue, v: object, where: str) -> str:
    if not isinstance(v, str) or v not in cat:
        raise NotationError(
            Say("%(card)s is not in the file's card list", card=repr(str(v)[:40])), where
        )
    return v


def _maybe(cat: Catalogue, v: object, where: str) -> str | None:
    return None if v == "?" else _known(cat, v, where)


def read_catalogue(raw: object, where: str = "cards") -> Catalogue:
    if raw is None:
        raise NotationError(Say("missing: a Minotaur Lords file carries its own card list"), where)
    cards = _list(raw, where, MAX_CARDS)
    try:
        return Catalogue(card_from_json(c, f"{where}[{i}]") for i, c in enumerate(cards))
    except CatalogueError as e:
        raise NotationError(str(e), where) from None


def _placed(cat: Catalogue, v: object, where: str) -> Placed:
    if isinstance(v, str):
        m = _PLACED.match(v)
        if not m:
            raise NotationError(
                Say("%(got)s: a card name, or Name*N with N curse tokens", got=repr(v[:40])), where
            )
        return Placed(_known(cat, m["name"], where), int(m["curses"] or 0))
    o = _obj(v, where, {"card", "curses", "boosts"})
    curses = o.get("curses", 0)
    if isinstance(curses, bool) or not isinstance(curses, int) or not 0 <= curses <= 20:
        raise NotationError(Say("curses: 0 to 20"), f"{where}.curses")
    boosts = []
    for i, b in enumerate(_list(o.get("boosts", []), f"{where}.boosts", 20)):
        bo = _obj(b, f"{where}.boosts[{i}]", {"from", "side", "at", "delta"})
        delta = bo.get("delta")
        if isinstance(delta, bool) or not isinstance(delta, int) or not -99 <= delta <= 99:
            raise NotationError(Say("delta: -99 to 99"), f"{where}.boosts[{i}].delta")
        at = bo.get("at")
        if not _one_of(at, ("centre", *COLUMN_IDS)):
            raise NotationError(Say("at: a column or centre"), f"{where}.boosts[{i}].at")
        side = bo.get("side")
        if not _one_of(side, PLAYERS):
            raise NotationError(Say("side: miron or vess"), f"{where}.boosts[{i}].side")
        boosts.append(
            Boost(
                _known(cat, bo.get("from"), f"{where}.boosts[{i}].from"), str(side), str(at), delta
            )
        )
    return Placed(_known(cat, o.get("card"), f"{where}.card"), curses, tuple(boosts))


def _discarded(cat: Catalogue, v: object, where: str, owner: str) -> Discarded:
    if not isinstance(v, str):
        raise NotationError(Say('a pile entry: "Name", "(Name)" or "?" / "?Name"'), where)
    if v.startswith("?"):
        return Discarded(None if v == "?" else _known(cat, v[1:], where), "nobody")
    if v.startswith("(") and v.endswith(")"):
        return Discarded(_known(cat, v[1:-1], where), owner)
    return Discarded(_known(cat, v, where), "both")


def _side(cat: Catalogue, raw: object, p: str) -> Side:
    o = _obj(raw, p, _SIDE_KEYS)
    hand = tuple(
        _maybe(cat, x, f"{p}.hand[{i}]")
        for i, x in enumerate(_list(o.get("hand", []), f"{p}.hand"))
    )
    deck_raw = o.get("deck", 0)
    if isinstance(deck_raw, int) and not isinstance(deck_raw, bool):
        if not 0 <= deck_raw <= MAX_ZONE:
            raise NotationError(Say("a deck holds 0 to %(most)s cards", most=MAX_ZONE), f"{p}.deck")
        deck: tuple[str | None, ...] = (None,) * deck_raw
    else:
        deck = tuple(
            _maybe(cat, x, f"{p}.deck[{i}]") for i, x in enumerate(_list(deck_raw, f"{p}.deck"))
        )
    pile = tuple(
        _discarded(cat, x, f"{p}.discard[{i}]", p)
        for i, x in enumerate(_list(o.get("discard", []), f"{p}.discard"))
    )
    cols_raw = _obj(o.get("columns", {}), f"{p}.columns", set(COLUMN_IDS))
    columns = tuple(
        tuple(
            _placed(cat, x, f"{p}.columns.{c.id}[{i}]")
            for i, x in enumerate(_list(cols_raw.get(c.id, []), f"{p}.columns.{c.id}", 30))
        )
        for c in COLUMNS
    )
    deities = tuple(
        _placed(cat, x, f"{p}.deities[{i}]")
        for i, x in enumerate(_list(o.get("deities", []), f"{p}.deities", 3))
    )
    return Side(hand, deck, pile, columns, deities)


def read_position(
    raw: Mapping[str, Any], keys: set[str] = _POSITION_KEYS, *, possible: bool = True
) -> State:
    """A state from a position (or a ruling file). Raises NotationError naming the input:
    malformed, or (``possible``) a position no game reaches (:func:`check_possible`)."""
    extra = set(raw) - keys
    if extra:
        raise NotationError(Say("unknown key %(key)s", key=repr(sorted(extra)[0])), "file")
    if raw.get("game") != GAME:
        raise NotationError(f'"game": "{GAME}" for a Minotaur Lords position', "game")
    cat = read_catalogue(raw.get("cards"))
    t = _obj(raw.get("turn"), "turn", _TURN_KEYS)
    player = t.get("player")
    if player not in PLAYERS:
        raise NotationError(Say("whose turn: miron or vess"), "turn.player")
    phase = t.get("phase", "0")
    if not _one_of(phase, PHASE_IDS):
        raise NotationError(Say("a phase: 0, 1, 2 or supremacy"), "turn.phase")
    used = t.get("used", 0)
    if isinstance(used, bool) or (
        used not in (0, 1) and not (phase == "0" and isinstance(used, int) and 0 <= used <= 99)
    ):
        raise NotationError(
            Say("used: the actions used in this phase (0 or 1 in phases 1 and 2)"), "turn.used"
        )
    taken = tuple(
        Phase(x) if _one_of(x, PHASE_IDS) else _bad("a phase", "turn.taken")
        for x in _list(t.get("taken", []), "turn.taken", 4)
    )
    exercised = tuple(
        x if _one_of(x, COLUMN_IDS) else _bad("a column", "turn.exercised")
        for x in _list(t.get("exercised", []), "turn.exercised", 6)
    )
    pending = t.get("pending")
    turn = Turn(
        player=str(player),
        first=_bool(t.get("first", False), "turn.first"),
        phase=Phase(phase),
        fresh=_bool(t.get("fresh", phase == "0" and used == 0 and not taken), "turn.fresh"),
        used=used,
        taken=taken,
        left_hand=_bool(t.get("left_hand", False), "turn.left_hand"),
        checked=_bool(t.get("checked", phase == "supremacy"), "turn.checked"),
        exercised=exercised,
        pending=None if pending is None else _known(cat, pending, "turn.pending"),
    )
    mk = _obj(raw.get("markers", {}), "markers", set(COLUMN_IDS))
    for k, v in mk.items():
        if v not in PLAYERS:
            raise NotationError(Say("a marker lies on miron's or vess's side"), f"markers.{k}")
    markers = tuple(mk.get(c.id) for c in COLUMNS)
    sides = (_side(cat, raw.get("miron", {}), "miron"), _side(cat, raw.get("vess", {}), "vess"))
    bonus = tuple(
        _known(cat, x, f"bonus[{i}]") for i, x in enumerate(_list(raw.get("bonus", []), "bonus"))
    )
    m = _obj(raw.get("match", {}), "match", {"advanced", "wins", "scarab_backs"})
    wins = m.get("wins", {"miron": 0, "vess": 0})
    w = _obj(wins, "match.wins", set(PLAYERS))
    for k, v in w.items():
        if isinstance(v, bool) or v not in (0, 1):
            raise NotationError(
                Say("a player has won 0 or 1 games of a match still on"), f"match.wins.{k}"
            )
    match = Match(
        advanced=_bool(m.get("advanced", False), "match.advanced"),
        wins=(w.get("miron", 0), w.get("vess", 0)),
        scarab_backs=_bool(m.get("scarab_backs", True), "match.scarab_backs"),
    )
    owned = tuple(
        tuple(
            sorted(
                n
                for n in (
                    *s.hand,
                    *s.deck,
                    *(d.name for d in s.discard),
                    *(x.name for _, x in s.in_play()),
                )
                if n is not None
            )
        )
        for s in sides
    )
    st = State(cat, turn, sides, markers, bonus=bonus, owned=(owned[0], owned[1]), match=match)
    if possible:
        check_possible(st)
    return st


def _zones(s: Side, p: str) -> list[tuple[str, str]]:
    """Every card ``p``'s side names, with where the notation writes it."""
    out = [(f"{p}.hand[{i}]", n) for i, n in enumerate(s.hand) if n is not None]
    out += [(f"{p}.deck[{i}]", n) for i, n in enumerate(s.deck) if n is not None]
    out += [(f"{p}.discard[{i}]", d.name) for i, d in enumerate(s.discard) if d.name is not None]
    for c, cards in zip(COLUMNS, s.columns, strict=True):
        out += [(f"{p}.columns.{c.id}[{i}]", x.name) for i, x in enumerate(cards)]
    out += [(f"{p}.deities[{i}]", x.name) for i, x in enumerate(s.deities)]
    return out


def check_possible(st: State) -> None:
    """Refuses a position no game reaches, naming the field and the rule: deities on both
    sides (M9), a deity or fate card in a column or another card in the centre (M9), two
    commanders of a player in one column (M8), another deck's card on a side in a basic game
    (ML-P8), more copies of a card than the card list has (M12, ML-P6), a pending card whose
    text cannot act (M10, M12), a supremacy check or an exercise before the supremacy phase
    or of a column the player does not hold (M11). Raises NotationError."""
    cat = st.catalogue
    if all(s.deities for s in st.sides):
        raise NotationError(
            Say("both players have deities in play; only one player may have deities (M9)"),
            "vess.deities",
        )
    for p, s in zip(PLAYERS, st.sides, strict=True):
        for c, cards in zip(COLUMNS, s.columns, strict=True):
            commanders = 0
            for i, x in enumerate(cards):
                t = cat[x.name].type
                where = f"{p}.columns.{c.id}[{i}]"
                if not t.in_column:
                    raise NotationError(
                        f"{x.name} is a {t.value} card: a deity stands in the centre and a fate "
                        "card is discarded once played; neither stands in a column (M9)",
                        where,
                    )
                commanders += t is CardType.COMMANDER
                if commanders > 1:
                    raise NotationError(
                        f"{x.name} is a second commander of {p.title()}'s in {c.words}; a "
                        "player has one commander in each column (M8)",
                        where,
                    )
        for i, x in enumerate(s.deities):
            t = cat[x.name].type
            if t is not CardType.DEITY:
                raise NotationError(
                    Say(
                        "%(card)s is a %(type)s card: only deities stand in the centre (M9)",
                        card=card_name(x.name),
                        type=type_name(t.value),
                    ),
                    f"{p}.deities[{i}]",
                )
        if not st.match.advanced:
            for where, name in _zones(s, p):
                deck = cat[name].deck
                if deck != p:
                    whose = f"of {deck.title()}'s deck" if deck in PLAYERS else "a bonus card"
                    raise NotationError(
                        f"{name} is {whose}: in a basic game each player has only his own "
                        "deck's cards (M6, ML-P8)",
                        where,
                    )
    seen: dict[str, int] = {}
    named = [*_zones(st.sides[0], "miron"), *_zones(st.sides[1], "vess")]
    named += [(f"bonus[{i}]", n) for i, n in enumerate(st.bonus)]
    for where, name in named:
        seen[name] = seen.get(name, 0) + 1
        n = cat.copies[name]
        if seen[name] > n:
            raise NotationError(
                f"{name}: more copies than the {n} the file's card list has; copies of a card "
                "repeat its row in cards (M12, ML-P6)",
                where,
            )
    _check_turn(st)


def _check_turn(st: State) -> None:
    t = st.turn
    who = t.player.title()
    if t.pending is not None:
        c = st.catalogue[t.pending]
        acts = c.text is Text.ACTIVE or (c.type is CardType.FATE and c.text is not Text.NONE)
        if not acts:
            raise NotationError(
                Say(
                    "%(card)s has no active text: nothing of it is pending (M10)",
                    card=card_name(t.pending),
                ),
                "turn.pending",
            )
        if not pending_acts(st):
            where = (
                f"on {who}'s pile"
                if c.type is CardType.FATE
                else f"in play, uncursed, on {who}'s side"
            )
            raise NotationError(
                f"{t.pending} is not {where}: its text cannot be acting now (M10, M12)",
                "turn.pending",
            )
        if t.phase.number != c.phase:
            raise NotationError(
                Say(
                    "%(card)s is a phase-%(phase)s card: its text acts in phase %(phase)s, not "
                    "in %(now)s (M3, M10)",
                    card=card_name(t.pending),
                    phase=c.phase,
                    now=t.phase.words,
                ),
                "turn.pending",
            )
    if t.checked and t.phase is not Phase.SUPREMACY:
        raise NotationError(
            Say(
                "the supremacy check runs when the supremacy phase begins: in %(phase)s it "
                "has not run (M11)",
                phase=t.phase.words,
            ),
            "turn.checked",
        )
    for i, col_id in enumerate(t.exercised):
        where = f"turn.exercised[{i}]"
        col = COLUMN_IDS[col_id]
        if not t.checked:
            raise NotationError(
                Say("supremacy is exercised only after the check, in the supremacy phase (M11)"),
                where,
            )
        if st.marker(col) != t.player:
            raise NotationError(
                Say(
                    "the marker of %(column)s is not on %(player)s's side: he cannot have "
                    "exercised it (M11)",
                    column=col.words,
                    player=who,
                ),
                where,
            )
        if col_id in t.exercised[:i]:
            raise NotationError(
                Say("%(column)s is exercised once a turn (M11)", column=col.words), where
            )


def _bad(what: str, where: str) -> Any:
    raise NotationError(what, where)


def _placed_json(p: Placed) -> Any:
    if not p.boosts:
        return p.name if not p.curses else f"{p.name}*{p.curses}"
    return {
        "card": p.name,
        "curses": p.curses,
        "boosts": [
            {"from": b.source, "side": b.side, "at": b.at, "delta": b.delta} for b in p.boosts
        ],
    }


def _pile_json(d: Discarded) -> str:
    if d.seen == "nobody":
        return "?" if d.name is None else f"?{d.name}"
    name = d.name or "?"
    return name if d.seen == "both" else f"({name})"


def position_json(st: State) -> dict[str, Any]:
    """The whole position in the notation (every card the referee knows)."""
    t = st.turn
    out: dict[str, Any] = {
        "game": GAME,
        "cards": st.catalogue.rows_json(),
        "turn": {
            "player": t.player,
            "first": t.first,
            "phase": t.phase.value,
            "fresh": t.fresh,
            "used": t.used,
            "taken": [p.value for p in t.taken],
            "left_hand": t.left_hand,
            "checked": t.checked,
            "exercised": list(t.exercised),
        },
        "markers": {c.id: st.marker(c) for c in COLUMNS if st.marker(c)},
    }
    if t.pending:
        out["turn"]["pending"] = t.pending
    for p, s in zip(PLAYERS, st.sides, strict=True):
        out[p] = {
            "hand": [n or "?" for n in s.hand],
            "deck": len(s.deck) if all(n is None for n in s.deck) else [n or "?" for n in s.deck],
            "discard": [_pile_json(d) for d in s.discard],
            "columns": {
                c.id: [_placed_json(x) for x in s.column(c)] for c in COLUMNS if s.column(c)
            },
            "deities": [_placed_json(x) for x in s.deities],
        }
    if st.bonus:
        out["bonus"] = list(st.bonus)
    if st.match.advanced:
        out["match"] = {
            "advanced": True,
            "wins": dict(zip(PLAYERS, st.match.wins, strict=True)),
            "scarab_backs": st.match.scarab_backs,
        }
    if st.stage is not Stage.PLAY:
        out["over"] = {
            "stage": st.stage.value,
            "winner": st.winner,
            "reason": st.reason.value if st.reason else None,
        }
    return out


REASON_WORDS = {
    EndReason.SUPREMACY: (
        "holds two of the three columns in both regions at the start of his turn (M2)"
    ),
    EndReason.EMPTY_DECK: "starts his turn with his opponent's deck empty (M2, M15)",
}


def rule_file(raw: Mapping[str, Any], *, possible: bool = True) -> dict[str, Any]:
    """The result object of a ruling file. Raises NotationError (malformed or incomplete:
    the message names the input; ``possible``: a position no game reaches,
    :func:`check_possible`)."""
    st = read_position(raw, _FILE_KEYS, possible=possible)
    acts = _list(raw.get("actions", []), "actions", MAX_ACTIONS)
    rules: list[str] = []
    sentences: list[str] = []
    legal = True
    failed_at = None
    # a side left unnamed stays the actor's, resolved when the action is applied: after an
    # end_turn the actor is the next player, not the file's first one (M1, M12)
    parsed = [parse_action(r, f"actions[{i}]") for i, r in enumerate(acts)]
    for i, a in enumerate(parsed):
        if st.stage is Stage.OVER:
            break
        try:
            out = apply(st, a)
        except IllegalActionError as e:
            legal, failed_at = False, i
            rules += [r for r in e.rules if r not in rules]
            sentences.append(
                f"Action {i + 1} ({describe(a, a.by or st.turn.player)}) is not legal: "
                f"{e.reason} ({', '.join(e.rules)}). Nothing of it is applied."
            )
            break
        except NeedsInputError as e:
            raise NotationError(
                f"incomplete: {e.reason} ({e.rule}; give {e.needs!r})", f"actions[{i}]"
            ) from None
        except NotationError as e:  # a card not in the file's list, say
            raise NotationError(e.detail, f"actions[{i}].{e.where or 'card'}") from None
        sentences.append(f"{describe(a, a.by or st.turn.player)}: legal ({', '.join(out.rules)}).")
        st = out.state
        rules += [r for r in out.rules if r not in rules]
    if st.stage is not Stage.PLAY and st.winner:
        assert st.reason is not None
        sentences.append(f"{st.winner.title()} wins: he {REASON_WORDS[st.reason]}.")
    checks = supremacy_check(st)
    return {
        "legal": legal,
        "failed_at": failed_at,
        "winner": st.winner,
        "reason": st.reason.value if st.reason and st.winner else None,
        "rules": rules,
        "ruling": " ".join(sentences) or "No action: the position as given.",
        "position": position_json(st),
        "supremacy": [c.as_json() for c in checks],
    }


def posed(raw: Mapping[str, Any]) -> list[tuple[State, Action]]:
    """Each action of a ruling file with the position it is posed on, in order, up to the
    game's end or the first action that cannot be applied (for the guardian's look at each,
    issue 37). Raises NotationError as :func:`rule_file`."""
    st = read_position(raw, _FILE_KEYS)
    acts = _list(raw.get("actions", []), "actions", MAX_ACTIONS)
    out: list[tuple[State, Action]] = []
    for i, r in enumerate(acts):
        if st.stage is Stage.OVER:
            break
        a = parse_action(r, f"actions[{i}]")
        out.append((st, a))
        try:
            st = apply(st, a).state
        except (IllegalActionError, NeedsInputError, NotationError):
            break
    return out


def _col(c: str | None) -> str:
    return "the centre" if c in (None, "centre") else COLUMN_IDS[c].words


# the places of the board in words, for a person (the ids are notation: ``upper-military``)
COLUMN_SAID: dict[str, Say] = {
    "upper-military": Say("the upper military column"),
    "upper-economic": Say("the upper economic column"),
    "upper-religious": Say("the upper religious column"),
    "lower-military": Say("the lower military column"),
    "lower-economic": Say("the lower economic column"),
    "lower-religious": Say("the lower religious column"),
    "centre": Say("the centre"),
}


def column_said(c: str | None) -> Say:
    """A column (or the centre) in words, said per language (English as :func:`_col`)."""
    return COLUMN_SAID["centre" if c is None else c]


def phase_said(phase: Phase) -> Say:
    """A phase in words, said per language (English as ``Phase.words``)."""
    if phase is Phase.SUPREMACY:
        return Say("the supremacy phase")
    return Say("phase %(number)s", number=phase.value)


def action_words(a: Action) -> Say:
    """An action as a verb phrase for the log, the player's name set before it by the page:
    :func:`describe`'s words without the actor, said per language."""
    if isinstance(a, ChangeHand):
        n = len(a.discard)
        return say_n(
            "changes his hand, discarding %(num)d card",
            "changes his hand, discarding %(num)d cards",
            n,
        )
    if isinstance(a, Play):
        if a.column and a.replace:
            return Say(
                "plays %(card)s into %(column)s, replacing %(old)s",
                card=a.card,
                column=column_said(a.column),
                old=a.replace,
            )
        if a.column:
            return Say("plays %(card)s into %(column)s", card=a.card, column=column_said(a.column))
        if a.replace:
            return Say("plays %(card)s, replacing %(old)s", card=a.card, old=a.replace)
        return Say("plays %(card)s", card=a.card)
    if isinstance(a, Activate):
        return Say("activates %(card)s in %(column)s", card=a.card, column=column_said(a.at))
    if isinstance(a, Cure):
        where = column_said(a.at.zone)
        if a.at.side in (SELF, "@"):
            return Say("cures his own %(card)s in %(column)s", card=a.card, column=where)
        return Say(
            "cures %(owner)s's %(card)s in %(column)s",
            owner=a.at.side.title(),
            card=a.card,
            column=where,
        )
    if isinstance(a, Pass):
        return Say("passes to %(phase)s", phase=phase_said(a.to)) if a.to else Say("passes")
    if isinstance(a, Exercise):
        if a.target:
            return Say(
                "exercises supremacy in %(column)s, cursing %(card)s in %(where)s",
                column=column_said(a.column),
                card=a.target[0],
                where=column_said(a.target[1]),
            )
        return Say("exercises supremacy in %(column)s", column=column_said(a.column))
    if isinstance(a, Effect):
        return say_n(
            "records an effect of %(card)s (%(num)d operation)",
            "records an effect of %(card)s (%(num)d operations)",
            len(a.ops),
            card=a.card,
        )
    if isinstance(a, EndTurn):
        return Say("ends his turn, discarding a card") if a.discard else Say("ends his turn")
    if isinstance(a, Hand):
        return say_n(
            "names %(num)d card of his hand", "names %(num)d cards of his hand", len(a.cards)
        )
    if isinstance(a, SetAside):
        return say_n(
            "sets %(num)d card aside for the bonus deck",
            "sets %(num)d cards aside for the bonus deck",
            len(a.cards),
        )
    if a.cards:
        return Say("takes %(cards)s from the bonus deck", cards=list(a.cards))
    return Say("takes no card from the bonus deck")


def describe(a: Action, actor: str) -> str:
    """An action in words, as a judge reads it out."""
    who = actor.title() if actor in PLAYERS else actor
    if isinstance(a, ChangeHand):
        return (
            f"{who} changes his hand, discarding {len(a.discard)} card{'s' * (len(a.discard) != 1)}"
        )
    if isinstance(a, Play):
        where = f" into {_col(a.column)}" if a.column else ""
        rep = f", replacing {a.replace}" if a.replace else ""
        return f"{who} plays {a.card}{where}{rep}"
    if isinstance(a, Activate):
        return f"{who} activates {a.card} in {_col(a.at)}"
    if isinstance(a, Cure):
        whose = "his own" if a.at.side in (SELF, actor) else f"{a.at.side.title()}'s"
        return f"{who} cures {whose} {a.card} in {_col(a.at.zone)}"
    if isinstance(a, Pass):
        return f"{who} passes to {a.to.words}" if a.to else f"{who} passes"
    if isinstance(a, Exercise):
        what = f", cursing {a.target[0]} in {_col(a.target[1])}" if a.target else ""
        return f"{who} exercises supremacy in {_col(a.column)}{what}"
    if isinstance(a, Effect):
        n = len(a.ops)
        return f"{who} records an effect of {a.card} ({n} operation{'s' * (n != 1)})"
    if isinstance(a, EndTurn):
        return f"{who} ends his turn" + (", discarding a card" if a.discard else "")
    if isinstance(a, Hand):
        return f"{who} names {len(a.cards)} card{'s' * (len(a.cards) != 1)} of his hand"
    if isinstance(a, SetAside):
        return f"{who} sets {len(a.cards)} card{'s' * (len(a.cards) != 1)} aside for the bonus deck"
    return f"{who} takes {', '.join(a.cards) or 'no card'} from the bonus deck"
