"""Minotaur Lords as a page module (:class:`web.games.PageModule`): everything the pages show
of this game.

- the table: :mod:`web.games.minotaur.drawing` (two regions of three columns per side, the
  totals and markers between the sides, curse tokens, the deities);
- forms: :mod:`web.games.minotaur.forms` (a seat's action, an answer, a card he holds);
- templates: ``web/templates/minotaur/`` (a player's hand entry, phase and actions, the
  supremacy check column by column, effects with pickers; the status line; the judge's
  hands; the create form with the owner's deck list).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from flask import Blueprint, session
from marshmallow import ValidationError

from engine.minotaur.actions import ZONES
from engine.minotaur.cards import (
    COLUMN_IDS,
    COLUMNS,
    MAX_LIST_BYTES,
    PLAYERS,
    deck_list_text,
    opponent,
)
from engine.minotaur.rulebook import RULES
from printables.kits import KitError
from printables.minotaur.kit import MinotaurKit
from referee.log import Record
from referee.minotaur.game import MINOTAUR, NAME, event_words
from referee.models import SeatView, TableRow
from referee.service import Forbidden, Referee
from referee.validate import InputError, utf8_file
from web.errors import NoKit
from web.games import CreateRequest, Unreadable, given_options, templates_in
from web.games.minotaur.drawing import SVG_CSS
from web.games.minotaur.drawing import table_svg as draw_table
from web.games.minotaur.drawing import table_text as draw_text
from web.games.minotaur.forms import form_action, form_observation, parse_answer
from web.games.minotaur.photo import bp as photo_bp
from web.games.minotaur.photo import read_key
from web.request import seat_of

SEAT_TITLE = {"miron": "Miron", "vess": "Vess"}
NEEDS_TEXT = {
    "discard": "No card left your hand this turn: which one do you discard, face down? [M4]",
    "replace": "You have three deities: which one goes to your pile? [M9]",
    "target": "Which card of your opponent's in this region do you curse? [M11]",
    "column": "Into which column? [M6]",
    "hand_cards.miron": "A card's text takes a card from your hand: which one? [M12, ML-P7]",
    "hand_cards.vess": "A card's text takes a card from your hand: which one? [M12, ML-P7]",
}
# the event that narrates an action itself (the log says the action once)
OWN_EVENT = {
    "play": "played",
    "activate": "activated",
    "cure": "cured",
    "hand": "hand_named",
    "effect": "effect",
    "pass": "phase",
    "end_turn": "turn_ended",
    "change_hand": "hand_changed",
    "set_aside": "set_aside",
    "take": "took",
}
PHASE_WORDS = {"0": "phase 0", "1": "phase 1", "2": "phase 2", "supremacy": "the supremacy phase"}


def column_words(col: str | None) -> str:
    if not col or col == "centre":
        return "the centre"
    c = COLUMN_IDS.get(col)
    return c.words.removeprefix("the ") if c else str(col)


def action_label(raw: Mapping[str, Any]) -> str:
    """A legal action's button label, in words."""
    do = raw.get("do")
    card = raw.get("card")
    if do == "play":
        if raw.get("column"):
            return f"{card} → {column_words(raw['column'])}"
        rep = f", replacing {raw['replace']}" if raw.get("replace") else ""
        return f"Play {card}{rep}"
    if do == "activate":
        return f"Activate {card} ({column_words(raw.get('column'))})"
    if do == "cure":
        whose = SEAT_TITLE.get(str(raw.get("side")), "your")
        return f"Cure {whose}'s {card} ({column_words(raw.get('column'))})"
    if do == "pass":
        to = raw.get("to")
        return f"To {PHASE_WORDS.get(str(to), 'the next phase')}"
    if do == "exercise":
        col = str(raw.get("column"))
        kind = COLUMN_IDS[col].kind.value if col in COLUMN_IDS else ""
        if raw.get("target"):
            t = raw["target"]
            return f"Curse {t.get('card')} ({column_words(t.get('column'))})"
        what = {"military": "the opponent's deck top goes to his pile", "economic": "draw a card"}
        return f"{column_words(col).capitalize()}: {what.get(kind, kind)}"
    if do == "end_turn":
        return (
            f"End the turn, discarding {raw['discard']}" if raw.get("discard") else "End the turn"
        )
    if do == "change_hand":
        return "Change my hand"
    return str(do).replace("_", " ")


