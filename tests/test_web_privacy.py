"""Privacy through HTTP: the random-table property of ``test_privacy`` run through the JSON API.

Random games are played at a simulated table (``service_helpers.Table``) whose every
submission, answer and observation goes through ``/api/v1`` with the acting seat's cookie.
After every action, every seat's view is fetched with its own cookie, with no cookie, with a
mistyped cookie and with a revoked one; every few actions, and at the end, every seat's log and
export and the live stream. Each of them is checked like the service's own reads: no hidden card
identity of another seat appears (``check_view``, ``check_record``, ``check_events``,
``check_message``), and the live stream carries nothing but the log's head.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

import pytest
import test_privacy
from service_helpers import Table
from test_privacy import Watch, event_audience, hidden_names
from web_helpers import Browser, HttpReferee, make_app, sse_events

from engine import GameState, Player
from engine.actions import PegasusHand, parse_action_text
from engine.state import Phase
from referee.log import Record, read_lines, verify
from referee.views import SEATS, may_cut

GAMES = 4
BACK = re.compile(r"^\?(/hera|/zeus)?$")


def check_view(st: GameState, seat: str, view: Mapping[str, Any]) -> None:
    """``view`` (for ``seat``) shows ``st`` with only what the seat may see: its own hand and
    face-down cards, backs of the others; the top of every discard pile and its height, the
    whole pile only for its owner and the judge (D21); the judge's items only for the judge."""
    assert view["seat"] == seat
    for holder in Player:
        side, shown = st.sides[holder], view[holder.key]
        own = seat in ("judge", holder.key)
        assert shown["hand_size"] == len(side.hand) == len(shown["hand"])
        for c, entry in zip(side.hand, shown["hand"], strict=True):
            if own:
                assert entry == c.notation(holder)
            else:
                assert BACK.match(entry), f"{seat} sees {holder.key}'s hand card as {entry!r}"
        top = side.discard[-1].notation(holder) if side.discard else None
        assert (shown["discard_top"], shown["discard_height"]) == (top, len(side.discard))
        if own:
            assert shown["discard"] == [c.notation(holder) for c in side.discard]
        else:
            assert "discard" not in shown, f"{seat} looks through {holder.key}'s pile (D21)"
        for col, cells in zip(side.field, shown["field"], strict=True):
            assert len(col) == len(cells)
            for slot, cell in zip(col, cells, strict=True):
                if slot.card is None:
                    assert cell == "@"
                elif slot.up:
                    assert cell == "^" + slot.card.notation(holder)
                elif own:
                    assert cell == slot.card.notation(holder)
                else:
                    assert BACK.match(cell), f"{seat} sees a face-down {cell!r}"
    if seat != "judge":
        assert not {"irregularities", "broken", "open"} & set(view)
        for text in view.get("legal", []):
            a = parse_action_text(text)
            assert not (isinstance(a, PegasusHand) and a.pick), f"{seat} is offered {text!r}"


def hidden(v: Any) -> bool:
    """True for a value the reader cannot read: absent, or sealed (only its hash is shown)."""
    if v is None:
        return True
    if isinstance(v, dict):
        return set(v) == {"$sealed"}
    if isinstance(v, list):
        return all(x == "?" or hidden(x) for x in v)
    return False


