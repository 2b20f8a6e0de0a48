"""Issue 36, the judge's pages, the public view, the replay, the offline report and the camera
page in the reader's language (docs/i18n.md, "The judge's pages").

- In a made-up language whose every translation is ⟦English⟧ (tests/test_i18n.py's
  ``pseudo_app``), the parts of these pages that their own templates write (the judge's hall
  and console, a held game's row, the public table's heading and seat notices, a correction
  proposed at a table without a judge, the replay's stepper, the report's headings, the camera
  page and its script's words) show no English once data (game ids, seat and player names,
  heads, times) is set aside. What other templates put on the same pages (the desk, the status
  line, the log's narration, the game's drawing) is theirs, not checked here.
- A player's call reaches the judge in German, and so do his settling of it and the service's
  refusal to settle it twice.
- The report downloaded with ``Accept-Language: fr`` is French and says so in ``<html lang>``.
"""

from __future__ import annotations

import html
import json
import re

from flask import Flask
from test_i18n import PSEUDO, english_left, pseudo_app, pseudo_dir  # noqa: F401
from test_web_camera import kit_game
from web_helpers import Browser, judge_browser, make_app, new_game, referee_of

from referee.reader import _changed_at
from web.games import page_for
from web.i18n import LANG_COOKIE


def in_pseudo(b: Browser) -> Browser:
    b.client.set_cookie(LANG_COOKIE, PSEUDO)
    return b


def element(page: str, start: str) -> str:
    """The element whose opening tag begins with ``start`` (e.g. ``<section id="x"``), with
    everything inside it: its tags of the same name counted to find its end."""
    i = page.index(start)
    tag = re.match(r"<(\w+)", start)
    assert tag is not None
    name = tag.group(1)
    depth = 0
    for m in re.finditer(rf"<(/?){name}\b[^>]*>", page[i:]):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return page[i : i + m.end()]
    raise AssertionError(f"{start} is not closed")


def heads_and_times(page: str) -> set[str]:
    """The data a page shows that is no sentence: log heads and clock times."""
    return set(re.findall(r"\b\d+:[0-9a-f]{8}\b", page)) | set(
        re.findall(r"\b\d\d:\d\d:\d\d\b", page)
    )


def statuses(app: Flask) -> set[str]:
    """Each table's state as its game says it (the game's words, not the hall's)."""
    with app.app_context():
        return {page_for(r).table_status(r) for r in referee_of(app).overview("judge")}


def no_english(part: str, data: set[str]) -> list[str]:
    """The English left in ``part`` (inline <strong> and <code> joined to their sentence)."""
    part = re.sub(r"</?(?:strong|code)>", "", part)
    return english_left(part, data | {"Hera", "Zeus", "hera", "zeus"} | heads_and_times(part))


def test_the_judges_hall_and_console_show_no_english_in_a_made_up_language(
    pseudo_app: Flask,  # noqa: F811
) -> None:
    created, b = new_game(pseudo_app)
    g = created.game
    other, _ = new_game(pseudo_app)
    judge = in_pseudo(judge_browser(pseudo_app))
    calm = judge.get("/judge").get_data(as_text=True)  # nothing needs the judge yet
    assert no_english(element(calm, '<section id="hall-alerts"'), set()) == []
    r = b["hera"].post(f"/api/v1/games/{g}/calls", {"note": "the deck fell"}, game=g)
    assert r.status_code == 201
    page = judge.get(f"/judge?table={g}").get_data(as_text=True)
    data = {g, other.game, "the deck fell", "Hera & Zeus"} | statuses(pseudo_app)
    for part in (
        element(page, "<title"),
        element(page, "<h1"),
        element(page, '<section id="hall-alerts"'),
        element(page, '<div id="overview"'),
        element(page, '<p class="desk-title"'),
    ):
        assert no_english(part, data) == [], part
    assert "⟦Needs you (1), oldest first⟧" in page
    assert "⟦Hera calls the judge: the deck fell⟧" in page
    # the table's own page as the judge opens it: its title and the way back to the hall
    own = judge.get(f"/g/{g}").get_data(as_text=True)
    for part in (element(own, "<title"), element(own, '<h1 class="sr-only"')):
        assert no_english(part, {g}) == [], part
    assert "⟦All my tables⟧" in own


