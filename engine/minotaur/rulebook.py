"""The rule catalogue of Minotaur Lords: the decisions M1-M18 of MINOTAUR.md, each with a
title and a sentence a judge can read aloud, and the project's own rulings (ML-P…) for
questions MINOTAUR.md leaves open. Cite them by these ids."""

from __future__ import annotations

from dataclasses import dataclass

from engine.say import N_


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    text: str

    def citation(self) -> str:
        return f"{self.id} {self.title}: {self.text}"

    @property
    def sources(self) -> tuple[str, ...]:
        """Where the rule comes from: the Italian rulebook (``IT``) for a decision M1-M18,
        the project (``PROJECT``) for its own rulings ML-P…"""
        return ("PROJECT",) if self.id.startswith("ML-P") else ("IT",)


_RULES = (
    Rule(
        "M1",
        N_("Start of turn"),
        N_(
            "After the win check a player either plays phases 0, 1, 2 and "
            "supremacy in order, or changes his hand: discards at least one card and draws back "
            "up to six, and does nothing else that turn."
        ),
    ),
    Rule(
        "M2",
        N_("Winning"),
        N_(
            "At the start of his turn a player wins when his markers hold two of "
            "the three columns in both regions, or when his opponent's deck is empty. Markers "
            "count as they lie."
        ),
    ),
    Rule(
        "M3",
        N_("Actions"),
        N_(
            "Playing, activating or curing a card is an action, allowed only in "
            "the phase printed on the card; phase 0 allows any number, phases 1 and 2 one each."
        ),
    ),
    Rule(
        "M4",
        N_("Play or discard one"),
        N_(
            "At least one card leaves the hand each turn by play or "
            "discard; a player who reaches the end of his turn without that discards one of his "
            "choice."
        ),
    ),
    Rule(
        "M5",
        N_("First player"),
        N_(
            "The first turn of the game takes only two of the four phases, "
            "in their order; a hand change is an ordinary one."
        ),
    ),
    Rule(
        "M6",
        N_("Servants"),
        N_(
            "A servant is played on the player's own side into a column whose "
            "kind matches one of its icons."
        ),
    ),
    Rule(
        "M7",
        N_("Buildings"),
        N_("A building is played like a servant and enters play with one curse token."),
    ),
    Rule(
        "M8",
        N_("Commanders"),
        N_(
            "A commander is played like a servant, but a player has at most "
            "one commander in each column."
        ),
    ),
    Rule(
        "M9",
        N_("Deities and fate"),
        N_(
            "A deity goes to the centre and its active text acts at "
            "once; at most three per player (a fourth replaces one of them) and only one player "
            "has deities: the opponent discards all of his. A fate card acts at once and is "
            "discarded."
        ),
    ),
    Rule(
        "M10",
        N_("Texts and curses"),
        N_(
            "A passive text works while its card is in play uncursed; "
            "an active one when played and each time activated. A cursed card has strength 0 and "
            "no text; curing removes one token, as an action in the card's phase."
        ),
    ),
    Rule(
        "M11",
        N_("The supremacy check"),
        N_(
            "The active player checks all six columns: the higher "
            "total takes the marker, a tie leaves none. Then he may exercise each column he "
            "holds once: military discards the top of the opponent's deck, religious curses an "
            "opponent's card in the same region, economic draws a card."
        ),
    ),
    Rule(
        "M12",
        N_("Texts the referee cannot read"),
        N_(
            "A text's effect is recorded as operations "
            "naming the card that caused them; the referee checks the card is in play and "
            "uncursed and the structure of the operations; the opponent may call the judge."
        ),
    ),
    Rule(
        "M13",
        N_("Strength from texts"),
        N_(
            "A standing strength change from a text is recorded "
            "once and counts while its card is in play and uncursed."
        ),
    ),
    Rule(
        "M14",
        N_("Hidden information"),
        N_(
            "Hands and decks are hidden; discards go face down: a "
            "card from play is known to both, one from a hand to its owner, a deck-top card to "
            "nobody."
        ),
    ),
    Rule(
        "M15",
        N_("An empty deck"),
        N_(
            "Drawing from an empty deck draws nothing; the empty deck "
            "decides the game at the opponent's next turn start."
        ),
    ),
    Rule("M16", N_("Hand size"), N_("There is no hand limit; a hand change draws back up to six.")),
    Rule(
        "M17",
        N_("Best of three"),
        N_(
            "Between games both players set up to five cards of their "
            "deck aside into the bonus deck, unseen by the other; the loser then takes as many "
            "bonus cards, then the winner; the loser starts the next game."
        ),
    ),
    Rule(
        "M18",
        N_("With Scarab Lords"),
        N_(
            "Scarab tokens are curse tokens; a player takes only "
            "bonus cards whose back matches his deck unless the organiser switches that off."
        ),
    ),
    Rule(
        "ML-P1",
        N_("Curing any card"),
        N_(
            'The rules let a player cure "a card": he may cure a card on either side (project '
            "ruling)."
        ),
    ),
    Rule(
        "ML-P2",
        N_("Passing into the first turn's phases"),
        N_(
            "In the first turn a phase counts as "
            "taken once the player acts in it or the supremacy check runs; a phase passed "
            "through without acting was not taken (project ruling on M5)."
        ),
    ),
    Rule(
        "ML-P3",
        N_("Two copies, one change"),
        N_(
            "A strength change names its card and where it "
            "stands; with two copies of that card there, it counts while either stands "
            "uncursed (project ruling on M13)."
        ),
    ),
    Rule(
        "ML-P4",
        N_("Effects moving cards into play"),
        N_(
            "A card a text puts into a column or the "
            "centre follows the entry rules that need no choice: a building enters cursed (M7), "
            "a deity discards the opponent's (M9), and a player still has one commander in each "
            "column (M8); icons are the text's business (project ruling on M12)."
        ),
    ),
    Rule(
        "ML-P8",
        N_("Each card stays with its owner"),
        N_(
            "In a basic game every card stays on its "
            "owner's side: in his hand, deck, pile, columns or centre. A text moves a card only "
            "among its owner's zones; only the advanced game's bonus deck moves cards between "
            "decks (project ruling on M6, M12, M17)."
        ),
    ),
    Rule(
        "ML-P9",
        N_("A fate card has no icons"),
        N_(
            "A card's icons say which columns it may be "
            "played into; a fate card never enters a column, so a deck list giving one an icon "
            "is refused as a typing error, naming its line (project ruling on M9)."
        ),
    ),
)

