"""Acting: a seat's submissions (actions, answers to the referee's questions, observations).

The protocol, for any game (the game module decides what its rules say):

- A player never states a value hidden from him (its game's statement rule): a submission that does
  is refused before anything is compared, with one answer whatever it names
  (:meth:`~referee.game.Game.refuse_statement`). The value's holder (or the judge, or a scan)
  is asked instead: the question is a log record (``ask``), so it survives a restart and every
  process sees it.
- A player's submission is judged on the table as he knows it
  (:meth:`~referee.game.Game.project`): a refusal never depends on a value hidden from him.
  Once it passed there, a refusal on the truth can only come from a hidden value: it goes to
  the judge as an irregularity and the player learns nothing from it (the game's
  ``contradiction_rule``).
- A statement that contradicts what is recorded becomes an irregularity for the judge (the
  game's ``contradiction_rule``), inside the same transaction.
- An action that passed the check on the player's projection is committed before he learns
  anything that depends on a hidden value: every question it raises afterwards, to either
  seat, is an ``ask`` record written at once (issue 12). Only a question his own projection
  raises too is put back to him unrecorded.
- An accepted action runs the game's rules twice at most: the check on the player's
  projection, then the apply on the truth, whose outcome the fold reuses.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from engine.say import Say
from referee.errors import Forbidden, NeedsInput, NotFound, Refused, ServiceError, Stale
from referee.fold import Folded
from referee.game import Illegal, Malformed, Missing, NotYours, RuleError
from referee.ledger import Draft, Ledger
from referee.log import Record
from referee.models import Caution, Receipt
from referee.reader import Reader
from referee.reading import Reading, short
from referee.tables import is_guarded
from referee.validate import InputError, idem_key, integer, json_value, mapping, text
from referee.views import redact
from referee.words import needs_words


def refusal(e: RuleError) -> ServiceError:
    """The service's refusal for what a game module raised."""
    if isinstance(e, NotYours):
        return Forbidden(e.reason, e.rule)
    return Refused(e.reason, e.rule)


def either(names: Sequence[str]) -> str:
    """``A`` or ``A or B`` (the "or" said in each language); three names and more are joined by
    an English " or " (no message names more than two seats; zones are codes)."""
    if len(names) == 2:
        return Say("%(first)s or %(second)s", first=names[0], second=names[1])
    return " or ".join(names)


def fill_input(raw: dict[str, Any], path: str, value: Any) -> None:
    """Puts an answer into an action at the dotted path the referee asked for (``reveal.defender``,
    ``order.<seat>``, ``pick``)."""
    parts = path.split(".")
    cur = raw
    for p in parts[:-1]:
        nxt = cur.get(p)
        if not isinstance(nxt, dict):
            nxt = {}
            cur[p] = nxt
        cur = nxt
    cur[parts[-1]] = value


def settled(f: Folded) -> None:
    """Raises Refused while a correction has left the record broken: nothing more is recorded
    on it until the judge settles it (an undo, or an amend of the event that no longer applies).
    """
    if f.broken is not None:
        raise Refused(
            Say(
                "the record is held: after a correction an earlier event no longer applies; the "
                "judge must settle it first (undo, or amend that event)"
            )
        )


