"""The guardian (issue 37): before a player confirms an action, the referee tells him what it
would cost him, from what he himself may know, and names the legal actions that avoid it.

- Minotaur Lords: passing into the supremacy phase or ending the turn while no card has left his
  hand (M4: he will discard one), an action that empties his own deck (M2).
- Hera & Zeus: an action that leaves him unable to use his remaining action points (D8): see
  ``test_guardian_herazeus.py`` for the game where he is warned, takes the way out and plays on.
- A strict table (the organiser's switch, or a strict event) has no guardian, and off means
  off: its replies are byte for byte those of a table where no warning was ever computed.
- The seat page asks before it submits a warned action (plain forms), and ``referee rule``
  says the same (``warnings`` in the JSON, a line in the text).

That no warning depends on a card hidden from the player is the twin-table property
(``privacy_property.probe_twins``, ``test_minotaur_privacy``, ``test_game_contract``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from event_helpers import new_event, tiny_events
from privacy_property import HttpDriver, ServiceDriver, blank_text, no_reply_depends_on_hidden
from service_helpers import make_referee
from test_minotaur_privacy import _new_game, _probe, _twins
from web_helpers import Browser, make_app, new_game, referee_of

from engine.minotaur.cards import parse_deck_list
from referee.game import AnyGame
from referee.games import GAMES
from referee.models import Caution
from referee.service import Referee
from web.cli import main

TESTS = Path(__file__).resolve().parent
DECKS = (TESTS / "data" / "minotaur" / "decks.csv").read_text()
MIRON = [c.name for c in parse_deck_list(DECKS) if c.deck == "miron"]
RULINGS = TESTS / "data" / "minotaur" / "rulings"
PASS_ON = {"do": "pass", "to": "supremacy"}


def minotaur_table(ref: Referee, **kw: Any) -> str:
    """A Minotaur Lords game, Miron first, who has stated his six dealt cards."""
    g = ref.create_game(name="minotaur", options={"deck_list": DECKS, "first": "miron"}, **kw).game
    ref.submit(g, "miron", {"do": "hand", "cards": MIRON[:6], "by": "miron"})
    return g


# ---- Minotaur Lords: M4, M2 -------------------------------------------------------------------


def test_passing_into_supremacy_with_no_card_out_of_the_hand_warns_of_the_discard() -> None:
    ref = make_referee()
    g = minotaur_table(ref)
    (warned,) = ref.guard(g, "miron", PASS_ON)
    assert warned.rule == "M4" and "discard one" in warned.text
    ways = [json.loads(a) for a in warned.alternatives]
    assert ways and {w["do"] for w in ways} <= {"play", "change_hand"}
    assert ref.folded(g).last_seq == ref.folded(g).last_seq  # nothing recorded by asking
    ref.submit(g, "miron", ways[0])  # he takes a way out: a card leaves his hand
    assert ref.folded(g).state.turn.left_hand or ref.folded(g).state.turn.player == "vess"


def test_once_the_discard_is_due_whatever_he_does_nothing_more_is_said() -> None:
    ref = make_referee()
    g = minotaur_table(ref)
    ref.submit(g, "miron", PASS_ON)  # past the warning: no card can be played any more
    assert ref.guard(g, "miron", {"do": "end_turn", "discard": MIRON[0]}) == []


def test_no_warning_once_a_card_has_left_the_hand() -> None:
    ref = make_referee()
    g = minotaur_table(ref)
    (warned,) = ref.guard(g, "miron", PASS_ON)
    play = next(json.loads(a) for a in warned.alternatives if json.loads(a)["do"] == "play")
    ref.submit(g, "miron", play)
    assert ref.guard(g, "miron", PASS_ON) == []


def test_the_opponent_and_the_judge_are_warned_of_nothing() -> None:
    ref = make_referee()
    g = minotaur_table(ref)
    assert ref.guard(g, "vess", PASS_ON) == []
    assert ref.guard(g, "judge", PASS_ON) == []
    assert ref.guard(g, "public", PASS_ON) == []


def test_an_action_that_empties_his_own_deck_is_warned(capsys: pytest.CaptureFixture[str]) -> None:
    # 04: Miron changes his hand with two cards left in his deck: he draws both (M15), and at
    # the start of Vess's turn Vess wins (M2)
    rc = main(["rule", "--json", str(RULINGS / "04-hand-change-short-deck.json")])
    result = json.loads(capsys.readouterr().out)
    assert rc == 0 and result["legal"] is True  # the ruling itself is unchanged
    (warned,) = result["warnings"]
    assert warned["action"] == 0 and warned["rule"] == "M2"
    assert "empty your own deck" in warned["text"]
    ways = [json.loads(a) for a in warned["alternatives"]]
    assert ways and all(w["do"] != "change_hand" for w in ways)


def test_referee_rule_says_the_warning_in_its_text_and_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(RULINGS / "04-hand-change-short-deck.json")
    assert main(["rule", path]) == 0
    text = capsys.readouterr().out
    assert re.search(r"Guardian, before action 1: This would empty your own deck.*\[M2\]", text)
    assert main(["rule", "--lang", "fr", "--json", path]) == 0
    (warned,) = json.loads(capsys.readouterr().out)["warnings"]
    assert warned["rule"] == "M2" and "pioche" in warned["text"]  # said in French


def test_every_ruling_file_keeps_its_fields_and_adds_only_warnings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for path in sorted(RULINGS.glob("*.json")):
        rc = main(["rule", "--json", str(path)])
        out = capsys.readouterr().out
        if rc == 2:  # an incomplete file (17): refused as before, with no result
            continue
        result = json.loads(out)
        expect = json.loads(path.read_text())["expect"]
        assert isinstance(result["warnings"], list)
        for key in ("legal", "failed_at", "winner", "reason"):
            if key in expect:
                assert result[key] == expect[key], (path.name, key)


# ---- the switch: strict tables and events -----------------------------------------------------


def test_a_strict_table_warns_of_nothing_and_says_so_in_its_create_record() -> None:
    ref = make_referee()
    casual, strict = minotaur_table(ref), minotaur_table(ref, strict=True)
    assert ref.guard(casual, "miron", PASS_ON) != []
    assert ref.guard(strict, "miron", PASS_ON) == []
    assert "guardian" not in ref.log(casual, "judge")[0].body
    assert ref.log(strict, "judge")[0].body["guardian"] is False


@pytest.fixture
def guard_never_called(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every game's ``guard`` replaced by one that notes each call (and warns of nothing)."""
    calls: list[str] = []
    for g in GAMES.values():

        def noted(seen: Any, action: Any, seat: str, g: AnyGame = g) -> tuple[Caution, ...]:
            calls.append(g.name)
            return ()

        monkeypatch.setattr(g, "guard", noted)
    yield calls


