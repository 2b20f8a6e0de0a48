"""Text renderings at the edge: one sentence per event, and the table as a terminal board."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.herazeus import GameState, Player
from engine.herazeus.names import card_name
from engine.herazeus.state import Slot
from engine.say import Say, say_n

PLAYER_TITLE = {"hera": "Hera", "zeus": "Zeus"}


def _field(loc: Any) -> tuple[str, str] | None:
    """``field 2.1`` (the log's place) as its column and row, else None."""
    if isinstance(loc, str) and loc.startswith("field "):
        c, _, r = loc[6:].partition(".")
        return c, r
    return None


def _where(loc: Any) -> str:
    """A place as a person says it, without a preposition ("column 2, row 1", "the hand")."""
    if not isinstance(loc, str):
        return ""
    at = _field(loc)
    if at is not None:
        return Say("column %(column)s, row %(row)s", column=at[0], row=at[1])
    if loc.startswith("discard:"):
        return Say("the opponent's discard pile")
    if loc == "hand":
        return Say("the hand")
    if loc == "deck":
        return Say("the deck")
    if loc == "discard":
        return Say("the discard pile")
    if loc == "supply":
        return Say("the supply")
    return loc


def _from(loc: Any) -> str:
    """ "from" and a place, one phrase per place (the preposition and article join in
    Italian, French and German: "dalla mano", "de la main", "aus der Hand")."""
    at = _field(loc)
    if at is not None:
        return Say("from column %(column)s, row %(row)s", column=at[0], row=at[1])
    if isinstance(loc, str) and loc.startswith("discard:"):
        return Say("from the opponent's discard pile")
    if loc == "hand":
        return Say("from the hand")
    if loc == "deck":
        return Say("from the deck")
    if loc == "discard":
        return Say("from the discard pile")
    if loc == "supply":
        return Say("from the supply")
    return Say("from %(place)s", place=_where(loc))


def _to(loc: Any) -> str:
    """ "to" and a place (see :func:`_from`)."""
    at = _field(loc)
    if at is not None:
        return Say("to column %(column)s, row %(row)s", column=at[0], row=at[1])
    if loc == "hand":
        return Say("to the hand")
    if loc == "deck":
        return Say("to the deck")
    if loc == "discard":
        return Say("to the discard pile")
    if loc == "supply":
        return Say("to the supply")
    return Say("to %(place)s", place=_where(loc))


def card_words(name: str) -> str:
    """A card as a person reads it: the notation's ``Pegasus/zeus`` (a card of Zeus's deck,
    taken by Sirens, D13) is "Pegasus (Zeus's card)"; any other name is itself. The card's
    name is said as the reader's edition prints it (:mod:`engine.herazeus.names`)."""
    base, _, deck = name.partition("/")
    title = PLAYER_TITLE.get(deck)
    if title:
        return Say("%(card)s (%(player)s's card)", card=card_name(base), player=title)
    return card_name(name)


def describe_event_json(e: Mapping[str, Any]) -> str | None:
    """One sentence for an event in its JSON form; a masked event names no card. Each is a
    :class:`engine.say.Say`: English here, said in the reader's language where shown."""
    who = PLAYER_TITLE.get(str(e.get("player")), "")
    card = e.get("card")
    # a sealed card names nothing; nor does "?", a card the referee does not know (D20)
    name = card_words(card) if isinstance(card, str) and card and card != "?" else Say("a card")
    k = e.get("kind")
    if k == "drawn":
        return Say("%(player)s draws %(card)s.", player=who, card=name)
    if k == "played":
        return Say(
            "%(player)s plays %(card)s face down %(to)s.",
            player=who,
            card=name,
            to=_to(e.get("to")),
        )
    if k == "revealed":
        return Say(
            "%(player)s's %(card)s is turned face up (%(place)s).",
            player=who,
            card=name,
            place=_where(e.get("from")),
        )
    if k == "discarded":
        return Say(
            "%(player)s discards %(card)s %(from)s.",
            player=who,
            card=name,
            **{"from": _from(e.get("from"))},
        )
    if k == "taken":
        return Say(
            "%(player)s takes %(card)s %(from)s into the hand.",
            player=who,
            card=name,
            **{"from": _from(e.get("from"))},
        )
    if k == "moved":
        return Say(
            "%(player)s moves %(card)s %(from)s %(to)s.",
            player=who,
            card=name,
            to=_to(e.get("to")),
            **{"from": _from(e.get("from"))},
        )
    if k == "placed":
        at = _field(e.get("to"))
        column = at[0] if at is not None else _where(e.get("to"))
        return Say(
            "%(card)s goes face up to the front of %(player)s's column %(column)s.",
            card=name,
            player=who,
            column=column,
        )
    if k == "picked":
        return Say("Pegasus draws %(card)s from %(player)s's hand.", card=name, player=who)
    if k == "redealt":
        old = e.get("cards")
        hand = list(map(card_words, old)) if isinstance(old, list) else Say("not shown to you")
        return Say(
            "%(player)s cannot lay a first row and shows the hand (%(hand)s); it is shuffled "
            "back and nine cards are dealt again (D19).",
            player=who,
            hand=hand,
        )
    if k == "shown":
        cards = e.get("cards")
        shown = list(map(card_words, cards)) if isinstance(cards, list) and cards else None
        return Say(
            "%(player)s shows the hand: %(cards)s.",
            player=who,
            cards=shown if shown else Say("(not shown to you)"),
        )
    if k == "challenged":  # D11: both strengths and the winner
        other = next((t for p, t in PLAYER_TITLE.items() if t != who), "")
        against = e.get("against")
        theirs = card_words(against) if isinstance(against, str) else Say("a card")
        won = PLAYER_TITLE.get(str(e.get("winner")))
        v = {
            "player": who,
            "card": name,
            "strength": e.get("strength"),
            "other": other,
            "theirs": theirs,
            "against": e.get("against_strength"),
        }
        if won:
            return Say(
                "%(player)s's %(card)s (%(strength)s) against %(other)s's %(theirs)s "
                "(%(against)s): %(winner)s wins the challenge.",
                winner=won,
                **v,
            )
        return Say(
            "%(player)s's %(card)s (%(strength)s) against %(other)s's %(theirs)s "
            "(%(against)s): a tie: both cards are discarded.",
            **v,
        )
    if k == "figure_placed":
        return Say("%(player)s's figure enters %(place)s.", player=who, place=_where(e.get("to")))
    if k == "figure_removed":
        return Say(
            "%(player)s's figure leaves %(place)s and goes back to the supply.",
            player=who,
            place=_where(e.get("from")),
        )
    if k == "points":
        ap = e.get("ap")
        if isinstance(ap, int):
            return say_n(
                "%(player)s's turn now has %(num)d action point.",
                "%(player)s's turn now has %(num)d action points.",
                ap,
                player=who,
            )
        return Say("%(player)s's turn now has %(points)s action points.", player=who, points=ap)
    if k == "turn_began":
        ap = e.get("ap")
        if isinstance(ap, int):
            return say_n(
                "%(player)s's turn begins with %(num)d action point.",
                "%(player)s's turn begins with %(num)d action points.",
                ap,
                player=who,
            )
        return Say("%(player)s's turn begins with %(points)s action points.", player=who, points=ap)
    if k == "identified":
        return Say("The unknown card is %(card)s.", card=name)
    if k == "hostage_shown":
        return Say(
            "%(player)s shows %(card)s, drawn at setup, and shuffles it back.",
            player=who,
            card=name,
        )
    if k == "starter":
        return Say("%(player)s starts.", player=who)
    return None


def _cell(s: Slot | None, holder: Player) -> str:
    if s is None:
        return "."
    if s.card is None:
        return "[FIGURE]"
    name = s.card.notation(holder)
    return f"^{name}" if s.up else name


def board_text(st: GameState) -> str:
    """The table as the judge sees it: Zeus's rows on top (back row first), Hera's below."""
    width = 14
    lines = []
    for p, rows in ((Player.ZEUS, range(3, -1, -1)), (Player.HERA, range(4))):
        side = st.sides[p]
        if p is Player.HERA:
            lines.append("    " + "-" * (width * 3))
        for r in rows:
            cells = [_cell(col[r] if r < len(col) else None, p) for col in side.field]
            lines.append("    " + "".join(c.ljust(width) for c in cells))
        hand = ", ".join(c.notation(p) for c in side.hand) or "-"
        top = side.discard[-1].notation(p) if side.discard else "-"
        lines.append(
            f"    {p.title}: hand [{hand}]  deck {len(side.deck)}  "
            f"pile {len(side.discard)} (top {top})"
        )
    turn = f"{st.player.title} to act, {st.used}/{st.ap} points used"
    lines.append(f"    {turn}{' (first turn)' if st.first else ''}; phase {st.phase.value}")
    return "\n".join(lines)
