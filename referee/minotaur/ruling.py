"""``referee rule`` for Minotaur Lords ruling files (a file with ``"game": "minotaur"``;
docs/minotaur.md): the result object with the citations of the M-numbers it rests
on, and its text for a judge."""

from __future__ import annotations

import json
from typing import Any

from engine.errors import NotationError
from engine.minotaur.notation import rule_file
from engine.minotaur.rulebook import RULES
from referee.jsonin import loads_strict
from referee.rulings import MAX_DEPTH, MAX_FILE_BYTES


def rule_text(text: str, name: str, as_json: bool) -> str:
    """``referee rule`` on a Minotaur Lords ruling file. Raises NotationError."""
    try:
        raw = loads_strict(text, name, max_bytes=MAX_FILE_BYTES, max_depth=MAX_DEPTH)
    except ValueError as e:
        raise NotationError(str(e)) from None
    result = rule(raw)
    return json.dumps(result, indent=1, ensure_ascii=False) if as_json else render_text(result)


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
