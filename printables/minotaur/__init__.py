"""Minotaur Lords's printables: its sticker kit, codes and sheets."""