def check_record(full: Record, cut: Record, seat: str) -> None:
    """``cut`` (the record as ``seat`` reads it) carries no card identity hidden from ``seat``:
    another player's draws, plays, Hades cards, dealt cards, redraws and first rows; face-down
    observations of another's cards; the judge's irregularities; Pythia's spy for the public;
    and every event whose card only its owner (or the spy) saw."""
    assert (cut.game, cut.seq, cut.kind, cut.prev, cut.hash) == (
        full.game,
        full.seq,
        full.kind,
        full.prev,
        full.hash,
    )
    where = f"{seat} reading event {full.seq} ({full.kind})"
    body, cbody = full.body, cut.body
    if seat == "judge":
        assert cut == full, where
        return
    if full.kind in ("action", "amend", "ask") and isinstance(body.get("action"), dict):
        a, ca = body["action"], cbody.get("action")
        actor = body.get("actor", body.get("by"))
        if not hidden(ca) and seat != actor:
            assert isinstance(ca, dict), where
            do = a.get("do")
            if do in ("draw", "play", "hades"):
                assert hidden(ca.get("card")), where
            if do == "redraw" and a.get("player") != seat:
                assert hidden(ca.get("card")), where
            if do in ("deal", "first_row") and a.get("player") != seat:
                assert hidden(ca.get("cards")), where
            if do == "pythia" and a.get("mode") == "spy" and seat == "public":
                rv = ca.get("reveal")
                assert hidden(rv) or hidden(rv.get("hand")), where
    elif full.kind == "observation":
        if not body.get("face_up") and body.get("player") != seat:
            assert hidden(cbody.get("card")) and hidden(cbody.get("recorded")), where
    elif full.kind == "irregularity":
        for k in ("recorded", "seen", "action", "problem"):
            assert hidden(cbody.get(k)), f"{where}: {k}"
    check_events(full, list(cut.events), seat)


def check_events(full: Record, events: Any, seat: str) -> None:
    """The events of ``full`` as ``seat`` gets them: every card that only its audience saw is
    sealed for anyone else."""
    where = f"{seat} reading the events of {full.seq} ({full.kind})"
    assert len(events) == len(full.events), where
    for e, ce in zip(full.events, events, strict=True):
        audience = event_audience(e, full)
        if audience is not None and seat not in audience:
            assert hidden(ce.get("card")) and hidden(ce.get("cards")), f"{where}: {ce}"


@pytest.fixture(autouse=True)
def _d21_views(monkeypatch: pytest.MonkeyPatch) -> None:
    """The receipts that ``test_privacy.Watch`` checks are checked by the rules above (D21 piles,
    sealed values in cut records)."""
    monkeypatch.setattr(test_privacy, "check_view", check_view)
    monkeypatch.setattr(test_privacy, "check_events", check_events)


def strangers(http: HttpReferee, game: str) -> list[tuple[str, Browser]]:
    """Browsers that hold no seat at ``game``: no cookie, a mistyped code, another game's
    code, a forged tournament-judge cookie."""
    app = http.app
    nothing = Browser(app)
    typo = Browser(app)
    typo.client.set_cookie(f"hz_{game}", "A" * 22)
    other_game = Browser(app)
    for (g, s), b in http.browsers.items():
        if g != game and s == "judge":
            cookie = b.client.get_cookie(f"hz_{g}")
            assert cookie is not None
            other_game.client.set_cookie(f"hz_{game}", cookie.value)
            break
    forged = Browser(app)
    forged.client.set_cookie("hzjudge", "not-the-judge-code-123")
    return [("public", nothing), ("public", typo), ("public", other_game), ("public", forged)]


def check_reads(http: HttpReferee, game: str, full_logs: bool) -> int:
    """Every seat's (and every stranger's) view, and when ``full_logs`` its log, export and live
    stream, checked against the state. Returns the number of responses checked."""
    st = http.ref.folded(game).state
    readers: list[tuple[str, Browser]] = [(s, http.browser(game, s)) for s in SEATS]
    readers += strangers(http, game)
    n = 0
    full = http.ref.log(game, "judge")
    for seat, b in readers:
        r = b.get(f"/api/v1/games/{game}")
        assert r.status_code == 200
        view = dict(r.json)  # type: ignore[arg-type]
        assert view["seat"] == seat
        view.pop("csrf")
        view.pop("head")
        check_view(st, seat, view)
        n += 1
        if not full_logs:
            continue
        r = b.get(f"/api/v1/games/{game}/log")
        cut = [_record(x) for x in r.json["records"]]  # type: ignore[index]
        assert len(cut) == len(full)
        for f, c in zip(full, cut, strict=True):
            check_record(f, c, seat)
        header, exported = read_lines(b.get(f"/api/v1/games/{game}/export").get_data(as_text=True))
        assert header.seat == seat
        assert exported == cut
        v = verify(header, exported, may_cut=may_cut, key=http.ref.fingerprint())
        assert v.ok, v.problem
        text = b.get(f"/api/v1/games/{game}/stream").get_data(as_text=True)
        heads = sse_events(text)
        assert heads and all(set(h) == {"seq", "hash"} for h in heads), text
        assert heads[-1] == {"seq": full[-1].seq, "hash": full[-1].hash}
        n += 3
    return n


