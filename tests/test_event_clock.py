"""The round clock (TOURNAMENT.md T6, T7): one clock a round, each table's deadline moved by the
judge's extensions, the phases a table goes through, and the round's own clock.

The worked round: it starts at 14:00 UTC and lasts 50 minutes (T6's default for a best of
one); table 2 got 5 minutes for a long ruling and 3 for a lost card found (T7).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.event.clock import (
    DEFAULT_MINUTES,
    Extension,
    Phase,
    RoundClock,
    TableState,
    extra_turns_left,
    remaining_text,
    round_clock,
    turns_ended,
)

START = datetime(2026, 11, 28, 14, 0, tzinfo=UTC)
RULING = Extension(5, "a ruling on a card's timing took time")
LOST_CARD = Extension(3, "a lost card was found")
TABLES = (TableState(1), TableState(2, (RULING, LOST_CARD)), TableState(3))


def at(minutes: float) -> datetime:
    return START + timedelta(minutes=minutes)


def clock(now: datetime, tables: tuple[TableState, ...] = TABLES) -> RoundClock:
    return round_clock(START, DEFAULT_MINUTES, tables, now)


def table(c: RoundClock, number: int) -> tuple[datetime | None, int, Phase]:
    (t,) = [t for t in c.tables if t.number == number]
    return t.deadline, t.seconds_left, t.phase


# -- T6: one clock a round ----------------------------------------------------------------------


def test_the_default_round_is_fifty_minutes_for_a_best_of_one() -> None:
    assert DEFAULT_MINUTES == 50


def test_a_table_without_extensions_ends_with_the_round() -> None:
    assert table(clock(at(10)), 1) == (at(50), 40 * 60, Phase.RUNNING)


def test_every_table_counts_down_from_the_same_start() -> None:
    c = clock(at(12.5))
    assert c.base_deadline == at(50)
    assert c.base_seconds_left == 37 * 60 + 30
    assert table(c, 3)[1] == table(c, 1)[1] == 37 * 60 + 30


def test_at_time_the_table_is_in_the_time_phase_the_extra_turns() -> None:
    # T6: the player whose turn it is finishes it, then each takes two more turns.
    assert table(clock(at(50)), 1) == (at(50), 0, Phase.TIME)


def test_past_time_the_seconds_left_are_negative() -> None:
    assert table(clock(at(50.75)), 1) == (at(50), -45, Phase.TIME)


def test_a_fraction_of_a_second_left_still_shows_a_second() -> None:
    assert table(clock(at(50) - timedelta(milliseconds=400)), 1)[1:] == (1, Phase.RUNNING)


def test_a_table_whose_result_is_in_is_finished_whatever_the_time() -> None:
    done = (TableState(1, finished=True), TableState(2))
    assert table(clock(at(20), done), 1)[2] is Phase.FINISHED
    assert table(clock(at(70), done), 1)[2] is Phase.FINISHED


def test_before_the_start_instant_no_table_has_started() -> None:
    c = clock(at(-2))
    assert c.phase is Phase.NOT_STARTED
    assert {t.phase for t in c.tables} == {Phase.NOT_STARTED}
    assert table(c, 1)[1] == 52 * 60  # the wait and the round


def test_a_round_not_yet_started_shows_its_whole_time_and_no_deadline() -> None:
    c = round_clock(None, 50, TABLES, at(0))
    assert (c.base_deadline, c.deadline, c.phase) == (None, None, Phase.NOT_STARTED)
    assert c.base_seconds_left == 50 * 60
    assert c.seconds_left == 58 * 60  # table 2 already has 8 minutes more
    assert table(c, 2) == (None, 58 * 60, Phase.NOT_STARTED)


# -- T7: extensions -----------------------------------------------------------------------------


def test_a_table_s_extensions_add_up_to_its_deadline() -> None:
    c = clock(at(10))
    assert table(c, 2) == (at(58), 48 * 60, Phase.RUNNING)
    (t2,) = [t for t in c.tables if t.number == 2]
    assert t2.extra_minutes == 8


def test_an_extended_table_still_plays_when_the_others_are_at_time() -> None:
    c = clock(at(55))
    assert table(c, 1)[2] is Phase.TIME
    assert table(c, 2) == (at(58), 3 * 60, Phase.RUNNING)


def test_an_extension_changes_only_its_own_table() -> None:
    assert table(clock(at(10)), 3) == table(clock(at(10), (TableState(3),)), 3)


# -- the round's own clock ----------------------------------------------------------------------


def test_the_round_runs_to_the_latest_deadline_of_the_tables_still_playing() -> None:
    c = clock(at(55))
    assert (c.deadline, c.seconds_left, c.phase) == (at(58), 3 * 60, Phase.RUNNING)


def test_a_finished_extended_table_no_longer_holds_the_round() -> None:
    tables = (TableState(1), TableState(2, (RULING,), finished=True))
    c = clock(at(40), tables)
    assert (c.deadline, c.seconds_left) == (at(50), 10 * 60)


def test_the_round_is_at_time_when_every_table_still_playing_is() -> None:
    assert clock(at(59)).phase is Phase.TIME


def test_the_round_is_finished_when_every_result_is_in() -> None:
    tables = tuple(TableState(n, finished=True) for n in (1, 2))
    c = clock(at(30), tables)
    assert (c.phase, c.deadline) == (Phase.FINISHED, at(50))


def test_tables_come_out_in_table_order() -> None:
    c = clock(at(1), (TableState(3), TableState(1), TableState(2)))
    assert [t.number for t in c.tables] == [1, 2, 3]


# -- input checks -------------------------------------------------------------------------------


@pytest.mark.parametrize("minutes", [9, 181, 0, -50, True])
def test_a_round_lasts_ten_to_one_hundred_eighty_minutes(minutes: int) -> None:
    with pytest.raises(ValueError, match=r"round of .* minutes: must be 10 to 180 .*\(T6\)"):
        round_clock(START, minutes, TABLES, at(1))


@pytest.mark.parametrize("minutes", [10, 180])
def test_the_round_s_limits_are_allowed(minutes: int) -> None:
    assert round_clock(START, minutes, TABLES, at(1)).base_deadline == at(minutes)


@pytest.mark.parametrize("minutes", [0, 61, -5, False])
def test_an_extension_is_one_to_sixty_minutes(minutes: int) -> None:
    bad = (TableState(1, (Extension(minutes, "a ruling"),)),)
    with pytest.raises(ValueError, match=r"extension of .* must be 1 to 60 .*\(T7\)"):
        clock(at(1), bad)


@pytest.mark.parametrize("reason", ["", "   "])
def test_an_extension_needs_its_reason(reason: str) -> None:
    bad = (TableState(1, (Extension(5, reason),)),)
    with pytest.raises(ValueError, match=r"needs its reason \(T7\)"):
        clock(at(1), bad)


@pytest.mark.parametrize("numbers", [(1, 1), (0,), (-2, 3)])
def test_tables_are_numbered_from_one_each_once(numbers: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="table numbers must be 1 or more"):
        clock(at(1), tuple(TableState(n) for n in numbers))


def test_instants_must_be_utc() -> None:
    naive = datetime(2026, 11, 28, 14, 0)
    paris = datetime(2026, 11, 28, 15, 0, tzinfo=timezone(timedelta(hours=1)))
    with pytest.raises(ValueError, match=r"now .* must be a timezone-aware UTC instant"):
        clock(naive)
    with pytest.raises(ValueError, match=r"start .* must be a timezone-aware UTC instant"):
        round_clock(paris, 50, TABLES, at(1))


# -- the text on the pages ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(754, "12:34"), (5, "0:05"), (0, "0:00"), (-45, "-0:45"), (-600, "-10:00"), (7500, "125:00")],
)
def test_time_left_reads_as_minutes_and_seconds(seconds: int, text: str) -> None:
    assert remaining_text(seconds) == text


@given(st.integers(-10_000, 20_000))
def test_the_text_gives_back_the_seconds(seconds: int) -> None:
    text = remaining_text(seconds)
    m, s = text.lstrip("-").split(":")
    assert (-1 if text.startswith("-") else 1) * (int(m) * 60 + int(s)) == seconds
    assert len(s) == 2


@given(
    st.lists(st.integers(1, 60), max_size=4),
    st.integers(10, 180),
    st.integers(-30 * 60, 300 * 60),
)
def test_a_table_s_time_left_is_the_round_s_plus_its_extensions(
    extensions: list[int], minutes: int, elapsed: int
) -> None:
    t = TableState(1, tuple(Extension(m, "a ruling") for m in extensions))
    c = round_clock(START, minutes, (t,), START + timedelta(seconds=elapsed))
    (tc,) = c.tables
    assert tc.seconds_left == c.base_seconds_left + 60 * sum(extensions)
    assert tc.seconds_left == minutes * 60 + 60 * sum(extensions) - elapsed
    assert (tc.phase is Phase.TIME) == (elapsed >= 0 and tc.seconds_left <= 0)


@given(
    st.lists(
        st.tuples(st.lists(st.integers(1, 60), max_size=3), st.booleans()), min_size=1, max_size=6
    ),
    st.integers(-10 * 60, 200 * 60),
)
def test_the_round_s_clock_is_its_longest_table_still_playing(
    tables: list[tuple[list[int], bool]], elapsed: int
) -> None:
    states = tuple(
        TableState(n, tuple(Extension(m, "a ruling") for m in ext), done)
        for n, (ext, done) in enumerate(tables, start=1)
    )
    c = clock(START + timedelta(seconds=elapsed), states)
    playing = [t.seconds_left for t in c.tables if t.phase is not Phase.FINISHED]
    assert c.seconds_left == max(playing, default=c.base_seconds_left)
    assert c.seconds_left >= c.base_seconds_left or not playing
    assert (c.phase is Phase.FINISHED) == (not playing)


def _turns(start: datetime, players: str) -> list[tuple[datetime, str]]:
    """One record a minute from ``start``, each leaving the turn to the seat its letter names."""
    return [
        (start + timedelta(minutes=i), {"a": "first", "b": "second"}[p])
        for i, p in enumerate(players)
    ]


def test_at_time_the_turn_being_played_ends_then_two_turns_each_before_the_draw() -> None:
    """T6: five turns end after the deadline (the one at time, then two each), counted as
    the turn passes from one seat to the other."""
    deadline = START + timedelta(minutes=50)
    # several records per turn (a turn of several actions); time is called during b's turn
    turns = _turns(START + timedelta(minutes=45), "aabbbb" + "aab" + "bba" + "ba")
    at_time, ended = turns_ended(turns, deadline)
    assert at_time == "second" and ended == 5
    assert extra_turns_left(ended) == 0
    assert [extra_turns_left(n) for n in range(7)] == [5, 4, 3, 2, 1, 0, 0]


def test_records_before_the_deadline_never_count_as_extra_turns() -> None:
    deadline = START + timedelta(minutes=50)
    at_time, ended = turns_ended(_turns(START, "abababab"), deadline)
    assert (at_time, ended) == ("second", 0)


def test_a_game_whose_first_record_after_time_counts_from_that_turn() -> None:
    deadline = START
    at_time, ended = turns_ended(_turns(START + timedelta(minutes=1), "aab"), deadline)
    assert (at_time, ended) == ("first", 1)
