"""D1 Pandora's reach: a challenged first-row Pandora empties the column, hostages decide."""

from __future__ import annotations

import pytest
from helpers import discard, field, pos, refused, run

from engine.herazeus import EndReason, EventKind, Outcome, Player
from engine.herazeus.actions import Challenge, PegasusField
from referee.herazeus.ruling import rule_on, sentences


def zeus_to_move(**kw: object) -> dict[str, object]:
    return {"turn": "zeus", **kw}


def test_challenged_pandora_empties_the_column_on_both_sides() -> None:
    st = pos(
        turn="zeus",
        hera_field=[["Nemesis"], ["Pandora", "Furies"], ["Harpy"]],
        zeus_field=[["Poseidon"], ["Cyclops", "Giant"], ["Giant"]],
    )
    out = run(st, Challenge(2))
    assert field(out.state, "hera") == [["Nemesis"], [], ["Harpy"]]
    assert field(out.state, "zeus") == [["Poseidon"], [], ["Giant"]]
    assert out.state.winner is None
    assert "D1" in out.rules


def test_pandora_losses_go_front_card_first_so_the_rearmost_ends_on_top() -> None:
    st = pos(
        turn="zeus",
        hera_field=[["Nemesis"], ["Pandora", "Furies", "Harpy"], ["Harpy"]],
        zeus_field=[["Poseidon"], ["Cyclops", "Giant"], ["Giant"]],
    )
    out = run(st, Challenge(2))
    assert discard(out.state, "hera") == ["Pandora", "Furies", "Harpy"]
    assert discard(out.state, "zeus") == ["Cyclops", "Giant"]


def test_each_owner_chooses_the_order_of_his_own_pandora_losses() -> None:
    st = pos(
        turn="zeus",
        hera_field=[["Nemesis"], ["Pandora", "Furies"], ["Harpy"]],
        zeus_field=[["Poseidon"], ["Cyclops", "Giant"], ["Giant"]],
    )
    order = ((Player.HERA, ("Furies", "Pandora")), (Player.ZEUS, ("Giant", "Cyclops")))
    out = run(st, Challenge(2, order=order))
    assert discard(out.state, "hera") == ["Furies", "Pandora"]
    assert discard(out.state, "zeus") == ["Giant", "Cyclops"]


def lost_from(out: Outcome, who: str) -> list[tuple[str, str]]:
    """(card, where it stood) of each discard event of ``who``, in pile order."""
    return [
        (e.card.name, e.src or "")
        for e in out.events
        if e.kind is EventKind.DISCARDED and e.player is Player.parse(who) and e.card is not None
    ]


def test_each_pandora_discard_names_the_row_where_the_card_stood() -> None:
    st = pos(
        turn="zeus",
        hera_field=[["Nemesis"], ["Pandora", "Harpy", "Hydra"], ["Harpy"]],
        zeus_field=[["Poseidon"], ["Cyclops", "Giant"], ["Giant"]],
    )
    order = ((Player.HERA, ("Hydra", "Harpy", "Pandora")), (Player.ZEUS, ("Giant", "Cyclops")))
    out = run(st, Challenge(2, order=order))
    assert lost_from(out, "hera") == [
        ("Hydra", "field 2.3"),
        ("Harpy", "field 2.2"),
        ("Pandora", "field 2.1"),
    ]
    assert lost_from(out, "zeus") == [("Giant", "field 2.2"), ("Cyclops", "field 2.1")]


def test_the_ruling_text_names_the_rows_of_a_chosen_pandora_order() -> None:
    st = pos(
        turn="zeus",
        zeus_hand=["Pegasus"],
        hera_field=[["Nemesis"], ["Pandora", "Furies", "Hydra"], ["Harpy"]],
    )
    order = ((Player.HERA, ("Hydra", "Pandora", "Furies")),)
    text = " ".join(sentences(rule_on(st, [PegasusField(2, order=order)])))
    assert "Hera discards Hydra from column 2, row 3." in text
    assert "Hera discards Pandora from column 2, row 1." in text
    assert "Hera discards Furies from column 2, row 2." in text


def test_an_unknown_card_named_in_the_order_keeps_its_own_row() -> None:
    st = pos(
        turn="zeus",
        hera_field=[["Nemesis"], ["^Pandora", "?", "Hydra"], ["Harpy"]],
        zeus_field=[["Poseidon"], ["Cyclops"], ["Giant"]],
    )
    order = ((Player.HERA, ("Hydra", "Furies", "Pandora")),)
    out = run(st, Challenge(2, order=order))
    assert lost_from(out, "hera") == [
        ("Hydra", "field 2.3"),
        ("Furies", "field 2.2"),
        ("Pandora", "field 2.1"),
    ]


def test_a_pandora_order_must_name_exactly_the_lost_cards() -> None:
    # A wrong count is a bad D1 choice; naming a card that is not there contradicts the record.
    st = pos(
        turn="zeus",
        hera_field=[["Nemesis"], ["Pandora", "Furies"], ["Harpy"]],
        zeus_field=[["Poseidon"], ["Cyclops"], ["Giant"]],
    )
    refused(st, Challenge(2, order=((Player.HERA, ("Furies",)),)), "D1", "lists 1 but")
    refused(
        st, Challenge(2, order=((Player.HERA, ("Furies", "Hydra")),)), "D20", "must list exactly"
    )


