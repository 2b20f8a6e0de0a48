"""An event's state, folded from its own signed log (TOURNAMENT.md T1-T14; docs/events.md).

Pure: no clock, no store, no referee. :func:`step` applies one record (its kind, who wrote it,
its body and time) to the state or raises :class:`~referee.errors.Refused` naming the rule; the
service checks every new record with the same :func:`step` before it writes it (nothing is
half-written on a refusal), and a log is folded with it again when it is read or verified, so
the log and the state can never disagree.

A ``pair`` record must hold exactly the pairing the pairing function computes from the state
before it (the players active in the round, their standings, who met whom, byes and sides)
and the event's seed (T4, T12): a pairing edited in the log does not fold. A ``swap`` (two
players exchanged before the round starts, with a reason) is the only hand-made change.

The state is a tree of frozen dataclasses (:class:`EventState`); :func:`step` builds the next
one from a mutable working copy (:class:`Work`), which the fold keeps between records.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal, TypeVar

from engine.say import N_, Say
from referee.errors import Refused
from referee.event import pairing as pairing_mod
from referee.event import standings as st
from referee.event import swiss
from referee.store import parse_utc

_T = TypeVar("_T")

FORMATS = ("bo1", "bo3")  # T1
TOP_CUTS = (0, 4, 8)  # T10
# T11; codes in the log, said in the reader's language where shown (N_)
INFRACTIONS = (
    N_("procedural error"),
    N_("tardiness"),
    N_("looking at extra cards"),
    N_("drawing extra cards"),
    N_("marked cards"),
    N_("communication"),
    N_("unsporting conduct"),
)
PENALTIES = (N_("warning"), N_("game loss"), N_("match loss"), N_("disqualification"))  # T11
SOURCES = ("referee", "slip", "time", "penalty")  # T6, T8, T11
WRITERS = ("organiser", "judge", "system")  # and a player id, for his own records
DEFAULT_ROUND_MINUTES = 50  # T6
MAX_ROUND_MINUTES = 180  # as the round clock (referee/event/clock, branch evprint)
MAX_EXTENSION = 60  # T7
MAX_PLAYERS = 512
EVENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")  # game-id shaped, short enough for its games'
PLAYER_ID = re.compile(r"^p[1-9][0-9]{0,3}$")

Phase = Literal["registration", "paired", "playing", "finished"]

# Project ruling (docs/events.md): the usual number of Swiss rounds for the number of players,
# after the table Magic events use; 2 players play 1 round, 3-4 players 2.
ROUNDS_TABLE: tuple[tuple[int, int], ...] = (
    (2, 1),
    (4, 2),
    (8, 3),
    (16, 4),
    (32, 5),
    (64, 6),
    (128, 7),
    (226, 8),
    (409, 9),
)


def usual_rounds(players: int) -> int:
    """The usual number of Swiss rounds for ``players`` (project ruling, docs/events.md)."""
    for most, rounds in ROUNDS_TABLE:
        if players <= most:
            return rounds
    return 10


# ---- the state ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """What the ``event`` record fixed (T1, T4, T6, T10). ``rounds`` is None until round 1 is
    paired when it was not given (then the usual count, :func:`usual_rounds`).
    ``match_in_game``: the game's own rules play the whole match in one game (its module says
    so for the options, e.g. a best of three kept by the game itself): then a match is one game
    of the referee. ``strict``: the organiser's strict play, its games without the guardian
    (``"strict": true`` in the ``event`` record; absent: casual)."""

    event: str
    name: str
    game: str
    options: Mapping[str, Any]
    format: str
    rounds: int | None
    round_minutes: int
    top_cut: int
    seed: str
    self_register: bool
    match_in_game: bool = False
    strict: bool = False  # strict play: the event's games have no guardian (issue 37)
    hands_public: bool = False  # the reviews of its games show both hands after the end

    @property
    def games_per_match(self) -> int:
        """Most games of the referee a match can take (T1)."""
        return 3 if self.format == "bo3" and not self.match_in_game else 1


@dataclass(frozen=True)
class Penalty:
    """One penalty (T11): seen by the judge, the organiser and the penalised player only (T13)."""

    player: str
    infraction: str
    penalty: str
    reason: str
    judge: str
    round: int
    time: str


@dataclass(frozen=True)
class Player:
    """A registered player (T9). ``entered_round`` > 1: a late entry; ``dropped_after_round``:
    the last round he is in (None while he plays on)."""

    id: str
    name: str
    by: str
    checked_in: bool
    entered_round: int
    dropped_after_round: int | None
    drop_reason: str | None
    penalties: tuple[Penalty, ...]


@dataclass(frozen=True)
class Result:
    """One game's result (T8). ``winner``: a player id, or None for a draw. ``final``: counts
    for the standings (a referee-reported result once both players confirmed or the judge
    settled it; any other source at once; never while disputed)."""

    number: int
    winner: str | None
    reason: str
    source: str
    by: str
    head: str | None
    confirmed: tuple[str, ...]
    disputed: tuple[str, ...]  # notes of open disputes
    corrected: tuple[str, ...]  # "who: why" of each correction (T8)
    final: bool
    ends_match: bool
    time: str


@dataclass(frozen=True)
class Extension:
    minutes: int
    reason: str
    by: str


@dataclass(frozen=True)
class Table:
    """One match of a round. ``games``: the referee's game ids, in order (a best of three adds
    one when the previous game's result is in, T1); ``firsts``: the player in the first seat
    of each game (sides swap after each game of a best of three)."""

    table: int
    first: str
    second: str
    games: tuple[str, ...]
    firsts: tuple[str, ...]
    results: tuple[Result, ...]
    extensions: tuple[Extension, ...]
    deadline: str | None  # ISO UTC: start + round time + extensions (T6, T7)
    match: st.Match | None  # the final match result, once every game of it is final
    side_chosen: bool = False  # a top cut's table: its higher seed chose his side (T10)

    @property
    def players(self) -> tuple[str, str]:
        return (self.first, self.second)

    @property
    def current_game(self) -> str | None:
        """The game being played: the last one made, while it has no result."""
        if self.games and len(self.results) < len(self.games):
            return self.games[-1]
        return None


@dataclass(frozen=True)
class Round:
    number: int
    tables: tuple[Table, ...]
    bye: str | None
    started_at: str | None
    pair_reasons: tuple[str, ...]  # reasons of re-pairs and swaps, the sides chosen (T10)
    cut: bool = False  # a round of the top cut (T10): single elimination, not in the standings

    @property
    def finished(self) -> bool:
        return self.started_at is not None and all(t.match is not None for t in self.tables)


@dataclass(frozen=True)
class Cut:
    """The top cut's first round (T10), paired from the standings after the last Swiss round."""

    size: int
    pairings: tuple[st.CutPairing, ...]


