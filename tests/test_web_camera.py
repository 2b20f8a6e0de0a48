"""The camera in the web app (issue 8): a kit file when creating a game, photos of cards on the
seat page and through the API, the camera page and its frames, through the Flask test client
with synthetic pictures of the kit's own stickers (``vision.herazeus.synth``).

What is checked: a kit creates the game with its deck list and stays on the server; a bad kit
file is refused naming the field; a photo lists the seat's own cards with their confidence and
refuses foreign codes with the reason; confirming enters them as tapping the names would (the
deal, a draw, an unknown hand card); a game without a kit refuses; a frame without the mat says
so; a frame's proposal is computed against the sender's view and becomes an event only when
confirmed; frames are bounded; and nothing a photo read reaches the other seat.
"""

from __future__ import annotations

import io
import json
import re
from datetime import UTC, datetime
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from web_helpers import Browser, make_app, new_game, referee_of
from werkzeug.test import TestResponse

from printables.herazeus.kit import Kit
from referee.herazeus.game import hz_board
from vision.herazeus.kit import VisionKit, as_vision_kit
from vision.herazeus.synth import foreign_payload, render_mat

KIT = Kit.create(kit_id="K7QX2", secret="5e" * 16, now=datetime(2025, 1, 1, tzinfo=UTC))
VK: VisionKit = as_vision_kit(KIT)
HERA_DEAL = [
    "Amazon",
    "Artemis",
    "Furies",
    "Harpy",
    "Hydra",
    "Medusa",
    "Pegasus",
    "Dionysus",
    "Nemesis",
]
ZEUS_DEAL = [
    "Apollo",
    "Centaur",
    "Giant",
    "Cyclops",
    "Hero",
    "Poseidon",
    "Pegasus",
    "Hades",
    "Medusa",
]


# ---- pictures ------------------------------------------------------------------------------


def payload_of(deck: str, name: str, nth: int = 0) -> str:
    """The sticker payload of the ``nth`` copy of ``name`` in ``deck``."""
    hits = [p for p, c in VK.cards.items() if c.deck == deck and c.name == name]
    return sorted(hits, key=lambda p: VK.cards[p].serial)[nth]


def jpeg(img: Any, quality: int = 90) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return bytes(buf.tobytes())


def mat_picture(
    layout: dict[tuple[str, int, int], dict[str, Any]],
    seed: int = 1,
    hands: tuple[tuple[str, int, int], ...] = (),
) -> bytes:
    """The kit's mat seen from above with ``layout`` on it, slightly tilted, as a JPEG; a hand
    (a skin-coloured blob) over each cell of ``hands``."""
    rng = np.random.default_rng(seed)
    top, _ = render_mat(VK, layout, rng, 3.0)  # type: ignore[arg-type]
    for key in hands:
        x, y, w, h = (v * 3.0 for v in VK.mat.cells[key])  # type: ignore[index]
        centre = (round(x + w / 2), round(y + h / 2))
        cv2.ellipse(top, centre, (round(w * 0.6), round(h * 0.6)), 20, 0, 360, (120, 150, 205), -1)
    h, w = top.shape[:2]
    src = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    dst = src + np.array([(40, 30), (-30, 50), (-20, -40), (30, -20)], np.float32) + 60
    frame = cv2.warpPerspective(
        top,
        cv2.getPerspectiveTransform(src, dst),
        (w + 120, h + 120),
        borderValue=(90, 120, 140),
    )
    return jpeg(frame)


def cards_photo(cards: list[tuple[str, str]], foreign: int = 0, seed: int = 2) -> bytes:
    """A photo of face-up cards (deck, name) and ``foreign`` cards of another kit, laid in a
    row of the mat's cells (read_cards reads every code in the picture)."""
    rng = np.random.default_rng(seed)
    layout: dict[tuple[str, int, int], dict[str, Any]] = {}
    cells = [("hera", c, r) for r in (1, 2, 3, 4) for c in (1, 2, 3)]
    seen: dict[tuple[str, str], int] = {}
    for cell, (deck, name) in zip(cells, cards, strict=False):
        n = seen.get((deck, name), 0)
        seen[(deck, name)] = n + 1
        p = payload_of(deck, name, n)
        layout[cell] = {"state": "up", "payload": p, **VK.cards[p].to_json()}
    for i in range(foreign):
        cell = cells[len(cards) + i]
        layout[cell] = {"state": "up", "payload": foreign_payload(rng), "name": "Alien"}
    return mat_picture(layout, seed)


FIRST_ROWS: dict[tuple[str, int, int], dict[str, Any]] = {
    (side, c, 1): {"state": "down", "deck": side} for side in ("hera", "zeus") for c in (1, 2, 3)
}


# ---- games -----------------------------------------------------------------------------------


@pytest.fixture
def app() -> Flask:
    return make_app(FRAME_BURST=20)  # the live camera's tests send a few frames at once


def kit_game(app: Flask, **kw: Any) -> tuple[str, dict[str, Browser]]:
    created, b = new_game(app, catalogue=KIT.catalogue_for_game(), kit=KIT.to_json(), **kw)
    return created.game, b


