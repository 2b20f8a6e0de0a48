"""Issue 13, item 5: the judge's hall at a glance. What needs the judge is listed oldest first:
each open call with its note, each open irregularity, each held record, and each question a
player has left unanswered for more than a minute (the clock is injected: no test sleeps)."""

from __future__ import annotations

import datetime
import html
import re
from typing import Any

import pytest
from flask import Flask
from test_service import new_game as service_game
from web_helpers import judge_browser, make_app, new_game, referee_of

from referee.models import TableRow
from referee.service import NeedsInput
from web.tables import alerts

T0 = datetime.datetime(2026, 11, 24, 1, 0, tzinfo=datetime.UTC)


def at(minutes: float) -> str:
    return (T0 + datetime.timedelta(minutes=minutes)).isoformat()


def test_alerts_come_oldest_first_with_the_notes_and_late_answers() -> None:
    rows: list[TableRow] = [
        {
            "game": "g2",
            "calls": [{"seq": 9, "kind": "call", "seat": "zeus", "time": at(3), "body": {}}],
            "irregularities": [
                {
                    "seq": 7,
                    "kind": "irregularity",
                    "seat": "hera",
                    "time": at(2),
                    "body": {"problem": "Pegasus is not Medusa"},
                }
            ],
            "waiting_since": at(1),
        },
        {
            "game": "g1",
            "calls": [
                {"seq": 4, "kind": "call", "seat": "hera", "time": at(0), "body": {"note": "deck"}}
            ],
            "waiting_since": at(4.5),  # 30 s before "now": not late yet
        },
        {"game": "g3", "held": "event 5's hash does not match"},
    ]
    got = [(a["game"], a["what"]) for a in alerts(rows, T0 + datetime.timedelta(minutes=5))]
    assert got == [
        ("g3", "record held: event 5's hash does not match"),
        ("g1", "Hera calls the judge: deck"),
        ("g2", "waiting for a player's answer for 4 min"),
        ("g2", "irregularity: Pegasus is not Medusa"),
        ("g2", "Zeus calls the judge"),
    ]


@pytest.fixture
def clock() -> dict[str, datetime.datetime]:
    return {"now": datetime.datetime.now(datetime.UTC)}


@pytest.fixture
def app(clock: dict[str, datetime.datetime]) -> Flask:
    return make_app(CLOCK=lambda: clock["now"])


def hall(app: Flask) -> str:
    return html.unescape(judge_browser(app).get("/judge").get_data(as_text=True))


def test_a_call_is_listed_with_its_note_until_it_is_settled(app: Flask) -> None:
    created, b = new_game(app)
    g = created.game
    assert "Nothing needs you now." in hall(app)
    r = b["hera"].post(f"/api/v1/games/{g}/calls", {"note": "the deck fell"}, game=g)
    assert r.status_code == 201, r.data
    seq = int(r.json["seq"])  # type: ignore[index]
    assert "Hera calls the judge: the deck fell" in hall(app)
    referee_of(app).resolve(g, "judge", seq, "reshuffled, both agree")
    assert "the deck fell" not in hall(app) and "Nothing needs you now." in hall(app)


def test_a_question_unanswered_for_a_minute_is_an_alert(app: Flask, clock: dict[str, Any]) -> None:
    ref = referee_of(app)
    g = service_game(ref, game="late1")
    for seat in ("hera", "zeus"):
        for _ in range(3):
            ref.submit(g, seat, {"do": "draw"})
        ref.submit(g, seat, {"do": "end_turn"})
    with pytest.raises(NeedsInput) as info:
        ref.submit(g, "hera", {"do": "pegasus", "target": "hand"})  # Zeus is asked (D2, D22)
    asked = datetime.datetime.fromisoformat(ref.log(g, "judge")[info.value.seq or 0].time)
    clock["now"] = asked + datetime.timedelta(seconds=30)
    assert "waiting for a player's answer" not in hall(app)
    clock["now"] = asked + datetime.timedelta(minutes=2)
    assert "waiting for a player's answer for 2 min" in hall(app)


def test_the_dead_end_is_confirmed_only_once_the_player_to_act_declares_it(app: Flask) -> None:
    """D8, HZ-P6: "Confirm the dead end" is not a standing button; it appears on the judge's
    table page when the player to act has called the judge to declare it, from his page."""
    created, b = new_game(app)
    g = created.game
    ref = referee_of(app)
    for seat in ("hera", "zeus"):  # cards not entered: the referee cannot see a dead end
        ref.submit(g, seat, {"do": "deal", "player": seat, "cards": ["?"] * 9})
        ref.submit(g, seat, {"do": "first_row", "player": seat, "cards": ["?"] * 3})
    judge = judge_browser(app)
    assert "Confirm the dead end" not in judge.get(f"/g/{g}").get_data(as_text=True)
    seat_page = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    assert "I cannot use my points: call the judge" in seat_page
    note = "I cannot use my remaining action points [D8]"
    r = b["hera"].post(f"/g/{g}/call", data={"note": note}, game=g)
    assert r.status_code == 303
    assert "Confirm the dead end" in judge.get(f"/g/{g}").get_data(as_text=True)