@dataclass(frozen=True)
class EventState:
    """Everything the event's log says. The public and player views are cut from it
    (:mod:`referee.event.views`); this one is the judge's and the organiser's."""

    settings: Settings
    players: tuple[Player, ...]
    rounds: tuple[Round, ...]
    phase: Phase
    standings: tuple[st.Standing, ...]
    sides: Mapping[str, tuple[int, int]]  # player -> (games as the first seat, as the second)
    cut: Cut | None
    head: tuple[int, str] | None = None

    @property
    def event(self) -> str:
        return self.settings.event

    @property
    def round(self) -> Round | None:
        """The latest paired round (None before round 1 is paired)."""
        return self.rounds[-1] if self.rounds else None

    @property
    def over(self) -> bool:
        """Every Swiss round is played and final (a top cut may follow, T10)."""
        n = self.settings.rounds
        return n is not None and any(r.number == n and r.finished for r in self.rounds)

    @property
    def champion(self) -> str | None:
        """The winner of the top cut's final (T10), once it is final; else None."""
        r = self.round
        if r is None or not r.cut or len(r.tables) != 1 or not r.finished:
            return None
        return _match_winner(r.tables[0].match)

    def player(self, pid: str) -> Player:
        for p in self.players:
            if p.id == pid:
                return p
        raise Refused(
            Say(
                "player: no player %(pid)s in event %(event)s",
                pid=repr(pid[:20]),
                event=repr(self.event),
            ),
            "T9",
        )

    def waiting(self) -> tuple[tuple[Table, Result], ...]:
        """The latest round's results that do not count yet (T8), for the organiser's console:
        a referee-reported one waiting for a confirmation, or a disputed one waiting for the
        judge (``result.disputed`` holds the notes)."""
        r = self.round
        if r is None:
            return ()
        return tuple((t, x) for t in r.tables for x in t.results if not x.final)

    def table_of(self, pid: str, round_number: int | None = None) -> Table | None:
        """The table of ``pid`` in the round (default: the latest), or None (bye, not paired)."""
        rounds = [r for r in self.rounds if round_number is None or r.number == round_number]
        if not rounds:
            return None
        for t in rounds[-1].tables:
            if pid in t.players:
                return t
        return None


# ---- the working copy ----------------------------------------------------------------------


@dataclass
class WResult:
    number: int
    winner: str | None
    reason: str
    source: str
    by: str
    head: str | None
    time: str
    ends_match: bool = False
    confirmed: list[str] = field(default_factory=list)
    disputed: list[str] = field(default_factory=list)
    corrected: list[str] = field(default_factory=list)
    settled: bool = False


@dataclass
class WTable:
    table: int
    first: str
    second: str
    games: list[str] = field(default_factory=list)
    firsts: list[str] = field(default_factory=list)
    results: list[WResult] = field(default_factory=list)
    extensions: list[Extension] = field(default_factory=list)
    side_chosen: bool = False  # T10: the higher seed of a top cut's table chose his side

    @property
    def players_(self) -> tuple[str, str]:
        return (self.first, self.second)


@dataclass
class WRound:
    number: int
    tables: list[WTable]
    bye: str | None
    started_at: str | None = None
    reasons: list[str] = field(default_factory=list)
    cut: bool = False


@dataclass
class WPlayer:
    id: str
    name: str
    by: str
    entered_round: int
    checked_in: bool = False
    dropped_after_round: int | None = None
    drop_reason: str | None = None
    penalties: list[Penalty] = field(default_factory=list)


@dataclass
class Work:
    """The mutable state the fold keeps between records (:func:`step` works on a copy)."""

    settings: Settings | None = None
    players: dict[str, WPlayer] = field(default_factory=dict)
    rounds: list[WRound] = field(default_factory=list)
    cut: Cut | None = None
    seq: int = -1
    hash: str = ""
    # recompute each pairing and refuse one that differs (T12): an export's check always does;
    # the service does not when it reads its own signed log (it paired it, with this check,
    # when it wrote it), so a cold read does not pair every round again
    check_pairings: bool = True

    def copy(self) -> Work:
        """A copy :func:`step` may change without touching this one: every mutable record
        (players, rounds, tables, results and their lists) copied, the frozen values
        (settings, penalties, extensions, the cut) shared, as nothing ever changes them. A deep
        copy took most of a write's time in a large event."""
        out = copy.copy(self)
        out.players = {k: _copied(p, "penalties") for k, p in self.players.items()}
        out.rounds = [_round_copy(r) for r in self.rounds]
        return out


# ---- results and matches -------------------------------------------------------------------


def result_final(r: WResult) -> bool:
    """T8: a referee-reported result is final once both players confirmed it or the judge
    settled it; the slip's, the time's and a penalty's at once; a disputed one waits."""
    if r.disputed:
        return False
    if r.settled or r.source != "referee":
        return True
    return len(set(r.confirmed)) >= 2


def match_of(s: Settings, t: WTable) -> st.Match | None:
    """The match result once it is decided and every game of it is final (T1, T6)."""
    if not t.results or any(not result_final(r) for r in t.results):
        return None
    wins = {t.first: 0, t.second: 0}
    draws = 0
    for r in t.results:
        if r.winner is None:
            draws += 1
        else:
            wins[r.winner] += 1
    need = 2 if s.format == "bo3" and not s.match_in_game else 1
    done = (
        t.results[-1].ends_match
        or max(wins.values()) >= need
        or len(t.results) >= s.games_per_match
    )
    if not done:
        return None
    if s.match_in_game and s.format == "bo3":
        # the game itself played the match: its winner takes it two games to none (project
        # ruling, docs/events.md: the game counts are the game's own, not read here)
        wins = {p: (2 if w else 0) for p, w in wins.items()}
    return st.Match(t.first, t.second, wins[t.first], wins[t.second], draws)


