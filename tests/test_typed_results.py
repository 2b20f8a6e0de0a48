"""One shape, one definition (STYLE.md 15): the API's schemas follow the service's typed
results (``referee/models.py``, the game's view in ``referee/herazeus/game.py``) key for key, so
neither can gain or lose a field without the other."""

from __future__ import annotations

from typing import Any, get_type_hints

import pytest
from marshmallow import Schema

from referee import models
from referee.herazeus.game import HZView, SideView
from referee.minotaur.game import MLView
from web import schemas
from web.games.herazeus import schemas as herazeus_schemas
from web.games.minotaur.page import MLViewSchema

WEB_ONLY = {"csrf", "recovery"}  # what the web adds to a view: the token for the page's POSTs,
# and once, to a seat's new holder at a table without a judge, its recovery code (issue 31)


def keys(typed: Any) -> set[str]:
    return set(get_type_hints(typed))


def fields_of(schema: type[Schema]) -> set[str]:
    """The keys a schema writes (a field's ``data_key`` where it has one: ``for``)."""
    return {f.data_key or name for name, f in schema().fields.items()}


@pytest.mark.parametrize(
    ("typed", "schema", "extra"),
    [
        (models.Head, schemas.HeadSchema, set()),
        (models.Turn, schemas.TurnSchema, set()),
        (models.Question, schemas.AskedSchema, set()),
        (models.Waiting, schemas.WaitingSchema, set()),
        (SideView, herazeus_schemas.SideSchema, set()),
        (models.TableRow, schemas.TableSchema, set()),
        (models.RulingResult, schemas.RulingSchema, set()),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_each_schema_follows_its_typed_result(
    typed: Any, schema: type[Schema], extra: set[str]
) -> None:
    assert fields_of(schema) - extra == keys(typed)


@pytest.mark.parametrize(
    ("typed", "part"),
    [(HZView, herazeus_schemas.HZViewSchema), (MLView, MLViewSchema)],
    ids=["HZView", "MLView"],
)
def test_each_games_part_of_the_view_follows_its_typed_view(typed: Any, part: type[Schema]) -> None:
    assert fields_of(part) == keys(typed) - keys(models.SeatView)


def test_the_views_schema_is_the_shells_and_every_games_part() -> None:
    games = keys(HZView) | keys(MLView)
    assert fields_of(schemas.ViewSchema) - WEB_ONLY == games


def test_the_receipt_schema_follows_the_receipt() -> None:
    r = models.Receipt(1, [], {})  # type: ignore[typeddict-item]
    assert set(r.to_json()) == fields_of(schemas.ReceiptSchema) - {"replayed"}
