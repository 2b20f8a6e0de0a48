"""Minotaur Lords self-play (issue 15, item 6): random legal actions and random text effects
over many seeds, with the invariants checked after every action."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from engine.minotaur.cards import COLUMNS, MAX_DEITIES, PLAYERS, parse_deck_list
from engine.minotaur.rules import all_cards, holds_both_regions, supremacy_check, totals
from engine.minotaur.simulate import play_random, random_start
from engine.minotaur.state import EndReason, Phase, Stage, State

CARDS = parse_deck_list(
    (Path(__file__).resolve().parent / "data" / "minotaur" / "decks.csv").read_text()
)
GAMES = 120
MATCHES = 20


def _invariants(st: State, start: Counter[str | None]) -> None:
    assert Counter(all_cards(st)) == start  # card conservation: hand, deck, pile, board, bonus
    for p, s in zip(PLAYERS, st.sides, strict=True):
        assert len(s.deities) <= MAX_DEITIES, p
    assert not (st.sides[0].deities and st.sides[1].deities)  # M9: one side's deities only
    t = st.turn
    if st.stage is Stage.PLAY and t.phase in (Phase.ONE, Phase.TWO):
        assert t.used <= 1  # M3
    if st.match.advanced and st.stage is Stage.PLAY:
        assert [len(o) for o in st.owned] == [30, 30]  # M17: a deck change keeps 30 cards
    for i, s in enumerate(st.sides):
        for _, x in s.in_play():
            assert x.curses >= 0
        assert all(c is not None for c in s.hand), i


def _markers_follow_the_check(st: State) -> None:
    for col in COLUMNS:
        m, v = totals(st, col)
        assert st.marker(col) == ("miron" if m > v else "vess" if v > m else None), col


def _play(seed: int, advanced: bool) -> tuple[State, int]:
    rng = random.Random(seed)
    st = random_start(rng, CARDS, advanced=advanced)
    start = Counter(all_cards(st))
    n = 0
    for step in play_random(rng, st):
        was = st
        st = step.outcome.state
        n += 1
        _invariants(st, start)
        if any(e["event"] == "supremacy_checked" for e in step.outcome.events):
            _markers_follow_the_check(st)  # markers only where a side leads (M11)
        if was.stage is Stage.PLAY and st.stage is not Stage.PLAY and st.reason:
            winner = st.winner or st.match.last_winner
            assert winner is not None
            if st.reason is EndReason.SUPREMACY:
                assert holds_both_regions(st, winner)  # M2
            else:
                assert not st.sides[PLAYERS.index("vess" if winner == "miron" else "miron")].deck
    return st, n


@pytest.mark.parametrize("chunk", range(4))
def test_random_games_keep_every_invariant(chunk: int) -> None:
    ended = 0
    for seed in range(chunk * GAMES // 4, (chunk + 1) * GAMES // 4):
        st, n = _play(seed, advanced=False)
        assert n > 0
        ended += st.stage is Stage.OVER
    assert ended >= GAMES // 4 * 0.9  # nearly every game ends within the action cap


def test_random_matches_of_three_games_keep_every_invariant() -> None:
    wins: Counter[str | None] = Counter()
    for seed in range(1000, 1000 + MATCHES):
        st, _ = _play(seed, advanced=True)
        if st.stage is Stage.OVER:
            assert st.match.wins_of(st.winner or "") == 2  # M17: two games won
            wins[st.winner] += 1
    assert sum(wins.values()) >= MATCHES * 0.8


def test_a_check_on_an_empty_board_sets_no_marker() -> None:
    st = random_start(random.Random(1), CARDS)
    assert all(c.after is None and c.totals == (0, 0) for c in supremacy_check(st))
