"""The guardian for Hera & Zeus (issue 37, D8): before an action that would leave the player
unable to use his remaining action points (he would lose at once), the referee warns him and
names the legal actions that avoid it, from the table as he sees it.

The positions are Hera's stuck field of the D8 rules tests (``test_rules_turn.py``): every
column full or nearly, every front card one that never challenges.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import pos, position
from service_helpers import Table, make_referee
from web_helpers import Browser, make_app

from engine.herazeus import (
    EndReason,
    GameState,
    Phase,
    Player,
    apply,
    can_use_a_point,
    legal_actions,
    read_position,
)
from engine.herazeus.actions import (
    Challenge,
    Draw,
    God,
    PegasusField,
    PegasusHand,
    parse_action_text,
)
from referee.herazeus.game import HERA_ZEUS, project
from referee.models import Caution
from referee.service import Referee
from web.cli import main

STUCK_FIELD = [
    ["Medusa", "Furies", "Furies", "Furies"],
    ["Pandora", "Harpy", "Harpy", "Harpy"],
    ["Medusa", "Hydra", "Hydra", "Hydra"],
]
ROOM_FOR_ONE = [STUCK_FIELD[0][:3], STUCK_FIELD[1], STUCK_FIELD[2]]  # column 1 holds one more


def god_or_card_position(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "profile": "kosmos",
        "hera_field": ROOM_FOR_ONE,
        "hera_hand": ["Hera", "Furies"],
        "hera_deck": 0,
        "ap": 3,
        "used": 2,
        "zeus_discard": ["Medusa"],
    }
    return position(**(base | kw))


def god_or_card(**kw: Any) -> GameState:
    """Kosmos (the figure leaves only by a Pegasus, D4): one point left, Hera holds her god card
    and a Furies, her deck is empty. The god card (free) makes the turn's total 4 (D7) and fills
    column 1, where the Furies could have gone: two points she cannot use (D8). The Furies in
    column 1 uses her last point."""
    return read_position(god_or_card_position(**kw))


def warnings(st: GameState, text: str, seat: str = "hera") -> tuple[Caution, ...]:
    return HERA_ZEUS.guard(project(st, seat), parse_action_text(text), seat)


def test_the_god_card_that_leaves_points_unusable_is_warned_with_the_way_out() -> None:
    st = god_or_card()
    out = apply(st, God(1))
    assert (out.state.winner, out.state.reason) == (Player.ZEUS, EndReason.CANNOT_USE_AP)
    (warned,) = warnings(st, "god 1")
    assert warned.rule == "D8" and "lose at once" in warned.text
    assert warned.alternatives and all(a.startswith("play") for a in warned.alternatives)
    for text in warned.alternatives:  # every way out named is legal and does not lose by D8
        after = apply(st, parse_action_text(text)).state
        assert after.reason is not EndReason.CANNOT_USE_AP


def test_an_action_that_leaves_a_way_to_use_the_points_is_not_warned() -> None:
    st = god_or_card()
    for a in legal_actions(st):
        if not isinstance(a, God):
            assert warnings(st, a.text()) == (), a.text()


def test_a_draw_is_never_warned_of_he_enters_it_with_the_card_in_his_hand() -> None:
    # his deck holds one Sirens, useless against Zeus's Medusa on top of the pile: the draw
    # leaves him stuck (test_rules_turn's D8 case), but he names the card once he holds it
    st = pos(hera_field=STUCK_FIELD, hera_deck=["Sirens"], zeus_discard=["Medusa"])
    assert apply(st, Draw()).state.reason is EndReason.CANNOT_USE_AP
    assert warnings(st, "draw") == ()
    assert warnings(st, "draw Sirens") == ()


def test_no_warning_for_the_opponent_the_judge_or_before_play() -> None:
    st = god_or_card()
    assert warnings(st, "god 1", "zeus") == ()
    assert warnings(st, "god 1", "judge") == ()
    assert warnings(st, "god 1", "public") == ()


def test_a_card_hidden_from_him_counts_as_usable_so_nothing_is_warned() -> None:
    # the same dead end, but the referee does not know the card he would draw: in his view it
    # may be one he can use (D8 as the referee rules it), so the guardian says nothing
    st = pos(hera_field=STUCK_FIELD, hera_deck=["?"], zeus_discard=["Medusa"])
    assert warnings(st, "draw") == ()


# ---- referee rule ------------------------------------------------------------------------------


def test_referee_rule_warns_of_the_dead_end_without_changing_the_ruling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "god.json"
    acts = [parse_action_text(t).to_json() for t in ("god 1", "play Furies 1")]
    path.write_text(json.dumps({**god_or_card_position(), "actions": acts}))
    assert main(["rule", "--json", str(path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["winner"], result["reason"]) == ("zeus", "cannot_use_ap")  # as before
    (warned,) = result["warnings"]
    assert warned["action"] == 0 and warned["rule"] == "D8" and warned["alternatives"]
    assert main(["rule", str(path)]) == 0
    assert "Guardian, before action 1: This would leave you unable" in capsys.readouterr().out
    acts = [parse_action_text("play Furies 1").to_json()]
    path.write_text(json.dumps({**god_or_card_position(), "actions": acts}))
    assert main(["rule", "--json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["warnings"] == []


# ---- the game where he is warned, takes the way out and plays on (issue 37, "done when") -----

SEED, STEPS = 6, 208  # a seeded game of the simulated table that reaches the dead end below
QUIET = 0.9  # its players seldom challenge, so the fields fill up


def quiet_game() -> Table[Referee]:
    """The seeded game, played from the seats (each card named as it is drawn) up to the moment
    Hera could put a Medusa in front of column 1: her last challenger's place."""
    rng = random.Random(SEED)
    t = Table(make_referee(seed=SEED), rng)
    t.setup()
    for _ in range(STEPS):
        acts = legal_actions(t.truth)
        quiet = [a for a in acts if not isinstance(a, Challenge | PegasusHand | PegasusField)]
        t.play(rng.choice(quiet if quiet and rng.random() < QUIET else acts))
    return t


def test_warned_on_the_seat_page_he_takes_the_way_out_and_does_not_lose_by_d8() -> None:
    t = quiet_game()
    ref, g = t.ref, t.game
    seat = t.service.player.key
    blunder = "play Medusa 1.1"
    loses = apply(t.truth, parse_action_text(blunder)).state
    assert (loses.winner, loses.reason) == (t.truth.player.other, EndReason.CANNOT_USE_AP)
    app = make_app(ref)
    b = Browser(app)
    assert b.join(g, t.codes[seat]).status_code == 303

    def csrf() -> str:
        m = re.search(r'name="csrf" value="([^"]+)"', b.get(f"/g/{g}").data.decode())
        assert m is not None
        return m.group(1)

    seq = ref.folded(g).last_seq
    r = b.client.post(f"/g/{g}/act", data={"csrf": csrf(), "action": blunder})
    page = r.data.decode()
    assert r.status_code == 200 and ref.folded(g).last_seq == seq  # asked; nothing recorded
    assert "[D8]" in page and "lose at once" in page
    ways = re.findall(r'name="action" value="([^"]+)"', page)
    assert "play Medusa 1.2" in ways and blunder not in ways
    r = b.client.post(f"/g/{g}/act", data={"csrf": csrf(), "action": "play Medusa 1.2"})
    assert r.status_code == 303  # the way out is not warned of: it is recorded at once
    st = ref.folded(g).state
    assert st.phase is Phase.PLAY and st.winner is None and st.reason is None
    assert st.player.key == seat and (st.used == st.ap or can_use_a_point(st))  # he plays on
