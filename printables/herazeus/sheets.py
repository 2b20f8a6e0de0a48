"""Print-ready PDFs of a Hera & Zeus kit: face stickers, back markers, the play mat and a test page.

Drawn with fpdf2 (a maintained, typed, pure-Python PDF library) in millimetres on A4 or Letter
pages whose MediaBox is the paper's physical size; every PDF asks viewers not to scale when
printing, and every page carries a scale bar to check with a ruler. Codes and markers are vector
rectangles, one per run of dark modules, so they print sharp at any resolution.

- ``faces.pdf``: one page per deck, a QR sticker per physical card (version 1, level Q,
  alphanumeric; ``make(fit=False)`` so an overlong payload fails instead of growing the code),
  a quiet zone of :data:`printables.herazeus.kit.QUIET_MODULES` modules, the card's name and serial
  under the code, cut marks around each sticker.
- ``backs.pdf``: one page per deck of **identical** ArUco markers (Hera 10, Zeus 11); nothing on
  a back names the card.
- ``mat.pdf``: the mat of :mod:`printables.herazeus.mat`, tiled over sheets that are cut and joined.
- ``test-page.pdf``: 100 mm rulers both ways and a sample code at the kit's size.

Raises :class:`printables.codes.PayloadError` when a payload does not fit version 1-Q, and
OSError when a file cannot be written.

Every PDF takes ``lang`` (``en``, ``it``, ``fr``, ``de``; default English): its titles,
instructions and the mat's labels are said in it (:func:`printables.sheets.said`). The codes,
markers, serials, kit id and the card names on the stickers are the same in every language.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from fpdf import FPDF

from engine.say import N_, Named, Say
from printables.herazeus.kit import DECKS, Kit
from printables.herazeus.mat import COLUMNS, ROWS, MatGeometry
from printables.herazeus.payload import (
    BACK_MARKER_IDS,
    MAT_CORNER_IDS,
    Deck,
)
from printables.sheets import (
    ARUCO_CELLS,
    GREY,
    PAGE_MARGIN,
    PAPER_MM,
    QR_MODULES,
    TRIM,
    StickerLayout,
    aruco_cells,
    back_pages,
    back_sticker_size,
    cut_marks,
    draw_cells,
    face_sticker_size,
    grid_layout,
    header,
    new_pdf,
    qr_modules,
    said,
    scale_bar,
    side_ruler,
    text_at,
    wrapped,
)

DECK_TITLE = {"hera": "Hera", "zeus": "Zeus"}
DECK_RGB = {"hera": (92, 45, 145), "zeus": (30, 110, 55)}  # violet and green, as the cards


def cell_name(owner: Deck, column: int, row: int, lang: str = "en") -> str:
    """What the mat prints at a cell's centre, in ``lang``."""
    # three labels set apart by two spaces (layout, not a sentence)
    where = Say("row %(row)s (front)", row=row) if row == 1 else Say("row %(row)s", row=row)
    column_words = said(Say("column %(column)s", column=column), lang)
    return "  ".join((DECK_TITLE[owner], column_words, said(where, lang)))


def side_name(side: Deck, lang: str = "en") -> str:
    """What the mat prints up its long margins for ``side``, in ``lang``."""
    whose = Say("%(deck)s'S SIDE", deck=DECK_TITLE[side].upper())
    rows = Say("(row 1 at the centre, row %(rows)s at the edge)", rows=ROWS)
    return said(whose, lang) + "   " + said(rows, lang)


PDF_FILES = ("faces.pdf", "backs.pdf", "mat.pdf", "test-page.pdf")


def face_layout(kit: Kit) -> StickerLayout:
    w, h = face_sticker_size(kit.options.code_mm, kit.options.quiet_modules)
    return grid_layout(kit.options.paper, w, h)


def back_layout(kit: Kit) -> StickerLayout:
    s = back_sticker_size(kit.options.back_marker_mm)
    return grid_layout(kit.options.paper, s, s)


@dataclass(frozen=True, slots=True)
class PlacedCode:
    """Where a face code was drawn: page (0-based), top-left and side of its dark modules."""

    page: int
    payload: str
    x: float
    y: float
    size: float


