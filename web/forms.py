"""What the shell's forms mean: a number field. (A game's own forms are its page module's.)"""

from __future__ import annotations

from collections.abc import Mapping


def form_int(f: Mapping[str, str], key: str) -> int:
    """The number in the field ``key``. Raises ValueError naming the field."""
    try:
        return int(f.get(key, ""))
    except ValueError:
        raise ValueError(f"{key}: choose a number, not {f.get(key)!r}") from None
