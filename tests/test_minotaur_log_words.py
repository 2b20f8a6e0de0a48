"""Minotaur Lords' log words in four languages (issue 36): an action's verb phrase and each
recorded event are ``Say`` sentences whose English is the judge's read-out (``describe``) and
whose other languages come from the catalogues, with no value left unfilled."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.minotaur.cards import parse_deck_list
from engine.minotaur.notation import action_words, describe
from engine.minotaur.simulate import Step, play_random, random_start
from engine.say import Say
from referee.language import say
from referee.minotaur.game import WINNER_SAID, event_words

SEEDS = range(12)


DECKS = Path(__file__).resolve().parent / "data" / "minotaur" / "decks.csv"


def _steps(seed: int) -> Iterator[Step]:
    rng = random.Random(seed)
    st = random_start(rng, parse_deck_list(DECKS.read_text()), advanced=seed % 3 == 0)
    yield from play_random(rng, st, max_actions=150)


@pytest.mark.parametrize("seed", SEEDS)
def test_an_actions_words_are_the_judges_read_out_without_the_actor(seed: int) -> None:
    for step in _steps(seed):
        words = action_words(step.action)
        assert isinstance(words, Say)
        assert words == describe(step.action, "@").removeprefix("@ ")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lang", ["it", "fr", "de"])
def test_every_log_sentence_is_said_in_each_language(seed: int, lang: str) -> None:
    for step in _steps(seed):
        said: list[str] = [action_words(step.action)]
        said += [w for e in step.outcome.events if (w := event_words(dict(e))) is not None]
        for s in said:
            assert isinstance(s, Say), s
            text = say(s, lang)
            assert "%(" not in text, (s, text)
            assert text != str(s) or not any(c.isalpha() for c in s.template), (lang, s)


def test_how_a_game_ended_is_said_in_italian() -> None:
    for s in WINNER_SAID.values():
        assert say(s, "it") != s
