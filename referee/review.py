"""The review's questions to the service (issue 37): which pictures a seat may study a game
through, which actions were open at an event, and "what if" a different action had been played
there. Nothing here writes: the record is read, never changed.

What a seat may see is decided here, not by the page:

- the judge studies any game through any seat's eyes or his own;
- a player studies his own seat's view; once the game is over, the other seats' too when the
  game was created with its hands public after the end (``"hands": "public"`` in the create
  record: the organiser's choice, private by default);
- the public studies the public view, and the players' ones on the same terms.

The open actions and the "what if" are worked out from what the seat that asks may know: the
judge's from the whole table, a player's from the table projected for him (the game module's
``project``), and only once the game is over (during a game they would be an outside aid); a
"what if" that needs a card hidden from him is refused as a question the tool cannot answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.say import Say
from referee.errors import Forbidden, Refused
from referee.fold import Folded, fold, step
from referee.judging import rule_on
from referee.models import Ruling
from referee.reader import Reader
from referee.reading import Reading
from referee.validate import InputError, integer, mapping
from referee.views import JUDGE

PUBLIC = "public"


def hands_public(create: Mapping[str, Any]) -> bool:
    """Whether a game's hands become public once it is over (its create record says so)."""
    return create.get("hands") == "public"


class Reviewing:
    """The review's reads: views a seat may choose, open actions, "what if"."""

    def __init__(self, reader: Reader, reading: Reading) -> None:
        self.reader = reader
        self.reading = reading

    def review_views(self, game: str, seat: str) -> list[str]:
        """The seats whose view ``seat`` may study ``game`` through, its own first."""
        self.reading.seat_of(game, seat)
        f = self.reader.folded(game)
        players = list(f.module.players)
        if seat == JUDGE:
            return [JUDGE, *players]
        over = f.module.summary(f.state).phase == "over"
        others = [p for p in players if p != seat] if over and hands_public(f.create) else []
        return [seat, *others]

    def may_study(self, game: str, seat: str) -> bool:
        """Whether ``seat`` is given the open actions and "what if": the judge always, a
        player once the game is over, the public never."""
        self.reading.seat_of(game, seat)
        if seat == JUDGE:
            return True
        f = self.reader.folded(game)
        return seat in f.module.players and f.module.summary(f.state).phase == "over"

    def _after(self, game: str, at: int) -> Folded:
        """The game as it stood right after event ``at`` (its log read up to there, as the
        replay steps through it: an action later taken back is still in effect)."""
        f0 = self.reader.folded(game)
        if not 0 <= at <= f0.last_seq:
            raise Refused(
                Say("no event %(event)s (the log ends at %(last)s)", event=at, last=f0.last_seq)
            )
        records = self.reader.verified(game, f0, upto=at)
        f = fold(records[:1])
        for r in records[1:]:
            step(f, r)
        return f

    def _checked(self, game: str, seat: str, at: Any) -> int:
        self.reading.seat_of(game, seat)
        try:
            return integer(at, "at", 0, 10**9)
        except InputError as e:
            raise Refused(str(e)) from None

    def open_actions(self, game: str, seat: str, at: int) -> dict[str, list[str]]:
        """The legal actions open right after event ``at``, by player (none while a question
        or a broken record holds the game): every player's for the judge; for a player, his
        own, the list his seat page gave him then. Raises Forbidden for a seat that may not
        study the game (:meth:`may_study`)."""
        at = self._checked(game, seat, at)
        if not self.may_study(game, seat):
            raise Forbidden(Say("the open actions are for the judge, and a player after the end"))
        f = self._after(game, at)
        if f.broken is not None or f.question is not None:
            return {}
        who = list(f.module.players) if seat == JUDGE else [seat]
        out: dict[str, list[str]] = {}
        for p in who:
            can = f.legal_for(p)
            if can:
                out[p] = list(can)
        return out

    def what_if(
        self, game: str, seat: str, raw: Mapping[str, Any], at: int, lang: str = "en"
    ) -> Ruling[Any]:
        """The ruling on ``raw`` played instead, right after event ``at``: on the whole table
        for the judge, on the table as a player knew it for him. Nothing is written. Raises
        Forbidden (:meth:`may_study`), Refused (a position not in play, an action that does
        not read, or one that needs a value hidden from the seat, with its rule)."""
        at = self._checked(game, seat, at)
        if not self.may_study(game, seat):
            raise Forbidden(Say("'what if' is for the judge, and a player after the end"))
        try:
            action_raw = dict(mapping(raw, "action"))
        except InputError as e:
            raise Refused(str(e)) from None
        f = self._after(game, at)
        return rule_on(f.module, f.state, action_raw, lang, seat)
