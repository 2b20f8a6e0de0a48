"""Checks at the service's edge: every argument a caller passes is checked here, by type, size,
nesting and name, before any work. Each check raises :class:`InputError` with one sentence that
names the input.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.say import Say

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
KEY = re.compile(r"^[\x21-\x7e]{1,128}$")  # printable ASCII, no spaces
MAX_TEXT = 500  # a reason, a note
MAX_NAME = 40  # a player's name
MAX_INT = 10_000  # no count, column, position or event number comes near it (except seqs)
MAX_SEQ = 10**9
MAX_DEPTH = 6  # an action: {"order": {"<seat>": ["A"]}} is depth 3
MAX_ITEMS = 64  # entries of one list or object
MAX_STRING = 200


class InputError(ValueError):
    """An argument that is not of the form the service takes. Its one argument is the sentence
    (an :class:`engine.say.Say`, said in the reader's language at the edge); ``str(e)`` is that
    sentence itself, the Say kept."""

    def __str__(self) -> str:
        first = self.args[0] if self.args else ""
        return first if isinstance(first, str) else super().__str__()


def game_id(v: Any, what: str = "game") -> str:
    if not isinstance(v, str) or not GAME_ID.match(v):
        raise InputError(Say("%(what)s: a game id is 1-64 letters, digits, '-' or '_'", what=what))
    return v


def text(v: Any, what: str, *, max_len: int = MAX_TEXT, required: bool = True) -> str:
    if not isinstance(v, str):
        raise InputError(
            Say("%(what)s: must be text, not %(type)s", what=what, type=type(v).__name__)
        )
    if required and not v.strip():
        raise InputError(Say("%(what)s: must not be empty", what=what))
    if len(v) > max_len:
        raise InputError(
            Say(
                "%(what)s: at most %(max)s characters (%(given)s given)",
                what=what,
                max=max_len,
                given=len(v),
            )
        )
    if any(ord(c) < 32 and c not in "\n\t" for c in v):
        raise InputError(Say("%(what)s: control characters are not allowed", what=what))
    return v


def file_text(v: Any, what: str, *, max_len: int) -> str:
    """A whole file's text (a deck list): its type and size only. Its lines, control
    characters included, are checked by the one reader of that file, which names the line and
    the field (a game's deck-list reader)."""
    if not isinstance(v, str):
        raise InputError(
            Say("%(what)s: must be text, not %(type)s", what=what, type=type(v).__name__)
        )
    if len(v) > max_len:
        raise InputError(
            Say(
                "%(what)s: at most %(max)s characters (%(given)s given)",
                what=what,
                max=max_len,
                given=len(v),
            )
        )
    return v


def utf8_file(data: bytes, *, max_bytes: int) -> str:
    """The text of a file's bytes: UTF-8, with or without a byte-order mark (what a
    spreadsheet saves as "CSV UTF-8"). Raises InputError for a file over ``max_bytes`` or one
    that is not UTF-8, naming the line of the first bad byte; the caller names the file."""
    if len(data) > max_bytes:
        raise InputError(Say("larger than %(kb)s kB", kb=max_bytes // 1000))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(
            Say(
                "line %(line)s: not UTF-8 text (byte %(byte)s); save the file as UTF-8 text "
                "(from a spreadsheet: CSV UTF-8)",
                line=line,
                byte=f"0x{data[e.start]:02X}",
            )
        ) from None


def integer(v: Any, what: str, lo: int, hi: int) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise InputError(
            Say("%(what)s: must be a whole number, not %(type)s", what=what, type=type(v).__name__)
        )
    if not lo <= v <= hi:
        raise InputError(Say("%(what)s: must be %(lo)s to %(hi)s", what=what, lo=lo, hi=hi))
    return v


def idem_key(v: Any) -> str | None:
    if v is None:
        return None
    if not isinstance(v, str) or not KEY.match(v):
        raise InputError(
            Say("key: an idempotency key is 1-128 printable characters without spaces")
        )
    return v


def json_value(v: Any, what: str, *, depth: int = MAX_DEPTH) -> Any:
    """A JSON-like value (dict, list, str, int, bool, None) within bounds; keys are strings
    that do not start with ``$`` (reserved for the log's sealed values)."""
    stack: list[tuple[Any, int, str]] = [(v, 1, what)]
    seen = 0
    while stack:
        x, d, where = stack.pop()
        seen += 1
        if seen > 1000:
            raise InputError(Say("%(what)s: too large", what=what))
        if d > depth:
            raise InputError(
                Say("%(where)s: nested more than %(depth)s levels", where=where, depth=depth)
            )
        if isinstance(x, Mapping):
            if len(x) > MAX_ITEMS:
                raise InputError(
                    Say("%(where)s: more than %(max)s entries", where=where, max=MAX_ITEMS)
                )
            for k, y in x.items():
                if not isinstance(k, str) or not k or len(k) > 40 or k.startswith("$"):
                    name = k[:40] if isinstance(k, str) else type(k).__name__
                    raise InputError(
                        Say("%(where)s: %(name)s is not a field name", where=where, name=repr(name))
                    )
                stack.append((y, d + 1, f"{where}.{k}"))
        elif isinstance(x, list | tuple):
            if len(x) > MAX_ITEMS:
                raise InputError(
                    Say("%(where)s: more than %(max)s entries", where=where, max=MAX_ITEMS)
                )
            stack.extend((y, d + 1, f"{where}[{i}]") for i, y in enumerate(x))
        elif isinstance(x, bool) or x is None:
            pass
        elif isinstance(x, int):
            if abs(x) > MAX_INT:
                raise InputError(
                    Say("%(where)s: %(number)s is too large", where=where, number=x)
                    if abs(x) < 10**12
                    else Say("%(where)s: the number is too large", where=where)
                )
        elif isinstance(x, str):
            if len(x) > MAX_STRING:
                raise InputError(
                    Say(
                        "%(where)s: text longer than %(max)s characters",
                        where=where,
                        max=MAX_STRING,
                    )
                )
        else:
            raise InputError(
                Say("%(where)s: %(type)s is not a JSON value", where=where, type=type(x).__name__)
            )
    return v


def mapping(v: Any, what: str) -> dict[str, Any]:
    if not isinstance(v, Mapping):
        raise InputError(
            Say("%(what)s: must be an object, not %(type)s", what=what, type=type(v).__name__)
        )
    json_value(v, what)
    return dict(v)
