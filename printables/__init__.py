"""Sticker sheets and the play mat. Arrive with their own issue."""
