"""Kits and event sheets in the language asked (issue 36): the headings and instructions are
said in it, the codes are the same in every language, and English prints as it always did.

The kit's language comes from ``referee kit --lang`` (default English); an event sheet's from the
organiser's page (the request's language, ``web/event_pages.py``).
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pytest
import zxingcpp
from games.tiny.game import TINY
from test_event_pages import Organiser, playing
from test_event_sheets import PRINTED, page_texts, qr_codes, sheet, slips, standings
from web_helpers import make_app

from engine.say import Named
from printables.cli import add_kit_command
from printables.event_sheets import (
    match_slips_pdf,
    pairings_by_name_pdf,
    pairings_by_table_pdf,
    standings_pdf,
)
from printables.herazeus.kit import KIT_FILE, Kit
from printables.herazeus.sheets import PDF_FILES, write_sheets
from printables.sheets import said
from referee.games import registered

DPI = 200


def run_kit(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    add_kit_command(ap.add_subparsers(dest="command"))
    args = ap.parse_args(["kit", *argv])
    return int(args.func(args, is_tty=lambda: False))


@pytest.fixture(scope="module")
def kits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One kit.json printed by ``referee kit`` in English (no --lang) and again in Italian."""
    en = tmp_path_factory.mktemp("kit-en")
    assert run_kit(["--out", str(en)]) == 0
    kit = Kit.loads((en / KIT_FILE).read_text("utf-8"))
    it = tmp_path_factory.mktemp("kit-it")
    write_sheets(kit, it, "it")
    return {"en": en, "it": it}


def text(pdf: Path) -> str:
    return "\n".join(page.get_textpage().get_text_range() for page in pdfium.PdfDocument(str(pdf)))


def codes(pdf: Path) -> list[list[str]]:
    """The QR codes read from each page's rendering, in reading order."""
    out = []
    for page in pdfium.PdfDocument(str(pdf)):
        img = page.render(scale=DPI / 72, grayscale=True).to_numpy()
        img = np.ascontiguousarray(img if img.ndim == 2 else img[:, :, 0])
        fmt = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)
        out.append(sorted(r.text for r in zxingcpp.read_barcodes(img, formats=fmt)))
    return out


ITALIAN = {
    "faces.pdf": [
        "adesivi del fronte",
        "Stampa al 100% (dimensioni effettive)",
        "Carta: A4 (210 x 297 mm).",
    ],
    "backs.pdf": ["marcatori del retro", "bustina di Hera", "50 mm: controlla con un righello"],
    "mat.pdf": ["Tappetino di gioco, foglio 1 di", "colonna 1", "fila 1 (davanti)", "LATO DI HERA"],
    "test-page.pdf": ["Pagina di prova", "Consigli di stampa:", "100 mm in orizzontale"],
}
ENGLISH = {
    "faces.pdf": ["face stickers", "Print at 100% (actual size)", "Paper: A4 (210 x 297 mm)."],
    "backs.pdf": ["back markers", "Hera sleeve", "50 mm: check with a ruler"],
    "mat.pdf": ["Play mat, sheet 1 of", "column 1", "row 1 (front)", "HERA'S SIDE"],
    "test-page.pdf": ["Printer test page", "Printing advice:", "100 mm across"],
}


@pytest.mark.parametrize("name", PDF_FILES)
def test_an_italian_kit_has_italian_headings_and_no_english_ones(
    kits: dict[str, Path], name: str
) -> None:
    words = text(kits["it"] / name)
    for italian in ITALIAN[name]:
        assert italian in words, (italian, words[:300])
    for english in ENGLISH[name]:
        assert english not in words, english


@pytest.mark.parametrize("name", PDF_FILES)
def test_an_english_kit_says_what_it_always_said(kits: dict[str, Path], name: str) -> None:
    words = text(kits["en"] / name)
    for english in ENGLISH[name]:
        assert english in words, english


