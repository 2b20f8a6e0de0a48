"""The languages of the pages (issue 36): English, Italian, French and German, by Flask-Babel.

Which language a request is rendered in (:func:`select_locale`):

1. on a game's pages (``/g/GAME``), the language chosen with the picker on that game's seat
   page, kept for that seat in the ``hzlang-GAME`` cookie (sent only with that game's pages):
   a seat keeps its language, and the two players of one table, each on his own phone, read
   the game in two languages;
2. else the browser's own choice, made with the language picker at the foot of every page and
   kept in the ``hzlang`` cookie (a choice on a seat page sets it too);
3. else the best match of the browser's ``Accept-Language`` among the languages served;
4. else English.

The languages served are the app's ``LANGUAGES`` (default :data:`LANGUAGES`; a test adds a
made-up one). The catalogues are :mod:`referee.language`'s (``referee/translations``), shared
with the command line; ``python -m referee.language`` extracts, updates and compiles them.
docs/i18n.md says how to mark and translate.

Marking strings: in templates ``{{ _("Home") }}``, ``{% trans %}…{% endtrans %}`` (extracted
``trimmed``); in Python ``from web.i18n import _, gettext, lazy_gettext, ngettext``; a sentence
that comes from the engine or the referee (a :class:`engine.say.Say`) is said with :func:`say`
(``{{ reason|say }}`` in a template). Words the pages' scripts show are registered with
:func:`script_words` and reach them in the page (``base.html``'s ``#words``).
"""

from __future__ import annotations

import sys
from typing import Any

import flask_babel
from babel import Locale
from flask import current_app, has_request_context, request

from referee import language
from referee.language import (
    DEFAULT,
    KEYWORDS,
    LANGUAGES,
    TRANSLATIONS,
    catalogues,
    compile_all,
    compiled,
)

__all__ = [
    "DEFAULT",
    "KEYWORDS",
    "LANGUAGES",
    "TRANSLATIONS",
    "_",
    "catalogues",
    "compile_all",
    "compiled",
    "gettext",
    "lang",
    "lazy_gettext",
    "ngettext",
    "say",
    "script_words",
]

LANG_COOKIE = "hzlang"


def gettext(string: str, **variables: Any) -> str:
    """``string`` in the request's language, with its ``%(name)s`` filled from ``variables``."""
    return str(flask_babel.gettext(string, **variables))


_ = gettext


def ngettext(singular: str, plural: str, num: int, **variables: Any) -> str:
    """The singular or a plural form for ``num`` (also ``%(num)d``) in the request's language."""
    return str(flask_babel.ngettext(singular, plural, num, **variables))


def lazy_gettext(string: str, **variables: Any) -> Any:
    """A string translated only when it is used (for module constants): a ``LazyString``."""
    return flask_babel.lazy_gettext(string, **variables)


def pgettext(context: str, string: str, **variables: Any) -> str:
    """``string`` as said in ``context`` (a card name: ``pgettext("somegame card", "Dragon")``)."""
    return str(flask_babel.pgettext(context, string, **variables))


def lang() -> str:
    """The language this request is rendered in (``en`` outside a request)."""
    if not has_request_context():
        return DEFAULT
    return str(flask_babel.get_locale() or DEFAULT)


def say(text: Any) -> str:
    """A sentence from the engine or the referee (:class:`engine.say.Say`, a marked constant, a
    :class:`engine.say.Named`) in this request's language; the template filter ``say``."""
    return language.say(text, lang())


# the words the pages' scripts show, by key: registered at import by the module whose page's
# script uses them (lazy, so said in each request's language), given to every page in
# base.html's ``<script type="application/json" id="words">``, read by app.js's ``words(key)``
SCRIPT_WORDS: dict[str, Any] = {}


def script_words(**words: Any) -> None:
    """Registers words a page's script shows (``script_words(saved=lazy_gettext("Saved"))``);
    a key already registered must keep its words."""
    for key, value in words.items():
        if key in SCRIPT_WORDS and str(SCRIPT_WORDS[key]._args) != str(value._args):
            raise ValueError(f"script word {key!r} registered twice with other words")
        SCRIPT_WORDS[key] = value


def words_for_scripts() -> dict[str, str]:
    """Every registered script word in this request's language."""
    return {k: str(v) for k, v in sorted(SCRIPT_WORDS.items())}


def served() -> list[str]:
    """The language codes this app serves (its ``LANGUAGES``: code to name), English first."""
    return list(current_app.config.get("LANGUAGES") or LANGUAGES)


def seat_cookie(game: str) -> str:
    """The cookie keeping the language chosen on ``game``'s seat page in this browser (sent
    only with that game's pages, ``/g/GAME``)."""
    return f"{LANG_COOKIE}-{game}"


def select_locale() -> str:
    """The language of this request: the one chosen on this game's seat page (a seat's own
    language), else the picker's choice for the browser, else Accept-Language, else English
    (and English outside a request)."""
    if not has_request_context():  # the command line, a worker: English
        return DEFAULT
    langs = served()
    game = (request.view_args or {}).get("game")
    if isinstance(game, str) and request.path.startswith(f"/g/{game}"):
        kept = request.cookies.get(seat_cookie(game), "")
        if kept in langs:
            return kept
    chosen = request.cookies.get(LANG_COOKIE, "")
    if chosen in langs:
        return chosen
    return request.accept_languages.best_match(langs) or DEFAULT


def language_name(code: str) -> str:
    """A language named in itself ("Italiano"), as the app's ``LANGUAGES`` names it."""
    names = current_app.config.get("LANGUAGES") or LANGUAGES
    return str(names.get(code) or Locale.parse(code).get_display_name(code) or code)


if __name__ == "__main__":  # python -m web.i18n: compiles the catalogues (referee.language)
    for path in compile_all():
        print(path, file=sys.stderr)
