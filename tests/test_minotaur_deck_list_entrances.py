"""One deck-list reader behind every entrance (issue 31, item 6).

A Minotaur Lords deck list reaches the referee four ways: ``referee kit --game minotaur
--decks FILE``, the JSON API's ``deck_list``, the home page's upload and ``referee serve
--demo --deck-list FILE``. Each reads it with ``engine.minotaur.cards.parse_deck_list``, so a
bad list is refused by each with the same words, naming the line and the field, and nothing
is made (no kit, no game). A file that is not UTF-8 is refused naming the file and its line.
"""

from __future__ import annotations

import html
import io
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from web_helpers import Browser, make_app, referee_of

from engine.herazeus.errors import CatalogueError
from engine.minotaur.cards import parse_deck_list
from web.cli import main

ROOT = Path(__file__).resolve().parent.parent
DECKS = (ROOT / "tests" / "data" / "minotaur" / "decks.csv").read_text("utf-8")
FIRST_FATE = "miron,Garnet Boon,0,1,,fate,active,,"
assert FIRST_FATE in DECKS


def _changed(old: str, new: str) -> str:
    assert DECKS.count(old) == 1
    return DECKS.replace(old, new)


# Each bad list, and the one reader's refusal of it.
BAD_LISTS = {
    "NUL in a name": _changed(FIRST_FATE, FIRST_FATE.replace("Garnet Boon", "Garnet\x00Boon")),
    "escape in the words": _changed(FIRST_FATE, FIRST_FATE[:-1] + "Draw \x1b[2J two,"),
    "form feed in the deck": _changed(FIRST_FATE, "\x0c" + FIRST_FATE),
    "DEL in a header name": DECKS.replace("deck,name,strength", "deck,na\x7fme,strength", 1),
    "a fate card with an icon (M9)": _changed(
        FIRST_FATE, FIRST_FATE.replace(",,fate", ",military,fate")
    ),
}


def refusal(text: str) -> str:
    with pytest.raises(CatalogueError) as e:
        parse_deck_list(text)
    return str(e.value)


def test_the_reader_names_the_line_and_the_field_of_a_control_character() -> None:
    no = DECKS.splitlines().index(FIRST_FATE) + 1
    assert refusal(BAD_LISTS["NUL in a name"]) == (
        f"line {no}: name: control character U+0000 is not allowed"
    )
    assert refusal(BAD_LISTS["escape in the words"]) == (
        f"line {no}: words: control character U+001B is not allowed"
    )
    assert refusal(BAD_LISTS["form feed in the deck"]) == (
        f"line {no}: deck: control character U+000C is not allowed"
    )
    assert refusal(BAD_LISTS["DEL in a header name"]).endswith(
        ": the header: control character U+007F is not allowed"
    )
    fate = refusal(BAD_LISTS["a fate card with an icon (M9)"])
    assert fate.startswith(f"line {no} (miron 'Garnet Boon'): icons 'military': a fate card")
    assert fate.endswith("(M9, ML-P9)")


def test_tabs_and_spaces_around_a_cell_are_trimmed_not_refused() -> None:
    padded = _changed(FIRST_FATE, FIRST_FATE.replace("Garnet Boon", "\t Garnet Boon \t"))
    cards = parse_deck_list(padded)
    assert "Garnet Boon" in {c.name for c in cards}


def test_an_editors_line_numbers_count_every_line_break() -> None:
    """A stray form feed or vertical tab is not a line break: the line named is the editor's."""
    no = DECKS.splitlines().index(FIRST_FATE) + 1
    crlf = BAD_LISTS["NUL in a name"].replace("\n", "\r\n")
    assert refusal(crlf).startswith(f"line {no}: name:")
    vt = _changed(FIRST_FATE, FIRST_FATE.replace("Garnet Boon", "Garnet\x0bBoon"))
    assert refusal(vt) == f"line {no}: name: control character U+000B is not allowed"


# ---- the entrances: each gives the refusal it shows, and checks that nothing was made -------

Entrance = Callable[[Path, bytes], str]


def by_the_kit_command(tmp: Path, data: bytes) -> str:
    path = tmp / "decks.csv"
    path.write_bytes(data)
    out = tmp / "kit"
    err = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sys, "stderr", err)
        rc = main(["kit", "--game", "minotaur", "--decks", str(path), "--out", str(out)])
    assert rc == 2 and not out.exists()
    said = err.getvalue()
    assert said.count("\n") == 1 and said.startswith(f"referee kit: {path}: ")
    return said


def by_the_api(tmp: Path, data: bytes) -> str:
    app = make_app()
    r = Browser(app).post("/api/v1/games", {"game_module": "minotaur", "deck_list": data.decode()})
    assert r.status_code == 422, r.data
    assert referee_of(app).games() == []
    body = r.json
    assert isinstance(body, dict) and body["error"] == "Refused"
    return str(body["message"])


def by_the_home_page(tmp: Path, data: bytes) -> str:
    app = make_app()
    home = Browser(app)
    r = home.post(
        "/new",
        data={"game": "minotaur", "deck_list": (io.BytesIO(data), "my decks.csv")},
        content_type="multipart/form-data",
    )
    assert r.status_code == 303 and r.headers["Location"].endswith("/")  # back to the form
    assert referee_of(app).games() == []
    return html.unescape(home.get("/").get_data(as_text=True))


def by_the_demo_server(tmp: Path, data: bytes) -> str:
    path = tmp / "decks.csv"
    path.write_bytes(data)
    db = tmp / "g.sqlite3"
    argv = ["serve", "--db", str(db), "--demo", "--game", "minotaur"]
    out = subprocess.run(
        [sys.executable, "-m", "web.cli", *argv, "--deck-list", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode != 0 and "Traceback" not in out.stderr, out.stderr
    assert str(path) in out.stderr
    return out.stderr


ENTRANCES: dict[str, Entrance] = {
    "referee kit": by_the_kit_command,
    "the API": by_the_api,
    "the home page": by_the_home_page,
    "referee serve --demo": by_the_demo_server,
}


@pytest.mark.parametrize("bad", sorted(BAD_LISTS))
@pytest.mark.parametrize("entrance", sorted(ENTRANCES))
def test_every_entrance_refuses_a_bad_deck_list_with_the_readers_words(
    entrance: str, bad: str, tmp_path: Path
) -> None:
    text = BAD_LISTS[bad]
    said = ENTRANCES[entrance](tmp_path, text.encode("utf-8"))
    assert refusal(text) in said


FILE_ENTRANCES = {k: v for k, v in ENTRANCES.items() if k != "the API"}  # JSON is text already


@pytest.mark.parametrize("entrance", sorted(FILE_ENTRANCES))
def test_a_deck_list_that_is_not_utf8_is_refused_naming_the_file_and_line(
    entrance: str, tmp_path: Path
) -> None:
    data = DECKS.replace("Garnet Boon", "Garnét Boon").encode("latin-1")
    no = DECKS.splitlines().index(FIRST_FATE) + 1
    said = FILE_ENTRANCES[entrance](tmp_path, data)
    assert f"line {no}: not UTF-8 text (byte 0xE9)" in said
    if entrance == "the home page":
        assert "deck list my decks.csv: line" in said  # the uploaded file's name
