"""Tiny Duel as a page module (:class:`web.games.PageModule`), registered only in the tests.
Its templates are its blueprint's (``templates/tiny/``), so the app finds them without a
file in ``web/templates``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from flask import Blueprint

from games.tiny.game import NAME, PLAYERS, RULES, TINY, TITLE
from referee.log import Record
from referee.models import SeatView, TableRow
from referee.service import Referee
from web.errors import NoKit
from web.games import CreateRequest, Unreadable, given_options, templates_in

bp = Blueprint("tiny", __name__, template_folder=str(Path(__file__).parent / "templates"))
SVG_CSS = ".tiny-table text { font: 14px sans-serif; }"


def label(raw: Mapping[str, Any]) -> str:
    if raw.get("do") == "deal":
        return f"I was dealt {', '.join(raw.get('cards') or [])}"
    return f"Play {raw.get('card')} face down"


class TinyPages:
    """The pages of Tiny Duel."""

    name = NAME
    title = TITLE
    players: tuple[str, ...] = PLAYERS
    templates: Mapping[str, str] = templates_in("tiny")
    svg_css = SVG_CSS
    stylesheets: tuple[str, ...] = ()

    def seat_title(self, seat: str) -> str:
        return seat.title()

    def blueprints(self) -> Sequence[Blueprint]:
        return (bp,)

    def table_svg(
        self, view: Mapping[str, Any], *, seat: str, tappable: bool = True, side: str | None = None
    ) -> str:
        return (
            '<svg class="tiny-table" role="img" aria-label="the table" viewBox="0 0 200 60">'
            f'<text x="10" y="30">{escape(self.table_text(view, seat=seat))}</text></svg>'
        )

    def table_text(self, view: Mapping[str, Any], *, seat: str) -> str:
        slots = view.get("slots") or {}
        wins = view.get("wins") or {}
        parts = [
            f"{p.title()}: slot {slots.get(p) or 'empty'}, {wins.get(p, 0)} won" for p in PLAYERS
        ]
        return escape("; ".join(parts))

    def put_back_words(self, undone: Record, seat: str, lead: str = "Taken back") -> str:
        return f"{lead}: {str(undone.body.get('actor')).title()}'s action. Put the cards back."

    def extras_html(self, view: Mapping[str, Any]) -> str:
        return ""

    def citations(self, rules: Sequence[str]) -> list[str]:
        return [RULES[r] for r in rules if r in RULES]

    def reason_text(self, reason: str | None) -> str:
        return TINY.reason_text(reason)

    def table_status(self, row: TableRow) -> str:
        if row.get("phase") == "over":
            return f"{str(row.get('winner') or 'nobody').title()} won"
        return f"{str((row.get('turn') or {}).get('player', '')).title()} to play"

    def seat_context(
        self, ref: Referee, game: str, seat: str, view: SeatView[Any]
    ) -> dict[str, Any]:
        legal = view.legal if isinstance(view.legal, list) else []
        return {"choices": [(raw, label(json.loads(raw))) for raw in legal]}

    def judge_context(self, ref: Referee, game: str, view: SeatView[Any]) -> dict[str, Any]:
        return {"pose_examples": ['{"do": "play", "card": "3"}'], "amend_example": "{}"}

    def common_context(self, view: SeatView[Any]) -> dict[str, Any]:
        return {"status_notes": []}

    def question_text(self, needs: str) -> str | None:
        return None

    def form_action(self, form: Mapping[str, str], seat: str) -> dict[str, Any]:
        return self.action_from_text(form.get("action", ""))

    def parse_answer(self, needs: str, form: Mapping[str, str]) -> Any:
        return form.get("value", "")

    def form_observation(self, form: Mapping[str, str], seat: str) -> dict[str, Any]:
        raise ValueError("card: Tiny Duel has nothing to observe (T1)")

    def action_from_text(self, text: str) -> dict[str, Any]:
        try:
            raw = json.loads(text)
        except json.JSONDecodeError:
            raise Unreadable('an action is JSON, such as {"do": "play", "card": "3"}') from None
        if not isinstance(raw, dict):
            raise Unreadable("an action is a JSON object")
        return raw

    def action_summary(self, action: Mapping[str, Any]) -> str:
        try:
            return TINY.action_text(action)
        except Exception:
            return "an action"

    def action_words(self, action: Mapping[str, Any]) -> str:
        return self.action_summary(action)

    def judge_action(self, what: str) -> dict[str, Any] | None:
        return None

    def describe_record(self, record: Record, seat: str) -> list[str] | None:
        if record.kind == "create":
            return ["A game of Tiny Duel was created."]
        if record.kind == "action":
            action = record.body.get("action")
            if isinstance(action, Mapping):
                who = str(record.body.get("actor", "")).title()
                return [
                    f"{who} {self.action_summary(action)}.",
                    *self.describe_events(record.events),
                ]
        return None

    def describe_events(self, events: Iterable[Mapping[str, Any]]) -> list[str]:
        return [w for e in events if isinstance(e, Mapping) and (w := TINY.event_text(e))]

    def turning_points(self, record: Record) -> list[str]:
        return []

    def create_context(self) -> dict[str, Any]:
        return {}

    def create_request(self, form: Mapping[str, str], files: Mapping[str, Any]) -> CreateRequest:
        first = form.get("first", "east")
        if first not in PLAYERS:
            raise ValueError("first: east or west (T2)")
        return CreateRequest(options={"first": first})

    def api_request(self, body: Mapping[str, Any]) -> CreateRequest:
        players = body.get("players") or {}
        return CreateRequest(options=given_options(NAME, body), players=dict(players))

    def read_photo(self, game: str, data: bytes) -> dict[str, Any]:
        raise NoKit("Tiny Duel has no sticker kit: its cards are stated (T1)")

    def load_kit(self, path: str) -> Any:
        raise ValueError(f"{path}: Tiny Duel has no sticker kit")

    def read_frame(self, game: str, data: bytes, live: bool) -> dict[str, Any]:
        raise NoKit("Tiny Duel has no sticker kit: its cards are stated (T1)")


PAGES = TinyPages()
