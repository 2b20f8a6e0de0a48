"""Minotaur Lords's camera input: the cards its kit's stickers name in a photo."""
