"""The languages of the pages (issue 36): English, Italian, French and German, by Flask-Babel.

Which language a request is rendered in (:func:`select_locale`):

1. the browser's own choice, made with the language picker at the foot of every page and kept in
   the ``hzlang`` cookie. One cookie for the browser, not one per seat: a phone holds one seat,
   so the choice made on a seat page is that seat's, and the two players of one table, each on
   his own phone, may read the game in two languages;
2. else the best match of the browser's ``Accept-Language`` among the languages served;
3. else English.

The languages served are the app's ``LANGUAGES`` (default :data:`LANGUAGES`; a test adds a
made-up one). The catalogues are ``web/translations/<lang>/LC_MESSAGES/messages.po``, compiled
to the ``messages.mo`` beside each and committed: ``python -m web.i18n`` compiles them again
after an edit, and tests/test_i18n.py fails while a ``.mo`` differs from what its ``.po``
compiles to. So ``pip install -e .`` and ``referee serve`` need no build step. docs/i18n.md
says how to mark, extract, translate and compile.

Marking strings: in templates ``{{ _("Home") }}``, ``{% trans %}…{% endtrans %}`` (extracted
``trimmed``); in Python ``from web.i18n import _, gettext, lazy_gettext, ngettext``.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import flask_babel
from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import current_app, has_request_context, request

__all__ = ["KEYWORDS", "LANGUAGES", "_", "gettext", "lazy_gettext", "ngettext"]

TRANSLATIONS = Path(__file__).parent / "translations"
LANG_COOKIE = "hzlang"
# the functions extraction finds besides babel's own (gettext, _, ngettext...)
KEYWORDS = ("lazy_gettext",)
DEFAULT = "en"
# each language named in itself, as the picker shows it
LANGUAGES: dict[str, str] = {
    "en": "English",
    "it": "Italiano",
    "fr": "Français",
    "de": "Deutsch",
}


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


def served() -> list[str]:
    """The language codes this app serves (its ``LANGUAGES``: code to name), English first."""
    return list(current_app.config.get("LANGUAGES") or LANGUAGES)


def select_locale() -> str:
    """The language of this request: the picker's cookie, else Accept-Language, else English
    (and English outside a request)."""
    if not has_request_context():  # the command line, a worker: English
        return DEFAULT
    langs = served()
    chosen = request.cookies.get(LANG_COOKIE, "")
    if chosen in langs:
        return chosen
    return request.accept_languages.best_match(langs) or DEFAULT


def language_name(code: str) -> str:
    """A language named in itself ("Italiano"), as the app's ``LANGUAGES`` names it."""
    names = current_app.config.get("LANGUAGES") or LANGUAGES
    return str(names.get(code) or Locale.parse(code).get_display_name(code) or code)


# ---- compiling the catalogues ----------------------------------------------------------------


def compiled(po: Path) -> bytes:
    """The ``.mo`` that ``po`` compiles to (fuzzy entries left out, as pybabel does)."""
    with po.open("rb") as f:
        catalog = read_po(f)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def catalogues(root: Path = TRANSLATIONS) -> Iterable[Path]:
    """Every language's ``messages.po``."""
    return sorted(root.glob("*/LC_MESSAGES/messages.po"))


def compile_all(root: Path = TRANSLATIONS) -> list[Path]:
    """Writes each ``messages.mo`` beside its ``messages.po``; the paths written."""
    written = []
    for po in catalogues(root):
        mo = po.with_suffix(".mo")
        mo.write_bytes(compiled(po))
        written.append(mo)
    return written


if __name__ == "__main__":  # python -m web.i18n
    for path in compile_all():
        print(path, file=sys.stderr)