def in_play(app: Flask) -> tuple[str, dict[str, Browser]]:
    """A kit game after both deals and first rows (Hera: Amazon, Artemis, Furies face down;
    Zeus: Apollo, Centaur, Giant); Hera's first turn."""
    g, b = kit_game(app)
    ref = referee_of(app)
    ref.submit(g, "hera", {"do": "deal", "player": "hera", "cards": HERA_DEAL})
    ref.submit(g, "zeus", {"do": "deal", "player": "zeus", "cards": ZEUS_DEAL})
    ref.submit(g, "hera", {"do": "first_row", "player": "hera", "cards": HERA_DEAL[:3]})
    ref.submit(g, "zeus", {"do": "first_row", "player": "zeus", "cards": ZEUS_DEAL[:3]})
    assert ref.view(g, "hera").to_json()["turn"]["player"] == "hera"
    return g, b


def upload(
    b: Browser, game: str, what: str, data: bytes, *, multipart: bool = False
) -> TestResponse:
    """POSTs an image to /api/v1/games/<game>/<what> (``photos`` or ``frames``)."""
    h = {"X-CSRF-Token": b.csrf(game)}
    url = f"/api/v1/games/{game}/{what}"
    if multipart:
        field = "photo" if what == "photos" else "frame"
        body = {field: (io.BytesIO(data), "p.jpg", "image/jpeg")}
        return b.client.post(url, headers=h, data=body, content_type="multipart/form-data")
    return b.client.post(url, headers={**h, "Content-Type": "image/jpeg"}, data=data)


def live(b: Browser, game: str, data: bytes) -> TestResponse:
    """The live camera's view of a still table: the same frame twice (a change is proposed
    once two frames saw it, issue 14); the second answer."""
    first = upload(b, game, "frames", data)
    assert first.status_code == 200, first.data
    return upload(b, game, "frames", data)


def page_photo(b: Browser, game: str, data: bytes) -> TestResponse:
    body = {"csrf": b.csrf(game), "photo": (io.BytesIO(data), "p.jpg", "image/jpeg")}
    return b.client.post(f"/g/{game}/photo", data=body, content_type="multipart/form-data")


def confirm(b: Browser, game: str, use: str, picks: list[str]) -> str:
    """Ticks ``picks`` (deck:serial) and presses the ``use`` button; returns the seat page."""
    form = {"csrf": b.csrf(game), "use": use, "pick": picks}
    r = b.client.post(f"/g/{game}/photo/confirm", data=form)
    assert r.status_code == 303, r.data
    return b.get(f"/g/{game}").get_data(as_text=True)


def flashes(html: str) -> str:
    return " ".join(re.findall(r'<p class="flash [a-z]+"[^>]*>(.*?)</p>', html, re.S))


def log_len(app: Flask, game: str) -> int:
    return len(referee_of(app).log(game, "judge"))


# ---- a kit when creating a game ----------------------------------------------------------------


def home_form(b: Browser, kit_bytes: bytes | None, name: str = "kit.json") -> TestResponse:
    b.get("/")
    form: dict[str, Any] = {"csrf": b.csrf(""), "profile": "rio-grande", "starting": "hera"}
    if kit_bytes is not None:
        form["kit"] = (io.BytesIO(kit_bytes), name, "application/json")
    return b.client.post("/new", data=form, content_type="multipart/form-data")


def test_a_kit_file_creates_the_game_with_its_deck_list_and_keeps_the_kit_on_the_server(
    app: Flask,
) -> None:
    b = Browser(app)
    r = home_form(b, KIT.dumps().encode())
    assert r.status_code == 303, r.data
    game = r.headers["Location"].split("/")[2]
    ref = referee_of(app)
    assert ref.kit(game) == KIT.to_json()
    assert ref.view(game, "judge").to_json()["kit"] == "kit"
    create = ref.log(game, "judge")[0].body
    assert create["catalogue"] == KIT.catalogue_for_game()
    assert create["kit"] == {"id": "K7QX2"}  # the log names only the kit's id
    created_page = b.get(f"/g/{game}/created").get_data(as_text=True)
    assert KIT.secret not in created_page
    for seat_code in re.findall(r"/join/[^/]+/([A-Za-z0-9_-]+)", created_page):
        s = Browser(app)
        s.join(game, seat_code)
        for path in (f"/g/{game}", f"/api/v1/games/{game}", f"/api/v1/games/{game}/log"):
            body = s.get(path).get_data(as_text=True)
            assert KIT.secret not in body and payload_of("hera", "Io") not in body


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"{not json", "not JSON"),
        (b'{"format": "a", "format": "b"}', "duplicate key 'format'"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (json.dumps({**KIT.to_json(), "kit_id": "nope"}).encode(), "kit_id"),
        (
            json.dumps({k: v for k, v in KIT.to_json().items() if k != "stickers"}).encode(),
            "stickers",
        ),
        (json.dumps({**KIT.to_json(), "secret": "0" * 32}).encode(), "stickers[0]"),
        (b"[1, 2]", "must be a JSON object"),
    ],
)
def test_a_bad_kit_file_is_refused_naming_the_problem_and_creates_nothing(
    app: Flask, content: bytes, says: str
) -> None:
    b = Browser(app)
    before = len(referee_of(app).games())
    r = home_form(b, content, "mykit.json")
    assert r.status_code == 303 and r.headers["Location"].endswith("/")
    html = b.get("/").get_data(as_text=True)
    msg = flashes(html)
    assert "Refused: the kit file could not be read: mykit.json" in msg
    assert says in msg.replace("&#39;", "'"), msg
    assert "Traceback" not in html
    assert len(referee_of(app).games()) == before


