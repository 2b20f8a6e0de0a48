"""The pages (web/home.py, seat.py, judge.py, replay.py) through the Flask test client: every
seat gets its own cut, forms work without JavaScript, refusals carry the rule, the judge's tools
and reasons stay his."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from service_helpers import make_referee
from web_helpers import take_seat

from referee.log import read_lines, verify
from referee.service import Referee
from web.app import create_app
from web.games.herazeus.forms import parse_answer
from web.games.herazeus.present import controls_for

HERA_HAND = ["Hydra", "Harpy", "Furies", "Pegasus", "Nemesis", "Artemis", "Amazon", "Sirens"]
HERA_HAND.append("Hades")
ZEUS_HAND = ["Cyclops", "Giant", "Centaur", "Pegasus", "Poseidon", "Apollo", "Hero", "Pythia"]
ZEUS_HAND.append("Medusa")
ZEUS_ONLY = {"Cyclops", "Giant", "Centaur", "Poseidon", "Apollo", "Hero"}


@pytest.fixture
def ref() -> Referee:
    return make_referee()


@pytest.fixture
def app(ref: Referee) -> Flask:
    return create_app(
        {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False, "JUDGE_CODE": JUDGE_CODE}
    )


JUDGE_CODE = "tournament-judge-code-0123456789"


def csrf_of(c: FlaskClient, path: str) -> str:
    r = c.get(path)
    m = re.search(rb'name="csrf" value="([^"]+)"', r.data)
    assert m, r.data[:300]
    return m.group(1).decode()


class Table:
    """A game made from the home page, and one browser (test client) per seat."""

    def __init__(self, app: Flask, ref: Referee) -> None:
        self.ref = ref
        creator = app.test_client()
        r = creator.post(
            "/new",
            data={
                "csrf": csrf_of(creator, "/"),
                "profile": "rio-grande",
                "hera": "Ann",
                "zeus": "Bob",
                "starting": "hera",
            },
        )
        assert r.status_code == 303, r.data
        self.game = r.headers["Location"].split("/")[2]
        self.steps = [
            creator.get(f"{r.headers['Location']}?step={n}").data.decode() for n in range(3)
        ]
        self.created = "".join(self.steps)
        links = dict(
            re.findall(r'href="http://localhost(/join/[^"]+)" data-join="(\w+)"', self.created)
        )
        self.c: dict[str, FlaskClient] = {}
        for path, seat in links.items():
            cl = app.test_client()
            j = take_seat(cl, path)
            assert j.status_code == 303 and j.headers["Location"] == f"/g/{self.game}"
            self.c[seat] = cl
        self.c["judge"] = app.test_client()
        assert self.c["judge"].get(f"/judge/join/{JUDGE_CODE}").status_code == 303
        self.c["public"] = app.test_client()

    def page(self, seat: str, path: str = "") -> str:
        r = self.c[seat].get(f"/g/{self.game}{path}")
        assert r.status_code == 200, r.data[:300]
        return r.get_data(as_text=True)

    def post(self, seat: str, path: str, **data: Any) -> str:
        cl = self.c[seat]
        data.setdefault("csrf", csrf_of(cl, f"/g/{self.game}"))
        r = cl.post(f"/g/{self.game}{path}", data=data)
        assert r.status_code == 303, r.data[:300]
        return cl.get(r.headers["Location"]).get_data(as_text=True)

    def setup(self) -> None:
        self.post("hera", "/act", do="deal", cards=HERA_HAND)
        self.post("hera", "/act", do="first_row", cards=["Hydra", "Harpy", "Furies"])
        self.post("zeus", "/act", do="deal", cards=ZEUS_HAND)
        self.post("zeus", "/act", do="first_row", cards=["Cyclops", "Giant", "Centaur"])


@pytest.fixture
def table(app: Flask, ref: Referee) -> Iterator[Table]:
    yield Table(app, ref)


def flash(html: str) -> str:
    m = re.search(r'class="flash (\w+)"[^>]*>(.*?)</p>', html, re.S)
    return f"{m.group(1)}: {m.group(2)}" if m else ""


# ---- home and new game -------------------------------------------------------------------


def test_home_offers_profiles_switches_with_their_effect_and_starting_choices(app: Flask) -> None:
    html = app.test_client().get("/").data.decode()
    for p in ("rio-grande", "kosmos", "translations"):
        assert f'value="{p}"' in html
    for switch, rule in (
        ("pandora_scope", "D1"),
        ("pythia_defends", "D3"),
        ("own_figure_removal", "D4"),
        ("pegasus_beside_own_figure", "D5"),
    ):
        assert f'name="{switch}"' in html and f"[{rule}]" in html
    assert "only Pandora&#39;s owner loses the column" in html
    assert 'value="table"' in html and "Decide at the table" in html
    assert "<script>" not in html  # no inline script (CSP)


def test_a_new_game_shows_each_seat_link_on_its_own_screen_and_no_judge_link(
    table: Table, app: Flask
) -> None:
    hera, zeus, public = table.steps
    assert 'id="join-hera"' in hera and "/join/" in hera and 'id="join-zeus"' not in hera
    assert 'id="join-zeus"' in zeus and 'id="join-hera"' not in zeus
    assert "/join/" not in public and f"http://localhost/g/{table.game}" in public
    for html in table.steps:
        assert html.count("<svg") >= 1
        assert 'id="join-judge"' not in html and "/judge/join/" not in html
    codes = [m for m in re.findall(r"/join/[^/]+/([\w-]+)", table.created)]
    assert len(set(codes)) == 2  # the two players' codes, no third (the judge's)
    other = app.test_client().get(f"/g/{table.game}/created").data.decode()
    assert "/join/" not in other and "shown only to the browser that created" in other


def test_a_games_pages_link_its_page_modules_stylesheet(table: Table) -> None:
    assert "/static/herazeus.css" in table.created
    for seat in ("hera", "judge", "public"):
        assert "/static/herazeus.css" in table.page(seat)
    assert "/static/herazeus.css" in table.page("hera", "/replay")


def test_a_new_game_without_the_token_is_refused(app: Flask) -> None:
    c = app.test_client()
    c.get("/")
    assert c.post("/new", data={"profile": "rio-grande"}).status_code == 403


def test_a_bad_profile_goes_back_to_the_form_with_the_reason(app: Flask) -> None:
    c = app.test_client()
    r = c.post("/new", data={"csrf": csrf_of(c, "/"), "profile": "monopoly"})
    assert r.headers["Location"] == "/"
    assert "unknown profile" in flash(c.get("/").data.decode())


# ---- setup, seats, privacy -------------------------------------------------------------------


def board(html: str) -> str:
    """A page without its deck lists (which name every card of both decks: public, issue 12)."""
    return re.sub(r'<section id="decks".*?</section>', "", html, flags=re.S)


def test_setup_is_guided_step_by_step(table: Table) -> None:
    html = board(table.page("hera"))
    assert 'id="deal-form"' in html and html.count('name="cards"') == 9
    assert "Io" in html  # his own deck's names to tap, the hostage included
    assert "Cyclops" not in html  # never the other deck's names for his nine cards
    html = table.post("hera", "/act", do="deal", cards=["Io", *HERA_HAND[1:]])
    assert 'id="redraw-form"' in html and "show it to Zeus" in html
    html = table.post("hera", "/act", do="redraw", card="Hydra")
    assert 'id="row-form"' in html
    html = table.post("hera", "/act", do="first_row", cards=["Hydra", "Harpy", "Furies"])
    assert "Waiting for Zeus" in html


def test_each_seat_sees_its_own_cards_and_only_backs_of_the_other(table: Table) -> None:
    table.setup()
    hera, zeus, public = (board(table.page(s)) for s in ("hera", "zeus", "public"))
    for name in ZEUS_ONLY:
        assert name not in hera, name
        assert name in zeus
    assert "Artemis" in hera and "Artemis" not in zeus
    assert "Artemis" not in public and "Cyclops" not in public
    judge = table.page("judge")
    assert "Artemis" in judge and "Cyclops" in judge


def test_a_card_seen_by_the_other_player_replays_as_a_card_not_its_sealed_value(
    table: Table,
) -> None:
    table.setup()
    table.post("hera", "/observe", player="hera", zone="hand", card="Artemis")
    hera, zeus = table.page("hera", "/replay"), table.page("zeus", "/replay")
    assert "Seen: Hera&#39;s Artemis." in hera
    assert "Seen: a card of Hera&#39;s." in zeus
    assert "Artemis" not in zeus and "sealed" not in zeus


@pytest.mark.parametrize("path", ["/replay", "/replay?at=5", "/report.html", "/export.jsonl"])
def test_replay_report_and_export_are_cut_for_the_seat(table: Table, path: str) -> None:
    table.setup()
    table.post("hera", "/act", do="draw", card="Nemesis")
    for seat in ("hera", "public"):
        text = table.page(seat, path)
        for name in ZEUS_ONLY:
            assert name not in text, (seat, name)
    assert "Cyclops" in table.page("judge", "/report.html")


def test_the_actions_are_grouped_the_way_a_player_thinks(table: Table) -> None:
    table.setup()
    html = table.page("hera")
    assert 'id="g-draw"' in html and 'id="g-play"' in html
    assert 'id="g-challenge"' not in html  # D6: not on the first turn
    assert "3 of 3" in html
    c = controls_for(
        ["draw", "play Hydra 1.1", "play Hydra 2.2", "challenge 2", "pegasus hand", "god 1"]
    )
    assert list(c.groups) == ["draw", "play", "challenge", "pegasus", "god"]
    assert c.play_cards == ["Hydra"] and c.play_columns == [1, 2]


def test_an_illegal_action_is_refused_with_its_rule_and_changes_nothing(table: Table) -> None:
    table.setup()
    seq = table.ref.folded(table.game).last_seq
    html = table.post("hera", "/act", action="end")
    assert "[D7]" in flash(html) and flash(html).startswith("error")
    assert table.ref.folded(table.game).last_seq == seq


def test_a_stale_form_is_refused_and_says_to_reload(table: Table) -> None:
    table.setup()
    seq = table.ref.folded(table.game).last_seq
    table.post("hera", "/act", do="draw", seq=str(seq))
    html = table.post("hera", "/act", do="draw", seq=str(seq))
    assert "stale" in flash(html) and "reload" in flash(html)
    assert table.ref.folded(table.game).last_seq == seq + 1


def test_a_player_cannot_act_for_the_other(table: Table) -> None:
    table.setup()
    html = table.post("zeus", "/act", do="draw")
    assert "Refused" in flash(html) and "turn" in flash(html)


def test_a_pegasus_against_the_hand_asks_the_other_seat_at_once(table: Table) -> None:
    table.setup()
    for seat in ("hera", "zeus"):
        for _ in range(3):
            table.post(seat, "/act", do="draw")
        table.post(seat, "/act", action="end")
    table.post("hera", "/act", action="pegasus hand")
    zeus = table.page("zeus")
    assert "The referee asks you" in zeus and 'name="needs" value="pick"' in zeus
    hera = table.page("hera")
    assert "The referee asks you" not in hera
    log = re.sub(r"<[^>]+>", " ", hera.split('class="log"')[1])
    assert "The referee waits for Zeus to answer:" in log  # the ask, in words
    assert not re.search(r"\bask\s*</li>|\s(hera|zeus)\s+ask\b", hera.split('class="log"')[1])
    html = table.post("zeus", "/answer", needs="pick", value="Medusa")
    assert flash(html).startswith("ok")
    assert "Medusa" in table.page("hera")  # it came out face up, for both to see


def test_the_photo_entry_is_refused_clearly_until_the_server_reads_cards(table: Table) -> None:
    html = table.post("hera", "/photo")
    assert "cannot read card photos" in flash(html) or flash(html)


def test_answers_are_read_by_what_is_needed() -> None:
    assert parse_answer("place", {"value": "2"}) == 2
    assert parse_answer("reveal.hand", {"value": "Hydra, Harpy"}) == ["Hydra", "Harpy"]
    assert parse_answer("pick", {"value": "Medusa"}) == "Medusa"
    with pytest.raises(ValueError, match="tap the column"):
        parse_answer("place", {"value": "left"})


# ---- the judge -------------------------------------------------------------------------------


def test_only_the_judge_corrects_and_the_reason_stays_on_his_page(table: Table) -> None:
    table.setup()
    table.post("hera", "/act", do="draw", card="Nemesis")
    seq = table.ref.folded(table.game).last_seq
    r = table.c["hera"].post(
        f"/g/{table.game}/judge/undo",
        data={"csrf": csrf_of(table.c["hera"], f"/g/{table.game}"), "to": "1", "reason": "x"},
    )
    assert r.status_code == 403
    html = table.post(
        "judge", "/judge/amend", event=str(seq), action="draw Artemis", reason="wrong scan"
    )
    assert flash(html).startswith("ok") and "wrong scan" in html
    hera = table.page("hera")
    assert "corrected the record" in hera and "wrong scan" not in hera and "Artemis" in hera
    assert "wrong scan" not in table.page("public")


def test_the_ruling_tool_rules_without_changing_the_game(table: Table) -> None:
    table.setup()
    seq = table.ref.folded(table.game).last_seq
    html = table.page("judge", "?pose=challenge+1")
    assert 'id="ruling"' in html and "D6" in html
    assert table.ref.folded(table.game).last_seq == seq
    assert 'id="ruling"' not in table.page("hera", "?pose=challenge+1")


def test_the_judge_sees_his_tables_at_a_glance(table: Table) -> None:
    html = table.c["judge"].get("/judge").data.decode()
    assert table.game in html and "Ann" in html
    assert table.game not in table.c["hera"].get("/judge").data.decode()


def test_the_report_opens_in_the_browser_with_an_index_and_the_end_one_tap_away(
    table: Table,
) -> None:
    table.setup()
    r = table.c["hera"].get(f"/g/{table.game}/report.html")
    assert r.status_code == 200
    assert r.headers["Content-Disposition"].startswith("inline;")
    html = r.get_data(as_text=True)
    index = html.split('id="index"')[1].split("</nav>")[0]
    last = table.ref.folded(table.game).last_seq
    for seq in (0, last):
        assert f'href="#e{seq}"' in index and f'id="e{seq}"' in html
    assert '<a href="#end">' in index and 'id="end"' in html
    saved = table.c["hera"].get(f"/g/{table.game}/report.html?download=1")
    assert saved.headers["Content-Disposition"].startswith("attachment;")
    assert "download=1" in table.page("hera")  # the page still offers to save it


def test_every_page_shows_the_log_head_as_verify_head_reads_it(table: Table) -> None:
    table.setup()
    f = table.ref.folded(table.game)
    head = f"{f.last_seq}:{f.last_hash[:8]}"  # `referee verify --head 39:18a78063`
    for seat in ("hera", "zeus", "judge", "public"):
        assert head in table.page(seat), seat
    assert head in table.page("hera", "/replay")
    assert head in table.page("hera", "/report.html")
    assert head in table.c["judge"].get("/judge").get_data(as_text=True)
    exported = table.page("judge", "/export.jsonl")
    header, records = read_lines(exported)
    assert verify(header, records, head=head).ok


# ---- the judge's open calls and irregularities -------------------------------------------------


@dataclass(frozen=True)
class Form:
    """A form of a page: where it posts, its hidden fields, its words and its buttons."""

    action: str
    hidden: dict[str, str]
    text: str
    buttons: list[str]


def forms_of(html: str, cls: str) -> list[Form]:
    """The forms of ``html`` whose class names ``cls``."""
    out = []
    for m in re.finditer(r"<form([^>]*)>(.*?)</form>", html, re.S):
        attrs, inner = m.group(1), m.group(2)
        classes = re.search(r'class="([^"]*)"', attrs)
        if classes is None or cls not in classes.group(1).split():
            continue
        action = re.search(r'action="([^"]*)"', attrs)
        hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', inner))
        buttons = re.findall(r'<button[^>]*type="submit"[^>]*>(.*?)</button>', inner, re.S)
        words = re.sub(r"<[^>]+>", " ", inner)
        out.append(
            Form(action.group(1) if action else "", hidden, " ".join(words.split()), buttons)
        )
    return out


def settle(table: Table, form: Form, note: str) -> str:
    """Submits ``form`` of the judge's page with ``note``, as the judge's browser does."""
    cl = table.c["judge"]
    r = cl.post(form.action, data={**form.hidden, "reason": note})
    assert r.status_code == 303, r.data[:300]
    return cl.get(r.headers["Location"]).get_data(as_text=True)


def misreport(table: Table, column: int, card: str) -> None:
    """Hera reports the front card of her column as ``card`` (the record says another): an
    irregularity for the judge (D20)."""
    html = table.post(
        "hera", "/observe", player="hera", zone="field", column=column, position=1, card=card
    )
    assert flash(html).startswith("ok"), flash(html)


def test_a_judge_call_shows_on_the_judges_page_with_its_note_and_a_settle_control(
    table: Table,
) -> None:
    table.setup()
    table.post("hera", "/call", note="Zeus looked at my hand")
    seq = table.ref.head(table.game)["seq"]
    calls = forms_of(table.page("judge"), "call")
    assert len(calls) == 1
    assert f"#{seq}" in calls[0].text and "Zeus looked at my hand" in calls[0].text
    assert calls[0].action == f"/g/{table.game}/judge/resolve"
    assert calls[0].hidden["event"] == str(seq)
    assert calls[0].buttons == ["Settle"]


def test_the_judge_settles_a_call_from_his_page_and_it_leaves_the_page(table: Table) -> None:
    table.setup()
    table.post("zeus", "/call", note="we disagree on Pegasus")
    overview = table.c["judge"].get("/judge").get_data(as_text=True)
    assert "1 call · 0 irregularities" in overview  # not "1 calls"
    (call,) = forms_of(table.page("judge"), "call")
    html = settle(table, call, "explained D5")
    assert flash(html).startswith("ok"), flash(html)
    assert forms_of(html, "call") == []
    assert "we disagree on Pegasus" not in html.split('id="log"')[0]
    assert table.ref.view(table.game, "judge").to_json()["open"] == []


def test_an_open_irregularity_shows_resolve_and_a_settled_one_does_not(table: Table) -> None:
    table.setup()
    misreport(table, 1, "Harpy")  # recorded: Hydra
    first = table.ref.head(table.game)["seq"]
    misreport(table, 2, "Hydra")  # recorded: Harpy
    second = table.ref.head(table.game)["seq"]
    open_ = forms_of(table.page("judge"), "irregularity")
    assert [f.hidden["event"] for f in open_] == [str(first), str(second)]
    assert all(f.buttons == ["Resolve"] for f in open_)
    assert "recorded as Hydra but seen as Harpy" in open_[0].text
    html = settle(table, open_[0], "Hera misread her card")
    assert flash(html).startswith("ok"), flash(html)
    left = forms_of(html, "irregularity")
    assert [f.hidden["event"] for f in left] == [str(second)]
    assert left[0].buttons == ["Resolve"]


def test_cancel_drops_the_submitters_own_question_even_with_no_answer_chosen(
    table: Table,
) -> None:
    """The "one more thing" form's Cancel works before any card is chosen (it used to read
    the empty answer first and refuse it, keeping the question)."""
    table.setup()
    cl = table.c["hera"]
    with cl.session_transaction() as s:
        s["question"] = {
            "game": table.game,
            "raw": {"do": "play", "column": 1},
            "needs": "card",
            "text": "which card?",
        }
    html = table.post("hera", "/act", raw='{"do": "play", "column": 1}', needs="card", cancel="1")
    assert "Refused" not in flash(html)
    with cl.session_transaction() as s:
        assert "question" not in s


def test_a_question_to_herself_after_her_challenge_is_asked_on_her_page(table: Table) -> None:
    """Issue 12 (D1, D22): Hera's challenge turns up Zeus's Pandora (scanned), and she must
    name the cards she loses, one of them unscanned. The challenge is recorded at once; her page
    asks her the question in its answer form (not a form she could cancel), and her answer
    completes the action."""
    ref = table.ref
    g = table.game
    table.post("hera", "/act", do="deal", cards=HERA_HAND)
    table.post("hera", "/act", do="first_row", cards=["Hydra", "Harpy", "Furies"])
    zeus = ["Pandora", "Giant", "Centaur", "Pegasus", "Poseidon", "Apollo", "Hero", "Pythia"]
    table.post("zeus", "/act", do="deal", cards=[*zeus, "Medusa"])
    table.post("zeus", "/act", do="first_row", cards=["Pandora", "Giant", "Centaur"])
    ref.submit(g, "hera", {"do": "draw"})  # not scanned
    ref.submit(g, "hera", {"do": "play", "card": "?", "column": 1, "position": 2})
    ref.submit(g, "hera", {"do": "draw", "card": "Pegasus"})
    ref.submit(g, "hera", {"do": "end_turn"})
    for raw in ({"do": "draw"}, {"do": "draw"}, {"do": "draw"}, {"do": "end_turn"}):
        ref.submit(g, "zeus", raw)
    n = len(ref.log(g, "judge"))
    html = table.post("hera", "/act", action="challenge 1")
    assert len(ref.log(g, "judge")) == n + 1 and ref.log(g, "judge")[n].kind == "ask"
    assert "The referee asks you" in html and 'name="needs" value="order.hera"' in html
    assert 'name="cancel"' not in html
    html = table.post("hera", "/answer", needs="order.hera", value="Hydra, Artemis")
    assert ref.log(g, "judge")[-1].kind == "action"
    assert "The referee asks you" not in html
