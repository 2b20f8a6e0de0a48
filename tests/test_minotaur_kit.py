"""The Minotaur Lords sticker kit (issue 15, item 2): a face code for every physical card of the
owner's deck list and one identical back marker per deck, printed, then read back from the
PDFs and from a photo the way the camera reads Hera & Zeus cards."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pytest
import zxingcpp

from engine.minotaur.cards import parse_deck_list
from printables.codes import PayloadError
from printables.herazeus.payload import face_payload
from printables.minotaur.kit import MinotaurKit
from printables.minotaur.payload import (
    ML_BACK_MARKER_IDS,
    minotaur_face_payload,
    parse_minotaur_face,
)
from printables.minotaur.sheets import (
    SCARAB_MARK,
    PlacedSticker,
    minotaur_face_placements,
    write_minotaur_sheets,
)
from printables.sheets import LABEL_H
from vision.minotaur.cards import read_minotaur_cards
from web.cli import main

DECKS = Path(__file__).resolve().parent / "data" / "minotaur" / "decks.csv"
CARDS = parse_deck_list(DECKS.read_text())


@pytest.fixture(scope="module")
def kit() -> MinotaurKit:
    return MinotaurKit.create(CARDS)


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory, kit: MinotaurKit) -> Path:
    out = tmp_path_factory.mktemp("mlkit")
    write_minotaur_sheets(kit, out)
    return out


def pages(pdf: Path, dpi: int = 200) -> Iterator[np.ndarray]:
    for page in pdfium.PdfDocument(str(pdf)):
        img = page.render(scale=dpi / 72, grayscale=True).to_numpy()
        yield img if img.ndim == 2 else img[:, :, 0]


def test_every_physical_card_has_its_own_code(kit: MinotaurKit) -> None:
    stickers = kit.stickers
    assert len(stickers) == 84 and len({s.payload for s in stickers}) == 84
    assert Counter(s.deck for s in stickers) == {"miron": 30, "vess": 30, "bonus": 24}
    copies = [n for n, k in Counter(c.name for c in CARDS).items() if k > 1]
    assert copies, "the test list has copies"
    for name in copies:  # two copies, two codes: each physical card is told apart
        assert len({s.payload for s in stickers if s.card == name}) > 1


def test_a_code_names_its_card_and_nothing_else_passes(kit: MinotaurKit) -> None:
    s = kit.stickers[40]
    face, name = kit.read(s.payload)
    assert (face.deck, face.serial, name) == (s.deck, s.serial, s.card)
    other = MinotaurKit.create(CARDS)
    with pytest.raises(PayloadError, match="belongs to kit"):
        kit.read(other.stickers[0].payload)
    fake = s.payload[:-1] + ("A" if s.payload[-1] != "A" else "B")
    with pytest.raises(PayloadError, match="fails its check"):
        kit.read(fake)
    with pytest.raises(PayloadError, match="not a Minotaur Lords card code"):
        kit.read(face_payload(kit.kit_id, kit.secret, "hera", 1))  # a Hera & Zeus code
    with pytest.raises(PayloadError, match="printed no card 99"):
        kit.read(minotaur_face_payload(kit.kit_id, kit.secret, "bonus", 99))
    assert parse_minotaur_face(s.payload, kit.kit_id, kit.secret).payload == s.payload


def test_the_kit_file_reads_back_the_same(kit: MinotaurKit) -> None:
    again = MinotaurKit.loads(kit.dumps())
    assert again == kit and again.stickers == kit.stickers


def test_the_printed_faces_read_back_as_every_card(kit: MinotaurKit, printed: Path) -> None:
    read: list[str] = []
    for img in pages(printed / "faces.pdf"):
        read += [b.text for b in zxingcpp.read_barcodes(img) if b.valid]
    assert sorted(read) == sorted(s.payload for s in kit.stickers)


def test_the_backs_are_identical_within_a_deck(printed: Path) -> None:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    det = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters())
    seen = []
    for img in pages(printed / "backs.pdf", 100):
        _, ids, _ = det.detectMarkers(img)
        found = {int(i) for i in ids.ravel()}
        assert len(found) == 1, found  # one deck a page, every marker the same
        seen.append(found.pop())
    assert seen == [ML_BACK_MARKER_IDS[d] for d in ("miron", "vess", "bonus")]


def test_a_photo_of_stickers_is_read_as_the_cards(kit: MinotaurKit, printed: Path) -> None:
    img = next(pages(printed / "faces.pdf", 300))
    photo = cv2.GaussianBlur(img[250:1100, 0:1700], (0, 0), 1.2)
    ok, jpeg = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    reads = read_minotaur_cards(cv2.imdecode(jpeg, cv2.IMREAD_GRAYSCALE), kit)
    by_payload = {s.payload: s for s in kit.stickers}
    assert len(reads) >= 6
    for r in reads:
        assert r.refused is None and r.card == by_payload[r.payload].card


def test_kit_and_scan_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "kit"
    assert main(["kit", "--game", "minotaur", "--decks", str(DECKS), "--out", str(out)]) == 0
    assert "84 cards" in capsys.readouterr().out
    assert {p.name for p in out.iterdir()} == {
        "kit.json",
        "faces.pdf",
        "backs.pdf",
        "strips.pdf",
        "mat.pdf",
    }
    kit = MinotaurKit.loads((out / "kit.json").read_text())
    img = next(pages(out / "faces.pdf", 300))
    cv2.imwrite(str(tmp_path / "photo.png"), img[250:1100, 0:1700])
    assert (
        main(["scan", "--json", "--kit", str(out / "kit.json"), str(tmp_path / "photo.png")]) == 0
    )
    got = json.loads(capsys.readouterr().out)
    names = {s.payload: s.card for s in kit.stickers}
    assert got and all(g["card"] == names[g["payload"]] for g in got)


def test_kit_without_a_deck_list_says_how_to_make_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["kit", "--game", "minotaur", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--decks" in err and "--template" in err and err.count("\n") == 1


def test_a_seat_reads_its_cards_from_a_photo_and_records_them(
    kit: MinotaurKit, printed: Path
) -> None:
    """The game made with the kit; Miron photographs his stickers; his seat page offers the
    cards read in the boxes of his hand; he records them."""
    import io
    import re

    from web_helpers import make_app, new_game, referee_of

    from engine.minotaur.cards import deck_list_text

    app = make_app()
    created, b = new_game(
        app, name="minotaur", options={"deck_list": deck_list_text(CARDS)}, kit=kit.to_json()
    )
    g = created.game
    page = b["miron"].get(f"/g/{g}").data.decode()
    assert 'id="cards-photo-form"' in page  # the game has a kit: photos are offered
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None
    img = next(pages(printed / "faces.pdf", 300))  # Miron's first page of stickers
    ok, png = cv2.imencode(".png", img[250:700, :])
    assert ok
    r = b["miron"].client.post(
        f"/g/{g}/cards-photo",
        data={"csrf": csrf.group(1), "photo": (io.BytesIO(png.tobytes()), "hand.png", "image/png")},
        content_type="multipart/form-data",
    )
    assert r.status_code == 303
    page = b["miron"].get(f"/g/{g}").data.decode()
    chosen = re.findall(r'<option value="([^"?]+)" selected>', page)
    miron = [s.card for s in kit.stickers if s.deck == "miron"]
    assert len(chosen) == 6 and Counter(chosen) <= Counter(miron), chosen
    assert "Read " in page and "nothing is recorded" in page
    assert referee_of(app).folded(g).state.side("miron").hand == (None,) * 6  # not yet
    r = b["miron"].client.post(
        f"/g/{g}/act", data={"csrf": csrf.group(1), "do": "hand", "cards": chosen}
    )
    assert r.status_code == 303
    assert sorted(referee_of(app).folded(g).state.side("miron").hand) == sorted(chosen)
    vess = b["vess"].get(f"/g/{g}").data.decode()
    assert not any(name in vess for name in set(chosen) - set(miron[6:]))  # hidden from Vess


# ---- issue 31, item 18: the kit's words, its Scarab mark, its command's refusals ------------

SCARAB_LIST = "\n".join(
    line + "scarab" if line.startswith(("bonus,Ivory Spear,", "bonus,Pale Miner,")) else line
    for line in DECKS.read_text().splitlines()
)


def _page_texts(pdf: Path) -> list[str]:
    return [page.get_textpage().get_text_range() for page in pdfium.PdfDocument(str(pdf))]


def _label(page: Any, p: PlacedSticker) -> str:
    """The words printed on a sticker's label strip (below its code), read from the PDF."""
    pt = 72 / 25.4
    top = page.get_height() - (p.y + p.h - LABEL_H) * pt
    bottom = page.get_height() - (p.y + p.h) * pt
    text: str = page.get_textpage().get_text_bounded(p.x * pt, bottom, (p.x + p.w) * pt, top)
    return text