_SERVICE = (
    Rule(
        "ML-P5",
        N_("A question holds the table"),
        N_(
            "While the referee waits for a player's "
            "answer (a hand card an effect takes, the card M4 discards), nothing else is "
            "recorded; the judge may answer for an absent player (project ruling)."
        ),
    ),
    Rule(
        "ML-P6",
        N_("A statement against the record"),
        N_(
            "A card stated or seen that contradicts "
            "what the referee recorded is an irregularity for the judge, never a refusal that "
            "tells the player something hidden (project ruling on M14)."
        ),
    ),
    Rule(
        "ML-P7",
        N_("Who names a hidden card"),
        N_(
            "A player names only cards he may see: his own "
            "hand and draws, the public board and the cards discarded from play; a card an "
            "effect takes from the opponent's hand is named by its holder (project ruling on "
            "M12, M14)."
        ),
    ),
    Rule(
        "ML-P10",
        N_("Taking back one's own last action"),
        N_(
            "A player may ask to take back his own last "
            "action while his opponent has not acted since; it is taken back only if the "
            "opponent accepts, and the request lapses when anyone acts. An action that turned up "
            "a card hidden from its player or that waits for an answer stands (ML-P11); only the "
            "judge corrects it. An accepted take-back is a correction in the log: nothing is "
            "deleted (project ruling)."
        ),
    ),
    Rule(
        "ML-P11",
        N_("An announced action stands"),
        N_(
            "An action is committed as soon as it passes the "
            "check on the table as its player knows it; if the referee then needs a card, the "
            "action waits for the answer (ML-P5), and only the judge's correction withdraws it "
            "(project ruling)."
        ),
    ),
    Rule(
        "ML-P12",
        N_("A correction must change the game"),
        N_(
            "An undo continues the game from the position "
            "after an earlier event; an undo to the position the game is in now changes nothing "
            "and is refused (project ruling)."
        ),
    ),
)

RULES: dict[str, Rule] = {r.id: r for r in (*_RULES, *_SERVICE)}
