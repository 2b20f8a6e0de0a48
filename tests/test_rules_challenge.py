"""D11 challenges, D3 Pythia in a challenge, D6 the first turn."""

from __future__ import annotations

import pytest
from helpers import ap, discard, field, pos, refused, run

from engine.herazeus import EndReason, Player
from engine.herazeus.actions import (
    Challenge,
    Draw,
    God,
    PegasusField,
    Play,
    PythiaReveal,
    PythiaSpy,
)

# ---- D11 -----------------------------------------------------------------------------------


def duel(attacker: str, defender: str, **kw: object) -> tuple[list[str], list[str]]:
    """Hera's column-2 ``attacker`` challenges Zeus's column-2 ``defender`` (each with a Furies
    or Centaur behind it); returns (Hera's column 2, Zeus's column 2) afterwards."""
    st = pos(
        hera_field=[["Furies"], [attacker, "Furies"], ["Harpy"]],
        zeus_field=[["Centaur"], [defender, "Centaur"], ["Giant"]],
        **kw,
    )
    out = run(st, Challenge(2))
    return field(out.state, "hera")[1], field(out.state, "zeus")[1]


@pytest.mark.parametrize(
    ("attacker", "defender", "hera_after", "zeus_after"),
    [
        ("Hydra", "Giant", ["^Hydra", "Furies"], ["Centaur"]),  # higher attacker wins
        ("Harpy", "Cyclops", ["Furies"], ["^Cyclops", "Centaur"]),  # higher defender wins
        ("Hydra", "Cyclops", ["Furies"], ["Centaur"]),  # equal: both discarded
        ("Nemesis", "Poseidon", ["Furies"], ["Centaur"]),  # 7 against 7
        ("Amazon", "Pegasus", ["^Amazon", "Furies"], ["Centaur"]),  # 2 beats 1
    ],
    ids=["attacker-higher", "defender-higher", "tie", "tie-7", "amazon-beats-pegasus"],
)
def test_the_higher_strength_wins_a_challenge_and_a_tie_discards_both(
    attacker: str, defender: str, hera_after: list[str], zeus_after: list[str]
) -> None:
    assert duel(attacker, defender) == (hera_after, zeus_after)


def test_the_loser_of_a_challenge_goes_to_its_owners_pile() -> None:
    st = pos(
        hera_field=[["Furies"], ["Hydra"], ["Harpy"]],
        zeus_field=[["Centaur"], ["Giant"], ["Giant"]],
    )
    out = run(st, Challenge(2))
    assert discard(out.state, "zeus") == ["Giant"]
    assert discard(out.state, "hera") == []
    assert ap(out.state) == (3, 1)
    assert "D11" in out.rules


def test_a_surviving_card_may_challenge_again_the_card_that_moved_up() -> None:
    st = pos(
        hera_field=[["Furies"], ["Nemesis"], ["Harpy"]],
        zeus_field=[["Centaur"], ["Giant", "Cyclops"], ["Giant"]],
    )
    out = run(st, Challenge(2), Challenge(2))
    assert field(out.state, "hera")[1] == ["^Nemesis"]
    assert field(out.state, "zeus")[1] == []
    assert discard(out.state, "zeus") == ["Giant", "Cyclops"]


def test_challenging_the_opponents_hostage_wins() -> None:
    out = run(pos(zeus_field=[["Centaur"], ["Argus"], ["Giant"]]), Challenge(2))
    assert (out.state.winner, out.state.reason) == (Player.HERA, EndReason.HOSTAGE_CHALLENGED)
    assert "D11" in out.rules


@pytest.mark.parametrize("attacker", ["Amazon", "Hero/zeus"])
def test_medusa_falls_only_to_amazon_or_hero(attacker: str) -> None:
    assert duel(attacker, "Medusa") == ([f"^{attacker}", "Furies"], ["Centaur"])


@pytest.mark.parametrize("attacker", ["Nemesis", "Hydra", "Furies", "Pegasus", "Pythia"])
def test_medusa_beats_any_attacker_but_amazon_or_hero(attacker: str) -> None:
    assert duel(attacker, "Medusa") == (["Furies"], ["^Medusa", "Centaur"])


