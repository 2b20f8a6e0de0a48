"""``referee rule``: a ruling file goes to the game it names (``"game"``; without it, the
default game's), whose module rules on it (:meth:`referee.game.Game.rule_on_file`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.errors import NotationError
from engine.say import C_, N_, Named, Say
from referee.game import AnyGame
from referee.jsonin import loads_strict
from referee.language import DEFAULT, LANGUAGES, say

MAX_FILE_BYTES = 1_000_000  # a ruling file is a position and a few actions: kilobytes
MAX_DEPTH = 16  # a position nests a few levels (file, side, zone, column, entry)


def game_of_file(text: str, name: str, games: Mapping[str, AnyGame], default: str) -> AnyGame:
    """The game whose ruling file ``text`` is: the one its ``"game"`` names, else ``default``.
    Raises NotationError for text that is not strict JSON within the limits, an unknown game,
    or a file without ``"game"`` that has keys only another game's files have."""
    try:
        raw = loads_strict(text, name, max_bytes=MAX_FILE_BYTES, max_depth=MAX_DEPTH)
    except ValueError as e:
        raise NotationError(str(e)) from None
    if not isinstance(raw, dict):
        return games[default]  # its reader refuses it, naming what it is
    if "game" in raw:
        game = games.get(raw["game"]) if isinstance(raw["game"], str) else None
        if game is None:
            raise NotationError(
                f"unknown game {str(raw['game'])[:40]!r}: the games are {', '.join(games)}",
                "game",
            )
        return game
    for g in games.values():
        looks = sorted(set(raw) & g.ruling_keys)
        if g.name != default and looks:
            raise NotationError(
                f'missing: a {g.title} file (it has {looks[0]!r}) says "game": "{g.name}"; '
                f"a file without game is {games[default].title}'s",
                "game",
            )
    return games[default]


# ---- citations in a language (issue 36) -----------------------------------------------------

# a rulebook edition among a rule's sources, as an adjective of "edition" in "only in the ...
# edition" (German: the dative form, "nur in der englischen Ausgabe")
EDITIONS: dict[str, Named] = {
    "EN": C_("edition", "English"),
    "IT": C_("edition", "Italian"),
    "FR": C_("edition", "French"),
}
# the rule is in one edition only, and the reader's language has an edition among the game's
# sources that lacks it
ONLY_IN = {
    "it": N_("%(keys)s: only in the %(edition)s edition; the Italian one does not have it"),
    "fr": N_("%(keys)s: only in the %(edition)s edition; the French one does not have it"),
}
# the rule is in several editions, none of them the reader's
ABSENT = {
    "it": N_("%(keys)s: the Italian edition does not have this passage"),
    "fr": N_("%(keys)s: the French edition does not have this passage"),
}
# the reader's language has no edition among the game's sources (German; French and English
# for a game whose only source is Italian)
UNLISTED_ONE = {
    "fr": N_(
        "%(keys)s: only in the %(edition)s edition; the French edition is not among the sources"
    ),
    "de": N_(
        "%(keys)s: only in the %(edition)s edition; the German edition is not among the sources"
    ),
}
UNLISTED = {
    "fr": N_("%(keys)s: the French edition is not among the sources"),
    "de": N_("%(keys)s: the German edition is not among the sources"),
}
NO_EDITION = N_("%(keys)s: in no edition's rulebook")


def sources_said(sources: Sequence[str], lang: str, own: Mapping[str, str]) -> str:
    """A rule's ``sources`` (edition keys) as a citation says them in ``lang``: the keys
    unchanged in English; else the language's own source (``own[lang]``, e.g. ``IT``) first
    where the rule has it, and where it does not, the keys with a plain sentence saying which
    edition has the passage and that the reader's does not (or is not among the sources)."""
    keys = ", ".join(sources)
    if lang == DEFAULT or lang not in LANGUAGES:
        return keys
    mine = own.get(lang)
    if mine is not None and mine in sources:
        return ", ".join([mine, *(s for s in sources if s != mine)])
    books = [EDITIONS[s] for s in sources if s in EDITIONS]
    listed = mine is not None and mine in EDITIONS  # the reader's edition is a game source
    if not books:
        text = Say(NO_EDITION, keys=keys)
    elif len(books) == 1:
        text = Say((ONLY_IN if listed else UNLISTED_ONE)[lang], keys=keys, edition=books[0])
    else:
        text = Say((ABSENT if listed else UNLISTED)[lang], keys=keys)
    return say(text, lang)


def language_refused(lang: str) -> str | None:
    """Why ``lang`` is not a language ``referee rule --lang`` speaks (None: it is one)."""
    if lang in LANGUAGES:
        return None
    return f"unknown language {lang[:20]!r}: the languages are {', '.join(LANGUAGES)}"
