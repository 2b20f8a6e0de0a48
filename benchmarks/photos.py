"""Bring your own photos (issue 38, point 5): scores a folder of real photos, each labelled by a
text file beside it, with every reader there is. Run through ``benchmarks/vision.py``:

    .venv/bin/python benchmarks/vision.py --photos DIR [--kit kit.json] [--whole-file] [--one-core]

**The layout.** ``NAME.jpg`` (or ``.jpeg``, ``.png``) and ``NAME.txt`` beside it: the texts of the
codes the photo shows, one a line (UTF-8; a line's ending ``\\r`` and empty lines are not
texts). An empty ``.txt`` is a photo of no code: anything read there is wrong. A photo without
its ``.txt`` is not scored (counted as unlabelled). Folders are searched below ``DIR`` and
reported one by one, then together. The camera page's test photos (``referee serve --stills``)
are in this layout. zxing's public test sets (``core/src/test/resources/blackbox/qrcode-*``)
are too, but each ``.txt`` there holds ONE text that may run over several lines (a vCard, a
URL below a title), compared byte for byte: score them with ``--whole-file``.

**The readers**, each on the same photo, read once (timed with the photo already loaded):

- ``decode_all``: ``vision.decode_all(image)``, the phone photo path's decoding before any kit's
  codebook (zxing-cpp, its second pass, the retries, the deblur and our own finder);
- ``zxing-cpp``: one ``zxingcpp.read_barcodes`` call on the grey image, QR codes only, with
  ``try_invert`` off and, apart, on (light codes on a dark ground); its text as encoded
  (``TextMode.Plain``: its default, ``HRI``, writes a control character as ``<SOH>``);
- with ``--kit``, ``kit reader``: the kit's own reader for photos of its stickers
  (``read_cards``: the decoding above, each code checked against the kit, then the kit's
  codebook). It can only read the kit's codes, so it is scored on the expected texts that are
  the kit's payloads, and a code it reads that the ``.txt`` does not list is wrong.

For each photo: the codes read, missed and WRONG (a text read that the ``.txt`` does not list)
by each reader, and its time. For each folder and reader: codes read of expected, wrong,
photos fully read (every expected code read, nothing wrong), median ms a photo and the total.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


@dataclass(frozen=True)
class Photo:
    """A photo and the texts its label file says it shows."""

    path: Path
    expected: tuple[str, ...]


def expected_texts(label: Path, whole_file: bool = False) -> tuple[str, ...]:
    """The texts a label file lists: one a line, or (``whole_file``, zxing's layout) the whole
    file as one text, byte for byte. Raises ValueError naming the file when it is not UTF-8."""
    try:
        text = label.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{label}: not UTF-8 text") from None
    if whole_file:
        return (text,) if text else ()
    lines = (line.removesuffix("\r") for line in text.split("\n"))
    return tuple(line for line in lines if line)


def _natural(p: Path) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.name)]


def labelled_photos(root: Path, whole_file: bool = False) -> tuple[dict[Path, list[Photo]], int]:
    """The labelled photos below ``root``, by folder (in natural order), and the number of
    photos found without a label. Raises ValueError when ``root`` is no folder."""
    if not root.is_dir():
        raise ValueError(f"{root}: not a folder")
    folders: dict[Path, list[Photo]] = {}
    unlabelled = 0
    for path in sorted(root.rglob("*"), key=lambda p: (p.parent.as_posix(), _natural(p))):
        if path.suffix.lower() not in IMAGE_SUFFIXES or not path.is_file():
            continue
        label = path.with_suffix(".txt")
        if not label.is_file():
            unlabelled += 1
            continue
        folders.setdefault(path.parent, []).append(Photo(path, expected_texts(label, whole_file)))
    return folders, unlabelled


def score(expected: Sequence[str], got: Iterable[str]) -> tuple[int, list[str], list[str]]:
    """Codes read, the expected texts missed and the texts read that are not expected (each
    text once: a reader that lists a code twice reads it once)."""
    read = set(got)
    missed = [t for t in expected if t not in read]
    wrong = sorted(read - set(expected))
    return len(expected) - len(missed), missed, wrong


@dataclass
class Tally:
    """One reader's figures over a folder."""

    photos: int = 0
    expected: int = 0
    read: int = 0
    wrong: int = 0
    full: int = 0
    ms: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.photos += other.photos
        self.expected += other.expected
        self.read += other.read
        self.wrong += other.wrong
        self.full += other.full
        self.ms += other.ms

    def line(self) -> str:
        share = 100 * self.read / self.expected if self.expected else float("nan")
        med = statistics.median(self.ms) if self.ms else float("nan")
        return (
            f"{self.read:>5}/{self.expected:<5} {share:6.1f}% {self.wrong:>6} "
            f"{self.full:>5}/{self.photos:<5} {med:9.1f} {sum(self.ms) / 1000:8.2f}"
        )


@dataclass(frozen=True)
class Reader:
    """A reader: its name in the output, what it is, the texts it reads in an image, and which
    of a photo's expected texts it can read (None: all)."""

    name: str
    what: str
    read: Callable[[Any], list[str]]
    scope: Callable[[Sequence[str]], list[str]] | None = None


def readers(kit_path: str | None) -> tuple[list[Reader], list[str]]:
    """The readers to run, and a line for each one that cannot (and why)."""
    import zxingcpp

    from vision.decode import as_gray

    qr = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)

    def plain(invert: bool) -> Callable[[Any], list[str]]:
        def run(image: Any) -> list[str]:
            found = zxingcpp.read_barcodes(
                as_gray(image), formats=qr, try_invert=invert, text_mode=zxingcpp.TextMode.Plain
            )
            return [b.text for b in found if b.valid]

        return run

    out: list[Reader] = []
    skipped: list[str] = []
    try:
        from vision import decode_all
    except (ImportError, AttributeError):
        skipped.append("decode_all: vision.decode_all is not in this tree (branch photo)")
    else:
        out.append(
            Reader(
                "decode_all",
                "vision.decode_all(image): the photo path's decoding, before any kit's codebook",
                lambda image: [c.text for c in decode_all(image)],
            )
        )
    out.append(
        Reader(
            "zxing-cpp",
            "plain zxing-cpp: one read_barcodes call, QR codes, try_invert=False",
            plain(False),
        )
    )
    out.append(
        Reader(
            "zxing-cpp inv",
            "plain zxing-cpp: one read_barcodes call, QR codes, try_invert=True",
            plain(True),
        )
    )
    if kit_path:
        from vision.herazeus.cards import read_cards
        from vision.herazeus.kit import load_kit

        kit = load_kit(kit_path)
        payloads = set(kit.payloads)
        out.append(
            Reader(
                "kit reader",
                f"the kit's own reader (read_cards, kit {kit.kit_id}): scored only on the "
                "expected texts that are this kit's payloads",
                lambda image: [d.payload for d in read_cards(image, kit) if d.card is not None],
                lambda expected: [t for t in expected if t in payloads],
            )
        )
    return out, skipped