def face_placements(kit: Kit) -> list[PlacedCode]:
    """Where every face code of the kit lands in ``faces.pdf`` (page, mm); tests use it."""
    lay = face_layout(kit)
    module = kit.options.code_mm / QR_MODULES
    quiet = kit.options.quiet_modules * module
    out: list[PlacedCode] = []
    page = 0
    for deck in DECKS:
        stickers = [s for s in kit.stickers if s.deck == deck]
        for start in range(0, len(stickers), lay.per_page):
            for i, s in enumerate(stickers[start : start + lay.per_page]):
                sx, sy = lay.origin(i)
                out.append(
                    PlacedCode(
                        page, s.payload, sx + TRIM + quiet, sy + TRIM + quiet, kit.options.code_mm
                    )
                )
            page += 1
    return out


# -- the PDFs -----------------------------------------------------------------------------------


def faces_pdf(kit: Kit, path: Path, lang: str = "en") -> None:
    """Writes the face stickers, each deck on its own page(s). Raises PayloadError, OSError."""
    opts = kit.options
    title = said(Say("Hera & Zeus kit %(kit)s: face stickers", kit=kit.kit_id), lang)
    pdf = new_pdf(kit, False, title)
    lay = face_layout(kit)
    module = opts.code_mm / QR_MODULES
    places = face_placements(kit)
    by_payload = {s.payload: s for s in kit.stickers}
    page = -1
    for p in places:
        s = by_payload[p.payload]
        if p.page != page:
            page = p.page
            pdf.add_page()
            same = [q for q in places if q.page == page]
            first, last = by_payload[same[0].payload].serial, by_payload[same[-1].payload].serial
            total = sum(e.copies for e in kit.decks[s.deck])
            note = Say(
                "Print at 100%% (actual size). Codes %(size)s mm. One sticker per card, on the "
                "sleeve front in a bottom corner.",
                size=f"{opts.code_mm:g}",
            )
            notes = (note, PROVISIONAL) if kit.provisional else (note,)
            header(
                pdf,
                (
                    Say(
                        "%(deck)s's deck: face stickers %(first)s-%(last)s of %(total)s",
                        deck=DECK_TITLE[s.deck],
                        first=first,
                        last=last,
                        total=total,
                    ),
                    Say("(kit %(kit)s)", kit=kit.kit_id),
                ),
                notes,
                opts.paper,
                lang,
            )
            side_ruler(pdf, opts.paper, lang)
        sx, sy = p.x - TRIM - opts.quiet_modules * module, p.y - TRIM - opts.quiet_modules * module
        cut_marks(pdf, sx, sy, lay.sticker_w, lay.sticker_h)
        draw_cells(pdf, qr_modules(p.payload), p.x, p.y, module)
        r, g, b = DECK_RGB[s.deck]
        pdf.set_text_color(r, g, b)
        size = 6.0
        pdf.set_font("Helvetica", "B", size)
        serial = f"{DECK_TITLE[s.deck][0]}{s.serial:02d}"
        name = said(Named(s.card, "herazeus card"), lang)  # as printed in the edition of lang
        while pdf.get_string_width(name + "  " + serial) > lay.sticker_w - 2 * TRIM and size > 4:
            size -= 0.25
            pdf.set_font("Helvetica", "B", size)
        base = sy + lay.sticker_h - TRIM - 0.9
        pdf.text(sx + TRIM + 0.3, base, name)
        pdf.set_font("Helvetica", "", size)
        pdf.text(sx + lay.sticker_w - TRIM - 0.3 - pdf.get_string_width(serial), base, serial)
        pdf.set_text_color(0, 0, 0)
    pdf.output(str(path))


def backs_pdf(kit: Kit, path: Path, lang: str = "en") -> None:
    """Writes one page per deck of that deck's back marker, all identical. Raises OSError."""
    pdf = new_pdf(
        kit, False, said(Say("Hera & Zeus kit %(kit)s: back markers", kit=kit.kit_id), lang)
    )
    for deck in DECKS:
        n = sum(e.copies for e in kit.decks[deck])
        title = DECK_TITLE[deck]
        marker = BACK_MARKER_IDS[deck]
        deck_name = Say("%(deck)s's deck", deck=title)
        sleeve = Say("%(deck)s sleeve", deck=title)
        back_pages(pdf, kit.options, deck_name, sleeve, n, marker, lang)
    pdf.output(str(path))


