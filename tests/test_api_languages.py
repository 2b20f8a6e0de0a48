"""The API's words for people follow the request's language (issue 36), its codes never do.

A refusal's ``message``, and each message of a validation error's ``fields``, are said in the
language of ``Accept-Language`` (or of the ``hzlang`` cookie a page's own fetches carry); the
status, ``error``, ``rule``, the field names and every other machine field are the same in every
language, and an English body is what it always was.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import Table
from web_helpers import Browser, HttpReferee, make_app
from werkzeug.test import TestResponse

from referee.errors import NeedsInput

LANGS = ("it", "fr", "de")


class Asked(Exception):
    """Stops a simulated game at the first question the referee asks of another seat."""


def waiting_for_an_answer(app: Flask) -> tuple[Browser, str]:
    """A game stopped where the referee waits for one seat's answer (a question it recorded),
    and the browser of the other seat, whose every action is refused until it is answered."""
    http = HttpReferee(app)
    waits: list[str] = []

    def asked(seat: str, e: NeedsInput, raw: Any) -> None:
        if seat not in e.asked:
            waits.extend(e.asked)
            raise Asked

    t = Table(http, random.Random(0), game="q0", on_asked=asked)
    with pytest.raises(Asked):
        t.setup()
        while t.step():
            pass
    (waited,) = waits
    other = "zeus" if waited == "hera" else "hera"
    return http.browser(t.game, other), t.game


def said(r: TestResponse) -> dict[str, Any]:
    body = r.get_json()
    assert isinstance(body, dict), r.data
    return body


def submit(b: Browser, game: str, lang: str | None) -> TestResponse:
    headers = {"Accept-Language": lang} if lang else {}
    return b.post(
        f"/api/v1/games/{game}/actions", {"action": {"do": "end_turn"}}, game=game, headers=headers
    )


# ---- a refusal ------------------------------------------------------------------------------

WAITING = {
    "en": "the referee is waiting for ",
    "it": "l'arbitro aspetta che ",
    "fr": "l'arbitre attend que ",
    "de": "der Schiedsrichter wartet darauf, dass ",
}


@pytest.fixture(scope="module")
def waiting() -> tuple[Browser, str]:
    return waiting_for_an_answer(make_app())


@pytest.mark.parametrize("lang", LANGS)
def test_a_refused_action_keeps_status_error_and_rule_and_is_said_in_the_requests_language(
    waiting: tuple[Browser, str], lang: str
) -> None:
    b, game = waiting
    english, other = submit(b, game, "en"), submit(b, game, lang)
    assert english.status_code == other.status_code == 422
    en, it = said(english), said(other)
    assert (it["error"], it["rule"]) == (en["error"], en["rule"]) == ("Refused", "HZ-P11")
    assert en["message"].startswith(WAITING["en"]), en["message"]
    assert it["message"].startswith(WAITING[lang]), it["message"]
    assert set(it) == set(en)  # no field added or lost


def test_english_is_what_a_request_without_a_language_gets(waiting: tuple[Browser, str]) -> None:
    b, game = waiting
    plain, english = submit(b, game, None), submit(b, game, "en-GB,en;q=0.8")
    assert plain.data == english.data


@pytest.mark.parametrize("header", ["xx", "tlh-Latn", "*;q=0.1", "zh-CN,zh;q=0.9"])
def test_an_unknown_language_gives_english(waiting: tuple[Browser, str], header: str) -> None:
    b, game = waiting
    assert submit(b, game, header).data == submit(b, game, None).data


def test_a_pages_own_fetch_follows_its_language_cookie(waiting: tuple[Browser, str]) -> None:
    """A page's script sends no Accept-Language of its choosing: the picker's cookie decides."""
    b, game = waiting
    b.client.set_cookie("hzlang", "fr")
    try:
        body = said(submit(b, game, "de"))
    finally:
        b.client.delete_cookie("hzlang")
    assert body["message"].startswith(WAITING["fr"]), body["message"]


def test_an_illegal_action_keeps_its_error_and_rule_in_every_language() -> None:
    """The engine's own refusal: whatever its words, its code and rule are the same."""
    app = make_app()
    http = HttpReferee(app)
    t = Table(http, random.Random(3))
    t.setup()
    legal = http.ref.view(t.game, "judge").to_json()["legal"]
    action = next(a for a in ("god 1", "god 2", "god 3", "sirens", "persephone") if a not in legal)
    b = http.browser(t.game, t.service.player.key)
    seen = set()
    for lang in ("en", *LANGS):
        r = b.post(
            f"/api/v1/games/{t.game}/actions",
            {"action": action},
            game=t.game,
            headers={"Accept-Language": lang},
        )
        body = said(r)
        assert body["message"]
        seen.add((r.status_code, body["error"], body["rule"]))
    assert len(seen) == 1 and next(iter(seen))[:2] == (422, "Refused"), seen


# ---- a validation error ---------------------------------------------------------------------

UNKNOWN_FIELD = {"en": "Unknown field.", "it": "Campo sconosciuto.", "fr": "Champ inconnu."}
UNKNOWN_FIELD["de"] = "Unbekanntes Feld."
TOO_LONG = {
    "en": "Length must be between 1 and 40.",
    "it": "La lunghezza deve essere tra 1 e 40.",
    "fr": "La longueur doit être entre 1 et 40.",
    "de": "Die Länge muss zwischen 1 und 40 liegen.",
}
NOT_VALID = {
    "en": "the body is not valid: ",
    "it": "il corpo non è valido: ",
    "fr": "le corps n'est pas valide : ",
    "de": "der Body ist ungültig: ",
}


