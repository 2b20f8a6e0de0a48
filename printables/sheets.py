"""Print-ready PDFs of a kit: face stickers, back markers, the play mat and a test page.

Drawn with fpdf2 (a maintained, typed, pure-Python PDF library) in millimetres on A4 or Letter
pages whose MediaBox is the paper's physical size; every PDF asks viewers not to scale when
printing, and every page carries a scale bar to check with a ruler. Codes and markers are vector
rectangles, one per run of dark modules, so they print sharp at any resolution.

- ``faces.pdf``: one page per deck, a QR sticker per physical card (version 1, level Q,
  alphanumeric; ``make(fit=False)`` so an overlong payload fails instead of growing the code),
  a quiet zone of :data:`printables.kit.QUIET_MODULES` modules, the card's name and serial
  under the code, cut marks around each sticker.
- ``backs.pdf``: one page per deck of **identical** ArUco markers (Hera 10, Zeus 11); nothing on
  a back names the card.
- ``mat.pdf``: the mat of :mod:`printables.mat`, tiled over sheets that are cut and joined.
- ``test-page.pdf``: 100 mm rulers both ways and a sample code at the kit's size.

Raises :class:`printables.payload.PayloadError` when a payload does not fit version 1-Q, and
OSError when a file cannot be written.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import cv2
import qrcode  # type: ignore[import-untyped]
import qrcode.exceptions  # type: ignore[import-untyped]
import qrcode.util  # type: ignore[import-untyped]
from fpdf import FPDF
from fpdf.prefs import ViewerPreferences

from printables.kit import DECKS, Kit, PrintOptions
from printables.mat import COLUMNS, ROWS, MatGeometry
from printables.minotaur_kit import MinotaurKit
from printables.payload import (
    BACK_MARKER_IDS,
    MAT_CORNER_IDS,
    ML_BACK_MARKER_IDS,
    QR_VERSION,
    Deck,
    PayloadError,
)

PAPER_MM: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PAPER_NAME = {"a4": "A4 (210 x 297 mm)", "letter": "US Letter (8.5 x 11 in, 215.9 x 279.4 mm)"}
PAGE_MARGIN = 10.0  # what home printers leave white anyway
HEADER = 10.5  # title lines above the stickers (clear of the first cut marks)
RULER_STRIP = 12.0  # the vertical 50 mm scale bar on the right of sticker pages
GUTTER_MIN = 3.0  # between stickers: room for the cut marks
TRIM = 0.5  # white beyond the quiet zone, so a cut a little inside the marks keeps the zone
LABEL_H = 3.5  # the name/serial strip under a face code
CUT_MARK = 1.2  # length of a cut mark
QR_MODULES = 21  # version 1
ARUCO_CELLS = 6  # DICT_4X4: 4 x 4 data cells and a one-cell black border

DECK_TITLE = {"hera": "Hera", "zeus": "Zeus"}
DECK_RGB = {"hera": (92, 45, 145), "zeus": (30, 110, 55)}  # violet and green, as the cards
GREY = (150, 150, 150)


def cell_name(owner: Deck, column: int, row: int) -> str:
    """What the mat prints at a cell's centre."""
    return f"{DECK_TITLE[owner]}  column {column}  row {row}" + (" (front)" if row == 1 else "")


def side_name(side: Deck) -> str:
    """What the mat prints up its long margins for ``side``."""
    return f"{DECK_TITLE[side].upper()}'S SIDE   (row 1 at the centre, row {ROWS} at the edge)"


PDF_FILES = ("faces.pdf", "backs.pdf", "mat.pdf", "test-page.pdf")


# -- codes as module grids --------------------------------------------------------------------


def qr_modules(payload: str) -> list[list[bool]]:
    """The 21 x 21 modules (True = dark) of a face code, without quiet zone.

    Raises PayloadError when the payload does not fit QR version 1 at level Q in alphanumeric
    mode (too long, or characters outside QR's alphanumeric set).
    """
    if not qrcode.util.RE_ALPHA_NUM.match(payload.encode("ascii", "replace")):
        raise PayloadError(f"payload {payload!r} is not QR alphanumeric (A-Z, 0-9, space $%*+-./:)")
    qr = qrcode.QRCode(
        version=QR_VERSION,
        error_correction=qrcode.constants.ERROR_CORRECT_Q,
        box_size=1,
        border=0,
    )
    qr.add_data(qrcode.util.QRData(payload.encode("ascii"), mode=qrcode.util.MODE_ALPHA_NUM))
    try:
        qr.make(fit=False)
    except qrcode.exceptions.DataOverflowError:
        raise PayloadError(
            f"payload {payload!r} ({len(payload)} characters) does not fit QR version 1-Q"
        ) from None
    modules = [[bool(v) for v in row] for row in qr.modules]
    assert len(modules) == QR_MODULES
    return modules


