"""The sticker kit (issue 8): kit.json, deck lists, face codes, and the printed PDFs.

The PDFs are rendered with pypdfium2 and read back the way the camera will: QR codes with
zxing-cpp, markers with OpenCV's ArUco detector.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pytest
import zxingcpp

from engine.herazeus.cards import Player
from printables.cli import add_kit_command
from printables.herazeus import payload
from printables.herazeus.kit import (
    DeckEntry,
    Kit,
    KitError,
    PrintOptions,
    deck_file_template,
    parse_deck_file,
    provisional_decks,
)
from printables.herazeus.mat import standard_mat
from printables.herazeus.payload import PayloadError
from printables.herazeus.sheets import (
    PAGE_MARGIN,
    PAPER_MM,
    face_placements,
    mat_tiling,
    qr_modules,
    write_sheets,
)
from referee.herazeus.game import ruleset_from_create

SECRET = "0123456789abcdef0123456789abcdef"
MM_PER_PT = 25.4 / 72
DPI = 200


def make_kit(**kw: Any) -> Kit:
    return Kit.create(
        kit_id="K7QX2", secret=SECRET, now=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), **kw
    )


@pytest.fixture(scope="module")
def kit() -> Kit:
    return make_kit()


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory, kit: Kit) -> Path:
    out = tmp_path_factory.mktemp("kit")
    write_sheets(kit, out)
    return out


def pages(pdf: Path, dpi: int = DPI) -> Iterator[np.ndarray]:
    doc = pdfium.PdfDocument(str(pdf))
    for page in doc:
        img = page.render(scale=dpi / 72, grayscale=True).to_numpy()
        yield img if img.ndim == 2 else img[:, :, 0]


def aruco_ids(img: np.ndarray) -> list[int]:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    _, ids, _ = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters()).detectMarkers(img)
    return [] if ids is None else [int(i) for i in ids.ravel()]


# -- face payloads --------------------------------------------------------------------------------


def test_every_sticker_payload_names_its_card(kit: Kit) -> None:
    for s in kit.stickers:
        assert len(s.payload) == payload.PAYLOAD_LENGTH
        assert kit.card_for(s.payload) == (s.deck, s.card, s.serial)


def test_each_deck_has_43_stickers_with_serials_1_to_43(kit: Kit) -> None:
    for deck in ("hera", "zeus"):
        assert [s.serial for s in kit.stickers if s.deck == deck] == list(range(1, 44))
    assert len({s.payload for s in kit.stickers}) == 86


def test_a_code_of_another_kit_is_refused(kit: Kit) -> None:
    other = Kit.create(kit_id="ABCDE", secret=SECRET)
    with pytest.raises(PayloadError, match="belongs to kit ABCDE"):
        kit.card_for(other.stickers[0].payload)


def test_a_misprinted_code_fails_its_check(kit: Kit) -> None:
    good = kit.stickers[5].payload
    bad = good[:-1] + ("A" if good[-1] != "A" else "B")
    with pytest.raises(PayloadError, match="check value"):
        kit.card_for(bad)


def test_a_hand_typed_fake_without_the_secret_is_refused(kit: Kit) -> None:
    fake = payload.face_payload(kit.kit_id, "ff" * 16, "hera", 7)  # right kit id, wrong secret
    with pytest.raises(PayloadError, match="check value"):
        kit.card_for(fake)


@pytest.mark.parametrize(
    "text", ["", "hello", "HZK7QX2H07", "https://example.org", "HZK7QX2X07AAAA"]
)
def test_text_that_is_no_card_code_is_refused(kit: Kit, text: str) -> None:
    with pytest.raises(PayloadError, match="not a Hera & Zeus card code"):
        kit.card_for(text)


def test_a_serial_the_kit_never_printed_is_refused(kit: Kit) -> None:
    beyond = payload.face_payload(kit.kit_id, kit.secret, "zeus", 44)
    with pytest.raises(PayloadError, match="does not have"):
        kit.card_for(beyond)


def test_payloads_fit_qr_version_1_q_and_overlong_ones_fail_loudly() -> None:
    assert len(qr_modules("HZK7QX2H07M4TA")) == 21
    with pytest.raises(PayloadError, match="does not fit"):
        qr_modules("HZK7QX2H07M4TAXYZ")
    with pytest.raises(PayloadError, match="alphanumeric"):
        qr_modules("hzk7qx2h07m4ta")


# -- kit.json ---------------------------------------------------------------------------------


def test_kit_json_round_trips(kit: Kit) -> None:
    again = Kit.loads(kit.dumps())
    assert again == kit
    assert again.stickers == kit.stickers
    assert again.mat == standard_mat()


def mutated(kit: Kit, path: list[Any], value: Any) -> dict[str, Any]:
    data = json.loads(kit.dumps())
    target = data
    for k in path[:-1]:
        target = target[k]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["extra"], 1, "unknown field"),
        (["secret"], KeyError, "missing field"),
        (["format"], "herazeus-kit/0", "format"),
        (["kit_id"], "k7qx2", "kit_id"),
        (["secret"], "nothex", "secret"),
        (["created"], "yesterday", "created"),
        (["provisional"], "no", "provisional"),
        (["decks", "hera", 0, "colour"], "violet", "unknown field"),
        (["decks", "hera", 2, "copies"], 3, "totals 44 cards"),
        (["decks", "zeus", 0, "name"], "Io", "not a card of Zeus's deck"),
        (["stickers", 0, "card"], "Hera", r"stickers\[0\] does not match"),
        (["stickers", 3, "payload"], "HZK7QX2H04AAAA", r"stickers\[3\] does not match"),
        (["print", "code_mm"], 3, "sticker size"),
        (["print", "paper"], "a3", "paper"),
        (["mat", "cells"], [], "cells"),
        (["mat", "corner_markers", 0, "id"], 7, "must be 0"),
    ],
)
def test_kit_json_is_read_strictly(kit: Kit, path: list[Any], value: Any, message: str) -> None:
    with pytest.raises(KitError, match=message) as e:
        Kit.from_json(mutated(kit, path, value), "my-kit.json")
    assert "my-kit.json" in str(e.value)


def test_kit_json_that_is_not_json_or_too_large_is_refused() -> None:
    with pytest.raises(KitError, match="not JSON"):
        Kit.loads("{", "k.json")
    with pytest.raises(KitError, match="larger than"):
        Kit.loads(" " * 300_000, "k.json")
    with pytest.raises(KitError, match="must be a JSON object"):
        Kit.loads("[]", "k.json")


def test_kit_json_records_the_mat_geometry_vision_uses(kit: Kit) -> None:
    mat = kit.to_json()["mat"]
    assert [m["id"] for m in mat["corner_markers"]] == [0, 1, 2, 3]
    assert len(mat["cells"]) == 24
    cells = {(c["side"], c["column"], c["row"]): c["rect"] for c in mat["cells"]}
    # Hera's side is the bottom half; row 1 of each side borders the centre band.
    assert cells[("hera", 1, 1)][1] > cells[("zeus", 1, 1)][1]
    assert cells[("hera", 1, 4)][1] > cells[("hera", 1, 1)][1]
    assert cells[("zeus", 1, 4)][1] < cells[("zeus", 1, 1)][1]
    # Column k faces column k (RULES.md D11: challenges are between opposite cards).
    for col in (1, 2, 3):
        assert cells[("hera", col, 1)][0] == cells[("zeus", col, 1)][0]
    # Every cell holds a card of 59 x 92 mm, and no two cells overlap.
    assert all(r[2] >= 59 and r[3] >= 92 for r in cells.values())


# -- deck lists -------------------------------------------------------------------------------


def test_a_deck_list_file_confirms_the_kit() -> None:
    decks = parse_deck_file(deck_file_template(), "decks.toml")
    k = make_kit(decks=decks)
    assert not k.provisional
    assert decks == provisional_decks()


def test_the_provisional_list_says_it_is_provisional(kit: Kit) -> None:
    assert kit.provisional
    assert kit.catalogue_for_game()["provisional"] is True


def test_deck_file_changes_reach_the_game(tmp_path: Path) -> None:
    text = deck_file_template()
    text = text.replace(
        "Artemis = { strength = 6, copies = 3 }", "Artemis = { strength = 5, copies = 4 }"
    )
    text = text.replace(
        "Furies = { strength = 3, copies = 6 }", "Furies = { strength = 3, copies = 5 }"
    )
    text = text.replace(
        "Apollo = { strength = 6, copies = 3 }", "Apollo = { strength = 5, copies = 3 }"
    )
    k = make_kit(decks=parse_deck_file(text, "decks.toml"))
    rules = ruleset_from_create({"catalogue": k.catalogue_for_game()})
    cat = rules.catalogue
    assert cat.info("Artemis", Player.HERA).strength == 5
    assert cat.info("Artemis", Player.HERA).copies == 4
    assert cat.info("Furies", Player.HERA).copies == 5
    assert cat.info("Apollo", Player.ZEUS).strength == 5
    assert not cat.provisional
    assert [s.card for s in k.stickers if s.deck == "hera"].count("Artemis") == 4


def test_the_provisional_catalogue_mapping_is_accepted(kit: Kit) -> None:
    rules = ruleset_from_create({"catalogue": kit.catalogue_for_game()})
    assert rules.catalogue.provisional


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "Furies = { strength = 3, copies = 6 }",
            "Furies = { strength = 3, copies = 7 }",
            "totals 44 cards, not 43",
        ),
        ("Furies = { strength = 3, copies = 6 }", "", "Furies missing"),
        ("Io = { copies = 1 }", "Io = { strength = 1, copies = 1 }", "prints no strength"),
        ("Hydra = { strength = 5, copies = 4 }", "Hydra = { strength = 9, copies = 4 }", "0-7"),
        ("Hydra = { strength = 5, copies = 4 }", "Hydra = { copies = 4 }", "strength must be"),
        (
            "Hydra = { strength = 5, copies = 4 }",
            "Hydra = { strength = 5, copies = 4, foil = true }",
            "unknown field",
        ),
        (
            "Hydra = { strength = 5, copies = 4 }",
            "Hydra = { strength = 5, copies = 4 }\nDragon = 0",
            "not a card",
        ),
        (  # Hera's Pegasus (the first one listed) printed 2, Zeus's 1
            "Pegasus = { strength = 1, copies = 6 }",
            "Pegasus = { strength = 2, copies = 6 }",
            "same strength",
        ),
        ("[zeus]", "[zeus]\n[odin]", "unknown field"),
        ("Io = { copies = 1 }", "Io = { copies = 1 ", "cannot parse"),
    ],
)
def test_a_bad_deck_list_is_refused_with_a_clear_message(old: str, new: str, message: str) -> None:
    text = deck_file_template()
    assert old in text
    with pytest.raises(KitError, match=message) as e:
        parse_deck_file(text.replace(old, new, 1), "decks.toml")
    assert "decks.toml" in str(e.value)


def test_every_deck_must_total_43() -> None:
    decks = dict(provisional_decks())
    decks["zeus"] = tuple(
        DeckEntry(e.name, e.strength, e.copies + (e.name == "Giant")) for e in decks["zeus"]
    )
    with pytest.raises(KitError, match="zeus: the deck totals 44 cards, not 43"):
        make_kit(decks=decks)


# -- the PDFs -------------------------------------------------------------------------------------


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_pdfs_state_the_paper_size(tmp_path: Path, paper: str) -> None:
    k = make_kit(options=PrintOptions(paper=paper))
    for path in write_sheets(k, tmp_path):
        w, h = PAPER_MM[paper]
        for page in pdfium.PdfDocument(str(path)):
            pw, ph = sorted(page.get_size())
            assert pw * MM_PER_PT == pytest.approx(w, abs=0.1)
            assert ph * MM_PER_PT == pytest.approx(h, abs=0.1)


def test_face_stickers_fit_one_page_per_deck_on_both_papers() -> None:
    for paper in ("a4", "letter"):
        places = face_placements(make_kit(options=PrintOptions(paper=paper)))
        assert {p.page for p in places} == {0, 1}


def test_every_face_code_in_the_pdf_decodes_to_the_kits_payloads(kit: Kit, printed: Path) -> None:
    read: dict[int, set[str]] = {}
    for n, img in enumerate(pages(printed / "faces.pdf")):
        read[n] = {
            r.text
            for r in zxingcpp.read_barcodes(
                img, formats=zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)
            )
        }
    expected: dict[int, set[str]] = {}
    for p in face_placements(kit):
        expected.setdefault(p.page, set()).add(p.payload)
    assert read == expected
    assert {kit.card_for(t)[0] for t in read[0]} == {"hera"}
    assert {kit.card_for(t)[0] for t in read[1]} == {"zeus"}


def test_a_printed_code_measures_the_chosen_size(tmp_path: Path) -> None:
    k = make_kit(options=PrintOptions(code_mm=17.0))
    write_sheets(k, tmp_path)
    img = next(pages(tmp_path / "faces.pdf"))
    results = zxingcpp.read_barcodes(
        img, formats=zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)
    )
    assert len(results) == 43
    px_per_mm = DPI / 25.4
    for r in results:
        p = r.position
        side = (p.top_right.x - p.top_left.x + 1) / px_per_mm
        assert side == pytest.approx(17.0, abs=0.3)
    placed = {p.payload: p for p in face_placements(k)}
    r = results[0]
    assert r.position.top_left.x / px_per_mm == pytest.approx(placed[r.text].x, abs=0.3)
    assert r.position.top_left.y / px_per_mm == pytest.approx(placed[r.text].y, abs=0.3)


def test_every_back_marker_detects_as_its_decks_id(kit: Kit, printed: Path) -> None:
    imgs = list(pages(printed / "backs.pdf"))
    assert len(imgs) == 2
    for img, deck in zip(imgs, ("hera", "zeus"), strict=True):
        ids = aruco_ids(img)
        assert len(ids) >= 43
        assert set(ids) == {payload.BACK_MARKER_IDS[deck]}


def test_backs_carry_no_card_identity(printed: Path) -> None:
    for img in pages(printed / "backs.pdf"):
        assert zxingcpp.read_barcodes(img) == []


def test_the_mat_shows_its_four_corner_markers_once(kit: Kit, printed: Path) -> None:
    found: list[int] = []
    for img in pages(printed / "mat.pdf", dpi=100):
        found += aruco_ids(img)
    assert sorted(found) == [0, 1, 2, 3]
    assert mat_tiling(kit.mat, "a4").sheets == len(pdfium.PdfDocument(str(printed / "mat.pdf")))


def test_all_the_mat_prints_besides_outlines_and_markers_lies_in_its_print_zones(
    kit: Kit, printed: Path
) -> None:
    """The camera leaves what the kit prints on the mat (cells' names, side names, the centre
    band's numbers and line) out of its bare-mat test, where ``print_zones`` says it is. The
    mat's sheets rendered and laid side by side: every inked pixel is a cell's outline, a
    corner marker, the trim line or a sheet's edge, a square of the bare-mat pattern where
    ``pattern_dots`` puts it, or lies in a zone."""
    mat, k = kit.mat, 5.0  # px per mm (127 dpi)
    t = mat_tiling(mat, "a4")
    whole = np.full((round(mat.height * k), round(mat.width * k)), 255, np.uint8)
    for (_, _, mx, my), img in zip(t.windows(), pages(printed / "mat.pdf", dpi=127), strict=True):
        m0 = round(PAGE_MARGIN * k)
        part = img[m0 : m0 + round(t.window_h * k), m0 : m0 + round(t.window_w * k)]
        y0, x0 = round(my * k), round(mx * k)
        h, w = min(part.shape[0], whole.shape[0] - y0), min(part.shape[1], whole.shape[1] - x0)
        whole[y0 : y0 + h, x0 : x0 + w] = np.minimum(whole[y0 : y0 + h, x0 : x0 + w], part[:h, :w])
    ink = whole < 230  # the bare-mat pattern's grey (204) counts as ink
    known = np.zeros(ink.shape, bool)

    def mark(x: float, y: float, w: float, h: float, pad: float = 1.0) -> None:
        known[
            max(0, round((y - pad) * k)) : round((y + h + pad) * k),
            max(0, round((x - pad) * k)) : round((x + w + pad) * k),
        ] = True

    for x, y, w, h in mat.cells.values():  # outlines: the rectangle's four sides
        for side in ((x, y, w, 0), (x, y + h, w, 0), (x, y, 0, h), (x + w, y, 0, h)):
            mark(*side)
    for mid in mat.markers:
        mark(*mat.markers[mid], mat.marker_size, mat.marker_size)
    for key in mat.cells:  # the bare-mat pattern: its squares, where the mat says
        for dot in mat.pattern_dots(key):
            mark(*dot, pad=0.3)
    mark(0, 0, mat.width, 0)
    mark(0, mat.height, mat.width, 0)
    mark(0, 0, 0, mat.height)
    mark(mat.width, 0, 0, mat.height)
    for _, _, mx, my in t.windows():  # a sheet's join line
        mark(mx, my, 0, mat.height) if mx else None
        mark(0, my, mat.width, 0) if my else None
    zones = np.zeros(ink.shape, bool)
    for x, y, w, h in mat.print_zones():
        zones[round(y * k) : round((y + h) * k), round(x * k) : round((x + w) * k)] = True
    stray = ink & ~known & ~zones
    assert np.count_nonzero(ink & zones) > 0
    _, _, st, _ = cv2.connectedComponentsWithStats(stray.astype(np.uint8))
    assert np.count_nonzero(stray) == 0, (st[1:, :4] / k).round(1).tolist()


def test_the_test_page_has_a_100_mm_ruler(printed: Path) -> None:
    img = next(pages(printed / "test-page.pdf"))
    rows = np.where((img < 128).sum(axis=1) > 100 / 25.4 * DPI * 0.95)[0]
    assert len(rows) > 0  # a dark bar at least 95 mm long
    cols = np.where(img[rows[0]] < 128)[0]
    assert (cols.max() - cols.min() + 1) / (DPI / 25.4) == pytest.approx(100.0, abs=0.3)


# -- referee kit ------------------------------------------------------------------------------


def run_kit(argv: list[str], **kw: Any) -> int:
    ap = argparse.ArgumentParser()
    add_kit_command(ap.add_subparsers(dest="command"))
    args = ap.parse_args(["kit", *argv])
    return int(args.func(args, **kw))


def test_referee_kit_without_a_deck_file_warns_that_it_is_provisional(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_kit(["--out", str(tmp_path)], is_tty=lambda: False) == 0
    err = capsys.readouterr().err
    assert "PROVISIONAL" in err
    k = Kit.load(tmp_path / "kit.json")
    assert k.provisional
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "backs.pdf",
        "faces.pdf",
        "kit.json",
        "mat.pdf",
        "test-page.pdf",
    ]


def test_referee_kit_asks_on_a_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[str] = []
    answers = {"  Nemesis: copies": "5", "  Artemis: copies": "0"}  # +3 and -3: still 43

    def ask(prompt: str) -> str:
        seen.append(prompt)
        return next((a for p, a in answers.items() if prompt.startswith(p)), "")

    assert run_kit(["--out", str(tmp_path)], is_tty=lambda: True, ask=ask) == 0
    k = Kit.load(tmp_path / "kit.json")
    assert not k.provisional
    hera = {e.name: e.copies for e in k.decks["hera"]}
    assert hera["Nemesis"] == 5 and hera["Artemis"] == 0
    # A card both decks hold is asked its strength once.
    assert sum(p.startswith("  Pegasus: printed strength") for p in seen) == 1


def test_referee_kit_refuses_bad_input_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "decks.toml"
    bad.write_text("[hera]\nIo = 1\n", "utf-8")
    assert run_kit(["--out", str(tmp_path / "k"), "--decks", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(bad) in err and "missing field" in err
    assert not (tmp_path / "k").exists()
    assert run_kit(["--out", str(tmp_path / "k"), "--size", "5"], is_tty=lambda: False) == 2
    assert "sticker size 5 mm" in capsys.readouterr().err
    assert run_kit(["--out", str(tmp_path / "k"), "--decks", str(tmp_path / "nope.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_referee_kit_never_overwrites_a_kit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_kit(["--out", str(tmp_path)], is_tty=lambda: False) == 0
    before = (tmp_path / "kit.json").read_text("utf-8")
    assert run_kit(["--out", str(tmp_path)], is_tty=lambda: False) == 2
    assert "exists" in capsys.readouterr().err
    assert (tmp_path / "kit.json").read_text("utf-8") == before


def test_the_1080p_preset_prints_30_mm_face_codes_and_says_what_they_cover(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 14: 20 mm codes need a 4K camera or a phone's full photo; a 1080p camera over the
    whole mat reads 30 mm ones, which cover about a quarter of a card's face."""
    assert run_kit(["--out", str(tmp_path), "--for-1080p"], is_tty=lambda: False) == 0
    out = capsys.readouterr().out
    assert "30 mm face codes" in out and "quarter of a card's face" in out
    kit = json.loads((tmp_path / "kit.json").read_text("utf-8"))
    assert kit["print"]["code_mm"] == 30