def match_over(s: Settings, t: WTable) -> bool:
    """Whether the match needs no more game (its results may still wait to be final)."""
    if not t.results:
        return False
    wins = [sum(1 for r in t.results if r.winner == p) for p in (t.first, t.second)]
    need = 2 if s.format == "bo3" and not s.match_in_game else 1
    return t.results[-1].ends_match or max(wins) >= need or len(t.results) >= s.games_per_match


# ---- standings and pairing input -----------------------------------------------------------


def _match_winner(m: st.Match | None) -> str | None:
    if m is None or m.first_wins == m.second_wins:
        return None
    return m.first if m.first_wins > m.second_wins else m.second


def final_rounds(w: Work) -> list[WRound]:
    """The Swiss rounds played to the end, every match final (what the standings count)."""
    out = []
    for r in w.rounds:
        if r.cut or r.started_at is None:
            break
        s = w.settings
        assert s is not None
        if not all(match_of(s, t) is not None for t in r.tables):
            break
        out.append(r)
    return out


def standings_input(w: Work) -> tuple[list[st.Entrant], list[list[st.Pairing]]]:
    """What the standings are computed from (T3, T9): the players present in the final rounds
    or entering the next one (a drop after a round not final yet counts from the last final
    one), and the final rounds' matches and byes."""
    s = w.settings
    assert s is not None
    done = final_rounds(w)
    n = len(done)
    entrants = [
        st.Entrant(
            p.id,
            p.entered_round,
            None if p.dropped_after_round is None else min(p.dropped_after_round, n),
        )
        for p in w.players.values()
        if p.entered_round <= n + 1
    ]
    rounds: list[list[st.Pairing]] = []
    for r in done:
        ms: list[st.Pairing] = []
        for t in r.tables:
            m = match_of(s, t)
            assert m is not None
            ms.append(m)
        if r.bye is not None:
            ms.append(st.Bye(r.bye))
        rounds.append(ms)
    return entrants, rounds


def standings_of(w: Work) -> tuple[st.Standing, ...]:
    """T3 standings after the final rounds (:func:`referee.event.standings.compute_standings`)."""
    s = w.settings
    if s is None or not w.players:
        return ()
    entrants, rounds = standings_input(w)
    return st.compute_standings(entrants, rounds, s.seed)


def side_counts(w: Work) -> dict[str, tuple[int, int]]:
    """T5: each player's games as the first seat and as the second, from the games made."""
    out = {p: (0, 0) for p in w.players}
    for r in w.rounds:
        for t in r.tables:
            for first in t.firsts:
                second = t.second if first == t.first else t.first
                a, b = out.get(first, (0, 0))
                out[first] = (a + 1, b)
                a, b = out.get(second, (0, 0))
                out[second] = (a, b + 1)
    return out


def active_in(w: Work, round_number: int) -> list[WPlayer]:
    return [
        p
        for p in w.players.values()
        if p.entered_round <= round_number
        and (p.dropped_after_round is None or p.dropped_after_round >= round_number)
    ]


def compute_pairing(w: Work, round_number: int) -> pairing_mod.Pairing:
    """The pairing of ``round_number`` from the state before it (T4, T5, T9): the standings'
    input (:func:`standings_input`) and the side counts, paired by
    :func:`referee.event.swiss.next_round`.
    Raises Refused when the round has fewer than two players."""
    s = w.settings
    assert s is not None
    entrants, rounds = standings_input(w)
    if len(rounds) != round_number - 1:
        raise Refused(
            Say(
                "round %(round_number)s: the rounds before it are not final (T8)",
                round_number=round_number,
            ),
            "T8",
        )
    try:
        known = {e.player for e in entrants}
        sides = {p: c for p, c in side_counts(w).items() if p in known}
        return swiss.next_round(entrants, rounds, sides, round_number, s.seed)
    except ValueError as e:
        raise Refused(
            Say(
                "round %(round_number)s: %(problem)s",
                round_number=round_number,
                problem=e.args[0] if e.args else str(e),
            ),
            "T4",
        ) from None


# ---- the step ------------------------------------------------------------------------------


def _need(body: Mapping[str, Any], key: str, typ: type | tuple[type, ...], rule: str) -> Any:
    v = body.get(key)
    if not isinstance(v, typ) or (isinstance(v, bool) and typ is int):
        raise Refused(
            Say("%(key)s: missing or of the wrong type (%(rule)s)", key=key, rule=rule), rule
        )
    return v


def _reason(body: Mapping[str, Any], rule: str, what: str) -> str:
    v = body.get("reason")
    if not isinstance(v, str) or not v.strip():
        raise Refused(Say("reason: %(what)s needs a reason (%(rule)s)", what=what, rule=rule), rule)
    if len(v) > 500:
        raise Refused(Say("reason: at most 500 characters"), rule)
    return v.strip()


def _staff(seat: str, kind: str, rule: str) -> None:
    if seat not in ("organiser", "judge"):
        raise Refused(
            Say(
                "%(kind)s: only the organiser or the judge may record this (%(rule)s)",
                kind=kind,
                rule=rule,
            ),
            rule,
        )


def _round(w: Work, number: Any) -> WRound:
    for r in w.rounds:
        if r.number == number:
            return r
    raise Refused(
        Say("round: no round %(number)s has been paired (T4)", number=str(number)[:10]), "T4"
    )


def _table(r: WRound, number: Any) -> WTable:
    for t in r.tables:
        if t.table == number:
            return t
    raise Refused(
        Say(
            "table: round %(number)s has no table %(table)s (T8)",
            number=r.number,
            table=str(number)[:10],
        ),
        "T8",
    )


def _player(w: Work, pid: Any, what: str = "player") -> WPlayer:
    if not isinstance(pid, str) or pid not in w.players:
        raise Refused(
            Say(
                "%(what)s: no player %(pid)s in this event (T9)", what=what, pid=repr(str(pid)[:20])
            ),
            "T9",
        )
    return w.players[pid]