def aruco_cells(marker_id: int) -> list[list[bool]]:
    """The 6 x 6 cells (True = dark) of a DICT_4X4_50 marker, black border included."""
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    img = cv2.aruco.generateImageMarker(d, marker_id, ARUCO_CELLS)
    return [[int(v) < 128 for v in row] for row in img]


# -- drawing helpers ----------------------------------------------------------------------------


def _new_pdf(kit: Kit | MinotaurKit, landscape: bool, title: str) -> FPDF:
    paper = kit.options.paper
    w, h = PAPER_MM[paper]
    pdf = FPDF(orientation="L" if landscape else "P", unit="mm", format=(w, h))
    pdf.set_auto_page_break(False)
    pdf.set_margins(0, 0, 0)
    pdf.set_title(title)
    pdf.set_creator("Hera & Zeus referee (referee kit)")
    # The kit's creation time, so the same kit.json always prints the same PDFs.
    pdf.set_creation_date(datetime.fromisoformat(kit.created.replace("Z", "+00:00")))
    pdf.viewer_preferences = ViewerPreferences(print_scaling="None")
    return pdf


def draw_cells(pdf: FPDF, cells: Sequence[Sequence[bool]], x: float, y: float, cell: float) -> None:
    """Draws dark cells as filled rectangles, one per horizontal run (black)."""
    pdf.set_fill_color(0, 0, 0)
    for r, row in enumerate(cells):
        c = 0
        while c < len(row):
            if not row[c]:
                c += 1
                continue
            start = c
            while c < len(row) and row[c]:
                c += 1
            # A hair taller than the module, so rows do not show seams when rasterised.
            pdf.rect(x + start * cell, y + r * cell, (c - start) * cell, cell * 1.002, style="F")


def _cut_marks(pdf: FPDF, x: float, y: float, w: float, h: float) -> None:
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.15)
    gap = 0.4
    for cx, sx in ((x, -1), (x + w, 1)):
        for cy, sy in ((y, -1), (y + h, 1)):
            pdf.line(cx + sx * gap, cy, cx + sx * (gap + CUT_MARK), cy)
            pdf.line(cx, cy + sy * gap, cx, cy + sy * (gap + CUT_MARK))


def _text(pdf: FPDF, x: float, y: float, text: str, size: float, style: str = "") -> None:
    pdf.set_font("Helvetica", style, size)
    pdf.text(x, y, text)


def _header(pdf: FPDF, title: str, note: str, paper: str) -> None:
    pdf.set_text_color(0, 0, 0)
    _text(pdf, PAGE_MARGIN, PAGE_MARGIN + 3.2, title, 10.5, "B")
    pdf.set_text_color(60, 60, 60)
    _text(pdf, PAGE_MARGIN, PAGE_MARGIN + 7.0, f"{note}  Paper: {PAPER_NAME[paper]}.", 6.8)
    pdf.set_text_color(0, 0, 0)


def scale_bar(pdf: FPDF, x: float, y: float, length: float, vertical: bool = False) -> None:
    """A ruler of ``length`` mm with a tick every millimetre (longer every 5 and 10)."""
    pdf.set_draw_color(0, 0, 0)
    pdf.set_fill_color(0, 0, 0)
    pdf.set_line_width(0.12)
    thick = 0.5
    if vertical:
        pdf.rect(x, y, thick, length, style="F")
    else:
        pdf.rect(x, y, length, thick, style="F")
    for mm in range(int(length) + 1):
        t = 3.0 if mm % 10 == 0 else 2.0 if mm % 5 == 0 else 1.2
        if vertical:
            pdf.line(x + thick, y + mm, x + thick + t, y + mm)
        else:
            pdf.line(x + mm, y + thick, x + mm, y + thick + t)
    pdf.set_font("Helvetica", "", 5.5)
    for mm in range(0, int(length) + 1, 10):
        label = str(mm)
        if vertical:
            pdf.text(x + thick + 3.4, y + mm + 0.8, label)
        else:
            pdf.text(x + mm - pdf.get_string_width(label) / 2, y + thick + 5.3, label)


