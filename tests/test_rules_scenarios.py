"""Every shared ruling file (``scenarios/`` of the shared folder, found as ``conftest`` says)
ruled through referee.herazeus.ruling and
compared with its "expect" block, key by key, as the shared
``tools/check-scenarios`` compares them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import scenario_files

from referee.herazeus.ruling import render_json, rule_file

FILES = scenario_files()
# where the folder is missing, one case stands for them all: the fixture skips it (fails in CI)
CASES = [pytest.param(f, id=f.stem) for f in FILES] or [pytest.param(None, id="missing")]


def mismatches(expect: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """What of ``expect`` the result does not hold (POSITIONS.md, "Expectations")."""
    bad = []
    for key in ("legal", "failed_at", "winner", "reason"):
        if key in expect and result.get(key) != expect[key]:
            bad.append(f"{key}: expected {expect[key]!r}, got {result.get(key)!r}")
    pos = result.get("position") or {}
    turn = pos.get("turn") or {}
    for who, want in expect.get("field", {}).items():
        got = (pos.get(who) or {}).get("field")
        if got != want:
            bad.append(f"{who}.field: expected {want}, got {got}")
    for part in ("hand", "discard"):
        for who, want in expect.get(part, {}).items():
            got = (pos.get(who) or {}).get(part)
            if not isinstance(got, list) or Counter(got) != Counter(want):
                bad.append(f"{who}.{part}: expected {sorted(want)}, got {got}")
    for who, want in expect.get("discard_top", {}).items():
        got = (pos.get(who) or {}).get("discard") or [None]
        if got[-1] != want:
            bad.append(f"{who}.discard top: expected {want!r}, got {got[-1]!r}")
    for who, want in expect.get("deck", {}).items():
        got = (pos.get(who) or {}).get("deck")
        got = len(got) if isinstance(got, list) else got
        if got != want:
            bad.append(f"{who}.deck: expected {want}, got {got}")
    for key, want in expect.get("ap", {}).items():
        if turn.get(key) != want:
            bad.append(f"turn.{key}: expected {want}, got {turn.get(key)}")
    for rule in expect.get("rules_include", []):
        if rule not in (result.get("rules") or []):
            bad.append(f"rules: expected to include {rule}, got {result.get('rules')}")
    return bad


def test_the_shared_scenarios_are_there(scenarios_dir: Path) -> None:
    assert len(FILES) >= 44


@pytest.mark.parametrize("path", CASES)
def test_a_shared_scenario_rules_as_expected(path: Path | None, scenarios_dir: Path) -> None:
    assert path is not None and path.parent == scenarios_dir
    text = path.read_text("utf-8")
    expect = json.loads(text)["expect"]
    result = render_json(rule_file(text, path.name))
    assert mismatches(expect, result) == []
    # the position a ruling ends on is itself a well-formed position
    from engine.herazeus import read_position, write_position

    assert write_position(read_position(result["position"])) == result["position"]


def test_the_comparison_itself_can_fail() -> None:
    result = {"legal": True, "winner": None, "position": {"hera": {"hand": ["Io"]}}}
    assert mismatches({"legal": False}, result) == ["legal: expected False, got True"]
    assert mismatches({"hand": {"hera": ["Io", "Io"]}}, result)
    assert mismatches({"rules_include": ["D1"]}, result)
