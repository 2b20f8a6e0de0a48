"""No seat can learn a card hidden from it by asking the referee (D22; issue 6, section 1).

The property, over many random tables, is written once in ``privacy_property`` (part 2, twin
tables) and run here against the service's own methods (``test_web_privacy`` runs it against
the web app): take a reachable position, and an opponent's card the player to move cannot see
that the referee does not know yet; make twin tables from there that differ only in what that
card is (the opponent scans it as X at one table, as Y at the other). Then every reply the
player gets (refusals with message and rule, questions, receipts, his view, his legal list)
is the same byte for byte at both tables, whatever card he names and whatever he plays, his
copy of the log and his export are the same record for record, and so is the public's copy.
Every action aimed at a column is tried on every column (with and without an ``order`` for
the player's own column, right or wrong), and every question it asks of the player himself is
answered each way he might; the player's observations of his own cards and of the opponent's
are compared too (issue 12). An action on the hidden card's own column is judged alike at every
table (the same refusal, the same question put back to him, or recorded at once at all of them,
as the action or as a question that holds the game); what it turns face up may then differ.
Hashes, signatures and the commitments that stand for sealed values (``{"$sealed": hex}``)
differ by construction and are blanked before comparing.

Then the cases one by one.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from privacy_property import (
    ServiceDriver,
    a_scan_changes_no_refusal,
    no_reply_depends_on_hidden,
    said,
)
from service_helpers import make_referee
from test_service import HERA_HAND, ZEUS_HAND, first_turns, new_game

from engine.herazeus import Player
from referee.herazeus.game import hz_board
from referee.log import is_sealed_marker
from referee.service import NeedsInput, Referee, Refused, ServiceError

GAMES = 16  # random tables; each gives a few positions


def test_no_reply_depends_on_a_card_hidden_from_the_player() -> None:
    cover = no_reply_depends_on_hidden(ServiceDriver.new, GAMES)
    assert cover.samples >= 30 and cover.compared.replies > 5_000, cover
    # actions on every column, the hidden card's own included (issue 12): most samples hide
    # a face-down front, what a challenge or a Pegasus turns up
    assert cover.fronts >= 10 and cover.compared.on_the_column >= 100, cover
    assert cover.compared.answers >= 10, cover  # questions asked of the player himself
    assert cover.compared.observations >= 1_000, cover
    assert cover.compared.take_backs >= 30, cover  # his own actions taken back (HZ-P14)
    assert cover.zones == {"hand", "field"}


def test_a_scan_of_the_opponents_cards_changes_no_refusal_and_no_legal_list() -> None:
    """Scanned or not, the opponent's cards give the player the same D22 refusals and the same
    legal list ("pegasus hand" is offered by the same rule), and no refusal counts the
    opponent's unknown cards."""
    assert a_scan_changes_no_refusal(ServiceDriver.new, GAMES // 2) >= 10


# ---- the cases, one by one --------------------------------------------------------------------


@pytest.fixture
def ref() -> Referee:
    return make_referee()


def scanned_table(ref: Referee) -> str:
    """Both hands and first rows scanned; both first turns played with named draws."""
    g = new_game(ref)
    first_turns(ref, g, hera=["Pythia", "Medusa", "Pegasus"], zeus=["Hero", "Hero", "Argus"])
    return g


def test_pegasus_hand_pick_is_refused_the_same_for_every_name(ref: Referee) -> None:
    """The oracle of issue 6: with Zeus's hand scanned, ``pegasus hand pick=X`` told whether
    Zeus held X. Now every name gets one answer (D22) and nothing is recorded."""
    g = scanned_table(ref)
    held = set(hz_board(ref.view(g, "zeus")).zeus["hand"])
    cat = ref.folded(g).rules.catalogue
    names = sorted(
        {i.name for i in cat.cards(Player.ZEUS)} | {i.name for i in cat.cards(Player.HERA)}
    )
    assert held & set(names) and set(names) - held
    n = len(ref.log(g, "judge"))
    for place in (None, 1):
        answers = set()
        for name in names:
            raw: dict[str, Any] = {"do": "pegasus", "target": "hand", "pick": name}
            if place is not None:
                raw["place"] = place
            with pytest.raises(Refused) as info:
                ref.submit(g, "hera", raw)
            assert info.value.rule == "D22"
            answers.add(said(info.value.to_json()))
        assert len(answers) == 1, answers
    assert len(ref.log(g, "judge")) == n


@pytest.mark.parametrize("scanned", [True, False], ids=["scanned", "unscanned"])
def test_a_face_down_defender_named_by_the_attacker_is_refused_the_same(
    ref: Referee, scanned: bool
) -> None:
    """D22: a wrong ``reveal.defender`` was refused and a right one applied ("not X" for
    free); against an unscanned card Hera could name Zeus's card herself. Now both are
    refused alike, and nothing is recorded."""
    zeus_row = ["Cyclops", "Giant", "Centaur"] if scanned else ["?"] * 3
    g = new_game(ref, zeus=ZEUS_HAND if scanned else ["?"] * 9, zeus_row=zeus_row)
    first_turns(ref, g, hera=["Pythia", "Medusa", "Pandora"])
    n = len(ref.log(g, "judge"))
    answers = set()
    for name in ("Cyclops", "Giant", "Argus", "Poseidon", "Hero"):
        with pytest.raises(Refused) as info:
            ref.submit(g, "hera", {"do": "challenge", "column": 1, "reveal": {"defender": name}})
        assert info.value.rule == "D22"
        answers.add(said(info.value.to_json()))
    assert len(answers) == 1 and len(ref.log(g, "judge")) == n


def test_the_referee_reveals_a_face_down_card_it_knows_itself(ref: Referee) -> None:
    """D22: a face-down card scanned when it was played is stated by the referee, asking
    nobody: the challenge is applied at once."""
    g = scanned_table(ref)
    n = len(ref.log(g, "judge"))
    receipt = ref.submit(g, "hera", {"do": "challenge", "column": 1})  # Hydra (5) v Cyclops
    assert receipt.seq == n and ref.log(g, "judge")[-1].kind == "action"
    assert not ref.view(g, "zeus").asked and not ref.view(g, "hera").waiting
    assert "Cyclops" in json.dumps(ref.view(g, "hera").to_json())  # turned face up at the table


def test_pegasus_against_the_hand_follows_the_table(ref: Referee) -> None:
    """Hera says "Pegasus against the hand"; Zeus (the hand's owner) is asked, with a record,
    which card came out; then Hera chooses the column; then the action is recorded."""
    g = scanned_table(ref)
    n = len(ref.log(g, "judge"))
    with pytest.raises(NeedsInput) as info:
        ref.submit(g, "hera", {"do": "pegasus", "target": "hand"})
    e = info.value
    assert (e.needs, e.asked, e.seq) == ("pick", ("zeus",), n)
    ask = ref.log(g, "judge")[-1]
    assert ask.kind == "ask" and ask.body["asked"] == ["zeus"] and ask.body["by"] == "hera"
    assert ref.view(g, "zeus").to_json()["asked"]["needs"] == "pick"
    assert not ref.view(g, "public").asked
    with pytest.raises(Refused):  # Hera cannot answer for Zeus
        ref.submit(g, "hera", {"do": "pegasus", "target": "hand", "pick": "Apollo"})
    with pytest.raises(ServiceError):
        ref.answer(g, "hera", "Apollo")
    with pytest.raises(NeedsInput) as info:  # Zeus states the card drawn
        ref.answer(g, "zeus", "Apollo")
    assert (info.value.needs, info.value.asked) == ("place", ("hera",))
    assert ref.view(g, "hera").to_json()["asked"]["pick"] == "Apollo"  # both saw it come out
    with pytest.raises(ServiceError):  # the column is Hera's choice, not Zeus's
        ref.answer(g, "zeus", 3)
    receipt = ref.answer(g, "hera", 3)
    rec = ref.log(g, "judge")[receipt.seq]
    assert rec.kind == "action" and rec.body["actor"] == "hera"
    assert rec.body["action"] == {"do": "pegasus", "target": "hand", "pick": "Apollo", "place": 3}
    assert hz_board(ref.view(g, "zeus")).zeus["field"][2][0] == "^Apollo"
    assert not ref.view(g, "hera").asked and not ref.view(g, "zeus").asked


def test_a_column_that_cannot_take_the_drawn_card_is_refused_and_the_question_stays(
    ref: Referee,
) -> None:
    """D2: once the card is known, a full column is an ordinary refusal of Hera's choice (its
    fullness is on the table for all to see), not an irregularity; she chooses again."""
    g = new_game(ref)
    for name in ("Pythia", "Medusa", "Pegasus"):
        ref.submit(g, "hera", {"do": "draw", "card": name})
    ref.submit(g, "hera", {"do": "end_turn"})
    for name in ("Poseidon", "Hero", "Pythia"):  # Zeus fills his column 1
        ref.submit(g, "zeus", {"do": "play", "card": name, "column": 1})
    ref.submit(g, "zeus", {"do": "end_turn"})
    with pytest.raises(NeedsInput):
        ref.submit(g, "hera", {"do": "pegasus", "target": "hand"})
    with pytest.raises(NeedsInput):
        ref.answer(g, "zeus", "Apollo")
    n = len(ref.log(g, "judge"))
    with pytest.raises(Refused) as info:
        ref.answer(g, "hera", 1)
    assert info.value.rule == "D2" and "column 1" in info.value.message
    assert len(ref.log(g, "judge")) == n and not ref.view(g, "judge").to_json()["irregularities"]
    assert ref.view(g, "hera").to_json()["asked"]["needs"] == "place"
    ref.answer(g, "hera", 2)
    assert hz_board(ref.view(g, "hera")).zeus["field"][1][0] == "^Apollo"


def test_a_column_before_the_card_is_drawn_is_refused(ref: Referee) -> None:
    """D2: the column is chosen once the drawn card is known."""
    g = scanned_table(ref)
    with pytest.raises(Refused) as info:
        ref.submit(g, "hera", {"do": "pegasus", "target": "hand", "place": 2})
    assert info.value.rule == "D2"


def test_an_open_question_holds_the_game_until_answered_or_withdrawn(ref: Referee) -> None:
    g = scanned_table(ref)
    with pytest.raises(NeedsInput) as info:
        ref.submit(g, "hera", {"do": "pegasus", "target": "hand"})
    for seat, raw in (("hera", {"do": "draw"}), ("zeus", {"do": "draw"})):
        with pytest.raises(ServiceError):
            ref.submit(g, seat, raw)
    asked = info.value.seq
    assert asked is not None
    ref.undo(g, "judge", asked - 1, "Hera changed her mind before Zeus drew")
    assert not ref.view(g, "zeus").asked
    ref.submit(g, "hera", {"do": "draw", "card": "Hades"})


def test_the_legal_list_offers_pegasus_hand_whether_or_not_the_hand_was_scanned() -> None:
    lists = []
    for zeus in (ZEUS_HAND, ["?"] * 9):
        ref = make_referee()
        g = new_game(ref, zeus=zeus)
        first_turns(ref, g, hera=["Pythia", "Medusa", "Pegasus"])
        lists.append(ref.view(g, "hera").to_json()["legal"])
    assert lists[0] == lists[1] and "pegasus hand" in lists[0]


def test_a_question_to_the_opponent_does_not_count_his_unscanned_cards() -> None:
    """Pythia's spy asks Zeus to show his hand; the reason Hera reads (her reply, the log)
    is the same whether the referee knows 2 or none of his cards (D22). Zeus reads the exact
    words."""
    told = []
    for zeus in (["?"] * 9, [*ZEUS_HAND[:2], *["?"] * 7]):
        ref = make_referee()
        g = new_game(ref, zeus=zeus, zeus_row=["?"] * 3)
        first_turns(ref, g, hera=["Pythia", "Medusa", "Pandora"])
        with pytest.raises(NeedsInput) as info:
            ref.submit(g, "hera", {"do": "pythia", "mode": "spy"})
        ask = ref.log(g, "hera")[-1]
        told.append((said(info.value.to_json()), said(ref.view(g, "hera").asked), said(ask.body)))
        assert is_sealed_marker(ask.body["detail"])
        asked = ref.view(g, "zeus").asked
        assert asked and asked["reason"] == ref.log(g, "judge")[-1].body["detail"]
    assert told[0] == told[1]


def test_the_opponents_copy_of_an_observation_does_not_say_what_it_found(ref: Referee) -> None:
    """Identifying an unknown card, contradicting a recorded one (an irregularity, D20) or
    confirming it: Hera's copy shows the same fields, all three sealed."""
    g = new_game(ref, zeus=["Cyclops", *["?"] * 8], zeus_row=["Cyclops", "?", "?"])
    first_turns(ref, g)
    found = {
        "confirms": {"column": 1, "card": "Cyclops"},
        "identifies": {"column": 2, "card": "Giant"},
        "contradicts": {"column": 1, "card": "Hero"},
    }
    shapes = set()
    for what, obs in found.items():
        rec = ref.observe(g, "zeus", {"player": "zeus", "zone": "field", "position": 1, **obs})
        full = ref.log(g, "judge")[rec.seq].body
        assert bool(full["identifies"]) == (what == "identifies")
        assert bool(full["irregularity"]) == (what == "contradicts")
        cut = ref.log(g, "hera")[rec.seq]
        assert all(is_sealed_marker(cut.body[k]) for k in ("card", "identifies", "irregularity"))
        shapes.add((said({k: v for k, v in cut.body.items() if k != "column"}), cut.sealed))
    assert len(shapes) == 1
    assert len(ref.view(g, "judge").to_json()["irregularities"]) == 1


def test_idempotency_keys_are_per_seat_and_cut_from_other_seats(ref: Referee) -> None:
    g = scanned_table(ref)
    r = ref.submit(g, "hera", {"do": "draw", "card": "Hades"}, key="hera-tap-7")
    ref.submit(g, "hera", {"do": "draw", "card": "Hades"}, key="zeus-tap-1")  # same text, Hera
    assert ref.log(g, "hera")[r.seq].key == "hera-tap-7"
    for seat in ("zeus", "public"):
        assert is_sealed_marker(ref.log(g, seat)[r.seq].key)
        text = ref.export(g, seat)
        assert "hera-tap-7" not in text and "zeus-tap-1" not in text
    assert "hera-tap-7" in ref.export(g, "judge")


def test_a_judges_reason_is_shown_to_the_judge_only(ref: Referee) -> None:
    g = scanned_table(ref)
    drew = ref.submit(g, "hera", {"do": "draw", "card": "Hades"}).seq
    undo = ref.undo(g, "judge", drew - 1, "Hera's phone double-tapped: secret note 1").seq
    drew = ref.submit(g, "hera", {"do": "draw", "card": "Hades"}).seq
    amend = ref.amend(g, "judge", drew, {"do": "draw", "card": "Dionysus"}, "secret note 2").seq
    for seat in ("hera", "zeus", "public"):
        log = ref.log(g, seat)
        assert log[undo].body["to"] == drew - 3  # "judge correction: undo to event N"
        assert is_sealed_marker(log[undo].body["reason"])
        assert is_sealed_marker(log[amend].body["reason"]) and log[amend].body["event"] == drew
        assert "secret note" not in ref.export(g, seat)
    assert ref.log(g, "judge")[undo].body["reason"].endswith("secret note 1")
    assert "secret note 2" in ref.export(g, "judge")


# ---- issue 12: no reply depends on a hidden card, questions to oneself included ---------------


def hera_behind_her_front(ref: Referee, zeus_front: str) -> str:
    """Zeus's first row starts with ``zeus_front`` (scanned, face down); Hera's column 1 holds
    her Hydra and, behind it, a card she played unscanned; both first turns are played."""
    zeus = [zeus_front if c == "Cyclops" else c for c in ZEUS_HAND]
    g = new_game(ref, zeus=zeus, zeus_row=[zeus_front, "Giant", "Centaur"])
    ref.submit(g, "hera", {"do": "draw"})  # not scanned
    ref.submit(g, "hera", {"do": "play", "card": "?", "column": 1, "position": 2})
    ref.submit(g, "hera", {"do": "draw", "card": "Pegasus"})
    ref.submit(g, "hera", {"do": "end_turn"})
    for _ in range(3):
        ref.submit(g, "zeus", {"do": "draw"})
    ref.submit(g, "zeus", {"do": "end_turn"})
    return g


ON_THE_FRONT = {
    "challenge": {"do": "challenge", "column": 1},
    "pegasus": {"do": "pegasus", "target": "field", "column": 1},
}


@pytest.mark.parametrize("raw", ON_THE_FRONT.values(), ids=ON_THE_FRONT.keys())
def test_an_action_on_a_face_down_pandora_is_recorded_before_hera_names_her_own_cards(
    raw: dict[str, Any],
) -> None:
    """The Pandora oracle (issue 12, finding 2): with one of Hera's cards unscanned in the
    column, her challenge (or Pegasus) against Zeus's face-down front was put back to her
    unrecorded, as a question to herself, exactly when the front was Pandora; she could then
    draw instead. Now the action is recorded at once at every table, whatever the front is:
    the question D1 raises for her own cards is that record, it holds the game, and only her
    answer (or the judge) settles it."""
    recorded: dict[str, int | None] = {}
    for front in ("Pandora", "Cyclops"):
        ref = make_referee()
        g = hera_behind_her_front(ref, front)
        n = len(ref.log(g, "judge"))
        try:
            recorded[front] = ref.submit(g, "hera", raw).seq
        except NeedsInput as e:
            assert (e.needs, e.asked, e.rule) == ("order.hera", ("hera",), "D20")
            recorded[front] = e.seq
            assert ref.log(g, "judge")[-1].kind == "ask"
            with pytest.raises(Refused) as info:  # committed: she cannot draw instead
                ref.submit(g, "hera", {"do": "draw"})
            assert info.value.rule == "HZ-P11"
            assert ref.view(g, "hera").to_json()["asked"]["needs"] == "order.hera"
            seq = ref.answer(g, "hera", ["Hydra", "Artemis"]).seq
            assert ref.log(g, "judge")[seq].kind == "action"
            discard = hz_board(ref.view(g, "hera")).hera["discard"]
            assert discard[-2:] == ["Hydra", "Artemis"]  # D1: in the order she chose
        assert len(ref.log(g, "judge")) > n
    assert recorded == {"Pandora": n, "Cyclops": n}


@pytest.mark.parametrize("raw", ON_THE_FRONT.values(), ids=ON_THE_FRONT.keys())
def test_a_wrong_order_for_her_own_column_is_judged_alike_whatever_the_front(
    raw: dict[str, Any],
) -> None:
    """Issue 12, finding 2: in a fully scanned game, an ``order.hera`` that does not list her
    column was an irregularity only against Pandora (elsewhere it was never read). A statement
    about her own cards is now checked against her own cards before the front is turned up:
    the same refusal and the same irregularity at every table (D1, D20)."""
    told, irregular = set(), set()
    for front in ("Pandora", "Cyclops", "Medusa"):
        ref = make_referee()
        zeus = [front if c == "Cyclops" else c for c in ZEUS_HAND]
        g = new_game(ref, zeus=zeus, zeus_row=[front, "Giant", "Centaur"])
        first_turns(ref, g, hera=["Pythia", "Medusa", "Pegasus"], zeus=["Hero", "Hero", "Argus"])
        n = len(ref.log(g, "judge"))
        with pytest.raises(Refused) as info:
            ref.submit(g, "hera", {**raw, "order": {"hera": ["Harpy"]}})  # column 1: Hydra
        told.add(said(info.value.to_json()))
        assert len(ref.log(g, "judge")) == n + 1
        judged = ref.view(g, "judge").irregularities or []
        irregular.add(json.dumps(judged[-1]["body"]["problem"]))
        with pytest.raises(Refused) as info:  # the wrong number of cards: a plain refusal
            ref.submit(g, "hera", {**raw, "order": {"hera": ["Hydra", "Hydra"]}})
        told.add(said(info.value.to_json()))
        assert len(ref.log(g, "judge")) == n + 1
    assert len(told) == 2 and len(irregular) == 1, (told, irregular)


OTHER_DECKS_HOSTAGE = [
    ("hera", "Argus/zeus"),
    ("hera", "Pandora/zeus"),
    ("zeus", "Io/hera"),
    ("zeus", "Pandora/hera"),
]


@pytest.mark.parametrize(("observer", "name"), OTHER_DECKS_HOSTAGE)
def test_ones_own_face_down_card_observed_as_the_other_decks_card_is_refused_by_D13_alike(
    observer: str, name: str
) -> None:
    """The copies oracle (issue 12, finding 3): ``Argus/zeus`` for Hera's own unscanned card
    was refused ("all accounted for elsewhere") exactly when Zeus held his Argus, and most
    other cards of Zeus's deck were accepted. The back tells the deck: a card of the other deck
    stands on one's side only if it came by Sirens, face up, and then the referee knows it
    (D13). So it is refused by D13, the same words whoever holds the named card."""
    told = set()
    for holds in (True, False):
        ref = make_referee()
        card, owner = name.split("/")
        zeus_row = (
            ["?", "Giant", "Centaur"] if observer == "zeus" else ["Cyclops", "Giant", "Centaur"]
        )
        hera_row = ["?", "Harpy", "Furies"] if observer == "hera" else ["Hydra", "Harpy", "Furies"]
        hera = ["?" if c == "Hydra" else c for c in HERA_HAND]
        zeus = ["?" if c == "Cyclops" else c for c in ZEUS_HAND]
        g = new_game(ref, hera=hera, zeus=zeus, hera_row=hera_row, zeus_row=zeus_row)
        draws = {"hera": ["Pythia", "Medusa", "Hydra"], "zeus": ["Hero", "Hero", "Apollo"]}
        if holds:  # the named card's owner holds it, scanned, hidden from the observer
            draws[owner][2] = card
        first_turns(ref, g, hera=draws["hera"], zeus=draws["zeus"])
        n = len(ref.log(g, "judge"))
        obs = {"player": observer, "zone": "field", "column": 1, "position": 1, "card": name}
        with pytest.raises(Refused) as info:
            ref.observe(g, observer, obs)
        assert info.value.rule == "D13"
        told.add(said(info.value.to_json()))
        assert len(ref.log(g, "judge")) == n
    assert len(told) == 1, told


def test_every_card_of_the_other_deck_is_refused_for_an_unscanned_card() -> None:
    """D13 for all of them (issue 12 found 39 of 44 accepted): each card of Zeus's deck that
    may stand on the field, for each of Hera's unscanned cards, on the field or in the hand."""
    ref = make_referee()
    hera = ["?" if c in ("Hydra", "Harpy") else c for c in HERA_HAND]
    g = new_game(ref, hera=hera, hera_row=["?", "?", "Furies"])
    first_turns(ref, g, hera=["Pythia", "Medusa"])  # her third draw is not scanned
    cat = ref.folded(g).rules.catalogue
    names = [i.name for i in cat.cards(Player.ZEUS) if i.can_be_played]
    n = len(ref.log(g, "judge"))
    for where in (
        {"zone": "field", "column": 1, "position": 1},
        {"zone": "field", "column": 2, "position": 1},
        {"zone": "hand"},
    ):
        for name in names:
            with pytest.raises(Refused) as info:
                ref.observe(g, "hera", {"player": "hera", "card": f"{name}/zeus", **where})
            assert info.value.rule == "D13", (where, name)
    assert len(ref.log(g, "judge")) == n


def test_copies_are_counted_on_what_the_observer_may_see(ref: Referee) -> None:
    """Issue 12, finding 3: the copy count ran over every card the referee knows, hidden ones
    included. An identity that every copy the observer may see leaves possible is accepted as
    he states it; when the referee knows the last copy among cards hidden from him (Zeus took
    her other Nemesis by Sirens, D13), the record carries a sealed irregularity for the judge,
    and Hera's copy of it and her view are those of an accepted identification (D20, D22)."""
    hera = ["?", "?", *HERA_HAND[2:]]  # Nemesis in hand; Hydra and Harpy unscanned
    zeus = ["Sirens" if c == "Medusa" else c for c in ZEUS_HAND]
    g = new_game(ref, hera=hera, zeus=zeus, hera_row=["?", "?", "Furies"])
    first_turns(ref, g, hera=["Artemis", "Medusa", "Pandora"])
    ref.submit(g, "hera", {"do": "draw", "card": "Nemesis"})  # her second Nemesis
    ref.submit(g, "hera", {"do": "play", "card": "Nemesis", "column": 1, "position": 2})
    ref.submit(g, "hera", {"do": "draw", "card": "Hydra"})
    ref.submit(g, "hera", {"do": "end_turn"})
    # Zeus: Pythia's spy sends Hera's Nemesis to her pile (D12), Sirens takes it (D13)
    ref.submit(g, "zeus", {"do": "pythia", "mode": "spy"})
    ref.submit(g, "zeus", {"do": "sirens"})
    ref.submit(g, "zeus", {"do": "draw", "card": "Apollo"})
    ref.submit(g, "zeus", {"do": "end_turn"})
    assert hz_board(ref.view(g, "zeus")).zeus["hand"].count("Nemesis/hera") == 1
    copies = []
    for column, name in ((2, "Artemis"), (1, "Nemesis")):
        obs = {"player": "hera", "zone": "field", "column": column, "position": 1, "card": name}
        rec = ref.observe(g, "hera", obs)
        assert rec.body["identifies"] is True and is_sealed_marker(rec.body["irregularity"])
        copies.append(said({k: v for k, v in rec.body.items() if k not in ("card", "column")}))
        assert hz_board(ref.view(g, "hera")).hera["field"][column - 1][0] == name
    assert copies[0] == copies[1]
    (irregular,) = ref.view(g, "judge").to_json()["irregularities"]
    assert irregular["body"]["irregularity"]["rule"] == "D20"
    assert "Nemesis" in irregular["body"]["irregularity"]["problem"]
