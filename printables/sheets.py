"""What every game's print-ready PDFs share (drawn with fpdf2 in millimetres on A4 or Letter
pages whose MediaBox is the paper's physical size; every PDF asks viewers not to scale when
printing, and every page carries a scale bar to check with a ruler): QR and ArUco modules as
vector rectangles, sticker grids, cut marks, headers, rulers, and the pages of identical back
markers. Each game's sheets module draws its own kit with these.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import cv2
import qrcode  # type: ignore[import-untyped]
import qrcode.exceptions  # type: ignore[import-untyped]
import qrcode.util  # type: ignore[import-untyped]
from fpdf import FPDF
from fpdf.prefs import ViewerPreferences

from engine.say import N_, Say
from printables.codes import QR_VERSION, PayloadError
from printables.kits import PrintOptions


class Printed(Protocol):
    """A kit as its sheets need it: its print options and when it was made."""

    @property
    def options(self) -> PrintOptions: ...

    @property
    def created(self) -> str: ...


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
GREY = (150, 150, 150)


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


def check_link(url: str) -> None:
    """Raises ValueError for an empty link or one longer than a QR code a phone reads from paper
    comfortably (500 characters)."""
    if not url or len(url) > 500:
        raise ValueError(f"link {url[:60]!r}: a QR link must be 1 to 500 characters")


def link_modules(url: str) -> list[list[bool]]:
    """The square of modules (True = dark) of a QR code for a link, without quiet zone: level M,
    the smallest version that holds it. Raises ValueError as :func:`check_link` does."""
    check_link(url)
    qr = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, box_size=1, border=0)
    qr.add_data(url.encode("utf-8"))
    qr.make(fit=True)
    return [[bool(v) for v in row] for row in qr.modules]


def aruco_cells(marker_id: int) -> list[list[bool]]:
    """The 6 x 6 cells (True = dark) of a DICT_4X4_50 marker, black border included."""
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    img = cv2.aruco.generateImageMarker(d, marker_id, ARUCO_CELLS)
    return [[int(v) < 128 for v in row] for row in img]


# -- drawing helpers ----------------------------------------------------------------------------


def new_pdf(kit: Printed, landscape: bool, title: str) -> FPDF:
    """A PDF of ``kit``'s paper, dated when the kit was made, asking viewers not to scale."""
    # The kit's creation time, so the same kit.json always prints the same PDFs.
    created = datetime.fromisoformat(kit.created.replace("Z", "+00:00"))
    return paper_pdf(kit.options.paper, landscape, title, created, "referee kit")


def paper_pdf(paper: str, landscape: bool, title: str, created: datetime, maker: str) -> FPDF:
    """A PDF of ``paper`` ("a4" or "letter") in millimetres, no margins and no automatic page
    breaks, dated ``created`` (so the same input prints the same bytes), made by the referee's
    ``maker`` ("referee kit"), asking viewers not to scale when printing."""
    w, h = PAPER_MM[paper]
    pdf = FPDF(orientation="L" if landscape else "P", unit="mm", format=(w, h))
    pdf.set_auto_page_break(False)
    pdf.set_margins(0, 0, 0)
    pdf.set_title(title)
    pdf.set_creator(f"card game referee ({maker})")
    pdf.set_creation_date(created)
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


def cut_marks(pdf: FPDF, x: float, y: float, w: float, h: float) -> None:
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.15)
    gap = 0.4
    for cx, sx in ((x, -1), (x + w, 1)):
        for cy, sy in ((y, -1), (y + h, 1)):
            pdf.line(cx + sx * gap, cy, cx + sx * (gap + CUT_MARK), cy)
            pdf.line(cx, cy + sy * gap, cx, cy + sy * (gap + CUT_MARK))


def fitted_size(
    pdf: FPDF, text: str, width: float, size: float, smallest: float, style: str = ""
) -> float:
    """The font size, ``size`` pt down to ``smallest`` in quarter points, at which ``text``
    fits ``width`` mm in Helvetica of ``style``; the font is left set at that size."""
    pdf.set_font("Helvetica", style, size)
    while pdf.get_string_width(text) > width and size > smallest:
        size -= 0.25
        pdf.set_font("Helvetica", style, size)
    return size


def clipped(pdf: FPDF, text: str, width: float) -> str:
    """``text`` in the current font, cut short with ".." to fit ``width`` mm."""
    if pdf.get_string_width(text) <= width:
        return text
    while text and pdf.get_string_width(text + "..") > width:
        text = text[:-1]
    return text.rstrip() + ".."


