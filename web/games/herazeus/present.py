"""What the Hera & Zeus pages show, made from what the service gives a seat: titles and help
texts, the seat's actions grouped the way a player thinks, the names a seat may enter, where
setup stands, the sentences of the log. Pure functions of service values (no request, no
hidden state).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.herazeus import Action, NotationError, Player, parse_action_text
from engine.herazeus.actions import (
    Challenge,
    Dionysus,
    Draw,
    EndTurn,
    God,
    Hades,
    PegasusField,
    PegasusHand,
    PegasusOwnFigure,
    Persephone,
    Play,
    PythiaReveal,
    PythiaSpy,
    RemoveFigure,
    Sirens,
)
from engine.herazeus.cards import HOSTAGE_NAME, POWERFUL
from engine.herazeus.names import CARD_NAMES  # each marked in its context, "herazeus card"
from engine.say import N_, Say
from referee.herazeus.board import describe_event_json
from referee.herazeus.game import HZBoard, side_of
from referee.log import Record
from web.i18n import gettext, pgettext

SEAT_TITLE = {"hera": "Hera", "zeus": "Zeus"}

# One line per switch value: what it changes (RULES.md D1, D3, D4, D5), in our own words.
SWITCH_HELP: dict[str, dict[str, str]] = {
    "pandora_scope": {
        "both": N_("a challenged first-row Pandora empties the column on both sides"),
        "owner": N_("only Pandora's owner loses the column; the challenger stays face up"),
    },
    "pythia_defends": {
        "normal": N_("a challenged Pythia defends with her printed strength"),
        "always_loses": N_("a challenged Pythia is always discarded (the translations' reading)"),
    },
    "own_figure_removal": {
        "action": N_("a player removes his own figure for 1 action point"),
        "pegasus": N_("a player removes his own figure by playing a Pegasus from the hand on it"),
        "both": N_("either way: 1 action point, or a Pegasus from the hand"),
    },
    "pegasus_beside_own_figure": {
        "allowed": N_("Pegasus may hit the card opposite one's own figure (the designer's answer)"),
        "forbidden": N_("no Pegasus beside one's own figure, except against the opposing figure"),
    },
}
SWITCH_TITLE = {
    "pandora_scope": N_("Pandora's reach"),
    "pythia_defends": N_("Pythia when challenged"),
    "own_figure_removal": N_("Removing your own figure"),
    "pegasus_beside_own_figure": N_("Pegasus beside your own figure"),
}
PROFILE_HELP = {
    "rio-grande": N_("the English rules as printed, with the designer's FAQ where they are silent"),
    "kosmos": N_("as rio-grande, but Hera always starts and a Pegasus removes your own figure"),
    "translations": N_("as rio-grande, but a challenged Pythia always loses"),
}
NEEDS_TEXT = {
    "reveal.attacker": N_("Which card is your front card in the challenging column?"),
    "reveal.defender": N_("Your front card is challenged: which card is it?"),
    "reveal.target": N_("Pegasus turns your front card face up: which card is it?"),
    "reveal.cards": N_(
        "Pythia turns the face-down cards of your column face up: which are they (front to back)?"
    ),
    "reveal.hand": N_("Pythia looks at your hand: name the cards the referee does not know yet."),
    "pick": N_("Pegasus drew a card from the hand: which card came out?"),
    "place": N_("The card Pegasus drew goes face up to the front of a column: which column?"),
    "at": N_("Where did the hostage land when the deck was shuffled (0 = on top)?"),
}
# A player's call that declares the dead end of D8 (HZ-P6): the judge's "Confirm the dead end"
# is shown only while such a call from the player to act is open (issue 13, item 5).
DEAD_END_NOTE = "I cannot use my remaining action points [D8]"  # a code too: stays English
GROUPS = (
    ("draw", N_("Draw")),
    ("play", N_("Play a card into a column")),
    ("challenge", N_("Challenge")),
    ("pegasus", "Pegasus"),  # a card's name: said by card_name
    ("pythia", "Pythia"),
    ("myth", N_("Other myth cards")),
    ("god", N_("God card and figure")),
    ("end", N_("End the turn")),
)


# ---- helpers (pure) ------------------------------------------------------------------------


def card_name(name: str) -> str:
    """A card as a person reads it, in the reader's language: its name as the reader's edition
    prints it; the notation's ``Pegasus/zeus`` (a card of Zeus's deck taken by Sirens, D13) is
    "Pegasus (Zeus's card)". ``?`` and anything else not a card's name stay as they are. Only for
    words shown: a form's value, the notation and the codes keep the English name."""
    base, _, deck = name.partition("/")
    said = pgettext("herazeus card", base) if base in CARD_NAMES else base
    if deck in SEAT_TITLE:
        return gettext("%(card)s (%(seat)s's card)", card=said, seat=SEAT_TITLE[deck])
    return said if not deck else name