def test_the_api_creates_a_game_with_a_kit_and_refuses_a_bad_one(app: Flask) -> None:
    b = Browser(app)
    r = b.post("/api/v1/games", {"kit": KIT.to_json()})
    assert r.status_code == 201, r.data
    assert referee_of(app).kit(r.json["game"]) == KIT.to_json()  # type: ignore[index]
    assert KIT.secret not in r.get_data(as_text=True)
    bad = b.post("/api/v1/games", {"kit": {**KIT.to_json(), "kit_id": "x"}})
    assert bad.status_code == 422 and "kit_id" in bad.json["fields"]["kit"][0]  # type: ignore[index]
    both = b.post("/api/v1/games", {"kit": KIT.to_json(), "catalogue": {}})
    assert both.status_code == 422


# ---- photos of cards ---------------------------------------------------------------------------


@pytest.mark.parametrize("multipart", [True, False])
def test_a_photo_lists_the_cards_with_confidence_and_refuses_foreign_codes(
    app: Flask, multipart: bool
) -> None:
    g, b = kit_game(app)
    n = log_len(app, g)
    photo = cards_photo([("hera", "Hydra"), ("hera", "Io"), ("zeus", "Cyclops")], foreign=1)
    r = upload(b["hera"], g, "photos", photo, multipart=multipart)
    assert r.status_code == 200, r.data
    body = r.json
    assert body is not None
    got = {(c["name"], c["own"]) for c in body["cards"]}
    assert got == {("Hydra", True), ("Io", True), ("Cyclops/zeus", False)}
    assert all(c["confidence"] == 1.0 for c in body["cards"])
    assert [c["serial"] for c in body["cards"] if c["card"] == "Io"] == [
        VK.cards[payload_of("hera", "Io")].serial
    ]
    assert len(body["refused"]) == 1
    assert "belongs to kit ZZZZ2, not to this kit (K7QX2)" in body["refused"][0]["reason"]
    assert log_len(app, g) == n  # reading records nothing


def test_a_damaged_code_is_refused_with_its_reason_not_read_as_a_card(app: Flask) -> None:
    from printables.herazeus.payload import face_payload

    g, b = kit_game(app)
    good = face_payload("K7QX2", "5e" * 16, "hera", 3)
    forged = good[:-1] + ("A" if good[-1] != "A" else "B")  # the check value no longer fits
    layout = {("hera", 1, 1): {"state": "up", "payload": forged, "name": "Fake", "serial": 3}}
    r = upload(b["hera"], g, "photos", mat_picture(layout))
    assert r.status_code == 200
    assert r.json["cards"] == []  # type: ignore[index]
    assert r.json["refused"][0]["reason"]  # type: ignore[index]


def test_a_photo_is_refused_clearly_when_it_is_no_image_or_from_the_public(app: Flask) -> None:
    g, b = kit_game(app)
    r = upload(b["hera"], g, "photos", b"not a jpeg at all")
    assert r.status_code == 422 and r.json["error"] == "Invalid"  # type: ignore[index]
    assert "photo" in r.json["fields"]  # type: ignore[index]
    r = b["hera"].post(f"/api/v1/games/{g}/photos", {"photo": "x"}, game=g)
    assert r.status_code == 415
    r = upload(b["public"], g, "photos", cards_photo([("hera", "Io")]))
    assert r.status_code == 403


def test_a_photo_on_the_seat_page_is_listed_then_confirmed_as_the_nine_dealt_cards(
    app: Flask,
) -> None:
    g, b = kit_game(app)
    ref = referee_of(app)
    n = log_len(app, g)
    shown = [("hera", x) for x in ("Hydra", "Io", "Amazon", "Amazon")] + [("zeus", "Giant")]
    r = page_photo(b["hera"], g, cards_photo(shown, foreign=1))
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/g/{g}#photo")
    html = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    assert "Read 4 of your cards" in flashes(html)
    section = html[html.index('id="photo-read"') :]
    for name in ("Hydra", "Io", "Amazon"):
        assert f"<strong>{name}</strong>" in section
    assert section.count("100% sure") == 4  # two physical Amazons, each once
    assert "Giant: a card of Zeus's deck, not yours; not entered" in section
    assert "A code was refused" in section
    assert 'value="deal"' in section
    assert log_len(app, g) == n  # nothing is recorded before the player confirms
    picks = re.findall(r'name="pick" value="([a-z]+:\d+)"', section)
    html = confirm(b["hera"], g, "deal", picks)
    hand = hz_board(ref.view(g, "hera")).hera["hand"]
    assert sorted(hand) == sorted(["Amazon", "Amazon", "Hydra", "Io", *["?"] * 5])
    assert 'id="photo-read"' not in html or "<strong>" not in html[html.index('id="photo-read"') :]


def test_a_photo_of_the_drawn_card_enters_the_draw(app: Flask) -> None:
    g, b = in_play(app)
    ref = referee_of(app)
    page_photo(b["hera"], g, cards_photo([("hera", "Hades")]))
    html = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    assert 'value="draw"' in html
    pick = re.findall(r'name="pick" value="([a-z]+:\d+)"', html)
    confirm(b["hera"], g, "draw", pick)
    v = ref.view(g, "hera").to_json()
    assert v["hera"]["hand"].count("Hades") == 1 and v["turn"]["used"] == 1
    assert ref.log(g, "judge")[-1].body["action"] == {"do": "draw", "card": "Hades"}


