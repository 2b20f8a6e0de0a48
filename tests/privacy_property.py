"""The privacy property, written once and run against the service and against the web app.

No seat ever learns what its player could not learn at the table (PRODUCT.md; STYLE 6; D21,
D22). The property is stated here once, over one table generator, and reached through a
:class:`Driver`: :class:`ServiceDriver` calls the public methods of
:class:`referee.service.Referee`; :class:`HttpDriver` does the same through the web app's HTTP
surface only (the JSON API and the pages, with each seat's cookie, by Flask's test client). The
test modules run each part against both drivers: ``test_privacy`` and ``test_d22_oracles``
against the service, ``test_web_privacy`` against the web app.

Two parts:

1. **What is hidden from whom** (:func:`no_seat_sees_hidden`). Random games are played from the
   players' own seats (seeded), with real card names, unscanned cards, the referee's questions
   (D20, D22), observations, wrong inputs (some becoming irregularities), take-backs accepted
   and declined (HZ-P14) and judge corrections.
   After every step every seat's view (and the view of every stranger: no code, a mistyped one,
   another game's, a forged judge's, all of whom read as the public), every receipt and question,
   and every few steps and at the end every reader's log, export and live stream, are checked
   against what is hidden from that reader, defined here from the table, independently of
   ``referee/views.py``:

   - the opponent's hand and face-down field cards: only their backs (``?``, or ``?/hera`` for a
     card of Hera's deck) may be shown;
   - the card a player draws, plays face down, or takes back with Hades, and the cards he
     records at setup (deal, hostage redraw, first row): only that player;
   - the hand Pythia's spy shows: only the two players;
   - a discard pile: its top and height to everyone, the whole pile to its owner (D21);
   - an observation of a face-down or hand card: only its owner; whether it identified a card
     or contradicted the record: never the opponent;
   - irregularities, the judge's reasons and notes: only the judge; a call's note: only the
     caller and the judge; an idempotency key: only the seat that sent it;
   - refusals and questions name no hidden card; the live stream carries only the log's head.

   A value hidden from a reader is not deleted from its copy of a record but replaced by a
   salted commitment (``{"$sealed": hex}``), which tells nothing about it.

2. **Twin tables** (:func:`no_reply_depends_on_hidden`). Take a reachable position and an
   opponent's card the player to move cannot see (in the opponent's hand, or face down on his
   field) that the referee does not know yet. Make twin tables from there that differ only in
   that card: the opponent scans it as X at one table and as Y at the other. Then everything the
   player is told is the same byte for byte at every table (status and body through the web
   app): every refusal, question and receipt for every action he may try (naming any card for
   a hidden one, every legal action, and every action aimed at a column on every column, with
   and without an ``order`` for his own column, right or wrong), the guardian's warnings on each
   of these before it is submitted (issue 37; on the hidden card's own column too, as they are
   worked out from his projection alone), every answer he may give to a
   question asked of himself, every observation he may report (his own cards named as cards of
   either deck, the opponent's cards), his asking to take each legal action back (HZ-P14) and
   what he sees once the opponent accepted or declined, his view and legal list before and
   after each, his log,
   his export, the public's log, the live stream, and (through the web app) his pages. An
   action on the hidden card's own column may turn it face up, after which the rules let the
   replies differ: it is judged alike at every table (the same refusal, the same question put
   back to him unrecorded, or recorded at once at all of them, as the action or as a question
   that holds the game: issue 12), and what it shows is not compared. Hashes, signatures, CSRF
   tokens and the commitments that stand for sealed values differ between twins by
   construction (each commits with a secret salt) and are blanked before comparing.
   :func:`a_scan_changes_no_refusal` compares a scanned twin with an unscanned one the same way
   for the D22 refusals and the legal list.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, cast

import pytest
from flask import Flask
from service_helpers import SIGNER, Table, fork, header, make_referee
from web_helpers import (
    Browser,
    judge_browser,
    make_app,
    raise_error,
    sse_events,
    token_of,
)
from werkzeug.test import TestResponse

from engine.herazeus import GameState, Player, legal_actions
from engine.herazeus.actions import Challenge, PegasusHand, parse_action_text
from engine.herazeus.cards import HOSTAGE_NAME, Card, Kind
from engine.herazeus.state import Phase
from referee.fold import Folded
from referee.games import GAMES
from referee.herazeus.game import may_cut
from referee.judging import changes_anything
from referee.log import SEALED, Record, is_sealed_marker, read_lines, verify
from referee.models import SeatView
from referee.service import (
    Created,
    Forbidden,
    NeedsInput,
    Receipt,
    Referee,
    Refused,
    ServiceError,
    Stale,
    fill_input,
)

SEATS = ("hera", "zeus", "public")
BACK = re.compile(r"^\?(/(hera|zeus))?$")
PROFILES = ["rio-grande", "kosmos", "translations"]
BLANK = "·"
HEX = re.compile(r"\b[0-9a-f]{8,}\b")  # hashes, their prefixes, CSRF tokens, commitments
STALE_CODE = "A" * 22  # a mistyped join code


def reads_as(reader: str) -> str:
    """The seat a reader holds: a stranger (``public:typo``, ...) holds the public seat."""
    return reader.partition(":")[0]


# ---- the drivers --------------------------------------------------------------------------


@dataclass(frozen=True)
class Told:
    """One reply as its reader got it: ``ok`` (a result), ``asked`` (a question) or ``refused``,
    and its text with what differs between twins by construction blanked."""

    kind: str
    text: str

    @property
    def body(self) -> Any:
        return json.loads(self.text.partition("\n")[2])


class Driver(Protocol):
    """One way to the referee: what a reader can do and read at a table. ``ref`` is the referee
    underneath, for the truth the checks compare with (the full state, the judge's full log);
    every read under test goes through the driver."""

    name: str
    ref: Referee

    def create_game(self, **kw: Any) -> Created: ...

    def folded(self, game: str) -> Folded: ...

    def submit(
        self,
        game: str,
        seat: str,
        raw: Mapping[str, Any],
        *,
        expected_seq: int | None = None,
        key: str | None = None,
    ) -> Receipt: ...

    def answer(self, game: str, seat: str, value: Any, *, key: str | None = None) -> Receipt: ...

    def guard(self, game: str, seat: str, raw: Mapping[str, Any]) -> list[dict[str, Any]]: ...

    def observe(self, game: str, seat: str, obs: Mapping[str, Any]) -> Record: ...

    def undo(self, game: str, seat: str, to: int, reason: str) -> None: ...

    def amend(
        self, game: str, seat: str, event: int, raw: Mapping[str, Any], reason: str
    ) -> None: ...

    def reissue(self, game: str, seat: str, target: str) -> str: ...

    def take_back(self, game: str, seat: str) -> Record: ...

    def approve(self, game: str, seat: str, proposal: int, agree: bool) -> None: ...

    def view(self, game: str, seat: str) -> dict[str, Any]: ...

    def log(self, game: str, seat: str, upto: int | None = None) -> list[Record]: ...

    def export(self, game: str, seat: str) -> str: ...

    def heads(self, game: str, seat: str) -> list[dict[str, Any]]: ...

    def strangers(self, game: str) -> list[str]: ...

    def reader_with_code(self, game: str, code: str) -> str: ...

    def pages(self, game: str, seat: str) -> list[str]: ...

    def page(self, game: str, seat: str, path: str) -> str: ...

    def told(self, call: Callable[[], object]) -> Told: ...

    def twin(self, game: str, seed: int) -> Driver: ...


def blank(x: Any) -> Any:
    """``x`` with hashes, signatures, CSRF tokens and commitments blanked (they differ between
    twins by construction and tell nothing about the value they stand for)."""
    if isinstance(x, dict):
        if is_sealed_marker(x):
            return {SEALED: BLANK}
        return {
            k: BLANK if k in ("hash", "prev", "sig", "csrf") and isinstance(v, str) else blank(v)
            for k, v in x.items()
        }
    if isinstance(x, list | tuple):
        return [blank(v) for v in x]
    return x


def blank_text(text: str) -> str:
    """A text reply (JSON lines, a page) with the same blanks: each JSON line blanked as JSON,
    any other line's hex runs (hashes, tokens) blanked."""
    out = []
    for line in text.split("\n"):
        try:
            out.append(json.dumps(blank(json.loads(line)), sort_keys=True, ensure_ascii=False))
        except ValueError:
            out.append(HEX.sub(BLANK, line))
    return "\n".join(out)


def as_json(x: object) -> Any:
    """A result as JSON: receipts and records by their own form, lists item by item."""
    if isinstance(x, Receipt | Record):
        return x.to_json()
    if isinstance(x, list):
        return [as_json(v) for v in x]
    return x


def said(x: Any) -> str:
    """What a reader is told, as bytes to compare (a text, such as an export, line by line)."""
    if isinstance(x, str):
        return blank_text(x)
    return json.dumps(blank(x), sort_keys=True, ensure_ascii=False)


class ServiceDriver:
    """The referee's public methods, called directly."""

    name = "service"

    def __init__(self, ref: Referee) -> None:
        self.ref = ref
        self.codes: dict[str, dict[str, str]] = {}
        self.stranger_codes: dict[str, str] = {}

    @classmethod
    def new(cls, seed: int) -> ServiceDriver:
        return cls(make_referee(seed=seed))

    def create_game(self, **kw: Any) -> Created:
        created = self.ref.create_game(**kw)
        self.codes[created.game] = dict(created.codes)
        return created

    def folded(self, game: str) -> Folded:
        return self.ref.folded(game)

    def submit(
        self,
        game: str,
        seat: str,
        raw: Mapping[str, Any],
        *,
        expected_seq: int | None = None,
        key: str | None = None,
    ) -> Receipt:
        return self.ref.submit(game, seat, raw, expected_seq=expected_seq, key=key)

    def answer(self, game: str, seat: str, value: Any, *, key: str | None = None) -> Receipt:
        return self.ref.answer(game, seat, value, key=key)

    def guard(self, game: str, seat: str, raw: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [c.to_json() for c in self.ref.guard(game, seat, raw)]

    def observe(self, game: str, seat: str, obs: Mapping[str, Any]) -> Record:
        return self.ref.observe(game, seat, obs)

    def undo(self, game: str, seat: str, to: int, reason: str) -> None:
        self.ref.undo(game, seat, to, reason)

    def amend(self, game: str, seat: str, event: int, raw: Mapping[str, Any], reason: str) -> None:
        self.ref.amend(game, seat, event, raw, reason)

    def reissue(self, game: str, seat: str, target: str) -> str:
        return self.ref.reissue(game, seat, target)

    def take_back(self, game: str, seat: str) -> Record:
        return self.ref.take_back(game, seat)

    def approve(self, game: str, seat: str, proposal: int, agree: bool) -> None:
        self.ref.approve(game, seat, proposal, agree)

    def _seat(self, game: str, reader: str) -> str:
        """The seat a reader's device token opens (a stranger's opens the public seat)."""
        if reader in self.stranger_codes:
            return self.ref.seat_for_token(game, self.stranger_codes[reader])
        return reader

    def view(self, game: str, seat: str) -> dict[str, Any]:
        return self.ref.view(game, self._seat(game, seat)).to_json()

    def log(self, game: str, seat: str, upto: int | None = None) -> list[Record]:
        return self.ref.log(game, self._seat(game, seat), upto)

    def export(self, game: str, seat: str) -> str:
        return self.ref.export(game, self._seat(game, seat))

    def heads(self, game: str, seat: str) -> list[dict[str, Any]]:
        return [
            cast(dict[str, Any], self.ref.head(game))
        ]  # what the live stream sends (web.live reads it so)

    def strangers(self, game: str) -> list[str]:
        """Readers holding no seat: no token, a mistyped one, another game's join code, this
        game's join code itself (a join code is never a device's token)."""
        others = [g for g in self.codes if g != game]
        self.stranger_codes = {"public:none": "", "public:typo": STALE_CODE}
        self.stranger_codes["public:join-code"] = self.codes[game]["hera"]
        if others:
            self.stranger_codes["public:other-game"] = self.codes[others[0]]["hera"]
        return list(self.stranger_codes)

    def reader_with_code(self, game: str, code: str) -> str:
        """The device that opened the join link of ``code`` (claimed its seat)."""
        claim = self.ref.claim(game, code)
        self.stranger_codes[f"code:{code}"] = claim.token or ""
        return f"code:{code}"

    def pages(self, game: str, seat: str) -> list[str]:
        return []  # the pages are the web app's

    def page(self, game: str, seat: str, path: str) -> str:
        raise AssertionError("the service has no pages")

    def told(self, call: Callable[[], object]) -> Told:
        try:
            out = call()
        except NeedsInput as e:
            return Told("asked", "\n" + said(e.to_json()))
        except ServiceError as e:
            return Told("refused", "\n" + said(e.to_json()))
        return Told("ok", "\n" + said(as_json(out)))

    def twin(self, game: str, seed: int) -> ServiceDriver:
        d = type(self)(fork(self.ref, game, seed))
        d.codes = {game: self.codes[game]}
        return d


# The status each refusal is answered with through HTTP.
STATUS = {"Forbidden": 403, "NotFound": 404, "Stale": 409, "Refused": 422}


class HttpDriver:
    """The same, through the web app's HTTP surface only: the JSON API, the live stream and
    the pages, each reader with its own browser (cookie) and CSRF token."""

    name = "http"

    def __init__(self, ref: Referee, **config: Any) -> None:
        self.ref = ref
        self.config = config
        self.app: Flask = make_app(ref, **config)
        self.browsers: dict[tuple[str, str], Browser] = {}
        self.tokens: dict[tuple[str, str], str] = {}
        self.codes: dict[str, dict[str, str]] = {}
        self.last: TestResponse | None = None

    @classmethod
    def new(cls, seed: int) -> HttpDriver:
        return cls(make_referee(seed=seed), SSE_SECONDS=0.02)

    # ---- requests -------------------------------------------------------------------------

    def browser(self, game: str, reader: str) -> Browser:
        return self.browsers[(game, reader)]

    def _seated(self, game: str, codes: Mapping[str, str]) -> None:
        """A browser per player seat that claimed it with its link, the tournament judge's, and
        one with no cookie (the public)."""
        self.codes[game] = dict(codes)
        for seat, code in codes.items():
            b = Browser(self.app)
            assert b.join(game, code).status_code == 303
            self.browsers[(game, seat)] = b
        self.browsers[(game, "judge")] = judge_browser(self.app)
        self.browsers[(game, "public")] = Browser(self.app)

    def _get(self, game: str, reader: str, path: str) -> TestResponse:
        r = self.browser(game, reader).get(path)
        self.last = r
        return r

    def _post(
        self, game: str, reader: str, path: str, body: Any, headers: Mapping[str, str] = {}
    ) -> TestResponse:
        b = self.browser(game, reader)
        token = self.tokens.get((game, reader))
        if token is None:
            token = self.tokens[(game, reader)] = b.csrf(game)
        r = b.post(path, body, game=game, headers={"X-CSRF-Token": token, **headers})
        self.last = r
        return r

    def _refusal(self, r: TestResponse) -> None:
        """Raises the service error the response stands for, after checking its status."""
        body = r.json
        assert isinstance(body, dict), r.data
        if r.status_code != 202:
            assert r.status_code == STATUS.get(str(body.get("error"))), (r.status_code, body)
        raise_error(r)

    def _receipt(self, r: TestResponse) -> Receipt:
        if r.status_code != 200:
            self._refusal(r)
        b = r.json
        assert isinstance(b, dict)
        assert r.headers["ETag"] == f'"{b["seq"]}"'
        view = {k: v for k, v in b["view"].items() if k != "csrf"}
        typed = SeatView.from_json(view, GAMES[view["game_module"]].board_type)
        return Receipt(
            seq=b["seq"], events=b["events"], view=typed, rules=b["rules"], notes=b["notes"]
        )

    def _record(self, r: TestResponse, game: str, status: int = 201) -> Record:
        if r.status_code != status:
            self._refusal(r)
        assert isinstance(r.json, dict), r.data
        # the truth's copy of the record (what the submitter got is checked by the views)
        return self.ref.log(game, "judge")[int(r.json["seq"])]

    # ---- acting -----------------------------------------------------------------------------

    def create_game(self, **kw: Any) -> Created:
        assert kw.pop("game", None) is None, "the API names its own games"
        b = Browser(self.app)
        body = {k: v for k, v in kw.items() if v is not None}
        r = b.post("/api/v1/games", body)
        assert r.status_code == 201, r.data
        created = Created(str(r.json["game"]), dict(r.json["codes"]))  # type: ignore[index]
        self._seated(created.game, created.codes)
        return created

    def folded(self, game: str) -> Folded:
        return self.ref.folded(game)

    def submit(
        self,
        game: str,
        seat: str,
        raw: Mapping[str, Any],
        *,
        expected_seq: int | None = None,
        key: str | None = None,
    ) -> Receipt:
        headers = {}
        if expected_seq is not None:
            headers["If-Match"] = f'"{expected_seq}"'
        if key is not None:
            headers["Idempotency-Key"] = key
        path = f"/api/v1/games/{game}/actions"
        return self._receipt(self._post(game, seat, path, {"action": raw}, headers))

    def answer(self, game: str, seat: str, value: Any, *, key: str | None = None) -> Receipt:
        headers = {"Idempotency-Key": key} if key else {}
        path = f"/api/v1/games/{game}/answer"
        return self._receipt(self._post(game, seat, path, {"value": value}, headers))

    def guard(self, game: str, seat: str, raw: Mapping[str, Any]) -> list[dict[str, Any]]:
        r = self._post(game, seat, f"/api/v1/games/{game}/guard", {"action": raw})
        if r.status_code != 200:
            self._refusal(r)
        assert isinstance(r.json, dict), r.data
        return list(r.json["warnings"])

    def observe(self, game: str, seat: str, obs: Mapping[str, Any]) -> Record:
        body = {k: v for k, v in obs.items() if v is not None}
        r = self._post(game, seat, f"/api/v1/games/{game}/observations", body)
        return self._record(r, game)

    def undo(self, game: str, seat: str, to: int, reason: str) -> None:
        body = {"to": to, "reason": reason}
        self._record(self._post(game, seat, f"/api/v1/games/{game}/undo", body), game)

    def amend(self, game: str, seat: str, event: int, raw: Mapping[str, Any], reason: str) -> None:
        body = {"event": event, "action": raw, "reason": reason}
        self._record(self._post(game, seat, f"/api/v1/games/{game}/amend", body), game)

    def reissue(self, game: str, seat: str, target: str) -> str:
        r = self._post(game, seat, f"/api/v1/games/{game}/seats/{target}/reissue", None)
        if r.status_code != 200:
            self._refusal(r)
        return str(r.json["code"])  # type: ignore[index]

    def take_back(self, game: str, seat: str) -> Record:
        return self._record(self._post(game, seat, f"/api/v1/games/{game}/takeback", None), game)

    def approve(self, game: str, seat: str, proposal: int, agree: bool) -> None:
        body = {"proposal": proposal, "accept": agree}
        r = self._post(game, seat, f"/api/v1/games/{game}/proposals", body)
        if r.status_code != 200:
            self._refusal(r)

    # ---- reading ----------------------------------------------------------------------------

    def view(self, game: str, seat: str) -> dict[str, Any]:
        r = self._get(game, seat, f"/api/v1/games/{game}")
        assert r.status_code == 200, r.data
        assert r.headers["X-CSRF-Token"] and r.headers["ETag"]
        v = dict(r.json)  # type: ignore[arg-type]
        v.pop("csrf")
        v.pop("head")
        return v

    def log(self, game: str, seat: str, upto: int | None = None) -> list[Record]:
        r = self._get(game, seat, f"/api/v1/games/{game}/log")
        assert r.status_code == 200, r.data
        records = [Record.from_json(x) for x in r.json["records"]]  # type: ignore[index]
        return records if upto is None else [x for x in records if x.seq <= upto]

    def export(self, game: str, seat: str) -> str:
        r = self._get(game, seat, f"/api/v1/games/{game}/export")
        assert r.status_code == 200, r.data
        assert r.mimetype == "application/x-ndjson"
        return r.get_data(as_text=True)

    def heads(self, game: str, seat: str) -> list[dict[str, Any]]:
        r = self._get(game, seat, f"/api/v1/games/{game}/stream")
        assert r.status_code == 200 and r.mimetype == "text/event-stream"
        return sse_events(r.get_data(as_text=True))

    def strangers(self, game: str) -> list[str]:
        """Browsers holding no seat: no cookie, a mistyped code, this game's join code as the
        cookie (a join code is never a device's token), another game's join code, a forged
        tournament-judge cookie."""
        typo = Browser(self.app)
        typo.client.set_cookie(f"hz_{game}", STALE_CODE)
        readers = {"public:none": Browser(self.app), "public:typo": typo}
        code = Browser(self.app)
        code.client.set_cookie(f"hz_{game}", self.codes[game]["hera"])
        readers["public:join-code"] = code
        others = [g for g in self.codes if g != game]
        if others:
            other = Browser(self.app)
            other.client.set_cookie(f"hz_{game}", self.codes[others[0]]["hera"])
            readers["public:other-game"] = other
        forged = Browser(self.app)
        forged.client.set_cookie("hzjudge", "not-the-judge-code-123")
        readers["public:forged-judge"] = forged
        for name, b in readers.items():
            self.browsers[(game, name)] = b
        return list(readers)

    def reader_with_code(self, game: str, code: str) -> str:
        """The browser that opened the join link of ``code`` (its seat's, when one of ours
        claimed it already)."""
        b = Browser(self.app)
        if b.join(game, code).status_code == 409:  # held: by the seat's browser of this driver
            seat = next(s for s, c in self.codes[game].items() if c == code)
            b = self.browsers[(game, seat)]
        self.browsers[(game, f"code:{code}")] = b
        return f"code:{code}"

    def pages(self, game: str, seat: str) -> list[str]:
        """The seat's pages: its table, the camera, the replay, the report, the export and
        the review (issue 37: its first event, and its last with the summary's turning points)."""
        paths = ("", "/camera", "/replay", "/report.html", "/export.jsonl", "/review")
        last = self.ref.folded(game).last_seq
        return [*(f"/g/{game}{p}" for p in paths), f"/g/{game}/review?at={last}"]

    def page(self, game: str, seat: str, path: str) -> str:
        r = self._get(game, seat, path)
        assert r.status_code == 200, (path, r.status_code)
        return r.get_data(as_text=True)

    def told(self, call: Callable[[], object]) -> Told:
        self.last = None
        kind = "ok"
        try:
            call()
        except NeedsInput:
            kind = "asked"
        except ServiceError:
            kind = "refused"
        r = self.last
        assert r is not None
        parts = [str(r.status_code), r.headers.get("ETag", ""), r.mimetype]
        body = said(r.json) if r.is_json else blank_text(r.get_data(as_text=True))
        return Told(kind, " ".join(parts) + "\n" + body)

    def twin(self, game: str, seed: int) -> HttpDriver:
        d = HttpDriver(fork(self.ref, game, seed), **self.config)
        d.codes[game] = dict(self.codes[game])
        for seat in self.codes[game]:  # the same devices: the fork holds their tokens' hashes
            b = Browser(d.app)
            b.client.set_cookie(f"hz_{game}", token_of(self.browsers[(game, seat)], game))
            d.browsers[(game, seat)] = b
        d.browsers[(game, "judge")] = judge_browser(d.app)
        d.browsers[(game, "public")] = Browser(d.app)
        return d


# ---- what is hidden from whom ------------------------------------------------------------------


def is_hidden(d: Mapping[str, Any], key: str) -> bool:
    """Whether ``d`` (part of a cut record) does not show its value at ``key``."""
    return key not in d or is_sealed_marker(d[key])


def back(c: Card, holder: Player) -> str:
    """The back of a card tells its deck and nothing else."""
    return "?" if c.origin is holder else f"?/{c.origin.key}"


def check_view(st: GameState, seat: str, view: Mapping[str, Any]) -> None:
    """``view`` (for ``seat``) shows the state ``st`` with only what the seat may see: its own
    hand and face-down cards, backs of the others; the top of every discard pile and its
    height, the whole pile only for its owner and the judge (D21); the judge's items only for
    the judge; no Pegasus pick offered by name."""
    assert view["seat"] == seat
    for holder in Player:
        side, shown = st.sides[holder], view[holder.key]
        own = seat in ("judge", holder.key)
        assert shown["hand_size"] == len(side.hand) == len(shown["hand"])
        for c, entry in zip(side.hand, shown["hand"], strict=True):
            want = c.notation(holder) if own else back(c, holder)
            assert entry == want, f"{seat} sees {holder.key}'s hand card as {entry!r}"
            if not own:
                assert BACK.match(entry)
        pile = [c.notation(holder) for c in side.discard]
        assert shown["discard_top"] == (pile[-1] if pile else None)
        assert shown["discard_height"] == len(pile)
        if own:
            assert shown["discard"] == pile
        else:
            assert "discard" not in shown, f"{seat} looks through {holder.key}'s pile (D21)"
        for col, cells in zip(side.field, shown["field"], strict=True):
            assert len(col) == len(cells)
            for s, cell in zip(col, cells, strict=True):
                if s.card is None:
                    assert cell == "@"
                elif s.up:
                    assert cell == "^" + s.card.notation(holder)
                elif own:
                    assert cell == s.card.notation(holder)
                else:
                    assert cell == back(s.card, holder), f"{seat} sees a face-down {cell!r}"
    if seat != "judge":
        assert not {"irregularities", "broken", "open"} & set(view), f"{seat}: {set(view)}"
        for text in view.get("legal", []):
            a = parse_action_text(text)
            # a Pegasus draws blind from the opponent's hand: no pick is offered by name
            assert not (isinstance(a, PegasusHand) and a.pick), f"{seat} is offered {text!r}"


def event_audience(e: Mapping[str, Any], record: Record) -> set[str] | None:
    """The seats that may read an event's card at the table; None for everyone."""
    kind, owner = e.get("kind"), str(e.get("player"))
    do = record.body.get("action", {}).get("do") if record.kind == "action" else None
    audience: set[str] | None = None
    # drawn: deck -> hand; played: face down; taken by Hades: without showing it (D14)
    if kind in ("drawn", "played") or (kind == "taken" and do == "hades"):
        audience = {owner}
    elif kind == "shown":  # Pythia's spy (D12)
        audience = {owner, str(e.get("to"))}
    elif kind == "identified" and e.get("from") == "hand":
        audience = {owner}
    if e.get("public") is False:  # the engine's own word can only narrow it
        engine = {owner, str(e["to"])} if kind == "shown" else {owner}
        audience = engine if audience is None else audience & engine
    return audience


def check_record(full: Record, cut: Record, seat: str) -> None:
    """``cut`` (the record as ``seat`` reads it) carries nothing hidden from ``seat``; the
    judge's copy is the record itself."""
    assert (cut.game, cut.seq, cut.kind, cut.prev, cut.hash) == (
        full.game,
        full.seq,
        full.kind,
        full.prev,
        full.hash,
    )
    where = f"{seat} reading event {full.seq} ({full.kind})"
    if seat == "judge":
        assert cut == full, where
        return
    body, cbody = full.body, cut.body
    if full.kind in ("action", "amend"):
        a, ca = body["action"], cbody["action"]
        do, actor = a["do"], body.get("actor")
        if seat != actor:
            if do in ("draw", "play", "hades"):
                assert is_hidden(ca, "card"), where
            if do == "redraw" and a["player"] != seat:
                assert is_hidden(ca, "card"), where
            if do in ("deal", "first_row") and a["player"] != seat:
                assert is_hidden(ca, "cards") or all(x == "?" for x in ca["cards"]), where
        if do == "pythia" and a.get("mode") == "spy" and seat == "public":
            assert is_hidden(ca, "reveal") or not ca["reveal"].get("hand"), where
        if full.kind == "amend":
            assert is_hidden(cbody, "reason"), where  # the judge's reason is hers
    elif full.kind == "observation":
        if not body.get("face_up") and body.get("player") != seat:
            for k in ("card", "identifies", "recorded"):
                assert is_hidden(cbody, k), f"{where}: {k}"
        assert is_hidden(cbody, "irregularity"), where  # for the judge (D20)
    elif full.kind == "irregularity":
        assert all(is_sealed_marker(v) for v in cbody.values()), where
        assert not cut.events, where
    elif full.kind == "ask" and full.seat != seat:
        assert is_hidden(cbody, "action"), where  # what the submitter stated so far
    elif full.kind == "undo":
        assert is_hidden(cbody, "reason") and cbody["to"] == body["to"], where
    elif full.kind == "resolve" or (full.kind == "call" and full.seat != seat):
        assert is_hidden(cbody, "note"), where
    if full.key is not None and full.seat != seat:
        assert is_sealed_marker(cut.key), where  # idempotency keys are per seat
    check_events(full, cut.events, seat)
    assert cut.redacted and cut.nonce == "", where  # the nonce would test hidden values
    assert set(cut.cut) == may_cut(full, seat), where


def check_events(full: Record, events: Sequence[Mapping[str, Any]], seat: str) -> None:
    """The events of ``full`` as ``seat`` gets them carry no card hidden from it."""
    where = f"{seat} reading the events of {full.seq} ({full.kind})"
    assert len(events) == len(full.events), where
    for e, ce in zip(full.events, events, strict=True):
        assert ce.get("kind") == e.get("kind"), where
        audience = event_audience(e, full)
        if audience is not None and seat not in audience:
            assert is_hidden(ce, "card") and is_hidden(ce, "cards"), f"{where}: {ce}"


def hidden_names(st: GameState, seat: str) -> set[str]:
    """Names of the cards ``seat`` cannot see now and could not learn from what it sees."""
    hidden: set[str] = set()
    seen: set[str] = set()
    for p in Player:
        side = st.sides[p]
        own = seat == p.key
        for c in side.hand:
            (seen if own else hidden).add(c.name)
        for col in side.field:
            for s in col:
                if s.card is not None:
                    (seen if own or s.up else hidden).add(s.card.name)
        seen.update(c.name for c in side.discard)
    # "Hera" and "Zeus" are card names and player names alike: a message says "Hera's turn"
    return hidden - seen - {"?", "Hera", "Zeus"}


def check_message(st: GameState, seat: str, err: ServiceError, said: object = None) -> None:
    """A refusal or a question given to ``seat`` names no card hidden from it (except what the
    seat itself entered)."""
    mine = set(re.findall(r"[A-Z][a-z]+", str(said))) if said is not None else set()
    text = " ".join(str(x) for x in err.to_json().values())
    for name in hidden_names(st, seat) - mine:
        assert not re.search(rf"\b{name}\b", text), f"{seat} was told {name!r}: {text!r}"


def revealed_by(st: GameState, raw: object) -> list[str]:
    """Names an action turns face up at the table: a challenge or Pegasus shows both front cards
    of its column (all of it when one is Pandora, D1); Pythia's reveal a whole column."""
    if not isinstance(raw, dict) or "column" not in raw:
        return []
    cols = [st.sides[p].field[raw["column"] - 1] for p in Player]
    fronts = [col[0].card.name for col in cols if col and col[0].card is not None]
    if raw.get("do") == "pythia" or "Pandora" in fronts:
        return [s.card.name for col in cols for s in col if s.card is not None]
    return fronts


# ---- part 1: a game under watch ----------------------------------------------------------------


@dataclass
class Coverage:
    """What the watched games exercised (so that no check passes for want of a case)."""

    kinds: set[str] = field(default_factory=set)  # the actions recorded
    probes: set[str] = field(default_factory=set)  # the wrong inputs tried
    asked: set[str] = field(default_factory=set)  # the questions the referee asked
    checks: int = 0  # reads checked


class Watch:
    """Checks every receipt, question and read of one game as it is played."""

    def __init__(self, d: Driver, cover: Coverage) -> None:
        self.d = d
        self.cover = cover
        self.table: Table[Driver] | None = None
        self.readers: list[str] = []

    @property
    def game(self) -> str:
        assert self.table is not None
        return self.table.game

    def state(self) -> GameState:
        return cast(GameState, self.d.ref.folded(self.game).state)

    def receipt(self, seat: str, r: Receipt) -> None:
        check_view(self.state(), seat, r.view.to_json())
        full = self.d.ref.log(self.game, "judge", r.seq)[-1]
        if seat != "judge":
            check_events(full, r.events, seat)
        self.cover.checks += 1

    def asked(self, seat: str, e: NeedsInput, said: object) -> None:
        st = self.state()
        check_message(st, seat, e, [said, *revealed_by(st, said)])
        self.cover.checks += 1

    def views(self, strangers: bool = True) -> None:
        """Every seat's view and, with ``strangers``, every stranger's (who reads as the
        public)."""
        st = self.state()
        for reader in (*SEATS, "judge", *(self.readers if strangers else ())):
            check_view(st, reads_as(reader), self.d.view(self.game, reader))
            self.cover.checks += 1

    def logs(self) -> None:
        """Every reader's log, export and live stream."""
        full = self.d.ref.log(self.game, "judge")
        assert verify(header(self.game), full, key=SIGNER.fingerprint).ok
        for reader in (*SEATS, "judge", *self.readers):
            seat = reads_as(reader)
            cut = self.d.log(self.game, reader)
            assert len(cut) == len(full)
            for f, c in zip(full, cut, strict=True):
                check_record(f, c, seat)
                self.cover.checks += 1
            head, exported = read_lines(self.d.export(self.game, reader))
            assert head == header(self.game, seat) and exported == cut
            v = verify(head, exported, may_cut=may_cut, key=SIGNER.fingerprint)
            assert v.ok, v.problem
            if seat != "judge":
                assert not verify(head, exported, seat="judge").ok  # not a full log
            heads = self.d.heads(self.game, reader)
            assert heads and all(set(h) == {"seq", "hash"} for h in heads), heads
            assert heads[-1] == {"seq": full[-1].seq, "hash": full[-1].hash}
            self.cover.checks += 3


def unchanged(d: Driver, game: str, before: tuple[int, GameState], irregularity: bool) -> None:
    """A refusal recorded nothing but, for a contradiction, one irregularity for the judge."""
    n, st = before
    records = d.ref.log(game, "judge")
    assert d.ref.folded(game).state == st
    if irregularity:
        assert len(records) == n + 1 and records[-1].kind == "irregularity"
    else:
        assert len(records) == n


def snapshot(d: Driver, game: str) -> tuple[int, GameState]:
    return len(d.ref.log(game, "judge")), d.ref.folded(game).state


def card_in(hand: tuple[Card, ...], name: str) -> Card | None:
    return next((c for c in hand if c.name == name), None)


def probe(d: Driver, t: Table[Driver], rng: random.Random) -> str | None:
    """One wrong input from a seat: it is refused, names nothing hidden, and changes nothing
    (a contradiction of hidden cards becomes an irregularity for the judge). Returns the kind
    of input tried, or None when the position did not allow it."""
    game = t.game
    svc = t.service
    p = svc.player
    o = p.other
    actions = [a.to_json() for a in legal_actions(t.truth)]
    # what the referee itself offers the seat to move (no hidden card named)
    offered = [parse_action_text(x).to_json() for x in d.ref.view(game, "judge").legal or []]
    before = snapshot(d, game)
    kind = rng.choice(["other_seat", "public", "stale", "pick", "challenge", "play", "spy"])
    if kind in ("other_seat", "public") and actions:
        seat = o.key if kind == "other_seat" else "public"
        raw = rng.choice(actions + offered)
        with pytest.raises((Forbidden, Refused)) as info:
            d.submit(game, seat, raw)
        # a seat naming a card hidden from it may be told so first (D22): the same answer
        assert isinstance(info.value, Forbidden) or info.value.rule == "D22"
        check_message(svc, seat, info.value)
        unchanged(d, game, before, False)
        return kind
    elif kind == "stale" and actions:
        with pytest.raises(Stale) as stale:
            d.submit(game, p.key, rng.choice(actions + offered), expected_seq=t.seq - 1)
        check_message(svc, p.key, stale.value)
        unchanged(d, game, before, False)
        return kind
    elif kind == "pick":
        # D22 (changed from the old rule, where an absent pick was an irregularity and a held
        # one went on): a player never names the card drawn from the opponent's hand; every
        # name gets the same refusal, held or not, and nothing is recorded
        if not any(isinstance(a, PegasusHand) for a in legal_actions(t.truth)):
            return None
        if card_in(svc.sides[p].hand, "Pegasus") is None:
            return None
        cat = svc.ruleset.catalogue
        held = sorted({c.name for c in t.truth.sides[o].hand})
        absent = [n for n in cat.names(o) if n not in held]
        answers = set()
        for name in (rng.choice(held), rng.choice(absent)) if absent else held[:2]:
            raw = {"do": "pegasus", "target": "hand", "pick": name, "place": 1}
            with pytest.raises(Refused) as info:
                d.submit(game, p.key, raw)
            assert info.value.rule == "D22"
            check_message(svc, p.key, info.value, raw)
            answers.add(str(info.value.to_json()))
        assert len(answers) == 1, answers
        unchanged(d, game, before, False)
        return kind
    elif kind == "challenge":
        # D22 (changed from the old rule, where a wrong name was an irregularity and a right
        # one was applied): a face-down defender is never named by the attacker
        ch = [a for a in legal_actions(t.truth) if isinstance(a, Challenge)]
        if not ch:
            return None
        a = rng.choice(ch)
        ci = a.column - 1
        front = t.truth.sides[o].field[ci][0]
        if front.card is None or front.up:
            return None
        cat = svc.ruleset.catalogue
        wrong = [
            i.name
            for i in cat.cards(o)
            if i.name != front.card.name and (i.strength is not None or i.kind is Kind.HOSTAGE)
        ]
        answers = set()
        for name in (front.card.notation(o), rng.choice(wrong)):
            raw = a.to_json()
            raw["reveal"] = {"defender": name}
            att = svc.sides[p].field[ci][0].card
            if att is not None and att.is_unknown:
                truth_att = t.truth.sides[p].field[ci][0].card
                assert truth_att is not None
                raw["reveal"]["attacker"] = truth_att.notation(p)
            with pytest.raises(Refused) as info:
                d.submit(game, p.key, raw)
            assert info.value.rule == "D22"
            check_message(svc, p.key, info.value, raw)
            answers.add(str(info.value.to_json()))
        assert len(answers) == 1, answers
        unchanged(d, game, before, False)
        return kind
    elif kind == "play":
        hand = svc.sides[p].hand
        if any(c.is_unknown for c in hand) or svc.used >= svc.ap:
            return None
        cat = svc.ruleset.catalogue
        absent = [
            i.name
            for i in cat.cards(p)
            if i.strength is not None and all(c.name != i.name for c in hand)
        ]
        col = next((i for i, c in enumerate(svc.sides[p].field) if len(c) < 4), None)
        if not absent or col is None:
            return None
        raw = {"do": "play", "card": rng.choice(absent), "column": col + 1}
        with pytest.raises(Refused) as info:
            d.submit(game, p.key, raw)
        check_message(svc, p.key, info.value, raw)
        unchanged(d, game, before, False)
        return kind
    elif kind == "spy":
        if card_in(svc.sides[p].hand, "Pythia") is None or svc.used >= svc.ap:
            return None
        if any(c.is_unknown for c in svc.sides[o].hand):
            return None
        raw = {"do": "pythia", "mode": "spy", "reveal": {"hand": ["Pegasus"]}}
        with pytest.raises(Refused) as info:  # the hand is shown by its owner (D22)
            d.submit(game, p.key, raw)
        assert info.value.rule == "D22"
        check_message(svc, p.key, info.value, raw)
        unchanged(d, game, before, False)
        return kind
    return None


def wrong_observation(d: Driver, t: Table[Driver], rng: random.Random) -> str | None:
    """An observation that contradicts a recorded card: logged, raised to the judge only, and
    history stays as it was (D20). None when no recorded face-down card could be contradicted."""
    svc = t.service
    p = rng.choice(list(Player))
    places = [
        (ci, pi, s.card)
        for ci, col in enumerate(svc.sides[p].field)
        for pi, s in enumerate(col)
        if s.card is not None and not s.card.is_unknown and not s.up
    ]
    if not places:
        return None
    ci, pi, c = rng.choice(places)
    other = next(i.name for i in svc.ruleset.catalogue.cards(p) if i.name != c.name and i.strength)
    before = snapshot(d, t.game)
    t.observe(
        rng.choice([p.key, "judge"]),
        {
            "player": p.key,
            "zone": "field",
            "column": ci + 1,
            "position": pi + 1,
            "card": other,
        },
    )
    records = t.records()
    assert [r.kind for r in records[before[0] :]] == ["observation"]  # one record (one call)
    assert records[-1].body["irregularity"]["rule"] == "D20"
    assert d.ref.folded(t.game).state == before[1]
    return "contradiction"


def take_back(d: Driver, t: Table[Driver], rng: random.Random) -> str | None:
    """The player who acted last asks to take his action back (HZ-P14) and the other accepts or
    declines; accepted, the table puts its cards back (the truth returns to before the action).
    None when that action cannot be taken back (the rules refuse it, or the opponent acted)."""
    last = next((r for r in reversed(t.records()) if r.kind == "action"), None)
    if last is None or t.before_last is None or t.diverged or last.seat not in ("hera", "zeus"):
        return None
    seat = last.seat
    if d.ref.take_back_refusal(t.game, seat) is not None:
        return None
    asked = d.take_back(t.game, seat)
    agree = rng.random() < 0.6
    d.approve(t.game, Player.parse(seat).other.key, asked.seq, agree)
    if agree:
        t.truth = t.before_last
        assert t.service == t.truth or t.records()[-1].kind == "undo"
    t.before_last = None
    return "take-back accepted" if agree else "take-back declined"


def corrections(d: Driver, t: Table[Driver], rng: random.Random) -> None:
    """The judge amends a drawn card's identity and undoes to an earlier event."""
    game = t.game
    records = t.records()
    draws = [
        r
        for r in records
        if r.kind == "action" and r.body["action"]["do"] == "draw" and "card" in r.body["action"]
    ]
    if draws:
        r = rng.choice(draws)
        p = Player.parse(r.body["actor"])
        names = [i.name for i in d.ref.folded(game).rules.catalogue.cards(p)]
        raw = dict(r.body["action"], card=rng.choice(names))
        with contextlib.suppress(Refused):  # the new card may not be legal there
            d.amend(game, "judge", r.seq, raw, "the card was scanned wrongly")
    n = len(t.records())
    to = rng.randrange(1, t.seq + 1)
    if not changes_anything(d.ref.folded(game), to):
        return  # an undo to the present corrects nothing and is refused (HZ-P15)
    d.undo(game, "judge", to, "replayed from the last agreed position")
    assert t.records()[n].kind == "undo"


def play_watched(
    d: Driver, seed: int, cover: Coverage, log_every: int, stranger_every: int
) -> None:
    """One random game through ``d``: every seat's view after every step, every receipt and
    question; the strangers' views every ``stranger_every`` steps; every reader's log, export
    and stream every ``log_every`` steps; all of them after the setup, at the end and after
    the judge's corrections."""
    rng = random.Random(seed)
    w = Watch(d, cover)
    checks = cover.checks
    # a second game first, so that its judge code can be tried on this one
    d.create_game(profile="rio-grande")
    t = Table(
        d,
        rng,
        profile=rng.choice(PROFILES),
        unknown_draw=rng.choice([0.0, 0.3]),
        unscanned_play=0.5,
        omit=0.3,
        observe=0.1,
        on_receipt=w.receipt,
        on_asked=w.asked,
    )
    w.table = t
    w.readers = d.strangers(t.game)
    t.setup()
    w.views()
    w.logs()
    steps = 0
    while not t.over:
        if rng.random() < 0.15:
            cover.probes.add(probe(d, t, rng) or "")
        if rng.random() < 0.03:
            cover.probes.add(wrong_observation(d, t, rng) or "")
        if not t.step():
            break
        steps += 1
        if rng.random() < 0.1:  # a take-back asked, then accepted or declined (HZ-P14)
            w.views()
            cover.probes.add(take_back(d, t, rng) or "")
        w.views(strangers=steps % stranger_every == 0)
        if steps % log_every == 0:
            w.logs()
    cover.asked.update(e.needs for e in t.asked_log)
    w.logs()
    corrections(d, t, rng)
    w.views()
    w.logs()
    for r in t.records():
        if r.kind == "action":
            a = r.body["action"]
            cover.kinds.add(" ".join(str(a[k]) for k in ("do", "target", "mode") if k in a))
        else:
            cover.kinds.add(r.kind)
    assert cover.checks - checks > 100


def no_seat_sees_hidden(
    make: Callable[[int], Driver],
    games: int,
    log_every: int,
    stranger_every: int,
    also: Sequence[int] = (),
) -> Coverage:
    """Part 1 over ``games`` seeded random games (seeds 0 to games - 1, and ``also``), each
    through a fresh driver."""
    cover = Coverage()
    for seed in [*range(games), *also]:
        d = make(seed)
        try:
            play_watched(d, seed, cover, log_every, stranger_every)
        except AssertionError as e:
            e.add_note(f"random game seed {seed} (through the {d.name} driver)")
            raise
    return cover


def revoked_reads_as_public(d: Driver) -> tuple[str, str]:
    """A join code the judge revoked (a lost phone) opens nothing: its holder reads the table as
    the public, and the new code opens the seat. Returns the game and the revoked code."""
    created = d.create_game()
    g, code = created.game, created.codes["hera"]
    old = d.reader_with_code(g, code)
    assert d.view(g, old)["seat"] == "hera"
    new = d.reissue(g, "judge", "hera")
    assert new != code
    view = d.view(g, old)
    check_view(d.ref.folded(g).state, "public", view)
    assert all(c == "?" for c in view["hera"]["hand"])
    assert d.view(g, d.reader_with_code(g, new))["seat"] == "hera"
    return g, code


# ---- part 2: twin tables ---------------------------------------------------------------------


@dataclass
class Secret:
    """An opponent's card the player cannot see and the referee does not know yet."""

    owner: Player
    zone: str  # hand | field
    column: int = 0
    position: int = 0

    def observation(self, name: str) -> dict[str, Any]:
        obs: dict[str, Any] = {"player": self.owner.key, "zone": self.zone, "card": name}
        if self.zone == "field":
            obs.update(column=self.column, position=self.position)
        return obs


def secrets_of(d: Driver, game: str, owner: Player) -> list[Secret]:
    side = d.ref.folded(game).state.sides[owner]
    out = [Secret(owner, "hand")] if any(c.is_unknown for c in side.hand) else []
    for ci, col in enumerate(side.field):
        for pi, s in enumerate(col):
            if s.card is not None and s.card.is_unknown and not s.up:
                out.append(Secret(owner, "field", ci + 1, pi + 1))
    return out


def scanned_as(d: Driver, game: str, secret: Secret, name: str, seed: int) -> Driver | None:
    """A twin of the table where the owner scans the secret card as ``name``; None when that
    card could not be there (the referee refuses the scan)."""
    twin = d.twin(game, seed)
    try:
        rec = twin.observe(game, secret.owner.key, secret.observation(name))
    except ServiceError:
        return None
    if twin.ref.log(game, "judge")[rec.seq].body.get("irregularity"):
        return None  # the referee knows every copy elsewhere: not a table that could be
    return twin


def possible_names(d: Driver, game: str, secret: Secret) -> list[str]:
    cat = d.ref.folded(game).rules.catalogue
    names = []
    for info in cat.cards(secret.owner):
        if secret.zone == "field" and info.strength is None and info.kind is not Kind.HOSTAGE:
            continue
        names.append(info.name)
    return names


TELLING = ("Pandora", "Io", "Argus", "Medusa")  # the cards whose rules differ most (D1, D11)


def twin_names(names: list[str], rng: random.Random) -> list[str]:
    """The names to scan the secret card as, in the order twins are made: often one of the
    cards whose rules differ most (Pandora, the hostage, Medusa) first, then the rest."""
    out = rng.sample(names, len(names))
    if rng.random() < 0.7:
        telling = sorted((n for n in out if n in TELLING), key=lambda n: n != "Pandora")
        out = telling[:1] + [n for n in out if n not in telling[:1]]
    return out


def face_down_fronts(d: Driver, game: str, seat: str) -> list[int]:
    """The columns whose opponent's front card ``seat`` sees face down (a back: ``?``)."""
    opp = Player.parse(seat).other.key
    field_ = d.view(game, seat)[opp]["field"]
    return [i + 1 for i, col in enumerate(field_) if col and col[0].startswith("?")]


def naming_probes(names: list[str], columns: list[int]) -> list[dict[str, Any]]:
    """Submissions that name a card hidden from the player (the opponent's hand, the face-down
    fronts of ``columns``, any card Pythia turns over): D22 refuses each the same way."""
    out: list[dict[str, Any]] = []
    for n in names:
        out.append({"do": "pegasus", "target": "hand", "pick": n})
        out.append({"do": "pegasus", "target": "hand", "pick": n, "place": 1})
        out.append({"do": "pythia", "mode": "spy", "reveal": {"hand": [n]}})
        for c in (1, 2, 3):
            out.append({"do": "pythia", "mode": "reveal", "column": c, "reveal": {"cards": [n]}})
        for c in columns:
            out.append({"do": "challenge", "column": c, "reveal": {"defender": n}})
            out.append({"do": "pegasus", "target": "field", "column": c, "reveal": {"target": n}})
    return out


def touches(raw: Mapping[str, Any], secret: Secret) -> bool:
    """Whether an action turns the secret card face up at the table (or may: a Pandora in a
    challenged column shows all of it, D1), so that the rules let the replies differ after it."""
    if secret.zone == "hand":
        return False
    return raw.get("column") == secret.column and raw.get("do") != "play"


def written(c: Card, holder: Player) -> str:
    """A card as its holder writes it; ``?`` for a card the referee does not know."""
    return "?" if c.is_unknown else c.notation(holder)


def column_probes(st: GameState, seat: str) -> list[dict[str, Any]]:
    """Every action aimed at a column, on every column, legal or not: a challenge and a
    Pegasus against the first row, each bare and with an ``order`` for the player's own
    column (D1: the cards he loses if the target is Pandora) that lists it, lists a card that
    is not there, or lists too many; Pythia's reveal. The player's own statements are checked
    against his own cards whatever the target is (issue 12, finding 2)."""
    me = Player.parse(seat)
    out: list[dict[str, Any]] = []
    for c in (1, 2, 3):
        col = [written(s.card, me) for s in st.sides[me].field[c - 1] if s.card is not None]
        stranger = next(n for n in ("Pegasus", "Hydra", "Cyclops") if n not in col)
        orders = [col, [stranger, *col[1:]], [*col, col[0] if col else stranger]]
        for base in (
            {"do": "challenge", "column": c},
            {"do": "pegasus", "target": "field", "column": c},
        ):
            out.append(base)
            out += [{**base, "order": {seat: order}} for order in orders]
        out.append({"do": "pythia", "mode": "reveal", "column": c})
    return out


def answers_to(needs: str, st: GameState, seat: str, raw: Mapping[str, Any]) -> list[Any]:
    """What a player may answer to a question asked of himself: a statement about his own
    cards (right or not), or a choice; [] for a question the probe leaves alone."""
    me = Player.parse(seat)
    if needs == f"order.{seat}":
        col = st.sides[me].field[int(raw.get("column", 1)) - 1]
        cards = [s.card for s in col if s.card is not None]
        named = [written(c, me).replace("?", "Pegasus") for c in cards]
        return [named, [*named, "Pegasus"], ["?" for _ in named]]
    if needs == "reveal.attacker":
        return ["Pegasus", "Medusa", HOSTAGE_NAME[me]]
    if needs == "place":
        return [1, 2, 3]
    return []


def observation_probes(st: GameState, seat: str, rng: random.Random) -> list[dict[str, Any]]:
    """Observations the player may report of his own cards (each unknown one named as cards
    of both decks, some known ones confirmed or contradicted), and of the opponent's cards
    (face up: confirmed or contradicted; face down: not his to report, D22)."""
    me, opp = Player.parse(seat), Player.parse(seat).other
    cat = st.ruleset.catalogue
    mine = sorted(i.name for i in cat.cards(me))
    theirs = sorted(f"{i.name}/{opp.key}" for i in cat.cards(opp) if i.can_be_played)
    telling = [f"{HOSTAGE_NAME[opp]}/{opp.key}", f"Pandora/{opp.key}", "Pandora"]
    places: list[dict[str, Any]] = []
    side = st.sides[me]
    if any(c.is_unknown for c in side.hand):
        places.append({"player": seat, "zone": "hand"})
    own = [
        (ci + 1, pi + 1, s)
        for ci, col in enumerate(side.field)
        for pi, s in enumerate(col)
        if s.card is not None
    ]
    for c, pos, _ in rng.sample(own, min(3, len(own))):
        places.append({"player": seat, "zone": "field", "column": c, "position": pos})
    out = []
    for place in places:
        names = [*telling, *rng.sample(mine, 6), *rng.sample(theirs, 2)]
        out += [{**place, "card": n} for n in names]
    for ci, col in enumerate(st.sides[opp].field):
        for pi, s in enumerate(col):
            if s.card is None:
                continue
            at = {"player": opp.key, "zone": "field", "column": ci + 1, "position": pi + 1}
            shown = written(s.card, opp) if s.up else "Pegasus"
            out += [
                {**at, "card": shown},
                {**at, "card": "Pegasus" if shown != "Pegasus" else "Medusa"},
            ]
    return out


def recorded(t: Told) -> bool:
    """Whether a reply says the submission was recorded: a receipt, or a question recorded
    with the action it holds (``seq``)."""
    return t.kind == "ok" or (t.kind == "asked" and "seq" in t.body)


@dataclass
class Compared:
    replies: int = 0  # replies compared byte for byte
    on_the_column: int = 0  # actions on the hidden card's own column, judged alike
    pages: int = 0  # pages compared byte for byte
    answers: int = 0  # answers to questions asked of the player himself
    observations: int = 0  # observations of his own and the opponent's cards
    take_backs: int = 0  # his actions taken back (HZ-P14), accepted or declined
    warned: int = 0  # probes the guardian warned of (issue 37), compared like every reply


def probe_twins(
    twins: list[Driver],
    game: str,
    seat: str,
    secret: Secret,
    names: list[str],
    rng: random.Random | None = None,
    sample: int | None = None,
) -> Compared:
    """Submits the same inputs from ``seat`` at every twin and compares every reply: the
    naming probes, every legal action and every action aimed at a column (on every column),
    the answers to the questions these ask of him, and his observations. ``sample``: how many
    of the column actions and of the observations to try (all by default; each may cost an
    undo at every twin)."""
    n = Compared()
    lead = twins[0]
    rng = rng or random.Random(0)

    def same(what: str, call: Callable[[Driver], object]) -> Told:
        got = [t.told(partial(call, t)) for t in twins]
        texts = [g.text for g in got]
        assert len(set(texts)) == 1, f"{what}: the replies differ:\n" + "\n".join(texts)
        n.replies += 1
        return got[0]

    def alike(what: str, call: Callable[[Driver], object]) -> list[Told]:
        """Judged alike where what the action shows may differ: the same refusal, the same
        question put back unrecorded, or recorded at both (as the action, or as a question
        that holds the game) as the same event; before anything depends on the card."""
        got = [t.told(partial(call, t)) for t in twins]
        assert len({recorded(g) for g in got}) == 1, f"{what}: judged differently: {got}"
        if not recorded(got[0]):
            assert len({g.text for g in got}) == 1, f"{what}: the replies differ: {got}"
        assert len({t.ref.folded(game).last_seq for t in twins}) == 1, what
        n.on_the_column += 1
        return got

    def pages(paths: list[str]) -> None:
        for path in paths:
            texts = [blank_text(t.page(game, seat, path)) for t in twins]
            assert len(set(texts)) == 1, f"page {path}: differs between the twins"
            n.pages += 1

    def view(t: Driver) -> object:
        return t.view(game, seat)

    def submit(raw: Mapping[str, Any]) -> Callable[[Driver], object]:
        return lambda t: t.submit(game, seat, raw)

    def guard(raw: Mapping[str, Any]) -> Callable[[Driver], object]:
        return lambda t: t.guard(game, seat, raw)

    def back_to(seq: int) -> None:
        for t in twins:  # back to the position under test, at every twin alike
            f = t.ref.folded(game)
            if f.last_seq != seq and changes_anything(f, seq):  # else refused (HZ-P15)
                t.undo(game, "judge", seq, "probe: back to the position under test")

    def answer_with(t: Driver, value: Any) -> object:
        return t.answer(game, seat, value)

    def answer_own(what: str, raw: Mapping[str, Any], got: list[Told], on_column: bool) -> None:
        """Answers a question the action asked of the player himself at every twin, each way
        he might. (On the hidden card's column the card turned up may ask a question at one
        twin only: then there is nothing to answer alike.)"""
        body = got[0].body
        if any(g.kind != "asked" for g in got) or body.get("asked") != [seat]:
            return
        if len({json.dumps([g.body.get(k) for k in ("needs", "seq")]) for g in got}) > 1:
            return
        st = lead.ref.folded(game).state
        for value in answers_to(str(body["needs"]), st, seat, raw):
            call: Callable[[Driver], object]
            if "seq" in body:  # recorded: the question holds the game until he answers
                call = partial(answer_with, value=value)
            else:  # put back to him: he submits the action again with the value
                again = json.loads(json.dumps(raw))
                fill_input(again, str(body["needs"]), value)
                call = submit(again)
            (alike if on_column else same)(f"{what}, answered {value!r}", call)
            n.answers += 1
            if not on_column:
                same(f"view after {what}, answered {value!r}", view)
            back_to(start)
            if "seq" in body:  # ask again for the next answer
                (alike if on_column else same)(what, submit(raw))

    def take_back_alike(text: str, agree: bool) -> None:
        """He asks to take the action back (HZ-P14): the same reply at every twin; the other
        accepts or declines at every twin, and he then sees the same table."""
        if same(f"take-back of {text}", lambda t: t.take_back(game, seat)).kind != "ok":
            return
        for t in twins:
            t.approve(game, Player.parse(seat).other.key, t.ref.folded(game).last_seq, agree)
        same(f"view after the take-back of {text} ({'accepted' if agree else 'declined'})", view)
        n.take_backs += 1

    all_pages = lead.pages(game, seat)
    same("view", view)
    pages(all_pages)
    for raw in naming_probes(names, face_down_fronts(lead, game, seat)):
        before = lead.ref.folded(game).last_seq
        same(f"warnings for {json.dumps(raw)}", guard(raw))
        same(json.dumps(raw), submit(raw))
        assert lead.ref.folded(game).last_seq == before, f"{raw} was recorded"
    start = lead.ref.folded(game).last_seq
    legal = [(text, parse_action_text(text).to_json()) for text in lead.view(game, seat)["legal"]]
    aimed = column_probes(lead.ref.folded(game).state, seat)
    if sample is not None:
        aimed = rng.sample(aimed, min(sample, len(aimed)))
    probes = legal + [(json.dumps(raw), raw) for raw in aimed]
    for i, (text, raw) in enumerate(probes):
        # the guardian's warnings depend on nothing hidden from him, the hidden card's own
        # column included: asked before anything is submitted
        same(f"warnings for {text}", guard(raw))
        n.warned += bool(lead.guard(game, seat, raw))
        if not touches(raw, secret):
            got = same(text, submit(raw))
            same(f"view after {text}", view)
            if i < len(legal):
                pages(all_pages[:1])  # the table's page
                if got.kind == "ok":
                    take_back_alike(text, i % 2 == 0)
            answer_own(text, raw, [got], False)
            back_to(start)
    observed = observation_probes(lead.ref.folded(game).state, seat, rng)
    if sample is not None:
        observed = rng.sample(observed, min(sample, len(observed)))
    for obs in observed:
        what = f"observation {json.dumps(obs)}"
        same(what, lambda t: t.observe(game, seat, obs))  # noqa: B023 (called at once)
        same(f"view after {what}", view)
        n.observations += 1
        back_to(start)
    # every read, before anything turns the card face up
    for reader in (seat, "public"):
        same(f"{reader}'s log", lambda t: t.log(game, reader))  # noqa: B023 (called at once)
        same(f"{reader}'s export", lambda t: t.export(game, reader))  # noqa: B023
        same(f"{reader}'s live stream", lambda t: t.heads(game, reader))  # noqa: B023
    pages(all_pages)
    for text, raw in probes:
        if touches(raw, secret):
            answer_own(text, raw, alike(text, submit(raw)), True)
            back_to(start)
    return n


TWINS = 3  # tables that differ only in the secret card


@dataclass
class Sample:
    d: Driver
    game: str
    seat: str  # the player to move
    secret: Secret


def positions(d: Driver, rng: random.Random) -> Iterator[Sample]:
    """Random reachable positions of one table, the player to move to probe, and a card of
    the opponent he cannot see and the referee does not know (both players leave many cards
    unscanned)."""
    t = Table(d, rng, profile=rng.choice(PROFILES), blind=("hera", "zeus"), omit=0.3)
    t.setup()
    taken = 0
    while t.step() and taken < 3:
        f = d.ref.folded(t.game)
        if f.state.phase is not Phase.PLAY or f.question is not None:
            continue
        mover = f.state.player
        secrets = secrets_of(d, t.game, mover.other)
        # most often a face-down front: what a challenge or a Pegasus turns up (D1, D5, D11)
        fronts = [s for s in secrets if s.position == 1]
        if secrets and rng.random() < (0.5 if fronts and not f.state.first else 0.1):
            taken += 1
            yield Sample(d, t.game, mover.key, rng.choice(fronts or secrets))


@dataclass
class TwinCoverage:
    samples: int = 0
    fronts: int = 0  # samples whose secret card is a face-down front
    zones: set[str] = field(default_factory=set)
    compared: Compared = field(default_factory=Compared)


def no_reply_depends_on_hidden(
    make: Callable[[int], Driver], games: int, sample: int | None = None, twins: int = TWINS
) -> TwinCoverage:
    """Part 2 over the positions of ``games`` seeded random tables; ``sample``: how many of
    the column actions and of the observations each position tries (all by default);
    ``twins``: how many tables differ in the secret card."""
    cover = TwinCoverage()
    for seed in range(games):
        rng = random.Random(seed)
        for s in positions(make(seed), rng):
            names = twin_names(possible_names(s.d, s.game, s.secret), rng)
            made = []
            for name in names:
                twin = scanned_as(s.d, s.game, s.secret, name, seed)
                if twin is not None:
                    made.append(twin)
                if len(made) == twins:
                    break
            if len(made) < 2:
                continue  # counted: enough positions must give twins (see the test)
            try:
                c = probe_twins(made, s.game, s.seat, s.secret, names, rng, sample)
            except AssertionError as e:
                e.add_note(f"seed {seed}, {s.seat} to move, opponent's card {s.secret}")
                e.add_note(f"through the {s.d.name} driver")
                raise
            cover.compared.replies += c.replies
            cover.compared.on_the_column += c.on_the_column
            cover.compared.pages += c.pages
            cover.compared.answers += c.answers
            cover.compared.observations += c.observations
            cover.compared.take_backs += c.take_backs
            cover.compared.warned += c.warned
            cover.samples += 1
            cover.fronts += s.secret.position == 1
            cover.zones.add(s.secret.zone)
    return cover


def a_scan_changes_no_refusal(make: Callable[[int], Driver], games: int) -> int:
    """Scanned or not, the opponent's cards give the player the same D22 refusals and the same
    legal list ("pegasus hand" is offered by the same rule), and no refusal counts the
    opponent's unknown cards. Returns the number of positions compared."""
    samples = 0
    for seed in range(games):
        rng = random.Random(1000 + seed)
        for s in positions(make(1000 + seed), rng):
            names = possible_names(s.d, s.game, s.secret)
            scanned = None
            for name in rng.sample(names, len(names)):
                scanned = scanned_as(s.d, s.game, s.secret, name, seed)
                if scanned is not None:
                    break
            if scanned is None:
                continue  # counted: enough positions must give a scan (see the test)
            unscanned = s.d.twin(s.game, seed)
            for raw in naming_probes(names, face_down_fronts(unscanned, s.game, s.seat)):
                a, b = (
                    t.told(partial(t.submit, s.game, s.seat, raw)) for t in (scanned, unscanned)
                )
                assert a == b, (seed, raw, a, b)
                assert a.body["rule"] == "D22"
            legal = [t.view(s.game, s.seat).get("legal") for t in (scanned, unscanned)]
            assert legal[0] == legal[1], (seed, legal)
            samples += 1
    return samples