def test_a_held_game_shows_no_english_in_a_made_up_language(
    pseudo_app: Flask,  # noqa: F811
) -> None:
    created, _ = new_game(pseudo_app)
    g = created.game
    # held as the reader holds a game whose event 3 changed under it (its own words)
    referee_of(pseudo_app).reader.hold(g, _changed_at(3, "0badc0de" * 8, "5eed" * 16))
    page = in_pseudo(judge_browser(pseudo_app)).get("/judge").get_data(as_text=True)
    alerts = element(page, '<section id="hall-alerts"')
    overview = element(page, '<div id="overview"')
    data = {g, "0badc0de", "5eed5eed"}
    assert no_english(alerts, data) == [] and no_english(overview, data) == []
    said = html.unescape(page)
    assert f"⟦held: ⟦game '{g}' failed verification (held for the judge): ⟦event 3 changed" in said
    assert "⟦record held: ⟦game" in said


def test_the_public_table_shows_no_english_in_a_made_up_language(
    pseudo_app: Flask,  # noqa: F811
) -> None:
    created, b = new_game(pseudo_app)
    g = created.game
    public = in_pseudo(b["public"])
    page = public.get(f"/g/{g}").get_data(as_text=True)
    assert 'id="table"' in page and 'id="log"' in page
    for part in (element(page, "<title"), element(page, '<h1 class="sr-only"')):
        assert no_english(part, {g}) == [], part
    assert "⟦Log⟧" in element(page, '<section id="log"')
    # a seat asked for by another device: the notices of _seats.html, to the phone asking
    # and to the judge who approves
    phone = in_pseudo(Browser(pseudo_app))
    r = phone.ask(g, created.codes["hera"])
    assert r.status_code in (200, 303), r.status_code
    for who in (phone, in_pseudo(b["judge"])):
        seats = element(who.get(f"/g/{g}").get_data(as_text=True), '<section id="seats"')
        assert "⟦" in seats
        assert no_english(seats, {g}) == [], seats


def test_the_replay_shows_no_english_in_a_made_up_language(
    pseudo_app: Flask,  # noqa: F811
) -> None:
    created, b = new_game(pseudo_app)
    g = created.game
    ref = referee_of(pseudo_app)
    ref.submit(g, "hera", {"do": "deal", "player": "hera", "cards": ["?"] * 9})
    page = in_pseudo(b["hera"]).get(f"/g/{g}/replay?at=0").get_data(as_text=True)
    for part in (
        element(page, "<title"),
        element(page, "<h1"),
        element(page, '<nav class="stepper"'),
        element(page, '<p class="hint"'),
    ):
        assert no_english(part, {g}) == [], part
    assert re.search(r"⟦Event 0 of \d+⟧", page) and "⟦Back to the table⟧" in page


def test_the_report_shows_no_english_in_a_made_up_language(
    pseudo_app: Flask,  # noqa: F811
) -> None:
    created, b = new_game(pseudo_app)
    g = created.game
    page = in_pseudo(b["judge"]).get(f"/g/{g}/report.html").get_data(as_text=True)
    assert page.startswith(f'<!doctype html><html lang="{PSEUDO}">')
    data = {g, "Hera & Zeus", "Judge", "tournament"}  # the game's and the seat's names
    data |= set(re.findall(r"server key ([0-9a-f-]+)", page))
    parts = [element(page, t) for t in ("<title", "<h1", '<section id="end"')]
    parts += re.findall(r'<p class="meta">.*?</p>', page)
    parts.append(element(page, '<nav class="index"').split("<ol>")[0])
    for part in parts:
        assert no_english(part, data) == [], part


def test_the_camera_page_shows_no_english_in_a_made_up_language(
    pseudo_app: Flask,  # noqa: F811
) -> None:
    g, b = kit_game(pseudo_app)
    for seat in ("hera", "judge"):
        page = in_pseudo(b[seat]).get(f"/g/{g}/camera").get_data(as_text=True)
        for part in (element(page, "<title"), element(page, '<section id="camera-page"')):
            assert no_english(part, {g, "Judge"}) == [], part
        # the script's words come in the page, each one marked
        words = json.loads(element(page, '<script type="application/json" id="words"')[43:-9])
        camera = {k: v for k, v in words.items() if k.startswith("cam_")}
        assert len(camera) >= 30
        assert [v for v in camera.values() if not v.startswith("⟦")] == []