def test_a_photo_names_an_unknown_card_of_the_hand_by_an_observation_sealed_from_zeus(
    app: Flask,
) -> None:
    g, b = kit_game(app)
    ref = referee_of(app)
    ref.submit(g, "hera", {"do": "deal", "player": "hera", "cards": ["?"] * 9})
    page_photo(b["hera"], g, cards_photo([("hera", "Pythia")]))
    html = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    assert 'value="hand"' in html and 'value="deal"' not in html
    pick = re.findall(r'name="pick" value="([a-z]+:\d+)"', html)
    confirm(b["hera"], g, "hand", pick)
    rec = ref.log(g, "judge")[-1]
    assert rec.kind == "observation"
    assert rec.body["source"] == "camera" and rec.body["card"] == "Pythia"
    assert hz_board(ref.view(g, "hera")).hera["hand"].count("Pythia") == 1
    zeus_copy = ref.log(g, "zeus")[-1].body
    assert "$sealed" in json.dumps(zeus_copy["card"])
    records = b["zeus"].get(f"/api/v1/games/{g}/log").json["records"]  # type: ignore[index]
    assert "Pythia" not in json.dumps(records[1:])  # the create record lists every name


def test_a_photo_of_several_hand_cards_is_entered_all_or_nothing(app: Flask) -> None:
    """Issue 12: one refused card of a photo records none of them. Hera's only Pandora stands
    in her first row, so a Pandora read in her hand is refused (copy count); the Medusa read
    with it is not recorded either, and the photo stays to be confirmed again."""
    g, b = kit_game(app)
    ref = referee_of(app)
    ref.submit(
        g,
        "hera",
        {"do": "deal", "player": "hera", "cards": ["Pandora", "Pythia", "Medusa", *["?"] * 6]},
    )
    ref.submit(
        g, "hera", {"do": "first_row", "player": "hera", "cards": ["Pandora", "Pythia", "Medusa"]}
    )
    before = log_len(app, g)
    page_photo(b["hera"], g, cards_photo([("hera", "Medusa"), ("hera", "Pandora")]))
    html = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    picks = re.findall(r'name="pick" value="([a-z]+:\d+)"', html)
    assert len(picks) == 2
    html = confirm(b["hera"], g, "hand", picks)
    said = flashes(html)
    assert "Refused [D20]: Pandora:" in said and "none of the 2 cards was recorded" in said
    assert log_len(app, g) == before
    assert hz_board(ref.view(g, "hera")).hera["hand"] == ["?"] * 6
    assert re.findall(r'name="pick" value="([a-z]+:\d+)"', html) == picks  # still to confirm


def test_a_photo_of_several_hand_cards_enters_them_in_one_go(app: Flask) -> None:
    g, b = kit_game(app)
    ref = referee_of(app)
    ref.submit(g, "hera", {"do": "deal", "player": "hera", "cards": ["?"] * 9})
    before = log_len(app, g)
    page_photo(b["hera"], g, cards_photo([("hera", "Medusa"), ("hera", "Pandora")]))
    html = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    html = confirm(b["hera"], g, "hand", re.findall(r'name="pick" value="([a-z]+:\d+)"', html))
    assert "Recorded in your hand" in flashes(html)
    assert log_len(app, g) == before + 2
    hand = hz_board(ref.view(g, "hera")).hera["hand"]
    assert sorted(hand) == sorted(["Medusa", "Pandora", *["?"] * 7])


def test_the_other_seat_never_sees_what_a_photo_read_or_entered(app: Flask) -> None:
    g, b = kit_game(app)
    shown = [("hera", x) for x in ("Hydra", "Io", "Sirens")]
    secrets = [payload_of("hera", x) for _, x in shown]
    api = upload(b["hera"], g, "photos", cards_photo(shown))
    assert {c["payload"] for c in api.json["cards"]} == set(secrets)  # type: ignore[index]
    page_photo(b["hera"], g, cards_photo(shown))
    html = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    confirm(b["hera"], g, "deal", re.findall(r'name="pick" value="([a-z]+:\d+)"', html))
    ref = referee_of(app)
    assert sorted(hz_board(ref.view(g, "hera")).hera["hand"]) == sorted(
        ["Hydra", "Io", "Sirens", *["?"] * 6]
    )
    for seat in ("zeus", "public"):
        view = b[seat].get(f"/api/v1/games/{g}").json
        assert view["hera"]["hand"] == ["?"] * 9  # type: ignore[index]
        texts = {
            "view": json.dumps(view),
            "log": b[seat].get(f"/api/v1/games/{g}/log").get_data(as_text=True),
            "export": b[seat].get(f"/api/v1/games/{g}/export").get_data(as_text=True),
            "page": b[seat].get(f"/g/{g}").get_data(as_text=True),
            "stream": b[seat].get(f"/api/v1/games/{g}/stream").get_data(as_text=True),
        }
        for where, text in texts.items():
            for p in secrets:
                assert p not in text, (seat, where)
            assert "Read from your photo" not in text and "100% sure" not in text, (seat, where)
        records = json.loads(texts["log"])["records"][1:]  # the create record names every card
        board = {k: v for k, v in view.items() if k != "decks"}  # type: ignore[union-attr]
        for name in ("Hydra", "Sirens"):  # the deck lists name every card (public, issue 12)
            assert f'"{name}"' not in json.dumps(board) + json.dumps(records), (seat, name)


