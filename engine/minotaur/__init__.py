"""Minotaur Lords (Knizia, 2004), the second game: its rules as MINOTAUR.md rules them.

Pure like every engine: no I/O, no clock, no randomness of its own. The cards are
the owner's (:mod:`engine.minotaur.cards`: the deck-list file); the state, actions, rules,
notation and rule catalogue are in the modules of the same names.
"""
