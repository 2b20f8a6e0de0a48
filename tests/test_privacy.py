"""No seat ever sees what its player could not see at the table (PRODUCT.md; STYLE 6).

Random games are played through the service from the players' own seats (seeded), with real
card names, unscanned cards, questions the referee asks (D20), observations, wrong inputs that
become irregularities, and judge corrections. After every step each seat's view, and at the end
each seat's log and export, are checked against what is *hidden* from that seat. "Hidden" is
defined here from the table, independently of ``referee/views.py``:

- the opponent's hand and face-down field cards: only their backs (``?``, or ``?/hera`` for a
  card of Hera's deck) may be shown;
- the card a player draws, plays face down, or takes back with Hades, and the cards he records
  at setup (deal, hostage redraw, first row): only that player;
- the hand Pythia's spy shows: only the two players;
- a discard pile: its top and height to everyone, the whole pile to its owner (D21);
- an observation of a face-down or hand card: only its owner; whether it identified a card
  or contradicted the record: never the opponent;
- irregularities, the judge's reasons and notes: only the judge; a call's note: only the
  caller and the judge; an idempotency key: only the seat that sent it;
- refusals and questions name no hidden card.

A value hidden from a seat is not deleted from its copy of a record but replaced by a salted
commitment (``{"$sealed": hex}``), which tells nothing about it; "hidden" below means that.
"""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import Mapping
from typing import Any

import pytest
from service_helpers import SIGNER, Table, header, make_referee

from engine import GameState, Player, legal_actions
from engine.actions import Challenge, PegasusHand, parse_action_text
from engine.cards import Card, Kind
from referee.herazeus import may_cut
from referee.log import Record, is_sealed_marker, read_lines, verify
from referee.service import (
    Forbidden,
    NeedsInput,
    Receipt,
    Referee,
    Refused,
    ServiceError,
    Stale,
)

SEATS = ("hera", "zeus", "public")
BACK = re.compile(r"^\?(/(hera|zeus))?$")
GAMES = 40


# ---- what is hidden from whom ------------------------------------------------------------------


def is_hidden(d: Mapping[str, Any], key: str) -> bool:
    """Whether ``d`` (part of a cut record) does not show its value at ``key``."""
    return key not in d or is_sealed_marker(d[key])


def back(c: Card, holder: Player) -> str:
    """The back of a card tells its deck and nothing else."""
    return "?" if c.origin is holder else f"?/{c.origin.key}"


def check_view(st: GameState, seat: str, view: Mapping[str, Any]) -> None:
    """``view`` (for ``seat``) shows the state ``st`` with only what the seat may see."""
    assert view["seat"] == seat
    for holder in Player:
        side, shown = st.sides[holder], view[holder.key]
        own = seat in ("judge", holder.key)
        assert shown["hand_size"] == len(side.hand) == len(shown["hand"])
        for c, entry in zip(side.hand, shown["hand"], strict=True):
            want = c.notation(holder) if own else back(c, holder)
            assert entry == want, f"{seat} sees {holder.key}'s hand card as {entry!r}"
            if not own:
                assert BACK.match(entry)
        # D21: tops and heights for everyone, the whole pile for its owner and the judge
        pile = [c.notation(holder) for c in side.discard]
        assert shown["discard_top"] == (pile[-1] if pile else None)
        assert shown["discard_height"] == len(pile)
        if own:
            assert shown["discard"] == pile
        else:
            assert "discard" not in shown, f"{seat} looks through {holder.key}'s pile"
        for col, cells in zip(side.field, shown["field"], strict=True):
            assert len(col) == len(cells)
            for s, cell in zip(col, cells, strict=True):
                if s.card is None:
                    assert cell == "@"
                elif s.up:
                    assert cell == "^" + s.card.notation(holder)
                elif own:
                    assert cell == s.card.notation(holder)
                else:
                    assert cell == back(s.card, holder), f"{seat} sees a face-down {cell!r}"
    if seat != "judge":
        assert "irregularities" not in view and "broken" not in view
        for text in view.get("legal", []):
            a = parse_action_text(text)
            # a Pegasus draws blind from the opponent's hand: no pick is offered by name
            assert not (isinstance(a, PegasusHand) and a.pick), f"{seat} is offered {text!r}"


