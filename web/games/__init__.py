"""The page modules: what the pages show of each game, chosen by a view's ``game_module``.

The page shell (the layout, head tracking and live updates, the log, the questions and waiting
banners, calls to the judge, the judge's desk, replay, report, export, home and error pages)
knows no game's rules. For everything a game decides it asks the game's page module, found by
the name of the game's module in the referee (:mod:`referee.games`; every view and overview row
carries it as ``game_module``):

- the table drawing (an SVG picture from a seat's view) and its styles;
- the seat's controls and labels, pickers and card names for the forms (its templates);
- setup guidance, the answer forms for the game's questions and their texts;
- the sentences of the log (its records' and events' descriptions);
- the game's additions to each page's context, and its create form on the home page;
- extra blueprints (a camera's pages, say), and what the API reads in photos and frames.

A page module's templates live under ``web/templates/<its folder>/``; the shell's templates
include the parts it names in :attr:`PageModule.templates` (see there). The modules this app
serves are listed in :mod:`web.games.installed`; :func:`install` puts them on an app, and
:func:`page_module` finds one during a request. Adding a game is a page module, its templates
and one line in :mod:`web.games.installed`; nothing in the shell changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from flask import Blueprint, Flask, current_app

from referee.log import Record
from referee.models import SeatView, TableRow
from referee.service import Referee, Unavailable
from web.i18n import gettext

EXTENSION = "page_modules"


def N_(text: str) -> str:  # a mark for extraction (engine.say's, which the shell may not import)
    return text


OTHER_SEATS = {"judge": N_("Judge"), "public": N_("Public")}

# The parts of the shell's pages a page module fills (keys of ``PageModule.templates``):
PARTS = (
    "seat",  # a player's page between the questions and the call for the judge
    "answer",  # the fields of the answer to the referee's question (in the shell's form)
    "need",  # the fields of the answer to a question about the submitter's own action
    "status",  # the status line: setup, whose turn, what is left of it
    "judge_table",  # the judge's table below the drawing (e.g. the hands)
    "judge_tools",  # the judge's game tools beside the corrections
    "create",  # the home page's form fields for a new game of this game
)


def templates_in(folder: str) -> Mapping[str, str]:
    """Every part of :data:`PARTS` as the template ``<folder>/_<part>.html`` (a page module's
    ``templates`` when it fills every part from one folder)."""
    return {part: f"{folder}/_{part}.html" for part in PARTS}


class Unreadable(ValueError):
    """A text that is not an action in the game's notation (the message says why)."""


@dataclass(frozen=True)
class CreateRequest:
    """A new game as its create form or the API's create body describes it
    (``Referee.create_game``'s arguments): the game's own options (``Game.options``), the
    players' names, the kit it is played with (kept on the server)."""

    options: dict[str, Any] = field(default_factory=dict)
    players: dict[str, str] = field(default_factory=dict)
    kit: Mapping[str, Any] | None = None


