"""Privacy through HTTP: the property of ``privacy_property``, written once, run against the
web app through its HTTP surface only (the JSON API, the live stream and the pages, each reader
with its own cookie), as ``test_privacy`` and ``test_d22_oracles`` run it against the service.

Random games are played at the simulated table with every submission, answer, observation and
correction sent through ``/api/v1`` from the acting seat's browser. After every action every
seat's view is fetched with its own cookie, and the strangers' (no cookie, a mistyped cookie,
another game's judge code, a forged tournament-judge cookie) with theirs; every few actions,
and at the end, every reader's log, export and live stream. The twin tables are compared
through the same surface, pages included.
"""

from __future__ import annotations

from privacy_property import (
    HttpDriver,
    a_scan_changes_no_refusal,
    no_reply_depends_on_hidden,
    no_seat_sees_hidden,
    revoked_reads_as_public,
)
from web_helpers import Browser

GAMES = 4


def test_no_http_reader_sees_a_hidden_card_of_another_seat() -> None:
    cover = no_seat_sees_hidden(HttpDriver.new, GAMES, log_every=25, stranger_every=1)
    assert cover.checks > 2000, cover.checks
    assert {"draw", "play", "deal", "first_row", "challenge", "undo"} <= cover.kinds
    assert {"other_seat", "public", "stale"} <= cover.probes, cover.probes


def test_no_http_reply_depends_on_a_card_hidden_from_the_player() -> None:
    # a sample of the column actions and observations of each position, two twins: the
    # service's run (test_d22_oracles) tries them all, at three twins
    cover = no_reply_depends_on_hidden(HttpDriver.new, GAMES, sample=6, twins=2)
    assert cover.samples >= 8 and cover.compared.replies > 1_000, cover
    assert cover.compared.pages > 50, cover
    assert cover.compared.on_the_column > 0 and cover.compared.observations > 0, cover
    assert cover.compared.take_backs > 0, cover
    assert cover.zones == {"hand", "field"}


def test_over_http_a_scan_of_the_opponents_cards_changes_no_refusal_and_no_legal_list() -> None:
    assert a_scan_changes_no_refusal(HttpDriver.new, GAMES // 2) >= 3


def test_a_revoked_link_reads_as_the_public() -> None:
    d = HttpDriver.new(0)
    game, code = revoked_reads_as_public(d)
    assert Browser(d.app).join(game, code).status_code == 404  # the old link opens nothing
