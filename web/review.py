"""The review of a game (issue 37), ``/g/<game>/review``: someone studying a game afterwards
steps through every event with the drawing as a seat saw it then, the action points, the rules
applied with their sources, the corrections and take-backs marked; at any event the actions that
were open and "what if" another had been played; a summary of the whole game.

Everything is a GET and nothing is written: ``?at=N`` the event (``#N`` too, with the script),
``?view=SEAT`` whose drawing (only the views :meth:`referee.service.Referee.review_views`
allows the seat that asks), ``?pose=TEXT`` an action played instead, through the ruling tool
(:meth:`referee.service.Referee.what_if`: the judge's on the whole table, a player's on the
table as he knew it, after the end). The log's words are always cut for the seat that asks,
whatever drawing it looks at.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, cast

from flask import Blueprint, abort, render_template, request
from markupsafe import Markup

from referee.log import Record
from referee.models import Ruling, TableRow
from referee.service import Referee, ServiceError
from web.games import PageModule, Unreadable, page_for, seat_title
from web.i18n import gettext, lang, say
from web.present import describe_record
from web.request import get_referee, seat_of, with_game

bp = Blueprint("review", __name__)

CORRECTIONS = ("undo", "amend")


@dataclass(frozen=True)
class Step:
    """One event as the seat that asks reads it, and what became of it."""

    record: Record
    line: dict[str, Any]  # describe_record's: seq, time, stamp, seat, kind, text
    view: dict[str, Any]  # the table right after it, as the chosen view saw it (JSON)
    rules: list[str]
    mark: str | None = None  # "correction", "takeback"
    undone_by: int | None = None  # the correction that later took this action back


@dataclass
class Summary:
    """The whole game at a glance."""

    over: bool
    winner: str = ""
    why: str = ""
    points: list[tuple[int, str]] = field(default_factory=list)  # (event, sentence)
    rulings: list[tuple[str, int, list[int]]] = field(default_factory=list)  # citation, n, events
    took: list[tuple[str, str, int]] = field(default_factory=list)  # seat, time taken, actions
    corrections: list[int] = field(default_factory=list)


def steps(ref: Referee, pm: PageModule, game: str, seat: str, view: str) -> list[Step]:
    """Every event as ``seat`` reads it, each with the table right after it as ``view`` saw it
    (two replays, both cut on the server: the words for the one who asks, the drawing for the
    view he may choose)."""
    mine = ref.replay(game, seat)
    drawn = mine if view == seat else ref.replay(game, view)
    records: list[Record] = []
    out: list[Step] = []
    takebacks: set[int] = (
        set()
    )  # the proposals that were take-backs (their approval writes the undo)
    for s, d in zip(mine, drawn, strict=True):
        r = Record.from_json(s["record"])
        records.append(r)
        mark = None
        if r.kind == "propose" and "takeback" in r.body:
            takebacks.add(r.seq)
            mark = "takeback"
        elif r.kind in ("approve", "decline") and r.body.get("proposal") in takebacks:
            mark = "takeback"
        elif r.kind in CORRECTIONS:
            before = records[-2] if len(records) > 1 else None
            took_back = (
                before is not None
                and before.kind == "approve"
                and before.body.get("proposal") in takebacks
            )
            mark = "takeback" if took_back else "correction"
        out.append(
            Step(
                record=r,
                line=describe_record(pm, r, seat, records),
                view=d["view"].to_json(),
                rules=list(s["rules"]),
                mark=mark,
            )
        )
    # an undo to event N takes back the actions after N still in effect when it was written
    for i, st in enumerate(out):
        if st.record.kind != "undo":
            continue
        to = st.record.body.get("to")
        if not isinstance(to, int):
            continue
        for j in range(to + 1, i):
            earlier = out[j]
            if earlier.record.kind == "action" and earlier.undone_by is None:
                out[j] = replace(earlier, undone_by=st.record.seq)
    return out


def _seconds(a: str, b: str) -> int:
    try:
        return max(0, int((datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()))
    except ValueError:
        return 0


def duration(seconds: int) -> str:
    """A time taken, said as hours, minutes and seconds."""
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    if h:
        return gettext("%(h)s h %(m)02d min", h=h, m=m)
    return gettext("%(m)s min %(s)02d s", m=m, s=s)


def summarise(pm: PageModule, all_steps: Sequence[Step], players: Sequence[str]) -> Summary:
    """Who won and why, the turning points, the rulings applied, how long each player took
    (the time from the record before each of his actions to it), the corrections."""
    last = all_steps[-1].view
    over = last.get("phase") == "over"
    out = Summary(over=over)
    if over:
        w = str(last.get("winner") or "")
        out.winner = say(seat_title(pm, w)) if w else ""
        out.why = say(pm.reason_text(last.get("reason")))
    applied: dict[str, list[int]] = {}
    spent: Counter[str] = Counter()
    acts: Counter[str] = Counter()
    for i, st in enumerate(all_steps):
        r = st.record
        for line in pm.turning_points(r):
            out.points.append((r.seq, say(line)))
        for rule in st.rules:
            applied.setdefault(rule, []).append(r.seq)
        if st.mark == "correction":
            out.corrections.append(r.seq)
        actor = str(r.body.get("actor") or r.seat) if r.kind == "action" else ""
        if actor in players and i:
            spent[actor] += _seconds(all_steps[i - 1].record.time, r.time)
            acts[actor] += 1
    for rule, seqs in applied.items():
        cited = pm.citations([rule])
        out.rulings.append((say(cited[0]) if cited else rule, len(seqs), seqs))
    out.took = [(say(seat_title(pm, p)), duration(spent[p]), acts[p]) for p in players]
    return out


def pose_ruling(
    ref: Referee, pm: PageModule, game: str, seat: str, pose: str, at: int
) -> Ruling[Any] | str:
    """The ruling on ``pose`` played right after event ``at``, or why there is none."""
    try:
        action = pm.action_from_text(pose)
    except Unreadable as e:
        why = e.args[0] if len(e.args) == 1 and isinstance(e.args[0], str) else str(e)
        return gettext("the action does not read: %(why)s", why=say(why))
    try:
        return ref.what_if(game, seat, action, at, lang=lang())
    except ServiceError as e:
        return f"{say(e.message)} [{e.rule}]" if e.rule else say(e.message)


@bp.get("/g/<game>/review")
@with_game
def review(game: str) -> str:
    """The review at event ``?at=N`` (default the first), as ``?view=SEAT`` saw it."""
    ref = get_referee()
    seat = seat_of(game)
    views = ref.review_views(game, seat)
    view = request.args.get("view") or views[0]
    if view not in views:
        abort(403)
    now = ref.view(game, seat)
    pm = page_for(now)
    players = list(pm.players)
    all_steps = steps(ref, pm, game, seat, view)
    at = request.args.get("at", type=int)
    if at is None or not 0 <= at < len(all_steps):
        at = 0
    here = all_steps[at]
    study = ref.may_study(game, seat)
    open_now = ref.open_actions(game, seat, at) if study else {}
    pose = request.args.get("pose", "").strip()
    ruling = pose_ruling(ref, pm, game, seat, pose, at) if pose and study else None
    return render_template(
        "review.html",
        game=game,
        seat=seat,
        at=at,
        last=len(all_steps) - 1,
        step=here,
        steps=all_steps,
        view=view,
        views=[(v, say(seat_title(pm, v))) for v in views],
        status=say(pm.table_status(cast(TableRow, here.view))),  # its phase and turn
        svg=Markup(pm.table_svg(here.view, seat=view, tappable=False)),
        citations=pm.citations(here.rules),
        study=study,
        open_now=[(say(seat_title(pm, p)), acts) for p, acts in open_now.items()],
        pose=pose,
        ruling=ruling,
        ruling_cites=sorted(ruling.citations.items()) if isinstance(ruling, Ruling) else [],
        summary=summarise(pm, all_steps, players),
        pages=pm,
    )
