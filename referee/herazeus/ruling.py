"""Ruling files (POSITIONS.md): read one, rule on it, and render the ruling.

A :class:`Ruling` is data: the steps taken, the rules applied, the outcome, and what the other
profiles would rule. :func:`render_text` and :func:`render_json` turn it into what a judge reads
aloud or what a machine checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.herazeus import (
    RULES,
    Action,
    Event,
    EventKind,
    GameState,
    IllegalActionError,
    NeedsInputError,
    NotationError,
    Player,
    Profile,
    apply,
    parse_action,
    read_position,
    write_position,
)
from engine.herazeus.actions import card_names
from engine.herazeus.cards import UNKNOWN, Catalogue
from engine.herazeus.notation import FILE_KEYS, POSITION_KEYS
from engine.herazeus.rulebook import Rule
from engine.say import N_, Say
from referee.herazeus.board import describe_event_json
from referee.herazeus.guard import cautions, project
from referee.jsonin import loads_strict
from referee.language import DEFAULT, say
from referee.models import Caution
from referee.rulings import sources_said


@dataclass(frozen=True)
class Step:
    index: int
    action: Action
    actor: Player
    legal: bool
    rules: tuple[str, ...]
    events: tuple[Event, ...] = ()
    refusal: str | None = None  # why an illegal action was refused
    notes: tuple[str, ...] = ()
    warnings: tuple[Caution, ...] = ()  # the guardian's, as the actor saw the table (issue 37)


@dataclass(frozen=True)
class Verdict:
    legal: bool
    failed_at: int | None
    winner: Player | None
    reason: str | None
    rules: tuple[str, ...]
    position: dict[str, Any]
    steps: tuple[Step, ...]
    state: GameState


@dataclass(frozen=True)
class Ruling:
    profile: Profile
    verdict: Verdict
    others: dict[Profile, Verdict] = field(default_factory=dict)  # only those that differ
    provisional_catalogue: bool = False


GAME = "hera-zeus"  # a file may name its game (referee.herazeus.game.NAME); without it, this one
MAX_FILE_BYTES = 1_000_000  # a ruling file is a position and a few actions: kilobytes
MAX_DEPTH = 16  # the notation nests five levels (file, side, field, column, entry)
MAX_ACTIONS = 1000  # a dispute is a few actions; a whole game is a few hundred


def load_ruling_file(text: str, name: str = "file") -> tuple[GameState, list[Action]]:
    """Parses a ruling file. Raises NotationError naming the bad input: malformed, oversized
    (more than :data:`MAX_FILE_BYTES` bytes, :data:`MAX_DEPTH` levels of nesting or
    :data:`MAX_ACTIONS` actions) or not strict JSON (see :mod:`referee.jsonin`)."""
    try:
        raw = loads_strict(text, name, max_bytes=MAX_FILE_BYTES, max_depth=MAX_DEPTH)
    except ValueError as e:
        raise NotationError(str(e)) from None
    if not isinstance(raw, Mapping):
        raise NotationError("a ruling file must be a JSON object", name)
    for k in raw:
        if k not in FILE_KEYS and not (k == "game" and raw[k] == GAME):
            raise NotationError(f"unknown key {k!r}", name)
    state = read_position({k: v for k, v in raw.items() if k in POSITION_KEYS})
    actions_raw = raw.get("actions", [])
    if not isinstance(actions_raw, list):
        raise NotationError("must be a list of actions", "actions")
    if len(actions_raw) > MAX_ACTIONS:
        raise NotationError(
            f"{len(actions_raw)} actions; a ruling file holds at most {MAX_ACTIONS}", "actions"
        )
    actions = [parse_action(a, f"actions[{i}]") for i, a in enumerate(actions_raw)]
    cat = state.ruleset.catalogue
    for i, a in enumerate(actions):
        check_card_names(a, cat, f"actions[{i}]")
    return state, actions


def check_card_names(action: Action, cat: Catalogue, where: str) -> None:
    """Every card name an action carries must be one of the decks' (or ``?``), whether or not
    the action is ever reached: an unknown name is malformed input, not an illegal action.
    Whether the holder's deck has it is checked when the action is applied. Raises
    NotationError."""
    names = cat.all_names()
    for key, text in card_names(action):
        if text == UNKNOWN:
            continue
        name, sep, deck = text.partition("/")
        if name not in names or (sep and deck not in ("hera", "zeus")):
            raise NotationError(f"unknown card {text!r}", f"{where}.{key}")


def decide(state: GameState, actions: list[Action]) -> Verdict:
    """Applies the actions in order under ``state``'s rules.

    Raises NeedsInputError when an action cannot be resolved without more input (D20).
    """
    rules: list[str] = []
    steps: list[Step] = []
    st = state
    for i, a in enumerate(actions):
        if st.is_over:
            break
        actor = a.actor(st.player)
        warned = cautions(project(st, actor.key), a, actor.key)
        try:
            out = apply(st, a)
        except IllegalActionError as e:
            for r in e.rules:
                if r not in rules:
                    rules.append(r)
            steps.append(Step(i, a, actor, False, e.rules, refusal=e.reason))
            return Verdict(False, i, None, None, tuple(rules), write_position(st), tuple(steps), st)
        except NeedsInputError as e:
            raise NeedsInputError(e.rule, f"actions[{i}].{e.needs}", e.reason, e.asked) from None
        for r in out.rules:
            if r not in rules:
                rules.append(r)
        steps.append(
            Step(i, a, actor, True, out.rules, out.events, notes=out.notes, warnings=warned)
        )
        st = out.state
    return Verdict(
        True,
        None,
        st.winner,
        st.reason.value if st.reason else None,
        tuple(rules),
        write_position(st),
        tuple(steps),
        st,
    )


def _same(a: Verdict, b: Verdict) -> bool:
    def key(v: Verdict) -> tuple[object, ...]:
        pos = {k: x for k, x in v.position.items() if k != "profile"}
        return (v.legal, v.failed_at, v.winner, v.reason, pos)

    return key(a) == key(b)


def rule_on(state: GameState, actions: list[Action]) -> Ruling:
    """The ruling under the file's profile, and the other profiles' where they differ."""
    main = decide(state, actions)
    others: dict[Profile, Verdict] = {}
    for prof in Profile:
        if prof is state.ruleset.profile:
            continue
        alt_state = state.evolve(ruleset=state.ruleset.under(prof))
        try:
            alt = decide(alt_state, actions)
        except NeedsInputError:
            continue
        if not _same(main, alt):
            others[prof] = alt
    return Ruling(state.ruleset.profile, main, others, state.ruleset.catalogue.provisional)


def rule_file(text: str, name: str = "file") -> Ruling:
    state, actions = load_ruling_file(text, name)
    return rule_on(state, actions)


# ---- rendering -----------------------------------------------------------------------------


def render_json(r: Ruling, lang: str = DEFAULT) -> dict[str, Any]:
    """The result object (POSITIONS.md); its human fields (``ruling``, ``citations``) in
    ``lang``, its machine fields the same in every language."""
    v = r.verdict
    rules = list(v.rules)
    for alt in r.others.values():
        for x in alt.rules:
            if x not in rules:
                rules.append(x)
    return {
        **_verdict_json(v),
        "ruling": " ".join(sentences(r, lang)),
        "position": v.position,
        "profile": r.profile.value,
        "others": {p.value: _verdict_json(alt) for p, alt in r.others.items()},
        "citations": {x: citation(RULES[x], lang) for x in rules if x in RULES},
        "warnings": warnings_json(v, lang),
    }


def warnings_json(v: Verdict, lang: str = DEFAULT) -> list[dict[str, Any]]:
    """The guardian's warnings on the file's actions (issue 37): each with the index of the
    action it warns of (``action``, as ``failed_at`` counts), its rule, its sentence in
    ``lang`` and the legal actions that avoid it, worked out from the table as the action's
    player saw it."""
    return [
        {"action": step.index, **c.to_json(lambda t: say(t, lang))}
        for step in v.steps
        for c in step.warnings
    ]


def warning_lines(v: Verdict, lang: str = DEFAULT) -> list[str]:
    """The same warnings as lines for a judge: one a warning."""
    out = []
    for w in warnings_json(v, lang):
        alts = ", ".join(w["alternatives"]) or "-"
        line = Say(
            "Guardian, before action %(num)s: %(text)s [%(rule)s] Avoided by: %(alternatives)s",
            num=w["action"] + 1,
            text=w["text"],
            rule=w["rule"],
            alternatives=alts,
        )
        out.append(say(line, lang))
    return out


# the source a reader of each language looks up first (RULES.md's keys): the German one is the
# German FAQ; the German edition is not among the sources
OWN_SOURCE = {"en": "EN", "it": "IT", "fr": "FR", "de": "FAQ-DE"}


def citation(rule: Rule, lang: str = DEFAULT) -> str:
    """``D1 Pandora's reach (EN, IT)`` in ``lang``: the title said, the sources with the
    language's own edition first, or a sentence saying it lacks the passage
    (:func:`referee.rulings.sources_said`). English: :meth:`Rule.citation`."""
    if lang == DEFAULT:
        return rule.citation()
    cited = sources_said(rule.sources, lang, OWN_SOURCE)
    return f"{rule.id} {say(rule.title, lang)} ({cited})"


def _verdict_json(v: Verdict) -> dict[str, Any]:
    return {
        "legal": v.legal,
        "failed_at": v.failed_at,
        "winner": v.winner.key if v.winner is not None else None,
        "reason": v.reason,
        "rules": list(v.rules),
    }


def describe_event(e: Event) -> str | None:
    """One sentence for an event, as a judge would say it (the judge sees everything)."""
    if e.kind is EventKind.GAME_OVER:
        return None  # said once, at the end
    return describe_event_json(e.to_json())


REASON_TEXT = {
    "hostage_challenged": N_("the opponent's hostage was challenged in the first row"),
    "hostage_by_pegasus": N_("Pegasus drew the opponent's hostage from the hand"),
    "pandora_hostage": N_("Pandora cost the opponent his hostage"),
    "pandora_own_hostage": N_("the challenger of Pandora lost his own hostage"),
    "cannot_use_ap": N_("the player to move could not use all his action points"),
    "empty_field": N_("a turn began with no card on the player's side"),
}


def _reason(reason: str) -> str:
    """How a game ended, as a value of a sentence (said with it); an unknown code as it is."""
    return Say(REASON_TEXT[reason]) if reason in REASON_TEXT else reason


def _verdict_sentences(v: Verdict, lang: str = DEFAULT) -> list[str]:
    out: list[str] = []
    for s in v.steps:
        act = {"num": s.index + 1, "action": s.action.text(), "player": s.actor.title}
        if not s.legal:
            out.append(
                say(
                    Say(
                        "Action %(num)s (%(action)s) by %(player)s is not legal: %(reason)s "
                        "[%(rules)s]. Nothing of it is applied.",
                        reason=s.refusal,
                        rules=s.rules,
                        **act,
                    ),
                    lang,
                )
            )
            continue
        said = [say(x, lang) for x in (describe_event(e) for e in s.events) if x]
        if s.rules:
            legal = Say(
                "Action %(num)s (%(action)s) by %(player)s is legal [%(rules)s].",
                rules=s.rules,
                **act,
            )
        else:
            legal = Say("Action %(num)s (%(action)s) by %(player)s is legal.", **act)
        out.append(say(legal, lang))
        out.extend(said)
        notes = (say(n, lang) for n in s.notes)
        out.extend(n[0].upper() + n[1:] + "." if not n.endswith(".") else n for n in notes)
    if v.winner is not None and v.reason is not None:
        last = next((s for s in reversed(v.steps) if s.legal), None)
        rid = next(
            (
                dict(e.detail).get("rule")
                for s in v.steps
                for e in s.events
                if e.kind is EventKind.GAME_OVER
            ),
            None,
        )
        who, why = v.winner.title, _reason(v.reason)
        if rid:
            wins = Say("%(player)s wins: %(reason)s [%(rule)s].", player=who, reason=why, rule=rid)
        else:
            wins = Say("%(player)s wins: %(reason)s.", player=who, reason=why)
        out.append(say(wins, lang))
        if last is not None and last.index < len(v.steps) - 1:
            out.append(say(Say("Later actions are not applied."), lang))
    return out


def sentences(r: Ruling, lang: str = DEFAULT) -> list[str]:
    out = _verdict_sentences(r.verdict, lang)
    for prof, alt in r.others.items():
        if not alt.legal:
            step = alt.steps[-1]
            text = Say(
                "Under the %(profile)s profile action %(num)s would not be legal: %(reason)s "
                "[%(rules)s].",
                profile=prof.value,
                num=step.index + 1,
                reason=step.refusal,
                rules=step.rules,
            )
        elif alt.winner is not None and alt.reason is not None:
            text = Say(
                "Under the %(profile)s profile %(player)s would win: %(reason)s.",
                profile=prof.value,
                player=alt.winner.title,
                reason=_reason(alt.reason),
            )
        else:
            text = Say(
                "Under the %(profile)s profile the result would differ: %(what)s",
                profile=prof.value,
                what=" ".join(_verdict_sentences(alt, lang)[-2:]),
            )
        out.append(say(text, lang))
    return out


def render_text(r: Ruling, lang: str = DEFAULT) -> str:
    """The ruling as a judge reads it aloud, in ``lang`` (profiles, codes and notation as
    they are)."""
    v = r.verdict
    head: dict[str, Any] = {"profile": r.profile.value, "num": (v.failed_at or 0) + 1}
    if v.winner is not None:
        head |= {"player": v.winner.title, "reason": v.reason}
        first = (
            Say("Ruling under the %(profile)s profile: LEGAL; %(player)s wins (%(reason)s)", **head)
            if v.legal
            else Say(
                "Ruling under the %(profile)s profile: NOT LEGAL at action %(num)s; "
                "%(player)s wins (%(reason)s)",
                **head,
            )
        )
    elif v.legal:
        first = Say("Ruling under the %(profile)s profile: LEGAL", profile=r.profile.value)
    else:
        first = Say("Ruling under the %(profile)s profile: NOT LEGAL at action %(num)s", **head)
    lines = [say(first, lang)]
    lines.append("")
    mine = _verdict_sentences(v, lang)
    lines.extend(f"  {s}" for s in mine)
    if r.others:
        lines.append("")
        lines.append(say(Say("Other profiles:"), lang))
        for s in sentences(r, lang)[len(mine) :]:
            lines.append(f"  {s}")
    else:
        lines.append("")
        lines.append(say(Say("The other profiles rule the same."), lang))
    warned = warning_lines(v, lang)
    if warned:
        lines.append("")
        lines.extend(warned)
    cited = list(v.rules)
    lines.append("")
    lines.append(say(Say("Rules applied:"), lang))
    for rid in cited:
        rule = RULES.get(rid)
        if rule is None:
            continue
        lines.append(f"  {citation(rule, lang)}")
        lines.append(f"      {say(rule.text, lang)}")
        if rule.profiles:
            diffs = "; ".join(f"{p.value}: {say(t, lang)}" for p, t in rule.profiles.items())
            lines.append(f"      {say(Say('Profiles: %(diffs)s', diffs=diffs), lang)}")
        if rule.switch:
            switch = Say("House-rule switch: %(switch)s", switch=rule.switch)
            lines.append(f"      {say(switch, lang)}")
    if r.provisional_catalogue:
        lines.append("")
        lines.append(
            say(
                Say(
                    "Note: card strengths not given in the file come from the provisional "
                    "default catalogue."
                ),
                lang,
            )
        )
    return "\n".join(lines)
