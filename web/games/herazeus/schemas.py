"""Hera & Zeus's part of a seat's view in the JSON API (:class:`referee.herazeus.game.HZView`): the
two sides, where setup stands, the deck lists, the playable cards. The shell's schema
(:class:`web.schemas.SeatViewSchema`) holds what every game's view has; the API's
``ViewSchema`` joins it with each installed game's part (:attr:`web.games.PageModule.view_schema`).
"""

from __future__ import annotations

from marshmallow import Schema, fields


class SideSchema(Schema):
    """One player's side as the seat sees it (:class:`referee.herazeus.game.SideView`)."""

    hand = fields.List(fields.String(), metadata={"description": "backs ('?') unless yours"})
    hand_size = fields.Integer()
    deck = fields.Integer()
    field = fields.List(fields.List(fields.String()))
    discard = fields.List(fields.String())
    discard_top = fields.String(allow_none=True)
    discard_height = fields.Integer()
    figure = fields.String()


class DeckEntrySchema(Schema):
    """One card name of a deck list (:class:`referee.herazeus.game.DeckEntry`)."""

    name = fields.String()
    strength = fields.Integer(allow_none=True, metadata={"description": "null: none printed"})
    copies = fields.Integer()


class HZViewSchema(Schema):
    """Hera & Zeus's keys of a seat's view."""

    hera = fields.Nested(SideSchema)
    zeus = fields.Nested(SideSchema)
    provisional_catalogue = fields.Boolean()
    setup = fields.Dict(metadata={"description": "where setup stands (D19): public facts"})
    decks = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.Nested(DeckEntrySchema)),
        metadata={"description": "both decks' lists, the same for every seat from the start"},
    )
    playable = fields.List(
        fields.String(), metadata={"description": "a player's hand cards that may be played"}
    )