@pytest.mark.parametrize("attacker", ["Io", "Medusa", "Pandora"])
def test_io_medusa_and_pandora_never_start_a_challenge(attacker: str) -> None:
    st = pos(hera_field=[["Furies"], [attacker], ["Harpy"]])
    refused(st, Challenge(2), "D11", "never starts a challenge")


def test_argus_never_starts_a_challenge() -> None:
    st = pos(turn="zeus", zeus_field=[["Centaur"], ["Argus"], ["Giant"]])
    refused(st, Challenge(2), "D11", "Argus never starts a challenge")


def test_a_challenge_needs_an_attacker_in_the_column() -> None:
    st = pos(hera_field=[["Furies"], [], ["Harpy"]])
    refused(st, Challenge(2), "D11", "no card in column 2 to challenge with")


def test_a_challenge_needs_a_defender_opposite_no_diagonals() -> None:
    st = pos(zeus_field=[["Centaur"], [], ["Giant"]])
    refused(st, Challenge(2), "D11", "no diagonal")


@pytest.mark.parametrize(
    ("hera_column", "zeus_column", "whose"),
    [
        (["@", "Nemesis"], ["Giant"], "Hera's figure"),
        (["Nemesis"], ["@", "Giant"], "Zeus's figure"),
    ],
    ids=["own-figure", "opponents-figure"],
)
def test_no_challenge_into_or_out_of_a_figure_column(
    hera_column: list[str], zeus_column: list[str], whose: str
) -> None:
    st = pos(
        hera_field=[["Furies"], hera_column, ["Harpy"]],
        zeus_field=[["Centaur"], zeus_column, ["Giant"]],
    )
    refused(st, Challenge(2), "D11", whose)


def test_both_cards_of_a_challenge_are_turned_face_up() -> None:
    st = pos(
        hera_field=[["Furies"], ["Harpy"], ["Harpy"]],
        zeus_field=[["Centaur"], ["Cyclops"], ["Giant"]],
    )
    out = run(st, Challenge(2))
    assert field(out.state, "zeus")[1] == ["^Cyclops"]  # the survivor stays face up


def test_a_face_up_card_challenges_like_any_other() -> None:
    st = pos(
        hera_field=[["Furies"], ["^Hydra"], ["Harpy"]],
        zeus_field=[["Centaur"], ["Giant"], ["Giant"]],
    )
    out = run(st, Challenge(2))
    assert field(out.state, "hera")[1] == ["^Hydra"]
    assert field(out.state, "zeus")[1] == []


# ---- D3 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attacker", "defender", "hera_after", "zeus_after"),
    [
        ("Pythia", "Poseidon", ["^Pythia", "Furies"], ["Centaur"]),
        ("Pythia", "Giant", ["Furies"], ["^Giant", "Centaur"]),
        ("Pythia", "Pegasus", ["Furies"], ["Centaur"]),  # 1 against 1
        ("Pythia", "Medusa", ["Furies"], ["^Medusa", "Centaur"]),
        ("Nemesis", "Pythia", ["^Nemesis", "Furies"], ["Centaur"]),
        ("Furies", "Pythia", ["^Furies", "Furies"], ["Centaur"]),
        ("Pegasus", "Pythia", ["Furies"], ["Centaur"]),  # 1 against 1
    ],
    ids=[
        "pythia-beats-poseidon",
        "pythia-loses-to-giant",
        "pythia-ties-pegasus",
        "pythia-falls-to-medusa",
        "nemesis-beats-pythia",
        "furies-beat-pythia",
        "pegasus-ties-pythia",
    ],
)
def test_pythia_beats_poseidon_and_nemesis_and_is_otherwise_an_ordinary_card(
    attacker: str, defender: str, hera_after: list[str], zeus_after: list[str]
) -> None:
    assert duel(attacker, defender) == (hera_after, zeus_after)


