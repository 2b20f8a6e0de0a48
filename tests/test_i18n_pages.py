"""Every page of the product in a made-up language (issue 36): untranslated English shows.

The made-up language of tests/test_i18n.py says every catalogue entry as ``⟦English⟧``. Each
page a person can reach is rendered in it, at tables of both games in play and over, as each
seat, the judge and the public see them, with the tournament's pages; whatever text is left
once the marks and the data (names, ids, codes, notation, numbers) are cut out is English the
catalogue does not have: a string nobody marked.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from flask import Flask
from service_helpers import Table
from test_i18n import POT, PSEUDO, read, texts
from test_minotaur_privacy import DECKS, _act, _new_game
from web_helpers import Browser, judge_browser, make_app, referee_of

from engine.herazeus.profiles import (
    OwnFigureRemoval,
    PandoraScope,
    PegasusBesideOwnFigure,
    Profile,
    PythiaDefends,
)
from engine.minotaur.cards import PLAYERS
from referee.event.service import Events
from referee.language import LANGUAGES
from web.events import event_cookie_name, get_events
from web.games import served
from web.i18n import LANG_COOKIE


@dataclass
class Hall:
    """An app in the made-up language with a table of each game in play, one over, and an
    event in its first round; the browsers holding their seats."""

    app: Flask
    seats: dict[tuple[str, str], Browser] = field(default_factory=dict)  # (game, seat)
    games: dict[str, str] = field(default_factory=dict)  # what: game id
    event: str = ""
    player_code: str = ""
    data: set[str] = field(default_factory=set)


def browser(app: Flask) -> Browser:
    b = Browser(app)
    b.client.set_cookie(LANG_COOKIE, PSEUDO)
    return b


def seat(hall: Hall, game: str, codes: dict[str, str]) -> None:
    for name, code in codes.items():
        b = browser(hall.app)
        assert b.join(game, code).status_code == 303
        hall.seats[(game, name)] = b


PLACEHOLDER = re.compile(r"(%\([A-Za-z_]+\)[sd]|%[sd])")


def pseudo(english: str) -> str:
    """``english`` in the made-up language, each run of words between placeholders marked and
    the placeholders left outside the marks, so English filled into a translated sentence (a
    reason nobody marked) still shows: "Refused: %(reason)s" is "⟦Refused: ⟧%(reason)s"."""
    return "".join(
        part if not part or PLACEHOLDER.fullmatch(part) else f"⟦{part}⟧"
        for part in PLACEHOLDER.split(english)
    )


@pytest.fixture(scope="module")
def pseudo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every entry of the .pot in the made-up language (:func:`pseudo`), compiled."""
    out = Catalog(locale=PSEUDO)
    for m in read(POT):
        if m.id:
            said = pseudo(m.id) if isinstance(m.id, str) else tuple(pseudo(s) for s in m.id)
            out.add(m.id, said, flags=m.flags, context=m.context)
    folder = tmp_path_factory.mktemp("pseudo-values") / PSEUDO / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "messages.mo").open("wb") as f:
        write_mo(f, out)
    return folder.parent.parent


@pytest.fixture(scope="module")
def hall(pseudo_dir: Path) -> Iterator[Hall]:
    app = make_app(
        LANGUAGES={**LANGUAGES, PSEUDO: "⟦pseudo⟧"}, BABEL_TRANSLATION_DIRECTORIES=str(pseudo_dir)
    )
    h = Hall(app)
    ref = referee_of(app)
    rng = random.Random(36)
    # Hera & Zeus: one in play (after some moves), one played to its end
    for what, steps in (("hz-play", 14), ("hz-over", 10_000)):
        t = Table(ref, rng)
        t.setup()
        for _ in range(steps):
            if not t.step():
                break
        h.games[what] = t.game
        seat(h, t.game, dict(t.codes))
    # Minotaur Lords in play
    from privacy_property import ServiceDriver

    d = ServiceDriver(ref)
    game = _new_game(d, "left" if "left" in str(d) else _first_seat())
    for _ in range(25):
        if not _act(d, game, rng):
            break
    h.games["ml-play"] = game
    seat(h, game, d.codes[game])
    # an event in its first round, on Hera & Zeus, and a registered player's link
    with app.app_context():
        ev: Events = get_events()
        eid = ev.create(name="Coppa", game="hera-zeus", options={}, seed="36363636", rounds=3)
        regs = [ev.register(eid, f"P{i}") for i in range(1, 5)]
        for r in regs:
            ev.check_in(eid, r.player)
        ev.pair_next(eid)
        ev.start_round(eid)
    h.event, h.player_code = eid, regs[0].code
    h.data = {*h.games.values(), eid, "Coppa", *(f"P{i}" for i in range(1, 5)), "'no-such-game'"}
    h.data |= set(LANGUAGES.values()) | {"⟦pseudo⟧", "Hera", "Zeus", *PLAYERS}
    h.data |= {p.capitalize() for p in PLAYERS}
    with app.app_context():
        h.data |= {pm.title for pm in served().values()} | set(served())
    # the rule profiles' and house rules' names and values, as notation writes them (each
    # shown with its words beside it), and Minotaur Lords' two games
    h.data |= {p.value for p in Profile} | {"basic", "advanced"}
    for switch in (PandoraScope, PythiaDefends, OwnFigureRemoval, PegasusBesideOwnFigure):
        h.data |= {v.value for v in switch}
    rows = [r for r in DECKS.splitlines() if r and not r.startswith("#")]
    h.data |= {r.split(",")[1] for r in rows[1:]}  # the test deck list's card names
    yield h


def _first_seat() -> str:
    return PLAYERS[0]


