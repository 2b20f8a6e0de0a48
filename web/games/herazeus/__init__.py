"""Hera & Zeus's pages: :mod:`.page` (``PAGES``), the drawing, forms, present and schemas."""
