"""D10 playing a card; D12 Pythia's spy and reveal; D13 Sirens; D14 Hades; D15 Persephone;
D16 Dionysus; D18 hand and deck."""

from __future__ import annotations

import pytest
from helpers import after, ap, deck_size, discard, field, hand, pos, refused, run

from engine.herazeus import Player, legal_actions
from engine.herazeus.actions import (
    Challenge,
    Dionysus,
    Draw,
    Hades,
    Persephone,
    Play,
    PythiaReveal,
    PythiaSpy,
    Sirens,
)

# ---- D10 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "column_after"),
    [
        (1, ["Nemesis", "Hydra", "Harpy"]),
        (2, ["Hydra", "Nemesis", "Harpy"]),
        (3, ["Hydra", "Harpy", "Nemesis"]),
        (None, ["Hydra", "Harpy", "Nemesis"]),
    ],
    ids=["front", "between", "back", "default-back"],
)
def test_a_card_is_played_face_down_at_the_front_between_or_at_the_back(
    position: int | None, column_after: list[str]
) -> None:
    st = pos(hera_hand=["Nemesis"], hera_field=[["Furies"], ["Hydra", "Harpy"], ["Harpy"]])
    out = run(st, Play("Nemesis", 2, position))
    assert field(out.state, "hera")[1] == column_after
    assert hand(out.state, "hera") == {}
    assert ap(out.state) == (3, 1)
    assert "D10" in out.rules


@pytest.mark.parametrize(
    "column",
    [["Hydra", "Harpy", "Harpy", "Furies"], ["@", "Hydra", "Harpy", "Furies"]],
    ids=["four-cards", "figure-counts-as-one"],
)
def test_no_card_goes_into_a_column_with_four_entries(column: list[str]) -> None:
    st = pos(hera_hand=["Nemesis"], hera_field=[["Furies"], column, ["Harpy"]])
    refused(st, Play("Nemesis", 2), "D10", "already holds 4 entries")


def test_no_card_is_played_in_front_of_the_figure() -> None:
    st = pos(hera_hand=["Nemesis"], hera_field=[["Furies"], ["@", "Hydra"], ["Harpy"]])
    refused(st, Play("Nemesis", 2, 1), "D10", "in front of it")
    assert field(after(st, Play("Nemesis", 2, 2)), "hera")[1] == ["@", "Nemesis", "Hydra"]


def test_a_card_cannot_be_played_leaving_a_gap() -> None:
    st = pos(hera_hand=["Nemesis"])
    refused(st, Play("Nemesis", 2, 3), "D10", "no gaps")


def test_a_card_can_be_played_into_an_empty_column() -> None:
    st = pos(hera_hand=["Nemesis"], hera_field=[["Furies"], [], []])
    assert field(after(st, Play("Nemesis", 3)), "hera")[2] == ["Nemesis"]


@pytest.mark.parametrize(
    "card", ["Io", "Medusa", "Pandora", "Pegasus", "Pythia", "Amazon", "Nemesis", "Furies"]
)
def test_any_card_with_a_printed_strength_or_the_hostage_may_be_played(card: str) -> None:
    st = pos(hera_hand=[card])
    assert field(after(st, Play(card, 1, 1)), "hera")[0] == [card, "Furies"]


@pytest.mark.parametrize("card", ["Hera", "Sirens", "Hades", "Persephone", "Dionysus"])
def test_myth_only_cards_are_never_played_to_the_field(card: str) -> None:
    refused(pos(hera_hand=[card]), Play(card, 1), "D10", "never played to the field")


def test_only_a_card_in_hand_can_be_played() -> None:
    refused(pos(hera_hand=["Furies"]), Play("Nemesis", 1), "D10", "holds no Nemesis")


def test_a_card_taken_by_sirens_is_played_as_its_holders_card() -> None:
    st = pos(hera_hand=["Cyclops/zeus"])
    out = run(st, Play("Cyclops/zeus", 1, 1))
    assert field(out.state, "hera")[0] == ["Cyclops/zeus", "Furies"]


# ---- D12 -----------------------------------------------------------------------------------