def _latest(w: Work) -> WRound | None:
    return w.rounds[-1] if w.rounds else None


def _check_name(w: Work, raw: Any, skip: str | None = None) -> str:
    if not isinstance(raw, str) or not 1 <= len(raw.strip()) <= 40:
        raise Refused(Say("name: a player's name is 1-40 characters (T9)"), "T9")
    name: str = raw.strip()
    if any(ch in name for ch in "\n\r\t\x00") or not name.isprintable():
        raise Refused(Say("name: printable characters only, on one line (T9)"), "T9")
    for p in w.players.values():
        if p.id != skip and p.name.casefold() == name.casefold():
            raise Refused(
                Say(
                    "name: %(name)s is registered already as %(id)s (T9)", name=repr(name), id=p.id
                ),
                "T9",
            )
    return name


def step(w: Work, seat: str, kind: str, body: Mapping[str, Any], time: str) -> None:
    """Applies one record to ``w`` (in place), or raises Refused naming the rule; on a refusal
    ``w`` may be half-changed: callers step a copy (:meth:`Work.copy`)."""
    if kind == "event":
        if w.settings is not None:
            raise Refused(Say("event: the event record is the first record only (T12)"), "T12")
        _event(w, seat, body)
        return
    if w.settings is None:
        raise Refused(Say("the event's log starts with its event record (T12)"), "T12")
    handler = _HANDLERS.get(kind)
    if handler is None:
        raise Refused(
            Say("kind: %(kind)s is not a record of an event (T12)", kind=repr(kind[:20])), "T12"
        )
    handler(w, seat, body, time)


def _event(w: Work, seat: str, b: Mapping[str, Any]) -> None:
    if seat != "organiser":
        raise Refused(Say("event: the organiser creates an event"), "T12")
    ev = _need(b, "event", str, "T12")
    if not EVENT_ID.match(ev):
        raise Refused(Say("event: an event id is 1-40 letters, digits, '-' or '_'"), "T12")
    fmt = b.get("format")
    if fmt not in FORMATS:
        raise Refused(Say("format: %(fmt)s is not bo1 or bo3 (T1)", fmt=repr(str(fmt)[:10])), "T1")
    rounds = b.get("rounds")
    if rounds is not None and (type(rounds) is not int or not 1 <= rounds <= 20):
        raise Refused(Say("rounds: 1-20 Swiss rounds, or none for the usual count (T4)"), "T4")
    minutes = b.get("round_minutes")
    if type(minutes) is not int or not 10 <= minutes <= MAX_ROUND_MINUTES:
        raise Refused(Say("round_minutes: 10-%(most)s minutes (T6)", most=MAX_ROUND_MINUTES), "T6")
    cut = b.get("top_cut")
    if cut not in TOP_CUTS or type(cut) is not int:
        raise Refused(Say("top_cut: 0 (none), 4 or 8 (T10)"), "T10")
    seed = _need(b, "seed", str, "T4")
    if not re.fullmatch(r"[0-9a-f]{8,64}", seed):
        raise Refused(Say("seed: 8-64 hex digits (T4)"), "T4")
    name = _need(b, "name", str, "T12")
    if not 1 <= len(name.strip()) <= 80:
        raise Refused(Say("name: an event's name is 1-80 characters"), "T12")
    options = b.get("options")
    if not isinstance(options, Mapping):
        raise Refused(Say("options: the game's options are an object"), "T12")
    w.settings = Settings(
        event=ev,
        name=name.strip(),
        game=_need(b, "game", str, "T12"),
        options=dict(options),
        format=fmt,
        rounds=rounds,
        round_minutes=minutes,
        top_cut=cut,
        seed=seed,
        self_register=bool(b.get("self_register", False)),
        match_in_game=bool(b.get("match_in_game", False)),
        strict=b.get("strict", False) is True,
        hands_public=b.get("hands_public", False) is True,
    )


