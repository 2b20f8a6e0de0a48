"""Issue 37, part 2: the review of a game at ``/g/<game>/review``, through the test client.

A player's review of a game in progress shows only what his seat saw, and nothing else is his
to choose; after the end the other seat's view opens only when the organiser made the hands
public; the judge studies through any seat. Every event is stepped through with its rules and
their sources in the page's language, corrections and take-backs marked; "what if" plays
another action through the ruling tool and writes nothing; the summary says who won and why,
the turning points, the rules applied and how long each player took.
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Iterator, Mapping

import pytest
from flask import Flask
from privacy_property import hidden_names
from service_helpers import Table, make_referee
from test_service import first_turns, set_up
from web_helpers import Browser, judge_browser, make_app, referee_of

from engine.herazeus import GameState, parse_action_text
from referee.service import Forbidden, Referee, Refused

SEED = 5  # a random game with challenges decided by strength (checked below)


def in_play(ref: Referee) -> tuple[str, dict[str, str]]:
    """A game in play (hands and first rows recorded, Hera to play) and its join codes."""
    created = ref.create_game(profile="rio-grande", starting="hera")
    set_up(ref, created.game)
    return created.game, dict(created.codes)


def played(ref: Referee, *, hands_public: bool = False, seed: int = SEED) -> Table[Referee]:
    """A whole random game played from the players' seats (every card scanned)."""
    t: Table[Referee] = Table(ref, random.Random(seed), starting="hera", hands_public=hands_public)
    t.setup()
    while t.step():
        pass
    assert ref.folded(t.game).state.phase.value == "over"
    return t


def seated(app: Flask, game: str, codes: dict[str, str]) -> dict[str, Browser]:
    """A browser per player holding his seat, the judge's, and the public's."""
    out = {"public": Browser(app), "judge": judge_browser(app)}
    for seat, code in codes.items():
        b = Browser(app)
        assert b.join(game, code).status_code == 303
        out[seat] = b
    return out


def page(b: Browser, path: str, **headers: str) -> str:
    r = b.get(path, headers=headers)
    assert r.status_code == 200, r.data[:500]
    return r.get_data(as_text=True)


def challenges(ref: Referee, game: str) -> list[int]:
    """The events whose action was a challenge decided by strength."""
    return [
        r.seq
        for r in ref.log(game, "judge")
        if r.kind == "action" and any(e.get("kind") == "challenged" for e in r.events)
    ]


@pytest.fixture(scope="module")
def finished() -> Iterator[tuple[Flask, Table[Referee], dict[str, Browser]]]:
    ref = make_referee(seed=37)
    t = played(ref)
    app = make_app(ref)
    yield app, t, seated(app, t.game, t.codes)


# ---- privacy ----------------------------------------------------------------------------


def test_a_players_review_of_a_game_in_progress_never_shows_the_opponents_hidden_cards() -> None:
    ref = make_referee()
    app = make_app(ref)
    g, codes = in_play(ref)
    first_turns(ref, g)
    ref.submit(g, "hera", {"do": "draw"})
    b = seated(app, g, codes)
    st = ref.folded(g).state
    assert isinstance(st, GameState) and st.phase.value == "play"
    hidden = hidden_names(st, "hera")
    assert hidden, "the test needs cards Hera cannot see"
    last = ref.folded(g).last_seq
    for at in range(last + 1):
        text = html.unescape(page(b["hera"], f"/g/{g}/review?at={at}"))
        shown = {n for n in hidden if re.search(rf"\b{re.escape(n)}\b", text)}
        assert not shown, f"event {at}: Hera's review names {shown}"
        assert 'id="whatif"' not in text  # no outside aid during a game
    # the drawing of every other seat is closed to her while the game goes on
    for other in ("zeus", "judge", "public"):
        assert b["hera"].get(f"/g/{g}/review?view={other}").status_code == 403
    assert "Zeus" not in re.findall(r'<option value="(\w+)"', page(b["hera"], f"/g/{g}/review"))
    # and the service refuses her the open actions and "what if" as well
    with pytest.raises(Forbidden):
        ref.open_actions(g, "hera", last)
    with pytest.raises(Forbidden):
        ref.what_if(g, "hera", {"do": "end_turn"}, last)