def card_code(name: str) -> str:
    """A card as the notation writes it (``Nemesis/hera``), its name in the reader's language
    and the deck it came from as it is (the order buttons, which have always shown it so)."""
    base, slash, deck = name.partition("/")
    said = pgettext("herazeus card", base) if base in CARD_NAMES else base
    return f"{said}{slash}{deck}"


def card_names(names: Iterable[str]) -> str:
    """Cards as :func:`card_code` writes them, separated by commas."""
    return ", ".join(card_code(n) for n in names)


def group_of(a: Action) -> str:
    """The group a player looks for an action in (the page's sections, in order)."""
    if isinstance(a, Draw):
        return "draw"
    if isinstance(a, Play):
        return "play"
    if isinstance(a, Challenge):
        return "challenge"
    if isinstance(a, PegasusHand | PegasusField | PegasusOwnFigure):
        return "pegasus"
    if isinstance(a, PythiaSpy | PythiaReveal):
        return "pythia"
    if isinstance(a, Sirens | Hades | Persephone | Dionysus):
        return "myth"
    if isinstance(a, God | RemoveFigure):
        return "god"
    if isinstance(a, EndTurn):
        return "end"
    return "other"


@dataclass
class Controls:
    """The legal actions of a view, grouped and with the choices the forms need."""

    groups: dict[str, list[Action]] = field(default_factory=dict)
    play_cards: list[str] = field(default_factory=list)
    play_columns: list[int] = field(default_factory=list)
    hades_cards: list[str] = field(default_factory=list)
    dionysus: list[Dionysus] = field(default_factory=list)
    other: list[str] = field(default_factory=list)

    def has(self, group: str) -> bool:
        return bool(self.groups.get(group))


def controls_for(legal: Sequence[str]) -> Controls:
    """Groups the view's legal action texts (``Referee.view(...)["legal"]``). Texts that do not
    parse are kept as they are under ``other`` (never dropped silently)."""
    c = Controls()
    for text in legal:
        try:
            a = parse_action_text(text)
        except NotationError:
            c.other.append(text)
            continue
        g = group_of(a)
        if g == "other":
            c.other.append(text)
            continue
        c.groups.setdefault(g, []).append(a)
        if isinstance(a, Play):
            if a.card not in c.play_cards:
                c.play_cards.append(a.card)
            if a.column not in c.play_columns:
                c.play_columns.append(a.column)
        elif isinstance(a, Hades) and a.card not in c.hades_cards:
            c.hades_cards.append(a.card)
        elif isinstance(a, Dionysus):
            c.dionysus.append(a)
    c.play_columns.sort()
    return c


def action_label(a: Action) -> str:
    """A button's words for one action."""
    pegasus, pythia = card_name("Pegasus"), card_name("Pythia")
    if isinstance(a, Challenge):
        return gettext("Challenge in column %(column)s", column=a.column)
    if isinstance(a, PegasusHand):
        return gettext("%(pegasus)s against the hand (draw blind)", pegasus=pegasus)
    if isinstance(a, PegasusField):
        return gettext(
            "%(pegasus)s against the first row, column %(column)s", pegasus=pegasus, column=a.column
        )
    if isinstance(a, PegasusOwnFigure):
        return gettext("%(pegasus)s on your own figure (removes it)", pegasus=pegasus)
    if isinstance(a, PythiaSpy):
        return gettext("%(pythia)s: look at the opponent's hand", pythia=pythia)
    if isinstance(a, PythiaReveal):
        return gettext("%(pythia)s: turn up column %(column)s", pythia=pythia, column=a.column)
    if isinstance(a, Sirens):
        return gettext("%(sirens)s: take the opponent's top discard", sirens=card_name("Sirens"))
    if isinstance(a, Persephone):
        return gettext(
            "%(persephone)s: take back your %(pegasus)s cards",
            persephone=card_name("Persephone"),
            pegasus=pegasus,
        )
    if isinstance(a, God):
        return gettext("God card: figure to column %(column)s", column=a.column)
    if isinstance(a, RemoveFigure):
        return gettext("Remove your own figure (1 point)")
    if isinstance(a, EndTurn):
        return gettext("End the turn")
    if isinstance(a, Draw):
        return gettext("Draw a card")
    if isinstance(a, Play) and a.position is not None:
        return gettext(
            "Play %(card)s: column %(column)s, place %(position)s",
            card=a.card,
            column=a.column,
            position=a.position,
        )
    return a.text()