def _register(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    s = w.settings
    assert s is not None
    pid = _need(b, "player", str, "T9")
    if pid != f"p{len(w.players) + 1}":
        raise Refused(
            Say(
                "player: the next player is p%(next)s, not %(pid)s",
                next=len(w.players) + 1,
                pid=repr(pid[:10]),
            ),
            "T9",
        )
    by = b.get("by")
    if by == "self":
        if not s.self_register:
            raise Refused(
                Say("register: this event takes registrations by the organiser only"), "T9"
            )
        if seat != pid:
            raise Refused(Say("register: a player registering himself writes as himself"), "T9")
    elif by != "organiser" or seat not in ("organiser", "judge"):
        raise Refused(Say("by: organiser or self (T9)"), "T9")
    if len(w.players) >= MAX_PLAYERS:
        raise Refused(
            Say("register: an event holds at most %(most)s players", most=MAX_PLAYERS), "T9"
        )
    if w.cut is not None or (_latest(w) is not None and s.rounds is not None and _over(w)):
        raise Refused(Say("register: the Swiss rounds are over (T9)"), "T9")
    name = _check_name(w, b.get("name"))
    entered = next_round_in(w)
    if b.get("entered_round") != entered:
        raise Refused(
            Say(
                "entered_round: a player registered now enters round %(entered)s (T9)",
                entered=entered,
            ),
            "T9",
        )
    w.players[pid] = WPlayer(pid, name, str(by), entered)


def next_round_in(w: Work) -> int:
    """The first round a player registered now plays (T9): the latest round when it has not
    started (it must then be re-paired before it starts), else the one after it. A player
    dropping now is in no round from it on."""
    latest = _latest(w)
    if latest is None:
        return 1
    return latest.number if latest.started_at is None else latest.number + 1


def _over(w: Work) -> bool:
    s = w.settings
    r = _latest(w)
    return (
        s is not None
        and r is not None
        and s.rounds is not None
        and r.number >= s.rounds
        and len(final_rounds(w)) >= s.rounds
    )


def _checkin(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    p = _player(w, b.get("player"))
    if seat not in ("organiser", "judge", p.id):
        raise Refused(Say("checkin: a player checks in himself, or the organiser does (T9)"), "T9")
    if p.dropped_after_round is not None:
        raise Refused(Say("checkin: %(id)s has dropped (T9)", id=p.id), "T9")
    if p.checked_in:
        raise Refused(Say("checkin: %(id)s is checked in already (T9)", id=p.id), "T9")
    p.checked_in = True


def _drop(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    p = _player(w, b.get("player"))
    if seat not in ("organiser", "judge", "system", p.id):
        raise Refused(
            Say("drop: a player drops himself, or the organiser or judge drops him"), "T9"
        )
    if p.dropped_after_round is not None:
        raise Refused(Say("drop: %(id)s has dropped already (T9)", id=p.id), "T9")
    after = max(next_round_in(w) - 1, p.entered_round - 1)
    if b.get("after_round") != after:
        raise Refused(
            Say(
                "after_round: a player dropping now is in no round after %(after)s (T9)",
                after=after,
            )
        )
    why = b.get("reason")
    p.dropped_after_round = after
    p.drop_reason = why if isinstance(why, str) and why.strip() else None


def _copied(x: _T, *lists: str) -> _T:
    """A shallow copy of the dataclass ``x`` with its fields ``lists`` copied too."""
    out = copy.copy(x)
    for name in lists:
        setattr(out, name, list(getattr(x, name)))
    return out


def _round_copy(r: WRound) -> WRound:
    out = _copied(r, "reasons")
    out.tables = [_table_copy(t) for t in r.tables]
    return out


def _table_copy(t: WTable) -> WTable:
    out = _copied(t, "games", "firsts", "extensions")
    out.results = [_copied(x, "confirmed", "disputed", "corrected") for x in t.results]
    return out


def _check_in_done(w: Work) -> None:
    """Project ruling (T9): once the organiser takes the roll (someone has checked in), round
    one is paired only when every player still in has checked in: a player who did not come is
    dropped first (a no-show), so nobody is paired against an empty chair. An event where
    nobody checked in pairs everyone registered."""
    present = [p for p in active_in(w, 1) if p.entered_round <= 1]
    missing = [p for p in present if not p.checked_in]
    if missing and len(missing) < len(present):
        names = ", ".join(f"{p.name} ({p.id})" for p in missing[:5])
        message = Say(
            "pair: not checked in: %(names)s; check them in or drop them before round 1 is paired "
            "(T9)",
            names=names,
        )
        if len(missing) > 5:
            message = Say(
                "pair: not checked in: %(names)s and %(more)s more; check them in or drop them "
                "before round 1 is paired (T9)",
                names=names,
                more=len(missing) - 5,
            )
        raise Refused(
            message,
            "T9",
        )


def _pair(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    s = w.settings
    assert s is not None
    _staff(seat, "pair", "T4")
    number = _need(b, "round", int, "T4")
    latest = _latest(w)
    if w.cut is not None:
        raise Refused(Say("pair: the Swiss rounds are over; the top cut is paired (T10)"), "T10")
    if latest is not None and latest.number == number:
        if latest.started_at is not None:
            raise Refused(
                Say(
                    "pair: round %(number)s has started; it cannot be re-paired (T4)", number=number
                ),
                "T4",
            )
        why = _reason(b, "T4", "a re-pair")
        w.rounds.pop()
        reasons = [*latest.reasons, Say("re-paired: %(why)s", why=why)]
    else:
        want = latest.number + 1 if latest is not None else 1
        if number != want:
            raise Refused(
                Say(
                    "round: the next round to pair is %(want)s, not %(number)s (T4)",
                    want=want,
                    number=number,
                ),
                "T4",
            )
        if latest is not None and not all(match_of(s, t) is not None for t in latest.tables):
            raise Refused(
                Say(
                    "pair: round %(number)s is unfinished; pair the next one when every result of "
                    "it is final (T8)",
                    number=latest.number,
                ),
                "T8",
            )
        if latest is not None and latest.started_at is None:
            raise Refused(
                Say("pair: round %(number)s has not started (T4)", number=latest.number), "T4"
            )
        if number == 1:
            _check_in_done(w)
        rounds = s.rounds
        if rounds is None:
            rounds = usual_rounds(len(active_in(w, 1)))
            if b.get("rounds") != rounds:
                raise Refused(
                    Say("rounds: the usual count for this event is %(rounds)s (T4)", rounds=rounds),
                    "T4",
                )
            w.settings = s = _with_rounds(s, rounds)
        if number > rounds:
            raise Refused(
                Say("pair: the event has %(rounds)s Swiss rounds (T4)", rounds=rounds), "T4"
            )
        reasons = []
    if b.get("seed") != s.seed:
        raise Refused(Say("seed: a pairing names the event's seed (T4, T12)"), "T12")
    got = [(t.get("table"), t.get("first"), t.get("second")) for t in _tables(b)]
    bye = b.get("bye")
    if w.check_pairings:
        computed = compute_pairing(w, number)
        if got != [(t.number, t.first, t.second) for t in computed.tables] or bye != computed.bye:
            raise Refused(
                Say(
                    "pair: round %(number)s's pairing is not the one computed from the records "
                    "and the seed (T4, T12)",
                    number=number,
                ),
                "T12",
            )
    seated = [p for _n, a, c in got for p in (a, c)] + ([bye] if bye is not None else [])
    if sorted(map(str, seated)) != sorted(p.id for p in active_in(w, number)) or any(
        type(n) is not int for n, _a, _c in got
    ):
        raise Refused(
            Say(
                "pair: round %(number)s must seat each of its players once (T4, T9)", number=number
            ),
            "T4",
        )
    w.rounds.append(
        WRound(number, [WTable(int(str(n)), str(a), str(c)) for n, a, c in got], bye, None, reasons)
    )


def _with_rounds(s: Settings, rounds: int) -> Settings:
    from dataclasses import replace

    return replace(s, rounds=rounds)


def _tables(b: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    ts = b.get("tables")
    if not isinstance(ts, list) or not all(isinstance(t, Mapping) for t in ts):
        raise Refused(Say("tables: a list of {table, first, second} (T4)"), "T4")
    return ts


def _swap(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    _staff(seat, "swap", "T4")
    r = _round(w, b.get("round"))
    if r.started_at is not None:
        raise Refused(Say("swap: round %(number)s has started (T4)", number=r.number), "T4")
    why = _reason(b, "T4", "a swap")
    a, c = _player(w, b.get("a"), "a").id, _player(w, b.get("b"), "b").id
    if a == c:
        raise Refused(Say("swap: two different players (T4)"), "T4")
    where = {}
    for t in r.tables:
        for p in (t.first, t.second):
            where[p] = t
    if r.bye is not None:
        where[r.bye] = None  # type: ignore[assignment]
    for p in (a, c):
        if p not in where:
            raise Refused(
                Say("swap: %(p)s is not in round %(number)s (T4)", p=p, number=r.number), "T4"
            )
    ta, tc = where[a], where[c]
    if ta is tc:
        raise Refused(Say("swap: the two players already play each other (T4)"), "T4")

    def put(t: WTable | None, old: str, new: str) -> None:
        if t is None:
            r.bye = new
        elif t.first == old:
            t.first = new
        else:
            t.second = new

    put(ta, a, c)
    put(tc, c, a)
    r.reasons.append(Say("swapped %(a)s and %(b)s: %(why)s", a=a, b=c, why=why))


def _start(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    s = w.settings
    assert s is not None
    _staff(seat, "start", "T6")
    r = _round(w, b.get("round"))
    if r is not _latest(w):
        raise Refused(
            Say("start: round %(number)s is not the latest round (T4)", number=r.number), "T4"
        )
    if r.started_at is not None:
        raise Refused(
            Say("start: round %(number)s has started already (T6)", number=r.number), "T6"
        )
    seated = {p for t in r.tables for p in (t.first, t.second)} | ({r.bye} if r.bye else set())
    active = {p.id for p in active_in(w, r.number)}
    if not r.cut and seated != active:
        out, new = sorted(seated - active), sorted(active - seated)
        what = "; ".join(
            x
            for x in (
                f"{', '.join(out)} dropped" if out else "",
                f"{', '.join(new)} registered" if new else "",
            )
            if x
        )
        raise Refused(
            Say(
                "start: round %(number)s's players changed since it was paired (%(what)s): "
                "re-pair it before it starts (T9)",
                number=r.number,
                what=what,
            ),
            "T9",
        )
    games = b.get("games")
    want = {t.table: game_id(s.event, r.number, t.table, 1) for t in r.tables}
    if not isinstance(games, Mapping) or {int(k): v for k, v in games.items()} != want:
        raise Refused(Say("games: one game per table, named <event>-r<round>t<table> (T14)"), "T14")
    r.started_at = time
    for t in r.tables:
        t.games.append(want[t.table])
        t.firsts.append(t.first)


def game_id(event: str, round_number: int, table: int, number: int) -> str:
    """The id of a match's game (T14): ``<event>-r<round>t<table>``, then ``g2``, ``g3``."""
    base = f"{event}-r{round_number}t{table}"
    return base if number == 1 else f"{base}g{number}"


def _playing(w: Work, b: Mapping[str, Any]) -> tuple[WRound, WTable]:
    r = _round(w, b.get("round"))
    if r.started_at is None:
        raise Refused(Say("round %(number)s has not started (T6)", number=r.number), "T6")
    return r, _table(r, b.get("table"))


def _extend(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    if seat != "judge" and seat != "organiser":
        raise Refused(Say("extend: the judge gives a table extra minutes (T7)"), "T7")
    _r, t = _playing(w, b)
    minutes = b.get("minutes")
    if type(minutes) is not int or not 1 <= minutes <= MAX_EXTENSION:
        raise Refused(
            Say("minutes: an extension is 1-%(most)s minutes (T7)", most=MAX_EXTENSION), "T7"
        )
    if match_over(_settings(w), t):
        raise Refused(Say("extend: table %(table)s's match is over (T7)", table=t.table), "T7")
    t.extensions.append(Extension(minutes, _reason(b, "T7", "an extension"), seat))


def _settings(w: Work) -> Settings:
    assert w.settings is not None
    return w.settings


def _winner(t: WTable, b: Mapping[str, Any]) -> str | None:
    win = b.get("winner")
    if win is not None and win not in t.players_:
        raise Refused(
            Say(
                "winner: %(win)s does not play at table %(table)s; a player id or none for a draw "
                "(T8)",
                win=repr(str(win)[:20]),
                table=t.table,
            ),
            "T8",
        )
    return None if win is None else str(win)


def _result(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    s = _settings(w)
    r, t = _playing(w, b)
    source = b.get("source")
    if source not in SOURCES:
        raise Refused(
            Say(
                "source: %(source)s is not referee, slip, time or penalty",
                source=repr(str(source)[:10]),
            ),
            "T8",
        )
    if source == "referee" and seat != "system":
        raise Refused(Say("source: a result from the referee is written by the system (T8)"), "T8")
    if source == "time" and seat == "system":
        if not isinstance(b.get("head"), str):
            raise Refused(
                Say("head: a draw the referee counted at time names the game's head (T6)")
            )
    elif source in ("slip", "time", "penalty") and seat not in ("judge", "organiser"):
        raise Refused(Say("result: the judge enters the slip's result (T8)"), "T8")
    number = b.get("number")
    if match_over(s, t):
        raise Refused(
            Say(
                "result: table %(table)s's match is over; correct a result instead (T8)",
                table=t.table,
            )
        )
    if number != len(t.results) + 1:
        if isinstance(number, int) and 1 <= number <= len(t.results):
            raise Refused(
                Say(
                    "result: game %(number)s of table %(table)s has a result; a change is a "
                    "correction (T8)",
                    number=number,
                    table=t.table,
                ),
                "T8",
            )
        raise Refused(
            Say(
                "number: the game with no result at table %(table)s is game %(game)s (T8)",
                table=t.table,
                game=len(t.results) + 1,
            ),
            "T8",
        )
    if number > len(t.games) and not s.match_in_game:
        raise Refused(
            Say(
                "result: game %(number)s of table %(table)s was not made (T1)",
                number=number,
                table=t.table,
            ),
            "T1",
        )
    head = b.get("head")
    if source == "referee" and not isinstance(head, str):
        raise Refused(Say("head: a result from the referee names the game's final head (T8)"), "T8")
    reason = b.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise Refused(Say("reason: a result says why the game ended (T8)"), "T8")
    t.results.append(
        WResult(
            number,
            _winner(t, b),
            reason.strip()[:500],
            str(source),
            seat,
            head if isinstance(head, str) else None,
            time,
            ends_match=bool(b.get("ends_match", False)) or source == "time",
        )
    )
    _next_game(s, r, t, b)


def _next_game(s: Settings, r: WRound, t: WTable, b: Mapping[str, Any]) -> None:
    """T1: in a best of three the next game is made when a result is in; sides swap."""
    nxt = b.get("next_game")
    if match_over(s, t) or s.games_per_match == 1:
        if nxt is not None:
            raise Refused(Say("next_game: the match needs no further game (T1)"), "T1")
        return
    want = game_id(s.event, r.number, t.table, len(t.results) + 1)
    if nxt != want:
        raise Refused(
            Say(
                "next_game: the next game of table %(table)s is %(want)s (T1)",
                table=t.table,
                want=want,
            ),
            "T1",
        )
    t.games.append(want)
    prev = t.firsts[-1]
    t.firsts.append(t.second if prev == t.first else t.first)


def _found(w: Work, b: Mapping[str, Any]) -> tuple[WRound, WTable, WResult]:
    r, t = _playing(w, b)
    number = b.get("number")
    for res in t.results:
        if res.number == number:
            return r, t, res
    raise Refused(
        Say(
            "number: table %(table)s has no result for game %(number)s (T8)",
            table=t.table,
            number=str(number)[:5],
        ),
        "T8",
    )


def _confirm(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    _r, t, res = _found(w, b)
    if seat not in t.players_:
        raise Refused(
            Say(
                "confirm: %(seat)s does not play at table %(table)s (T8)", seat=seat, table=t.table
            ),
            "T8",
        )
    if seat in res.confirmed:
        raise Refused(Say("confirm: %(seat)s confirmed this result already (T8)", seat=seat), "T8")
    res.confirmed.append(seat)


def _dispute(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    _r, t, res = _found(w, b)
    if seat not in t.players_:
        raise Refused(
            Say(
                "dispute: %(seat)s does not play at table %(table)s (T8)", seat=seat, table=t.table
            ),
            "T8",
        )
    note = b.get("note")
    if not isinstance(note, str) or not note.strip():
        raise Refused(Say("note: a dispute says what is wrong (T8)"), "T8")
    if res.settled and result_final(res):
        raise Refused(Say("dispute: the judge settled this result (T8)"), "T8")
    res.disputed.append(f"{seat}: {note.strip()[:500]}")


def _correct(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    if seat != "judge":
        raise Refused(Say("correct: the judge corrects or settles a result (T8)"), "T8")
    s = _settings(w)
    r, t, res = _found(w, b)
    why = _reason(b, "T8", "a correction")
    if res.number != len(t.results) and res.winner != _winner(t, b):
        raise Refused(
            Say(
                "correct: game %(number)s has a later game after it; correct the latest game only "
                "(T8)",
                number=res.number,
            ),
            "T8",
        )
    res.winner = _winner(t, b)
    res.disputed.clear()
    res.settled = True
    res.corrected.append(f"{seat}: {why}")
    if "ends_match" in b:
        res.ends_match = bool(b["ends_match"])
    if len(t.games) > len(t.results) and match_over(s, t):
        raise Refused(Say("correct: a later game of this match was made already (T1)"), "T1")
    if b.get("next_game") is not None:
        _next_game(s, r, t, b)


def _penalty(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    if seat != "judge":
        raise Refused(Say("penalty: the judge records penalties (T11)"), "T11")
    p = _player(w, b.get("player"))
    infraction, penalty = b.get("infraction"), b.get("penalty")
    if infraction not in INFRACTIONS:
        raise Refused(
            Say("infraction: one of %(names)s (T11)", names=", ".join(INFRACTIONS)), "T11"
        )
    if penalty not in PENALTIES:
        raise Refused(Say("penalty: one of %(names)s (T11)", names=", ".join(PENALTIES)), "T11")
    why = _reason(b, "T11", "a penalty")
    latest = _latest(w)
    p.penalties.append(
        Penalty(
            p.id, str(infraction), str(penalty), why, seat, latest.number if latest else 0, time
        )
    )
    if penalty == "disqualification" and p.dropped_after_round is None:
        p.dropped_after_round = max(latest.number if latest else 0, p.entered_round - 1)
        p.drop_reason = "disqualified (T11)"


def cut_tables(w: Work) -> list[tuple[int, str, str]]:
    """The next round of the top cut (T10), as (table, first, second): its first round from the
    standings after the Swiss rounds (:func:`referee.event.standings.top_cut`, the higher seed in
    the first seat), each later one from the winners of the one before, in bracket order, the
    higher seed (of the standings after the Swiss rounds) again in the first seat until he
    chooses his side (:func:`_side`).
    Raises Refused when it cannot be paired now."""
    s = _settings(w)
    if s.top_cut == 0:
        raise Refused(Say("cut: this event has no top cut (T10)"), "T10")
    if w.cut is None:
        if not _over(w):
            raise Refused(Say("cut: the Swiss rounds are not over (T10)"), "T10")
        try:
            first = st.top_cut(standings_of(w), s.top_cut)  # type: ignore[arg-type]
        except ValueError as e:
            raise Refused(str(e), "T10") from None
        return [(i, c.higher, c.lower) for i, c in enumerate(first, start=1)]
    last = w.rounds[-1]
    if last.started_at is None:
        raise Refused(Say("cut: round %(number)s has not started (T10)", number=last.number), "T10")
    winners = []
    for t in last.tables:
        m = match_of(s, t)
        if m is None:
            raise Refused(
                Say("cut: table %(table)s's match is not final (T8)", table=t.table), "T8"
            )
        won = _match_winner(m)
        if won is None:
            raise Refused(
                Say(
                    "cut: table %(table)s's match is drawn; in single elimination the judge "
                    "settles who goes on (correct) (T10)",
                    table=t.table,
                ),
                "T10",
            )
        winners.append(won)
    if len(winners) < 2:
        raise Refused(Say("cut: the top cut's final is played (T10)"), "T10")
    seed = {c.higher: c.higher_seed for c in w.cut.pairings}
    seed.update({c.lower: c.lower_seed for c in w.cut.pairings})
    out = []
    for i in range(0, len(winners), 2):
        a, b = sorted(winners[i : i + 2], key=lambda p: seed[p])  # the higher seed first
        out.append((i // 2 + 1, a, b))
    return out


def _cut(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    s = _settings(w)
    _staff(seat, "cut", "T10")
    want = cut_tables(w)
    got = [(t.get("table"), t.get("first"), t.get("second")) for t in _tables(b)]
    if got != want:
        raise Refused(Say("tables: the top cut's round is the one the results give (T10)"), "T10")
    number = w.rounds[-1].number + 1
    if b.get("round") != number:
        raise Refused(
            Say("round: the top cut's next round is round %(number)s (T10)", number=number), "T10"
        )
    if w.cut is None:
        pairings = st.top_cut(standings_of(w), s.top_cut)  # type: ignore[arg-type]
        w.cut = Cut(s.top_cut, pairings)
    w.rounds.append(WRound(number, [WTable(n, a, c) for n, a, c in want], None, cut=True))


def _side(w: Work, seat: str, b: Mapping[str, Any], time: str) -> None:
    """T10: at a table of the top cut the higher seed chooses his side before the round
    starts (he is the first seat until he chooses): himself, or the organiser for him."""
    r = _round(w, b.get("round"))
    if not r.cut:
        raise Refused(
            Say(
                "side: round %(number)s is a Swiss round; its sides are the pairing's (T5)",
                number=r.number,
            ),
            "T5",
        )
    if r.started_at is not None:
        raise Refused(Say("side: round %(number)s has started (T10)", number=r.number), "T10")
    number = b.get("table")
    t = next((x for x in r.tables if x.table == number), None)
    if t is None:
        raise Refused(
            Say(
                "table: round %(number)s has no table %(table)s (T10)",
                number=r.number,
                table=str(number)[:10],
            ),
            "T10",
        )
    if t.side_chosen:
        raise Refused(
            Say("side: the higher seed of table %(table)s has chosen already (T10)", table=t.table),
            "T10",
        )
    higher = t.first
    if seat not in ("organiser", "judge", higher):
        raise Refused(
            Say("side: the higher seed of table %(table)s chooses his side (T10)", table=t.table),
            "T10",
        )
    choice = b.get("seat")
    if choice not in ("first", "second"):
        raise Refused(Say("seat: the side chosen is the first or the second seat (T10)"), "T10")
    if choice == "second":
        t.first, t.second = t.second, t.first
    t.side_chosen = True
    if choice == "first":
        chose = Say(
            "table %(table)s: %(higher)s, the higher seed, chose the first seat",
            table=t.table,
            higher=higher,
        )
    else:
        chose = Say(
            "table %(table)s: %(higher)s, the higher seed, chose the second seat",
            table=t.table,
            higher=higher,
        )
    r.reasons.append(chose)


_HANDLERS = {
    "register": _register,
    "checkin": _checkin,
    "drop": _drop,
    "pair": _pair,
    "swap": _swap,
    "start": _start,
    "extend": _extend,
    "result": _result,
    "confirm": _confirm,
    "dispute": _dispute,
    "correct": _correct,
    "penalty": _penalty,
    "cut": _cut,
    "side": _side,
}
KINDS = frozenset({"event", *_HANDLERS})


# ---- freezing ------------------------------------------------------------------------------


def _deadline(s: Settings, r: WRound, t: WTable) -> str | None:
    if r.started_at is None:
        return None
    extra = sum(e.minutes for e in t.extensions)
    end = parse_utc(r.started_at) + timedelta(minutes=s.round_minutes + extra)
    return end.isoformat(timespec="seconds")


def freeze(w: Work) -> EventState:
    """The frozen state of a working copy."""
    s = _settings(w)
    rounds = tuple(
        Round(
            r.number,
            tuple(
                Table(
                    t.table,
                    t.first,
                    t.second,
                    tuple(t.games),
                    tuple(t.firsts),
                    tuple(
                        Result(
                            x.number,
                            x.winner,
                            x.reason,
                            x.source,
                            x.by,
                            x.head,
                            tuple(x.confirmed),
                            tuple(x.disputed),
                            tuple(x.corrected),
                            result_final(x),
                            x.ends_match,
                            x.time,
                        )
                        for x in t.results
                    ),
                    tuple(t.extensions),
                    _deadline(s, r, t),
                    match_of(s, t) if r.started_at is not None else None,
                    t.side_chosen,
                )
                for t in r.tables
            ),
            r.bye,
            r.started_at,
            tuple(r.reasons),
            r.cut,
        )
        for r in w.rounds
    )
    latest = rounds[-1] if rounds else None
    phase: Phase
    if latest is None:
        phase = "registration"
    elif latest.started_at is None:
        phase = "paired"
    elif latest.finished:
        phase = "finished"
    else:
        phase = "playing"
    return EventState(
        settings=s,
        players=tuple(
            Player(
                p.id,
                p.name,
                p.by,
                p.checked_in,
                p.entered_round,
                p.dropped_after_round,
                p.drop_reason,
                tuple(p.penalties),
            )
            for p in w.players.values()
        ),
        rounds=rounds,
        phase=phase,
        standings=standings_of(w),
        sides=side_counts(w),
        cut=w.cut,
        head=(w.seq, w.hash) if w.seq >= 0 else None,
    )


def fold(records: Sequence[Any]) -> EventState:
    """The state after ``records`` (each with ``seat``, ``kind``, ``body``, ``time``). Raises
    Refused naming the first record that does not apply."""
    return freeze(fold_work(records))


def fold_work(records: Sequence[Any], check_pairings: bool = True) -> Work:
    """The working state after ``records`` (:func:`fold` before it is frozen);
    ``check_pairings``: see :attr:`Work.check_pairings`."""
    w = Work(check_pairings=check_pairings)
    for r in records:
        try:
            step(w, r.seat, r.kind, r.body, r.time)
        except Refused as e:
            raise Refused(
                Say("record %(seq)s: %(message)s", seq=r.seq, message=e.message), e.rule
            ) from None
        w.seq, w.hash = r.seq, r.hash
    return w