def create(app: Flask, body: Any, lang: str) -> TestResponse:
    return Browser(app).post("/api/v1/games", body, headers={"Accept-Language": lang})


@pytest.mark.parametrize("lang", ("en", *LANGS))
def test_a_validation_errors_field_messages_are_in_the_requests_language(lang: str) -> None:
    app = make_app()
    r = create(app, {"colour": "red", "players": {"hera": "x" * 41}}, lang)
    assert r.status_code == 422
    body = said(r)
    assert (body["error"], body["rule"]) == ("Invalid", None)
    assert body["fields"] == {
        "colour": [UNKNOWN_FIELD[lang]],
        "players": {"hera": [TOO_LONG[lang]]},
    }
    assert body["message"].startswith(NOT_VALID[lang]), body["message"]


def test_an_english_validation_error_is_marshmallows_own_words() -> None:
    r = create(make_app(), {"colour": "red"}, "en")
    assert said(r) == {
        "error": "Invalid",
        "rule": None,
        "message": "the body is not valid: colour: Unknown field.",
        "fields": {"colour": ["Unknown field."]},
    }


# ---- a property: the codes never depend on the language -------------------------------------


def _public_acts(app: Flask, lang: str) -> TestResponse:
    b = Browser(app)
    game = said(b.post("/api/v1/games", {}))["game"]
    return b.post(
        f"/api/v1/games/{game}/actions",
        {"action": "draw"},
        game=game,
        headers={"Accept-Language": lang},
    )


def _no_such_game(app: Flask, lang: str) -> TestResponse:
    return Browser(app).get("/api/v1/games/nope-0", headers={"Accept-Language": lang})


def _bad_json(app: Flask, lang: str) -> TestResponse:
    return Browser(app).post(
        "/api/v1/games",
        data='{"profile": 1, "profile": 2}',
        headers={"Accept-Language": lang, "Content-Type": "application/json"},
    )


def _not_json(app: Flask, lang: str) -> TestResponse:
    return Browser(app).post(
        "/api/v1/games",
        data="players=1",
        headers={"Accept-Language": lang, "Content-Type": "text/plain"},
    )


def _wrong_types(app: Flask, lang: str) -> TestResponse:
    return create(app, {"players": {"hera": 7}, "starting": "poseidon", "seed": "x"}, lang)


def _not_an_object(app: Flask, lang: str) -> TestResponse:
    return create(app, [1, 2], lang)


def _no_csrf(app: Flask, lang: str) -> TestResponse:
    return Browser(app).post("/api/v1/games", {}, csrf=False, headers={"Accept-Language": lang})


def _bad_query(app: Flask, lang: str) -> TestResponse:
    return Browser(app).get("/api/v1/tables?state=maybe", headers={"Accept-Language": lang})


_GAMES: dict[str, tuple[Browser, str, Any]] = {}  # made once, on first use


def _acts_while_a_question_is_open(app: Flask, lang: str) -> TestResponse:
    if "waiting" not in _GAMES:
        _GAMES["waiting"] = (*waiting_for_an_answer(app), None)
    b, game, _ = _GAMES["waiting"]
    return submit(b, game, lang)


def _illegal_action(app: Flask, lang: str) -> TestResponse:
    if "illegal" not in _GAMES:
        http = HttpReferee(app)
        t = Table(http, random.Random(5))
        t.setup()
        legal = http.ref.view(t.game, "judge").to_json()["legal"]
        action = next(a for a in ("god 1", "god 2", "god 3", "sirens") if a not in legal)
        _GAMES["illegal"] = (http.browser(t.game, t.service.player.key), t.game, action)
    b, game, action = _GAMES["illegal"]
    return b.post(
        f"/api/v1/games/{game}/actions",
        {"action": action},
        game=game,
        headers={"Accept-Language": lang},
    )


REFUSALS: list[Callable[[Flask, str], TestResponse]] = [
    _acts_while_a_question_is_open,
    _illegal_action,
    _public_acts,
    _no_such_game,
    _bad_json,
    _not_json,
    _wrong_types,
    _not_an_object,
    _no_csrf,
    _bad_query,
]
APP = make_app()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    refusal=st.sampled_from(REFUSALS),
    lang=st.sampled_from(["it", "fr", "de", "it-IT,it;q=0.9", "de-CH", "fr;q=0.5, en;q=0.1"]),
)
def test_error_and_rule_never_differ_by_language(
    refusal: Callable[[Flask, str], TestResponse], lang: str
) -> None:
    english, other = refusal(APP, "en"), refusal(APP, lang)
    assert other.status_code == english.status_code >= 400
    en, it = said(english), said(other)
    assert (it["error"], it["rule"]) == (en["error"], en["rule"])
    assert {k: v for k, v in it.items() if k not in ("message", "fields")} == {
        k: v for k, v in en.items() if k not in ("message", "fields")
    }
    assert set(it.get("fields", {})) == set(en.get("fields", {}))  # the same field names
    assert it["message"]


# every refusal above but "no such game" (the reader's words) and the engine's illegal action
# (its reason, said once the engine marks it) is said in the language asked
OURS = [r for r in REFUSALS if r not in (_no_such_game, _illegal_action)]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("refusal", OURS, ids=[r.__name__.strip("_") for r in OURS])
def test_each_of_these_refusals_is_said_in_the_language_asked(
    refusal: Callable[[Flask, str], TestResponse], lang: str
) -> None:
    en, it = said(refusal(APP, "en")), said(refusal(APP, lang))
    assert it["message"] != en["message"], it["message"]
    assert it["message"] == said(refusal(APP, lang))["message"]  # the same words each time
