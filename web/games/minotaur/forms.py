"""What the Minotaur Lords forms mean: the action a seat's form describes, an answer's value,
a card seen. Pure functions of the form's fields; each raises ValueError naming the field."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from werkzeug.datastructures import MultiDict

from engine.minotaur.actions import ZONES
from engine.minotaur.cards import COLUMN_IDS, PLAYERS
from engine.say import Say

MAX_FORM_JSON = 4000


def _list(form: Mapping[str, str], name: str) -> list[str]:
    """Every value of a field given several times (a form's MultiDict), or its one value."""
    values = form.getlist(name) if isinstance(form, MultiDict) else [form.get(name, "")]
    return [v for v in values if v and v != "?"]


def _column(form: Mapping[str, str], name: str) -> str | None:
    value = form.get(name, "")
    if value in ("", "centre"):
        return None
    if value not in COLUMN_IDS:
        raise ValueError(
            Say("%(field)s: %(value)s is not a column", field=name, value=repr(value[:30]))
        )
    return value


def form_action(f: Mapping[str, str], seat: str) -> dict[str, Any]:
    """The action JSON a seat's form describes. Raises ValueError naming the bad field."""
    if f.get("action"):  # a button of the legal list carries the action itself
        text = f["action"]
        if len(text) > MAX_FORM_JSON:
            raise ValueError(Say("action: too long"))
        try:
            given = json.loads(text)
        except json.JSONDecodeError:
            raise ValueError(Say("action: not an action of this game")) from None
        if not isinstance(given, dict):
            raise ValueError(Say("action: not an action of this game"))
        return dict(given)
    do = f.get("do", "")
    raw: dict[str, Any]
    if do == "hand":
        cards = _list(f, "cards")
        if not cards:
            raise ValueError(Say("cards: choose at least one card you hold"))
        return {"do": "hand", "cards": cards, "by": seat}
    if do == "play":
        raw = {"do": "play", "card": f.get("card", "")}
        if not raw["card"]:
            raise ValueError(Say("card: choose the card to play"))
        col = _column(f, "column")
        if col:
            raw["column"] = col
        if f.get("replace"):
            raw["replace"] = f["replace"]
        return raw
    if do == "change_hand":
        cards = _list(f, "discard")
        if not cards:
            raise ValueError(Say("discard: tick at least one card to discard (M1)"))
        return {"do": "change_hand", "discard": cards}
    if do == "end_turn":
        raw = {"do": "end_turn"}
        if f.get("discard"):
            raw["discard"] = f["discard"]
        return raw
    if do in ("set_aside", "take"):
        return {"do": do, "cards": _list(f, "cards"), "by": seat}
    if do == "effect":
        return _effect(f)
    raise ValueError(Say("do: %(value)s is not an action of this game", value=repr(do[:20])))


def _place(f: Mapping[str, str], prefix: str) -> dict[str, str]:
    side, zone = f.get(f"{prefix}_side", ""), f.get(f"{prefix}_zone", "")
    if side not in PLAYERS:
        raise ValueError(Say("%(field)s: whose (miron or vess)", field=f"{prefix}_side"))
    if zone not in ZONES:
        raise ValueError(
            Say("%(field)s: where (%(zones)s)", field=f"{prefix}_zone", zones=", ".join(ZONES))
        )
    return {"side": side, "zone": zone}


def _effect(f: Mapping[str, str]) -> dict[str, Any]:
    """One operation of an effect (M12): the card whose text acts and what it did."""
    source = f.get("source", "")
    card, _, at = source.partition("@")
    if not card:
        raise ValueError(Say("source: the card whose text acts"))
    op = f.get("op", "")
    raw: dict[str, Any] = {"do": "effect", "card": card}
    if at and at != "pending":
        raw["column"] = at
    if op == "move":
        name = f.get("card", "").strip() or "?"
        raw["ops"] = [
            {"op": "move", "card": name, "from": _place(f, "from"), "to": _place(f, "to")}
        ]
    elif op in ("curse", "cure", "strength"):
        target, _, where = f.get("target", "").partition("@")
        side, _, zone = where.partition(":")
        if not target or side not in PLAYERS or zone not in (*COLUMN_IDS, "centre"):
            raise ValueError(Say("target: the card in play it acts on"))
        o: dict[str, Any] = {"op": op, "card": target, "side": side, "zone": zone}
        if op == "strength":
            try:
                o["delta"] = int(f.get("delta", ""))
            except ValueError:
                raise ValueError(Say("delta: a whole number, such as 1 or -2")) from None
        raw["ops"] = [o]
    elif op == "draw":
        side = f.get("draw_side", "")
        if side not in PLAYERS:
            raise ValueError(Say("draw_side: who draws"))
        try:
            count = int(f.get("count", "1"))
        except ValueError:
            raise ValueError(Say("count: how many cards")) from None
        raw["ops"] = [{"op": "draw", "side": side, "count": count}]
    else:
        raise ValueError(Say("op: what the text did (move, curse, cure, draw, strength)"))
    return raw


def parse_answer(needs: str, form: Mapping[str, str]) -> Any:
    """The value of an answer for ``needs``. Raises ValueError naming the field."""
    if needs.startswith("hand_cards."):
        cards = _list(form, "value")
        if not cards:
            raise ValueError(Say("value: the card that leaves your hand"))
        return cards
    if needs == "target":
        target, _, column = form.get("value", "").partition("@")
        if not target or column not in COLUMN_IDS:
            raise ValueError(Say("value: the card to curse"))
        return {"card": target, "column": column}
    text = form.get("value", "").strip()
    if not text:
        raise ValueError(Say("%(field)s: choose a card", field=needs))
    return text


def form_observation(form: Mapping[str, str], seat: str) -> dict[str, Any]:
    card = form.get("card", "").strip()
    if not card:
        raise ValueError(Say("card: choose a card"))
    return {"player": seat, "zone": "hand", "card": card}