_TYPOGRAPHY = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
    | {"\u2026": "...", "\u0153": "oe", "\u0152": "OE", "\u00a0": " ", "\u202f": " "}
)


def said(text: str, lang: str) -> str:
    """A marked sentence (an :class:`engine.say.Say` or an ``N_`` constant) in ``lang``
    (:func:`referee.language.say`), as the core PDF fonts write it: Latin-1, typographic
    quotes and dashes made plain, any other letter outside it a "?"."""
    from referee.language import say  # the catalogues, read only when a sheet is printed

    words = say(text, lang).translate(_TYPOGRAPHY)
    return words.encode("latin-1", "replace").decode("latin-1")


def text_at(pdf: FPDF, x: float, y: float, text: str, size: float, style: str = "") -> None:
    pdf.set_font("Helvetica", style, size)
    pdf.text(x, y, text)


Words = str | Sequence[str]


def _line(words: Words, lang: str) -> str:
    """One sentence, or several set apart by two spaces, each said in ``lang``."""
    parts = (words,) if isinstance(words, str) else words
    return "  ".join(said(w, lang) for w in parts)


def header(pdf: FPDF, title: Words, note: Words, paper: str, lang: str = "en") -> None:
    """A sticker page's title and note (marked sentences, or several of each set apart by two
    spaces, said in ``lang``) and its paper."""
    pdf.set_text_color(0, 0, 0)
    text_at(pdf, PAGE_MARGIN, PAGE_MARGIN + 3.2, _line(title, lang), 10.5, "B")
    pdf.set_text_color(60, 60, 60)
    notes = [note] if isinstance(note, str) else list(note)
    notes.append(Say("Paper: %(paper)s.", paper=PAPER_NAME[paper]))
    text_at(pdf, PAGE_MARGIN, PAGE_MARGIN + 7.0, _line(notes, lang), 6.8)
    pdf.set_text_color(0, 0, 0)


def wrapped(pdf: FPDF, text: str, width: float) -> list[str]:
    """``text`` cut between words into lines no wider than ``width`` mm in the current font
    (a word longer than that on a line of its own)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and pdf.get_string_width(lines[-1] + " " + word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines
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


def side_ruler(pdf: FPDF, paper: str, lang: str = "en") -> None:
    w = PAPER_MM[paper][0]
    x = w - PAGE_MARGIN - RULER_STRIP + 3
    y = PAGE_MARGIN + HEADER + 2
    scale_bar(pdf, x, y, 50.0, vertical=True)
    with pdf.rotation(90, x + 9.5, y + 50):
        text_at(pdf, x + 9.5, y + 50, said(N_("50 mm: check with a ruler"), lang), 5.5)


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


def back_sticker_size(marker_mm: float) -> float:
    """Side in mm of a back sticker: the marker and one white cell all round."""
    return marker_mm * (ARUCO_CELLS + 2) / ARUCO_CELLS + 2 * TRIM


def back_pages(
    pdf: FPDF,
    opts: PrintOptions,
    deck_name: str,
    sleeve: str,
    n: int,
    marker_id: int,
    lang: str = "en",
) -> None:
    """The pages of one deck's back markers (``n`` needed), every one the same. ``deck_name``
    is the deck as the page title says it ("X's deck"), ``sleeve`` one of its sleeves (each a
    Say or a name, said in ``lang`` with the page's words)."""
    side = back_sticker_size(opts.back_marker_mm)
    lay = grid_layout(opts.paper, side, side)
    cell = opts.back_marker_mm / ARUCO_CELLS
    cells = aruco_cells(marker_id)
    for _ in range(max(1, math.ceil(n / lay.per_page))):
        pdf.add_page()
        header(
            pdf,
            Say(
                "%(deck)s: back markers (%(per_page)s identical a page, %(needed)s needed)",
                deck=deck_name,
                per_page=lay.per_page,
                needed=n,
            ),
            Say(
                "Print at 100%%. One on the back of every %(sleeve)s, centred. All the same: a "
                "back never tells which card it is.",
                sleeve=sleeve,
            ),
            opts.paper,
            lang,
        )
        side_ruler(pdf, opts.paper, lang)
        for i in range(lay.per_page):
            sx, sy = lay.origin(i)
            cut_marks(pdf, sx, sy, lay.sticker_w, lay.sticker_h)
            draw_cells(pdf, cells, sx + TRIM + cell, sy + TRIM + cell, cell)
