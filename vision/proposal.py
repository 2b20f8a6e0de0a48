"""One proposed event of ``referee table`` (either game's :mod:`diff`): the shape the judge's
page and the players' confirm step read, the same for every game."""

from __future__ import annotations

from typing import Any


def proposal(
    kind: str,
    side: str,
    column: int | str | None,
    position: int | None,
    raw: dict[str, Any] | None,
    description: str,
    confidence: float,
) -> dict[str, Any]:
    """A proposal: what happened (``kind``), where (``side``, ``column``, ``position``, in the
    game's own terms: a column's number or id, a row or slot), the action's ``raw`` notation
    when it is one, its ``description`` and the camera's ``confidence``."""
    return {
        "kind": kind,
        "side": side,
        "column": column,
        "position": position,
        "raw": raw,
        "description": description,
        "confidence": round(confidence, 3),
    }
