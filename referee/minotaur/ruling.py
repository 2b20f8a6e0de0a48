"""``referee rule`` for Minotaur Lords ruling files (a file with ``"game": "minotaur"``;
docs/minotaur.md): the result object with the citations of the M-numbers it rests
on, and its text for a judge."""

from __future__ import annotations

from typing import Any

from engine.errors import NotationError
from engine.minotaur.notation import GAME, rule_file
from engine.minotaur.rulebook import RULES
from referee.herazeus.ruling import GAME as HERA_ZEUS
from referee.herazeus.ruling import MAX_DEPTH, MAX_FILE_BYTES
from referee.jsonin import loads_strict

GAMES = (HERA_ZEUS, GAME)  # a Hera & Zeus file may say so; without "game" it is one
# keys only a Minotaur Lords file has: such a file without "game" lacks it
_MINOTAUR_ONLY = frozenset({"cards", "miron", "vess", "markers", "bonus", "match"})


def is_minotaur(text: str, name: str) -> dict[str, Any] | None:
    """The file's JSON when it is a Minotaur Lords ruling file, else None (a Hera & Zeus file,
    or one the Hera & Zeus reader will refuse). Raises NotationError for text that is not
    strict JSON within the limits, an unknown game, or a Minotaur Lords file without
    ``"game"``."""
    try:
        raw = loads_strict(text, name, max_bytes=MAX_FILE_BYTES, max_depth=MAX_DEPTH)
    except ValueError as e:
        raise NotationError(str(e)) from None
    if not isinstance(raw, dict):
        return None
    if "game" in raw:
        game = raw["game"]
        if game == GAME:
            return raw
        if game == HERA_ZEUS:
            return None
        raise NotationError(
            f"unknown game {str(game)[:40]!r}: the games are {', '.join(GAMES)}", "game"
        )
    looks = sorted(set(raw) & _MINOTAUR_ONLY)
    if looks:
        raise NotationError(
            f'missing: a Minotaur Lords file (it has {looks[0]!r}) says "game": "{GAME}"; '
            "a file without game is Hera & Zeus's",
            "game",
        )
    return None


def rule(raw: dict[str, Any]) -> dict[str, Any]:
    """The result object, with ``citations`` of every rule cited. Raises NotationError."""
    out = rule_file(raw)
    out["citations"] = {r: RULES[r].citation() for r in out["rules"] if r in RULES}
    return out


def render_text(result: dict[str, Any]) -> str:
    """The ruling for a judge: the sentences, the check column by column, the citations."""
    lines = [result["ruling"], "", "Supremacy as the table stands (Miron - Vess, marker):"]
    for c in result["supremacy"]:
        holder = (c["after"] or "none").title()
        lines.append(f"  {c['column']:<16} {c['miron']:>3} - {c['vess']:<3} {holder}")
    if result["citations"]:
        lines += ["", "Rules:"]
        lines += [f"  {text}" for text in result["citations"].values()]
    return "\n".join(lines)