def test_after_the_end_the_other_seat_opens_only_when_the_hands_are_public() -> None:
    ref = make_referee(seed=3)
    private, public = played(ref), played(ref, hands_public=True)
    app = make_app(ref)
    for t, opens in ((private, False), (public, True)):
        b = seated(app, t.game, t.codes)
        assert ref.review_views(t.game, "hera") == (["hera", "zeus"] if opens else ["hera"])
        status = b["hera"].get(f"/g/{t.game}/review?view=zeus").status_code
        assert status == (200 if opens else 403)
        # the judge's own view (his notes, the decks' order) is never a player's
        assert b["hera"].get(f"/g/{t.game}/review?view=judge").status_code == 403
        assert ref.review_views(t.game, "judge") == ["judge", "hera", "zeus"]


# ---- stepping ---------------------------------------------------------------------------


def test_every_event_is_stepped_through_with_its_rules_cited_in_the_pages_language(
    finished: tuple[Flask, Table[Referee], dict[str, Browser]],
) -> None:
    _, t, b = finished
    ref = t.ref
    last = ref.folded(t.game).last_seq
    first = page(b["hera"], f"/g/{t.game}/review")
    assert 'id="event-title">Event 0<' in first and 'id="prev"' not in first
    end = page(b["hera"], f"/g/{t.game}/review?at={last}")
    assert f"Event {last} of {last}" in end and 'id="next"' not in end
    challenge = challenges(ref, t.game)[0]
    en = page(b["judge"], f"/g/{t.game}/review?at={challenge}")
    fr = page(b["judge"], f"/g/{t.game}/review?at={challenge}", **{"Accept-Language": "fr"})
    assert 'id="rules"' in en and 'id="rules"' in fr
    assert 'lang="fr"' in fr and "Règles appliquées" in fr
    rules_en = re.search(r'id="rules">(.*?)</ul>', en, re.S)
    rules_fr = re.search(r'id="rules">(.*?)</ul>', fr, re.S)
    assert rules_en and rules_fr and rules_en.group(1) != rules_fr.group(1)
    assert "D11" in rules_en.group(1)  # a challenge decided by strength cites its rule
    # the action points of the turn at that moment
    assert re.search(r'id="points">[^<]*to play, \d+ of \d+ left', en)


def test_corrections_and_take_backs_are_marked() -> None:
    ref = make_referee()
    app = make_app(ref)
    g, codes = in_play(ref)
    first_turns(ref, g)
    drew = ref.submit(g, "hera", {"do": "draw"}).seq
    proposal = ref.take_back(g, "hera")
    undo_tb = ref.approve(g, "zeus", proposal.seq)[-1].seq
    ref.submit(g, "hera", {"do": "draw"})
    undo = ref.undo(g, "judge", undo_tb, "a wrong card scanned").seq
    b = seated(app, g, codes)
    assert 'id="mark">A take-back' in page(b["hera"], f"/g/{g}/review?at={undo_tb}")
    assert 'id="mark">A correction' in page(b["zeus"], f"/g/{g}/review?at={undo}")
    taken = page(b["hera"], f"/g/{g}/review?at={drew}")
    assert f'by <a href="/g/{g}/review?at={undo_tb}">event {undo_tb}</a>' in taken
    # the judge's reason stays his
    assert "a wrong card scanned" not in page(b["zeus"], f"/g/{g}/review?at={undo}")
    assert "a wrong card scanned" in page(b["judge"], f"/g/{g}/review?at={undo}")


# ---- what if ----------------------------------------------------------------------------


def test_what_if_at_a_challenge_rules_another_action_and_writes_nothing(
    finished: tuple[Flask, Table[Referee], dict[str, Browser]],
) -> None:
    _, t, b = finished
    ref = t.ref
    at = challenges(ref, t.game)[0] - 1  # the table just before the challenge
    head = ref.head(t.game)
    text = page(b["judge"], f"/g/{t.game}/review?at={at}")
    offered = re.findall(r'pose=([^"#&]+)#whatif"><code>([^<]+)</code></a>', text)
    assert offered, "the actions open before the challenge are listed"
    challenge_texts = [html.unescape(label) for _, label in offered if "challenge" in label]
    assert challenge_texts
    for pose in challenge_texts[:3]:
        r = b["judge"].get(f"/g/{t.game}/review", query_string={"at": at, "pose": pose})
        body = r.get_data(as_text=True)
        assert r.status_code == 200 and 'id="ruling"' in body
        assert "Nothing was recorded" in body
    unread = page(b["judge"], f"/g/{t.game}/review?at={at}&pose=fly+to+the+moon")
    assert 'class="flash error" id="ruling"' in unread
    assert ref.head(t.game) == head  # the log's head is unchanged