class Controls:
    """The legal actions of a seat, grouped for its page."""

    def __init__(self, legal: Iterable[str]) -> None:
        self.by_kind: dict[str, list[dict[str, Any]]] = {}
        for a in (json.loads(x) for x in legal):
            self.by_kind.setdefault(str(a.get("do")), []).append(a)
        plays = self.by_kind.get("play", [])
        self.play_cards = sorted({str(a["card"]) for a in plays})
        self.play_columns = {
            c: sorted({str(a["column"]) for a in plays if a.get("card") == c and a.get("column")})
            for c in self.play_cards
        }
        self.centre_cards = sorted({str(a["card"]) for a in plays if not a.get("column")})
        self.replace_choices = sorted({str(a["replace"]) for a in plays if a.get("replace")})
        self.discards = sorted(
            {str(a["discard"]) for a in self.by_kind.get("end_turn", []) if a.get("discard")}
        )

    def has(self, kind: str) -> bool:
        return kind in self.by_kind

    def of(self, kind: str) -> list[tuple[str, str]]:
        return [
            (json.dumps(a, separators=(",", ":")), action_label(a))
            for a in self.by_kind.get(kind, [])
        ]


def effect_sources(view: Mapping[str, Any], seat: str) -> list[tuple[str, str]]:
    """The cards whose text may act now for ``seat``: the pending card, his passive cards."""
    out: list[tuple[str, str]] = []
    turn = view.get("turn") or {}
    cards = {c["name"]: c for c in view.get("cards", [])}
    if turn.get("pending") and turn.get("player") == seat:
        out.append((f"{turn['pending']}@pending", f"{turn['pending']} (acting now)"))
    side = view.get(seat, {})
    for col, placed in (side.get("columns") or {}).items():
        for x in placed:
            c = cards.get(x["card"], {})
            if c.get("text") == "passive" and not x.get("curses"):
                out.append((f"{x['card']}@{col}", f"{x['card']} ({column_words(col)})"))
    for x in side.get("deities", []):
        c = cards.get(x["card"], {})
        if c.get("text") == "passive" and not x.get("curses"):
            out.append((f"{x['card']}@centre", f"{x['card']} (deity)"))
    return out