class PageModule(Protocol):
    """What the pages show of one game. Every method is a pure function of the service's
    values for the seat that asks (a view, a record, a form), except the context methods,
    which may ask the service (for that seat) and the request."""

    name: str  # the game's module in the referee, as views carry it (``Game.name``)
    title: str  # for people
    players: tuple[str, ...]  # the player seats, in seat order
    templates: Mapping[str, str]  # PARTS -> template path
    svg_css: str  # the drawing's styles for a page that stands alone (the offline report)
    stylesheets: tuple[str, ...]  # its files in web/static/, linked by every page of a game

    def seat_title(self, seat: str) -> str:
        """A player seat's title, as people write it."""
        ...

    def blueprints(self) -> Sequence[Blueprint]:
        """The game's own pages (registered with the app)."""
        ...

    # ---- the table ---------------------------------------------------------------------------

    def table_svg(
        self, view: Mapping[str, Any], *, seat: str, tappable: bool = True, side: str | None = None
    ) -> str:
        """The table as one ``<svg>`` element drawn from ``view`` alone (every text escaped),
        one image with one label for a screen reader. A player sees it from his own side; the
        judge and the public from ``side`` (one of ``players``; the first by default)."""
        ...

    def table_text(self, view: Mapping[str, Any], *, seat: str) -> str:
        """The drawing's text version for a screen reader (escaped HTML, visually hidden),
        saying exactly what the drawing shows."""
        ...

    def put_back_words(self, undone: Record, seat: str, lead: str = "Taken back") -> str:
        """What ``seat`` is told to put back on the table once the action ``undone`` (cut for
        ``seat``) was taken back or undone by the judge (``lead`` opens the words)."""
        ...

    def extras_html(self, view: Mapping[str, Any]) -> str:
        """What the offline report shows below the drawing (escaped HTML; may be "")."""
        ...

    def citations(self, rules: Sequence[str]) -> list[str]:
        """The citations of the rules an action applied (the replay's and report's notes)."""
        ...

    def reason_text(self, reason: str | None) -> str:
        """Why the game ended, in words."""
        ...

    def table_status(self, row: TableRow) -> str:
        """A table's state in a few words, for the judge's overview."""
        ...

    # ---- pages -------------------------------------------------------------------------------

    def seat_context(
        self, ref: Referee, game: str, seat: str, view: SeatView[Any]
    ) -> dict[str, Any]:
        """What a player's page needs beyond the shell's context (its templates read it)."""
        ...

    def judge_context(self, ref: Referee, game: str, view: SeatView[Any]) -> dict[str, Any]:
        """What the judge's desk needs beyond the shell's context."""
        ...

    def common_context(self, view: SeatView[Any]) -> dict[str, Any]:
        """What every seat's page needs of the game (``status_notes``: words beside the
        profile in the status line)."""
        ...

    def question_text(self, needs: str) -> str | None:
        """The referee's question for the value ``needs``, in words (None: the service's)."""
        ...

    # ---- forms -------------------------------------------------------------------------------

    def form_action(self, form: Mapping[str, str], seat: str) -> dict[str, Any]:
        """The action JSON a seat's form describes. Raises ValueError naming the field."""
        ...

    def parse_answer(self, needs: str, form: Mapping[str, str]) -> Any:
        """The value an answer form gives for ``needs``. Raises ValueError naming the field."""
        ...

    def form_observation(self, form: Mapping[str, str], seat: str) -> dict[str, Any]:
        """The observation a seat's "I see this card" form describes. Raises ValueError."""
        ...

    def action_from_text(self, text: str) -> dict[str, Any]:
        """The action JSON of a text in the game's notation. Raises Unreadable."""
        ...

    def action_summary(self, action: Mapping[str, Any]) -> str:
        """A recorded action in a few words (the judge's amend list)."""
        ...

    def action_words(self, action: Mapping[str, Any]) -> str:
        """An action (its JSON) as a button says it, in the request's language (the
        guardian's confirmation page: the action warned of and the ways out)."""
        ...

    def judge_action(self, what: str) -> dict[str, Any] | None:
        """The action of the judge's game tool ``what`` (None: no such tool)."""
        ...

    # ---- photos and frames (the API's) -------------------------------------------------------

    def read_photo(self, game: str, data: bytes) -> dict[str, Any]:
        """The cards the game's sticker kit reads in a photo from the seat of this request
        (the API's ``/photos``; records nothing). Raises Forbidden for the public seat, NoKit
        when the game has no kit the camera reads, the image errors of :mod:`web.uploads`."""
        ...

    def load_kit(self, path: str) -> Any:
        """The server's kit (``referee serve --kit``), read for the camera of every game of
        this module created without one. Raises ValueError naming the file and the problem."""
        ...

    def read_frame(self, game: str, data: bytes, live: bool) -> dict[str, Any]:
        """One camera frame of the table read against the view of this request's seat (the
        API's ``/frames``; ``live``: a frame of a stream, not a still). Raises as
        :meth:`read_photo`, and TooManyFrames or Busy."""
        ...

    # ---- the log -----------------------------------------------------------------------------

    def describe_record(self, record: Record, seat: str) -> list[str] | None:
        """The sentences of a game record (``create``, ``action``, ``observation``) as ``seat``
        reads it; None for a record the shell describes (corrections, calls, rulings)."""
        ...

    def describe_events(self, events: Iterable[Mapping[str, Any]]) -> list[str]:
        """One sentence per event that says something (sealed values read "a card")."""
        ...

    def turning_points(self, record: Record) -> list[str]:
        """The sentences of ``record`` (as its reader's cut holds it) that mark a turning
        point, for the review's summary (a challenge with both strengths, a power that
        changed the game, a check of the table, the end); none for most records. A sealed
        value names nothing, as in the log."""
        ...

    # ---- a new game --------------------------------------------------------------------------

    def create_context(self) -> dict[str, Any]:
        """What the game's create form shows (profiles, switches...)."""
        ...

    def create_request(self, form: Mapping[str, str], files: Mapping[str, Any]) -> CreateRequest:
        """The new game the create form describes. Raises ValueError with the reason."""
        ...

    def api_request(self, body: Mapping[str, Any]) -> CreateRequest:
        """The new game the API's create body (loaded by ``CreateGameSchema``) describes: the
        game's options given (not null), the players, the kit read. Raises marshmallow's
        ValidationError naming the field."""
        ...


