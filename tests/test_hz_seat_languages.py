"""Issue 36: the Hera & Zeus seat page and its create form speak each reader's language.

- one game played through the pages' forms, Hera in Italian and Zeus in French: each page is
  in its reader's language (``<html lang>``, its words), the cards are named as each edition
  prints them (Amazzone, Pégase), while the forms still send the English names back;
- in the made-up language of tests/test_i18n.py (every translation ⟦English⟧), every state of
  the seat page that the game module draws (setup, one's own turn, waiting, a question, the
  game over) and the create form show no English left in the game's own templates (the shared
  parts of the seat page are another slice's, and left out here).
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest
import test_i18n
from flask import Flask, render_template
from test_i18n import PSEUDO, english_left
from web_helpers import Browser, make_app, new_game

from referee.language import say
from web.games import served
from web.games.herazeus.forms import parse_answer
from web.games.herazeus.page import PAGES
from web.i18n import LANG_COOKIE

HERA_HAND = ["Hydra", "Harpy", "Furies", "Pegasus", "Nemesis", "Artemis", "Amazon", "Sirens"]
HERA_HAND.append("Hades")
ZEUS_HAND = ["Cyclops", "Giant", "Centaur", "Pegasus", "Poseidon", "Apollo", "Hero", "Pythia"]
ZEUS_HAND.append("Medusa")
OPTIONS = {"profile": "rio-grande", "starting": "hera"}

# test_i18n's made-up language ("eo": every translation ⟦English⟧) and an app serving it
pseudo_dir = test_i18n.pseudo_dir
pseudo_app = test_i18n.pseudo_app


class Game:
    """A game of Hera & Zeus, each seat's browser reading its own language."""

    def __init__(self, app: Flask, hera: str, zeus: str) -> None:
        created, browsers = new_game(app, options=OPTIONS)
        self.game = created.game
        self.b: dict[str, Browser] = {"hera": browsers["hera"], "zeus": browsers["zeus"]}
        self.b["hera"].client.set_cookie(LANG_COOKIE, hera)
        self.b["zeus"].client.set_cookie(LANG_COOKIE, zeus)

    def page(self, seat: str) -> str:
        r = self.b[seat].get(f"/g/{self.game}")
        assert r.status_code == 200, r.data[:300]
        return r.get_data(as_text=True)

    def post(self, seat: str, path: str, **data: Any) -> None:
        """Sends one of the seat page's forms, as the page's button would."""
        found = re.search(r'name="csrf" value="([^"]+)"', self.page(seat))
        assert found is not None
        r = self.b[seat].client.post(f"/g/{self.game}{path}", data={"csrf": found[1], **data})
        assert r.status_code == 303, r.data[:300]
        assert 'class="flash error"' not in self.page(seat)

    def setup(self) -> None:
        self.post("hera", "/act", do="deal", cards=HERA_HAND)
        self.post("hera", "/act", do="first_row", cards=["Hydra", "Harpy", "Furies"])
        self.post("zeus", "/act", do="deal", cards=ZEUS_HAND)
        self.post("zeus", "/act", do="first_row", cards=["Cyclops", "Giant", "Centaur"])

    def to_pegasus(self) -> None:
        """Both players draw three cards (not entered) and end their first turns; then Hera
        plays Pegasus against Zeus's hand: the referee asks Zeus which card came out."""
        for seat in ("hera", "zeus"):
            for _ in range(3):
                self.post(seat, "/act", do="draw")
            self.post(seat, "/act", action="end")
        self.post("hera", "/act", action="pegasus hand")


def lang_of(page: str) -> str:
    found = re.search(r'<html lang="([^"]+)">', page)
    assert found is not None
    return found[1]


@pytest.fixture
def app() -> Flask:
    return make_app()