def test_pythia_spy_discards_poseidon_from_the_opponents_hand() -> None:
    st = pos(hera_hand=["Pythia"], zeus_hand=["Poseidon", "Hero", "Poseidon"])
    out = run(st, PythiaSpy())
    assert hand(out.state, "zeus") == {"Hero": 1}
    assert discard(out.state, "zeus") == ["Poseidon", "Poseidon"]
    assert discard(out.state, "hera") == ["Pythia"]
    assert ap(out.state) == (3, 1)
    assert "D12" in out.rules


def test_pythia_spy_discards_nemesis_from_heras_hand() -> None:
    st = pos(turn="zeus", zeus_hand=["Pythia"], hera_hand=["Nemesis", "Amazon"])
    out = run(st, PythiaSpy())
    assert hand(out.state, "hera") == {"Amazon": 1}
    assert discard(out.state, "hera") == ["Nemesis"]


def test_pythia_spy_discards_a_poseidon_taken_by_sirens_onto_its_holders_pile() -> None:
    st = pos(turn="zeus", zeus_hand=["Pythia"], hera_hand=["Poseidon/zeus", "Amazon"])
    out = run(st, PythiaSpy())
    assert discard(out.state, "hera") == ["Poseidon/zeus"]


def test_pythia_spy_is_legal_against_an_empty_hand() -> None:
    out = run(pos(hera_hand=["Pythia"], zeus_hand=[]), PythiaSpy())
    assert ap(out.state) == (3, 1)
    assert discard(out.state, "hera") == ["Pythia"]


def test_pythia_spy_needs_a_pythia() -> None:
    refused(pos(hera_hand=["Pegasus"]), PythiaSpy(), "D12", "holds no Pythia")


def test_pythia_reveal_turns_every_face_down_card_of_one_column_face_up() -> None:
    st = pos(hera_hand=["Pythia"], zeus_field=[["Centaur"], ["Cyclops", "^Giant", "Argus"], []])
    out = run(st, PythiaReveal(2))
    assert field(out.state, "zeus") == [["Centaur"], ["^Cyclops", "^Giant", "^Argus"], []]
    assert out.state.winner is None
    assert discard(out.state, "hera") == ["Pythia"]


def test_pythia_reveal_triggers_nothing_not_even_pandora() -> None:
    st = pos(hera_hand=["Pythia"], zeus_field=[["Centaur"], ["Pandora", "Argus"], ["Giant"]])
    out = run(st, PythiaReveal(2))
    assert field(out.state, "zeus")[1] == ["^Pandora", "^Argus"]
    assert discard(out.state, "zeus") == []
    assert out.state.winner is None


@pytest.mark.parametrize("zeus_column", [[], ["@"]], ids=["empty-column", "only-the-figure"])
def test_pythia_reveal_needs_a_card_in_the_column(zeus_column: list[str]) -> None:
    st = pos(hera_hand=["Pythia"], zeus_field=[["Centaur"], zeus_column, ["Giant"]])
    refused(st, PythiaReveal(2), "D12", "holds no card to turn over")


# ---- D13 -----------------------------------------------------------------------------------


def test_sirens_take_the_top_of_the_opponents_pile_into_the_hand() -> None:
    st = pos(hera_hand=["Sirens"], zeus_discard=["Medusa", "Cyclops"])
    out = run(st, Sirens())
    assert hand(out.state, "hera") == {"Cyclops/zeus": 1}
    assert discard(out.state, "zeus") == ["Medusa"]
    assert discard(out.state, "hera") == ["Sirens"]
    assert ap(out.state) == (3, 1)


@pytest.mark.parametrize("top", ["Pegasus", "Hero", "Centaur", "Poseidon"])
def test_sirens_take_any_card_of_strength_1_to_7(top: str) -> None:
    out = run(pos(hera_hand=["Sirens"], zeus_discard=[top]), Sirens())
    assert hand(out.state, "hera") == {f"{top}/zeus": 1}


@pytest.mark.parametrize(
    ("pile", "phrase"),
    [
        ([], "is empty"),
        (["Cyclops", "Medusa"], "shows Medusa"),
        (["Pandora"], "shows Pandora"),
        (["Argus"], "shows Argus"),
        (["Hades"], "shows Hades"),
        (["Zeus"], "shows Zeus"),
    ],
    ids=["empty", "medusa-0", "pandora-0", "hostage", "myth-only", "god-card"],
)
def test_sirens_need_a_card_of_strength_1_to_7_on_top(pile: list[str], phrase: str) -> None:
    refused(pos(hera_hand=["Sirens"], zeus_discard=pile), Sirens(), "D13", phrase)