def test_the_camera_script_asks_for_the_pages_language() -> None:
    from web.i18n import TRANSLATIONS

    script = (TRANSLATIONS.parent.parent / "web" / "static" / "camera.js").read_text()
    assert '"Accept-Language": document.documentElement.lang' in script
    # no sentence for a person left in the script itself: every one comes from #words
    assert re.findall(r'(?:say|textContent =|el\([^)]*,)\s*\(?"[A-Z][a-z]+ [a-z]', script) == []


# ---- the judge in German --------------------------------------------------------------------


def test_a_call_and_its_settling_reach_the_judge_in_german() -> None:
    app = make_app()
    created, b = new_game(app)
    g = created.game
    r = b["hera"].post(f"/api/v1/games/{g}/calls", {"note": "Karte gefallen"}, game=g)
    seq = int(r.json["seq"])  # type: ignore[index]
    judge = judge_browser(app)
    de = {"Accept-Language": "de"}
    hall = html.unescape(judge.get("/judge", headers=de).get_data(as_text=True))
    assert '<html lang="de">' in hall
    assert "Hera ruft die Turnierleitung: Karte gefallen" in hall
    assert "Brauchen dich (1), älteste zuerst" in hall and "Meine Tische" in hall
    # the judge settles it; the console tells him so in German, and the call is gone
    form = {"csrf": judge.csrf(g), "event": str(seq), "reason": "neu gemischt"}
    r = judge.client.post(f"/g/{g}/judge/resolve", data=form, headers=de)
    assert r.status_code == 303
    after = html.unescape(judge.get(f"/g/{g}", headers=de).get_data(as_text=True))
    assert f"Ereignis {seq} erledigt." in after
    hall = html.unescape(judge.get("/judge", headers=de).get_data(as_text=True))
    assert "Gerade braucht dich nichts." in hall and "Karte gefallen" not in hall
    # settling it again is refused, in German, with the service's own reason
    r = judge.client.post(f"/g/{g}/judge/resolve", data=form, headers=de)
    again = html.unescape(judge.get(f"/g/{g}", headers=de).get_data(as_text=True))
    assert (
        f"Abgelehnt: Ereignis {seq} ist keine offene Unregelmäßigkeit und kein Ruf an die "
        "Turnierleitung" in again
    )


def test_the_report_downloaded_in_french_is_french() -> None:
    app = make_app()
    created, b = new_game(app)
    g = created.game
    r = b["hera"].get(f"/g/{g}/report.html?download=1", headers={"Accept-Language": "fr"})
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert page.startswith('<!doctype html><html lang="fr">')
    assert f"<h1>Hera &amp; Zeus · partie {g}</h1>" in page
    assert "Aller à la fin" in page and "Retour à l’index" in page
    assert "Dernier événement du journal <strong>" in page
    assert "La partie n’est pas finie : voici où elle en est." in page
    assert "Go to the end" not in page and "Log head" not in page
    english = Browser(app).get(f"/g/{g}/report.html").get_data(as_text=True)
    assert english.startswith('<!doctype html><html lang="en">') and "Go to the end" in english


def test_a_proposed_correction_shows_no_english_in_a_made_up_language(
    pseudo_app: Flask,  # noqa: F811
) -> None:
    """At a table without a judge: the proposal Zeus is asked to approve, and the players'
    own correction forms (_seats.html)."""
    created, b = new_game(pseudo_app, judged=False)
    g = created.game
    ref = referee_of(pseudo_app)
    before = ref.head(g)["seq"]
    ref.submit(g, "hera", {"do": "deal", "player": "hera", "cards": ["?"] * 9})
    ref.propose(g, "hera", {"kind": "undo", "to": before, "reason": "wrong pile"})
    page = in_pseudo(b["zeus"]).get(f"/g/{g}").get_data(as_text=True)
    for part in (element(page, '<section id="seats"'), element(page, '<section id="propose"')):
        assert "⟦" in part
        assert no_english(part, {g, "wrong pile"}) == [], part
    assert "⟦Approved by Hera.⟧" in page and "⟦Propose the undo⟧" in page
