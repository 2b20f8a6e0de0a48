"""What the judge's desk at ``/g/<game>`` shows beyond the table: the open calls and
irregularities, the ruling asked for, the actions he may amend.

Everything comes from the judge's own view (``Referee.view(game, "judge")``: ``open`` lists the
calls and irregularities not settled yet, each ``{"seq", "kind", "seat", "time", "body"}``) and
the service's ruling tool; an action posed or amended is read in the game's notation by its
page module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flask import request

from referee.log import Record
from referee.models import Ruling, SeatView
from referee.service import Referee, ServiceError
from web.games import PageModule, Unreadable
from web.i18n import gettext, lang, say


@dataclass(frozen=True)
class OpenCall:
    """A player's call for the judge, not settled yet."""

    seq: int
    seat: str
    time: str
    note: str


@dataclass(frozen=True)
class OpenIrregularity:
    """An irregularity (e.g. a card seen as another than recorded), not settled yet."""

    seq: int
    seat: str
    time: str
    rule: str | None
    problem: str


DESK_ACTIONS = 200  # the actions the undo and amend lists offer, the latest first


def open_items(
    items: Sequence[Mapping[str, Any]],
) -> tuple[list[OpenCall], list[OpenIrregularity]]:
    """The judge view's ``open`` list (``{"seq", "kind", "seat", "time", "body"}``), split into
    calls and irregularities. An irregularity's rule and problem are in its body, or in its
    body's ``irregularity`` when an observation raised it."""
    calls: list[OpenCall] = []
    irregularities: list[OpenIrregularity] = []
    for item in items:
        body: Mapping[str, Any] = item.get("body") or {}
        seq, seat, time = int(item["seq"]), str(item.get("seat")), str(item.get("time", ""))
        if item.get("kind") == "call":
            calls.append(OpenCall(seq, seat, time, str(body.get("note") or "")))
            continue
        inner = body.get("irregularity")
        facts: Mapping[str, Any] = inner if isinstance(inner, Mapping) else body
        rule = facts.get("rule")
        problem = str(facts.get("problem") or "irregularity")  # said by the desk's template
        irregularities.append(
            OpenIrregularity(seq, seat, time, str(rule) if rule else None, problem)
        )
    return calls, irregularities


def judge_context(
    ref: Referee, pm: PageModule, game: str, view: SeatView[Any], records: list[Record]
) -> dict[str, Any]:
    """What the judge's desk shows beyond the table: open calls and irregularities, the
    ruling asked for (``?pose=...&at=...``), the actions he may amend."""
    ruling = None
    pose = request.args.get("pose", "").strip()
    at_text = request.args.get("at", "").strip()
    if pose:
        ruling = rule_on(ref, pm, game, pose, at_text)
    calls, irregularities = open_items(view.open or [])
    actions = [r for r in records if r.kind == "action"]
    return {
        "irregularities": irregularities,
        "broken": view.broken or None,
        "calls": calls,
        "ruling": ruling,
        "pose": pose,
        "pose_at": at_text,
        # the latest actions for the undo and amend lists; an earlier one is typed by number
        "actions": actions[-DESK_ACTIONS:],
        "actions_earlier": len(actions) > DESK_ACTIONS,
        "action_summary": pm.action_summary,
        "legal": view.legal or [],
    }


@dataclass(frozen=True)
class NoRuling:
    """Why the ruling tool gave no ruling: the posed action does not read, or the service
    refused it (with its rule)."""

    error: str
    rule: str | None = None


def rule_on(
    ref: Referee, pm: PageModule, game: str, pose: str, at_text: str
) -> Ruling[Any] | NoRuling:
    """The ruling on an action posed on the position after event ``at`` (default: now),
    without changing the game, or why there is none."""
    try:
        action = pm.action_from_text(pose)
        at = int(at_text) if at_text else None
    except Unreadable as e:
        why = e.args[0] if len(e.args) == 1 and isinstance(e.args[0], str) else str(e)
        return NoRuling(gettext("the action does not read: %(why)s", why=say(why)))
    except ValueError:
        return NoRuling(gettext("'at' must be an event number, not %(value)s", value=repr(at_text)))
    try:
        return ref.ruling(game, "judge", action, at=at, lang=lang())
    except ServiceError as e:
        return NoRuling(e.message, e.rule)
