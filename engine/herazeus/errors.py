"""The engine's exceptions: the engines' shared ones (:mod:`engine.errors`)."""

from engine.errors import (
    CatalogueError,
    EngineError,
    IllegalActionError,
    NeedsInputError,
    NotationError,
)

__all__ = [
    "CatalogueError",
    "EngineError",
    "IllegalActionError",
    "NeedsInputError",
    "NotationError",
]
