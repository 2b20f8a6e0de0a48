"""Print-ready PDFs of a Minotaur Lords kit (issue 15): faces and identical backs per deck, no
mat yet, drawn with the shared sheet helpers (:mod:`printables.sheets`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fpdf import FPDF

from engine.say import Named, Say
from printables.minotaur.kit import MinotaurKit
from printables.minotaur.payload import ML_BACK_MARKER_IDS
from printables.sheets import (
    QR_MODULES,
    TRIM,
    back_pages,
    clipped,
    cut_marks,
    draw_cells,
    face_sticker_size,
    fitted_size,
    grid_layout,
    header,
    new_pdf,
    qr_modules,
    said,
    side_ruler,
)

# -- Minotaur Lords (issue 15): faces and identical backs per deck, no mat yet --------------------

# Each deck by its name in the rules (MINOTAUR.md: House Miron's red deck, House Vess's blue
# deck, the white bonus deck), the letter of its serials and the colour of its labels.
# (Says: English here, said in a kit's language when printed)
ML_DECK_NAME = {
    "miron": Say("%(deck)s's deck", deck="Miron"),
    "vess": Say("%(deck)s's deck", deck="Vess"),
    "bonus": Say("The bonus deck"),
}
ML_SLEEVE = {
    "miron": Say("%(deck)s sleeve", deck="Miron"),
    "vess": Say("%(deck)s sleeve", deck="Vess"),
    "bonus": Say("bonus-deck sleeve"),
}
ML_SERIAL_LETTER = {"miron": "M", "vess": "V", "bonus": "B"}
ML_DECK_RGB = {"miron": (156, 28, 28), "vess": (28, 79, 156), "bonus": (90, 90, 90)}
ML_PDF_FILES = ("faces.pdf", "backs.pdf")
SCARAB_MARK = "SCARAB"  # on the label of a card with a Scarab Lords back (M18)


@dataclass(frozen=True, slots=True)
class PlacedSticker:
    """Where one Minotaur Lords face sticker lands in ``faces.pdf``: its page (from 0), its
    top-left corner and size in mm, and what its label says."""

    page: int
    x: float
    y: float
    w: float
    h: float
    payload: str
    name: str
    number: int  # the serial within its deck, from 1
    serial: str  # as the label prints it: the deck's letter and the number, "B07"
    scarab: bool


def minotaur_face_placements(kit: MinotaurKit) -> list[PlacedSticker]:
    """Every face sticker of a Minotaur Lords kit where ``faces.pdf`` prints it, each deck
    on its own page(s); tests use it."""
    opts = kit.options
    w, h = face_sticker_size(opts.code_mm, opts.quiet_modules)
    lay = grid_layout(opts.paper, w, h)
    backs = {c.name: c.back for c in kit.cards}
    out: list[PlacedSticker] = []
    page = 0
    for deck in ML_DECK_NAME:
        mine = [st for st in kit.stickers if st.deck == deck]
        for start in range(0, len(mine), lay.per_page):
            for i, st in enumerate(mine[start : start + lay.per_page]):
                sx, sy = lay.origin(i)
                serial = f"{ML_SERIAL_LETTER[deck]}{st.serial:02d}"
                scarab = backs[st.card] == "scarab"
                out.append(
                    PlacedSticker(
                        page, sx, sy, w, h, st.payload, st.card, st.serial, serial, scarab
                    )
                )
            page += 1
    return out


def _scarab_badge(pdf: FPDF, right: float, base: float, size: float) -> float:
    """Draws the Scarab mark, white on black, ending at ``right`` on the label's baseline
    ``base``; returns its left edge."""
    pdf.set_font("Helvetica", "B", size)
    tw = pdf.get_string_width(SCARAB_MARK)
    pad = 0.35
    h = size * 0.3528 + 0.5  # the font's height in mm, and a margin
    left = right - tw - 2 * pad
    pdf.set_fill_color(0, 0, 0)
    pdf.rect(left, base - h + 0.45, tw + 2 * pad, h, style="F")
    pdf.set_text_color(255, 255, 255)
    pdf.text(left + pad, base, SCARAB_MARK)
    return left


def minotaur_faces_pdf(kit: MinotaurKit, path: Path, lang: str = "en") -> None:
    """Writes the face stickers of a Minotaur Lords kit, each deck on its own page(s), each
    sticker with its code, the card's name, its deck letter and serial, and the Scarab mark
    on a card with a Scarab Lords back (M18). Raises OSError."""
    opts = kit.options
    title = said(Say("Minotaur Lords kit %(kit)s: face stickers", kit=kit.kit_id), lang)
    pdf = new_pdf(kit, False, title)
    module = opts.code_mm / QR_MODULES
    quiet = opts.quiet_modules * module
    places = minotaur_face_placements(kit)
    deck_of = {st.payload: st.deck for st in kit.stickers}
    for page in sorted({p.page for p in places}):
        on_page = [p for p in places if p.page == page]
        deck = deck_of[on_page[0].payload]
        total = sum(1 for st in kit.stickers if st.deck == deck)
        first, last = on_page[0].number, on_page[-1].number
        scarabs = any(p.scarab for p in places if deck_of[p.payload] == deck)
        note = Say(
            "Print at 100%% (actual size). Codes %(size)s mm. One sticker per card, on the "
            "sleeve front in a corner.",
            size=f"{opts.code_mm:g}",
        )
        scarab = Say("%(mark)s: a card with a Scarab Lords back (M18).", mark=SCARAB_MARK)
        pdf.add_page()
        header(
            pdf,
            (
                Say(
                    "%(deck)s: face stickers %(first)s-%(last)s of %(total)s",
                    deck=ML_DECK_NAME[deck],
                    first=first,
                    last=last,
                    total=total,
                ),
                Say("(kit %(kit)s)", kit=kit.kit_id),
            ),
            (note, scarab) if scarabs else (note,),
            opts.paper,
            lang,
        )
        side_ruler(pdf, opts.paper, lang)
        for p in on_page:
            cut_marks(pdf, p.x, p.y, p.w, p.h)
            draw_cells(pdf, qr_modules(p.payload), p.x + TRIM + quiet, p.y + TRIM + quiet, module)
            r, g, b = ML_DECK_RGB[deck]
            mark = f"{SCARAB_MARK}  " if p.scarab else ""
            name = said(Named(p.name, "minotaur card"), lang)  # as printed in the edition of lang
            size = fitted_size(
                pdf, f"{name}  {mark}{p.serial}", p.w - 2 * TRIM - 1.0, 6.0, 4.0, "B"
            )
            base = p.y + p.h - TRIM - 0.9
            right = p.x + p.w - TRIM - 0.3
            pdf.set_font("Helvetica", "", size)
            serial_left = right - pdf.get_string_width(p.serial)
            pdf.set_text_color(r, g, b)
            pdf.text(serial_left, base, p.serial)
            end = serial_left - 0.8
            if p.scarab:
                end = _scarab_badge(pdf, end, base, size)
            pdf.set_text_color(r, g, b)
            pdf.set_font("Helvetica", "B", size)
            left = p.x + TRIM + 0.3
            pdf.text(left, base, clipped(pdf, name, end - 0.8 - left))
            pdf.set_text_color(0, 0, 0)
    pdf.output(str(path))


def minotaur_backs_pdf(kit: MinotaurKit, path: Path, lang: str = "en") -> None:
    """Writes each deck's back marker, all identical within a deck. Raises OSError."""
    title = said(Say("Minotaur Lords kit %(kit)s: back markers", kit=kit.kit_id), lang)
    pdf = new_pdf(kit, False, title)
    for deck, name in ML_DECK_NAME.items():
        n = sum(1 for c in kit.cards if c.deck == deck)
        back_pages(pdf, kit.options, name, ML_SLEEVE[deck], n, ML_BACK_MARKER_IDS[deck], lang)
    pdf.output(str(path))


def write_minotaur_sheets(kit: MinotaurKit, out: Path, lang: str = "en") -> list[Path]:
    """Writes ``faces.pdf`` and ``backs.pdf`` of a Minotaur Lords kit into ``out``, their words
    in ``lang`` (the codes, names and serials as in every language)."""
    paths = [out / name for name in ML_PDF_FILES]
    minotaur_faces_pdf(kit, paths[0], lang)
    minotaur_backs_pdf(kit, paths[1], lang)
    return paths
