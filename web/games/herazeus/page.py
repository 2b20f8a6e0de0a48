"""Hera & Zeus as a page module (:class:`web.games.PageModule`): everything the pages show of
this game and nowhere else.

- the table: :mod:`web.games.herazeus.drawing` (two sides of three columns, hands, piles);
- words: :mod:`web.games.herazeus.present` (the actions grouped and labelled, the questions,
  setup's steps, the log's sentences, the rule profiles and switches);
- forms: :mod:`web.games.herazeus.forms` (a seat's action, an answer, a card seen);
- templates: ``web/templates/herazeus/`` (a player's table, setup, actions and card entry;
  the answer forms; the status line; the judge's hands and dead-end tool; the create form);
- the camera pages (:mod:`web.camera`, reading with :mod:`web.images`): Hera & Zeus only,
  reached through this module (its blueprint and the seat page's links).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from flask import Blueprint
from marshmallow import ValidationError

from engine.herazeus import RULES, NotationError, Player, parse_action, parse_action_text
from engine.herazeus.cards import HOSTAGE_NAME
from engine.herazeus.profiles import PROFILE_DEFAULTS, SWITCH_DECISION, SWITCH_TYPES, Profile
from referee.herazeus.game import END_WORDS, NAME, PLAYERS, hz_board, side_of
from referee.herazeus.ruling import citation
from referee.log import Record
from referee.models import SeatView, TableRow
from referee.service import Referee
from web.games import CreateRequest, Unreadable, given_options, templates_in
from web.games.herazeus import camera, images
from web.games.herazeus.drawing import SVG_CSS
from web.games.herazeus.drawing import table_svg as draw_table
from web.games.herazeus.drawing import table_text as draw_text
from web.games.herazeus.forms import form_action, form_observation, parse_answer
from web.games.herazeus.images import has_kit, parse_kit, parse_kit_upload, photo_context
from web.games.herazeus.present import (
    DEAD_END_NOTE,
    GROUPS,
    NEEDS_TEXT,
    PROFILE_HELP,
    SEAT_TITLE,
    SWITCH_HELP,
    SWITCH_TITLE,
    action_label,
    card_name,
    controls_for,
    event_lines,
    order_choices,
    order_stood,
    record_lines,
    setup_of,
    taken_names,
)
from web.i18n import gettext, lang, say

# Why a game ended (engine.EndReason), with the rule that ended it.
REASONS = END_WORDS  # why a game ended, in words with its rule (the game module's)
JUDGE_ACTIONS = {"stuck": {"do": "declare_stuck"}}  # D8: the judge confirms a dead end


class HeraZeusPages:
    """The pages of Hera & Zeus."""

    name = NAME
    title = "Hera & Zeus"
    players: tuple[str, ...] = PLAYERS
    templates: Mapping[str, str] = templates_in("herazeus")
    svg_css = SVG_CSS
    stylesheets: tuple[str, ...] = ("herazeus.css",)

    def seat_title(self, seat: str) -> str:
        return SEAT_TITLE.get(seat, seat)

    def blueprints(self) -> Sequence[Blueprint]:
        return (camera.bp,)

    def read_photo(self, game: str, data: bytes) -> dict[str, Any]:
        return images.read_photo(images.camera_for(game), data)

    def load_kit(self, path: str) -> Any:
        from vision.herazeus.kit import load_kit  # OpenCV loads only when a kit is read

        return load_kit(path)

    def read_frame(self, game: str, data: bytes, live: bool) -> dict[str, Any]:
        return images.read_frame(images.camera_for(game), data, live=live)

    # ---- the table ---------------------------------------------------------------------------

    def table_svg(
        self, view: Mapping[str, Any], *, seat: str, tappable: bool = True, side: str | None = None
    ) -> str:
        return draw_table(view, seat=seat, tappable=tappable, side=side)

    def table_text(self, view: Mapping[str, Any], *, seat: str) -> str:
        return draw_text(view, seat=seat)

    def put_back_words(self, undone: Record, seat: str, lead: str = "Taken back") -> str:
        """HZ-P14: the action taken back, and what goes back where, in this seat's words (the
        card itself only when this seat may read it in the record)."""
        action = undone.body.get("action")
        action = action if isinstance(action, Mapping) else {}
        actor = str(undone.body.get("actor"))
        who = SEAT_TITLE.get(actor, actor)
        own = seat == actor
        named = action.get("card")
        card = card_name(named) if isinstance(named, str) and named != "?" else gettext("the card")
        lead = say(lead)
        do = action.get("do")
        if do == "draw":
            if own:
                return gettext(
                    "%(lead)s: your draw. Put %(card)s back on top of your deck.",
                    lead=lead,
                    card=card,
                )
            if actor == "hera":
                return gettext(
                    "%(lead)s: %(who)s's draw. %(who)s puts %(card)s back on top of her deck.",
                    lead=lead,
                    who=who,
                    card=card,
                )
            return gettext(
                "%(lead)s: %(who)s's draw. %(who)s puts %(card)s back on top of his deck.",
                lead=lead,
                who=who,
                card=card,
            )
        if do == "play":
            column = action.get("column")
            if own:
                return gettext(
                    "%(lead)s: your play into column %(column)s. Take %(card)s back into your"
                    " hand.",
                    lead=lead,
                    column=column,
                    card=card,
                )
            if actor == "hera":
                return gettext(
                    "%(lead)s: %(who)s's play into column %(column)s. %(who)s takes %(card)s"
                    " back into her hand.",
                    lead=lead,
                    who=who,
                    column=column,
                    card=card,
                )
            return gettext(
                "%(lead)s: %(who)s's play into column %(column)s. %(who)s takes %(card)s back"
                " into his hand.",
                lead=lead,
                who=who,
                column=column,
                card=card,
            )
        if do == "end_turn":
            if own:
                return gettext("%(lead)s: the end of your turn. It is your turn again.", lead=lead)
            return gettext(
                "%(lead)s: the end of %(who)s's turn. It is %(who)s's turn again.",
                lead=lead,
                who=who,
            )
        if own:
            return gettext(
                "%(lead)s: your action. Put the table back as it was before it.", lead=lead
            )
        return gettext(
            "%(lead)s: %(who)s's action. Put the table back as it was before it.",
            lead=lead,
            who=who,
        )

    def extras_html(self, view: Mapping[str, Any]) -> str:
        """Each hand the reader may see, as a list."""
        out = []
        for p in PLAYERS:
            hand = view.get(p, {}).get("hand", [])
            if hand and any(h != "?" and not str(h).startswith("?/") for h in hand):
                said = gettext(
                    "%(seat)s's hand: %(cards)s",
                    seat=SEAT_TITLE[p],
                    cards=", ".join(card_name(h) for h in hand),
                )
                out.append(f"<li>{escape(said)}</li>")
        return f'<ul class="hands">{"".join(out)}</ul>' if out else ""

    def citations(self, rules: Sequence[str]) -> list[str]:
        """Each rule applied, cited in the page's language (its edition first, issue 36)."""
        return [citation(RULES[x], lang()) for x in rules if x in RULES]

    def reason_text(self, reason: str | None) -> str:
        return REASONS.get(str(reason), reason or "")

    def table_status(self, row: TableRow) -> str:
        turn = row.get("turn") or {}
        phase = row.get("phase")
        if phase == "play":
            ap, used = int(turn.get("ap", 0)), int(turn.get("used", 0))
            who = str(turn.get("player", "")).capitalize()
            return gettext(
                "%(player)s to play, %(left)s of %(ap)s left", player=who, left=ap - used, ap=ap
            )
        if phase == "over":
            return gettext("%(winner)s won", winner=(row.get("winner") or "").capitalize())
        return gettext("setup")

    # ---- pages -------------------------------------------------------------------------------

    def seat_context(
        self, ref: Referee, game: str, seat: str, view: SeatView[Any]
    ) -> dict[str, Any]:
        """A player's hand and pickers, his actions grouped, where setup stands for him, the
        photos his camera read."""
        p = Player.parse(seat)
        hz = hz_board(view)
        names = ref.card_names(game)
        mine = side_of(hz, p.key)
        hand = list(mine["hand"])
        held = [*hand, *(x for col in mine["field"] for x in col)]
        legal = view.legal or []
        wire = view.to_json()
        return {
            "their_names": names[p.other.key],
            "me": p,
            "mine": mine,
            "theirs": side_of(hz, p.other.key),
            "own_names": names[p.key],
            "taken_names": taken_names(p, held),
            "playable": hz.playable or [],
            "controls": controls_for(legal),
            "groups": [
                (key, card_name(title) if key in ("pegasus", "pythia") else gettext(title))
                for key, title in GROUPS
            ],
            "label": action_label,
            "setup": setup_of(hz, p) if view.phase == "setup" else None,
            "hostage": HOSTAGE_NAME[p],
            "photo": photo_context(game, seat, wire, legal),
            "has_kit": has_kit(game),
            "order_choices": order_choices(wire, p),
            "order_stood": order_stood(wire, p),
            "dead_end_note": DEAD_END_NOTE,
            "card_words": card_name,
        }

    def judge_context(self, ref: Referee, game: str, view: SeatView[Any]) -> dict[str, Any]:
        return {
            "pose_examples": ["challenge 2", "pegasus field 1"],
            "pose_words": {
                "challenge 2": gettext("a challenge in column 2"),
                "pegasus field 1": gettext(
                    "%(pegasus)s against the front card of column 1", pegasus=card_name("Pegasus")
                ),
            },
            "amend_example": "draw Artemis",
            "dead_end_note": DEAD_END_NOTE,
        }

    def common_context(self, view: SeatView[Any]) -> dict[str, Any]:
        """The action points left this turn; a provisional card list beside the profile."""
        hz = hz_board(view)
        return {
            "points_left": hz.turn["ap"] - hz.turn["used"],
            "card_words": card_name,  # a card's name in the reader's language (every page)
            "status_notes": [gettext("provisional card list")] if hz.provisional_catalogue else [],
        }

    def question_text(self, needs: str) -> str | None:
        text = NEEDS_TEXT.get(needs)
        return gettext(text) if text else None

    # ---- forms -------------------------------------------------------------------------------

    def form_action(self, form: Mapping[str, str], seat: str) -> dict[str, Any]:
        return form_action(form, seat)

    def parse_answer(self, needs: str, form: Mapping[str, str]) -> Any:
        return parse_answer(needs, form)

    def form_observation(self, form: Mapping[str, str], seat: str) -> dict[str, Any]:
        return form_observation(form, seat)

    def action_from_text(self, text: str) -> dict[str, Any]:
        try:
            return parse_action_text(text).to_json()
        except NotationError as e:
            raise Unreadable(str(e)) from None

    def action_summary(self, action: Mapping[str, Any]) -> str:
        """The action as the judge types it (the text notation), for his pickers."""
        try:
            return parse_action(dict(action), "action").text()
        except (NotationError, TypeError, ValueError):  # a sealed part: what is readable
            return str(action.get("do", "action")).replace("_", " ")

    def action_words(self, action: Mapping[str, Any]) -> str:
        try:
            return action_label(parse_action(dict(action), "action"))
        except (NotationError, TypeError, ValueError):
            return self.action_summary(action)

    def judge_action(self, what: str) -> dict[str, Any] | None:
        raw = JUDGE_ACTIONS.get(what)
        return dict(raw) if raw is not None else None

    # ---- the log -----------------------------------------------------------------------------

    def describe_record(self, record: Record, seat: str) -> list[str] | None:
        return record_lines(record)

    def describe_events(self, events: Iterable[Mapping[str, Any]]) -> list[str]:
        return event_lines(events)

    def turning_points(self, record: Record) -> list[str]:
        """A challenge decided by strength (D11, both strengths), a Pandora or Pegasus moment
        (Pegasus drawing from a hand or placing a card, either card turned up or discarded),
        and the end."""
        if record.kind != "action":
            return []
        return event_lines(e for e in record.events if is_turning_point(e))

    # ---- a new game --------------------------------------------------------------------------

    def create_context(self) -> dict[str, Any]:
        """Profiles, switches and their help, each profile's defaults."""
        return {
            "profiles": [p.value for p in Profile],
            "profile_help": {p: gettext(text) for p, text in PROFILE_HELP.items()},
            "switches": [
                (
                    name,
                    gettext(SWITCH_TITLE[name]),
                    SWITCH_DECISION[name],
                    [(m.value, gettext(SWITCH_HELP[name][m.value])) for m in typ],
                )
                for name, typ in SWITCH_TYPES.items()
            ],
            "defaults": {p.value: PROFILE_DEFAULTS[p].to_json() for p in Profile},
        }

    def create_request(self, form: Mapping[str, str], files: Mapping[str, Any]) -> CreateRequest:
        """Profile, switches, the players' names, who starts, the kit file. Raises ValueError
        when the kit file does not read."""
        f = form
        switches = {n: f[n] for n in SWITCH_TYPES if f.get(n) and f.get(n) != "default"}
        players = {p: f.get(p, "").strip()[:40] for p in PLAYERS if f.get(p, "").strip()}
        starting = f.get("starting", "default")
        catalogue = kit_json = None
        kit_file = files.get("kit")
        if kit_file is not None and kit_file.filename:
            try:  # the kit (secret included) stays on the server, beside the game
                kit = parse_kit_upload(kit_file.read(1024 * 1024), kit_file.filename[:60])
                catalogue, kit_json = kit.catalogue_for_game(), kit.to_json()
            except ValueError as e:
                raise ValueError(f"the kit file could not be read: {e}") from None
        options: dict[str, Any] = {"profile": f.get("profile", "rio-grande"), "switches": switches}
        if starting in (*PLAYERS, "table"):
            options["starting"] = starting
        if catalogue is not None:
            options["catalogue"] = catalogue
        return CreateRequest(options=options, players=players, kit=kit_json)

    def api_request(self, body: Mapping[str, Any]) -> CreateRequest:
        """The options given; a kit (``kit.json``) gives the catalogue, never with one."""
        options = given_options(NAME, body)
        kit_json = None
        if body.get("kit") is not None:
            if body.get("catalogue") is not None:
                raise ValidationError({"kit": ["give a kit or a catalogue, not both"]})
            try:
                kit = parse_kit(body["kit"])
            except ValueError as e:
                raise ValidationError({"kit": [str(e)]}) from None
            options["catalogue"], kit_json = kit.catalogue_for_game(), kit.to_json()
        return CreateRequest(options=options, players=dict(body.get("players") or {}), kit=kit_json)


PAGES = HeraZeusPages()


# the events of a turning point: a challenge decided by strength, Pegasus at work, the end
TURNING_KINDS = frozenset({"challenged", "picked", "placed", "game_over"})
TURNING_CARDS = ("Pandora", "Pegasus")


def is_turning_point(e: Mapping[str, Any]) -> bool:
    """Whether an event (its JSON, as the reader's cut holds it) is a turning point: its kind,
    or a Pandora or Pegasus turned up or discarded (a sealed card is none: it names nothing)."""
    if e.get("kind") in TURNING_KINDS:
        return True
    card = e.get("card")
    return (
        e.get("kind") in ("revealed", "discarded")
        and isinstance(card, str)
        and card.startswith(TURNING_CARDS)
    )
