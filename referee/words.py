"""Small helpers for the words a person reads: the log head and plurals.

Every page, the end screen, the report and the CLI write a log head the one way that
``referee verify --head`` reads back, ``SEQ:HASH`` with the first 8 hex digits of the hash
(``39:18a78063``), through :func:`head_text`; a count and its noun go through :func:`plural`
("1 call", "2 calls"). JSON keeps its own fields (``{"seq": 39, "hash": ...}``).
"""

from __future__ import annotations


def head_text(seq: int, digest: str) -> str:
    """A log head as written on the score sheet and read by ``verify --head``: ``39:18a78063``."""
    return f"{int(seq)}:{digest[:8]}"


def plural_noun(noun: str, count: int) -> str:
    """``noun`` as it goes with ``count``: singular for exactly one, plural otherwise
    (English rules for the nouns we use: "call", "irregularity", "action point", "match")."""
    if count == 1:
        return noun
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def plural(count: int, noun: str) -> str:
    """A count with its noun: ``plural(1, "call")`` is "1 call", ``plural(3, "call")`` "3 calls"."""
    return f"{count} {plural_noun(noun, count)}"
