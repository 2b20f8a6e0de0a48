"""The rule catalogue: every rule the referee applies, in the project's own words.

Ids D1-D22 are the decisions of RULES.md; ``HZ-*`` ids are the project's own rules for what no
decision numbers (turn order, the end of the game); ``HZ-P*`` ids are project rulings on
questions RULES.md leaves open (see docs/rules.md). Sources are cited by the keys of RULES.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.herazeus.profiles import Profile
from engine.say import N_

SOURCES = {
    "EN": N_("Rio Grande English rulebook (Kosmos 2000, transl. J. Tummelson)"),
    "IT": N_("Italian fan translation (M. Signore)"),
    "FR": N_("French fan translation (C. Caumont), after Borg's English text"),
    "REF": N_("Comprehensive Reference Manual (third-party summary; has errors)"),
    "FAQ-RB": N_("Designer FAQ, Richard Borg, rev. 4/2002"),
    "FAQ-DE": N_("German FAQ by M. Staber from posts by Borg and TM-Spiele"),
    "PROJECT": N_("a ruling of this project where no source answers"),
}


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    title: str
    text: str
    sources: tuple[str, ...]
    profiles: dict[Profile, str] = field(default_factory=dict)  # where the profiles differ
    switch: str | None = None

    def citation(self) -> str:
        return f"{self.id} {self.title} ({', '.join(self.sources)})"


_R = Rule
RG, KO, TR = Profile.RIO_GRANDE, Profile.KOSMOS, Profile.TRANSLATIONS

RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        _R(
            "D1",
            N_("Pandora's reach"),
            N_(
                "A challenged first-row Pandora empties the whole column on both sides, the "
                "challenging card with it; a side whose column holds its figure is spared. Each owner "
                "orders his own lost cards (front first unless he says otherwise). Losing your own "
                "hostage this way loses the game; costing only the opponent his hostage wins it."
            ),
            ("EN", "IT"),
            switch="pandora_scope",
        ),
        _R(
            "D2",
            N_("Pegasus against the hand"),
            N_(
                "Needs a card in the opponent's hand. One card is taken blind. The hostage wins the "
                "game; Pandora sends the whole hand to the pile (and wins if the hostage was in it); "
                "a card with a myth symbol (Amazon and Hero aside) or of strength 0-1 is discarded; a "
                "card of strength 2-7 goes face up to the front of a column the Pegasus player picks, "
                "never one that is full or holds the figure; with no such column it is discarded."
            ),
            ("EN", "FAQ-RB"),
        ),
        _R(
            "D3",
            N_("Pythia in a challenge"),
            N_(
                "Pythia attacking Poseidon or Nemesis wins; Poseidon or Nemesis attacking Pythia "
                "wins. Any other pairing is an ordinary challenge (the hostage, Medusa and Pandora "
                "rules included) decided by printed strength."
            ),
            ("EN", "IT", "FR", "REF"),
            profiles={
                RG: N_("ordinary challenge by strength"),
                KO: N_("ordinary challenge by strength"),
                TR: N_("Pythia always loses when she is challenged"),
            },
            switch="pythia_defends",
        ),
        _R(
            "D4",
            N_("Removing your own figure"),
            N_(
                "One action point takes your own figure off the field, even in the turn it arrived. "
                "It is never a free action, whatever REF says."
            ),
            ("EN", "FAQ-DE", "IT"),
            profiles={
                RG: N_("costs one action point"),
                TR: N_("costs one action point"),
                KO: N_("only by playing a Pegasus from the hand against it (1 point)"),
            },
            switch="own_figure_removal",
        ),
        _R(
            "D5",
            N_("Pegasus against the first row"),
            N_(
                "From the second turn on, a Pegasus from the hand may hit any first-row card or the "
                "figure. The target turns face up: the hostage wins the game, Medusa stays, Pandora "
                "acts as in D1, strength 0-1 is discarded, strength 2-7 stays, a figure goes back to "
                "its supply and its column closes up. A figure's column can be targeted only to hit "
                "that figure. Your own figure does not stop the Pegasus (the designer's answer; EN's "
                "text would forbid it). Where a house rule lets the own figure stop it, it still "
                "never protects the opponent's figure standing opposite: hitting that figure is the "
                "only way to remove it."
            ),
            ("EN", "IT", "FR", "FAQ-RB"),
            switch="pegasus_beside_own_figure",
        ),
        _R(
            "D6",
            N_("First turn"),
            N_(
                "On his own first turn a player may not challenge in any way (cards, Pythia from the "
                "field, either Pegasus). Pythia's spy and reveal, the god card and every other action "
                "are allowed."
            ),
            ("EN", "FAQ-RB"),
        ),
        _R(
            "D7",
            N_("Action points"),
            N_(
                "Each action costs one point except the god card and ending the turn. A turn starts "
                "with four points if the figure is on the field, else one per column holding a card; "
                "losses during the turn change nothing. The god card makes the turn's total four. A "
                "turn ends only when every point is spent."
            ),
            ("EN", "FAQ-RB"),
        ),
        _R(
            "D8",
            N_("Cannot use all action points"),
            N_(
                "A player with points left and no legal action that costs one, even after a free god "
                "card, loses at once. The test looks one action ahead, never further. A challenge is "
                "compulsory only when it is the only way to spend a point."
            ),
            ("EN",),
        ),
        _R(
            "D9",
            N_("No cards on the field"),
            N_(
                "A player who starts his turn without a card on his side loses. The figure is not a "
                "card."
            ),
            ("EN",),
        ),
        _R(
            "D10",
            N_("Playing a card"),
            N_(
                "A card with a printed strength (the hostage too) goes face down into a column with "
                "fewer than four entries, at the front, between or at the back, never in front of a "
                "figure. Cards with a power only never go to the field."
            ),
            ("EN",),
        ),
        _R(
            "D11",
            N_("Challenges"),
            N_(
                "First-row card against the first-row card opposite, never diagonally, never on the "
                "first turn, never by Io, Argus, Medusa, Pandora or a figure, never into or out of a "
                "figure's column. Both turn face up. The opponent's hostage: the attacker wins the "
                "game. Medusa: only Amazon or Hero beat her, anyone else falls. Otherwise higher "
                "strength stays face up, lower is discarded, a tie discards both; columns close up."
            ),
            ("EN", "FAQ-RB"),
        ),
        _R(
            "D12",
            N_("Pythia's spy and reveal"),
            N_(
                "Spy: the opponent shows his hand, even an empty one; any Poseidon or Nemesis in it "
                "goes to its holder's pile. Reveal: every face-down card of one opponent column that "
                "holds a card turns face up, and nothing they are takes effect. Neither is a "
                "challenge."
            ),
            ("EN", "FAQ-RB"),
        ),
        _R(
            "D13",
            N_("Sirens"),
            N_(
                "Only when the opponent's top discard has strength 1-7; that card joins the player's "
                "hand and is his from then on, though it keeps its origin."
            ),
            ("EN",),
        ),
        _R(
            "D14",
            N_("Hades"),
            N_(
                "Needs a card in the player's own pile; he takes one of his choice into his hand, "
                "unseen."
            ),
            ("EN",),
        ),
        _R(
            "D15",
            N_("Persephone"),
            N_(
                "Takes every Pegasus in the player's pile into his hand, up to three and up to the "
                "hand limit; legal with none there."
            ),
            ("EN",),
        ),
        _R(
            "D16",
            N_("Dionysus"),
            N_(
                "Moves one of the player's field cards, never the figure, to another column with room "
                "or to another place in its own column, never in front of a figure. The card keeps "
                "its face. There must be a card to move and a different place to put it."
            ),
            ("EN",),
        ),
        _R(
            "D17",
            N_("The god card"),
            N_(
                "Free. The figure goes to the front of one of the player's columns holding one to "
                "three cards; one figure per player; allowed on the first turn. It stays put until "
                "removed (D4, D5); then the cards behind close up."
            ),
            ("EN",),
        ),
        _R(
            "D18",
            N_("Hand and deck"),
            N_(
                "At most twelve cards in hand: no drawing at twelve. No drawing from an empty deck."
            ),
            ("EN",),
        ),
        _R(
            "D19",
            N_("Setup"),
            N_(
                "Each player draws nine; a player holding his own hostage shows it, draws a "
                "replacement and shuffles the hostage back. Each lays three cards face down as his "
                "first row, no power-only cards. A hand with fewer than three cards with a printed "
                "strength cannot do that: it is shown, shuffled into the deck and nine cards are "
                "drawn again, and the log records it. The starting player is chosen at setup (Hera by "
                "default)."
            ),
            ("EN", "IT", "FR"),
            profiles={
                RG: N_("starting player chosen, Hera by default"),
                TR: N_("starting player chosen"),
                KO: N_("Hera always starts"),
            },
        ),
        _R(
            "D20",
            N_("Unknown cards"),
            N_(
                "The referee works with cards it has not seen. When an outcome depends on one, it "
                "asks for that card's identity; when an observation contradicts the record it flags "
                "the difference for a judge instead of rewriting history."
            ),
            ("PROJECT",),
        ),
        _R(
            "D21",
            N_("Discard piles"),
            N_(
                "A pile lies face up: everyone sees its top card and its height, only its owner looks "
                "through it. A player's view shows his own pile whole and the opponent's as top card "
                "and height; no view says which card Hades took."
            ),
            ("PROJECT", "EN"),
        ),
        _R(
            "D22",
            N_("Who states a hidden card"),
            N_(
                "A hidden card's identity is taken only from someone who may see it: its holder, the "
                "judge, or a scan. A player's submission naming a card hidden from him is refused "
                "before anything is compared, with the same answer whatever it names. A card the "
                "referee already knows it states itself. A ruling file is the judge's statement and "
                "may name every card."
            ),
            ("PROJECT",),
        ),
        _R(
            "HZ-TURN",
            N_("Turn order"),
            N_("Players alternate turns; only the player whose turn it is acts."),
            ("EN",),
        ),
        _R(
            "HZ-OVER",
            N_("After the end"),
            N_("Once a player has won, no further action is taken."),
            ("EN",),
        ),
        _R(
            "HZ-P1",
            N_("Dionysus must move"),
            N_(
                "Putting a card back where it stood is not a move; Dionysus needs a different place "
                "(D16's 'another place'; a refusal cites both)."
            ),
            ("PROJECT",),
        ),
        _R(
            "HZ-P2",
            N_("Own figure removed by Pegasus on the first turn"),
            N_(
                "Where Pegasus removes one's own figure (D4, kosmos), it is not a challenge of the "
                "opponent and is allowed on the first turn, like removal by an action point."
            ),
            ("PROJECT", "FAQ-DE"),
        ),
        _R(
            "HZ-P3",
            N_("Which copy is used"),
            N_(
                "A player holding his own card and the same card taken by Sirens uses his own first; "
                "Hades takes the topmost matching card; Persephone takes the topmost Pegasus cards."
            ),
            ("PROJECT",),
        ),
        _R(
            "HZ-P4",
            N_("Pegasus from the hand and Pandora"),
            N_(
                "The Pegasus goes to its owner's pile first; the column's cards follow in their "
                "owners' chosen order."
            ),
            ("PROJECT", "FAQ-RB"),
        ),
        _R(
            "HZ-P5",
            N_("Pegasus from the hand against Pythia"),
            N_(
                "Pegasus from the hand counts as a challenge, so where Pythia always loses when "
                "challenged (translations) she is discarded."
            ),
            ("PROJECT", "FAQ-RB"),
        ),
        _R(
            "HZ-P6",
            N_("Unknown hand cards and D8"),
            N_(
                "While the active player's hand holds cards the referee does not know, it does not "
                "rule D8 by itself; the player declares it and a judge confirms."
            ),
            ("PROJECT",),
        ),
        _R(
            "HZ-P7",
            N_("A column named for a card that is not placed"),
            N_(
                "The Pegasus player picks a column only after seeing the card; a column named for a "
                "card that is discarded anyway (strength 0-1, a myth card, no room) changes nothing "
                "and is ignored."
            ),
            ("PROJECT", "EN"),
        ),
        _R(
            "HZ-P8",
            N_("Pythia's spy finds a card taken by Sirens"),
            N_(
                "A Poseidon or Nemesis the opponent took by Sirens is his card now (D13): the spy "
                "sends it to his pile, not back to its deck's owner."
            ),
            ("PROJECT", "EN"),
        ),
        _R(
            "HZ-P9",
            N_("Dealing a hand again"),
            N_(
                "A hand is judged for a re-deal only after its hostage was shown and replaced; the "
                "hostage has no printed strength and never counts. The owner names any card of the "
                "shown hand the referee did not know; the nine new cards are recorded like a deal, "
                "and a new hand that again holds the hostage, or again too few cards, goes through "
                "the same steps. A hand with three such cards is never dealt again."
            ),
            ("PROJECT",),
        ),
        _R(
            "HZ-P10",
            N_("Numbering the columns"),
            N_(
                "The three columns are shared by both players: a card and the card facing it across "
                "the middle are in the same column and carry the same number, so a challenge in "
                "column 2 is fought between the two first-row cards of column 2. Hera numbers them 1 "
                "to 3 from her left; Zeus's column 1 is the one facing Hera's column 1, on his right. "
                "The play mat prints each side's numbers where its owner reads them."
            ),
            ("PROJECT",),
        ),
        _R(
            "HZ-P11",
            N_("A question waits for its answer"),
            N_(
                "When the referee needs a card only its holder may state (a card drawn by Pegasus, a "
                "face-down card turned up by a challenge, Pegasus or Pythia), the action waits for "
                "that answer: neither player records another action until it is given. The judge may "
                "answer in the holder's place, or withdraw the action with a correction."
            ),
            ("PROJECT",),
        ),
        _R(
            "HZ-P12",
            N_("An announced action stands"),
            N_(
                "An action is committed as soon as it passes the check on the table as its player "
                "knows it. If the referee then needs a card or a choice, the action is recorded with "
                "that question and waits for its answer (HZ-P11); only the judge's correction "
                "withdraws it. The questions come in the rules' own order: attacker, defender, the "
                "defender's column lost to Pandora, then the challenger's (D1, D11). A discard order "
                "a challenger gives in advance for his own column is checked when he announces the "
                "action, whatever the target turns out to be."
            ),
            ("PROJECT",),
        ),
        _R(
            "HZ-P13",
            N_("The owner is asked his discard order"),
            N_(
                "At a table the referee asks a player the order of the cards he loses to Pandora "
                "(D1), of the whole hand he discards (D2) or of the Poseidon and Nemesis cards "
                "Pythia's spy finds in his hand (D12) when two or more different cards go and the "
                "action did not give it. He is asked once the cards are face up for both players, the "
                "default order (as they stood, the rearmost on top) one tap away; the judge may "
                "answer for him (HZ-P11). A ruling file or a replay uses the default order unless the "
                "action gives one."
            ),
            ("PROJECT",),
        ),
        _R(
            "HZ-P14",
            N_("Taking back one's own last action"),
            N_(
                "A player may ask to take back his own last action while his opponent has not acted "
                "since; it is taken back only if the opponent accepts, and the request lapses when "
                "anyone acts. An action that turned up a card hidden from its player (a challenge, a "
                "Pegasus, a Pythia) or that waits for an answer stands (HZ-P12); only the judge "
                "corrects it. An accepted take-back is a correction in the log: nothing is deleted, "
                "and the undone action stays hidden as it was (D21, D22)."
            ),
            ("PROJECT",),
        ),
        _R(
            "HZ-P15",
            N_("A correction must change the game"),
            N_(
                "An undo continues the game from the position after an earlier event; an undo to the "
                "position the game is in now (no action in effect after that event, no question open) "
                "would log a correction that corrects nothing, and is refused. The judge chooses the "
                "event before the action to take back."
            ),
            ("PROJECT",),
        ),
    )
}


def rule(rule_id: str) -> Rule:
    """The rule with this id. Raises KeyError for an unknown id."""
    return RULES[rule_id]
