"""Discard piles are seen as at the table (D21; issue 6, section 2).

Everyone sees each pile's top card and its height; only its owner looks through it (and the
judge). After Hades takes a card back from the pile, the opponent's view says the pile is one
card lower and what is on top now, never which card left; nor does his copy of the log.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from service_helpers import Table, make_referee
from test_service import first_turns, new_game

from engine.herazeus import Player
from referee.log import is_sealed_marker

GAMES = 30


def pile(view: Mapping[str, Any], holder: str) -> tuple[Any, Any, Any]:
    side = view[holder]
    return side["discard_top"], side["discard_height"], side.get("discard")


def test_each_seat_sees_the_piles_as_at_the_table() -> None:
    ref = make_referee()
    g = new_game(ref)
    first_turns(ref, g, hera=["Pythia", "Medusa", "Pandora"], zeus=["Hero", "Hero", "Argus"])
    ref.submit(g, "hera", {"do": "challenge", "column": 2})  # Harpy (4) against Giant (4)
    truth = ref.folded(g).state
    for holder in Player:
        names = [c.notation(holder) for c in truth.sides[holder].discard]
        assert names, "both piles have cards"
        for seat in ("hera", "zeus", "public", "judge"):
            top, height, whole = pile(ref.view(g, seat).to_json(), holder.key)
            assert (top, height) == (names[-1], len(names))  # tops and heights: everyone
            if seat in (holder.key, "judge"):
                assert whole == names  # the own pile in full; the judge sees all
            else:
                assert whole is None  # never the opponent's pile (nor the public's)


def test_an_empty_pile_has_no_top() -> None:
    ref = make_referee()
    g = new_game(ref)
    for seat in ("hera", "zeus", "public"):
        assert pile(ref.view(g, seat).to_json(), "zeus")[:2] == (None, 0)


def test_after_hades_no_view_or_copy_says_which_card_left() -> None:
    """Over many random tables: after every Hades, the opponent (and the public) see the pile's
    new top and height only; the card taken is sealed in their copies of the record."""
    plays = 0
    for seed in range(GAMES):
        rng = random.Random(seed)
        ref = make_referee(seed=seed)
        t = Table(ref, rng, unknown_draw=0.2, game=f"d21-{seed}")
        t.setup()
        while t.step():
            pass
        full = ref.log(t.game, "judge")
        hades = {
            r.seq: str(r.body["actor"])
            for r in full
            if r.kind in ("action", "amend") and r.body["action"]["do"] == "hades"
        }
        if not hades:
            continue
        states = {}
        f = ref.folded(t.game)
        for seq in hades:
            states[seq] = f.state_at(seq)
        for seat in ("hera", "zeus", "public"):
            steps = ref.replay(t.game, seat)
            for seq, actor in hades.items():
                record, view = steps[seq]["record"], steps[seq]["view"]
                taken = record["body"]["action"].get("card")
                truth = [
                    c.notation(Player.parse(actor))
                    for c in states[seq].sides[Player.parse(actor)].discard
                ]
                top, height, whole = pile(view.to_json(), actor)
                assert (top, height) == (truth[-1] if truth else None, len(truth))
                if seat == actor:
                    assert whole == truth and not is_sealed_marker(taken)
                    continue
                assert whole is None, f"seed {seed}: {seat} looks through {actor}'s pile"
                assert taken is None or is_sealed_marker(taken), f"seed {seed}: {taken}"
                for e in record["events"]:
                    if e.get("kind") == "taken":
                        assert "card" not in e or is_sealed_marker(e["card"]), e
                plays += 1
    assert plays >= 100, plays
