"""Text renderings at the edge: one sentence per event, and the table as a terminal board."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.herazeus import GameState, Player
from engine.herazeus.state import Slot
from referee.words import plural

PLAYER_TITLE = {"hera": "Hera", "zeus": "Zeus"}


def _where(loc: Any) -> str:
    if not isinstance(loc, str):
        return ""
    if loc.startswith("field "):
        c, _, p = loc[6:].partition(".")
        return f"column {c}, row {p}"
    if loc.startswith("discard:"):
        return "the opponent's discard pile"
    return {
        "hand": "the hand",
        "deck": "the deck",
        "discard": "the discard pile",
        "supply": "the supply",
    }.get(loc, loc)


def _points(ap: Any) -> str:
    return plural(ap, "action point") if isinstance(ap, int) else f"{ap} action points"


def card_words(name: str) -> str:
    """A card as a person reads it: the notation's ``Pegasus/zeus`` (a card of Zeus's deck,
    taken by Sirens, D13) is "Pegasus (Zeus's card)"; any other name is itself."""
    base, _, deck = name.partition("/")
    title = PLAYER_TITLE.get(deck)
    return f"{base} ({title}'s card)" if title else name


def describe_event_json(e: Mapping[str, Any]) -> str | None:
    """One sentence for an event in its JSON form; a masked event names no card."""
    who = PLAYER_TITLE.get(str(e.get("player")), "")
    card = e.get("card")
    # a sealed card names nothing
    # a sealed card names nothing; nor does "?", a card the referee does not know (D20)
    name = card_words(card) if isinstance(card, str) and card and card != "?" else "a card"
    k = e.get("kind")
    if k == "drawn":
        return f"{who} draws {name}."
    if k == "played":
        return f"{who} plays {name} face down to {_where(e.get('to'))}."
    if k == "revealed":
        return f"{who}'s {name} is turned face up ({_where(e.get('from'))})."
    if k == "discarded":
        return f"{who} discards {name} from {_where(e.get('from'))}."
    if k == "taken":
        return f"{who} takes {name} from {_where(e.get('from'))} into the hand."
    if k == "moved":
        return f"{who} moves {name} from {_where(e.get('from'))} to {_where(e.get('to'))}."
    if k == "placed":
        return f"{name} goes face up to the front of {who}'s {_where(e.get('to')).split(',')[0]}."
    if k == "picked":
        return f"Pegasus draws {name} from {who}'s hand."
    if k == "redealt":
        old = e.get("cards")
        hand = ", ".join(map(card_words, old)) if isinstance(old, list) else "not shown to you"
        return (
            f"{who} cannot lay a first row and shows the hand ({hand}); it is shuffled back and "
            "nine cards are dealt again (D19)."
        )
    if k == "shown":
        cards = e.get("cards")
        cards = cards if isinstance(cards, list) else None
        shown = ", ".join(map(card_words, cards)) if cards else "(not shown to you)"
        return f"{who} shows the hand: {shown or 'nothing'}."
    if k == "challenged":  # D11: both strengths and the winner
        other = next((t for p, t in PLAYER_TITLE.items() if t != who), "")
        against = e.get("against")
        theirs = card_words(against) if isinstance(against, str) else "a card"
        won = PLAYER_TITLE.get(str(e.get("winner")))
        result = f"{won} wins the challenge" if won else "a tie: both cards are discarded"
        return (
            f"{who}'s {name} ({e.get('strength')}) against {other}'s {theirs} "
            f"({e.get('against_strength')}): {result}."
        )
    if k == "figure_placed":
        return f"{who}'s figure enters {_where(e.get('to'))}."
    if k == "figure_removed":
        return f"{who}'s figure leaves {_where(e.get('from'))} and goes back to the supply."
    if k == "points":
        return f"{who}'s turn now has {_points(e.get('ap'))}."
    if k == "turn_began":
        return f"{who}'s turn begins with {_points(e.get('ap'))}."
    if k == "identified":
        return f"The unknown card is {name}."
    if k == "hostage_shown":
        return f"{who} shows {name}, drawn at setup, and shuffles it back."
    if k == "starter":
        return f"{who} starts."
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