def test_a_game_without_a_kit_refuses_photos_and_frames_clearly(app: Flask) -> None:
    created, b = new_game(app)
    g = created.game
    html = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    assert 'id="no-kit"' in html and 'name="photo"' not in html
    r = page_photo(b["hera"], g, cards_photo([("hera", "Io")]))
    html = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    assert "created without a sticker kit" in flashes(html)
    for what in ("photos", "frames"):
        r = upload(b["hera"], g, what, cards_photo([("hera", "Io")]))
        assert r.status_code == 409 and r.json["error"] == "NoKit", what  # type: ignore[index]
    page = b["hera"].get(f"/g/{g}/camera").get_data(as_text=True)
    assert 'id="no-kit"' in page and "without a sticker kit" in page


def test_the_servers_kit_reads_for_a_game_created_without_one() -> None:
    app = make_app(VISION_KIT=VK)
    created, b = new_game(app)
    r = upload(b["zeus"], created.game, "photos", cards_photo([("zeus", "Giant")]))
    assert r.status_code == 200 and r.json["cards"][0]["name"] == "Giant"  # type: ignore[index]


# ---- frames of the mat -------------------------------------------------------------------------


def test_a_frame_without_the_mat_says_so(app: Flask) -> None:
    g, b = kit_game(app)
    noise = np.random.default_rng(3).integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    r = upload(b["hera"], g, "frames", jpeg(noise))
    assert r.status_code == 200, r.data
    body = r.json
    assert body is not None and body["found"] is False
    assert "the mat was not found" in body["message"] and "corner" in body["message"]
    assert body["proposals"] == [] and "image" not in body


def test_a_frame_that_matches_the_record_proposes_nothing_and_shows_the_annotated_mat(
    app: Flask,
) -> None:
    g, b = in_play(app)
    n = log_len(app, g)
    r = upload(b["hera"], g, "frames", mat_picture(FIRST_ROWS), multipart=True)
    assert r.status_code == 200, r.data
    body = r.json
    assert body is not None and body["found"] is True
    assert body["proposals"] == [] and body["seq"] == n - 1
    assert r.headers["ETag"] == f'"{n - 1}"'
    assert [c["state"] for c in body["snapshot"]["hera"][1]] == ["down", "empty", "empty", "empty"]
    assert body["image"].startswith("data:image/jpeg;base64,")
    import base64

    img = cv2.imdecode(np.frombuffer(base64.b64decode(body["image"].split(",", 1)[1]), np.uint8), 1)
    assert img is not None and img.shape[1] == 320  # the 256 mm mat at 1.25 px/mm
    assert log_len(app, g) == n  # a frame records nothing


def test_the_live_camera_proposes_a_change_only_once_two_frames_in_a_row_saw_it(
    app: Flask,
) -> None:
    """Issue 14, item 1: one frame with a new card proposes nothing yet (``pending`` says a
    change waits); the next frame that sees it too proposes it. A frame in between that does
    not see it (a hand passing) starts the count again; so does a new event (another view)."""
    g, b = in_play(app)
    played = mat_picture({**FIRST_ROWS, ("hera", 2, 2): {"state": "down", "deck": "hera"}})
    still = mat_picture(FIRST_ROWS)
    first = upload(b["hera"], g, "frames", played).json
    assert first is not None and first["proposals"] == [] and first["pending"] == 2
    second = upload(b["hera"], g, "frames", played).json
    assert second is not None and len(second["proposals"]) == 2 and second["pending"] == 0
    assert upload(b["zeus"], g, "frames", played).json["proposals"] == []  # type: ignore[index]
    assert upload(b["hera"], g, "frames", still).json["pending"] == 0  # type: ignore[index]
    again = upload(b["hera"], g, "frames", played).json
    assert again is not None and again["proposals"] == [] and again["pending"] == 2


def test_a_hand_hiding_the_column_between_two_frames_that_saw_a_change_does_not_stop_it(
    app: Flask,
) -> None:
    """Issue 14, item 2 (several frames combined): a frame in which a hand hides the front of
    the column (its cells unknown, so it proposes nothing) neither counts nor starts the count
    again, so the next frame that sees the played card proposes it."""
    g, b = in_play(app)
    layout = {**FIRST_ROWS, ("hera", 2, 2): {"state": "down", "deck": "hera"}}
    played = mat_picture(layout)
    hidden = mat_picture(layout, hands=(("hera", 2, 1), ("hera", 2, 2)))
    first = upload(b["hera"], g, "frames", played).json
    assert first is not None and first["proposals"] == [] and first["pending"] == 2
    covered = upload(b["hera"], g, "frames", hidden).json
    assert covered is not None and covered["proposals"] == [] and covered["pending"] == 0
    column = [c["state"] for c in covered["snapshot"]["hera"][1]]
    assert column == ["unknown", "unknown", "empty", "empty"]
    third = upload(b["hera"], g, "frames", played).json
    assert third is not None and len(third["proposals"]) == 2 and third["pending"] == 0