def replies(strict: bool) -> tuple[list[str], str]:
    """Every reply Miron gets through the web app while he passes into supremacy, is asked
    nothing or confirms, and ends his turn; blanked of hashes and tokens (the create records
    differ: one says ``"guardian": false``)."""
    app = make_app(make_referee(seed=1))
    ref = referee_of(app)
    created, b = new_game(
        app, name="minotaur", options={"deck_list": DECKS, "first": "miron"}, strict=strict
    )
    g, miron = created.game, b["miron"]
    out = []

    def csrf() -> str:
        m = re.search(r'name="csrf" value="([^"]+)"', miron.get(f"/g/{g}").data.decode())
        assert m is not None
        return m.group(1)

    def post(data: dict[str, Any]) -> None:
        r = miron.client.post(f"/g/{g}/act", data={"csrf": csrf(), **data})
        out.append(f"{r.status_code} {r.headers.get('Location')}\n{r.data.decode()}")
        page = miron.get(f"/g/{g}")
        out.append(f"{page.status_code}\n{page.data.decode()}")

    post({"do": "hand", "cards": MIRON[:6]})
    api = miron.post(f"/api/v1/games/{g}/guard", {"action": PASS_ON}, game=g)
    out.append(f"{api.status_code}\n{api.data.decode()}")
    post({"action": json.dumps(PASS_ON)})
    post({"do": "end_turn", "discard": MIRON[1]})
    out.append(miron.get(f"/api/v1/games/{g}").data.decode())
    return [blank_text(x) for x in out], ref.folded(g).state.turn.player


def test_off_means_off_the_same_replies_as_where_no_warning_was_computed(
    guard_never_called: list[str],
) -> None:
    off, after_off = replies(strict=True)
    assert guard_never_called == []  # at the strict table nothing was computed
    never, after_never = replies(strict=False)  # a casual table whose game computes no warning
    assert guard_never_called  # ... asked, and found nothing to say
    assert after_off == after_never == "vess"  # the turn was played to its end at both
    assert off == never


def test_at_a_casual_table_the_same_moves_meet_the_warning() -> None:
    """The comparison above can fail: with the guardian on, the replies differ."""
    on, after_on = replies(strict=False)
    off, after_off = replies(strict=True)
    assert on != off and (after_on, after_off) == ("miron", "vess")  # asked, not passed on


def test_a_strict_event_makes_strict_tables_and_a_casual_one_casual_tables() -> None:
    with tiny_events() as ev:
        for strict in (True, False):
            eid = new_event(ev, players=2, strict=strict)
            assert ev.get(eid).settings.strict is strict
            ev.pair_next(eid)
            ev.start_round(eid)
            (table,) = ev.get(eid).rounds[0].tables
            create = ev.referee.log(table.games[0], "judge")[0].body
            assert ("guardian" in create) is strict and create.get("guardian", True) is not strict


# ---- the seat page: a confirmation step ------------------------------------------------------