def event_audience(e: Mapping[str, Any], record: Record) -> set[str] | None:
    """The seats that may read an event's card at the table; None for everyone."""
    kind, owner = e.get("kind"), str(e.get("player"))
    do = record.body.get("action", {}).get("do") if record.kind == "action" else None
    audience: set[str] | None = None
    # drawn: deck -> hand; played: face down; taken by Hades: without showing it (D14)
    if kind in ("drawn", "played") or (kind == "taken" and do == "hades"):
        audience = {owner}
    elif kind == "shown":  # Pythia's spy (D12)
        audience = {owner, str(e.get("to"))}
    elif kind == "identified" and e.get("from") == "hand":
        audience = {owner}
    if e.get("public") is False:  # the engine's own word can only narrow it
        engine = {owner, str(e["to"])} if kind == "shown" else {owner}
        audience = engine if audience is None else audience & engine
    return audience


def check_record(full: Record, cut: Record, seat: str) -> None:
    """``cut`` (the record as ``seat`` reads it) carries nothing hidden from ``seat``."""
    assert (cut.game, cut.seq, cut.kind, cut.prev, cut.hash) == (
        full.game,
        full.seq,
        full.kind,
        full.prev,
        full.hash,
    )
    where = f"{seat} reading event {full.seq} ({full.kind})"
    body, cbody = full.body, cut.body
    if full.kind in ("action", "amend"):
        a, ca = body["action"], cbody["action"]
        do, actor = a["do"], body.get("actor")
        if seat != actor:
            if do in ("draw", "play", "hades"):
                assert is_hidden(ca, "card"), where
            if do == "redraw" and a["player"] != seat:
                assert is_hidden(ca, "card"), where
            if do in ("deal", "first_row") and a["player"] != seat:
                assert is_hidden(ca, "cards") or all(x == "?" for x in ca["cards"]), where
        if do == "pythia" and a.get("mode") == "spy" and seat == "public":
            assert is_hidden(ca, "reveal") or not ca["reveal"].get("hand"), where
        if full.kind == "amend":
            assert is_hidden(cbody, "reason"), where  # the judge's reason is hers
    elif full.kind == "observation":
        if not body.get("face_up") and body.get("player") != seat:
            assert is_hidden(cbody, "card") and is_hidden(cbody, "identifies"), where
        assert is_hidden(cbody, "irregularity"), where  # for the judge (D20)
    elif full.kind == "irregularity":
        assert all(is_sealed_marker(v) for v in cbody.values()), where
        assert not cut.events, where
    elif full.kind == "ask" and full.seat != seat:
        assert is_hidden(cbody, "action"), where  # what the submitter stated so far
    elif full.kind == "undo":
        assert is_hidden(cbody, "reason") and cbody["to"] == body["to"], where
    elif full.kind == "resolve" or (full.kind == "call" and full.seat != seat):
        assert is_hidden(cbody, "note"), where
    if full.key is not None and full.seat != seat:
        assert is_sealed_marker(cut.key), where  # idempotency keys are per seat
    check_events(full, cut.events, seat)
    assert cut.redacted and cut.nonce == "", where  # the nonce would test hidden values
    assert set(cut.cut) == may_cut(full, seat), where


def check_events(full: Record, events: Any, seat: str) -> None:
    """The events of ``full`` as ``seat`` gets them carry no card hidden from it."""
    where = f"{seat} reading the events of {full.seq} ({full.kind})"
    assert len(events) == len(full.events), where
    for e, ce in zip(full.events, events, strict=True):
        assert ce.get("kind") == e.get("kind"), where
        audience = event_audience(e, full)
        if audience is not None and seat not in audience:
            assert is_hidden(ce, "card") and is_hidden(ce, "cards"), f"{where}: {ce}"


def hidden_names(st: GameState, seat: str) -> set[str]:
    """Names of the cards ``seat`` cannot see now and could not learn from what it sees."""
    hidden: set[str] = set()
    seen: set[str] = set()
    for p in Player:
        side = st.sides[p]
        own = seat == p.key
        for c in side.hand:
            (seen if own else hidden).add(c.name)
        for col in side.field:
            for s in col:
                if s.card is not None:
                    (seen if own or s.up else hidden).add(s.card.name)
        seen.update(c.name for c in side.discard)
    # "Hera" and "Zeus" are card names and player names alike: a message says "Hera's turn"
    return hidden - seen - {"?", "Hera", "Zeus"}