def test_hera_reads_her_page_in_italian_and_zeus_in_french(app: Flask) -> None:
    g = Game(app, hera="it", zeus="fr")
    hera, zeus = g.page("hera"), g.page("zeus")
    assert lang_of(hera) == "it" and lang_of(zeus) == "fr"
    assert "Registra le mie nove carte" in hera and "Enregistrer mes neuf cartes" in zeus
    # the cards as each edition prints them; the value sent back stays the English name
    assert '<option value="Amazon">Amazzone</option>' in hera
    assert '<option value="Hero">Héros</option>' in zeus
    assert '<option value="Pegasus">Pégase</option>' in zeus
    assert "Le liste dei mazzi di questa partita" in hera
    assert re.search(r"<caption>Pioche de Zeus \(\d+ cartes\)</caption>", zeus)

    g.setup()
    hera, zeus = g.page("hera"), g.page("zeus")
    assert "Tocca a te" in hera and "Pesca (1 punto)" in hera
    assert "Hydra, coperta" in hera  # her drawing: her own Hydra, face down
    assert "À Hera de jouer" in zeus and "Cyclope, face cachée" in zeus
    assert "Pioche de Zeus" in zeus and "Mazzo di Hera" in hera

    g.to_pegasus()
    zeus = g.page("zeus")
    assert "Pégase a tiré une carte de la main : quelle carte est sortie ?" in zeus
    assert '<button type="submit" name="tap" value="Medusa">Méduse</button>' in zeus
    g.post("zeus", "/answer", needs="pick", tap="Argus")  # his hostage: Hera wins (D2)
    hera, zeus = g.page("hera"), g.page("zeus")
    assert "Partita finita" in hera and "Partie terminée" in zeus
    assert "ha vinto Hera" in hera and "Hera a gagné" in zeus


def test_the_english_page_keeps_its_words(app: Flask) -> None:
    g = Game(app, hera="en", zeus="en")
    g.setup()
    hera = g.page("hera")
    assert lang_of(hera) == "en"
    assert "Draw (1 point)" in hera and "Hydra, face down" in hera
    assert '<option value="Amazon">Amazon</option>' in hera
    assert "Your turn" in hera and "action points left" in hera


# ---- the made-up language: English left in the game's own templates shows up ---------------

# the parts of a seat page the game module draws (its templates' sections and its status line)
OWN_SECTIONS = re.compile(
    r'<section[^>]*\bid="(?:setup|actions|table|photo|decks)"[^>]*>.*?</section>', re.S
)
OWN_STATUS = re.compile(r'<p class="turn[^"]*">.*?</p>', re.S)
# the answer form's own part: after the shared question (a <p>) up to the shared button
OWN_ANSWER = re.compile(
    r'<form[^>]*class="ask".*?</h2>\s*<p>.*?</p>(.*?)<button type="submit"', re.S
)


def own_parts(page: str) -> str:
    parts = OWN_STATUS.findall(page) + OWN_SECTIONS.findall(page) + OWN_ANSWER.findall(page)
    return "\n".join(parts)


# markup inside one sentence (its msgid holds it: "Starting player: <strong>%(who)s</strong>")
INLINE = re.compile(r"</?(?:strong|code|a|span|em)\b[^>]*>")


def english_in(html: str, data: set[str]) -> list[str]:
    """english_left, each sentence read whole across the markup inside it."""
    return english_left(INLINE.sub("", html), data)


def english_in_own_parts(page: str, game: str) -> list[str]:
    html = own_parts(page)
    html = re.sub(r">([HZ]) · ", ">", html)  # the drawing's deck letters (H, Z)
    data = {game, "Hera", "Zeus"} | set(re.findall(r"\bD\d+\b", html))  # rule ids
    return english_in(html, data)


@pytest.fixture
def pseudo_game(pseudo_app: Flask) -> Game:
    return Game(pseudo_app, hera=PSEUDO, zeus=PSEUDO)


