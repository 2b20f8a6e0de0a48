"""Minotaur Lords as a game module of the referee: :mod:`.game` (``MINOTAUR``) and its
rulings (:mod:`.ruling`)."""
