"""The page modules this app serves, in the order the home page offers their games. A second
game adds its page module here (beside its game module in :mod:`referee.games`)."""

from __future__ import annotations

from web.games import PageModule
from web.games.herazeus.page import PAGES as HERA_ZEUS
from web.games.minotaur.page import PAGES as MINOTAUR

PAGE_MODULES: tuple[PageModule, ...] = (HERA_ZEUS, MINOTAUR)