def test_a_card_with_a_scarab_back_is_marked_on_its_sticker_and_no_other(tmp_path: Path) -> None:
    """M18: in the advanced game a player takes only bonus cards whose back matches his deck,
    so the owner must know which sticker goes on a Scarab Lords card."""
    cards = parse_deck_list(SCARAB_LIST)
    assert {c.name for c in cards if c.back == "scarab"} == {"Ivory Spear", "Pale Miner"}
    kit = MinotaurKit.create(cards)
    write_minotaur_sheets(kit, tmp_path)
    places = minotaur_face_placements(kit)
    assert len(places) == 84 and {p.payload for p in places} == {s.payload for s in kit.stickers}
    doc = pdfium.PdfDocument(str(tmp_path / "faces.pdf"))
    marked = []
    for p in places:
        label = _label(doc[p.page], p)
        assert p.serial in label, (p, label)
        assert label.split()[0] == p.name.split()[0], (p, label)  # the name, cut short or not
        if SCARAB_MARK in label:
            marked.append(p.name)
    assert sorted(marked) == ["Ivory Spear", "Pale Miner"]
    bonus_pages = [t for t in _page_texts(tmp_path / "faces.pdf") if "bonus deck" in t]
    assert bonus_pages and all(
        "SCARAB: a card with a Scarab Lords back (M18)" in t for t in bonus_pages
    )


