"""Hera & Zeus's refusals, questions and notation errors are said in the player's language
(issue 36).

The engine gives every sentence for a person as a :class:`engine.say.Say` whose card names are
:class:`engine.say.Named` (``engine.herazeus.names``); :func:`referee.language.say` says it in
Italian, French or German, with each card named as the Italian and French editions print it,
while the notation inside a sentence stays as written (``Argus/zeus``).

The property test plays many random tables and tries every kind of action in each: every
refusal and question met is a Say whose template the committed catalogue holds, and says itself
in Italian with nothing left unfilled. A message left unmarked (an f-string) fails it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache

import msgspec
import pytest
from babel.messages.pofile import read_po
from helpers import pos

from engine.herazeus.actions import (
    Action,
    Challenge,
    DeclareStuck,
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
from engine.herazeus.cards import COLUMN_DEPTH, COLUMNS, Player, card, default_catalogue, parse_card
from engine.herazeus.errors import IllegalActionError, NeedsInputError, NotationError
from engine.herazeus.game import apply
from engine.herazeus.names import CARD_NAMES, CONTEXT, card_name
from engine.herazeus.profiles import Profile, Ruleset
from engine.herazeus.simulate import random_game_start, random_playout
from engine.herazeus.state import GameState, Phase
from engine.say import Named, Say
from referee.game import Malformed, NotYours
from referee.herazeus.board import describe_event_json
from referee.herazeus.game import HERA_ZEUS, project
from referee.language import TRANSLATIONS, say
from referee.models import _plain

# ---- one of each, in Italian, French and German ------------------------------------------------


def test_a_refusal_names_the_card_as_each_edition_prints_it() -> None:
    st = pos(turn="hera", hera_hand=["Sirens"])
    with pytest.raises(IllegalActionError) as info:
        apply(st, Play("Sirens", 1))
    reason = info.value.reason
    assert reason == (
        "Sirens has no printed strength and is never played to the field; it is used for its "
        "power from the hand"
    )
    assert say(reason, "it") == (
        "Sirene non ha una forza stampata e non si gioca mai sul campo: si usa dalla mano per "
        "il suo potere"
    )
    assert say(reason, "fr") == (
        "Sirènes n'a aucune force imprimée et ne se joue jamais sur le terrain : on l'utilise "
        "depuis la main pour son pouvoir"
    )
    assert say(reason, "de").startswith("Sirens hat keine aufgedruckte Stärke")


def test_a_question_is_asked_in_the_players_language() -> None:
    st = pos(turn="hera", hera_hand=["Pegasus"], zeus_hand=["Hero"])
    with pytest.raises(NeedsInputError) as info:
        apply(st, PegasusHand(pick="Hero"))
    err = info.value
    assert err.needs == "place"  # a field: stays as it is
    assert err.reason == "Hera must choose the column of Zeus's first row for Hero (one of 1, 2, 3)"
    assert say(err.reason, "it") == (
        "Hera deve scegliere in quale colonna della prima fila di Zeus va Eroe (una tra 1, 2, 3)"
    )
    assert say(err.reason, "fr") == (
        "Hera doit choisir la colonne de la première rangée de Zeus pour Héros (parmi 1, 2, 3)"
    )
    assert say(err.reason, "de") == (
        "Hera muss die Spalte der ersten Reihe von Zeus für Hero wählen (eine von 1, 2, 3)"
    )


def test_a_notation_error_says_the_name_and_keeps_the_notation_english() -> None:
    with pytest.raises(NotationError) as info:
        parse_card(default_catalogue(), "Argus", Player.HERA, "card")
    err = info.value
    assert str(err) == (
        "card: Argus is not a card of Hera's deck; a card of Zeus's deck taken by Sirens is "
        "written Argus/zeus"
    )
    assert say(err.detail, "it") == (
        "Argo non è una carta del mazzo di Hera; una carta del mazzo di Zeus presa con le "
        "Sirene si scrive Argus/zeus"
    )
    assert say(err.detail, "fr") == (
        "Argus n'est pas une carte de la pioche de Hera ; une carte de la pioche de Zeus prise "
        "par les Sirènes s'écrit Argus/zeus"
    )
    assert say(err.detail, "de") == (
        "Argus ist keine Karte aus dem Stapel von Hera; eine Karte aus dem Stapel von Zeus, "
        "mit Sirens genommen, schreibt man Argus/zeus"
    )


def test_a_card_of_the_other_deck_is_said_with_its_deck_written_as_notation() -> None:
    st = pos(turn="hera", hera_hand=["Sirens"], zeus_discard=["Pegasus", "Medusa/hera"])
    with pytest.raises(IllegalActionError) as info:
        apply(st, Sirens())
    assert say(info.value.reason, "fr") == (
        "la défausse de Zeus montre Méduse/hera ; les Sirènes demandent au-dessus une carte de "
        "force 1 à 7"
    )


def test_every_card_of_both_decks_is_named_for_the_catalogues() -> None:
    cat = default_catalogue()
    names = {n for p in Player for n in cat.names(p)}
    assert {str(n) for n in CARD_NAMES} == names
    assert all(n.context == CONTEXT for n in CARD_NAMES)
    assert card_name("Pegasus") == Named("Pegasus", CONTEXT)
    assert (say(card_name("Pegasus"), "it"), say(card_name("Pegasus"), "fr")) == (
        "Pegasus",
        "Pégase",
    )


# ---- every refusal and question over many random tables -----------------------------------------


@cache
def _templates() -> frozenset[str]:
    with (TRANSLATIONS / "messages.pot").open("rb") as f:
        pot = read_po(f)
    return frozenset(m.id if isinstance(m.id, str) else m.id[0] for m in pot if m.id)


def _tries(st: GameState) -> Iterator[Action]:
    """Every kind of action, with columns, places and card names that often do not fit."""
    p, o = st.player, st.player.other
    cat = st.ruleset.catalogue
    every = [card(n, d) for d in Player for n in cat.names(d)]
    cols = range(1, COLUMNS + 1)
    yield Draw()
    for c in every[::3]:
        yield Play(c.notation(p), 1 + len(c.name) % COLUMNS, 1 + len(c.name) % (COLUMN_DEPTH + 1))
    for col in cols:
        yield Challenge(col)
        yield PegasusField(col)
        yield PythiaReveal(col)
        yield God(col)
    yield PegasusHand()
    for c in every[1::4]:
        yield PegasusHand(pick=c.notation(o))
        yield PegasusHand(pick=c.notation(o), place=1 + len(c.name) % COLUMNS)
    for c in every[2::5]:
        yield Hades(c.notation(p))
    yield PegasusOwnFigure()
    yield PythiaSpy()
    yield Sirens()
    yield Persephone()
    yield Dionysus((1, 1), (2, 1))
    yield Dionysus((2, 2), (2, 2))
    yield Dionysus((3, 1), (1, 4))
    yield RemoveFigure()
    yield DeclareStuck()
    yield EndTurn()


def _tables(games: int) -> Iterator[GameState]:
    """States of random games under each profile, each also as either player knows it (the
    other's hand and face-down cards unknown: the questions of D20 arise there)."""
    for g in range(games):
        rs = Ruleset.build(list(Profile)[g % len(Profile)])
        rng = random.Random(3_600 + g)
        st = random_game_start(rng, rs)
        for i, (before, _, _) in enumerate(random_playout(rng, st)):
            if i % 9 == 0 and before.phase is Phase.PLAY:
                yield before
                yield project(before, before.player.key)
                yield project(before, before.player.other.key)


def _words_of(st: GameState, a: Action) -> tuple[type, Say | str] | None:
    try:
        apply(st, a, asking=True)
    except (IllegalActionError, NeedsInputError) as e:
        return type(e), e.reason
    except NotationError as e:
        return NotationError, e.detail
    return None


def test_every_refusal_and_question_on_random_tables_is_marked_and_said_whole() -> None:
    seen: set[str] = set()
    kinds: set[type] = set()
    bad: list[str] = []
    for st in _tables(30):
        for a in _tries(st):
            met = _words_of(st, a)
            if met is None:
                continue
            kind, words = met
            kinds.add(kind)
            if not isinstance(words, Say):
                bad.append(f"not marked: {words!r} ({a})")
                continue
            seen.add(words.template)
            if words.template not in _templates():
                bad.append(f"not in messages.pot: {words.template!r}")
            italian = say(words, "it")
            if "%(" in italian or italian == "":
                bad.append(f"said badly in Italian: {italian!r}")
    assert not bad, "\n".join(sorted(set(bad))[:15])
    assert {IllegalActionError, NeedsInputError} <= kinds
    assert len(seen) >= 40, f"only {len(seen)} different sentences met: widen the tables"


# ---- the referee's Hera & Zeus module keeps the words sayable ----------------------------------


def test_the_game_module_hands_the_service_a_malformed_action_still_sayable() -> None:
    with pytest.raises(Malformed) as info:
        HERA_ZEUS.parse_action({"do": "play", "card": "Pegasus", "column": 7}, "action")
    reason = info.value.reason
    assert reason == "action.column: must be a column 1..3, not 7"  # str(NotationError)
    assert say(reason, "it") == "action.column: deve essere una colonna 1..3, non 7"
    assert say(reason, "fr") == "action.column : doit être une colonne 1..3, pas 7"


def test_the_game_module_says_a_seat_acting_out_of_turn_in_german() -> None:
    st = pos(turn="hera", hera_hand=["Furies"])
    with pytest.raises(NotYours) as info:
        HERA_ZEUS.actor(st, Play("Furies", 1), "zeus")
    assert say(info.value.reason, "de") == (
        "Hera ist am Zug; der Platz zeus kann nicht für Hera handeln"
    )


def test_a_sayable_sentence_goes_into_the_apis_json_as_its_english_words() -> None:
    """The views and rulings are msgspec structs, and msgspec encodes no ``str`` subclass:
    referee.models encodes a Say as its English words (the API's language is another layer)."""
    st = pos(turn="hera", hera_hand=["Sirens"])
    with pytest.raises(IllegalActionError) as info:
        apply(st, Play("Sirens", 1))
    words = info.value.reason
    with pytest.raises(TypeError):
        msgspec.to_builtins({"message": words})
    assert msgspec.to_builtins({"message": words}, enc_hook=_plain) == {"message": str(words)}


# ---- the log's sentences (referee/herazeus/board.py) ------------------------------------------


def test_an_event_sentence_names_card_and_place_in_the_readers_language() -> None:
    e = {"kind": "discarded", "player": "hera", "card": "Amazon/zeus", "from": "field 1.2"}
    words = describe_event_json(e)
    assert words == "Hera discards Amazon (Zeus's card) from column 1, row 2."
    assert say(words, "it") == "Hera scarta Amazzone (carta di Zeus) dalla colonna 1, fila 2."
    assert say(words, "fr") == "Hera défausse Amazone (carte de Zeus) de la colonne 1, rangée 2."
    assert say(words, "de") == "Hera legt Amazon (Karte von Zeus) aus Spalte 1, Reihe 2 ab."


@pytest.mark.parametrize(
    ("ap", "german"),
    [
        (1, "der Zug von Zeus beginnt mit 1 Aktionspunkt."),
        (3, "der Zug von Zeus beginnt mit 3 Aktionspunkten."),
    ],
)
def test_an_event_sentence_counts_action_points_in_the_readers_plural(ap: int, german: str) -> None:
    words = describe_event_json({"kind": "turn_began", "player": "zeus", "ap": ap})
    assert words == f"Zeus's turn begins with {ap} action point{'s' if ap != 1 else ''}."
    assert say(words, "de") == german


def test_every_event_of_random_games_says_itself_whole_in_italian() -> None:
    kinds: set[str] = set()
    bad: list[str] = []
    for g in range(12):
        rng = random.Random(7_100 + g)
        for _, _, out in random_playout(rng, random_game_start(rng)):
            for ev in out.events:
                words = describe_event_json(ev.to_json())
                if words is None:
                    continue
                kinds.add(str(ev.kind.value))
                if not isinstance(words, Say) or words.template not in _templates():
                    bad.append(f"not marked: {words!r}")
                elif "%(" in say(words, "it"):
                    bad.append(f"said badly in Italian: {say(words, 'it')!r}")
    assert not bad, "\n".join(sorted(set(bad))[:15])
    assert len(kinds) >= 10


def test_a_kits_bad_catalogue_is_refused_in_the_organisers_language() -> None:
    with pytest.raises(Malformed) as info:
        HERA_ZEUS.setup({"catalogue": {"strengths": {"Sirens": 3}}}, {})
    reason = info.value.reason
    assert reason == (
        "create.catalogue: bad kit catalogue: Sirens has no printed strength; it cannot be "
        "overridden"
    )
    assert say(reason, "it") == (
        "create.catalogue: catalogo del kit non valido: Sirene non ha una forza stampata: non si "
        "può modificare"
    )
