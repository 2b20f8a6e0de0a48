"""Words for a person that can be said in another language (issue 36).

The engines stay pure: they never translate. A sentence they give a person (a refusal's reason,
a question, a ruling's text) is a :class:`Say`: an ordinary ``str`` holding the English words, so
every caller that reads it as text keeps working, that also carries its gettext template and the
values filled into it. The referee and the pages say it in the reader's language
(:func:`referee.language.say`); the catalogues are extracted from the marks below.

Marks (the extraction keywords, ``referee.language.KEYWORDS``):

- ``Say("column %(column)s is full", column=3)``: a sentence with its values (``%(name)s``,
  filled by keyword; whole sentences, never glued from pieces, since word order differs);
- ``say_n("%(num)d card", "%(num)d cards", n)``: a count and its plural forms;
- ``N_("The dragon's reach")``: a constant marked for extraction, said by
  :func:`referee.language.say`
  where it is used (module level data: a rule's title);
- ``C_("somegame card", "Dragon")``: a name in a context (a card name as printed in each
  edition); :class:`Named` carries one as a value.

A value that is itself a :class:`Say` or a :class:`Named` is said in the reader's language too;
a list or tuple of values is written joined by ", ".
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

__all__ = ["C_", "N_", "Named", "Say", "say_n"]

_NONE: Mapping[str, Any] = MappingProxyType({})


def _english(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return value


class Say(str):
    """A sentence for a person: its English words (the ``str`` itself) and how to say it again
    in another language (``template``, ``plural``, ``num``, ``values``)."""

    template: str
    plural: str | None
    num: int | None
    values: Mapping[str, Any]

    def __new__(cls, template: str, /, **values: Any) -> Say:
        text = template % {k: _english(v) for k, v in values.items()} if values else template
        self = super().__new__(cls, text)
        self.template = template
        self.plural = None
        self.num = None
        self.values = MappingProxyType(dict(values)) if values else _NONE
        return self

    def __reduce__(self) -> Any:  # pickled (a worker, a cache) as what it is
        return (_rebuild, (self.template, self.plural, self.num, dict(self.values)))


def say_n(singular: str, plural: str, num: int, /, **values: Any) -> Say:
    """``singular`` or ``plural`` for ``num`` (also the value ``num``), in English here and in
    the reader's language's plural rules when said."""
    values = {"num": num, **values}
    s = Say(singular if num == 1 else plural, **values)
    s.template, s.plural, s.num = singular, plural, num
    return s


def _rebuild(template: str, plural: str | None, num: int | None, values: dict[str, Any]) -> Say:
    if plural is not None and num is not None:
        return say_n(template, plural, num, **{k: v for k, v in values.items() if k != "num"})
    return Say(template, **values)


class Named(str):
    """A name said per language within a context (``C_``): a card name is ``Named("Dragon",
    "somegame card")``, English here, the edition's printed name when said in Italian."""

    context: str

    def __new__(cls, name: str, context: str) -> Named:
        self = super().__new__(cls, name)
        self.context = context
        return self

    def __reduce__(self) -> Any:
        return (Named, (str(self), self.context))


def N_(text: str) -> str:
    """Marks a constant for extraction; said where it is used."""
    return text


def C_(context: str, name: str) -> Named:
    """Marks a name in a context for extraction (``msgctxt``), as a :class:`Named`."""
    return Named(name, context)