def check_message(st: GameState, seat: str, err: ServiceError, said: Any = None) -> None:
    """A refusal or a question given to ``seat`` names no card hidden from it (except what the
    seat itself entered)."""
    mine = set(re.findall(r"[A-Z][a-z]+", str(said))) if said is not None else set()
    text = " ".join(str(x) for x in err.to_json().values())
    for name in hidden_names(st, seat) - mine:
        assert not re.search(rf"\b{name}\b", text), f"{seat} was told {name!r}: {text!r}"


def revealed_by(st: GameState, raw: Any) -> list[str]:
    """Names an action turns face up at the table: a challenge or Pegasus shows both front cards
    of its column (all of it when one is Pandora, D1); Pythia's reveal a whole column."""
    if not isinstance(raw, dict) or "column" not in raw:
        return []
    cols = [st.sides[p].field[raw["column"] - 1] for p in Player]
    fronts = [col[0].card.name for col in cols if col and col[0].card is not None]
    if raw.get("do") == "pythia" or "Pandora" in fronts:
        return [s.card.name for col in cols for s in col if s.card is not None]
    return fronts


# ---- a game under watch --------------------------------------------------------------------


class Watch:
    """Checks every receipt, question and view of one game as it is played."""

    def __init__(self, ref: Referee) -> None:
        self.ref = ref
        self.table: Table | None = None
        self.checks = 0

    @property
    def game(self) -> str:
        assert self.table is not None
        return self.table.game

    def state(self) -> GameState:
        return self.ref.folded(self.game).state

    def receipt(self, seat: str, r: Receipt) -> None:
        check_view(self.state(), seat, r.view)
        full = self.ref.log(self.game, "judge", r.seq)[-1]
        if seat != "judge":
            check_events(full, r.events, seat)
        self.checks += 1

    def asked(self, seat: str, e: NeedsInput, said: Any) -> None:
        st = self.state()
        check_message(st, seat, e, [said, *revealed_by(st, said)])

    def views(self) -> None:
        st = self.state()
        for seat in (*SEATS, "judge"):
            check_view(st, seat, self.ref.view(self.game, seat))
            self.checks += 1

    def logs(self) -> None:
        full = self.ref.log(self.game, "judge")
        assert verify(header(self.game), full, key=SIGNER.fingerprint).ok
        for seat in SEATS:
            cut = self.ref.log(self.game, seat)
            assert len(cut) == len(full)
            for f, c in zip(full, cut, strict=True):
                check_record(f, c, seat)
                self.checks += 1
            text = self.ref.export(self.game, seat)
            head, exported = read_lines(text)
            assert head == header(self.game, seat) and exported == cut
            for f, c in zip(full, exported, strict=True):
                check_record(f, c, seat)
            assert verify(head, exported, may_cut=may_cut).ok
            assert not verify(head, exported, seat="judge").ok  # not a full log


def unchanged(ref: Referee, game: str, before: tuple[int, GameState], irregularity: bool) -> None:
    """A refusal recorded nothing but, for a contradiction, one irregularity for the judge."""
    n, st = before
    records = ref.log(game, "judge")
    assert ref.folded(game).state == st
    if irregularity:
        assert len(records) == n + 1 and records[-1].kind == "irregularity"
    else:
        assert len(records) == n


def snapshot(ref: Referee, game: str) -> tuple[int, GameState]:
    return len(ref.log(game, "judge")), ref.folded(game).state