def test_the_seat_page_asks_before_a_warned_action_and_offers_the_ways_out() -> None:
    app = make_app()
    created, b = new_game(app, name="minotaur", options={"deck_list": DECKS, "first": "miron"})
    g, ref, miron = created.game, referee_of(app), b["miron"]

    def csrf() -> str:
        m = re.search(r'name="csrf" value="([^"]+)"', miron.get(f"/g/{g}").data.decode())
        assert m is not None
        return m.group(1)

    miron.client.post(f"/g/{g}/act", data={"csrf": csrf(), "do": "hand", "cards": MIRON[:6]})
    seq = ref.folded(g).last_seq
    r = miron.client.post(f"/g/{g}/act", data={"csrf": csrf(), "action": json.dumps(PASS_ON)})
    page = r.data.decode()
    assert r.status_code == 200 and ref.folded(g).last_seq == seq  # asked, nothing recorded
    assert 'role="alert"' in page and "[M4]" in page and "No card has left your hand" in page
    ways = re.findall(r'name="action" value="([^"]+)"', page)
    assert ways and all(
        json.loads(w.replace("&#34;", '"'))["do"] in ("play", "change_hand") for w in ways
    )
    confirm = re.search(r'name="confirmed" value="([^"]+)"', page)
    assert confirm is not None and "<script" not in page.split("<main>")[1]
    r = miron.client.post(
        f"/g/{g}/act",
        data={"csrf": csrf(), "confirmed": confirm.group(1).replace("&#34;", '"')},
    )
    assert r.status_code == 303 and ref.folded(g).state.turn.phase.value == "supremacy"


def test_the_confirmation_page_speaks_the_seats_language() -> None:
    app = make_app()
    created, b = new_game(app, name="minotaur", options={"deck_list": DECKS, "first": "miron"})
    g, miron = created.game, b["miron"]
    page = miron.get(f"/g/{g}").data.decode()
    m = re.search(r'name="csrf" value="([^"]+)"', page)
    assert m is not None
    miron.client.post(f"/g/{g}/act", data={"csrf": m.group(1), "do": "hand", "cards": MIRON[:6]})
    r = miron.client.post(
        f"/g/{g}/act",
        data={"csrf": m.group(1), "action": json.dumps(PASS_ON)},
        headers={"Accept-Language": "de"},
    )
    page = r.data.decode()
    assert r.status_code == 200 and "[M4]" in page and "No card has left" not in page


# ---- the tests' own game ---------------------------------------------------------------------


def test_the_tests_game_warns_from_its_players_own_hand() -> None:
    from games.tiny.game import TINY, State

    st = State(phase="play", hands=(("1", "4", "6"), (None, None, None)), slots=(None, "?"))
    (warned,) = TINY.guard(st, TINY.parse_action({"do": "play", "card": "1"}, "a"), "east")
    assert warned.rule == "T3" and warned.alternatives == [
        '{"do":"play","card":"4"}',
        '{"do":"play","card":"6"}',
    ]
    assert TINY.guard(st, TINY.parse_action({"do": "play", "card": "4"}, "a"), "east") == ()


# ---- the twin-table property covers the warnings ---------------------------------------------


class LeakyGuardian(ServiceDriver):
    """A referee whose guardian tells the player to move the opponent's hand as the judge sees
    it: the twin tables must catch it."""

    def guard(self, game: str, seat: str, raw: Mapping[str, Any]) -> list[dict[str, Any]]:
        judge = self.ref.view(game, "judge").to_json()
        hands = {p: judge[p]["hand"] for p in ("hera", "zeus") if p != seat}
        return [*super().guard(game, seat, raw), {"rule": "leak", "text": json.dumps(hands)}]


def test_the_twin_tables_catch_a_guardian_that_leaks() -> None:
    with pytest.raises(AssertionError, match="warnings for"):
        no_reply_depends_on_hidden(LeakyGuardian.new, 1)


@pytest.mark.parametrize("driver", [ServiceDriver, HttpDriver], ids=["service", "http"])
def test_minotaur_twins_compare_the_warnings_themselves(
    driver: type[ServiceDriver] | type[HttpDriver],
) -> None:
    """Miron's first turn, his hand stated: passing on is warned of (M4), at twins that differ
    in a card of Vess's hand, with the same words and the same ways out."""
    d = driver.new(0)
    game = _new_game(d, "miron")
    d.submit(game, "miron", {"do": "hand", "cards": MIRON[:6], "by": "miron"})
    twins, names = _twins(d, game, "vess", random.Random(0), 0)
    assert len(twins) >= 2
    assert _probe(twins, game, "miron", names).warned >= 1


def test_the_api_creates_a_strict_table_whose_guard_says_nothing() -> None:
    app = make_app()
    ref = referee_of(app)
    out = {}
    for strict in (False, True):
        body = {"game_module": "minotaur", "deck_list": DECKS, "starting": "miron"}
        r = Browser(app).post("/api/v1/games", {**body, "strict": strict})
        assert r.status_code == 201, r.data
        g, code = r.json["game"], r.json["codes"]["miron"]  # type: ignore[index]
        miron = Browser(app)
        assert miron.join(g, code).status_code == 303
        ref.submit(g, "miron", {"do": "hand", "cards": MIRON[:6], "by": "miron"})
        r = miron.post(f"/api/v1/games/{g}/guard", {"action": PASS_ON}, game=g)
        assert r.status_code == 200
        out[strict] = [w["rule"] for w in r.json["warnings"]]  # type: ignore[index]
    assert out == {False: ["M4"], True: []}