def test_a_proposed_play_becomes_an_event_only_when_confirmed(app: Flask) -> None:
    g, b = in_play(app)
    ref = referee_of(app)
    layout = {**FIRST_ROWS, ("hera", 2, 2): {"state": "down", "deck": "hera"}}
    r = live(b["hera"], g, mat_picture(layout))
    body = r.json
    assert body is not None
    # two backs in column 2 where one was recorded: either could be the new one (D10 lets a
    # card go to any place), so both places are proposed, each half sure
    props = body["proposals"]
    assert {(q["kind"], q["side"], q["column"], q["position"]) for q in props} == {
        ("play", "hera", 2, 1),
        ("play", "hera", 2, 2),
    }
    assert all(q["confidence"] <= 0.5 for q in props)
    p = next(q for q in props if q["position"] == 2)
    c = p["confirm"]
    assert c["endpoint"] == "actions" and c["body"]["action"]["card"] == "?"
    assert "Hydra" in c["choices"] and "Amazon" not in c["choices"]  # Amazon lies in column 1
    n = log_len(app, g)
    assert log_len(app, g) == n  # proposed, not applied
    action = {**c["body"]["action"], "card": "Hydra"}
    done = b["hera"].post(
        f"/api/v1/games/{g}/actions",
        {"action": action},
        game=g,
        headers={"If-Match": f'"{body["seq"]}"'},
    )
    assert done.status_code == 200, done.data
    assert log_len(app, g) == n + 1
    assert hz_board(ref.view(g, "hera")).hera["field"][1] == ["Artemis", "Hydra"]
    again = live(b["hera"], g, mat_picture(layout))
    assert again.json["proposals"] == []  # type: ignore[index]
    stale = b["hera"].post(
        f"/api/v1/games/{g}/actions",
        {"action": action},
        game=g,
        headers={"If-Match": f'"{body["seq"]}"'},
    )
    assert stale.status_code == 409  # a second tap on an old proposal records nothing


def test_proposals_are_computed_against_the_senders_view_and_hide_the_opponents_cards(
    app: Flask,
) -> None:
    g, b = in_play(app)
    layout = {**FIRST_ROWS, ("hera", 2, 2): {"state": "down", "deck": "hera"}}
    picture = mat_picture(layout)
    r = live(b["zeus"], g, picture)
    body = r.json
    assert body is not None
    assert body["proposals"]
    for p in body["proposals"]:
        assert p["kind"] == "play" and p["confirm"] == {
            "endpoint": None,
            "body": None,
            "choices": [],
            "by": "hera",
        }
    text = r.get_data(as_text=True)
    for name in HERA_DEAL:  # Hera's hand and face-down cards: never in Zeus's answer
        assert f'"{name}' not in text and f"{name}/hera" not in text, name
    judge = live(b["judge"], g, picture).json
    assert judge["proposals"][0]["confirm"]["endpoint"] == "actions"  # type: ignore[index]
    assert judge["proposals"][0]["confirm"]["choices"] == []  # type: ignore[index]


def test_a_reveal_seen_by_the_camera_is_confirmed_as_an_observation(app: Flask) -> None:
    g, b = in_play(app)
    ref = referee_of(app)
    p = payload_of("hera", "Artemis")
    layout = {
        **FIRST_ROWS,
        ("hera", 2, 1): {"state": "up", "payload": p, **VK.cards[p].to_json()},
    }
    body = live(b["hera"], g, mat_picture(layout)).json
    assert body is not None
    (prop,) = body["proposals"]
    assert prop["kind"] == "reveal" and prop["confirm"]["endpoint"] == "observations"
    obs = prop["confirm"]["body"]
    assert obs == {
        "player": "hera",
        "zone": "field",
        "column": 2,
        "position": 1,
        "card": "Artemis",
        "source": "camera",
    }
    r = b["hera"].post(f"/api/v1/games/{g}/observations", obs, game=g)
    assert r.status_code == 201, r.data
    assert ref.log(g, "judge")[-1].kind == "observation"


def test_frames_are_bounded_per_seat_and_refuse_bad_uploads() -> None:
    app = make_app(FRAME_BURST=2, FRAME_RATE=0.01)
    g, b = kit_game(app)
    tiny = jpeg(np.full((60, 80, 3), 128, np.uint8))
    assert upload(b["hera"], g, "frames", tiny).status_code == 200
    assert upload(b["hera"], g, "frames", tiny).status_code == 200
    r = upload(b["hera"], g, "frames", tiny)
    assert r.status_code == 429 and r.json["error"] == "TooManyFrames"  # type: ignore[index]
    assert int(r.headers["Retry-After"]) >= 1
    assert upload(b["zeus"], g, "frames", tiny).status_code == 200  # a bucket per seat
    assert upload(b["public"], g, "frames", tiny).status_code == 403
    big = b"\xff\xd8" + b"\0" * (4 * 1024 * 1024 + 10)
    r = upload(b["judge"], g, "frames", big)
    assert r.status_code == 413
    r = upload(b["judge"], g, "frames", b"garbage")
    assert r.status_code == 422 and r.json["fields"]["frame"]  # type: ignore[index]
    r = b["judge"].post(f"/api/v1/games/{g}/frames", {"frame": 1}, game=g)
    assert r.status_code == 415
    h = {"Content-Type": "image/jpeg"}
    r = b["judge"].client.post(f"/api/v1/games/{g}/frames", headers=h, data=tiny)
    assert r.status_code == 403 and r.json["error"] == "Csrf"  # type: ignore[index]