def order_stood(view: Mapping[str, Any], p: Player) -> list[str] | None:
    """The cards a question to ``p`` about the order of his discards (D1, D2, D12; HZ-P13)
    puts on his pile, as they stood (the default order, the last on top), from his own view:
    the column the question names, else his hand; ``?`` for a card the referee does not know
    (D20), which he names. None when no such question waits on him."""
    asked = view.get("asked") or {}
    if not str(asked.get("needs", "")).startswith(f"order.{p.key}"):
        return None
    if p.key not in asked.get("asked", ()):
        return None
    side = view.get(p.key) or {}
    reason = str(asked.get("reason", ""))
    m = re.search(r"from column ([1-3])", reason)
    if m:
        cards = [str(c).lstrip("^") for c in side.get("field", [[], [], []])[int(m[1]) - 1]]
        return [c for c in cards if not c.startswith("@")]  # the figure is no card
    cards = [str(c) for c in side.get("hand", [])]
    if "Pythia found" in reason:  # D12: only the Poseidon and Nemesis cards go
        return [c for c in cards if c.partition("/")[0] in POWERFUL]
    if asked.get("pick") == "Pandora" and "Pandora" not in cards and "?" in cards:
        cards[cards.index("?")] = "Pandora"  # D2: the unknown card Pegasus drew was Pandora
    return cards


def order_choices(view: Mapping[str, Any], p: Player) -> list[tuple[str, str]] | None:
    """The one-tap answers to a question to ``p`` about the order of his discards (D1, D2, D12;
    HZ-P13): first the default (as the cards stood, the last on top), then each other card
    put on top. None when no such question waits on him or a card is not known (then he
    names the unknown ones: :func:`order_stood`)."""
    cards = order_stood(view, p)
    if cards is None or len(cards) < 2 or any(c.startswith(("?", "@")) for c in cards):
        return None
    keep = gettext(
        "Keep this order: %(cards)s (on top: %(top)s)",
        cards=card_names(cards),
        top=card_code(cards[-1]),
    )
    out = [(keep, ",".join(cards))]
    for c in dict.fromkeys(cards):
        if c != cards[-1]:
            rest = list(cards)
            rest.remove(c)
            out.append((gettext("%(card)s on top", card=card_code(c)), ",".join([*rest, c])))
    return out


def taken_names(p: Player, held: Sequence[str]) -> list[str]:
    """The other deck's cards player ``p`` holds through Sirens (``Name/deck``, as his own
    view ``held`` writes them): names he may enter for his own cards besides his deck's."""
    suffix = "/" + p.other.key
    return sorted({h.lstrip("^") for h in held if h.lstrip("^").endswith(suffix)})


def setup_of(board: HZBoard, p: Player) -> dict[str, Any]:
    """Where player ``p`` stands in setup (D19), from his view: public facts and his hand."""
    facts = board.setup
    return {
        "starting": facts["starting"],
        "dealt": facts["dealt"][p.key],
        "placed": facts["placed"][p.key],
        "other_dealt": facts["dealt"][p.other.key],
        "other_placed": facts["placed"][p.other.key],
        "hostage_in_hand": HOSTAGE_NAME[p] in side_of(board, p.key)["hand"],
    }


def plain_event(e: Mapping[str, Any]) -> dict[str, Any]:
    """The event with anything that is not a plain card name (a sealed or masked card, as a
    redacted log carries it) left out, so that it reads "a card"."""
    out = dict(e)
    card = out.get("card")
    if card is not None and not isinstance(card, str):
        del out["card"]
    cards = out.get("cards")
    if cards is not None and not (
        isinstance(cards, list) and all(isinstance(c, str) for c in cards)
    ):
        del out["cards"]
    return out


def record_lines(r: Record) -> list[str] | None:
    """The sentences of a game record as its reader's cut holds it (``create``, ``action``,
    ``observation``); None for the records the shell describes. A sealed card (a value hidden
    from the reader) reads "a card"."""
    body = r.body
    if r.kind == "create":
        players = body.get("players", {})
        return [
            Say(
                "Game created: %(hera)s (Hera) against %(zeus)s (Zeus), profile %(profile)s.",
                hera=players.get("hera", "Hera"),
                zeus=players.get("zeus", "Zeus"),
                profile=body.get("profile"),
            )
        ]
    if r.kind == "action":
        lines = event_lines(r.events)
        if not lines:
            a = body.get("action", {})
            lines.append(f"{a.get('do', 'action')}".replace("_", " "))
        return lines
    if r.kind == "observation":
        card = body.get("card")
        who = SEAT_TITLE.get(str(body.get("player")), "")
        if not card:
            return [f"A card of {who} was scanned."]
        if not isinstance(card, str):  # sealed: the card is hidden from this reader
            return [f"Seen: a card of {who}'s."]
        return [f"Seen: {who}'s {card}."]
    return None


def event_lines(events: Iterable[Mapping[str, Any]]) -> list[str]:
    """One sentence per event that says something (a sealed card reads "a card")."""
    return [t for t in (describe_event_json(plain_event(e)) for e in events) if t]
