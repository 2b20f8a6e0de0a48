"""D19 setup through new_game: starting player, nine cards, the hostage redraw, the re-deal of
a hand that cannot lay a first row (HZ-P9), the first row; then D6 first turns for both
players."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import after, asks, deck_size, discard, field, hand, refused, run

from engine.herazeus import (
    EventKind,
    GameState,
    Phase,
    Player,
    Profile,
    Ruleset,
    legal_actions,
    must_redeal,
    new_game,
)
from engine.herazeus.actions import (
    Challenge,
    Deal,
    Draw,
    EndTurn,
    FirstRow,
    Redeal,
    Redraw,
    Starter,
)
from engine.herazeus.cards import card

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


# ---- D19 re-deal (HZ-P9): a hand with fewer than three cards with a printed strength ---------

# Eight myth-only cards and Hydra: no first row can be laid from it.
WEAK_NINE = (
    "Hydra",
    *("Sirens", "Hades", "Persephone", "Dionysus", "Hera", "Sirens", "Hades", "Hades"),
)
NEW_NINE = ("Hydra", "Harpy", "Furies", "Amazon", "Nemesis", "Sirens", "Hades", "Medusa", "Pythia")


def weak_deal(hand: tuple[str, ...] = WEAK_NINE) -> GameState:
    return after(new_game(), Deal(Player.HERA, hand))


def test_a_hand_with_fewer_than_three_cards_with_strength_must_be_dealt_again() -> None:
    g = weak_deal(("Hydra", "Pegasus", *WEAK_NINE[1:8]))
    assert must_redeal(g, Player.HERA)  # Hydra and Pegasus: two
    assert not [a for a in legal_actions(g) if isinstance(a, FirstRow) and a.player is Player.HERA]
    assert not must_redeal(g, Player.ZEUS)  # nothing recorded for Zeus yet


def test_the_weak_hand_is_shown_shuffled_back_and_nine_cards_drawn() -> None:
    out = run(weak_deal(), Redeal(Player.HERA, NEW_NINE))
    g = out.state
    assert hand(g, "hera") == Counter(NEW_NINE)
    assert deck_size(g, "hera") == 34
    assert not must_redeal(g, Player.HERA)
    assert {"D19", "HZ-P9"} <= set(out.rules)
    shown = [e for e in out.events if e.kind is EventKind.REDEALT]
    assert len(shown) == 1 and shown[0].public  # the hand is shown to both players
    assert shown[0].to_json()["cards"] == list(WEAK_NINE)
    drawn = [e for e in out.events if e.kind is EventKind.DRAWN]
    assert [e.card.name for e in drawn if e.card] == list(NEW_NINE)
    assert not any(e.public for e in drawn)  # the new cards are the player's secret


def test_after_a_redeal_the_first_row_is_laid_and_play_begins() -> None:
    g = after(
        weak_deal(),
        Redeal(Player.HERA, NEW_NINE),
        Deal(Player.ZEUS, ZEUS_NINE),
        Redraw(Player.ZEUS, card="Poseidon"),
        FirstRow(Player.HERA, ("Hydra", "Harpy", "Furies")),
        FirstRow(Player.ZEUS, ("Cyclops", "Giant", "Centaur")),
        Starter(Player.HERA),
    )
    assert g.phase is Phase.PLAY
    assert field(g, "hera") == [["Hydra"], ["Harpy"], ["Furies"]]


def test_a_hand_that_can_lay_its_first_row_is_never_dealt_again() -> None:
    g = after(dealt(), Redraw(Player.HERA, card="Artemis"))
    refused(g, Redeal(Player.HERA, NEW_NINE), "D19", "enough for the first row")


def test_the_hostage_is_replaced_before_a_redeal_and_does_not_count() -> None:
    g = weak_deal(("Io", *WEAK_NINE[1:]))  # Io has no printed strength
    assert not must_redeal(g, Player.HERA)  # first the hostage
    refused(g, Redeal(Player.HERA, NEW_NINE), "D19", "show Io")
    g = after(g, Redraw(Player.HERA, card="Harpy"))  # Harpy alone: still one card
    assert must_redeal(g, Player.HERA)


def test_a_new_hand_that_is_again_too_weak_is_dealt_again() -> None:
    g = after(weak_deal(), Redeal(Player.HERA, WEAK_NINE))
    assert must_redeal(g, Player.HERA)
    g = after(g, Redeal(Player.HERA, NEW_NINE))
    assert not must_redeal(g, Player.HERA)


def test_a_redeal_records_nine_cards() -> None:
    refused(weak_deal(), Redeal(Player.HERA, NEW_NINE[:8]), "D19", "9 cards, not 8")
    refused(new_game(), Redeal(Player.HERA, NEW_NINE), "D19", "not recorded yet")


def test_unknown_cards_of_the_shown_hand_are_named_by_their_owner() -> None:
    g = weak_deal(("Hydra", "?", "?", *WEAK_NINE[3:]))
    assert not must_redeal(g, Player.HERA)  # the referee cannot tell yet
    err = asks(g, Redeal(Player.HERA, NEW_NINE), "shown", rule="D19")
    assert err.asked == ("hera",)
    refused(g, Redeal(Player.HERA, NEW_NINE, shown=("Sirens",)), "D19", "names 1 cards for 2")
    refused(g, Redeal(Player.HERA, NEW_NINE, shown=("Hydra", "Harpy")), "D19", "holds 3 cards")
    out = run(g, Redeal(Player.HERA, NEW_NINE, shown=("Sirens", "Hades")))
    shown = next(e for e in out.events if e.kind is EventKind.REDEALT)
    assert shown.to_json()["cards"] == list(WEAK_NINE)


def test_a_known_deck_is_dealt_again_in_the_order_the_shuffle_gave() -> None:
    hera = [card(n, Player.HERA) for n in WEAK_NINE] + [card("Harpy", Player.HERA)] * 34
    zeus = [card("Giant", Player.ZEUS)] * 43
    g = after(new_game(decks=(hera, zeus)), Deal(Player.HERA, ("?",) * 9))
    asks(g, Redeal(Player.HERA, NEW_NINE), "deck", rule="D19")
    pool = [*WEAK_NINE, *("Harpy",) * 34]
    new_hand = ("Harpy",) * 3 + WEAK_NINE[1:7]
    rest = ("Hydra", *WEAK_NINE[7:], *("Harpy",) * 31)
    assert sorted(new_hand + rest) == sorted(pool)
    g = after(g, Redeal(Player.HERA, new_hand, deck=rest))
    assert hand(g, "hera") == Counter(new_hand)
    assert [c.name for c in g.sides[Player.HERA].deck] == list(rest)
    wrong = ("Giant/zeus", *rest[1:])
    err = refused(
        after(new_game(decks=(hera, zeus)), Deal(Player.HERA, ("?",) * 9)),
        Redeal(Player.HERA, new_hand, deck=wrong),
        "D20",
        "exactly the 43 cards",
    )
    assert err.action == Redeal(Player.HERA, new_hand, deck=wrong)
