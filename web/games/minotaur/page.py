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
from collections.abc import Callable, Iterable, Mapping, Sequence
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
from engine.say import N_, Say
from printables.kits import KitError
from printables.minotaur.kit import MinotaurKit
from referee.log import Record
from referee.minotaur.game import MINOTAUR, NAME, event_words
from referee.minotaur.ruling import citation
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
from web.i18n import gettext, lang, lazy_gettext
from web.request import seat_of

SEAT_TITLE = {"miron": "Miron", "vess": "Vess"}
# the page's questions, said in the request's language where they are shown
NEEDS_TEXT = {
    "discard": N_("No card left your hand this turn: which one do you discard, face down? [M4]"),
    "replace": N_("You have three deities: which one goes to your pile? [M9]"),
    "target": N_("Which card of your opponent's in this region do you curse? [M11]"),
    "column": N_("Into which column? [M6]"),
    "hand_cards.miron": N_("A card's text takes a card from your hand: which one? [M12, ML-P7]"),
    "hand_cards.vess": N_("A card's text takes a card from your hand: which one? [M12, ML-P7]"),
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
PHASE_WORDS = {
    "0": lazy_gettext("phase 0"),
    "1": lazy_gettext("phase 1"),
    "2": lazy_gettext("phase 2"),
    "supremacy": lazy_gettext("the supremacy phase"),
}
# the columns and zones in words (the engine's ids are data: ``upper-military``)
COLUMN_WORDS = {
    "upper-military": N_("upper military column"),
    "upper-economic": N_("upper economic column"),
    "upper-religious": N_("upper religious column"),
    "lower-military": N_("lower military column"),
    "lower-economic": N_("lower economic column"),
    "lower-religious": N_("lower religious column"),
}
COLUMN_NAMES = {
    "upper-military": N_("upper military"),
    "upper-economic": N_("upper economic"),
    "upper-religious": N_("upper religious"),
    "lower-military": N_("lower military"),
    "lower-economic": N_("lower economic"),
    "lower-religious": N_("lower religious"),
}
ZONE_WORDS = {
    "hand": N_("hand"),
    "deck": N_("deck"),
    "deck-bottom": N_("deck bottom"),
    "discard": N_("discard"),
    "centre": N_("centre"),
}
TYPE_WORDS = {
    "servant": N_("servant"),
    "building": N_("building"),
    "commander": N_("commander"),
    "deity": N_("deity"),
    "fate": N_("fate"),
}


def column_words(col: str | None) -> str:
    """A column in words ("upper military column"; "the centre" outside the columns), in the
    request's language."""
    if not col or col == "centre":
        return gettext("the centre")
    return gettext(COLUMN_WORDS[col]) if col in COLUMN_WORDS else str(col)


def column_name(col: str) -> str:
    """A column's short name, as its button reads ("upper military")."""
    return gettext(COLUMN_NAMES[col]) if col in COLUMN_NAMES else col.replace("-", " ")


def zone_words(zone: str) -> str:
    """Where a card is (a column, the hand, the deck...), for a picker."""
    if zone in COLUMN_WORDS:
        return column_words(zone)
    return gettext(ZONE_WORDS[zone]) if zone in ZONE_WORDS else zone


def type_words(kind: str) -> str:
    """A card's type in words ("servant")."""
    return gettext(TYPE_WORDS[kind]) if kind in TYPE_WORDS else kind


def action_label(raw: Mapping[str, Any]) -> str:
    """A legal action's button label, in words (the request's language)."""
    do = raw.get("do")
    card = raw.get("card")
    if do == "play":
        if raw.get("column"):
            return f"{card} → {column_words(raw['column'])}"
        if raw.get("replace"):
            return gettext("Play %(card)s, replacing %(deity)s", card=card, deity=raw["replace"])
        return gettext("Play %(card)s", card=card)
    if do == "activate":
        return gettext(
            "Activate %(card)s (%(column)s)", card=card, column=column_words(raw.get("column"))
        )
    if do == "cure":
        where = column_words(raw.get("column"))
        whose = SEAT_TITLE.get(str(raw.get("side")))
        if whose is None:
            return gettext("Cure your %(card)s (%(column)s)", card=card, column=where)
        return gettext(
            "Cure %(whose)s's %(card)s (%(column)s)", whose=whose, card=card, column=where
        )
    if do == "pass":
        to = PHASE_WORDS.get(str(raw.get("to")))
        return gettext("To %(phase)s", phase=to) if to else gettext("To the next phase")
    if do == "exercise":
        col = str(raw.get("column"))
        kind = COLUMN_IDS[col].kind.value if col in COLUMN_IDS else ""
        if raw.get("target"):
            t = raw["target"]
            return gettext(
                "Curse %(card)s (%(column)s)",
                card=t.get("card"),
                column=column_words(t.get("column")),
            )
        where = column_words(col).capitalize()
        if kind == "military":
            return gettext("%(column)s: the opponent's deck top goes to his pile", column=where)
        if kind == "economic":
            return gettext("%(column)s: draw a card", column=where)
        return f"{where}: {kind}"
    if do == "end_turn":
        if raw.get("discard"):
            return gettext("End the turn, discarding %(card)s", card=raw["discard"])
        return gettext("End the turn")
    if do == "change_hand":
        return gettext("Change my hand")
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
        acting = gettext("%(card)s (acting now)", card=turn["pending"])
        out.append((f"{turn['pending']}@pending", acting))
    side = view.get(seat, {})
    for col, placed in (side.get("columns") or {}).items():
        for x in placed:
            c = cards.get(x["card"], {})
            if c.get("text") == "passive" and not x.get("curses"):
                out.append((f"{x['card']}@{col}", f"{x['card']} ({column_words(col)})"))
    for x in side.get("deities", []):
        c = cards.get(x["card"], {})
        if c.get("text") == "passive" and not x.get("curses"):
            out.append((f"{x['card']}@centre", gettext("%(card)s (deity)", card=x["card"])))
    return out


def in_play(view: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every card in play as a picker value ``card@side:zone`` and its words."""
    out = []
    for p in PLAYERS:
        side = view.get(p, {})
        for col in COLUMNS:
            for x in (side.get("columns") or {}).get(col.id, []):
                words = gettext(
                    "%(whose)s's %(card)s (%(column)s)",
                    whose=SEAT_TITLE[p],
                    card=x["card"],
                    column=column_words(col.id),
                )
                out.append((f"{x['card']}@{p}:{col.id}", words))
        for x in side.get("deities", []):
            words = gettext("%(whose)s's deity %(card)s", whose=SEAT_TITLE[p], card=x["card"])
            out.append((f"{x['card']}@{p}:centre", words))
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
        return put_back_sentence(
            str(action.get("do")),
            "taken" if lead == "Taken back" else "undone",
            None if seat == actor else SEAT_TITLE.get(actor, actor),
            action.get("card") if isinstance(action.get("card"), str) else None,
            column_words(action.get("column")),
        )

    def extras_html(self, view: Mapping[str, Any]) -> str:
        rows = []
        for c in view.get("supremacy", []):
            where = escape(column_words(c["column"]))
            rows.append(f"<li>{where}: Miron {c['miron']}, Vess {c['vess']}</li>")
        return f'<ul class="supremacy">{"".join(rows)}</ul>'

    def citations(self, rules: Sequence[str]) -> list[str]:
        """Each rule applied, cited in the page's language (its edition first, issue 36)."""
        return [citation(RULES[x], lang()) for x in rules if x in RULES]

    def reason_text(self, reason: str | None) -> str:
        return MINOTAUR.reason_text(reason)

    def table_status(self, row: TableRow) -> str:
        turn = row.get("turn") or {}
        phase = row.get("phase")
        if phase == "play":
            who = SEAT_TITLE.get(str(turn.get("player")), "")
            return gettext(
                "%(who)s to play, %(phase)s",
                who=who,
                phase=PHASE_WORDS.get(str(turn.get("phase")), ""),
            )
        if phase == "over":
            return gettext("%(who)s won", who=SEAT_TITLE.get(str(row.get("winner")), ""))
        return gettext("deck change between games (M17)")

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
            "column_name": column_name,
            "zone_words": zone_words,
            "type_words": type_words,
            "card_info": cards,
            "players_list": PLAYERS,
            "regions": ("upper", "lower"),
            "religious_targets": lambda region: religious_targets(v, seat, region),
        }

    def judge_context(self, ref: Referee, game: str, view: SeatView[Any]) -> dict[str, Any]:
        return {
            "pose_examples": ['{"do": "pass", "to": "supremacy"}'],
            "amend_example": '{"do": "end_turn"}',
            "column_name": column_name,
        }

    def common_context(self, view: SeatView[Any]) -> dict[str, Any]:
        return {"phase_words": PHASE_WORDS, "status_notes": []}

    def question_text(self, needs: str) -> str | None:
        text = NEEDS_TEXT.get(needs)
        return gettext(text) if text else None

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
                Say('an action of Minotaur Lords is JSON, such as {"do": "pass", "to": "2"}')
            ) from None
        if not isinstance(raw, dict):
            raise Unreadable(Say("an action is a JSON object"))
        return raw

    def action_summary(self, action: Mapping[str, Any]) -> str:
        try:
            return MINOTAUR.action_text(action)
        except Exception:
            return str(action.get("do", "action")).replace("_", " ")

    def action_words(self, action: Mapping[str, Any]) -> str:
        try:
            return action_label(action)
        except (KeyError, TypeError, ValueError, AttributeError):
            return self.action_summary(action)

    def judge_action(self, what: str) -> dict[str, Any] | None:
        return None

    def describe_record(self, record: Record, seat: str) -> list[str] | None:
        if record.kind == "create":
            return [Say("A game of Minotaur Lords was created with the owner's deck list.")]
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
                return [Say("%(who)s holds %(card)s.", who=who, card=card)]
            return [Say("%(who)s named a card of his hand.", who=who)]  # sealed for this reader
        return None

    def turning_points(self, record: Record) -> list[str]:
        """A supremacy check (M11) and the end."""
        if record.kind != "action":
            return []
        turning = [e for e in record.events if e.get("event") in ("supremacy_checked", "won")]
        return self.describe_events(turning)

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
                raise ValueError(
                    Say("the kit file could not be read: %(problem)s", problem=str(e))
                ) from None
            listing, kit_json = deck_list_text(kit.cards), kit.to_json()
        elif upload is not None and upload.filename:
            shown = "".join(ch for ch in str(upload.filename)[:80] if ch.isprintable())
            try:  # the one reader's decoding; its rows are read when the game is created
                listing = utf8_file(upload.read(MAX_LIST_BYTES + 1), max_bytes=MAX_LIST_BYTES)
            except InputError as e:
                raise ValueError(
                    Say(
                        "deck list %(file)s: %(problem)s",
                        file=shown,
                        problem=e.args[0] if len(e.args) == 1 else str(e),
                    )
                ) from None
        else:
            raise ValueError(
                Say(
                    "deck list: a Minotaur Lords game needs your deck list file, or the kit file "
                    "printed from it (referee kit --game minotaur --template)"
                )
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


def put_back_sentence(do: str, how: str, whose: str | None, card: str | None, where: str) -> str:
    """What a seat is told to put back after a take-back (``how`` "taken") or the judge's undo
    ("undone") of an action: ``whose`` None for the seat's own, else the actor's title."""
    values = {"whose": whose, "card": card, "column": where}
    if do == "play" and card is None:
        return _PUT_BACK[(how, "play-card", whose is None)](**values)
    kind = do if do in ("play", "end_turn") else "action"
    return _PUT_BACK[(how, kind, whose is None)](**values)


# each sentence whole, for each lead (taken back, undone), action and whose (own, another's)
_PUT_BACK: dict[tuple[str, str, bool], Callable[..., str]] = {
    ("taken", "play", True): lambda **v: gettext(
        "Taken back: your play of %(card)s (%(column)s). It goes back into the hand.", **v
    ),
    ("taken", "play", False): lambda **v: gettext(
        "Taken back: %(whose)s's play of %(card)s (%(column)s). It goes back into the hand.", **v
    ),
    ("taken", "play-card", True): lambda **v: gettext(
        "Taken back: your play of the card (%(column)s). It goes back into the hand.", **v
    ),
    ("taken", "play-card", False): lambda **v: gettext(
        "Taken back: %(whose)s's play of the card (%(column)s). It goes back into the hand.", **v
    ),
    ("taken", "end_turn", True): lambda **v: gettext(
        "Taken back: the end of your turn. It is your turn again.", **v
    ),
    ("taken", "end_turn", False): lambda **v: gettext(
        "Taken back: the end of %(whose)s's turn. It is %(whose)s's turn again.", **v
    ),
    ("taken", "action", True): lambda **v: gettext(
        "Taken back: your action. Put the table back as it was before it.", **v
    ),
    ("taken", "action", False): lambda **v: gettext(
        "Taken back: %(whose)s's action. Put the table back as it was before it.", **v
    ),
    ("undone", "play", True): lambda **v: gettext(
        "Undone by the judge: your play of %(card)s (%(column)s). It goes back into the hand.", **v
    ),
    ("undone", "play", False): lambda **v: gettext(
        "Undone by the judge: %(whose)s's play of %(card)s (%(column)s). It goes back into the "
        "hand.",
        **v,
    ),
    ("undone", "play-card", True): lambda **v: gettext(
        "Undone by the judge: your play of the card (%(column)s). It goes back into the hand.", **v
    ),
    ("undone", "play-card", False): lambda **v: gettext(
        "Undone by the judge: %(whose)s's play of the card (%(column)s). It goes back into the "
        "hand.",
        **v,
    ),
    ("undone", "end_turn", True): lambda **v: gettext(
        "Undone by the judge: the end of your turn. It is your turn again.", **v
    ),
    ("undone", "end_turn", False): lambda **v: gettext(
        "Undone by the judge: the end of %(whose)s's turn. It is %(whose)s's turn again.", **v
    ),
    ("undone", "action", True): lambda **v: gettext(
        "Undone by the judge: your action. Put the table back as it was before it.", **v
    ),
    ("undone", "action", False): lambda **v: gettext(
        "Undone by the judge: %(whose)s's action. Put the table back as it was before it.", **v
    ),
}


PAGES = MinotaurPages()


def _no_camera(game: str) -> dict[str, Any]:
    """The API reads no photo or frame of this game: its seat page reads a photo of cards."""
    if seat_of(game) == "public":
        raise Forbidden(
            Say("the public seat cannot send photos or frames; open your seat's join link first")
        )
    raise NoKit(
        Say(
            "the API reads no photos or frames of this game; send a photo of cards from your "
            "seat page"
        )
    )
