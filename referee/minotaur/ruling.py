"""``referee rule`` for Minotaur Lords ruling files (a file with ``"game": "minotaur"``;
docs/minotaur.md): the result object with the citations of the M-numbers it rests
on, and its text for a judge."""

from __future__ import annotations

import json
from typing import Any

from engine.errors import NotationError
from engine.minotaur.notation import posed, rule_file
from engine.minotaur.rulebook import RULES, Rule
from engine.say import Say
from referee.jsonin import loads_strict
from referee.language import DEFAULT, say
from referee.minotaur.guard import cautions, project
from referee.rulings import MAX_DEPTH, MAX_FILE_BYTES, sources_said


def rule_text(text: str, name: str, as_json: bool, lang: str = DEFAULT) -> str:
    """``referee rule`` on a Minotaur Lords ruling file, its human words in ``lang``. Raises
    NotationError."""
    try:
        raw = loads_strict(text, name, max_bytes=MAX_FILE_BYTES, max_depth=MAX_DEPTH)
    except ValueError as e:
        raise NotationError(str(e)) from None
    result = rule(raw, lang)
    if as_json:
        return json.dumps(result, indent=1, ensure_ascii=False)
    return render_text(result, lang)


def rule(raw: dict[str, Any], lang: str = DEFAULT) -> dict[str, Any]:
    """The result object, with ``citations`` of every rule cited, its human words (the ruling,
    the citations) in ``lang``. Raises NotationError."""
    out = rule_file(raw)
    out["ruling"] = say(out["ruling"], lang)  # words the engine marked; the rest stays English
    out["citations"] = {r: citation(RULES[r], lang) for r in out["rules"] if r in RULES}
    out["warnings"] = warnings(raw, lang)
    return out


def warnings(raw: dict[str, Any], lang: str = DEFAULT) -> list[dict[str, Any]]:
    """The guardian's warnings on the file's actions (issue 37): each with the index of the
    action (``action``, as ``failed_at`` counts), its rule, its sentence in ``lang`` and the
    legal actions that avoid it, from the table as the action's player saw it."""
    out = []
    for i, (st, a) in enumerate(posed(raw)):
        actor = a.by or st.turn.player
        for c in cautions(project(st, actor), a, actor):
            out.append({"action": i, **c.to_json(lambda t: say(t, lang))})
    return out


# the only source of Minotaur Lords is its Italian rulebook (MINOTAUR.md)
OWN_SOURCE = {"it": "IT"}


def citation(rule: Rule, lang: str = DEFAULT) -> str:
    """``M1 Start of turn: ...`` in ``lang``: the title and text said, then the source: the
    Italian edition (``IT``) for an M-decision, none for a project ruling (ML-P…), said as
    :func:`referee.rulings.sources_said` says it. English: :meth:`Rule.citation`, as before."""
    if lang == DEFAULT:
        return rule.citation()
    cited = sources_said(rule.sources, lang, OWN_SOURCE)
    return f"{rule.id} {say(rule.title, lang)}: {say(rule.text, lang)} ({cited})"


def render_text(result: dict[str, Any], lang: str = DEFAULT) -> str:
    """The ruling for a judge: the sentences, the check column by column, the citations."""
    table = say(Say("Supremacy as the table stands (Miron - Vess, marker):"), lang)
    lines = [result["ruling"], "", table]
    for c in result["supremacy"]:
        holder = (c["after"] or say(Say("none"), lang)).title()
        lines.append(f"  {c['column']:<16} {c['miron']:>3} - {c['vess']:<3} {holder}")
    for w in result["warnings"]:
        line = Say(
            "Guardian, before action %(num)s: %(text)s [%(rule)s] Avoided by: %(alternatives)s",
            num=w["action"] + 1,
            text=w["text"],
            rule=w["rule"],
            alternatives=", ".join(w["alternatives"]) or "-",
        )
        lines += ["", say(line, lang)]
    if result["citations"]:
        lines += ["", say(Say("Rules:"), lang)]
        lines += [f"  {text}" for text in result["citations"].values()]
    return "\n".join(lines)
