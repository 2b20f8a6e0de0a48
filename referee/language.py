"""The referee's languages (issue 36): the catalogues, and saying a sentence in one of them.

English, Italian, French and German. The catalogues are gettext ones,
``referee/translations/<lang>/LC_MESSAGES/messages.po``, each compiled to the ``messages.mo``
beside it and committed (so an install needs no build step). One catalogue serves the pages
(Flask-Babel reads the same files: :mod:`web.i18n`), the API's messages, the command line
(``referee rule --lang``), the kits and the reports.

:func:`say` is the one place a :class:`engine.say.Say` (or a marked constant, or a
:class:`engine.say.Named`) becomes words in a language; it needs no request, so the command line
and a worker say things the same way as a page.

``python -m referee.language`` does the whole round after an edit: extracts every marked string
(``babel.cfg``, :data:`KEYWORDS`) into ``messages.pot``, carries new entries into each language's
``messages.po`` (empty, never a fuzzy guess) and drops the ones marked nowhere, then compiles
every ``.mo``. docs/i18n.md says how to mark and translate.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po
from babel.support import NullTranslations, Translations

from engine.say import C_, N_, Named, Say, say_n

# engine.say's marks, for the modules that may not import the engine (the web shell)
__all__ = [
    "C_",
    "DEFAULT",
    "KEYWORDS",
    "LANGUAGES",
    "N_",
    "TRANSLATIONS",
    "Named",
    "Say",
    "say",
    "say_n",
    "translations",
]

TRANSLATIONS = Path(__file__).parent / "translations"
ROOT = Path(__file__).resolve().parent.parent  # the source tree (extraction only)
DEFAULT = "en"
# each language named in itself, as the picker shows it
LANGUAGES: dict[str, str] = {
    "en": "English",
    "it": "Italiano",
    "fr": "Français",
    "de": "Deutsch",
}
# the marks extraction finds, besides babel's own (gettext, _, ngettext, pgettext...):
# engine.say's Say, say_n, N_ and C_, and Flask-Babel's lazy_gettext
KEYWORDS: dict[str, Any] = {
    "lazy_gettext": None,
    "Say": None,
    "N_": None,
    "say_n": (1, 2),
    "C_": ((1, "c"), 2),
}
PROJECT = "referee"
HOLDER = "the referee's authors"
CREATED = datetime(2026, 11, 28, tzinfo=UTC)


# catalogues of languages beyond LANGUAGES that an app serves from its own folder (a test's
# made-up language), by code: their folder
_ELSEWHERE: dict[str, str] = {}


def add_catalogue(lang: str, folder: str) -> None:
    """Says ``lang`` from the catalogue in ``folder`` (``folder/<lang>/LC_MESSAGES``) rather than
    the project's own: a language an app serves that the project does not ship."""
    if _ELSEWHERE.get(lang) != folder:
        _ELSEWHERE[lang] = folder
        translations.cache_clear()


@lru_cache(maxsize=16)
def translations(lang: str) -> NullTranslations:
    """The compiled catalogue of ``lang`` (English, or a language without one: the words as
    written)."""
    if lang == DEFAULT:
        return NullTranslations()
    return Translations.load(_ELSEWHERE.get(lang, str(TRANSLATIONS)), [lang])


def say(text: Any, lang: str, table: NullTranslations | None = None) -> str:
    """``text`` in ``lang``: a :class:`Say` by its template and values (each value said too), a
    :class:`Named` by its context, any other string as a marked constant (unchanged when no
    catalogue has it: data, a name, a code)."""
    t = table if table is not None else translations(lang)
    if isinstance(text, Say):
        if text.plural is not None and text.num is not None:
            words = t.ngettext(text.template, text.plural, text.num)
        else:
            words = t.gettext(text.template)
        if not text.values:
            return str(words)
        return str(words) % {k: _value(v, lang, t) for k, v in text.values.items()}
    if isinstance(text, Named):
        return str(t.pgettext(text.context, str(text)))
    if isinstance(text, str):
        return str(t.gettext(text)) if text else text
    return str(text)


def _value(v: Any, lang: str, t: NullTranslations) -> Any:
    if isinstance(v, (Say, Named)):
        return say(v, lang, t)
    if isinstance(v, (list, tuple)):
        return ", ".join(say(x, lang, t) if isinstance(x, (Say, Named)) else str(x) for x in v)
    return v


def names(lang: str) -> Mapping[str, str]:
    """The languages served, each named in itself (``lang`` unused: a name is its own)."""
    return LANGUAGES


# ---- the catalogues: extract, update, compile ------------------------------------------------


def extract(root: Path = ROOT) -> Catalog:
    """Every string marked in the code and templates, as ``babel.cfg`` maps the files."""
    with (root / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)  # type: ignore[no-untyped-call]
    keywords = dict(DEFAULT_KEYWORDS)
    keywords.update(KEYWORDS)
    # a fixed date: the header stays the same from one extraction to the next
    catalog = Catalog(
        project=PROJECT, copyright_holder=HOLDER, charset="utf-8", creation_date=CREATED
    )
    for _file, _lineno, message, comments, context in extract_from_dir(
        str(root), method_map, options_map, keywords=keywords, strip_comment_tags=True
    ):
        catalog.add(message, None, [], auto_comments=comments, context=context)
    return catalog


def _write(path: Path, catalog: Catalog) -> None:
    out = io.BytesIO()
    write_po(out, catalog, width=0, no_location=True, sort_output=True, omit_header=False)
    path.write_bytes(out.getvalue())


def update(root: Path = ROOT, folder: Path = TRANSLATIONS) -> Catalog:
    """Writes ``messages.pot`` from the marks, then carries it into every ``messages.po``: new
    entries empty (no fuzzy guess), entries marked nowhere dropped, translations kept."""
    template = extract(root)
    _write(folder / "messages.pot", template)
    for po in catalogues(folder):
        with po.open("rb") as f:
            catalog = read_po(f)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        _write(po, catalog)
    return template


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
    translations.cache_clear()
    return written


def untranslated(folder: Path = TRANSLATIONS) -> dict[str, int]:
    """How many entries each language still lacks (empty or fuzzy)."""
    counts = {}
    for po in catalogues(folder):
        with po.open("rb") as f:
            catalog = read_po(f)
        lacking = 0
        for m in catalog:
            strings = m.string if isinstance(m.string, (tuple, list)) else (m.string,)
            if m.id and (m.fuzzy or not all(strings)):
                lacking += 1
        counts[po.parent.parent.name] = lacking
    return counts


if __name__ == "__main__":  # python -m referee.language [compile]
    if sys.argv[1:] != ["compile"]:
        template = update()
        print(f"messages.pot: {len(template)} entries", file=sys.stderr)
    for path in compile_all():
        print(path, file=sys.stderr)
    for lang, n in untranslated().items():
        print(f"{lang}: {n} entries to translate", file=sys.stderr)