class Acting:
    """Submit, answer, observe: every change a seat at the table makes."""

    def __init__(self, ledger: Ledger, reader: Reader, reading: Reading) -> None:
        self.ledger = ledger
        self.reader = reader
        self.reading = reading

    def submit(
        self,
        game: str,
        seat: str,
        raw: Mapping[str, Any],
        *,
        expected_seq: int | None = None,
        key: str | None = None,
    ) -> Receipt:
        """Applies one action for ``seat``. ``expected_seq`` is the last event the client saw;
        ``key`` an idempotency key (per seat). Raises a ServiceError; on any error nothing is
        recorded, except a contradiction (an irregularity for the judge) or a question for
        another seat (NeedsInput with its ``seq``)."""
        self.reading.seat_of(game, seat)
        if seat == "public":
            raise Forbidden(Say("the public seat cannot act"))
        try:
            action_raw = dict(mapping(raw, "action"))
            key = idem_key(key)
            if expected_seq is not None:
                integer(expected_seq, "expected_seq", -1, 10**9)
        except InputError as e:
            raise Refused(str(e)) from None
        with self.ledger.lock(game):
            f = self.reader.folded(game)
            self.reader.refuse_used_key(f, seat, key)
            if expected_seq is not None and expected_seq != f.last_seq:
                raise Stale(
                    Say(
                        "stale: you saw event %(seen)s, the game is at event %(last)s; reload "
                        "and try again",
                        seen=expected_seq,
                        last=f.last_seq,
                    ),
                    seq=f.last_seq,
                )
            settled(f)
            self._refuse_while_asked(f, seat)
            g = f.module
            try:
                action = g.parse_action(action_raw, "action")
                refused = g.refuse_statement(f.state, action, seat)
                if refused is not None:
                    raise refused
                actor = g.actor(f.state, action, seat)
            except RuleError as e:
                raise refusal(e) from None
            player = seat in g.players
            own: str | None = None  # a value the player himself must give first
            if player:
                try:
                    g.check(g.project(f.state, seat), action)
                except Illegal as e:
                    if not e.contradiction:
                        raise refusal(e) from None
                except Missing as e:
                    # the question is asked below, of whoever holds the value; one the player
                    # must answer himself on the table as he knows it is his before anything
                    # is recorded (it depends on nothing hidden from him)
                    if g.asked(e, actor) == (seat,):
                        own = e.needs
                except RuleError as e:
                    raise refusal(e) from None
            return self._resolve(f, seat, seat, action, actor, key, player, own)

    def guard(self, game: str, seat: str, raw: Mapping[str, Any]) -> list[Caution]:
        """The guardian (issue 37): what player ``seat`` should know before he confirms the
        action ``raw`` (the game's ``guard``, given only his projection of the table, so no
        warning depends on a card hidden from him). Empty at a strict table, where nothing
        is computed (:func:`referee.tables.is_guarded`), for the judge and the public, while
        a question holds the game, and for an action he may not submit as it stands: its
        submission gives the refusal. Writes nothing. Raises NotFound, Forbidden (the seat
        check), Refused for what is not an action of the game (at every table alike)."""
        self.reading.seat_of(game, seat)
        f = self.reader.folded(game)
        g = f.module
        try:
            action = g.parse_action(dict(mapping(raw, "action")), "action")
        except InputError as e:
            raise Refused(str(e)) from None
        except RuleError as e:
            raise refusal(e) from None
        if not is_guarded(f.create):
            return []
        if seat not in g.players or f.question is not None:
            return []
        seen = g.project(f.state, seat)
        try:
            if g.refuse_statement(f.state, action, seat) is not None:
                return []
            if g.actor(f.state, action, seat) != seat:
                return []
            g.check(seen, action)
        except RuleError:
            return []
        return list(g.guard(seen, action, seat))

    def _refuse_while_asked(self, f: Folded, seat: str) -> None:
        q = f.question
        if q is None or seat == "judge":
            return
        who = either([str(a).title() for a in q.body.get("asked", [])])
        rule = f.module.hold_rule
        what = needs_words(
            str(q.body.get("needs", "")),
            q.body.get("asked", ()),
            f.module.possessives,
            f.module.needs_phrases,
        )
        raise Refused(
            Say(
                "the referee is waiting for %(who)s to give %(what)s (%(asked_rule)s); nothing "
                "else is recorded until it is answered (%(rule)s)",
                who=who,
                what=what,
                asked_rule=q.body.get("rule"),
                rule=rule,
            ),
            rule,
        )

    def _resolve(
        self,
        f: Folded,
        submitter: str,
        writer: str,
        action: Any,
        actor: str,
        key: str | None,
        projected: bool,
        own: str | None = None,
    ) -> Receipt:
        """Applies ``action`` (by ``submitter``; ``writer`` gave the last part of it) and
        records the outcome: the action, a question, or an irregularity.
        ``projected``: the player's action already passed the check on the table as he knows
        it, so a refusal now could only come from a value hidden from him: it goes to the judge
        as an irregularity and the player learns nothing from it. ``own``: the value the
        player must give himself on that table (its path), if any.

        A question for the submitter himself is put back to him unrecorded only when the table
        as he knows it raised it too (``own``; his own unknown card, say): then it depends on
        nothing hidden from him. Any other question, to either seat, is recorded (an ``ask``
        record carrying the action): the action is committed before the player learns
        anything that depends on a hidden card (the game's ``answered_rule``). A committed action is
        withdrawn only by the judge's correction."""
        g = f.module
        try:
            out = g.apply(f.state, action, asking=True)  # every open choice is asked
        except Missing as e:
            asked = g.asked(e, actor)
            mine = not projected or own == e.needs
            if asked == (writer,) and writer == submitter and mine:
                raise NeedsInput(e.reason, e.rule or "", e.needs, asked) from None
            told = self._told(f, action, submitter, e, asked)
            body = {
                "action": g.action_json(action),
                "actor": actor,
                "by": submitter,
                "needs": e.needs,
                "asked": list(asked),
                "rule": e.rule,
                "reason": told,
                "detail": e.reason,  # the exact words: for the seat asked alone
            }
            recs, _ = self.ledger.write_on(f, [Draft(writer, "ask", body, (), key)])
            # the seat asked reads the exact words, here as in his view
            said = e.reason if asked == (submitter,) else told
            raise NeedsInput(said, e.rule or "", e.needs, asked, recs[0].seq) from None
        except Illegal as e:
            if e.contradiction or (projected and submitter in g.players):
                # a statement that contradicts the record; the judge settles it
                body = {
                    "source": "input",
                    "action": g.action_json(action),
                    "rule": e.rule,
                    "problem": e.reason,
                }
                self.ledger.write_on(f, [Draft(writer, "irregularity", body)])
                raise Refused(
                    Say(
                        "this does not match what the referee recorded; the judge has been "
                        "called to settle it"
                    ),
                    g.contradiction_rule,
                ) from None
            raise refusal(e) from None
        except RuleError as e:
            raise refusal(e) from None
        body = {"action": g.action_json(action), "actor": actor}
        recs, after = self.ledger.write_on(
            f, [Draft(writer, "action", body, out.events, key, outcome=out)]
        )
        rec = recs[0]
        return Receipt(
            seq=rec.seq,
            events=[dict(ev) for ev in redact(rec, writer, g).events],
            view=self.reading.seat_view(after, writer),
            rules=list(out.rules),
            notes=list(out.notes),
        )

    @staticmethod
    def _told(f: Folded, action: Any, seat: str, e: Missing, asked: tuple[str, ...]) -> str:
        """Why a question is asked, as player ``seat`` (who started the action) may read it:
        the game's words on the table as he knows it, so they count no value hidden from
        him (the words on the truth may say how many of the opponent's cards are known)."""
        g = f.module
        if seat in g.players:
            try:
                g.apply(g.project(f.state, seat), action, asking=True)
            except Missing as pe:
                if pe.needs == e.needs:
                    return pe.reason
            except RuleError:
                pass
            who = either([a.title() for a in asked])
            what = needs_words(e.needs, asked, g.possessives, g.needs_phrases)
            return Say("%(who)s must give %(what)s", who=who, what=what)  # shown with its rule
        return e.reason

    def answer(self, game: str, seat: str, value: Any, *, key: str | None = None) -> Receipt:
        """Gives the value the open question waits for (an identity or a choice) and applies
        the action on behalf of the seat that started it. The receipt is cut for ``seat`` (the
        one answering). When the action then needs another value, a new question is recorded.
        Raises NotFound when nothing waits on ``seat``."""
        self.reading.seat_of(game, seat)
        try:
            json_value(value, "value", depth=3)
            key = idem_key(key)
        except InputError as e:
            raise Refused(str(e)) from None
        with self.ledger.lock(game):
            f = self.reader.folded(game)
            q = f.question
            if q is None or (seat not in q.body.get("asked", ()) and seat != "judge"):
                raise NotFound(Say("nothing is waiting for this seat's input"))
            self.reader.refuse_used_key(f, seat, key)
            raw = json.loads(json.dumps(q.body["action"]))
            fill_input(raw, str(q.body["needs"]), value)
            try:
                action = f.module.parse_action(raw, "action")
            except Malformed as e:
                raise Refused(e.reason) from None
            actor = str(q.body.get("actor"))
            return self._resolve(f, str(q.body.get("by")), seat, action, actor, key, False)

    def observe(self, game: str, seat: str, obs: Mapping[str, Any]) -> Record:
        """Records what a scan or a person saw: ``{"player", "zone" (one of the game's
        ``zones``), "column", "position", "card", "source"}``, and returns the record as
        ``seat`` may read it. An unknown card is identified by it; a card recorded as another
        raises an irregularity for the judge inside the same record, and history stays as it
        was (the game's ``contradiction_rule``). Only a card's holder or the judge reports a
        card hidden from others; what could not be there is refused, as the game decides."""
        return self.observe_all(game, seat, [obs])[0]

    def observe_all(
        self, game: str, seat: str, observations: Sequence[Mapping[str, Any]]
    ) -> list[Record]:
        """Records several observations (the cards of one photo) all or nothing: each is judged
        as :meth:`observe` judges it, on the table the ones before it leave, and they are
        written in one transaction only when none is refused. Raises Refused (or Forbidden)
        naming the refused card and what was not recorded; then nothing is written."""
        self.reading.seat_of(game, seat)
        if seat == "public":
            raise Forbidden(Say("the public seat cannot report observations"))
        if not isinstance(observations, Sequence) or isinstance(observations, str | bytes):
            raise Refused(Say("observations: must be a list"))
        if not 1 <= len(observations) <= MAX_OBSERVATIONS:
            raise Refused(
                Say(
                    "observations: 1 to %(max)s, not %(given)s",
                    max=MAX_OBSERVATIONS,
                    given=len(observations),
                )
            )
        with self.ledger.lock(game):
            f = self.reader.folded(game)
            try:
                checked = [_observation(o, f.module.zones) for o in observations]
            except InputError as e:
                raise Refused(str(e)) from None
            settled(f)
            state = f.state
            drafts = []
            for i, obs in enumerate(checked):
                try:
                    seen = f.module.observe(state, seat, obs)
                    if seen.patch is not None and i + 1 < len(checked):
                        state = f.module.apply_patch(state, seen.patch)
                except RuleError as e:
                    err = refusal(e)  # Refused or Forbidden: (message, rule)
                    if len(checked) > 1:
                        err = type(err)(
                            Say(
                                "%(card)s: %(reason)s; none of the %(num)s cards was recorded",
                                card=short(obs.get("card")),
                                reason=err.message,
                                num=len(checked),
                            ),
                            err.rule,
                        )
                    raise err from None
                drafts.append(Draft(seat, "observation", seen.body))
            recs, _ = self.ledger.write_on(f, drafts)
            return [redact(r, seat, f.module) for r in recs]


MAX_OBSERVATIONS = 60  # cards in one confirmation (a photo holds at most a deck's worth)


def _observation(obs: Any, zones: Sequence[str]) -> dict[str, Any]:
    """An observation's fields, checked for their types and its zone for one of the game's
    ``zones`` (the game judges the rest). Raises InputError naming the field."""
    obs = mapping(obs, "observation")
    allowed = {"player", "zone", "column", "position", "card", "source"}
    extra = sorted(set(obs) - allowed)
    if extra:
        raise InputError(Say("observation: unknown field %(field)s", field=repr(extra[0][:20])))
    text(obs.get("player"), "observation.player", max_len=10)
    if obs.get("zone") not in zones:
        raise InputError(
            Say(
                "observation.zone: must be %(zones)s",
                zones=either([repr(z) for z in zones]),
            )
        )
    text(obs.get("card"), "observation.card", max_len=40)
    source = text(obs.get("source", "manual"), "observation.source", max_len=20)
    return {**obs, "source": source}