def given_options(game: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """The options of ``game`` (``Game.options``) a create body gives (those not null)."""
    from referee.games import game_named

    names = [o.name for o in game_named(game).options]
    return {n: body[n] for n in names if body.get(n) is not None}


# ---- the registry --------------------------------------------------------------------------


def install(app: Flask, modules: Iterable[PageModule]) -> None:
    """Serves ``modules`` on ``app``: finds them by name, registers their blueprints, and
    gives every template ``site_title``. Raises ValueError for a module that names no
    template for one of :data:`PARTS`."""
    found: dict[str, PageModule] = {}
    for pm in modules:
        missing = [p for p in PARTS if p not in pm.templates]
        if missing:
            raise ValueError(f"page module {pm.name!r} names no template for {missing}")
        found[pm.name] = pm
        for bp in pm.blueprints():
            app.register_blueprint(bp)
    app.extensions[EXTENSION] = found
    app.context_processor(lambda: {"site_title": site_title()})


def served() -> dict[str, PageModule]:
    """The page modules of the current app, by name (in their order)."""
    found: dict[str, PageModule] = current_app.extensions[EXTENSION]
    return found


def page_module(name: str) -> PageModule:
    """The page module of the game module ``name``. Raises Unavailable when this server has
    none (it cannot show that game's pages)."""
    pm = served().get(name)
    if pm is None:
        raise Unavailable(f"this server cannot show games of {str(name)[:40]!r}")
    return pm


def page_for(view: SeatView[Any] | TableRow | Mapping[str, Any]) -> PageModule:
    """The page module of the game a view or an overview row is of. Raises Unavailable."""
    if isinstance(view, SeatView):
        return page_module(view.game_module)
    return page_module(str(view.get("game_module", "")))


def page_of(ref: Referee, game: str) -> PageModule:
    """The page module of ``game``, found from the game's name (no view is built). Raises the
    service's errors for an unknown game, Unavailable when this server cannot show it."""
    return page_module(ref.game_info(game).module)


def default_module() -> PageModule:
    """The first installed page module (a new game's form defaults to its game)."""
    return next(iter(served().values()))


def seat_title(pm: PageModule, seat: str) -> str:
    """A seat's title: the judge's and the public's are the shell's, a player's the game's."""
    if seat in OTHER_SEATS:
        return gettext(OTHER_SEATS[seat])
    return pm.seat_title(seat)


def seats(pm: PageModule) -> list[tuple[str, str]]:
    """(seat, title) for each player seat of the game, in seat order."""
    return [(s, pm.seat_title(s)) for s in pm.players]


def site_title() -> str:
    """The app's name for people: the game's title when it serves one game."""
    mods = served()
    if len(mods) == 1:
        return next(iter(mods.values())).title
    return gettext("Card game")