def test_the_frame_gate_refills_and_caps_frames_read_at_once() -> None:
    from web.errors import Busy, TooManyFrames, status_of
    from web.games.herazeus.images import FrameGate

    gate = FrameGate(burst=2, rate=1.0, workers=1)
    gate.take("g", "hera", now=0.0)
    gate.take("g", "hera", now=0.0)
    with pytest.raises(TooManyFrames) as e:
        gate.take("g", "hera", now=0.5)
    assert status_of(e.value) == 429 and 0 < e.value.retry <= 0.5
    gate.take("g", "hera", now=1.5)  # a token came back
    gate.enter()
    with pytest.raises(Busy) as busy:
        gate.enter()
    assert status_of(busy.value) == 503
    gate.leave()
    gate.enter()
    gate.leave()


# ---- the camera page ---------------------------------------------------------------------------


def test_the_camera_page_offers_the_live_camera_and_a_photo_without_inline_script(
    app: Flask,
) -> None:
    g, b = kit_game(app)
    for seat in ("hera", "zeus", "judge"):
        r = b[seat].get(f"/g/{g}/camera")
        assert r.status_code == 200
        html = r.get_data(as_text=True)
        assert 'id="cam-video"' in html and 'src="/static/camera.js"' in html
        assert 'capture="environment"' in html and 'accept="image/*"' in html
        assert "referee serve --https" in html  # plain HTTP: the page says so
        # no inline script (the page's words are data, type="application/json", never run)
        assert not re.search(r'<script(?![^>]*\b(?:src=|type="application/json"))[^>]*>', html)
        assert "script-src 'self'" in r.headers["Content-Security-Policy"]
        assert KIT.secret not in html
    r = b["public"].get(f"/g/{g}/camera")
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/g/{g}")
    seat_page = b["hera"].get(f"/g/{g}").get_data(as_text=True)
    assert f'href="/g/{g}/camera"' in seat_page
    js = b["hera"].get("/static/camera.js").get_data(as_text=True)
    assert "getUserMedia" in js and '"environment"' in js and "toBlob" in js
    # the highest resolution the device offers, and a full-resolution still (issue 14)
    assert "ideal: 3840" in js and "ideal: 2160" in js and "MAX_SIDE = 3840" in js
    assert "ImageCapture" in js and "?still=1" in js
    page = b["hera"].get(f"/g/{g}/camera").get_data(as_text=True)
    assert 'id="cam-still"' in page and 'id="cam-framing"' in page


def test_a_table_photo_on_the_camera_page_works_without_script_and_confirms(app: Flask) -> None:
    g, b = in_play(app)
    ref = referee_of(app)
    layout = {**FIRST_ROWS, ("hera", 3, 2): {"state": "down", "deck": "hera"}}
    form = {
        "csrf": b["hera"].csrf(g),
        "frame": (io.BytesIO(mat_picture(layout)), "t.jpg", "image/jpeg"),
    }
    r = b["hera"].client.post(f"/g/{g}/camera", data=form, content_type="multipart/form-data")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert 'src="data:image/jpeg;base64,' in html
    assert "Hera played a card face down into column 3, position 2" in html
    import html as htmlmod

    bodies = [htmlmod.unescape(x) for x in re.findall(r'name="body" value="([^"]+)"', html)]
    body = next(x for x in bodies if json.loads(x)["action"]["position"] == 2)
    seq = re.search(r'name="seq" value="(\d+)"', html)
    assert seq

    n = log_len(app, g)
    form2 = {
        "csrf": b["hera"].csrf(g),
        "endpoint": "actions",
        "body": body,
        "seq": seq.group(1),
        "card": "Medusa",
    }
    r = b["hera"].client.post(f"/g/{g}/camera/confirm", data=form2)
    assert r.status_code == 303
    assert log_len(app, g) == n + 1
    assert hz_board(ref.view(g, "hera")).hera["field"][2] == ["Furies", "Medusa"]
    noise = jpeg(np.random.default_rng(1).integers(0, 255, (480, 640, 3), dtype=np.uint8))
    form = {"csrf": b["hera"].csrf(g), "frame": (io.BytesIO(noise), "t.jpg", "image/jpeg")}
    html = (
        b["hera"]
        .client.post(f"/g/{g}/camera", data=form, content_type="multipart/form-data")
        .get_data(as_text=True)
    )
    assert 'id="no-mat"' in html and "the mat was not found" in html


def test_the_openapi_document_describes_photo_and_frame_uploads(app: Flask) -> None:
    doc = Browser(app).get("/api/v1/openapi.json").json
    assert doc is not None
    frames = doc["paths"]["/games/{game}/frames"]["post"]
    assert "image/jpeg" in frames["requestBody"]["content"]
    assert {"429", "409", "200"} <= set(frames["responses"])
    photos = doc["paths"]["/games/{game}/photos"]["post"]
    assert "multipart/form-data" in photos["requestBody"]["content"]
    assert "Frame" in doc["components"]["schemas"] and "Photo" in doc["components"]["schemas"]


