"""Small helpers for the words a person reads: the log head and plurals.

Every page, the end screen, the report and the CLI write a log head the one way that
``referee verify --head`` reads back, ``SEQ:HASH`` with the first 8 hex digits of the hash
(``39:18a78063``), through :func:`head_text`; a count and its noun go through :func:`plural`
("1 call", "2 calls"; a :class:`engine.say.Say` with every language's plural forms for the
nouns the pages count). JSON keeps its own fields (``{"seq": 39, "hash": ...}``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from engine.say import Say, say_n

NONE: Mapping[str, str] = MappingProxyType({})  # no seat's possessive is other than "his"


def head_text(seq: int, digest: str) -> str:
    """A log head as written on the score sheet and read by ``verify --head``: ``39:18a78063``."""
    return f"{int(seq)}:{digest[:8]}"


def parse_head(text: str) -> tuple[int, str]:
    """A head as :func:`head_text` writes it (``39:18a78063``; the hash may be longer) read
    back: the event number and the hash prefix, lowercase. Raises ValueError naming the text."""
    seq, sep, digest = text.strip().partition(":")
    digest = digest.strip().lower()
    if (
        not sep
        or not seq.strip().isdigit()
        or len(digest) < 8
        or any(c not in "0123456789abcdef" for c in digest)
    ):
        raise ValueError(f"{text!r} must be SEQ:HASH (8 hex or more)")
    return int(seq), digest


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


def counted(count: int, noun: str) -> Say | None:
    """A count of one of the nouns the pages count, with its plural forms in every language (a
    :class:`engine.say.Say`: English here, said in the reader's language with ``say``); None
    for another noun."""
    if noun == "call":
        return say_n("%(num)d call", "%(num)d calls", count)
    if noun == "irregularity":
        return say_n("%(num)d irregularity", "%(num)d irregularities", count)
    if noun == "card":
        return say_n("%(num)d card", "%(num)d cards", count)
    if noun == "action point":
        return say_n("%(num)d action point", "%(num)d action points", count)
    if noun == "record":
        return say_n("%(num)d record", "%(num)d records", count)
    return None


def plural(count: int, noun: str) -> str:
    """A count with its noun: ``plural(1, "call")`` is "1 call", ``plural(3, "call")`` "3 calls".
    For the nouns the pages count (:func:`counted`) it is a :class:`engine.say.Say` carrying
    every language's plural forms: a page says it with ``{{ n|plural('call')|say }}``."""
    said = counted(count, noun)
    return said if said is not None else f"{count} {plural_noun(noun, count)}"


def possessive(seat: str, possessives: Mapping[str, str] = NONE) -> str:
    """A seat's possessive ("took back her last card"): its game's word for it
    (``Game.possessives``), else "his", as the rulebooks write the players."""
    return possessives.get(seat, "his")


def needs_words(
    needs: str,
    asked: Sequence[str] = (),
    possessives: Mapping[str, str] = NONE,
    phrases: Mapping[str, str] = NONE,
) -> str:
    """What a question waits for, in words, from its field path alone (so the words tell
    nothing hidden): the game's phrase for the path's head (``Game.needs_phrases``), its
    ``{whose}`` the seat the path names: "his" when that seat is the one asked ("the order of
    his cards onto the discard pile"), else the seat's; never the path itself."""
    head, _, rest = needs.partition(".")
    seat = rest.partition("[")[0]
    phrase = phrases.get(head)
    if phrase is None or ("{whose}" in phrase and not seat):
        return Say("an answer")  # said in the reader's language where a page shows it
    if "{whose}" not in phrase:
        return Say(phrase)  # the game marks its phrases (N_) for the catalogues
    if tuple(asked) == (seat,):  # the game marks these too: "the order of her cards ..."
        return Say(phrase.format(whose=possessive(seat, possessives)))
    # "the order of %(seat)s's cards onto the discard pile", marked by the game
    return Say(phrase.replace("{whose}", "%(seat)s's"), seat=seat.capitalize())