def _side_ruler(pdf: FPDF, paper: str) -> None:
    w = PAPER_MM[paper][0]
    x = w - PAGE_MARGIN - RULER_STRIP + 3
    y = PAGE_MARGIN + HEADER + 2
    scale_bar(pdf, x, y, 50.0, vertical=True)
    with pdf.rotation(90, x + 9.5, y + 50):
        _text(pdf, x + 9.5, y + 50, "50 mm: check with a ruler", 5.5)


# -- sticker layout -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StickerLayout:
    """Where stickers go on a page, in millimetres from the page's top-left corner."""

    sticker_w: float
    sticker_h: float
    columns: int
    rows: int
    pitch_x: float
    pitch_y: float
    x0: float
    y0: float

    @property
    def per_page(self) -> int:
        return self.columns * self.rows

    def origin(self, i: int) -> tuple[float, float]:
        """Top-left corner of the ``i``-th sticker of a page (row by row)."""
        r, c = divmod(i, self.columns)
        return self.x0 + c * self.pitch_x, self.y0 + r * self.pitch_y


def grid_layout(paper: str, sticker_w: float, sticker_h: float) -> StickerLayout:
    """As many stickers as fit the page beside the ruler strip, centred, gutters spread.

    Raises ValueError when not even one sticker fits.
    """
    w, h = PAPER_MM[paper]
    area_w = w - 2 * PAGE_MARGIN - RULER_STRIP
    area_h = h - 2 * PAGE_MARGIN - HEADER
    cols = int((area_w + GUTTER_MIN) // (sticker_w + GUTTER_MIN))
    rows = int((area_h + GUTTER_MIN) // (sticker_h + GUTTER_MIN))
    if cols < 1 or rows < 1:
        raise ValueError(f"a {sticker_w:.0f} x {sticker_h:.0f} mm sticker does not fit on {paper}")
    gx = min(8.0, (area_w - cols * sticker_w) / max(1, cols - 1)) if cols > 1 else 0.0
    gy = min(8.0, (area_h - rows * sticker_h) / max(1, rows - 1)) if rows > 1 else 0.0
    used_w = cols * sticker_w + (cols - 1) * gx
    x0 = PAGE_MARGIN + (area_w - used_w) / 2
    return StickerLayout(
        sticker_w, sticker_h, cols, rows, sticker_w + gx, sticker_h + gy, x0, PAGE_MARGIN + HEADER
    )


def face_sticker_size(code_mm: float, quiet_modules: int) -> tuple[float, float]:
    """(width, height) in mm of a face sticker: code, quiet zone, trim, label strip."""
    side = code_mm * (QR_MODULES + 2 * quiet_modules) / QR_MODULES + 2 * TRIM
    return side, side + LABEL_H


def face_layout(kit: Kit) -> StickerLayout:
    w, h = face_sticker_size(kit.options.code_mm, kit.options.quiet_modules)
    return grid_layout(kit.options.paper, w, h)


def back_sticker_size(marker_mm: float) -> float:
    """Side in mm of a back sticker: the marker and one white cell all round."""
    return marker_mm * (ARUCO_CELLS + 2) / ARUCO_CELLS + 2 * TRIM


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


def faces_pdf(kit: Kit, path: Path) -> None:
    """Writes the face stickers, each deck on its own page(s). Raises PayloadError, OSError."""
    opts = kit.options
    pdf = _new_pdf(kit, False, f"Hera & Zeus kit {kit.kit_id}: face stickers")
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
            prov = "  PROVISIONAL deck list." if kit.provisional else ""
            _header(
                pdf,
                f"{DECK_TITLE[s.deck]}'s deck: face stickers {first}-{last} of {total}  "
                f"(kit {kit.kit_id})",
                f"Print at 100% (actual size). Codes {opts.code_mm:g} mm. One sticker per card, "
                f"on the sleeve front in a bottom corner.{prov}",
                opts.paper,
            )
            _side_ruler(pdf, opts.paper)
        sx, sy = p.x - TRIM - opts.quiet_modules * module, p.y - TRIM - opts.quiet_modules * module
        _cut_marks(pdf, sx, sy, lay.sticker_w, lay.sticker_h)
        draw_cells(pdf, qr_modules(p.payload), p.x, p.y, module)
        r, g, b = DECK_RGB[s.deck]
        pdf.set_text_color(r, g, b)
        size = 6.0
        pdf.set_font("Helvetica", "B", size)
        serial = f"{DECK_TITLE[s.deck][0]}{s.serial:02d}"
        name = s.card
        while pdf.get_string_width(name + "  " + serial) > lay.sticker_w - 2 * TRIM and size > 4:
            size -= 0.25
            pdf.set_font("Helvetica", "B", size)
        base = sy + lay.sticker_h - TRIM - 0.9
        pdf.text(sx + TRIM + 0.3, base, name)
        pdf.set_font("Helvetica", "", size)
        pdf.text(sx + lay.sticker_w - TRIM - 0.3 - pdf.get_string_width(serial), base, serial)
        pdf.set_text_color(0, 0, 0)
    pdf.output(str(path))


def backs_pdf(kit: Kit, path: Path) -> None:
    """Writes one page per deck of that deck's back marker, all identical. Raises OSError."""
    pdf = _new_pdf(kit, False, f"Hera & Zeus kit {kit.kit_id}: back markers")
    for deck in DECKS:
        n = sum(e.copies for e in kit.decks[deck])
        title = DECK_TITLE[deck]
        marker = BACK_MARKER_IDS[deck]
        _back_pages(pdf, kit.options, f"{title}'s deck", f"{title} sleeve", n, marker)
    pdf.output(str(path))


def _back_pages(
    pdf: FPDF, opts: PrintOptions, deck_name: str, sleeve: str, n: int, marker_id: int
) -> None:
    """The pages of one deck's back markers (``n`` needed), every one the same. ``deck_name``
    is the deck as the page title says it ("Hera's deck"), ``sleeve`` one of its sleeves."""
    side = back_sticker_size(opts.back_marker_mm)
    lay = grid_layout(opts.paper, side, side)
    cell = opts.back_marker_mm / ARUCO_CELLS
    cells = aruco_cells(marker_id)
    for _ in range(max(1, math.ceil(n / lay.per_page))):
        pdf.add_page()
        _header(
            pdf,
            f"{deck_name}: back markers ({lay.per_page} identical a page, {n} needed)",
            f"Print at 100%. One on the back of every {sleeve}, centred. "
            "All the same: a back never tells which card it is.",
            opts.paper,
        )
        _side_ruler(pdf, opts.paper)
        for i in range(lay.per_page):
            sx, sy = lay.origin(i)
            _cut_marks(pdf, sx, sy, lay.sticker_w, lay.sticker_h)
            draw_cells(pdf, cells, sx + TRIM + cell, sy + TRIM + cell, cell)


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


def mat_pdf(kit: Kit, path: Path) -> None:
    """Writes the play mat over several sheets with cut lines and join marks. Raises OSError."""
    mat, paper = kit.mat, kit.options.paper
    t = mat_tiling(mat, paper)
    pdf = _new_pdf(kit, t.landscape, f"Hera & Zeus kit {kit.kit_id}: play mat")
    for n, (c, r, mx, my) in enumerate(t.windows(), start=1):
        pdf.add_page()
        ox, oy = PAGE_MARGIN - mx, PAGE_MARGIN - my  # page position of the mat's origin
        where = f"row {r + 1} of {t.rows}" + (
            f", column {c + 1} of {t.columns}" if t.columns > 1 else ""
        )
        pdf.set_text_color(0, 0, 0)
        _text(
            pdf,
            PAGE_MARGIN,
            6.5,
            f"Play mat, sheet {n} of {t.sheets} ({where}). Kit {kit.kit_id}. Print at 100%. "
            f"Whole mat {mat.width:g} x {mat.height:g} mm.",
            7,
            "B",
        )
        with pdf.rect_clip(PAGE_MARGIN, PAGE_MARGIN, t.window_w, t.window_h):
            _draw_mat(pdf, mat, ox, oy)
        _join_marks(pdf, t, c, r, mat)
    pdf.output(str(path))


def _draw_mat(pdf: FPDF, mat: MatGeometry, ox: float, oy: float) -> None:
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.3)
    pdf.rect(ox, oy, mat.width, mat.height)  # the mat's outline: trim line
    for marker_id, cx, cy in mat.corners:
        cell = mat.marker_size / ARUCO_CELLS
        x0, y0 = ox + cx - mat.marker_size / 2, oy + cy - mat.marker_size / 2
        draw_cells(pdf, aruco_cells(marker_id), x0, y0, cell)
    for (owner, column, row), rect in mat.cells.items():
        rx, ry, rw, rh = rect.x + ox, rect.y + oy, rect.w, rect.h
        r, g, b = DECK_RGB[owner]
        pdf.set_draw_color(r, g, b)
        pdf.set_line_width(0.5)
        pdf.rect(rx, ry, rw, rh)
        pdf.set_text_color(*GREY)
        label = cell_name(owner, column, row)
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
        text = side_name(side)
        tw = pdf.get_string_width(text)
        for x, y in mat.side_name_centres(side):
            ex, mid = ox + x, oy + y
            with pdf.rotation(90 * sign, ex, mid):
                pdf.text(ex - tw / 2, mid + 1.5, text)
    pdf.set_text_color(0, 0, 0)


def _join_marks(pdf: FPDF, t: Tiling, c: int, r: int, mat: MatGeometry) -> None:
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
            f"cut here; lay this edge on the 'sheet {n}' line of sheet {n - t.columns}",
        )
    if r < t.rows - 1 and y0 + t.window_h < PAGE_MARGIN + t.window_h + 1:
        pdf.line(x0 - 4, y1, x1 + 4, y1)
        pdf.text(x0, y1 + 3, f"sheet {n + t.columns} joins here (tape on the back)")
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


