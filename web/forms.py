"""What the shell's forms mean: a number field. (A game's own forms are its page module's.)"""

from __future__ import annotations

from collections.abc import Mapping

from web.i18n import gettext


def form_int(f: Mapping[str, str], key: str) -> int:
    """The number in the field ``key``. Raises ValueError naming the field."""
    try:
        return int(f.get(key, ""))
    except ValueError:
        raise ValueError(
            gettext("%(field)s: choose a number, not %(value)s", field=key, value=repr(f.get(key)))
        ) from None
