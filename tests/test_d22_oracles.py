"""No seat can learn a card hidden from it by asking the referee (D22; issue 6, section 1).

The property, over many random tables: take a reachable position, and an opponent's card the
player to move cannot see (in the opponent's hand, or face down on his field) that the referee
does not know yet. Make twin referees from there that differ only in what that card is: the
opponent scans it as X at one table and as Y at the other (and, third twin, does not scan it).
Then every reply the player gets — refusals (message and rule), questions, receipts, his view,
his legal list — is the same byte for byte at both tables, whatever card he names, and his
copy of the log and his export are the same record for record.

Hashes, signatures and the commitments that stand for sealed values (``{"$sealed": hex}``)
are the one place where twins differ: each commits to the hidden value with a secret salt, so
it tells nothing about it; they are blanked before comparing. Replies that the rules let depend
on the card — an action that turns it face up at the table — are not compared.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest
from service_helpers import Table, fork, make_referee
from test_service import ZEUS_HAND, first_turns, new_game

from engine import Player
from engine.actions import parse_action_text
from engine.cards import Kind
from engine.state import Phase
from referee.log import SEALED, is_sealed_marker, read_lines
from referee.service import NeedsInput, Referee, Refused, ServiceError

GAMES = 16  # random tables; each gives a few positions (about 15 s in all)
BLANK = "·"


# ---- comparing what a seat is told --------------------------------------------------------


def blank(x: Any) -> Any:
    """``x`` with hashes, signatures and commitments blanked (they differ between twins by
    construction and tell nothing about the value they stand for)."""
    if isinstance(x, dict):
        if is_sealed_marker(x):
            return {SEALED: BLANK}
        return {
            k: BLANK if k in ("hash", "prev", "sig") and isinstance(v, str) else blank(v)
            for k, v in x.items()
        }
    if isinstance(x, list | tuple):
        return [blank(v) for v in x]
    return x


def said(x: Any) -> str:
    """What a seat is told, as bytes to compare."""
    return json.dumps(blank(x), sort_keys=True, ensure_ascii=False)


def reply(call: Callable[[], Any]) -> str:
    """The reply to one call: its result, or the refusal it raised (type, message, rule)."""
    try:
        out = call()
    except ServiceError as e:
        return said(e.to_json())
    return said(out.to_json() if hasattr(out, "to_json") else out)


def log_of(ref: Referee, game: str, seat: str) -> list[str]:
    return [said(r.to_json()) for r in ref.log(game, seat)]


# ---- the twins --------------------------------------------------------------------------------


@dataclass
class Secret:
    """An opponent's card the player cannot see and the referee does not know yet."""

    owner: Player
    zone: str  # hand | field
    column: int = 0
    position: int = 0

    def observation(self, name: str) -> dict[str, Any]:
        obs: dict[str, Any] = {"player": self.owner.key, "zone": self.zone, "card": name}
        if self.zone == "field":
            obs.update(column=self.column, position=self.position)
        return obs


def secrets_of(ref: Referee, game: str, owner: Player) -> list[Secret]:
    side = ref.folded(game).state.sides[owner]
    out = [Secret(owner, "hand")] if any(c.is_unknown for c in side.hand) else []
    for ci, col in enumerate(side.field):
        for pi, s in enumerate(col):
            if s.card is not None and s.card.is_unknown and not s.up:
                out.append(Secret(owner, "field", ci + 1, pi + 1))
    return out


def scanned_as(ref: Referee, game: str, secret: Secret, name: str, seed: int) -> Referee | None:
    """A twin of the table where the owner scans the secret card as ``name``; None when that
    card could not be there (the referee refuses the scan)."""
    twin = fork(ref, game, seed)
    try:
        twin.observe(game, secret.owner.key, secret.observation(name))
    except ServiceError:
        return None
    return twin


def possible_names(ref: Referee, game: str, secret: Secret) -> list[str]:
    cat = ref.folded(game).rules.catalogue
    names = []
    for info in cat.cards(secret.owner):
        if secret.zone == "field" and info.strength is None and info.kind is not Kind.HOSTAGE:
            continue
        names.append(info.name)
    return names


# ---- what the player tries ------------------------------------------------------------------


def face_down_fronts(ref: Referee, game: str, seat: str) -> list[int]:
    """The columns whose opponent's front card ``seat`` sees face down (a back: ``?``)."""
    opp = Player.parse(seat).other.key
    field = ref.view(game, seat)[opp]["field"]
    return [i + 1 for i, col in enumerate(field) if col and col[0].startswith("?")]