@dataclass(frozen=True, slots=True)
class Tiling:
    """How the mat is cut into sheets: page orientation, window size and the tile grid."""

    landscape: bool
    window_w: float
    window_h: float
    columns: int
    rows: int

    @property
    def sheets(self) -> int:
        return self.columns * self.rows

    def windows(self) -> Iterator[tuple[int, int, float, float]]:
        """(column, row, mat x, mat y) of each sheet's window, row by row from the top."""
        for r in range(self.rows):
            for c in range(self.columns):
                yield c, r, c * self.window_w, r * self.window_h


def mat_tiling(mat: MatGeometry, paper: str) -> Tiling:
    """The orientation that needs the fewest sheets (landscape on a tie)."""
    w, h = PAPER_MM[paper]
    best: Tiling | None = None
    for landscape in (True, False):
        pw, ph = (h, w) if landscape else (w, h)
        ww, wh = pw - 2 * PAGE_MARGIN, ph - 2 * PAGE_MARGIN
        t = Tiling(landscape, ww, wh, math.ceil(mat.width / ww), math.ceil(mat.height / wh))
        if best is None or t.sheets < best.sheets:
            best = t
    assert best is not None
    return best


def mat_pdf(kit: Kit, path: Path, lang: str = "en") -> None:
    """Writes the play mat over several sheets with cut lines and join marks. Raises OSError."""
    mat, paper = kit.mat, kit.options.paper
    t = mat_tiling(mat, paper)
    pdf = new_pdf(
        kit, t.landscape, said(Say("Hera & Zeus kit %(kit)s: play mat", kit=kit.kit_id), lang)
    )
    for n, (c, r, mx, my) in enumerate(t.windows(), start=1):
        pdf.add_page()
        ox, oy = PAGE_MARGIN - mx, PAGE_MARGIN - my  # page position of the mat's origin
        where = (
            Say(
                "row %(row)s of %(rows)s, column %(column)s of %(columns)s",
                row=r + 1,
                rows=t.rows,
                column=c + 1,
                columns=t.columns,
            )
            if t.columns > 1
            else Say("row %(row)s of %(rows)s", row=r + 1, rows=t.rows)
        )
        pdf.set_text_color(0, 0, 0)
        line = Say(
            "Play mat, sheet %(sheet)s of %(sheets)s (%(where)s). Kit %(kit)s. Print at 100%%. "
            "Whole mat %(width)s x %(height)s mm.",
            sheet=n,
            sheets=t.sheets,
            where=where,
            kit=kit.kit_id,
            width=f"{mat.width:g}",
            height=f"{mat.height:g}",
        )
        text_at(pdf, PAGE_MARGIN, 6.5, said(line, lang), 7, "B")
        with pdf.rect_clip(PAGE_MARGIN, PAGE_MARGIN, t.window_w, t.window_h):
            _draw_mat(pdf, mat, ox, oy, lang)
        _join_marks(pdf, t, c, r, mat, lang)
    pdf.output(str(path))


