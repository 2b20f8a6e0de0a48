"""The pure rules engines, one package a game (beside the
shared exceptions, :mod:`engine.errors`): no I/O, no clock, no randomness of their own.

Nothing here imports the referee, the web app or any package of ours.
"""