def _short(texts: Iterable[str]) -> str:
    return ", ".join(repr(t if len(t) <= 40 else t[:37] + "...") for t in texts)


def score_folders(
    root: Path,
    kit_path: str | None = None,
    whole_file: bool = False,
    say: Callable[[str], None] = print,
) -> dict[str, Tally]:
    """Scores every labelled photo below ``root`` with every reader, printing each photo's and
    each folder's figures; returns the totals by reader."""
    import cv2

    folders, unlabelled = labelled_photos(root, whole_file)
    runs, skipped = readers(kit_path)
    say(f"\n== photos below {root}: {sum(len(v) for v in folders.values())} labelled ==")
    say(
        f"  labels: {'one text a file (--whole-file)' if whole_file else 'one text a line'}; "
        f"{unlabelled} photo(s) without a .txt not scored"
    )
    for r in runs:
        say(f"  {r.name:14} {r.what}")
    for s in skipped:
        say(f"  (skipped) {s}")
    totals = {r.name: Tally() for r in runs}
    for folder, photos in folders.items():
        tallies = {r.name: Tally() for r in runs}
        say(f"\n-- {folder.relative_to(root) if folder != root else '.'}: {len(photos)} photos")
        for photo in photos:
            image = cv2.imread(str(photo.path), cv2.IMREAD_COLOR)
            if image is None:
                say(f"  {photo.path.name}: not an image OpenCV can read; not scored")
                continue
            parts = []
            notes = []
            for r in runs:
                want = r.scope(photo.expected) if r.scope else list(photo.expected)
                t0 = time.perf_counter()
                got = r.read(image)
                ms = 1000 * (time.perf_counter() - t0)
                read, missed, wrong = score(want, got)
                t = tallies[r.name]
                t.photos += 1
                t.expected += len(want)
                t.read += read
                t.wrong += len(wrong)
                t.full += not missed and not wrong
                t.ms.append(ms)
                parts.append(
                    f"{r.name} {read}/{len(want)}"
                    + (f" WRONG {len(wrong)}" if wrong else "")
                    + f" {ms:.0f} ms"
                )
                if missed:
                    notes.append(f"{r.name} missed {_short(missed)}")
                if wrong:
                    notes.append(f"{r.name} WRONG {_short(wrong)}")
            say(f"  {photo.path.name:>16}: " + "; ".join(parts))
            for n in notes:
                say(f"  {'':>16}  {n}")
        _table(say, tallies)
        for name, t in tallies.items():
            totals[name].add(t)
    if len(folders) > 1:
        say(f"\n-- all {len(folders)} folders")
        _table(say, totals)
    return totals


def _table(say: Callable[[str], None], tallies: dict[str, Tally]) -> None:
    head = f"{'codes read':>11} {'share':>7} {'WRONG':>6} {'fully read':>11} {'median ms':>9}"
    head += f" {'total s':>8}"
    say(f"  {'reader':14} {head}")
    for name, t in tallies.items():
        say(f"  {name:14} {t.line()}")