def _record(x: Any) -> Record:
    return Record.from_json(x)


def wrong_seats(http: HttpReferee, t: Table, rng: random.Random) -> int:
    """A legal action sent from the wrong seat, from the public, and with a stale If-Match: each
    refused with a message that names no hidden card, and nothing recorded."""
    st = t.service
    legal = http.ref.view(t.game, "judge").get("legal")
    if st.phase is not Phase.PLAY or not legal:
        return 0
    action = rng.choice(legal)
    before = len(http.ref.log(t.game, "judge"))
    other = st.player.other.key
    n = 0
    for seat, headers, status in (
        (other, {}, 403),
        ("public", {}, 403),
        (st.player.key, {"If-Match": f'"{t.seq - 1}"'}, 409),
    ):
        r = http.browser(t.game, seat).post(
            f"/api/v1/games/{t.game}/actions", {"action": action}, game=t.game, headers=headers
        )
        assert r.status_code == status, r.data
        text = r.get_data(as_text=True)
        for name in hidden_names(st, seat):
            assert not re.search(rf"\b{name}\b", text), f"{seat} was told {name!r}: {text}"
        assert len(http.ref.log(t.game, "judge")) == before
        n += 1
    return n


def play_over_http(seed: int) -> int:
    rng = random.Random(seed)
    app = make_app(SSE_SECONDS=0.02)
    http = HttpReferee(app)
    w = Watch(http)  # type: ignore[arg-type]
    t = Table(
        http,  # type: ignore[arg-type]
        rng,
        profile=rng.choice(["rio-grande", "kosmos", "translations"]),
        unknown_draw=rng.choice([0.0, 0.3]),
        unscanned_play=0.5,
        omit=0.3,
        observe=0.1,
        on_receipt=w.receipt,
        on_asked=w.asked,
    )
    w.table = t
    # a second game, so that a judge cookie of another game can be tried on this one
    http.create_game(game=f"other{seed}")
    t.setup()
    checked = check_reads(http, t.game, True)
    steps = 0
    while not t.over:
        if rng.random() < 0.1:
            checked += wrong_seats(http, t, rng)
        if not t.step():
            break
        steps += 1
        checked += check_reads(http, t.game, steps % 25 == 0)
    checked += check_reads(http, t.game, True)
    judge = http.browser(t.game, "judge")
    r = judge.post(
        f"/api/v1/games/{t.game}/undo",
        {"to": rng.randrange(1, t.seq + 1), "reason": "replayed from the last agreed position"},
        game=t.game,
    )
    assert r.status_code == 201, r.data
    checked += check_reads(http, t.game, True)
    assert http.ref.folded(t.game).state.phase in (Phase.PLAY, Phase.OVER)
    return checked + w.checks + http.responses


def test_no_http_reader_sees_a_hidden_card_of_another_seat() -> None:
    total = 0
    for seed in range(GAMES):
        try:
            total += play_over_http(seed)
        except AssertionError as e:
            e.add_note(f"random game seed {seed} (through HTTP)")
            raise
    assert total > 2000


def test_a_revoked_link_reads_as_the_public() -> None:
    app = make_app()
    http = HttpReferee(app)
    created = http.create_game()
    g = created.game
    hera, judge = http.browser(g, "hera"), http.browser(g, "judge")
    assert hera.get(f"/api/v1/games/{g}").json["seat"] == "hera"  # type: ignore[index]
    r = judge.post(f"/api/v1/games/{g}/seats/hera/reissue", game=g)
    assert r.status_code == 200, r.data
    assert r.json["code"] != created.codes["hera"]  # type: ignore[index]
    r = hera.get(f"/api/v1/games/{g}")
    assert r.json["seat"] == "public"  # type: ignore[index]
    assert all(c == "?" for c in r.json["hera"]["hand"])  # type: ignore[index]
    assert hera.join(g, created.codes["hera"]).status_code == 404  # the old link opens nothing