def probe(t: Table, rng: random.Random) -> str | None:
    """One wrong input from a seat: it is refused, names nothing hidden, and changes nothing
    (a contradiction of hidden cards becomes an irregularity for the judge). Returns the kind
    of input tried, or None when the position did not allow it."""
    ref, game = t.ref, t.game
    svc = t.service
    p = svc.player
    o = p.other
    actions = legal_actions(t.truth)
    before = snapshot(ref, game)
    kind = rng.choice(["other_seat", "public", "stale", "pick", "challenge", "play", "spy"])
    if kind in ("other_seat", "public") and actions:
        raw = rng.choice(actions).to_json()
        with pytest.raises((Forbidden, Refused)) as info:
            ref.submit(game, o.key if kind == "other_seat" else "public", raw)
        # a seat naming a card hidden from it may be told so first (D22): the same answer
        assert isinstance(info.value, Forbidden) or info.value.rule == "D22"
        check_message(svc, o.key if kind == "other_seat" else "public", info.value)
        unchanged(ref, game, before, False)
        return kind
    elif kind == "stale" and actions:
        with pytest.raises(Stale):
            ref.submit(game, p.key, rng.choice(actions).to_json(), expected_seq=t.seq - 1)
        unchanged(ref, game, before, False)
        return kind
    elif kind == "pick":
        # D22 (changed from the old rule, where an absent pick was an irregularity and a held
        # one went on): a player never names the card drawn from the opponent's hand; every
        # name gets the same refusal, held or not, and nothing is recorded
        if not any(isinstance(a, PegasusHand) for a in actions):
            return None
        if card_in(svc.sides[p].hand, "Pegasus") is None:
            return None
        cat = svc.ruleset.catalogue
        held = sorted({c.name for c in t.truth.sides[o].hand})
        absent = [n for n in cat.names(o) if n not in held]
        answers = set()
        for name in (rng.choice(held), rng.choice(absent)) if absent else held[:2]:
            raw = {"do": "pegasus", "target": "hand", "pick": name, "place": 1}
            with pytest.raises(Refused) as info:
                ref.submit(game, p.key, raw)
            assert info.value.rule == "D22"
            check_message(svc, p.key, info.value, raw)
            answers.add(str(info.value.to_json()))
        assert len(answers) == 1, answers
        unchanged(ref, game, before, False)
        return kind
    elif kind == "challenge":
        # D22 (changed from the old rule, where a wrong name was an irregularity and a right
        # one was applied): a face-down defender is never named by the attacker
        ch = [a for a in actions if isinstance(a, Challenge)]
        if not ch:
            return None
        a = rng.choice(ch)
        ci = a.column - 1
        front = t.truth.sides[o].field[ci][0]
        if front.card is None or front.up:
            return None
        cat = svc.ruleset.catalogue
        wrong = [
            i.name
            for i in cat.cards(o)
            if i.name != front.card.name and (i.strength is not None or i.kind is Kind.HOSTAGE)
        ]
        answers = set()
        for name in (front.card.notation(o), rng.choice(wrong)):
            raw = a.to_json()
            raw["reveal"] = {"defender": name}
            att = svc.sides[p].field[ci][0].card
            if att is not None and att.is_unknown:
                truth_att = t.truth.sides[p].field[ci][0].card
                assert truth_att is not None
                raw["reveal"]["attacker"] = truth_att.notation(p)
            with pytest.raises(Refused) as info:
                ref.submit(game, p.key, raw)
            assert info.value.rule == "D22"
            check_message(svc, p.key, info.value, raw)
            answers.add(str(info.value.to_json()))
        assert len(answers) == 1, answers
        unchanged(ref, game, before, False)
        return kind
    elif kind == "play":
        hand = svc.sides[p].hand
        if any(c.is_unknown for c in hand) or svc.used >= svc.ap:
            return None
        cat = svc.ruleset.catalogue
        absent = [
            i.name
            for i in cat.cards(p)
            if i.strength is not None and all(c.name != i.name for c in hand)
        ]
        col = next((i for i, c in enumerate(svc.sides[p].field) if len(c) < 4), None)
        if not absent or col is None:
            return None
        raw = {"do": "play", "card": rng.choice(absent), "column": col + 1}
        with pytest.raises(Refused) as info:
            ref.submit(game, p.key, raw)
        check_message(svc, p.key, info.value, raw)
        unchanged(ref, game, before, False)
        return kind
    elif kind == "spy":
        if card_in(svc.sides[p].hand, "Pythia") is None or svc.used >= svc.ap:
            return None
        if any(c.is_unknown for c in svc.sides[o].hand):
            return None
        raw = {"do": "pythia", "mode": "spy", "reveal": {"hand": ["Pegasus"]}}
        with pytest.raises(Refused) as info:  # the hand is shown by its owner (D22)
            ref.submit(game, p.key, raw)
        assert info.value.rule == "D22"
        check_message(svc, p.key, info.value, raw)
        unchanged(ref, game, before, False)
        return kind
    return None


