"""The page modules this app serves, in the order the home page offers their games. A second
game adds its page module here (beside its game module in :mod:`referee.games`); a game the
tests run (their third game) registers its page module for a while with :func:`registered`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from web.games import PageModule
from web.games.herazeus.page import PAGES as HERA_ZEUS
from web.games.minotaur.page import PAGES as MINOTAUR

PAGE_MODULES: list[PageModule] = [HERA_ZEUS, MINOTAUR]


@contextmanager
def registered(pm: PageModule) -> Iterator[PageModule]:
    """``pm`` served by the apps made within the block. Raises ValueError when a page module
    of that name is served already."""
    if any(m.name == pm.name for m in PAGE_MODULES):
        raise ValueError(f"a page module named {pm.name!r} is registered already")
    PAGE_MODULES.append(pm)
    try:
        yield pm
    finally:
        PAGE_MODULES.remove(pm)
