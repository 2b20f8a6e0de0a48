"""The pages people hold: home and new game, the seat pages, the public table, the judge's
desk, replay, the offline report and the log export.

HTML first (STYLE.md 13): every page works as plain forms that post to a route here, which calls
the referee service and redirects back (post/redirect/get); the script in ``static/app.js`` only
adds live updates, head tracking and tapping the drawing. Every page is cut for the seat the
request holds (:func:`web.auth.seat_of`): what a page shows comes from ``Referee.view`` and
``Referee.log`` for that seat and from the game's card catalogue, never from hidden state.

Refusals are shown on the page they came from with the rule id and the reason; nothing is
changed by a refused request (the service guarantees it).
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flask import (
    Blueprint,
    abort,
    flash,
    get_flashed_messages,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from markupsafe import Markup
from werkzeug.wrappers import Response

from engine import Action, NotationError, Player, parse_action_text
from engine.actions import (
    Challenge,
    Dionysus,
    Draw,
    EndTurn,
    God,
    Hades,
    PegasusField,
    PegasusHand,
    PegasusOwnFigure,
    Persephone,
    Play,
    PythiaReveal,
    PythiaSpy,
    RemoveFigure,
    Sirens,
)
from engine.cards import HOSTAGE_NAME, Catalogue
from engine.profiles import PROFILE_DEFAULTS, SWITCH_DECISION, SWITCH_TYPES, Profile
from referee.board import describe_event_json
from referee.jsonin import loads_strict
from referee.log import Record
from referee.service import NeedsInput, Referee, ServiceError, fill_input
from web import auth
from web.camera import has_kit, photo_context
from web.drawing import table_svg

bp = Blueprint("pages", __name__, template_folder="templates")

SEAT_TITLE = {"hera": "Hera", "zeus": "Zeus", "judge": "Judge", "public": "Public"}

# One line per switch value: what it changes (RULES.md D1, D3, D4, D5), in our own words.
SWITCH_HELP: dict[str, dict[str, str]] = {
    "pandora_scope": {
        "both": "a challenged first-row Pandora empties the column on both sides",
        "owner": "only Pandora's owner loses the column; the challenger stays face up",
    },
    "pythia_defends": {
        "normal": "a challenged Pythia defends with her printed strength",
        "always_loses": "a challenged Pythia is always discarded (the translations' reading)",
    },
    "own_figure_removal": {
        "action": "a player removes his own figure for 1 action point",
        "pegasus": "a player removes his own figure by playing a Pegasus from the hand on it",
        "both": "either way: 1 action point, or a Pegasus from the hand",
    },
    "pegasus_beside_own_figure": {
        "allowed": "Pegasus may hit the card opposite one's own figure (the designer's answer)",
        "forbidden": "no Pegasus beside one's own figure, except against the opposing figure",
    },
}
SWITCH_TITLE = {
    "pandora_scope": "Pandora's reach",
    "pythia_defends": "Pythia when challenged",
    "own_figure_removal": "Removing your own figure",
    "pegasus_beside_own_figure": "Pegasus beside your own figure",
}
PROFILE_HELP = {
    "rio-grande": "the English rules as printed, with the designer's FAQ where they are silent",
    "kosmos": "as rio-grande, but Hera always starts and a Pegasus removes your own figure",
    "translations": "as rio-grande, but a challenged Pythia always loses",
}
NEEDS_TEXT = {
    "reveal.attacker": "Which card is your front card in the challenging column?",
    "reveal.defender": "Your front card is challenged: which card is it?",
    "reveal.target": "Pegasus turns your front card face up: which card is it?",
    "reveal.cards": "Pythia turns the face-down cards of your column face up: which are they "
    "(front to back)?",
    "reveal.hand": "Pythia looks at your hand: name the cards the referee does not know yet.",
    "pick": "Pegasus drew a card from the hand: which card came out?",
    "place": "The card Pegasus drew goes face up to the front of a column: which column?",
    "at": "Where did the hostage land when the deck was shuffled (0 = on top)?",
}
GROUPS = (
    ("draw", "Draw"),
    ("play", "Play a card into a column"),
    ("challenge", "Challenge"),
    ("pegasus", "Pegasus"),
    ("pythia", "Pythia"),
    ("myth", "Other myth cards"),
    ("god", "God card and figure"),
    ("end", "End the turn"),
)


# ---- helpers (pure) ------------------------------------------------------------------------


def group_of(a: Action) -> str:
    """The group a player looks for an action in (the page's sections, in order)."""
    if isinstance(a, Draw):
        return "draw"
    if isinstance(a, Play):
        return "play"
    if isinstance(a, Challenge):
        return "challenge"
    if isinstance(a, PegasusHand | PegasusField | PegasusOwnFigure):
        return "pegasus"
    if isinstance(a, PythiaSpy | PythiaReveal):
        return "pythia"
    if isinstance(a, Sirens | Hades | Persephone | Dionysus):
        return "myth"
    if isinstance(a, God | RemoveFigure):
        return "god"
    if isinstance(a, EndTurn):
        return "end"
    return "other"


@dataclass
class Controls:
    """The legal actions of a view, grouped and with the choices the forms need."""

    groups: dict[str, list[Action]] = field(default_factory=dict)
    play_cards: list[str] = field(default_factory=list)
    play_columns: list[int] = field(default_factory=list)
    hades_cards: list[str] = field(default_factory=list)
    dionysus: list[Dionysus] = field(default_factory=list)
    other: list[str] = field(default_factory=list)

    def has(self, group: str) -> bool:
        return bool(self.groups.get(group))


def controls_for(legal: Sequence[str]) -> Controls:
    """Groups the view's legal action texts (``Referee.view(...)["legal"]``). Texts that do not
    parse are kept as they are under ``other`` (never dropped silently)."""
    c = Controls()
    for text in legal:
        try:
            a = parse_action_text(text)
        except NotationError:
            c.other.append(text)
            continue
        g = group_of(a)
        if g == "other":
            c.other.append(text)
            continue
        c.groups.setdefault(g, []).append(a)
        if isinstance(a, Play):
            if a.card not in c.play_cards:
                c.play_cards.append(a.card)
            if a.column not in c.play_columns:
                c.play_columns.append(a.column)
        elif isinstance(a, Hades) and a.card not in c.hades_cards:
            c.hades_cards.append(a.card)
        elif isinstance(a, Dionysus):
            c.dionysus.append(a)
    c.play_columns.sort()
    return c


def action_label(a: Action) -> str:
    """A button's words for one action."""
    if isinstance(a, Challenge):
        return f"Challenge in column {a.column}"
    if isinstance(a, PegasusHand):
        return "Pegasus against the hand (draw blind)"
    if isinstance(a, PegasusField):
        return f"Pegasus against the first row, column {a.column}"
    if isinstance(a, PegasusOwnFigure):
        return "Pegasus on your own figure (removes it)"
    if isinstance(a, PythiaSpy):
        return "Pythia: look at the opponent's hand"
    if isinstance(a, PythiaReveal):
        return f"Pythia: turn up column {a.column}"
    if isinstance(a, Sirens):
        return "Sirens: take the opponent's top discard"
    if isinstance(a, Persephone):
        return "Persephone: take back your Pegasus cards"
    if isinstance(a, God):
        return f"God card: figure to column {a.column}"
    if isinstance(a, RemoveFigure):
        return "Remove your own figure (1 point)"
    if isinstance(a, EndTurn):
        return "End the turn"
    if isinstance(a, Draw):
        return "Draw a card"
    return a.text()


def card_names(cat: Catalogue, seat: str, held: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """The names a seat may enter for its own cards: its deck's names (from the catalogue),
    and the other deck's cards it holds through Sirens (``Name/deck``, as its own view
    ``held`` writes them). Never a name from anyone's hidden cards."""
    try:
        p = Player.parse(seat)
    except ValueError:
        return [], []
    own = sorted(cat.names(p))
    suffix = "/" + p.other.key
    taken = sorted({h.lstrip("^") for h in held if h.lstrip("^").endswith(suffix)})
    return own, taken


def playable_names(cat: Catalogue, hand: Sequence[str], p: Player) -> list[str]:
    """The cards of a hand (as the owner's view writes them) that may go to the field (D10)."""
    out = []
    for text in hand:
        name, _, deck = text.partition("/")
        origin = Player.parse(deck) if deck else p
        if text == "?" or (cat.has(name, origin) and cat.info(name, origin).can_be_played):
            out.append(text)
    return out


def parse_answer(needs: str, form: Mapping[str, str]) -> Any:
    """The value of an answer form for the input ``needs``. Raises ValueError naming the
    field when it is empty or malformed."""
    if needs in ("place", "at"):
        text = form.get("value", "").strip()
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{needs}: a number is needed, not {text!r}") from None
    if needs in ("reveal.cards", "reveal.hand") or needs.startswith("order."):
        items = [x.strip() for x in form.get("value", "").replace("\n", ",").split(",")]
        return [x for x in items if x]
    text = form.get("value", "").strip()
    if not text:
        raise ValueError(f"{needs}: choose a card")
    return text


def head_of(ref: Referee, game: str, seat: str) -> dict[str, Any]:
    """The log's head ``{"seq", "hash"}`` (the service's when it offers it)."""
    head = getattr(ref, "head", None)
    if callable(head):
        h = head(game)
        return {"seq": int(h["seq"]), "hash": str(h["hash"])}
    f = ref.folded(game)
    return {"seq": int(f.last_seq), "hash": str(f.last_hash)}


def fingerprint(ref: Referee) -> str | None:
    fp = getattr(ref, "fingerprint", None)
    return str(fp()) if callable(fp) else None


def plain_event(e: Mapping[str, Any]) -> dict[str, Any]:
    """The event with anything that is not a plain card name (a sealed or masked card, as a
    redacted log carries it) left out, so that it reads "a card"."""
    out = dict(e)
    card = out.get("card")
    if card is not None and not isinstance(card, str):
        del out["card"]
    cards = out.get("cards")
    if cards is not None and not (
        isinstance(cards, list) and all(isinstance(c, str) for c in cards)
    ):
        del out["cards"]
    return out


def describe_record(r: Record, seat: str) -> dict[str, Any]:
    """One log line for a page: time, who, what (cut for ``seat``; the judge's reasons and
    notes only for the judge)."""
    judge = seat == "judge"
    body = r.body
    lines: list[str] = []
    if r.kind == "create":
        players = body.get("players", {})
        lines.append(
            f"Game created: {players.get('hera', 'Hera')} (Hera) against "
            f"{players.get('zeus', 'Zeus')} (Zeus), profile {body.get('profile')}."
        )
    elif r.kind == "action":
        for e in r.events:
            t = describe_event_json(plain_event(e))
            if t:
                lines.append(t)
        if not lines:
            a = body.get("action", {})
            lines.append(f"{a.get('do', 'action')}".replace("_", " "))
    elif r.kind == "undo":
        lines.append(
            f"The judge corrected the record: the game continues after event {body.get('to')}."
        )
    elif r.kind == "amend":
        lines.append(f"The judge corrected the record: event {body.get('event')} was amended.")
    elif r.kind == "irregularity":
        lines.append(
            str(body.get("problem", "irregularity"))
            if judge
            else "An irregularity was recorded for the judge."
        )
    elif r.kind == "observation":
        card = body.get("card")
        who = SEAT_TITLE.get(str(body.get("player")), "")
        lines.append(f"Seen: {who}'s {card}." if card else f"A card of {who} was scanned.")
    elif r.kind in ("call", "judge_call"):
        lines.append("The judge was called to the table.")
    elif r.kind == "resolve":
        lines.append("The judge settled a call or an irregularity.")
    else:
        lines.append(r.kind.replace("_", " "))
    if judge:
        reason = body.get("reason") or body.get("note")
        if reason and r.kind != "irregularity":
            lines.append(f"Reason: {reason}")
    return {
        "seq": r.seq,
        "time": r.time[11:19] if len(r.time) >= 19 else r.time,
        "stamp": r.time,
        "seat": SEAT_TITLE.get(r.seat, r.seat),
        "kind": r.kind,
        "text": " ".join(lines),
        "hash": r.hash,
    }


# ---- request plumbing ------------------------------------------------------------------------


def _ref() -> Referee:
    from web.app import get_referee

    return get_referee()


def _game_or_404(game: str) -> None:
    if not auth.is_game_id(game):
        abort(404)


def _refusal(e: ServiceError) -> None:
    rule = f" [{e.rule}]" if e.rule else ""
    flash(f"Refused{rule}: {e.message}", "error")


def _back(game: str) -> Response:
    return redirect(url_for("pages.seat_page", game=game), 303)


def _submit(game: str, seat: str, raw: dict[str, Any]) -> None:
    """Submits one action from a form and flashes the outcome. A question for the submitter
    himself (his own unknown card) is kept in the session so the page asks it at once."""
    ref = _ref()
    expected = request.form.get("seq", type=int)
    try:
        receipt = ref.submit(game, seat, raw, expected_seq=expected)
    except NeedsInput as e:
        if seat in e.asked and len(e.asked) == 1 and "asked" not in ref.view(game, seat):
            session["hz_need"] = {"game": game, "raw": raw, "needs": e.needs, "text": e.message}
        else:
            who = " and ".join(SEAT_TITLE.get(s, s) for s in e.asked if s != seat)
            flash(f"Waiting for {who or 'an answer'}: {e.message} [{e.rule}]", "info")
        return
    except ServiceError as e:
        _refusal(e)
        return
    session.pop("hz_need", None)
    said = [t for t in (describe_event_json(plain_event(ev)) for ev in receipt.events) if t]
    flash(" ".join(said) or "Recorded.", "ok")


# ---- home and new game -----------------------------------------------------------------------


@bp.get("/")
def home() -> str:
    kit_ok = _kit_module() is not None
    return render_template(
        "home.html",
        profiles=[p.value for p in Profile],
        profile_help=PROFILE_HELP,
        switches=[
            (
                name,
                SWITCH_TITLE[name],
                SWITCH_DECISION[name],
                [(m.value, SWITCH_HELP[name][m.value]) for m in typ],
            )
            for name, typ in SWITCH_TYPES.items()
        ],
        defaults={p.value: PROFILE_DEFAULTS[p].to_json() for p in Profile},
        kit_ok=kit_ok,
        csrf=auth.csrf_token(""),
    )


def _kit_module() -> Any:
    try:
        from printables import kit
    except ImportError:
        return None
    return kit if hasattr(kit, "Kit") else None


@bp.post("/new")
def new_game() -> Response:
    """Creates a game from the home form. Raises CsrfError; a refused choice goes back to the
    form with the reason."""
    auth.check_csrf("")
    f = request.form
    switches = {name: f[name] for name in SWITCH_TYPES if f.get(name) and f.get(name) != "default"}
    players = {p: f.get(p, "").strip()[:40] for p in ("hera", "zeus") if f.get(p, "").strip()}
    starting = f.get("starting", "default")
    catalogue = kit_json = None
    kit_file = request.files.get("kit")
    if kit_file is not None and kit_file.filename:
        from web.camera import parse_kit_upload

        try:  # the kit (secret included) stays on the server, beside the game
            kit = parse_kit_upload(kit_file.read(1024 * 1024), kit_file.filename[:60])
            catalogue, kit_json = kit.catalogue_for_game(), kit.to_json()
        except ValueError as e:
            flash(f"Refused: the kit file could not be read: {e}", "error")
            return redirect(url_for("pages.home"), 303)
    kw: dict[str, Any] = {
        "profile": f.get("profile", "rio-grande"),
        "switches": switches,
        "players": players,
        "catalogue": catalogue,
        "kit": kit_json,
    }
    if starting in ("hera", "zeus", "table"):
        kw["starting"] = starting
    try:
        created = _ref().create_game(**kw)
    except TypeError:  # pragma: no cover - a service without "decide at the table" yet
        kw["starting"] = None
        created = _ref().create_game(**kw)
    except ServiceError as e:
        _refusal(e)
        return redirect(url_for("pages.home"), 303)
    auth.remember_codes(created.game, created.codes)
    return redirect(url_for("pages.created", game=created.game), 303)


def qr_svg(data: str) -> Markup:
    """A QR code of ``data`` as inline SVG markup (made here, no network)."""
    import qrcode  # type: ignore[import-untyped]
    import qrcode.image.svg  # type: ignore[import-untyped]

    img = qrcode.make(data, image_factory=qrcode.image.svg.SvgPathImage, box_size=8, border=2)
    buf = io.BytesIO()
    img.save(buf)
    text = buf.getvalue().decode("utf-8")
    start = text.find("<svg")
    return Markup(text[start:])


@bp.get("/g/<game>/created")
def created(game: str) -> str:
    _game_or_404(game)
    codes = auth.created_codes(game)
    base = request.host_url.rstrip("/")
    links = []
    if codes:
        for seat in ("hera", "zeus", "judge"):
            url = base + auth.join_path(game, codes[seat])
            links.append({"seat": seat, "title": SEAT_TITLE[seat], "url": url, "qr": qr_svg(url)})
    public = base + url_for("pages.seat_page", game=game)
    return render_template(
        "created.html",
        game=game,
        links=links,
        public=public,
        public_qr=qr_svg(public),
        players=_ref().view(game, "public").get("players", {}),
    )


# ---- the seat page ---------------------------------------------------------------------------


def _page_context(game: str, seat: str) -> dict[str, Any]:
    ref = _ref()
    view = ref.view(game, seat)
    f = ref.folded(game)
    cat = f.rules.catalogue
    head = head_of(ref, game, seat)
    records = ref.log(game, seat)
    log = [describe_record(r, seat) for r in records]
    ctx: dict[str, Any] = {
        "game": game,
        "seat": seat,
        "seat_title": SEAT_TITLE[seat],
        "view": view,
        "head": head,
        "svg": Markup(table_svg(view, seat=seat)),
        "log": list(reversed(log[-40:] if seat != "judge" else log)),
        "csrf": auth.csrf_token(game),
        "players": view.get("players", {}),
        "phase": view.get("phase"),
        "fingerprint": fingerprint(ref) if view.get("phase") == "over" else None,
        "corrections": sum(1 for r in records if r.kind in ("undo", "amend")),
        "profile_help": PROFILE_HELP,
    }
    turn = view.get("turn") or {}
    ctx["points_left"] = int(turn.get("ap", 0)) - int(turn.get("used", 0))
    if seat in ("hera", "zeus"):
        p = Player.parse(seat)
        board: dict[str, Any] = dict(view)
        mine = board[seat]
        held = [*mine.get("hand", []), *(x for col in mine.get("field", []) for x in col)]
        own, taken = card_names(cat, seat, held)
        ctx.update(
            their_names=sorted(cat.names(p.other)),
            me=p,
            mine=mine,
            theirs=board[p.other.key],
            own_names=own,
            taken_names=taken,
            playable=playable_names(cat, mine.get("hand", []), p),
            controls=controls_for(_with_blind_pegasus(view, p)),
            groups=GROUPS,
            label=action_label,
            asked=view.get("asked"),
            need=_own_need(game),
            needs_text=NEEDS_TEXT,
            setup=_setup_facts(ref, game, p, mine) if view.get("phase") == "setup" else None,
            hostage=HOSTAGE_NAME[p],
            photo=photo_context(game, seat, view, view.get("legal", [])),
            has_kit=has_kit(game),
        )
    elif seat == "judge":
        ctx.update(_judge_context(ref, game, view, records))
    return ctx


def _with_blind_pegasus(view: Mapping[str, Any], p: Player) -> list[str]:
    """The view's legal list, with ``pegasus hand`` when the service lists a Pegasus against
    the first row (so the seat holds Pegasus and it is not his first turn, D5/D6) and the
    opponent holds cards, but not the blind draw from the hand (D2). The service's list misses
    it when the opponent's hand is unknown to the seat (reported to the lead); the service
    still decides when it is submitted."""
    legal = list(view.get("legal", []))
    if (
        "pegasus hand" not in legal
        and any(t.startswith("pegasus field") for t in legal)
        and int(view.get(p.other.key, {}).get("hand_size", 0)) > 0
    ):
        legal.append("pegasus hand")
    return legal


def _own_need(game: str) -> dict[str, Any] | None:
    need = session.get("hz_need")
    if isinstance(need, dict) and need.get("game") == game:
        return need
    return None


def _setup_facts(ref: Referee, game: str, p: Player, mine: Mapping[str, Any]) -> dict[str, Any]:
    """Where a player stands in setup (D19): only public facts and his own hand."""
    st = ref.folded(game).state
    hand = list(mine.get("hand", []))
    return {
        "starting": st.starting.key if st.starting is not None else None,
        "dealt": bool(st.dealt[p]),
        "placed": bool(st.placed[p]),
        "other_dealt": bool(st.dealt[p.other]),
        "other_placed": bool(st.placed[p.other]),
        "hostage_in_hand": HOSTAGE_NAME[p] in hand,
    }


def _judge_context(
    ref: Referee, game: str, view: Mapping[str, Any], records: list[Record]
) -> dict[str, Any]:
    ruling = None
    pose = request.args.get("pose", "").strip()
    at_text = request.args.get("at", "").strip()
    if pose:
        ruling = _ruling(ref, game, pose, at_text)
    st = ref.folded(game).state
    return {
        "irregularities": view.get("irregularities", []),
        "broken": view.get("broken"),
        "calls": _open_calls(ref, game),
        "ruling": ruling,
        "pose": pose,
        "pose_at": at_text,
        "actions": [r for r in records if r.kind == "action"],
        "setup_starting": st.starting.key if st.starting is not None else None,
        "legal": view.get("legal", []),
    }


def _open_calls(ref: Referee, game: str) -> list[dict[str, Any]]:
    over = getattr(ref, "overview", None)
    if not callable(over):
        return []
    for t in over("judge"):
        if t.get("game") == game:
            calls = t.get("open_calls", [])
            return list(calls) if isinstance(calls, list) else []
    return []


def _ruling(ref: Referee, game: str, pose: str, at_text: str) -> dict[str, Any]:
    """The ruling on an action posed on the position after event ``at`` (default: now),
    without changing the game. Errors come back as ``{"error": ...}``."""
    try:
        action = parse_action_text(pose)
        at = int(at_text) if at_text else None
    except NotationError as e:
        return {"error": f"the action does not read: {e}"}
    except ValueError:
        return {"error": f"'at' must be an event number, not {at_text!r}"}
    rule = getattr(ref, "ruling", None)
    try:
        if callable(rule):
            out = rule(game, "judge", action.to_json(), at=at)
            return dict(out)
        from referee.ruling import render_json, rule_on

        f = ref.folded(game)
        st = f.state if at is None else f.state_at(at)
        return render_json(rule_on(st, [action]))
    except ServiceError as e:
        return {"error": e.message, "rule": e.rule}
    except Exception as e:  # NeedsInputError and friends: a ruling needs the facts
        return {"error": str(e)}


@bp.get("/g/<game>")
def seat_page(game: str) -> str:
    """The page of whoever the cookie says: a player's seat, the judge's desk or the public
    table. Raises NotFound for an unknown game."""
    _game_or_404(game)
    seat = auth.seat_of(game)
    ctx = _page_context(game, seat)
    template = {"hera": "seat.html", "zeus": "seat.html", "judge": "judge.html"}.get(
        seat, "public.html"
    )
    return render_template(template, **ctx)


def _form_action(f: Mapping[str, str], seat: str) -> dict[str, Any]:
    """The action JSON a seat's form describes. Raises ValueError naming the bad field."""
    if f.get("action"):
        try:
            return parse_action_text(f["action"]).to_json()
        except NotationError as e:
            raise ValueError(f"action: {e}") from None
    do = f.get("do", "")
    if do == "draw":
        raw: dict[str, Any] = {"do": "draw"}
        if f.get("card") and f["card"] != "?":
            raw["card"] = f["card"]
        return raw
    if do == "play":
        raw = {"do": "play", "card": f.get("card") or "?", "column": _int(f, "column")}
        if f.get("position") and f["position"] != "back":
            raw["position"] = _int(f, "position")
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
    raise ValueError(f"do: unknown form action {do!r}")


def _int(f: Mapping[str, str], key: str) -> int:
    try:
        return int(f.get(key, ""))
    except ValueError:
        raise ValueError(f"{key}: choose a number, not {f.get(key)!r}") from None


@bp.post("/g/<game>/act")
def act(game: str) -> Response:
    """Submits the action a seat's form describes. Raises CsrfError, Forbidden."""
    _game_or_404(game)
    auth.check_csrf(game)
    seat = auth.seat_of(game)
    f = request.form
    try:
        if f.get("raw") and f.get("needs"):  # the answer to a question for the submitter
            raw = loads_strict(f["raw"], "raw", max_bytes=8000, max_depth=8)
            if not isinstance(raw, dict):
                raise ValueError("raw: not an action")
            fill_input(raw, f["needs"], parse_answer(f["needs"], f))
        else:
            raw = _form_action(f, seat)
    except (ValueError, json.JSONDecodeError) as e:
        flash(f"Refused: {e}", "error")
        return _back(game)
    if f.get("cancel"):
        session.pop("hz_need", None)
        return _back(game)
    _submit(game, seat, raw)
    return _back(game)


@bp.post("/g/<game>/answer")
def answer(game: str) -> Response:
    """Answers the question the referee asked this seat (``view["asked"]``)."""
    _game_or_404(game)
    auth.check_csrf(game)
    seat = auth.seat_of(game)
    needs = request.form.get("needs", "")
    try:
        value = parse_answer(needs, request.form)
        receipt = _ref().answer(game, seat, value)
    except ValueError as e:
        flash(f"Refused: {e}", "error")
        return _back(game)
    except NeedsInput as e:
        who = " and ".join(SEAT_TITLE.get(s, s) for s in e.asked)
        flash(f"Thank you. Now waiting for {who}: {e.message}", "info")
        return _back(game)
    except ServiceError as e:
        _refusal(e)
        return _back(game)
    said = [t for t in (describe_event_json(plain_event(ev)) for ev in receipt.events) if t]
    flash(" ".join(said) or "Recorded.", "ok")
    return _back(game)


@bp.post("/g/<game>/observe")
def observe(game: str) -> Response:
    """Records a card this seat sees (a scan by hand: tapping its name)."""
    _game_or_404(game)
    auth.check_csrf(game)
    seat = auth.seat_of(game)
    f = request.form
    obs: dict[str, Any] = {
        "player": f.get("player", seat),
        "zone": f.get("zone", "hand"),
        "card": f.get("card", ""),
        "source": "manual",
    }
    if obs["zone"] == "field":
        try:
            obs["column"], obs["position"] = _int(f, "column"), _int(f, "position")
        except ValueError as e:
            flash(f"Refused: {e}", "error")
            return _back(game)
    try:
        _ref().observe(game, seat, obs)
        flash(f"Recorded: {obs['card']}.", "ok")
    except ServiceError as e:
        _refusal(e)
    return _back(game)


@bp.post("/g/<game>/call")
def call_judge(game: str) -> Response:
    """Calls the judge to the table (with an optional note)."""
    _game_or_404(game)
    auth.check_csrf(game)
    seat = auth.seat_of(game)
    ref = _ref()
    call = getattr(ref, "call_judge", None)
    if not callable(call):
        flash("Calling the judge from the page is not available on this server yet.", "error")
        return _back(game)
    try:
        call(game, seat, request.form.get("note", "").strip()[:500])
        flash("The judge has been called to your table.", "ok")
    except ServiceError as e:
        _refusal(e)
    return _back(game)


# ---- the judge -------------------------------------------------------------------------------


def _judge_only(game: str) -> None:
    _game_or_404(game)
    auth.check_csrf(game)
    if auth.seat_of(game) != "judge":
        abort(403)


@bp.post("/g/<game>/judge/<what>")
def judge_action(game: str, what: str) -> Response:
    """The judge's tools: ``undo``, ``amend``, ``stuck`` (confirm a declared dead end, D8),
    ``resolve``, ``reissue``, ``act`` (an action for a player, as text). Raises Forbidden."""
    _judge_only(game)
    ref = _ref()
    f = request.form
    reason = f.get("reason", "").strip()[:500]
    try:
        if what == "undo":
            rec = ref.undo(game, "judge", _int(f, "to"), reason)
            flash(f"Undone: the game continues after event {rec.body['to']}.", "ok")
        elif what == "amend":
            raw = parse_action_text(f.get("action", "")).to_json()
            ref.amend(game, "judge", _int(f, "event"), raw, reason)
            flash(f"Event {f.get('event')} amended.", "ok")
        elif what == "stuck":
            _submit(game, "judge", {"do": "declare_stuck"})
        elif what == "act":
            _submit(game, "judge", parse_action_text(f.get("action", "")).to_json())
        elif what == "resolve":
            resolve = getattr(ref, "resolve", None)
            if not callable(resolve):
                raise ValueError("resolving is not available on this server yet")
            resolve(game, "judge", _int(f, "event"), reason)
            flash(f"Event {f.get('event')} settled.", "ok")
        elif what == "reissue":
            reissue = getattr(ref, "reissue", None)
            if not callable(reissue):
                raise ValueError("reissuing links is not available on this server yet")
            seat = f.get("seat", "")
            code = reissue(game, "judge", seat)
            url = request.host_url.rstrip("/") + auth.join_path(game, code)
            session["hz_reissued"] = {"game": game, "seat": seat, "url": url}
            flash(
                f"A new link for {SEAT_TITLE.get(seat, seat)}; the old one opens nothing now.", "ok"
            )
        else:
            abort(404)
    except NotationError as e:
        flash(f"Refused: the action does not read: {e}", "error")
    except ValueError as e:
        flash(f"Refused: {e}", "error")
    except ServiceError as e:
        _refusal(e)
    return _back(game)


@bp.get("/g/<game>/reissued")
def reissued(game: str) -> str:
    """The reissued link, once, with its QR code (for the judge only)."""
    _game_or_404(game)
    if auth.seat_of(game) != "judge":
        abort(403)
    hit = session.pop("hz_reissued", None)
    if not isinstance(hit, dict) or hit.get("game") != game:
        abort(404)
    return render_template(
        "reissued.html",
        game=game,
        seat=SEAT_TITLE.get(hit["seat"], hit["seat"]),
        url=hit["url"],
        qr=qr_svg(hit["url"]),
    )


@bp.get("/judge")
def tables() -> str:
    """All the tables this browser judges, at a glance."""
    ref = _ref()
    games = auth.judged_games()
    rows = []
    over = getattr(ref, "overview", None)
    by_game = {}
    if callable(over):
        by_game = {t["game"]: t for t in over("judge")}
    for g in games:
        t = by_game.get(g)
        if t is None:
            v = ref.view(g, "judge")
            last = ref.log(g, "judge")[-1]
            t = {
                "game": g,
                "players": v.get("players", {}),
                "phase": v.get("phase"),
                "turn": v.get("turn"),
                "winner": v.get("winner"),
                "reason": v.get("reason"),
                "open_calls": [],
                "open_irregularities": v.get("irregularities", []),
                "last_time": last.time,
                "head": {"seq": last.seq, "hash": last.hash},
            }
        rows.append(t)
    return render_template("tables.html", rows=rows, seat="judge", head=None)


# ---- replay, report, export ------------------------------------------------------------------


def replay_frames(ref: Referee, game: str, seat: str) -> list[dict[str, Any]]:
    """Every event of ``game`` as ``seat`` may read it, with the table as that seat saw it
    right after the event (``Referee.replay``: folded on the server from the full log, each
    picture drawn from that seat's view, so nothing hidden from the seat leaves)."""
    return [
        {
            "record": describe_record(Record.from_json(s["record"]), seat),
            "view": s["view"],
            "rules": s["rules"],
        }
        for s in ref.replay(game, seat)
    ]


@bp.get("/g/<game>/replay")
def replay(game: str) -> str:
    """One event at a time, with the table after it (``?at=N``; default the last)."""
    _game_or_404(game)
    ref = _ref()
    seat = auth.seat_of(game)
    frames = replay_frames(ref, game, seat)
    at = request.args.get("at", type=int)
    if at is None or not 0 <= at < len(frames):
        at = len(frames) - 1
    fr = frames[at]
    from engine import RULES

    return render_template(
        "replay.html",
        game=game,
        seat=seat,
        at=at,
        last=len(frames) - 1,
        frame=fr,
        svg=Markup(table_svg(fr["view"], seat=seat, tappable=False)),
        citations=[RULES[x].citation() for x in fr["rules"] if x in RULES],
        head=head_of(ref, game, seat),
        players=ref.view(game, seat).get("players", {}),
    )


@bp.get("/g/<game>/report.html")
def report(game: str) -> Response:
    """The offline report: every event with its picture and rules, one self-contained file."""
    _game_or_404(game)
    from web.report import render_report

    ref = _ref()
    seat = auth.seat_of(game)
    html = render_report(ref, game, seat, fingerprint=fingerprint(ref))
    resp = Response(html, mimetype="text/html")
    resp.headers["Content-Disposition"] = f'attachment; filename="{game}-{seat}.html"'
    return resp


@bp.get("/g/<game>/export.jsonl")
def export(game: str) -> Response:
    """The log as JSON lines, cut for the seat (the judge's is whole)."""
    _game_or_404(game)
    seat = auth.seat_of(game)
    text = _ref().export(game, seat)
    resp = Response(text, mimetype="application/x-ndjson")
    resp.headers["Content-Disposition"] = f'attachment; filename="{game}-{seat}.jsonl"'
    return resp


@bp.app_context_processor
def _globals() -> dict[str, Any]:
    return {"messages": lambda: get_flashed_messages(with_categories=True)}
