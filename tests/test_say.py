"""engine.say and referee.language.say: a sentence keeps its English words as a str and is said
again in another language from its template, its values said too (issue 36)."""

from __future__ import annotations

import io
import pickle

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.support import Translations

from engine.say import C_, N_, Named, Say, say_n
from referee.language import say


def table() -> Translations:
    c = Catalog(locale="it")
    c.add("column %(column)s is full", "la colonna %(column)s è piena")
    c.add("%(card)s cannot attack %(other)s", "%(card)s non può attaccare %(other)s")
    c.add(("%(num)d card", "%(num)d cards"), ("%(num)d carta", "%(num)d carte", "%(num)d carte"))
    c.add("Pegasus", "Pegaso", context="herazeus card")
    c.add("Pandora's reach", "La portata di Pandora")
    c.add("%(cards)s go to the pile", "%(cards)s vanno negli scarti")
    out = io.BytesIO()
    write_mo(out, c)
    out.seek(0)
    return Translations(out)


def test_a_say_is_its_english_words() -> None:
    s = Say("column %(column)s is full", column=3)
    assert s == "column 3 is full" and isinstance(s, str)
    assert f"{s}!" == "column 3 is full!"


def test_a_say_is_said_from_its_template_and_values() -> None:
    assert say(Say("column %(column)s is full", column=3), "it", table()) == "la colonna 3 è piena"


def test_a_value_that_is_a_card_name_is_the_editions_name() -> None:
    s = Say("%(card)s cannot attack %(other)s", card=C_("herazeus card", "Pegasus"), other="Zeus")
    assert s == "Pegasus cannot attack Zeus"
    assert say(s, "it", table()) == "Pegaso non può attaccare Zeus"


def test_a_list_of_values_is_joined_and_each_said() -> None:
    s = Say("%(cards)s go to the pile", cards=[Named("Pegasus", "herazeus card"), "Hydra"])
    assert s == "Pegasus, Hydra go to the pile"
    assert say(s, "it", table()) == "Pegaso, Hydra vanno negli scarti"


def test_a_count_takes_the_languages_plural() -> None:
    assert say_n("%(num)d card", "%(num)d cards", 1) == "1 card"
    assert say_n("%(num)d card", "%(num)d cards", 3) == "3 cards"
    assert say(say_n("%(num)d card", "%(num)d cards", 3), "it", table()) == "3 carte"


def test_a_marked_constant_and_unknown_words_and_english() -> None:
    assert say(N_("Pandora's reach"), "it", table()) == "La portata di Pandora"
    assert say("D1", "it", table()) == "D1"  # data is not translated
    assert say(Say("column %(column)s is full", column=3), "en") == "column 3 is full"


def test_a_literal_percent_sign_in_a_sentence_without_values_is_left_alone() -> None:
    assert Say("100% sure") == "100% sure"
    assert say(Say("100% sure"), "it", table()) == "100% sure"


def test_a_say_survives_pickling() -> None:
    for s in (
        Say("column %(column)s is full", column=3),
        say_n("%(num)d card", "%(num)d cards", 2),
        C_("herazeus card", "Pegasus"),
    ):
        back = pickle.loads(pickle.dumps(s))
        assert back == s and type(back) is type(s)
        assert say(back, "it", table()) == say(s, "it", table())
