"""What the Hera & Zeus forms mean: the action a seat's form describes, the value of an
answer, a card seen. Pure functions of the form's fields; each raises ValueError naming the
field, its sentence a :class:`engine.say.Say` (said in the reader's language where it is shown).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.herazeus import NotationError, parse_action_text
from engine.say import Say, say_n
from web.forms import form_int


def parse_answer(needs: str, form: Mapping[str, str]) -> Any:
    """The value of an answer form for the input ``needs``. Raises ValueError naming the
    field when it is empty or malformed."""
    # a one-tap answer (a column's or a card's button, issue 31 item 11) comes as ``tap``
    if needs in ("place", "at"):
        text = (form.get("tap") or form.get("value", "")).strip()
        try:
            return int(text)
        except ValueError:
            if needs == "place":
                why = Say("tap the column, not %(text)s", text=repr(text))
                if not text:
                    why = Say("tap the column")
            else:
                why = Say("give the place as a number, not %(text)s", text=repr(text))
                if not text:
                    why = Say("give the place as a number")
            raise ValueError(why) from None
    if needs.startswith("order."):
        return order_answer(form)
    if needs in ("reveal.cards", "reveal.hand"):
        return names_of(form.get("value", ""))
    text = (form.get("tap") or form.get("value", "")).strip()
    if not text:
        raise ValueError(Say("choose a card"))
    return text


def names_of(text: str) -> list[str]:
    """The card names of a list typed or tapped, separated by commas (or lines)."""
    return [x for x in (x.strip() for x in text.replace("\n", ",").split(",")) if x]


def order_answer(form: Mapping[str, str]) -> list[str]:
    """The order of one's discards (D1, D2, D12; HZ-P13): a one-tap order (``order``), else
    every card typed or tapped (``value``), else the default order (``stood``: the cards as
    they stood, ``?`` for each the referee does not know) with those cards named in
    ``named``, in the order they stood (D20; issue 31, item 8). Raises ValueError saying
    what is missing, never a field path."""
    if form.get("order"):
        return names_of(form["order"])
    typed = names_of(form.get("value", ""))
    if typed and not form.get("keep"):
        return typed
    stood = names_of(form.get("stood", ""))
    if not stood:
        raise ValueError(
            Say("give the order of the cards: tap their names, first onto the pile first")
        )
    named = [n for n in names_of(form.get("named", "")) if n != "?"]
    unknown = stood.count("?")
    if len(named) != unknown:
        raise ValueError(
            say_n(
                "name the %(num)d card the referee does not know, in the order they stood "
                "(%(named)s named) [D20]",
                "name the %(num)d cards the referee does not know, in the order they stood "
                "(%(named)s named) [D20]",
                unknown,
                named=len(named),
            )
        )
    names = iter(named)
    return [next(names) if c == "?" else c for c in stood]


def reason_of(e: Exception) -> str:
    """An error's sentence as it was raised (a :class:`engine.say.Say` stays one)."""
    first = e.args[0] if e.args else None
    return first if isinstance(first, str) else str(e)


def form_action(f: Mapping[str, str], seat: str) -> dict[str, Any]:
    """The action JSON a seat's form describes. Raises ValueError naming the bad field."""
    if f.get("action"):
        try:
            return parse_action_text(f["action"]).to_json()
        except NotationError as e:
            raise ValueError(Say("action: %(reason)s", reason=reason_of(e))) from None
    do = f.get("do", "")
    if do == "draw":
        raw: dict[str, Any] = {"do": "draw"}
        if f.get("card") and f["card"] != "?":
            raw["card"] = f["card"]
        return raw
    if do == "play":
        # a column button (two taps: the card, the column) or the column chosen by name
        column = form_int(f, "column" if f.get("column") else "at_column")
        raw = {"do": "play", "card": f.get("card") or "?", "column": column}
        if f.get("position") and f["position"] != "back":
            raw["position"] = form_int(f, "position")
        return raw
    if do == "hades":
        return {"do": "hades", "card": f.get("card", "")}
    if do == "dionysus":
        return {
            "do": "dionysus",
            "from": [int(x) for x in f.get("from", "").split(".")],
            "to": [int(x) for x in f.get("to", "").split(".")],
        }
    if do in ("deal", "first_row"):
        cards = [c.strip() for c in f.getlist("cards") if c.strip()]  # type: ignore[attr-defined]
        if len(cards) == 1 and "," in cards[0]:
            cards = [c.strip() for c in cards[0].split(",") if c.strip()]
        return {"do": do, "player": seat, "cards": cards}
    if do == "redraw":
        raw = {"do": "redraw", "player": seat}
        if f.get("card") and f["card"] != "?":
            raw["card"] = f["card"]
        return raw
    if do == "starter":
        return {"do": "starter", "player": f.get("player", "")}
    raise ValueError(Say("do: unknown form action %(do)s", do=repr(do)))


def form_observation(f: Mapping[str, str], seat: str) -> dict[str, Any]:
    """The observation a seat's "a card I hold" form describes (a scan by hand: tapping its
    name). Raises ValueError naming a bad column or position."""
    obs: dict[str, Any] = {
        "player": f.get("player", seat),
        "zone": f.get("zone", "hand"),
        "card": f.get("card", ""),
        "source": "manual",
    }
    if obs["zone"] == "field":
        obs["column"], obs["position"] = form_int(f, "column"), form_int(f, "position")
    return obs