def test_a_player_may_ask_what_if_after_the_end_from_what_he_knew(
    finished: tuple[Flask, Table[Referee], dict[str, Browser]],
) -> None:
    _, t, b = finished
    ref = t.ref
    at = challenges(ref, t.game)[0] - 1
    mover = str(ref.log(t.game, "judge")[at + 1].body.get("actor"))
    head = ref.head(t.game)
    opened = ref.open_actions(t.game, mover, at)
    assert list(opened) == [mover] and opened[mover]
    for pose in opened[mover][:5]:
        text = page(b[mover], f"/g/{t.game}/review?" + _q(at, pose))
        assert 'id="ruling"' in text
    assert ref.head(t.game) == head
    with pytest.raises(Refused):
        ref.what_if(t.game, "judge", {"do": "end_turn"}, 2)  # setup: no ruling there


def test_a_players_what_if_needs_no_card_hidden_from_him_the_judges_sees_all(
    finished: tuple[Flask, Table[Referee], dict[str, Browser]],
) -> None:
    _, t, _ = finished
    ref = t.ref
    at = challenges(ref, t.game)[0] - 1
    mover = str(ref.log(t.game, "judge")[at + 1].body.get("actor"))
    then = ref.folded(t.game).state_at(at)
    hidden = hidden_names(then, mover)
    tries = [a for a in ref.open_actions(t.game, "judge", at)[mover] if a.startswith("challenge")]
    assert tries
    refused = 0
    for text in tries:
        raw = parse_action_text(text).to_json()
        assert ref.what_if(t.game, "judge", raw, at).rules  # the judge's tool sees the table
        try:
            ruled = ref.what_if(t.game, mover, raw, at)
        except Refused as e:  # the defender is face down: a card he never saw
            refused += 1
            assert e.rule == "D20" and "cannot rule without it" in e.message
            assert not {n for n in hidden if n in e.message}, e.message
        else:
            assert not {n for n in hidden if n in ruled.ruling}, ruled.ruling
    assert refused, "some challenge met a face-down card"


def _q(at: int, pose: str) -> str:
    from urllib.parse import urlencode

    return urlencode({"at": at, "pose": pose})


# ---- the summary ------------------------------------------------------------------------


def test_the_summary_says_who_won_why_the_turning_points_and_the_time_taken(
    finished: tuple[Flask, Table[Referee], dict[str, Browser]],
) -> None:
    _, t, b = finished
    ref = t.ref
    text = page(b["zeus"], f"/g/{t.game}/review")
    winner = ref.view(t.game, "judge").winner
    assert winner is not None
    assert re.search(rf'id="winner">{winner.capitalize()} won: ', text)
    turning = re.search(r'id="turning">(.*?)</ul>', text, re.S)
    assert turning is not None
    points = turning.group(1)
    for seq in challenges(ref, t.game):  # each challenge with both strengths
        assert f'review?at={seq}">#{seq}</a>' in points
    assert re.search(r"\(\d+\) against [^<]*\(\d+\)", points)
    assert re.search(r'id="applied">.*D11', text, re.S)
    took = re.search(r'id="took">(.*?)</ul>', text, re.S)
    assert took is not None
    actions = {
        p: sum(
            1
            for r in ref.log(t.game, "judge")
            if r.kind == "action" and r.body.get("actor") == p and r.seq
        )
        for p in ("hera", "zeus")
    }
    for p, n in actions.items():
        assert re.search(rf"{p.capitalize()}: \d+ min \d\d s over {n} actions", took.group(1))


# ---- links ------------------------------------------------------------------------------


def test_the_review_is_linked_from_the_seat_page_and_the_replay_and_any_event_has_a_link(
    finished: tuple[Flask, Table[Referee], dict[str, Browser]],
) -> None:
    _, t, b = finished
    g = t.game
    assert f'href="/g/{g}/review" id="review-link"' in page(b["hera"], f"/g/{g}")
    assert f'id="review-here" href="/g/{g}/review?at=7"' in page(b["hera"], f"/g/{g}/replay?at=7")
    text = page(b["hera"], f"/g/{g}/review?at=31")
    assert f'id="share" href="/g/{g}/review?at=31"' in text
    assert '<li id="31" aria-current="step">' in text  # /g/G/review#31 lands on it
    assert 'data-review="31"' in text  # and the script steps there


