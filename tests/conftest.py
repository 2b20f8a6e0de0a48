"""Shared fixtures. The position builder lives in ``helpers.py`` (import it: ``from helpers
import pos``); this file only makes the shared folders available to the tests that need them."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path("/work/shared")
SCENARIOS = SHARED / "scenarios"
EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


@pytest.fixture
def scenarios_dir() -> Path:
    """The shared ruling files; the test is skipped where the folder is missing."""
    if not SCENARIOS.is_dir() or not any(SCENARIOS.glob("*.json")):
        pytest.skip(f"no shared scenarios at {SCENARIOS}")
    return SCENARIOS


@pytest.fixture
def examples_dir() -> Path:
    if not EXAMPLES.is_dir():
        pytest.skip(f"no shipped examples at {EXAMPLES}")
    return EXAMPLES