def test_page_pdf(kit: Kit, path: Path) -> None:
    """Writes the 100% check page: 100 mm rulers both ways, a sample code at the kit's size."""
    opts = kit.options
    pdf = _new_pdf(kit, False, f"Hera & Zeus kit {kit.kit_id}: printer test page")
    pdf.add_page()
    _header(
        pdf,
        "Printer test page: print this first, at 100% (actual size)",
        "Each bar must measure 100 mm with a ruler. If not, turn off 'fit to page'.",
        opts.paper,
    )
    x, y = PAGE_MARGIN + 5, PAGE_MARGIN + 22
    scale_bar(pdf, x, y, 100.0)
    _text(pdf, x + 104, y + 3, "100 mm across", 8)
    scale_bar(pdf, x, y + 18, 100.0, vertical=True)
    with pdf.rotation(90, x - 1.5, y + 118):
        _text(pdf, x - 1.5, y + 118, "100 mm down", 8)
    module = opts.code_mm / QR_MODULES
    qx, qy = x + 30, y + 30
    draw_cells(pdf, qr_modules("HZ TEST PAGE"), qx, qy, module)
    _text(
        pdf,
        qx + opts.code_mm + 6,
        qy + 4,
        f"A face code prints {opts.code_mm:g} mm square (this sample is no card).",
        8,
    )
    _text(
        pdf,
        qx + opts.code_mm + 6,
        qy + 9,
        f"Back markers print {opts.back_marker_mm:g} mm; "
        f"mat corner markers {kit.mat.marker_size:g} mm.",
        8,
    )
    lines = [
        "Printing advice:",
        "- Print every sheet at 100% / 'actual size'; never 'fit to page' or 'shrink to fit'.",
        "- Matte white label paper: glossy labels and glossy sleeves glare under lamps.",
        "- Faces: one sticker per card, on the sleeve front in a bottom corner, so the name",
        "  and the strength printed in the top corners stay readable.",
        "- Backs: the same marker centred on every sleeve back of a deck.",
        "- Mat: cut and tape the sheets in order; keep it flat and the corner markers uncovered.",
    ]
    for i, line in enumerate(lines):
        _text(pdf, x + 30, qy + opts.code_mm + 14 + i * 5, line, 8, "B" if i == 0 else "")
    pdf.output(str(path))


