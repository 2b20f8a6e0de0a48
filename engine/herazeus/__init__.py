"""The pure rules engine for Hera & Zeus: no I/O, no clock, no randomness of its own.

>>> from engine import read_position, legal_actions, apply, parse_action
"""

from engine.herazeus.actions import Action, ActionKind, parse_action, parse_action_text
from engine.herazeus.cards import Card, Catalogue, Kind, Player, default_catalogue
from engine.herazeus.errors import (
    CatalogueError,
    EngineError,
    IllegalActionError,
    NeedsInputError,
    NotationError,
)
from engine.herazeus.events import Event, EventKind, Outcome
from engine.herazeus.game import (
    apply,
    can_use_a_point,
    check,
    cost,
    is_legal,
    legal_actions,
    must_redeal,
    new_game,
)
from engine.herazeus.notation import read_position, write_position
from engine.herazeus.profiles import Profile, Ruleset, Switches
from engine.herazeus.rulebook import RULES, Rule
from engine.herazeus.state import EndReason, GameState, Phase, Side

__all__ = [
    "RULES",
    "Action",
    "ActionKind",
    "Card",
    "Catalogue",
    "CatalogueError",
    "EndReason",
    "EngineError",
    "Event",
    "EventKind",
    "GameState",
    "IllegalActionError",
    "Kind",
    "NeedsInputError",
    "NotationError",
    "Outcome",
    "Phase",
    "Player",
    "Profile",
    "Rule",
    "Ruleset",
    "Side",
    "Switches",
    "apply",
    "can_use_a_point",
    "check",
    "cost",
    "default_catalogue",
    "is_legal",
    "legal_actions",
    "must_redeal",
    "new_game",
    "parse_action",
    "parse_action_text",
    "read_position",
    "write_position",
]
