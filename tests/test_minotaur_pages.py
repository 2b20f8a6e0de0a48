"""Minotaur Lords pages through the Flask client: the forced discard asked on the page (M4),
an effect recorded with the pickers (M12), and what the public page shows (M14)."""

from __future__ import annotations

import re
from pathlib import Path

from web_helpers import Browser, make_app, new_game, referee_of

from engine.minotaur.cards import parse_deck_list

DECKS = (Path(__file__).resolve().parent / "data" / "minotaur" / "decks.csv").read_text()
MIRON = [c.name for c in parse_deck_list(DECKS) if c.deck == "miron"]


def _csrf(b: Browser, game: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', b.get(f"/g/{game}").data.decode())
    assert m is not None
    return m.group(1)


def test_the_forced_discard_is_one_choice_on_the_page_and_ends_the_turn() -> None:
    app = make_app()
    created, b = new_game(app, name="minotaur", options={"deck_list": DECKS, "first": "miron"})
    g, ref = created.game, referee_of(app)
    hand = MIRON[:6]
    post = b["miron"].client.post
    r = post(f"/g/{g}/act", data={"csrf": _csrf(b["miron"], g), "do": "hand", "cards": hand})
    assert r.status_code == 303 and ref.folded(g).state.side("miron").hand == tuple(hand)
    action = '{"do":"pass","to":"supremacy"}'
    r = post(f"/g/{g}/act", data={"csrf": _csrf(b["miron"], g), "action": action})
    assert r.status_code == 200 and "[M4]" in r.data.decode()  # the guardian asks first
    post(f"/g/{g}/act", data={"csrf": _csrf(b["miron"], g), "confirmed": action})
    page = b["miron"].get(f"/g/{g}").data.decode()
    assert 'id="g-end_turn"' in page and 'name="discard"' in page and "[M4]" in page
    post(f"/g/{g}/act", data={"csrf": _csrf(b["miron"], g), "do": "end_turn", "discard": hand[2]})
    st = ref.folded(g).state
    assert st.turn.player == "vess" and len(st.side("miron").hand) == 5
    assert "Your turn" in b["vess"].get(f"/g/{g}").data.decode()
    public = b["public"].get(f"/g/{g}").data.decode()
    assert hand[2] not in public  # discarded from the hand: known to its owner only (M14)


def test_an_effect_is_recorded_with_the_pickers() -> None:
    app = make_app()
    created, b = new_game(app, name="minotaur", options={"deck_list": DECKS, "first": "miron"})
    g, ref = created.game, referee_of(app)
    cards = {c.name: c for c in parse_deck_list(DECKS)}
    # a phase-0 servant with an active text, from Miron's deck
    name = next(
        n
        for n in MIRON
        if cards[n].phase == 0
        and cards[n].type.value == "servant"
        and cards[n].text.value == "active"
    )
    col = f"upper-{sorted(k.value for k in cards[name].icons)[0]}"
    post = b["miron"].client.post
    post(f"/g/{g}/act", data={"csrf": _csrf(b["miron"], g), "do": "hand", "cards": [name]})
    post(
        f"/g/{g}/act",
        data={"csrf": _csrf(b["miron"], g), "do": "play", "card": name, "column": col},
    )
    page = b["miron"].get(f"/g/{g}").data.decode()
    assert f'value="{name}@pending"' in page  # the card acting now is the first source
    r = post(
        f"/g/{g}/act",
        data={
            "csrf": _csrf(b["miron"], g),
            "do": "effect",
            "source": f"{name}@pending",
            "op": "draw",
            "draw_side": "miron",
            "count": "1",
        },
    )
    assert r.status_code == 303
    st = ref.folded(g).state
    assert len(st.side("miron").hand) == 6 and len(st.side("miron").deck) == 23
    page = b["vess"].get(f"/g/{g}").data.decode()
    log = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert f"Miron records an effect of {name} (1 operation)" in log  # the log, in words
    assert "Miron drew 1 card." in log  # and what it did
