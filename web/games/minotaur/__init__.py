"""Minotaur Lords's pages: :mod:`.page` (``PAGES``), the drawing, forms and photo."""
