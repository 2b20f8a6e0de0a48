"""D19 setup through new_game: starting player, nine cards, the hostage redraw, the first row;
then D6 first turns for both players."""

from __future__ import annotations

import pytest
from helpers import after, asks, deck_size, discard, field, hand, refused

from engine import GameState, Phase, Player, Profile, Ruleset, legal_actions, new_game
from engine.actions import Challenge, Deal, Draw, EndTurn, FirstRow, Redraw, Starter
from engine.cards import card

HERA_NINE = ("Io", "Hydra", "Harpy", "Furies", "Pegasus", "Medusa", "Sirens", "Amazon", "Nemesis")
ZEUS_NINE = ("Cyclops", "Giant", "Centaur", "Hero", "Pegasus", "Medusa", "Hades", "Apollo", "Argus")


def dealt(profile: Profile = Profile.RIO_GRANDE) -> GameState:
    """Both hands recorded from unseen decks; each player drew his hostage."""
    g = new_game(Ruleset.build(profile))
    return after(g, Deal(Player.HERA, HERA_NINE), Deal(Player.ZEUS, ZEUS_NINE))


def placed(starter: Player = Player.HERA, profile: Profile = Profile.RIO_GRANDE) -> GameState:
    return after(
        dealt(profile),
        Redraw(Player.HERA, card="Artemis"),
        Redraw(Player.ZEUS, card="Poseidon"),
        FirstRow(Player.HERA, ("Hydra", "Harpy", "Furies")),
        FirstRow(Player.ZEUS, ("Cyclops", "Giant", "Centaur")),
        Starter(starter),
    )


def test_a_new_game_starts_in_setup_with_unseen_decks() -> None:
    g = new_game()
    assert g.phase is Phase.SETUP
    assert deck_size(g, "hera") == deck_size(g, "zeus") == 43
    refused(g, Draw(), "D19", "setup is not finished")


def test_each_player_records_nine_cards() -> None:
    g = dealt()
    assert sum(hand(g, "hera").values()) == 9
    assert deck_size(g, "hera") == 34
    refused(new_game(), Deal(Player.HERA, HERA_NINE[:8]), "D19", "9 cards, not 8")
    refused(g, Deal(Player.HERA, HERA_NINE), "D19", "already recorded")


def test_a_drawn_hostage_is_shown_replaced_and_shuffled_back() -> None:
    g = after(dealt(), Redraw(Player.HERA, card="Artemis"))
    assert hand(g, "hera")["Io"] == 0
    assert hand(g, "hera")["Artemis"] == 1
    assert sum(hand(g, "hera").values()) == 9
    assert deck_size(g, "hera") == 34  # one drawn, the hostage back in


def test_the_first_row_waits_for_the_hostage_to_be_redrawn() -> None:
    refused(dealt(), FirstRow(Player.HERA, ("Hydra", "Harpy", "Furies")), "D19", "show Io")


def test_only_a_player_who_drew_his_hostage_redraws() -> None:
    g = after(dealt(), Redraw(Player.HERA, card="Artemis"))
    refused(g, Redraw(Player.HERA, card="Hydra"), "D19", "did not draw Io")


def test_the_first_row_is_three_cards_one_per_column_face_down() -> None:
    g = after(
        dealt(),
        Redraw(Player.HERA, card="Artemis"),
        FirstRow(Player.HERA, ("Hydra", "Pegasus", "Medusa")),
    )
    assert field(g, "hera") == [["Hydra"], ["Pegasus"], ["Medusa"]]
    assert hand(g, "hera")["Hydra"] == 0


@pytest.mark.parametrize(
    ("row", "phrase"),
    [
        (("Hydra", "Harpy", "Sirens"), "cannot be placed in the first row"),
        (("Hydra", "Harpy"), "3 cards"),
        (("Hydra", "Harpy", "Artemis", "Furies"), "3 cards"),
        (("Hydra", "Harpy", "Poseidon/zeus"), "holds no"),
    ],
    ids=["myth-only", "two-cards", "four-cards", "not-in-hand"],
)
def test_the_first_row_takes_three_playable_cards_from_the_hand(
    row: tuple[str, ...], phrase: str
) -> None:
    g = after(dealt(), Redraw(Player.HERA, card="Artemis"))
    refused(g, FirstRow(Player.HERA, row), "D19", phrase)


def test_play_begins_with_the_starting_players_first_turn() -> None:
    g = placed(Player.HERA)
    assert g.phase is Phase.PLAY
    assert (g.player, g.first, g.ap, g.used) == (Player.HERA, True, 3, 0)
    refused(g, Starter(Player.ZEUS), "D19", "setup is over")


def test_rio_grande_lets_zeus_start_when_chosen() -> None:
    g = placed(Player.ZEUS)
    assert (g.player, g.first) == (Player.ZEUS, True)


def test_the_starting_player_is_chosen_once() -> None:
    g = after(new_game(), Starter(Player.ZEUS))
    refused(g, Starter(Player.HERA), "D19", "already Zeus")


def test_kosmos_fixes_hera_as_the_starting_player() -> None:
    g = new_game(Ruleset.build(Profile.KOSMOS))
    refused(g, Starter(Player.ZEUS), "D19", "Hera always starts")
    assert [a for a in legal_actions(g) if isinstance(a, Starter)] == [Starter(Player.HERA)]
    assert placed(Player.HERA, Profile.KOSMOS).player is Player.HERA


def test_each_players_own_first_turn_forbids_challenges() -> None:
    g = placed(Player.HERA)
    refused(g, Challenge(1), "D6", "first turn")
    g = after(g, Draw("Harpy"), Draw("Harpy"), Draw("Harpy"), EndTurn())
    assert (g.player, g.first) == (Player.ZEUS, True)  # Zeus's own first turn
    refused(g, Challenge(1), "D6", "first turn")
    g = after(g, Draw("Giant"), Draw("Giant"), Draw("Giant"), EndTurn())
    assert (g.player, g.first) == (Player.HERA, False)
    assert Challenge(1) in legal_actions(g)


def test_a_known_deck_must_deal_what_it_holds() -> None:
    hera = [card(n, Player.HERA) for n in ("Hydra",) * 9 + ("Harpy",) * 34]
    zeus = [card(n, Player.ZEUS) for n in ("Giant",) * 43]
    g = new_game(decks=(hera, zeus))
    refused(g, Deal(Player.HERA, ("Harpy",) + ("Hydra",) * 8), "D20", "recorded as Hydra")
    g = after(g, Deal(Player.HERA, ("?",) * 9))  # unknown entries take what the deck holds
    assert hand(g, "hera") == {"Hydra": 9}


def test_a_hostage_shuffled_back_into_a_known_deck_asks_where_it_went() -> None:
    hera = [card("Io", Player.HERA)] + [card("Hydra", Player.HERA)] * 42
    zeus = [card("Giant", Player.ZEUS)] * 43
    g = after(new_game(decks=(hera, zeus)), Deal(Player.HERA, ("?",) * 9))
    asks(g, Redraw(Player.HERA), "at", rule="D19")
    g = after(g, Redraw(Player.HERA, at=0))
    assert hand(g, "hera") == {"Hydra": 9}
    assert g.sides[Player.HERA].deck[0] == card("Io", Player.HERA)
    assert discard(g, "hera") == []