def test_pythia_attacking_the_hostage_wins() -> None:
    st = pos(hera_field=[["Furies"], ["Pythia"], ["Harpy"]], zeus_field=[[], ["Argus"], []])
    out = run(st, Challenge(2))
    assert out.state.reason is EndReason.HOSTAGE_CHALLENGED


def test_zeus_poseidon_challenging_pythia_discards_her() -> None:
    st = pos(
        turn="zeus",
        hera_field=[["Furies"], ["Pythia"], ["Harpy"]],
        zeus_field=[["Centaur"], ["Poseidon"], ["Giant"]],
    )
    out = run(st, Challenge(2))
    assert field(out.state, "hera")[1] == []
    assert field(out.state, "zeus")[1] == ["^Poseidon"]
    assert "D3" in out.rules


STRONG_PYTHIA = {"Pythia": 4}


@pytest.mark.parametrize(
    ("profile", "switches", "hera_after", "zeus_after"),
    [
        (None, None, ["Furies"], ["^Pythia", "Centaur"]),  # 4 beats Pegasus 1
        (None, {"pythia_defends": "always_loses"}, ["^Pegasus", "Furies"], ["Centaur"]),
        ("translations", None, ["^Pegasus", "Furies"], ["Centaur"]),
        ("translations", {"pythia_defends": "normal"}, ["Furies"], ["^Pythia", "Centaur"]),
        ("kosmos", None, ["Furies"], ["^Pythia", "Centaur"]),
    ],
    ids=["rio-grande", "switch", "translations", "translations-normal", "kosmos"],
)
def test_pythia_defends_switch_decides_whether_a_challenged_pythia_always_loses(
    profile: str | None,
    switches: dict[str, str] | None,
    hera_after: list[str],
    zeus_after: list[str],
) -> None:
    got = duel("Pegasus", "Pythia", profile=profile, switches=switches, catalogue=STRONG_PYTHIA)
    assert got == (hera_after, zeus_after)


def test_always_losing_pythia_still_wins_when_she_attacks() -> None:
    got = duel("Pythia", "Poseidon", profile="translations")
    assert got == (["^Pythia", "Furies"], ["Centaur"])


@pytest.mark.parametrize(
    ("profile", "zeus_after", "zeus_pile"),
    [("rio-grande", ["^Pythia"], []), ("translations", [], ["Pythia"])],
)
def test_pegasus_from_the_hand_against_a_strong_pythia_follows_pythia_defends(
    profile: str, zeus_after: list[str], zeus_pile: list[str]
) -> None:
    # HZ-P5: Pegasus from the hand counts as a challenge.
    st = pos(
        profile=profile,
        catalogue=STRONG_PYTHIA,
        hera_hand=["Pegasus"],
        zeus_field=[["Centaur"], ["Pythia"], ["Giant"]],
    )
    out = run(st, PegasusField(2))
    assert field(out.state, "zeus")[1] == zeus_after
    assert discard(out.state, "hera") == ["Pegasus"]
    assert discard(out.state, "zeus") == zeus_pile


# ---- D6 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("attacker", ["Hydra", "Pythia"], ids=["card", "pythia-from-the-field"])
def test_no_challenge_on_the_players_first_turn(attacker: str) -> None:
    st = pos(first=True, hera_field=[["Furies"], [attacker], ["Harpy"]])
    err = refused(st, Challenge(2), "D6", "no challenge is allowed on Hera's first turn")
    assert "a challenge is a challenge" not in err.reason.lower()  # said once, in plain words


@pytest.mark.parametrize(
    "action",
    [
        PythiaSpy(),
        PythiaReveal(2),
        God(2),
        Draw(),
        Play("Furies", 1, 1),
    ],
    ids=["pythia-spy", "pythia-reveal", "god-card", "draw", "play"],
)
def test_the_first_turn_allows_everything_but_challenges(
    action: PythiaSpy | PythiaReveal | God | Draw | Play,
) -> None:
    st = pos(first=True, hera_hand=["Pythia", "Hera", "Furies"], zeus_hand=["Hero"])
    out = run(st, action)
    assert out.state.first is True
    assert out.state.winner is None
