"""The pure rules engines, one package a game: no I/O, no clock, no randomness of their own.

- :mod:`engine.herazeus`: Hera & Zeus;
- :mod:`engine.minotaur`: Minotaur Lords.

Nothing here imports the referee, the web app or any package of ours.
"""
