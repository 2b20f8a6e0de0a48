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
from referee.herazeus.board import describe_event_json
from referee.jsonin import loads_strict


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
        steps.append(Step(i, a, actor, True, out.rules, out.events, notes=out.notes))
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


def render_json(r: Ruling) -> dict[str, Any]:
    v = r.verdict
    rules = list(v.rules)
    for alt in r.others.values():
        for x in alt.rules:
            if x not in rules:
                rules.append(x)
    return {
        **_verdict_json(v),
        "ruling": " ".join(sentences(r)),
        "position": v.position,
        "profile": r.profile.value,
        "others": {p.value: _verdict_json(alt) for p, alt in r.others.items()},
        "citations": {x: RULES[x].citation() for x in rules if x in RULES},
    }


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
    "hostage_challenged": "the opponent's hostage was challenged in the first row",
    "hostage_by_pegasus": "Pegasus drew the opponent's hostage from the hand",
    "pandora_hostage": "Pandora cost the opponent his hostage",
    "pandora_own_hostage": "the challenger of Pandora lost his own hostage",
    "cannot_use_ap": "the player to move could not use all his action points",
    "empty_field": "a turn began with no card on the player's side",
}


def _verdict_sentences(v: Verdict) -> list[str]:
    out: list[str] = []
    for s in v.steps:
        if not s.legal:
            out.append(
                f"Action {s.index + 1} ({s.action.text()}) by {s.actor.title} is not legal: "
                f"{s.refusal} [{', '.join(s.rules)}]. Nothing of it is applied."
            )
            continue
        said = [x for x in (describe_event(e) for e in s.events) if x]
        cite = f" [{', '.join(s.rules)}]" if s.rules else ""
        out.append(f"Action {s.index + 1} ({s.action.text()}) by {s.actor.title} is legal{cite}.")
        out.extend(said)
        out.extend(n[0].upper() + n[1:] + "." if not n.endswith(".") else n for n in s.notes)
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
        out.append(
            f"{v.winner.title} wins: {REASON_TEXT.get(v.reason, v.reason)}"
            f"{f' [{rid}]' if rid else ''}."
        )
        if last is not None and last.index < len(v.steps) - 1:
            out.append("Later actions are not applied.")
    return out


def sentences(r: Ruling) -> list[str]:
    out = _verdict_sentences(r.verdict)
    for prof, alt in r.others.items():
        if not alt.legal:
            step = alt.steps[-1]
            out.append(
                f"Under the {prof.value} profile action {step.index + 1} would not be "
                f"legal: {step.refusal} [{', '.join(step.rules)}]."
            )
        elif alt.winner is not None and alt.reason is not None:
            out.append(
                f"Under the {prof.value} profile {alt.winner.title} would win: "
                f"{REASON_TEXT.get(alt.reason, alt.reason)}."
            )
        else:
            out.append(
                f"Under the {prof.value} profile the result would differ: "
                f"{' '.join(_verdict_sentences(alt)[-2:])}"
            )
    return out


def render_text(r: Ruling) -> str:
    v = r.verdict
    lines = [
        f"Ruling under the {r.profile.value} profile: "
        + ("LEGAL" if v.legal else f"NOT LEGAL at action {(v.failed_at or 0) + 1}")
    ]
    if v.winner is not None:
        lines[0] += f"; {v.winner.title} wins ({v.reason})"
    lines.append("")
    lines.extend(f"  {s}" for s in _verdict_sentences(v))
    if r.others:
        lines.append("")
        lines.append("Other profiles:")
        for s in sentences(r)[len(_verdict_sentences(v)) :]:
            lines.append(f"  {s}")
    else:
        lines.append("")
        lines.append("The other profiles rule the same.")
    cited = list(v.rules)
    lines.append("")
    lines.append("Rules applied:")
    for rid in cited:
        rule = RULES.get(rid)
        if rule is None:
            continue
        lines.append(f"  {rule.citation()}")
        lines.append(f"      {rule.text}")
        if rule.profiles:
            diffs = "; ".join(f"{p.value}: {t}" for p, t in rule.profiles.items())
            lines.append(f"      Profiles: {diffs}")
        if rule.switch:
            lines.append(f"      House-rule switch: {rule.switch}")
    if r.provisional_catalogue:
        lines.append("")
        lines.append(
            "Note: card strengths not given in the file come from the provisional "
            "default catalogue."
        )
    return "\n".join(lines)
