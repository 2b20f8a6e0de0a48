"""Checks at the service's edge: every argument a caller passes is checked here, by type, size,
nesting and name, before any work. Each check raises :class:`InputError` with one sentence that
names the input.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

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
    """An argument that is not of the form the service takes."""


def game_id(v: Any, what: str = "game") -> str:
    if not isinstance(v, str) or not GAME_ID.match(v):
        raise InputError(f"{what}: a game id is 1-64 letters, digits, '-' or '_'")
    return v


def text(v: Any, what: str, *, max_len: int = MAX_TEXT, required: bool = True) -> str:
    if not isinstance(v, str):
        raise InputError(f"{what}: must be text, not {type(v).__name__}")
    if required and not v.strip():
        raise InputError(f"{what}: must not be empty")
    if len(v) > max_len:
        raise InputError(f"{what}: at most {max_len} characters ({len(v)} given)")
    if any(ord(c) < 32 and c not in "\n\t" for c in v):
        raise InputError(f"{what}: control characters are not allowed")
    return v


def file_text(v: Any, what: str, *, max_len: int) -> str:
    """A whole file's text (a deck list): its type and size only. Its lines, control
    characters included, are checked by the one reader of that file, which names the line and
    the field (a game's deck-list reader)."""
    if not isinstance(v, str):
        raise InputError(f"{what}: must be text, not {type(v).__name__}")
    if len(v) > max_len:
        raise InputError(f"{what}: at most {max_len} characters ({len(v)} given)")
    return v


def utf8_file(data: bytes, *, max_bytes: int) -> str:
    """The text of a file's bytes: UTF-8, with or without a byte-order mark (what a
    spreadsheet saves as "CSV UTF-8"). Raises InputError for a file over ``max_bytes`` or one
    that is not UTF-8, naming the line of the first bad byte; the caller names the file."""
    if len(data) > max_bytes:
        raise InputError(f"larger than {max_bytes // 1000} kB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(
            f"line {line}: not UTF-8 text (byte 0x{data[e.start]:02X}); save the file as "
            "UTF-8 text (from a spreadsheet: CSV UTF-8)"
        ) from None


def integer(v: Any, what: str, lo: int, hi: int) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise InputError(f"{what}: must be a whole number, not {type(v).__name__}")
    if not lo <= v <= hi:
        raise InputError(f"{what}: must be {lo} to {hi}")
    return v


def idem_key(v: Any) -> str | None:
    if v is None:
        return None
    if not isinstance(v, str) or not KEY.match(v):
        raise InputError("key: an idempotency key is 1-128 printable characters without spaces")
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
            raise InputError(f"{what}: too large")
        if d > depth:
            raise InputError(f"{where}: nested more than {depth} levels")
        if isinstance(x, Mapping):
            if len(x) > MAX_ITEMS:
                raise InputError(f"{where}: more than {MAX_ITEMS} entries")
            for k, y in x.items():
                if not isinstance(k, str) or not k or len(k) > 40 or k.startswith("$"):
                    name = k[:40] if isinstance(k, str) else type(k).__name__
                    raise InputError(f"{where}: {name!r} is not a field name")
                stack.append((y, d + 1, f"{where}.{k}"))
        elif isinstance(x, list | tuple):
            if len(x) > MAX_ITEMS:
                raise InputError(f"{where}: more than {MAX_ITEMS} entries")
            stack.extend((y, d + 1, f"{where}[{i}]") for i, y in enumerate(x))
        elif isinstance(x, bool) or x is None:
            pass
        elif isinstance(x, int):
            if abs(x) > MAX_INT:
                raise InputError(f"{where}: {x if abs(x) < 10**12 else 'the number'} is too large")
        elif isinstance(x, str):
            if len(x) > MAX_STRING:
                raise InputError(f"{where}: text longer than {MAX_STRING} characters")
        else:
            raise InputError(f"{where}: {type(x).__name__} is not a JSON value")
    return v


def mapping(v: Any, what: str) -> dict[str, Any]:
    if not isinstance(v, Mapping):
        raise InputError(f"{what}: must be an object, not {type(v).__name__}")
    json_value(v, what)
    return dict(v)
