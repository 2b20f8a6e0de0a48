"""Print-ready PDFs of a Minotaur Lords kit (issue 15): faces and identical backs per deck; and
(issue 38) the code strips for the table camera and the play mat, drawn with the shared sheet
helpers (:mod:`printables.sheets`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from fpdf import FPDF

from engine.minotaur.cards import COLUMNS
from engine.say import Named, Say
from printables.minotaur.kit import MinotaurKit
from printables.minotaur.mat import (
    CORNER_IDS,
    SLOT_PITCH,
    SLOTS,
    MinotaurMat,
    centre_line,
    minotaur_mat,
)
from printables.minotaur.payload import ML_BACK_MARKER_IDS
from printables.sheets import (
    ARUCO_CELLS,
    GREY,
    PAGE_MARGIN,
    PAPER_MM,
    QR_MODULES,
    TRIM,
    aruco_cells,
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
    text_at,
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
ML_PDF_FILES = ("faces.pdf", "backs.pdf", "strips.pdf", "mat.pdf")
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
    minotaur_strips_pdf(kit, paths[2], lang)
    minotaur_mat_pdf(kit, paths[3], lang)
    return paths


# -- the table camera (issue 38): code strips and the play mat ------------------------------------

# A code strip runs along a card's top edge, the part of a card that stays visible when the
# next card of its column overlaps it (printables.minotaur.mat): the card's face code at the
# strip's left end, its name and serial beside it, where curse tokens may lie too. The code is
# always 20 mm whatever the face stickers' size: the mat's slot pitch is made for it (a 1080p
# camera over the mat sees 2.2 px a module, QR version 1's least; docs/vision.md)
STRIP_CODE_MM = 20.0
STRIP_QUIET = 2  # modules of white round the code (as the face stickers)
STRIP_INSET = 0.5  # the strip's white beyond the quiet zone, at its top and left
STRIP_W = 58.0
STRIP_H = STRIP_CODE_MM * (QR_MODULES + 2 * STRIP_QUIET) / QR_MODULES + 2 * STRIP_INSET  # 24.8


@dataclass(frozen=True, slots=True)
class PlacedStrip:
    """Where one code strip lands in ``strips.pdf``: its page (from 0), top-left corner (mm),
    its code and label."""

    page: int
    x: float
    y: float
    payload: str
    name: str
    serial: str
    scarab: bool  # a card with a Scarab Lords back (M18): its strip says so, as its face sticker


def minotaur_strip_placements(kit: MinotaurKit) -> list[PlacedStrip]:
    """Every code strip of a kit where ``strips.pdf`` prints it, deck after deck; tests use it."""
    lay = grid_layout(kit.options.paper, STRIP_W, STRIP_H)
    backs = {c.name: c.back for c in kit.cards}
    out: list[PlacedStrip] = []
    page = 0
    for deck in ML_DECK_NAME:
        mine = [st for st in kit.stickers if st.deck == deck]
        for start in range(0, len(mine), lay.per_page):
            for i, st in enumerate(mine[start : start + lay.per_page]):
                sx, sy = lay.origin(i)
                serial = f"{ML_SERIAL_LETTER[deck]}{st.serial:02d}"
                scarab = backs[st.card] == "scarab"
                out.append(PlacedStrip(page, sx, sy, st.payload, st.card, serial, scarab))
            page += 1
    return out


def minotaur_strips_pdf(kit: MinotaurKit, path: Path, lang: str = "en") -> None:
    """Writes the code strips of a kit: one per physical card, to stick along the card's top
    edge (on the sleeve), the code at the left as its owner holds it. Raises OSError."""
    title = said(Say("Minotaur Lords kit %(kit)s: code strips for the table", kit=kit.kit_id), lang)
    pdf = new_pdf(kit, False, title)
    module = STRIP_CODE_MM / QR_MODULES
    quiet = STRIP_QUIET * module
    places = minotaur_strip_placements(kit)
    note = Say(
        "Print at 100%% (actual size). One strip per card, along the top edge of the sleeve's "
        "front, the code at the left: it stays visible when the next card of the column covers "
        "the rest. Use these or the face stickers on a card, not both."
    )
    for page in sorted({p.page for p in places}):
        on_page = [p for p in places if p.page == page]
        pdf.add_page()
        header(
            pdf,
            (
                Say(
                    "Code strips %(first)s-%(last)s",
                    first=on_page[0].serial,
                    last=on_page[-1].serial,
                ),
                Say("(kit %(kit)s)", kit=kit.kit_id),
            ),
            (note,),
            kit.options.paper,
            lang,
        )
        side_ruler(pdf, kit.options.paper, lang)
        for p in on_page:
            cut_marks(pdf, p.x, p.y, STRIP_W, STRIP_H)
            draw_cells(
                pdf,
                qr_modules(p.payload),
                p.x + STRIP_INSET + quiet,
                p.y + STRIP_INSET + quiet,
                module,
            )
            left = p.x + STRIP_H + 1.0
            width = p.x + STRIP_W - 1.0 - left
            name = said(Named(p.name, "minotaur card"), lang)
            pdf.set_text_color(0, 0, 0)
            size = fitted_size(pdf, name, width, 9.0, 5.0, "B")
            pdf.set_font("Helvetica", "B", size)
            pdf.text(left, p.y + 8.0, clipped(pdf, name, width))
            pdf.set_font("Helvetica", "", 8)
            pdf.set_text_color(*GREY)
            pdf.text(left, p.y + 13.0, p.serial)
            if p.scarab:
                _scarab_badge(pdf, p.x + STRIP_W - 1.0, p.y + 13.0, 7.0)
            pdf.set_text_color(0, 0, 0)
    pdf.output(str(path))


# the mat's colours: each side's lanes in its deck's colour
_SIDE_RGB = {"miron": ML_DECK_RGB["miron"], "vess": ML_DECK_RGB["vess"]}
_COLUMN_NAME = {
    "upper-military": Say("upper military"),
    "upper-economic": Say("upper economic"),
    "upper-religious": Say("upper religious"),
    "lower-military": Say("lower military"),
    "lower-economic": Say("lower economic"),
    "lower-religious": Say("lower religious"),
}
TICK_MM = 3.5  # slot ticks inside a lane's long edges: outside what the camera tests


def minotaur_mat_pdf(kit: MinotaurKit, path: Path, lang: str = "en") -> None:
    """Writes the play mat tiled over sheets (landscape), each sheet saying where it goes.
    Raises OSError."""
    mat = minotaur_mat()
    w, h = PAPER_MM[kit.options.paper]
    ww, wh = h - 2 * PAGE_MARGIN, w - 2 * PAGE_MARGIN
    cols, rows = math.ceil(mat.width / ww), math.ceil(mat.height / wh)
    title = said(Say("Minotaur Lords kit %(kit)s: play mat", kit=kit.kit_id), lang)
    pdf = new_pdf(kit, True, title)
    n = 0
    for r in range(rows):
        for c in range(cols):
            n += 1
            pdf.add_page()
            line = Say(
                "Play mat, sheet %(sheet)s of %(sheets)s (row %(row)s, column %(column)s). "
                "Print at 100%%, cut at the mat's window, tape the sheets edge to edge. "
                "Whole mat %(width)s x %(height)s mm.",
                sheet=n,
                sheets=rows * cols,
                row=r + 1,
                column=c + 1,
                width=f"{mat.width:g}",
                height=f"{mat.height:g}",
            )
            pdf.set_text_color(0, 0, 0)
            text_at(pdf, PAGE_MARGIN, 6.5, said(line, lang), 7, "B")
            ox, oy = PAGE_MARGIN - c * ww, PAGE_MARGIN - r * wh
            with pdf.rect_clip(PAGE_MARGIN, PAGE_MARGIN, ww, wh):
                _draw_mat(pdf, mat, ox, oy, lang)
            pdf.set_draw_color(0, 0, 0)
            pdf.set_line_width(0.2)
            pdf.rect(PAGE_MARGIN, PAGE_MARGIN, ww, wh)
    pdf.output(str(path))


def _draw_mat(pdf: FPDF, mat: MinotaurMat, ox: float, oy: float, lang: str) -> None:
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.3)
    pdf.rect(ox, oy, mat.width, mat.height)
    for marker_id, cx, cy in mat.corners:
        assert marker_id in CORNER_IDS
        cell = mat.marker_size / ARUCO_CELLS
        draw_cells(
            pdf,
            aruco_cells(marker_id),
            ox + cx - mat.marker_size / 2,
            oy + cy - mat.marker_size / 2,
            cell,
        )
    # the centre line
    pdf.set_dash_pattern(2, 1.5)
    for x0, x1 in centre_line(mat):
        pdf.line(ox + x0, oy + mat.centre_y, ox + x1, oy + mat.centre_y)
    pdf.set_dash_pattern()
    for (side, column), rect in mat.lanes.items():
        rgb = _SIDE_RGB[side]
        pdf.set_draw_color(*rgb)
        pdf.set_line_width(0.4)
        pdf.rect(ox + rect.x, oy + rect.y, rect.w, rect.h)
        start, out = mat.lane_start(side), mat.outward(side)
        pdf.set_line_width(0.3)
        for k in range(SLOTS):  # each slot line: a tick in from both long edges
            y = oy + start + out * k * SLOT_PITCH
            pdf.line(ox + rect.x, y, ox + rect.x + TICK_MM, y)
            pdf.line(ox + rect.x + rect.w - TICK_MM, y, ox + rect.x + rect.w, y)
        # the column's name at the run-out's outer end, readable from the side's seat
        label = said(_COLUMN_NAME[column], lang)
        pdf.set_font("Helvetica", "", 7)
        pdf.set_text_color(*GREY)
        lw = pdf.get_string_width(label)
        cx = ox + rect.x + rect.w / 2
        end = start + out * (rect.h - 4.0)
        if side == "miron":
            pdf.text(cx - lw / 2, oy + end + 1.2, label)
        else:
            with pdf.rotation(180, cx, oy + end):
                pdf.text(cx - lw / 2, oy + end + 1.2, label)
    pdf.set_draw_color(*GREY)
    pdf.set_line_width(0.4)
    for i, r in enumerate(mat.deities):
        pdf.rect(ox + r.x, oy + r.y, r.w, r.h)
        if i == 0:
            pdf.set_font("Helvetica", "", 7)
            pdf.set_text_color(*GREY)
            label = said(Say("deities"), lang)
            lw = pdf.get_string_width(label)
            pdf.text(ox + r.x + (r.w - lw) / 2, oy + r.y - 1.5, label)
    pdf.set_text_color(0, 0, 0)
    assert len(COLUMNS) * 2 == len(mat.lanes)