def test_the_faces_advice_keeps_its_two_english_lines(kits: dict[str, Path]) -> None:
    lines = text(kits["en"] / "test-page.pdf").splitlines()
    assert "- Faces: one sticker per card, on the sleeve front in a bottom corner, so the name" in [
        ln.rstrip() for ln in lines
    ]


def test_an_italian_kit_prints_the_same_codes_names_and_serials(kits: dict[str, Path]) -> None:
    en, it = codes(kits["en"] / "faces.pdf"), codes(kits["it"] / "faces.pdf")
    assert en == it and sum(map(len, en)) == 86  # every sticker of both decks, page by page
    kit = Kit.loads((kits["en"] / KIT_FILE).read_text("utf-8"))
    italian = text(kits["it"] / "faces.pdf")
    for s in kit.stickers:  # its serial, and its name as the Italian edition prints it
        assert f"{s.deck[0].upper()}{s.serial:02d}" in italian
        assert said(Named(s.card, "herazeus card"), "it") in italian


def test_the_default_language_is_english(tmp_path: Path) -> None:
    kit = Kit.create(kit_id="K7QX2", now=datetime(2026, 1, 2, tzinfo=UTC))
    write_sheets(kit, tmp_path / "default")
    write_sheets(kit, tmp_path / "en", "en")
    for name in PDF_FILES:
        assert (tmp_path / "default" / name).read_bytes() == (tmp_path / "en" / name).read_bytes()


def test_referee_kit_refuses_a_language_it_does_not_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as e:
        run_kit(["--out", str(tmp_path), "--lang", "xx"])
    assert e.value.code == 2 and "--lang" in capsys.readouterr().err


# ---- event sheets ---------------------------------------------------------------------------


def test_italian_standings_have_italian_headings() -> None:
    words = "\n".join(page_texts(standings_pdf(standings(9), lang="it")))
    assert "Autumn Open: classifica dopo il turno 3" in words
    assert "Pos. Giocatore Pt V-S-P OMW GW OGW" in words
    assert "Zoë Ørsted" in words and "(ritirato)" in words
    assert "Stampato il 2026-11-28 14:05 UTC." in words


def test_french_and_german_pairings_have_their_headings() -> None:
    fr = "\n".join(page_texts(pairings_by_name_pdf(sheet(9), lang="fr")))
    assert "appariements par nom" in fr and "Adversaire" in fr and "(exempt" in fr
    de = "\n".join(page_texts(pairings_by_table_pdf(sheet(9), lang="de")))
    assert "Paarungen nach Tisch" in de and "Tisch" in de and "Freilos" in de


def test_italian_match_slips_keep_their_codes() -> None:
    given = slips(4, best_of=3)
    en = match_slips_pdf(given, PRINTED)
    it = match_slips_pdf(given, PRINTED, lang="it")
    words = "\n".join(page_texts(it))
    assert "Tavolo 1" in words and "Risultato: segna il vincitore" in words
    assert "Partita 2" in words and "gioca Sun" in words
    assert "Table 1" not in words and "Result: tick the winner" not in words
    assert qr_codes(it) == qr_codes(en)  # the same links, in the same places


def test_english_sheets_are_the_sheets_printed_without_a_language() -> None:
    assert standings_pdf(standings(5), lang="en") == standings_pdf(standings(5))
    assert match_slips_pdf(slips(2), PRINTED, lang="en") == match_slips_pdf(slips(2), PRINTED)


def test_the_organiser_downloads_the_sheets_in_his_pages_language() -> None:
    with registered(TINY):
        app = make_app()
        eid = playing(app)
        o = Organiser(app)
        italian = o.b.get(f"/events/{eid}/pdf/by-name", headers={"Accept-Language": "it"})
        assert italian.status_code == 200
        assert "abbinamenti per nome" in "\n".join(page_texts(italian.data))
        o.b.client.set_cookie("hzlang", "de")  # the picker's choice beats the browser's header
        german = o.b.get(f"/events/{eid}/pdf/slips", headers={"Accept-Language": "it"})
        assert "Ergebnis: den Sieger ankreuzen" in "\n".join(page_texts(german.data))