def page(b: Browser, path: str) -> str:
    r = b.get(path)
    assert r.status_code == 200, (path, r.status_code)
    return r.get_data(as_text=True)


# what a page shows that is data, not a sentence: a log head (39:18a78063), a key's
# fingerprint, rule ids ([D1], HZ-P14, M4, T8), card codes and notation
DATA = re.compile(
    r"\b\d+:[0-9a-f]{8,}\b|\b[0-9a-f]{4}(?:-[0-9a-f]{4}){3,}\b"
    r"|\b(?:D|M|T|HZ-P?|ML-P?)\d+[a-z]?\b|⟦[^⟦⟧]*⟧|<code>[^<]*</code>"
    r"|\b[0-9a-f]{10}-r\d+t\d+\b|\bp\d+\b|\b\d\d:\d\d UTC\b"
    r'|\{"do":[^}]*\}'  # notation: the legal actions listed on the judge's desk
    r"|\b\d{4}-\d\d-\d\dT[\d:.]+[+-]\d\d:\d\d"  # a record's time in the report
    r"|\((?:EN|IT|FR|REF|FAQ-RB|FAQ-DE|PROJECT)(?:, (?:EN|IT|FR|REF|FAQ-RB|FAQ-DE|PROJECT))*\)"
    r"|\b[MVHZ]\b"  # a card's owner on a drawing: a player's initial
)


SEP = "\u2016"  # between two texts of the page: a translated sentence may span several


def check(hall: Hall, text: str, path: str, judge: bool = False) -> None:
    """The page is in the made-up language and no English is left in its texts once the
    marks (which may span a sentence's markup: ``⟦Write <code>x</code> down⟧``) and the data
    are cut out."""
    assert f'<html lang="{PSEUDO}">' in text, path
    # an SVG drawing's <text> is a card's name cut to fit (its <title> says it whole)
    # (the report's index repeats its sections' sentences cut to fit: they are read there)
    # (the judge's desk lists actions in the notation: its legal actions, its undo and amend
    # choices; Hera & Zeus writes actions as text, "play Cyclops 1.1")
    skip = {"text", "nav"} | ({"code", "option"} if judge else set())
    whole = SEP.join(t for t, tags in texts(text) if not skip & set(tags))
    while DATA.search(whole):  # inner marks first: ⟦⟦Card game⟧ referee⟧
        whole = DATA.sub("", whole)
    for d in sorted(hall.data, key=len, reverse=True):
        whole = whole.replace(d, "")
    left = [t.strip() for t in whole.split(SEP) if re.search(r"[^\W\d_]", t)]
    assert left == [], f"{path}: English left: {left[:12]}"


def game_pages(what: str) -> list[tuple[str, str]]:
    return [
        (what, s)
        for s in ("seat", "judge", "public", "replay", "report", "review", "judge's review")
    ]


@pytest.mark.parametrize(
    ("what", "view"),
    [*game_pages("hz-play"), *game_pages("hz-over"), *game_pages("ml-play")],
)
def test_a_games_pages_show_no_english(hall: Hall, what: str, view: str) -> None:
    game = hall.games[what]
    seats = [s for (g, s) in hall.seats if g == game]
    if view == "seat":
        for s in seats:
            check(hall, page(hall.seats[(game, s)], f"/g/{game}"), f"/g/{game} as {s}")
        return
    if view == "judge":
        b = judge_browser(hall.app)
        b.client.set_cookie(LANG_COOKIE, PSEUDO)
        check(hall, page(b, f"/g/{game}"), f"/g/{game} as the judge", judge=True)
        return
    if view == "judge's review":  # at the last event, the actions open there listed
        b = judge_browser(hall.app)
        b.client.set_cookie(LANG_COOKIE, PSEUDO)
        last = hall.app.extensions["referee"].head(game)["seq"]
        path = f"/g/{game}/review?at={last}"
        check(hall, page(b, path), f"{path} as the judge", judge=True)
        return
    b = browser(hall.app) if view == "public" else hall.seats[(game, seats[0])]
    path = {
        "public": f"/g/{game}",
        "replay": f"/g/{game}/replay",
        "report": f"/g/{game}/report.html",
        "review": f"/g/{game}/review",
    }[view]
    check(hall, page(b, path), path)


def test_the_camera_page_shows_no_english(hall: Hall) -> None:
    game = hall.games["hz-play"]
    b = hall.seats[(game, "hera")]
    check(hall, page(b, f"/g/{game}/camera"), "camera")


def test_the_home_judge_and_error_pages_show_no_english(hall: Hall) -> None:
    check(hall, page(browser(hall.app), "/"), "/")
    b = judge_browser(hall.app)
    b.client.set_cookie(LANG_COOKIE, PSEUDO)
    check(hall, page(b, "/judge"), "/judge")
    r = browser(hall.app).get("/g/no-such-game")
    assert r.status_code == 404
    check(hall, r.get_data(as_text=True), "a 404")


@pytest.mark.parametrize("path", ["/events", "/events/{e}", "/events/{e}/screen"])
def test_the_organisers_event_pages_show_no_english(hall: Hall, path: str) -> None:
    b = judge_browser(hall.app)
    b.client.set_cookie(LANG_COOKIE, PSEUDO)
    p = path.format(e=hall.event)
    check(hall, page(b, p), p)


def test_the_players_event_pages_show_no_english(hall: Hall) -> None:
    b = browser(hall.app)
    e = hall.event
    check(hall, page(b, f"/e/{e}"), f"/e/{e} (public)")
    check(hall, page(b, f"/e/{e}/p/{hall.player_code}"), "the personal link")
    b.client.set_cookie(event_cookie_name(e), hall.player_code)
    check(hall, page(b, f"/e/{e}"), f"/e/{e} (a player)")