def test_a_card_taken_by_sirens_is_lost_onto_its_holders_pile() -> None:
    st = pos(
        hera_hand=["Sirens"],
        zeus_discard=["Furies/hera", "Apollo"],
        zeus_field=[["Centaur"], ["Poseidon"], ["Giant"]],
    )
    out = run(st, Sirens(), Play("Apollo/zeus", 2, 1), Challenge(2))  # Apollo 6 < Poseidon 7
    assert discard(out.state, "hera") == ["Sirens", "Apollo/zeus"]
    assert discard(out.state, "zeus") == ["Furies/hera"]


def test_sirens_bring_a_players_own_card_home() -> None:
    out = run(pos(hera_hand=["Sirens"], zeus_discard=["Furies/hera"]), Sirens())
    assert hand(out.state, "hera") == {"Furies": 1}


# ---- D14 -----------------------------------------------------------------------------------


def test_hades_takes_any_card_of_the_own_pile_into_the_hand() -> None:
    st = pos(hera_hand=["Hades"], hera_discard=["Furies", "Pegasus", "Nemesis"])
    out = run(st, Hades("Pegasus"))
    assert hand(out.state, "hera") == {"Pegasus": 1}
    assert discard(out.state, "hera") == ["Furies", "Nemesis", "Hades"]
    assert ap(out.state) == (3, 1)
    assert "D14" in out.rules


def test_hades_brings_back_a_card_taken_by_sirens() -> None:
    out = run(pos(hera_hand=["Hades"], hera_discard=["Cyclops/zeus"]), Hades("Cyclops/zeus"))
    assert hand(out.state, "hera") == {"Cyclops/zeus": 1}


def test_hades_needs_a_card_in_the_own_pile() -> None:
    refused(pos(hera_hand=["Hades"]), Hades("Furies"), "D14", "pile is empty")


def test_hades_takes_only_a_card_that_is_in_the_pile_not_himself() -> None:
    st = pos(hera_hand=["Hades"], hera_discard=["Furies"])
    refused(st, Hades("Nemesis"), "D14", "holds no Nemesis")
    refused(st, Hades("Hades"), "D14", "holds no Hades")


# ---- D15 -----------------------------------------------------------------------------------


def test_persephone_takes_every_pegasus_from_the_pile_at_most_three() -> None:
    st = pos(hera_hand=["Persephone"], hera_discard=["Pegasus"] * 4 + ["Furies"])
    out = run(st, Persephone())
    assert hand(out.state, "hera") == {"Pegasus": 3}
    assert sorted(discard(out.state, "hera")) == ["Furies", "Pegasus", "Persephone"]
    assert ap(out.state) == (3, 1)


def test_persephone_stops_at_the_hand_limit() -> None:
    # 11 cards in hand; Persephone leaves it, so 2 Pegasus fit.
    st = pos(hera_hand=["Persephone"] + ["Furies"] * 10, hera_discard=["Pegasus"] * 3)
    out = run(st, Persephone())
    assert hand(out.state, "hera") == {"Furies": 10, "Pegasus": 2}
    assert discard(out.state, "hera").count("Pegasus") == 1


def test_persephone_is_legal_with_no_pegasus_in_the_pile() -> None:
    out = run(pos(hera_hand=["Persephone"], hera_discard=["Furies"]), Persephone())
    assert hand(out.state, "hera") == {}
    assert discard(out.state, "hera") == ["Furies", "Persephone"]


# ---- D16 -----------------------------------------------------------------------------------


def dionysus_field(*cols: list[str]) -> dict[str, object]:
    return {"hera_hand": ["Dionysus"], "hera_field": list(cols)}


def test_dionysus_moves_a_card_to_another_column_and_it_keeps_its_face() -> None:
    st = pos(**dionysus_field(["^Furies", "Hydra"], ["Harpy"], []))
    out = run(st, Dionysus((1, 1), (2, 2)))
    assert field(out.state, "hera") == [["Hydra"], ["Harpy", "^Furies"], []]
    assert discard(out.state, "hera") == ["Dionysus"]
    assert ap(out.state) == (2, 1)
    assert "D16" in out.rules


def test_dionysus_may_move_a_card_into_an_empty_column() -> None:
    st = pos(**dionysus_field(["Furies", "Hydra"], ["Harpy"], []))
    assert field(after(st, Dionysus((1, 2), (3, 1))), "hera") == [["Furies"], ["Harpy"], ["Hydra"]]