def test_the_pages_name_each_deck_as_the_rules_do(printed: Path) -> None:
    """MINOTAUR.md: Miron's deck, Vess's deck and the bonus deck (not "Bonus's deck")."""
    faces = [t.splitlines()[0] for t in _page_texts(printed / "faces.pdf")]
    backs = [t.splitlines()[0] for t in _page_texts(printed / "backs.pdf")]
    assert [t.split(":")[0] for t in faces] == ["Miron's deck", "Vess's deck", "The bonus deck"]
    assert [t.split(":")[0] for t in backs] == ["Miron's deck", "Vess's deck", "The bonus deck"]
    assert faces[2].startswith("The bonus deck: face stickers 1-24 of 24")
    everything = "".join(_page_texts(printed / "faces.pdf") + _page_texts(printed / "backs.pdf"))
    assert "Bonus's" not in everything and "every bonus-deck sleeve" in everything
    assert "SCARAB" not in everything  # the test list has no Scarab Lords card


@pytest.mark.parametrize("game", ["minotaur", "hera-zeus"])
def test_template_with_decks_is_refused_as_contradictory(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--template prints an empty list; with --decks it would silently ignore the file."""
    rc = main(["kit", "--game", game, "--template", "--decks", str(DECKS)])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.startswith("referee kit: --template prints an empty deck list") and "--decks" in err
    assert err.count("\n") == 1