def test_the_judge_records_an_action_picked_from_the_legal_ones(app: Flask) -> None:
    """The judge's "record an action" offers exactly the legal actions; picking one records it
    (typed notation stays possible)."""
    created, _ = new_game(app)
    g = created.game
    ref = referee_of(app)
    for seat in ("hera", "zeus"):
        ref.submit(g, seat, {"do": "deal", "player": seat, "cards": ["?"] * 9})
        ref.submit(g, seat, {"do": "first_row", "player": seat, "cards": ["?"] * 3})
    judge = judge_browser(app)
    page = judge.get(f"/g/{g}").get_data(as_text=True)
    assert "first_row" not in page and "first-row zeus" in page  # the events, as he types them
    picker = page.split('name="legal"')[1].split("</select>")[0]
    offered = re.findall(r'<option value="([^"]+)">', picker)
    assert offered == ref.view(g, "judge").to_json()["legal"]
    n = ref.folded(g).last_seq
    r = judge.post(f"/g/{g}/judge/act", data={"legal": "draw", "action": ""}, game=g)
    assert r.status_code == 303 and ref.folded(g).last_seq == n + 1


def test_the_console_shows_the_hall_and_the_chosen_table_on_one_page(app: Flask) -> None:
    """Issue 13, item 5: every table at a glance and, beside it, the chosen table's desk (its
    calls, position, log and tools) on one page, ``/judge?table=<game>``; the hall's links
    choose a table there."""
    created, b = new_game(app)
    g = created.game
    other, _ = new_game(app)
    b["hera"].post(f"/api/v1/games/{g}/calls", {"note": "the deck fell"}, game=g)
    judge = judge_browser(app)
    hall_page = html.unescape(judge.get("/judge").get_data(as_text=True))
    assert f'href="/judge?table={g}"' in hall_page and 'id="ruling-form"' not in hall_page
    page = html.unescape(judge.get(f"/judge?table={g}").get_data(as_text=True))
    assert "Hera calls the judge: the deck fell" in page  # the hall's alert
    assert f"/judge?table={other.game}" in page  # every table stays listed
    assert "Judge call" in page and "the deck fell" in page  # the desk's own settle form
    for part in ('id="ruling-form"', 'id="undo-form"', 'id="judge-act-form"', 'id="log"'):
        assert part in page, part
    assert f'data-game="{g}"' in page and 'aria-current="page"' in page  # the live stream


def test_a_form_sent_from_the_console_comes_back_to_the_console(app: Flask) -> None:
    created, b = new_game(app)
    g = created.game
    r = b["hera"].post(f"/api/v1/games/{g}/calls", {"note": "the deck fell"}, game=g)
    seq = int(r.json["seq"])  # type: ignore[index]
    judge = judge_browser(app)
    page = judge.get(f"/judge?table={g}").get_data(as_text=True)
    # the console's own forms (the language picker in the footer is every page's, not its)
    console = page.split("<main", 1)[1].split("</main>", 1)[0]
    assert console.count('name="back" value="console"') >= console.count('name="csrf"') > 0
    sent = judge.post(
        f"/g/{g}/judge/resolve",
        data={"event": str(seq), "reason": "reshuffled", "back": "console"},
        game=g,
    )
    assert sent.status_code == 303 and sent.headers["Location"] == f"/judge?table={g}"
    assert not referee_of(app).view(g, "judge").to_json()["open"]
    alone = judge.post(f"/g/{g}/judge/act", data={"legal": "", "action": "nonsense"}, game=g)
    assert alone.headers["Location"] == f"/g/{g}"  # from the table's own page: back there


def test_the_console_rules_and_turns_the_drawing_without_leaving(app: Flask) -> None:
    created, _ = new_game(app)
    g = created.game
    judge = judge_browser(app)
    page = html.unescape(judge.get(f"/judge?table={g}&side=zeus").get_data(as_text=True))
    ruling = (
        page.split('id="ruling-form"')[0].rsplit("<form", 1)[1]
        + page.split('id="ruling-form"')[1].split("</form>")[0]
    )
    assert 'action="/judge"' in ruling
    assert f'name="table" value="{g}"' in ruling and 'name="side" value="zeus"' in ruling
    assert f"/judge?table={g}&side=hera" in page
    asked = html.unescape(judge.get(f"/judge?table={g}&pose=draw").get_data(as_text=True))
    assert 'id="ruling"' in asked


def test_the_console_shows_no_desk_for_a_table_this_browser_does_not_judge(app: Flask) -> None:
    created, b = new_game(app)
    g = created.game
    page = b["hera"].get(f"/judge?table={g}").get_data(as_text=True)
    assert 'id="ruling-form"' not in page and "Hera" not in page.split("<main>")[1]
