"""Tiny Duel: a third game, registered only in the tests (tests/contract/)."""