def test_the_games_of_both_kinds_pass_the_privacy_twin_check_unchanged() -> None:
    """The review adds nothing to a seat's view: the create record of a game whose hands are
    private is the one it always was (no new key)."""
    ref = make_referee()
    g = ref.create_game(profile="rio-grande").game
    assert "hands" not in ref.log(g, "judge")[0].body
    h = ref.create_game(profile="rio-grande", hands_public=True).game
    assert ref.log(h, "judge")[0].body["hands"] == "public"


def test_minotaur_turning_points_are_its_supremacy_checks_and_the_end() -> None:
    from referee.log import Record
    from web.games.minotaur.page import PAGES

    def action(*events: Mapping[str, object]) -> Record:
        return Record("g", 9, "t", "miron", "action", {"action": {"do": "end"}}, events)

    checked: Mapping[str, object] = {
        "event": "supremacy_checked",
        "columns": [{"after": "miron"}, {"after": None}],
    }
    played: Mapping[str, object] = {
        "event": "played",
        "player": "miron",
        "card": "Jalal",
        "column": "centre",
    }
    assert PAGES.turning_points(action(played)) == []
    assert PAGES.turning_points(action(played, checked)) == [
        "Supremacy checked: 1 of 6 columns held (M11)."
    ]
    won = PAGES.turning_points(action({"event": "won", "player": "vess", "reason": "supremacy"}))
    assert len(won) == 1


def test_the_organiser_makes_the_hands_public_from_the_home_form_or_the_api() -> None:
    ref = make_referee()
    app = make_app(ref)
    judge = judge_browser(app)
    r = judge.post("/api/v1/games", {"profile": "rio-grande", "hands_public": True})
    assert r.status_code == 201, r.data
    assert ref.log(r.json["game"], "judge")[0].body["hands"] == "public"  # type: ignore[index]
    r = judge.post("/api/v1/games", {"profile": "rio-grande"})
    assert "hands" not in ref.log(r.json["game"], "judge")[0].body  # type: ignore[index]
    home = judge.get("/").get_data(as_text=True)
    form = {"csrf": re.findall(r'name="csrf" value="([^"]+)"', home)[0], "hands_public": "1"}
    made = judge.client.post("/new", data=form)
    assert made.status_code == 303, made.data[:300]
    game = made.headers["Location"].split("/g/")[1].split("/")[0]
    assert ref.log(game, "judge")[0].body["hands"] == "public"


def test_the_review_of_an_events_game_is_reachable_from_its_event_page() -> None:
    """Issue 37: from the event's page, with its pairings and standings, each table's game
    links to its review."""
    from games.tiny.game import TINY
    from test_event_pages import playing

    from referee.games import registered
    from web.events import get_events

    with registered(TINY):
        app = make_app()
        eid = playing(app)
        with app.app_context():
            games = [g for t in get_events().get(eid).round.tables for g in t.games]  # type: ignore[union-attr]
        page = Browser(app).get(f"/e/{eid}").get_data(as_text=True)
    assert games
    for g in games:
        assert f'href="/g/{g}/review"' in page, g


def test_an_event_with_public_hands_makes_its_games_with_public_hands() -> None:
    """The organiser decides for an event's games too (issue 37): an event created with
    public hands records it, and each game it creates says so in its create record."""
    from games.tiny.game import TINY

    from referee.games import registered
    from web.events import get_events

    with registered(TINY):
        for public in (False, True):
            app = make_app()
            with app.app_context():
                ev = get_events()
                eid = ev.create(
                    name="Cup", game=TINY.name, options={}, seed="37373737", hands_public=public
                )
                for i in range(1, 5):
                    ev.check_in(eid, ev.register(eid, f"P{i}").player)
                ev.pair_next(eid)
                ev.start_round(eid)
                games = [g for t in ev.get(eid).round.tables for g in t.games]  # type: ignore[union-attr]
            ref = referee_of(app)
            for g in games:
                created = ref.log(g, "judge")[0].body
                assert (created.get("hands") == "public") is public, (public, created)
