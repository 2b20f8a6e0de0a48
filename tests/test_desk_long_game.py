"""Issue 32, item 4: the judge's desk costs the same however long the game. It words the
latest records only (``DESK_SHOWN``; the replay and the export hold them all) and lists the
latest actions for an undo or an amend (``DESK_ACTIONS``); an earlier event is typed by its
number, and the correction reaches it as before. The limits are made small here so that a set-up
game is "long"."""

from __future__ import annotations

import re

import pytest
from test_service import new_game as service_game
from web_helpers import judge_browser, make_app, referee_of

import web.desk
import web.seat


@pytest.fixture
def short_desk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web.seat, "DESK_SHOWN", 3)
    monkeypatch.setattr(web.desk, "DESK_ACTIONS", 2)


def _desk(html: str) -> tuple[list[int], list[str], list[str]]:
    """The log's event numbers, the undo list's and the amend list's values."""
    log = re.search(r'<section id="log".*?</section>', html, re.S)
    assert log is not None
    seqs = [int(s) for s in re.findall(r'<li data-seq="(\d+)"', log.group(0))]
    undo = re.search(r'<select name="to">(.*?)</select>', html, re.S)
    amend = re.search(r'<select name="event">(.*?)</select>', html, re.S)
    assert undo is not None and amend is not None
    return (
        seqs,
        re.findall(r'value="(\d+)"', undo.group(1)),
        re.findall(r'value="(\d+)"', amend.group(1)),
    )


def test_the_desk_words_the_latest_records_and_points_to_the_replay(short_desk: None) -> None:
    app = make_app()
    ref = referee_of(app)
    g = service_game(ref)
    records = ref.log(g, "judge")
    html = judge_browser(app).get(f"/g/{g}").get_data(as_text=True)
    seqs, undo, amend = _desk(html)
    assert seqs == [r.seq for r in reversed(records[-3:])]
    assert f"{len(records) - 3} earlier events" in html
    assert f'href="/g/{g}/replay?at=0"' in html
    actions = [r.seq for r in records if r.kind == "action"]
    assert undo == [str(s) for s in reversed(actions[-2:])] + ["0"]
    assert amend == [str(s) for s in reversed(actions[-2:])]
    assert 'name="to_earlier"' in html and 'name="event_earlier"' in html


def test_an_undo_to_an_event_older_than_the_list_is_typed_and_made(short_desk: None) -> None:
    app = make_app()
    ref = referee_of(app)
    g = service_game(ref)
    actions = [r.seq for r in ref.log(g, "judge") if r.kind == "action"]
    older = actions[-4]  # not in the desk's list of the last two
    judge = judge_browser(app)
    form = {"csrf": judge.csrf(g), "to": str(actions[-1]), "to_earlier": str(older)}
    r = judge.client.post(f"/g/{g}/judge/undo", data={**form, "reason": "a mis-entry"})
    assert r.status_code == 303
    last = ref.log(g, "judge")[-1]
    assert last.kind == "undo" and last.body["to"] == older


def test_a_short_game_offers_every_action_and_no_number_field() -> None:
    app = make_app()
    ref = referee_of(app)
    g = service_game(ref)
    records = ref.log(g, "judge")
    html = judge_browser(app).get(f"/g/{g}").get_data(as_text=True)
    seqs, undo, _ = _desk(html)
    assert seqs == [r.seq for r in reversed(records)]
    assert len(undo) == len([r for r in records if r.kind == "action"]) + 1
    assert "earlier events" not in html and 'name="to_earlier"' not in html
