"""Minotaur Lords refusals, questions and notation errors can be said in every language (issue 36).

The engine gives each sentence as a Say; these tests say them in Italian, French and German, and
check over many random games that every refusal and question a player can meet is marked, in the
committed catalogue, and said in Italian with every value filled in.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from engine.errors import IllegalActionError, NeedsInputError, NotationError
from engine.minotaur.actions import (
    Action,
    Activate,
    ChangeHand,
    Cure,
    EndTurn,
    Exercise,
    Pass,
    Place,
    Play,
    parse_action,
)
from engine.minotaur.cards import (
    COLUMN_IDS,
    PLAYERS,
    CardType,
    Catalogue,
    opponent,
    parse_deck_list,
)
from engine.minotaur.names import CARDS, card_name
from engine.minotaur.rules import apply, new_game
from engine.minotaur.simulate import play_random, random_effect, random_start
from engine.minotaur.state import PHASES, Stage, State
from engine.say import Named, Say
from referee.language import say

ROOT = Path(__file__).resolve().parent.parent
CARDS_CSV = parse_deck_list((ROOT / "tests" / "data" / "minotaur" / "decks.csv").read_text())
POT = ROOT / "referee" / "translations" / "messages.pot"
GAMES = 40


def _with_jalal() -> State:
    """A game whose first Miron column card is named Jalal (the one card name the Italian rules
    print) and stands on top of Miron's deck, so it is in his opening hand; Miron starts."""
    cards = list(CARDS_CSV)
    i = next(k for k, c in enumerate(cards) if c.deck == "miron" and c.type is CardType.SERVANT)
    cards[i] = replace(cards[i], name="Jalal")
    decks: dict[str, Sequence[str | None]] = {
        p: [c.name for c in cards if c.deck == p] for p in PLAYERS
    }
    decks["miron"] = ["Jalal", *(n for n in decks["miron"] if n != "Jalal")]
    bonus = [c.name for c in cards if c.deck == "bonus"]
    return new_game(Catalogue(cards), decks, "miron", bonus=bonus)


def test_jalal_is_a_marked_card_name_said_as_the_italian_edition_prints_it() -> None:
    assert (Named("Jalal", "minotaur card"),) == CARDS
    assert card_name("Jalal").context == "minotaur card"
    for lang in ("it", "fr", "de"):
        assert say(card_name("Jalal"), lang) == "Jalal"


def test_a_refusal_is_said_in_italian_french_and_german() -> None:
    st = _with_jalal()
    with pytest.raises(IllegalActionError) as e:
        apply(st, Pass(by="vess"))
    reason = e.value.reason
    assert reason == "It is Miron's turn"  # English unchanged
    assert say(reason, "it") == "È il turno di Miron"
    assert say(reason, "fr") == "C'est le tour de Miron"
    assert say(reason, "de") == "Miron ist am Zug"


def test_a_refusal_naming_a_card_and_a_column_is_said_with_both_translated() -> None:
    st = _with_jalal()
    with pytest.raises(IllegalActionError) as e:
        apply(st, Activate("Jalal", at="upper-military"))
    reason = e.value.reason
    assert isinstance(reason, Say)
    assert "Jalal" in say(reason, "it") and "colonna militare alta" in say(reason, "it")
    assert "colonne militaire du haut" in say(reason, "fr")
    assert "Militärspalte oben" in say(reason, "de")


def test_a_question_is_said_in_italian_french_and_german_with_the_card_name() -> None:
    st = _with_jalal()
    with pytest.raises(NeedsInputError) as e:
        apply(st, Play("Jalal"))
    q = e.value.reason
    assert q == "Jalal is played into a column: which one?"
    assert say(q, "it") == "Jalal si gioca in una colonna: quale?"
    assert say(q, "fr") == "Jalal se joue dans une colonne : laquelle ?"
    assert say(q, "de") == "Jalal wird in eine Spalte gespielt: in welche?"


def test_a_notation_error_is_said_in_italian_french_and_german() -> None:
    with pytest.raises(NotationError) as e:
        parse_action({"do": "play", "card": "X", "column": "middle"}, "action")
    detail = e.value.detail
    assert detail == "'middle' is not a column (" + ", ".join(COLUMN_IDS) + ")"
    assert say(detail, "it").startswith("'middle' non è una colonna (upper-military, ")
    assert say(detail, "fr").startswith("'middle' n'est pas une colonne (")
    assert say(detail, "de").startswith("'middle' ist keine Spalte (")


def _probes(rng: random.Random, st: State) -> list[Action]:
    """Actions a player might try in ``st``: most of them refused or asking for more."""
    p = st.turn.player
    names = sorted(st.catalogue.cards)
    hand = [n for n in st.side(p).hand if n is not None] or names[:1]
    cols = list(COLUMN_IDS)
    out: list[Action] = []
    for _ in range(6):
        who = rng.choice(PLAYERS)
        card = rng.choice(hand + names)
        col = rng.choice([None, *cols])
        out.append(Play(card, col, replace=rng.choice([None, card]), by=who))
        out.append(Activate(card, at=rng.choice(["centre", *cols]), by=who))
        out.append(Cure(card, Place(rng.choice(PLAYERS), rng.choice(["centre", *cols])), by=who))
        out.append(Pass(to=rng.choice([None, *PHASES]), by=who))
        target = (rng.choice(names), rng.choice(cols)) if rng.random() < 0.5 else None
        out.append(Exercise(rng.choice(cols), target=target, by=who))
        out.append(EndTurn(discard=rng.choice([None, card]), by=who))
        out.append(ChangeHand(tuple(rng.sample(hand, rng.randint(0, len(hand)))), by=who))
        if st.turn.pending or rng.random() < 0.3:
            out.append(random_effect(rng, st, rng.choice([p, opponent(p)]), card))
    return out


def _marked() -> set[str]:
    with POT.open("rb") as f:
        return {
            str(m.id[0]) if isinstance(m.id, (tuple, list)) else str(m.id)
            for m in read_po(f)
            if m.id
        }


def test_every_refusal_and_question_of_random_games_is_marked_and_said_in_italian() -> None:
    marked = _marked()
    seen: set[str] = set()
    for seed in range(GAMES):
        rng = random.Random(seed)
        st = random_start(rng, CARDS_CSV, advanced=seed % 4 == 0)
        for n, step in enumerate(play_random(rng, st, max_actions=200)):
            st = step.outcome.state
            if st.stage is not Stage.PLAY or n % 3:
                continue
            for a in _probes(rng, st):
                try:
                    apply(st, a)
                except (IllegalActionError, NeedsInputError) as e:
                    reason = e.reason
                    assert isinstance(reason, Say), f"not marked: {reason!r}"
                    assert reason.template in marked, f"not in messages.pot: {reason.template!r}"
                    italian = say(reason, "it")
                    assert "%(" not in italian, italian
                    seen.add(reason.template)
                except NotationError:
                    pass
    assert len(seen) >= 25, sorted(seen)  # the probes reach most of the refusals


def test_a_log_sentence_of_the_seat_pages_is_said_in_italian_french_and_german() -> None:
    from referee.minotaur.game import event_words

    words = event_words(
        {"event": "played", "player": "miron", "card": "Jalal", "column": "lower-religious"}
    )
    assert words == "Miron played Jalal into the lower religious column."
    assert say(words, "it") == "Miron ha giocato Jalal nella colonna religiosa bassa."
    assert say(words, "fr") == "Miron a joué Jalal dans la colonne religieuse du bas."
    assert say(words, "de") == "Miron hat Jalal in die Religionsspalte unten gespielt."