def in_play(view: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every card in play as a picker value ``card@side:zone`` and its words."""
    out = []
    for p in PLAYERS:
        side = view.get(p, {})
        for col in COLUMNS:
            for x in (side.get("columns") or {}).get(col.id, []):
                out.append(
                    (
                        f"{x['card']}@{p}:{col.id}",
                        f"{SEAT_TITLE[p]}'s {x['card']} ({column_words(col.id)})",
                    )
                )
        for x in side.get("deities", []):
            out.append((f"{x['card']}@{p}:centre", f"{SEAT_TITLE[p]}'s deity {x['card']}"))
    return out


def religious_targets(view: Mapping[str, Any], seat: str, region: str) -> list[tuple[str, str]]:
    them = opponent(seat) if seat in PLAYERS else "vess"
    out = []
    for col in COLUMNS:
        if col.region.value != region:
            continue
        for x in (view.get(them, {}).get("columns") or {}).get(col.id, []):
            out.append((f"{x['card']}@{col.id}", f"{x['card']} ({column_words(col.id)})"))
    return out


class MinotaurPages:
    """The pages of Minotaur Lords."""

    name = NAME
    title = "Minotaur Lords"
    players: tuple[str, ...] = PLAYERS
    templates: Mapping[str, str] = templates_in("minotaur")
    svg_css = SVG_CSS
    stylesheets: tuple[str, ...] = ("minotaur.css",)

    def seat_title(self, seat: str) -> str:
        return SEAT_TITLE.get(seat, seat)

    def blueprints(self) -> Sequence[Blueprint]:
        return (photo_bp,)

    def read_photo(self, game: str, data: bytes) -> dict[str, Any]:
        return _no_camera(game)

    def load_kit(self, path: str) -> Any:
        raise ValueError(f"{path}: the camera of this game reads no server-wide kit")

    def read_frame(self, game: str, data: bytes, live: bool) -> dict[str, Any]:
        return _no_camera(game)

    def table_svg(
        self, view: Mapping[str, Any], *, seat: str, tappable: bool = True, side: str | None = None
    ) -> str:
        return draw_table(view, seat=seat, tappable=tappable, side=side)

    def table_text(self, view: Mapping[str, Any], *, seat: str) -> str:
        return draw_text(view, seat=seat)

    def put_back_words(self, undone: Record, seat: str, lead: str = "Taken back") -> str:
        action = undone.body.get("action")
        action = action if isinstance(action, Mapping) else {}
        actor = str(undone.body.get("actor"))
        own = seat == actor
        whose = "your" if own else f"{SEAT_TITLE.get(actor, actor)}'s"
        card = action.get("card") if isinstance(action.get("card"), str) else "the card"
        if action.get("do") == "play":
            where = column_words(action.get("column"))
            return f"{lead}: {whose} play of {card} ({where}). It goes back into the hand."
        if action.get("do") == "end_turn":
            return f"{lead}: the end of {whose} turn. It is {whose} turn again."
        return f"{lead}: {whose} action. Put the table back as it was before it."

    def extras_html(self, view: Mapping[str, Any]) -> str:
        rows = []
        for c in view.get("supremacy", []):
            where = escape(column_words(c["column"]))
            rows.append(f"<li>{where}: Miron {c['miron']}, Vess {c['vess']}</li>")
        return f'<ul class="supremacy">{"".join(rows)}</ul>'

    def citations(self, rules: Sequence[str]) -> list[str]:
        return [RULES[x].citation() for x in rules if x in RULES]

    def reason_text(self, reason: str | None) -> str:
        return MINOTAUR.reason_text(reason)

    def table_status(self, row: TableRow) -> str:
        turn = row.get("turn") or {}
        phase = row.get("phase")
        if phase == "play":
            who = SEAT_TITLE.get(str(turn.get("player")), "")
            return f"{who} to play, {PHASE_WORDS.get(str(turn.get('phase')), '')}"
        if phase == "over":
            return f"{SEAT_TITLE.get(str(row.get('winner')), '')} won"
        return "deck change between games (M17)"

    def seat_context(
        self, ref: Referee, game: str, seat: str, view: SeatView[Any]
    ) -> dict[str, Any]:
        v = view.to_json()  # the drawing's and the pickers' reading of the view (its JSON)
        mine = v[seat]
        names = ref.card_names(game)
        unknown = sum(1 for h in mine.get("hand", []) if h == "?")
        photo_names: list[str] = list(session.get(read_key(game), []))
        if not unknown:
            session.pop(read_key(game), None)
        cards = {c["name"]: c for c in v.get("cards", [])}
        return {
            "me": seat,
            "them": opponent(seat),
            "mine": mine,
            "theirs": v[opponent(seat)],
            "own_names": sorted(set(mine.get("owned") or names[seat])),
            "unknown_in_hand": unknown,
            "photo_names": photo_names,
            "has_kit": v.get("kit") == "kit",
            "controls": Controls(v.get("legal", [])),
            "sources": effect_sources(v, seat),
            "in_play": in_play(v),
            "zones": ZONES,
            "column_words": column_words,
            "card_info": cards,
            "players_list": PLAYERS,
            "regions": ("upper", "lower"),
            "religious_targets": lambda region: religious_targets(v, seat, region),
        }

    def judge_context(self, ref: Referee, game: str, view: SeatView[Any]) -> dict[str, Any]:
        return {
            "pose_examples": ['{"do": "pass", "to": "supremacy"}'],
            "amend_example": '{"do": "end_turn"}',
        }

    def common_context(self, view: SeatView[Any]) -> dict[str, Any]:
        return {"phase_words": PHASE_WORDS, "status_notes": []}

    def question_text(self, needs: str) -> str | None:
        return NEEDS_TEXT.get(needs)

    def form_action(self, form: Mapping[str, str], seat: str) -> dict[str, Any]:
        return form_action(form, seat)

    def parse_answer(self, needs: str, form: Mapping[str, str]) -> Any:
        return parse_answer(needs, form)

    def form_observation(self, form: Mapping[str, str], seat: str) -> dict[str, Any]:
        return form_observation(form, seat)

    def action_from_text(self, text: str) -> dict[str, Any]:
        try:
            raw = json.loads(text)
        except json.JSONDecodeError:
            raise Unreadable(
                'an action of Minotaur Lords is JSON, such as {"do": "pass", "to": "2"}'
            ) from None
        if not isinstance(raw, dict):
            raise Unreadable("an action is a JSON object")
        return raw

    def action_summary(self, action: Mapping[str, Any]) -> str:
        try:
            return MINOTAUR.action_text(action)
        except Exception:
            return str(action.get("do", "action")).replace("_", " ")

    def judge_action(self, what: str) -> dict[str, Any] | None:
        return None

    def describe_record(self, record: Record, seat: str) -> list[str] | None:
        if record.kind == "create":
            return ["A game of Minotaur Lords was created with the owner's deck list."]
        if record.kind == "action":
            action = record.body.get("action")
            if isinstance(action, Mapping):
                # the action in words, then what followed from it (not its own event again)
                own = OWN_EVENT.get(str(action.get("do")))
                events = list(record.events)
                first = next((i for i, e in enumerate(events) if e.get("event") == own), None)
                if first is not None:
                    del events[first]
                return [self.action_summary(action), *self.describe_events(events)]
        if record.kind == "observation":
            who = SEAT_TITLE.get(str(record.body.get("player")), "")
            card = record.body.get("card")
            if isinstance(card, str):
                return [f"{who} holds {card}."]
            return [f"{who} named a card of his hand."]  # sealed for this reader
        return None

    def describe_events(self, events: Iterable[Mapping[str, Any]]) -> list[str]:
        out = []
        for e in events:
            if isinstance(e, Mapping):
                text = event_words(e)
                if text:
                    out.append(text)
        return out

    def create_context(self) -> dict[str, Any]:
        return {}

    def create_request(self, form: Mapping[str, str], files: Mapping[str, Any]) -> CreateRequest:
        """The deck-list file (required: no card list ships), the players' names, who starts,
        basic or advanced, the Scarab Lords back rule."""
        kit_json: dict[str, Any] | None = None
        kit_file = files.get("kit")
        upload = files.get("deck_list")
        if kit_file is not None and kit_file.filename:
            try:  # the kit (secret included) stays on the server, beside the game
                kit = MinotaurKit.loads(kit_file.read(1024 * 1024).decode("utf-8-sig"))
            except (KitError, UnicodeDecodeError) as e:
                raise ValueError(f"the kit file could not be read: {e}") from None
            listing, kit_json = deck_list_text(kit.cards), kit.to_json()
        elif upload is not None and upload.filename:
            shown = "".join(ch for ch in str(upload.filename)[:80] if ch.isprintable())
            try:  # the one reader's decoding; its rows are read when the game is created
                listing = utf8_file(upload.read(MAX_LIST_BYTES + 1), max_bytes=MAX_LIST_BYTES)
            except InputError as e:
                raise ValueError(f"deck list {shown}: {e}") from None
        else:
            raise ValueError(
                "deck list: a Minotaur Lords game needs your deck list file, or the kit file "
                "printed from it (referee kit --game minotaur --template)"
            )
        players = {p: form.get(p, "").strip()[:40] for p in PLAYERS if form.get(p, "").strip()}
        first = form.get("first", "miron")
        profile = form.get("profile", "basic")
        switches = {"scarab_backs": "off"} if form.get("scarab_backs") == "off" else {}
        options: dict[str, Any] = {
            "profile": profile if profile in ("basic", "advanced") else "basic",
            "switches": switches,
            "deck_list": listing,
        }
        if first in PLAYERS:
            options["starting"] = first
        return CreateRequest(options=options, players=players, kit=kit_json)

    def api_request(self, body: Mapping[str, Any]) -> CreateRequest:
        """The options given; a kit (``kit.json`` of ``referee kit --game minotaur``) gives
        the deck list, never with one."""
        options = given_options(NAME, body)
        kit_json = None
        if body.get("kit") is not None:
            if body.get("deck_list") is not None:
                raise ValidationError({"kit": ["give a kit or a deck list, not both"]})
            try:
                kit = MinotaurKit.from_json(body["kit"])
            except KitError as e:
                raise ValidationError({"kit": [str(e)]}) from None
            options["deck_list"], kit_json = deck_list_text(kit.cards), kit.to_json()
        return CreateRequest(options=options, players=dict(body.get("players") or {}), kit=kit_json)


PAGES = MinotaurPages()


def _no_camera(game: str) -> dict[str, Any]:
    """The API reads no photo or frame of this game: its seat page reads a photo of cards."""
    if seat_of(game) == "public":
        raise Forbidden(
            "the public seat cannot send photos or frames; open your seat's join link first"
        )
    raise NoKit(
        "the API reads no photos or frames of this game; send a photo of cards from your seat page"
    )