@pytest.mark.parametrize(
    ("hera_column", "zeus_column", "winner", "reason"),
    [
        # the opponent's hostage is lost, the challenger's is not: the challenger wins
        (["Pandora", "Io"], ["Cyclops"], Player.ZEUS, EndReason.PANDORA_HOSTAGE),
        # the challenger loses his own hostage: he loses
        (["Pandora", "Furies"], ["Cyclops", "Argus"], Player.HERA, EndReason.PANDORA_OWN_HOSTAGE),
        # both hostages lost: the challenger still loses
        (["Pandora", "Io"], ["Cyclops", "Argus"], Player.HERA, EndReason.PANDORA_OWN_HOSTAGE),
        # no hostage in the column: nobody wins
        (["Pandora", "Furies"], ["Cyclops", "Giant"], None, None),
    ],
    ids=["opponents-hostage", "own-hostage", "both-hostages", "no-hostage"],
)
def test_pandora_hostages_decide_the_game(
    hera_column: list[str],
    zeus_column: list[str],
    winner: Player | None,
    reason: EndReason | None,
) -> None:
    st = pos(
        turn="zeus",
        hera_field=[["Nemesis"], hera_column, ["Harpy"]],
        zeus_field=[["Poseidon"], zeus_column, ["Giant"]],
    )
    out = run(st, Challenge(2))
    assert out.state.winner is winner
    assert out.state.reason is reason
    assert "D1" in out.rules


def test_pegasus_from_the_hand_against_pandora_loses_the_column_on_both_sides() -> None:
    st = pos(
        turn="zeus",
        hera_field=[["Nemesis"], ["Pandora", "Furies"], ["Harpy"]],
        zeus_field=[["Poseidon"], ["Cyclops", "Giant"], ["Giant"]],
        zeus_hand=["Pegasus", "Hades"],
    )
    out = run(st, PegasusField(2))
    assert field(out.state, "hera")[1] == []
    assert field(out.state, "zeus")[1] == []
    # HZ-P4: the Pegasus goes to its owner's pile first, the column's cards follow.
    assert discard(out.state, "zeus") == ["Pegasus", "Cyclops", "Giant"]
    assert discard(out.state, "hera") == ["Pandora", "Furies"]


def test_pegasus_against_pandora_with_the_opponents_hostage_behind_her_wins() -> None:
    st = pos(
        turn="zeus",
        hera_field=[["Nemesis"], ["Pandora", "Io"], ["Harpy"]],
        zeus_field=[["Poseidon"], ["Cyclops"], ["Giant"]],
        zeus_hand=["Pegasus"],
    )
    out = run(st, PegasusField(2))
    assert (out.state.winner, out.state.reason) == (Player.ZEUS, EndReason.PANDORA_HOSTAGE)


def test_the_figure_shields_its_side_of_a_pandora_column() -> None:
    # Zeus's figure stands in column 2; his Pegasus targets Hera's Pandora opposite it (D5).
    st = pos(
        turn="zeus",
        hera_field=[["Nemesis"], ["Pandora", "Furies"], ["Harpy"]],
        zeus_field=[["Poseidon"], ["@", "Cyclops", "Argus"], ["Giant"]],
        zeus_hand=["Pegasus"],
    )
    out = run(st, PegasusField(2))
    assert field(out.state, "zeus")[1] == ["@", "Cyclops", "Argus"]
    assert field(out.state, "hera")[1] == []
    assert discard(out.state, "zeus") == ["Pegasus"]
    assert out.state.winner is None  # Argus was shielded, not lost


def test_pandora_scope_owner_spares_the_challengers_column() -> None:
    st = pos(
        turn="zeus",
        switches={"pandora_scope": "owner"},
        hera_field=[["Nemesis"], ["Pandora", "Furies"], ["Harpy"]],
        zeus_field=[["Poseidon"], ["Cyclops", "Argus"], ["Giant"]],
    )
    out = run(st, Challenge(2))
    assert field(out.state, "hera")[1] == []
    # the challenging card stays, face up; Argus behind it is untouched
    assert field(out.state, "zeus")[1] == ["^Cyclops", "Argus"]
    assert discard(out.state, "zeus") == []
    assert out.state.winner is None


def test_pandora_scope_owner_still_wins_on_the_opponents_hostage() -> None:
    st = pos(
        turn="zeus",
        switches={"pandora_scope": "owner"},
        hera_field=[["Nemesis"], ["Pandora", "Io"], ["Harpy"]],
        zeus_field=[["Poseidon"], ["Cyclops", "Argus"], ["Giant"]],
    )
    out = run(st, Challenge(2))
    assert (out.state.winner, out.state.reason) == (Player.ZEUS, EndReason.PANDORA_HOSTAGE)


def test_pandora_scope_owner_with_pegasus_discards_only_the_pegasus() -> None:
    st = pos(
        turn="zeus",
        switches={"pandora_scope": "owner"},
        hera_field=[["Nemesis"], ["Pandora", "Furies"], ["Harpy"]],
        zeus_field=[["Poseidon"], ["Cyclops", "Giant"], ["Giant"]],
        zeus_hand=["Pegasus"],
    )
    out = run(st, PegasusField(2))
    assert field(out.state, "zeus")[1] == ["Cyclops", "Giant"]
    assert discard(out.state, "zeus") == ["Pegasus"]
    assert discard(out.state, "hera") == ["Pandora", "Furies"]