def card_in(hand: tuple[Card, ...], name: str) -> Card | None:
    return next((c for c in hand if c.name == name), None)


def wrong_observation(t: Table, rng: random.Random) -> None:
    """An observation that contradicts a recorded card: logged, raised to the judge only, and
    history stays as it was (D20)."""
    svc = t.service
    p = rng.choice(list(Player))
    places = [
        (ci, pi, s.card)
        for ci, col in enumerate(svc.sides[p].field)
        for pi, s in enumerate(col)
        if s.card is not None and not s.card.is_unknown and not s.up
    ]
    if not places:
        return
    ci, pi, c = rng.choice(places)
    other = next(i.name for i in svc.ruleset.catalogue.cards(p) if i.name != c.name and i.strength)
    before = snapshot(t.ref, t.game)
    t.observe(
        rng.choice([p.key, "judge"]),
        {
            "player": p.key,
            "zone": "field",
            "column": ci + 1,
            "position": pi + 1,
            "card": other,
        },
    )
    records = t.records()
    assert [r.kind for r in records[before[0] :]] == ["observation"]  # one record (one call)
    assert records[-1].body["irregularity"]["rule"] == "D20"
    assert t.ref.folded(t.game).state == before[1]


def corrections(t: Table, rng: random.Random) -> None:
    """The judge amends a drawn card's identity and undoes to an earlier event."""
    ref, game = t.ref, t.game
    records = t.records()
    draws = [
        r
        for r in records
        if r.kind == "action" and r.body["action"]["do"] == "draw" and "card" in r.body["action"]
    ]
    if draws:
        r = rng.choice(draws)
        p = Player.parse(r.body["actor"])
        names = [i.name for i in ref.folded(game).rules.catalogue.cards(p)]
        raw = dict(r.body["action"], card=rng.choice(names))
        with contextlib.suppress(Refused):  # the new card may not be legal there
            ref.amend(game, "judge", r.seq, raw, "the card was scanned wrongly")
    ref.undo(game, "judge", rng.randrange(1, t.seq + 1), "replayed from the last agreed position")


def play_watched(seed: int, kinds: set[str], probes: set[str | None], asked: set[str]) -> None:
    """One random game through the service, every view, receipt, question and log checked."""
    rng = random.Random(seed)
    ref = make_referee(seed=seed)
    w = Watch(ref)
    t = Table(
        ref,
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
    t.setup()
    w.views()
    while not t.over:
        if rng.random() < 0.15:
            probes.add(probe(t, rng))
        if rng.random() < 0.03:
            wrong_observation(t, rng)
        if not t.step():
            break
        w.views()
    asked.update(e.needs for e in t.asked_log)
    w.logs()
    corrections(t, rng)
    w.views()
    w.logs()
    for r in t.records():
        if r.kind == "action":
            a = r.body["action"]
            kinds.add(" ".join(str(a[k]) for k in ("do", "target", "mode") if k in a))
    assert w.checks > 100


def test_no_seat_sees_what_its_player_could_not_see() -> None:
    kinds: set[str] = set()
    probes: set[str | None] = set()
    asked: set[str] = set()
    for seed in range(GAMES):
        try:
            play_watched(seed, kinds, probes, asked)
        except AssertionError as e:
            e.add_note(f"random game seed {seed}")
            raise
    # the games did exercise the hidden-card actions, the questions and the wrong inputs
    assert {"draw", "play", "deal", "redraw", "first_row", "pegasus hand", "pythia spy"} <= kinds
    assert {"hades", "sirens", "challenge", "pegasus field", "pythia reveal"} <= kinds
    assert {"pick", "place", "reveal.attacker", "reveal.defender", "reveal.hand"} <= asked
    assert {"other_seat", "public", "stale", "pick", "challenge", "play"} <= probes, probes