def _draw_mat(pdf: FPDF, mat: MatGeometry, ox: float, oy: float, lang: str = "en") -> None:
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.3)
    pdf.rect(ox, oy, mat.width, mat.height)  # the mat's outline: trim line
    for marker_id, cx, cy in mat.corners:
        cell = mat.marker_size / ARUCO_CELLS
        x0, y0 = ox + cx - mat.marker_size / 2, oy + cy - mat.marker_size / 2
        draw_cells(pdf, aruco_cells(marker_id), x0, y0, cell)
    if mat.pattern is not None:  # the bare-mat pattern: grey squares, drawn under the rest
        level = round(255 * mat.pattern.grey)
        pdf.set_fill_color(level, level, level)
        for key in mat.cells:
            for x, y, w, h in mat.pattern_dots(key):
                pdf.rect(ox + x, oy + y, w, h, style="F")
        pdf.set_fill_color(0, 0, 0)
    for (owner, column, row), rect in mat.cells.items():
        rx, ry, rw, rh = rect.x + ox, rect.y + oy, rect.w, rect.h
        r, g, b = DECK_RGB[owner]
        pdf.set_draw_color(r, g, b)
        pdf.set_line_width(0.5)
        pdf.rect(rx, ry, rw, rh)
        pdf.set_text_color(*GREY)
        label = cell_name(owner, column, row, lang)
        pdf.set_font("Helvetica", "", 7)
        lw = pdf.get_string_width(label)
        cx, cy = rx + rw / 2, ry + rh / 2
        if owner == "hera":
            pdf.text(cx - lw / 2, cy + 1, label)
        else:
            with pdf.rotation(180, cx, cy):
                pdf.text(cx - lw / 2, cy + 1, label)
    band = mat.centre_band
    bx, by = band.x + ox, band.y + oy
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.3)
    pdf.set_dash_pattern(2, 1.5)
    pdf.line(bx, by + band.h / 2, bx + band.w, by + band.h / 2)
    pdf.set_dash_pattern()
    for col in range(1, COLUMNS + 1):
        cell_rect = mat.cells[("hera", col, 1)]
        cx = cell_rect.x + ox + cell_rect.w / 2
        pdf.set_font("Helvetica", "B", 14)
        label = str(col)
        lw = pdf.get_string_width(label)
        r, g, b = DECK_RGB["hera"]
        pdf.set_text_color(r, g, b)
        pdf.text(cx - lw / 2, by + band.h - 2.2, label)
        r, g, b = DECK_RGB["zeus"]
        pdf.set_text_color(r, g, b)
        with pdf.rotation(180, cx, by + band.h / 4):
            pdf.text(cx - lw / 2, by + band.h / 4 + 2.6, label)
    # Side names along the long edges, between the corner markers, readable from each seat.
    pdf.set_font("Helvetica", "B", 11)
    turns: tuple[tuple[Deck, int], ...] = (("hera", 1), ("zeus", -1))
    for side, sign in turns:
        r, g, b = DECK_RGB[side]
        pdf.set_text_color(r, g, b)
        text = side_name(side, lang)
        tw = pdf.get_string_width(text)
        for x, y in mat.side_name_centres(side):
            ex, mid = ox + x, oy + y
            with pdf.rotation(90 * sign, ex, mid):
                pdf.text(ex - tw / 2, mid + 1.5, text)
    pdf.set_text_color(0, 0, 0)


def _join_marks(pdf: FPDF, t: Tiling, c: int, r: int, mat: MatGeometry, lang: str = "en") -> None:
    """Cut lines on the edges joined to a previous sheet; join lines on the others."""
    x0, y0 = PAGE_MARGIN, PAGE_MARGIN
    x1, y1 = x0 + t.window_w, y0 + t.window_h
    pdf.set_line_width(0.2)
    pdf.set_draw_color(0, 0, 0)
    pdf.set_font("Helvetica", "", 6)
    pdf.set_text_color(60, 60, 60)
    n = r * t.columns + c + 1
    if r > 0:  # cut this sheet's top margin off; lay the cut edge on the sheet above's line
        pdf.set_dash_pattern(1.5, 1)
        pdf.line(x0 - 4, y0, x1 + 4, y0)
        pdf.set_dash_pattern()
        pdf.text(
            x0,
            y0 - 1.2,
            said(
                Say(
                    "cut here; lay this edge on the 'sheet %(sheet)s' line of sheet %(above)s",
                    sheet=n,
                    above=n - t.columns,
                ),
                lang,
            ),
        )
    if r < t.rows - 1 and y0 + t.window_h < PAGE_MARGIN + t.window_h + 1:
        pdf.line(x0 - 4, y1, x1 + 4, y1)
        pdf.text(
            x0,
            y1 + 3,
            said(Say("sheet %(sheet)s joins here (tape on the back)", sheet=n + t.columns), lang),
        )
    if c > 0:
        pdf.set_dash_pattern(1.5, 1)
        pdf.line(x0, y0 - 4, x0, y1 + 4)
        pdf.set_dash_pattern()
    if c < t.columns - 1:
        pdf.line(x1, y0 - 4, x1, y1 + 4)
    # Alignment ticks every 25 mm of the mat along the joined edges, on both sheets.
    for k in range(0, int(mat.width) + 1, 25):
        x = x0 + float(k) - c * t.window_w
        if x0 <= x <= x1:
            if r > 0:
                pdf.line(x, y0 - 3, x, y0)
            if r < t.rows - 1:
                pdf.line(x, y1, x, y1 + 2)
    pdf.set_text_color(0, 0, 0)


