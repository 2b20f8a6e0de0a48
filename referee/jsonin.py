"""Strict JSON input: every JSON text the referee reads from outside goes through here.

:func:`loads_strict` accepts only what RFC 8259 (with the I-JSON profile, RFC 7493) calls
interoperable JSON, within bounds, and answers any other input with one ``ValueError`` whose
message is one line naming the input:

- at most ``max_bytes`` bytes of UTF-8 and at most ``max_depth`` nested arrays and objects
  (checked before parsing, so a deep or huge text costs neither recursion nor memory);
- no duplicate keys in an object (the reader could not know which one counts);
- no ``NaN``, ``Infinity`` or ``-Infinity``, no number too large for a double
  (``1e999``), no integer of more than :data:`MAX_INT_DIGITS` digits (Python's own
  int-conversion limit would otherwise raise in the middle of a parse);
- no lone surrogate (``"\\ud800"``): every string is valid Unicode and can be written back.

Nothing else is changed: objects become ``dict``, arrays ``list``, numbers ``int`` or
``float``.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

from engine.say import Say

MAX_INT_DIGITS = 100  # far beyond any count, sequence number or time the referee reads
_MAX_FLOAT_CHARS = 400  # a longer number literal is refused before it is converted
_SHOW = 40  # characters of an offending key or literal quoted in a message

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # a JSON string, escapes included
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # the only way JSON spells a surrogate


class _Refused(ValueError):
    """Raised inside the parser's hooks; :func:`loads_strict` adds the input's name."""


class NotStrictJson(ValueError):
    """What :func:`loads_strict` raises: a ``ValueError`` whose one argument is its sentence,
    an :class:`engine.say.Say` (``str(e)`` is that Say)."""

    def __str__(self) -> str:
        first = self.args[0] if self.args else ""
        return first if isinstance(first, str) else super().__str__()


def _show(text: str) -> str:
    """A short, one-line quotation of ``text`` for a message."""
    r = repr(text[:_SHOW])
    return r + ("…" if len(text) > _SHOW else "")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Refused(Say("duplicate key %(key)s in an object", key=_show(k)))
        out[k] = v
    return out


def _constant(name: str) -> Any:
    raise _Refused(Say("%(name)s is not a JSON number", name=name))


def _int(text: str) -> int:
    digits = len(text) - (text[0] == "-")
    if digits > MAX_INT_DIGITS:
        raise _Refused(
            Say("an integer of %(num)s digits (at most %(max)s)", num=digits, max=MAX_INT_DIGITS)
        )
    return int(text)


def _float(text: str) -> float:
    if len(text) > _MAX_FLOAT_CHARS:
        raise _Refused(Say("a number literal of %(num)s characters", num=len(text)))
    v = float(text)
    if not math.isfinite(v):
        raise _Refused(Say("the number %(number)s is too large", number=_show(text)))
    return v


def _check_depth(text: str, max_depth: int) -> None:
    """Refuses a text whose arrays and objects nest deeper than ``max_depth`` (brackets inside
    strings do not count): C passes strip everything but brackets, then one loop over them."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if len(brackets) <= max_depth:
        return
    for depth in accumulate(map(_STEP.__getitem__, brackets)):
        if depth > max_depth:  # stops at the first level too deep
            raise _Refused(Say("nested more than %(depth)s levels deep", depth=max_depth))


def _check_strings(value: Any) -> None:
    """Refuses a lone surrogate in any string or key (iteratively: no recursion)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if not v.isascii():
                try:
                    v.encode("utf-8")
                except UnicodeEncodeError:
                    raise _Refused(
                        Say(
                            "the string %(string)s holds a lone surrogate (not Unicode text)",
                            string=_show(v),
                        )
                    ) from None
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def loads_strict(text: str, what: str, *, max_bytes: int = 1_000_000, max_depth: int = 64) -> Any:
    """Parses one JSON text strictly (see the module docstring).

    ``what`` names the input in messages (a file name, ``request body``, ``log line 3``).
    Raises ValueError with a one-line message that starts with ``what``.
    """
    if not isinstance(text, str):
        raise NotStrictJson(
            Say("%(what)s: not text (%(type)s)", what=what, type=type(text).__name__)
        )
    if len(text) > max_bytes:  # a character is at least one byte
        raise NotStrictJson(
            Say("%(what)s: too large: more than %(max)s bytes", what=what, max=f"{max_bytes:,}")
        )
    try:
        size = len(text) if text.isascii() else len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise NotStrictJson(
            Say("%(what)s: not Unicode text (a lone surrogate)", what=what)
        ) from None
    if size > max_bytes:
        raise NotStrictJson(
            Say(
                "%(what)s: too large: %(size)s bytes (at most %(max)s)",
                what=what,
                size=f"{size:,}",
                max=f"{max_bytes:,}",
            )
        )
    try:
        _check_depth(text, max_depth)
        value = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_constant=_constant,
            parse_int=_int,
            parse_float=_float,
        )
        if _SURROGATE_ESCAPE.search(text):
            _check_strings(value)
    except json.JSONDecodeError as e:
        raise NotStrictJson(
            Say(
                "%(what)s: not JSON: %(problem)s at line %(line)s column %(column)s",
                what=what,
                problem=e.msg,
                line=e.lineno,
                column=e.colno,
            )
        ) from None
    except _Refused as e:
        raise NotStrictJson(
            Say("%(what)s: not accepted: %(problem)s", what=what, problem=e.args[0])
        ) from None
    except RecursionError:  # pragma: no cover - _check_depth keeps the parser shallow
        raise NotStrictJson(Say("%(what)s: nested too deeply", what=what)) from None
    return value
