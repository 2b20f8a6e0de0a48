"""Acting from a page: a form's action goes to the service, its outcome comes back as a flashed
message, and the browser goes back to the table (post/redirect/get). Shared by the seat pages,
the judge's desk and the camera pages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flask import flash, redirect, request, session, url_for
from werkzeug.wrappers import Response

from referee.service import NeedsInput, ServiceError
from web.games import OTHER_SEATS, PageModule, page_for, seat_title
from web.i18n import gettext, say
from web.present import said
from web.request import get_referee, refusal

OWN_QUESTION = "question"  # the session key of a question for the submitter himself


def back(game: str, anchor: str = "") -> Response:
    """Back to the game's page (at ``anchor``), after a post; to the judge's console with
    this table chosen when the form came from there (``back=console``)."""
    if request.form.get("back") == "console":
        target = url_for("judge.tables", table=game)
    else:
        target = url_for("seat.seat_page", game=game)
    return redirect(target + (f"#{anchor}" if anchor else ""), 303)


def submit(game: str, seat: str, raw: dict[str, Any]) -> None:
    """Submits one action from a form and flashes the outcome. A question for the submitter
    himself (his own unknown card) is kept in the session so the page asks it at once."""
    ref = get_referee()
    expected = request.form.get("seq", type=int)
    try:
        receipt = ref.submit(game, seat, raw, expected_seq=expected)
    except NeedsInput as e:
        view = ref.view(game, seat)
        if seat in e.asked and len(e.asked) == 1 and not view.asked:
            session[OWN_QUESTION] = {
                "game": game,
                "raw": raw,
                "needs": e.needs,
                "text": e.message,
            }
        elif seat in e.asked:  # recorded, asked of him: the page's question form asks it
            flash(
                gettext(
                    "The referee asks you: %(question)s [%(rule)s]",
                    question=say(e.message),
                    rule=e.rule,
                ),
                "info",
            )
        else:
            others = [s for s in e.asked if s != seat]
            question = say(e.message)
            if others:
                flash(
                    gettext(
                        "Waiting for %(who)s: %(question)s [%(rule)s]",
                        who=who_and(page_for(view), others),
                        question=question,
                        rule=e.rule,
                    ),
                    "info",
                )
            else:
                flash(
                    gettext(
                        "Waiting for an answer: %(question)s [%(rule)s]",
                        question=question,
                        rule=e.rule,
                    ),
                    "info",
                )
        return
    except ServiceError as e:
        flash(refusal(e), "error")
        return
    session.pop(OWN_QUESTION, None)
    flash(said(receipt), "ok")


def who_and(pm: PageModule, seats: Sequence[str]) -> str:
    """Seats by their titles for a sentence ("A", "A and B"), in the request's language (the
    judge's and the public's titles too)."""
    names = [say(t) if s in OTHER_SEATS else t for s, t in titled(pm, seats)]
    if not names:
        return ""
    out = names[-1]
    for name in reversed(names[:-1]):
        out = gettext("%(first)s and %(second)s", first=name, second=out)
    return out


def titled(pm: PageModule, seats: Sequence[str]) -> list[tuple[str, str]]:
    return [(str(s), seat_title(pm, str(s))) for s in seats]


def reason_of(e: Exception) -> str:
    """The words of a refusal raised as ``ValueError(reason)``, in the request's language (a
    :class:`engine.say.Say` reason is said in it; a plain one passes through)."""
    if len(e.args) == 1 and isinstance(e.args[0], str):
        return say(e.args[0])
    return str(e)


def own_question(game: str) -> dict[str, Any] | None:
    """The question this browser's own submission raised at ``game``, if one waits."""
    need = session.get(OWN_QUESTION)
    if isinstance(need, dict) and need.get("game") == game:
        return need
    return None


def forget_own_question() -> None:
    """Drops the question kept by :func:`submit` (the player cancelled it)."""
    session.pop(OWN_QUESTION, None)