def naming_probes(names: list[str], columns: list[int]) -> list[dict[str, Any]]:
    """Submissions that name a card hidden from the player (the opponent's hand, the face-down
    fronts of ``columns``, any card Pythia turns over): D22 refuses each the same way."""
    out: list[dict[str, Any]] = []
    for n in names:
        out.append({"do": "pegasus", "target": "hand", "pick": n})
        out.append({"do": "pegasus", "target": "hand", "pick": n, "place": 1})
        out.append({"do": "pythia", "mode": "spy", "reveal": {"hand": [n]}})
        for c in (1, 2, 3):
            out.append({"do": "pythia", "mode": "reveal", "column": c, "reveal": {"cards": [n]}})
        for c in columns:
            out.append({"do": "challenge", "column": c, "reveal": {"defender": n}})
            out.append({"do": "pegasus", "target": "field", "column": c, "reveal": {"target": n}})
    return out


def touches(raw: dict[str, Any], secret: Secret) -> bool:
    """Whether an action turns the secret card face up at the table (or may: a Pandora in a
    challenged column shows all of it, D1), so that the rules let the reply depend on it."""
    if secret.zone == "hand":
        return False
    return raw.get("column") == secret.column and raw.get("do") != "play"


def probe_twins(
    twins: list[Referee], game: str, seat: str, secret: Secret, names: list[str]
) -> int:
    """Submits the same inputs from ``seat`` at every twin and compares every reply. Returns
    the number of replies compared."""
    n = 0

    def same(what: str, call: Callable[[Referee], Any]) -> None:
        nonlocal n
        got = [reply(partial(call, t)) for t in twins]
        assert len(set(got)) == 1, f"{what}: the replies differ:\n" + "\n".join(got)
        n += 1

    def view(t: Referee) -> Any:
        return t.view(game, seat)

    def submit(raw: dict[str, Any]) -> Callable[[Referee], Any]:
        return lambda t: t.submit(game, seat, raw)

    same("view", view)
    for raw in naming_probes(names, face_down_fronts(twins[0], game, seat)):
        before = twins[0].folded(game).last_seq
        same(json.dumps(raw), submit(raw))
        assert twins[0].folded(game).last_seq == before, f"{raw} was recorded"
    start = twins[0].folded(game).last_seq
    for text in twins[0].view(game, seat).get("legal", []):
        raw = parse_action_text(text).to_json()
        if touches(raw, secret):
            continue
        same(text, submit(raw))
        same(f"view after {text}", view)
        for t in twins:  # back to the position under test, at every twin alike
            if t.folded(game).last_seq != start:
                t.undo(game, "judge", start, "probe: back to the position under test")
    return n


@dataclass
class Sample:
    ref: Referee
    game: str
    seat: str  # the player to move
    secret: Secret


def positions(seed: int, rng: random.Random) -> Iterator[Sample]:
    """Random reachable positions of one table, the player to move to probe, and a card of
    the opponent he cannot see and the referee does not know (both players leave many cards
    unscanned)."""
    ref = make_referee(seed=seed)
    t = Table(
        ref,
        rng,
        profile=rng.choice(["rio-grande", "kosmos", "translations"]),
        blind=("hera", "zeus"),
        omit=0.3,
        game=f"oracle{seed}",
    )
    t.setup()
    taken = 0
    while t.step() and taken < 3:
        f = ref.folded(t.game)
        if f.state.phase is not Phase.PLAY or f.question is not None or rng.random() > 0.25:
            continue
        mover = f.state.player
        secrets = secrets_of(ref, t.game, mover.other)
        if secrets:
            taken += 1
            yield Sample(ref, t.game, mover.key, rng.choice(secrets))


def test_no_reply_depends_on_a_card_hidden_from_the_player() -> None:
    compared = samples = 0
    zones: set[str] = set()
    for seed in range(GAMES):
        rng = random.Random(seed)
        for s in positions(seed, rng):
            names = possible_names(s.ref, s.game, s.secret)
            rng.shuffle(names)
            twins = []
            for name in names:
                twin = scanned_as(s.ref, s.game, s.secret, name, seed)
                if twin is not None:
                    twins.append(twin)
                if len(twins) == 2:
                    break
            if len(twins) < 2:
                continue
            try:
                compared += probe_twins(twins, s.game, s.seat, s.secret, names)
                logs = [log_of(t, s.game, s.seat) for t in twins]
                assert logs[0] == logs[1], "the player's copies of the log differ"
                exports = [read_lines(t.export(s.game, s.seat)) for t in twins]
                assert [said([r.to_json() for r in e[1]]) for e in exports] == [
                    said([r.to_json() for r in exports[0][1]])
                ] * 2
                assert exports[0][0] == exports[1][0]
                public = [log_of(t, s.game, "public") for t in twins]
                assert public[0] == public[1], "the public's copies of the log differ"
            except AssertionError as e:
                e.add_note(f"seed {seed}, {s.seat} to move, opponent's card {s.secret}")
                raise
            samples += 1
            zones.add(s.secret.zone)
    assert samples >= 30 and compared > 5_000, (samples, compared)
    assert zones == {"hand", "field"}


