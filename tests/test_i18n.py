"""Issue 36, the foundation: the pages' languages (docs/i18n.md).

- the catalogues: every string marked in the code and the templates is in the committed
  ``messages.pot`` (extracted again here, in-process, as ``pybabel extract`` does), every
  language's ``messages.po`` translates every entry of it (none empty, none fuzzy, the same
  placeholders), and each committed ``messages.mo`` is what its ``.po`` compiles to;
- a made-up language whose every translation wraps its English in ⟦…⟧, built here from the
  ``.pot``: every visible text of the translated slice (base.html, the home page, the error page;
  on a seat page only base.html's header and footer) shows the marker, so English left
  unmarked there shows up. The games' own templates and the seat page's body are not marked
  yet and not checked;
- which language a request gets: the picker's choice, else Accept-Language, else English, and
  ``<html lang>`` naming it; the picker goes back only to a page of this site.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Flask, render_template
from web_helpers import Browser, make_app, new_game, referee_of

from referee.language import extract
from web.games import served
from web.i18n import LANG_COOKIE, LANGUAGES, TRANSLATIONS, compiled, seat_cookie
from web.language import same_site

ROOT = Path(__file__).resolve().parent.parent
POT = TRANSLATIONS / "messages.pot"
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
MARK = re.compile(r"⟦[^⟦⟧]*⟧")


# ---- the catalogues ------------------------------------------------------------------------


def msgid(m_id: str | tuple[str, ...] | list[str]) -> str:
    return m_id if isinstance(m_id, str) else m_id[0]


def marked_now(root: Path = ROOT) -> set[tuple[str, str | None]]:
    """The strings marked in the code and the templates (with their contexts), extracted as
    babel.cfg and referee.language.KEYWORDS say, in-process."""
    return ids(extract(root))


def read(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def ids(catalog: Catalog) -> set[tuple[str, str | None]]:
    return {(msgid(m.id), m.context) for m in catalog if m.id}


def test_every_marked_string_is_in_the_committed_pot_and_no_other() -> None:
    now, pot = marked_now(), ids(read(POT))
    assert now - pot == set(), "marked but not extracted: run the extraction (docs/i18n.md)"
    assert pot - now == set(), "in messages.pot but marked nowhere: run the extraction"


def test_the_slice_is_marked() -> None:
    """A few strings of each template of the slice, so that a lost marking fails here too."""
    pot = {m for m, _context in ids(read(POT))}
    for s in ("New game", "Create the game", "Home", "Language", "Change language", "Replay"):
        assert s in pot


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_entry_is_translated_in_each_language(lang: str) -> None:
    po = TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po"
    catalog = read(po)
    assert str(catalog.locale) == lang
    assert ids(catalog) == ids(read(POT)), "run pybabel update (docs/i18n.md)"
    for m in catalog:
        if not m.id:
            continue
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        assert all(strings), f"{lang}: {m.id!r} is not translated"
        assert not m.fuzzy, f"{lang}: {m.id!r} is fuzzy"
    assert catalog.obsolete == {}, f"{lang}: entries no longer marked anywhere"
    # babel's own checks: the same %(name)s placeholders, the plural forms' count
    problems = [(m.id, [str(e) for e in errs]) for m, errs in catalog.check()]
    assert problems == [], lang


@pytest.mark.parametrize("lang", TRANSLATED)
def test_each_committed_mo_is_its_po_compiled(lang: str) -> None:
    folder = TRANSLATIONS / lang / "LC_MESSAGES"
    assert (folder / "messages.mo").read_bytes() == compiled(folder / "messages.po"), (
        "run python -m referee.language"
    )


# different English sentences a language may say the same way (a shorter and a longer English
# wording of one idea); anything else translated the same twice is a copy slip
SAME_ON_PURPOSE: dict[str, set[frozenset[str]]] = {
    "it": set(),
    "fr": set(),
    # German capitalises every noun: "game X" in a sentence and "Game X" as a heading
    "de": {
        frozenset({"game %(game)s", "Game %(game)s"}),
        frozenset({"page %(page)s of %(pages)s", "Page %(page)s of %(pages)s"}),
        frozenset({"column %(column)s", "Column %(column)s"}),
    },
}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_two_different_sentences_share_one_translation(lang: str) -> None:
    """A translation pasted onto the wrong entry (two different English sentences said the
    same way) is caught here: a copy slip once told a French player his request was too large
    when the server could not read it."""
    said: dict[tuple[str, str | None], set[str]] = {}
    for m in read(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po"):
        if m.id and isinstance(m.string, str) and m.string != m.id and len(m.id) > 12:
            said.setdefault((m.string, m.context), set()).add(msgid(m.id))
    twice = [ids for ids in said.values() if len(ids) > 1]
    assert [t for t in twice if frozenset(t) not in SAME_ON_PURPOSE[lang]] == []


def test_the_marked_template_strings_carry_no_hard_wrapped_white_space() -> None:
    """trimmed: a {% trans %} block spread over lines is one msgid with single spaces."""
    for s, _context in ids(read(POT)):
        assert "\n" not in s and "  " not in s, s


# ---- a made-up language: English left in the slice shows up ----------------------------------

PSEUDO = "eo"  # Esperanto's code, for a language whose every text is ⟦English⟧


@pytest.fixture(scope="module")
def pseudo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Translations of every entry of the .pot into ⟦its English⟧, compiled."""
    pot = read(POT)
    out = Catalog(locale=PSEUDO)
    for m in pot:
        if not m.id:
            continue
        if isinstance(m.id, tuple):
            out.add(m.id, tuple(f"⟦{s}⟧" for s in m.id), flags=m.flags, context=m.context)
        else:
            out.add(m.id, f"⟦{m.id}⟧", flags=m.flags, context=m.context)
    folder = tmp_path_factory.mktemp("pseudo") / PSEUDO / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "messages.mo").open("wb") as f:
        write_mo(f, out)
    return folder.parent.parent