def write_sheets(kit: Kit, out: Path) -> list[Path]:
    """Writes the four PDFs into ``out`` (created if needed). Raises PayloadError, OSError."""
    out.mkdir(parents=True, exist_ok=True)
    makers = (faces_pdf, backs_pdf, mat_pdf, test_page_pdf)
    paths = [out / name for name in PDF_FILES]
    for make, p in zip(makers, paths, strict=True):
        make(kit, p)
    return paths


__all__ = [
    "MAT_CORNER_IDS",
    "PAPER_MM",
    "PDF_FILES",
    "PlacedCode",
    "StickerLayout",
    "Tiling",
    "aruco_cells",
    "back_layout",
    "draw_cells",
    "face_layout",
    "face_placements",
    "faces_pdf",
    "mat_pdf",
    "mat_tiling",
    "qr_modules",
    "test_page_pdf",
    "write_sheets",
]


# -- Minotaur Lords (issue 15): faces and identical backs per deck, no mat yet --------------------

# Each deck by its name in the rules (MINOTAUR.md: House Miron's red deck, House Vess's blue
# deck, the white bonus deck), the letter of its serials and the colour of its labels.
ML_DECK_NAME = {"miron": "Miron's deck", "vess": "Vess's deck", "bonus": "The bonus deck"}
ML_SLEEVE = {"miron": "Miron sleeve", "vess": "Vess sleeve", "bonus": "bonus-deck sleeve"}
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