def test_page_pdf(kit: Kit, path: Path, lang: str = "en") -> None:
    """Writes the 100% check page: 100 mm rulers both ways, a sample code at the kit's size."""
    opts = kit.options
    title = said(Say("Hera & Zeus kit %(kit)s: printer test page", kit=kit.kit_id), lang)
    pdf = new_pdf(kit, False, title)
    pdf.add_page()
    header(pdf, TEST_TITLE, TEST_NOTE, opts.paper, lang)
    x, y = PAGE_MARGIN + 5, PAGE_MARGIN + 22
    scale_bar(pdf, x, y, 100.0)
    text_at(pdf, x + 104, y + 3, said(N_("100 mm across"), lang), 8)
    scale_bar(pdf, x, y + 18, 100.0, vertical=True)
    with pdf.rotation(90, x - 1.5, y + 118):
        text_at(pdf, x - 1.5, y + 118, said(N_("100 mm down"), lang), 8)
    module = opts.code_mm / QR_MODULES
    qx, qy = x + 30, y + 30
    draw_cells(pdf, qr_modules("HZ TEST PAGE"), qx, qy, module)
    text_at(
        pdf,
        qx + opts.code_mm + 6,
        qy + 4,
        said(
            Say(
                "A face code prints %(size)s mm square (this sample is no card).",
                size=f"{opts.code_mm:g}",
            ),
            lang,
        ),
        8,
    )
    text_at(
        pdf,
        qx + opts.code_mm + 6,
        qy + 9,
        said(
            Say(
                "Back markers print %(back)s mm; mat corner markers %(corner)s mm.",
                back=f"{opts.back_marker_mm:g}",
                corner=f"{kit.mat.marker_size:g}",
            ),
            lang,
        ),
        8,
    )
    lines = [said(ADVICE_TITLE, lang)]
    for advice, wraps in ADVICE:
        words = said(advice, lang)
        if wraps:  # at 8 pt, English breaks after "so the name" as it always did
            pdf.set_font("Helvetica", "", 8)
            first, *more = wrapped(pdf, words, ADVICE_WRAP_MM)
            lines += [first, *("  " + m for m in more)]
        else:
            lines.append(words)
    for i, line in enumerate(lines):
        text_at(pdf, x + 30, qy + opts.code_mm + 14 + i * 5, line, 8, "B" if i == 0 else "")
    pdf.output(str(path))


TEST_TITLE = N_("Printer test page: print this first, at 100% (actual size)")
TEST_NOTE = N_("Each bar must measure 100 mm with a ruler. If not, turn off 'fit to page'.")
PROVISIONAL = N_("PROVISIONAL deck list.")
ADVICE_TITLE = N_("Printing advice:")
ADVICE_WRAP_MM = 104.0  # the Faces advice, over two lines (or more in a longer language)
# each line of advice, and whether it is wrapped (the others fit the page in every language)
ADVICE: tuple[tuple[str, bool], ...] = (
    (
        N_("- Print every sheet at 100% / 'actual size'; never 'fit to page' or 'shrink to fit'."),
        False,
    ),
    (N_("- Matte white label paper: glossy labels and glossy sleeves glare under lamps."), False),
    (
        N_(
            "- Faces: one sticker per card, on the sleeve front in a bottom corner, so the name "
            "and the strength printed in the top corners stay readable."
        ),
        True,
    ),
    (N_("- Backs: the same marker centred on every sleeve back of a deck."), False),
    (
        N_(
            "- Mat: cut and tape the sheets in order; keep it flat and the corner markers "
            "uncovered."
        ),
        False,
    ),
)


def write_sheets(kit: Kit, out: Path, lang: str = "en") -> list[Path]:
    """Writes the four PDFs into ``out`` (created if needed), their words in ``lang``. Raises
    PayloadError, OSError."""
    out.mkdir(parents=True, exist_ok=True)
    makers = (faces_pdf, backs_pdf, mat_pdf, test_page_pdf)
    paths = [out / name for name in PDF_FILES]
    for make, p in zip(makers, paths, strict=True):
        make(kit, p, lang)
    return paths


__all__ = [
    "ARUCO_CELLS",
    "GREY",
    "MAT_CORNER_IDS",
    "PAGE_MARGIN",
    "PAPER_MM",
    "PDF_FILES",
    "QR_MODULES",
    "TRIM",
    "PlacedCode",
    "StickerLayout",
    "Tiling",
    "aruco_cells",
    "back_layout",
    "back_pages",
    "back_sticker_size",
    "cut_marks",
    "draw_cells",
    "face_layout",
    "face_placements",
    "face_sticker_size",
    "faces_pdf",
    "grid_layout",
    "header",
    "mat_pdf",
    "mat_tiling",
    "new_pdf",
    "qr_modules",
    "scale_bar",
    "side_ruler",
    "test_page_pdf",
    "text_at",
    "write_sheets",
]
