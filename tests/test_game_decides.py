"""What each game decides, the service, the API and the commands ask of its module (issue 32,
item 2): the rule ids a take-back, an undo and an open question cite, its observation zones,
its create options (the API's create body is built from every game's), the ruling files it
reads. A Minotaur Lords game cites its own rules (ML-P10-12) where it cited Hera & Zeus's
HZ-P14 and HZ-P15, and its export, with a take-back in it, round-trips through ``referee verify``
and ``referee import``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from marshmallow.fields import Nested
from privacy_property import ServiceDriver
from test_minotaur_privacy import DECKS, _act

from referee.games import DEFAULT, GAMES, game_named
from referee.log import read_lines
from referee.rulings import game_of_file
from referee.service import Refused, open_referee
from web.cli import main
from web.schemas import CreateGameSchema

MINOTAUR = game_named("minotaur")
HERA_ZEUS = game_named(DEFAULT)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("game", list(GAMES.values()), ids=lambda g: g.name)
def test_each_game_names_its_own_rules_for_the_services_decisions(game: object) -> None:
    from engine.herazeus.rulebook import RULES as HZ
    from engine.minotaur.rulebook import RULES as ML

    g = game_named(getattr(game, "name", ""))
    book = HZ if g is HERA_ZEUS else ML
    for rule in (g.takeback_rule, g.answered_rule, g.undo_rule, g.hold_rule):
        assert rule in book, rule


def test_a_minotaur_take_back_cites_its_own_rule_and_its_export_round_trips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.sqlite3"
    ref = open_referee(db)
    try:
        d = ServiceDriver(ref)
        game = d.create_game(name="minotaur", options={"deck_list": DECKS, "first": "vess"}).game
        rng = random.Random(7)
        proposal = None
        for _ in range(80):
            _act(d, game, rng)
            for seat in MINOTAUR.players:
                try:
                    proposal = ref.take_back(game, seat)
                except Refused as e:
                    assert e.rule in (None, MINOTAUR.takeback_rule, "ML-P5"), e.rule
                    continue
                other = next(p for p in MINOTAUR.players if p != seat)
                ref.approve(game, other, proposal.seq)
                break
            if proposal is not None:
                break
        assert proposal is not None, "no action could be taken back in 80 steps"
    finally:
        ref.store.close()

    rc, log, err = _run(capsys, "export", "--db", str(db), "--seat", "judge", game)
    assert rc == 0 and err == ""
    header = json.loads(log.splitlines()[0])
    assert header["seat"] == "judge"
    path = tmp_path / "judge.jsonl"
    path.write_text(log, "utf-8")
    rc, out, err = _run(capsys, "verify", str(path))
    assert rc == 0, err
    key = read_lines(log)[0].fingerprint
    other = str(tmp_path / "other.sqlite3")
    rc, out, err = _run(capsys, "import", "--db", other, "--trust-key", key, "--yes", str(path))
    assert rc == 0, err
    rc, out, err = _run(capsys, "export", "--db", other, game)
    assert rc == 0 and out == log
    rc, out, err = _run(capsys, "replay", "--key", key, str(path))
    assert rc == 0, err
    assert f"[{MINOTAUR.takeback_rule}]" in out and "HZ-P14" not in out
    for seat in MINOTAUR.players:  # each player's cut verifies under the game's own seats
        rc, cut, err = _run(capsys, "export", "--db", str(db), "--seat", seat, game)
        assert rc == 0 and json.loads(cut.splitlines()[0])["seat"] == seat
        p = tmp_path / f"{seat}.jsonl"
        p.write_text(cut, "utf-8")
        rc, out, err = _run(capsys, "verify", "--redacted", str(p))
        assert rc == 0, err


def test_an_observation_names_one_of_its_games_zones() -> None:
    ref = open_referee(":memory:")
    d = ServiceDriver(ref)
    game = d.create_game(name="minotaur", options={"deck_list": DECKS}).game
    obs = {"player": "miron", "zone": "field", "card": "x"}
    with pytest.raises(Refused, match=r"observation.zone: must be 'hand'$"):
        ref.observe(game, "miron", obs)
    assert MINOTAUR.zones == ("hand",) and set(HERA_ZEUS.zones) == {"hand", "field"}


def test_the_api_create_body_states_every_games_options() -> None:
    fields = CreateGameSchema().fields
    for g in GAMES.values():
        for o in g.options:
            assert o.name in fields, (g.name, o.name)
            assert g.title in fields[o.name].metadata["description"]
    players = fields["players"]
    assert isinstance(players, Nested)
    assert set(players.schema.fields) == {p for g in GAMES.values() for p in g.players}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_ruling_file_goes_to_the_game_it_names(name: str) -> None:
    assert game_of_file(json.dumps({"game": name}), "f.json", GAMES, DEFAULT) is GAMES[name]


def test_a_ruling_file_without_a_game_but_with_another_games_keys_is_refused() -> None:
    from engine.errors import NotationError

    with pytest.raises(NotationError, match=r'says "game": "minotaur"'):
        game_of_file(json.dumps({"miron": {}}), "f.json", GAMES, DEFAULT)
    with pytest.raises(NotationError, match="unknown game 'chess': the games are"):
        game_of_file(json.dumps({"game": "chess"}), "f.json", GAMES, DEFAULT)