def _label_size(pdf: FPDF, text: str, width: float) -> float:
    """The font size, 6 pt down to 4 pt, at which ``text`` fits ``width`` mm in bold."""
    size = 6.0
    pdf.set_font("Helvetica", "B", size)
    while pdf.get_string_width(text) > width and size > 4:
        size -= 0.25
        pdf.set_font("Helvetica", "B", size)
    return size


def _clipped(pdf: FPDF, text: str, width: float) -> str:
    """``text`` in the current font, cut short with ".." to fit ``width`` mm."""
    if pdf.get_string_width(text) <= width:
        return text
    while text and pdf.get_string_width(text + "..") > width:
        text = text[:-1]
    return text.rstrip() + ".."


def minotaur_faces_pdf(kit: MinotaurKit, path: Path) -> None:
    """Writes the face stickers of a Minotaur Lords kit, each deck on its own page(s), each
    sticker with its code, the card's name, its deck letter and serial, and the Scarab mark
    on a card with a Scarab Lords back (M18). Raises OSError."""
    opts = kit.options
    pdf = _new_pdf(kit, False, f"Minotaur Lords kit {kit.kit_id}: face stickers")
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
        note = f"  {SCARAB_MARK}: a card with a Scarab Lords back (M18)." if scarabs else ""
        pdf.add_page()
        _header(
            pdf,
            f"{ML_DECK_NAME[deck]}: face stickers {first}-{last} of {total}  (kit {kit.kit_id})",
            f"Print at 100% (actual size). Codes {opts.code_mm:g} mm. One sticker per card, "
            f"on the sleeve front in a corner.{note}",
            opts.paper,
        )
        _side_ruler(pdf, opts.paper)
        for p in on_page:
            _cut_marks(pdf, p.x, p.y, p.w, p.h)
            draw_cells(pdf, qr_modules(p.payload), p.x + TRIM + quiet, p.y + TRIM + quiet, module)
            r, g, b = ML_DECK_RGB[deck]
            mark = f"{SCARAB_MARK}  " if p.scarab else ""
            size = _label_size(pdf, f"{p.name}  {mark}{p.serial}", p.w - 2 * TRIM - 1.0)
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
            pdf.text(left, base, _clipped(pdf, p.name, end - 0.8 - left))
            pdf.set_text_color(0, 0, 0)
    pdf.output(str(path))


def minotaur_backs_pdf(kit: MinotaurKit, path: Path) -> None:
    """Writes each deck's back marker, all identical within a deck. Raises OSError."""
    pdf = _new_pdf(kit, False, f"Minotaur Lords kit {kit.kit_id}: back markers")
    for deck, name in ML_DECK_NAME.items():
        n = sum(1 for c in kit.cards if c.deck == deck)
        _back_pages(pdf, kit.options, name, ML_SLEEVE[deck], n, ML_BACK_MARKER_IDS[deck])
    pdf.output(str(path))


def write_minotaur_sheets(kit: MinotaurKit, out: Path) -> list[Path]:
    """Writes ``faces.pdf`` and ``backs.pdf`` of a Minotaur Lords kit into ``out``."""
    paths = [out / name for name in ML_PDF_FILES]
    minotaur_faces_pdf(kit, paths[0])
    minotaur_backs_pdf(kit, paths[1])
    return paths