def test_a_scan_of_the_opponents_cards_changes_no_refusal_and_no_legal_list() -> None:
    """Scanned or not, the opponent's cards give the player the same D22 refusals and the same
    legal list ("pegasus hand" is offered by the same rule), and no refusal counts the
    opponent's unknown cards."""
    samples = 0
    for seed in range(GAMES // 2):
        rng = random.Random(1000 + seed)
        for s in positions(1000 + seed, rng):
            names = possible_names(s.ref, s.game, s.secret)
            scanned = None
            for name in rng.sample(names, len(names)):
                scanned = scanned_as(s.ref, s.game, s.secret, name, seed)
                if scanned is not None:
                    break
            if scanned is None:
                continue
            unscanned = fork(s.ref, s.game, seed)
            for raw in naming_probes(names, face_down_fronts(unscanned, s.game, s.seat)):
                a = reply(partial(scanned.submit, s.game, s.seat, raw))
                b = reply(partial(unscanned.submit, s.game, s.seat, raw))
                assert a == b, (seed, raw, a, b)
                assert json.loads(a)["rule"] == "D22"
            legal = [t.view(s.game, s.seat).get("legal") for t in (scanned, unscanned)]
            assert legal[0] == legal[1], (seed, legal)
            samples += 1
    assert samples >= 10


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
    held = set(ref.view(g, "zeus")["zeus"]["hand"])
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
    assert "asked" not in ref.view(g, "zeus") and "waiting" not in ref.view(g, "hera")
    assert "Cyclops" in json.dumps(ref.view(g, "hera"))  # turned face up at the table


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
    assert ref.view(g, "zeus")["asked"]["needs"] == "pick"
    assert "asked" not in ref.view(g, "public")
    with pytest.raises(Refused):  # Hera cannot answer for Zeus
        ref.submit(g, "hera", {"do": "pegasus", "target": "hand", "pick": "Apollo"})
    with pytest.raises(ServiceError):
        ref.answer(g, "hera", "Apollo")
    with pytest.raises(NeedsInput) as info:  # Zeus states the card drawn
        ref.answer(g, "zeus", "Apollo")
    assert (info.value.needs, info.value.asked) == ("place", ("hera",))
    assert ref.view(g, "hera")["asked"]["pick"] == "Apollo"  # both saw it come out
    with pytest.raises(ServiceError):  # the column is Hera's choice, not Zeus's
        ref.answer(g, "zeus", 3)
    receipt = ref.answer(g, "hera", 3)
    rec = ref.log(g, "judge")[receipt.seq]
    assert rec.kind == "action" and rec.body["actor"] == "hera"
    assert rec.body["action"] == {"do": "pegasus", "target": "hand", "pick": "Apollo", "place": 3}
    assert ref.view(g, "zeus")["zeus"]["field"][2][0] == "^Apollo"
    assert "asked" not in ref.view(g, "hera") and "asked" not in ref.view(g, "zeus")


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
    assert len(ref.log(g, "judge")) == n and not ref.view(g, "judge")["irregularities"]
    assert ref.view(g, "hera")["asked"]["needs"] == "place"
    ref.answer(g, "hera", 2)
    assert ref.view(g, "hera")["zeus"]["field"][1][0] == "^Apollo"


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
    assert "asked" not in ref.view(g, "zeus")
    ref.submit(g, "hera", {"do": "draw", "card": "Hades"})


def test_the_legal_list_offers_pegasus_hand_whether_or_not_the_hand_was_scanned() -> None:
    lists = []
    for zeus in (ZEUS_HAND, ["?"] * 9):
        ref = make_referee()
        g = new_game(ref, zeus=zeus)
        first_turns(ref, g, hera=["Pythia", "Medusa", "Pegasus"])
        lists.append(ref.view(g, "hera")["legal"])
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
        told.append(
            (said(info.value.to_json()), said(ref.view(g, "hera")["asked"]), said(ask.body))
        )
        assert is_sealed_marker(ask.body["detail"])
        assert ref.view(g, "zeus")["asked"]["reason"] == ref.log(g, "judge")[-1].body["detail"]
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
    assert len(ref.view(g, "judge")["irregularities"]) == 1


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
    undo = ref.undo(g, "judge", drew, "Hera's phone double-tapped: secret note 1").seq
    drew = ref.submit(g, "hera", {"do": "draw", "card": "Hades"}).seq
    amend = ref.amend(g, "judge", drew, {"do": "draw", "card": "Dionysus"}, "secret note 2").seq
    for seat in ("hera", "zeus", "public"):
        log = ref.log(g, seat)
        assert log[undo].body["to"] == drew - 2  # "judge correction: undo to event N"
        assert is_sealed_marker(log[undo].body["reason"])
        assert is_sealed_marker(log[amend].body["reason"]) and log[amend].body["event"] == drew
        assert "secret note" not in ref.export(g, seat)
    assert ref.log(g, "judge")[undo].body["reason"].endswith("secret note 1")
    assert "secret note 2" in ref.export(g, "judge")
