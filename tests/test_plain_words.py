"""Issue 31, items 8, 9 and 11 (at the table, in plain words):

- a whole hand lost to Pandora with cards the referee does not know keeps its default order
  one tap away: the owner names only the unknown cards (D2, D20, HZ-P13);
- a take-back reads as what it is: "Hera took back her last card (Zeus agreed)" (HZ-P14),
  not as a judge's correction;
- no page, log line or report says a field path (``order.zeus``), a lowercase seat id in
  prose ("the zeus seat") or an unknown card's ``?``;
- the head on every page is the one ``referee verify --head`` reads, and the README's too.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from flask import Flask
from test_service import HERA_HAND, ZEUS_HAND, set_up
from web_helpers import Browser, make_app, referee_of
from web_helpers import new_game as web_game

from referee.games import GAMES
from referee.herazeus.board import describe_event_json
from referee.herazeus.game import hz_board
from referee.service import NeedsInput, Referee
from referee.words import needs_words, parse_head
from web.games.herazeus.forms import order_answer

README = Path(__file__).resolve().parent.parent / "README.md"
RAW_PATH = re.compile(r"\b(order|reveal)\.(hera|zeus)\b|\b(hera|zeus)\b")


def visible(page: str) -> str:
    """The words a person reads on a page: no markup, no attributes, no scripts; the text
    forms a judge types (``<code>``, the pickers' options) and the drawing left out."""
    page = re.sub(r"<(script|style|code|select|svg|datalist)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


@pytest.fixture
def app() -> Flask:
    return make_app()


def pandora_column_against_zeus(ref: Referee, g: str, draws: int = 3) -> None:
    """Zeus's column 1: Pandora (face down, unknown to Hera) with a Poseidon behind; Hera
    challenges it, so Zeus is asked the order of his column (D1) before Hera knows Pandora."""
    for _ in range(draws):
        ref.submit(g, "hera", {"do": "draw"})
    ref.submit(g, "hera", {"do": "end_turn"})
    ref.submit(g, "zeus", {"do": "play", "card": "Poseidon", "column": 1})
    for _ in range(2):
        ref.submit(g, "zeus", {"do": "draw"})
    ref.submit(g, "zeus", {"do": "end_turn"})
    with pytest.raises(NeedsInput):
        ref.submit(g, "hera", {"do": "challenge", "column": 1})


# ---- item 11: words ----------------------------------------------------------------------------


def test_a_question_for_the_other_player_names_what_he_gives_in_words(app: Flask) -> None:
    created, b = web_game(app)
    g = created.game
    ref = referee_of(app)
    zeus = ["Pandora" if c == "Cyclops" else c for c in ZEUS_HAND]
    set_up(ref, g, zeus=zeus, zeus_row=["Pandora", "Giant", "Centaur"])
    pandora_column_against_zeus(ref, g)
    ask = ref.log(g, "hera")[-1]
    assert ask.kind == "ask" and ask.body["needs"] == "order.zeus"
    assert ask.body["reason"] == "Zeus must give the order of his cards onto the discard pile"
    said = "Zeus must give the order of his cards onto the discard pile [D1]"
    for seat in ("hera", "judge"):
        assert said in visible(b[seat].get(f"/g/{g}").get_data(as_text=True)), seat
        assert said in visible(b[seat].get(f"/g/{g}/report.html").get_data(as_text=True)), seat


@pytest.mark.parametrize(
    ("needs", "asked", "words"),
    [
        ("order.zeus", ("zeus",), "the order of his cards onto the discard pile"),
        ("order.hera", ("hera",), "the order of her cards onto the discard pile"),
        ("order.hera", ("judge",), "the order of Hera's cards onto the discard pile"),
        ("pick", ("hera", "zeus"), "the card drawn from the hand"),
        ("reveal.defender", ("zeus",), "the name of a card turned face up"),
        ("hand_cards.vess", ("vess",), "the cards of his hand the text takes"),
        ("hand_cards.vess", ("judge",), "the cards of Vess's hand the text takes"),
    ],
)
def test_a_field_path_reads_as_words(needs: str, asked: tuple[str, ...], words: str) -> None:
    """With the words of the game that asks it (``Game.needs_phrases``, ``possessives``)."""
    game = next(g for g in GAMES.values() if needs.partition(".")[0] in g.needs_phrases)
    assert needs_words(needs, asked, game.possessives, game.needs_phrases) == words


def test_a_card_the_referee_does_not_know_reads_a_card() -> None:
    said = describe_event_json({"kind": "played", "player": "hera", "card": "?", "to": "field 1.2"})
    assert said == "Hera plays a card face down to column 1, row 2."


def test_no_page_says_a_field_path_or_a_seat_id_in_prose(app: Flask) -> None:
    created, b = web_game(app)
    g = created.game
    ref = referee_of(app)
    zeus = ["Pandora" if c == "Cyclops" else c for c in ZEUS_HAND]
    hera = ["?" if c == "Amazon" else c for c in HERA_HAND]  # a card she did not enter
    set_up(ref, g, hera=hera, zeus=zeus, zeus_row=["Pandora", "Giant", "Centaur"])
    ref.submit(g, "hera", {"do": "play", "card": "?", "column": 1})
    pandora_column_against_zeus(ref, g, draws=2)
    ref.reissue(g, "judge", "zeus")
    pages = {
        "hera": b["hera"].get(f"/g/{g}"),
        "judge": b["judge"].get(f"/g/{g}"),
        "public": b["public"].get(f"/g/{g}"),
        "report": b["hera"].get(f"/g/{g}/report.html"),
        "hall": b["judge"].get(f"/judge?table={g}"),
    }
    for name, r in pages.items():
        text = visible(r.get_data(as_text=True))
        found = [text[max(0, m.start() - 40) : m.end() + 20] for m in RAW_PATH.finditer(text)]
        assert not found, f"{name}: {found}"
        assert " ? face down" not in text, name
    log = visible(pages["judge"].get_data(as_text=True))
    assert "Zeus's seat was taken by a device (its join link was opened)." in log
    assert "The judge gave Zeus a new seat link; the old one opens nothing." in log
    assert "Hera plays a card face down to column 1" in visible(
        pages["public"].get_data(as_text=True)
    )


def test_the_readmes_head_is_one_verify_head_reads() -> None:
    text = README.read_text(encoding="utf-8")
    said = re.search(r"Pages show the log head as\s+`([^`]+)`[^(]*\(`([^`]+)`\)", text)
    assert said is not None, "the README says how pages write the head, with an example"
    assert said[1] == "SEQ:HASH"
    assert parse_head(said[2]) == (39, "a5015bfd")
    for head in re.findall(r"--head (\S+)", text):
        if head not in ("SEQ:HASH",):
            parse_head(head)  # every example the README gives reads back


# ---- item 9: a take-back says what happened ---------------------------------------------------


def test_a_take_back_reads_as_what_happened(app: Flask) -> None:
    created, b = web_game(app)
    g = created.game
    ref = referee_of(app)
    set_up(ref, g)
    ref.submit(g, "hera", {"do": "play", "card": "Amazon", "column": 1})
    ref.approve(g, "zeus", ref.take_back(g, "hera").seq)
    ref.submit(g, "hera", {"do": "draw", "card": "Medusa"})
    ref.approve(g, "zeus", ref.take_back(g, "hera").seq, agree=False)
    for seat in ("hera", "zeus", "judge"):
        text = visible(b[seat].get(f"/g/{g}").get_data(as_text=True))
        assert "Hera took back her last card (Zeus agreed) [HZ-P14]." in text, seat
        assert "Zeus agreed to the take-back [HZ-P14]." in text, seat
        assert "Zeus declined the take-back: the action stands [HZ-P14]." in text, seat
        assert "Hera asked to take back her last action (event" in text, seat
        assert "1 action taken back by agreement" in text, seat
        assert "judge corrected" not in text and "Proposal" not in text, seat


# ---- item 8: the default order of a hand the referee does not know -----------------------------


def test_a_hand_with_unknown_cards_keeps_its_default_order_one_tap_away(app: Flask) -> None:
    created, b = web_game(app)
    g = created.game
    ref = referee_of(app)
    set_up(
        ref,
        g,
        zeus=["Giant", "Centaur", "Hero", "?", "?", "Pegasus", "Pandora", "?", "Medusa"],
        zeus_row=["Giant", "Centaur", "Hero"],
    )
    for _ in range(3):
        ref.submit(g, "hera", {"do": "draw"})
    ref.submit(g, "hera", {"do": "end_turn"})
    ref.submit(g, "zeus", {"do": "play", "card": "Medusa", "column": 1})
    for _ in range(2):
        ref.submit(g, "zeus", {"do": "draw"})
    ref.submit(g, "zeus", {"do": "end_turn"})
    with pytest.raises(NeedsInput):
        ref.submit(g, "hera", {"do": "pegasus", "target": "hand"})
    with pytest.raises(NeedsInput):
        ref.answer(g, "zeus", "Pandora")
    hand = hz_board(ref.view(g, "zeus")).zeus["hand"]
    page = b["zeus"].get(f"/g/{g}").get_data(as_text=True)
    stood = re.search(r'name="stood" value="([^"]*)"', page)
    assert stood is not None
    assert stood[1].split(",") == hand  # as the cards stood, Pandora among them
    unknown = hand.count("?")
    assert unknown >= 2 and "Pandora" in hand and "Keep the order they stood in" in page
    assert "order.zeus" not in visible(page)
    # an empty answer is refused in words: which cards are missing, never a field path
    r = b["zeus"].client.post(
        f"/g/{g}/answer",
        data={"csrf": b["zeus"].csrf(g), "needs": "order.zeus", "stood": stood[1], "keep": "1"},
    )
    assert r.status_code == 303
    refused = visible(b["zeus"].get(f"/g/{g}").get_data(as_text=True))
    assert f"name the {unknown} cards the referee does not know" in refused
    assert "order.zeus" not in refused and "lists 0" not in refused
    # naming only the unknown cards, then one tap: the default order
    names = ["Cyclops", "Apollo", "Poseidon", "Hero", "Giant"][:unknown]
    r = b["zeus"].client.post(
        f"/g/{g}/answer",
        data={
            "csrf": b["zeus"].csrf(g),
            "needs": "order.zeus",
            "stood": stood[1],
            "named": ",".join(names),
            "keep": "1",
        },
    )
    assert r.status_code == 303
    it = iter(names)
    want = [next(it) if c == "?" else c for c in stood[1].split(",")]
    side = hz_board(ref.view(g, "zeus")).zeus
    assert side["discard"][-len(want) :] == want


def test_the_default_order_fills_the_unknown_cards_where_they_stood() -> None:
    form = {"stood": "Io,?,Amazon,?", "named": "Hydra,Harpy", "keep": "1", "value": "x"}
    assert order_answer(form) == ["Io", "Hydra", "Amazon", "Harpy"]
    assert order_answer({"stood": "Io,Amazon", "value": ""}) == ["Io", "Amazon"]
    assert order_answer({"stood": "Io,Amazon", "value": "Amazon,Io"}) == ["Amazon", "Io"]
    assert order_answer({"order": "Amazon,Io", "stood": "Io,Amazon"}) == ["Amazon", "Io"]
    with pytest.raises(ValueError, match=r"name the 2 cards the referee does not know"):
        order_answer({"stood": "Io,?,Amazon,?", "named": "Hydra"})


# ---- item 11: a Pegasus card and its column, one tap each ---------------------------------------


def second_turns(app: Flask) -> tuple[Referee, str, dict[str, Browser]]:
    """A game set up and each player's first turn drawn out: Hera's second turn begins (her
    Pegasus may take a card from Zeus's hand)."""
    created, b = web_game(app)
    g = created.game
    ref = referee_of(app)
    set_up(ref, g)
    for seat in ("hera", "zeus"):
        for _ in range(3):
            ref.submit(g, seat, {"do": "draw"})
        ref.submit(g, seat, {"do": "end_turn"})
    return ref, g, b


def test_the_card_pegasus_drew_and_its_column_are_one_tap_each(app: Flask) -> None:
    """D2: Hera's Pegasus draws from Zeus's hand; Zeus names the card with one tap of its
    name, then Hera puts it into a column with one tap of the column (before: a drop-down,
    an option and Answer, three taps each)."""
    ref, g, b = second_turns(app)
    with pytest.raises(NeedsInput):
        ref.submit(g, "hera", {"do": "pegasus", "target": "hand"})
    page = b["zeus"].get(f"/g/{g}").get_data(as_text=True)
    taps = re.findall(r'<button type="submit" name="tap" value="([^"]+)"', page)
    assert "Apollo" in taps  # a card of his hand the referee knows, one button each
    r = b["zeus"].client.post(
        f"/g/{g}/answer", data={"csrf": b["zeus"].csrf(g), "needs": "pick", "tap": "Apollo"}
    )
    assert r.status_code == 303
    page = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    columns = re.findall(r'<button type="submit" name="tap" value="(\d)"[^>]*>Column \d<', page)
    assert columns == ["1", "2", "3"]  # as Hera sees her opponent's columns (HZ-P10)
    r = b["hera"].client.post(
        f"/g/{g}/answer", data={"csrf": b["hera"].csrf(g), "needs": "place", "tap": "2"}
    )
    assert r.status_code == 303
    front = hz_board(ref.view(g, "hera")).zeus["field"][1][0]
    assert str(front).lstrip("^") == "Apollo"


def test_while_a_question_waits_no_action_is_offered(app: Flask) -> None:
    """HZ-P11: while Zeus names the card Hera's Pegasus drew, neither player records another
    action, so neither page offers one (Hera's Draw and Play stayed on her page, each tap
    refused); once answered, Hera's actions come back."""
    ref, g, b = second_turns(app)
    assert bool(ref.view(g, "hera").legal)
    with pytest.raises(NeedsInput):
        ref.submit(g, "hera", {"do": "pegasus", "target": "hand"})
    for seat in ("hera", "zeus", "judge"):
        assert not ref.view(g, seat).legal, seat
    page = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    assert 'id="g-draw"' not in page and 'id="g-play"' not in page
    b["zeus"].client.post(
        f"/g/{g}/answer", data={"csrf": b["zeus"].csrf(g), "needs": "pick", "tap": "Apollo"}
    )
    assert not ref.view(g, "hera").legal  # Hera still places the card (HZ-P11)
    b["hera"].client.post(
        f"/g/{g}/answer", data={"csrf": b["hera"].csrf(g), "needs": "place", "tap": "2"}
    )
    assert bool(ref.view(g, "hera").legal)
