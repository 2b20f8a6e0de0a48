"""A database rolled back with its journal deleted (issue 31, item 3).

Copy an old database over the current one, delete the heads journal, restart: the server alone
cannot tell (its anchors went with the journal). So:

- ``referee serve`` refuses a database its journal does not cover (missing, or older than the
  database), with one line naming both files and ``--accept-missing-journal``; with that
  option it starts, logs the acceptance and shows it on the judge's pages;
- every seat page and the judge's console keep the newest head they were shown (browser
  storage); served an older one, or another record at a sequence they know, they show an
  alarm, stop acting and report it, an irregularity for the judge (``POST /g/<game>/witness``).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_serve import Server
from web_helpers import JUDGE_CODE, make_app, referee_of

from referee.service import Referee, Refused, open_referee

ROOT = Path(__file__).resolve().parent.parent
SIDES = ("", "-wal", "-shm")


def copy_db(src: Path, dst: Path) -> None:
    """The database file as it stands (the referee closed), with its WAL files if any."""
    for side in SIDES:
        s, d = Path(f"{src}{side}"), Path(f"{dst}{side}")
        if s.exists():
            shutil.copyfile(s, d)
        elif d.exists():
            d.unlink()


class Rollback:
    """A game played on, with a copy of its database from before the last records."""

    def __init__(self, tmp: Path) -> None:
        self.db = tmp / "referee.sqlite3"
        self.old = tmp / "old.sqlite3"
        ref = open_referee(self.db)
        made = ref.create_game()
        self.game, self.codes = made.game, made.codes
        claimed = ref.claim(self.game, self.codes["hera"]).token
        # the phone's cookie as rotated on its first page (before the copy: the old database
        # knows it; a rotation the copy lacks makes the phone's newer token look like a copied
        # one, and the seat is held for the judge as well: a rollback is the judge's either way)
        assert claimed is not None
        self.hera = ref.device(self.game, claimed, rotate=True).token
        ref.store.close()
        copy_db(self.db, self.old)  # the copy kept aside, at the head Hera took her seat
        self.old_heads = tmp / "old.heads"
        shutil.copyfile(Path(f"{self.db}.heads"), self.old_heads)  # and the journal then
        ref = open_referee(self.db)
        ref.claim(self.game, self.codes["zeus"])
        ref.call_judge(self.game, "hera", "a question")
        self.newest = ref.head(self.game)
        ref.store.close()

    def roll_back(self, *, keep_journal: bool = False) -> None:
        """The old database copied over the current one; the journal deleted unless kept."""
        copy_db(self.old, self.db)
        if not keep_journal:
            Path(f"{self.db}.heads").unlink()


def journal_check(ref: Referee, db: Path, accept: bool) -> str | None:
    """``referee serve``'s check of the database against its journal (imported here, so
    that each test says for itself what it finds)."""
    from web.serve import journal_check as check

    return check(ref, db, accept)


def serve(db: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``referee serve`` on ``db`` on a port that is taken: it ends at once, refused for the
    journal (checked first) or else for the port."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        where = ["--host", "127.0.0.1", "--port", port]
        return subprocess.run(
            [sys.executable, "-m", "web.cli", "serve", "--db", str(db), "--no-qr", *where, *extra],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )


# ---- the server refuses to start -----------------------------------------------------------


def test_a_database_whose_journal_is_missing_is_refused(tmp_path: Path) -> None:
    r = Rollback(tmp_path)
    r.roll_back()
    ref = open_referee(r.db)
    with pytest.raises(SystemExit) as e:
        journal_check(ref, r.db, accept=False)
    line = str(e.value)
    assert "\n" not in line
    assert str(r.db) in line and f"{r.db}.heads" in line and "is missing" in line
    assert "--accept-missing-journal" in line


def test_a_journal_older_than_the_database_is_refused(tmp_path: Path) -> None:
    r = Rollback(tmp_path)
    shutil.copyfile(r.old_heads, Path(f"{r.db}.heads"))  # the database kept, its journal old
    ref = open_referee(r.db)
    with pytest.raises(SystemExit) as e:
        journal_check(ref, r.db, accept=False)
    assert "is older than the database" in str(e.value) and r.game in str(e.value)
    assert "--accept-missing-journal" in str(e.value)


def test_a_fresh_database_and_a_database_its_journal_covers_are_served(tmp_path: Path) -> None:
    fresh = open_referee(tmp_path / "new.sqlite3")
    assert journal_check(fresh, tmp_path / "new.sqlite3", accept=False) is None
    fresh.store.close()
    r = Rollback(tmp_path)
    ref = open_referee(r.db)
    assert journal_check(ref, r.db, accept=False) is None


@pytest.mark.process
def test_serve_exits_with_one_line_naming_the_files_and_the_option(tmp_path: Path) -> None:
    r = Rollback(tmp_path)
    r.roll_back()
    out = serve(r.db)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    line = out.stderr.strip()
    assert "\n" not in line
    assert str(r.db.resolve()) in line and ".heads" in line and "--accept-missing-journal" in line
    # with the option it starts, and its log says what was accepted
    s = Server(r.db, "--accept-missing-journal", "--quiet")
    try:
        assert s.proc.poll() is None
    finally:
        s.stop()
    assert "with --accept-missing-journal" in s.text and ".heads is missing" in s.text


def test_with_the_option_the_acceptance_is_logged_and_shown_to_the_judge(tmp_path: Path) -> None:
    r = Rollback(tmp_path)
    r.roll_back()
    ref = open_referee(r.db)
    said = journal_check(ref, r.db, accept=True)
    assert said is not None and "--accept-missing-journal" in said and "is missing" in said
    app = make_app(ref, JOURNAL_ACCEPTED=said)
    judge = app.test_client()
    judge.get(f"/judge/join/{JUDGE_CODE}")
    assert said in html.unescape(judge.get("/judge").get_data(as_text=True))
    assert said in html.unescape(judge.get(f"/g/{r.game}").get_data(as_text=True))
    hera = app.test_client()
    hera.set_cookie(f"hz_{r.game}", str(r.hera))
    page = hera.get(f"/g/{r.game}").get_data(as_text=True)
    # the judge's word, not a player's
    assert 'data-seat="hera"' in page and said not in html.unescape(page)
    ref.store.close()
    # the games it took as stored are anchored now: the next start needs no option
    again = open_referee(r.db)
    assert journal_check(again, r.db, accept=False) is None
    again.store.close()


# ---- a device reports what it saw ------------------------------------------------------------


def witness(client: Any, game: str, token: str, **fields: Any) -> Any:
    return client.post(
        f"/g/{game}/witness",
        data={"csrf": token, **fields},
        headers={"Accept": "application/json"},
    )


def csrf_of(client: Any, game: str) -> str:
    page = client.get(f"/g/{game}").get_data(as_text=True)
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "the page has a form with its CSRF token"
    return found.group(1)


def test_a_seat_reports_an_older_head_as_an_irregularity_for_the_judge(tmp_path: Path) -> None:
    r = Rollback(tmp_path)
    r.roll_back()
    ref = open_referee(r.db)
    journal_check(ref, r.db, accept=True)
    served = ref.head(r.game)
    assert served["seq"] < r.newest["seq"]
    app = make_app(ref)
    hera = app.test_client()
    hera.set_cookie(f"hz_{r.game}", str(r.hera))
    token = csrf_of(hera, r.game)
    seen = {"seen_seq": r.newest["seq"], "seen_hash": r.newest["hash"]}
    now = {"served_seq": served["seq"], "served_hash": served["hash"]}
    answer = witness(hera, r.game, token, **seen, **now)
    assert answer.status_code == 201
    event = answer.json["event"]
    # the judge sees it in his hall, with what the phone saw and what it was served
    judge = app.test_client()
    judge.get(f"/judge/join/{JUDGE_CODE}")
    hall = html.unescape(judge.get("/judge").get_data(as_text=True))
    assert "irregularity: Hera's device was shown the record up to event" in hall
    assert f"event {r.newest['seq']} ({r.newest['hash'][:8]})" in hall
    open_ = ref.view(r.game, "judge").to_json()["open"]
    assert [i["seq"] for i in open_ if i["kind"] == "irregularity"] == [event]
    # the same report again is the same irregularity; the opponent does not read its words
    assert witness(hera, r.game, token, **seen, **now).json["event"] == event
    zeus_log = ref.log(r.game, "zeus")
    assert "device was shown" not in json.dumps(zeus_log[event].body)
    assert zeus_log[event].body["problem"].keys() == {"$sealed"}
    referee_of(app).store.close()


def test_a_report_that_shows_nothing_or_comes_from_the_public_is_refused(tmp_path: Path) -> None:
    r = Rollback(tmp_path)
    ref = open_referee(r.db)
    app = make_app(ref)
    head = ref.head(r.game)
    hera = app.test_client()
    hera.set_cookie(f"hz_{r.game}", str(r.hera))
    token = csrf_of(hera, r.game)
    same = {"seen_seq": head["seq"], "seen_hash": head["hash"]}
    answer = witness(hera, r.game, token, **same, served_seq=head["seq"], served_hash=head["hash"])
    assert answer.status_code == 422 and "nothing to report" in answer.json["message"]
    bad = witness(hera, r.game, token, **same, served_seq="x", served_hash=head["hash"])
    assert bad.status_code == 422 and "served_seq" in bad.json["message"]
    bad = witness(hera, r.game, token, **same, served_seq=1, served_hash="<script>")
    assert bad.status_code == 422 and "served_hash" in bad.json["message"]
    public = app.test_client()
    ptoken = public.get(f"/api/v1/games/{r.game}").json["csrf"]  # type: ignore[index]
    refused = witness(public, r.game, ptoken, **same, served_seq=1, served_hash=head["hash"])
    assert refused.status_code == 403 and "only a seat" in refused.json["message"]
    assert ref.view(r.game, "judge").to_json()["open"] == [
        i for i in ref.view(r.game, "judge").to_json()["open"] if i["kind"] == "call"
    ]  # nothing was recorded but the call the game had
    ref.store.close()


@pytest.mark.parametrize("pair", [None, {}, [], "ab", (1,), (1, "ab", 3)])
def test_a_report_whose_head_is_no_pair_is_refused_by_the_service(
    tmp_path: Path, pair: Any
) -> None:
    """The service's own entrance (the fuzzer found these tracebacks): a head that is not a
    (seq, hash) pair is refused naming it, and nothing is recorded."""
    r = Rollback(tmp_path)
    ref = open_referee(r.db)
    head = ref.head(r.game)
    before = ref.head(r.game)
    for seen, served in ((pair, (1, head["hash"])), ((head["seq"], head["hash"]), pair)):
        with pytest.raises(Refused, match="a head as \\(seq, hash\\)"):
            ref.report_head(r.game, "hera", seen, served)
    assert ref.head(r.game) == before
    ref.store.close()
