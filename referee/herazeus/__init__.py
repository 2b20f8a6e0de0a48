"""Hera & Zeus as a game module of the referee: :mod:`.game` (``HERA_ZEUS``), its rulings
(:mod:`.ruling`) and its text board (:mod:`.board`)."""
