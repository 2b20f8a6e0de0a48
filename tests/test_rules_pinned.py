"""Rules are pinned: a game's create record names the rules it runs under, and a log made
under other rules is never silently decided again by today's."""

from __future__ import annotations

from typing import Any

import pytest
from service_helpers import make_referee

from referee.fold import FoldError, fold
from referee.herazeus.game import HERA_ZEUS, RULES_VERSION
from referee.ledger import Draft
from referee.log import GENESIS, Record, export_text
from referee.service import Held, Referee, Refused
from referee.store import MemoryStore


def made_under(rules: str | None, game: str = "old") -> tuple[Referee, list[Record]]:
    """A referee holding a game whose create record names ``rules`` (None: names none, as
    logs did before versions were recorded), signed by the referee's own key."""
    ref = make_referee(MemoryStore(), seed=3)
    body = dict(HERA_ZEUS.setup({"starting": "hera"}, {}).body)
    if rules is not None:
        body["rules"] = rules
    create = ref.ledger.seal(game, 0, GENESIS, Draft("system", "create", body), HERA_ZEUS)
    ref.ledger.append_new([create], {})
    return ref, [create]


def test_a_new_game_names_its_rules_version() -> None:
    ref = make_referee()
    g = ref.create_game(game="g").game
    create = ref.log(g, "judge")[0]
    assert create.body["rules"] == HERA_ZEUS.rules_version(create.body)
    assert create.body["rules"].startswith(RULES_VERSION + "+")


def test_the_digest_follows_the_catalogue_and_the_profile() -> None:
    def version(options: dict[str, Any]) -> str:
        return HERA_ZEUS.rules_version(HERA_ZEUS.setup(options, {}).body)

    base = version({})
    assert version({"profile": "kosmos"}) != base
    assert version({"catalogue": {"strengths": {"Hydra": 2}}}) != base
    named = HERA_ZEUS.setup({}, {"hera": "Ann", "zeus": "Bo"}).body
    assert HERA_ZEUS.rules_version(named) == base  # the players' names are no rule


def test_a_log_made_under_other_rules_is_not_replayed_under_these() -> None:
    _, records = made_under("hz-engine/0+0123456789abcdef")
    with pytest.raises(FoldError) as e:
        fold(records)
    assert "hz-engine/0+0123456789abcdef" in str(e.value)
    assert HERA_ZEUS.rules_version(records[0].body) in str(e.value)


def test_a_game_under_other_rules_is_held_with_both_versions_named() -> None:
    ref, _ = made_under("hz-engine/0+0123456789abcdef")
    for seat in ("judge", "hera"):
        with pytest.raises(Held) as e:
            ref.view("old", seat)
        assert "hz-engine/0" in e.value.message and RULES_VERSION in e.value.message


def test_importing_a_log_under_other_rules_is_refused_naming_both() -> None:
    ref, records = made_under("hz-engine/0+0123456789abcdef")
    text = export_text(ref.reader.header("old", "judge"), records)
    other = make_referee(MemoryStore(), seed=4)
    with pytest.raises(Refused) as e:
        other.import_log(text)
    assert "hz-engine/0" in e.value.message and RULES_VERSION in e.value.message


def test_a_log_that_names_no_rules_replays_as_before() -> None:
    ref, _ = made_under(None)
    assert ref.view("old", "judge").to_json()["phase"] == "setup"
    ref.submit("old", "judge", {"do": "starter", "player": "hera"})
    assert ref.view("old", "hera").to_json()["turn"]["player"] == "hera"


def test_a_log_that_names_no_rules_is_held_once_the_rules_moved_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Such a log was made under the module's legacy rules; a referee that runs other ones
    stops rather than deciding it again."""
    monkeypatch.setattr(HERA_ZEUS, "legacy_rules", "hz-engine/0")
    ref, _ = made_under(None)
    with pytest.raises(Held) as e:
        ref.view("old", "judge")
    assert "hz-engine/0" in e.value.message and RULES_VERSION in e.value.message


def test_a_minotaur_log_made_before_issue_31s_rules_fixes_is_held() -> None:
    """Issue 31 changed what Minotaur Lords decides (M7/M10 building texts, M8 and ML-P8 for
    texts): its rules version moved on, and a game recorded under the old one is not
    re-decided (the rules are pinned)."""
    from pathlib import Path

    from referee.minotaur.game import MINOTAUR
    from referee.minotaur.game import RULES_VERSION as ML_VERSION

    decks = (Path(__file__).resolve().parent / "data" / "minotaur" / "decks.csv").read_text()
    body = dict(MINOTAUR.setup({"deck_list": decks}, {}).body)
    body["game"] = MINOTAUR.name
    today = MINOTAUR.rules_version(body)
    assert today.startswith(ML_VERSION + "+") and ML_VERSION != "ml-engine/1"
    body["rules"] = "ml-engine/1+" + today.partition("+")[2]
    ref = make_referee(MemoryStore(), seed=3)
    create = ref.ledger.seal("old-ml", 0, GENESIS, Draft("system", "create", body), MINOTAUR)
    with pytest.raises(FoldError) as e:
        fold([create])
    assert "ml-engine/1+" in str(e.value) and today in str(e.value)
