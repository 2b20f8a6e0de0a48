"""Hera & Zeus's printables: its sticker kit, codes, mat and sheets."""