@pytest.fixture
def pseudo_app(pseudo_dir: Path) -> Flask:
    return make_app(
        LANGUAGES={**LANGUAGES, PSEUDO: "⟦pseudo⟧"},
        BABEL_TRANSLATION_DIRECTORIES=str(pseudo_dir),
    )


class Texts(HTMLParser):
    """The visible texts of a page (and its title and aria-label attributes), each with the
    tags it stands in."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.texts: list[tuple[str, tuple[str, ...]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("title", "aria-label", "placeholder", "alt") and value:
                self.texts.append((value, (*self.stack, tag)))
        if tag not in ("meta", "link", "input", "br", "img", "hr"):
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data: str) -> None:
        if data.strip() and not {"script", "style"} & set(self.stack):
            self.texts.append((" ".join(data.split()), tuple(self.stack)))


def texts(html: str) -> list[tuple[str, tuple[str, ...]]]:
    p = Texts()
    p.feed(html)
    return p.texts


def english_left(
    html: str,
    data: AbstractSet[str],
    skip: AbstractSet[str] = frozenset(),
    skip_texts: AbstractSet[str] = frozenset(),
) -> list[str]:
    """The texts that still hold English: letters left once the ⟦…⟧ marks and the data (game
    and seat names, the game's id, language names) are cut out. Texts inside a ``skip`` tag,
    or equal to one of ``skip_texts``, are not the slice's."""
    left = []
    for text, tags in texts(html):
        if skip & set(tags) or text in skip_texts:
            continue
        rest = text
        while MARK.search(rest):  # inner marks first: ⟦⟦Card game⟧ referee⟧
            rest = MARK.sub("", rest)
        for d in sorted(data, key=len, reverse=True):
            rest = rest.replace(d, "")
        if re.search(r"[^\W\d_]", rest):
            left.append(text)
    return left


def pseudo_browser(app: Flask) -> Browser:
    b = Browser(app)
    b.client.set_cookie(LANG_COOKIE, PSEUDO)
    return b


def data_of_pages(app: Flask) -> set[str]:
    """What a page shows that is no sentence: the languages' names, the games' titles."""
    with app.app_context():
        titles = {pm.title for pm in served().values()}
    return set(LANGUAGES.values()) | {"⟦pseudo⟧"} | titles


def test_the_home_page_shows_no_english_in_a_made_up_language(pseudo_app: Flask) -> None:
    page = pseudo_browser(pseudo_app).get("/").get_data(as_text=True)
    assert '<html lang="eo">' in page
    # the games' own create forms are theirs, not marked yet: their texts are left out
    with pseudo_app.test_request_context("/", headers={"Cookie": f"{LANG_COOKIE}={PSEUDO}"}):
        games = {
            t
            for pm in served().values()
            for t, _tags in texts(
                render_template(pm.templates["create"], csrf="x", **pm.create_context())
            )
        }
    assert english_left(page, data_of_pages(pseudo_app), skip_texts=games) == []
    assert page.count("⟦") >= 8


def test_the_error_page_shows_no_english_in_a_made_up_language(pseudo_app: Flask) -> None:
    r = pseudo_browser(pseudo_app).get("/no/such/page")
    assert r.status_code == 404
    page = r.get_data(as_text=True)
    assert english_left(page, data_of_pages(pseudo_app)) == []
    assert "⟦there is no such page here; check the address⟧" in page


def test_a_seat_pages_header_and_footer_show_no_english_in_a_made_up_language(
    pseudo_app: Flask,
) -> None:
    """Only base.html's parts: the seat page's own body and title are not marked yet."""
    created, browsers = new_game(pseudo_app)
    b = browsers["hera"]
    b.client.set_cookie(LANG_COOKIE, PSEUDO)
    page = b.get(f"/g/{created.game}").get_data(as_text=True)
    data = data_of_pages(pseudo_app) | {created.game, "Hera", "Zeus"}
    data |= set(re.findall(r"\b\d+:[0-9a-f]{8}\b", page))  # the log head
    assert english_left(page, data, skip={"main", "title"}) == []
    assert "⟦Replay⟧" in page


# ---- which language a request gets ---------------------------------------------------------


@pytest.fixture
def app() -> Flask:
    return make_app()


def lang_of(page: str) -> str:
    found = re.search(r'<html lang="([^"]+)">', page)
    assert found is not None
    return found.group(1)


def choose(b: Browser, lang: str, next_: str = "/") -> tuple[int, str]:
    """Presses the picker on the home page: the status and the Location it answers with."""
    page = b.get("/").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None
    r = b.client.post("/language", data={"csrf": csrf.group(1), "lang": lang, "next": next_})
    return r.status_code, r.headers.get("Location", "")


def test_accept_language_italian_renders_the_home_page_in_italian(app: Flask) -> None:
    page = Browser(app).get("/", headers={"Accept-Language": "it-IT,it;q=0.9,en;q=0.3"})
    text = page.get_data(as_text=True)
    assert lang_of(text) == "it"
    assert "<h1>Nuova partita</h1>" in text
    assert "Crea la partita" in text
    assert "New game" not in text


def test_each_language_names_itself_on_the_home_page(app: Flask) -> None:
    words = {"en": "New game", "it": "Nuova partita", "fr": "Nouvelle partie", "de": "Neue Partie"}
    for lang, heading in words.items():
        text = Browser(app).get("/", headers={"Accept-Language": lang}).get_data(as_text=True)
        assert lang_of(text) == lang
        assert f"<h1>{heading}</h1>" in text


def test_an_unknown_language_falls_back_to_english(app: Flask) -> None:
    text = Browser(app).get("/", headers={"Accept-Language": "ja, xx;q=0.5"}).get_data(True)
    assert lang_of(text) == "en"
    assert "<h1>New game</h1>" in text
    assert lang_of(Browser(app).get("/").get_data(as_text=True)) == "en"


def test_the_pickers_choice_beats_the_browsers_header(app: Flask) -> None:
    b = Browser(app)
    assert choose(b, "fr") == (303, "/")
    text = b.get("/", headers={"Accept-Language": "it"}).get_data(as_text=True)
    assert lang_of(text) == "fr"
    assert "<h1>Nouvelle partie</h1>" in text
    assert '<option value="fr" lang="fr" selected>Français</option>' in text


def test_two_seats_of_one_table_read_their_own_languages(app: Flask) -> None:
    created, browsers = new_game(app)
    choose(browsers["hera"], "de")
    choose(browsers["zeus"], "it")
    path = f"/g/{created.game}"
    assert lang_of(browsers["hera"].get(path).get_data(as_text=True)) == "de"
    assert lang_of(browsers["zeus"].get(path).get_data(as_text=True)) == "it"


def test_a_seat_keeps_the_language_chosen_on_its_page(app: Flask) -> None:
    """One browser holding seats at two tables (a player of two events, a judge trying
    things): each seat keeps the language chosen on its own page; a page of no game follows
    the browser's last choice."""
    first, browsers = new_game(app)
    b = browsers["hera"]
    second = referee_of(app).create_game()
    taken = b.join(second.game, second.codes["zeus"])
    assert taken.status_code in (200, 302, 303), taken.status_code
    one, two = f"/g/{first.game}", f"/g/{second.game}"
    assert choose(b, "it", one) == (303, one)
    assert choose(b, "fr", two) == (303, two)
    assert lang_of(b.get(one).get_data(as_text=True)) == "it"
    assert lang_of(b.get(two).get_data(as_text=True)) == "fr"
    assert lang_of(b.get("/").get_data(as_text=True)) == "fr"
    # the seat's language travels with its game's pages only, and beats the browser's
    assert b.client.get_cookie(seat_cookie(first.game), path=one) is not None
    assert b.client.get_cookie(seat_cookie(first.game), path="/") is None
    choose(b, "de")
    assert lang_of(b.get(one).get_data(as_text=True)) == "it"
    assert lang_of(b.get("/").get_data(as_text=True)) == "de"
    # an unknown language on a seat page clears that seat's choice
    choose(b, "xx", one)
    assert lang_of(b.get(one, headers={"Accept-Language": "fr"}).get_data(as_text=True)) == "fr"


def test_an_unknown_choice_leaves_the_browsers_header_to_decide(app: Flask) -> None:
    b = Browser(app)
    choose(b, "fr")
    assert choose(b, "xx") == (303, "/")
    assert lang_of(b.get("/", headers={"Accept-Language": "de"}).get_data(True)) == "de"


def test_the_picker_goes_back_to_the_page_it_was_on(app: Flask) -> None:
    created, browsers = new_game(app)
    path = f"/g/{created.game}"
    page = browsers["hera"].get(path).get_data(as_text=True)
    assert f'name="next" value="{path}"' in page
    assert choose(browsers["hera"], "it", path) == (303, path)


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/",
        "//evil.example/",
        "/\\evil.example/",
        "\\\\evil.example",
        "javascript:alert(1)",
        "http:/evil.example",
        "evil.example",
        "/ok\r\nLocation: https://evil.example/",
    ],
)
def test_the_picker_never_sends_the_browser_to_another_site(app: Flask, target: str) -> None:
    assert choose(Browser(app), "it", target) == (303, "/")


@pytest.mark.parametrize("target", ["/", "/judge", "/g/abc?step=1"])
def test_same_site_keeps_a_path_of_this_site(target: str) -> None:
    assert same_site(target) == target


def test_the_picker_refuses_a_post_without_the_csrf_token(app: Flask) -> None:
    b = Browser(app)
    b.get("/")
    r = b.client.post("/language", data={"lang": "it", "next": "/"})
    assert r.status_code == 403
    assert LANG_COOKIE not in r.headers.get("Set-Cookie", "")


def test_a_join_links_secret_never_goes_into_the_pickers_form(app: Flask) -> None:
    created, _ = new_game(app)
    page = Browser(app).get(f"/join/{created.game}/{created.codes['hera']}")
    text = page.get_data(as_text=True)
    assert 'name="next" value="/"' in text


def every_html_template() -> Iterator[Path]:
    yield from (ROOT / "web" / "templates").rglob("*.html")


def test_every_page_that_opens_html_names_the_language_rendered() -> None:
    for path in every_html_template():
        source = path.read_text()
        if "<html" in source:
            assert '<html lang="{{ html_lang() }}">' in source, path