def test_a_pegasus_placement_seen_by_the_camera_is_confirmed_in_the_tables_order() -> None:
    """D2, D22: the Pegasus player never names the drawn card; the hand's owner states it when
    asked, then the Pegasus player names the column."""
    from web.games.herazeus.images import confirm_for

    seen = {
        "kind": "pegasus_place",
        "raw": {"do": "pegasus", "target": "hand", "pick": "Apollo", "place": 3, "by": "hera"},
    }
    start = confirm_for(seen, "hera", {"game": "g"})
    assert start["endpoint"] == "actions"
    assert start["body"] == {"action": {"do": "pegasus", "target": "hand"}}
    pick = {"asked": {"needs": "pick", "asked": ["zeus"], "by": "hera"}}
    assert confirm_for(seen, "zeus", pick)["body"] == {"value": "Apollo"}
    waiting = confirm_for(seen, "hera", {"waiting": {"for": ["zeus"], "needs": "pick"}})
    assert waiting["endpoint"] is None and waiting["by"] == "zeus"  # Zeus answers on his page
    place = {"asked": {"needs": "place", "asked": ["hera"], "by": "hera", "pick": "Apollo"}}
    assert confirm_for(seen, "hera", place)["body"] == {"value": 3}
    assert confirm_for(seen, "zeus", {})["endpoint"] is None  # Zeus does not start Hera's action


# ---- several frames combined (FrameMemory) ----------------------------------------------------

PLAY = {"kind": "play", "side": "hera", "column": 2, "position": 2, "raw": None, "confidence": 0.9}


def readings(**cells: str) -> dict[str, str]:
    """Every cell empty but for the front cards and ``cells`` (``hera_2_2="down:hera"``)."""
    out = {
        f"{s}/{c}/{r}": "empty" for s in ("hera", "zeus") for c in (1, 2, 3) for r in (1, 2, 3, 4)
    }
    out.update({f"{s}/{c}/1": f"down:{s}" for s in ("hera", "zeus") for c in (1, 2, 3)})
    out.update({k.replace("_", "/"): v for k, v in cells.items()})
    return out


SEEN = readings(hera_2_2="down:hera")
HIDDEN = readings(hera_2_1="unknown", hera_2_2="unknown")


def frames(memory: Any, *shown: dict[str, str] | None) -> list[tuple[int, int]]:
    """(proposed, pending) for each frame: one that sees the play, or one that shows the
    readings given (proposing nothing), or None (the mat not found)."""
    out = []
    for cells in shown:
        proposals = [dict(PLAY)] if cells is SEEN else []
        ready, pending = memory.stable("g", "hera", 7, proposals, cells)
        out.append((len(ready), pending))
    return out


def test_frames_that_hide_the_column_neither_count_nor_reset_up_to_missed_frames() -> None:
    from web.games.herazeus.images import MISSED_FRAMES, FrameMemory

    hidden = [HIDDEN] * MISSED_FRAMES
    assert frames(FrameMemory(), SEEN, *hidden, SEEN)[-1] == (1, 0)
    assert frames(FrameMemory(), SEEN, None, SEEN)[-1] == (1, 0)  # the mat not found
    # one frame too many without it: the count starts again
    assert frames(FrameMemory(), SEEN, *hidden, HIDDEN, SEEN)[-1] == (0, 1)


def test_a_frame_that_reads_the_column_otherwise_starts_the_count_again() -> None:
    """A card seen face down, then the cell read empty (it was picked up again), then face
    down: proposed only once a second frame sees it after the empty one; another column
    changing meanwhile does not matter."""
    from web.games.herazeus.images import FrameMemory

    taken_back = readings(hera_2_1="unknown")  # position 2 read empty
    assert frames(FrameMemory(), SEEN, taken_back, SEEN) == [(0, 1), (0, 0), (0, 1)]
    elsewhere = readings(hera_2_2="unknown", zeus_3_2="down:zeus")
    assert frames(FrameMemory(), SEEN, elsewhere, SEEN)[-1] == (1, 0)
    # a new view (seq) forgets every sighting
    memory = FrameMemory()
    memory.stable("g", "hera", 6, [dict(PLAY)], SEEN)
    assert frames(memory, SEEN) == [(0, 1)]


def test_a_card_a_hand_hides_in_the_frame_between_is_confirmed_by_the_frames_either_side() -> None:
    """Three frames of a fixed camera over one table (vision.herazeus.synth.live_table_scene): a
    hand hides Zeus's column 3 in the middle one (its face-up card at row 2 reads unknown there).
    Each frame's cells fed to the live camera's memory as changes, the card is confirmed by
    the third frame when frames are combined, and only later when they must come in a row."""
    from vision.herazeus.synth import live_table_scene
    from vision.herazeus.table import read_table
    from web.games.herazeus.images import FrameMemory, cell_readings

    shown = [
        cell_readings(read_table(live_table_scene(VK, "1080p", 0, f).image, VK).to_json())
        for f in (4, 5, 6)
    ]
    card = "zeus/3/2"
    assert shown[0][card] == shown[2][card] == "up:HZK7QX2Z23RERC"
    assert shown[1][card] == "unknown"

    def confirmed(missed: int) -> list[bool]:
        memory, out = FrameMemory(missed=missed), []
        for cells in shown:
            changes = [
                {"kind": "cell", "side": s, "column": int(c), "position": int(r), "was": v}
                for (s, c, r), v in ((k.split("/"), v) for k, v in cells.items())
                if v != "unknown"
            ]
            ready, _ = memory.stable("g", "hera", 3, changes, cells)
            out.append(any(f"{p['side']}/{p['column']}/{p['position']}" == card for p in ready))
        return out

    assert confirmed(missed=3) == [False, False, True]
    assert confirmed(missed=0) == [False, False, False]