def test_dionysus_may_reorder_a_full_column() -> None:
    st = pos(**dionysus_field(["Furies", "Hydra", "Harpy", "Nemesis"], [], []))
    out = run(st, Dionysus((1, 4), (1, 1)))
    assert field(out.state, "hera")[0] == ["Nemesis", "Furies", "Hydra", "Harpy"]


def test_dionysus_cannot_move_into_a_full_column() -> None:
    st = pos(**dionysus_field(["Furies"], ["Hydra", "Harpy", "Harpy", "Nemesis"], []))
    refused(st, Dionysus((1, 1), (2, 1)), "D16", "already holds 4")


@pytest.mark.parametrize(
    ("cols", "move"),
    [
        ((["Furies"], ["@", "Hydra"], []), Dionysus((1, 1), (2, 1))),
        ((["@", "Furies", "Hydra"], [], []), Dionysus((1, 3), (1, 1))),
    ],
    ids=["other-column", "own-column"],
)
def test_dionysus_never_puts_a_card_in_front_of_a_figure(
    cols: tuple[list[str], ...], move: Dionysus
) -> None:
    refused(pos(**dionysus_field(*cols)), move, "D16", "in front of the figure")


def test_dionysus_needs_a_card_to_move() -> None:
    st = pos(**dionysus_field(["Furies"], [], []))
    refused(st, Dionysus((2, 1), (3, 1)), "D16", "has nothing in column 2, row 1")


def test_dionysus_must_move_the_card_somewhere_else() -> None:
    st = pos(**dionysus_field(["Furies", "Hydra"], [], []))
    err = refused(st, Dionysus((1, 2), (1, 2)), "D16", "must move it")
    assert err.rules == ("D16", "HZ-P1")  # D16 "to another place", the project ruling finer


def test_dionysus_cannot_leave_a_gap() -> None:
    st = pos(**dionysus_field(["Furies", "Hydra"], ["Harpy"], []))
    refused(st, Dionysus((1, 1), (2, 3)), "D16", "no gaps")


def test_dionysus_without_a_place_to_go_offers_no_move() -> None:
    full = (["Furies"] * 4, ["Hydra"] * 4, ["Harpy"] * 4)
    # every column full: reordering within a column is still a move
    moves = [a for a in legal_actions(pos(**dionysus_field(*full))) if isinstance(a, Dionysus)]
    assert moves and all(a.src[0] == a.dst[0] for a in moves)
    single = (["@", "Furies", "Furies", "Furies"], ["Hydra"] * 4, ["Harpy"] * 4)
    assert Dionysus((1, 2), (1, 1)) not in legal_actions(pos(**dionysus_field(*single)))


# ---- D18 -----------------------------------------------------------------------------------


def test_drawing_takes_the_top_card_of_the_deck() -> None:
    st = pos(hera_deck=["Nemesis", "Furies"])
    out = run(st, Draw())
    assert hand(out.state, "hera") == {"Nemesis": 1}
    assert deck_size(out.state, "hera") == 1
    assert ap(out.state) == (3, 1)
    assert "D18" in out.rules


def test_drawing_from_an_unseen_deck_records_the_named_card() -> None:
    out = run(pos(hera_deck=5), Draw("Hydra"))
    assert hand(out.state, "hera") == {"Hydra": 1}
    assert deck_size(out.state, "hera") == 4


def test_drawing_at_the_hand_limit_of_twelve_is_illegal() -> None:
    refused(pos(hera_hand=["Furies"] * 12), Draw(), "D18", "hand limit")
    assert ap(after(pos(hera_hand=["Furies"] * 11), Draw())) == (3, 1)


def test_drawing_from_an_empty_deck_is_illegal() -> None:
    refused(pos(hera_deck=0), Draw(), "D18", "deck is empty")


def test_a_deck_holds_only_its_owners_cards() -> None:
    refused(pos(hera_deck=3), Draw("Cyclops/zeus"), "D18", "own cards")


def test_drawing_is_for_the_player_whose_deck_it_is() -> None:
    st = pos(hera_deck=["Nemesis"], zeus_deck=["Poseidon"])
    assert hand(after(st, Draw()), "zeus") == {}
    assert Player.HERA is st.player