def test_every_state_of_the_seat_page_shows_no_english_in_a_made_up_language(
    pseudo_game: Game,
) -> None:
    g = pseudo_game
    seen: dict[str, str] = {}
    seen["setup"] = g.page("hera")
    g.post("hera", "/act", do="deal", cards=HERA_HAND)
    seen["setup, dealt"] = g.page("hera")
    g.post("hera", "/act", do="first_row", cards=["Hydra", "Harpy", "Furies"])
    seen["setup, waiting for the other"] = g.page("hera")
    seen["setup, the other"] = g.page("zeus")
    g.post("zeus", "/act", do="deal", cards=ZEUS_HAND)
    g.post("zeus", "/act", do="first_row", cards=["Cyclops", "Giant", "Centaur"])
    seen["own turn"] = g.page("hera")
    seen["waiting"] = g.page("zeus")
    g.to_pegasus()
    seen["a question pending"] = g.page("zeus")
    seen["waiting for an answer"] = g.page("hera")
    g.post("zeus", "/answer", needs="pick", tap="Argus")
    seen["game over"] = g.page("hera")
    for state, page in seen.items():
        assert '<html lang="eo">' in page, state
        assert own_parts(page), state
        assert english_in_own_parts(page, g.game) == [], state
    assert "⟦Pegasus drew a card from the hand: which card came out?⟧" in seen["a question pending"]
    assert "⟦Medusa⟧</button>" in seen["a question pending"]  # a card's name, in its context
    assert "⟦Game over⟧" in seen["game over"]


def test_the_create_form_shows_no_english_in_a_made_up_language(pseudo_app: Flask) -> None:
    with pseudo_app.test_request_context("/", headers={"Cookie": f"{LANG_COOKIE}={PSEUDO}"}):
        pm = served()["hera-zeus"]
        html = render_template(pm.templates["create"], csrf="x", **pm.create_context())
    codes = {"rio-grande", "kosmos", "translations", "Hera", "Zeus"}
    codes |= {v for _n, _t, _r, values in pm.create_context()["switches"] for v, _h in values}
    codes |= set(re.findall(r"\bD\d+\b", html))
    assert english_in(html, codes) == []
    assert "⟦Decide at the table⟧" in html


def test_a_form_refusal_is_a_sentence_said_in_the_readers_language() -> None:
    """The form's reasons stay English words (what the pages flash today) and are Says, so the
    page that shows one says it in its reader's language."""
    with pytest.raises(ValueError) as e:
        parse_answer("place", {"value": "x"})
    assert str(e.value) == "tap the column, not 'x'"
    assert say(e.value.args[0], "it") == "tocca la colonna, non 'x'"
    with pytest.raises(ValueError) as e:
        parse_answer("order.hera", {"stood": "Hydra,?,?"})
    assert say(e.value.args[0], "fr") == (
        "nommez les 2 cartes que l'arbitre ne connaît pas, dans l'ordre où elles étaient"
        " (0 nommées) [D20]"
    )


def test_the_take_back_words_are_whole_sentences_in_the_readers_language(app: Flask) -> None:
    """HZ-P14: what goes back where, for the one who acted and for the other, in each
    language; the English words stay as they were."""
    undone: Any = SimpleNamespace(body={"actor": "hera", "action": {"do": "draw", "card": "Hydra"}})
    said = {}
    for lang in ("en", "it", "fr"):
        with app.test_request_context("/", headers={"Accept-Language": lang}):
            said[lang] = (
                PAGES.put_back_words(undone, "hera"),
                PAGES.put_back_words(undone, "zeus"),
            )
    assert said["en"] == (
        "Taken back: your draw. Put Hydra back on top of your deck.",
        "Taken back: Hera's draw. Hera puts Hydra back on top of her deck.",
    )
    assert said["it"][0].endswith("la tua pescata. Rimetti Hydra in cima al tuo mazzo.")
    assert said["fr"][1].endswith("la pioche de Hera. Hera remet Hydre sur le dessus de sa pioche.")
